//! HNSW search vs the exact scan it approximates, on clustered random unit vectors (384-d).
//!
//! Data: 100 random unit centers, each point a center plus gaussian noise of the same norm,
//! normalized (`recommend::bench::synthetic`, deterministic). Queries are 200 fresh points from the same distribution.
//! Criterion times one query of each; before timing, each size prints (stderr) HNSW recall@10
//! against the exact scan over all 200 queries and the mean per-query speed ratio.
//!
//! Sizes: `ANN_BENCH_SIZES` (default `1000,10000,100000`). Graphs up to 10k points are built by
//! `Ann::build` (serial inserts, the production path); larger ones with hnsw_rs's
//! `parallel_insert` and the same parameters (M 24, ef_construction 200, ef_search 128), since
//! serial construction of 100k points takes minutes on 2 cores. Building is not timed by
//! criterion (its wall time is printed).

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use hnsw_rs::prelude::Hnsw;
use ndarray::Array2;
use recommend::bench::synthetic::{Clusters, Rng};
use recommend::index::ann::UnitCosine;
use recommend::index::ann::{Ann, HnswParams, exact_search};

const DIM: usize = 384;
const CENTERS: usize = 100;
const QUERIES: usize = 200;
const K: usize = 10;

enum Graph {
    Ann(Ann),
    Raw(Hnsw<'static, f32, UnitCosine>, usize),
}

impl Graph {
    fn search(&self, q: &[f32]) -> Vec<usize> {
        match self {
            Graph::Ann(a) => a.search(q, K).into_iter().map(|(i, _)| i).collect(),
            Graph::Raw(h, ef) => h.search(q, K, *ef).into_iter().map(|n| n.d_id).collect(),
        }
    }
}

fn build(data: &Array2<f32>) -> Graph {
    let p = HnswParams::default();
    let n = data.nrows();
    if n <= 10_000 {
        return Graph::Ann(Ann::build(data.view(), p));
    }
    let rows: Vec<Vec<f32>> = data.rows().into_iter().map(|r| r.to_vec()).collect();
    let items: Vec<(&Vec<f32>, usize)> = rows.iter().zip(0..).collect();
    let mut h =
        Hnsw::<f32, UnitCosine>::new(p.max_connections, n, 16, p.ef_construction, UnitCosine);
    h.parallel_insert(&items);
    h.set_searching_mode(true);
    Graph::Raw(h, p.ef_search.max(K))
}

fn sizes() -> Vec<usize> {
    std::env::var("ANN_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1_000, 10_000, 100_000])
}

fn bench_ann(c: &mut Criterion) {
    for n in sizes() {
        let mut rng = Rng::new(n as u64);
        let cs = Clusters::new(&mut rng, CENTERS, DIM);
        let flat: Vec<f32> = (0..n).flat_map(|_| cs.point(&mut rng).1).collect();
        let data = Array2::from_shape_vec((n, DIM), flat).unwrap();
        let queries: Vec<Vec<f32>> = (0..QUERIES).map(|_| cs.point(&mut rng).1).collect();

        let t = Instant::now();
        let graph = build(&data);
        let build_s = t.elapsed().as_secs_f64();

        let t = Instant::now();
        let exact: Vec<Vec<usize>> = queries
            .iter()
            .map(|q| {
                exact_search(data.view(), q, K)
                    .into_iter()
                    .map(|(i, _)| i)
                    .collect()
            })
            .collect();
        let exact_t = t.elapsed();
        let t = Instant::now();
        let approx: Vec<Vec<usize>> = queries.iter().map(|q| graph.search(q)).collect();
        let hnsw_t = t.elapsed();
        let found: usize = exact
            .iter()
            .zip(&approx)
            .map(|(e, a)| a.iter().filter(|i| e.contains(i)).count())
            .sum();
        let recall = found as f64 / (QUERIES * K) as f64;
        let per = |d: Duration| d.as_secs_f64() * 1e3 / QUERIES as f64;
        eprintln!(
            "ann n={n}: build {build_s:.1} s ({}); recall@10 {recall:.4} over {QUERIES} queries; \
             hnsw {:.3} ms/query, exact {:.3} ms/query: hnsw {:.1}x faster",
            if n <= 10_000 {
                "serial"
            } else {
                "parallel_insert"
            },
            per(hnsw_t),
            per(exact_t),
            exact_t.as_secs_f64() / hnsw_t.as_secs_f64()
        );

        // The recall/speed trade-off of the beam width, on the same graph and queries.
        if let Graph::Raw(h, _) = &graph {
            for ef in [16usize, 32, 64] {
                let t = Instant::now();
                let approx: Vec<Vec<usize>> = queries
                    .iter()
                    .map(|q| h.search(q, K, ef).into_iter().map(|n| n.d_id).collect())
                    .collect();
                let took = t.elapsed();
                let found: usize = exact
                    .iter()
                    .zip(&approx)
                    .map(|(e, a)| a.iter().filter(|i| e.contains(i)).count())
                    .sum();
                eprintln!(
                    "ann n={n} ef_search={ef}: recall@10 {:.4}, hnsw {:.3} ms/query: {:.1}x faster than exact",
                    found as f64 / (QUERIES * K) as f64,
                    per(took),
                    exact_t.as_secs_f64() / took.as_secs_f64()
                );
            }
        }

        let mut g = c.benchmark_group(format!("ann/{n}"));
        g.sample_size(10)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(3));
        let mut i = 0;
        g.bench_function("hnsw", |b| {
            b.iter(|| {
                i = (i + 1) % QUERIES;
                black_box(graph.search(&queries[i]))
            })
        });
        g.bench_function("exact", |b| {
            b.iter(|| {
                i = (i + 1) % QUERIES;
                black_box(exact_search(data.view(), &queries[i], K))
            })
        });
        g.finish();
    }
}

criterion_group!(benches, bench_ann);
criterion_main!(benches);
