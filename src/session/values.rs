//! The values both front ends parse and check before asking a [`super::Session`]: the
//! options of one ranking query, a query's text, a topic, a kind or a mode by name, and the
//! guess a loose name resolved to.

use crate::corpus::Kind;
use crate::engine::{self, Filters, Matched, Mode};

use super::SessionError;

/// The options of one ranking query (`--like`, `search`, and their HTTP endpoints), checked
/// when built. A new per-query switch (such as exact search without the HNSW graph) is one
/// more field here, passed on in [`Session::related`] and [`Session::search`]; front ends build
/// this with `..QueryOptions::default()` so they keep compiling.
#[derive(Debug, Clone)]
pub struct QueryOptions {
    /// Number of results, at least 1.
    pub top: usize,
    /// Which signals rank the results.
    pub mode: Mode,
    /// Which papers may be results.
    pub filters: Filters,
}

impl Default for QueryOptions {
    fn default() -> QueryOptions {
        QueryOptions {
            top: 10,
            mode: Mode::Hybrid,
            filters: Filters::default(),
        }
    }
}

impl QueryOptions {
    /// Check what can be checked without an index.
    pub fn validated(self) -> Result<QueryOptions, SessionError> {
        if self.top == 0 {
            return Err(SessionError::Input("-n/--limit must be at least 1".into()));
        }
        Ok(self)
    }
}

/// A free-text query within the length limit of every query input
/// ([`engine::MAX_QUERY_CHARS`]) that holds at least one letter or digit: a query of only
/// punctuation or symbols ("!!!", "???") has nothing to match, and its embedding would rank
/// the list by noise.
pub fn check_query(text: &str) -> Result<(), SessionError> {
    engine::resolve::check_length(text)?;
    if text.trim().is_empty() {
        return Err(SessionError::Input(
            "empty query: give some words to search for".into(),
        ));
    }
    if !text.chars().any(char::is_alphanumeric) {
        return Err(SessionError::Input(format!(
            "the query {:?} has no words, only punctuation or symbols: give some words to \
             search for",
            text.trim()
        )));
    }
    Ok(())
}

/// Refuse a topic filter that matches none of `n` papers (almost always a typo), naming the
/// topics there are. `accepts(i)` says whether paper `i` matches, `topic_of(i)` names its topic.
pub fn check_topic(
    topic: &str,
    n: usize,
    accepts: impl Fn(usize) -> bool,
    topic_of: impl Fn(usize) -> String,
) -> Result<(), SessionError> {
    if (0..n).any(accepts) {
        return Ok(());
    }
    let mut topics: Vec<String> = (0..n).map(topic_of).filter(|t| !t.is_empty()).collect();
    topics.sort();
    topics.dedup();
    if topics.is_empty() {
        return Err(SessionError::Input(format!(
            "no paper has a topic matching {topic:?}: this list files no paper under a section \
             (give each record a `topic` or `section` and rebuild; \
             `recommend topics` shows the clusters the papers fall into)"
        )));
    }
    Err(SessionError::Input(format!(
        "no paper has a topic matching {topic:?}; topics are: {}",
        topics.join(", ")
    )))
}

/// A value given for a closed set (a kind, a mode) that names none of its members.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("must be one of {}, not {value:?}", names.join(", "))]
pub struct UnknownValue {
    /// The value as given.
    pub value: String,
    /// The names accepted, in their order.
    pub names: Vec<&'static str>,
}

/// The member of `all` named `value` (surrounding whitespace and ASCII case ignored, as the
/// CLI's flags ignore case).
fn named<T: Copy>(all: &[T], name: fn(T) -> &'static str, value: &str) -> Result<T, UnknownValue> {
    let v = value.trim();
    all.iter()
        .copied()
        .find(|&x| name(x).eq_ignore_ascii_case(v))
        .ok_or_else(|| UnknownValue {
            value: value.to_string(),
            names: all.iter().map(|&x| name(x)).collect(),
        })
}

/// A paper kind by its name (`survey`, `method`, ...; [`Kind::as_str`]), as `--kind` and the
/// HTTP `kind` parameter take it.
pub fn parse_kind(value: &str) -> Result<Kind, UnknownValue> {
    named(&Kind::ALL, Kind::as_str, value)
}

/// A ranking mode by its name (`hybrid`, `dense`, `lexical`; [`Mode::as_str`]), as `--mode`
/// and the HTTP `mode` parameter take it.
pub fn parse_mode(value: &str) -> Result<Mode, UnknownValue> {
    named(&Mode::ALL, Mode::as_str, value)
}

/// A paper name taken as a paper it does not name exactly: the only paper whose name contains
/// it, or the clearly closest name. Front ends announce it (its `Display` is the note), so that
/// a guess is never silent.
#[derive(Debug, Clone, PartialEq)]
pub struct Guess {
    /// The name as given, trimmed.
    pub name: String,
    /// The paper taken (its position in the index), its id and title.
    pub paper: usize,
    pub id: String,
    pub title: String,
    /// [`Matched::Contains`] or [`Matched::Fuzzy`].
    pub matched: Matched,
}

impl std::fmt::Display for Guess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let how = match self.matched {
            Matched::Contains => "the only paper whose name contains it",
            _ => "the closest name",
        };
        write!(
            f,
            "{:?} taken as {:?} [{}], {how}",
            crate::render::neutralize(&self.name),
            crate::render::neutralize(&self.title),
            self.id
        )
    }
}
