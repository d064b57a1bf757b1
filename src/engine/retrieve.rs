//! Related work (`--like`) and free-text search.
//!
//! Related work compares papers on five signals, fused by [`super::fusion`]: the embedding
//! cosine after removing the corpus centroid (what is specific to a paper, not what every
//! paper of the field shares), the TF-IDF cosine of specific terms, the overlap of curated
//! tags, `builds_on` links and, on a list of bare titles only, how the titles are spelled. Search fuses the query-passage embedding cosine with BM25 over
//! the query and its glossary translations (weighted by [`fusion::search_weights`]); a query
//! that is exactly a paper's name puts that paper first. Explanations come from
//! [`super::explain`].

use serde::Serialize;

use super::explain;
use super::fusion;
use crate::corpus::{Kind, Paper};
use crate::index::Index;
use crate::index::ann::top_hits;
use crate::index::evidence::Relation;

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
    pub fn accepts_at(&self, index: &Index, i: usize) -> bool {
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
    /// Search: where the query's best match stands in this list's search reference (0..=1, see
    /// [`Index::match_reference`]), the same on every result of one query; below
    /// [`super::reference::WEAK_MATCH`] the query is about nothing in this list. `None` for
    /// related work, lexical search, a query that names a paper, and an index built without
    /// the reference.
    pub match_strength: Option<f32>,
    /// Why this paper is here, in words.
    pub why: String,
}

/// The per-paper signals of related work, seen from one seed (one value per paper of the
/// index; on a large index the dense cosine is computed for the scored papers only).
struct Signals {
    dense: Vec<f32>,
    centered: Vec<f32>,
    lexical: Vec<f32>,
    tags: Vec<f32>,
    /// The list's own tags (`index::own_tags`); zeros without any.
    own_tags: Vec<f32>,
    /// Spelling cosine (`index::evidence::Spelling`); zeros unless the list is bare titles.
    spelling: Vec<f32>,
    /// Token alignment (`engine::alignment`); zeros unless the list has it.
    alignment: Vec<f32>,
    links: Vec<f32>,
    /// The list's weights ([`super::plan::RelatedWeights`]).
    weights: super::plan::RelatedWeights,
}

/// Which papers a query scores, and over which the signals are standardized.
///
/// On a small index (or with `--exact`, or with filters) every paper is a candidate and the scores
/// are standardized over the candidates, as the judged figures (BENCHMARKS.md, Quality on the
/// shipped list) were measured. On a large index ([`Index::uses_graph`]) scoring every paper costs
/// a scan per signal pass (six passes per `--like` with feedback, one per paper for topics and
/// paths), so only candidates are scored: the seed's nearest papers from the stored HNSW graph,
/// its best lexical and tag matches and its `builds_on` relatives. Candidates are the top of each
/// signal, so their own spread says little about a signal's scale: a fixed sample of the corpus
/// ([`REFERENCE`] papers, evenly spaced) supplies each signal's mean and spread instead.
struct Scope {
    /// The papers that may be returned, ascending.
    pool: Vec<usize>,
    /// The papers whose dense cosine is computed (pool and reference), ascending; `None`: all.
    scored: Option<Vec<usize>>,
    /// The papers whose mean and spread standardize each signal; `None`: the pool.
    reference: Option<Vec<usize>>,
    /// The lexical and tag similarities of the seeds, computed once to find the candidates
    /// and reused by [`Scope::signals`] (each is a pass over the corpus).
    seen: Vec<(usize, Similarities)>,
    /// Whether a paper's section counts among its own tags ([`Index::own_tags`]); not for
    /// topics, which are compared with the sections.
    sections: bool,
}

/// One paper's lexical, tag and spelling similarity to every paper of the index.
#[derive(Clone)]
struct Similarities {
    lexical: Vec<f32>,
    tags: Vec<f32>,
    own_tags: Vec<f32>,
    spelling: Vec<f32>,
}

impl Similarities {
    fn of(index: &Index, seed: usize, sections: bool) -> Similarities {
        Similarities {
            lexical: index.lexical().similar_to(seed),
            tags: index.tags().similar_to(seed),
            own_tags: index.own_tags(sections).similar_to(seed),
            spelling: match index.spelling() {
                Some(s) => s.similar_to(seed),
                None => vec![0.0; index.len()],
            },
        }
    }
}

/// Size of the corpus sample that standardizes the signals of a large index.
const REFERENCE: usize = 256;

impl Scope {
    /// Every paper `keep` accepts, scored and standardized over themselves.
    fn everything(index: &Index, keep: impl Fn(usize) -> bool) -> Scope {
        Scope {
            pool: (0..index.len()).filter(|&i| keep(i)).collect(),
            scored: None,
            reference: None,
            seen: Vec::new(),
            sections: true,
        }
    }

    /// The candidates of `seeds` that `keep` accepts ([`candidates`], `per_seed` from each
    /// retriever), standardized over a fixed corpus sample.
    fn candidates_of(
        index: &Index,
        seeds: &[usize],
        per_seed: usize,
        sections: bool,
        keep: impl Fn(usize) -> bool,
    ) -> Scope {
        let mut pool = Vec::new();
        let mut seen = Vec::with_capacity(seeds.len());
        for &s in seeds {
            let sims = Similarities::of(index, s, sections);
            candidates(index, s, per_seed, &sims, &mut pool);
            seen.push((s, sims));
        }
        pool.sort_unstable();
        pool.dedup();
        pool.retain(|&i| keep(i));
        let n = index.len();
        let step = n.div_ceil(REFERENCE).max(1);
        let reference: Vec<usize> = (0..n).step_by(step).collect();
        let mut scored = pool.clone();
        scored.extend(&reference);
        scored.extend(seeds);
        scored.sort_unstable();
        scored.dedup();
        Scope {
            pool,
            scored: Some(scored),
            reference: Some(reference),
            seen,
            sections,
        }
    }

    /// [`Scope::everything`] on a small index, [`Scope::candidates_of`] on a large one.
    fn for_seeds(
        index: &Index,
        seeds: &[usize],
        per_seed: usize,
        filters: &Filters,
        keep: impl Fn(usize) -> bool,
    ) -> Scope {
        if !index.uses_graph() {
            // Filters are applied to the ranking, never to the scope: standardizing over the
            // filtered papers alone would reorder what a filter keeps.
            Scope::everything(index, keep)
        } else if filters.is_empty() {
            Scope::candidates_of(index, seeds, per_seed, true, keep)
        } else {
            // A filtered candidate set of the graph may run dry: the scan of what passes.
            Scope::everything(index, |i| keep(i) && filters.accepts_at(index, i))
        }
    }

    /// The signals of `seed` over this scope.
    fn signals(&self, index: &Index, seed: usize) -> Signals {
        let sims = match self.seen.iter().find(|(s, _)| *s == seed) {
            Some((_, sims)) => sims.clone(),
            None => Similarities::of(index, seed, self.sections),
        };
        signals(index, seed, self.scored.as_deref(), sims)
    }

    /// `sig`'s score for every member of the pool, in pool order.
    fn score(&self, sig: &Signals, mode: Mode) -> Vec<f32> {
        let reference = self.reference.as_deref().unwrap_or(&self.pool);
        sig.score(&self.pool, reference, mode)
    }
}

/// Adds to `out` the papers a large index scores for `seed`: its `size` nearest by the stored
/// graph, its best `size` by lexical, tag and spelling similarity, and its `builds_on`
/// relatives.
fn candidates(index: &Index, seed: usize, size: usize, sims: &Similarities, out: &mut Vec<usize>) {
    let v = index.vector(seed).to_vec();
    out.extend(
        index
            .nearest(&v, size + 1, false)
            .into_iter()
            .map(|(i, _)| i),
    );
    for values in [&sims.lexical, &sims.tags, &sims.own_tags, &sims.spelling] {
        let scored: Vec<(usize, f32)> = values
            .iter()
            .copied()
            .enumerate()
            .filter(|&(_, s)| s > 0.0)
            .collect();
        out.extend(top_hits(scored, size + 1).into_iter().map(|(i, _)| i));
    }
    let relations = index.relations();
    out.extend(&relations.parents[seed]);
    out.extend(&relations.children[seed]);
    for &p in &relations.parents[seed] {
        out.extend(&relations.children[p]);
    }
    out.retain(|&i| i != seed);
}

/// The signals of `seed` (whose lexical and tag similarities are `sims`); the dense cosine for
/// the papers of `scored` only (all when `None`).
fn signals(index: &Index, seed: usize, scored: Option<&[usize]>, sims: Similarities) -> Signals {
    let seed_vector = index.vector(seed).to_vec();
    let dense = match scored {
        None => index.similarities(&seed_vector),
        Some(papers) => {
            let mut d = vec![0.0f32; index.len()];
            for &i in papers {
                d[i] =
                    crate::index::ann::dot(&seed_vector, index.vector(i).as_slice().unwrap_or(&[]));
            }
            d
        }
    };
    let centered = match scored {
        None => index.centroid().center(seed, &dense),
        Some(papers) => index.centroid().center_only(seed, &dense, papers),
    };
    let Similarities {
        lexical,
        tags,
        own_tags,
        spelling,
    } = sims;
    let relations = index.relations();
    let link = |i: usize| match relations.between(seed, i) {
        Some(Relation::BuildsOn) => fusion::builds_on_weight(relations.parent_specificity(i)),
        Some(Relation::BuiltOnBy) => fusion::builds_on_weight(relations.parent_specificity(seed)),
        Some(Relation::SharedParent(p)) => {
            fusion::LIKE_SHARED_PARENT * relations.parent_specificity(p)
        }
        None => 0.0,
    };
    let links = match scored {
        None => (0..index.len()).map(link).collect(),
        Some(papers) => {
            let mut l = vec![0.0f32; index.len()];
            for &i in papers {
                l[i] = link(i);
            }
            l
        }
    };
    let alignment = match index.alignment_row(seed) {
        Some(row) => row.to_vec(),
        None => vec![0.0; index.len()],
    };
    Signals {
        alignment,
        dense,
        centered,
        lexical,
        tags,
        own_tags,
        spelling,
        links,
        weights: super::plan::RelatedWeights::of(index),
    }
}

impl Signals {
    /// This seed's score for every member of `pool`, in pool order, each signal standardized
    /// over `reference`.
    fn score(&self, pool: &[usize], reference: &[usize], mode: Mode) -> Vec<f32> {
        match mode {
            Mode::Dense => pool.iter().map(|&i| self.dense[i]).collect(),
            Mode::Lexical => pool.iter().map(|&i| self.lexical[i]).collect(),
            Mode::Hybrid => {
                let share = reference.iter().filter(|&&i| self.lexical[i] > 0.0).count() as f32
                    / reference.len().max(1) as f32;
                let w = &self.weights;
                let mut f = fusion::fuse_by(
                    pool,
                    reference,
                    &[
                        (w.dense, &self.centered),
                        (w.lexical_for(share), &self.lexical),
                        (w.tags, &self.tags),
                        (w.own_tags, &self.own_tags),
                        (w.spelling, &self.spelling),
                        (w.alignment, &self.alignment),
                    ],
                );
                for (x, &i) in f.iter_mut().zip(pool) {
                    *x += self.links[i];
                }
                f
            }
        }
    }
}

/// Papers related to `seeds` and unlike `negatives`, best first; never a seed or a negative.
pub fn related(
    index: &Index,
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
        .filter(|_| mode == Mode::Hybrid && (filters.is_empty() || !index.uses_graph()));
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
fn scored_related(
    index: &Index,
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
    let scope = Scope::for_seeds(index, seeds, POOL, filters, |i| !excluded(i));
    let pool = &scope.pool;
    let mut score = vec![0.0f32; pool.len()];
    let mut dense = vec![0.0f32; pool.len()];
    let mut lexical = vec![0.0f32; pool.len()];
    let per_seed = 1.0 / seeds.len() as f32;
    for &s in seeds {
        let sig = scope.signals(index, s);
        for (j, x) in scope.score(&sig, mode).into_iter().enumerate() {
            score[j] += per_seed * x;
            dense[j] += per_seed * sig.dense[pool[j]];
            lexical[j] += per_seed * sig.lexical[pool[j]];
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
        feedback(index, &scope, &mut score);
        if super::plan::RelatedWeights::of(index).reciprocal {
            reciprocity(index, seeds, pool, &mut score);
        }
    }
    if filters.is_empty() || index.uses_graph() {
        return ranked(pool, &score, &dense, &lexical, k);
    }
    // The unfiltered ranking minus what the filters remove, in order.
    let kept: Vec<usize> = (0..pool.len())
        .filter(|&j| filters.accepts_at(index, pool[j]))
        .collect();
    let mut hits = ranked_among(pool, &score, &dense, &lexical, k, &kept);
    for h in &mut hits {
        h.percentile = fusion::percentile(&score, h.score);
    }
    hits
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

/// Seeds sampled to measure a list's link strengths: every paper up to this many, else an even
/// spread of this many (about a second at 10k papers, 2 cores).
const STRENGTH_SEEDS: usize = 400;

/// The fused scores at the percentiles 0, 1, ..., 100 of the top 5 `--like` results of the
/// papers of `index` (all of them, or [`STRENGTH_SEEDS`] evenly spread): what
/// [`crate::index::Index::with_link_strengths`] stores. `None` for a list too small to have
/// five links per paper.
pub fn link_strength_cuts(index: &Index) -> Option<Vec<f32>> {
    use rayon::prelude::*;
    let n = index.len();
    if n < 6 {
        return None;
    }
    let step = n.div_ceil(STRENGTH_SEEDS);
    let seeds: Vec<usize> = (0..n).step_by(step).collect();
    let scores: Vec<f32> = seeds
        .par_iter()
        .flat_map_iter(|&s| {
            scored_related(index, &[s], &[], 5, Mode::Hybrid, &Filters::default())
                .into_iter()
                .map(|h| h.score)
        })
        .filter(|x| x.is_finite())
        .collect();
    fusion::percentile_cuts(scores)
}

/// `index` with its link strengths measured and stored ([`link_strength_cuts`]); as it was
/// when the list is too small to measure them. Every build that users query goes through this.
pub fn calibrated(index: Index) -> Result<Index, crate::index::IndexError> {
    match link_strength_cuts(&index) {
        Some(cuts) => index.with_link_strengths(&cuts),
        None => Ok(index),
    }
}

/// Candidates per retriever for [`neighbours`] on a large index: enough for a top 10.
const NEIGHBOUR_POOL: usize = 50;

/// The `k` papers most related to `seed` by the fused related-work score (without feedback or
/// explanations): the links of the graph topics and reading paths are built on. `sections`:
/// whether the sections the list files papers under count as evidence (not for topics, which
/// are measured against those sections).
pub fn neighbours(index: &Index, seed: usize, k: usize, sections: bool) -> Vec<usize> {
    let scope = if index.uses_graph() {
        Scope::candidates_of(index, &[seed], NEIGHBOUR_POOL.max(k), sections, |i| {
            i != seed
        })
    } else {
        let mut all = Scope::everything(index, |i| i != seed);
        all.sections = sections;
        all
    };
    let score = scope.score(&scope.signals(index, seed), Mode::Hybrid);
    let scored: Vec<(usize, f32)> = score.into_iter().enumerate().collect();
    top_hits(scored, k)
        .into_iter()
        .map(|(j, _)| scope.pool[j])
        .collect()
}

/// Pseudo-relevance feedback: add the mean fused score, seen from each of the best
/// [`fusion::LIKE_FEEDBACK_TOP`] candidates, to every candidate (each feedback paper's own
/// entry counts zero, as a seed's would).
fn feedback(index: &Index, scope: &Scope, score: &mut [f32]) {
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
/// 0.849 -> 0.839, hence the condition. Small indexes only: on a large one each check is a
/// candidate search of its own.
fn reciprocity(index: &Index, seeds: &[usize], pool: &[usize], score: &mut [f32]) {
    let scored: Vec<(usize, f32)> = score.iter().copied().enumerate().collect();
    for (j, _) in top_hits(scored, fusion::LIKE_RECIPROCAL_TOP) {
        let theirs = neighbours(index, pool[j], fusion::LIKE_RECIPROCAL_K, true);
        if seeds.iter().any(|s| theirs.contains(s)) {
            score[j] += fusion::LIKE_RECIPROCAL;
        }
    }
}

/// Free-text search. `query_vector` is the query's embedding (role "query"); without one only
/// lexical search is possible, and asking for dense or hybrid is the caller's error to report.
pub fn search(
    index: &Index,
    query: &str,
    query_vector: Option<&[f32]>,
    query_tokens: Option<&crate::model::TokenStates>,
    k: usize,
    mode: Mode,
    filters: &Filters,
) -> Vec<Hit> {
    let n = index.len();
    if k == 0 {
        return Vec::new();
    }
    let mut bm25 = index.lexical().bm25(query);
    // A query that is exactly a paper's name asks for that paper: put it first lexically.
    let key = crate::text::name_key(query);
    let top = bm25.iter().copied().fold(0.0f32, f32::max);
    let mut names_a_paper = false;
    if !key.is_empty() {
        let table = index.table();
        for i in table.named(&key) {
            // The name table also holds ids (for resolution); only a title or alias counts here.
            let p = table.get(i);
            let named = std::iter::once(&p.title)
                .chain(&p.aliases)
                .any(|n| crate::text::name_key(n) == key);
            if named {
                bm25[i] += top.max(1.0);
                names_a_paper = true;
            }
        }
    }
    let with_dense = query_vector.is_some() && mode != Mode::Lexical;
    let mut dense = vec![0.0f32; n];
    let mut candidates: Vec<usize> = Vec::new();
    let graph = index.uses_graph() && filters.is_empty();
    if let Some(q) = query_vector.filter(|_| mode != Mode::Lexical) {
        if graph {
            // A large index: the dense candidates from the stored HNSW graph; the cosine of
            // the lexical candidates is computed below.
            for (i, c) in index.nearest(q, POOL.max(k), false) {
                dense[i] = c;
                candidates.push(i);
            }
        } else {
            dense = index.similarities(q);
            let pool = if filters.is_empty() { POOL } else { n };
            let scored: Vec<(usize, f32)> = dense.iter().copied().enumerate().collect();
            candidates.extend(top_hits(scored, pool).iter().map(|&(i, _)| i));
        }
    }
    let lex_rank: Vec<(usize, f32)> = bm25
        .iter()
        .copied()
        .enumerate()
        .filter(|&(_, s)| s > 0.0)
        .collect();
    let lex_pool = if filters.is_empty() { POOL.max(k) } else { n };
    candidates.extend(top_hits(lex_rank, lex_pool).iter().map(|&(i, _)| i));
    candidates.sort_unstable();
    candidates.dedup();
    candidates.retain(|&i| filters.accepts_at(index, i));
    if graph && let Some(q) = query_vector.filter(|_| mode != Mode::Lexical) {
        for &i in &candidates {
            if let Some(row) = index.vector(i).as_slice() {
                dense[i] = crate::index::ann::dot(q, row);
            }
        }
    }
    if mode == Mode::Lexical || !with_dense {
        candidates.retain(|&i| bm25[i] > 0.0);
    }
    let named = match mode {
        Mode::Hybrid => index.tags().named_in(query, &index.lexical()),
        Mode::Dense | Mode::Lexical => Vec::new(),
    };
    let score: Vec<f32> = match mode {
        Mode::Dense => candidates.iter().map(|&i| dense[i]).collect(),
        Mode::Lexical => candidates.iter().map(|&i| bm25[i]).collect(),
        Mode::Hybrid => {
            // Token matching (`alignment::query_match`) where the index and the query have
            // token states; silent (zeros) elsewhere.
            let mut tokens = vec![0.0f32; n];
            if let (Some(stored), Some(q)) = (index.search_tokens(), query_tokens) {
                let matched = super::alignment::query_match(&stored, q, &candidates);
                for (&i, m) in candidates.iter().zip(matched) {
                    tokens[i] = m;
                }
            }
            // The curated tags the query names, in either language (zeros without any).
            let ids: Vec<u32> = named.iter().map(|&(t, _)| t).collect();
            let tags = index.tags().carried(&ids);
            fusion::fuse_search(
                &candidates,
                &index.lexical(),
                query,
                &dense,
                &bm25,
                &tokens,
                &tags,
            )
        }
    };
    let d: Vec<f32> = candidates.iter().map(|&i| dense[i]).collect();
    let l: Vec<f32> = candidates.iter().map(|&i| bm25[i]).collect();
    // How close the best candidate comes, against how close the list's papers come to each
    // other (a query that names a paper has found it, however its words embed).
    let match_strength = match index.match_reference(crate::index::Script::of(query)) {
        Some(cuts) if with_dense && !names_a_paper && !d.is_empty() => {
            let best = d.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            Some(fusion::share_below(cuts, best))
        }
        _ => None,
    };
    let weak = super::reference::is_weak_match(match_strength);
    ranked(&candidates, &score, &d, &l, k)
        .into_iter()
        .map(|mut h| {
            h.match_strength = match_strength;
            h.why = explain::search(
                index,
                query,
                &named,
                h.paper,
                h.percentile,
                with_dense,
                weak,
            );
            h
        })
        .collect()
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
            why: String::new(),
        })
        .collect()
}
