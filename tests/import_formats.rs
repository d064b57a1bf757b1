//! The other formats a researcher's own list comes in: RIS exports, JSON lists, `;`-separated
//! CSV from a European spreadsheet, UTF-16 text from Windows tools, and math in BibTeX titles;
//! each read as `recommend list --corpus FILE` shows it, and broken input refused at its
//! `file:line` with exit 2.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{err_text, jsonl, recommend};

const FIXTURES: &str = "tests/fixtures/import";

/// `recommend list --corpus PATH --format jsonl`, required to succeed: the records and stderr.
fn listed(path: &Path) -> (Vec<Value>, String) {
    let out = recommend()
        .args(["list", "--format", "jsonl", "--corpus"])
        .arg(path)
        .assert()
        .success()
        .get_output()
        .clone();
    (
        jsonl(&out.stdout),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `recommend list --corpus PATH`, required to exit 2 (an input problem): its stderr.
fn refused(path: &Path) -> String {
    let err = err_text(recommend().args(["list", "--corpus"]).arg(path), 2);
    assert!(!err.contains("panicked"), "{err}");
    err
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn titles(rows: &[Value]) -> Vec<&str> {
    rows.iter().map(|r| r["title"].as_str().unwrap()).collect()
}

#[test]
fn a_ris_export_becomes_papers() {
    let (rows, warnings) = listed(&Path::new(FIXTURES).join("zotero.ris"));
    assert_eq!(
        titles(&rows),
        [
            "Attention Is All You Need",
            "DeepSeek-R1: Incentivizing Reasoning Capability in LLMs via Reinforcement Learning",
            "Policy Gradient Methods, Revisited"
        ]
    );
    let attention = &rows[0];
    assert_eq!(
        attention["authors"],
        "Ashish Vaswani, Noam Shazeer, Łukasz Kaiser"
    );
    assert_eq!(
        attention["summary"],
        "The dominant sequence transduction models are based on complex recurrent or \
         convolutional neural networks that include an encoder and a decoder.",
        "a continuation line joins its field"
    );
    assert_eq!(attention["year"], 2017);
    assert_eq!(attention["arxiv"], "1706.03762", "from the arXiv address");
    assert_eq!(
        attention["keywords"],
        serde_json::json!([
            "Computer Science - Computation and Language",
            "Computer Science - Machine Learning"
        ])
    );
    let r1 = &rows[1];
    assert_eq!(r1["id"], "guo2025deepseek", "ID is the id");
    assert_eq!(r1["arxiv"], "2501.12948", "from arXiv's DOI");
    assert_eq!(r1["doi"], "10.48550/arXiv.2501.12948");
    assert_eq!(r1["year"], 2025);
    assert_eq!(rows[2]["summary"], "A chapter on policy gradients.");
    assert_eq!(rows[2]["id"], "policy-gradient-methods-revisited");
    // What was left out is said, with the RIS tags and places.
    assert!(
        warnings.contains("T2 (1, first at tests/fixtures/import/zotero.ris:1)")
            && warnings.contains("PB (1, first at tests/fixtures/import/zotero.ris:24)"),
        "{warnings}"
    );
    assert!(
        warnings.contains("without a title") && warnings.contains("zotero.ris:31"),
        "{warnings}"
    );
}

#[test]
fn a_ris_file_with_bom_crlf_and_terse_hyphens_reads_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(Path::new(FIXTURES).join("zotero.ris")).unwrap();
    let windows = format!(
        "\u{feff}{}",
        text.replace("  - ", "  -").replace('\n', "\r\n")
    );
    let (rows, _) = listed(&write(dir.path(), "windows.ris", windows.as_bytes()));
    let (plain, _) = listed(&Path::new(FIXTURES).join("zotero.ris"));
    assert_eq!(rows, plain);
    // Tags in lower case are the same tags, never text glued to the line before.
    let lower: String = text
        .lines()
        .map(|l| match l.get(..2) {
            Some(t) if l.get(2..5) == Some("  -") => format!("{}{}\n", t.to_lowercase(), &l[2..]),
            _ => format!("{l}\n"),
        })
        .collect();
    assert_ne!(lower, text);
    let (rows, _) = listed(&write(dir.path(), "lower.ris", lower.as_bytes()));
    assert_eq!(rows, plain);
}

#[test]
fn broken_ris_is_refused_at_its_lines() {
    let dir = tempfile::tempdir().unwrap();
    let err = refused(&write(
        dir.path(),
        "broken.ris",
        b"Exported by a tool\nTI  - stray\nTY  - JOUR\nTI  - Fine\nER  - \n\
          TY  - JOUR\nTI  - Undated\nPY  - n.d.\nER  - \n\
          TY  - JOUR\nTI  - Cut short\nAU  - Someone, A.\n",
    ));
    assert!(
        err.contains("broken.ris:1: \"Exported by a tool\" is outside an entry"),
        "{err}"
    );
    assert!(!err.contains("broken.ris:2:"), "one report a run: {err}");
    assert!(
        err.contains("broken.ris:8: `PY` \"n.d.\" holds no year"),
        "{err}"
    );
    assert!(
        err.contains("broken.ris:10: this entry has no `ER  - ` line before the end of the file"),
        "{err}"
    );
    // Under --strict an untitled entry is an error at its TY line.
    let untitled = write(dir.path(), "untitled.ris", b"TY  - GEN\nAB  - x\nER  - \n");
    let err = err_text(
        recommend()
            .args(["list", "--strict", "--corpus"])
            .arg(&untitled),
        2,
    );
    assert!(err.contains("untitled.ris:1: record has no title"), "{err}");
}

#[test]
fn a_directory_reads_its_ris_files_and_not_its_json_notes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        Path::new(FIXTURES).join("zotero.ris"),
        dir.path().join("zotero.ris"),
    )
    .unwrap();
    std::fs::copy(
        Path::new(FIXTURES).join("papers.json"),
        dir.path().join("provenance.json"),
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("more")).unwrap();
    std::fs::write(dir.path().join(".DS_Store"), b"").unwrap();
    let (rows, warnings) = listed(dir.path());
    assert_eq!(rows.len(), 3, "the RIS papers only: {rows:?}");
    // What it holds and does not read is named, hidden files aside.
    assert!(
        warnings.contains(&format!(
            "note: {}: not read: more/, provenance.json (a directory reads",
            dir.path().display()
        )),
        "{warnings}"
    );
    assert!(!warnings.contains("DS_Store"), "{warnings}");
}

#[test]
fn a_json_list_is_read_as_records() {
    let (rows, _) = listed(&Path::new(FIXTURES).join("papers.json"));
    assert_eq!(
        titles(&rows),
        [
            "ReAct: Synergizing Reasoning and Acting in Language Models",
            "Toolformer: Language Models Can Teach Themselves to Use Tools"
        ]
    );
    assert_eq!(rows[0]["id"], "react");
    assert_eq!(rows[0]["authors"], "Shunyu Yao, Jeffrey Zhao");
    assert_eq!(rows[0]["arxiv"], "2210.03629");
    assert_eq!(rows[1]["keywords"], serde_json::json!(["tools", "agents"]));

    let dir = tempfile::tempdir().unwrap();
    // An object holding the list under `papers` (or `items`), and JSONL in a `.json` file.
    for (name, text) in [
        (
            "wrapped.json",
            "{\n  \"source\": \"export\",\n  \"papers\": [\n    {\"title\": \"A\"},\n    \
             {\"title\": \"B\"}\n  ]\n}\n",
        ),
        (
            "items.json",
            "{\"items\": [{\"title\": \"A\"}, {\"title\": \"B\"}]}",
        ),
        ("lines.json", "{\"title\": \"A\"}\n{\"title\": \"B\"}\n"),
        (
            "bom.json",
            "\u{feff}[{\"title\": \"A\"},\r\n {\"title\": \"B\"}]\r\n",
        ),
    ] {
        let (rows, _) = listed(&write(dir.path(), name, text.as_bytes()));
        assert_eq!(titles(&rows), ["A", "B"], "{name}");
    }
    // An object with two lists: the first is read, and the other is named, never dropped
    // without a word.
    let two = write(
        dir.path(),
        "two.json",
        b"{\"papers\": [{\"title\": \"A\"}], \"items\": [{\"title\": \"B\"}, {\"title\": \"C\"}]}",
    );
    let (rows, err) = listed(&two);
    assert_eq!(titles(&rows), ["A"]);
    assert!(
        err.contains("two.json: read the list under \"papers\"; \"items\" (2 entries) not read"),
        "{err}"
    );
}

#[test]
fn a_broken_json_list_is_refused_at_the_line_of_its_record() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text, says) in [
        (
            "types.json",
            "[\n  {\"title\": \"A\"},\n  {\n    \"title\": \"B\",\n    \"authors\": {\"x\": 1}\n  }\n]\n",
            "types.json:3: `authors` must be text",
        ),
        (
            "syntax.json",
            "[\n  {\"title\": \"A\"},\n  {\n    \"title\": \"B\",\n    \"year\": \n  }\n]\n",
            "syntax.json:6: malformed JSON",
        ),
        (
            "number.json",
            "[\n  {\"title\": \"A\"},\n  3\n]\n",
            "number.json:3: expected a JSON object",
        ),
        (
            "comma.json",
            "[\n  {\"title\": \"A\"}\n  {\"title\": \"B\"}\n]\n",
            "comma.json:3: expected `,` or `]` after a record",
        ),
        (
            "open.json",
            "[\n  {\"title\": \"A\"},\n",
            "open.json:3: the list is never closed",
        ),
        (
            "object.json",
            "{\n  \"title\": \"A\",\n  \"year\": \n}\n",
            "object.json:4: malformed JSON",
        ),
        // A repeated key: serde_json would keep the last value and lose the first unsaid.
        (
            "twice.json",
            "[\n  {\"title\": \"A\"},\n  {\"title\": \"B\",\n   \"title\": \"C\"}\n]\n",
            "twice.json:4: the key \"title\" is given twice in one object",
        ),
        (
            "twice.jsonl",
            "{\"title\": \"A\"}\n{\"title\": \"B\", \"summary\": \"x\", \"summary\": \"y\"}\n",
            "twice.jsonl:2: the key \"summary\" is given twice",
        ),
        (
            "ris.json",
            "\nTY  - JOUR\nTI  - A\nER  - \nTY  - JOUR\nTI  - B\nER  - \n",
            "ris.json:2: not JSON: a .json file holds a list",
        ),
    ] {
        let err = refused(&write(dir.path(), name, text.as_bytes()));
        assert!(err.contains(says), "{name}: {err}");
        assert!(err.contains("error: 1 problem(s)"), "one problem: {err}");
    }
}

#[test]
fn a_semicolon_separated_csv_is_read_with_semicolons() {
    let dir = tempfile::tempdir().unwrap();
    let (rows, _) = listed(&write(
        dir.path(),
        "excel.csv",
        b"Title;Year;Abstract\r\n\"Agents; a survey\";2024;\"Tools, memory; plans\"\r\nB;2021;x\r\n",
    ));
    assert_eq!(titles(&rows), ["Agents; a survey", "B"]);
    assert_eq!(rows[0]["summary"], "Tools, memory; plans");
    assert_eq!(rows[0]["year"], 2024);
    // A comma header keeps commas, whatever the cells hold.
    let (rows, _) = listed(&write(dir.path(), "comma.csv", b"Title,Keywords\nA,x;y\n"));
    assert_eq!(rows[0]["keywords"], serde_json::json!(["x", "y"]));
    let err = refused(&write(
        dir.path(),
        "long.csv",
        b"Title;Year\nA;2020;extra\n",
    ));
    assert!(
        err.contains("long.csv:2: row has 3 cells") && err.contains("unquoted semicolon"),
        "{err}"
    );
    // Excel's `sep=;` first line names the separator; the header is the line after it, and
    // lines keep their numbers.
    let excel = write(
        dir.path(),
        "excel.csv",
        b"sep=;\nTitle;Year\nA Paper; 2024\nBad Year;twenty\n",
    );
    let err = refused(&excel);
    assert!(err.contains("excel.csv:4:"), "{err}");
    let excel = write(
        dir.path(),
        "excel-ok.csv",
        b"sep=;\r\nTitle;Year\r\nA Paper;2024\r\n",
    );
    let (rows, _) = listed(&excel);
    assert_eq!(titles(&rows), ["A Paper"]);
    assert_eq!(rows[0]["year"], 2024);
}

/// `text` as UTF-16 with its byte order mark.
fn utf16(text: &str, little: bool) -> Vec<u8> {
    let mut out = if little {
        vec![0xFF, 0xFE]
    } else {
        vec![0xFE, 0xFF]
    };
    for u in text.encode_utf16() {
        out.extend(if little {
            u.to_le_bytes()
        } else {
            u.to_be_bytes()
        });
    }
    out
}

#[test]
fn utf16_files_are_decoded() {
    let dir = tempfile::tempdir().unwrap();
    let tsv = "Title\tYear\r\nÜber Agents\t2024\r\n强化学习综述\t2025\r\n";
    let (rows, warnings) = listed(&write(dir.path(), "unicode.tsv", &utf16(tsv, true)));
    assert_eq!(titles(&rows), ["Über Agents", "强化学习综述"]);
    assert!(warnings.is_empty(), "{warnings}");
    let ris = "TY  - JOUR\nTI  - Big-Endian Paper\nER  - \n";
    let (rows, _) = listed(&write(dir.path(), "be.ris", &utf16(ris, false)));
    assert_eq!(titles(&rows), ["Big-Endian Paper"]);
    // Without a byte order mark (as some tools write UTF-16LE), either byte order.
    for (little, name) in [(true, "bare-le.tsv"), (false, "bare-be.tsv")] {
        let bare = utf16(tsv, little)[2..].to_vec();
        let (rows, _) = listed(&write(dir.path(), name, &bare));
        assert_eq!(titles(&rows), ["Über Agents", "强化学习综述"], "{name}");
    }
    // Broken UTF-16 is one message naming the file and the conversion.
    let mut cut = utf16("Title\nA\n", true);
    cut.push(b'x');
    let err = refused(&write(dir.path(), "cut.csv", &cut));
    assert!(
        err.contains("cut.csv:1: starts as UTF-16 but has an odd number of bytes")
            && err.contains("iconv -f UTF-16 -t UTF-8")
            && err.contains("1 problem(s)"),
        "{err}"
    );
}

#[test]
fn math_in_bibtex_titles_reads_as_text() {
    let dir = tempfile::tempdir().unwrap();
    let (rows, _) = listed(&write(
        dir.path(),
        "math.bib",
        br"@article{div,
  title = {Policy $\alpha$-divergence in $O(n^2)$ with $\ell_1$ and $\mathcal{O}(\sqrt{T})$ Regret},
  abstract = {Costs \$5 \ldots and $\epsilon$-greedy}
}
",
    ));
    assert_eq!(
        rows[0]["title"],
        "Policy α-divergence in O(n^2) with ℓ_1 and O(√T) Regret"
    );
    assert_eq!(rows[0]["summary"], "Costs $5 … and ε-greedy");
}

/// Zotero's "CSL JSON" export: name objects, a date-parts date, upper-case keys.
#[test]
fn a_csl_json_export_becomes_papers() {
    let dir = tempfile::tempdir().unwrap();
    let csl = r#"[
	{
		"id": "http://zotero.org/users/1/items/ABCD2345",
		"type": "article-journal",
		"title": "Attention Is All You Need",
		"container-title": "NeurIPS",
		"abstract": "The dominant sequence transduction models.",
		"DOI": "10.48550/arXiv.1706.03762",
		"URL": "http://arxiv.org/abs/1706.03762",
		"keyword": "attention, transformers",
		"author": [
			{"family": "Vaswani", "given": "Ashish"},
			{"family": "Berg", "given": "Pieter", "non-dropping-particle": "van der"},
			{"literal": "Google Brain"}
		],
		"issued": {"date-parts": [["2017", 6, 12]]}
	},
	{
		"id": "k2",
		"title": "A Paper With A Raw Date",
		"issued": {"raw": "Spring 2021"}
	}
]
"#;
    let (rows, warnings) = listed(&write(dir.path(), "zotero-csl.json", csl.as_bytes()));
    assert_eq!(
        rows[0]["authors"],
        "Ashish Vaswani, Pieter van der Berg, Google Brain"
    );
    assert_eq!(rows[0]["year"], 2017);
    assert_eq!(rows[0]["doi"], "10.48550/arXiv.1706.03762");
    assert_eq!(rows[0]["arxiv"], "1706.03762");
    assert_eq!(
        rows[0]["keywords"],
        serde_json::json!(["attention", "transformers"])
    );
    assert_eq!(rows[1]["year"], 2021);
    assert!(
        warnings.contains("type (1") && warnings.contains("container-title (1"),
        "{warnings}"
    );
    let err = refused(&write(
        dir.path(),
        "nameless.json",
        b"[\n  {\"title\": \"A\", \"author\": [{\"x\": 1}]}\n]\n",
    ));
    assert!(
        err.contains("nameless.json:2: `authors` holds a name without `family`"),
        "{err}"
    );
}

#[test]
fn a_format_forced_on_one_file_stays_with_that_file() {
    let dir = tempfile::tempdir().unwrap();
    // An EndNote or Web of Science export saved as .txt: RIS by `--corpus-format` only.
    let ris = std::fs::read_to_string(Path::new(FIXTURES).join("zotero.ris")).unwrap();
    let refs = write(dir.path(), "refs.txt", ris.as_bytes());
    let more = write(
        dir.path(),
        "more.json",
        br#"[{"title": "Reward Models for Web Agents", "year": 2025}]"#,
    );
    let index = dir.path().join("lib.bin");
    let run = |args: &[&str]| {
        let mut cmd = recommend();
        crate::support::with_model(&mut cmd)
            .arg("--index")
            .arg(&index)
            .args(args);
        cmd.output().unwrap()
    };
    let built = run(&[
        "index",
        "--corpus",
        refs.to_str().unwrap(),
        "--corpus-format",
        "ris",
    ]);
    assert!(built.status.success(), "{built:?}");
    // The JSON added later is read as JSON, and the recorded export still as RIS.
    let added = run(&["add", more.to_str().unwrap()]);
    assert!(added.status.success(), "{added:?}");
    let listed = run(&["list", "--format", "jsonl"]);
    assert!(listed.status.success(), "{listed:?}");
    let rows = jsonl(&listed.stdout);
    assert_eq!(rows.len(), 4, "{rows:?}");
    assert!(titles(&rows).contains(&"Reward Models for Web Agents"));

    // An edit of the export is checked by reading it as RIS again: stale, not unreadable.
    std::fs::write(
        &refs,
        ris.replace("Attention Is All You Need", "Attention Again"),
    )
    .unwrap();
    let stale = run(&["list"]);
    let err = String::from_utf8_lossy(&stale.stderr);
    assert_eq!(stale.status.code(), Some(1), "{err}");
    assert!(err.contains("is stale"), "{err}");
}

#[test]
fn zoteros_own_json_keeps_its_abstract_authors_and_tags() {
    let dir = tempfile::tempdir().unwrap();
    // As Zotero's API and Better BibTeX's JSON write an item.
    let export = br#"{"items": [{
        "itemType": "journalArticle",
        "title": "Reward Models for Web Agents",
        "abstractNote": "We train reward models that judge each step of a web agent.",
        "creators": [
            {"creatorType": "author", "firstName": "Ada", "lastName": "Lovelace"},
            {"creatorType": "editor", "firstName": "Some", "lastName": "Editor"},
            {"creatorType": "author", "name": "OpenAI"}
        ],
        "tags": [{"tag": "RLHF"}, {"tag": "reward models", "type": 1}],
        "date": "2024-05-01"
    }, {
        "title": "A Semantic Scholar record",
        "authors": [{"authorId": "1", "name": "Grace Hopper"}]
    }]}"#;
    let (rows, _) = listed(&write(dir.path(), "zotero.json", export));
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(
        rows[0]["summary"],
        "We train reward models that judge each step of a web agent."
    );
    assert_eq!(rows[0]["authors"], "Ada Lovelace, OpenAI");
    assert_eq!(rows[0]["year"], 2024);
    let keywords: Vec<&str> = rows[0]["keywords"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap())
        .collect();
    assert!(
        keywords.contains(&"RLHF") && keywords.contains(&"reward models"),
        "{keywords:?}"
    );
    assert_eq!(rows[1]["authors"], "Grace Hopper");
    // An API answer wraps its list under `data` (Semantic Scholar) or `results` (OpenAlex).
    for key in ["data", "results"] {
        let answer = format!(r#"{{"total": 1, "{key}": [{{"title": "Wrapped Paper"}}]}}"#);
        let (rows, _) = listed(&write(
            dir.path(),
            &format!("{key}.json"),
            answer.as_bytes(),
        ));
        assert_eq!(titles(&rows), ["Wrapped Paper"], "{key}");
    }
}

#[test]
fn a_repeated_listing_fills_in_what_the_first_lacks() {
    let dir = tempfile::tempdir().unwrap();
    let ris = b"TY  - JOUR\nTI  - Proximal Policy Optimization Algorithms\nDO  - 10.48550/arXiv.1707.06347\nER  - \n\
                TY  - JOUR\nTI  - Proximal Policy Optimization Algorithms\nDO  - 10.48550/arXiv.1707.06347\n\
                PY  - 2017\nAU  - Schulman, John\nKW  - policy gradient\nER  - \n";
    let (rows, warnings) = listed(&write(dir.path(), "dup.ris", ris));
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert!(warnings.contains("merged"), "{warnings}");
    assert_eq!(rows[0]["year"], 2017, "{:?}", rows[0]);
    assert_eq!(rows[0]["authors"], "John Schulman");
    assert_eq!(rows[0]["keywords"], serde_json::json!(["policy gradient"]));
    // Two years for one paper: the first is kept, and the disagreement is said.
    let ris = b"TY  - JOUR\nTI  - BERT\nDO  - 10.18653/v1/N19-1423\nPY  - 2019\nER  - \n\
                TY  - JOUR\nTI  - BERT\nDO  - 10.18653/v1/N19-1423\nPY  - 2018\nER  - \n";
    let (rows, warnings) = listed(&write(dir.path(), "years.ris", ris));
    assert_eq!(rows[0]["year"], 2019);
    assert!(
        warnings.contains("its year 2018 differs from the first's 2019, which is kept"),
        "{warnings}"
    );
}

/// A `tags` column of a user's own words is the list's own tags, every one of them: a few
/// that happen to be curated words (`memory`, `reasoning`) must not mark the list as curated,
/// which would switch its own tags and reciprocal neighbours off and read GPU memory as agent
/// memory. The build's plan says so, and a result names the tags it shares with the seed.
#[test]
fn a_users_tags_column_is_the_lists_own_even_where_it_uses_curated_words() {
    use crate::support::{ok_json, ok_stderr, recommend_in, with_model};
    let dir = tempfile::tempdir().unwrap();
    let tsv = "id\ttitle\tsummary\ttags\n\
        vllm\tEfficient Memory Management for LLM Serving with PagedAttention\tPaged KV cache for high-throughput serving.\tserving;memory\n\
        orca\tOrca: A Distributed Serving System for Transformer Models\tIteration-level scheduling of requests.\tserving;scheduling\n\
        zero\tZeRO: Memory Optimizations Toward Training Trillion Parameter Models\tPartitions optimizer state across devices.\tdistributed-training;memory\n\
        cot\tChain-of-Thought Prompting Elicits Reasoning in Large Language Models\tFew-shot exemplars with intermediate steps.\treasoning;prompting\n\
        sc\tSelf-Consistency Improves Chain of Thought Reasoning\tSample several paths and vote on the answer.\treasoning;prompting\n\
        sam\tSegment Anything\tA promptable segmentation model and a billion masks. 可提示的分割模型。\tsegmentation\n\
        unet\tU-Net: Convolutional Networks for Biomedical Image Segmentation\tEncoder-decoder with skip connections.\tsegmentation\n";
    let list = write(dir.path(), "mine.tsv", tsv.as_bytes());
    let (rows, err) = listed(&list);
    assert!(
        rows.iter()
            .all(|r| r.get("tags").is_none_or(|t| t == &serde_json::json!([]))),
        "{rows:?}"
    );
    assert_eq!(
        rows[0]["keywords"],
        serde_json::json!(["serving", "memory"])
    );
    assert!(
        err.contains("mine.tsv: `tags` read as the list's own keywords, all of them"),
        "{err}"
    );

    let built = ok_stderr(with_model(
        recommend_in(dir.path()).args(["index", "--corpus", "mine.tsv", "--out", "mine.bin"]),
    ));
    assert!(
        built.contains("0 with curated tags") && built.contains("own tags 0.8"),
        "{built}"
    );
    // A summary in Chinese counts as Chinese text (1 of the 7 papers).
    assert!(built.contains("14% with Chinese text"), "{built}");
    let plan = ok_json(
        recommend_in(dir.path()).args(["--index", "mine.bin", "show", "--plan", "-f", "json"]),
    );
    assert!(
        plan["related"]["own_tags"].as_f64().unwrap() > 0.0,
        "{plan}"
    );
    assert_eq!(plan["related"]["reciprocal"], true, "{plan}");
    let hits = ok_json(with_model(recommend_in(dir.path()).args([
        "--index", "mine.bin", "like", "sam", "-n", "1", "-f", "json",
    ])));
    assert_eq!(hits[0]["id"], "unet", "{hits}");
    assert!(
        hits[0]["why"]
            .as_str()
            .unwrap()
            .contains("both tagged 'segmentation'"),
        "{hits}"
    );
}

/// A title that says it is a survey makes a survey in JSON too, unless the record gives a
/// `kind` (so `--kind survey` and reading paths' foundations-first order see it).
#[test]
fn a_survey_title_makes_a_survey_in_every_format_unless_a_kind_is_given() {
    let dir = tempfile::tempdir().unwrap();
    let (rows, _) = listed(&write(
        dir.path(),
        "s.jsonl",
        "{\"title\": \"A Survey of Dense Retrieval\"}\n\
         {\"title\": \"Another Survey of Things\", \"kind\": \"method\"}\n\
         {\"title\": \"检索增强生成综述\"}\n"
            .as_bytes(),
    ));
    let kinds: Vec<&str> = rows.iter().map(|r| r["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["survey", "method", "survey"], "{rows:?}");
}
