//! The corpus: paper records, their loading and validation, and importers.
//!
//! Knows nothing of models or indexes.

pub mod abstracts;
pub mod arxiv;
pub mod bibtex;
pub mod delimited;
pub mod error;
pub mod facets;
pub mod fields;
pub mod files;
pub mod import;
mod lines;
pub mod load;
pub mod markdown;
pub mod paper;
pub mod ris;
pub mod zotero;

pub use error::{CorpusError, Problem};
pub use files::{fingerprint, fingerprint_all};
pub use import::{Format, LoadOptions};
pub use load::Corpus;
pub use paper::{Kind, Paper};

use sha2::{Digest, Sha256};

/// A hash of the corpus content (not its formatting): an index built from a corpus records it,
/// so a changed corpus is detected as a stale index.
pub fn content_hash(papers: &[Paper]) -> String {
    let mut h = Sha256::new();
    for p in papers {
        // serde_json of a struct is deterministic (field order is the declaration order)
        h.update(serde_json::to_vec(p).unwrap_or_default());
        h.update(b"\n");
    }
    hex::encode(h.finalize())
}
