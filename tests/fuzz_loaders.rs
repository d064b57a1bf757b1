//! Property-based fuzzing of every loader of user input, in the normal test suite: index bytes,
//! corpus JSONL, JSON lists, RIS, BibTeX math, Markdown reading lists and query files. Each
//! target runs for a time budget (`RECOMMEND_FUZZ_SECS`, default 3 s) on inputs generated and,
//! on failure, shrunk by proptest; a panic fails the test with the smallest input found. Each target prints its
//! number of executions and its slowest one (`cargo test --release --test tests fuzz -- --nocapture`),
//! so a hang shows as a stuck test and a near-hang as a slow case.

use std::cell::Cell;
use std::fmt::Debug;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::sample::Index as Pick;
use proptest::test_runner::{Config, TestRunner};

use recommend::corpus::Paper;
use recommend::corpus::fields::known_keys;
use recommend::corpus::load::{parse_file, validate};
use recommend::engine::{self, Filters, Mode};
use recommend::index::{Index, Searcher};

fn budget() -> Duration {
    let secs = std::env::var("RECOMMEND_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .unwrap_or(3.0);
    Duration::from_secs_f64(secs)
}

/// Run `test` on values of `strategy` until the budget is spent; returns the executions.
fn fuzz<S>(name: &str, strategy: S, test: impl Fn(S::Value)) -> u64
where
    S: Strategy,
    S::Value: Debug,
{
    // A fresh runner (fresh random seed) per batch: a runner counts its cases across calls.
    let config = Config {
        cases: 256,
        failure_persistence: None,
        ..Config::default()
    };
    let runs = Cell::new(0u64);
    let slowest = Cell::new(Duration::ZERO);
    let started = Instant::now();
    while started.elapsed() < budget() {
        let result = TestRunner::new(config.clone()).run(&strategy, |v| {
            let t = Instant::now();
            test(v);
            runs.set(runs.get() + 1);
            slowest.set(slowest.get().max(t.elapsed()));
            Ok(())
        });
        if let Err(e) = result {
            panic!("fuzz {name}: {e}");
        }
    }
    eprintln!(
        "fuzz {name}: {} executions in {:.1} s, slowest {:.1} ms, no panic",
        runs.get(),
        started.elapsed().as_secs_f64(),
        slowest.get().as_secs_f64() * 1e3
    );
    assert!(runs.get() > 0);
    runs.get()
}

// ------------------------------------------------------------------ index bytes

/// A small valid index: the seed every mutation starts from.
fn seed_index() -> Vec<u8> {
    let (papers, vectors) = recommend::bench::synthetic::corpus(24, 8, 3, 11);
    let mut given = Some(vectors);
    let index = Index::build(papers, "papers.jsonl", "fuzz", &mut |_| {
        given.take().ok_or_else(|| "twice".to_string())
    })
    .unwrap();
    // With the optional link-strengths section, as every index users query has.
    let index = recommend::engine::plan::with_plan(index).unwrap();
    let index = recommend::engine::calibrated(index).unwrap();
    assert!(index.link_strengths().is_some());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.bin");
    index.save(&path).unwrap();
    std::fs::read(path).unwrap()
}

#[derive(Debug, Clone)]
struct Mutation {
    /// (in the header region?, where, new byte)
    edits: Vec<(bool, Pick, u8)>,
    /// Also write a little-endian u64 (section offsets and lengths are u64s and varints).
    word: Option<(Pick, u64)>,
    truncate: Option<Pick>,
    /// Recompute the checksum, as a forger would, so the decoder behind it is reached.
    fix_checksum: bool,
}

fn mutation() -> impl Strategy<Value = Mutation> {
    (
        prop::collection::vec((any::<bool>(), any::<Pick>(), any::<u8>()), 0..6),
        prop::option::of((any::<Pick>(), any::<u64>())),
        prop::option::weighted(0.1, any::<Pick>()),
        prop::bool::weighted(0.8),
    )
        .prop_map(|(edits, word, truncate, fix_checksum)| Mutation {
            edits,
            word,
            truncate,
            fix_checksum,
        })
}

fn apply(seed: &[u8], m: &Mutation) -> Vec<u8> {
    let mut b = seed.to_vec();
    for (header, at, byte) in &m.edits {
        let span = if *header { b.len().min(1024) } else { b.len() };
        b[at.index(span)] ^= byte;
    }
    if let Some((at, w)) = m.word {
        let i = at.index(b.len().min(1024) - 8);
        b[i..i + 8].copy_from_slice(&w.to_le_bytes());
    }
    if let Some(t) = m.truncate {
        b.truncate(t.index(b.len()));
    }
    if m.fix_checksum && b.len() >= 8 {
        let end = b.len() - 8;
        let crc = crc32fast::hash(&b[..end]);
        b[end..end + 4].copy_from_slice(&crc.to_le_bytes());
    }
    b
}

/// Use a loaded index the way the commands do.
fn exercise(index: Index) {
    let index = &Searcher::new(index);
    let papers = index.papers();
    assert_eq!(papers.len(), index.len());
    let _ = engine::resolve(index, "paper 3");
    let _ = engine::resolve(index, &papers[0].title);
    let hits = engine::related(index, &[0], &[], 5, Mode::Hybrid, &Filters::default());
    assert!(
        hits.iter()
            .all(|h| h.score.is_finite() && h.paper < index.len())
    );
    let v = index.vector(0).to_vec();
    let _ = index.similarities(&v);
    let _ = engine::search(
        index,
        "policy 强化学习",
        None,
        None,
        5,
        Mode::Lexical,
        &Filters::default(),
    );
}

#[test]
fn fuzz_index_bytes() {
    let seed = seed_index();
    exercise(Index::from_bytes(&seed).unwrap());
    let loaded = Cell::new(0u64);
    fuzz("index bytes", mutation(), |m| {
        let bytes = apply(&seed, &m);
        if let Ok(index) = Index::from_bytes(&bytes) {
            loaded.set(loaded.get() + 1);
            exercise(index);
        }
    });
    eprintln!(
        "fuzz index bytes: {} mutated indexes loaded and queried",
        loaded.get()
    );
    // Arbitrary bytes, too (most fail at the magic; some start with it).
    fuzz(
        "index bytes (random)",
        prop::collection::vec(any::<u8>(), 0..512).prop_map(|mut v| {
            if v.len() > 40 && v[0] & 1 == 0 {
                v[..8].copy_from_slice(b"RECIDX\0\0");
                v[8..12].copy_from_slice(&3u32.to_le_bytes());
            }
            v
        }),
        |bytes| {
            if let Ok(index) = Index::from_bytes(&bytes) {
                exercise(index);
            }
        },
    );
}

// ------------------------------------------------------------------ corpus JSONL

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z0-9-]{0,10}",
        "[A-Za-z .:/-]{0,30}",
        ".{0,20}",
        Just("强化学习 智能体".to_string()),
        Just("http://example.org/x".to_string()),
        Just("2505.16421".to_string()),
    ]
}

fn field() -> impl Strategy<Value = (String, serde_json::Value)> {
    use serde_json::{Value, json};
    let scalar = prop_oneof![
        text().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<bool>().prop_map(Value::from),
        Just(Value::Null),
        prop::collection::vec(text(), 0..3).prop_map(|v| json!(v)),
        prop::sample::select(vec![
            "survey",
            "method",
            "system",
            "benchmark",
            "dataset",
            "model",
            "x"
        ])
        .prop_map(Value::from),
        (1800u32..2200).prop_map(Value::from),
    ];
    // Every key the loader knows (but `id` and `title`, which each record sets), and one it
    // does not.
    let key = prop::sample::select(
        known_keys()
            .filter(|k| !matches!(*k, "id" | "title"))
            .chain(["unknown"])
            .collect::<Vec<_>>(),
    );
    (key.prop_map(String::from), scalar)
}

/// One line of a JSONL corpus: a record (ids from a small pool, so duplicates, ambiguous names
/// and `builds_on` cycles happen), broken JSON, or raw bytes (invalid UTF-8 included).
fn jsonl_line() -> impl Strategy<Value = Vec<u8>> {
    let ids = prop::sample::select(vec!["a", "b", "c", "d", "B", "", "a b"]);
    let record = (
        ids.clone(),
        text(),
        prop::collection::vec(field(), 0..5),
        prop::collection::vec(ids, 0..3),
    )
        .prop_map(|(id, title, fields, builds_on)| {
            let mut m = serde_json::Map::new();
            m.insert("id".into(), id.into());
            m.insert("title".into(), title.into());
            for (k, v) in fields {
                m.insert(k, v);
            }
            if !builds_on.is_empty() {
                m.insert("builds_on".into(), serde_json::json!(builds_on));
            }
            serde_json::to_vec(&m).unwrap()
        });
    prop_oneof![
        6 => record,
        1 => record_cut(),
        1 => prop::collection::vec(any::<u8>(), 0..40),
        1 => Just(Vec::new()),
    ]
}

fn record_cut() -> impl Strategy<Value = Vec<u8>> {
    (any::<Pick>(), ".{0,30}").prop_map(|(at, s)| {
        let whole = format!("{{\"id\":\"x\",\"title\":\"{s}\"}}").into_bytes();
        whole[..at.index(whole.len() + 1)].to_vec()
    })
}

fn load_bytes(name: &str, bytes: &[u8]) {
    let path = PathBuf::from(name);
    let Ok((papers, problems)) = parse_file(&path, bytes) else {
        return;
    };
    for p in &problems {
        assert!(p.line >= 1, "{p}");
    }
    let entries: Vec<((PathBuf, usize), Paper)> = papers
        .into_iter()
        .map(|(line, p)| ((path.clone(), line), p))
        .collect();
    let _ = validate(&entries);
}

#[test]
fn fuzz_corpus_jsonl() {
    fuzz(
        "corpus JSONL",
        prop::collection::vec(jsonl_line(), 0..12),
        |lines| load_bytes("corpus.jsonl", &lines.join(&b'\n')),
    );
}

// ------------------------------------------------------------------ Markdown

#[test]
fn fuzz_corpus_markdown() {
    let piece = prop_oneof![
        3 => prop::sample::select(vec![
            "# ", "## ", "### ", "#### ", "\n", "\n\n", "| ", " | ", " |", "|---|---|---|\n",
            "- ", "* ", "[", "](", ")", " - ", "[开源]", "[open source]", "Survey", "综述",
            "https://arxiv.org/abs/2505.16421", "`", "**", "\\|", "\r\n", "\u{feff}",
        ])
        .prop_map(|s| s.as_bytes().to_vec()),
        2 => text().prop_map(String::into_bytes),
        1 => prop::collection::vec(any::<u8>(), 0..8),
    ];
    fuzz(
        "corpus Markdown",
        prop::collection::vec(piece, 0..60),
        |pieces| load_bytes("list.md", &pieces.concat()),
    );
}

// ------------------------------------------------------------------ RIS, JSON lists, TeX math

#[test]
fn fuzz_corpus_ris() {
    let piece = prop_oneof![
        3 => prop::sample::select(vec![
            "TY  - JOUR\n", "ER  - \n", "ER  -\n", "TI  - ", "T1  -", "AU  - ", "AB  - ",
            "PY  - ", "DA  - 2017/06/12/\n", "DO  - 10.48550/arXiv.2501.12948\n",
            "UR  - https://arxiv.org/abs/2505.16421\n", "KW  - ", "ID  - ", "\n", "\r\n",
            "\u{feff}", ", ", "  - ", "-", "n.d.", "2024",
        ])
        .prop_map(|s| s.as_bytes().to_vec()),
        2 => text().prop_map(String::into_bytes),
        1 => prop::collection::vec(any::<u8>(), 0..8),
    ];
    fuzz(
        "corpus RIS",
        prop::collection::vec(piece, 0..60),
        |pieces| load_bytes("list.ris", &pieces.concat()),
    );
}

#[test]
fn fuzz_corpus_json_list() {
    // JSONL's records in a list (or under `papers`), with pieces of JSON syntax between them.
    let between = prop::sample::select(vec![
        ",\n",
        ",",
        "\n",
        "",
        "]",
        "[",
        "{",
        "}",
        "\"papers\": [",
    ]);
    fuzz(
        "corpus JSON list",
        (
            prop::collection::vec((jsonl_line(), between), 0..8),
            any::<bool>(),
        ),
        |(records, wrapped)| {
            let mut bytes = if wrapped {
                b"{\"papers\": [".to_vec()
            } else {
                b"[".to_vec()
            };
            for (record, between) in records {
                bytes.extend(record);
                bytes.extend(between.as_bytes());
            }
            load_bytes("list.json", &bytes);
        },
    );
}

#[test]
fn fuzz_bibtex_math() {
    let piece = prop_oneof![
        3 => prop::sample::select(vec![
            "$", "\\alpha", "\\frac", "\\sqrt", "\\mathcal", "\\ell", "\\", "{", "}", "^",
            "_", "(", ")", "n", " ", "ü", "\\,", "\\$", "\\{",
        ])
        .prop_map(str::to_string),
        1 => text(),
    ];
    fuzz(
        "BibTeX math",
        prop::collection::vec(piece, 0..30),
        |pieces| {
            let entry = format!("@article{{a,\n  title = {{{}}}\n}}\n", pieces.concat());
            load_bytes("math.bib", entry.as_bytes());
        },
    );
}

// ------------------------------------------------------------------ query files

fn papers() -> Vec<Paper> {
    let (papers, _) = recommend::bench::synthetic::corpus(30, 4, 3, 5);
    papers
}

#[test]
fn fuzz_query_files() {
    let corpus = papers();
    let line = prop_oneof![
        4 => text().prop_map(String::into_bytes),
        1 => prop::collection::vec(any::<u8>(), 0..30),
        1 => prop::sample::select(corpus.iter().map(|p| p.title.clone()).collect::<Vec<_>>())
            .prop_map(String::into_bytes),
        1 => (1990usize..2010).prop_map(|n| "x".repeat(n).into_bytes()),
    ];
    fuzz("query files", prop::collection::vec(line, 0..8), |lines| {
        let bytes = lines.join(&b'\n');
        if let Ok(queries) = engine::query_lines(&bytes) {
            for q in &queries {
                assert!(!q.is_empty() && !q.contains('\n') && q.trim() == q);
                match engine::resolve::resolve_match_in(&corpus, q) {
                    Ok(r) => assert!(r.paper < corpus.len()),
                    Err(engine::ResolveError::TooLong { chars }) => {
                        assert!(chars > engine::MAX_QUERY_CHARS)
                    }
                    Err(_) => {}
                }
            }
        }
    });
}

// ------------------------------------------------------------------ BibTeX

/// A BibTeX file from the grammar users' exports use: `@string` definitions that refer to
/// names defined before, after or by themselves (cycles and doubling chains included), `#`
/// concatenation, `@preamble` and `@comment` blocks, entries whose values are braced (nested to
/// random depths), quoted, numeric or abbreviations; then cut at a random byte, or mutated.
fn bibtex_file() -> impl Strategy<Value = Vec<u8>> {
    let name = prop::sample::select(vec!["a", "b", "c", "s0", "s1", "jan", "jmlr", "T"]);
    let atom = prop_oneof![
        3 => name.clone().prop_map(String::from),
        2 => text().prop_map(|t| format!("{{{t}}}")),
        1 => text().prop_map(|t| format!("\"{}\"", t.replace('"', ""))),
        1 => (0u32..3000).prop_map(|n| n.to_string()),
        1 => (1usize..90, text()).prop_map(|(d, t)| format!("{}{t}{}", "{".repeat(d), "}".repeat(d))),
        1 => (1usize..90).prop_map(|d| "{".repeat(d)),
        1 => Just("{\\\"u\\emph{x} $a_b$ \\{}".to_string()),
    ];
    let value = prop::collection::vec(atom, 1..5).prop_map(|parts| parts.join(" # "));
    let field_name = prop::sample::select(vec![
        "title",
        "author",
        "year",
        "abstract",
        "keywords",
        "eprint",
        "archiveprefix",
        "doi",
        "url",
        "journal",
        "groups",
        "crossref",
    ]);
    let block = prop_oneof![
        3 => (name, value.clone()).prop_map(|(n, v)| format!("@string{{{n} = {v}}}\n")),
        4 => (
            prop::sample::select(vec!["article", "misc", "inproceedings", "ARTICLE", "online"]),
            prop::sample::select(vec!["r1", "r2", "r1", "key with space", ""]),
            prop::collection::vec((field_name, value.clone()), 0..6),
            any::<bool>(),
        )
            .prop_map(|(kind, key, fields, paren)| {
                let body: Vec<String> = fields.iter().map(|(k, v)| format!("  {k} = {v}")).collect();
                let (open, close) = if paren { ('(', ')') } else { ('{', '}') };
                format!("@{kind}{open}{key},\n{}\n{close}\n", body.join(",\n"))
            }),
        1 => value.clone().prop_map(|v| format!("@preamble{{{v}}}\n")),
        1 => text().prop_map(|t| format!("@comment{{{t}}}\n% {t}\n")),
        1 => prop::collection::vec(any::<u8>(), 0..12).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
    ];
    (
        prop::collection::vec(block, 0..10),
        any::<Pick>(),
        any::<bool>(),
    )
        .prop_map(|(blocks, cut, whole)| {
            let text = blocks.concat().into_bytes();
            if whole {
                text
            } else {
                text[..cut.index(text.len() + 1)].to_vec()
            }
        })
}

#[test]
fn fuzz_corpus_bibtex() {
    fuzz("corpus BibTeX", bibtex_file(), |bytes| {
        load_bytes("library.bib", &bytes)
    });
}

// ------------------------------------------------------------------ CSV / TSV

#[test]
fn fuzz_corpus_delimited() {
    let cell = prop_oneof![
        4 => text(),
        1 => text().prop_map(|t| format!("\"{t}\"")),
        1 => text().prop_map(|t| format!("\"{t}")),
        1 => Just("\"a \"\"quoted\"\" b\"".to_string()),
        1 => Just("\u{feff}".to_string()),
    ];
    let header = prop::sample::select(vec![
        "title",
        "id",
        "abstract",
        "tags",
        "keywords",
        "categories",
        "year",
        "url",
        "authors",
        "title",
        "",
    ]);
    let file = (
        prop::collection::vec(header, 0..6),
        prop::collection::vec(prop::collection::vec(cell, 0..7), 0..8),
        prop::sample::select(vec![",", "\t"]),
        prop::sample::select(vec!["\n", "\r\n"]),
    );
    fuzz("corpus CSV/TSV", file, |(header, rows, sep, eol)| {
        let mut text = header.join(sep);
        for row in rows {
            text.push_str(eol);
            text.push_str(&row.join(sep));
        }
        let name = if sep == "," { "list.csv" } else { "list.tsv" };
        load_bytes(name, text.as_bytes());
    });
}

// ------------------------------------------------------------------ arXiv Atom / RSS

/// Feeds from the pieces arXiv's answers are made of (Atom and RSS elements, namespaces,
/// entities, CDATA, ids with and without versions), joined at random, cut at random.
#[test]
fn fuzz_arxiv_feeds() {
    let piece = prop_oneof![
        4 => prop::sample::select(vec![
            "<?xml version=\"1.0\"?>",
            "<feed xmlns=\"http://www.w3.org/2005/Atom\" xmlns:arxiv=\"http://arxiv.org/schemas/atom\">",
            "</feed>", "<entry>", "</entry>", "<id>http://arxiv.org/abs/2503.14476v2</id>",
            "<id>http://arxiv.org/abs/hep-th/9901001v1</id>", "<id>nonsense</id>",
            "<title>", "</title>", "<summary>", "</summary>", "<published>2026-12-02T09:41:57Z</published>",
            "<author><name>A B</name></author>", "<category term=\"cs.LG\"/>",
            "<arxiv:primary_category term=\"cs.CL\"/>", "<link href=\"http://arxiv.org/abs/1\"/>",
            "<rss version=\"2.0\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\">", "</rss>",
            "<channel>", "</channel>", "<item>", "</item>", "<link>https://arxiv.org/abs/2503.14476</link>",
            "<description>arXiv:2503.14476v1 Announce Type: new \nAbstract: x</description>",
            "<dc:creator>A, B</dc:creator>", "<![CDATA[ <b> ]]>", "&amp;", "&bogus;", "<", ">",
            "<html><body>", "<!DOCTYPE x [<!ENTITY e \"eeee\">]>", "&e;",
        ])
        .prop_map(|s| s.as_bytes().to_vec()),
        2 => text().prop_map(String::into_bytes),
        1 => (1usize..200).prop_map(|d| "<a>".repeat(d).into_bytes()),
        1 => prop::collection::vec(any::<u8>(), 0..8),
    ];
    fuzz(
        "arXiv Atom/RSS",
        (prop::collection::vec(piece, 0..40), any::<Pick>()),
        |(pieces, cut)| {
            let bytes = pieces.concat();
            let bytes = &bytes[..cut.index(bytes.len() + 1)];
            let text = String::from_utf8_lossy(bytes);
            if let Ok(feed) = recommend::corpus::arxiv::parse(&text) {
                for e in &feed.entries {
                    assert!(!e.arxiv.is_empty() && !e.title.is_empty());
                    let _ = recommend::corpus::fields::map_record(
                        &e.to_record(),
                        recommend::corpus::fields::Origin::Json,
                    );
                }
            }
            load_bytes("feed.atom", bytes);
        },
    );
}

// ------------------------------------------------------------------ the feed's state

/// The feed's state file and vector cache from mutated valid ones and from random bytes:
/// loading never panics; a state file either loads whole or is refused (never half-read).
#[test]
fn fuzz_feed_state_files() {
    use recommend::feed::state::{Cache, Rating, State, Verdict, text_key};
    let dir = tempfile::tempdir().unwrap();
    let mut state = State::new("m");
    state.ratings.insert(
        "2501.00001".into(),
        Rating {
            verdict: Verdict::Up,
            title: "A paper".into(),
            vector: vec![0.25; 4],
            date: "2026-12-03".into(),
        },
    );
    let good_state = serde_json::to_vec(&state).unwrap();
    let cache_file = dir.path().join("seed.bin");
    let mut cache = Cache::load(&cache_file, "m", 4).0;
    cache.vectors.insert(text_key("x"), vec![0.5; 4]);
    cache.save(&cache_file).unwrap();
    let good_cache = std::fs::read(&cache_file).unwrap();
    let mutated = |seed: Vec<u8>| {
        (
            prop::collection::vec((any::<Pick>(), any::<u8>()), 0..6),
            prop::option::of(any::<Pick>()),
            prop::collection::vec(any::<u8>(), 0..64),
            prop::bool::weighted(0.1),
        )
            .prop_map(move |(flips, cut, noise, raw)| {
                if raw {
                    return noise;
                }
                let mut b = seed.clone();
                for (at, x) in flips {
                    let i = at.index(b.len());
                    b[i] ^= x;
                }
                if let Some(c) = cut {
                    b.truncate(c.index(b.len() + 1));
                }
                b
            })
    };
    let path = dir.path().join("state.json");
    fuzz("feed state file", mutated(good_state), |bytes| {
        std::fs::write(&path, &bytes).unwrap();
        if let Ok(s) = State::load(&path, "m") {
            let dims: Vec<usize> = s.ratings.values().map(|r| r.vector.len()).collect();
            assert!(dims.windows(2).all(|w| w[0] == w[1]));
        }
    });
    let path = dir.path().join("cache.bin");
    fuzz("feed vector cache", mutated(good_cache), |bytes| {
        std::fs::write(&path, &bytes).unwrap();
        let (c, _) = Cache::load(&path, "m", 4);
        assert!(c.vectors.values().all(|v| v.len() == 4));
    });
}
