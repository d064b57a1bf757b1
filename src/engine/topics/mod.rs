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

//!
//! # Layout
//!
//! `kmeans` (spherical k-means over dense or sparse points), `select` (choosing k by
//! silhouette), `labels` (keywords and names of a cluster), `agreement` (NMI and ARI against
//! the corpus' own labels). The public paths (`topics::cluster`, `topics::nmi`, ...) are
//! re-exported here.

mod agreement;
mod headings;
mod kmeans;
mod labels;
mod select;
#[cfg(test)]
mod tests;

pub use agreement::{Agreement, agreement, ari, gold_labels, nmi};
pub use kmeans::kmeans_sparse;
pub use select::{EXACT_SILHOUETTE_MAX, k_range};

use crate::corpus::Paper;
use kmeans::{Dense, spherical_kmeans};
use labels::{build_topics, distinctive, make_label, paper_terms, tag_label};
use ndarray::ArrayView2;
use rayon::prelude::*;
use select::{auto_k, restarts};
use serde::Serialize;
use std::collections::BTreeSet;

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

/// Keywords per topic.
pub const KEYWORDS: usize = 8;

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
    index: Option<&crate::index::Searcher>,
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
    // Lists without curated tags are headed by their titles' phrases (`headings`).
    let phrases = (!tagged).then(|| headings::paper_phrases(papers));
    let chinese = phrases.is_some() && headings::chinese_list(papers);
    for (t, m) in topics.iter_mut().zip(&members) {
        let keywords = distinctive(&terms, m, &t.keywords);
        let label = match &phrases {
            Some(phrases) => headings::heading(phrases, m, chinese, &keywords),
            None => tag_label(papers, m, &terms),
        };
        t.label = label.unwrap_or_else(|| make_label(&keywords));
        t.keywords = keywords;
    }
    topics
}
