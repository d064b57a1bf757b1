//! The shipped index: load, `--like`, and (when the model is installed) tokenizer load, model
//! load and query embedding; then a synthetic index of `INDEX_BENCH_SCALE` papers (default
//! 100000; 0 skips it): load and `--like`. Run from the repository root (`index.bin`); the model
//! is looked up as the CLI does (`RECOMMEND_MODEL_DIR`, else `./models`, ...) and never
//! downloaded: without it those benches are skipped with a message.

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use recommend::bench::speed;
use recommend::engine::{self, Filters, Mode};
use recommend::index::{Index, Searcher};
use recommend::model::{self, Embedder, EmbedderOptions, Role};

fn config(c: &mut Criterion) -> criterion::BenchmarkGroup<'_, criterion::measurement::WallTime> {
    let mut g = c.benchmark_group("index");
    g.sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    g
}

/// `--like` ([`speed::like_query`]: related, hybrid, top 10) with seeds `step` apart.
fn bench_like(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    index: &Searcher,
    step: usize,
) {
    let n = index.len();
    let mut s = 0;
    g.bench_function("like (related, hybrid, top 10)", |b| {
        b.iter(|| {
            s = (s + step) % n;
            black_box(speed::like_query(index, s))
        })
    });
}

fn bench_index(c: &mut Criterion) {
    let path = Path::new("index.bin");
    let index = Searcher::new(Index::load(path).expect("run from the repository root: index.bin"));
    let mut g = config(c);
    g.bench_function("load index.bin", |b| {
        b.iter(|| black_box(Index::load(path).unwrap()))
    });
    bench_like(&mut g, &index, 1);
    let dir = model::default_model_dir();
    if !model::status(&dir).installed {
        eprintln!(
            "model not installed in {}: skipping model benches (set RECOMMEND_MODEL_DIR)",
            dir.display()
        );
        g.finish();
        return;
    }
    let files = model::ensure_installed(&dir).unwrap();
    g.sample_size(10);
    // What the naive path pays before its first query; the embedder instead builds a vocabulary
    // index of the pieces a call needs, in parallel with the ONNX session (its share is printed).
    g.bench_function("tokenizer load (tokenizer.json, 250k pieces)", |b| {
        b.iter(|| black_box(model::load_tokenizer_json(&files.tokenizer).unwrap()))
    });
    let t = Embedder::load(&files, EmbedderOptions::default())
        .unwrap()
        .load_timings();
    eprintln!(
        "embedder load split: tokenizer index {:?} in parallel with ONNX session {:?} (total {:?})",
        t.tokenizer, t.session, t.total
    );
    g.bench_function("model load (tokenizer + session)", |b| {
        b.iter(|| black_box(Embedder::load(&files, EmbedderOptions::default()).unwrap()))
    });
    let e = Embedder::load(&files, EmbedderOptions::default()).unwrap();
    g.sample_size(20);
    let queries = [
        "用视频生成模型来估计状态的价值",
        "a step-level reward model that scores every action of a web navigation agent",
    ];
    let mut q = 0;
    g.bench_function("embed query", |b| {
        b.iter(|| {
            q = (q + 1) % queries.len();
            black_box(e.embed(&[queries[q]], Role::Query).unwrap())
        })
    });
    g.bench_function("search (embed + hybrid, top 10)", |b| {
        b.iter(|| {
            q = (q + 1) % queries.len();
            // As `recommend search` does: the query's vector and token states from one run.
            let (v, t) = e.embed_query_with_tokens(queries[q]).unwrap();
            black_box(engine::search(
                &index,
                queries[q],
                Some(&v),
                index.search_tokens().map(|_| &t),
                10,
                Mode::Hybrid,
                &Filters::default(),
            ))
        })
    });
    g.finish();
}

/// A synthetic index at scale (clustered random vectors: timings only, no quality).
fn bench_scale(c: &mut Criterion) {
    let n: usize = std::env::var("INDEX_BENCH_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    if n == 0 {
        return;
    }
    let (papers, vectors) = recommend::bench::synthetic::corpus(n, model::DIM, 316, 42);
    let mut given = Some(vectors);
    let built = Index::build(papers, "synthetic", "synthetic", &mut |_| {
        given.take().ok_or_else(|| "embedded twice".to_string())
    })
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.bin");
    built.save(&path).unwrap();
    drop(built);
    let mut g = c.benchmark_group(format!("index/{n}"));
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(5));
    g.bench_function("load (map + checksum + validate)", |b| {
        b.iter(|| black_box(Index::load(&path).unwrap()))
    });
    let index = Searcher::new(Index::load(&path).unwrap());
    bench_like(&mut g, &index, 7919);
    // A name in no paper: every paper's names are read for containment and suggestions, the
    // cost a server pays per mistyped name (the store's bench saw 9% of requests name a
    // removed paper). Typed once by a person, misspelt, and as a synthetic id.
    for (what, name) in [
        (
            "unknown name (words)",
            "deep research agent with tool calls",
        ),
        ("unknown name (misspelt)", "Serch-R1 retrival"),
        ("unknown name (id)", "syn-9999999"),
    ] {
        g.bench_function(what, |b| {
            b.iter(|| black_box(engine::resolve(&index, name).is_err()))
        });
    }
    g.finish();
}

criterion_group!(benches, bench_index, bench_scale);
criterion_main!(benches);
