//! Spherical k-means over dense or sparse points: k-means++ seeding from a fixed-seed
//! generator, deterministic restarts, no empty clusters (see the parent module for why).

use ndarray::ArrayView2;
use rayon::prelude::*;

use super::select::restarts;
use crate::util::SplitMix64 as Rng;

const MAX_ITERS: usize = 100;

/// What k-means needs of its points: dot with a dense centroid, and adding into a sum.
pub(super) trait Points: Sync {
    fn n(&self) -> usize;
    fn dim(&self) -> usize;
    fn dot_dense(&self, i: usize, c: &[f32]) -> f64;
    fn add_to(&self, i: usize, acc: &mut [f64]);
}

pub(super) struct Dense<'a>(pub(super) ArrayView2<'a, f32>);

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
pub(super) struct Sparse {
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

pub(super) struct KMeans {
    pub(super) labels: Vec<usize>,
    pub(super) objective: f64,
}

pub(super) fn spherical_kmeans<P: Points>(p: &P, k: usize, restarts: usize) -> KMeans {
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

pub(super) fn point_dense<P: Points>(p: &P, i: usize) -> Vec<f32> {
    let mut acc = vec![0.0f64; p.dim()];
    p.add_to(i, &mut acc);
    acc.into_iter().map(|x| x as f32).collect()
}

/// k-means++ seeding: the first center uniformly, each next one with probability proportional
/// to the squared cosine distance to the nearest chosen center.
pub(super) fn seed_centers<P: Points>(p: &P, k: usize, rng: &mut Rng) -> Vec<Vec<f32>> {
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
pub(super) fn assign<P: Points>(p: &P, centers: &[Vec<f32>]) -> Vec<(usize, f64)> {
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
pub(super) fn centroids<P: Points>(p: &P, labels: &[usize], k: usize) -> Vec<Vec<f32>> {
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
pub(super) fn fill_empty(labels: &mut [usize], fit: &mut [f64], k: usize) {
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

pub(super) fn kmeans_once<P: Points>(p: &P, k: usize, seed: u64) -> KMeans {
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
