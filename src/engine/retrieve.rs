//! Related work (`--like`) and free-text search.
//!
//! Related work compares papers on four signals, fused by [`super::fusion`]: the embedding
//! cosine after removing the corpus centroid (what is specific to a paper, not what every
//! paper of the field shares), the TF-IDF cosine of specific terms, the overlap of curated
//! tags, and `builds_on` links. Search fuses the query-passage embedding cosine with BM25 over
//! the query and its glossary translations; a query that is exactly a paper's name puts that
//! paper first. Explanations come from [`super::explain`].

use serde::Serialize;

use super::explain;
use super::fusion::{self, fuse};
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
        self.accepts_fields(&p.topic, &p.topic_en, p.kind, p.open_source)
    }

    /// [`Filters::accepts`] for paper `i` of `index`, reading only the fields it needs.
    pub fn accepts_at(&self, index: &Index, i: usize) -> bool {
        if self.is_empty() {
            return true;
        }
        let t = index.table();
        self.accepts_fields(&t.topic(i), &t.topic_en(i), t.kind(i), t.open_source(i))
    }

    fn accepts_fields(&self, topic: &str, topic_en: &str, kind: Kind, open_source: bool) -> bool {
        if let Some(t) = &self.topic {
            let t = t.to_lowercase();
            if !topic.to_lowercase().contains(&t) && !topic_en.to_lowercase().contains(&t) {
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
    /// Why this paper is here, in words.
    pub why: String,
}

/// The per-paper signals of related work, seen from one seed.
struct Signals {
    dense: Vec<f32>,
    centered: Vec<f32>,
    lexical: Vec<f32>,
    tags: Vec<f32>,
    links: Vec<f32>,
}

fn signals(index: &Index, seed: usize) -> Signals {
    let dense = index.similarities(&index.vector(seed).to_vec());
    let centered = index.centroid().center(seed, &dense);
    let lexical = index.lexical().similar_to(seed);
    let tags = index.tags().similar_to(seed);
    let relations = index.relations();
    let links = (0..index.len())
        .map(|i| match relations.between(seed, i) {
            Some(Relation::BuildsOn | Relation::BuiltOnBy) => fusion::LIKE_BUILDS_ON,
            Some(Relation::SharedParent(_)) => fusion::LIKE_SHARED_PARENT,
            None => 0.0,
        })
        .collect();
    Signals {
        dense,
        centered,
        lexical,
        tags,
        links,
    }
}

impl Signals {
    /// This seed's score for every member of `pool`, in pool order.
    fn score(&self, pool: &[usize], mode: Mode) -> Vec<f32> {
        match mode {
            Mode::Dense => pool.iter().map(|&i| self.dense[i]).collect(),
            Mode::Lexical => pool.iter().map(|&i| self.lexical[i]).collect(),
            Mode::Hybrid => {
                let mut f = fuse(
                    pool,
                    &[
                        (fusion::LIKE_DENSE, &self.centered),
                        (fusion::LIKE_LEXICAL, &self.lexical),
                        (fusion::LIKE_TAGS, &self.tags),
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
    if seeds.is_empty() || k == 0 {
        return Vec::new();
    }
    let excluded = |i: usize| seeds.contains(&i) || negatives.contains(&i);
    let pool: Vec<usize> = (0..index.len())
        .filter(|&i| !excluded(i) && filters.accepts_at(index, i))
        .collect();
    let mut score = vec![0.0f32; pool.len()];
    let mut dense = vec![0.0f32; pool.len()];
    let mut lexical = vec![0.0f32; pool.len()];
    let per_seed = 1.0 / seeds.len() as f32;
    for &s in seeds {
        let sig = signals(index, s);
        for (j, x) in sig.score(&pool, mode).into_iter().enumerate() {
            score[j] += per_seed * x;
            dense[j] += per_seed * sig.dense[pool[j]];
            lexical[j] += per_seed * sig.lexical[pool[j]];
        }
    }
    if !negatives.is_empty() {
        let mut worst = vec![f32::MIN; pool.len()];
        for &u in negatives {
            for (w, x) in worst.iter_mut().zip(signals(index, u).score(&pool, mode)) {
                *w = w.max(x);
            }
        }
        for (s, w) in score.iter_mut().zip(worst) {
            *s -= UNLIKE_WEIGHT * w.max(0.0);
        }
    }
    if mode == Mode::Hybrid {
        feedback(index, &pool, &mut score);
    }
    let hits = ranked(&pool, &score, &dense, &lexical, k);
    hits.into_iter()
        .map(|mut h| {
            h.why = explain::related(index, seeds, h.paper, h.percentile, mode);
            h
        })
        .collect()
}

/// The `k` papers most related to `seed` by the fused related-work score (without feedback or
/// explanations): the links of the graph topics and reading paths are built on.
pub fn neighbours(index: &Index, seed: usize, k: usize) -> Vec<usize> {
    let pool: Vec<usize> = (0..index.len()).filter(|&i| i != seed).collect();
    let score = signals(index, seed).score(&pool, Mode::Hybrid);
    let scored: Vec<(usize, f32)> = score.into_iter().enumerate().collect();
    top_hits(scored, k)
        .into_iter()
        .map(|(j, _)| pool[j])
        .collect()
}

/// The fused related-work score of every paper as seen from `seed` (the seed's own entry is
/// the lowest score): the similarity reading paths walk on.
pub fn affinity(index: &Index, seed: usize) -> Vec<f32> {
    let pool: Vec<usize> = (0..index.len()).collect();
    let mut score = signals(index, seed).score(&pool, Mode::Hybrid);
    let low = score.iter().copied().fold(f32::INFINITY, f32::min);
    score[seed] = low;
    score
}

/// Pseudo-relevance feedback: add the mean fused score, seen from each of the best
/// [`fusion::LIKE_FEEDBACK_TOP`] candidates, to every candidate (each feedback paper's own
/// entry counts zero, as a seed's would).
fn feedback(index: &Index, pool: &[usize], score: &mut [f32]) {
    let scored: Vec<(usize, f32)> = score.iter().copied().enumerate().collect();
    let top = top_hits(scored, fusion::LIKE_FEEDBACK_TOP);
    if top.is_empty() {
        return;
    }
    let mut extra = vec![0.0f32; pool.len()];
    for &(j, _) in &top {
        let profile = signals(index, pool[j]).score(pool, Mode::Hybrid);
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

/// Free-text search. `query_vector` is the query's embedding (role "query"); without one only
/// lexical search is possible, and asking for dense or hybrid is the caller's error to report.
pub fn search(
    index: &Index,
    query: &str,
    query_vector: Option<&[f32]>,
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
            }
        }
    }
    let with_dense = query_vector.is_some() && mode != Mode::Lexical;
    let mut dense = vec![0.0f32; n];
    let mut candidates: Vec<usize> = Vec::new();
    if let Some(q) = query_vector.filter(|_| mode != Mode::Lexical) {
        // The exact scan, not the HNSW graph: one process answers one query, and building the
        // graph costs far more than scanning (at 100k papers: minutes vs ~13 ms on 2 cores).
        dense = index.similarities(q);
        let pool = if filters.is_empty() { POOL } else { n };
        let scored: Vec<(usize, f32)> = dense.iter().copied().enumerate().collect();
        candidates.extend(top_hits(scored, pool).iter().map(|&(i, _)| i));
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
    if mode == Mode::Lexical || !with_dense {
        candidates.retain(|&i| bm25[i] > 0.0);
    }
    let score: Vec<f32> = match mode {
        Mode::Dense => candidates.iter().map(|&i| dense[i]).collect(),
        Mode::Lexical => candidates.iter().map(|&i| bm25[i]).collect(),
        Mode::Hybrid => fuse(
            &candidates,
            &[
                (fusion::SEARCH_DENSE, &dense),
                (fusion::SEARCH_LEXICAL, &bm25),
            ],
        ),
    };
    let d: Vec<f32> = candidates.iter().map(|&i| dense[i]).collect();
    let l: Vec<f32> = candidates.iter().map(|&i| bm25[i]).collect();
    ranked(&candidates, &score, &d, &l, k)
        .into_iter()
        .map(|mut h| {
            h.why = explain::search(index, query, h.paper, h.percentile, with_dense);
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
            why: String::new(),
        })
        .collect()
}
