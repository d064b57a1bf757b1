//! The engine on the shipped index: related work, resolution, filters, errors, index integrity.
//! These run on `index.bin` alone: no model needed.

use std::path::Path;

use predicates::str::contains;
use recommend::bench::quality::related_quality;
use recommend::corpus::Corpus;
use recommend::engine::Mode;
use recommend::index::ann::exact_search;
use recommend::index::{Index, Reference, Script, Searcher};
use serde_json::Value;

use crate::support::{
    json_rows as json, jsonl, ok_json, ok_text, pair_ids, recommend, refused, related_ids, texts,
};

#[test]
fn shipped_index_matches_shipped_corpus() {
    let index = Index::load(Path::new("index.bin")).unwrap();
    let corpus = Corpus::load(Path::new("corpus")).unwrap();
    index
        .check_fresh(&corpus.papers, "corpus")
        .expect("index.bin is stale: run `recommend index` and commit it");
    // Built by this version: search matches the query's tokens with the papers' ...
    let tokens = index
        .search_tokens()
        .expect("index.bin has no search tokens: run `recommend index`");
    assert_eq!(tokens.offsets.len(), index.len() + 1);
    // ... and can tell a query about another field, in either script.
    for kind in Reference::ALL {
        for script in [Script::Latin, Script::Cjk] {
            assert!(
                index.match_reference(kind, script).is_some(),
                "index.bin has no {kind:?} search reference for {script:?}: run `recommend index`"
            );
        }
    }
}

#[test]
fn like_returns_related_papers_never_the_seed() {
    let rows = json(&["--like", "WebAgent-R1", "-k", "5"]);
    assert_eq!(rows.len(), 5);
    for (i, r) in rows.iter().enumerate() {
        assert_ne!(r["id"], "webagent-r1");
        assert_eq!(r["rank"], i + 1);
        for key in ["id", "title", "score", "topic", "kind", "highlight", "why"] {
            assert!(r.get(key).is_some(), "{key} missing: {r}");
        }
        assert!(!r["why"].as_str().unwrap().is_empty());
    }
    let scores: Vec<f64> = rows.iter().map(|r| r["score"].as_f64().unwrap()).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
}

#[test]
fn like_finds_papers_of_the_same_line_of_work() {
    // GRPO's family: DAPO, Dr. GRPO, GSPO, VAPO all modify or follow GRPO.
    let ids = related_ids(&["GRPO"], &[], 10);
    let family = ["dapo", "dr-grpo", "gspo", "vapo"];
    let found = family
        .iter()
        .filter(|f| ids.iter().any(|i| i == *f))
        .count();
    assert!(found >= 2, "GRPO's neighbours {ids:?}");
}

#[test]
fn aliases_and_loose_spelling_resolve() {
    let a = related_ids(&["RLER"], &[], 3);
    let b = related_ids(&["dr tulu / rler"], &[], 3);
    assert_eq!(a, b);
    assert_eq!(a.len(), 3);
    assert!(!a.iter().any(|id| id == "dr-tulu-rler"), "{a:?}");
}

#[test]
fn unknown_title_exits_2_with_suggestions() {
    refused(
        &["--like", "WebAgnt R2 Pro"],
        &["did you mean", "WebAgent-R1"],
    );
}

#[test]
fn ambiguous_title_lists_candidates() {
    refused(
        &["--like", "deepresearch"],
        &["matches", "Tongyi DeepResearch"],
    );
}

#[test]
fn several_seeds_and_a_negative_combine() {
    let both = related_ids(&["GRPO", "WebAgent-R1"], &[], 20);
    assert_eq!(both.len(), 20);
    assert!(
        !both.iter().any(|id| id == "grpo" || id == "webagent-r1"),
        "{both:?}"
    );
    let plain = related_ids(&["GRPO"], &[], 10);
    let top = plain[0].clone();
    let unliked = related_ids(&["GRPO"], &[&top], 10);
    assert!(!unliked.contains(&top), "{unliked:?}");
    assert_ne!(plain, unliked);
}

/// In-process: which papers a filter admits is engine behaviour; the flags are parsed in
/// `bad_arguments_exit_2` and the output formats in `other_formats_render`.
#[test]
fn filters_restrict_results() {
    use recommend::corpus::Kind;
    use recommend::engine::Filters;
    let s = crate::support::session();
    let grpo = recommend::engine::resolve::resolve(s.searcher(), "GRPO").unwrap();
    let like = |filters: Filters, top: usize| {
        let q = recommend::session::QueryOptions {
            top,
            filters,
            ..Default::default()
        };
        s.related(&[grpo], &[], &q).unwrap()
    };
    let surveys = like(
        Filters {
            kind: Some(Kind::Survey),
            ..Default::default()
        },
        5,
    );
    assert!(!surveys.is_empty());
    for h in &surveys {
        assert_eq!(s.searcher().paper(h.paper).kind, Kind::Survey);
    }
    let gui = like(
        Filters {
            topic: Some("gui".into()),
            ..Default::default()
        },
        5,
    );
    assert!(!gui.is_empty());
    for h in &gui {
        let p = s.searcher().paper(h.paper);
        assert!(
            p.topic.to_lowercase().contains("gui") || p.topic_en.to_lowercase().contains("gui"),
            "{} {}",
            p.topic,
            p.topic_en
        );
    }
    let open = like(
        Filters {
            open_source: true,
            ..Default::default()
        },
        200,
    );
    let shipped_open = Corpus::load(Path::new("corpus"))
        .unwrap()
        .papers
        .iter()
        .filter(|p| p.open_source && p.id != "grpo")
        .count();
    assert_eq!(
        open.len(),
        shipped_open,
        "every open-source paper, no other"
    );
    assert!(open.iter().all(|h| s.searcher().paper(h.paper).open_source));
    // The binary applies the same filters.
    for r in json(&["--like", "GRPO", "--kind", "survey", "-k", "5"]) {
        assert_eq!(r["kind"], "survey");
    }
}

#[test]
fn bad_arguments_exit_2() {
    refused(&["--like", "GRPO", "-k", "0"], &[]);
    refused(
        &["--like", "GRPO", "--topic", "quantum gravity"],
        &["topics are"],
    );
    refused(&["--like", "GRPO", "--kind", "poem"], &[]);
    refused(&["--like", "  "], &[]);
    refused(&[], &["nothing to do"]);
    refused(&["search", "   ", "--mode", "lexical"], &[]);
    // Only punctuation: nothing to match; the default (hybrid) mode would rank by noise.
    refused(&["search", "!!! ？？"], &["has no words"]);
    let huge = "强化学习".repeat(1000);
    refused(&["search", "--mode", "lexical", &huge], &[]);
}

#[test]
fn batch_like_answers_one_line_per_query() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("q.txt");
    std::fs::write(&file, "GRPO\n\nSearch-R1\nno such paper zzz\n").unwrap();
    let out = recommend()
        .args(["-k", "3", "--like-file"])
        .arg(&file)
        .assert()
        .code(2)
        .get_output()
        .stdout
        .clone();
    let lines = jsonl(&out);
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["query"], "GRPO");
    assert_eq!(lines[0]["results"].as_array().unwrap().len(), 3);
    assert_eq!(lines[1]["query"], "Search-R1");
    assert!(
        lines[2]["error"]
            .as_str()
            .unwrap()
            .contains("no paper matches")
    );
}

#[test]
fn lexical_search_needs_no_model() {
    let rows = json(&["search", "--mode", "lexical", "GRPO"]);
    assert_eq!(rows[0]["id"], "grpo");
    let rows = json(&["search", "--mode", "lexical", "角色扮演"]);
    assert!(rows[0]["topic"].as_str().unwrap().contains("角色扮演"));
}

#[test]
fn other_formats_render() {
    let md = ok_text(recommend().args(["--like", "GRPO", "-k", "3", "--format", "markdown"]));
    assert!(md.starts_with("| # | title |"), "{md}");
    assert_eq!(md.lines().count(), 5);
    let table = ok_text(
        recommend()
            .env("NO_COLOR", "1")
            .env("COLUMNS", "100")
            .args(["--like", "GRPO", "-k", "3"]),
    );
    assert!(!table.contains('\u{1b}'), "no escape codes with NO_COLOR");
    for line in table.lines() {
        assert!(unicode_width::UnicodeWidthStr::width(line) <= 100, "{line}");
    }
}

fn copy_checkout(dir: &Path) {
    std::fs::copy("index.bin", dir.join("index.bin")).unwrap();
    std::fs::create_dir(dir.join("corpus")).unwrap();
    std::fs::copy("corpus/papers.jsonl", dir.join("corpus/papers.jsonl")).unwrap();
}

#[test]
fn stale_index_is_detected_with_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    copy_checkout(dir.path());
    let run = || {
        recommend()
            .args(["--like", "GRPO", "--index"])
            .arg(dir.path().join("index.bin"))
            .assert()
    };
    run().success();
    let corpus = dir.path().join("corpus/papers.jsonl");
    let text = std::fs::read_to_string(&corpus).unwrap();
    // Different bytes, same papers (a blank line and spaces): still fresh.
    std::fs::write(&corpus, format!("\n{}", text.replacen("\":", "\" : ", 3))).unwrap();
    run().success();
    std::fs::write(&corpus, text.replacen("GRPO", "GRPO-changed", 1)).unwrap();
    run()
        .code(1)
        .stderr(contains("stale"))
        .stderr(contains("recommend index"));
}

#[test]
fn corrupt_index_is_an_error_never_a_crash() {
    let good = std::fs::read("index.bin").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.bin");
    let mut cases: Vec<Vec<u8>> = vec![
        good[..good.len() / 2].to_vec(),
        good[..10].to_vec(),
        Vec::new(),
        b"hello world, not an index".to_vec(),
    ];
    for at in [9, 30, good.len() / 3, good.len() - 9] {
        let mut b = good.clone();
        b[at] ^= 0x10;
        cases.push(b);
    }
    for bytes in cases {
        std::fs::write(&path, &bytes).unwrap();
        recommend()
            .args(["--like", "GRPO", "--index"])
            .arg(&path)
            .assert()
            .code(1)
            .stderr(contains("rebuild it with `recommend index`"));
    }
    recommend()
        .args(["--like", "GRPO", "--index"])
        .arg(dir.path().join("missing.bin"))
        .assert()
        .code(1)
        .stderr(contains("no index at"));
}

#[test]
fn hybrid_beats_dense_and_lexical_on_related_work() {
    let index = Searcher::new(Index::load(Path::new("index.bin")).unwrap());
    let q = |m| related_quality(&index, m).precision_at_5;
    let (h, d, l) = (q(Mode::Hybrid), q(Mode::Dense), q(Mode::Lexical));
    eprintln!("same-topic precision@5: hybrid {h:.3}, dense {d:.3}, lexical {l:.3}");
    assert!(
        h > d && h > l,
        "hybrid {h:.3}, dense {d:.3}, lexical {l:.3}"
    );
}

#[test]
fn hnsw_matches_exact_scan() {
    let index = Searcher::new(Index::load(Path::new("index.bin")).unwrap());
    let mut found = 0;
    let mut total = 0;
    for i in 0..index.len() {
        let q = index.vector(i).to_vec();
        let exact: Vec<usize> = exact_search(index.vectors(), &q, 10)
            .iter()
            .map(|h| h.0)
            .collect();
        let approx: Vec<usize> = index.ann().search(&q, 10).iter().map(|h| h.0).collect();
        found += exact.iter().filter(|e| approx.contains(e)).count();
        total += exact.len();
    }
    let recall = found as f64 / total as f64;
    assert!(recall >= 0.99, "recall@10 {recall:.4}");
}

#[test]
fn reasons_name_whole_phrases_not_character_pairs() {
    // "强化学习" contains the bigram "化学" (chemistry); the reason must show the phrase.
    let rows = json(&[
        "search",
        "--mode",
        "lexical",
        "用强化学习训练网页智能体",
        "-k",
        "5",
    ]);
    assert!(!rows.is_empty());
    let whys = texts(&rows, "why");
    assert!(whys.iter().any(|w| w.contains("'强化学习'")), "{whys:?}");
    assert!(whys.iter().all(|w| !w.contains("'化学'")), "{whys:?}");
    let like = json(&["--like", "WebAgent-R1", "-k", "5"]);
    let whys = texts(&like, "why");
    assert!(whys.iter().all(|w| !w.contains("'到端'")), "{whys:?}");
}

/// The shared words the `why` of each seed's top `k` cites ("shares 'a', 'b'").
fn cited_words(seeds: &[&str], k: &str) -> Vec<String> {
    let mut cited = Vec::new();
    for seed in seeds {
        for why in texts(&json(&["--like", seed, "-k", k]), "why") {
            if let Some(shares) = why.split("shares ").nth(1) {
                cited.extend(
                    shares
                        .split(';')
                        .next()
                        .unwrap()
                        .split(", ")
                        .map(|t| t.trim_matches('\'').to_string()),
                );
            }
        }
    }
    cited
}

fn assert_none_cited(words: &[&str], cited: &[String]) {
    for word in words {
        assert!(
            !cited.iter().any(|c| c == word),
            "'{word}' cited: {cited:?}"
        );
    }
}

/// Shared words cited as evidence are what the papers are about, not the prose their long
/// summaries share ("tackles", "reports", "plus" were cited before); names a summary holds
/// (benchmarks such as ALFWorld) still count.
#[test]
fn reasons_cite_no_prose_words_of_the_summaries() {
    let prose = [
        "tackles", "tackle", "calling", "plus", "names", "values", "reports", "several", "gives",
        "steps", "human", "first",
    ];
    let cited = cited_words(
        &[
            "pyvision-rl",
            "toolrl",
            "medvr",
            "gigpo",
            "ragen",
            "dapo",
            "rstar2-agent",
        ],
        "8",
    );
    assert!(cited.len() > 20, "{cited:?}");
    assert_none_cited(&prose, &cited);
    assert!(cited.iter().any(|c| c == "alfworld"), "{cited:?}");
}

/// A word that one paper in ten of the list carries does not single a pair out, so it is not
/// cited: in this list 'grpo' (in 28% of the papers), 'llms', 'math', '智能体', '推理', '奖励'.
/// Specific shared words still are ('webarena-lite' for WebAgent-R1 and Web-Shepherd).
#[test]
fn reasons_cite_no_word_common_across_the_list() {
    let common = [
        "grpo",
        "rl",
        "llm",
        "llms",
        "math",
        "agent",
        "智能体",
        "推理",
        "奖励",
        "强化学习",
    ];
    let cited = cited_words(
        &[
            "WebAgent-R1",
            "ToolRL",
            "DAPO",
            "rStar2-Agent",
            "MedVR",
            "GiGPO",
            "Search-R1",
        ],
        "10",
    );
    assert_none_cited(&common, &cited);
    assert!(cited.iter().any(|c| c == "webarena-lite"), "{cited:?}");
}

/// A compound term the segmenter cut is cited whole ('信用分配', credit assignment; '技术报告',
/// technical report), never as its halves ('信用' is "credit", '分配' "allocation"); the Chinese
/// of words any paper may use ('优化' optimise, '算法' algorithm, '改进' improve) and counts
/// whose digits were cut off ('万条') are not cited.
#[test]
fn reasons_cite_compound_terms_whole_and_no_generic_chinese_words() {
    let cited = cited_words(
        &[
            "ECHO",
            "GiGPO",
            "DeepSeek-R1",
            "DAPO",
            "Dr. GRPO",
            "OmegaPRM",
            "Image-POSER",
        ],
        "5",
    );
    assert!(cited.iter().any(|c| c == "信用分配"), "{cited:?}");
    assert!(cited.iter().any(|c| c == "技术报告"), "{cited:?}");
    assert_none_cited(
        &[
            "信用", "分配", "技术", "报告", "优化", "算法", "改进", "万条",
        ],
        &cited,
    );
}

#[test]
fn show_prints_the_whole_record_with_links_and_relations() {
    let r = ok_json(recommend().args(["show", "DAPO", "--format", "json"]));
    assert_eq!(r["id"], "dapo");
    assert_eq!(r["arxiv"], "2503.14476");
    assert_eq!(r["href"], "https://arxiv.org/abs/2503.14476");
    assert!(r["summary"].as_str().unwrap().len() > 100);
    let parents = pair_ids(&r["builds_on_papers"]);
    assert!(parents.contains(&"grpo"), "{parents:?}");
    let children = pair_ids(&r["built_on_by"]);
    assert!(children.contains(&"vapo"), "{children:?}");
    let table = ok_text(recommend().env("COLUMNS", "120").args(["show", "dapo"]));
    assert!(
        table.contains("builds on") && table.contains("GRPO"),
        "{table}"
    );
    refused(&["show", "no such paper at all"], &[]);
}

/// Each related-work result says where it stands among this list's links (`link_strength`,
/// 0..1, falling with the rank), and `why` calls the weakest quarter "a weak link for this
/// list": MedVR (medical VQA) has one close paper, PyVision-RL, and then only papers that are
/// also multimodal. Results of several seeds or of search are on other scales and carry
/// neither.
#[test]
fn related_work_says_when_a_result_is_a_weak_link() {
    let rows = json(&["--like", "MedVR", "-k", "6"]);
    let strength: Vec<f64> = rows
        .iter()
        .map(|r| r["link_strength"].as_f64().unwrap())
        .collect();
    assert!(strength.windows(2).all(|w| w[0] >= w[1]), "{strength:?}");
    let weak = |r: &Value| {
        r["why"]
            .as_str()
            .unwrap()
            .contains("a weak link for this list")
    };
    assert!(!weak(&rows[0]) && strength[0] >= 0.25, "{}", rows[0]);
    assert!(weak(&rows[5]) && strength[5] < 0.25, "{}", rows[5]);
    for r in &rows {
        assert_eq!(weak(r), r["link_strength"].as_f64().unwrap() < 0.25, "{r}");
    }
    // A seed with many close papers: its strongest link is no weak one and stands in the
    // upper part of the list's links.
    let web = json(&["--like", "WebAgent-R1", "-k", "1"]);
    assert!(!weak(&web[0]) && web[0]["link_strength"].as_f64().unwrap() > 0.4);
    for args in [
        &["--like", "MedVR", "--like", "PyVision-RL", "-k", "5"][..],
        &["--like", "MedVR", "--mode", "dense", "-k", "3"][..],
    ] {
        for r in json(args) {
            assert!(
                r.get("link_strength").is_none() && !weak(&r),
                "{args:?}: {r}"
            );
        }
    }
}

/// A filter only removes results: `--kind method` is the unfiltered ranking without the
/// papers of other kinds, in the same order with the same scores (and so the same link
/// strengths).
#[test]
fn a_filter_only_removes_results() {
    for (seed, flag, value) in [
        ("WebAgent-R1", "--kind", "method"),
        ("MedVR", "--topic", "感知"),
        ("GRPO", "--open-source", ""),
    ] {
        let all = json(&["--like", seed, "-k", "200"]);
        let mut args = vec!["--like", seed, "-k", "200", flag];
        if !value.is_empty() {
            args.push(value);
        }
        let filtered = json(&args);
        assert!(
            !filtered.is_empty() && filtered.len() < all.len(),
            "{seed} {flag}"
        );
        let ids = |rows: &[Value]| -> Vec<(String, String)> {
            rows.iter()
                .map(|r| {
                    (
                        r["id"].as_str().unwrap().to_string(),
                        r["score"].to_string(),
                    )
                })
                .collect()
        };
        let kept: Vec<String> = filtered
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect();
        let expected: Vec<(String, String)> = ids(&all)
            .into_iter()
            .filter(|(id, _)| kept.contains(id))
            .collect();
        assert_eq!(ids(&filtered), expected, "{seed} {flag} {value}");
    }
}

/// A list of `n` papers with distinct, nearly equal vectors and no shared words, so that only
/// the evidence a test gives them separates them.
fn plain_list(n: usize, edit: impl Fn(usize, &mut recommend::corpus::Paper)) -> Searcher {
    let papers: Vec<recommend::corpus::Paper> = (0..n)
        .map(|i| {
            let mut p = recommend::corpus::Paper {
                id: format!("p{i}"),
                title: format!("Title{i}"),
                ..Default::default()
            };
            edit(i, &mut p);
            p
        })
        .collect();
    let index = Index::build(papers, "list.jsonl", "test", &mut |texts| {
        Ok((0..texts.len())
            .map(|i| {
                let mut v = [1.0f32; 8];
                v[i % 8] += 0.01 * (1 + i / 8) as f32;
                let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                v.iter().map(|x| x / norm).collect()
            })
            .collect())
    })
    .unwrap();
    Searcher::new(index)
}

fn top_ids(index: &Searcher, seed: usize, k: usize) -> Vec<String> {
    recommend::engine::related(index, &[seed], &[], k, Mode::Hybrid, &Default::default())
        .into_iter()
        .map(|h| index.paper(h.paper).id.clone())
        .collect()
}

/// The list's own keywords and sections are related-work evidence: the paper sharing the
/// seed's specific keyword comes first, a keyword on most of the list weighs nothing, and
/// topics (measured against the sections) do not see the sections.
#[test]
fn the_lists_own_keywords_and_sections_rank_related_work() {
    let index = plain_list(20, |i, p| {
        p.keywords.push("agents".into()); // on every paper: no evidence
        if i == 3 || i == 11 {
            p.keywords.push("Credit Assignment".into());
        }
        p.topic = format!("Section {}", i % 4);
    });
    assert_eq!(top_ids(&index, 3, 1), vec!["p11"]);
    assert_eq!(top_ids(&index, 11, 1), vec!["p3"]);
    // Sections: p5's section-mates (1, 9, 13, 17) fill its top 4.
    let mut top = top_ids(&index, 5, 4);
    top.sort();
    assert_eq!(top, vec!["p1", "p13", "p17", "p9"]);
    let own = index.own_tags(false);
    assert!(
        own.similar_to(5)[9] == 0.0,
        "without sections p5 and p9 share nothing"
    );
    assert!(index.own_tags(true).similar_to(5)[9] > 0.0);
}

/// On a list with curated tags, the curated tags carry the grouping and the list's own tags
/// are silent.
#[test]
fn curated_tags_take_the_place_of_the_lists_own() {
    let plain = plain_list(12, |_, _| {});
    let index = plain_list(12, |i, p| {
        if i == 2 || i == 7 {
            p.keywords.push("credit assignment".into());
        }
        p.tags
            .push(if i % 2 == 0 { "web-agent" } else { "math" }.into());
    });
    let curated_only = plain_list(12, |i, p| {
        p.tags
            .push(if i % 2 == 0 { "web-agent" } else { "math" }.into());
    });
    assert_eq!(top_ids(&index, 2, 11), top_ids(&curated_only, 2, 11));
    assert_ne!(top_ids(&index, 2, 11), top_ids(&plain, 2, 11));
}

/// `recommend show --plan` prints the plan the rankings run: on the curated shipped list,
/// curated tags on and the list's own tags off, each with a reason.
#[test]
fn show_plan_names_every_signal_with_its_weight_and_reason() {
    let out = crate::support::ok_json(recommend().args(["show", "--plan", "-f", "json"]));
    assert_eq!(out["profile"]["papers"], crate::support::corpus_papers());
    let signal = |name: &str| -> Value {
        out["signals"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["signal"].as_str().unwrap().starts_with(name))
            .unwrap_or_else(|| panic!("no {name} in {out}"))
            .clone()
    };
    assert_eq!(signal("curated tags")["weight"], "0.8");
    assert_eq!(signal("the list's own tags")["weight"], "off");
    assert_eq!(out["related"]["own_tags"], 0.0);
    assert!(
        out["signals"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| !s["why"].as_str().unwrap().is_empty())
    );
    refused(&["show"], &[]);
}
