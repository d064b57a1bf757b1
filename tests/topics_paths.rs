//! Topic clusters, reading paths and maps on the shipped index: what they contain checked
//! in-process, what the binary adds (formats, exit codes, files) through the binary.

use std::collections::HashSet;

use predicates::str::contains;
use recommend::corpus::Corpus;
use serde_json::Value;

use crate::support::{ok_stdout, recommend, refused, session};
use recommend::engine::resolve::resolve;
use recommend::engine::{communities, reading};

fn stdout(args: &[&str]) -> Vec<u8> {
    ok_stdout(recommend().args(args))
}

/// In-process: topics are an engine behaviour; the binary adds only the rendering.
#[test]
fn topics_cover_every_paper_once_and_are_deterministic() {
    let s = session();
    let a = communities::cluster(s.searcher(), None).unwrap();
    let b = communities::cluster(s.searcher(), None).unwrap();
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap(),
        "two runs must give identical topics"
    );
    assert!(a.len() >= 4, "{} topics", a.len());
    let corpus = Corpus::load(std::path::Path::new("corpus")).unwrap();
    let mut seen = HashSet::new();
    for t in &a {
        assert!(!t.label.is_empty());
        assert!(!t.papers.is_empty());
        assert!(t.papers.contains(&t.central));
        for p in &t.papers {
            assert!(seen.insert(p.clone()), "{p} in two topics");
        }
    }
    assert_eq!(
        seen.len(),
        corpus.papers.len(),
        "every paper in exactly one topic"
    );
    // The binary prints the same topics, with every field.
    let printed: Vec<Value> =
        serde_json::from_slice(&stdout(&["topics", "--format", "json"])).unwrap();
    assert_eq!(
        printed,
        serde_json::to_value(&a)
            .unwrap()
            .as_array()
            .unwrap()
            .clone()
    );
}

/// The automatic topics name areas: no label part (the label split at " · ", " & " and "与")
/// is a generic word of the whole field, whether one the issue names or a word more than a
/// quarter of the papers use; and there are about as many topics as the list has sections.
#[test]
fn automatic_topic_labels_are_free_of_corpus_wide_generic_words() {
    let topics: Vec<Value> =
        serde_json::from_slice(&stdout(&["topics", "--format", "json"])).unwrap();
    let corpus = Corpus::load(std::path::Path::new("corpus")).unwrap();
    let texts: Vec<String> = corpus
        .papers
        .iter()
        .map(|p| format!("{} {} {}", p.title, p.highlight, p.summary).to_lowercase())
        .collect();
    let words: Vec<HashSet<&str>> = texts
        .iter()
        .map(|t| {
            t.split(|c: char| !(c.is_alphanumeric() || c == '-'))
                .filter(|w| !w.is_empty())
                .collect()
        })
        .collect();
    let sections: HashSet<&str> = corpus.papers.iter().map(|p| p.topic.as_str()).collect();
    assert!(
        topics.len() > 9 && topics.len() <= sections.len(),
        "{} topics for {} sections",
        topics.len(),
        sections.len()
    );
    let named = [
        "训练",
        "优化",
        "生成",
        "代表",
        "learning",
        "reinforcement",
        "agents",
        "agent",
        "rl",
        "llm",
        "training",
        "models",
    ];
    for t in &topics {
        let label = t["label"].as_str().unwrap();
        for part in label
            .split(" · ")
            .flat_map(|p| p.split(" & "))
            .flat_map(|p| p.split('与'))
        {
            let part = part.trim().to_lowercase();
            assert!(!named.contains(&part.as_str()), "{label}: {part}");
            let users = if part.chars().any(|c| c as u32 >= 0x4e00) {
                texts.iter().filter(|t| t.contains(&part)).count()
            } else if !part.contains(' ') {
                words.iter().filter(|w| w.contains(part.as_str())).count()
            } else {
                continue;
            };
            assert!(
                users * 4 <= texts.len(),
                "{label}: '{part}' is in {users} of {} papers",
                texts.len()
            );
        }
        // A two-part label says two things: neither Chinese part is spelled by the other's
        // characters ("GUI、网页智能体与GUI 智能体" says one).
        if let Some((_, zh)) = label.split_once(" · ") {
            let parts: Vec<String> = zh
                .split('与')
                .map(|p| p.chars().filter(|c| !c.is_whitespace()).collect())
                .collect();
            for (i, a) in parts.iter().enumerate() {
                for (j, b) in parts.iter().enumerate() {
                    assert!(i == j || !b.chars().all(|c| a.contains(c)), "{label}");
                }
            }
        }
    }
}

#[test]
fn topics_with_k_and_evaluation() {
    let t: Vec<Value> =
        serde_json::from_slice(&stdout(&["topics", "--k", "6", "--format", "json"])).unwrap();
    assert_eq!(t.len(), 6);
    // `-k` as `--like` and `search` spell their count.
    let short: Vec<Value> =
        serde_json::from_slice(&stdout(&["topics", "-k", "6", "--format", "json"])).unwrap();
    assert_eq!(short, t);
    recommend()
        .args(["topics", "--evaluate", "--k", "8"])
        .assert()
        .success()
        .stderr(contains("NMI"))
        // The clusters evaluated are the ones asked for: k=8 for every method.
        .stderr(contains("given k): k=8 NMI"))
        .stderr(contains("tfidf k-means: k=8 NMI"))
        .stderr(contains("dense e5 k-means"));
    refused(&["topics", "--k", "0"], &[]);
    refused(&["topics", "--k", "100000"], &[]);
}

/// In-process: the order of a reading path is an engine behaviour.
#[test]
fn reading_path_puts_foundations_first_without_repeats() {
    let s = session();
    let index = s.searcher();
    let dapo = resolve(index, "DAPO").unwrap();
    let steps = reading::reading_path(index, dapo, 8).unwrap();
    // Shorter than asked only with a note saying why.
    assert!(
        steps.len() == 8 || steps.last().unwrap().note.is_some(),
        "{steps:?}"
    );
    let ids: Vec<&str> = steps.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(
        ids.iter().collect::<HashSet<_>>().len(),
        ids.len(),
        "{ids:?}"
    );
    // The liked paper has its place in the order, after what it builds on.
    let at = |id: &str| ids.iter().position(|x| *x == id);
    let me = at("dapo").expect("the liked paper is on its path");
    let corpus = Corpus::load(std::path::Path::new("corpus")).unwrap();
    let paper = |id: &str| corpus.papers.iter().find(|p| p.id == id).unwrap();
    // DAPO builds on GRPO and DeepSeek-R1, and both count DAPO among their closest work.
    for parent in &paper("dapo").builds_on {
        let p = at(parent).unwrap_or_else(|| panic!("{parent} (built on) missing: {ids:?}"));
        assert!(p < me, "{parent} after dapo: {ids:?}");
    }
    // No paper comes before one it builds on.
    for (i, id) in ids.iter().enumerate() {
        for parent in &paper(id).builds_on {
            if let Some(p) = at(parent) {
                assert!(p < i, "{parent} after {id}: {ids:?}");
            }
        }
    }
    for (i, s) in steps.iter().enumerate() {
        assert_eq!(s.step, i + 1);
        assert!(!s.why.is_empty());
        assert!(s.url.as_deref().unwrap().starts_with("https://"), "{s:?}");
    }
    let again = reading::reading_path(index, dapo, 8).unwrap();
    assert_eq!(
        serde_json::to_string(&steps).unwrap(),
        serde_json::to_string(&again).unwrap()
    );
    // The binary prints the same path.
    let printed: Vec<Value> = serde_json::from_slice(&stdout(&[
        "path", "--like", "DAPO", "-n", "8", "--format", "json",
    ]))
    .unwrap();
    assert_eq!(
        printed,
        serde_json::to_value(&steps)
            .unwrap()
            .as_array()
            .unwrap()
            .clone()
    );
}

/// Every step of a reading path is among the liked paper's own closest related work, what it
/// builds on included: Search-R1 builds on PPO, but PPO (which most of the list builds on) is
/// not among Search-R1's closest work, so it is background, not a step.
#[test]
fn every_path_step_is_among_the_papers_related_work() {
    for seed in ["search-r1", "math-shepherd", "dapo", "webagent-r1", "gigpo"] {
        let related: Vec<Value> =
            serde_json::from_slice(&stdout(&["--like", seed, "-k", "6", "--format", "json"]))
                .unwrap();
        let related: HashSet<&str> = related.iter().map(|r| r["id"].as_str().unwrap()).collect();
        let path: Vec<Value> = serde_json::from_slice(&stdout(&[
            "path", "--like", seed, "-n", "6", "--format", "json",
        ]))
        .unwrap();
        assert!(path.len() >= 2, "{seed}: {path:?}");
        for step in &path {
            let id = step["id"].as_str().unwrap();
            assert!(
                id == seed || related.contains(id),
                "{seed}: step {id} is not in its top 6 {related:?}"
            );
        }
    }
    let search_r1: Vec<Value> = serde_json::from_slice(&stdout(&[
        "path",
        "--like",
        "search-r1",
        "-n",
        "6",
        "--format",
        "json",
    ]))
    .unwrap();
    assert!(search_r1.iter().all(|s| s["id"] != "ppo"), "{search_r1:?}");
}

/// A path shorter than asked for says so and why, on stderr and in the `note` of its last
/// JSON record (no other field changes); a full-length path prints no such note.
#[test]
fn a_short_path_says_why_it_is_short() {
    let out = recommend()
        .args([
            "path",
            "--like",
            "WebAgent-R1",
            "-n",
            "12",
            "--format",
            "json",
        ])
        .assert()
        .success()
        .get_output()
        .clone();
    let steps: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert!(steps.len() < 12, "{steps:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains(&format!("{} of the 12 papers asked for", steps.len()))
            && err.contains("recommend --like"),
        "{err}"
    );
    let note = steps.last().unwrap()["note"].as_str().unwrap();
    assert!(err.contains(note), "{note} / {err}");
    assert!(
        steps[..steps.len() - 1]
            .iter()
            .all(|s| s.get("note").is_none())
    );
    recommend()
        .args(["path", "--like", "WebAgent-R1", "-n", "2"])
        .assert()
        .success()
        .stderr(predicates::str::is_empty());
    recommend()
        .args(["path", "--like", "WebAgent-R1", "-n", "1000"])
        .assert()
        .success()
        .stderr(contains("fewer than the 1000 asked for"))
        // and why it stopped before the list's end: the related work ran out.
        .stderr(contains("relate to \"WebAgent-R1\" closely enough"));
}

/// In-process: a reading path is the liked paper's `--like` ranking, foundations first, as
/// long as asked for while the list has related papers; shorter only with a note naming the
/// next paper of the ranking, the one too weak a link to follow.
#[test]
fn a_path_holds_what_the_list_relates_and_says_when_it_cannot() {
    let s = session();
    let index = s.searcher();
    let judged =
        recommend::bench::judged::load(std::path::Path::new("bench/judgments.jsonl"), index)
            .unwrap();
    let n = 6;
    let (mut full, mut asked) = (0usize, 0usize);
    for (seed, grades) in &judged.like {
        let steps = reading::reading_path(index, *seed, n).unwrap();
        let like = recommend::engine::related(
            index,
            &[*seed],
            &[],
            n - 1,
            recommend::engine::Mode::Hybrid,
            &recommend::engine::Filters::default(),
        );
        // The steps other than the seed are the first results of `--like`, in any order.
        let mut got: Vec<&str> = steps.iter().map(|s| s.id.as_str()).collect();
        got.retain(|id| *id != index.table().id(*seed));
        got.sort_unstable();
        let ranked: Vec<String> = like[..got.len()]
            .iter()
            .map(|h| index.table().id(h.paper).into_owned())
            .collect();
        let mut ranked: Vec<&str> = ranked.iter().map(String::as_str).collect();
        ranked.sort_unstable();
        assert_eq!(got, ranked, "{:?}", index.table().id(*seed));
        // Only the last step may carry a note, and it does exactly when the path is short;
        // it names the next paper of the ranking.
        let notes: Vec<usize> = (0..steps.len())
            .filter(|&k| steps[k].note.is_some())
            .collect();
        if steps.len() < n {
            assert_eq!(notes, vec![steps.len() - 1], "{steps:?}");
            let note = steps.last().unwrap().note.as_deref().unwrap();
            let next = index
                .table()
                .title(like[steps.len() - 1].paper)
                .into_owned();
            assert!(note.contains(&format!("{next:?}")), "{note}");
            assert!(note.contains("relate to"), "{note}");
        } else {
            assert!(notes.is_empty(), "{steps:?}");
        }
        if grades.values().filter(|&&g| g >= 1).count() >= n - 1 {
            asked += 1;
            full += usize::from(steps.len() == n);
        }
    }
    // Seeds the judges relate to at least n - 1 papers get a full path nearly always (the
    // old mutual-rank filter left most of them short).
    assert!(asked > 20, "{asked}");
    assert!(full * 10 >= asked * 9, "{full} of {asked} paths full");
}

#[test]
fn path_to_reaches_the_target() {
    let steps: Vec<Value> = serde_json::from_slice(&stdout(&[
        "path",
        "--like",
        "GRPO",
        "--to",
        "WebAgent-R1",
        "--format",
        "json",
    ]))
    .unwrap();
    assert_eq!(steps.first().unwrap()["id"], "grpo");
    assert_eq!(steps.last().unwrap()["id"], "webagent-r1");
    assert!(steps.len() >= 2);
    refused(&["path", "--like", "GRPO", "--to", "grpo"], &["same paper"]);
    refused(
        &["path", "--like", "no such paper qq"],
        &["no paper matches"],
    );
    refused(&["path", "--like", "GRPO", "-n", "0"], &[]);
}

/// `recommend path DAPO` is `recommend path --like DAPO`: the title may come first, as
/// `search` takes its query; giving both, or neither, is a usage error.
#[test]
fn a_path_takes_its_start_as_an_argument_too() {
    let positional = stdout(&["path", "DAPO", "-n", "5", "--format", "json"]);
    assert_eq!(
        positional,
        stdout(&["path", "--like", "DAPO", "-n", "5", "--format", "json"])
    );
    let steps: Vec<Value> = serde_json::from_slice(&positional).unwrap();
    assert!(steps.iter().any(|s| s["id"] == "dapo"), "{steps:?}");
    refused(
        &["path", "DAPO", "--like", "GRPO"],
        &["cannot be used with"],
    );
    refused(&["path"], &["<TITLE>"]);
}

#[test]
fn map_svg_has_one_mark_per_paper_and_html_is_self_contained() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("m.svg");
    recommend()
        .args(["map", "--out"])
        .arg(&svg)
        .assert()
        .success();
    let text = std::fs::read_to_string(&svg).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("valid XML");
    let marks = doc
        .descendants()
        .filter(|n| n.has_tag_name("circle") && n.attribute("class") == Some("paper"))
        .count();
    let n = Corpus::load(std::path::Path::new("corpus"))
        .unwrap()
        .papers
        .len();
    assert_eq!(marks, n);
    let html = dir.path().join("m.html");
    recommend()
        .args(["map", "--like", "GRPO", "--out"])
        .arg(&html)
        .assert()
        .success();
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains(&format!("data-points=\"{n}\"")));
    // Papers' addresses are data (links a reader may click), never resources the page loads.
    for resource in [
        "<link",
        " src=",
        "@import",
        "url(",
        "fetch(",
        "XMLHttpRequest",
    ] {
        assert!(!page.contains(resource), "no network resources: {resource}");
    }
    recommend()
        .args(["map", "--out"])
        .arg(dir.path().join("m.pdf"))
        .assert()
        .code(2);
}
