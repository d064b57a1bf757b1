//! `recommend serve` as users meet it: the real binary on a free loopback port, real HTTP
//! requests, answers compared with the CLI's `--format json` for the same questions.
//!
//! The API tests need only `index.bin`; the search tests need the model (installed on first use,
//! or found through `RECOMMEND_MODEL_DIR`), which the server loads on a background thread.

use std::io::Read;
use std::net::TcpStream;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::server::Server;
use crate::support::{ok_json, recommend};

/// Requests as the tests send them.
impl Server {
    fn get(&self, target: &str) -> (u16, Value) {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build()
            .into();
        let mut r = agent
            .get(&format!("{}{target}", self.base))
            .call()
            .unwrap_or_else(|e| panic!("GET {target}: {e}"));
        let status = r.status().as_u16();
        let body = r.body_mut().read_to_string().unwrap();
        let json = serde_json::from_str(&body).unwrap_or(Value::String(body));
        (status, json)
    }
}

/// Percent-encode a query-string value.
fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn cli_json(args: &[&str]) -> Value {
    ok_json(recommend().args(args).args(["--format", "json"]))
}

/// The fields the CLI prints, from each record (the API adds links and the summary).
fn cli_fields(v: &Value) -> Vec<Value> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let mut r = r.clone();
            if let Some(o) = r.as_object_mut() {
                for extra in ["url", "arxiv", "code", "summary"] {
                    o.remove(extra);
                }
            }
            r
        })
        .collect()
}

fn shipped() -> &'static Path {
    Path::new("index.bin")
}

#[test]
fn the_api_answers_what_the_cli_answers() {
    let s = Server::start(shipped());
    let (code, health) = s.get("/healthz");
    assert_eq!(code, 200);
    assert_eq!(health["status"], "ok");
    assert_eq!(health["papers"].as_u64(), Some(141));

    // `target`'s answer, required to be the CLI's answer to `args` in the fields the CLI prints.
    let as_cli = |target: &str, args: &[&str]| {
        let (code, answer) = s.get(target);
        assert_eq!(code, 200, "{target}");
        assert_eq!(cli_fields(&answer), cli_fields(&cli_json(args)), "{target}");
        answer
    };
    let like = as_cli(
        "/api/like?title=WebAgent-R1&title=GRPO&unlike=PPO&k=7",
        &[
            "--like",
            "WebAgent-R1",
            "--like",
            "GRPO",
            "--unlike",
            "PPO",
            "-k",
            "7",
        ],
    );
    assert_eq!(like.as_array().unwrap().len(), 7);
    let first = &like[0];
    for key in [
        "rank",
        "id",
        "title",
        "score",
        "topic",
        "kind",
        "highlight",
        "why",
    ] {
        assert!(first.get(key).is_some(), "result lacks {key}: {first}");
    }

    as_cli(
        "/api/like?title=Search-R1&kind=method&open_source=true&k=5",
        &[
            "--like",
            "Search-R1",
            "--kind",
            "method",
            "--open-source",
            "-k",
            "5",
        ],
    );
    as_cli(
        &format!("/api/search?q={}&mode=lexical&k=5", enc("GRPO 强化学习")),
        &["search", "--mode", "lexical", "GRPO 强化学习", "-k", "5"],
    );

    let (code, path) = s.get("/api/path?like=Search-R1&n=5");
    assert_eq!(code, 200);
    assert_eq!(path, cli_json(&["path", "--like", "Search-R1", "-n", "5"]));
    let (code, between) = s.get("/api/path?like=GRPO&to=WebAgent-R1");
    assert_eq!(code, 200);
    assert_eq!(
        between,
        cli_json(&["path", "--like", "GRPO", "--to", "WebAgent-R1"])
    );
    // Numbered from 1, as a path without a destination is.
    for (i, s) in between.as_array().unwrap().iter().enumerate() {
        assert_eq!(s["step"], i + 1, "{between}");
    }

    let (code, topics) = s.get("/api/topics");
    assert_eq!(code, 200);
    assert_eq!(topics, cli_json(&["topics"]));

    let (code, page) = s.get("/api/papers?kind=survey&limit=3&offset=1");
    assert_eq!(code, 200);
    let all = cli_json(&["list", "--kind", "survey"]);
    assert_eq!(
        page["total"].as_u64(),
        Some(all.as_array().unwrap().len() as u64)
    );
    assert_eq!(
        page["papers"].as_array().unwrap()[..],
        all.as_array().unwrap()[1..4]
    );

    let (code, grpo) = s.get("/api/papers/grpo");
    assert_eq!(code, 200);
    assert_eq!(grpo["id"], "grpo");
    let (code, by_title) = s.get(&format!("/api/papers/{}", enc("WebAgent-R1")));
    assert_eq!(code, 200);
    assert!(by_title["title"].as_str().unwrap().contains("WebAgent-R1"));
}

/// `serve --feed` takes several files after one flag, as the README writes it; a file it
/// cannot read stops the start with its name (exit 2).
#[test]
fn serve_feed_takes_several_files() {
    let out = recommend()
        .args([
            "serve",
            "--port",
            "0",
            "--feed",
            "no-such-1.jsonl",
            "no-such-2.jsonl",
        ])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("cannot read no-such-1.jsonl"), "{err}");
    assert!(!err.contains("unexpected argument"), "{err}");
}

/// A paper whose id is its DOI is found at `/api/papers/<DOI>`, its `/` as it is or encoded.
#[test]
fn a_doi_id_is_found_with_its_slash() {
    let t = tempfile::tempdir().unwrap();
    let list = t.path().join("list.jsonl");
    std::fs::write(
        &list,
        "{\"title\":\"Human-level control through deep reinforcement learning\",\"doi\":\"10.1038/nature14236\"}\n\
         {\"title\":\"ReAct: Synergizing Reasoning and Acting in Language Models\"}\n",
    )
    .unwrap();
    let index = t.path().join("doi.bin");
    let mut cmd = recommend();
    crate::support::with_model(&mut cmd);
    cmd.args(["index", "--corpus"])
        .arg(&list)
        .arg("--out")
        .arg(&index)
        .assert()
        .success();
    let s = Server::start(&index);
    for target in [
        "/api/papers/10.1038/nature14236",
        "/api/papers/10.1038%2Fnature14236",
    ] {
        let (code, paper) = s.get(target);
        assert_eq!(code, 200, "{target}: {paper}");
        assert_eq!(paper["id"], "10.1038/nature14236");
    }
    let (code, body) = s.get("/api/papers/10.1038/nature00000");
    assert_eq!(code, 404, "{body}");
}

#[test]
fn bad_parameters_are_400_naming_the_parameter_and_unknown_papers_404() {
    let s = Server::start(shipped());
    for (target, parameter) in [
        ("/api/like?title=GRPO&k=0", "k"),
        ("/api/like?title=GRPO&k=101", "k"),
        ("/api/like?title=GRPO&k=ten", "k"),
        ("/api/like?title=GRPO&k=99999999999999999999999", "k"),
        ("/api/like?title=GRPO&mode=fast", "mode"),
        ("/api/like?title=GRPO&kind=poem", "kind"),
        ("/api/like?title=GRPO&open_source=maybe", "open_source"),
        ("/api/like?title=GRPO&topic=no-such-topic-anywhere", "topic"),
        ("/api/like?title=GRPO&colour=red", "colour"),
        ("/api/like?k=3", "title"),
        ("/api/search?k=3", "q"),
        ("/api/search?q=a&q=b", "q"),
        ("/api/search?q=%20%20", "q"),
        ("/api/path?n=3", "like"),
        ("/api/path?like=GRPO&n=0", "n"),
        ("/api/path?like=GRPO&n=51", "n"),
        ("/api/path?like=GRPO&to=grpo", "to"),
        ("/api/topics?k=0", "k"),
        ("/api/papers?limit=0", "limit"),
        ("/api/papers?offset=-1", "offset"),
        ("/api/like?title=%ff%fe", "title"),
        ("/api/search?q=%C3%28", "q"),
        ("/api/like?title=%ZZ", "title"),
        ("/api/search?k=3&q=100%", "q"),
    ] {
        let (code, body) = s.get(target);
        assert_eq!(code, 400, "{target}: {body}");
        assert_eq!(body["parameter"], parameter, "{target}: {body}");
        assert!(!body["error"].as_str().unwrap().is_empty(), "{target}");
    }
    let (code, body) = s.get(&format!("/api/search?q={}", "a".repeat(2001)));
    assert_eq!(
        (code, body["parameter"].as_str()),
        (400, Some("q")),
        "{body}"
    );
    let (code, body) = s.get("/api/like?title=GRPO&unlike=GRPO");
    assert_eq!(code, 400, "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("both liked and unliked")
    );

    // Unknown papers: 404, the parameter they came from, suggestions when there are any.
    let (code, body) = s.get("/api/like?title=zzqqxx-no-such-paper");
    assert_eq!(code, 404, "{body}");
    assert_eq!(body["parameter"], "title");
    assert!(body["suggestions"].is_array());
    let (code, body) = s.get("/api/like?title=GRPO&unlike=zzqqxx-no-such-paper");
    assert_eq!(
        (code, body["parameter"].as_str()),
        (404, Some("unlike")),
        "{body}"
    );
    let (code, body) = s.get("/api/path?like=GRPO&to=zzqqxx-no-such-paper");
    assert_eq!(
        (code, body["parameter"].as_str()),
        (404, Some("to")),
        "{body}"
    );
    let (code, body) = s.get("/api/papers/zzqqxx-no-such-paper");
    assert_eq!(
        (code, body["parameter"].as_str()),
        (404, Some("id")),
        "{body}"
    );
    // A near miss gets suggestions (the CLI's "did you mean").
    let (code, body) = s.get(&format!("/api/like?title={}", enc("Search R1 Agentic Web")));
    if code == 404 {
        assert!(
            !body["suggestions"].as_array().unwrap().is_empty(),
            "{body}"
        );
    }

    let (code, body) = s.get("/no/such/endpoint");
    assert_eq!(code, 404);
    assert!(body["error"].as_str().unwrap().contains("no such endpoint"));
}

#[test]
fn oversized_and_hostile_requests_never_break_the_server() {
    let s = Server::start(shipped());
    // A request target over the limit: 414, as JSON.
    let (code, body) = s.get(&format!("/api/search?q={}", "a".repeat(9000)));
    assert_eq!(code, 414, "{body}");
    assert!(body["error"].as_str().unwrap().contains("too long"));
    // Every refusal of the HTTP layer is JSON too: a target past hyper's own 64 KiB limit,
    // a megabyte of headers, a large announced body, another method.
    let long = format!(
        "GET /api/search?q={} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        "a".repeat(70_000)
    );
    let big = format!(
        "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\nConnection: close\r\n\r\n",
        "b".repeat(1 << 20)
    );
    let body = "POST /api/search?q=x HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000\r\nConnection: close\r\n\r\nabc";
    let post = "POST /api/search?q=x HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc";
    for (request, status) in [
        (long.as_str(), 414),
        (big.as_str(), 431),
        (body, 413),
        (post, 405),
    ] {
        let (code, json) = s.raw_response(request.as_bytes());
        assert_eq!(code, status, "{json}");
        assert!(json["error"].is_string(), "{status}: {json}");
    }
    // Odd query strings: never a 5xx, never a dead server.
    for target in [
        "/api/like?title=%FF%FE",
        "/api/like?title=%00",
        "/api/like?title=%",
        "/api/like?title=%zz&k=%",
        "/api/like?&&&=&title=GRPO",
        "/api/like?title",
        "/api/like?title=&k=",
        "/api/search?q=%E0%A4",
        "/api/search?q=%00%01%02&mode=lexical",
        "/api/search?q=%3Cscript%3E&mode=lexical",
        "/api/path?like=%F0%9F%98%80&n=1",
        "/api/papers/%FF",
        "/api/papers/..%2F..%2Fetc%2Fpasswd",
        "/api/papers?offset=18446744073709551615",
        "/api/topics?k=1",
        "/api/topics?k=100",
    ] {
        let (code, body) = s.get(target);
        assert!(code < 500, "{target}: {code} {body}");
    }
    for raw in [
        &b"GET /api/like?title=a b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"[..],
        b"GET /api/like?title=\xff\xfe HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        b"\x00\x01\x02 garbage\r\n\r\n",
        b"GET /healthz HTTP/1.1\r\nHost x\r\nConnection: close\r\n\r\n",
    ] {
        // Every error the server gives, hyper's refusals included, is JSON with `error`.
        let (code, json) = s.raw_response(raw);
        assert!(code < 500, "{raw:?}: {code}");
        if code >= 400 {
            assert!(json["error"].is_string(), "{raw:?}: {code} {json}");
        }
    }
    let (code, json) = s.raw_response(b"\x00\x01\x02 garbage\r\n\r\n");
    assert_eq!(code, 400, "{json}");
    let (code, _) = s.get("/healthz");
    assert_eq!(code, 200, "the server still answers");
}

#[test]
fn search_in_the_server_matches_the_cli_and_sigterm_stops_it() {
    let mut s = Server::start(shipped());
    s.wait_for_model();
    // Queries asked again, in the same and in the other mode: an answer from the query vectors
    // the server keeps is the CLI's, and one mode's vectors never answer another's.
    for (q, mode) in [
        ("用强化学习训练网页智能体", "hybrid"),
        ("multi-agent debate", "dense"),
        ("GRPO 的改进", "hybrid"),
        ("multi-agent debate", "hybrid"),
        ("用强化学习训练网页智能体", "dense"),
        ("GRPO 的改进", "hybrid"),
        ("multi-agent debate", "dense"),
    ] {
        let (code, got) = s.get(&format!("/api/search?q={}&mode={mode}&k=5", enc(q)));
        assert_eq!(code, 200, "{q}: {got}");
        let cli = cli_json(&["search", "--mode", mode, q, "-k", "5"]);
        assert_eq!(cli_fields(&got), cli_fields(&cli), "{q}");
    }
    // Graceful stop on SIGTERM: exit status 0.
    let status = terminated(&mut s);
    assert!(status.success(), "{status}");
    // Stopped while the model still loads: a clean exit too (a probe saw segfaults there).
    for _ in 0..3 {
        let status = terminated(&mut Server::start(shipped()));
        assert!(status.success(), "{status}");
    }
}

/// `s` sent SIGTERM, and how it ended (within 20 s).
fn terminated(s: &mut Server) -> std::process::ExitStatus {
    let pid = s.child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    let start = Instant::now();
    loop {
        if let Some(st) = s.child.try_wait().unwrap() {
            return st;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "still running");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_bad_address_is_a_usage_error_and_a_busy_port_a_runtime_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_recommend"))
        .args(["serve", "--addr", "not an address"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--addr"));
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_recommend"))
        .args(["serve", "--addr", &addr])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot listen on"));
}

/// A client that stalls never holds a connection: one that stops halfway through its request
/// head gets a JSON 408 and the connection closes; one that connects and sends nothing is
/// closed; requests that arrive in time are answered as ever. (The limit is 30 s; the test
/// hook shortens it.)
#[test]
fn a_stalled_client_is_answered_408_and_let_go() {
    let index = crate::support::root().join("index.bin");
    let index = index.to_str().unwrap();
    let s = Server::start_args_env(
        &["serve", "--addr", "127.0.0.1:0", "--index", index],
        &[("RECOMMEND_TEST_HEAD_TIMEOUT_MS", "500")],
    );
    let (code, body) = s.raw_response(b"GET /api/like?title=GRPO HTTP/1.1\r\nHost: x\r\n");
    assert_eq!(code, 408, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("in time"),
        "{body}"
    );
    // Closed, not timed out: a read that times out is an error here.
    let mut idle = TcpStream::connect(s.base.trim_start_matches("http://")).unwrap();
    idle.set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut out = String::new();
    idle.read_to_string(&mut out)
        .expect("the server closes an idle connection in time");
    assert_eq!(out, "", "an idle connection is closed");

    let (code, _) =
        s.raw_response(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assert_eq!(code, 200);
}

/// `--port N` is `--addr 127.0.0.1:N`; both at once is a usage error.
#[test]
fn port_listens_on_loopback_and_conflicts_with_addr() {
    let s = Server::start_args(&["serve", "--port", "0", "--index", "index.bin"]);
    assert!(s.base.starts_with("http://127.0.0.1:"), "{}", s.base);
    let (code, _) = s.get("/healthz");
    assert_eq!(code, 200);
    recommend()
        .args(["serve", "--port", "0", "--addr", "127.0.0.1:0"])
        .assert()
        .code(2);
}
