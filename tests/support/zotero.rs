//! A real `zotero.sqlite`, built from Zotero's own schema files (`tests/fixtures/zotero/`, see
//! its README): [`empty_library`] creates the database from them and fills the tables Zotero
//! fills from `schema.json` at run time (by name, with ids unlike Zotero's, so a reader must
//! join by name); the `add_*` helpers then add items as Zotero stores them.
//!
//! Shared by the integration tests (`crate::support::zotero`) and the unit tests of
//! `src/corpus/zotero/` (which include this file with `#[path]`), so it uses nothing of either
//! crate: only `rusqlite`.

use std::path::Path;

use rusqlite::{Connection, params};

pub const USERDATA: &str = include_str!("../fixtures/zotero/userdata.sql");
pub const SYSTEM: &str = include_str!("../fixtures/zotero/system.sql");

/// The version on the fixture's first line (`-- 123`).
pub fn fixture_version() -> i64 {
    USERDATA
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("-- "))
        .and_then(|v| v.trim().parse().ok())
        .expect("userdata.sql starts with its version")
}

/// An empty library of the fixture's schema, with the rows Zotero adds at startup.
pub fn empty_library(db: &Path) -> Connection {
    let conn = Connection::open(db).unwrap();
    conn.execute_batch(SYSTEM).unwrap();
    conn.execute_batch(USERDATA).unwrap();
    // As Zotero's schema.js records a schema version.
    conn.execute(
        "REPLACE INTO version (schema, version) VALUES ('userdata', ?1)",
        [fixture_version()],
    )
    .unwrap();
    conn.execute(
        "INSERT INTO libraries (libraryID, type, editable, filesEditable) VALUES (1, 'user', 1, 1)",
        [],
    )
    .unwrap();
    // Ids deliberately unlike Zotero's: the reader must join by name.
    let types = [
        "journalArticle",
        "preprint",
        "book",
        "note",
        "attachment",
        "annotation",
    ];
    insert_named(
        &conn,
        &types,
        (201, 7),
        [
            "INSERT INTO itemTypes (itemTypeID, typeName, templateItemTypeID, display) VALUES (?1, ?2, NULL, 1)",
            "INSERT INTO itemTypesCombined (itemTypeID, typeName, display, custom) VALUES (?1, ?2, 1, 0)",
        ],
    );
    // `pages` is a field no reader reads.
    let fields = [
        "title",
        "abstractNote",
        "date",
        "DOI",
        "url",
        "extra",
        "archiveID",
        "pages",
    ];
    insert_named(
        &conn,
        &fields,
        (503, -11),
        [
            "INSERT INTO fields (fieldID, fieldName, fieldFormatID) VALUES (?1, ?2, NULL)",
            "INSERT INTO fieldsCombined (fieldID, fieldName, label, fieldFormatID, custom) VALUES (?1, ?2, NULL, NULL, 0)",
        ],
    );
    conn.execute_batch(
        "INSERT INTO creatorTypes (creatorTypeID, creatorType) VALUES (31, 'author');
         INSERT INTO creatorTypes (creatorTypeID, creatorType) VALUES (37, 'editor');",
    )
    .unwrap();
    conn
}

/// Each of `names` as a row of every table `inserts` writes (`?1` the id, `?2` the name), the
/// ids counting from `first` by `step`.
fn insert_named(conn: &Connection, names: &[&str], (first, step): (i64, i64), inserts: [&str; 2]) {
    for (i, name) in names.iter().enumerate() {
        let id = first + step * i as i64;
        for sql in inserts {
            conn.execute(sql, params![id, name]).unwrap();
        }
    }
}

pub fn add_item(conn: &Connection, id: i64, key: &str, type_name: &str, fields: &[(&str, &str)]) {
    conn.execute(
        "INSERT INTO items (itemID, itemTypeID, libraryID, key)
         VALUES (?1, (SELECT itemTypeID FROM itemTypes WHERE typeName = ?2), 1, ?3)",
        params![id, type_name, key],
    )
    .unwrap();
    for (field, value) in fields {
        conn.execute(
            "INSERT OR IGNORE INTO itemDataValues (value) VALUES (?1)",
            [value],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO itemData (itemID, fieldID, valueID) VALUES (?1,
               (SELECT fieldID FROM fields WHERE fieldName = ?2),
               (SELECT valueID FROM itemDataValues WHERE value = ?3))",
            params![id, field, value],
        )
        .unwrap();
    }
}

pub fn add_creator(conn: &Connection, item: i64, first: &str, last: &str, kind: &str, order: i64) {
    let mode = i64::from(first.is_empty());
    conn.execute(
        "INSERT OR IGNORE INTO creators (firstName, lastName, fieldMode) VALUES (?1, ?2, ?3)",
        params![first, last, mode],
    )
    .unwrap();
    conn.execute(
        "INSERT INTO itemCreators (itemID, creatorID, creatorTypeID, orderIndex) VALUES (?1,
           (SELECT creatorID FROM creators WHERE firstName = ?2 AND lastName = ?3),
           (SELECT creatorTypeID FROM creatorTypes WHERE creatorType = ?4), ?5)",
        params![item, first, last, kind, order],
    )
    .unwrap();
}

pub fn add_tag(conn: &Connection, item: i64, name: &str) {
    conn.execute("INSERT OR IGNORE INTO tags (name) VALUES (?1)", [name])
        .unwrap();
    conn.execute(
        "INSERT INTO itemTags (itemID, tagID, type) VALUES (?1, (SELECT tagID FROM tags WHERE name = ?2), 0)",
        params![item, name],
    )
    .unwrap();
}

pub fn add_collection(conn: &Connection, id: i64, name: &str, parent: Option<i64>) {
    conn.execute(
        "INSERT INTO collections (collectionID, collectionName, parentCollectionID, libraryID, key)
         VALUES (?1, ?2, ?3, 1, ?4)",
        params![id, name, parent, format!("COLL{id:04}")],
    )
    .unwrap();
}

pub fn file(conn: &Connection, collection: i64, item: i64) {
    conn.execute(
        "INSERT INTO collectionItems (collectionID, itemID) VALUES (?1, ?2)",
        params![collection, item],
    )
    .unwrap();
}

/// A child note of `parent`, as Zotero stores notes (an item of type `note` and its text).
pub fn add_note(conn: &Connection, id: i64, key: &str, parent: i64, text: &str) {
    add_item(conn, id, key, "note", &[]);
    conn.execute(
        "INSERT INTO itemNotes (itemID, parentItemID, note, title) VALUES (?1, ?2, ?3, ?4)",
        params![id, parent, format!("<p>{text}</p>"), text],
    )
    .unwrap();
}

/// A stored PDF attachment of `parent`.
pub fn add_attachment(conn: &Connection, id: i64, key: &str, parent: i64, title: &str) {
    add_item(conn, id, key, "attachment", &[("title", title)]);
    conn.execute(
        "INSERT INTO itemAttachments (itemID, parentItemID, linkMode, contentType, path)
         VALUES (?1, ?2, 0, 'application/pdf', 'storage:paper.pdf')",
        params![id, parent],
    )
    .unwrap();
}

/// A highlight annotation on the attachment `parent`.
pub fn add_annotation(conn: &Connection, id: i64, key: &str, parent: i64, text: &str) {
    add_item(conn, id, key, "annotation", &[]);
    conn.execute(
        "INSERT INTO itemAnnotations (itemID, parentItemID, type, text, sortIndex, position, isExternal)
         VALUES (?1, ?2, 1, ?3, '00000|000000|00000', '{}', 0)",
        params![id, parent, text],
    )
    .unwrap();
}

/// The collections of every test library: 1 "Reading group", 2 "Deep Learning" and 3
/// "Transformers" inside it.
pub fn add_collections(conn: &Connection) {
    add_collection(conn, 1, "Reading group", None);
    add_collection(conn, 2, "Deep Learning", None);
    add_collection(conn, 3, "Transformers", Some(2));
}

/// The items of every test library that a reader leaves out, as items `first` to `first + 3`:
/// a note of item `paper`, a PDF attachment of it with a highlight, and a paper filed in
/// "Deep Learning" and then trashed.
pub fn add_left_out(conn: &Connection, first: i64, paper: i64) {
    add_note(conn, first, "NOTE2345", paper, "read for the reading group");
    add_attachment(conn, first + 1, "ATTA2345", paper, "Full Text PDF");
    add_annotation(conn, first + 2, "ANNO2345", first + 1, "a highlight");
    let trashed = first + 3;
    add_item(
        conn,
        trashed,
        "TRSH2345",
        "journalArticle",
        &[("title", "Thrown away"), ("abstractNote", "Not wanted.")],
    );
    file(conn, 2, trashed);
    trash(conn, trashed);
}

/// `n` random bytes (xorshift, a fixed seed), as a damaged or foreign `zotero.sqlite` would be.
pub fn random_bytes(n: usize) -> Vec<u8> {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// Move `item` to Zotero's trash.
pub fn trash(conn: &Connection, item: i64) {
    conn.execute("INSERT INTO deletedItems (itemID) VALUES (?1)", [item])
        .unwrap();
}
