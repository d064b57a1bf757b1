//! Choosing the number of topics: the k of best mean silhouette (cosine distance), exact up to
//! [`EXACT_SILHOUETTE_MAX`] papers, centroid-based ("simplified") above.

use super::kmeans::{Dense, Points, centroids, spherical_kmeans};
use crate::util::vector::dot_exact as dot;
use ndarray::ArrayView2;
use rayon::prelude::*;

/// Exact silhouette (O(n²) similarities) up to this many papers, simplified silhouette above.
pub const EXACT_SILHOUETTE_MAX: usize = 3000;

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

pub(super) fn restarts(n: usize) -> usize {
    if n > 1000 { 4 } else { 10 }
}

/// Best k by silhouette, with its labels.
pub(super) fn auto_k(points: &Dense, vectors: ArrayView2<f32>) -> (usize, Vec<usize>) {
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

pub(super) fn gram_matrix(v: ArrayView2<f32>) -> Vec<f32> {
    let n = v.nrows();
    (0..n)
        .into_par_iter()
        .flat_map_iter(|i| (0..n).map(move |j| dot(v.row(i), v.row(j))))
        .collect()
}

/// Mean silhouette with cosine distance `1 - sim`; singletons score 0 (as scikit-learn).
pub(super) fn silhouette(gram: &[f32], n: usize, labels: &[usize], k: usize) -> f64 {
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
pub(super) fn simplified_silhouette<P: Points>(p: &P, labels: &[usize], k: usize) -> f64 {
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
