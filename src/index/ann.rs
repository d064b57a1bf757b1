//! Dense nearest-neighbour search: HNSW construction (hnsw_rs) and the exact scan it approximates.
//!
//! [`Ann::build`] inserts the vectors serially, which hnsw_rs makes deterministic: the same
//! vectors give the same graph. `recommend index` copies that graph's neighbour lists into
//! `index.bin` ([`super::graph`]), and queries walk the stored lists; hnsw_rs's own dump files
//! are not used: they are two extra files, are overwritten in place, and panic or abort on
//! corrupt input, while `index.bin` is validated.

use hnsw_rs::prelude::{Distance, Hnsw};
use ndarray::ArrayView2;
use serde::{Deserialize, Serialize};

/// HNSW parameters, stored in the index so every load builds the same graph.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct HnswParams {
    /// Links per node (M).
    pub max_connections: usize,
    pub ef_construction: usize,
    /// Beam width at query time; raised to `k` when `k` is larger. `recommend index` measures
    /// it on each graph it stores ([`super::graph::calibrate_ef`]); 64 below that size.
    pub ef_search: usize,
}

impl Default for HnswParams {
    fn default() -> Self {
        HnswParams {
            max_connections: 24,
            ef_construction: 200,
            ef_search: 64,
        }
    }
}

/// From this many papers the graph is built with parallel inserts (not reproducible byte for
/// byte); below it, serially (the same vectors always give the same graph and `index.bin`).
pub const PARALLEL_BUILD_MIN: usize = 2_000;

/// Cosine distance for unit vectors: `1 - a·b`, clamped at 0.
///
/// Our vectors are L2-normalized, so hnsw_rs's `DistCosine` (which recomputes both norms on
/// every call, in scalar code) does three times the work, and `DistDot` asserts on the tiny
/// negative distances rounding produces for near-identical vectors. Eight independent
/// accumulators let the compiler vectorize the loop. Mismatched lengths compare the common
/// prefix instead of panicking.
#[derive(Debug, Default, Clone, Copy)]
pub struct UnitCosine;

impl Distance<f32> for UnitCosine {
    fn eval(&self, a: &[f32], b: &[f32]) -> f32 {
        (1.0 - dot(a, b)).max(0.0)
    }
}

pub use crate::util::vector::dot;

/// hnsw_rs requires 16 layers for its dump format; we keep its default shape.
const MAX_LAYER: usize = 16;

pub struct Ann {
    hnsw: Hnsw<'static, f32, UnitCosine>,
    params: HnswParams,
}

impl Ann {
    /// Build the graph over the rows of `vectors` (row i gets id i); rows must be L2-normalized.
    pub fn build(vectors: ArrayView2<f32>, params: HnswParams) -> Ann {
        let n = vectors.nrows();
        let mut hnsw = Hnsw::<f32, UnitCosine>::new(
            params.max_connections,
            n.max(1),
            MAX_LAYER,
            params.ef_construction,
            UnitCosine,
        );
        if n < PARALLEL_BUILD_MIN {
            for (i, row) in vectors.rows().into_iter().enumerate() {
                let v: Vec<f32> = row.to_vec();
                hnsw.insert((&v, i));
            }
        } else {
            // Serial inserts are reproducible but take ~75 s at 10k papers and most of an hour
            // at 100k on 2 cores; in parallel the graph depends on thread timing (its quality
            // does not: recall is in BENCHMARKS.md, Speed and scale), so only large indexes
            // use it.
            let rows: Vec<(&[f32], usize)> = match vectors.as_slice() {
                Some(flat) if n > 0 => flat.chunks_exact(flat.len() / n).zip(0..).collect(),
                _ => Vec::new(),
            };
            if rows.len() == n {
                hnsw.parallel_insert_slice(&rows);
            } else {
                let owned: Vec<Vec<f32>> = vectors.rows().into_iter().map(|r| r.to_vec()).collect();
                let rows: Vec<(&[f32], usize)> = owned.iter().map(Vec::as_slice).zip(0..).collect();
                hnsw.parallel_insert_slice(&rows);
            }
        }
        hnsw.set_searching_mode(true);
        Ann { hnsw, params }
    }

    /// The hnsw_rs graph (for copying its neighbour lists into `index.bin`).
    pub fn hnsw(&self) -> &Hnsw<'static, f32, UnitCosine> {
        &self.hnsw
    }

    /// The `k` nearest rows to `query` as (row, cosine similarity), most similar first.
    pub fn search(&self, query: &[f32], k: usize) -> Vec<(usize, f32)> {
        if k == 0 || self.hnsw.get_nb_point() == 0 {
            return Vec::new();
        }
        let ef = self.params.ef_search.max(k);
        let mut hits: Vec<(usize, f32)> = self
            .hnsw
            .search(query, k, ef)
            .into_iter()
            .map(|n| (n.d_id, 1.0 - n.distance))
            .collect();
        sort_hits(&mut hits);
        hits
    }
}

/// The exact `k` nearest rows by cosine (rows and query L2-normalized), most similar first.
pub fn exact_search(vectors: ArrayView2<f32>, query: &[f32], k: usize) -> Vec<(usize, f32)> {
    let q = ndarray::ArrayView1::from(query);
    let sims = vectors.dot(&q);
    top_hits(sims.iter().copied().enumerate().collect(), k)
}

/// The best `k` of `hits`, sorted as [`sort_hits`] sorts: a partial selection (O(n)) and a sort
/// of only those `k`, instead of sorting everything.
pub fn top_hits(mut hits: Vec<(usize, f32)>, k: usize) -> Vec<(usize, f32)> {
    let order = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if k == 0 {
        return Vec::new();
    }
    if k < hits.len() {
        hits.select_nth_unstable_by(k - 1, order);
        hits.truncate(k);
        // Callers keep many short lists (a kNN graph): do not keep the input's capacity.
        hits.shrink_to_fit();
    }
    sort_hits(&mut hits);
    hits
}

/// Best first; ties by row so output never depends on evaluation order.
pub fn sort_hits(hits: &mut [(usize, f32)]) {
    hits.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_cosine_matches_a_plain_dot_and_never_goes_negative() {
        let a: Vec<f32> = (0..19).map(|i| (i as f32).sin()).collect();
        let b: Vec<f32> = (0..19).map(|i| (i as f32).cos()).collect();
        let plain: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!((dot(&a, &b) - plain).abs() < 1e-5);
        let n = dot(&a, &a).sqrt();
        let u: Vec<f32> = a.iter().map(|x| x / n).collect();
        assert_eq!(UnitCosine.eval(&u, &u), 0.0);
        // mismatched lengths compare the common prefix instead of panicking
        assert!((UnitCosine.eval(&u, &u[..5]) - (1.0 - dot(&u[..5], &u[..5]))).abs() < 1e-6);
    }

    #[test]
    fn exact_search_selects_the_best_k_in_order() {
        let v = ndarray::arr2(&[[1.0f32, 0.0], [0.0, 1.0], [0.6, 0.8], [0.8, 0.6]]);
        let hits = exact_search(v.view(), &[1.0, 0.0], 2);
        assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), [0, 3]);
        assert_eq!(exact_search(v.view(), &[1.0, 0.0], 9).len(), 4);
    }
}
