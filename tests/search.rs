//! Free-text search with the real model (installed on first use), and indexing a user corpus.

use predicates::prelude::PredicateBooleanExt;
use predicates::str::contains;
use serde_json::Value;

use crate::support::{
    err_text, json_rows, jsonl, ok_json, ok_stdout, recommend, search_ids, session, texts,
};

fn ids(args: &[&str]) -> Vec<String> {
    texts(&json_rows(args), "id")
        .into_iter()
        .map(str::to_string)
        .collect()
}

/// Paraphrased queries, Chinese and English, each with the paper it describes.
const QUERIES: &[(&str, &str)] = &[
    (
        "a step-level reward model that scores every action of a web navigation agent",
        "web-shepherd",
    ),
    ("用视频生成模型来估计状态的价值", "viva"),
    (
        "distilling a centralized expert's coordination into lightweight decentralized agents",
        "kd-marl",
    ),
    (
        "在想象中与世界模型交互，生成多步轨迹再做规划",
        "imagine-then-plan",
    ),
    ("GRPO", "grpo"),
];

#[test]
fn cross_lingual_search_finds_the_described_papers() {
    let session = session();
    for (query, want) in QUERIES {
        let got = search_ids(&session, query, 5);
        assert!(
            got.iter().any(|id| id == want),
            "{query:?}: wanted {want:?} in the top 5, got {got:?}"
        );
    }
}

/// A one-shot `search` loads the model while the index opens, with the query's tokenizer
/// prepared beside the session: it must answer exactly as a session that loads on demand.
/// The README's example: WebAgent-R1's record says "web agent" only in English, and the
/// query's one specific word reaches it through the curated tag the query names in Chinese.
#[test]
fn a_query_naming_a_curated_tag_in_chinese_finds_the_tagged_papers() {
    let session = session();
    let index = session.searcher();
    let named = |q: &str| -> Vec<&str> {
        index
            .tags()
            .named_in(q, &index.lexical())
            .into_iter()
            .map(|(_, name)| name)
            .collect()
    };
    assert_eq!(named("用强化学习训练网页智能体"), ["网页智能体"]);
    assert_eq!(named("GUI agents that keep learning"), ["GUI agents"]);
    // Word boundaries hold: '化学' (chemistry) inside '强化学习' names nothing.
    assert!(named("用强化学习做分子优化").is_empty());
    // A Chinese name is a phrase, function words and the list's commonest words included.
    assert_eq!(
        named("基于模型的强化学习：先学环境动力学"),
        ["基于模型的强化学习"]
    );
    assert_eq!(named("GUI 智能体的课程学习"), ["GUI 智能体", "课程学习"]);
    // Through the glossary (界面 -> gui, 智能体 -> agent), cited in the query's language.
    assert_eq!(named("界面操作智能体"), ["GUI 智能体"]);
    // "writes" is not "Writing"; "reasoning" is generic in this list and names nothing.
    assert_eq!(named("an agent that writes Python code"), ["code"]);
    assert!(named("long chain-of-thought reasoning").is_empty());
    // "system" is a word any research text uses: the artefact tag `system` is named by nothing.
    assert_eq!(
        named("training a multi-agent deep research system"),
        ["Deep research", "multi-agent"]
    );

    // Without the tag WebAgent-R1 came 12th; the tagged papers lead now.
    let q = recommend::session::QueryOptions {
        top: 10,
        ..Default::default()
    };
    let hits = session
        .search("用强化学习训练网页智能体", &q)
        .expect("search works");
    let web = hits
        .iter()
        .find(|h| index.table().id(h.paper) == "webagent-r1")
        .unwrap_or_else(|| panic!("WebAgent-R1 in the top 10: {hits:?}"));
    assert!(web.why.contains("tagged '网页智能体'"), "{}", web.why);
    let tagged = hits[..5]
        .iter()
        .filter(|h| h.why.contains("tagged '网页智能体'"))
        .count();
    assert!(tagged >= 3, "{hits:?}");
    // Without curated tags (lexical mode reads words only) nothing cites a tag.
    let lexical = recommend::session::QueryOptions {
        top: 5,
        mode: recommend::engine::Mode::Lexical,
        ..Default::default()
    };
    for h in session
        .search("用强化学习训练网页智能体", &lexical)
        .expect("search works")
    {
        assert!(!h.why.contains("tagged"), "{}", h.why);
    }
}

#[test]
fn a_session_preloading_the_model_answers_the_same() {
    let plain = session();
    let q = recommend::session::QueryOptions::default();
    let answer = |s: &recommend::session::Session, text: &str| -> Vec<(usize, f32, f32, String)> {
        s.search(text, &q)
            .expect("search works")
            .into_iter()
            .map(|h| (h.paper, h.score, h.dense, h.why))
            .collect()
    };
    for (query, _) in QUERIES {
        let preloaded = recommend::session::Session::open_loading_model(
            &crate::support::root().join("index.bin"),
            recommend::model::default_model_dir(),
            &[query.to_string()],
        )
        .expect("the shipped index opens");
        let got = answer(&preloaded, query);
        assert!(!got.is_empty(), "{query:?}");
        assert_eq!(got, answer(&plain, query), "{query:?}");
    }
}

/// ONNX Runtime keeps a device id and an event cache for Microsoft's telemetry under
/// `~/.cache/Microsoft` unless told not to before it loads: an offline tool writes none of it.
#[test]
fn the_model_runtime_leaves_no_telemetry_behind() {
    recommend().args(["model", "install"]).assert().success();
    let home = tempfile::tempdir().unwrap();
    recommend()
        .env("HOME", home.path())
        .env_remove("ORT_DISABLE_TELEMETRY")
        .args(["search", "强化学习训练网页智能体", "-k", "3"])
        .assert()
        .success();
    let left: Vec<_> = walkdir(home.path());
    assert!(left.is_empty(), "files left in HOME: {left:?}");
}

fn walkdir(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walkdir(&p));
        }
        out.push(p);
    }
    out
}

#[test]
fn search_modes_and_batch() {
    let dense = ids(&["search", "--mode", "dense", "multi-agent debate", "-k", "3"]);
    assert_eq!(dense.len(), 3);
    // Link strength is a related-work scale: search results carry none.
    for r in json_rows(&["search", "multi-agent debate", "-k", "3"]) {
        assert!(r.get("link_strength").is_none(), "{r}");
        assert!(!r["why"].as_str().unwrap().contains("weak link"), "{r}");
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("q.txt");
    std::fs::write(&file, "GRPO 的改进\nrobot manipulation with RL\n").unwrap();
    let out = ok_stdout(
        recommend()
            .args(["search", "-k", "2", "--queries"])
            .arg(&file),
    );
    let lines = jsonl(&out);
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[1]["query"], "robot manipulation with RL");
    assert_eq!(lines[1]["results"].as_array().unwrap().len(), 2);
}

/// A query about another field gets its best candidates all the same; `why` says they are a
/// weak match for the list, and a table-format search says so on stderr (a table cuts long
/// reasons short). A paraphrase of a paper of the list, or a paper's name, is not weak.
#[test]
fn a_query_about_another_field_is_called_a_weak_match() {
    for query in ["股票价格预测", "music genre classification from audio"] {
        let rows = json_rows(&["search", query, "-k", "3"]);
        assert_eq!(rows.len(), 3, "results are still given");
        for r in &rows {
            assert!(r["match_strength"].as_f64().unwrap() < 0.10, "{query}: {r}");
            assert_eq!(r["weak_match"], true, "{query}: {r}");
            assert!(
                r["why"]
                    .as_str()
                    .unwrap()
                    .starts_with("a weak match for this list; "),
                "{query}: {r}"
            );
        }
        recommend()
            .args(["search", query, "-k", "3"])
            .assert()
            .success()
            .stderr(contains("this list may have nothing on this query"));
    }
    // A short query from another field comes closer to any list than a sentence does; it is
    // measured against short queries from other fields too.
    for query in ["tax evasion", "冰川退缩", "宏观经济 GDP"] {
        let rows = json_rows(&["search", query, "-k", "1"]);
        assert_eq!(rows[0]["weak_match"], true, "{query}: {rows:?}");
    }
    // A short query whose words a paper of the list holds is about the list, however its
    // cosine compares with the list's own describing sentences.
    // Nor is the name of a group the list files papers under: a section, a tag.
    for query in [
        "credit assignment",
        "信用分配",
        "process rewards",
        "GUI 与网页智能体",
        "网页智能体",
    ] {
        let rows = json_rows(&["search", query, "-k", "1"]);
        assert!(rows[0].get("weak_match").is_none(), "{query}: {rows:?}");
        recommend()
            .args(["search", query, "-k", "1"])
            .assert()
            .success()
            .stderr(contains("may have nothing").not());
    }
    for query in [
        "fixing the length normalization bias in GRPO",
        "用视频生成模型来估计状态的价值",
    ] {
        let rows = json_rows(&["search", query, "-k", "3"]);
        assert!(
            rows[0]["match_strength"].as_f64().unwrap() >= 0.10,
            "{rows:?}"
        );
        assert!(!rows[0]["why"].as_str().unwrap().contains("weak match"));
        assert!(rows[0].get("weak_match").is_none(), "{rows:?}");
        recommend()
            .args(["search", query, "-k", "3"])
            .assert()
            .success()
            .stderr(contains("may have nothing").not());
    }
    // A filter that removes the papers a query is about leaves weaker results, but the list
    // has the query's subject: not "a weak match for this list".
    let query = "GUI agents that operate a phone screen";
    let filtered = [
        "search",
        query,
        "--topic",
        "Creative & long-form writing",
        "-k",
        "2",
    ];
    for r in json_rows(&filtered) {
        assert!(r.get("weak_match").is_none(), "{r}");
    }
    recommend()
        .args(filtered)
        .assert()
        .success()
        .stderr(contains("may have nothing").not());
    // Lexical search has no reference: a query none of whose words the list holds is answered
    // by nothing, and the note says so (an empty JSON list cannot).
    recommend()
        .args(["search", "--mode", "lexical", "zyxqv wqpjk", "-f", "json"])
        .assert()
        .success()
        .stdout(contains("[]"))
        .stderr(contains("found no paper holding a word of this query"));
    // A name finds its paper: no strength is claimed either way.
    let rows = json_rows(&["search", "DAPO", "-k", "1"]);
    assert_eq!(rows[0]["id"], "dapo");
    assert!(rows[0].get("match_strength").is_none(), "{rows:?}");
    assert!(rows[0].get("weak_match").is_none(), "{rows:?}");
    // Related work has its own scale (link strength), not this one.
    for r in json_rows(&["--like", "DAPO", "-k", "3"]) {
        assert!(r.get("match_strength").is_none(), "{r}");
    }
}

#[test]
fn a_user_corpus_can_be_indexed_and_queried() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("mine.bin");
    recommend()
        .args(["index", "--corpus", "tests/fixtures/awesome.md", "--out"])
        .arg(&out)
        .assert()
        .success();
    // The ids `recommend --index mine.bin ARGS` answers.
    let on_mine = |args: &[&str]| ids(&[&["--index", out.to_str().unwrap()][..], args].concat());
    let got = on_mine(&["--like", "GRPO-Lite", "-k", "2"]);
    assert_eq!(got.len(), 2);
    assert!(!got.contains(&"grpo-lite".to_string()));
    let got = on_mine(&["search", "工具调用", "-k", "1"]);
    assert_eq!(got, ["toolbench-tb"]);
    recommend()
        .args([
            "index",
            "--corpus",
            "tests/fixtures/does-not-exist.jsonl",
            "--out",
        ])
        .arg(&out)
        .assert()
        .code(2)
        .stderr(contains("does-not-exist.jsonl"));
}

#[test]
fn embed_prints_unit_vectors_and_model_status_reports_the_install() {
    let out = ok_stdout(recommend().args([
        "embed",
        "--as",
        "passage",
        "强化学习",
        "reinforcement learning",
        "--format",
        "json",
    ]));
    let rows: Vec<Value> = serde_json::from_slice(&out).unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["text"], "强化学习");
    let v: Vec<f64> = rows[0]["embedding"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert_eq!(v.len(), 384);
    let norm: f64 = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    assert!((norm - 1.0).abs() < 1e-3, "norm {norm}");
    let status = ok_json(recommend().args(["model", "status"]));
    assert_eq!(status["installed"], true, "{status}");
}

#[test]
fn query_flags_before_a_command_are_refused_not_dropped() {
    let err = err_text(
        recommend().args(["-k", "3", "search", "--mode", "lexical", "GRPO"]),
        2,
    );
    assert!(err.contains("--top before `search`"), "{err}");
    // After the command they apply; global options still go anywhere.
    let v = ok_json(
        recommend()
            .args([
                "--index",
                "index.bin",
                "search",
                "-k",
                "3",
                "--mode",
                "lexical",
                "GRPO",
            ])
            .args(["--format", "json"]),
    );
    assert_eq!(v.as_array().unwrap().len(), 3);
}
