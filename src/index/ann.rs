//! Dense nearest-neighbour search: an HNSW graph (hnsw_rs) and the exact scan it approximates.
//!
//! The graph is rebuilt from the stored vectors with serial inserts, which hnsw_rs makes
//! deterministic: the same index file gives the same graph and the same answers on every run.
//! hnsw_rs's own dump files are not used: they are two extra files, are overwritten in place,
//! and panic or abort on corrupt input (see `docs`/stack notes), while `index.bin` is validated.

use hnsw_rs::prelude::{DistCosine, Hnsw};
use ndarray::ArrayView2;
use serde::{Deserialize, Serialize};

/// HNSW parameters, stored in the index so every load builds the same graph.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct HnswParams {
    /// Links per node (M).
    pub max_connections: usize,
    pub ef_construction: usize,
    /// Beam width at query time; raised to `k` when `k` is larger.
    pub ef_search: usize,
}

impl Default for HnswParams {
    fn default() -> Self {
        HnswParams {
            max_connections: 24,
            ef_construction: 200,
            ef_search: 128,
        }
    }
}

/// hnsw_rs requires 16 layers for its dump format; we keep its default shape.
const MAX_LAYER: usize = 16;

pub struct Ann {
    hnsw: Hnsw<'static, f32, DistCosine>,
    params: HnswParams,
}

impl Ann {
    /// Build the graph over the rows of `vectors` (row i gets id i). Rows must all have the
    /// same length, which `ArrayView2` guarantees (DistCosine asserts on mismatched lengths).
    pub fn build(vectors: ArrayView2<f32>, params: HnswParams) -> Ann {
        let n = vectors.nrows();
        let mut hnsw = Hnsw::<f32, DistCosine>::new(
            params.max_connections,
            n.max(1),
            MAX_LAYER,
            params.ef_construction,
            DistCosine {},
        );
        for (i, row) in vectors.rows().into_iter().enumerate() {
            let v: Vec<f32> = row.to_vec();
            hnsw.insert((&v, i));
        }
        hnsw.set_searching_mode(true);
        Ann { hnsw, params }
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
    let mut hits: Vec<(usize, f32)> = sims.iter().copied().enumerate().collect();
    sort_hits(&mut hits);
    hits.truncate(k);
    hits
}

/// Best first; ties by row so output never depends on evaluation order.
pub fn sort_hits(hits: &mut [(usize, f32)]) {
    hits.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
}
