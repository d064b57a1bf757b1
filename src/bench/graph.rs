//! The stored HNSW graph against the exact scan, on the index being benchmarked.
//!
//! `cargo bench --bench ann` measures held-out queries on synthetic corpora it generates; this
//! measures any index, including a user's: each of [`PROBES`] papers spread evenly over it asks
//! for its 10 nearest papers (itself left out) by the graph with the stored beam and by the
//! exact scan, as `Searcher::nearest` runs them. A paper's own vector is an easier query than a
//! free-text one (the walk ends on a stored point): on synthetic corpora held-out queries land
//! at or a little below it (BENCHMARKS.md, Speed and scale).

use std::time::Instant;

use serde::Serialize;

use crate::index::graph::{neighbours_of, probe_papers};
use crate::index::{GRAPH_MIN_PAPERS, Searcher};

/// Papers probed.
pub const PROBES: usize = 200;
const K: usize = 10;

#[derive(Debug, Clone, Serialize)]
pub struct GraphFigures {
    pub papers: usize,
    /// The beam stored with the graph (`recommend index` calibrates it).
    pub ef_search: usize,
    pub probes: usize,
    pub recall_at_10: f64,
    /// Mean time per query of the graph walk and of the exact scan (with top-k selection).
    pub graph_ms: f64,
    pub scan_ms: f64,
    pub speedup: f64,
}

/// The graph's figures, or `None` when queries on `index` do not use a graph (fewer than
/// [`GRAPH_MIN_PAPERS`] papers, or no graph stored).
pub fn measure(index: &Searcher) -> Option<GraphFigures> {
    let n = index.len();
    let graph = index.graph()?;
    if n < GRAPH_MIN_PAPERS {
        return None;
    }
    let vectors = index.vectors();
    let flat = vectors.as_slice()?;
    let dim = index.dim();
    let ef = index.meta.hnsw.ef_search.max(K + 1);
    let probes = probe_papers(n, PROBES);
    let without = |hits, me| neighbours_of(hits, me, K);
    let queries: Vec<Vec<f32>> = probes.iter().map(|&i| index.vector(i).to_vec()).collect();
    let t = Instant::now();
    let exact: Vec<Vec<usize>> = probes
        .iter()
        .zip(&queries)
        .map(|(&i, q)| without(index.nearest(q, K + 1, true), i))
        .collect();
    let scan_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let approx: Vec<Vec<usize>> = probes
        .iter()
        .zip(&queries)
        .map(|(&i, q)| without(graph.search(flat, dim, q, K + 1, ef), i))
        .collect();
    let graph_s = t.elapsed().as_secs_f64();
    let found: usize = exact
        .iter()
        .zip(&approx)
        .map(|(e, a)| a.iter().filter(|j| e.contains(j)).count())
        .sum();
    let wanted: usize = exact.iter().map(Vec::len).sum();
    let per = |s: f64| 1e3 * s / probes.len().max(1) as f64;
    Some(GraphFigures {
        papers: n,
        ef_search: index.meta.hnsw.ef_search,
        probes: probes.len(),
        recall_at_10: found as f64 / wanted.max(1) as f64,
        graph_ms: per(graph_s),
        scan_ms: per(scan_s),
        speedup: scan_s / graph_s.max(1e-9),
    })
}
