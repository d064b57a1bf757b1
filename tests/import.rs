//! Reading lists as researchers keep them: a Zotero BibTeX export, arXiv metadata snapshot
//! lines, a spreadsheet CSV, mixed directories; ids as found in the wild; bad input reported
//! precisely; incremental re-indexing and `recommend add` with the real model.

use std::path::{Path, PathBuf};

use predicates::str::contains;
use recommend::corpus::{Corpus, CorpusError, Format, Kind, LoadOptions, Paper};
use recommend::index::Index;

use crate::support::{ok_json, ok_stderr, recommend, with_model};

const FIXTURES: &str = "tests/fixtures/import";

fn fixture(name: &str) -> PathBuf {
    Path::new(FIXTURES).join(name)
}

fn load(path: &Path) -> Corpus {
    Corpus::load(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn strict() -> LoadOptions {
    LoadOptions {
        strict: true,
        ..LoadOptions::default()
    }
}

fn problems(paths: &[PathBuf], options: &LoadOptions) -> Vec<String> {
    match Corpus::load_with(paths, options) {
        Err(CorpusError::Invalid { problems }) => problems.iter().map(|p| p.to_string()).collect(),
        other => panic!("expected problems, got {other:?}"),
    }
}

/// Requires one of `problems` to contain each of `parts`.
fn assert_reported(problems: &[String], parts: &[&str]) {
    assert!(
        problems
            .iter()
            .any(|m| parts.iter().all(|part| m.contains(part))),
        "{parts:?} in none of {problems:?}"
    );
}

/// The ids of `c`'s papers, in order.
fn paper_ids(c: &Corpus) -> Vec<&str> {
    c.papers.iter().map(|p| p.id.as_str()).collect()
}

fn by_id<'a>(c: &'a Corpus, id: &str) -> &'a Paper {
    c.papers
        .iter()
        .find(|p| p.id == id)
        .unwrap_or_else(|| panic!("no paper {id}"))
}

#[test]
fn a_zotero_bibtex_export_becomes_papers() {
    let c = load(&fixture("zotero.bib"));
    let ids = paper_ids(&c);
    assert_eq!(
        ids,
        [
            "vaswaniAttentionAllYou2017",
            "guoDeepSeekR1IncentivizingReasoning2025",
            "mullerSurveyAgenticReinforcement2025",
            "schulmanProximalPolicyOptimization2017"
        ],
        "citation keys are the ids, in file order"
    );
    let attention = by_id(&c, "vaswaniAttentionAllYou2017");
    assert_eq!(
        attention.title, "Attention Is All You Need",
        "braces decoded"
    );
    assert_eq!(attention.year, Some(2017));
    assert!(
        attention
            .authors
            .as_deref()
            .unwrap()
            .starts_with("Ashish Vaswani, Noam Shazeer"),
        "{:?}",
        attention.authors
    );
    assert!(
        attention
            .authors
            .as_deref()
            .unwrap()
            .contains("Łukasz Kaiser")
    );
    assert!(
        attention
            .summary
            .starts_with("The dominant sequence transduction models")
            && !attention.summary.contains('\n'),
        "the abstract is the summary, on one line: {:?}",
        attention.summary
    );
    assert_eq!(
        attention.keywords,
        [
            "Computer Science - Computation and Language",
            "Computer Science - Machine Learning"
        ]
    );
    let r1 = by_id(&c, "guoDeepSeekR1IncentivizingReasoning2025");
    assert_eq!(
        r1.arxiv.as_deref(),
        Some("2501.12948"),
        "eprint + archivePrefix"
    );
    assert_eq!(r1.doi.as_deref(), Some("10.48550/arXiv.2501.12948"));
    assert!(r1.keywords.contains(&"cs.CL".to_string()), "primaryClass");
    assert!(
        r1.authors
            .as_deref()
            .unwrap()
            .starts_with("DeepSeek-AI, Daya Guo")
    );
    let survey = by_id(&c, "mullerSurveyAgenticReinforcement2025");
    assert_eq!(
        survey.title, "A Survey of Agentic Reinforcement Learning: Über Planning, Tools & Memory",
        "LaTeX accents and escapes decoded"
    );
    assert_eq!(
        survey.authors.as_deref(),
        Some("Jérôme Müller, Ana García, Pieter van der Berg")
    );
    assert_eq!(survey.year, Some(2025), "BibLaTeX date");
    assert_eq!(survey.kind, Kind::Survey, "a survey by its title");
    assert!(survey.summary.contains("We survey agentic reinforcement"));
    assert!(!survey.summary.contains("emph"), "{}", survey.summary);
    let ppo = by_id(&c, "schulmanProximalPolicyOptimization2017");
    assert_eq!(ppo.arxiv.as_deref(), Some("1707.06347"), "version dropped");

    // What was left out is said once, with counts and places; nothing silently dropped.
    assert_eq!(c.warnings.len(), 2, "{:?}", c.warnings);
    let kept_out = &c.warnings[0];
    for key in [
        "publisher (2,",
        "urldate (2,",
        "file (1,",
        "booktitle (undefined @string jmlr)",
    ] {
        assert!(kept_out.contains(key), "{key} not in {kept_out}");
    }
    assert!(
        c.warnings[1].contains("skipped 1 record")
            && c.warnings[1].contains("zotero.bib:47 (entry zoteroNoteWithoutTitle)"),
        "{}",
        c.warnings[1]
    );
}

#[test]
fn arxiv_metadata_snapshot_lines_become_papers() {
    let c = load(&fixture("arxiv-snapshot.jsonl"));
    let ids = paper_ids(&c);
    assert_eq!(ids, ["0704.0001", "1706.03762", "math/0406010"]);
    let p = &c.papers[0];
    assert_eq!(p.arxiv.as_deref(), Some("0704.0001"));
    assert_eq!(
        p.year,
        Some(2007),
        "the first version's year, not update_date's 2008"
    );
    assert_eq!(
        p.title,
        "Calculation of prompt diphoton production cross sections at Tevatron and LHC energies"
    );
    assert!(p.summary.starts_with("A fully differential calculation"));
    assert_eq!(p.doi.as_deref(), Some("10.1103/PhysRevD.76.013009"));
    assert_eq!(c.papers[1].keywords, ["cs.CL", "cs.LG"], "categories");
    assert_eq!(c.papers[2].arxiv.as_deref(), Some("math/0406010"));
    assert_eq!(c.papers[2].year, Some(2004));
    assert_eq!(c.warnings.len(), 1, "{:?}", c.warnings);
    for key in [
        "submitter (3,",
        "authors_parsed (3,",
        "versions (3,",
        "journal-ref (3,",
    ] {
        assert!(
            c.warnings[0].contains(key),
            "{key} not in {}",
            c.warnings[0]
        );
    }
}

#[test]
fn a_spreadsheet_csv_becomes_papers() {
    let c = load(&fixture("spreadsheet.csv"));
    let ids = paper_ids(&c);
    assert_eq!(ids, ["7QX2WZ8M", "K3P9D2LA", "ZT5M2K9W"]);
    let react = &c.papers[0];
    assert_eq!(
        react.summary,
        "ReAct interleaves reasoning traces and actions, so a model can plan, act and update \
         its plan from what it observes.",
        "a quoted cell with a CRLF inside"
    );
    assert_eq!(react.keywords, ["agents", "reasoning", "tool use"]);
    assert_eq!(react.year, Some(2023));
    assert_eq!(
        react.url.as_deref(),
        Some("https://arxiv.org/abs/2210.03629")
    );
    assert_eq!(
        c.papers[1].doi.as_deref(),
        Some("10.48550/arXiv.2402.03300")
    );
    assert_eq!(c.papers[2].kind, Kind::Survey);
    assert!(
        c.warnings[0].contains("Item Type (3, first at tests/fixtures/import/spreadsheet.csv:2)"),
        "{:?}",
        c.warnings
    );
    assert!(
        c.warnings[1].contains("spreadsheet.csv:6 (Q8N4R7TS)"),
        "the untitled row, by line and id: {:?}",
        c.warnings
    );
}

/// An awesome list that files a paper under two sections (here once with a versioned arXiv
/// link) imports with the paper once, the repeat named in a warning with both places; a title
/// listed with two different papers' links stays an error; `--strict` refuses repeats too.
#[test]
fn a_paper_listed_twice_is_merged_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("awesome.md");
    std::fs::write(
        &list,
        "# Awesome agent RL\n\n\
         ## Search agents\n\n\
         - [Search-R1](https://arxiv.org/abs/2503.09516) - RL for search\n\
         - [ToolRL](https://arxiv.org/abs/2504.13958) - tool rewards\n\n\
         ## Tool use\n\n\
         - [Search-R1](https://arxiv.org/abs/2503.09516v2) - listed again\n\
         - [ToolRL](https://arxiv.org/pdf/2504.13958) - and again\n",
    )
    .unwrap();
    let c = load(&list);
    assert_eq!(c.papers.len(), 2, "{:?}", c.papers);
    let search = by_id(&c, "search-r1");
    assert_eq!(search.topic, "Search agents", "the first listing is kept");
    assert_eq!(c.warnings.len(), 1, "{:?}", c.warnings);
    let w = &c.warnings[0];
    assert!(w.contains("merged 2 repeated listing(s)"), "{w}");
    assert!(
        w.contains("awesome.md:10 (first at ") && w.contains("awesome.md:5)"),
        "{w}"
    );
    let p = problems(&[list], &strict());
    assert_reported(&p, &["is ambiguous"]);
    // The same title with another paper's link is not a repeat.
    let clash = dir.path().join("clash.md");
    std::fs::write(
        &clash,
        "## A\n- [Search-R1](https://arxiv.org/abs/2503.09516) - one\n\
         ## B\n- [Search-R1](https://arxiv.org/abs/2401.00001) - another paper\n",
    )
    .unwrap();
    let p = problems(&[clash], &LoadOptions::default());
    assert_reported(&p, &["clash.md:4", "is ambiguous"]);
}

/// Awesome-list tables are read by their header: the title cell's link is the paper's address,
/// a short-title column an alias, a year or date column the year, a description column the
/// highlight; other columns (venue, code, stars) are left out. A table without known headers
/// is read by position, as before.
#[test]
fn awesome_list_tables_are_read_by_their_header() {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("README.md");
    std::fs::write(
        &list,
        "## Tool use\n\n\
         | Title | Venue | Date | Code | Stars |\n\
         |---|---|---|---|---|\n\
         | [ToolRL: Reward is All Tool Learning Needs](https://arxiv.org/abs/2504.13958) | arXiv | 2025-04 | [GitHub](https://github.com/x/toolrl) | ![](https://img.shields.io/x) |\n\n\
         ## Algorithms\n\n\
         | Title | Short title | Venue | Year | Materials | Description |\n\
         |---|---|---|---|---|---|\n\
         | Group Relative Policy Optimization | GRPO | arXiv | 2024 | [Paper](https://arxiv.org/abs/2402.03300) | Critic-free PPO variant. |\n\n\
         ## Plain\n\n\
         | First | Second | Third |\n\
         |---|---|---|\n\
         | Search-R1 | RL with a search engine | arXiv |\n",
    )
    .unwrap();
    let c = Corpus::load_with(&[list], &LoadOptions::default()).unwrap();
    assert_eq!(c.papers.len(), 3, "{:?}", c.papers);
    let toolrl = &c.papers[0];
    assert_eq!(toolrl.title, "ToolRL: Reward is All Tool Learning Needs");
    assert_eq!(
        toolrl.url.as_deref(),
        Some("https://arxiv.org/abs/2504.13958")
    );
    assert_eq!(toolrl.year, Some(2025));
    assert_eq!(toolrl.highlight, "", "venue and date are not a highlight");
    let grpo = &c.papers[1];
    assert_eq!(grpo.aliases, ["GRPO"]);
    assert_eq!(grpo.year, Some(2024));
    assert_eq!(grpo.highlight, "Critic-free PPO variant.");
    let plain = &c.papers[2];
    assert_eq!(plain.highlight, "RL with a search engine");
    assert_eq!(plain.link.as_deref(), Some("arXiv"));
}

#[test]
fn awesome_list_sections_lose_their_emoji_and_its_table_of_contents_is_not_papers() {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("README.md");
    std::fs::write(
        &list,
        "# Awesome agent RL\n\n\
         ## 🔎 Quick Navigation\n\n\
         * [Agent Tuning](#agent-tuning)\n\
         * [Tool Calling](#-tool-calling)\n\n\
         ## 🎯 Agent Tuning\n\n\
         - [AgentTuning: Enabling Generalized Agent Abilities for LLMs](https://arxiv.org/abs/2310.12823) - Instruction-tuning on agent trajectories.\n\n\
         ## :hammer_and_wrench: Tool Calling\n\n\
         - [ToolRL: Reward is All Tool Learning Needs](https://arxiv.org/abs/2504.13958)\n",
    )
    .unwrap();
    for options in [LoadOptions::default(), strict()] {
        let c = Corpus::load_with(std::slice::from_ref(&list), &options).unwrap();
        let topics: Vec<&str> = c.papers.iter().map(|p| p.topic.as_str()).collect();
        assert_eq!(topics, ["Agent Tuning", "Tool Calling"], "{:?}", c.papers);
        assert_eq!(c.warnings.len(), 1, "{:?}", c.warnings);
        let w = &c.warnings[0];
        assert!(
            w.contains("skipped 2 link(s) to sections of the same page")
                && w.contains("README.md:5 \"Agent Tuning\""),
            "{w}"
        );
    }
}

#[test]
fn strict_turns_every_warning_into_a_located_error() {
    let p = problems(&[fixture("zotero.bib")], &strict());
    assert_reported(
        &p,
        &["zotero.bib:4: entry vaswaniAttentionAllYou2017: `publisher`"],
    );
    assert_reported(
        &p,
        &["zotero.bib:47: entry zoteroNoteWithoutTitle: record has no title"],
    );
    let p = problems(&[fixture("arxiv-snapshot.jsonl")], &strict());
    assert_reported(&p, &["arxiv-snapshot.jsonl:3:", "`submitter`"]);
}

#[test]
fn every_broken_bibtex_entry_is_reported_at_once_and_the_others_are_checked() {
    let p = problems(&[fixture("broken.bib")], &LoadOptions::default());
    assert_eq!(p.len(), 3, "{p:#?}");
    assert!(
        p[0].contains("broken.bib:6: entry brokenEntry2023: unbalanced braces: 5 `{` but 4 `}`"),
        "{}",
        p[0]
    );
    assert!(
        p[1].contains("broken.bib:13: entry extraBrace2021: unbalanced braces")
            && p[1].contains("year = {2021}"),
        "{}",
        p[1]
    );
    assert!(
        p[2].contains("broken.bib:23: entry noComma2022: expected comma"),
        "{}",
        p[2]
    );
}

/// The hostile `.bib` files that once crashed or hung the import: a self-referring `@string`,
/// two that refer to each other, a doubling chain and 100,000 nested braces. Each is refused
/// with exit 2 and `file:line: entry KEY`, naming the cycle or the bound.
#[test]
fn self_referring_doubling_and_deeply_nested_bibtex_is_refused_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let doubling: String =
        std::iter::once("@string{s0 = \"abcdefghijklmnopqrstuvwxyz\"}\n".to_string())
            .chain((1..28).map(|i| format!("@string{{s{i} = s{} # s{}}}\n", i - 1, i - 1)))
            .chain(std::iter::once("@article{r1, title = s27}\n".to_string()))
            .collect();
    let nested = format!(
        "@article{{r1, title = {}x{}}}\n",
        "{".repeat(100_000),
        "}".repeat(100_000)
    );
    let cases = [
        (
            "self.bib",
            "@string{c = c # c}\n@article{r1, title = c}\n".to_string(),
            "self.bib:2: entry r1",
            "c -> c",
        ),
        (
            "mutual.bib",
            "@string{a = b}\n@string{b = a}\n@article{r1, title = a}\n".to_string(),
            "mutual.bib:3: entry r1",
            "a -> b -> a",
        ),
        (
            "doubling.bib",
            doubling,
            "doubling.bib:29: entry r1",
            "expands to more than 100000 bytes",
        ),
        (
            "nested.bib",
            nested,
            "nested.bib:1: entry r1",
            "braces nested 100001 deep",
        ),
    ];
    for (name, text, at, why) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let out = recommend()
            .args(["index", "--corpus"])
            .arg(&path)
            .arg("--out")
            .arg(dir.path().join("x.bin"))
            .assert()
            .code(2)
            .get_output()
            .clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(at) && err.contains(why), "{name}: {err}");
        assert!(!dir.path().join("x.bin").exists(), "{name} left an index");
    }
    // Ordinary abbreviations still expand, through a chain and with months.
    let fine = dir.path().join("fine.bib");
    std::fs::write(
        &fine,
        "@string{rl = {Reinforcement Learning}}\n@string{t = rl # { for Agents}}\n\
         @article{ok, title = t, month = jan, year = 2025}\n",
    )
    .unwrap();
    let c = load(&fine);
    assert_eq!(c.papers[0].title, "Reinforcement Learning for Agents");
    // An entry whose `crossref` names itself (found by the BibTeX fuzz target: the parser
    // followed it until its stack overflowed) is read without it.
    let own = dir.path().join("crossref.bib");
    std::fs::write(&own, "@misc{k, title = {A}, crossref = {k}, xdata = {k}}\n").unwrap();
    assert_eq!(load(&own).papers[0].title, "A");
}

#[test]
fn ids_are_taken_as_found_and_derived_when_missing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ids.jsonl");
    std::fs::write(
        &path,
        concat!(
            "{\"id\":\"arXiv:2503.14476\",\"title\":\"DAPO\"}\n",
            "{\"id\":\"2401.12345v2\",\"title\":\"Versioned\"}\n",
            "{\"id\":\"10.1145/3292500.3330701\",\"title\":\"By DOI\"}\n",
            "{\"id\":\"Smith 2020: Über\",\"title\":\"Free text id\"}\n",
            "{\"title\":\"No Id\", \"arxiv\":\"2505.16421v3\"}\n",
            "{\"title\":\"No Id Either\", \"doi\":\"https://doi.org/10.1/ABC\"}\n",
            "{\"title\":\"Agents 智能体\"}\n",
            "{\"title\":\"Agents 代理\", \"abstract\":\"same slug as the line above\"}\n",
        ),
    )
    .unwrap();
    let c = load(&path);
    let ids = paper_ids(&c);
    assert_eq!(
        ids,
        [
            "arXiv:2503.14476",
            "2401.12345v2",
            "10.1145/3292500.3330701",
            "Smith 2020: Über",
            "2505.16421",
            "10.1/abc",
            "agents",
            "agents-2",
        ]
    );
    assert_eq!(c.papers[0].arxiv.as_deref(), Some("2503.14476"));
    assert_eq!(c.papers[0].year, Some(2025));
    assert_eq!(c.papers[1].arxiv.as_deref(), Some("2401.12345"));
    assert_eq!(c.papers[5].doi.as_deref(), Some("10.1/ABC"));
    // Derived ids are stable: the same file gives the same ids.
    let again = load(&path);
    assert_eq!(
        again.papers.iter().map(|p| &p.id).collect::<Vec<_>>(),
        c.papers.iter().map(|p| &p.id).collect::<Vec<_>>()
    );
}

#[test]
fn a_directory_mixes_formats_and_skips_readmes() {
    let dir = tempfile::tempdir().unwrap();
    for f in ["zotero.bib", "spreadsheet.csv"] {
        std::fs::copy(fixture(f), dir.path().join(f)).unwrap();
    }
    std::fs::write(
        dir.path().join("mine.jsonl"),
        "{\"id\":\"mine\",\"title\":\"My Own Note On Agents\"}\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("README.md"), "# Not a reading list\n").unwrap();
    std::fs::write(dir.path().join("notes.json"), "{}").unwrap();
    let c = load(dir.path());
    assert_eq!(c.papers.len(), 4 + 3 + 1);
    let files: std::collections::BTreeSet<String> = c
        .origins
        .iter()
        .map(|(f, _)| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        files.into_iter().collect::<Vec<_>>(),
        ["mine.jsonl", "spreadsheet.csv", "zotero.bib"]
    );
    // Several paths mix too, and a forced format reads any extension.
    let txt = dir.path().join("export.txt");
    std::fs::copy(fixture("spreadsheet.csv"), &txt).unwrap();
    let forced = LoadOptions {
        format: Some(Format::Csv),
        ..LoadOptions::default()
    };
    let c = Corpus::load_with(std::slice::from_ref(&txt), &forced).unwrap();
    assert_eq!(c.papers.len(), 3);
    assert!(matches!(
        Corpus::load(&txt),
        Err(CorpusError::UnknownFormat { .. })
    ));
}

#[test]
fn bad_bytes_and_shapes_get_clear_messages_never_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    };
    // BOM + CRLF are fine in every format.
    for (name, text) in [
        (
            "bom.jsonl",
            "\u{feff}{\"title\":\"A\"}\r\n{\"title\":\"B\"}\r\n",
        ),
        ("bom.csv", "\u{feff}Title,Year\r\nA,2020\r\nB,2021\r\n"),
        (
            "bom.bib",
            "\u{feff}@misc{a,\r\n  title = {A},\r\n}\r\n@misc{b,\r\n  title = {B}\r\n}\r\n",
        ),
    ] {
        let c = load(&write(name, text.as_bytes()));
        let titles: Vec<&str> = c.papers.iter().map(|p| p.title.as_str()).collect();
        assert_eq!(titles, ["A", "B"], "{name}");
    }
    // A huge field names its key and line.
    let huge = format!(
        "{{\"title\":\"A\"}}\n{{\"title\":\"B\",\"abstract\":\"{}\"}}\n",
        "x".repeat(200_000)
    );
    let p = problems(
        &[write("huge.jsonl", huge.as_bytes())],
        &LoadOptions::default(),
    );
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(
        p[0].contains("huge.jsonl:2: `abstract` holds 200000 bytes"),
        "{}",
        p[0]
    );
    // Wrong JSON shapes and types.
    let p = problems(
        &[write(
            "types.jsonl",
            b"[1,2]\n{\"title\":\"T\",\"authors\":{\"x\":1}}\n{\"title\":\"U\",\"open_source\":\"maybe\"}\n",
        )],
        &LoadOptions::default(),
    );
    assert_eq!(p.len(), 3, "{p:?}");
    assert!(p[0].contains("types.jsonl:1: expected a JSON object"));
    assert!(p[1].contains("types.jsonl:2: `authors` must be text"));
    assert!(p[2].contains("types.jsonl:3: `open_source` \"maybe\""));
    // Control characters never reach the index.
    let p = problems(
        &[write("ctl.jsonl", b"{\"title\":\"A\\u0000B\"}\n")],
        &LoadOptions::default(),
    );
    assert!(p[0].contains("control character U+0000"), "{p:?}");
    // Invalid UTF-8: an error naming the file (exit 1 or 2), not a panic.
    let bad = write("latin1.csv", b"Title\nM\xfcller\n");
    recommend()
        .args(["list", "--corpus"])
        .arg(&bad)
        .assert()
        .failure()
        .stderr(contains("latin1.csv"))
        .stderr(contains("panicked").not());
    // A bib file of garbage, and an entry that never closes at the end of the file.
    for (name, text) in [
        (
            "garbage.bib",
            "@@@{{{,,,}}}\n@article{\n@misc(x, title=\"unterminated\n",
        ),
        (
            "eof.bib",
            "@misc{ok, title={Fine}}\n@article{last, title = {No end\n",
        ),
    ] {
        let out = recommend()
            .args(["list", "--corpus"])
            .arg(write(name, text.as_bytes()))
            .assert()
            .code(2)
            .get_output()
            .clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(name) && !err.contains("panicked"), "{err}");
    }
}

use predicates::prelude::PredicateBooleanExt;

/// `recommend --index INDEX ARGS` with the model, required to succeed; its stderr.
fn stderr_of(args: &[&str], index: &Path) -> String {
    ok_stderr(
        with_model(&mut recommend())
            .arg("--index")
            .arg(index)
            .args(args),
    )
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[test]
fn reindexing_embeds_only_new_or_changed_papers() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("list");
    std::fs::create_dir(&corpus).unwrap();
    std::fs::copy(fixture("zotero.bib"), corpus.join("zotero.bib")).unwrap();
    let index = dir.path().join("index.bin");
    let c = corpus.to_str().unwrap();

    let first = stderr_of(&["index", "--corpus", c], &index);
    assert!(first.contains("4 embedded, 0 vectors reused"), "{first}");
    let before = Index::load(&index).unwrap();
    let old: Vec<Vec<f32>> = (0..before.len())
        .map(|i| before.vector(i).to_vec())
        .collect();
    drop(before);

    // Unchanged: nothing to embed.
    let again = stderr_of(&["index", "--corpus", c], &index);
    assert!(again.contains("0 embedded, 4 vectors reused"), "{again}");

    // One new file, one changed abstract: those two are embedded, the rest reused as they were.
    std::fs::copy(fixture("spreadsheet.csv"), corpus.join("sheet.csv")).unwrap();
    let bib = std::fs::read_to_string(corpus.join("zotero.bib")).unwrap();
    std::fs::write(
        corpus.join("zotero.bib"),
        bib.replace("We survey \\emph{agentic}", "We review \\emph{agentic}"),
    )
    .unwrap();
    let third = stderr_of(&["index", "--corpus", c], &index);
    assert!(third.contains("4 embedded, 3 vectors reused"), "{third}");
    let after = Index::load(&index).unwrap();
    assert_eq!(after.len(), 7);
    let row = |id: &str| after.papers().iter().position(|p| p.id == id).unwrap();
    assert_eq!(
        after.vector(row("vaswaniAttentionAllYou2017")).to_vec(),
        old[0],
        "an unchanged paper keeps its vector bit for bit"
    );
    let survey = after
        .vector(row("mullerSurveyAgenticReinforcement2025"))
        .to_vec();
    assert!(
        cosine(&survey, &old[2]) < 0.9999,
        "the changed abstract was embedded again"
    );
    let fresh_sheet: Vec<Vec<f32>> = (0..after.len()).map(|i| after.vector(i).to_vec()).collect();
    drop(after);

    // The incremental result matches a build from scratch.
    let scratch = dir.path().join("scratch.bin");
    let full = stderr_of(&["index", "--corpus", c], &scratch);
    assert!(full.contains("7 embedded, 0 vectors reused"), "{full}");
    let s = Index::load(&scratch).unwrap();
    for (i, v) in fresh_sheet.iter().enumerate() {
        assert!(cosine(v, &s.vector(i).to_vec()) > 0.999, "paper {i}");
    }
}

#[test]
fn add_appends_a_file_and_a_failed_build_leaves_the_index_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("mine.bin");
    let bib = fixture("zotero.bib");
    let first = stderr_of(&["index", "--corpus", bib.to_str().unwrap()], &index);
    assert!(first.contains("4 embedded"), "{first}");

    let added = stderr_of(
        &["add", fixture("spreadsheet.csv").to_str().unwrap()],
        &index,
    );
    assert!(
        added.contains("papers added: 3, 7 in all; 3 embedded, 4 vectors reused"),
        "{added}"
    );
    let rows = ok_json(
        with_model(&mut recommend())
            .arg("--index")
            .arg(&index)
            .args(["--like", "7QX2WZ8M", "-k", "6", "--format", "json"]),
    );
    assert_eq!(
        rows.as_array().unwrap().len(),
        6,
        "an id found exactly, 6 others"
    );

    // Adding the same file again, or a broken one, changes nothing.
    let bytes = std::fs::read(&index).unwrap();
    with_model(&mut recommend())
        .arg("--index")
        .arg(&index)
        .args(["add", fixture("spreadsheet.csv").to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(contains("already part of the corpus"));
    with_model(&mut recommend())
        .arg("--index")
        .arg(&index)
        .args(["add", fixture("broken.bib").to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(contains("broken.bib:6: entry brokenEntry2023"));
    with_model(&mut recommend())
        .arg("--index")
        .arg(&index)
        .args(["index", "--corpus", fixture("broken.bib").to_str().unwrap()])
        .assert()
        .code(2);
    assert_eq!(std::fs::read(&index).unwrap(), bytes, "index untouched");
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name())
        .collect();
    assert_eq!(leftovers.len(), 1, "no temporary files left: {leftovers:?}");

    // Rebuilt where there is no corpus folder: from the corpus the index records (the list
    // and the file added), every vector reused.
    let rebuilt = ok_stderr(with_model(
        crate::support::recommend_in(dir.path()).args(["index", "--out", "mine.bin"]),
    ));
    assert!(
        rebuilt.contains("rebuilding mine.bin from the corpus it records")
            && rebuilt.contains("indexed 7 papers")
            && rebuilt.contains("0 embedded"),
        "{rebuilt}"
    );
}

#[test]
fn a_corpus_file_deleted_beside_the_others_makes_the_index_stale() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("mine.bin");
    let bib = dir.path().join("zotero.bib");
    let sheet = dir.path().join("sheet.csv");
    std::fs::copy(fixture("zotero.bib"), &bib).unwrap();
    std::fs::copy(fixture("spreadsheet.csv"), &sheet).unwrap();
    stderr_of(&["index", "--corpus", bib.to_str().unwrap()], &index);
    stderr_of(&["add", sheet.to_str().unwrap()], &index);
    let list = |code: i32| {
        let out = recommend()
            .arg("--index")
            .arg(&index)
            .arg("list")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(code), "{out:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    list(0);

    // Its papers would still be answered, from a file the user removed.
    std::fs::remove_file(&sheet).unwrap();
    let err = list(1);
    assert!(
        err.contains("sheet.csv was part of its corpus and is gone"),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "`recommend index --corpus {} --out {}`",
            bib.display(),
            index.display()
        )),
        "{err}"
    );

    // With no corpus file at hand the index travelled without its corpus: it answers.
    std::fs::remove_file(&bib).unwrap();
    list(0);
}

/// Seeded mutations of the fixtures (braces, quotes, escapes, `@`, control characters, cuts)
/// through the whole loader: every outcome is papers or located problems, never a panic.
#[test]
fn mutated_exports_never_panic() {
    let pieces = [
        "{", "}", "@", "\"", "\\", "\\'", "$", ",", "=", "\n", "@misc{", "ü", "#", "(", ")",
        "\r\n", "%", "\\\"{", "{\\", "\u{1f}", "\0", "\t",
    ];
    let dir = tempfile::tempdir().unwrap();
    let mut rng = recommend::bench::synthetic::Rng::new(7);
    for (name, ext) in [
        ("zotero.bib", "bib"),
        ("spreadsheet.csv", "csv"),
        ("arxiv-snapshot.jsonl", "jsonl"),
        ("zotero.ris", "ris"),
        ("papers.json", "json"),
    ] {
        let base: Vec<char> = std::fs::read_to_string(fixture(name))
            .unwrap()
            .chars()
            .collect();
        for round in 0..150 {
            let mut s = base.clone();
            for _ in 0..1 + rng.below(6) {
                let at = rng.below(s.len());
                match rng.below(3) {
                    0 => {
                        s.remove(at);
                    }
                    1 => {
                        for (k, c) in pieces[rng.below(pieces.len())].chars().enumerate() {
                            s.insert(at + k, c);
                        }
                    }
                    _ => {
                        let len = rng.below(40).min(s.len() - at);
                        s.drain(at..at + len);
                    }
                }
            }
            let path = dir.path().join(format!("m{round}.{ext}"));
            std::fs::write(&path, s.into_iter().collect::<String>()).unwrap();
            match Corpus::load(&path) {
                Ok(c) => assert!(!c.papers.is_empty()),
                Err(CorpusError::Invalid { problems }) => {
                    assert!(
                        problems.iter().all(|p| p.line > 0 && p.path == path),
                        "{problems:?}"
                    )
                }
                Err(CorpusError::Empty { .. }) => {}
                Err(e) => panic!("{name} round {round}: {e}"),
            }
        }
    }
}

/// Two lists that name one paper (one by its full title with an arXiv page, the other by its
/// short name with a versioned PDF link) give it once: every name finds it, both notes stay,
/// and `--like` never offers the paper as its own related work. Two names with one arXiv id
/// (a list's wrong link) stay two papers, with a warning naming both places; `--strict`
/// refuses a repeat under another name.
#[test]
fn one_paper_in_two_lists_is_one_paper_under_all_its_names() {
    let dir = tempfile::tempdir().unwrap();
    let lists = dir.path().join("lists");
    std::fs::create_dir(&lists).unwrap();
    std::fs::write(
        lists.join("a.jsonl"),
        concat!(
            r#"{"title": "TTRL: Test-Time Reinforcement Learning", "url": "https://arxiv.org/abs/2504.16084", "topic": "RL for single agents", "highlight": "majority vote of sampled answers as the reward on unlabeled test questions"}"#,
            "\n",
            r#"{"title": "R1-Searcher", "url": "https://arxiv.org/abs/2503.05592", "highlight": "two-stage RL that teaches a model to call a search engine"}"#,
            "\n",
            r#"{"title": "Search-R1", "url": "https://arxiv.org/abs/2503.09516", "highlight": "RL that interleaves reasoning with search engine calls"}"#,
            "\n",
        ),
    )
    .unwrap();
    std::fs::write(
        lists.join("b.jsonl"),
        concat!(
            r#"{"title": "TTRL", "link": "https://arxiv.org/pdf/2504.16084v2", "topic": "Mathematical agents", "highlight": "label-free self-training of reasoning models"}"#,
            "\n",
            r#"{"title": "ToRL", "link": "https://arxiv.org/abs/2503.05592", "highlight": "tool-integrated RL with a code interpreter"}"#,
            "\n",
            r#"{"title": "DAPO", "link": "https://arxiv.org/abs/2503.14476", "highlight": "decoupled clipping and dynamic sampling for long-CoT RL"}"#,
            "\n",
            r#"{"title": "ToRL", "link": "https://arxiv.org/abs/2503.05592", "highlight": "scaling tool-integrated RL from base models"}"#,
            "\n",
        ),
    )
    .unwrap();
    let c = Corpus::load_with(std::slice::from_ref(&lists), &LoadOptions::default()).unwrap();
    let titles: Vec<&str> = c.papers.iter().map(|p| p.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "TTRL: Test-Time Reinforcement Learning",
            "R1-Searcher",
            "Search-R1",
            "ToRL",
            "DAPO"
        ],
        "TTRL once, as first listed; ToRL kept beside the paper its link names"
    );
    let ttrl = &c.papers[0];
    assert_eq!(ttrl.aliases, ["TTRL"], "the short name finds the paper");
    assert_eq!(ttrl.topic, "RL for single agents");
    assert_eq!(
        ttrl.also_topics,
        ["Mathematical agents"],
        "its other section is kept"
    );
    assert!(
        ttrl.highlight.contains("majority vote") && ttrl.highlight.contains("label-free"),
        "both lists' notes: {:?}",
        ttrl.highlight
    );
    // ToRL listed again, with the same wrong link: a repeat of ToRL, not of R1-Searcher.
    let torl = c.papers.iter().find(|p| p.title == "ToRL").unwrap();
    assert!(
        torl.highlight.contains("code interpreter") && torl.highlight.contains("base models"),
        "{torl:?}"
    );
    let all = c.warnings.join("\n");
    assert!(
        all.contains("merged 2 repeated listing(s)")
            && all.contains("b.jsonl:1 (first at ")
            && all.contains("a.jsonl:1 as \"TTRL: Test-Time Reinforcement Learning\", the same arXiv 2504.16084)"),
        "{all}"
    );
    assert!(
        all.contains("kept 1 pair(s)")
            && all.contains("\"ToRL\" at ")
            && all.contains("b.jsonl:2 and \"R1-Searcher\" at ")
            && all.contains("a.jsonl:2 (arXiv 2503.05592)")
            && all.contains("probably wrong"),
        "{all}"
    );
    // A paper listed many times with long, different notes: the merged note stays within what
    // one field may hold, the first notes kept.
    let many = dir.path().join("many.jsonl");
    let lines: Vec<String> = (0..30)
        .map(|k| {
            serde_json::json!({
                "title": "Search-R1",
                "url": "https://arxiv.org/abs/2503.09516",
                "highlight": format!("note {k} {}", "x".repeat(9_000)),
            })
            .to_string()
        })
        .collect();
    std::fs::write(&many, lines.join("\n")).unwrap();
    let merged = load(&many);
    assert_eq!(merged.papers.len(), 1);
    let note = &merged.papers[0].highlight;
    assert!(
        note.len() <= 100_000 && note.starts_with("note 0 "),
        "{}",
        note.len()
    );
    // A user's own record may name its other sections too (a list, or text split at ';').
    let own = dir.path().join("own.jsonl");
    std::fs::write(
        &own,
        r#"{"title": "GiGPO", "topic": "Agentic RL", "also_topics": "Credit assignment; Web agents"}"#,
    )
    .unwrap();
    assert_eq!(
        load(&own).papers[0].also_topics,
        ["Credit assignment", "Web agents"]
    );
    let p = problems(std::slice::from_ref(&lists), &strict());
    assert_reported(&p, &["b.jsonl:1: repeats the paper at ", "a.jsonl:1"]);

    // The real binary on the real model: the short name resolves, the paper is not its own
    // neighbour, and no paper appears twice.
    let index = dir.path().join("index.bin");
    let err = stderr_of(&["index", "--corpus", lists.to_str().unwrap()], &index);
    assert!(err.contains("indexed 5 papers"), "{err}");
    let hits = ok_json(
        recommend()
            .arg("--index")
            .arg(&index)
            .args(["--like", "TTRL", "-k", "4", "--format", "json"]),
    );
    let hits = hits.as_array().unwrap();
    // Filed under both sections: a topic filter finds it under either.
    for section in ["single agents", "Mathematical"] {
        let listed = ok_json(
            recommend()
                .arg("--index")
                .arg(&index)
                .args(["list", "--topic", section, "--format", "json"]),
        );
        let ids: Vec<&str> = listed
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, [ttrl.id.as_str()], "{section}");
    }
    let ids: Vec<&str> = hits.iter().map(|h| h["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 4, "{ids:?}");
    assert!(!ids.contains(&ttrl.id.as_str()), "{ids:?}");
    let distinct: std::collections::HashSet<&&str> = ids.iter().collect();
    assert_eq!(distinct.len(), ids.len(), "{ids:?}");
}

/// A facets side file adds the user's own tags to the papers it names; every line naming no
/// paper, or not in the `id<TAB>tag;tag` shape, is reported at its `file:line`, all at once,
/// by the library and by `recommend index` (exit 2, nothing written).
#[test]
fn a_facets_file_tags_papers_and_reports_every_bad_line_at_once() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("list.jsonl"),
        "{\"id\":\"a\",\"title\":\"Agents That Browse\"}\n{\"id\":\"b\",\"title\":\"Agents That Code\"}\n",
    )
    .unwrap();
    let facets = dir.path().join("mine.facets");
    std::fs::write(
        &facets,
        "# my own tags\na\tweb agents; browsing\nghost\tx\nno tab\nb\tcoding\nb\tweb agents\n",
    )
    .unwrap();
    let found = problems(&[dir.path().to_path_buf()], &LoadOptions::default());
    let at: Vec<&str> = found.iter().filter_map(|p| p.split(": ").next()).collect();
    let name = facets.display().to_string();
    assert_eq!(
        at,
        vec![format!("{name}:3"), format!("{name}:4")],
        "{found:?}"
    );
    assert!(found.iter().any(|p| p.contains("\"ghost\"")), "{found:?}");
    std::fs::write(&facets, "a\tweb agents; browsing\nb\tcoding;web agents\n").unwrap();
    let c = load(dir.path());
    assert_eq!(by_id(&c, "a").keywords, vec!["web agents", "browsing"]);
    assert_eq!(by_id(&c, "b").keywords, vec!["coding", "web agents"]);

    std::fs::write(&facets, "ghost\tx\n").unwrap();
    let index = dir.path().join("i.bin");
    recommend()
        .args(["index", "--corpus"])
        .arg(dir.path())
        .arg("--index")
        .arg(&index)
        .assert()
        .code(2)
        .stderr(contains(format!("{name}:1")));
    assert!(!index.exists());
}

#[test]
fn a_merged_repeat_keeps_its_own_id_as_a_name_of_the_paper() {
    // Two files list one paper under two citation keys (a co-author's .bib): a probe found the
    // second key answering "no paper matches" once the listings were merged.
    let dir = tempfile::tempdir().unwrap();
    let mine = dir.path().join("mine.bib");
    let theirs = dir.path().join("coauthor.bib");
    std::fs::write(
        &mine,
        "@inproceedings{vaswani2017,\n  title = {Attention is All you Need},\n  year = {2017}\n}\n",
    )
    .unwrap();
    std::fs::write(
        &theirs,
        "@inproceedings{NIPS2017_3f5ee243,\n  title = {Attention is all you need},\n  \
         booktitle = {NeurIPS}\n}\n",
    )
    .unwrap();
    let corpus = Corpus::load_with(&[mine, theirs], &LoadOptions::default()).unwrap();
    assert_eq!(corpus.papers.len(), 1);
    let p = &corpus.papers[0];
    assert_eq!(p.id, "vaswani2017");
    assert!(p.aliases.iter().any(|a| a == "NIPS2017_3f5ee243"), "{p:?}");
    // An id the import made from the title is no name of its own.
    let md = dir.path().join("list.md");
    std::fs::write(
        &md,
        "## A\n- [Attention Is All You Need](https://arxiv.org/abs/1706.03762)\n\
         ## B\n- [Attention Is All You Need](https://arxiv.org/abs/1706.03762)\n",
    )
    .unwrap();
    let corpus = load(&md);
    assert_eq!(corpus.papers.len(), 1);
    assert!(
        corpus.papers[0].aliases.is_empty(),
        "{:?}",
        corpus.papers[0]
    );

    // Indexed, the one paper answers to its second key, and an empty answer says why.
    let index = dir.path().join("one.bin");
    with_model(&mut recommend())
        .args(["index", "--corpus"])
        .arg(dir.path().join("mine.bib"))
        .args(["--corpus"])
        .arg(dir.path().join("coauthor.bib"))
        .arg("--out")
        .arg(&index)
        .assert()
        .success();
    with_model(&mut recommend())
        .arg("--index")
        .arg(&index)
        .args(["like", "NIPS2017_3f5ee243"])
        .assert()
        .success()
        .stderr(contains("nothing else to relate them to"));
}
