//! How many tokens of a passage to embed: 512 (the model's window) against 256, on the shipped
//! corpus (`corpus/`), same process, same model:
//!
//! - how many passages (title + aliases + summary + highlight) exceed 256 tokens at all;
//! - related-work quality (same-topic precision@5 and MRR, dense ranking) of an index built
//!   with each;
//! - cross-lingual retrieval (zh highlight -> en title, en title -> zh highlight; dense);
//! - embedding throughput on the corpus's longest passages.
//!
//! `cargo bench --bench truncation` from the repository root, model installed
//! (`RECOMMEND_MODEL_DIR`, else `./models`; never downloaded here).

use std::path::Path;
use std::time::Instant;

use recommend::bench::{crosslingual, quality, speed};
use recommend::corpus::Corpus;
use recommend::engine::Mode;
use recommend::index::{Index, Searcher, passage_text};
use recommend::model::{self, Embedder, EmbedderOptions, Role};

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let dir = model::default_model_dir();
    if !model::status(&dir).installed {
        eprintln!("truncation bench skipped: no model in {}", dir.display());
        return;
    }
    let files = model::ensure_installed(&dir).expect("model");
    let machine = speed::machine();
    println!(
        "machine: {} cores, load average {:?} at start",
        machine.cores, machine.load_average
    );
    let corpus = Corpus::load(Path::new("corpus")).expect("corpus");
    let texts: Vec<String> = corpus.papers.iter().map(passage_text).collect();
    for max in [512usize, 256] {
        let embedder = Embedder::load(
            &files,
            EmbedderOptions {
                max_tokens: max,
                full_tokenizer: true,
                ..EmbedderOptions::default()
            },
        )
        .expect("embedder");
        if max == 512 {
            let lens: Vec<usize> = texts
                .iter()
                .map(|t| embedder.tokenize(t, Role::Passage).unwrap().len())
                .collect();
            let over = lens.iter().filter(|&&l| l > 256).count();
            let mut sorted = lens.clone();
            sorted.sort_unstable();
            println!(
                "{} passages: median {} tokens, max {}, {over} over 256 tokens",
                lens.len(),
                sorted[sorted.len() / 2],
                sorted[sorted.len() - 1]
            );
        }
        let index = Index::build(
            corpus.papers.clone(),
            "corpus",
            embedder.model_id(),
            &mut |t| {
                let refs: Vec<&str> = t.iter().map(String::as_str).collect();
                embedder
                    .embed(&refs, Role::Passage)
                    .map_err(|e| e.to_string())
            },
        )
        .expect("index");
        let q = quality::related_quality(&Searcher::new(index), Mode::Dense);
        let x = crosslingual::cross_lingual(&corpus.papers, &embedder).expect("cross-lingual");
        let dense = |v: &[crosslingual::Retrieval]| {
            v.iter()
                .find(|r| r.system == "dense")
                .map(|r| format!("R@1 {:.3} MRR {:.3}", r.recall_at_1, r.mrr))
                .unwrap_or_default()
        };
        // Throughput on the 40 longest passages.
        let mut long: Vec<&String> = texts.iter().collect();
        long.sort_by_key(|t| std::cmp::Reverse(t.len()));
        let long: Vec<&str> = long.iter().take(40).map(|s| s.as_str()).collect();
        let t = Instant::now();
        embedder.embed(&long, Role::Passage).unwrap();
        let rate = long.len() as f64 / t.elapsed().as_secs_f64();
        println!(
            "max {max} tokens: related (dense) P@5 {:.3} MRR {:.3}; cross-lingual zh->en {}, \
             en->zh {}; 40 longest passages {rate:.1}/s",
            q.precision_at_5,
            q.mrr,
            dense(&x.zh_to_en),
            dense(&x.en_to_zh)
        );
    }
}
