//! A feed's result as programs read it (`--format json`, `/api/feed`): the public record
//! schema `{"rank","id","title","score","interest","near","why","url","arxiv","year","date"}`.

use serde::Serialize;

use super::candidates::Candidate;
use super::{Library, Scored};
use crate::corpus::Paper;
use crate::index::Searcher;

/// One result as `--format json` prints it.
#[derive(Debug, Serialize)]
pub struct FeedRecord {
    pub rank: usize,
    pub id: String,
    pub title: String,
    pub score: f64,
    pub interest: String,
    pub near: Vec<String>,
    pub why: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arxiv: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub year: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// Far from the library ([`Candidate::far`]); `why` says so. Absent otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub far: bool,
}

/// The why of a result: the library papers of its interest it is closest to.
pub fn record(
    index: &Searcher,
    lib: &Library,
    c: &Candidate,
    s: &Scored,
    rank: usize,
) -> FeedRecord {
    let near: Vec<&Paper> = s.near.iter().map(|&(i, _)| &index.papers()[i]).collect();
    // First, where a table's cut cannot hide it; a far paper's nearest papers are not close.
    let lead = if c.far {
        "far from your library (its title comes no closer to it than most searches about other \
         fields); nearest there: "
    } else {
        "close to "
    };
    let why = format!(
        "{lead}{}",
        near.iter()
            .take(2)
            .map(|p| p.title.as_str())
            .collect::<Vec<_>>()
            .join("; ")
    );
    FeedRecord {
        rank,
        id: super::candidates::shown_id(&c.key, &c.paper.title),
        title: c.paper.title.clone(),
        score: (f64::from(s.score) * 1000.0).round() / 1000.0,
        interest: lib.interests[s.interest].name.clone(),
        near: near.iter().map(|p| p.id.clone()).collect(),
        why,
        url: c.paper.href(),
        arxiv: c.paper.arxiv.clone(),
        year: c.paper.year,
        date: c.date.clone(),
        far: c.far,
    }
}
