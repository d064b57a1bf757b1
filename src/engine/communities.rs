//! Topics as communities of the related-work graph.
//!
//! Each paper is linked to its [`NEIGHBOURS`] most related papers by the same fused score
//! `--like` ranks by (centered embeddings, specific terms, tags, `builds_on`), and the links
//! are made symmetric. The graph is cut by spectral clustering (Ng, Jordan and Weiss): the
//! leading eigenvectors of the normalized adjacency, rows scaled to unit length, grouped by
//! spherical k-means. The number of topics is the one whose partition has the highest
//! modularity on the graph, so the granularity comes from how the papers link, not from a
//! constant. Clustering the embeddings directly made catch-all clusters: every paper of one
//! field is close to every other in e5 space, while the related-work graph separates what a
//! researcher separates.

use ndarray::Array2;
use rayon::prelude::*;

use super::retrieve;
use super::topics::{self, Topic, TopicError};
use crate::index::Index;

/// Links per paper in the graph.
pub const NEIGHBOURS: usize = 10;
/// Iterations of the orthogonal (subspace) iteration.
const ITERATIONS: usize = 300;

/// Cluster the papers of `index` into `k` topics, or the number of highest modularity.
pub fn cluster(index: &Index, k: Option<usize>) -> Result<Vec<Topic>, TopicError> {
    cluster_with(index, k, &neighbour_lists(index))
}

/// [`cluster`] on links already computed by [`neighbour_lists`] (the map shares them).
pub fn cluster_with(
    index: &Index,
    k: Option<usize>,
    lists: &[Vec<usize>],
) -> Result<Vec<Topic>, TopicError> {
    let n = index.len();
    if n == 0 {
        return Err(TopicError::Empty);
    }
    let range = match k {
        Some(0) => return Err(TopicError::ZeroK),
        Some(k) if k > n => return Err(TopicError::TooManyTopics { k, n }),
        Some(k) => k..=k,
        None => k_range(n),
    };
    let adjacency = symmetric(lists);
    let labels = if n < 3 {
        (0..n).collect()
    } else {
        let kmax = *range.end();
        let embedding = spectral_embedding(&adjacency, kmax);
        // Each k is cut independently (in parallel); the choice runs in k order, as before.
        let cuts: Vec<(f64, Vec<usize>)> = candidate_ks(range, n)
            .into_par_iter()
            .map(|k| {
                let labels = cut(&embedding, k);
                (modularity(&adjacency, &labels), labels)
            })
            .collect();
        let mut best: Option<(f64, Vec<usize>)> = None;
        for (q, labels) in cuts {
            if best.as_ref().is_none_or(|b| q > b.0 + 1e-12) {
                best = Some((q, labels));
            }
        }
        best.expect("the range is never empty").1
    };
    Ok(topics::topics_from_labels(
        index.papers(),
        index.vectors(),
        &labels,
        Some(index),
    ))
}

/// Candidate numbers of topics: from 4 up to a quarter of the papers (at most 40).
pub fn k_range(n: usize) -> std::ops::RangeInclusive<usize> {
    let hi = (n / 4).clamp(1, 40);
    let lo = 4.min(hi);
    lo..=hi
}

/// The numbers of topics tried: every one in `range` up to [`LARGE`] papers; above, every one
/// up to 10 and then steps of about 15% (each try is a k-means of every paper, and modularity
/// changes slowly with k at that size).
fn candidate_ks(range: std::ops::RangeInclusive<usize>, n: usize) -> Vec<usize> {
    if n <= LARGE {
        return range.collect();
    }
    let (lo, hi) = (*range.start(), *range.end());
    let mut ks = Vec::new();
    let mut k = lo;
    while k <= hi {
        ks.push(k);
        k = if k < 10 {
            k + 1
        } else {
            (k * 115).div_ceil(100)
        };
    }
    if ks.last() != Some(&hi) {
        ks.push(hi);
    }
    ks
}

/// From this many papers, topics save work where it changes little: fewer numbers of topics
/// are tried ([`candidate_ks`]) and the spectral iteration stops earlier.
const LARGE: usize = 2_000;
/// Iterations of the orthogonal iteration above [`LARGE`] papers.
const ITERATIONS_LARGE: usize = 100;

/// Each paper's [`NEIGHBOURS`] most related papers (the `--like` fused score), best first.
pub fn neighbour_lists(index: &Index) -> Vec<Vec<usize>> {
    (0..index.len())
        .into_par_iter()
        .map(|i| retrieve::neighbours(index, i, NEIGHBOURS))
        .collect()
}

/// Symmetric adjacency lists (sorted, no self loops) of per-paper link `lists`.
pub(crate) fn symmetric(lists: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); lists.len()];
    for (i, l) in lists.iter().enumerate() {
        for &j in l {
            if j < lists.len() && j != i {
                adj[i].push(j);
                adj[j].push(i);
            }
        }
    }
    for a in &mut adj {
        a.sort_unstable();
        a.dedup();
    }
    adj
}

/// The `dim` leading eigenvectors of `(I + D^-1/2 A D^-1/2) / 2` (the shift makes the spectrum
/// non-negative, so the leading ones are the cluster indicators), by orthogonal iteration
/// from a fixed start: deterministic.
fn spectral_embedding(adj: &[Vec<usize>], dim: usize) -> Array2<f32> {
    let n = adj.len();
    let dim = dim.min(n);
    let inv_sqrt: Vec<f64> = adj
        .iter()
        .map(|a| 1.0 / (a.len().max(1) as f64).sqrt())
        .collect();
    let mut q: Vec<Vec<f64>> = (0..dim)
        .map(|c| {
            (0..n)
                .map(|i| (((i * 7919 + c * 104_729) % 1009) as f64 / 1009.0) - 0.5 + 1e-3)
                .collect()
        })
        .collect();
    orthonormalize(&mut q);
    let iterations = if n > LARGE {
        ITERATIONS_LARGE
    } else {
        ITERATIONS
    };
    for _ in 0..iterations {
        // Columns are independent within an iteration: one per task, same result on any
        // number of threads.
        q.par_iter_mut().for_each(|col| {
            let mut next = vec![0.0f64; n];
            for (i, a) in adj.iter().enumerate() {
                let s: f64 = a.iter().map(|&j| inv_sqrt[j] * col[j]).sum();
                next[i] = 0.5 * col[i] + 0.5 * inv_sqrt[i] * s;
            }
            *col = next;
        });
        orthonormalize(&mut q);
    }
    Array2::from_shape_fn((n, dim), |(i, c)| q[c][i] as f32)
}

/// Modified Gram-Schmidt, in column order; a column that vanishes is replaced by zeros.
fn orthonormalize(q: &mut [Vec<f64>]) {
    for c in 0..q.len() {
        for p in 0..c {
            let d: f64 = q[c].iter().zip(&q[p]).map(|(a, b)| a * b).sum();
            let (head, tail) = q.split_at_mut(c);
            for (x, y) in tail[0].iter_mut().zip(&head[p]) {
                *x -= d * y;
            }
        }
        let norm = q[c].iter().map(|x| x * x).sum::<f64>().sqrt();
        for x in q[c].iter_mut() {
            *x = if norm > 1e-12 { *x / norm } else { 0.0 };
        }
    }
}

/// Labels from the first `k` eigenvectors: rows to unit length, then spherical k-means.
fn cut(embedding: &Array2<f32>, k: usize) -> Vec<usize> {
    let n = embedding.nrows();
    let mut rows = Array2::<f32>::zeros((n, k));
    for i in 0..n {
        let norm = (0..k)
            .map(|c| embedding[[i, c]].powi(2))
            .sum::<f32>()
            .sqrt();
        for c in 0..k {
            rows[[i, c]] = if norm > 0.0 {
                embedding[[i, c]] / norm
            } else {
                0.0
            };
        }
    }
    topics::kmeans_labels(rows.view(), k)
}

/// Newman's modularity of `labels` on the unweighted graph `adj`.
pub fn modularity(adj: &[Vec<usize>], labels: &[usize]) -> f64 {
    let two_m: f64 = adj.iter().map(|a| a.len() as f64).sum();
    if two_m == 0.0 {
        return 0.0;
    }
    let k = labels.iter().max().map_or(0, |m| m + 1);
    let mut inside = vec![0.0f64; k];
    let mut degree = vec![0.0f64; k];
    for (i, a) in adj.iter().enumerate() {
        degree[labels[i]] += a.len() as f64;
        inside[labels[i]] += a.iter().filter(|&&j| labels[j] == labels[i]).count() as f64;
    }
    (0..k)
        .map(|c| inside[c] / two_m - (degree[c] / two_m).powi(2))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modularity_prefers_the_true_communities() {
        // two triangles joined by one edge
        let adj = vec![
            vec![1, 2],
            vec![0, 2],
            vec![0, 1, 3],
            vec![2, 4, 5],
            vec![3, 5],
            vec![3, 4],
        ];
        let good = modularity(&adj, &[0, 0, 0, 1, 1, 1]);
        let bad = modularity(&adj, &[0, 1, 0, 1, 0, 1]);
        assert!(good > 0.3 && good > bad, "{good} {bad}");
        let emb = spectral_embedding(&adj, 2);
        let labels = cut(&emb, 2);
        assert_eq!(labels[0], labels[1]);
        assert_eq!(labels[3], labels[5]);
        assert_ne!(labels[0], labels[4]);
    }
}
