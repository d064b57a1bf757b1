//! Where the model lives: the model directory, the files in it, and the ONNX Runtime library.

use super::super::files;
use super::super::onnx::Variant;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Paths of an installed model.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ModelFiles {
    pub dir: PathBuf,
    pub variant: Variant,
    pub onnx: PathBuf,
    pub tokenizer: PathBuf,
    pub config: PathBuf,
    pub special_tokens_map: PathBuf,
    pub tokenizer_config: PathBuf,
    /// The ONNX Runtime library installed with the model (see [`ort_lib_override`]).
    pub ort_lib: PathBuf,
    /// The optimised graph (`model.ort`), when the install holds one that verifies; the
    /// embedder falls back to `onnx` without it.
    pub optimized: Option<PathBuf>,
}

impl ModelFiles {
    /// The expected paths in `dir` (whether or not they exist).
    pub fn in_dir(dir: &Path, variant: Variant) -> ModelFiles {
        ModelFiles {
            dir: dir.to_path_buf(),
            variant,
            onnx: dir.join(files::ONNX),
            tokenizer: dir.join(files::TOKENIZER),
            config: dir.join(files::CONFIG),
            special_tokens_map: dir.join(files::SPECIAL_TOKENS),
            tokenizer_config: dir.join(files::TOKENIZER_CONFIG),
            ort_lib: dir.join(files::ORT_LIB),
            optimized: None,
        }
    }
}

/// `RECOMMEND_MODEL_DIR`, if set and not empty.
pub fn model_dir_from_env() -> Option<PathBuf> {
    std::env::var_os("RECOMMEND_MODEL_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// The model directory: `RECOMMEND_MODEL_DIR`; else `./models` when the current directory holds
/// `models/manifest.toml` (a checkout of this repository); else `$XDG_DATA_HOME/recommend/models`
/// or `~/.local/share/recommend/models`.
pub fn default_model_dir() -> PathBuf {
    if let Some(dir) = model_dir_from_env() {
        return dir;
    }
    if let Ok(cwd) = std::env::current_dir()
        && cwd.join("models").join("manifest.toml").is_file()
    {
        return cwd.join("models");
    }
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".local").join("share"))
        })
        .unwrap_or_else(|| PathBuf::from("."));
    data.join("recommend").join("models")
}

/// `RECOMMEND_ORT_LIB`, else `ORT_DYLIB_PATH`, if set and not empty.
pub fn ort_lib_override() -> Option<PathBuf> {
    ["RECOMMEND_ORT_LIB", "ORT_DYLIB_PATH"]
        .iter()
        .filter_map(std::env::var_os)
        .find(|v| !v.is_empty())
        .map(PathBuf::from)
}
