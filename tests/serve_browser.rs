//! The page `recommend serve` answers at `/`, in headless Chromium against the real server:
//! a search (Chinese, hybrid), "more like this" and "reading path from here" (the links every
//! result carries are `#like=ID` / `#path=ID`; the page routes on the fragment, so loading
//! `/#like=ID` is what a click does), no script errors, and titles shown as text, never markup.
//!
//! Needs `/usr/bin/chromium` (or `CHROMIUM`). The search needs
//! the model (see tests/serve.rs).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use recommend::bench::synthetic;
use recommend::index::Index;

use crate::support::chromium;
use crate::support::server::Server;

/// Load `url` in headless Chromium and return (DOM after scripts ran, browser log).
fn dom(bin: &Path, url: &str) -> (String, String) {
    let profile = tempfile::tempdir().unwrap();
    let out_path = profile.path().join("stdout.txt");
    let err_path = profile.path().join("stderr.txt");
    let mut child = Command::new(bin)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=15000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(url)
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("chromium did not finish within 120 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    (
        String::from_utf8_lossy(&std::fs::read(&out_path).unwrap()).into_owned(),
        String::from_utf8_lossy(&std::fs::read(&err_path).unwrap()).into_owned(),
    )
}

fn attr<'a>(dom: &'a str, name: &str) -> Option<&'a str> {
    let at = dom.find(&format!("{name}=\""))? + name.len() + 2;
    dom[at..].split('"').next()
}

/// The page reached `done` with `min` results or more, and no script error.
fn check(dom: &str, log: &str, min: usize) {
    let head = &dom[..dom.len().min(3000)];
    assert_eq!(attr(dom, "data-errors"), Some("0"), "script errors:\n{log}");
    assert!(!log.contains("Uncaught"), "console errors:\n{log}");
    assert_eq!(attr(dom, "data-state"), Some("done"), "{head}");
    let n: usize = attr(dom, "data-results").unwrap().parse().unwrap();
    assert!(n >= min, "{n} results\n{head}");
}

fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[test]
fn the_page_searches_and_follows_more_like_this_and_reading_paths() {
    let bin = chromium();
    let s = Server::start(Path::new("index.bin"));
    s.wait_for_model();

    let (d, log) = dom(
        &bin,
        &format!("{}/#q={}", s.base, encode("用强化学习训练网页智能体")),
    );
    check(&d, &log, 10);
    assert!(d.contains("href=\"#like="), "no 'more like this' link");
    assert!(d.contains("more like this") && d.contains("reading path from here"));
    assert!(d.contains("why: "), "no reasons shown");
    assert!(d.contains("href=\"https://arxiv.org/"), "no paper links");
    // The search box holds the query it answered.
    assert!(d.contains("Search: 用强化学习训练网页智能体"));
    assert!(
        !d.contains("weak match</span>"),
        "an on-topic search is not a weak match"
    );

    // A search about another field: answered, every result marked, and the status says why.
    let (d, log) = dom(&bin, &format!("{}/#q={}", s.base, encode("股票价格预测")));
    check(&d, &log, 5);
    assert_eq!(
        d.matches("<li class=\"result weak\"").count(),
        attr(&d, "data-results").unwrap().parse::<usize>().unwrap(),
        "every result of a weak match is marked"
    );
    assert!(d.contains("weak match</span>"));
    assert!(d.contains("this list may have nothing on this query"));

    // Following the first result's "more like this" link.
    let like = d
        .split("href=\"#like=")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap()
        .to_string();
    let (d, log) = dom(&bin, &format!("{}/#like={like}", s.base));
    check(&d, &log, 10);
    assert!(d.contains("More like "));
    assert!(
        !d.contains(&format!("data-id=\"{like}\"")),
        "a paper is not related to itself"
    );

    // MedVR's related work: its close paper first, unmarked; the weak links after it marked.
    let (d, log) = dom(&bin, &format!("{}/#like=medvr", s.base));
    check(&d, &log, 10);
    let first = d.split("<li class=\"result").nth(1).unwrap_or("");
    assert!(
        first.starts_with("\" data-id=\"pyvision-rl\""),
        "{first:.80}"
    );
    assert!(
        d.matches("<li class=\"result weak\"").count() >= 3 && d.contains("weak link</span>"),
        "weak links not marked"
    );

    let (d, log) = dom(&bin, &format!("{}/#path={like}", s.base));
    check(&d, &log, 2);
    assert!(d.contains("Reading path from "));

    // An unknown paper shows the server's error, not a broken page.
    let (d, log) = dom(&bin, &format!("{}/#like=zzqqxx-nothing", s.base));
    assert_eq!(attr(&d, "data-errors"), Some("0"), "{log}");
    assert_eq!(attr(&d, "data-state"), Some("error"));
    assert!(d.contains("no paper matches"));

    let (d, log) = dom(&bin, &format!("{}/#topics", s.base));
    check(&d, &log, 2);
}

#[test]
fn titles_and_links_are_data_never_markup() {
    let bin = chromium();
    let dir = tempfile::tempdir().unwrap();
    let (mut papers, vectors) = synthetic::corpus(60, 384, 4, 5);
    papers[1].title = "<img src=x onerror=\"document.body.dataset.pwned=1\"> a < b && c".into();
    papers[1].url = Some("javascript:document.body.dataset.pwned=1".into());
    papers[1].highlight = "<script>document.body.dataset.pwned=1</script>".into();
    let mut given = Some(vectors);
    let index = Index::build(papers, "papers.jsonl", "test-model", &mut |_| {
        given.take().ok_or_else(|| "embedded twice".to_string())
    })
    .unwrap();
    // With its plan, as `recommend index` stores it (a session refuses an index without).
    let index = recommend::engine::plan::with_plan(index).unwrap();
    let path = dir.path().join("tricky.bin");
    index.save(&path).unwrap();
    let s = Server::start(&path);
    // A lexical search (no model needed) that finds the tricky paper.
    let (d, log) = dom(&bin, &format!("{}/#q=onerror%20img&mode=lexical", s.base));
    check(&d, &log, 1);
    assert!(!d.contains("data-pwned"), "markup from the data ran");
    assert!(
        !d.contains("href=\"javascript:"),
        "a javascript: link was made"
    );
    assert!(
        d.contains("a &lt; b &amp;&amp; c") || !d.contains("a < b"),
        "{d}"
    );
}

/// The Inbox page in Chromium: it draws the `--feed` candidates grouped by interest, each
/// with up / down buttons and "more like this", without script errors.
#[test]
fn the_inbox_page_draws_the_feed_with_its_buttons() {
    let bin = chromium();
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("library.bin");
    std::fs::copy(crate::support::root().join("index.bin"), &index).unwrap();
    let candidates = crate::support::root()
        .join("bench/corpora/abstracts/awesome-rl-ai-agents.jsonl")
        .display()
        .to_string();
    let s = Server::start_with(&index, &["--feed", &candidates]);
    let (dom, log) = dom(&bin, &format!("{}/inbox", s.base));
    assert!(!log.contains("Uncaught"), "console errors:\n{log}");
    assert_eq!(
        attr(&dom, "data-state"),
        Some("ready"),
        "{}",
        &dom[..dom.len().min(3000)]
    );
    let n: usize = attr(&dom, "data-results").unwrap().parse().unwrap();
    assert!(n >= 10, "{n} results");
    assert!(dom.matches("<h2>").count() >= 2, "grouped by interest");
    assert_eq!(dom.matches("class=\"up\"").count(), n);
    assert_eq!(dom.matches("class=\"down\"").count(), n);
    assert!(
        dom.contains("class=\"more\"") && dom.contains("href=\"/#like="),
        "more like this"
    );
}
