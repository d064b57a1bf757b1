//! How often search calls its best match weak ([`crate::engine::reference`]), on queries about
//! the list and on queries from other fields, sentences and short ones apart: a short query
//! comes closer to any list than a sentence does.

use std::collections::BTreeSet;

use serde::Serialize;

use super::{Judged, QueryInput, query_inputs};
use crate::engine::{self, Filters, Mode};
use crate::index::{Reference, Script, Searcher};
use crate::model::{Embedder, ModelError};

/// Queries besides the judged ones that put the weak-match note to the test.
#[derive(Debug, Clone, Default)]
pub struct WeakProbes {
    /// Queries from other fields (`bench/offtopic-queries.txt`), mostly sentences.
    pub offtopic: Vec<String>,
    /// Short queries from other fields (`bench/offtopic-short-queries.txt`).
    pub offtopic_short: Vec<String>,
    /// Short queries about the field of the shipped list, with the ids of the shipped papers
    /// judged to answer them (`bench/judgments-short-queries.jsonl`): on another list of the
    /// field, a query the list is about all the same.
    pub infield_short: Vec<(String, BTreeSet<String>)>,
}

/// How often search calls its best match weak: on the judged queries, which are about the
/// list, and on queries from other fields, which are not.
#[derive(Debug, Clone, Serialize)]
pub struct WeakMatchScore {
    pub judged_queries: usize,
    /// Judged queries called weak matches: false alarms.
    pub judged_flagged: usize,
    /// ... of which the first result is judged relevant all the same.
    pub judged_flagged_answered: usize,
    pub offtopic_queries: usize,
    /// Queries from other fields called weak matches: what the flag is for.
    pub offtopic_flagged: usize,
    pub offtopic_short_queries: usize,
    /// Short queries from other fields called weak matches.
    pub offtopic_short_flagged: usize,
    pub infield_short_queries: usize,
    /// Short queries about the field called weak matches: false alarms where the list is
    /// about the field.
    pub infield_short_flagged: usize,
    /// ... of which the first result is one judged to answer it (the shipped list only).
    pub infield_short_flagged_answered: usize,
}

/// [`WeakMatchScore`] of the shipped search on `judged` and the `probes`; `None` when the
/// index has no search reference.
pub fn weak_match_score(
    index: &Searcher,
    judged: &Judged,
    probes: &WeakProbes,
    embedder: &Embedder,
) -> Result<Option<WeakMatchScore>, ModelError> {
    if Reference::ALL.iter().all(|&k| {
        [Script::Latin, Script::Cjk]
            .iter()
            .all(|&s| index.match_reference(k, s).is_none())
    }) {
        return Ok(None);
    }
    // The first result of each query, and whether it was called weak.
    let firsts = |queries: &[&str]| -> Result<Vec<Option<(usize, bool)>>, ModelError> {
        if queries.is_empty() {
            return Ok(Vec::new());
        }
        let inputs = query_inputs(index, embedder, queries)?;
        Ok(queries
            .iter()
            .zip(&inputs)
            .map(|(q, (vector, tokens)): (_, &QueryInput)| {
                engine::search(
                    index,
                    q,
                    Some(vector),
                    tokens.as_ref(),
                    1,
                    Mode::Hybrid,
                    &Filters::default(),
                )
                .into_iter()
                .next()
                .map(|h| (h.paper, h.weak_match.is_some()))
            })
            .collect())
    };
    let flagged = |firsts: &[Option<(usize, bool)>]| {
        firsts
            .iter()
            .filter(|f| matches!(f, Some((_, true))))
            .count()
    };
    let queries: Vec<&str> = judged.search.iter().map(|(_, q, _)| q.as_str()).collect();
    let judged_firsts = firsts(&queries)?;
    let judged_answered = judged
        .search
        .iter()
        .zip(&judged_firsts)
        .filter(|((_, _, grades), f)| {
            matches!(f, Some((p, true)) if grades.get(p).is_some_and(|&g| g >= 1))
        })
        .count();
    let off: Vec<&str> = probes.offtopic.iter().map(String::as_str).collect();
    let off_short: Vec<&str> = probes.offtopic_short.iter().map(String::as_str).collect();
    let infield: Vec<&str> = probes
        .infield_short
        .iter()
        .map(|(q, _)| q.as_str())
        .collect();
    let infield_firsts = firsts(&infield)?;
    let infield_answered = probes
        .infield_short
        .iter()
        .zip(&infield_firsts)
        .filter(|((_, ids), f)| matches!(f, Some((p, true)) if ids.contains(&index.paper(*p).id)))
        .count();
    Ok(Some(WeakMatchScore {
        judged_queries: queries.len(),
        judged_flagged: flagged(&judged_firsts),
        judged_flagged_answered: judged_answered,
        offtopic_queries: off.len(),
        offtopic_flagged: flagged(&firsts(&off)?),
        offtopic_short_queries: off_short.len(),
        offtopic_short_flagged: flagged(&firsts(&off_short)?),
        infield_short_queries: infield.len(),
        infield_short_flagged: flagged(&infield_firsts),
        infield_short_flagged_answered: infield_answered,
    }))
}
