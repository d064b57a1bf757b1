//! Helpers shared by the integration tests: launching the real binary and reading what it
//! prints, the checkout's files, and a browser for the page tests.
//!
//! Each test crate compiles its own copy and uses a different subset, hence the
//! `allow(dead_code)`.
#![allow(dead_code)]

pub mod server;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;
use serde_json::Value;

/// The `recommend` binary, run from the checkout (the shipped `index.bin` and `corpus/`).
pub fn recommend() -> Command {
    Command::cargo_bin("recommend").unwrap()
}

/// The binary run in `dir`, with no `RECOMMEND_INDEX` from the environment and a timeout, so a
/// hang fails the test instead of stalling the suite.
pub fn recommend_in(dir: &Path) -> Command {
    let mut c = recommend();
    c.current_dir(dir)
        .env_remove("RECOMMEND_INDEX")
        .timeout(Duration::from_secs(120));
    c
}

/// Run `cmd`, require success, and return its stdout.
pub fn ok_stdout(cmd: &mut Command) -> Vec<u8> {
    cmd.assert().success().get_output().stdout.clone()
}

/// Run `cmd`, require success, and parse its stdout as JSON.
pub fn ok_json(cmd: &mut Command) -> Value {
    serde_json::from_slice(&ok_stdout(cmd)).expect("stdout is JSON")
}

/// `recommend ARGS --format json` from the checkout, as the list of records it prints.
pub fn json_rows(args: &[&str]) -> Vec<Value> {
    ok_json(recommend().args(args).args(["--format", "json"]))
        .as_array()
        .expect("a JSON list")
        .clone()
}

/// The checkout.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Copy the tree at `from` to `to`.
pub fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            fs::copy(e.path(), &dest).unwrap();
        }
    }
}

/// The number of papers of the shipped corpus, as the library loads it.
pub fn corpus_papers() -> usize {
    recommend::corpus::Corpus::load(&root().join("corpus"))
        .expect("the shipped corpus loads")
        .papers
        .len()
}

/// Chromium for the page tests: `$CHROMIUM` or /usr/bin/chromium; `None` (skip) when
/// `RECOMMEND_SKIP_BROWSER=1`. A missing browser fails loudly rather than passing silently.
pub fn chromium() -> Option<PathBuf> {
    if std::env::var("RECOMMEND_SKIP_BROWSER").is_ok_and(|v| v == "1") {
        return None;
    }
    let bin = std::env::var_os("CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    assert!(
        bin.exists(),
        "{} not found: install Chromium (`apt-get update && apt-get install -y chromium`), \
         set CHROMIUM=/path/to/chromium, or set RECOMMEND_SKIP_BROWSER=1 to skip the browser tests",
        bin.display()
    );
    Some(bin)
}
