//! The PostgreSQL store against a real server (`support::pg`): `push`, `--store` queries and
//! `serve --store`, through the binary as users meet them; each test starts its own server.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use recommend::corpus::Paper;
use recommend::index::Index;
use serde_json::Value;

use crate::support::pg::{self, Pg};
use crate::support::{recommend, root};

/// A synthetic index of the papers `pick` chooses (by position) of a 16-dimensional synthetic
/// corpus of `n`, with `edit` applied to them, saved in `dir` as `name`. No model is needed.
fn synthetic_index(
    dir: &Path,
    name: &str,
    n: usize,
    pick: impl Fn(usize) -> bool,
    edit: impl Fn(usize, &mut Paper),
) -> PathBuf {
    let (papers, vectors) = recommend::bench::synthetic::corpus(n, 16, 9, 7);
    let (papers, vectors): (Vec<Paper>, Vec<Vec<f32>>) = papers
        .into_iter()
        .zip(vectors)
        .enumerate()
        .filter(|(i, _)| pick(*i))
        .map(|(i, (mut p, v))| {
            edit(i, &mut p);
            (p, v)
        })
        .unzip();
    let mut given = Some(vectors);
    let index = Index::build(papers, "papers.jsonl", "test-model", &mut |_| {
        given.take().ok_or_else(|| "embedded twice".to_string())
    })
    .expect("the synthetic index builds");
    // With its plan, as `recommend index` stores it (a session refuses an index without).
    let index = recommend::engine::plan::with_plan(index).expect("the plan is stored");
    let path = dir.join(name);
    index.save(&path).expect("the index saves");
    path
}

/// Two versions of a synthetic corpus of 40 in `dir`: `b.bin` is `a.bin` with `syn-1` renamed
/// "Renamed paper one" (which version a server answers from shows in that title).
fn renamed_pair(dir: &Path) -> (PathBuf, PathBuf) {
    let a = synthetic_index(dir, "a.bin", 40, |_| true, |_, _| {});
    let b = synthetic_index(
        dir,
        "b.bin",
        40,
        |_| true,
        |i, p| {
            if i == 0 {
                p.title = "Renamed paper one".into();
            }
        },
    );
    (a, b)
}

/// Two versions of a synthetic corpus of `n`, saved in `dir`: `a.bin` holds its first `first`
/// papers, `b.bin` all of them with `edit` applied (a later push: papers added, some changed).
fn versions(
    dir: &Path,
    n: usize,
    first: usize,
    edit: impl Fn(usize, &mut Paper),
) -> (PathBuf, PathBuf) {
    let a = synthetic_index(dir, "a.bin", n, |i| i < first, |_, _| {});
    (a, synthetic_index(dir, "b.bin", n, |_| true, edit))
}

/// An `edit` for [`synthetic_index`]: the papers at the positions in `which` get `suffix` added
/// to their titles (a changed paper, pushed again).
fn retitled(which: Range<usize>, suffix: &'static str) -> impl Fn(usize, &mut Paper) {
    move |i, p| {
        if which.contains(&i) {
            p.title.push_str(suffix);
        }
    }
}

/// `recommend ARGS` with a timeout, no index or store from the environment.
fn run(args: &[&str]) -> std::process::Output {
    run_with::<&str>(args, &[])
}

/// The binary without the libpq variables of the test's own environment ([`pg::LIBPQ_ENV`]).
fn bin() -> assert_cmd::Command {
    let mut cmd = recommend();
    for name in pg::LIBPQ_ENV {
        cmd.env_remove(name);
    }
    cmd
}

/// [`run`] with `env` set (and no other libpq variable of the test's own environment).
fn run_with<V: AsRef<std::ffi::OsStr>>(args: &[&str], env: &[(&str, V)]) -> std::process::Output {
    let mut cmd = bin();
    for name in ["RECOMMEND_INDEX", "RECOMMEND_STORE", "RECOMMEND_USER"] {
        cmd.env_remove(name);
    }
    cmd.envs(env.iter().map(|(k, v)| (k, v.as_ref())))
        .timeout(Duration::from_secs(300))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn ok(args: &[&str]) -> String {
    let out = run(args);
    assert!(
        out.status.success(),
        "recommend {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Push `index` to `url`, returning the push's report line (stderr).
fn push(index: &Path, url: &str) -> String {
    let out = run(&["--index", index.to_str().unwrap(), "push", "--to", url]);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "push failed: {err}");
    err
}

/// A failed command's exit code and stderr; the password never appears in it.
fn failure(args: &[&str]) -> (i32, String) {
    let out = run(args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!out.status.success(), "recommend {args:?} succeeded");
    assert!(
        !err.contains(pg::PASSWORD),
        "the password was printed: {err}"
    );
    assert!(!err.contains("panicked"), "a panic: {err}");
    (out.status.code().unwrap_or(-1), err)
}

/// A fresh server, a temp folder for index files and the server's URL for database `postgres`.
fn started() -> (Pg, tempfile::TempDir, String) {
    let pg = Pg::start();
    let url = pg.url("postgres");
    (pg, tempfile::tempdir().unwrap(), url)
}

/// The version the store has published (`recommend.meta`).
fn published_version(pg: &Pg) -> String {
    pg.value(
        "postgres",
        "SELECT value FROM recommend.meta WHERE key = 'version'",
    )
}

/// The store's `--like syn-7` answer as JSON: what a failed push must leave unchanged.
fn like_syn7(url: &str) -> String {
    ok(&["--store", url, "like", "syn-7", "-f", "json"])
}

/// The store tests are compiled as skipped only where no PostgreSQL is found: a build that
/// missed an install (or kept one that is gone) fails here rather than skip or fail every store
/// test.
#[test]
fn store_tests_are_skipped_only_where_postgresql_is_missing() {
    assert_eq!(
        needs_postgres::installed!(),
        pg::bin_dir().is_some(),
        "the store tests were built for another PostgreSQL install than this one (found: {:?}); \
         `touch tests/needs-postgres/build.rs` and run the tests again",
        pg::bin_dir()
    );
}

#[needs_postgres::test]
fn store_answers_equal_the_index_answers() {
    let pg = Pg::start();
    let url = pg.url("postgres");
    let index = root().join("index.bin");
    let index = index.to_str().unwrap();
    let report = push(Path::new(index), &url);
    assert!(report.contains("141 written"), "{report}");
    // What the store holds: every paper once, its terms, tags and topics, the HNSW index.
    assert_eq!(
        pg.value("postgres", "SELECT count(*) FROM recommend.papers"),
        "141"
    );
    let terms: usize = pg
        .value("postgres", "SELECT count(*) FROM recommend.terms")
        .parse()
        .unwrap();
    assert!(terms > 141 * 5, "{terms} terms");
    assert_ne!(
        pg.value("postgres", "SELECT count(*) FROM recommend.tags"),
        "0"
    );
    assert_ne!(
        pg.value("postgres", "SELECT count(*) FROM recommend.builds_on"),
        "0"
    );
    let hnsw = pg.value(
        "postgres",
        "SELECT indexdef FROM pg_indexes WHERE indexname = 'papers_embedding'",
    );
    assert!(
        hnsw.contains("hnsw (embedding vector_cosine_ops)"),
        "{hnsw}"
    );
    for args in [
        &["like", "GRPO"][..],
        &["like", "WebAgent-R1", "-n", "15"],
        &["like", "GRPO", "DAPO", "--unlike", "PPO", "-n", "5"],
        &["like", "Search-R1", "--kind", "method"],
        &["search", "--mode", "lexical", "GRPO"],
        &["search", "--mode", "lexical", "网页智能体"],
        &["search", "用强化学习训练网页智能体"],
        &[
            "search",
            "tool use with reinforcement learning",
            "--mode",
            "dense",
        ],
        &["show", "DAPO"],
        &["path", "Search-R1", "-n", "6"],
    ] {
        let from_file = ok(&[&["--index", index, "-f", "json"][..], args].concat());
        let from_store = ok(&[&["--store", &url, "-f", "json"][..], args].concat());
        assert_eq!(from_file, from_store, "{args:?}");
    }
    // A second push of the same index writes nothing and publishes nothing.
    let again = push(Path::new(index), &url);
    assert!(again.contains("nothing to write"), "{again}");
    assert_eq!(published_version(&pg), "1");
}

#[needs_postgres::test]
fn an_incremental_push_writes_only_new_and_changed_papers() {
    let (pg, dir, url) = started();
    let a = synthetic_index(dir.path(), "a.bin", 60, |i| i < 50, |_, _| {});
    // Three papers changed, one removed, two added.
    let b = synthetic_index(
        dir.path(),
        "b.bin",
        60,
        |i| i < 52 && i != 10,
        retitled(3..6, " (revised)"),
    );
    assert!(push(&a, &url).contains("50 written, 0 unchanged, 0 removed"));
    let report = push(&b, &url);
    assert!(
        report.contains("version 2, 51 papers (5 written, 46 unchanged, 4 removed)"),
        "{report}"
    );
    assert_eq!(
        pg.value("postgres", "SELECT count(*) FROM recommend.papers"),
        "51"
    );
    assert_eq!(
        pg.value(
            "postgres",
            "SELECT count(*) FROM recommend.papers WHERE record->>'title' LIKE '%(revised)'"
        ),
        "3"
    );
    // Evidence rows follow their paper.
    assert_eq!(
        pg.value(
            "postgres",
            "SELECT count(DISTINCT (key, digest)) FROM recommend.terms"
        ),
        "51"
    );
    let shown = ok(&["--store", &url, "show", "syn-4", "-f", "json"]);
    assert!(shown.contains("(revised)"), "{shown}");
}

#[needs_postgres::test]
fn a_failed_push_changes_no_answer() {
    let (pg, dir, url) = started();
    let (a, b) = versions(dir.path(), 1800, 600, retitled(0..600, " v2"));
    push(&a, &url);
    let before = like_syn7(&url);
    let plan = "SELECT value FROM recommend.meta WHERE key = 'plan_sha256'";
    let plan_before = pg.value("postgres", plan);
    // Two of the batches commit, then the push fails.
    let out = bin()
        .env("RECOMMEND_STORE_FAULT", "after-batch:2")
        .timeout(Duration::from_secs(300))
        .args(["--index", b.to_str().unwrap(), "push", "--to", &url])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("the store is as it was"), "{err}");
    assert_eq!(pg.value("postgres", plan), plan_before);
    assert_eq!(published_version(&pg), "1");
    assert_eq!(like_syn7(&url), before);
    // The next push completes, reusing the batches that were committed.
    let report = push(&b, &url);
    assert!(
        report.contains("1800 papers (800 written, 1000 unchanged, 600 removed)"),
        "{report}"
    );
    assert_ne!(like_syn7(&url), before);
}

#[needs_postgres::test]
fn a_push_while_another_runs_is_refused_and_changes_nothing() {
    // Two overlapping pushes removed each other's rows (a bad-input probe: a published version
    // left with half its papers, both pushes exiting 0).
    let (pg, dir, url) = started();
    let (a, b) = versions(dir.path(), 300, 200, retitled(0..50, " v2"));
    push(&a, &url);
    let before = like_syn7(&url);
    // Another push holds the store, as `recommend push` does for its whole run.
    let mut other = pg
        .try_connect("postgres")
        .expect("a session of the test's own");
    other
        .batch_execute("SELECT pg_advisory_lock(7339013)")
        .unwrap();
    let (code, err) = failure(&["--index", b.to_str().unwrap(), "push", "--to", &url]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("another `recommend push`"), "{err}");
    assert_eq!(published_version(&pg), "1");
    assert_eq!(like_syn7(&url), before);
    // Once it ends, the push goes through.
    drop(other);
    let report = push(&b, &url);
    assert!(report.contains("300 papers"), "{report}");
    assert_eq!(published_version(&pg), "2");
}

#[needs_postgres::test]
fn a_damaged_plan_is_repaired_by_pushing_the_index_again() {
    // The error says "push the index again"; a probe found that push a no-op (the store's
    // record of the plan's hash was trusted, not its rows).
    let (pg, dir, url) = started();
    let (a, _) = versions(dir.path(), 50, 50, |_, _| {});
    push(&a, &url);
    let before = like_syn7(&url);
    pg.sql(
        "postgres",
        "UPDATE recommend.plan SET body = overlay(body placing '\\xff'::bytea from 200 for 1)",
    );
    let (code, err) = failure(&["--store", &url, "like", "syn-7"]);
    assert_eq!(code, 1);
    assert!(err.contains("push the index again"), "{err}");
    push(&a, &url);
    assert_eq!(published_version(&pg), "2");
    assert_eq!(like_syn7(&url), before);
    // Once intact, the same push again writes nothing.
    let report = push(&a, &url);
    assert!(report.contains("nothing to write"), "{report}");
}

#[needs_postgres::test]
fn a_query_behind_another_sessions_lock_fails_in_bounded_time() {
    // A probe's `like` waited for ever behind an ACCESS EXCLUSIVE lock (an admin's DDL).
    let (pg, dir, url) = started();
    let (a, _) = versions(dir.path(), 50, 50, |_, _| {});
    push(&a, &url);
    let mut admin = pg
        .try_connect("postgres")
        .expect("a session of the test's own");
    admin
        .batch_execute("BEGIN; LOCK TABLE recommend.meta IN ACCESS EXCLUSIVE MODE")
        .unwrap();
    let (code, err) = failure(&["--store", &url, "like", "syn-7"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("waiting over 10 s for a lock"), "{err}");
    admin.batch_execute("COMMIT").unwrap();
    like_syn7(&url);
}

#[test]
fn a_server_that_takes_the_connection_and_never_answers_is_given_up_on() {
    // A probe's `like` and `push` waited for ever on such a server (a frozen PostgreSQL, or
    // another service on the port).
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in silent.incoming().flatten() {
            held.push(stream);
        }
    });
    let url = format!("postgres://ann:{}@127.0.0.1:{port}/papers", pg::PASSWORD);
    let (code, err) = failure(&["--store", &url, "like", "GRPO"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("did not answer within"), "{err}");
}

#[needs_postgres::test]
fn bad_stores_fail_clearly_without_the_password() {
    // The help shows that RECOMMEND_STORE is set, never its value.
    for args in [&["--help"][..], &["serve", "--help"][..]] {
        let out = recommend()
            .env(
                "RECOMMEND_STORE",
                format!("postgres://ann:{}@db/p", pg::PASSWORD),
            )
            .args(args)
            .output()
            .unwrap();
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(help.contains("RECOMMEND_STORE"), "{help}");
        assert!(!help.contains(pg::PASSWORD), "{help}");
    }
    let pg = Pg::start();
    let index = root().join("index.bin");
    let index = index.to_str().unwrap();
    let wrong = pg.url("postgres").replace(pg::PASSWORD, "not-the-password");
    let (code, err) = failure(&["--index", index, "push", "--to", &wrong]);
    assert_eq!(code, 1);
    assert!(err.contains("refused the login"), "{err}");
    assert!(!err.contains("not-the-password"), "{err}");
    // Nobody listens on a port just freed.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let unreachable = format!(
        "postgres://{}:{}@127.0.0.1:{closed}/x",
        pg::USER,
        pg::PASSWORD
    );
    let (code, err) = failure(&["--store", &unreachable, "like", "GRPO"]);
    assert_eq!(code, 1);
    assert!(err.contains("cannot reach PostgreSQL"), "{err}");
    let (code, err) = failure(&["--store", "mysql://somewhere", "like", "GRPO"]);
    assert_eq!(code, 2, "{err}");
    // A URL without a host is the URL's fault, not the network's.
    let hostless = format!("postgres://{}:{}@/papers", pg::USER, pg::PASSWORD);
    let (code, err) = failure(&["--index", index, "push", "--to", &hostless]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("names no host"), "{err}");
    // A database with no store yet.
    pg.create_db("empty", true);
    let (code, err) = failure(&["--store", &pg.url("empty"), "like", "GRPO"]);
    assert_eq!(code, 1);
    assert!(err.contains("holds no recommend store"), "{err}");
    // A first push that stopped before publishing: said so, with what to do.
    pg.create_db("half", true);
    let out = bin()
        .env("RECOMMEND_STORE_FAULT", "after-batch:1")
        .timeout(Duration::from_secs(300))
        .args(["--index", index, "push", "--to", &pg.url("half")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let (code, err) = failure(&["--store", &pg.url("half"), "like", "GRPO"]);
    assert_eq!(code, 1);
    assert!(err.contains("no published version yet"), "{err}");
    // A database without pgvector, owned by a user who may not create it.
    pg.sql(
        "postgres",
        &format!("CREATE ROLE lab LOGIN PASSWORD '{}'", pg::PASSWORD),
    );
    pg.sql("postgres", "CREATE DATABASE novector OWNER lab");
    let lab = format!(
        "postgres://lab:{}@127.0.0.1:{}/novector",
        pg::PASSWORD,
        pg.port
    );
    let (code, err) = failure(&["--index", index, "push", "--to", &lab]);
    assert_eq!(code, 1);
    assert!(err.contains("has no pgvector extension"), "{err}");
    // A database that does not exist is not a refused login; no password is not a down server.
    let (code, err) = failure(&["--store", &pg.url("nosuchdb"), "like", "GRPO"]);
    assert_eq!(code, 1);
    assert!(err.contains("has no such database"), "{err}");
    let (code, err) = failure(&[
        "--store",
        &pg.url_without_password("postgres"),
        "like",
        "GRPO",
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("no password for"), "{err}");
    // A role that may not read the store: said, not "run it again".
    pg.sql(
        "postgres",
        &format!("CREATE ROLE reader LOGIN PASSWORD '{}'", pg::PASSWORD),
    );
    let reader = format!(
        "postgres://reader:{}@127.0.0.1:{}/postgres",
        pg::PASSWORD,
        pg.port
    );
    push(Path::new(index), &pg.url("postgres"));
    let (code, err) = failure(&["--store", &reader, "like", "GRPO"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("running it again will not help") && err.contains("grant"),
        "{err}"
    );
    // A store of another schema version is refused by readers and writers.
    let url = pg.url("postgres");
    pg.sql(
        "postgres",
        "UPDATE recommend.meta SET value = '99' WHERE key = 'schema_version'",
    );
    for args in [
        vec!["--store", &url, "like", "GRPO"],
        vec!["--index", index, "push", "--to", &url],
    ] {
        let (code, err) = failure(&args);
        assert_eq!(code, 1);
        assert!(err.contains("schema version 99"), "{err}");
    }
    // --store on a command that writes files is a usage error.
    let (code, err) = failure(&["--store", &url, "index"]);
    assert_eq!(code, 2, "{err}");
}

#[needs_postgres::test]
fn the_password_comes_from_pgpassword_or_pgpass() {
    let pg = Pg::start();
    let url = pg.url_without_password("postgres");
    let index = root().join("index.bin");
    bin()
        .env("PGPASSWORD", pg::PASSWORD)
        .args(["--index", index.to_str().unwrap(), "push", "--to", &url])
        .assert()
        .success();
    let dir = tempfile::tempdir().unwrap();
    let pgpass = dir.path().join("pgpass");
    std::fs::write(
        &pgpass,
        format!("127.0.0.1:{}:*:{}:{}\n", pg.port, pg::USER, pg::PASSWORD),
    )
    .unwrap();
    // Readable by its owner alone, as libpq requires of it.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&pgpass, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    bin()
        .env_remove("PGPASSWORD")
        .env("PGPASSFILE", &pgpass)
        .args(["--store", &url, "like", "GRPO", "-f", "json"])
        .assert()
        .success();
}

#[needs_postgres::test]
fn libpq_environment_fills_in_what_the_url_leaves_out() {
    let (pg, dir, url) = started();
    let a = synthetic_index(dir.path(), "a.bin", 40, |_| true, |_, _| {});
    push(&a, &url);
    let port = pg.port.to_string();
    let show = |store: &str, env: &[(&str, &str)]| {
        let out = run_with(&["--store", store, "show", "syn-3", "-f", "json"], env);
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(
            !err.contains(pg::PASSWORD),
            "the password was printed: {err}"
        );
        (out.status.code().unwrap_or(-1), err)
    };
    let all = [
        ("PGHOST", "127.0.0.1"),
        ("PGPORT", port.as_str()),
        ("PGUSER", pg::USER),
        ("PGDATABASE", "postgres"),
        ("PGPASSWORD", pg::PASSWORD),
    ];
    for store in ["postgresql://", "postgres:///", "postgres:///postgres"] {
        let (code, err) = show(store, &all);
        assert_eq!(code, 0, "{store}: {err}");
    }
    // The URL wins over every variable: these name no server, database or user of this one.
    let elsewhere = [
        ("PGHOST", "192.0.2.1"),
        ("PGPORT", "1"),
        ("PGUSER", "nobody"),
        ("PGDATABASE", "nosuchdb"),
        ("PGSSLMODE", "require"),
        ("PGPASSWORD", pg::PASSWORD),
    ];
    let (code, err) = show(
        &format!("{}?sslmode=disable", pg.url_without_password("postgres")),
        &elsewhere,
    );
    assert_eq!(code, 0, "{err}");
    // PGPORT for a host the URL gives without a port.
    let hostonly = format!("postgres://{}@127.0.0.1/postgres", pg::USER);
    let (code, err) = show(&hostonly, &all[1..]);
    assert_eq!(code, 0, "{err}");
    // Bad settings and parameters name themselves: exit 2, before any connection.
    for (store, env, says) in [
        (
            hostonly.as_str(),
            ("PGPORT", "54x2"),
            "PGPORT=\"54x2\": not a port",
        ),
        (
            hostonly.as_str(),
            ("PGSSLMODE", "on"),
            "PGSSLMODE=\"on\": not a TLS mode",
        ),
        (
            &format!("{url}?sslmode=bogus"),
            ("", ""),
            "sslmode=\"bogus\", which is not",
        ),
        (&format!("{url}?foo=bar"), ("", ""), "the parameter \"foo\""),
        (
            &format!("{url}?sslrootcert=/ca.pem"),
            ("", ""),
            "in PGSSLROOTCERT instead",
        ),
        (
            &format!("{url}?connect_timeout=x"),
            ("", ""),
            "option `connect_timeout`",
        ),
    ] {
        let env: Vec<(&str, &str)> = [env].into_iter().filter(|(k, _)| !k.is_empty()).collect();
        let (code, err) = show(store, &env);
        assert_eq!(code, 2, "{store}: {err}");
        assert!(err.contains(says), "{store}: {err}");
    }
}

#[cfg(unix)]
#[needs_postgres::test]
fn a_password_file_others_may_read_is_ignored_with_a_warning() {
    use std::os::unix::fs::PermissionsExt;
    let (pg, dir, url) = started();
    let a = synthetic_index(dir.path(), "a.bin", 40, |_| true, |_, _| {});
    push(&a, &url);
    let pgpass = dir.path().join("pgpass");
    std::fs::write(
        &pgpass,
        format!("127.0.0.1:{}:*:{}:{}\n", pg.port, pg::USER, pg::PASSWORD),
    )
    .unwrap();
    let store = pg.url_without_password("postgres");
    let with_mode = |mode: u32| {
        std::fs::set_permissions(&pgpass, std::fs::Permissions::from_mode(mode)).unwrap();
        let out = run_with(
            &["--store", &store, "show", "syn-3", "-f", "json"],
            &[("PGPASSFILE", &pgpass)],
        );
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(
            !err.contains(pg::PASSWORD),
            "the password was printed: {err}"
        );
        (out.status.code().unwrap_or(-1), err)
    };
    let (code, err) = with_mode(0o644);
    assert_eq!(code, 1, "{err}");
    let fix = format!("chmod 600 {}", pgpass.display());
    assert_eq!(
        err.matches("has group or world access").count(),
        1,
        "one warning: {err}"
    );
    assert!(
        err.contains("u=rw (0600) or less") && err.contains(&fix),
        "{err}"
    );
    assert!(
        err.contains("no password for") && err.contains("was ignored because"),
        "{err}"
    );
    let (code, err) = with_mode(0o600);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("group or world"), "{err}");
}

/// End every session the binary has open on `pg` (its `application_name`), as an
/// administrator's `pg_terminate_backend` does; how many were ended.
fn terminate_recommend_sessions(pg: &Pg) -> usize {
    pg.rows(
        "postgres",
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE application_name = 'recommend'",
    )
    .len()
}

#[needs_postgres::test]
fn a_terminated_connection_is_said_so_and_the_next_use_connects_again() {
    use recommend::store::{Store, StoreError, query::identity};
    let (pg, dir, url) = started();
    let a = synthetic_index(dir.path(), "a.bin", 40, |_| true, |_, _| {});
    push(&a, &url);
    // Everything named in the URL: no PG* variable of the test's own environment applies.
    let store = Store::connect(&format!("{url}?sslmode=disable"), 1).expect("the store connects");
    let version = || store.with(|c| identity(c, store.target()));
    assert!(version().is_ok());
    assert!(terminate_recommend_sessions(&pg) >= 1);
    let err = version().expect_err("the terminated connection fails its next query");
    assert!(matches!(err, StoreError::Closed { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains("closed the connection")
            && text.contains("pg_terminate_backend")
            && text.contains("connects again"),
        "{text}"
    );
    assert!(!text.contains("db error"), "{text}");
    assert!(err.is_unavailable());
    // The pool replaced the closed connection.
    assert!(version().is_ok(), "no new connection");
}

#[needs_postgres::test]
fn serve_answers_again_after_its_sessions_are_terminated() {
    let (pg, dir, url) = started();
    let (a, b) = renamed_pair(dir.path());
    push(&a, &url);
    let server = serve_store(&url);
    let like = format!("{}/api/like?title=syn-2&k=3", server.base);
    assert_eq!(get(&like).0, 200);
    assert!(terminate_recommend_sessions(&pg) >= 1);
    // Every answer meanwhile is an answer or a 503 saying what happened, never a bare
    // "db error"; the server connects again by itself.
    let start = Instant::now();
    let mut answered = 0;
    while answered < 5 {
        let (status, body) = get(&like);
        assert!(!body.to_string().contains("db error"), "{body}");
        assert!(!body.to_string().contains(pg::PASSWORD), "{body}");
        match status {
            200 => answered += 1,
            503 => assert!(body.to_string().contains("closed the connection"), "{body}"),
            other => panic!("{other}: {body}"),
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no recovery: {body}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // A push after it is seen at once, not after a failed load's back-off: the listener and
    // the pool both connected again.
    push(&b, &url);
    let paper = format!("{}/api/papers/syn-1", server.base);
    let start = Instant::now();
    while get(&paper).1["title"] != "Renamed paper one" {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "the push after the termination was not seen within 5 s"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// `GET url`: the status and the JSON body.
fn get(url: &str) -> (u16, Value) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into();
    match agent.get(url).call() {
        Ok(mut r) => {
            let status = r.status().as_u16();
            let body = r.body_mut().read_to_string().unwrap_or_default();
            (status, serde_json::from_str(&body).unwrap_or(Value::Null))
        }
        Err(e) => (0, Value::String(e.to_string())),
    }
}

/// `recommend serve --store url` on a free port.
fn serve_store(url: &str) -> crate::support::server::Server {
    crate::support::server::Server::start_args(&["serve", "--addr", "127.0.0.1:0", "--store", url])
}

#[needs_postgres::test]
fn serve_store_sees_a_push_and_survives_a_restart_of_the_store() {
    let (mut pg, dir, url) = started();
    let (a, b) = renamed_pair(dir.path());
    push(&a, &url);
    let server = serve_store(&url);
    let like = format!("{}/api/like?title=syn-2&k=3", server.base);
    let (status, body) = get(&like);
    assert_eq!(status, 200, "{body}");
    let (_, health) = get(&format!("{}/healthz", server.base));
    assert_eq!(health["version"], 1, "{health}");
    let (status, body) = get(&format!("{}/api/path?like=syn-2&n=3", server.base));
    assert_eq!(status, 200, "{body}");
    // A push is seen by the next request, without a restart.
    push(&b, &url);
    // The push's notification reaches the server's listener within moments.
    let start = Instant::now();
    loop {
        let (status, body) = get(&format!("{}/api/papers/syn-1", server.base));
        assert_eq!(status, 200, "{body}");
        if body["title"] == "Renamed paper one" {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the push was not seen: {body}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // The store stops: 503 with a JSON error; it comes back: answers again by themselves.
    pg.stop();
    // The server hears of it within its probe interval.
    let start = Instant::now();
    let (status, body) = loop {
        let (status, body) = get(&like);
        if status != 200 || start.elapsed() > Duration::from_secs(10) {
            break (status, body);
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(status, 503, "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("store is unavailable"),
        "{body}"
    );
    assert!(!body.to_string().contains(pg::PASSWORD));
    pg.resume();
    let start = Instant::now();
    loop {
        let (status, body) = get(&like);
        if status == 200 {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no recovery: {status} {body}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[needs_postgres::test]
fn serve_follows_a_store_dropped_and_made_again() {
    // Made again, its versions start at 1: a probe's server kept answering from the dropped
    // store, "ok", for 18 minutes.
    let (pg, dir, url) = started();
    let (a, b) = renamed_pair(dir.path());
    push(&a, &url);
    let server = serve_store(&url);
    let paper = format!("{}/api/papers/syn-1", server.base);
    assert_eq!(get(&paper).0, 200);
    pg.sql("postgres", "DROP SCHEMA recommend CASCADE");
    let until = |what: &str, done: &dyn Fn() -> bool| {
        let start = Instant::now();
        while !done() {
            assert!(start.elapsed() < Duration::from_secs(20), "{what}");
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    until("the removed store was not seen", &|| {
        get(&format!("{}/healthz", server.base)).0 == 503
    });
    let (status, body) = get(&paper);
    assert_eq!(status, 503, "{body}");
    assert!(body.to_string().contains("removed"), "{body}");
    push(&b, &url);
    assert_eq!(published_version(&pg), "1");
    until("the new store's version 1 was not loaded", &|| {
        get(&paper).1["title"] == "Renamed paper one"
    });
    // The paper list `serve --help` documents, as the file's server gives it.
    let (status, list) = get(&format!("{}/api/papers?limit=2&offset=1", server.base));
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["total"], 40, "{list}");
    assert_eq!(list["papers"].as_array().map(Vec::len), Some(2), "{list}");
}

#[needs_postgres::test]
fn serve_answers_503_while_the_store_is_frozen_and_recovers() {
    // A frozen PostgreSQL (SIGSTOP: a host swapping, a stuck VM) accepts and never answers; a
    // probe's request waited the whole outage while /healthz said "ok".
    let (pg, dir, url) = started();
    let (a, _) = versions(dir.path(), 2100, 2100, |_, _| {});
    push(&a, &url);
    let s = serve_store(&url);
    let (code, _) = get(&format!("{}/api/like?title=syn-7&k=3", s.base));
    assert_eq!(code, 200);
    pg.signal_all(libc::SIGSTOP);
    let (code, body) = get(&format!("{}/api/like?title=syn-8&k=3", s.base));
    let (health, _) = get(&format!("{}/healthz", s.base));
    pg.signal_all(libc::SIGCONT);
    assert_eq!(code, 503, "{body}");
    let error = body["error"].as_str().unwrap_or("");
    assert!(
        (error.contains("did not answer within") || error.contains("has not answered for"))
            && body["retry"] == true,
        "{body}"
    );
    assert_eq!(health, 503);
    // Back by itself, within moments of the store.
    let start = Instant::now();
    loop {
        let (code, body) = get(&format!("{}/api/like?title=syn-9&k=3", s.base));
        if code == 200 {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "{code} {body}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[needs_postgres::test]
fn two_servers_on_one_store_answer_without_error_while_a_push_runs() {
    let (_pg, dir, url) = started();
    // Large enough for the graph path: candidates from pgvector's HNSW index.
    let (a, b) = versions(dir.path(), 3500, 2500, |_, _| {});
    push(&a, &url);
    let servers = [serve_store(&url), serve_store(&url)];
    let stop = Arc::new(AtomicBool::new(false));
    let answered = Arc::new(AtomicUsize::new(0));
    let errors = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let clients: Vec<_> = (0..4)
        .map(|c| {
            let base = servers[c % 2].base.clone();
            let (stop, answered, errors) = (stop.clone(), answered.clone(), errors.clone());
            std::thread::spawn(move || {
                let mut i = c;
                while !stop.load(Ordering::Relaxed) {
                    i = (i * 7 + 13) % 2500;
                    let (status, body) = get(&format!("{base}/api/like?title=syn-{}&k=10", i + 1));
                    if status == 200 && body.as_array().is_some_and(|r| r.len() == 10) {
                        answered.fetch_add(1, Ordering::Relaxed);
                    } else {
                        errors.lock().unwrap().push(format!("{status} {body}"));
                    }
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    let report = push(&b, &url);
    assert!(report.contains("1000 written"), "{report}");
    // Both servers move to the new version.
    let start = Instant::now();
    for s in &servers {
        loop {
            let (_, health) = get(&format!("{}/healthz", s.base));
            if health["version"] == 2 && health["papers"] == 3500 {
                break;
            }
            assert!(start.elapsed() < Duration::from_secs(60), "{health}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    stop.store(true, Ordering::Relaxed);
    for c in clients {
        c.join().unwrap();
    }
    let errors = errors.lock().unwrap();
    assert!(
        errors.is_empty(),
        "{} errors of {}: {:?}",
        errors.len(),
        answered.load(Ordering::Relaxed) + errors.len(),
        &errors[..errors.len().min(3)]
    );
    assert!(answered.load(Ordering::Relaxed) > 20);
}

#[needs_postgres::test]
fn on_a_large_store_a_like_reads_its_seeds_stored_nearest() {
    let (pg, dir, url) = started();
    let a = synthetic_index(dir.path(), "a.bin", 3000, |_| true, |_, _| {});
    let a = a.to_str().unwrap();
    let said = push(Path::new(a), &url);
    // The push measured pgvector's beam against the exact scan and published it.
    assert!(said.contains("vector search calibrated"), "{said}");
    let factor: f32 = pg
        .value(
            "postgres",
            "SELECT value FROM recommend.meta WHERE key = 'beam_factor'",
        )
        .parse()
        .unwrap();
    assert!((1.0..=4.0).contains(&factor), "{factor}");
    let ids = |args: &[&str]| -> Vec<String> {
        let rows: Value = serde_json::from_str(&ok(args)).unwrap();
        rows.as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect()
    };
    let overlap = |x: &[String], y: &[String]| y.iter().filter(|i| x.contains(i)).count();
    let (mut dense, mut hybrid, mut total) = (0, 0, 0);
    for seed in (1..3000).step_by(150) {
        let name = format!("syn-{seed}");
        // The nearest papers by cosine: pgvector's HNSW against the exact scan.
        let exact = ids(&[
            "--index", a, "--exact", "like", &name, "--mode", "dense", "-f", "json",
        ]);
        let store = ids(&[
            "--store", &url, "like", &name, "--mode", "dense", "-f", "json",
        ]);
        dense += overlap(&exact, &store);
        // The fused ranking: the store's against the index file's on the same (graph) path.
        let file = ids(&["--index", a, "like", &name, "-f", "json"]);
        let store = ids(&["--store", &url, "like", &name, "-f", "json"]);
        hybrid += overlap(&file, &store);
        total += exact.len();
    }
    let (dense, hybrid) = (dense as f32 / total as f32, hybrid as f32 / total as f32);
    assert!(
        dense >= 0.99,
        "dense recall@10 against the exact scan: {dense}"
    );
    // A `like` reads its seed's stored nearest: the same candidates as the index file's.
    assert!(
        hybrid == 1.0,
        "fused top 10 shared with the index file's: {hybrid}"
    );
    assert!(
        said.contains("stored the nearest papers of each of the 3000 papers"),
        "{said}"
    );
    let version = published_version(&pg);
    let listed = |v: &str| {
        pg.value(
            "postgres",
            &format!("SELECT count(*) FROM recommend.nearest WHERE version = {v}"),
        )
    };
    assert_eq!(listed(&version), "3000");

    // The lists are what answers: syn-7 given the list of a paper its whole candidate pool
    // lacks (with syn-7 itself in that list's last place) has that paper in its pool.
    let file = ids(&["--index", a, "like", "syn-7", "-f", "json"]);
    let pool = ids(&["--index", a, "like", "syn-7", "-k", "2000", "-f", "json"]);
    let stranger = (1000..3000)
        .find(|p| !pool.contains(&format!("syn-{p}")))
        .expect("a paper outside syn-7's candidates");
    let row = |paper: usize| {
        pg.value(
            "postgres",
            &format!(
                "SELECT encode(list, 'hex') FROM recommend.nearest
                 WHERE version = {version} AND paper = {paper}"
            ),
        )
    };
    let set_row = |paper: usize, hex: &str| {
        pg.sql(
            "postgres",
            &format!(
                "UPDATE recommend.nearest SET list = decode('{hex}', 'hex')
                 WHERE version = {version} AND paper = {paper}"
            ),
        )
    };
    // syn-N is paper N - 1 of the index; positions are little-endian u32.
    let theirs = row(stranger - 1);
    let seed_last = format!(
        "{}{}",
        &theirs[..theirs.len() - 8],
        hex::encode(6u32.to_le_bytes())
    );
    set_row(6, &seed_last);
    let k2000 = ["--store", &url, "like", "syn-7", "-k", "2000", "-f", "json"];
    assert!(
        ids(&k2000).contains(&format!("syn-{stranger}")),
        "syn-{stranger} not among syn-7's candidates"
    );
    // A row that is another paper's whole list (it lacks the seed) is not used: pgvector answers.
    set_row(6, &row(stranger - 1));
    let fallback = ids(&["--store", &url, "like", "syn-7", "-f", "json"]);
    assert!(overlap(&file, &fallback) >= 9, "{file:?} / {fallback:?}");
    // Pushing the same index again finds the damaged lists and publishes them whole again.
    let again = push(Path::new(a), &url);
    assert!(!again.contains("nothing to write"), "{again}");
    assert_eq!(ids(&["--store", &url, "like", "syn-7", "-f", "json"]), file);
    let again = push(Path::new(a), &url);
    assert!(again.contains("nothing to write"), "{again}");

    // A store made before the lists, read by a role granted SELECT on its tables: answered
    // through pgvector; the push that makes the table grants that role the lists too.
    pg.sql(
        "postgres",
        &format!(
            "DROP TABLE recommend.nearest;
             CREATE ROLE reader LOGIN PASSWORD '{}';
             GRANT USAGE ON SCHEMA recommend TO reader;
             GRANT SELECT ON ALL TABLES IN SCHEMA recommend TO reader;",
            pg::PASSWORD
        ),
    );
    let reader = format!(
        "postgres://reader:{}@127.0.0.1:{}/postgres",
        pg::PASSWORD,
        pg.port
    );
    let before = ids(&["--store", &reader, "like", "syn-7", "-f", "json"]);
    assert!(overlap(&file, &before) >= 9, "{file:?} / {before:?}");
    let again = push(Path::new(a), &url);
    assert!(!again.contains("nothing to write"), "{again}");
    assert_eq!(listed(&published_version(&pg)), "3000");
    assert_eq!(
        pg.value(
            "postgres",
            "SELECT has_table_privilege('reader', 'recommend.nearest', 'SELECT')::text"
        ),
        "true"
    );
    assert_eq!(
        ids(&["--store", &reader, "like", "syn-7", "-f", "json"]),
        file
    );

    // While an administrator holds the lists' table (`VACUUM FULL`), a `like` is answered
    // through pgvector rather than failing as busy.
    let mut admin = pg.try_connect("postgres").unwrap();
    let mut held = admin.transaction().unwrap();
    held.batch_execute("LOCK TABLE recommend.nearest IN ACCESS EXCLUSIVE MODE")
        .unwrap();
    let locked = ids(&["--store", &url, "like", "syn-7", "-f", "json"]);
    assert!(overlap(&file, &locked) >= 9, "{file:?} / {locked:?}");
    held.rollback().unwrap();
}

#[needs_postgres::test]
fn a_push_whose_connection_is_cut_changes_no_answer() {
    let (pg, dir, url) = started();
    let (a, b) = versions(dir.path(), 8000, 40, |_, _| {});
    push(&a, &url);
    let before = like_syn7(&url);
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_recommend"))
        .args(["--index", b.to_str().unwrap(), "push", "--to", &url])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Once a batch has committed, the server cuts the push's connections.
    let start = Instant::now();
    while pg
        .value("postgres", "SELECT count(*) FROM recommend.papers")
        .parse::<usize>()
        .unwrap()
        < 540
    {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "the push wrote nothing"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    pg.sql(
        "postgres",
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE application_name = 'recommend' AND pid <> pg_backend_pid()",
    );
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        !err.contains("panicked") && !err.contains(pg::PASSWORD),
        "{err}"
    );
    assert!(err.contains("PostgreSQL at"), "{err}");
    assert_eq!(published_version(&pg), "1");
    assert_eq!(like_syn7(&url), before);
    assert!(push(&b, &url).contains("version 2, 8000 papers"));
}

/// `recommend feed` over an imported list's abstracts, top 10 as JSON, and its report (stderr).
fn feed_top10(place: &[&str], extra: &[&str]) -> (Vec<String>, String) {
    let candidates = root().join("bench/corpora/abstracts/awesome-rl-ai-agents.jsonl");
    let mut args = place.to_vec();
    let candidates = candidates.to_str().unwrap();
    args.extend(["feed", candidates, "-n", "10", "-f", "json"]);
    args.extend(extra);
    let out = run(&args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "feed {args:?} failed: {err}");
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect();
    (ids, err)
}

#[needs_postgres::test]
fn feed_and_rate_on_a_store_keep_each_readers_state_apart() {
    let (pg, dir, url) = started();
    let index = dir.path().join("library.bin");
    std::fs::copy(root().join("index.bin"), &index).unwrap();
    let index_arg = index.to_str().unwrap();
    push(&index, &url);
    // The store's feed is the file's feed: the same library, the same first ranking.
    let (from_file, _) = feed_top10(&["--index", index_arg], &[]);
    assert_eq!(from_file.len(), 10);
    let ann = ["--store", url.as_str()];
    let (first, report) = feed_top10(&ann, &["--user", "ann"]);
    assert_eq!(first, from_file);
    // The vectors the first reader's feed embedded serve the next reader: nothing is embedded.
    let (bob, report_bob) = feed_top10(&ann, &["--user", "bob"]);
    assert_eq!(bob, from_file);
    assert!(report.contains("embedded"), "{report}");
    assert!(report_bob.contains("(0 embedded"), "{report_bob}");
    // A reader is never shown a paper twice; the other reader's state is untouched.
    let (second, _) = feed_top10(&ann, &["--user", "ann"]);
    assert!(second.iter().all(|id| !first.contains(id)), "{second:?}");
    let rows = |table: &str, user: &str| {
        pg.value(
            "postgres",
            &format!("SELECT count(*) FROM recommend.{table} WHERE user_name = '{user}'"),
        )
    };
    let seen = |user: &str| rows("feed_seen", user);
    let ratings = |user: &str| rows("feed_ratings", user);
    assert_eq!(
        (seen("ann"), seen("bob")),
        ("20".to_string(), "10".to_string())
    );
    // A rating is the reader's own and moves that reader's later feeds.
    let low = &first[9];
    // "ann " is ann, not a second reader.
    ok(&["--store", &url, "rate", low, "up", "--user", "ann "]);
    assert_eq!(
        (ratings("ann"), ratings("bob")),
        ("1".to_string(), "0".to_string())
    );
    let (again, _) = feed_top10(&ann, &["--user", "ann", "--all"]);
    let moved = again.iter().position(|i| i == low);
    assert!(
        moved.is_some_and(|p| p < 9),
        "rated up, {low} is at {moved:?}"
    );
    let (bob_again, _) = feed_top10(&ann, &["--user", "bob", "--all"]);
    assert_eq!(bob_again, from_file, "bob's feed moved with ann's rating");
    ok(&["--store", &url, "rate", low, "clear", "--user", "ann"]);
    assert_eq!(ratings("ann"), "0");
    // The store keeps the state: nothing was written beside the index but the file feed's own.
    let beside: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        beside.iter().all(|f| f.starts_with("library.")),
        "{beside:?}"
    );
    // Bad readers: usage errors, nothing written.
    let (code, err) = failure(&["--store", &url, "rate", low, "up", "--user", " "]);
    assert_eq!(code, 2, "{err}");
    let (code, err) = failure(&["--index", index_arg, "rate", low, "up", "--user", "ann"]);
    assert!(code == 2 && err.contains("--store"), "{err}");
    let (code, err) = failure(&[
        "--store",
        &url,
        "rate",
        "no such paper at all",
        "up",
        "--user",
        "ann",
    ]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(ratings("ann"), "0");
}

#[needs_postgres::test]
fn tls_is_used_when_the_url_asks_and_the_servers_certificate_is_verified() {
    let (pg, dir, url) = started();
    let a = synthetic_index(dir.path(), "a.bin", 40, |_| true, |_, _| {});
    let a = a.to_str().unwrap();
    let front = pg::TlsFront::start(pg.port);
    let over_tls = format!(
        "{}?sslmode=require",
        url.replace(&pg.port.to_string(), &front.port.to_string())
    );
    let push_to = |to: &str, env: &[(&str, &Path)]| {
        let out = run_with(&["--index", a, "push", "--to", to], env);
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(
            !err.contains(pg::PASSWORD) && !err.contains("panicked"),
            "{err}"
        );
        (out.status.code().unwrap_or(-1), err)
    };
    // A server without TLS, asked for TLS (by the URL or PGSSLMODE): refused, nothing sent in
    // the clear, and said so with what to do.
    for (to, env) in [
        (format!("{url}?sslmode=require"), None),
        (format!("{url}?sslmode=verify-full"), None),
        (url.clone(), Some(("PGSSLMODE", Path::new("require")))),
    ] {
        let (code, err) = push_to(&to, &env.into_iter().collect::<Vec<_>>());
        assert_eq!(code, 1, "{err}");
        assert!(
            err.contains("does not offer TLS") && err.contains("ssl = on"),
            "{err}"
        );
    }
    // TLS whose certificate no trusted authority signed: refused after the handshake began.
    let (code, err) = push_to(&over_tls, &[]);
    assert_eq!(code, 1, "{err}");
    assert!(err.to_lowercase().contains("certificate"), "{err}");
    let stores = "SELECT count(*) FROM pg_namespace WHERE nspname = 'recommend'";
    assert_eq!(pg.value("postgres", stores), "0", "a store was written");
    // The lab's own authority in PGSSLROOTCERT: the push and the queries go over TLS.
    let ca = [("PGSSLROOTCERT", front.ca.as_path())];
    let (code, err) = push_to(&over_tls, &ca);
    assert_eq!(code, 0, "{err}");
    let out = run_with(&["--store", &over_tls, "show", "syn-3", "-f", "json"], &ca);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("syn-3"));
    assert!(front.sessions.load(Ordering::SeqCst) >= 2);
    // PGSSLROOTCERT naming no certificate: an input error, exit 2, saying what to do.
    let (code, err) = push_to(&over_tls, &[("PGSSLROOTCERT", Path::new(a))]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("PGSSLROOTCERT"), "{err}");
}

/// `POST url`: the status and the JSON body.
fn post(url: &str) -> (u16, Value) {
    let mut r = ureq::Agent::from(
        ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build(),
    )
    .post(url)
    .send_empty()
    .unwrap();
    let status = r.status().as_u16();
    let body = r.body_mut().read_to_string().unwrap_or_default();
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}

#[needs_postgres::test]
fn the_inbox_on_a_store_keeps_each_readers_ratings_apart() {
    let (pg, dir, url) = started();
    let index = dir.path().join("library.bin");
    std::fs::copy(root().join("index.bin"), &index).unwrap();
    push(&index, &url);
    let candidates = root().join("bench/corpora/abstracts/awesome-rl-ai-agents.jsonl");
    let server = crate::support::server::Server::start_args(&[
        "serve",
        "--addr",
        "127.0.0.1:0",
        "--store",
        &url,
        "--feed",
        candidates.to_str().unwrap(),
    ]);
    let base = &server.base;
    // The candidates were embedded once, into the store's shared cache, not beside a file.
    let cached: usize = pg
        .value("postgres", "SELECT count(*) FROM recommend.feed_vectors")
        .parse()
        .unwrap();
    assert!(cached > 10, "{cached} vectors cached");
    let page = ureq::get(&format!("{base}/inbox"))
        .call()
        .unwrap()
        .body_mut()
        .read_to_string()
        .unwrap();
    assert!(
        page.contains("/api/rate") && page.contains("user"),
        "{page}"
    );
    // No reader, or a bad one: a 400 naming `user`, and nothing written.
    for target in [
        "/api/feed?k=10".to_string(),
        "/api/feed?k=10&user=%20".to_string(),
        format!("/api/feed?k=10&user={}", "x".repeat(65)),
    ] {
        let (status, body) = get(&format!("{base}{target}"));
        assert_eq!(
            (status, body["parameter"].as_str()),
            (400, Some("user")),
            "{target}: {body}"
        );
    }
    let ids = |user: &str, all: bool| -> Vec<String> {
        let (status, body) = get(&format!(
            "{base}/api/feed?k=10&user={user}{}",
            if all { "&all=1" } else { "" }
        ));
        assert_eq!(status, 200, "{body}");
        body["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect()
    };
    let first = ids("ann", false);
    assert_eq!(first.len(), 10);
    assert_eq!(ids("bob", false), first);
    let low = &first[9];
    let (status, body) = post(&format!("{base}/api/rate?id={low}&verdict=up"));
    assert_eq!(
        (status, body["parameter"].as_str()),
        (400, Some("user")),
        "{body}"
    );
    // A GET changes nothing and says why, in JSON, as the file's server does.
    let (status, body) = get(&format!("{base}/api/rate?id={low}&verdict=up&user=ann"));
    assert_eq!(status, 405, "{body}");
    assert!(
        body["error"].as_str().unwrap_or("").contains("POST"),
        "{body}"
    );
    let ratings = |user: &str| {
        pg.value(
            "postgres",
            &format!("SELECT count(*) FROM recommend.feed_ratings WHERE user_name = '{user}'"),
        )
    };
    assert_eq!((ratings("ann"), ratings("bob")), ("0".into(), "0".into()));
    // Ann's rating is hers: her feed moves, Bob's does not.
    let (status, body) = post(&format!("{base}/api/rate?id={low}&verdict=up&user=ann"));
    assert_eq!(status, 200, "{body}");
    assert_eq!((ratings("ann"), ratings("bob")), ("1".into(), "0".into()));
    let ann = ids("ann", true);
    let moved = ann.iter().position(|i| i == low);
    assert!(
        moved.is_some_and(|p| p < 9),
        "rated up, {low} is at {moved:?}"
    );
    assert!(
        !ids("ann", false).contains(low),
        "a rated paper is left out"
    );
    assert_eq!(
        ids("bob", true),
        first,
        "bob's feed moved with ann's rating"
    );
    // Bob's rating is his: Ann's order stays as it was.
    let (status, body) = post(&format!(
        "{base}/api/rate?id={}&verdict=down&user=bob",
        first[0]
    ));
    assert_eq!(status, 200, "{body}");
    assert_eq!((ratings("ann"), ratings("bob")), ("1".into(), "1".into()));
    assert_eq!(ids("ann", true), ann);
    assert_ne!(ids("bob", true), first);
    let (status, body) = post(&format!("{base}/api/rate?id={low}&verdict=clear&user=ann"));
    assert_eq!(status, 200, "{body}");
    assert_eq!(ratings("ann"), "0");
    // Nothing was kept beside the pushed index.
    let beside: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(beside, ["library.bin"], "{beside:?}");
}
