//! The stored HNSW graph alone at a size `Index::build` takes hours to reach on 2 cores (1M
//! papers): build time and peak memory of the graph, its size as `index.bin` sections, and
//! recall@10 and per-query time of the graph walk against the exact scan, at the `ef_search`
//! `recommend index` would store for it (`calibrate_ef`) and at the other beams of its ladder.
//!
//! `cargo run --release --example graph_scale -- [N] [QUERIES]` (default 1,000,000 and 200).
//! Vectors are the synthetic corpus of `benches/ann.rs` (clustered unit vectors, 384-d,
//! sqrt(n) topics, seed 42), queries held out from the same clusters. The graph is built as
//! `recommend index` builds it (`GraphData::build`, parallel inserts above 2,000 papers) and
//! searched as queries search it (`GraphView::search` with the stored `ef_search`); the scan is
//! `ann::exact_search`, the loop `Searcher::nearest(.., exact)` runs. What this leaves out of a
//! real 1M index: the lexical sections and the checksum over them (see `benches/ann.rs`).

use std::time::Instant;

use ndarray::Array2;
use recommend::bench::synthetic;
use recommend::index::GraphData;
use recommend::index::ann::{HnswParams, exact_search};
use recommend::index::graph::{EF_LADDER, EF_TARGET_RECALL, calibrate_ef};

const DIM: usize = 384;
const K: usize = 10;

/// Peak resident set size of this process, in MiB.
fn peak_mib() -> f64 {
    recommend::bench::speed::peak_rss() as f64 / (1024.0 * 1024.0)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let queries: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(200);
    let topics = (n as f64).sqrt().round().max(2.0) as usize;

    let t = Instant::now();
    let (papers, mut vectors) = synthetic::corpus(n + queries, DIM, topics, 42);
    drop(papers);
    let held_out = vectors.split_off(n);
    let mut flat = Vec::with_capacity(n * DIM);
    for v in vectors.drain(..) {
        flat.extend(v);
    }
    let matrix = Array2::from_shape_vec((n, DIM), flat).expect("n x 384");
    eprintln!(
        "{n} vectors in {:.1} s, peak {:.0} MiB",
        t.elapsed().as_secs_f64(),
        peak_mib()
    );

    let params = HnswParams::default();
    let before = peak_mib();
    let t = Instant::now();
    let graph = GraphData::build(matrix.view(), params);
    let build_s = t.elapsed().as_secs_f64();
    let bytes = graph.levels.len()
        + 8 * (graph.slots.len() + graph.offsets.len())
        + 4 * graph.neighbours.len();
    eprintln!(
        "graph build {build_s:.1} s, peak {:.0} MiB ({:.0} MiB before the build), sections {:.1} MiB, {} links",
        peak_mib(),
        before,
        bytes as f64 / (1024.0 * 1024.0),
        graph.neighbours.len()
    );

    let view = graph.view();
    let data = matrix.as_slice().expect("standard layout");
    let t = Instant::now();
    let exact: Vec<Vec<(usize, f32)>> = held_out
        .iter()
        .map(|q| exact_search(matrix.view(), q, K))
        .collect();
    let scan_ms = 1000.0 * t.elapsed().as_secs_f64() / held_out.len() as f64;
    // The beam `recommend index` stores for this graph, measured on its own papers.
    let t = Instant::now();
    let stored = calibrate_ef(view, matrix.view(), EF_TARGET_RECALL);
    eprintln!(
        "calibrated ef_search {stored} in {:.1} s (target recall@10 {EF_TARGET_RECALL} on the index's own papers)",
        t.elapsed().as_secs_f64()
    );
    // Held-out queries at the stored beam first (what queries use), then the ladder.
    let mut beams = vec![stored];
    beams.extend(
        EF_LADDER
            .iter()
            .copied()
            .filter(|&ef| ef != stored && ef <= 1024),
    );
    for ef in beams {
        let (mut hits, mut graph_s) = (0usize, 0.0f64);
        for (q, truth) in held_out.iter().zip(&exact) {
            let t = Instant::now();
            let approx = view.search(data, DIM, q, K, ef.max(K));
            graph_s += t.elapsed().as_secs_f64();
            hits += truth
                .iter()
                .filter(|(i, _)| approx.iter().any(|(j, _)| j == i))
                .count();
        }
        let graph_ms = 1000.0 * graph_s / held_out.len() as f64;
        println!(
            "n={n} build_s={build_s:.1} peak_mib={:.0} graph_mib={:.1} stored_ef={stored} ef={ef} recall@10={:.4} graph_ms={graph_ms:.3} scan_ms={scan_ms:.3} speedup={:.1}x",
            peak_mib(),
            bytes as f64 / (1024.0 * 1024.0),
            hits as f64 / (K * held_out.len()) as f64,
            scan_ms / graph_ms
        );
    }
}
