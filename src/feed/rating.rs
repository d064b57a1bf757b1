//! Rating a paper: what `recommend rate` and the server's Inbox do, by one rule. A paper is
//! found among those a feed showed (by id or title), then among the caller's own candidates,
//! then in the library; its vector goes into the reader's state ([`super::home::Home`]) with the
//! verdict.

use super::candidates;
use super::home::Home;
use super::state::{Rating, Shown, State, StateError, Verdict};
use crate::engine::resolve::ResolveError;
use crate::index::Searcher;
use crate::text::name_key;
use crate::util::date::today;

/// Why a rating was not recorded.
#[derive(Debug, thiserror::Error)]
pub enum RateError {
    #[error("{0:?} has no rating to clear")]
    NoRating(String),
    #[error(
        "the vector of {0:?} is no longer cached; run the feed that showed it again \
         (`recommend feed FILE --all`), then rate it (if that feed said the vector cache was \
         not saved, make its folder writable or free space first: until then no paper can be \
         rated)"
    )]
    NotCached(String),
    #[error("{wanted:?} is neither a paper a feed showed nor one of the library ({reason}){hint}")]
    Unknown {
        wanted: String,
        reason: String,
        /// "; shown in a feed: ..." with the closest shown papers, or empty.
        hint: String,
    },
    #[error("{0} (ids of papers a feed showed are what `recommend feed` printed)")]
    Ambiguous(String),
    #[error(transparent)]
    State(#[from] StateError),
}

impl RateError {
    /// The request named nothing ratable (exit 2, HTTP 404/400), not a failure of the machine.
    pub fn is_input(&self) -> bool {
        !matches!(self, RateError::State(_))
    }
}

/// A paper the caller can rate besides the shown and the library ones: key, title, vector.
pub type Extra<'a> = &'a dyn Fn(&str) -> Option<(String, String, Vec<f32>)>;

/// The paper a feed showed that `wanted` names: by its key, the id shown for it, or its title.
fn shown_as<'s>(state: &'s State, wanted: &str) -> Option<(&'s String, &'s Shown)> {
    state
        .shown
        .iter()
        .find(|(k, s)| candidates::names(k, &s.title, wanted))
}

/// The key of the rating `wanted` names, by every name a rating accepts: the key itself, the
/// id or title shown with it, a library paper's id, title or alias, a caller's candidate.
fn rated_key(index: &Searcher, state: &State, wanted: &str, extra: Extra<'_>) -> Option<String> {
    let named = |k: &str| state.ratings.contains_key(k).then(|| k.to_string());
    state
        .ratings
        .iter()
        .find(|(k, r)| candidates::names(k, &r.title, wanted))
        .map(|(k, _)| k.clone())
        .or_else(|| shown_as(state, wanted).and_then(|(k, _)| named(k)))
        .or_else(|| extra(wanted).and_then(|(k, _, _)| named(&k)))
        .or_else(|| match crate::engine::resolve::resolve(index, wanted) {
            Ok(i) => named(&candidates::key(&index.papers()[i])),
            Err(ResolveError::Unknown { .. }) => {
                shown_containing(state, wanted).and_then(|(k, _)| named(k))
            }
            Err(_) => None,
        })
}

/// The one paper a feed showed whose title contains `wanted` (folded as names are, at least
/// four letters or digits), when exactly one does: a table cuts ids and titles short, and
/// what a reader can copy is the start of a title. Tried only after the library and the
/// caller's candidates, so a paper's own name never rates a shown paper that mentions it.
fn shown_containing<'s>(state: &'s State, wanted: &str) -> Option<(&'s String, &'s Shown)> {
    let found = all_shown_containing(state, wanted);
    (found.len() == 1).then(|| found[0])
}

/// Every paper a feed showed whose title contains `wanted` (as [`shown_containing`] reads it).
fn all_shown_containing<'s>(state: &'s State, wanted: &str) -> Vec<(&'s String, &'s Shown)> {
    let part = name_key(wanted);
    if part.chars().count() < 4 {
        return Vec::new();
    }
    state
        .shown
        .iter()
        .filter(|(_, s)| name_key(&s.title).contains(&part))
        .collect()
}

/// Records `verdict` (`None`: forget the rating) for the paper `id` names, in the reader's state
/// kept by `home`; returns the paper's title. Atomic: on any error the state is as it was.
pub fn rate(
    index: &Searcher,
    home: &dyn Home,
    id: &str,
    verdict: Option<Verdict>,
    extra: Extra<'_>,
) -> Result<String, RateError> {
    let mut state = home.state()?;
    // `arXiv:2401.00009`, an abs/ link or a versioned id name the paper its bare id keys.
    let bare = crate::corpus::fields::normalize_arxiv(id.trim());
    let wanted = bare.as_deref().unwrap_or(id.trim());
    let Some(verdict) = verdict else {
        let key = rated_key(index, &state, wanted, extra)
            .ok_or_else(|| RateError::NoRating(wanted.to_string()))?;
        let title = state
            .ratings
            .remove(&key)
            .map(|r| r.title)
            .unwrap_or_default();
        home.save_state(&mut state)?;
        return Ok(title);
    };
    let exact = shown_as(&state, wanted);
    // The library is looked at only when no shown paper has this name.
    let resolved = exact
        .is_none()
        .then(|| crate::engine::resolve::resolve(index, wanted));
    let unknown = matches!(resolved, Some(Err(ResolveError::Unknown { .. })));
    let shown = exact
        .or_else(|| {
            (unknown && extra(wanted).is_none())
                .then(|| shown_containing(&state, wanted))
                .flatten()
        })
        .map(|(k, s)| (k.clone(), s.clone()));
    let (key, title, vector) = if let Some((k, s)) = shown {
        let (cache, _) = home.vectors(std::slice::from_ref(&s.text));
        match cache.vectors.get(&s.text) {
            Some(v) => (k, s.title, v.clone()),
            None => match extra(wanted) {
                Some(found) => found,
                None => return Err(RateError::NotCached(wanted.to_string())),
            },
        }
    } else if let Some(found) = extra(wanted) {
        found
    } else {
        match resolved.unwrap_or_else(|| crate::engine::resolve::resolve(index, wanted)) {
            Ok(i) => {
                let p = &index.papers()[i];
                (
                    candidates::key(p),
                    p.title.clone(),
                    index.vector(i).to_vec(),
                )
            }
            // In the library, but under more than one paper: the library's message says which.
            Err(e @ ResolveError::Ambiguous { .. }) => {
                return Err(RateError::Ambiguous(e.to_string()));
            }
            Err(e) => {
                // Part of the titles of several shown papers: the reader meant one of them.
                let several = all_shown_containing(&state, wanted);
                if several.len() > 1 {
                    let named: Vec<String> = several
                        .iter()
                        .map(|(k, s)| {
                            format!("{} ({})", candidates::shown_id(k, &s.title), s.title)
                        })
                        .collect();
                    return Err(RateError::Ambiguous(format!(
                        "{wanted:?} matches {} papers a feed showed: {}; give one's id",
                        named.len(),
                        named.join(", ")
                    )));
                }
                let close = suggestions(&state, wanted);
                return Err(RateError::Unknown {
                    wanted: wanted.to_string(),
                    reason: e.to_string(),
                    hint: if close.is_empty() {
                        String::new()
                    } else {
                        format!("; shown in a feed: {}", close.join(", "))
                    },
                });
            }
        }
    };
    state.ratings.insert(
        key,
        Rating {
            verdict,
            title: title.clone(),
            vector,
            date: today(),
        },
    );
    home.save_state(&mut state)?;
    Ok(title)
}

/// Shown papers whose id or title is close to `query`, best first.
fn suggestions(state: &State, query: &str) -> Vec<String> {
    let q = name_key(query);
    let mut scored: Vec<(f64, String)> = state
        .shown
        .iter()
        .map(|(k, s)| {
            // A title holding the query (a word of it, "Sparse") is as close as a near spelling.
            let holds = q.chars().count() >= 4 && name_key(&s.title).contains(&q);
            let a = if holds {
                1.0
            } else {
                strsim::jaro_winkler(&q, &name_key(&s.title))
            };
            let id = candidates::shown_id(k, &s.title);
            let b = strsim::jaro_winkler(query, &id);
            (a.max(b), format!("{id} ({})", s.title))
        })
        .filter(|(s, _)| *s > 0.75)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored.into_iter().take(3).map(|(_, s)| s).collect()
}
