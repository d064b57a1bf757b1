//! The corpus: the shipped data meets its promises, and the loader rejects bad input precisely.

use std::collections::HashSet;
use std::path::Path;

use recommend::corpus::paper::problem_name;
use recommend::corpus::{Corpus, CorpusError, Kind, LoadOptions, Paper};

use crate::support::{corpus_papers, err_text, ok_json, ok_text, recommend, recommend_in};

/// The curated corpus loads strictly: no unknown key, no untitled record, every tag in the
/// vocabulary.
fn shipped() -> Corpus {
    let strict = LoadOptions {
        strict: true,
        ..LoadOptions::default()
    };
    let c = Corpus::load_with(&["corpus".into()], &strict).expect("the shipped corpus loads");
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    c
}

#[test]
fn shipped_corpus_is_complete_and_clean() {
    let c = shipped();
    assert!(c.papers.len() >= 140, "{} papers", c.papers.len());
    let mut ids = HashSet::new();
    for p in &c.papers {
        assert!(ids.insert(&p.id), "duplicate id {}", p.id);
        assert!(!p.title.trim().is_empty(), "{}", p.id);
        assert!(!p.highlight.trim().is_empty(), "{} has no highlight", p.id);
        assert!(!p.topic.trim().is_empty(), "{} has no topic", p.id);
        assert!(!p.sources.is_empty(), "{} has no source", p.id);
    }
    // Seed 000 marks 13 table rows [开源] (a 14th marker sits in its usage note, not on a
    // paper); a paper with a code address is open source too.
    let open = c.papers.iter().filter(|p| p.open_source).count();
    let with_code = c.papers.iter().filter(|p| p.code.is_some()).count();
    assert!(c.papers.iter().all(|p| p.code.is_none() || p.open_source));
    assert!(
        open >= with_code && open >= 13,
        "{open} open, {with_code} with code"
    );
    assert!(
        open < with_code + 13,
        "some of the 13 marked papers give their code"
    );
    assert!(c.papers.iter().any(|p| p.kind == Kind::Survey));
    assert!(c.papers.iter().any(|p| p.kind == Kind::System));
}

/// Every paper row of every table in seed 000 is in the corpus, by title.
#[test]
fn every_table_row_of_seed_000_is_a_paper() {
    let c = shipped();
    let titles: HashSet<String> = c.papers.iter().map(|p| p.title.clone()).collect();
    let seed = std::fs::read_to_string("corpus/seeds/000_09cb338c006b38a2.txt").unwrap();
    let mut rows = 0;
    for line in seed.lines().filter(|l| l.starts_with('|')) {
        let first = line.trim_matches('|').split('|').next().unwrap().trim();
        if first == "工作名称" || first.starts_with("---") {
            continue;
        }
        rows += 1;
        let title = first.replace("[开源]", "").trim().to_string();
        assert!(
            titles.contains(&title),
            "seed row {title:?} is missing from the corpus"
        );
    }
    assert_eq!(rows, 103);
}

#[test]
fn seeds_002_and_003_are_covered() {
    let c = shipped();
    let from = |s: &str| {
        c.papers
            .iter()
            .filter(|p| p.sources.iter().any(|x| x == s))
            .count()
    };
    assert_eq!(from("002"), 6);
    let distinct = |field: fn(&Paper) -> Option<String>| -> HashSet<String> {
        c.papers.iter().filter_map(field).collect()
    };
    let caps = distinct(|p| p.capability.clone());
    assert_eq!(caps.len(), 6, "{caps:?}");
    let dirs = distinct(|p| p.direction.clone());
    assert_eq!(dirs.len(), 4, "{dirs:?}");
    let names: HashSet<String> = c
        .papers
        .iter()
        .flat_map(|p| std::iter::once(p.title.clone()).chain(p.aliases.clone()))
        .collect();
    for n in [
        "DeepSeek-R1",
        "GRPO",
        "DAPO",
        "VAPO",
        "Dr. GRPO",
        "PRM800K",
        "OmegaPRM",
        "Math-Shepherd",
        "SWE-RL",
        "ToolRL",
        "Search-R1",
        "GiGPO",
        "SWEET-RL",
        "RAGEN",
        "HCAPO",
        "GSPO",
        "MinPRO",
        "M2PO",
        "AReaL",
        "IcePop",
        "rStar-Math",
        "AlphaLLM",
        "FlowReasoner",
        "Magistral",
        "SimpleRL-Zoo",
    ] {
        assert!(names.contains(n), "seed 003 paper {n} missing");
    }
    // A paper named in two seeds is one record.
    let areal: Vec<_> = c
        .papers
        .iter()
        .filter(|p| p.aliases.iter().any(|a| a == "AReaL"))
        .collect();
    assert_eq!(areal.len(), 1);
    assert!(areal[0].sources.len() >= 2);
}

fn problems_of(text: &str) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.jsonl");
    std::fs::write(&path, text).unwrap();
    let strict = LoadOptions {
        strict: true,
        ..LoadOptions::default()
    };
    match Corpus::load_with(&[path], &strict) {
        Err(CorpusError::Invalid { problems }) => problems.iter().map(|p| p.to_string()).collect(),
        other => panic!("expected problems, got {other:?}"),
    }
}

const OK: &str = r#"{"id":"a","title":"Alpha"}"#;

#[test]
fn each_validation_error_names_file_line_and_cause() {
    let cases: &[(&str, usize, &str)] = &[
        (r#"{"id":"a","title":"Alpha""#, 2, "malformed JSON"),
        (r#"{"id":"b","title":"  "}"#, 2, "no title"),
        (r#"{"id":"a","title":"Another"}"#, 2, "duplicate id \"a\""),
        (
            r#"{"id":"b","title":"Beta","kind":"paper"}"#,
            2,
            "kind must be one of",
        ),
        (
            r#"{"id":"b","title":"Beta","aliases":["ALPHA"]}"#,
            2,
            "ambiguous",
        ),
        (r#"{"id":"b","title":"alpha!"}"#, 2, "ambiguous"),
        (r#"{"id":"b\u0007","title":"Beta"}"#, 2, "control character"),
        (
            r#"{"id":"b","title":"Beta","arxiv":"2505.164"}"#,
            2,
            "is not an arXiv id",
        ),
        (
            r#"{"id":"b","title":"Beta","url":"javascript:alert(1)"}"#,
            2,
            "must be an http(s) address",
        ),
        (
            r#"{"id":"b","title":"Beta","code":"ftp://x.org/r"}"#,
            2,
            "code \"ftp://x.org/r\" must be an http(s) address",
        ),
        (
            r#"{"id":"b","title":"Beta","builds_on":["zeta"]}"#,
            2,
            "builds_on names unknown id \"zeta\"",
        ),
        (
            r#"{"id":"b","title":"Beta","builds_on":["b"]}"#,
            2,
            "builds_on itself",
        ),
        (
            r#"{"id":"b","title":"Beta","year":1200}"#,
            2,
            "year 1200 is out of range",
        ),
        (
            r#"{"id":" b","title":"Beta"}"#,
            2,
            "leading or trailing spaces",
        ),
        (
            r#"{"id":"b","title":"Beta","venue":"ICLR"}"#,
            2,
            "`venue` is not a paper field",
        ),
        (
            r#"{"id":"b","title":"Beta","year":"soon"}"#,
            2,
            "holds no year",
        ),
        (
            r#"{"id":"b","title":"Beta","tags":["rl"]}"#,
            2,
            "controlled vocabulary",
        ),
        (r#"{"id":"b"}"#, 2, "no title"),
    ];
    for (line, at, cause) in cases {
        let problems = problems_of(&format!("{OK}\n{line}\n"));
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].contains(&format!("bad.jsonl:{at}:")),
            "{problems:?}"
        );
        assert!(problems[0].contains(cause), "{cause:?} not in {problems:?}");
    }
}

/// Names that differ only in case and punctuation are one name; a `+` makes another
/// ("R1-Searcher++" follows "R1-Searcher" in real lists).
#[test]
fn a_successor_named_with_plus_signs_is_not_ambiguous() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("list.jsonl");
    let text = format!(
        "{OK}\n{}\n{}\n",
        r#"{"id":"r1-searcher","title":"R1-Searcher"}"#,
        r#"{"id":"r1-searcher-pp","title":"R1-Searcher++"}"#
    );
    std::fs::write(&path, text).unwrap();
    let corpus = Corpus::load_with(&[path], &LoadOptions::default()).unwrap();
    assert_eq!(corpus.papers.len(), 3);
    // "R1 Searcher!" is still the first one's name, so it is still ambiguous with it.
    let problems = problems_of(&format!(
        "{}\n{}\n",
        r#"{"id":"r1-searcher","title":"R1-Searcher"}"#, r#"{"id":"other","title":"R1 Searcher!"}"#
    ));
    assert!(problems[0].contains("ambiguous"), "{problems:?}");
}

#[test]
fn a_builds_on_cycle_is_reported_with_its_line() {
    let problems = problems_of(
        "{\"id\":\"a\",\"title\":\"A\",\"builds_on\":[\"b\"]}\n\
         {\"id\":\"b\",\"title\":\"B\",\"builds_on\":[\"c\"]}\n\
         {\"id\":\"c\",\"title\":\"C\",\"builds_on\":[\"a\"]}\n",
    );
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("closes a cycle"), "{problems:?}");
    assert!(problems[0].contains("bad.jsonl:3:"), "{problems:?}");
}

#[test]
fn shipped_corpus_fields_have_their_shape() {
    let c = Corpus::load(Path::new("corpus")).unwrap();
    let n = c.papers.len();
    let count = |f: &dyn Fn(&Paper) -> bool| c.papers.iter().filter(|p| f(p)).count();
    // The numbers the corpus promises (corpus/CURATION.md), as shares of the papers.
    assert!(count(&|p| !p.summary.is_empty()) * 100 >= 95 * n);
    assert!(count(&|p| p.arxiv.is_some() || p.url.is_some()) * 100 >= 90 * n);
    assert!(count(&|p| p.year.is_some()) * 100 >= 90 * n);
    assert!(
        c.papers
            .iter()
            .filter(|p| p.open_source)
            .all(|p| p.code.is_some())
    );
    for p in &c.papers {
        // Summaries are English sentences, not pasted Chinese or a stub.
        if !p.summary.is_empty() {
            assert!(
                p.summary.len() >= 80 && p.summary.is_ascii()
                    || p.summary.chars().filter(|c| c.is_ascii()).count() * 10
                        >= p.summary.chars().count() * 9,
                "{}: {}",
                p.id,
                p.summary
            );
        }
        if let Some(a) = &p.arxiv {
            assert_eq!(
                p.href().as_deref(),
                p.url
                    .as_deref()
                    .or(Some(&format!("https://arxiv.org/abs/{a}")))
            );
        }
        // Where the seed's highlight was replaced, it is kept.
        if !p.seed_highlight.is_empty() {
            assert_ne!(p.seed_highlight, p.highlight, "{}", p.id);
        }
        assert!(!p.tags.is_empty(), "{} has no tags", p.id);
        // Each paper names the research problem it attacks: one facet, two when it attacks
        // two in equal measure (corpus/CURATION.md).
        let problems = p.tags.iter().filter(|t| problem_name(t).is_some()).count();
        assert!((1..=2).contains(&problems), "{}: {:?}", p.id, p.tags);
    }
}

#[test]
fn all_problems_are_reported_at_once() {
    let problems =
        problems_of("not json\n{\"id\":\"a\",\"title\":\"A\"}\n{\"id\":\"a\",\"title\":\"B\"}\n");
    assert_eq!(problems.len(), 2, "{problems:?}");
}

#[test]
fn user_jsonl_with_only_required_fields() {
    let c = Corpus::load(Path::new("tests/fixtures/user.jsonl")).unwrap();
    assert_eq!(c.papers.len(), 2);
    assert_eq!(c.papers[0].aliases, ["ALP"]);
    // No kind given: a title that says "Survey" makes a survey, any other a method.
    assert_eq!(c.papers[1].kind, Kind::Survey, "{:?}", c.papers[1]);
    assert_eq!(c.papers[0].kind, Kind::Method);
    assert_eq!(c.origins[1].1, 3, "blank lines keep line numbers true");
}

#[test]
fn awesome_list_markdown_imports_tables_headings_and_links() {
    let c = Corpus::load(Path::new("tests/fixtures/awesome.md")).unwrap();
    let titles: Vec<&str> = c.papers.iter().map(|p| p.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "A Survey of Agent RL",
            "ToolBench / TB",
            "GRPO-Lite",
            "中文方法",
            "Search-Zero"
        ]
    );
    let p = &c.papers;
    assert_eq!(p[0].topic, "Surveys");
    assert_eq!(p[0].kind, Kind::Survey);
    assert_eq!(p[0].highlight, "综述智能体强化学习");
    assert!(p[1].open_source);
    assert_eq!(p[1].aliases, ["ToolBench", "TB"]);
    assert_eq!(p[1].link.as_deref(), Some("GitHub"));
    assert_eq!(p[2].topic, "Methods");
    assert_eq!(p[2].highlight, "A lighter GRPO variant for small models.");
    assert_eq!(p[2].id, "grpo-lite");
    assert!(
        p[3].id.starts_with("paper-"),
        "ASCII id for a Chinese title: {}",
        p[3].id
    );
    assert_eq!(p[4].highlight, "search agents trained from scratch");
    assert_eq!(p[4].link.as_deref(), Some("https://arxiv.org/abs/1"));
}

/// `list` without its index, in a folder without `corpus/`, says the index is missing and how to
/// build it (it used to report the default corpus folder the user never named).
#[test]
fn list_without_an_index_or_a_corpus_folder_names_the_missing_index() {
    let dir = tempfile::tempdir().unwrap();
    recommend_in(dir.path())
        .args(["--index", "list.bin", "list"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "no index at list.bin: build one with `recommend index --corpus PATH",
        ));
}

#[test]
fn list_prints_the_corpus_as_json() {
    let v = ok_json(recommend().args(["list", "--corpus", "corpus", "--format", "json"]));
    let arr = v.as_array().unwrap();
    assert_eq!(arr.len(), corpus_papers());
    for r in arr {
        for key in ["id", "title", "highlight", "topic", "kind"] {
            assert!(r.get(key).is_some(), "{key} missing in {r}");
        }
    }
    let surveys = ok_text(recommend().args([
        "list", "--corpus", "corpus", "--kind", "survey", "--format", "jsonl",
    ]));
    let n = surveys.lines().count();
    assert!(n >= 5 && n < arr.len());
}

#[test]
fn invalid_corpus_exits_2_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.jsonl");
    std::fs::write(&path, format!("{OK}\n{{\"id\":\"a\",\"title\":\"B\"}}\n")).unwrap();
    let err = err_text(recommend().args(["list", "--corpus"]).arg(&path), 2);
    assert!(err.contains("c.jsonl:2: duplicate id"), "{err}");
}

/// A folder of saved arXiv listings is a corpus: its Atom and RSS files are read, its README is
/// not; a folder with nothing readable says which files it reads.
#[test]
fn a_directory_reads_its_feeds_and_names_what_it_reads() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = crate::support::root().join("tests/fixtures");
    std::fs::copy(
        fixtures.join("arxiv/api-page1.atom"),
        dir.path().join("week.atom"),
    )
    .unwrap();
    std::fs::copy(fixtures.join("awesome.md"), dir.path().join("README.md")).unwrap();
    let from_dir = Corpus::load_with(&[dir.path().to_path_buf()], &LoadOptions::default())
        .unwrap()
        .papers;
    let from_file = Corpus::load_with(&[dir.path().join("week.atom")], &LoadOptions::default())
        .unwrap()
        .papers;
    assert!(!from_dir.is_empty());
    assert_eq!(
        from_dir, from_file,
        "the folder is its Atom file, README left out"
    );

    std::fs::remove_file(dir.path().join("week.atom")).unwrap();
    let err = Corpus::load_with(&[dir.path().to_path_buf()], &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(".atom") && err.contains("named alone"),
        "{err}"
    );
}

/// A spreadsheet without a `title` column is refused at its header, naming the columns it has
/// (and the `;` separator of a file read as TSV), not as "no papers found".
#[test]
fn a_table_without_a_title_column_names_its_columns() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text, says) in [
        (
            "semi.tsv",
            "Title;Year;Authors\r\nFirst paper;2020;A\r\n",
            "separated by `;`",
        ),
        (
            "keys.csv",
            "Key,Name,Year\nk1,First paper,2020\n",
            "\"Name\"",
        ),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let err = Corpus::load_with(&[path], &LoadOptions::default())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(&format!("{name}:1")) && err.contains("no column is called `title`"),
            "{err}"
        );
        assert!(err.contains(says), "{err}");
    }
}

/// A problem in an arXiv feed is reported at the line of its entry, as JSONL and BibTeX
/// problems are, not at the file's first line.
#[test]
fn a_feed_problem_names_the_line_of_its_entry() {
    let dir = tempfile::tempdir().unwrap();
    let text =
        std::fs::read_to_string(crate::support::root().join("tests/fixtures/arxiv/api-page1.atom"))
            .unwrap();
    let second = text.match_indices("<entry>").nth(1).unwrap().0;
    let title = second + text[second..].find("<title>").unwrap();
    let end = title + text[title..].find("</title>").unwrap();
    let broken = format!("{}<title>{}", &text[..title], &text[end..]);
    let line = 1 + text[..second].matches('\n').count();
    let path = dir.path().join("week.atom");
    std::fs::write(&path, broken).unwrap();
    let err = Corpus::load_with(&[path], &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains(&format!("week.atom:{line}:")), "{err}");
}
