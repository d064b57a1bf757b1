//! Related work (`--like`) and free-text search, dense and lexical, fused.
//!
//! Fusion: over a candidate pool, each signal is standardized (z-score) and the two are mixed
//! with fixed weights. Standardizing puts e5's compressed cosine range (~0.7-0.9) and BM25's
//! open-ended scores on one scale, so a strong lexical match (a name) and a strong paraphrase
//! match can both win. Weights were chosen by measurement (`recommend bench`; BENCHMARKS.md).

use serde::Serialize;

use crate::corpus::{Kind, Paper};
use crate::index::Index;
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

/// Weight of the dense signal in hybrid related-work ranking (lexical gets the rest).
pub const LIKE_DENSE_WEIGHT: f32 = 0.6;
/// Weight of the dense signal in hybrid free-text search.
pub const SEARCH_DENSE_WEIGHT: f32 = 0.6;
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
    /// Cosine similarity of the embeddings (before any fusion).
    pub dense: f32,
    /// Lexical score: TF-IDF cosine for `--like`, BM25 for search.
    pub lexical: f32,
    /// Why this paper is here, in words.
    pub why: String,
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
    related_weighted(index, seeds, negatives, k, mode, filters, LIKE_DENSE_WEIGHT)
}

/// [`related`] with an explicit dense weight for hybrid mode (for measuring the trade-off).
pub fn related_weighted(
    index: &Index,
    seeds: &[usize],
    negatives: &[usize],
    k: usize,
    mode: Mode,
    filters: &Filters,
    dense_weight: f32,
) -> Vec<Hit> {
    let n = index.len();
    if seeds.is_empty() || k == 0 {
        return Vec::new();
    }
    // Dense: mean similarity to the seeds minus the strongest similarity to a negative.
    let sims = |s: usize| -> Vec<f32> {
        let v = index.vector(s).to_vec();
        index.similarities(&v)
    };
    let lex = |s: usize| -> Vec<f32> { index.lexical().similar_to(s) };
    let combine = |f: &dyn Fn(usize) -> Vec<f32>| -> Vec<f32> {
        let mut pos = vec![0.0f32; n];
        for &s in seeds {
            for (a, b) in pos.iter_mut().zip(f(s)) {
                *a += b / seeds.len() as f32;
            }
        }
        if !negatives.is_empty() {
            let mut neg = vec![f32::MIN; n];
            for &u in negatives {
                for (a, b) in neg.iter_mut().zip(f(u)) {
                    *a = a.max(b);
                }
            }
            for (a, b) in pos.iter_mut().zip(neg) {
                *a -= UNLIKE_WEIGHT * b.max(0.0);
            }
        }
        pos
    };
    let dense = combine(&sims);
    let lexical = combine(&lex);
    let excluded = |i: usize| seeds.contains(&i) || negatives.contains(&i);
    let pool: Vec<usize> = (0..n)
        .filter(|&i| !excluded(i) && filters.accepts_at(index, i))
        .collect();
    let mut hits = rank(&pool, &dense, &lexical, mode, dense_weight, k);
    for h in &mut hits {
        h.why = explain_related(index, seeds, h);
    }
    hits
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
    let mut dense = vec![0.0f32; n];
    let mut candidates: Vec<usize> = Vec::new();
    if let Some(q) = query_vector.filter(|_| mode != Mode::Lexical) {
        // The exact scan, not the HNSW graph: one process answers one query, and building the
        // graph costs far more than scanning (at 100k papers: minutes vs ~13 ms on 2 cores).
        // The graph (`Index::ann`) pays only in a long-lived process; see BENCHMARKS.md.
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
    candidates.extend(top_hits(lex_rank, POOL.max(k)).iter().map(|&(i, _)| i));
    candidates.sort_unstable();
    candidates.dedup();
    candidates.retain(|&i| filters.accepts_at(index, i));
    if mode == Mode::Lexical {
        candidates.retain(|&i| bm25[i] > 0.0);
    }
    let mut hits = rank(&candidates, &dense, &bm25, mode, SEARCH_DENSE_WEIGHT, k);
    for h in &mut hits {
        h.why = explain_search(
            index,
            query,
            h,
            query_vector.is_some() && mode != Mode::Lexical,
        );
    }
    hits
}

/// Order `pool` by the mode's score and keep the best `k`.
fn rank(
    pool: &[usize],
    dense: &[f32],
    lexical: &[f32],
    mode: Mode,
    w_dense: f32,
    k: usize,
) -> Vec<Hit> {
    let zd = standardize(pool, dense);
    let zl = standardize(pool, lexical);
    let scored: Vec<(usize, f32)> = pool
        .iter()
        .enumerate()
        .map(|(j, &i)| {
            let s = match mode {
                Mode::Dense => dense[i],
                Mode::Lexical => lexical[i],
                Mode::Hybrid => w_dense * zd[j] + (1.0 - w_dense) * zl[j],
            };
            (i, s)
        })
        .collect();
    top_hits(scored, k)
        .into_iter()
        .map(|(i, s)| Hit {
            paper: i,
            score: s,
            dense: dense[i],
            lexical: lexical[i],
            why: String::new(),
        })
        .collect()
}

/// z-scores of `values` over the members of `pool` (in pool order).
fn standardize(pool: &[usize], values: &[f32]) -> Vec<f32> {
    if pool.is_empty() {
        return Vec::new();
    }
    let m = pool.len() as f32;
    let mean = pool.iter().map(|&i| values[i]).sum::<f32>() / m;
    let var = pool
        .iter()
        .map(|&i| (values[i] - mean).powi(2))
        .sum::<f32>()
        / m;
    let sd = var.sqrt();
    if sd < 1e-9 {
        return vec![0.0; pool.len()];
    }
    pool.iter().map(|&i| (values[i] - mean) / sd).collect()
}

fn quote_terms(terms: &[String]) -> String {
    terms
        .iter()
        .map(|t| format!("'{t}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn explain_related(index: &Index, seeds: &[usize], h: &Hit) -> String {
    let table = index.table();
    let topic = table.topic(h.paper);
    let mut parts = Vec::new();
    if let Some(&s) = seeds
        .iter()
        .find(|&&s| !topic.is_empty() && table.topic(s) == topic)
    {
        let topic_en = table.topic_en(h.paper);
        let label = if topic_en.is_empty() {
            &topic
        } else {
            &topic_en
        };
        parts.push(if seeds.len() > 1 {
            format!("same topic as {} ({label})", table.title(s))
        } else {
            format!("same topic ({label})")
        });
    }
    // Generous candidates, then overlapping CJK bigrams joined into the phrases both share.
    let hit_text = crate::index::passage_text(&table.get(h.paper));
    let mut shared: Vec<String> = Vec::new();
    for &s in seeds {
        let seed_text = crate::index::passage_text(&table.get(s));
        let terms = index.lexical().shared_terms(s, h.paper, 12);
        for t in crate::text::join_phrases(&terms, &[&seed_text, &hit_text]) {
            if !shared.contains(&t) && shared.len() < 4 {
                shared.push(t);
            }
        }
    }
    if !shared.is_empty() {
        parts.push(format!("shares {}", quote_terms(&shared)));
    }
    parts.push(format!("semantic {:.2}, lexical {:.2}", h.dense, h.lexical));
    parts.join("; ")
}

fn explain_search(index: &Index, query: &str, h: &Hit, with_dense: bool) -> String {
    let mut parts = Vec::new();
    let terms = index.lexical().matched_terms(query, h.paper, 12);
    let doc = crate::index::passage_text(&index.paper(h.paper));
    let mut terms = crate::text::join_phrases(&terms, &[query, &doc]);
    terms.truncate(4);
    if !terms.is_empty() {
        parts.push(format!("matches {}", quote_terms(&terms)));
    }
    if with_dense {
        parts.push(format!("semantic {:.2}", h.dense));
    }
    parts.push(format!("lexical {:.2}", h.lexical));
    parts.join("; ")
}
