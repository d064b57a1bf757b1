//! Agreement of two partitions: normalized mutual information and the adjusted Rand index, as
//! scikit-learn computes them; our topics against the corpus' own `topic` labels.

use super::Topic;
use crate::corpus::Paper;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

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

/// Cell counts, row sums, column sums.
pub(super) type Contingency = (
    BTreeMap<(usize, usize), usize>,
    BTreeMap<usize, usize>,
    BTreeMap<usize, usize>,
);

pub(super) fn contingency(a: &[usize], b: &[usize]) -> (Contingency, usize) {
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

pub(super) fn entropy(counts: &BTreeMap<usize, usize>, n: usize) -> f64 {
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

pub(super) fn comb2(x: usize) -> f64 {
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
