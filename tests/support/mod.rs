//! Helpers shared by the integration tests: launching the real binary and reading what it
//! prints, the checkout's files, and a browser for the page tests.

pub mod map_fixture;
pub mod pg;
pub mod server;
pub mod zotero;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;
use serde_json::Value;

/// The `recommend` binary, run from the checkout (the shipped `index.bin` and `corpus/`).
pub fn recommend() -> Command {
    Command::cargo_bin("recommend").unwrap()
}

/// `cmd` with the model the environment names (`RECOMMEND_MODEL_DIR`) passed on, else the
/// checkout's (installed on first use).
pub fn with_model(cmd: &mut Command) -> &mut Command {
    if let Ok(dir) = std::env::var("RECOMMEND_MODEL_DIR") {
        cmd.env("RECOMMEND_MODEL_DIR", dir);
    }
    cmd
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

/// Run `cmd`, require exit code `code`, and return its stderr.
pub fn err_text(cmd: &mut Command, code: i32) -> String {
    String::from_utf8(cmd.assert().code(code).get_output().stderr.clone()).unwrap()
}

/// Run `cmd`, require success, and return its stdout as text.
pub fn ok_text(cmd: &mut Command) -> String {
    String::from_utf8(ok_stdout(cmd)).expect("stdout is UTF-8")
}

/// Run `cmd`, require success, and return its stderr (what a build reports).
pub fn ok_stderr(cmd: &mut Command) -> String {
    String::from_utf8_lossy(&cmd.assert().success().get_output().stderr).into_owned()
}

/// `recommend ARGS` from the checkout must exit 2 (an input error) with a stderr that contains
/// each of `says`.
pub fn refused(args: &[&str], says: &[&str]) {
    let err = err_text(recommend().args(args), 2);
    for s in says {
        assert!(err.contains(s), "recommend {args:?}: no {s:?} in: {err}");
    }
}

/// The JSON values of `out`, one a line (what `--batch` and `--queries` print).
pub fn jsonl(out: &[u8]) -> Vec<Value> {
    String::from_utf8(out.to_vec())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
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

/// Chromium for the page tests: `$CHROMIUM` or /usr/bin/chromium (`scripts/setup.sh` installs
/// it). There is no way to skip: a missing browser fails loudly rather than passing silently.
pub fn chromium() -> PathBuf {
    let bin = std::env::var_os("CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    assert!(
        bin.exists(),
        "{} not found: run scripts/setup.sh (it installs Chromium), or set CHROMIUM=/path/to/chromium",
        bin.display()
    );
    bin
}

/// The shipped index opened in-process, as every command opens it (no model is loaded until a
/// query needs one): for engine behaviour the binary adds nothing to.
pub fn session() -> recommend::session::Session {
    // The model directory the binary would use (`RECOMMEND_MODEL_DIR`, else the checkout's).
    recommend::session::Session::open(
        &root().join("index.bin"),
        recommend::model::default_model_dir(),
    )
    .expect("the shipped index opens")
}

/// The ids `--like SEEDS --unlike NEGATIVES -k TOP` ranks, best first, in-process.
pub fn related_ids(seeds: &[&str], negatives: &[&str], top: usize) -> Vec<String> {
    let s = session();
    let resolve = |names: &[&str]| -> Vec<usize> {
        names
            .iter()
            .map(|n| {
                recommend::engine::resolve::resolve(s.searcher(), n).expect("the name resolves")
            })
            .collect()
    };
    let q = recommend::session::QueryOptions {
        top,
        ..Default::default()
    };
    s.related(&resolve(seeds), &resolve(negatives), &q)
        .expect("related works")
        .into_iter()
        .map(|h| s.searcher().table().id(h.paper).to_string())
        .collect()
}

/// The text field `key` of every record of `rows` (panics when one lacks it).
pub fn texts<'a>(rows: &'a [Value], key: &str) -> Vec<&'a str> {
    rows.iter()
        .map(|r| {
            r[key]
                .as_str()
                .unwrap_or_else(|| panic!("{key} missing: {r}"))
        })
        .collect()
}

/// The first items of a list of `[id, title]` pairs (`builds_on_papers`, `built_on_by`).
pub fn pair_ids(list: &Value) -> Vec<&str> {
    list.as_array()
        .expect("a JSON list")
        .iter()
        .map(|p| p[0].as_str().expect("an id first"))
        .collect()
}

/// The ids `search TEXT -k TOP` (hybrid) ranks on session `s`, best first, in-process (the model
/// loads once per session, not once per query).
pub fn search_ids(s: &recommend::session::Session, text: &str, top: usize) -> Vec<String> {
    let q = recommend::session::QueryOptions {
        top,
        ..Default::default()
    };
    s.search(text, &q)
        .expect("search works")
        .into_iter()
        .map(|h| s.searcher().table().id(h.paper).to_string())
        .collect()
}
