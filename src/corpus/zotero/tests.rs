//! Built on Zotero's own schema files (`tests/fixtures/zotero/`, see its README): the test
//! creates a `zotero.sqlite` from them, fills the tables Zotero fills from `schema.json` at
//! run time (by name, with ids unlike Zotero's), then adds items as Zotero stores them. The
//! helpers that do so are the integration tests' (`tests/support/zotero.rs`), shared here.

use std::fs;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};
use serde_json::Value;

use super::record::arxiv_of;
use super::*;
use crate::corpus::fields::{MAX_FIELD_BYTES, Origin, Outcome, map_record};

#[path = "../../../tests/support/zotero.rs"]
mod fixture;
use fixture::*;

/// A small library: three papers and a book, a note, an attachment with an annotation, a
/// trashed paper, an untitled one; collections "Reading group", "Deep Learning" and its
/// sub-collection "Transformers".
fn library(dir: &Path) -> PathBuf {
    let db = dir.join(DATABASE_FILE);
    let conn = empty_library(&db);
    add_collections(&conn);

    add_item(
        &conn,
        1,
        "ABCD2345",
        "journalArticle",
        &[
            ("title", "Attention Is All You Need"),
            (
                "abstractNote",
                "The dominant sequence transduction models are based on recurrent networks.",
            ),
            ("date", "2017-06-12 2017-06-12"),
            ("DOI", "10.48550/arXiv.1706.03762"),
            ("url", "https://arxiv.org/abs/1706.03762v5"),
            ("pages", "1-15"),
        ],
    );
    // Inserted out of order: orderIndex decides.
    add_creator(&conn, 1, "Noam", "Shazeer", "author", 1);
    add_creator(&conn, 1, "Ashish", "Vaswani", "author", 0);
    add_creator(&conn, 1, "Some", "Editor", "editor", 2);
    add_tag(&conn, 1, "transformers");
    add_tag(&conn, 1, "attention");
    file(&conn, 1, 1);
    file(&conn, 3, 1);

    add_item(
        &conn,
        2,
        "EFGH6789",
        "preprint",
        &[
            ("title", "A preprint"),
            ("date", "2025-03-18 March 18, 2025"),
            ("extra", "Citation Key: x2025\narXiv: 2503.14476 [cs.CL]"),
        ],
    );
    add_creator(&conn, 2, "", "OpenAI", "author", 0);

    add_item(
        &conn,
        3,
        "IJKL2345",
        "book",
        &[
            ("title", "An edited book"),
            ("date", "2001-00-00 2001"),
            ("archiveID", "arXiv:cs/0112017"),
        ],
    );
    add_creator(&conn, 3, "Ada", "Lovelace", "editor", 0);

    add_left_out(&conn, 4, 1);

    add_item(&conn, 8, "NOTI2345", "journalArticle", &[("date", "2020")]);

    add_item(
        &conn,
        9,
        "RDNG2345",
        "journalArticle",
        &[("title", "BERT"), ("DOI", "not a doi")],
    );
    file(&conn, 1, 9);
    db
}

/// The ids of a library's records, in order.
fn record_ids(lib: &ZoteroLibrary) -> Vec<&str> {
    lib.records
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect()
}

fn strings(v: &Value) -> Vec<&str> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

#[test]
fn fixture_is_the_newest_schema_read() {
    assert_eq!(fixture_version(), MAX_USERDATA_VERSION);
}

#[test]
fn regular_items_become_records() {
    let dir = tempfile::tempdir().unwrap();
    library(dir.path());
    // The data directory is given; its zotero.sqlite is read.
    let lib = read(dir.path(), &ZoteroOptions::default()).unwrap();
    assert_eq!(lib.schema_version, 123);
    let ids = record_ids(&lib);
    assert_eq!(ids, ["ABCD2345", "EFGH6789", "IJKL2345", "RDNG2345"]);

    let r = &lib.records[0];
    assert_eq!(r["title"], "Attention Is All You Need");
    assert!(r["summary"].as_str().unwrap().starts_with("The dominant"));
    assert_eq!(strings(&r["author"]), ["Ashish Vaswani", "Noam Shazeer"]);
    assert_eq!(r["year"], 2017);
    assert_eq!(r["doi"], "10.48550/arXiv.1706.03762");
    assert_eq!(r["url"], "https://arxiv.org/abs/1706.03762v5");
    assert_eq!(r["arxiv"], "1706.03762");
    assert_eq!(r["topic"], "Reading group");
    assert_eq!(strings(&r["also_topics"]), ["Transformers"]);
    assert_eq!(
        strings(&r["keywords"]),
        ["attention", "transformers", "Reading group", "Transformers"]
    );
    assert!(!r.contains_key("pages"));

    let r = &lib.records[1];
    assert_eq!(r["arxiv"], "2503.14476", "from `extra`");
    assert_eq!(r["year"], 2025);
    assert_eq!(strings(&r["author"]), ["OpenAI"]);
    assert!(!r.contains_key("topic"));

    let r = &lib.records[2];
    assert_eq!(r["arxiv"], "cs/0112017", "from `archiveID`");
    assert_eq!(r["year"], 2001);
    assert_eq!(
        strings(&r["author"]),
        ["Ada Lovelace"],
        "editors when no author"
    );

    let r = &lib.records[3];
    assert!(!r.contains_key("doi"));
    assert_eq!(lib.warnings.len(), 1, "{:?}", lib.warnings);
    assert!(lib.warnings[0].contains("RDNG2345") && lib.warnings[0].contains("not a doi"));

    assert_eq!(
        lib.skipped,
        Skipped {
            notes: 1,
            attachments: 1,
            annotations: 1,
            trashed: 1,
            feed_items: 0,
            outside_collection: 0,
            untitled: 1,
        }
    );

    // Every key is one the corpus knows: nothing is ignored on mapping.
    for r in &lib.records {
        match map_record(r, Origin::Json) {
            Outcome::Paper(m) => assert!(m.ignored.is_empty(), "{:?}", m.ignored),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn collection_keeps_its_sub_collections() {
    let dir = tempfile::tempdir().unwrap();
    let db = library(dir.path());
    let only = |name: &str| ZoteroOptions {
        collection: Some(name.into()),
    };
    // Named in another case; the paper is filed in the sub-collection only.
    let lib = read(&db, &only("deep learning")).unwrap();
    let ids = record_ids(&lib);
    assert_eq!(ids, ["ABCD2345"]);
    assert_eq!(
        lib.records[0]["topic"], "Transformers",
        "the topic inside the collection"
    );
    assert_eq!(lib.skipped.outside_collection, 4);
    assert_eq!(lib.skipped.trashed, 1);

    let lib = read(&db, &only("Reading group")).unwrap();
    let ids = record_ids(&lib);
    assert_eq!(ids, ["ABCD2345", "RDNG2345"]);
}

#[test]
fn unknown_collection_lists_the_names_closest_first() {
    let dir = tempfile::tempdir().unwrap();
    let db = library(dir.path());
    let options = ZoteroOptions {
        collection: Some("Deep Lerning".into()),
    };
    match read(&db, &options) {
        Err(ZoteroError::UnknownCollection { name, known }) => {
            assert_eq!(name, "Deep Lerning");
            assert_eq!(known[0], "Deep Learning");
            assert_eq!(known.len(), 3);
        }
        other => panic!("{other:?}"),
    }
    let message = read(&db, &options).unwrap_err().to_string();
    assert!(message.contains("\"Deep Learning\", "), "{message}");
    assert!(message.contains("Transformers") && message.contains("Reading group"));
}

#[test]
fn random_bytes_are_not_a_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("zotero.sqlite");
    fs::write(&db, random_bytes(8192)).unwrap();
    let e = read(&db, &ZoteroOptions::default()).unwrap_err();
    assert!(matches!(e, ZoteroError::NotSqlite { .. }), "{e:?}");
    let message = e.to_string();
    assert!(message.contains("zotero.sqlite") && message.contains("not a SQLite database"));
}

#[test]
fn missing_paths_say_what_to_give() {
    let dir = tempfile::tempdir().unwrap();
    let e = read(&dir.path().join("nothing"), &ZoteroOptions::default()).unwrap_err();
    assert!(matches!(e, ZoteroError::NotFound { .. }), "{e:?}");
    let e = read(dir.path(), &ZoteroOptions::default()).unwrap_err();
    assert!(
        matches!(e, ZoteroError::NoDatabaseInDirectory { .. }),
        "{e:?}"
    );
    assert!(e.to_string().contains("Show Data Directory"));
    // An empty SQLite database (any empty file is one) is no Zotero library.
    let empty = dir.path().join("empty.sqlite");
    fs::write(&empty, b"").unwrap();
    let e = read(&empty, &ZoteroOptions::default()).unwrap_err();
    assert!(matches!(e, ZoteroError::NotZotero { .. }), "{e:?}");
}

#[test]
fn unknown_schema_versions_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = library(dir.path());
    let conn = Connection::open(&db).unwrap();
    for (version, advice) in [(MAX_USERDATA_VERSION + 1, "newer Zotero"), (77, "upgrade")] {
        conn.execute(
            "REPLACE INTO version (schema, version) VALUES ('userdata', ?1)",
            [version],
        )
        .unwrap();
        let e = read(&db, &ZoteroOptions::default()).unwrap_err();
        assert!(matches!(e, ZoteroError::UnsupportedVersion { .. }), "{e:?}");
        let message = e.to_string();
        assert!(message.contains(&format!("schema {version}")), "{message}");
        assert!(
            message.contains("80 to 123") && message.contains(advice),
            "{message}"
        );
    }
}

#[test]
fn a_missing_table_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let db = library(dir.path());
    let conn = Connection::open(&db).unwrap();
    conn.execute_batch("PRAGMA foreign_keys = OFF; DROP TABLE itemTags;")
        .unwrap();
    let e = read(&db, &ZoteroOptions::default()).unwrap_err();
    assert!(e.to_string().contains("`itemTags`"), "{e}");
}

#[test]
fn a_locked_database_is_read_from_its_copy() {
    let dir = tempfile::tempdir().unwrap();
    let db = library(dir.path());
    // As Zotero does while it runs: hold the file's lock, with a change not committed.
    let zotero = Connection::open(&db).unwrap();
    zotero.execute_batch("BEGIN EXCLUSIVE").unwrap();
    zotero
        .execute("UPDATE items SET key = 'LOCK2345' WHERE itemID = 1", [])
        .unwrap();
    // The lock is real: a reader of the file itself is refused.
    let direct = Connection::open_with_flags(&db, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    direct.busy_timeout(std::time::Duration::ZERO).unwrap();
    let busy = direct.query_row("SELECT COUNT(*) FROM items", [], |r| r.get::<_, i64>(0));
    assert!(busy.is_err(), "{busy:?}");

    let lib = read(&db, &ZoteroOptions::default()).unwrap();
    assert_eq!(lib.records.len(), 4);
    assert_eq!(lib.records[0]["id"], "ABCD2345", "the committed state");
    zotero.execute_batch("ROLLBACK").unwrap();
}

#[test]
fn a_write_under_way_is_read_as_its_last_committed_state() {
    let dir = tempfile::tempdir().unwrap();
    let db = library(dir.path());
    // As Zotero does mid-save in its rollback-journal mode: a transaction larger than the page
    // cache spills into the file, and the journal holds the pages it replaced.
    let zotero = Connection::open(&db).unwrap();
    zotero
        .execute_batch("PRAGMA cache_size = 2; BEGIN")
        .unwrap();
    zotero
        .execute("UPDATE items SET key = 'HALF2345' WHERE itemID = 1", [])
        .unwrap();
    for id in 100..400 {
        add_item(
            &zotero,
            id,
            &format!("K{id:07}"),
            "journalArticle",
            &[("title", &"an uncommitted title ".repeat(20))],
        );
    }
    let mut journal = db.as_os_str().to_owned();
    journal.push("-journal");
    assert!(PathBuf::from(&journal).is_file());
    // The file alone holds part of that write: a copy of it without the journal reads rows
    // that were never committed (or does not read at all).
    let alone = tempfile::tempdir().unwrap();
    fs::copy(&db, alone.path().join(DATABASE_FILE)).unwrap();
    let torn = Connection::open(alone.path().join(DATABASE_FILE))
        .and_then(|c| c.query_row("SELECT COUNT(*) FROM items", [], |r| r.get::<_, i64>(0)));
    assert!(!matches!(torn, Ok(n) if n < 100), "{torn:?}");

    let lib = read(&db, &ZoteroOptions::default()).unwrap();
    assert_eq!(lib.records.len(), 4, "{:?}", record_ids(&lib));
    assert_eq!(lib.records[0]["id"], "ABCD2345", "the committed state");
    zotero.execute_batch("ROLLBACK").unwrap();
}

#[test]
fn a_group_item_with_a_key_already_used_gets_its_own_id() {
    let dir = tempfile::tempdir().unwrap();
    let db = library(dir.path());
    let conn = Connection::open(&db).unwrap();
    conn.execute_batch(
        "INSERT INTO libraries (libraryID, type, editable, filesEditable) VALUES (2, 'group', 1, 1);
         INSERT INTO groups (groupID, libraryID, name, description, version)
           VALUES (4711, 2, 'Lab', '', 0);",
    )
    .unwrap();
    // Keys are unique per library: the group's item may reuse the user library's key.
    for (id, key, title) in [
        (50, "ABCD2345", "A group paper"),
        (51, "GRUP2345", "Another"),
    ] {
        add_item(&conn, id, "TEMP2345", "journalArticle", &[("title", title)]);
        conn.execute(
            "UPDATE items SET libraryID = 2, key = ?1 WHERE itemID = ?2",
            rusqlite::params![key, id],
        )
        .unwrap();
    }
    drop(conn);
    let lib = read(&db, &ZoteroOptions::default()).unwrap();
    let ids = record_ids(&lib);
    assert!(ids.contains(&"ABCD2345"), "{ids:?}");
    assert!(ids.contains(&"ABCD2345-g4711"), "{ids:?}");
    // A group key no other item has stays as it is.
    assert!(ids.contains(&"GRUP2345"), "{ids:?}");
    assert!(
        lib.warnings
            .iter()
            .any(|w| w.contains("1 item(s) of group")),
        "{:?}",
        lib.warnings
    );
}

#[test]
fn changes_still_in_the_write_ahead_log_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let db = library(dir.path());
    let zotero = Connection::open(&db).unwrap();
    zotero
        .execute_batch("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;")
        .unwrap();
    add_item(
        &zotero,
        10,
        "WALW2345",
        "journalArticle",
        &[("title", "Only in the log")],
    );
    let mut wal = db.as_os_str().to_owned();
    wal.push("-wal");
    assert!(PathBuf::from(wal).is_file());
    let lib = read(&db, &ZoteroOptions::default()).unwrap();
    assert!(lib.records.iter().any(|r| r["id"] == "WALW2345"));
    drop(zotero);
}

#[test]
fn odd_values_zotero_keeps_are_cleaned_and_said_not_refused() {
    // A bad-input probe: one such value refused the whole library (exit 2, "fix them"), which
    // nobody can do inside zotero.sqlite.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join(DATABASE_FILE);
    let conn = empty_library(&db);
    add_item(
        &conn,
        1,
        "ODDS2345",
        "journalArticle",
        &[
            ("title", "A title\u{c}from a PDF"),
            ("abstractNote", "First line.\nSecond\u{1b}[0m line."),
            ("url", "www.example.com/paper"),
        ],
    );
    add_tag(&conn, 1, "bell\u{7}tag");
    add_item(
        &conn,
        2,
        "FILE2345",
        "journalArticle",
        &[("title", "A local file"), ("url", "file:///home/me/p.pdf")],
    );
    drop(conn);
    let corpus = crate::corpus::Corpus::load_with(
        std::slice::from_ref(&db),
        &crate::corpus::LoadOptions::default(),
    )
    .expect("the library is read");
    let p = &corpus.papers[0];
    assert_eq!(p.title, "A title from a PDF");
    assert_eq!(p.summary, "First line. Second [0m line.");
    assert_eq!(p.url, None);
    assert_eq!(corpus.papers[1].url, None);
    let warnings = corpus.warnings.join("\n");
    for said in [
        "ODDS2345: `title` held control characters (U+000C)",
        "ODDS2345: `url` \"www.example.com/paper\" is not an http(s) address",
        "FILE2345: `url`",
    ] {
        assert!(warnings.contains(said), "{said}: {warnings}");
    }
}

#[test]
fn oversized_values_are_cut_and_said() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join(DATABASE_FILE);
    let conn = empty_library(&db);
    let long = "é".repeat(MAX_FIELD_BYTES); // two bytes each
    add_item(
        &conn,
        1,
        "LONG2345",
        "journalArticle",
        &[("title", "A long abstract"), ("abstractNote", &long)],
    );
    drop(conn);
    let lib = read(&db, &ZoteroOptions::default()).unwrap();
    let summary = lib.records[0]["summary"].as_str().unwrap();
    assert_eq!(summary.len(), MAX_FIELD_BYTES);
    assert!(lib.warnings[0].contains("LONG2345") && lib.warnings[0].contains("abstractNote"));
    assert!(matches!(
        map_record(&lib.records[0], Origin::Json),
        Outcome::Paper(_)
    ));
}

#[test]
fn arxiv_ids_from_each_place() {
    assert_eq!(
        arxiv_of(Some("arXiv:2401.12345"), None, None, None).as_deref(),
        Some("2401.12345")
    );
    assert_eq!(
        arxiv_of(None, Some("arxiv: 2401.12345v2"), None, None).as_deref(),
        Some("2401.12345")
    );
    assert_eq!(
        arxiv_of(None, None, Some("10.48550/ARXIV.2401.12345"), None).as_deref(),
        Some("2401.12345")
    );
    assert_eq!(
        arxiv_of(
            None,
            None,
            None,
            Some("http://www.arxiv.org/pdf/2401.12345v1?x=1")
        )
        .as_deref(),
        Some("2401.12345")
    );
    assert_eq!(
        arxiv_of(
            None,
            Some("arXiv:"),
            Some("10.1145/1"),
            Some("https://example.org")
        ),
        None
    );
}

#[test]
fn the_copy_read_is_private_and_removed() {
    // A probe found interrupted reads leaving world-readable copies of the library in /tmp.
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let db = library(dir.path());
    let copy = schema::Copy::of(&db).unwrap();
    let folder = copy.file.parent().unwrap().to_path_buf();
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&folder), 0o700);
    assert_eq!(mode(&copy.file), 0o600);
    let name = folder.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.starts_with(&format!(".recommend.{}.zotero", std::process::id())),
        "named so a later run sweeps it after a SIGKILL: {name}"
    );
    drop(copy);
    assert!(!folder.exists());
}
