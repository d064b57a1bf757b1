//! The layout's graph: the rows' cosine kNN (exact, or the nearest of given candidates) and
//! UMAP's fuzzy weights on its edges, with the deterministic `exp` and `log2` they need.

use crate::util::vector::dot_balanced;
use ndarray::ArrayView2;
use rayon::prelude::*;

/// Neighbours per point in the kNN graph.
pub(super) const K: usize = 15;
/// Rows per block in the kNN search (the block stays in cache while all rows stream by).
const BLOCK: usize = 32;

/// `e^x` from basic IEEE operations only (range reduction + Taylor series in f64), so that
/// it gives the same bits on every platform, unlike the platform `libm`.
pub(super) fn exp_det(x: f32) -> f32 {
    if x.is_nan() {
        return f32::NAN;
    }
    if x < -87.0 {
        return 0.0;
    }
    if x > 88.0 {
        return f32::INFINITY;
    }
    let x = x as f64;
    let k = (x * std::f64::consts::LOG2_E).round();
    let r = x - k * std::f64::consts::LN_2;
    let (mut sum, mut term) = (1.0f64, 1.0f64);
    for i in 1..=12 {
        term *= r / i as f64;
        sum += term;
    }
    let scale = f64::from_bits(((k as i64 + 1023) as u64) << 52);
    (sum * scale) as f32
}

/// `log2(x)` for `x >= 1`, by Newton's method on [`exp_det`] (deterministic, see there).
pub(super) fn log2_det(x: f32) -> f32 {
    let mut y = 0f32;
    for _ in 0..40 {
        let e = exp_det(y);
        y += 2.0 * (x - e) / (x + e);
    }
    y / std::f32::consts::LN_2
}

/// The rows as one contiguous row-major buffer, non-finite entries zeroed, each row scaled to
/// unit length (zero rows stay zero).
pub(super) fn normalized_rows(vectors: ArrayView2<f32>) -> Vec<f32> {
    let d = vectors.ncols();
    let mut data = Vec::with_capacity(vectors.nrows() * d);
    for row in vectors.rows() {
        let start = data.len();
        data.extend(row.iter().map(|&v| if v.is_finite() { v } else { 0.0 }));
        let r = &mut data[start..];
        let norm = dot_balanced(r, r).sqrt();
        if norm > 0.0 && norm.is_finite() {
            r.iter_mut().for_each(|v| *v /= norm);
        }
    }
    data
}

/// For each row, its `k` nearest other rows by cosine distance `1 - cos`, nearest first, as
/// `(distance, index)`; ties go to the lower index.
pub(super) fn knn(data: &[f32], n: usize, d: usize, k: usize) -> Vec<Vec<(f32, u32)>> {
    let row = |i: usize| &data[i * d..(i + 1) * d];
    let blocks: Vec<Vec<Vec<(f32, u32)>>> = (0..n.div_ceil(BLOCK))
        .into_par_iter()
        .map(|b| {
            let lo = b * BLOCK;
            let hi = (lo + BLOCK).min(n);
            let mut dist = vec![0f32; (hi - lo) * n];
            for j in 0..n {
                let rj = row(j);
                for i in lo..hi {
                    dist[(i - lo) * n + j] = (1.0 - dot_balanced(row(i), rj)).max(0.0);
                }
            }
            (lo..hi)
                .map(|i| {
                    let mut cand: Vec<(f32, u32)> = dist[(i - lo) * n..(i - lo + 1) * n]
                        .iter()
                        .enumerate()
                        .filter(|&(j, _)| j != i)
                        .map(|(j, &dd)| (dd, j as u32))
                        .collect();
                    let cmp =
                        |a: &(f32, u32), b: &(f32, u32)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
                    if cand.len() > k {
                        cand.select_nth_unstable_by(k, cmp);
                        cand.truncate(k);
                    }
                    cand.sort_unstable_by(cmp);
                    cand
                })
                .collect()
        })
        .collect();
    blocks.into_iter().flatten().collect()
}

/// [`knn`]'s output for given neighbour lists: the `k` nearest of each list by cosine
/// distance, nearest first, ties by index, without self links or rows out of range.
pub(super) fn given_knn(
    data: &[f32],
    d: usize,
    lists: &[Vec<usize>],
    k: usize,
) -> Vec<Vec<(f32, u32)>> {
    let n = lists.len();
    let row = |i: usize| &data[i * d..(i + 1) * d];
    lists
        .par_iter()
        .enumerate()
        .map(|(i, l)| {
            let mut out: Vec<(f32, u32)> = l
                .iter()
                .filter(|&&j| j < n && j != i)
                .map(|&j| ((1.0 - dot_balanced(row(i), row(j))).max(0.0), j as u32))
                .collect();
            out.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            out.dedup_by_key(|e| e.1);
            out.truncate(k);
            out
        })
        .collect()
}

/// A weighted undirected edge, listed in both directions.
#[derive(Debug, Clone, Copy)]
pub(super) struct Edge {
    pub head: u32,
    pub tail: u32,
    pub weight: f32,
}

/// UMAP's fuzzy simplicial set of the kNN graph, both directions of each edge, sorted by
/// `(head, tail)`.
pub(super) fn fuzzy_graph(knn: &[Vec<(f32, u32)>], n: usize) -> Vec<Edge> {
    // Each row's weights depend on that row alone: computed in parallel, concatenated in row
    // order (the same list as a sequential loop).
    let per_row: Vec<Vec<(u32, u32, f32)>> = knn
        .par_iter()
        .enumerate()
        .map(|(i, nbrs)| row_weights(i, nbrs))
        .collect();
    let mut directed: Vec<(u32, u32, f32)> = per_row.into_iter().flatten().collect();
    directed.sort_by_key(|x| (x.0, x.1));
    let mut edges = Vec::with_capacity(directed.len() * 2);
    let mut idx = 0;
    while idx < directed.len() {
        let (a, b, w1) = directed[idx];
        let mut w = w1;
        if idx + 1 < directed.len() && (directed[idx + 1].0, directed[idx + 1].1) == (a, b) {
            let w2 = directed[idx + 1].2;
            w = w1 + w2 - w1 * w2;
            idx += 2;
        } else {
            idx += 1;
        }
        if a != b {
            edges.push(Edge {
                head: a,
                tail: b,
                weight: w,
            });
            edges.push(Edge {
                head: b,
                tail: a,
                weight: w,
            });
        }
    }
    edges.sort_by_key(|e| (e.head, e.tail));
    debug_assert!(edges.iter().all(|e| (e.head as usize) < n));
    edges
}

/// The directed fuzzy weights of row `i` with its neighbours `nbrs` (nearest first), as
/// `(lower row, higher row, weight)`.
fn row_weights(i: usize, nbrs: &[(f32, u32)]) -> Vec<(u32, u32, f32)> {
    let mut directed = Vec::with_capacity(nbrs.len());
    if nbrs.is_empty() {
        return directed;
    }
    let target = log2_det(nbrs.len() as f32).max(0.5);
    let rho = nbrs.iter().map(|p| p.0).find(|&x| x > 0.0).unwrap_or(0.0);
    let mean = nbrs.iter().map(|p| p.0).sum::<f32>() / nbrs.len() as f32;
    let psum = |sigma: f32| -> f32 {
        nbrs.iter()
            .map(|p| exp_det(-(p.0 - rho).max(0.0) / sigma))
            .sum()
    };
    // Binary search for sigma on a geometric scale.
    let (mut lo, mut hi) = (1e-6f32, 1e3f32);
    for _ in 0..64 {
        let mid = (lo * hi).sqrt();
        let next = if psum(mid) > target {
            (lo, mid)
        } else {
            (mid, hi)
        };
        if next == (lo, hi) {
            // A fixed point: every further step would compute the same.
            break;
        }
        (lo, hi) = next;
    }
    let sigma = ((lo * hi).sqrt()).max(1e-3 * mean).max(1e-6);
    for &(dist, j) in nbrs {
        let w = exp_det(-(dist - rho).max(0.0) / sigma);
        if w > 0.0 && w.is_finite() {
            let (a, b) = (i as u32, j);
            directed.push((a.min(b), a.max(b), w));
        }
    }
    directed
}
