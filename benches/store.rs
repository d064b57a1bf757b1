//! The PostgreSQL store at scale: push throughput, pgvector's recall against the exact scan,
//! and warm latency through `serve --store` against `serve --index` under concurrent clients.
//! Driven by `bench/runs/2026-12-03/store/run.sh`, which starts a server; each step prints
//! what it measured to stdout.
//!
//! ```text
//! cargo bench --bench store -- build DIR 100000 110000   # DIR/a.bin (first 100k), DIR/b.bin (all)
//! cargo bench --bench store -- build DIR 300000 300000   # DIR/a.bin alone (a size step)
//! cargo bench --bench store -- derive INDEX              # add the plan's steps to an index built before
//! cargo bench --bench store -- push URL INDEX            # push time, papers/s
//! cargo bench --bench store -- recall URL INDEX 200 110000   # pgvector recall@10 vs the exact scan
//! cargo bench --bench store -- load BASE like 16 30      # 16 clients for 30 s: p50/p99, errors
//! ```
//!
//! The corpus is `recommend::bench::synthetic` (384-d clustered unit vectors, sqrt(n) topics,
//! seed 42, the real model id so hybrid search runs): timings and memory only, never quality.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use recommend::bench::synthetic;
use recommend::index::{Index, Searcher};
use recommend::model;
use recommend::store::{Snapshot, Store};

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["build", dir, first, all] => build(dir, first.parse()?, all.parse()?),
        ["derive", index] => derive(index),
        ["push", url, index] => push(url, index),
        ["recall", url, index, n, all] => recall(url, index, n.parse()?, all.parse()?, 10),
        ["recall", url, index, n, all, pool] => {
            recall(url, index, n.parse()?, all.parse()?, pool.parse()?)
        }
        ["load", base, kind, clients, secs] => load(base, kind, clients.parse()?, secs.parse()?),
        [] => {
            eprintln!("store bench: nothing to do (see benches/store.rs for its steps)");
            Ok(())
        }
        other => bail!("unknown arguments {other:?}; see benches/store.rs"),
    }
}

fn build(dir: &str, first: usize, all: usize) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    let topics = (all as f64).sqrt().round() as usize;
    let (papers, vectors) = synthetic::corpus(all, model::DIM, topics, 42);
    // `first == all` builds a.bin alone (a size step of its own, no +10k push after it).
    let steps = [("a.bin", first), ("b.bin", all)];
    let steps = if first == all {
        &steps[..1]
    } else {
        &steps[..]
    };
    for &(name, n) in steps {
        let t = Instant::now();
        let mut given = Some(vectors[..n].to_vec());
        let index = Index::build(
            papers[..n].to_vec(),
            "papers.jsonl",
            model::model_id(model::DEFAULT_VARIANT),
            &mut |_| given.take().ok_or_else(|| "embedded twice".to_string()),
        )?;
        let index = derived(index)?;
        let path = std::path::Path::new(dir).join(name);
        index.save(&path)?;
        println!(
            "build {name}: {n} papers in {:.1} s, {} MiB",
            t.elapsed().as_secs_f64(),
            std::fs::metadata(&path)?.len() >> 20
        );
    }
    Ok(())
}

/// What `pipeline::Builder` adds after the vectors and the graph, as `recommend index` does:
/// the ranking plan, each paper's stored neighbours, the link strengths (a synthetic list has
/// no descriptions, so no token states and no search reference apply).
fn derived(index: Index) -> Result<Index> {
    let index = recommend::engine::plan::with_plan(index)?;
    let index = recommend::engine::retrieve::with_like_neighbours(index)?;
    Ok(recommend::engine::calibrated(index)?)
}

/// [`derived`] for an index saved without it, rewritten in place.
fn derive(path: &str) -> Result<()> {
    let t = Instant::now();
    let index = derived(Index::load(std::path::Path::new(path))?)?;
    index.save(std::path::Path::new(path))?;
    println!("derive {path}: {:.1} s", t.elapsed().as_secs_f64());
    Ok(())
}

fn push(url: &str, index: &str) -> Result<()> {
    let bytes = std::fs::read(index).with_context(|| format!("cannot read {index}"))?;
    let store = Store::connect(url, 2)?;
    let t = Instant::now();
    let report = recommend::store::push(&store, &bytes, &mut |_, _| {})?;
    let s = t.elapsed().as_secs_f64();
    println!(
        "push {index}: {} papers, {} written, {} unchanged, {} removed, version {} in {s:.1} s \
         ({:.0} written papers/s; plan {} MiB)",
        report.papers,
        report.written,
        report.unchanged,
        report.removed,
        report.version,
        report.written as f64 / s,
        bytes.len() >> 20
    );
    if let Some((factor, recall)) = report.beam {
        println!("beam calibrated at {factor}x: recall@10 {recall:.4} on sampled papers");
    }
    Ok(())
}

/// Recall@10 of the nearest `pool` (the top 10 of them) from pgvector and from the stored graph,
/// against the exact scan: `pool` 10 is a plain 10-NN query, 200 what the engine asks for.
fn recall(url: &str, index: &str, n: usize, all: usize, pool: usize) -> Result<()> {
    let store = Arc::new(Store::connect(url, 2)?);
    let t = Instant::now();
    let snapshot = Snapshot::load(&store)?;
    println!(
        "snapshot load (plan read + validation + digests): {:.2} s",
        t.elapsed().as_secs_f64()
    );
    let file = Searcher::new(Index::load(std::path::Path::new(index))?);
    // Held-out queries from the same distribution: the points after the `all` the build drew.
    let topics = (all as f64).sqrt().round() as usize;
    let (_, mut queries) = synthetic::corpus(all + n, model::DIM, topics, 42);
    let queries = queries.split_off(all);
    let (mut pg_hits, mut graph_hits, mut total) = (0usize, 0usize, 0usize);
    let (mut pg_time, mut graph_time) = (Duration::ZERO, Duration::ZERO);
    for q in &queries {
        let exact: Vec<usize> = file.nearest(q, 10, true).into_iter().map(|h| h.0).collect();
        let t = Instant::now();
        let mut pg = snapshot.index.nearest(q, pool, false);
        pg.truncate(10);
        pg_time += t.elapsed();
        let t = Instant::now();
        let mut graph = file.nearest(q, pool, false);
        graph.truncate(10);
        graph_time += t.elapsed();
        pg_hits += pg.iter().filter(|h| exact.contains(&h.0)).count();
        graph_hits += graph.iter().filter(|h| exact.contains(&h.0)).count();
        total += exact.len();
    }
    println!(
        "recall@10 (of the nearest {pool}) vs exact scan over {n} held-out queries: pgvector {:.4} ({:.2} ms/query), \
         index.bin graph {:.4} ({:.2} ms/query)",
        pg_hits as f64 / total as f64,
        pg_time.as_secs_f64() * 1e3 / n as f64,
        graph_hits as f64 / total as f64,
        graph_time.as_secs_f64() * 1e3 / n as f64
    );
    Ok(())
}

fn load(base: &str, kind: &str, clients: usize, secs: u64) -> Result<()> {
    let papers: usize = {
        let mut r = ureq::get(&format!("{base}/healthz")).call()?;
        let h: serde_json::Value = serde_json::from_str(&r.body_mut().read_to_string()?)?;
        h["papers"].as_u64().unwrap_or(1000) as usize
    };
    let stop = Arc::new(AtomicBool::new(false));
    let threads: Vec<_> = (0..clients)
        .map(|c| {
            let (base, kind, stop) = (base.to_string(), kind.to_string(), stop.clone());
            std::thread::spawn(move || {
                let agent: ureq::Agent = ureq::Agent::config_builder()
                    .http_status_as_error(false)
                    .timeout_global(Some(Duration::from_secs(30)))
                    .build()
                    .into();
                let mut rng = recommend::util::rng::SplitMix64(1000 + c as u64);
                // Errors by what they were: an HTTP status, or 0 for no answer at all.
                let (mut times, mut errors) = (Vec::new(), std::collections::BTreeMap::new());
                while !stop.load(Ordering::Relaxed) {
                    let i = rng.below(papers) + 1;
                    let url = match kind.as_str() {
                        "like" => format!("{base}/api/like?title=syn-{i}&k=10"),
                        "lexical" => format!("{base}/api/search?q=syn-{i}&k=10&mode=lexical"),
                        // 64 queries asked again and again (readers paging, changing filters).
                        "repeat" => {
                            format!("{base}/api/search?q=agents+for+planning+{}&k=10", i % 64)
                        }
                        _ => format!("{base}/api/search?q=agents+for+planning+{i}&k=10"),
                    };
                    let t = Instant::now();
                    let status = agent
                        .get(&url)
                        .call()
                        .map(|mut r| match r.body_mut().read_to_string() {
                            Ok(_) => r.status().as_u16(),
                            Err(_) => 0,
                        })
                        .unwrap_or(0);
                    times.push(t.elapsed());
                    if status != 200 {
                        *errors.entry(status).or_insert(0usize) += 1;
                    }
                }
                (times, errors)
            })
        })
        .collect();
    // Warm-up is the caller's (a first request per server); measure the steady state.
    std::thread::sleep(Duration::from_secs(secs));
    stop.store(true, Ordering::Relaxed);
    let mut times = Vec::new();
    let mut by_status = std::collections::BTreeMap::new();
    for t in threads {
        let (t, e) = t.join().map_err(|_| anyhow::anyhow!("a client panicked"))?;
        times.extend(t);
        for (status, n) in e {
            *by_status.entry(status).or_insert(0usize) += n;
        }
    }
    let errors: usize = by_status.values().sum();
    let errors = if by_status.is_empty() {
        "0".to_string()
    } else {
        let kinds: Vec<String> = by_status
            .iter()
            .map(|(s, n)| match s {
                0 => format!("no answer: {n}"),
                s => format!("HTTP {s}: {n}"),
            })
            .collect();
        format!("{errors} ({})", kinds.join(", "))
    };
    times.sort();
    let q = |p: f64| times[((times.len() as f64 * p) as usize).min(times.len() - 1)];
    println!(
        "load {base} {kind}: {clients} clients, {} requests in {secs} s ({:.0}/s), errors {errors}, \
         p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        times.len(),
        times.len() as f64 / secs as f64,
        q(0.5).as_secs_f64() * 1e3,
        q(0.99).as_secs_f64() * 1e3,
        times.last().map_or(0.0, |t| t.as_secs_f64() * 1e3)
    );
    Ok(())
}
