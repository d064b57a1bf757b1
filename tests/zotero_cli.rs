//! `recommend index --zotero` through the real binary: a Zotero data folder built from Zotero's
//! published schema (`support::zotero`), indexed with the real model, then listed; the
//! `--collection` filter; and the errors a user meets (an unknown collection, a damaged file),
//! which must exit with a message, not a panic, and leave no index behind.

use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;
use serde_json::Value;

use recommend::corpus::zotero::DATABASE_FILE;

use crate::support::zotero::{
    add_collections, add_creator, add_item, add_left_out, add_tag, empty_library, file,
    random_bytes,
};
use crate::support::{err_text, ok_json, ok_stderr, recommend, texts, with_model};

/// The binary with the model the environment names (`RECOMMEND_MODEL_DIR`), else the
/// checkout's, and a timeout so a hang fails the test.
fn recommend_with_model() -> Command {
    let mut cmd = recommend();
    with_model(&mut cmd)
        .env_remove("RECOMMEND_INDEX")
        .timeout(Duration::from_secs(600));
    cmd
}

const ATTENTION: &str = "Attention Is All You Need";
const RESNET: &str = "Deep Residual Learning for Image Recognition";
const BERT: &str =
    "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding";
const BAYES: &str = "Practical Bayesian Optimization of Machine Learning Algorithms";

/// A Zotero data folder (`dir/zotero/`, holding `zotero.sqlite`): four papers with abstracts,
/// a note and a PDF attachment (with a highlight) of the first, and a trashed paper;
/// collections "Reading group", "Deep Learning" and its sub-collection "Transformers".
fn data_folder(dir: &Path) -> PathBuf {
    let folder = dir.join("zotero");
    std::fs::create_dir(&folder).unwrap();
    std::fs::create_dir(folder.join("storage")).unwrap();
    let conn = empty_library(&folder.join(DATABASE_FILE));
    add_collections(&conn);

    let papers: [(i64, &str, &str, &str, &str, &str); 4] = [
        (
            1,
            "ATTN2345",
            ATTENTION,
            "The dominant sequence transduction models are based on complex recurrent or \
             convolutional neural networks. We propose the Transformer, based solely on \
             attention mechanisms, dispensing with recurrence and convolutions entirely.",
            "2017-06-12 2017-06-12",
            "Vaswani",
        ),
        (
            2,
            "RESN2345",
            RESNET,
            "Deeper neural networks are more difficult to train. We present a residual \
             learning framework to ease the training of networks substantially deeper than \
             those used previously, for image recognition.",
            "2015-12-10 2015-12-10",
            "He",
        ),
        (
            3,
            "BERT2345",
            BERT,
            "We introduce a new language representation model, which pre-trains deep \
             bidirectional representations from unlabeled text by jointly conditioning on \
             both left and right context in all layers.",
            "2018-10-11 2018-10-11",
            "Devlin",
        ),
        (
            4,
            "BAYE2345",
            BAYES,
            "Machine learning algorithms frequently require careful tuning of model \
             hyperparameters. We show how Bayesian optimization with Gaussian processes finds \
             good settings automatically.",
            "2012-06-13 2012",
            "Snoek",
        ),
    ];
    for (id, key, title, summary, date, author) in papers {
        add_item(
            &conn,
            id,
            key,
            "journalArticle",
            &[("title", title), ("abstractNote", summary), ("date", date)],
        );
        add_creator(&conn, id, "A.", author, "author", 0);
    }
    add_tag(&conn, 1, "attention");
    file(&conn, 3, 1); // Transformers, inside Deep Learning
    file(&conn, 2, 2);
    file(&conn, 1, 3);
    // Item 4 is in no collection.

    add_left_out(&conn, 5, 1);
    folder
}

/// `recommend index --zotero FOLDER --out INDEX`, with the model.
fn index_command(folder: &Path, index: &Path) -> Command {
    let mut cmd = recommend_with_model();
    cmd.arg("index")
        .arg("--zotero")
        .arg(folder)
        .arg("--out")
        .arg(index);
    cmd
}

/// `recommend index --zotero FOLDER --out INDEX ARGS`, required to succeed; its stderr.
fn index(folder: &Path, index: &Path, args: &[&str]) -> String {
    ok_stderr(index_command(folder, index).args(args))
}

/// `recommend --index INDEX list --format json`.
fn listed(index: &Path) -> Vec<Value> {
    ok_json(
        recommend()
            .env_remove("RECOMMEND_INDEX")
            .arg("--index")
            .arg(index)
            .args(["list", "--format", "json"]),
    )
    .as_array()
    .expect("a JSON list")
    .clone()
}

fn sorted<'a>(rows: &'a [Value], key: &str) -> Vec<&'a str> {
    let mut v = texts(rows, key);
    v.sort_unstable();
    v
}

#[test]
fn a_data_folder_indexes_its_regular_items_only() {
    let dir = tempfile::tempdir().unwrap();
    let folder = data_folder(dir.path());
    let out = dir.path().join("zotero.bin");

    let stderr = index(&folder, &out, &[]);
    assert!(out.is_file(), "no index written; stderr: {stderr}");
    // The note, the attachment, its annotation and the trashed paper.
    assert!(
        stderr.contains(DATABASE_FILE)
            && stderr.contains("4 Zotero item")
            && stderr.contains("left out"),
        "{stderr}"
    );

    let rows = listed(&out);
    let mut titles = vec![ATTENTION, BAYES, BERT, RESNET];
    titles.sort_unstable();
    assert_eq!(sorted(&rows, "title"), titles, "{rows:?}");
    assert_eq!(
        sorted(&rows, "id"),
        ["ATTN2345", "BAYE2345", "BERT2345", "RESN2345"],
        "the items' Zotero keys"
    );

    // A paper saved in Zotero since: the index is stale, and the rebuild it names reads the
    // library as it was given (it said `--corpus`).
    let conn = rusqlite::Connection::open(folder.join(DATABASE_FILE)).unwrap();
    add_item(
        &conn,
        90,
        "NEWP2345",
        "journalArticle",
        &[("title", "A paper saved today")],
    );
    drop(conn);
    let out = recommend()
        .env_remove("RECOMMEND_INDEX")
        .arg("--index")
        .arg(dir.path().join("zotero.bin"))
        .args(["list"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("recommend index --zotero {}", folder.display())),
        "{err}"
    );
}

#[test]
fn zoteros_backup_reads_as_the_library_it_copies() {
    let dir = tempfile::tempdir().unwrap();
    let folder = data_folder(dir.path());
    // The file Zotero's own repair advice starts from; the error for a damaged library
    // names it.
    let backup = folder.join(format!("{DATABASE_FILE}.bak"));
    std::fs::copy(folder.join(DATABASE_FILE), &backup).unwrap();
    let out = dir.path().join("backup.bin");
    index(&backup, &out, &[]);
    assert_eq!(listed(&out).len(), 4);
    // A file of another format under an unknown name is still refused, not read as SQLite.
    let text = dir.path().join("notes.bak");
    std::fs::write(&text, "SQLite format 2 is not a database\n").unwrap();
    let stderr = err_text(
        recommend()
            .arg("index")
            .arg("--corpus")
            .arg(&text)
            .arg("--out")
            .arg(dir.path().join("notes.bin")),
        2,
    );
    assert!(stderr.contains("notes.bak"), "{stderr}");
    // `--zotero` names a database: a list of another format is refused, not indexed.
    let stderr = err_text(
        recommend()
            .arg("index")
            .arg("--zotero")
            .arg(&text)
            .arg("--out")
            .arg(dir.path().join("notes.bin")),
        2,
    );
    assert!(stderr.contains("not a SQLite database"), "{stderr}");
    assert!(!dir.path().join("notes.bin").exists());
}

#[test]
fn a_collection_keeps_its_items_and_its_sub_collections() {
    let dir = tempfile::tempdir().unwrap();
    let folder = data_folder(dir.path());
    let out = dir.path().join("deep.bin");

    // Named in another case; the attention paper is filed in the sub-collection only.
    index(&folder, &out, &["--collection", "deep learning"]);
    let rows = listed(&out);
    assert_eq!(sorted(&rows, "title"), [ATTENTION, RESNET], "{rows:?}");

    // A paper saved outside the collection leaves the index's papers as they were: it stays
    // in use (the library is read as the build read it, narrowed).
    let conn = rusqlite::Connection::open(folder.join(DATABASE_FILE)).unwrap();
    add_item(
        &conn,
        90,
        "ELSE2345",
        "journalArticle",
        &[("title", "A paper filed nowhere")],
    );
    let rows = listed(&out);
    assert_eq!(sorted(&rows, "title"), [ATTENTION, RESNET], "{rows:?}");

    // One filed in the collection makes it stale, and the rebuild named keeps the collection.
    add_item(
        &conn,
        91,
        "DEEP2345",
        "journalArticle",
        &[("title", "A deep paper saved today")],
    );
    file(&conn, 2, 91);
    drop(conn);
    let mut cmd = recommend();
    cmd.env_remove("RECOMMEND_INDEX")
        .arg("--index")
        .arg(&out)
        .arg("list");
    let err = err_text(&mut cmd, 1);
    assert!(
        err.contains(&format!(
            "recommend index --zotero {} --collection 'deep learning'",
            folder.display()
        )),
        "{err}"
    );

    // `add` reads the recorded library narrowed as before: the new collection paper joins,
    // the unfiled one does not.
    let extra = dir.path().join("extra.jsonl");
    std::fs::write(&extra, "{\"title\": \"An added note on attention\"}\n").unwrap();
    let mut cmd = recommend_with_model();
    cmd.arg("--index").arg(&out).arg("add").arg(&extra);
    ok_stderr(&mut cmd);
    let rows = listed(&out);
    assert_eq!(
        sorted(&rows, "title"),
        [
            "A deep paper saved today",
            "An added note on attention",
            ATTENTION,
            RESNET
        ],
        "{rows:?}"
    );
}

#[test]
fn an_unknown_collection_exits_2_naming_the_known_ones() {
    let dir = tempfile::tempdir().unwrap();
    let folder = data_folder(dir.path());
    let out = dir.path().join("none.bin");

    let stderr = err_text(
        index_command(&folder, &out).args(["--collection", "Deep Lerning"]),
        2,
    );
    assert!(stderr.contains("Deep Lerning"), "{stderr}");
    for known in ["Deep Learning", "Transformers", "Reading group"] {
        assert!(stderr.contains(known), "{known} not named: {stderr}");
    }
    // Closest first.
    let at = |n: &str| stderr.find(n).unwrap();
    assert!(
        at("\"Deep Learning\"") < at("Transformers") && at("\"Deep Learning\"") < at("Reading"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!out.exists(), "an index was written");

    // Without a Zotero database there is no collection to narrow to: a usage error, never
    // every paper as if the filter were met.
    let awesome = crate::support::root().join("tests/fixtures/awesome.md");
    let mut cmd = recommend();
    cmd.arg("index")
        .arg("--corpus")
        .arg(&awesome)
        .arg("--out")
        .arg(&out)
        .args(["--collection", "Deep Learning"]);
    let stderr = err_text(&mut cmd, 2);
    assert!(stderr.contains("zotero.sqlite"), "{stderr}");
    assert!(!out.exists(), "an index was written");
    let shipped = crate::support::root().join("index.bin");
    let mut cmd = recommend();
    cmd.arg("--index")
        .arg(&shipped)
        .args(["list", "--collection", "Deep Learning"]);
    let stderr = err_text(&mut cmd, 2);
    assert!(stderr.contains("zotero.sqlite"), "{stderr}");
}

#[test]
fn a_damaged_database_is_reported_by_name_without_an_index() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("zotero");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(folder.join(DATABASE_FILE), random_bytes(16_384)).unwrap();
    let out = dir.path().join("damaged.bin");

    // The data folder and the file itself fail alike.
    for given in [folder.clone(), folder.join(DATABASE_FILE)] {
        let run = index_command(&given, &out)
            .assert()
            .failure()
            .get_output()
            .clone();
        let code = run.status.code();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(matches!(code, Some(1 | 2)), "exit {code:?}: {stderr}");
        assert!(
            stderr.contains(DATABASE_FILE) && stderr.contains("not a SQLite database"),
            "{stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(!out.exists(), "an index was written");
    }
}
