//! Speed: index load and build, embedding throughput, warm query latency, and the machine.

use std::time::{Duration, Instant};

use serde::Serialize;

use crate::corpus::Paper;
use crate::engine::{self, Filters, Hit, Mode};
use crate::index::{Index, Searcher};
use crate::model::{Embedder, ModelError, Role};
use crate::pipeline::{BuildError, Builder, Model};

/// Where the figures were measured.
#[derive(Debug, Clone, Serialize)]
pub struct Machine {
    /// `std::thread::available_parallelism`.
    pub cores: usize,
    /// `model name` from /proc/cpuinfo ("unknown" elsewhere).
    pub cpu: String,
    pub os: String,
    pub arch: String,
    /// 1-minute load average when the run started (`/proc/loadavg`), where known: on a shared
    /// machine it says how much the timings are to be trusted.
    pub load_average: Option<f64>,
}

pub fn machine() -> Machine {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    Machine {
        cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        cpu,
        os: std::env::consts::OS.into(),
        arch: std::env::consts::ARCH.into(),
        load_average: std::fs::read_to_string("/proc/loadavg")
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse().ok()),
    }
}

/// Latency distribution of repeated warm calls, in milliseconds.
#[derive(Debug, Clone, Serialize)]
pub struct Latency {
    pub queries: usize,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub mean_ms: f64,
    pub max_ms: f64,
}

/// Nearest-rank percentile of sorted values.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

pub fn latency(samples: &[Duration]) -> Latency {
    let mut ms: Vec<f64> = samples.iter().map(|d| d.as_secs_f64() * 1e3).collect();
    ms.sort_by(f64::total_cmp);
    Latency {
        queries: ms.len(),
        p50_ms: percentile(&ms, 50.0),
        p95_ms: percentile(&ms, 95.0),
        mean_ms: ms.iter().sum::<f64>() / ms.len().max(1) as f64,
        max_ms: ms.last().copied().unwrap_or(0.0),
    }
}

/// Time `f` once per item after `warmup` untimed calls.
fn time_each<T>(items: &[T], warmup: usize, f: &mut dyn FnMut(&T)) -> Vec<Duration> {
    for it in items.iter().take(warmup) {
        f(it);
    }
    items
        .iter()
        .map(|it| {
            let t = Instant::now();
            f(it);
            t.elapsed()
        })
        .collect()
}

/// The `--like` query whose time is measured (here and in `benches/index.rs`): related work of
/// paper `seed`, hybrid, top 10, no filters.
pub fn like_query(index: &Searcher, seed: usize) -> Vec<Hit> {
    engine::related(index, &[seed], &[], 10, Mode::Hybrid, &Filters::default())
}

/// Warm `--like` latency ([`like_query`]) with each paper as the seed, up to `max` papers
/// spread evenly over the index.
pub fn like_latency(index: &Searcher, max: usize) -> Latency {
    let seeds = spread(index.len(), max);
    let samples = time_each(&seeds, 5, &mut |&s| {
        std::hint::black_box(like_query(index, s));
    });
    latency(&samples)
}

/// Up to `max` positions out of `0..n`, evenly spread, in order.
fn spread(n: usize, max: usize) -> Vec<usize> {
    if n <= max {
        return (0..n).collect();
    }
    (0..max).map(|i| i * n / max).collect()
}

/// The free-text queries used for search latency: half Chinese highlights, half English titles.
pub fn search_queries(papers: &[Paper], max: usize) -> Vec<String> {
    let picks = spread(papers.len(), max.div_ceil(2));
    let zh = picks.iter().map(|&i| papers[i].highlight.clone());
    let en = picks.iter().map(|&i| papers[i].title.clone());
    zh.chain(en)
        .filter(|q| !q.trim().is_empty())
        .take(max)
        .collect()
}

/// Warm free-text search: embed the query (role query) then engine::search (hybrid, top 10).
/// Returns the whole call's latency and the embedding's share.
pub fn search_latency(
    index: &Searcher,
    embedder: &Embedder,
    queries: &[String],
) -> Result<(Latency, Latency), ModelError> {
    let mut embed_times = Vec::new();
    let mut error = None;
    let samples = time_each(queries, 5, &mut |q| {
        let t = Instant::now();
        match super::judged::query_inputs(index, embedder, &[q.as_str()]) {
            Ok(v) => {
                embed_times.push(t.elapsed());
                std::hint::black_box(engine::search(
                    index,
                    q,
                    Some(&v[0].0),
                    v[0].1.as_ref(),
                    10,
                    Mode::Hybrid,
                    &Filters::default(),
                ));
            }
            Err(e) => error = Some(e),
        }
    });
    if let Some(e) = error {
        return Err(e);
    }
    let warm = embed_times.len() - samples.len();
    Ok((latency(&samples), latency(&embed_times[warm..])))
}

/// Build an index from `papers` with `embedder` as `recommend index` builds one, timed.
pub fn build_index(
    papers: Vec<Paper>,
    source: &str,
    embedder: &Embedder,
) -> Result<(Index, Duration), BuildError> {
    let t = Instant::now();
    let (index, _) = Builder::new(Model::Loaded(embedder)).build(papers, source, None)?;
    Ok((index, t.elapsed()))
}

/// Texts per second embedding `texts` as passages in one batched call.
pub fn throughput(embedder: &Embedder, texts: &[String]) -> Result<f64, ModelError> {
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let t = Instant::now();
    embedder.embed(&refs, Role::Passage)?;
    Ok(texts.len() as f64 / t.elapsed().as_secs_f64())
}

/// Texts per second embedding `texts` one call per text (the naive way).
pub fn throughput_one_by_one(embedder: &Embedder, texts: &[String]) -> Result<f64, ModelError> {
    let t = Instant::now();
    for s in texts {
        embedder.embed(&[s.as_str()], Role::Passage)?;
    }
    Ok(texts.len() as f64 / t.elapsed().as_secs_f64())
}

/// Peak resident set size of this process (`VmHWM` in `/proc/self/status`), in bytes; 0 where
/// the kernel does not report it. For benchmarks that report memory beside time.
pub fn peak_rss() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_use_nearest_rank() {
        let d: Vec<Duration> = (1..=100).map(Duration::from_millis).collect();
        let l = latency(&d);
        assert_eq!((l.p50_ms, l.p95_ms, l.max_ms), (50.0, 95.0, 100.0));
        assert_eq!(spread(10, 5), vec![0, 2, 4, 6, 8]);
        assert_eq!(spread(3, 5), vec![0, 1, 2]);
    }
}
