//! Topics: partition the corpus into clusters of related papers and name them.
//!
//! # Algorithm
//!
//! **Spherical k-means** on the L2-normalized paper vectors (cosine = dot product), started by
//! **k-means++** seeding from a fixed-seed SplitMix64 generator, with several deterministic
//! restarts (seeds 0, 1, 2, ...) keeping the best objective (sum of each paper's cosine to its
//! centroid; ties keep the earlier restart). Every iteration is O(n·k·d); assignment runs in
//! parallel per paper (no reductions), centroid sums run sequentially in paper order in f64,
//! so the result is bit-identical on every run and machine. A cluster that empties is refilled
//! with the paper that fits its own cluster worst, so there is never an empty cluster and never
//! an outlier bucket: every paper is in exactly one topic.
//!
//! Measured against naive average-linkage agglomerative clustering on the 141-paper seed corpus
//! (TF-IDF vectors as a stand-in until embeddings existed, with the plain TF-IDF features used
//! then; `eval_corpus` now uses `bench::tfidf`'s, so a rerun differs), NMI with the seed
//! topics: k=8 0.363 vs 0.331, k=12 0.444 vs 0.425, k=16 0.500 vs 0.473, k=20 0.525 vs 0.550,
//! k=23 0.558 vs 0.569. About even; k-means wins at the smaller k a reader asks for, is O(n·k·d)
//! where agglomerative clustering needs O(n²) memory and O(n²..n³) time, and restarts matter
//! (one k-means++ start: 0.333/0.409/0.447/0.497/0.524).
//!
//! **Choosing k** when not given: the k in `4..=min(20, n/4)` with the best mean **silhouette**
//! (cosine distance; exact when n ≤ [`EXACT_SILHOUETTE_MAX`], else the centroid-based
//! "simplified silhouette" to stay O(n·k·d)). Silhouette rewards clusters that are both tight and
//! separated, needs no labels, and is deterministic; ties keep the smaller k.
//!
//! # Labels
//!
//! Class-based TF-IDF (c-TF-IDF, as in BERTopic): each topic is one "class document" of its
//! papers' titles and highlights; a term scores `tf(t,c) · ln(1 + A / f(t))`, with `tf(t,c)` the
//! share of the topic's term occurrences that are `t` (counted once per paper), `f(t)` the
//! count of `t` over all topics and `A` the mean number of term occurrences per topic. English
//! words are lowercased unless they are acronyms or names (GRPO, SWE-bench, WebAgent), stopwords
//! dropped; Chinese is segmented with jieba, keeping words of ≥ 2 characters that are not
//! grammatical (particles, pronouns, prepositions, ...). Keywords are the top 8; the label joins
//! the top 2–3, mixing English and Chinese when both score ("GRPO · 推理 · reward").

use crate::corpus::Paper;
use crate::engine::similarity::dot;
use crate::text;
use ndarray::ArrayView2;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// One topic: a cluster of papers with its name.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Topic {
    pub id: usize,
    pub label: String,
    pub keywords: Vec<String>,
    /// paper ids, most central first
    pub papers: Vec<String>,
    /// the most central paper's id (highest mean similarity to its cluster)
    pub central: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TopicError {
    #[error("the corpus is empty: there is nothing to cluster")]
    Empty,
    #[error("the number of topics must be at least 1")]
    ZeroK,
    #[error("cannot make {k} topics from {n} papers: k must be at most the number of papers")]
    TooManyTopics { k: usize, n: usize },
    #[error("{vectors} vectors for {papers} papers: the index does not match the corpus")]
    Mismatch { papers: usize, vectors: usize },
}

/// How well our topics agree with the corpus' own `topic` labels.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Agreement {
    /// normalized mutual information (arithmetic mean normalization), 0..=1
    pub nmi: f64,
    /// adjusted Rand index, 1 = identical, ~0 = chance
    pub ari: f64,
    /// number of our topics
    pub k: usize,
    /// number of distinct seed topic labels
    pub labels: usize,
    /// papers compared (those with a non-empty `topic`)
    pub papers: usize,
}

/// Exact silhouette (O(n²) similarities) up to this many papers, simplified silhouette above.
pub const EXACT_SILHOUETTE_MAX: usize = 3000;
/// Keywords per topic.
pub const KEYWORDS: usize = 8;
const MAX_ITERS: usize = 100;

/// Cluster `papers` (row i of `vectors` is paper i) into `k` topics, or an automatically chosen
/// number when `k` is `None`. Topics are ordered by size (largest first), then by their first
/// paper's position in the corpus; ids are 0-based in that order.
pub fn cluster(
    papers: &[Paper],
    vectors: ArrayView2<f32>,
    k: Option<usize>,
) -> Result<Vec<Topic>, TopicError> {
    let n = papers.len();
    if vectors.nrows() != n {
        return Err(TopicError::Mismatch {
            papers: n,
            vectors: vectors.nrows(),
        });
    }
    if n == 0 {
        return Err(TopicError::Empty);
    }
    let points = Dense(vectors);
    let labels = match k {
        Some(0) => return Err(TopicError::ZeroK),
        Some(k) if k > n => return Err(TopicError::TooManyTopics { k, n }),
        Some(k) => spherical_kmeans(&points, k, restarts(n)).labels,
        None => auto_k(&points, vectors).1,
    };
    Ok(build_topics(papers, &points, &labels))
}

/// Spherical k-means labels of the rows of `points` (deterministic restarts).
pub(crate) fn kmeans_labels(points: ArrayView2<f32>, k: usize) -> Vec<usize> {
    let p = Dense(points);
    spherical_kmeans(&p, k, restarts(points.nrows())).labels
}

/// Topics from cluster `labels`: members ordered by centrality in `vectors`, keywords and a
/// label from the papers' text (and from curated tags, when `index` has them).
pub(crate) fn topics_from_labels(
    papers: &[Paper],
    vectors: ArrayView2<f32>,
    labels: &[usize],
    index: Option<&crate::index::Index>,
) -> Vec<Topic> {
    let mut topics = build_topics(papers, &Dense(vectors), labels);
    let position: std::collections::HashMap<&str, usize> = papers
        .iter()
        .enumerate()
        .map(|(i, p)| (p.id.as_str(), i))
        .collect();
    let members: Vec<Vec<usize>> = topics
        .iter()
        .map(|t| {
            t.papers
                .iter()
                .filter_map(|id| position.get(id.as_str()).copied())
                .collect()
        })
        .collect();
    // Each paper's terms once (segmenting Chinese is the costly part), shared by all clusters.
    let terms: Vec<BTreeSet<String>> = papers
        .par_iter()
        .map(|p| paper_terms(p).into_iter().map(|(key, _)| key).collect())
        .collect();
    let tagged = index.is_some_and(|ix| !ix.tags().is_empty());
    for (t, m) in topics.iter_mut().zip(&members) {
        let keywords = distinctive(&terms, m, &t.keywords);
        t.label = match tagged.then(|| tag_label(papers, m)).flatten() {
            Some(label) => label,
            None => make_label(&keywords),
        };
        t.keywords = keywords;
    }
    topics
}

/// The keywords (best first) most of whose papers lie in the cluster: a word spread evenly
/// over the corpus ("优化", "learning") describes no cluster, however often it occurs in it.
/// `terms[i]` holds paper `i`'s term keys.
fn distinctive(terms: &[BTreeSet<String>], members: &[usize], keywords: &[String]) -> Vec<String> {
    let mut out: Vec<String> = keywords
        .iter()
        .filter(|k| {
            let key = k.to_lowercase();
            let inside = members.iter().filter(|&&i| terms[i].contains(&key)).count();
            let all = terms.iter().filter(|t| t.contains(&key)).count();
            inside >= 2.min(members.len()) && inside * 2 >= all
        })
        .cloned()
        .collect();
    if out.is_empty() {
        out = keywords.iter().take(2).cloned().collect();
    }
    out
}

/// A bilingual label from the curated tags most particular to the cluster: coverage (share of
/// the cluster carrying the tag) times concentration (share of the tag's papers in the
/// cluster). "Web agents & GUI agents · 网页智能体与GUI 智能体".
fn tag_label(papers: &[Paper], members: &[usize]) -> Option<String> {
    let mut total: BTreeMap<&str, usize> = BTreeMap::new();
    for p in papers {
        for t in &p.tags {
            *total.entry(t).or_default() += 1;
        }
    }
    let mut inside: BTreeMap<&str, usize> = BTreeMap::new();
    for &i in members {
        for t in &papers[i].tags {
            *inside.entry(t).or_default() += 1;
        }
    }
    let size = members.len().max(1) as f64;
    let mut scored: Vec<(f64, &str)> = inside
        .iter()
        .filter(|(_, c)| **c >= 2.min(members.len()))
        .map(|(t, &c)| ((c as f64 / size) * (c as f64 / total[t] as f64), *t))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    let (best, first) = *scored.first()?;
    let mut chosen = vec![first];
    let en_of = |t: &str| {
        crate::corpus::paper::tag_names()
            .find(|(tag, _, _)| *tag == t)
            .map_or(t.to_string(), |(_, en, _)| en.to_lowercase())
    };
    if let Some(&(s, second)) = scored.get(1)
        && s >= 0.5 * best
        && !en_of(second).contains(&en_of(first))
        && !en_of(first).contains(&en_of(second))
    {
        chosen.push(second);
    }
    let names: Vec<(&str, &str)> = chosen
        .iter()
        .map(|t| {
            crate::corpus::paper::tag_names()
                .find(|(tag, _, _)| tag == t)
                .map_or((*t, *t), |(_, en, zh)| (en, zh))
        })
        .collect();
    let en: Vec<&str> = names.iter().map(|n| n.0).collect();
    let zh: Vec<&str> = names.iter().map(|n| n.1).collect();
    Some(format!("{} · {}", en.join(" & "), zh.join("与")))
}

/// The range of k tried when k is chosen automatically.
pub fn k_range(n: usize) -> std::ops::RangeInclusive<usize> {
    if n < 2 {
        return 1..=n.max(1);
    }
    // Silhouette on sentence embeddings favours very few, very broad clusters (on the seed
    // corpus it picks 4, one holding 93 of 141 papers): a map of a field needs finer topics, so
    // the floor grows with the corpus, sqrt(n/2) as the classic rule of thumb.
    // and the ceiling stays near sqrt(n): beyond it silhouette keeps rising as clusters shrink
    // to pairs and singletons, which label nothing.
    let hi = ((1.5 * (n as f64).sqrt()).round() as usize)
        .clamp(2, 40)
        .min(n / 4)
        .max(2.min(n));
    let floor = ((n as f64 / 2.0).sqrt().round() as usize).max(4);
    let lo = floor.min(hi);
    lo..=hi
}

fn restarts(n: usize) -> usize {
    if n > 1000 { 4 } else { 10 }
}

/// Best k by silhouette, with its labels.
fn auto_k(points: &Dense, vectors: ArrayView2<f32>) -> (usize, Vec<usize>) {
    let n = points.n();
    let gram = (n <= EXACT_SILHOUETTE_MAX).then(|| gram_matrix(vectors));
    let mut best: Option<(f64, usize, Vec<usize>)> = None;
    for k in k_range(n) {
        let labels = spherical_kmeans(points, k, restarts(n)).labels;
        let s = match &gram {
            Some(g) => silhouette(g, n, &labels, k),
            None => simplified_silhouette(points, &labels, k),
        };
        if best.as_ref().is_none_or(|b| s > b.0) {
            best = Some((s, k, labels));
        }
    }
    let (_, k, labels) = best.expect("k_range is never empty");
    (k, labels)
}

// ---------------------------------------------------------------------------------------------
// Spherical k-means over dense or sparse points

/// What k-means needs of its points: dot with a dense centroid, and adding into a sum.
trait Points: Sync {
    fn n(&self) -> usize;
    fn dim(&self) -> usize;
    fn dot_dense(&self, i: usize, c: &[f32]) -> f64;
    fn add_to(&self, i: usize, acc: &mut [f64]);
}

struct Dense<'a>(ArrayView2<'a, f32>);

impl Points for Dense<'_> {
    fn n(&self) -> usize {
        self.0.nrows()
    }
    fn dim(&self) -> usize {
        self.0.ncols()
    }
    fn dot_dense(&self, i: usize, c: &[f32]) -> f64 {
        let mut s = 0.0f64;
        for (x, y) in self.0.row(i).iter().zip(c) {
            s += f64::from(*x) * f64::from(*y);
        }
        s
    }
    fn add_to(&self, i: usize, acc: &mut [f64]) {
        for (a, x) in acc.iter_mut().zip(self.0.row(i).iter()) {
            *a += f64::from(*x);
        }
    }
}

/// Sparse rows: (term id, weight), L2-normalized.
struct Sparse {
    rows: Vec<Vec<(usize, f32)>>,
    dim: usize,
}

impl Points for Sparse {
    fn n(&self) -> usize {
        self.rows.len()
    }
    fn dim(&self) -> usize {
        self.dim
    }
    fn dot_dense(&self, i: usize, c: &[f32]) -> f64 {
        self.rows[i]
            .iter()
            .map(|&(t, w)| f64::from(w) * f64::from(c[t]))
            .fold(0.0, |a, b| a + b)
    }
    fn add_to(&self, i: usize, acc: &mut [f64]) {
        for &(t, w) in &self.rows[i] {
            acc[t] += f64::from(w);
        }
    }
}

struct KMeans {
    labels: Vec<usize>,
    objective: f64,
}

/// SplitMix64: tiny, fixed-seed, identical everywhere.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// uniform in [0, 1)
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn spherical_kmeans<P: Points>(p: &P, k: usize, restarts: usize) -> KMeans {
    // restarts run in parallel; the winner is chosen in seed order, so it never depends on
    // which thread finished first
    let runs: Vec<KMeans> = (0..restarts.max(1) as u64)
        .into_par_iter()
        .map(|seed| kmeans_once(p, k, seed))
        .collect();
    let mut best: Option<KMeans> = None;
    for run in runs {
        if best.as_ref().is_none_or(|b| run.objective > b.objective) {
            best = Some(run);
        }
    }
    best.expect("at least one restart")
}

fn point_dense<P: Points>(p: &P, i: usize) -> Vec<f32> {
    let mut acc = vec![0.0f64; p.dim()];
    p.add_to(i, &mut acc);
    acc.into_iter().map(|x| x as f32).collect()
}

/// k-means++ seeding: the first center uniformly, each next one with probability proportional
/// to the squared cosine distance to the nearest chosen center.
fn seed_centers<P: Points>(p: &P, k: usize, rng: &mut Rng) -> Vec<Vec<f32>> {
    let n = p.n();
    let first = (rng.next_u64() % n as u64) as usize;
    let mut chosen = vec![first];
    let mut centers = vec![point_dense(p, first)];
    let mut nearest: Vec<f64> = (0..n).map(|i| p.dot_dense(i, &centers[0])).collect();
    while centers.len() < k {
        let weights: Vec<f64> = nearest
            .iter()
            .map(|&s| (1.0 - s).max(0.0).powi(2))
            .collect();
        let total: f64 = weights.iter().fold(0.0, |a, b| a + b);
        let pick = if total > 1e-12 {
            let mut r = rng.unit() * total;
            let mut pick = None;
            for (i, w) in weights.iter().enumerate() {
                if *w <= 0.0 || chosen.contains(&i) {
                    continue;
                }
                pick = Some(i);
                if r < *w {
                    break;
                }
                r -= w;
            }
            pick
        } else {
            None
        };
        // all remaining points duplicate a center: take the first unchosen one
        let pick = pick.unwrap_or_else(|| (0..n).find(|i| !chosen.contains(i)).unwrap_or(0));
        chosen.push(pick);
        let c = point_dense(p, pick);
        for (i, s) in nearest.iter_mut().enumerate() {
            *s = s.max(p.dot_dense(i, &c));
        }
        centers.push(c);
    }
    centers
}

/// Best centroid for each point (ties: lower cluster index) and its similarity.
fn assign<P: Points>(p: &P, centers: &[Vec<f32>]) -> Vec<(usize, f64)> {
    (0..p.n())
        .into_par_iter()
        .map(|i| {
            let mut best = (0, f64::NEG_INFINITY);
            for (c, center) in centers.iter().enumerate() {
                let s = p.dot_dense(i, center);
                if s > best.1 {
                    best = (c, s);
                }
            }
            best
        })
        .collect()
}

/// Normalized mean of each cluster's members, summed in point order.
fn centroids<P: Points>(p: &P, labels: &[usize], k: usize) -> Vec<Vec<f32>> {
    let mut sums = vec![vec![0.0f64; p.dim()]; k];
    for (i, &c) in labels.iter().enumerate() {
        p.add_to(i, &mut sums[c]);
    }
    sums.into_iter()
        .map(|s| {
            let norm = s.iter().map(|x| x * x).fold(0.0, |a, b| a + b).sqrt();
            let norm = if norm > 0.0 { norm } else { 1.0 };
            s.into_iter().map(|x| (x / norm) as f32).collect()
        })
        .collect()
}

/// Give every empty cluster the point that fits its current cluster worst (from clusters with
/// at least two members). Requires n >= k.
fn fill_empty(labels: &mut [usize], fit: &mut [f64], k: usize) {
    loop {
        let mut sizes = vec![0usize; k];
        for &c in labels.iter() {
            sizes[c] += 1;
        }
        let Some(empty) = sizes.iter().position(|&s| s == 0) else {
            return;
        };
        let worst = (0..labels.len())
            .filter(|&i| sizes[labels[i]] >= 2)
            .min_by(|&a, &b| fit[a].total_cmp(&fit[b]).then(a.cmp(&b)))
            .expect("n >= k leaves a cluster with two members");
        labels[worst] = empty;
        fit[worst] = f64::INFINITY; // now alone in its cluster: never moved again this round
    }
}

fn kmeans_once<P: Points>(p: &P, k: usize, seed: u64) -> KMeans {
    let n = p.n();
    let k = k.clamp(1, n.max(1));
    let mut rng = Rng(seed
        .wrapping_mul(0xA24B_AED4_963E_E407)
        .wrapping_add(0x5851_F42D));
    let mut centers = seed_centers(p, k, &mut rng);
    let mut labels: Vec<usize> = Vec::new();
    for _ in 0..MAX_ITERS {
        let assigned = assign(p, &centers);
        let mut new_labels: Vec<usize> = assigned.iter().map(|a| a.0).collect();
        let mut fit: Vec<f64> = assigned.iter().map(|a| a.1).collect();
        fill_empty(&mut new_labels, &mut fit, k);
        let done = new_labels == labels;
        labels = new_labels;
        centers = centroids(p, &labels, k);
        if done {
            break;
        }
    }
    let objective = (0..n)
        .map(|i| p.dot_dense(i, &centers[labels[i]]))
        .fold(0.0, |a, b| a + b);
    KMeans { labels, objective }
}

// ---------------------------------------------------------------------------------------------
// Silhouette

fn gram_matrix(v: ArrayView2<f32>) -> Vec<f32> {
    let n = v.nrows();
    (0..n)
        .into_par_iter()
        .flat_map_iter(|i| (0..n).map(move |j| dot(v.row(i), v.row(j))))
        .collect()
}

/// Mean silhouette with cosine distance `1 - sim`; singletons score 0 (as scikit-learn).
fn silhouette(gram: &[f32], n: usize, labels: &[usize], k: usize) -> f64 {
    let mut sizes = vec![0usize; k];
    for &c in labels {
        sizes[c] += 1;
    }
    let scores: Vec<f64> = (0..n)
        .into_par_iter()
        .map(|i| {
            let own = labels[i];
            if sizes[own] < 2 {
                return 0.0;
            }
            let mut dist = vec![0.0f64; k];
            for j in 0..n {
                if j != i {
                    dist[labels[j]] += 1.0 - f64::from(gram[i * n + j]);
                }
            }
            let a = dist[own] / (sizes[own] - 1) as f64;
            let b = (0..k)
                .filter(|&c| c != own && sizes[c] > 0)
                .map(|c| dist[c] / sizes[c] as f64)
                .fold(f64::INFINITY, f64::min);
            if !b.is_finite() {
                return 0.0;
            }
            let m = a.max(b);
            if m > 0.0 { (b - a) / m } else { 0.0 }
        })
        .collect();
    scores.iter().fold(0.0, |a, b| a + b) / n as f64
}

/// Silhouette with distances to centroids instead of to every member: O(n·k·d).
fn simplified_silhouette<P: Points>(p: &P, labels: &[usize], k: usize) -> f64 {
    let centers = centroids(p, labels, k);
    let scores: Vec<f64> = (0..p.n())
        .into_par_iter()
        .map(|i| {
            let own = labels[i];
            let a = 1.0 - p.dot_dense(i, &centers[own]);
            let b = (0..k)
                .filter(|&c| c != own)
                .map(|c| 1.0 - p.dot_dense(i, &centers[c]))
                .fold(f64::INFINITY, f64::min);
            let m = a.max(b);
            if b.is_finite() && m > 0.0 {
                (b - a) / m
            } else {
                0.0
            }
        })
        .collect();
    scores.iter().fold(0.0, |a, b| a + b) / p.n() as f64
}

// ---------------------------------------------------------------------------------------------
// Topics from labels

fn build_topics(papers: &[Paper], points: &Dense, labels: &[usize]) -> Vec<Topic> {
    let k = labels.iter().max().map_or(0, |m| m + 1);
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); k];
    for (i, &c) in labels.iter().enumerate() {
        members[c].push(i);
    }
    members.retain(|m| !m.is_empty());
    members.sort_by(|a, b| b.len().cmp(&a.len()).then(a[0].cmp(&b[0])));
    // most central first: mean similarity to the cluster = dot with the members' sum
    for m in members.iter_mut() {
        let mut sum = vec![0.0f64; points.dim()];
        for &i in m.iter() {
            points.add_to(i, &mut sum);
        }
        let sum: Vec<f32> = sum.into_iter().map(|x| x as f32).collect();
        let mut scored: Vec<(usize, f64)> =
            m.iter().map(|&i| (i, points.dot_dense(i, &sum))).collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        *m = scored.into_iter().map(|s| s.0).collect();
    }
    let keywords = ctfidf_keywords(papers, &members, KEYWORDS);
    members
        .iter()
        .zip(keywords)
        .enumerate()
        .map(|(id, (m, kw))| Topic {
            id,
            label: make_label(&kw),
            keywords: kw,
            papers: m.iter().map(|&i| papers[i].id.clone()).collect(),
            central: papers[m[0]].id.clone(),
        })
        .collect()
}

fn is_cjk_word(w: &str) -> bool {
    w.chars().any(text::is_cjk)
}

/// The top 2 keywords, plus a third that brings in the other script (English/Chinese) when the
/// first two share one; else the third keyword. A keyword inside an earlier one, or containing
/// it (智能体 after 多智能体), is skipped. Joined with " · ".
fn make_label(keywords: &[String]) -> String {
    let lower: Vec<String> = keywords.iter().map(|k| k.to_lowercase()).collect();
    let mut distinct: Vec<usize> = Vec::new();
    for (i, k) in lower.iter().enumerate() {
        if !distinct
            .iter()
            .any(|&j| lower[j].contains(k.as_str()) || k.contains(lower[j].as_str()))
        {
            distinct.push(i);
        }
    }
    let mut parts: Vec<&str> = distinct
        .iter()
        .take(2)
        .map(|&i| keywords[i].as_str())
        .collect();
    if parts.len() == 2 {
        let (a, b) = (is_cjk_word(parts[0]), is_cjk_word(parts[1]));
        let rest = &distinct[2..];
        let third = if a == b {
            rest.iter()
                .find(|&&i| is_cjk_word(&keywords[i]) != a)
                .or(rest.first())
        } else {
            rest.first()
        };
        if let Some(&t) = third {
            parts.push(&keywords[t]);
        }
    }
    if parts.is_empty() {
        "(untitled)".to_string()
    } else {
        parts.join(" · ")
    }
}

/// Grammatical jieba tags: particles, prepositions, conjunctions, pronouns, adverbs, numerals,
/// quantifiers, directions, modal/exclamation/onomatopoeia, non-words.
fn grammatical_tag(tag: &str) -> bool {
    tag == "ad"
        || matches!(
            tag.as_bytes().first(),
            Some(
                b'u' | b'p'
                    | b'c'
                    | b'r'
                    | b'd'
                    | b'm'
                    | b'q'
                    | b'f'
                    | b'y'
                    | b'e'
                    | b'o'
                    | b'x'
                    | b'w'
            )
        )
}

/// Readable terms of a paper (title + highlight) as (key, surface form), repeats kept.
/// English: words and hyphenated names; key lowercase; the surface keeps case only for
/// acronyms and names (an uppercase letter after the first character: GRPO, WebAgent).
/// Chinese: jieba words of ≥ 2 characters, grammatical words dropped.
pub(crate) fn paper_terms(paper: &Paper) -> Vec<(String, String)> {
    let text = text::fold_width(&format!(
        "{}\n{}\n{}",
        paper.title, paper.summary, paper.highlight
    ));
    let mut out = Vec::new();
    // English
    let mut word = String::new();
    let push_word = |word: &mut String, out: &mut Vec<(String, String)>| {
        let w = word.trim_matches('-');
        let chars = w.chars().count();
        let starts_alpha = w.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
        if chars >= 2 && starts_alpha {
            let key = w.to_lowercase();
            if !text::is_stopword(&key) {
                let named = w
                    .split('-')
                    .any(|p| p.chars().skip(1).any(|c| c.is_uppercase()));
                out.push((key.clone(), if named { w.to_string() } else { key }));
            }
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || (c == '-' && !word.is_empty()) {
            word.push(c);
        } else {
            push_word(&mut word, &mut out);
        }
    }
    push_word(&mut word, &mut out);
    // Chinese
    for tag in text::segment::jieba().tag(&text, true) {
        let w = tag.word;
        if w.chars().count() >= 2
            && w.chars().all(text::is_cjk)
            && !grammatical_tag(tag.tag)
            && !text::is_stopword(w)
        {
            out.push((w.to_string(), w.to_string()));
        }
    }
    out
}

/// Top `top` keywords of each cluster by c-TF-IDF (term counted once per paper). In clusters
/// of three or more papers a keyword must occur in at least two of them when enough do.
fn ctfidf_keywords(papers: &[Paper], clusters: &[Vec<usize>], top: usize) -> Vec<Vec<String>> {
    let doc_terms: Vec<Vec<(String, String)>> = papers.par_iter().map(paper_terms).collect();
    // surface form: the most frequent one over the corpus, ties the smallest
    let mut surfaces: BTreeMap<&str, BTreeMap<&str, usize>> = BTreeMap::new();
    for terms in &doc_terms {
        for (k, s) in terms {
            *surfaces.entry(k).or_default().entry(s).or_default() += 1;
        }
    }
    let surface = |key: &str| -> String {
        surfaces[key]
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
            .map(|s| s.0.to_string())
            .unwrap_or_else(|| key.to_string())
    };
    // corpus-wide stopwords: in a corpus of 20+ papers, a term in more than a quarter of them
    // ("RL" in an RL corpus) names no topic
    let mut df: BTreeMap<&str, usize> = BTreeMap::new();
    for terms in &doc_terms {
        let set: BTreeSet<&str> = terms.iter().map(|t| t.0.as_str()).collect();
        for t in set {
            *df.entry(t).or_default() += 1;
        }
    }
    let common = |t: &str| papers.len() >= 20 && df[t] * 4 > papers.len();
    let class_tf: Vec<BTreeMap<&str, usize>> = clusters
        .iter()
        .map(|m| {
            let mut tf: BTreeMap<&str, usize> = BTreeMap::new();
            for &i in m {
                let set: BTreeSet<&str> = doc_terms[i].iter().map(|t| t.0.as_str()).collect();
                for t in set.into_iter().filter(|t| !common(t)) {
                    *tf.entry(t).or_default() += 1;
                }
            }
            tf
        })
        .collect();
    let mut total: BTreeMap<&str, usize> = BTreeMap::new();
    for tf in &class_tf {
        for (t, c) in tf {
            *total.entry(t).or_default() += c;
        }
    }
    let words: Vec<usize> = class_tf.iter().map(|tf| tf.values().sum()).collect();
    let avg = words.iter().sum::<usize>() as f64 / words.len().max(1) as f64;
    class_tf
        .iter()
        .zip(clusters)
        .zip(&words)
        .map(|((tf, m), &w)| {
            let mut scored: Vec<(f64, &str, usize)> = tf
                .iter()
                .map(|(t, &c)| {
                    let score = (c as f64 / w.max(1) as f64) * (1.0 + avg / total[t] as f64).ln();
                    (score, *t, c)
                })
                .collect();
            scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
            let shared: Vec<&(f64, &str, usize)> = scored.iter().filter(|s| s.2 >= 2).collect();
            let chosen: Vec<&str> = if m.len() >= 3 && shared.len() >= top {
                shared.iter().take(top).map(|s| s.1).collect()
            } else if m.len() >= 3 {
                // the shared ones first, then the best of the rest
                let mut v: Vec<&str> = shared.iter().map(|s| s.1).collect();
                v.extend(scored.iter().filter(|s| s.2 < 2).map(|s| s.1));
                v.truncate(top);
                v
            } else {
                scored.iter().take(top).map(|s| s.1).collect()
            };
            chosen.into_iter().map(surface).collect()
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Evaluation

/// Cell counts, row sums, column sums.
type Contingency = (
    BTreeMap<(usize, usize), usize>,
    BTreeMap<usize, usize>,
    BTreeMap<usize, usize>,
);

fn contingency(a: &[usize], b: &[usize]) -> (Contingency, usize) {
    assert_eq!(a.len(), b.len(), "label vectors must have the same length");
    let mut cells = BTreeMap::new();
    let mut ra = BTreeMap::new();
    let mut rb = BTreeMap::new();
    for (&x, &y) in a.iter().zip(b) {
        *cells.entry((x, y)).or_insert(0) += 1;
        *ra.entry(x).or_insert(0) += 1;
        *rb.entry(y).or_insert(0) += 1;
    }
    ((cells, ra, rb), a.len())
}

fn entropy(counts: &BTreeMap<usize, usize>, n: usize) -> f64 {
    let n = n as f64;
    -counts
        .values()
        .map(|&c| c as f64 / n)
        .map(|p| p * p.ln())
        .fold(0.0, |a, b| a + b)
}

/// Normalized mutual information with arithmetic-mean normalization (scikit-learn's default):
/// `MI / ((H(a) + H(b)) / 2)`. Two one-cluster labelings (or empty ones) score 1.
pub fn nmi(labels_a: &[usize], labels_b: &[usize]) -> f64 {
    let ((cells, ra, rb), n) = contingency(labels_a, labels_b);
    if n == 0 || (ra.len() == 1 && rb.len() == 1) || (ra.len() == n && rb.len() == n) {
        return 1.0;
    }
    let nf = n as f64;
    let mut mi = 0.0;
    for (&(x, y), &c) in &cells {
        let c = c as f64;
        mi += c / nf * (c * nf / (ra[&x] as f64 * rb[&y] as f64)).ln();
    }
    let norm = (entropy(&ra, n) + entropy(&rb, n)) / 2.0;
    if norm <= 0.0 {
        0.0
    } else {
        (mi / norm).clamp(0.0, 1.0)
    }
}

fn comb2(x: usize) -> f64 {
    let x = x as f64;
    x * (x - 1.0) / 2.0
}

/// Adjusted Rand index (Hubert & Arabie), as scikit-learn: 1 for identical partitions, ~0 for
/// chance; the degenerate case where both are trivial scores 1.
pub fn ari(labels_a: &[usize], labels_b: &[usize]) -> f64 {
    let ((cells, ra, rb), n) = contingency(labels_a, labels_b);
    if n < 2 {
        return 1.0;
    }
    let index: f64 = cells.values().map(|&c| comb2(c)).sum();
    let sa: f64 = ra.values().map(|&c| comb2(c)).sum();
    let sb: f64 = rb.values().map(|&c| comb2(c)).sum();
    let expected = sa * sb / comb2(n);
    let max = (sa + sb) / 2.0;
    if (max - expected).abs() < 1e-12 {
        return 1.0;
    }
    (index - expected) / (max - expected)
}

/// Our topics against the corpus' `topic` labels (papers without one are left out). `None`
/// when fewer than two distinct labels exist.
pub fn agreement(topics: &[Topic], papers: &[Paper]) -> Option<Agreement> {
    let ours: BTreeMap<&str, usize> = topics
        .iter()
        .flat_map(|t| t.papers.iter().map(move |p| (p.as_str(), t.id)))
        .collect();
    let gold_names: BTreeSet<&str> = papers
        .iter()
        .map(|p| p.topic.trim())
        .filter(|t| !t.is_empty())
        .collect();
    if gold_names.len() < 2 {
        return None;
    }
    let gold_id: BTreeMap<&str, usize> = gold_names
        .iter()
        .enumerate()
        .map(|(i, t)| (*t, i))
        .collect();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for p in papers {
        let t = p.topic.trim();
        if let (Some(&g), Some(&o)) = (gold_id.get(t), ours.get(p.id.as_str())) {
            a.push(g);
            b.push(o);
        }
    }
    Some(Agreement {
        nmi: nmi(&a, &b),
        ari: ari(&a, &b),
        k: topics.len(),
        labels: gold_names.len(),
        papers: a.len(),
    })
}

/// Seed topic labels as indices (sorted label order), for papers with a topic.
pub fn gold_labels(papers: &[Paper]) -> Vec<Option<usize>> {
    let names: BTreeSet<&str> = papers
        .iter()
        .map(|p| p.topic.trim())
        .filter(|t| !t.is_empty())
        .collect();
    let id: BTreeMap<&str, usize> = names.iter().enumerate().map(|(i, t)| (*t, i)).collect();
    papers
        .iter()
        .map(|p| id.get(p.topic.trim()).copied())
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Baseline

/// Spherical k-means (fixed seeds, several restarts) over sparse L2-normalized rows of
/// `(feature id < dim, weight)`: the clustering the TF-IDF baseline runs
/// (`bench::tfidf::kmeans_baseline`). `k` is clamped to `1..=rows.len()`.
pub fn kmeans_sparse(rows: Vec<Vec<(usize, f32)>>, dim: usize, k: usize) -> Vec<usize> {
    let n = rows.len();
    if n == 0 {
        return Vec::new();
    }
    let points = Sparse { rows, dim };
    spherical_kmeans(&points, k.clamp(1, n), restarts(n)).labels
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Kind;
    use ndarray::Array2;

    pub(crate) fn paper(id: &str, title: &str, highlight: &str, topic: &str) -> Paper {
        Paper {
            id: id.into(),
            title: title.into(),
            highlight: highlight.into(),
            topic: topic.into(),
            kind: Kind::Method,
            ..Paper::default()
        }
    }

    /// `groups` clusters of `per` points around orthogonal axes, slightly perturbed.
    fn blobs(groups: usize, per: usize, dim: usize) -> Array2<f32> {
        let n = groups * per;
        let mut m = Array2::zeros((n, dim));
        let mut rng = Rng(7);
        for i in 0..n {
            let g = i % groups;
            m[[i, g]] = 1.0;
            for j in 0..dim {
                m[[i, j]] += (rng.unit() as f32 - 0.5) * 0.3;
            }
            let norm = m.row(i).iter().map(|x| x * x).sum::<f32>().sqrt();
            m.row_mut(i).mapv_inplace(|x| x / norm);
        }
        m
    }

    fn corpus(groups: usize, per: usize) -> Vec<Paper> {
        let words = [
            ("GRPO reasoning reward", "强化学习 推理 奖励模型"),
            ("web search agent", "搜索 智能体 网页"),
            ("SWE-bench code repair", "代码 修复 软件工程"),
            ("memory long context", "记忆 长上下文 检索"),
            ("GUI computer use", "界面 操作 电脑"),
        ];
        (0..groups * per)
            .map(|i| {
                let g = i % groups;
                let (t, h) = words[g % words.len()];
                paper(
                    &format!("p{i}"),
                    &format!("{t} paper {i}"),
                    h,
                    &format!("topic{g}"),
                )
            })
            .collect()
    }

    #[test]
    fn nmi_ari_known_values() {
        let t = [0, 0, 1, 1];
        let p = [0, 0, 1, 2];
        assert!((nmi(&t, &p) - 0.8).abs() < 1e-9, "{}", nmi(&t, &p));
        assert!((ari(&t, &p) - 4.0 / 7.0).abs() < 1e-9, "{}", ari(&t, &p));
        assert!((nmi(&t, &t) - 1.0).abs() < 1e-12);
        assert!((ari(&t, &t) - 1.0).abs() < 1e-12);
        // permuted names do not matter
        assert!((nmi(&[0, 0, 1, 1], &[5, 5, 3, 3]) - 1.0).abs() < 1e-12);
        // independent partitions: MI = 0, ARI = -0.5 (sklearn gives -0.5 for this one)
        assert!(nmi(&[0, 0, 1, 1], &[0, 1, 0, 1]).abs() < 1e-12);
        assert!((ari(&[0, 0, 1, 1], &[0, 1, 0, 1]) + 0.5).abs() < 1e-9);
        // one cluster against two: 0
        assert!(nmi(&[0, 0, 0, 0], &[0, 0, 1, 1]).abs() < 1e-12);
        // hand computed: t=[0,0,0,1,1,1], p=[0,0,1,1,2,2]: ARI = (2 - 6*3/15)/(4.5 - 1.2) = 0.8/3.3
        let (t, p) = ([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]);
        assert!((ari(&t, &p) - 0.8 / 3.3).abs() < 1e-9);
    }

    #[test]
    fn clusters_cover_every_paper_once_and_recover_blobs() {
        let v = blobs(4, 10, 16);
        let papers = corpus(4, 10);
        let topics = cluster(&papers, v.view(), Some(4)).unwrap();
        assert_eq!(topics.len(), 4);
        let mut seen: Vec<&str> = topics
            .iter()
            .flat_map(|t| t.papers.iter().map(String::as_str))
            .collect();
        seen.sort();
        let mut all: Vec<&str> = papers.iter().map(|p| p.id.as_str()).collect();
        all.sort();
        assert_eq!(seen, all);
        for t in &topics {
            assert!(!t.papers.is_empty());
            assert_eq!(t.central, t.papers[0]);
            assert!(!t.keywords.is_empty() && t.keywords.len() <= KEYWORDS);
        }
        let a = agreement(&topics, &papers).unwrap();
        assert!(
            (a.nmi - 1.0).abs() < 1e-9 && (a.ari - 1.0).abs() < 1e-9,
            "{a:?}"
        );
        assert_eq!((a.k, a.labels, a.papers), (4, 4, 40));
    }

    #[test]
    fn auto_k_finds_the_blobs() {
        let v = blobs(5, 8, 16);
        let papers = corpus(5, 8);
        let topics = cluster(&papers, v.view(), None).unwrap();
        assert_eq!(topics.len(), 5);
        assert!(agreement(&topics, &papers).unwrap().nmi > 0.99);
    }

    #[test]
    fn deterministic_output() {
        let v = blobs(5, 9, 12);
        let papers = corpus(5, 9);
        let a = serde_json::to_string(&cluster(&papers, v.view(), None).unwrap()).unwrap();
        let b = serde_json::to_string(&cluster(&papers, v.view(), None).unwrap()).unwrap();
        assert_eq!(a, b);
        let c = serde_json::to_string(&cluster(&papers, v.view(), Some(7)).unwrap()).unwrap();
        let d = serde_json::to_string(&cluster(&papers, v.view(), Some(7)).unwrap()).unwrap();
        assert_eq!(c, d);
    }

    #[test]
    fn k_bounds_and_errors() {
        let v = blobs(2, 3, 4);
        let papers = corpus(2, 3);
        assert_eq!(cluster(&papers, v.view(), Some(0)), Err(TopicError::ZeroK));
        assert_eq!(
            cluster(&papers, v.view(), Some(7)),
            Err(TopicError::TooManyTopics { k: 7, n: 6 })
        );
        assert_eq!(
            cluster(&[], Array2::<f32>::zeros((0, 4)).view(), None),
            Err(TopicError::Empty)
        );
        assert!(matches!(
            cluster(&papers[..3], v.view(), None),
            Err(TopicError::Mismatch { .. })
        ));
        // k == n: singletons, none empty
        let t = cluster(&papers, v.view(), Some(6)).unwrap();
        assert_eq!(t.len(), 6);
        assert!(t.iter().all(|t| t.papers.len() == 1));
        // one paper
        let t = cluster(&papers[..1], v.slice(ndarray::s![..1, ..]), None).unwrap();
        assert_eq!(t.len(), 1);
    }

    #[test]
    fn duplicate_vectors_never_leave_empty_clusters() {
        let mut v = Array2::zeros((6, 3));
        for i in 0..6 {
            v[[i, 0]] = 1.0;
        }
        let papers = corpus(1, 6);
        let t = cluster(&papers, v.view(), Some(4)).unwrap();
        assert_eq!(t.len(), 4);
        assert_eq!(t.iter().map(|t| t.papers.len()).sum::<usize>(), 6);
    }

    #[test]
    fn keywords_and_labels_mix_scripts() {
        let v = blobs(3, 6, 8);
        let papers = corpus(3, 6);
        let topics = cluster(&papers, v.view(), Some(3)).unwrap();
        let grpo = topics
            .iter()
            .find(|t| t.keywords.iter().any(|k| k == "GRPO"))
            .expect("GRPO kept in caps");
        assert!(
            grpo.keywords.iter().any(|k| k == "推理" || k == "强化学习"),
            "{:?}",
            grpo.keywords
        );
        assert!(grpo.label.contains(" · "));
        assert!(
            grpo.label.chars().any(text::is_cjk)
                && grpo.label.chars().any(|c| c.is_ascii_alphabetic()),
            "{}",
            grpo.label
        );
        let swe = topics
            .iter()
            .find(|t| t.keywords.iter().any(|k| k == "SWE-bench"))
            .expect("names kept");
        assert!(!swe.keywords.iter().any(|k| k == "paper"));
    }

    #[test]
    fn labels_skip_nested_keywords_and_mix_scripts() {
        let kw = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            make_label(&kw(&["多智能体", "智能体", "GUI", "agents"])),
            "多智能体 · GUI · agents"
        );
        assert_eq!(
            make_label(&kw(&["推理", "奖励", "reward", "GRPO"])),
            "推理 · 奖励 · reward"
        );
        assert_eq!(
            make_label(&kw(&["GRPO", "推理", "reward"])),
            "GRPO · 推理 · reward"
        );
        assert_eq!(make_label(&kw(&["search"])), "search");
        assert_eq!(make_label(&[]), "(untitled)");
    }

    #[test]
    fn k_range_bounds() {
        assert_eq!(k_range(0), 1..=1);
        assert_eq!(k_range(1), 1..=1);
        assert_eq!(k_range(5), 2..=2);
        assert_eq!(k_range(40), 4..=9);
        assert_eq!(k_range(150), 9..=18);
    }

    /// Naive average-linkage agglomerative clustering on cosine (O(n³)), for comparison only.
    fn average_linkage(v: ndarray::ArrayView2<f32>, k: usize) -> Vec<usize> {
        let n = v.nrows();
        let g = gram_matrix(v);
        let mut clusters: Vec<Vec<usize>> = (0..n).map(|i| vec![i]).collect();
        while clusters.len() > k {
            let mut best = (f64::NEG_INFINITY, 0, 0);
            for a in 0..clusters.len() {
                for b in a + 1..clusters.len() {
                    let mut s = 0.0f64;
                    for &i in &clusters[a] {
                        for &j in &clusters[b] {
                            s += f64::from(g[i * n + j]);
                        }
                    }
                    s /= (clusters[a].len() * clusters[b].len()) as f64;
                    if s > best.0 {
                        best = (s, a, b);
                    }
                }
            }
            let merged = clusters.remove(best.2);
            clusters[best.1].extend(merged);
        }
        let mut labels = vec![0; n];
        for (c, m) in clusters.iter().enumerate() {
            for &i in m {
                labels[i] = c;
            }
        }
        labels
    }

    /// Measures agreement with the seed topics on a real corpus:
    /// `RECOMMEND_EVAL_CORPUS=corpus/papers.jsonl cargo test --lib eval_corpus -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn eval_corpus() {
        let Ok(path) = std::env::var("RECOMMEND_EVAL_CORPUS") else {
            return;
        };
        let papers: Vec<Paper> = std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let gold: Vec<usize> = gold_labels(&papers)
            .into_iter()
            .map(|g| g.unwrap_or(usize::MAX))
            .collect();
        let tfidf = crate::bench::tfidf::Tfidf::fit_papers(&papers);
        let mut v = ndarray::Array2::zeros((papers.len(), tfidf.dim()));
        for (i, row) in tfidf.rows().iter().enumerate() {
            for &(t, w) in row {
                v[[i, t]] = w;
            }
        }
        let g = gram_matrix(v.view());
        let n = papers.len();
        for k in [8, 12, 16, 20, 23] {
            let base = crate::bench::tfidf::kmeans_baseline(&papers, k);
            let km = spherical_kmeans(&Dense(v.view()), k, 10).labels;
            let km1 = spherical_kmeans(&Dense(v.view()), k, 1).labels;
            let al = average_linkage(v.view(), k);
            println!(
                "k={k:2} baseline nmi {:.3} ari {:.3} | kmeans(10) nmi {:.3} ari {:.3} sil {:.3} | kmeans(1) nmi {:.3} | avg-link nmi {:.3} ari {:.3} sil {:.3}",
                nmi(&gold, &base),
                ari(&gold, &base),
                nmi(&gold, &km),
                ari(&gold, &km),
                silhouette(&g, n, &km, k),
                nmi(&gold, &km1),
                nmi(&gold, &al),
                ari(&gold, &al),
                silhouette(&g, n, &al, k)
            );
        }
        let t0 = std::time::Instant::now();
        let topics = cluster(&papers, v.view(), None).unwrap();
        println!(
            "auto: {:?} in {:?}",
            agreement(&topics, &papers).unwrap(),
            t0.elapsed()
        );
        for t in &topics {
            println!(
                "{:2} {:3} {} | {} | {}",
                t.id,
                t.papers.len(),
                t.label,
                t.keywords.join(", "),
                t.central
            );
        }
    }
}
