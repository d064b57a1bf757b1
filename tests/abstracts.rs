//! `recommend index --abstracts` through the real binary and model against a local server
//! answering in the arXiv API's Atom format: a list of bare titles gains its papers' abstracts
//! (and with them what the papers do), a wrong link is caught by its title, the cache makes
//! later builds offline, and a failed fetch leaves the index as it was.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::{Arc, Mutex};

use crate::support::{err_text, ok_json, ok_stderr, recommend_in, with_model};

/// (arXiv id, arXiv's title, abstract) the fake API knows.
const KNOWN: &[(&str, &str, &str)] = &[
    (
        "2505.16421",
        "WebAgent-R1: Training Web Agents via End-to-End Multi-Turn Reinforcement Learning",
        "We train browsing agents with multi-turn reinforcement learning over zeppelin \
         timetables and airship booking sites, with asynchronous rollouts.",
    ),
    (
        "2503.09516",
        "Search-R1: Training LLMs to Reason and Leverage Search Engines with Reinforcement Learning",
        "A model learns to interleave reasoning with search engine calls, rewarded by outcome.",
    ),
    (
        "2401.00001",
        "A Survey of Protein Folding Benchmarks",
        "We review benchmarks of protein structure prediction.",
    ),
];

/// A server answering `id_list` queries with the [`KNOWN`] entries asked for, and the request
/// lines it saw.
fn fake_arxiv() -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            let mut line = String::new();
            let mut reader = BufReader::new(s.try_clone().unwrap());
            reader.read_line(&mut line).unwrap();
            // The rest of the head, so the client sees a whole exchange.
            let mut h = String::new();
            while reader.read_line(&mut h).is_ok_and(|n| n > 2) {
                h.clear();
            }
            log.lock().unwrap().push(line.clone());
            let ids = line
                .split("id_list=")
                .nth(1)
                .and_then(|r| r.split(['&', ' ']).next())
                .unwrap_or("");
            let mut body = String::from(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n<title>arXiv Query</title>\n",
            );
            for (id, title, summary) in KNOWN.iter().filter(|k| ids.split(',').any(|i| i == k.0)) {
                body.push_str(&format!(
                    "<entry><id>http://arxiv.org/abs/{id}v2</id><published>2025-05-22T17:00:00Z</published><title>{title}</title><summary>  {summary}\n</summary><author><name>A. Author</name></author></entry>\n"
                ));
            }
            body.push_str("</feed>\n");
            let _ = write!(
                s,
                "HTTP/1.1 200 OK\r\ncontent-type: application/atom+xml\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (format!("http://{addr}"), seen)
}

const LIST: &str = r#"{"title": "WebAgent-R1", "link": "https://arxiv.org/abs/2505.16421"}
{"title": "Search-R1: Training LLMs to Reason and Leverage Search Engines with RL", "link": "https://arxiv.org/abs/2503.09516v1"}
{"title": "Tool-Planner: Task Planning with Clusters across Multiple Tools", "link": "https://arxiv.org/abs/2401.00001"}
{"title": "A Paper arXiv Does Not Know", "link": "https://arxiv.org/abs/2401.99999"}
{"title": "A Paper Without a Link", "highlight": "kept as the list says"}
"#;

fn build(dir: &Path, api: &str, args: &[&str]) -> assert_cmd::Command {
    let mut c = recommend_in(dir);
    with_model(&mut c);
    c.env("RECOMMEND_ARXIV_URL", api)
        .args(["index", "--corpus", "list.jsonl", "--out", "lib.bin"])
        .args(args);
    c
}

#[test]
fn a_bare_title_list_gains_its_arxiv_abstracts_once_and_keeps_them_offline() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("list.jsonl"), LIST).unwrap();
    let (api, seen) = fake_arxiv();

    let err = ok_stderr(&mut build(d, &api, &["--abstracts"]));
    let requests = seen.lock().unwrap().clone();
    assert_eq!(requests.len(), 1, "one request for four ids: {requests:?}");
    for id in ["2505.16421", "2503.09516", "2401.00001", "2401.99999"] {
        assert!(requests[0].contains(id), "{id} asked: {requests:?}");
    }
    assert!(err.contains("3 abstract(s) fetched"), "{err}");
    assert!(err.contains("arXiv knows no paper for 1 id(s)"), "{err}");
    // The wrong link's abstract is named and left out; two papers are described.
    assert!(
        err.contains("tool-planner") && err.contains("A Survey of Protein Folding Benchmarks"),
        "{err}"
    );
    assert!(
        err.contains("2 of 5 papers described by their arXiv abstract"),
        "{err}"
    );
    assert!(d.join("lib.bin.abstracts.json").is_file());

    // What the abstract says finds the paper; the wrong link's abstract finds nothing.
    let search = |q: &str| {
        let mut c = recommend_in(d);
        with_model(&mut c);
        ok_json(c.args(["--index", "lib.bin", "search", q, "-f", "json"]))
    };
    let rows = search("zeppelin airship booking");
    assert_eq!(rows[0]["title"], "WebAgent-R1", "{rows}");
    let show = |t: &str| {
        let mut c = recommend_in(d);
        with_model(&mut c);
        ok_json(c.args(["--index", "lib.bin", "show", t, "-f", "json"]))
    };
    let wrong = show("Tool-Planner");
    assert_eq!(wrong["arxiv"], "2401.00001", "{wrong}");
    assert_eq!(wrong["summary"].as_str().unwrap_or(""), "", "{wrong}");
    assert!(
        show("Search-R1")["summary"]
            .as_str()
            .is_some_and(|s| s.starts_with("A model learns to interleave")),
        "whitespace collapsed"
    );
    assert_eq!(
        show("A Paper Without a Link")["highlight"],
        "kept as the list says"
    );

    // Rebuilt with the API unreachable: everything is cached (the unknown id too), no request.
    let closed = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let err = ok_stderr(&mut build(d, &format!("http://{closed}"), &["--abstracts"]));
    assert!(err.contains("2 of 5 papers described"), "{err}");
    assert!(!err.contains("fetching"), "{err}");
    // A plain rebuild reads the cache too, so the index keeps its abstracts.
    let err = ok_stderr(&mut build(d, &format!("http://{closed}"), &[]));
    assert!(err.contains("2 of 5 papers described"), "{err}");

    // The corpus file changes bytes but not papers: the freshness check reads it through the
    // cache as the build did, so queries still run.
    let mut text = std::fs::read_to_string(d.join("list.jsonl")).unwrap();
    text.push('\n');
    std::fs::write(d.join("list.jsonl"), text).unwrap();
    let mut c = recommend_in(d);
    with_model(&mut c);
    c.args(["--index", "lib.bin", "--like", "WebAgent-R1", "-f", "json"])
        .assert()
        .success();

    // A new paper with arXiv unreachable: exit 1 naming what to do; the index is untouched.
    let before = std::fs::read(d.join("lib.bin")).unwrap();
    std::fs::write(
        d.join("more.jsonl"),
        r#"{"title": "Another Paper", "link": "https://arxiv.org/abs/2502.00002"}"#,
    )
    .unwrap();
    let mut c = recommend_in(d);
    with_model(&mut c);
    let err = err_text(
        c.env("RECOMMEND_ARXIV_URL", format!("http://{closed}"))
            .args(["--index", "lib.bin", "add", "more.jsonl", "--abstracts"]),
        1,
    );
    assert!(
        err.contains("could not reach") && err.contains("without --abstracts"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(std::fs::read(d.join("lib.bin")).unwrap(), before);

    // A cache that is not one: exit 2, the file named with its repair.
    std::fs::write(d.join("lib.bin.abstracts.json"), "{\"format\": 1}").unwrap();
    let err = err_text(&mut build(d, &api, &["--abstracts"]), 2);
    assert!(
        err.contains("lib.bin.abstracts.json") && err.contains("delete it"),
        "{err}"
    );
    // The freshness check (the corpus changed bytes above) names the cache too, not the
    // corpus as stale.
    let mut c = recommend_in(d);
    with_model(&mut c);
    let err = err_text(c.args(["--index", "lib.bin", "--like", "WebAgent-R1"]), 2);
    assert!(
        err.contains("lib.bin.abstracts.json") && !err.contains("stale"),
        "{err}"
    );
}

#[test]
fn a_markdown_list_has_its_arxiv_links_read_in_their_spellings() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A list item, a table whose Link column holds the address, and host and path spellings
    // lists use (a bad-input probe found Markdown lists never fetched, and these skipped).
    std::fs::write(
        d.join("list.md"),
        "# Papers\n\n## Web agents\n\n\
         - [WebAgent-R1](https://www.arxiv.org/abs/2505.16421/) - multi-turn RL for web agents\n\n\
         ## Search\n\n\
         | Title | Link |\n|---|---|\n\
         | Search-R1: Training LLMs to Reason and Leverage Search Engines with RL | [arXiv](https://export.arxiv.org/html/2503.09516v1?x=1) |\n\
         | A Paper Without a Link | - |\n",
    )
    .unwrap();
    let (api, seen) = fake_arxiv();
    let mut c = recommend_in(d);
    with_model(&mut c);
    let err = ok_stderr(c.env("RECOMMEND_ARXIV_URL", &api).args([
        "index",
        "--corpus",
        "list.md",
        "--out",
        "lib.bin",
        "--abstracts",
    ]));
    let requests = seen.lock().unwrap().clone();
    assert_eq!(requests.len(), 1, "{requests:?}");
    for id in ["2505.16421", "2503.09516"] {
        assert!(requests[0].contains(id), "{id} asked: {requests:?}");
    }
    assert!(
        err.contains("2 of 3 papers described by their arXiv abstract"),
        "{err}"
    );
    // An API address that is none is the user's to fix: exit 2 naming the variable, no request.
    for bad in ["127.0.0.1:8080", "not a url", "ftp://127.0.0.1/"] {
        let mut c = recommend_in(d);
        with_model(&mut c);
        let err = err_text(
            c.env("RECOMMEND_ARXIV_URL", bad).args([
                "index",
                "--corpus",
                "list.md",
                "--out",
                "other.bin",
                "--abstracts",
            ]),
            2,
        );
        assert!(err.contains("RECOMMEND_ARXIV_URL"), "{bad}: {err}");
    }
    assert!(!d.join("other.bin").exists());
}
