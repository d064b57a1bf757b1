//! What a reading path is made of: its steps and its errors. The paths themselves are built
//! by [`super::reading`] over an index.

use crate::corpus::Kind;
use serde::Serialize;

/// One step of a reading path.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Step {
    pub step: usize,
    pub id: String,
    pub title: String,
    pub kind: Kind,
    /// the paper's section (`topic_en` when known, else `topic`)
    pub topic: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub year: Option<u16>,
    /// where to read it (see [`crate::corpus::Paper::href`])
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// why this step follows, in English
    pub why: String,
    /// On the last step of a reading path shorter than asked for: why it ends there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    #[error("paper index {index} is out of range: the corpus has {len} papers")]
    OutOfRange { index: usize, len: usize },
    #[error("a reading path needs at least one step")]
    ZeroSteps,
    #[error("a path from a paper to itself has no steps; give two different papers")]
    SamePaper,
    #[error("no chain of related papers leads from '{from}' to '{to}'")]
    Unreachable { from: String, to: String },
}
