//! Write a synthetic corpus and its index, for measuring commands at scale.
//!
//! ```text
//! cargo run --release --example synthetic_index -- 100000 /tmp/syn
//! target/release/recommend --index /tmp/syn/index.bin --like "syn-500"
//! ```
//!
//! Writes `DIR/papers.jsonl` and `DIR/index.bin` (which records `papers.jsonl` as its corpus,
//! so the staleness check runs as it does for a real index). The vectors are clustered random
//! unit vectors, not model output: use the result for timings and memory, never for quality.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use recommend::bench::synthetic;
use recommend::index::{CorpusSource, Index};
use recommend::model;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [n, dir] = args.as_slice() else {
        bail!("usage: synthetic_index PAPERS DIR");
    };
    let n: usize = n.parse().context("PAPERS must be a number")?;
    let dir = PathBuf::from(dir);
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;

    let t = Instant::now();
    // About as many topics per paper as the real corpus has at 141 papers is too many at scale;
    // sqrt(n) keeps clusters of a realistic size.
    let topics = (n as f64).sqrt().round().max(2.0) as usize;
    let (papers, vectors) = synthetic::corpus(n, model::DIM, topics, 42);

    let corpus = dir.join("papers.jsonl");
    let mut jsonl = Vec::new();
    for p in &papers {
        serde_json::to_writer(&mut jsonl, p)?;
        jsonl.write_all(b"\n")?;
    }
    std::fs::write(&corpus, &jsonl)
        .with_context(|| format!("cannot write {}", corpus.display()))?;

    let mut vectors = Some(vectors);
    let source = CorpusSource {
        path: "papers.jsonl".into(),
        fingerprint: Some(recommend::corpus::fingerprint(&corpus)?),
    };
    let index = Index::build(
        papers,
        source,
        model::model_id(model::DEFAULT_VARIANT),
        &mut |_| vectors.take().ok_or_else(|| "embedded twice".to_string()),
    )?;
    let out = dir.join("index.bin");
    index.save(&out)?;
    eprintln!(
        "wrote {} papers ({topics} topics) to {} and {} in {:.1} s",
        n,
        corpus.display(),
        out.display(),
        t.elapsed().as_secs_f64()
    );
    Ok(())
}
