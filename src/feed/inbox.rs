//! The feed a server keeps: candidates embedded once at start, ranked on every request with the
//! ratings of that moment (`/api/feed`), and rated by the same rule as `recommend rate`
//! (`/api/rate`). Ratings are written one at a time.

use std::sync::Mutex;

use super::candidates::{self, Candidate};
use super::home::Home;
use super::rating::{self, RateError};
use super::records::{FeedRecord, record};
use super::state::{StateError, Verdict};
use super::{Feedback, Learner, Library, lexical_similarities, rank_with};
use crate::index::Searcher;

/// What an Inbox request asks.
#[derive(Debug, Clone, Default)]
pub struct InboxQuery {
    pub limit: usize,
    /// Only the interest whose name holds this (any case).
    pub interest: Option<String>,
    /// Rated papers too.
    pub all: bool,
}

/// Candidates with their vectors, ranked against one library.
pub struct Inbox {
    candidates: Vec<Candidate>,
    /// The raw vectors (what a rating stores) and the library-centred ones (what ranks).
    raw: Vec<Vec<f32>>,
    centred: Vec<Vec<f32>>,
    /// The candidates' lexical similarities with the library ([`lexical_similarities`]).
    lexical: ndarray::Array2<f32>,
    library: Library,
    writes: Mutex<()>,
}

impl Inbox {
    /// `candidates` and their passage vectors (one each, of the index's model), for `index`.
    pub fn new(index: &Searcher, candidates: Vec<Candidate>, vectors: Vec<Vec<f32>>) -> Inbox {
        let library = Library::of_index(index);
        let centred = vectors.iter().map(|v| library.center(v)).collect();
        let papers: Vec<&crate::corpus::Paper> = candidates.iter().map(|c| &c.paper).collect();
        let lexical = lexical_similarities(index.lexical(), &papers);
        Inbox {
            candidates,
            raw: vectors,
            centred,
            lexical,
            library,
            writes: Mutex::new(()),
        }
    }

    pub fn len(&self) -> usize {
        self.candidates.len()
    }

    pub fn is_empty(&self) -> bool {
        self.candidates.is_empty()
    }

    /// The library's interests, by name.
    pub fn interests(&self) -> Vec<&str> {
        self.library
            .interests
            .iter()
            .map(|i| i.name.as_str())
            .collect()
    }

    /// The ranked candidates with the reader's ratings kept by `home`.
    pub fn records(
        &self,
        index: &Searcher,
        home: &dyn Home,
        q: &InboxQuery,
    ) -> Result<Vec<FeedRecord>, StateError> {
        let state = home.state()?;
        let feedback = Feedback::of(index, &self.library, &state);
        let mut ranked = rank_with(
            &self.library,
            &self.centred,
            Some(&self.lexical),
            &feedback,
            Learner::DEFAULT,
        );
        // The far mark as the reader's ratings leave it (a paper rated up is theirs).
        let up = candidates::Known::rated_up(&state);
        let far = |i: usize| candidates::still_far(&self.candidates[i], &up);
        candidates::far_last(&mut ranked, far);
        let rated = candidates::Known::rated(&state);
        Ok(ranked
            .iter()
            .filter(|s| q.all || rated.key_of(&self.candidates[s.candidate]).is_none())
            .filter(|s| {
                q.interest.as_deref().is_none_or(|n| {
                    candidates::mentions(&self.library.interests[s.interest].name, n)
                })
            })
            .take(q.limit)
            .enumerate()
            .map(|(r, s)| {
                let c = &self.candidates[s.candidate];
                if c.far && !far(s.candidate) {
                    // Rated up since the Inbox marked it: shown as not far.
                    let mine = Candidate {
                        far: false,
                        ..c.clone()
                    };
                    record(index, &self.library, &mine, s, r + 1)
                } else {
                    record(index, &self.library, c, s, r + 1)
                }
            })
            .collect())
    }

    /// Rates `id` (a candidate, a paper a feed showed, or a library paper); `None` forgets.
    pub fn rate(
        &self,
        index: &Searcher,
        home: &dyn Home,
        id: &str,
        verdict: Option<Verdict>,
    ) -> Result<String, RateError> {
        let _one_at_a_time = self.writes.lock().unwrap_or_else(|e| e.into_inner());
        let named = |wanted: &str| {
            self.candidates
                .iter()
                .position(|c| candidates::names(&c.key, &c.paper.title, wanted))
        };
        // Part of a title on the page names the paper it belongs to, as the CLI reads part of a
        // shown title; part of several is ambiguous, and they are listed.
        let part = crate::text::name_key(id);
        let unknown = || {
            matches!(
                crate::engine::resolve::resolve(index, id.trim()),
                Err(crate::engine::resolve::ResolveError::Unknown { .. })
            )
        };
        let mut within = None;
        if named(id.trim()).is_none() && part.chars().count() >= 4 && unknown() {
            let holding: Vec<usize> = (0..self.candidates.len())
                .filter(|&i| crate::text::name_key(&self.candidates[i].paper.title).contains(&part))
                .collect();
            if holding.len() > 1 {
                let listed: Vec<String> = holding
                    .iter()
                    .map(|&i| {
                        let c = &self.candidates[i];
                        format!(
                            "{} ({})",
                            candidates::shown_id(&c.key, &c.paper.title),
                            c.paper.title
                        )
                    })
                    .collect();
                return Err(RateError::Ambiguous(format!(
                    "{id:?} matches {} papers of the Inbox: {}; give one's id",
                    listed.len(),
                    listed.join(", ")
                )));
            }
            within = holding.first().copied();
        }
        let lookup = |wanted: &str| {
            named(wanted).or(within).map(|i| {
                let c = &self.candidates[i];
                (c.key.clone(), c.paper.title.clone(), self.raw[i].clone())
            })
        };
        rating::rate(index, home, id, verdict, &lookup)
    }
}
