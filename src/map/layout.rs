//! The 2-D layout: PCA start, then a UMAP-like neighbour embedding of the cosine kNN graph.
//!
//! Determinism: every float sum has a fixed order (the dot product uses 8 fixed lanes, rows of
//! the kNN search are independent of each other so rayon cannot change a result), the
//! optimisation is sequential and its negative samples come from a fixed-seed SplitMix64.
//! Rust never contracts `a * b + c` into an FMA nor reorders float operations, so the output
//! is the same bytes on every run and every (IEEE 754) machine.

use crate::util::SplitMix64 as Rng;
use crate::util::vector::dot_balanced;
use ndarray::ArrayView2;
use rayon::prelude::*;

/// Neighbours per point in the kNN graph.
const K: usize = 15;
/// Negative samples per positive sample.
const NEGATIVES: usize = 5;
/// Weight of the repulsive (negative-sample) term.
const GAMMA: f32 = 1.0;
/// Seed of the negative sampler and of the start jitter.
const SEED: u64 = 0x6d61_705f_7365_6564; // "map_seed"
/// Rows per block in the kNN search (the block stays in cache while all rows stream by).
const BLOCK: usize = 32;
/// The start layout is scaled into [-INIT_SCALE, INIT_SCALE]^2.
const INIT_SCALE: f32 = 10.0;

/// Deterministic 2-D projection of `vectors` (`n x d`, one row per paper, rows expected to be
/// L2-normalized; they are normalized again here and non-finite entries count as 0) to points
/// in `[0, 1]^2` that keep cosine neighbours together. Output row `i` is the point of input row
/// `i`; the picture keeps its aspect ratio and is centred in the unit square.
///
/// Algorithm (UMAP-like, with `a = b = 1`, i.e. the low-dimensional kernel `1 / (1 + d^2)`):
/// 1. exact cosine kNN (`k = 15`, blocked `O(n^2 d)`, parallel over rows, ties broken by index);
/// 2. fuzzy neighbour weights `exp(-(d - rho_i) / sigma_i)` with `sigma_i` set so that each
///    point's weights sum to `log2(k)`, symmetrized as `a + b - ab`;
/// 3. start: the first two principal components (power iteration from a fixed start vector),
///    scaled to `[-10, 10]^2`, plus a tiny fixed jitter so duplicate vectors can separate;
/// 4. 500 epochs (300 above 2,000 points, 150 above 5,000) of SGD: each edge pulls its ends together as often
///    as its weight says, with 5 random negative samples per pull pushing apart;
/// 5. scale to the unit square.
///
/// Takes about 70 ms for 150 points and about 3.5 s for 5,000 (release build, 2 cores).
/// `n = 0` gives no points, `n = 1` the centre, and nothing here produces NaN.
pub fn layout(vectors: ArrayView2<f32>) -> Vec<[f32; 2]> {
    layout_with(vectors, None)
}

/// [`layout`] with each point's neighbours given (`neighbours[i]`: rows near row `i`, any
/// order), instead of the exact `O(n^2 d)` kNN search: large maps pass the links the index
/// already found with its HNSW graph. Distances are still the rows' cosine distances.
pub fn layout_with_neighbours(
    vectors: ArrayView2<f32>,
    neighbours: &[Vec<usize>],
) -> Vec<[f32; 2]> {
    layout_with(vectors, Some(neighbours))
}

fn layout_with(vectors: ArrayView2<f32>, neighbours: Option<&[Vec<usize>]>) -> Vec<[f32; 2]> {
    let n = vectors.nrows();
    match n {
        0 => return Vec::new(),
        1 => return vec![[0.5, 0.5]],
        _ => {}
    }
    let d = vectors.ncols();
    let data = normalized_rows(vectors);
    let k = K.min(n - 1);
    let knn = match neighbours.filter(|l| l.len() == n) {
        Some(lists) => given_knn(&data, d, lists, k),
        None => knn(&data, n, d, k),
    };
    let edges = fuzzy_graph(&knn, n);
    let mut y = pca_init(&data, n, d);
    // Fewer epochs as the graph grows: each epoch touches every edge, and a map of thousands
    // of points is read for its regions, not for the placement of one point.
    let epochs = match n {
        0..=2_000 => 500,
        2_001..=5_000 => 300,
        _ => 150,
    };
    optimize(&mut y, &edges, epochs);
    let mut xy = normalize(&y);
    // Neighbour embeddings pack tight groups into dots; give every point room of its own.
    spread(&mut xy, SPREAD / (n as f32).sqrt(), 60);
    normalize(&xy)
}

/// Minimum distance between points after [`spread`], times `sqrt(n)`: n disks of this
/// diameter cover about 13% of the unit square.
const SPREAD: f32 = 0.36;

/// Pushes apart points closer than `min_sep` (sequentially, in index order, on a grid of
/// cells of size `min_sep`), `iters` rounds: removes overlaps while keeping the picture.
fn spread(y: &mut [[f32; 2]], min_sep: f32, iters: usize) {
    use std::collections::HashMap;
    let n = y.len();
    if n < 2 || min_sep.is_nan() || min_sep <= 0.0 {
        return;
    }
    let cell = |p: [f32; 2]| {
        (
            (p[0] / min_sep).floor() as i32,
            (p[1] / min_sep).floor() as i32,
        )
    };
    let mut rng = Rng(SEED ^ 0x2545_f491_4f6c_dd1d);
    for _ in 0..iters {
        let mut grid: HashMap<(i32, i32), Vec<u32>> = HashMap::new();
        for (i, p) in y.iter().enumerate() {
            grid.entry(cell(*p)).or_default().push(i as u32);
        }
        let mut moved = false;
        for i in 0..n {
            let (cx, cy) = cell(y[i]);
            for gx in cx - 1..=cx + 1 {
                for gy in cy - 1..=cy + 1 {
                    let Some(members) = grid.get(&(gx, gy)) else {
                        continue;
                    };
                    for &j in members {
                        let j = j as usize;
                        if j <= i {
                            continue;
                        }
                        let mut dx = y[j][0] - y[i][0];
                        let mut dy = y[j][1] - y[i][1];
                        let mut d = (dx * dx + dy * dy).sqrt();
                        if d >= min_sep {
                            continue;
                        }
                        if d < 1e-9 {
                            // Coincident points: a fixed pseudo-random direction.
                            dx = rng.next_signed();
                            dy = rng.next_signed();
                            d = (dx * dx + dy * dy).sqrt().max(1e-6);
                            dx *= 1e-3 * min_sep / d;
                            dy *= 1e-3 * min_sep / d;
                            d = 1e-3 * min_sep;
                        }
                        let push = 0.5 * (min_sep - d) / d;
                        y[i][0] -= dx * push;
                        y[i][1] -= dy * push;
                        y[j][0] += dx * push;
                        y[j][1] += dy * push;
                        moved = true;
                    }
                }
            }
        }
        if !moved {
            break;
        }
    }
}

/// `e^x` from basic IEEE operations only (range reduction + Taylor series in f64), so that
/// it gives the same bits on every platform, unlike the platform `libm`.
fn exp_det(x: f32) -> f32 {
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
fn log2_det(x: f32) -> f32 {
    let mut y = 0f32;
    for _ in 0..40 {
        let e = exp_det(y);
        y += 2.0 * (x - e) / (x + e);
    }
    y / std::f32::consts::LN_2
}

/// The rows as one contiguous row-major buffer, non-finite entries zeroed, each row scaled to
/// unit length (zero rows stay zero).
fn normalized_rows(vectors: ArrayView2<f32>) -> Vec<f32> {
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
fn knn(data: &[f32], n: usize, d: usize, k: usize) -> Vec<Vec<(f32, u32)>> {
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
fn given_knn(data: &[f32], d: usize, lists: &[Vec<usize>], k: usize) -> Vec<Vec<(f32, u32)>> {
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
struct Edge {
    head: u32,
    tail: u32,
    weight: f32,
}

/// UMAP's fuzzy simplicial set of the kNN graph, both directions of each edge, sorted by
/// `(head, tail)`.
fn fuzzy_graph(knn: &[Vec<(f32, u32)>], n: usize) -> Vec<Edge> {
    let mut directed: Vec<(u32, u32, f32)> = Vec::new();
    for (i, nbrs) in knn.iter().enumerate() {
        if nbrs.is_empty() {
            continue;
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
            if psum(mid) > target {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        let sigma = ((lo * hi).sqrt()).max(1e-3 * mean).max(1e-6);
        for &(dist, j) in nbrs {
            let w = exp_det(-(dist - rho).max(0.0) / sigma);
            if w > 0.0 && w.is_finite() {
                let (a, b) = (i as u32, j);
                directed.push((a.min(b), a.max(b), w));
            }
        }
    }
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

/// The first two principal components of the rows (power iteration with deflation from fixed
/// start vectors), scaled to `[-INIT_SCALE, INIT_SCALE]`, plus a small fixed jitter.
fn pca_init(data: &[f32], n: usize, d: usize) -> Vec<[f32; 2]> {
    let row = |i: usize| &data[i * d..(i + 1) * d];
    let mut mean = vec![0f32; d];
    for i in 0..n {
        for (m, v) in mean.iter_mut().zip(row(i)) {
            *m += v;
        }
    }
    mean.iter_mut().for_each(|m| *m /= n as f32);
    let centered: Vec<f32> = (0..n)
        .flat_map(|i| row(i).iter().zip(&mean).map(|(v, m)| v - m))
        .collect();
    let crow = |i: usize| &centered[i * d..(i + 1) * d];

    let mut rng = Rng(SEED);
    let mut comps: Vec<Vec<f32>> = Vec::new();
    for _ in 0..2 {
        let mut v: Vec<f32> = (0..d).map(|_| rng.next_signed()).collect();
        for _ in 0..40 {
            orthogonalize(&mut v, &comps);
            if !unit(&mut v) {
                break;
            }
            // v <- X^T (X v), summed row by row in order.
            let proj: Vec<f32> = (0..n).map(|i| dot_balanced(crow(i), &v)).collect();
            let mut next = vec![0f32; d];
            for (i, &p) in proj.iter().enumerate() {
                for (acc, x) in next.iter_mut().zip(crow(i)) {
                    *acc += p * x;
                }
            }
            v = next;
        }
        orthogonalize(&mut v, &comps);
        if !unit(&mut v) {
            v.iter_mut().for_each(|x| *x = 0.0);
        }
        comps.push(v);
    }

    let mut y: Vec<[f32; 2]> = (0..n)
        .map(|i| {
            [
                dot_balanced(crow(i), &comps[0]),
                dot_balanced(crow(i), &comps[1]),
            ]
        })
        .collect();
    let max_abs = y
        .iter()
        .flat_map(|p| p.iter())
        .fold(0f32, |m, v| m.max(v.abs()));
    if max_abs > 1e-9 && max_abs.is_finite() {
        let s = INIT_SCALE / max_abs;
        for p in &mut y {
            p[0] = p[0] * s + 0.01 * rng.next_signed();
            p[1] = p[1] * s + 0.01 * rng.next_signed();
        }
    } else {
        // Degenerate input (all rows equal): a fixed random start.
        for p in &mut y {
            p[0] = INIT_SCALE * rng.next_signed();
            p[1] = INIT_SCALE * rng.next_signed();
        }
    }
    y
}

fn orthogonalize(v: &mut [f32], basis: &[Vec<f32>]) {
    for b in basis {
        let p = dot_balanced(v, b);
        v.iter_mut().zip(b).for_each(|(x, bb)| *x -= p * bb);
    }
}

/// Scales `v` to unit length; false when it is (numerically) zero.
fn unit(v: &mut [f32]) -> bool {
    let norm = dot_balanced(v, v).sqrt();
    if norm > 1e-20 && norm.is_finite() {
        v.iter_mut().for_each(|x| *x /= norm);
        true
    } else {
        false
    }
}

fn clip(g: f32) -> f32 {
    g.clamp(-4.0, 4.0)
}

/// UMAP's SGD with `a = b = 1`: per epoch, every edge due pulls its ends together and pushes
/// its head away from `NEGATIVES` random points.
fn optimize(y: &mut [[f32; 2]], edges: &[Edge], epochs: usize) {
    let n = y.len();
    let max_w = edges.iter().map(|e| e.weight).fold(0f32, f32::max);
    if max_w <= 0.0 {
        return;
    }
    // Edges too weak to be sampled even once are dropped.
    let edges: Vec<Edge> = edges
        .iter()
        .copied()
        .filter(|e| e.weight >= max_w / epochs as f32)
        .collect();
    let per_sample: Vec<f32> = edges.iter().map(|e| max_w / e.weight).collect();
    let per_negative: Vec<f32> = per_sample.iter().map(|p| p / NEGATIVES as f32).collect();
    let mut next_sample = per_sample.clone();
    let mut next_negative = per_negative.clone();
    let mut rng = Rng(SEED ^ 0x5851_f42d_4c95_7f2d);

    for epoch in 0..epochs {
        let alpha = 1.0 - epoch as f32 / epochs as f32;
        let now = epoch as f32;
        for (e, edge) in edges.iter().enumerate() {
            if next_sample[e] > now {
                continue;
            }
            let (j, k) = (edge.head as usize, edge.tail as usize);
            let dx = y[j][0] - y[k][0];
            let dy = y[j][1] - y[k][1];
            let d2 = dx * dx + dy * dy;
            if d2 > 0.0 {
                let coeff = -2.0 / (1.0 + d2);
                let gx = clip(coeff * dx) * alpha;
                let gy = clip(coeff * dy) * alpha;
                y[j][0] += gx;
                y[j][1] += gy;
                y[k][0] -= gx;
                y[k][1] -= gy;
            }
            next_sample[e] += per_sample[e];

            let n_neg = ((now - next_negative[e]) / per_negative[e])
                .floor()
                .max(0.0) as usize;
            for _ in 0..n_neg {
                let k = rng.below(n);
                if k == j {
                    continue;
                }
                let dx = y[j][0] - y[k][0];
                let dy = y[j][1] - y[k][1];
                let d2 = dx * dx + dy * dy;
                if d2 > 0.0 {
                    let coeff = 2.0 * GAMMA / ((0.001 + d2) * (1.0 + d2));
                    y[j][0] += clip(coeff * dx) * alpha;
                    y[j][1] += clip(coeff * dy) * alpha;
                }
            }
            next_negative[e] += n_neg as f32 * per_negative[e];
        }
    }
}

/// Scales the points uniformly into `[0, 1]^2`, centred; non-finite coordinates become 0.5.
fn normalize(y: &[[f32; 2]]) -> Vec<[f32; 2]> {
    let finite = |p: &[f32; 2]| p[0].is_finite() && p[1].is_finite();
    let mut lo = [f32::INFINITY; 2];
    let mut hi = [f32::NEG_INFINITY; 2];
    for p in y.iter().filter(|p| finite(p)) {
        for a in 0..2 {
            lo[a] = lo[a].min(p[a]);
            hi[a] = hi[a].max(p[a]);
        }
    }
    let span = (hi[0] - lo[0]).max(hi[1] - lo[1]);
    if !(span > 0.0 && span.is_finite()) {
        return vec![[0.5, 0.5]; y.len()];
    }
    let pad = [
        (1.0 - (hi[0] - lo[0]) / span) / 2.0,
        (1.0 - (hi[1] - lo[1]) / span) / 2.0,
    ];
    y.iter()
        .map(|p| {
            if finite(p) {
                [
                    ((p[0] - lo[0]) / span + pad[0]).clamp(0.0, 1.0),
                    ((p[1] - lo[1]) / span + pad[1]).clamp(0.0, 1.0),
                ]
            } else {
                [0.5, 0.5]
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;

    /// `clusters` groups of `per` unit vectors in `d` dimensions around random centres.
    pub(crate) fn clustered(clusters: usize, per: usize, d: usize, noise: f32) -> Array2<f32> {
        let mut rng = Rng(42);
        let centres: Vec<Vec<f32>> = (0..clusters)
            .map(|_| (0..d).map(|_| rng.next_signed()).collect())
            .collect();
        let mut a = Array2::<f32>::zeros((clusters * per, d));
        for c in 0..clusters {
            for p in 0..per {
                let mut row: Vec<f32> = centres[c]
                    .iter()
                    .map(|&x| x + noise * rng.next_signed())
                    .collect();
                let norm = dot_balanced(&row, &row).sqrt();
                row.iter_mut().for_each(|x| *x /= norm);
                for (j, x) in row.into_iter().enumerate() {
                    a[[c * per + p, j]] = x;
                }
            }
        }
        a
    }

    fn all_in_range(xy: &[[f32; 2]]) -> bool {
        xy.iter()
            .all(|p| p.iter().all(|v| v.is_finite() && (0.0..=1.0).contains(v)))
    }

    fn dist(a: [f32; 2], b: [f32; 2]) -> f32 {
        ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
    }

    #[test]
    fn layout_is_deterministic_and_in_range() {
        let v = clustered(5, 30, 384, 0.6);
        let a = layout(v.view());
        let b = layout(v.view());
        assert_eq!(a.len(), 150);
        let bits = |xy: &[[f32; 2]]| -> Vec<u32> {
            xy.iter()
                .flat_map(|p| [p[0].to_bits(), p[1].to_bits()])
                .collect()
        };
        assert_eq!(bits(&a), bits(&b));
        assert!(all_in_range(&a));
        // The picture fills the square along its longer side.
        let max_x = a.iter().map(|p| p[0]).fold(0.0, f32::max);
        let max_y = a.iter().map(|p| p[1]).fold(0.0, f32::max);
        assert!(max_x > 0.99 || max_y > 0.99);
    }

    #[test]
    fn given_neighbours_lay_out_as_the_exact_search_would() {
        let v = clustered(4, 20, 12, 0.1);
        let (n, d) = (v.nrows(), v.ncols());
        let data = normalized_rows(v.view());
        // The exact search's lists, in a scrambled order with a self link and a duplicate.
        let lists: Vec<Vec<usize>> = knn(&data, n, d, K)
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let mut l: Vec<usize> = l.iter().rev().map(|e| e.1 as usize).collect();
                l.push(i);
                l.push(l[0]);
                l
            })
            .collect();
        assert_eq!(layout_with_neighbours(v.view(), &lists), layout(v.view()));
        // Lists that do not cover every row are ignored (the exact search runs).
        assert_eq!(
            layout_with_neighbours(v.view(), &lists[1..]),
            layout(v.view())
        );
    }

    #[test]
    fn separated_clusters_stay_separated() {
        let v = clustered(2, 40, 384, 0.5);
        let xy = layout(v.view());
        let (mut intra, mut n_intra, mut inter, mut n_inter) = (0.0, 0, 0.0, 0);
        for i in 0..80 {
            for j in i + 1..80 {
                let dd = dist(xy[i], xy[j]);
                if (i < 40) == (j < 40) {
                    intra += dd;
                    n_intra += 1;
                } else {
                    inter += dd;
                    n_inter += 1;
                }
            }
        }
        let (intra, inter) = (intra / n_intra as f32, inter / n_inter as f32);
        assert!(intra * 2.0 < inter, "intra {intra} inter {inter}");
        // Every point is nearer its own cluster's centroid than the other one's.
        let centroid = |r: std::ops::Range<usize>| {
            let m = r.len() as f32;
            let s = xy[r]
                .iter()
                .fold([0.0, 0.0], |s, p| [s[0] + p[0], s[1] + p[1]]);
            [s[0] / m, s[1] / m]
        };
        let (c0, c1) = (centroid(0..40), centroid(40..80));
        for (i, p) in xy.iter().enumerate() {
            let (own, other) = if i < 40 { (c0, c1) } else { (c1, c0) };
            assert!(dist(*p, own) < dist(*p, other), "point {i}");
        }
    }

    #[test]
    fn many_clusters_keep_neighbours_together() {
        let v = clustered(8, 20, 64, 0.5);
        let xy = layout(v.view());
        // For most points, the nearest point in the layout is in the same cluster.
        let same = (0..xy.len())
            .filter(|&i| {
                let nearest = (0..xy.len())
                    .filter(|&j| j != i)
                    .min_by(|&a, &b| dist(xy[i], xy[a]).total_cmp(&dist(xy[i], xy[b])))
                    .unwrap();
                nearest / 20 == i / 20
            })
            .count();
        assert!(same as f32 >= 0.95 * xy.len() as f32, "{same}/{}", xy.len());
    }

    #[test]
    fn tiny_and_degenerate_inputs_give_finite_points() {
        assert!(layout(Array2::<f32>::zeros((0, 8)).view()).is_empty());
        assert_eq!(layout(Array2::<f32>::ones((1, 8)).view()), vec![[0.5, 0.5]]);
        for n in 2..6 {
            let xy = layout(clustered(1, n, 16, 0.3).view());
            assert_eq!(xy.len(), n);
            assert!(all_in_range(&xy));
        }
        // All duplicates, zero vectors, NaN entries, zero columns.
        let dup = Array2::<f32>::from_elem((20, 16), 0.25);
        let xy = layout(dup.view());
        assert!(all_in_range(&xy));
        assert!(all_in_range(&layout(Array2::<f32>::zeros((7, 16)).view())));
        let mut nan = clustered(2, 5, 16, 0.3);
        nan[[3, 2]] = f32::NAN;
        nan[[4, 0]] = f32::INFINITY;
        assert!(all_in_range(&layout(nan.view())));
        assert!(all_in_range(&layout(Array2::<f32>::zeros((4, 0)).view())));
        // Duplicates among distinct points: still finite, duplicates stay close.
        let mut v = clustered(3, 10, 32, 0.4);
        for j in 0..32 {
            v[[1, j]] = v[[0, j]];
            v[[2, j]] = v[[0, j]];
        }
        let xy = layout(v.view());
        assert!(all_in_range(&xy));
        assert!(dist(xy[0], xy[1]) < 0.2);
    }

    #[test]
    fn deterministic_exp_and_log_are_accurate() {
        for i in -800..=800 {
            let x = i as f32 / 10.0;
            let (got, want) = (exp_det(x) as f64, (x as f64).exp());
            assert!(
                ((got - want) / want).abs() < 1e-6,
                "exp({x}) = {got}, want {want}"
            );
        }
        assert_eq!(exp_det(-100.0), 0.0);
        for k in 1..=15 {
            assert!((log2_det(k as f32) - (k as f32).log2()).abs() < 1e-5);
        }
    }

    #[test]
    fn points_do_not_overlap() {
        let v = clustered(9, 17, 64, 0.5);
        let xy = layout(v.view());
        let n = xy.len();
        let min = (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .map(|(i, j)| dist(xy[i], xy[j]))
            .fold(f32::INFINITY, f32::min);
        assert!(min > 0.5 * SPREAD / (n as f32).sqrt(), "min distance {min}");
    }

    #[test]
    fn non_standard_layout_input_matches_standard() {
        let v = clustered(3, 10, 16, 0.4);
        let t = v.t().to_owned();
        let view = t.t(); // same values, column-major
        assert_eq!(layout(v.view()), layout(view));
    }
}
