//! The HNSW graph stored in `index.bin` against the exact scan, as queries use them.
//!
//! For each size, a synthetic corpus (`recommend::bench::synthetic`: clustered random unit
//! vectors, 384-d, sqrt(n) topics, deterministic) goes through `Index::build` (what
//! `recommend index` does after embedding: lexical index, serial HNSW inserts, neighbour lists
//! copied into sections), is saved and loaded back. Printed to stderr, same run:
//! - index build time (no embedding) and the process's peak resident memory growth while building;
//! - index file size and the graph sections' share of it; load time (checksum + validation);
//! - recall@10 of the stored graph (`GraphView::search`, the loop `Searcher::nearest` runs) against
//!   the exact scan, over 200 held-out queries from the same distribution;
//! - mean per-query time of the graph and of the scan (`Searcher::nearest(q, 10, true)`: the
//!   parallel scan plus top-k selection), and their ratio.
//!
//! Criterion then times one query of each. Sizes: `ANN_BENCH_SIZES` (default
//! `2000,5000,10000,100000`; add `1000000` for the 1M row: a serial build of a million points
//! takes a long time). The crossover of the two per-query times is what
//! `index::GRAPH_MIN_PAPERS` is set from.
//!
//! `ANN_BENCH_INDEX=DIR/index.bin` measures an index written by
//! `cargo run --release --example synthetic_index -- N DIR` instead of building one (its build
//! time and memory are what that command reports); the held-out queries are regenerated from
//! the same seed.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use recommend::bench::speed::peak_rss;
use recommend::bench::synthetic;
use recommend::index::{GraphView, Index, Searcher, format};

const DIM: usize = 384;
const QUERIES: usize = 200;
const K: usize = 10;

fn sizes() -> Vec<usize> {
    std::env::var("ANN_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![2_000, 5_000, 10_000, 100_000])
}

/// Reset the peak to the current resident size (Linux >= 4.0); false if not possible.
fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

fn mb(b: u64) -> f64 {
    b as f64 / (1024.0 * 1024.0)
}

fn graph(index: &Index) -> GraphView<'_> {
    index.graph().expect("indexes built now store the graph")
}

/// Synthetic papers and vectors for `n` papers (as `examples/synthetic_index` makes them),
/// plus `QUERIES` held-out query vectors from the same clusters.
fn corpus(n: usize) -> (Vec<recommend::corpus::Paper>, Vec<Vec<f32>>, Vec<Vec<f32>>) {
    let topics = (n as f64).sqrt().round().max(2.0) as usize;
    let (mut papers, mut vectors) = synthetic::corpus(n + QUERIES, DIM, topics, 42);
    let queries = vectors.split_off(n);
    papers.truncate(n);
    (papers, vectors, queries)
}

fn bench_ann(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    eprintln!(
        "ann: load average at start: {}",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
    if let Some(path) = std::env::var_os("ANN_BENCH_INDEX") {
        let path = std::path::PathBuf::from(path);
        let t = Instant::now();
        let index = Searcher::new(Index::load(&path).unwrap());
        let load_ms = t.elapsed().as_secs_f64() * 1e3;
        let (_, vectors, queries) = corpus(index.len());
        assert_eq!(
            index.vector(0).to_vec(),
            vectors[0],
            "{} was not written by examples/synthetic_index",
            path.display()
        );
        drop(vectors);
        measure(c, &index, &path, &queries, None, load_ms);
        return;
    }
    for n in sizes() {
        let (papers, vectors, queries) = corpus(n);

        let exact_peak = reset_peak();
        let before = peak_rss();
        let t = Instant::now();
        let mut given = Some(vectors);
        let built = Index::build(papers, "papers.jsonl", "synthetic", &mut |_| {
            given.take().ok_or_else(|| "embedded twice".to_string())
        })
        .unwrap();
        let build_s = t.elapsed().as_secs_f64();
        let grown = peak_rss().saturating_sub(before);
        let path = dir.path().join(format!("ann-{n}.bin"));
        built.save(&path).unwrap();
        drop(built);

        let t = Instant::now();
        let index = Searcher::new(Index::load(&path).unwrap());
        let load_ms = t.elapsed().as_secs_f64() * 1e3;
        let build = format!(
            "index build {build_s:.1} s (serial HNSW inserts, no embedding), peak RSS +{:.0} MiB{}; ",
            mb(grown),
            if exact_peak {
                ""
            } else {
                " (peak not resettable)"
            }
        );
        measure(c, &index, &path, &queries, Some(build), load_ms);
        drop(index);
        let _ = std::fs::remove_file(&path);
    }
}

/// Recall and per-query times of the stored graph against the scan on `index`, printed and
/// then timed by criterion.
fn measure(
    c: &mut Criterion,
    index: &Searcher,
    path: &std::path::Path,
    queries: &[Vec<f32>],
    build: Option<String>,
    load_ms: f64,
) {
    let n = index.len();
    let bytes = std::fs::read(path).unwrap();
    let c_: format::Container<recommend::index::IndexMeta> = format::open(&bytes, "bench").unwrap();
    let graph_bytes: usize = recommend::index::graph::SECTIONS
        .iter()
        .filter_map(|s| c_.range(s))
        .map(|r| r.len())
        .sum();
    let vector_bytes = c_.range("vectors").map_or(0, |r| r.len());
    drop(bytes);
    let g = graph(index);
    let flat = index.vectors();
    let flat = flat.as_slice().unwrap();
    let ef = index.meta.hnsw.ef_search;

    let t = Instant::now();
    let exact: Vec<Vec<usize>> = queries
        .iter()
        .map(|q| index.nearest(q, K, true).into_iter().map(|h| h.0).collect())
        .collect();
    let scan_t = t.elapsed();
    let t = Instant::now();
    let approx: Vec<Vec<usize>> = queries
        .iter()
        .map(|q| {
            g.search(flat, DIM, q, K, ef)
                .into_iter()
                .map(|h| h.0)
                .collect()
        })
        .collect();
    let graph_t = t.elapsed();
    let found: usize = exact
        .iter()
        .zip(&approx)
        .map(|(e, a)| a.iter().filter(|i| e.contains(i)).count())
        .sum();
    let recall = found as f64 / (QUERIES * K) as f64;
    let per = |d: Duration| d.as_secs_f64() * 1e3 / QUERIES as f64;
    eprintln!(
        "ann n={n}: {}file {:.1} MiB (graph {:.1} MiB, vectors {:.1} MiB, {} links); load \
             {load_ms:.1} ms; recall@10 {recall:.4} (ef {ef}); graph {:.3} ms/query, scan {:.3} \
             ms/query: graph {:.2}x the scan's speed; nearest() uses the {}",
        build.unwrap_or_default(),
        mb(std::fs::metadata(path).unwrap().len()),
        mb(graph_bytes as u64),
        mb(vector_bytes as u64),
        g.links(),
        per(graph_t),
        per(scan_t),
        scan_t.as_secs_f64() / graph_t.as_secs_f64(),
        if index.uses_graph() { "graph" } else { "scan" },
    );

    let mut group = c.benchmark_group(format!("ann/{n}"));
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    let mut i = 0;
    group.bench_function("graph (stored HNSW)", |b| {
        b.iter(|| {
            i = (i + 1) % QUERIES;
            black_box(g.search(flat, DIM, &queries[i], K, ef))
        })
    });
    group.bench_function("scan (exact, parallel)", |b| {
        b.iter(|| {
            i = (i + 1) % QUERIES;
            black_box(index.nearest(&queries[i], K, true))
        })
    });
    group.finish();
}

criterion_group!(benches, bench_ann);
criterion_main!(benches);
