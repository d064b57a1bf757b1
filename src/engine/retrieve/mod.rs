//! Related work (`--like`) and free-text search.
//!
//! Related work compares papers on five signals, fused by [`super::fusion`]: the embedding
//! cosine after removing the corpus centroid (what is specific to a paper, not what every
//! paper of the field shares), the TF-IDF cosine of specific terms, the overlap of curated
//! tags, `builds_on` links and, on a list of bare titles only, how the titles are spelled. Search fuses the query-passage embedding cosine with BM25 over
//! the query and its glossary translations (weighted by [`fusion::search_weights`]); a query
//! that is exactly a paper's name puts that paper first. Explanations come from
//! [`super::explain`].
//!
//! Here: the modes, filters, hits and the related-work ranking. Which papers are scored and on
//! which signals is in `scope`, search in `search`, link strengths and neighbours in `links`.

mod links;
mod scope;
mod search;

pub use links::{calibrated, link_strength_cuts, neighbours, with_like_neighbours};
pub use search::search;

use scope::Scope;

use serde::Serialize;

use super::explain;
use super::fusion;
use crate::corpus::{Kind, Paper};
use crate::index::Searcher;
use crate::index::ann::top_hits;

/// Which signals rank the results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    #[default]
    Hybrid,
    Dense,
    Lexical,
}

impl Mode {
    pub const ALL: [Mode; 3] = [Mode::Hybrid, Mode::Dense, Mode::Lexical];
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Hybrid => "hybrid",
            Mode::Dense => "dense",
            Mode::Lexical => "lexical",
        }
    }
}

/// How much a negative seed (`--unlike`) pulls a candidate down, relative to the seeds' pull up.
const UNLIKE_WEIGHT: f32 = 0.7;
/// Candidates taken from each retriever before fusion, when not scanning everything.
const POOL: usize = 200;
/// The papers nearest a seed's own vector (the seed among them) that a related-work query on a
/// large index scores: what the store keeps for each paper (`crate::store`).
pub const SEED_NEAREST: usize = POOL + 1;

/// Restrictions on which papers may be returned.
#[derive(Debug, Clone, Default)]
pub struct Filters {
    /// Substring of the topic (Chinese or English rendering), case-insensitive.
    pub topic: Option<String>,
    pub kind: Option<Kind>,
    pub open_source: bool,
}

impl Filters {
    pub fn is_empty(&self) -> bool {
        self.topic.is_none() && self.kind.is_none() && !self.open_source
    }

    pub fn accepts(&self, p: &Paper) -> bool {
        self.accepts_fields(&p.topic, &p.topic_en, &p.also_topics, p.kind, p.open_source)
    }

    /// [`Filters::accepts`] for paper `i` of `index`, reading only the fields it needs.
    pub fn accepts_at(&self, index: &Searcher, i: usize) -> bool {
        if self.is_empty() {
            return true;
        }
        let t = index.table();
        let also = if self.topic.is_some() {
            t.also_topics(i)
        } else {
            Vec::new()
        };
        self.accepts_fields(
            &t.topic(i),
            &t.topic_en(i),
            &also,
            t.kind(i),
            t.open_source(i),
        )
    }

    /// The topic filter matches the paper's section, its English rendering, or any other
    /// section the paper is filed under.
    fn accepts_fields(
        &self,
        topic: &str,
        topic_en: &str,
        also_topics: &[String],
        kind: Kind,
        open_source: bool,
    ) -> bool {
        if let Some(t) = &self.topic {
            let t = t.to_lowercase();
            let matches = |s: &str| s.to_lowercase().contains(&t);
            if !matches(topic) && !matches(topic_en) && !also_topics.iter().any(|s| matches(s)) {
                return false;
            }
        }
        if self.kind.is_some_and(|k| k != kind) {
            return false;
        }
        !self.open_source || open_source
    }
}

/// One ranked result.
#[derive(Debug, Clone, Serialize)]
pub struct Hit {
    /// Position of the paper in the index.
    pub paper: usize,
    /// The ranking score: fused (hybrid), cosine (dense) or lexical.
    pub score: f32,
    /// Cosine similarity of the embeddings (before any centering or fusion).
    pub dense: f32,
    /// Lexical score: TF-IDF cosine for `--like`, BM25 for search.
    pub lexical: f32,
    /// Share of the candidates this result outranks (0..=1): the scale `why` reports.
    pub percentile: f32,
    /// Where the result's score stands among this list's related-work links (0..=1, see
    /// [`Index::link_strengths`]); `None` for search, for several seeds, negatives, filters or
    /// one signal alone (other scales), and for an index built without the strengths.
    pub link_strength: Option<f32>,
    /// Search: where the query's best match stands in this list's
    /// [`crate::index::Reference::Neighbours`] reference (0..=1, see [`Index::match_reference`]),
    /// the same on every result of one query. `None` for related work, lexical search, a query
    /// that names a paper, and an index without that reference (a list of titles).
    pub match_strength: Option<f32>,
    /// Search: the query is about nothing in this list, and why
    /// ([`super::reference::weak_match`]); the same on every result of one query. `None` where
    /// [`Hit::match_strength`] is, or where the query is not weak.
    pub weak_match: Option<super::reference::WeakMatch>,
    /// Why this paper is here, in words.
    pub why: String,
}

/// Papers related to `seeds` and unlike `negatives`, best first; never a seed or a negative.
pub fn related(
    index: &Searcher,
    seeds: &[usize],
    negatives: &[usize],
    k: usize,
    mode: Mode,
    filters: &Filters,
) -> Vec<Hit> {
    let hits = scored_related(index, seeds, negatives, k, mode, filters);
    // The strengths were measured on single-seed hybrid rankings of the whole list.
    let cuts = index
        .link_strengths()
        .filter(|_| seeds.len() == 1 && negatives.is_empty())
        .filter(|_| mode == Mode::Hybrid);
    hits.into_iter()
        .map(|mut h| {
            h.link_strength = cuts.map(|c| fusion::share_below(c, h.score));
            h.why = explain::related(index, seeds, h.paper, h.percentile, h.link_strength, mode);
            h
        })
        .collect()
}

/// [`related`]'s ranking alone: the hits with their scores, without link strengths or
/// explanations (what measuring the link strengths needs, 2,000 times per build).
/// The `k` papers [`related`] ranks first for `seed` when the sections the list files papers
/// under do not count as its own tags: what `bench` compares with those sections (a ranking
/// that reads them would be scored against its own input).
pub fn related_without_sections(index: &Searcher, seed: usize, k: usize) -> Vec<usize> {
    let scope = if index.uses_graph() {
        Scope::candidates_of(index, &[seed], POOL, false, |i| i != seed)
    } else {
        let mut all = Scope::everything(index, |i| i != seed);
        all.sections = false;
        all
    };
    let (score, dense, lexical) = pool_scores(index, &scope, &[seed], &[], Mode::Hybrid);
    ranked(&scope.pool, &score, &dense, &lexical, k)
        .into_iter()
        .map(|h| h.paper)
        .collect()
}

fn scored_related(
    index: &Searcher,
    seeds: &[usize],
    negatives: &[usize],
    k: usize,
    mode: Mode,
    filters: &Filters,
) -> Vec<Hit> {
    if seeds.is_empty() || k == 0 {
        return Vec::new();
    }
    let excluded = |i: usize| seeds.contains(&i) || negatives.contains(&i);
    let scope = Scope::for_seeds(index, seeds, POOL, |i| !excluded(i));
    let (score, dense, lexical) = pool_scores(index, &scope, seeds, negatives, mode);
    let pool = &scope.pool;
    if filters.is_empty() {
        return ranked(pool, &score, &dense, &lexical, k);
    }
    // The unfiltered ranking minus what the filters remove, in order: a filter only removes
    // results, on either scope, since the signals are standardized over the same papers with
    // or without it (the candidates on a small index, the fixed sample on a large one).
    let kept: Vec<usize> = (0..pool.len())
        .filter(|&j| filters.accepts_at(index, pool[j]))
        .collect();
    let mut hits = ranked_among(pool, &score, &dense, &lexical, k, &kept);
    for h in &mut hits {
        h.percentile = fusion::percentile(&score, h.score);
    }
    if hits.len() < k && index.uses_graph() {
        // The graph's candidates ran dry under the filter: the rest from a scan of what
        // passes, on the same fixed sample's standardization, after the candidates' results.
        let rest = Scope::sampled(index, seeds, |i| {
            !excluded(i) && filters.accepts_at(index, i) && !hits.iter().any(|h| h.paper == i)
        });
        let (s, d, l) = pool_scores(index, &rest, seeds, negatives, mode);
        hits.extend(ranked(&rest.pool, &s, &d, &l, k - hits.len()));
    }
    hits
}

/// The scores of every member of `scope`'s pool (in pool order) as related work of `seeds`
/// and unlike `negatives`: fused, dense and lexical.
fn pool_scores(
    index: &Searcher,
    scope: &Scope,
    seeds: &[usize],
    negatives: &[usize],
    mode: Mode,
) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let pool = &scope.pool;
    let mut score = vec![0.0f32; pool.len()];
    let mut dense = vec![0.0f32; pool.len()];
    let mut lexical = vec![0.0f32; pool.len()];
    let per_seed = 1.0 / seeds.len() as f32;
    for &s in seeds {
        let sig = scope.signals(index, s);
        for (j, x) in scope.score(&sig, mode).into_iter().enumerate() {
            score[j] += per_seed * x;
            dense[j] += per_seed * sig.dense[scope.pool_slots[j]];
            lexical[j] += per_seed * sig.lexical[scope.pool_slots[j]];
        }
    }
    if !negatives.is_empty() {
        let mut worst = vec![f32::MIN; pool.len()];
        for &u in negatives {
            let sig = scope.signals(index, u);
            for (w, x) in worst.iter_mut().zip(scope.score(&sig, mode)) {
                *w = w.max(x);
            }
        }
        for (s, w) in score.iter_mut().zip(worst) {
            *s -= UNLIKE_WEIGHT * w.max(0.0);
        }
    }
    if mode == Mode::Hybrid {
        feedback(index, scope, &mut score);
        if super::plan::weights(index).reciprocal {
            reciprocity(index, seeds, pool, &mut score);
        }
    }
    (score, dense, lexical)
}

/// [`ranked`] over the pool positions of `among` only.
fn ranked_among(
    pool: &[usize],
    score: &[f32],
    dense: &[f32],
    lexical: &[f32],
    k: usize,
    among: &[usize],
) -> Vec<Hit> {
    let pick = |v: &[f32]| -> Vec<f32> { among.iter().map(|&j| v[j]).collect() };
    let sub_pool: Vec<usize> = among.iter().map(|&j| pool[j]).collect();
    ranked(&sub_pool, &pick(score), &pick(dense), &pick(lexical), k)
}

/// Pseudo-relevance feedback: add the mean fused score, seen from each of the best
/// [`fusion::LIKE_FEEDBACK_TOP`] candidates, to every candidate (each feedback paper's own
/// entry counts zero, as a seed's would).
fn feedback(index: &Searcher, scope: &Scope, score: &mut [f32]) {
    let scored: Vec<(usize, f32)> = score.iter().copied().enumerate().collect();
    let top = top_hits(scored, fusion::LIKE_FEEDBACK_TOP);
    if top.is_empty() {
        return;
    }
    let mut extra = vec![0.0f32; scope.pool.len()];
    for &(j, _) in &top {
        let profile = scope.score(&scope.signals(index, scope.pool[j]), Mode::Hybrid);
        for (e, (jj, x)) in extra.iter_mut().zip(profile.into_iter().enumerate()) {
            if jj != j {
                *e += x / top.len() as f32;
            }
        }
    }
    for (s, e) in score.iter_mut().zip(extra) {
        *s += fusion::LIKE_FEEDBACK * e;
    }
}

/// Reciprocal neighbours, for a list without curated evidence (no tags, no `builds_on`): each
/// of the best [`fusion::LIKE_RECIPROCAL_TOP`] candidates whose own closest
/// [`fusion::LIKE_RECIPROCAL_K`] papers include a seed gains [`fusion::LIKE_RECIPROCAL`].
///
/// A one-sided match (a paper close to everything, or close to the seed by one shared word) is
/// the typical wrong answer on titles and abstracts alone; a pair that ranks each other highly
/// is not. Curated tags and `builds_on` links are symmetric evidence already, and there the
/// bonus only double-counted. Measured (docs/experiments.md): titles + highlights only,
/// judged related@5 0.469 -> 0.485 (TF-IDF 0.479), section P@5 0.375 -> 0.385; imported lists
/// section P@5 0.538 -> 0.536 and 0.448 -> 0.455; on the curated list it lowered related@5
/// 0.849 -> 0.839, hence the condition. At any size: each candidate's closest papers are read
/// from the lists stored at build ([`with_like_neighbours`]); an index without them (one being
/// built) ranks them here.
fn reciprocity(index: &Searcher, seeds: &[usize], pool: &[usize], score: &mut [f32]) {
    let scored: Vec<(usize, f32)> = score.iter().copied().enumerate().collect();
    for (j, _) in top_hits(scored, fusion::LIKE_RECIPROCAL_TOP) {
        let theirs: Vec<usize> = match index.like_neighbours(pool[j]) {
            Some(stored) => stored.iter().map(|&p| p as usize).collect(),
            None => neighbours(index, pool[j], fusion::LIKE_RECIPROCAL_K, true),
        };
        if seeds.iter().any(|s| theirs.contains(s)) {
            score[j] += fusion::LIKE_RECIPROCAL;
        }
    }
}

/// The best `k` of `pool` by `score` (all in pool order), with their percentiles.
fn ranked(pool: &[usize], score: &[f32], dense: &[f32], lexical: &[f32], k: usize) -> Vec<Hit> {
    let scored: Vec<(usize, f32)> = score.iter().copied().enumerate().collect();
    top_hits(scored, k)
        .into_iter()
        .map(|(j, s)| Hit {
            paper: pool[j],
            score: s,
            dense: dense[j],
            lexical: lexical[j],
            percentile: fusion::percentile(score, s),
            link_strength: None,
            match_strength: None,
            weak_match: None,
            why: String::new(),
        })
        .collect()
}

/// The papers of the best `k` scores of `values` (one per paper) above zero, best first, ties
/// by paper ([`top_hits`]' order).
///
/// One pass that keeps at most `4k` contenders: whenever that many are kept, the best `k` stay
/// and only a score above the worst of them is taken after (a later paper with the same score
/// ranks after it). A common term gives more than half of a 100k list a positive lexical score;
/// collecting all of them to select 200 cost more than the scoring.
fn best_positive(values: &[f32], k: usize) -> Vec<usize> {
    if k == 0 {
        return Vec::new();
    }
    let order = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    let mut kept: Vec<(usize, f32)> = Vec::with_capacity(4 * k);
    let mut floor = 0.0f32;
    for (i, &s) in values.iter().enumerate() {
        if s > floor {
            kept.push((i, s));
            if kept.len() == 4 * k {
                kept.select_nth_unstable_by(k - 1, order);
                kept.truncate(k);
                floor = kept[k - 1].1;
            }
        }
    }
    top_hits(kept, k).into_iter().map(|(i, _)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-pass selection keeps exactly what sorting every positive score keeps, ties
    /// (many equal scores, as shared terms give) included.
    #[test]
    fn best_positive_is_the_top_of_every_positive_score() {
        let mut rng = crate::util::rng::SplitMix64(7);
        for len in [0, 1, 5, 50, 3_000] {
            let values: Vec<f32> = (0..len)
                .map(|_| match rng.below(4) {
                    0 => 0.0,
                    1 => -0.5,
                    _ => (rng.below(20) as f32) / 8.0,
                })
                .collect();
            for k in [0, 1, 3, 10, 200] {
                let all: Vec<(usize, f32)> = values
                    .iter()
                    .copied()
                    .enumerate()
                    .filter(|&(_, s)| s > 0.0)
                    .collect();
                let expected: Vec<usize> = top_hits(all, k).into_iter().map(|(i, _)| i).collect();
                assert_eq!(best_positive(&values, k), expected, "len {len}, k {k}");
            }
        }
    }
}
