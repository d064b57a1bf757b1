//! Importing and indexing a large BibTeX reading list, as a user would (the real binary):
//!
//! 1. `recommend index --corpus library.bib` on `IMPORT_BENCH_PAPERS` (default 10000) entries
//!    with ~250-token abstracts: wall time, papers/s and peak RSS of the process;
//! 2. 10 entries appended, `recommend index` again: wall time as a share of (1) (the vectors of
//!    the unchanged papers are reused);
//! 3. embedding throughput on `IMPORT_BENCH_SAMPLE` (default 64) of those abstracts in this
//!    process: batched (what `index` does) against one call per text (the naive path), same
//!    model, same run.
//!
//! `cargo bench --bench import` from the repository root, with the model installed
//! (`RECOMMEND_MODEL_DIR`, else `./models`; never downloaded here). The abstracts are synthetic
//! English (a fixed vocabulary, seeded), sized like arXiv abstracts: the cost of embedding
//! depends on token counts, not on meaning.

use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use recommend::bench::speed;
use recommend::bench::synthetic::Rng;
use recommend::model::{self, Embedder, EmbedderOptions};

const WORDS: &[&str] = &[
    "agent",
    "policy",
    "reward",
    "model",
    "language",
    "reasoning",
    "training",
    "reinforcement",
    "learning",
    "trajectory",
    "tool",
    "search",
    "benchmark",
    "evaluation",
    "planning",
    "memory",
    "environment",
    "feedback",
    "optimization",
    "gradient",
    "value",
    "token",
    "sequence",
    "transformer",
    "attention",
    "dataset",
    "task",
    "performance",
    "baseline",
    "method",
    "approach",
    "framework",
    "results",
    "experiments",
    "accuracy",
    "robust",
    "efficient",
    "scalable",
    "large",
    "small",
    "multi-step",
    "long-horizon",
    "web",
    "code",
    "math",
    "human",
    "preference",
    "alignment",
    "verifier",
    "rollout",
    "sampling",
    "exploration",
    "curriculum",
    "distillation",
    "retrieval",
    "context",
    "window",
    "latency",
    "throughput",
    "state-of-the-art",
];

fn sentence(rng: &mut Rng) -> String {
    let n = 12 + rng.below(14);
    let mut words: Vec<&str> = (0..n).map(|_| WORDS[rng.below(WORDS.len())]).collect();
    let first = words[0];
    let capital = first[..1].to_uppercase() + &first[1..];
    words[0] = "";
    format!("{capital}{}.", words.join(" "))
}

/// An abstract of about 250 model tokens with its title (~130 English words).
fn abstract_text(rng: &mut Rng) -> String {
    let mut s = String::new();
    while s.split_whitespace().count() < 125 {
        if !s.is_empty() {
            s.push(' ');
        }
        s.push_str(&sentence(rng));
    }
    s
}

fn entry(i: usize, rng: &mut Rng) -> String {
    let title: Vec<&str> = (0..6 + rng.below(6))
        .map(|_| WORDS[rng.below(WORDS.len())])
        .collect();
    format!(
        "@article{{paper{i:05},\n  title = {{{} {i}}},\n  author = {{Doe, Jane and M{{\\\"u}}ller, J{{\\'e}}r{{\\^o}}me}},\n  \
         year = {{{}}},\n  abstract = {{{}}},\n  keywords = {{agents, reinforcement learning}},\n  \
         eprint = {{{}.{:05}}},\n  archivePrefix = {{arXiv}},\n}}\n\n",
        title.join(" "),
        2015 + i % 11,
        abstract_text(rng),
        2401 + (i / 90000) % 12,
        i % 90000
    )
}

/// Peak RSS (VmHWM) of a running process, in KiB.
fn vm_hwm(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Run `recommend` with `args`; wall time and peak RSS (polled every 20 ms; the last reading
/// before exit, so the final moments can be missed).
fn run(args: &[&str], dir: &Path) -> (Duration, f64, String) {
    let bin = env!("CARGO_BIN_EXE_recommend");
    let t = Instant::now();
    let mut child = Command::new(bin)
        .args(args)
        .current_dir(dir)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run recommend");
    let pid = child.id();
    let mut peak = 0;
    loop {
        if let Some(kib) = vm_hwm(pid) {
            peak = peak.max(kib);
        }
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let took = t.elapsed();
    let out = child.wait_with_output().expect("output");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "recommend {args:?} failed: {err}");
    (took, peak as f64 / 1024.0, err)
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return; // `cargo bench -- --list` probes benches
    }
    let n: usize = std::env::var("IMPORT_BENCH_PAPERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000);
    let sample: usize = std::env::var("IMPORT_BENCH_SAMPLE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(64);
    let model_dir = model::default_model_dir();
    let status = model::status(&model_dir);
    if !status.installed {
        eprintln!(
            "import bench skipped: no model in {} (set RECOMMEND_MODEL_DIR or run `recommend model install`)",
            model_dir.display()
        );
        return;
    }
    let machine = speed::machine();
    println!(
        "machine: {} cores, {}, load average {:?} at start",
        machine.cores, machine.cpu, machine.load_average
    );

    let dir = tempfile::tempdir().expect("tempdir");
    let bib = dir.path().join("library.bib");
    let mut rng = Rng::new(16);
    let mut f = std::io::BufWriter::new(std::fs::File::create(&bib).unwrap());
    let mut abstracts = Vec::new();
    for i in 0..n {
        let e = entry(i, &mut rng);
        if abstracts.len() < sample {
            abstracts.push(e.clone());
        }
        f.write_all(e.as_bytes()).unwrap();
    }
    f.flush().unwrap();
    drop(f);
    let size = std::fs::metadata(&bib).unwrap().len();
    println!(
        "corpus: {n} BibTeX entries, {:.1} MB, ~250-token abstracts",
        size as f64 / 1e6
    );

    let model_env = model_dir.display().to_string();
    // SAFETY-free: the child inherits the variable, nothing else in this process reads it.
    unsafe { std::env::set_var("RECOMMEND_MODEL_DIR", &model_env) };
    // The same build both times: the second reuses the first's vectors.
    let build = ["index", "--corpus", "library.bib", "--out", "lib.bin"];
    let (full, rss, log) = run(&build, dir.path());
    println!(
        "full build: {:.1} s, {:.1} papers/s, peak RSS {rss:.0} MiB ({})",
        full.as_secs_f64(),
        n as f64 / full.as_secs_f64(),
        log.lines().last().unwrap_or("")
    );

    let mut f = std::fs::OpenOptions::new().append(true).open(&bib).unwrap();
    for i in n..n + 10 {
        f.write_all(entry(i, &mut rng).as_bytes()).unwrap();
    }
    drop(f);
    let (again, rss2, log) = run(&build, dir.path());
    println!(
        "re-index after adding 10: {:.2} s = {:.2}% of the full build, peak RSS {rss2:.0} MiB ({})",
        again.as_secs_f64(),
        100.0 * again.as_secs_f64() / full.as_secs_f64(),
        log.lines().last().unwrap_or("")
    );

    // Throughput in this process: the passages `index` embeds, batched vs one by one.
    let c = recommend::corpus::Corpus::load(&bib).expect("reload");
    let texts: Vec<String> = c
        .papers
        .iter()
        .take(sample)
        .map(recommend::index::passage_text)
        .collect();
    let files = model::ensure_installed(&model_dir).expect("model");
    let embedder = Embedder::load(
        &files,
        EmbedderOptions {
            full_tokenizer: true,
            ..EmbedderOptions::default()
        },
    )
    .expect("embedder");
    let tokens: usize = texts
        .iter()
        .map(|t| embedder.tokenize(t, model::Role::Passage).unwrap().len())
        .sum();
    embedder
        .embed(&[texts[0].as_str()], model::Role::Passage)
        .unwrap(); // warm
    let naive = speed::throughput_one_by_one(&embedder, &texts).unwrap();
    let batched = speed::throughput(&embedder, &texts).unwrap();
    println!(
        "throughput on {} passages (mean {:.0} tokens): batched {batched:.1}/s, one by one \
         {naive:.1}/s: {:.2}x",
        texts.len(),
        tokens as f64 / texts.len() as f64,
        batched / naive
    );
}
