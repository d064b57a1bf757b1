//! The paper record: the one unit of data every later step works on.

use serde::{Deserialize, Serialize};

/// What sort of work a paper is. The seeds advise reading 综述 (surveys) first, then
/// 方法 (methods), then 系统 (systems); reading paths follow that order.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Survey,
    #[default]
    Method,
    System,
    Benchmark,
    Dataset,
    Model,
}

impl Kind {
    pub const ALL: [Kind; 6] = [
        Kind::Survey,
        Kind::Method,
        Kind::System,
        Kind::Benchmark,
        Kind::Dataset,
        Kind::Model,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Survey => "survey",
            Kind::Method => "method",
            Kind::System => "system",
            Kind::Benchmark => "benchmark",
            Kind::Dataset => "dataset",
            Kind::Model => "model",
        }
    }

    /// Position in the seeds' recommended reading order (survey -> method -> system); resources
    /// a method is evaluated on (benchmarks, datasets) and released models sit between.
    pub fn reading_stage(self) -> u8 {
        match self {
            Kind::Survey => 0,
            Kind::Benchmark | Kind::Dataset => 1,
            Kind::Method => 2,
            Kind::Model => 3,
            Kind::System => 4,
        }
    }

    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL
            .into_iter()
            .find(|k| k.as_str().eq_ignore_ascii_case(s.trim()))
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One paper. The JSONL corpus format is exactly this struct, one object per line; only `id`
/// and `title` are required (see `corpus/README.md`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Paper {
    /// Stable slug: lowercase ASCII letters, digits and `-`.
    pub id: String,
    /// The English title (or the name the paper is known by).
    pub title: String,
    /// Short names and the parts of "A / B" names; each resolves to this paper.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// The description (Chinese in the seed corpus).
    #[serde(default)]
    pub highlight: String,
    /// The section the paper is filed under (Chinese in the seed corpus).
    #[serde(default)]
    pub topic: String,
    /// An English rendering of `topic`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub topic_en: String,
    #[serde(default)]
    pub kind: Kind,
    #[serde(default)]
    pub open_source: bool,
    /// Where the paper lives: "arXiv", "GitHub", "OpenReview", a blog, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
    /// Which source documents name the paper.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<String>,
    /// One of the six agent capabilities of seed 002, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capability: Option<String>,
    /// One of the four research directions of seed 003, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<String>,
}
