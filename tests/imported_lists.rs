//! Topics on public lists of the field imported as test data (`bench/corpora`: English titles
//! and one-line notes in sections, no tags or `builds_on`): the automatic number of topics
//! follows the list's own granularity, and its topics agree with the list's sections better
//! than TF-IDF k-means and dense e5 k-means at the same k, in the same run.

use std::collections::HashSet;
use std::fs;

use serde_json::Value;

mod support;
use support::{ok_json, recommend, root};

/// The list's records, the first of each title only, as the figures in BENCHMARKS.md were
/// measured (the loader now merges such repeats itself, with a warning; `tests/import.rs`).
fn distinct_titles(name: &str, dir: &std::path::Path) -> (std::path::PathBuf, usize) {
    let text = fs::read_to_string(root().join("bench/corpora").join(name)).unwrap();
    let mut seen = HashSet::new();
    let mut out = String::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let record: Value = serde_json::from_str(line).unwrap();
        let title = record["title"].as_str().unwrap().trim().to_lowercase();
        if seen.insert(title) {
            out.push_str(line);
            out.push('\n');
        }
    }
    let path = dir.join(name);
    fs::write(&path, out).unwrap();
    (path, seen.len())
}

#[test]
fn automatic_topics_on_imported_lists_beat_both_baselines() {
    recommend().args(["model", "install"]).assert().success();
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "awesome-rl-ai-agents.jsonl",
        "Awesome-Agent-RL-Papers.jsonl",
    ] {
        let (corpus, papers) = distinct_titles(name, dir.path());
        let r = ok_json(recommend().current_dir(dir.path()).args([
            "bench",
            "--quick",
            "--corpus",
            corpus.to_str().unwrap(),
            "--index",
            "list.bin",
            "--format",
            "json",
        ]));
        let clusters = &r["clusters"];
        assert_eq!(clusters["papers"].as_u64(), Some(papers as u64), "{name}");
        let sections = clusters["labels"].as_u64().unwrap() as usize;
        let results = clusters["results"].as_array().unwrap();
        let ours = &results[0];
        let k = ours["k"].as_u64().unwrap() as usize;
        // Finer than modularity's choice (6 and 5 here), never finer than the list itself.
        assert!(
            k >= 7 && k <= sections,
            "{name}: k={k} for {sections} sections"
        );
        let nmi = |c: &Value| c["nmi"].as_f64().unwrap();
        for other in &results[1..] {
            assert_eq!(other["k"], ours["k"], "{name}: same k");
            assert!(
                nmi(ours) > nmi(other),
                "{name}: ours NMI {} <= {} {}",
                nmi(ours),
                other["method"],
                nmi(other)
            );
        }
        assert!(
            ours["largest_over_median"].as_f64().unwrap() <= 2.5,
            "{name}: no catch-all: {ours}"
        );
    }
}
