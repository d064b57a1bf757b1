//! A Zotero library read straight from its database (`zotero.sqlite`), so a user can index the
//! papers they already collect without exporting them first (issue 37).
//!
//! Each regular item becomes a [`Record`] of the keys the other importers produce (see
//! [`super::fields`]): `id` (the item's Zotero key, stable across syncs and edits), `title`,
//! `summary` (`abstractNote`), `author` ("First Last", in Zotero's order), `year` (from `date`),
//! `doi`, `url`, `arxiv`, `keywords` (the item's tags and the names of its collections: a user's
//! own words, which the corpus keeps in `keywords`; `tags` is the curated vocabulary), `topic`
//! (its first collection) and `also_topics` (its other collections). The records then go
//! through [`super::fields::map_record`] like any other import.
//!
//! Left out, and counted in [`Skipped`]: notes, attachments, annotations, items in the trash,
//! items of RSS feeds, items outside `--collection`, items without a title.
//!
//! Why it reads a copy: Zotero keeps `zotero.sqlite` locked while it runs, and a reader that
//! waited for the lock would wait until Zotero quits. The file (and its `-wal` journal, which
//! holds the latest changes) is copied to a temporary directory, and the copy is opened
//! read-only: Zotero's file is never written, and it may stay open.
//!
//! A copy taken while Zotero is in the middle of writing may be torn; SQLite then reports the
//! copy as damaged, and [`ZoteroError::NotSqlite`] says to run again (or close Zotero first).
//!
//! Zotero's tables are joined by name (`itemTypes.typeName`, `fields.fieldName`), never by
//! numeric id: since Zotero moved its item types to `schema.json` the ids are assigned per
//! installation.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use rusqlite::types::ValueRef;
use rusqlite::{Connection, ErrorCode, OpenFlags};
use serde_json::Value;

use super::fields::{MAX_FIELD_BYTES, Record, normalize_arxiv, normalize_doi, year_in};

/// The database file in a Zotero data directory.
pub const DATABASE_FILE: &str = "zotero.sqlite";

/// Oldest userdata schema read: Zotero 5.0's, the first to keep creators' names in `creators`
/// (Zotero 4 had a separate `creatorData` table). Every table read here exists from it on.
pub const MIN_USERDATA_VERSION: i64 = 80;

/// Newest userdata schema read: the one of the test fixture
/// (`tests/fixtures/zotero/userdata.sql`). A newer Zotero may have moved what is read here, so
/// a newer file is refused with a clear message rather than read wrongly; raise this after
/// checking the new schema (and updating the fixture).
pub const MAX_USERDATA_VERSION: i64 = 123;

/// Most items (of every kind, notes and attachments included) a library may hold: the largest
/// real libraries hold about 100,000; past this the file is not a library we can index in
/// memory.
pub const MAX_ITEMS: u64 = 1_000_000;

/// Largest database file copied (4 GiB): the copy goes to the temporary directory, and a
/// library of [`MAX_ITEMS`] items is far smaller.
pub const MAX_DATABASE_BYTES: u64 = 4 << 30;

/// What to read.
#[derive(Debug, Clone, Default)]
pub struct ZoteroOptions {
    /// Keep only the items of the collection of this name and of its sub-collections (at any
    /// depth). Matched exactly, else ignoring case; several collections of that name (in
    /// different parents or libraries) are all kept.
    pub collection: Option<String>,
}

/// A library as records, and what was left out.
#[derive(Debug, Clone, Default)]
pub struct ZoteroLibrary {
    /// One record per regular item kept, in the order Zotero added them.
    pub records: Vec<Record>,
    pub skipped: Skipped,
    /// What was changed on the way, one line each, naming the item key: a value cut to
    /// [`MAX_FIELD_BYTES`], a DOI field that holds no DOI (left out).
    pub warnings: Vec<String>,
    /// The userdata schema version of the database.
    pub schema_version: i64,
}

/// Items not turned into records, by reason (an item is counted once, under the first reason
/// that applies, in this order).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Skipped {
    pub notes: usize,
    pub attachments: usize,
    pub annotations: usize,
    /// Items in Zotero's trash (`deletedItems`).
    pub trashed: usize,
    /// Items of RSS feeds (they live in the database but are not the user's library).
    pub feed_items: usize,
    /// Items not in `--collection` or its sub-collections.
    pub outside_collection: usize,
    /// Regular items without a title.
    pub untitled: usize,
}

impl Skipped {
    pub fn total(&self) -> usize {
        self.notes
            + self.attachments
            + self.annotations
            + self.trashed
            + self.feed_items
            + self.outside_collection
            + self.untitled
    }
}

/// Why a library could not be read. Each message names the file and says what to do next.
#[derive(Debug, thiserror::Error)]
pub enum ZoteroError {
    #[error(
        "{}: no such file or directory; give the Zotero data directory (Zotero: Settings > \
         Advanced > Files and Folders > Show Data Directory) or its zotero.sqlite",
        path.display()
    )]
    NotFound { path: PathBuf },
    #[error(
        "{}: a directory without {DATABASE_FILE}; give the Zotero data directory (Zotero: \
         Settings > Advanced > Files and Folders > Show Data Directory), not the profile or \
         storage directory",
        dir.display()
    )]
    NoDatabaseInDirectory { dir: PathBuf },
    #[error(
        "{}: {bytes} bytes, more than the {MAX_DATABASE_BYTES} a Zotero database may have here; \
         is this the right file?",
        path.display()
    )]
    TooLarge { path: PathBuf, bytes: u64 },
    // The OS error is part of the message, not a `source`: `{:#}` would print it twice.
    #[error(
        "cannot copy {} to read it ({error}); if Zotero is running and holds the file, close \
         Zotero and run again",
        path.display()
    )]
    Uncopyable {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error(
        "{}: not a SQLite database, or a damaged one ({detail}); if Zotero was saving, run \
         again (or close Zotero first); else give Zotero's own zotero.sqlite (a backup is \
         zotero.sqlite.bak), or let Zotero repair it (Settings > Advanced > Files and Folders > \
         Database Maintenance)",
        path.display()
    )]
    NotSqlite { path: PathBuf, detail: String },
    #[error(
        "{}: a SQLite database, but not a Zotero library ({detail}); give the zotero.sqlite of \
         the Zotero data directory",
        path.display()
    )]
    NotZotero { path: PathBuf, detail: String },
    #[error(
        "{}: Zotero userdata schema {version}, which this version of recommend does not read \
         (it reads {MIN_USERDATA_VERSION} to {MAX_USERDATA_VERSION}); {}",
        path.display(),
        if *version < MIN_USERDATA_VERSION {
            "open the library once in a current Zotero to upgrade it, then run again"
        } else {
            "a newer Zotero wrote it: update recommend, or export the library from Zotero as \
             BibTeX or CSV and index that file"
        }
    )]
    UnsupportedVersion { path: PathBuf, version: i64 },
    #[error(
        "{}: {count} items, more than the {MAX_ITEMS} read at once; export a collection from \
         Zotero (or give --collection) and index that",
        path.display()
    )]
    TooManyItems { path: PathBuf, count: u64 },
    #[error(
        "no collection named {name:?} in the library; collections, closest first: {}",
        list_names(known)
    )]
    UnknownCollection { name: String, known: Vec<String> },
    #[error("cannot read {}: {detail}; check the file, or close Zotero and run again", path.display())]
    Read { path: PathBuf, detail: String },
}

fn list_names(names: &[String]) -> String {
    const SHOWN: usize = 20;
    if names.is_empty() {
        return "(the library has none)".into();
    }
    let mut s = names
        .iter()
        .take(SHOWN)
        .map(|n| format!("{n:?}"))
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > SHOWN {
        s.push_str(&format!(" and {} more", names.len() - SHOWN));
    }
    s
}

/// Read the Zotero library at `path`: a Zotero data directory (holding `zotero.sqlite`) or
/// the database file itself. Works while Zotero runs (see the module doc); never writes to
/// `path`.
pub fn read(path: &Path, options: &ZoteroOptions) -> Result<ZoteroLibrary, ZoteroError> {
    let db = database_file(path)?;
    let bytes = fs::metadata(&db)
        .map_err(|error| ZoteroError::Uncopyable {
            path: db.clone(),
            error,
        })?
        .len();
    if bytes > MAX_DATABASE_BYTES {
        return Err(ZoteroError::TooLarge { path: db, bytes });
    }
    let copy = Copy::of(&db)?;
    let conn = Connection::open_with_flags(
        &copy.file,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| sql_error(&db, e))?;
    let schema_version = check_schema(&conn, &db)?;
    let mut library = Reader {
        conn: &conn,
        db: &db,
    }
    .library(options)?;
    library.schema_version = schema_version;
    Ok(library)
}

/// `path` itself, or `path/zotero.sqlite` when `path` is a directory.
fn database_file(path: &Path) -> Result<PathBuf, ZoteroError> {
    let meta = fs::metadata(path).map_err(|error| match error.kind() {
        std::io::ErrorKind::NotFound => ZoteroError::NotFound { path: path.into() },
        _ => ZoteroError::Uncopyable {
            path: path.into(),
            error,
        },
    })?;
    if !meta.is_dir() {
        return Ok(path.to_path_buf());
    }
    let db = path.join(DATABASE_FILE);
    if db.is_file() {
        Ok(db)
    } else {
        Err(ZoteroError::NoDatabaseInDirectory { dir: path.into() })
    }
}

/// A copy of the database (and its write-ahead log) in a temporary directory, removed on drop.
struct Copy {
    _dir: tempfile::TempDir,
    file: PathBuf,
}

impl Copy {
    fn of(db: &Path) -> Result<Copy, ZoteroError> {
        let uncopyable = |error| ZoteroError::Uncopyable {
            path: db.into(),
            error,
        };
        let dir = tempfile::Builder::new()
            .prefix("recommend-zotero-")
            .tempdir()
            .map_err(uncopyable)?;
        let file = dir.path().join(DATABASE_FILE);
        fs::copy(db, &file).map_err(uncopyable)?;
        // The log holds changes not yet written into the file (Zotero checkpoints it from time
        // to time): without it the copy would miss the latest edits. The `-shm` index is
        // rebuilt from the log, so it is not copied.
        let mut wal = db.as_os_str().to_owned();
        wal.push("-wal");
        let wal = PathBuf::from(wal);
        if wal.is_file() {
            fs::copy(&wal, dir.path().join(format!("{DATABASE_FILE}-wal"))).map_err(|error| {
                ZoteroError::Uncopyable {
                    path: wal.clone(),
                    error,
                }
            })?;
        }
        Ok(Copy { _dir: dir, file })
    }
}

/// A SQLite error as the user needs it: a file that is not a database (or a damaged one) is
/// named as such; anything else is a read failure.
fn sql_error(db: &Path, e: rusqlite::Error) -> ZoteroError {
    if let rusqlite::Error::SqliteFailure(f, _) = &e
        && matches!(f.code, ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt)
    {
        return ZoteroError::NotSqlite {
            path: db.into(),
            detail: e.to_string(),
        };
    }
    ZoteroError::Read {
        path: db.into(),
        detail: e.to_string(),
    }
}

/// Tables and the columns of them that are read (optional tables aside).
const REQUIRED: &[(&str, &[&str])] = &[
    ("items", &["itemID", "itemTypeID", "key"]),
    ("itemTypes", &["itemTypeID", "typeName"]),
    ("fields", &["fieldID", "fieldName"]),
    ("itemData", &["itemID", "fieldID", "valueID"]),
    ("itemDataValues", &["valueID", "value"]),
    (
        "creators",
        &["creatorID", "firstName", "lastName", "fieldMode"],
    ),
    (
        "itemCreators",
        &["itemID", "creatorID", "creatorTypeID", "orderIndex"],
    ),
    ("tags", &["tagID", "name"]),
    ("itemTags", &["itemID", "tagID"]),
    (
        "collections",
        &["collectionID", "collectionName", "parentCollectionID"],
    ),
    ("collectionItems", &["collectionID", "itemID"]),
    ("deletedItems", &["itemID"]),
];

/// The userdata schema version, once it is known to be read and the tables read are there.
fn check_schema(conn: &Connection, db: &Path) -> Result<i64, ZoteroError> {
    let not_zotero = |detail: String| ZoteroError::NotZotero {
        path: db.into(),
        detail,
    };
    // The first read of the file: a file that is not a database fails here.
    if !table_exists(conn, "version").map_err(|e| sql_error(db, e))? {
        return Err(not_zotero("it has no `version` table".into()));
    }
    let version: Option<i64> = conn
        .query_row(
            "SELECT CAST(version AS INTEGER) FROM version WHERE schema = 'userdata'",
            [],
            |r| r.get(0),
        )
        .map(Some)
        .or_else(|e| match e {
            rusqlite::Error::QueryReturnedNoRows => Ok(None),
            e => Err(sql_error(db, e)),
        })?;
    let Some(version) = version else {
        return Err(not_zotero("its `version` table has no userdata row".into()));
    };
    if !(MIN_USERDATA_VERSION..=MAX_USERDATA_VERSION).contains(&version) {
        return Err(ZoteroError::UnsupportedVersion {
            path: db.into(),
            version,
        });
    }
    for (table, columns) in REQUIRED {
        let present = columns_of(conn, table).map_err(|e| sql_error(db, e))?;
        if present.is_empty() {
            return Err(not_zotero(format!("it has no `{table}` table")));
        }
        if let Some(c) = columns.iter().find(|c| !present.contains(**c)) {
            return Err(not_zotero(format!(
                "its `{table}` table has no `{c}` column"
            )));
        }
    }
    Ok(version)
}

fn table_exists(conn: &Connection, table: &str) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1)",
        [table],
        |r| r.get(0),
    )
}

fn columns_of(conn: &Connection, table: &str) -> rusqlite::Result<HashSet<String>> {
    let mut stmt = conn.prepare("SELECT name FROM pragma_table_info(?1)")?;
    let rows = stmt.query_map([table], |r| r.get::<_, String>(0))?;
    rows.collect()
}

/// The fields read, by Zotero field name. Zotero stores some item types' titles under their
/// own names (a case's `caseName`, a statute's `nameOfAct`, an email's `subject`): they are
/// read as titles when `title` is absent.
const FIELDS: &[&str] = &[
    "title",
    "caseName",
    "nameOfAct",
    "subject",
    "abstractNote",
    "date",
    "DOI",
    "url",
    "extra",
    "archiveID",
];

/// One item's data as read.
#[derive(Default)]
struct Item {
    key: String,
    fields: HashMap<&'static str, String>,
    /// (name, creator type) in Zotero's order.
    creators: Vec<(String, Option<String>)>,
    tags: Vec<String>,
    collections: Vec<i64>,
}

struct Reader<'a> {
    conn: &'a Connection,
    db: &'a Path,
}

/// One row of `items`, classified.
struct ItemRow {
    id: i64,
    key: String,
    type_name: Option<String>,
    trashed: bool,
    feed: bool,
}

/// A collection: name and parent.
struct Collection {
    name: String,
    parent: Option<i64>,
}

impl Reader<'_> {
    fn err(&self, e: rusqlite::Error) -> ZoteroError {
        sql_error(self.db, e)
    }

    fn library(&self, options: &ZoteroOptions) -> Result<ZoteroLibrary, ZoteroError> {
        let count: i64 = self
            .conn
            .query_row("SELECT COUNT(*) FROM items", [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        let count = u64::try_from(count).unwrap_or(0);
        if count > MAX_ITEMS {
            return Err(ZoteroError::TooManyItems {
                path: self.db.into(),
                count,
            });
        }
        let collections = self.collections()?;
        let wanted = match &options.collection {
            Some(name) => Some(selected(&collections, name)?),
            None => None,
        };
        let mut library = ZoteroLibrary::default();
        let mut items: Vec<Item> = Vec::new();
        let mut index: HashMap<i64, usize> = HashMap::new();
        let membership = self.membership()?;
        for row in self.item_rows()? {
            let s = &mut library.skipped;
            match row.type_name.as_deref() {
                Some("note") => s.notes += 1,
                Some("attachment") => s.attachments += 1,
                Some("annotation") => s.annotations += 1,
                _ if row.trashed => s.trashed += 1,
                _ if row.feed => s.feed_items += 1,
                _ => {
                    let in_collections: Vec<i64> = membership
                        .get(&row.id)
                        .map(|c| {
                            c.iter()
                                .copied()
                                .filter(|c| collections.contains_key(c))
                                .collect()
                        })
                        .unwrap_or_default();
                    if let Some(wanted) = &wanted
                        && !in_collections.iter().any(|c| wanted.contains(c))
                    {
                        s.outside_collection += 1;
                        continue;
                    }
                    index.insert(row.id, items.len());
                    items.push(Item {
                        key: row.key,
                        collections: in_collections,
                        ..Item::default()
                    });
                }
            }
        }
        self.fill_fields(&mut items, &index, &mut library.warnings)?;
        self.fill_creators(&mut items, &index)?;
        self.fill_tags(&mut items, &index)?;
        for item in items {
            match record_of(item, &collections, wanted.as_ref(), &mut library.warnings) {
                Some(r) => library.records.push(r),
                None => library.skipped.untitled += 1,
            }
        }
        Ok(library)
    }

    /// Every item with its type name, and whether it is trashed or a feed's.
    fn item_rows(&self) -> Result<Vec<ItemRow>, ZoteroError> {
        let feeds = table_exists(self.conn, "feedItems").map_err(|e| self.err(e))?;
        let sql = format!(
            "SELECT i.itemID, i.key, t.typeName, d.itemID IS NOT NULL, {}
             FROM items i
             LEFT JOIN itemTypes t ON t.itemTypeID = i.itemTypeID
             LEFT JOIN deletedItems d ON d.itemID = i.itemID
             ORDER BY i.itemID",
            if feeds {
                "EXISTS (SELECT 1 FROM feedItems f WHERE f.itemID = i.itemID)"
            } else {
                "0"
            }
        );
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok(ItemRow {
                    id: r.get(0)?,
                    key: text(r.get_ref(1)?),
                    type_name: r.get(2)?,
                    trashed: r.get(3)?,
                    feed: r.get(4)?,
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    /// Collections not in the trash, by id.
    fn collections(&self) -> Result<HashMap<i64, Collection>, ZoteroError> {
        let trash = table_exists(self.conn, "deletedCollections").map_err(|e| self.err(e))?;
        let sql = format!(
            "SELECT c.collectionID, c.collectionName, c.parentCollectionID FROM collections c{}",
            if trash {
                " WHERE c.collectionID NOT IN (SELECT collectionID FROM deletedCollections)"
            } else {
                ""
            }
        );
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    Collection {
                        name: text(r.get_ref(1)?),
                        parent: r.get(2)?,
                    },
                ))
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    /// The collections of each item, oldest collection first.
    fn membership(&self) -> Result<HashMap<i64, Vec<i64>>, ZoteroError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT itemID, collectionID FROM collectionItems ORDER BY itemID, collectionID",
            )
            .map_err(|e| self.err(e))?;
        let mut rows = stmt.query([]).map_err(|e| self.err(e))?;
        let mut out: HashMap<i64, Vec<i64>> = HashMap::new();
        while let Some(r) = rows.next().map_err(|e| self.err(e))? {
            let item: i64 = r.get(0).map_err(|e| self.err(e))?;
            let collection: i64 = r.get(1).map_err(|e| self.err(e))?;
            out.entry(item).or_default().push(collection);
        }
        Ok(out)
    }

    fn fill_fields(
        &self,
        items: &mut [Item],
        index: &HashMap<i64, usize>,
        warnings: &mut Vec<String>,
    ) -> Result<(), ZoteroError> {
        let names = FIELDS
            .iter()
            .map(|f| format!("'{f}'"))
            .collect::<Vec<_>>()
            .join(", ");
        // The value is cut in SQL, so an oversized value is never read whole (as bytes: SQL's
        // `substr` of text counts characters). `length` of a blob is its size in bytes.
        let sql = format!(
            "SELECT d.itemID, f.fieldName, substr(CAST(v.value AS BLOB), 1, {limit}),
                    length(CAST(v.value AS BLOB))
             FROM itemData d
             JOIN fields f ON f.fieldID = d.fieldID
             JOIN itemDataValues v ON v.valueID = d.valueID
             WHERE f.fieldName IN ({names})",
            limit = MAX_FIELD_BYTES + 4
        );
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.err(e))?;
        let mut rows = stmt.query([]).map_err(|e| self.err(e))?;
        while let Some(r) = rows.next().map_err(|e| self.err(e))? {
            let id: i64 = r.get(0).map_err(|e| self.err(e))?;
            let Some(&i) = index.get(&id) else { continue };
            let name: String = r.get(1).map_err(|e| self.err(e))?;
            let Some(&name) = FIELDS.iter().find(|f| **f == name) else {
                continue;
            };
            let bytes: Vec<u8> = match r.get_ref(2).map_err(|e| self.err(e))? {
                ValueRef::Blob(b) | ValueRef::Text(b) => b.to_vec(),
                _ => continue,
            };
            let size: i64 = r.get(3).map_err(|e| self.err(e))?;
            let mut value = String::from_utf8_lossy(&bytes).into_owned();
            if value.len() > MAX_FIELD_BYTES {
                let mut cut = MAX_FIELD_BYTES;
                while !value.is_char_boundary(cut) {
                    cut -= 1;
                }
                value.truncate(cut);
                warnings.push(format!(
                    "{}: `{name}` held {size} bytes, more than the {MAX_FIELD_BYTES} a field may \
                     hold; kept the first {cut}",
                    items[i].key
                ));
            }
            items[i].fields.insert(name, value);
        }
        Ok(())
    }

    fn fill_creators(
        &self,
        items: &mut [Item],
        index: &HashMap<i64, usize>,
    ) -> Result<(), ZoteroError> {
        let types = table_exists(self.conn, "creatorTypes").map_err(|e| self.err(e))?;
        let sql = format!(
            "SELECT ic.itemID, c.firstName, c.lastName, c.fieldMode, {}
             FROM itemCreators ic
             JOIN creators c ON c.creatorID = ic.creatorID
             {}
             ORDER BY ic.itemID, ic.orderIndex",
            if types { "ct.creatorType" } else { "NULL" },
            if types {
                "LEFT JOIN creatorTypes ct ON ct.creatorTypeID = ic.creatorTypeID"
            } else {
                ""
            }
        );
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.err(e))?;
        let mut rows = stmt.query([]).map_err(|e| self.err(e))?;
        while let Some(r) = rows.next().map_err(|e| self.err(e))? {
            let id: i64 = r.get(0).map_err(|e| self.err(e))?;
            let Some(&i) = index.get(&id) else { continue };
            let first = bounded(text(r.get_ref(1).map_err(|e| self.err(e))?));
            let last = bounded(text(r.get_ref(2).map_err(|e| self.err(e))?));
            // fieldMode 1: a one-field name (an institution), kept in lastName.
            let single: Option<i64> = r.get(3).unwrap_or(None);
            let name = if single == Some(1) || first.trim().is_empty() {
                last.trim().to_string()
            } else {
                format!("{} {}", first.trim(), last.trim())
                    .trim()
                    .to_string()
            };
            let kind: Option<String> = r.get(4).unwrap_or(None);
            if !name.is_empty() {
                items[i].creators.push((name, kind));
            }
        }
        Ok(())
    }

    fn fill_tags(
        &self,
        items: &mut [Item],
        index: &HashMap<i64, usize>,
    ) -> Result<(), ZoteroError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT it.itemID, t.name FROM itemTags it JOIN tags t ON t.tagID = it.tagID
                 ORDER BY it.itemID, t.name",
            )
            .map_err(|e| self.err(e))?;
        let mut rows = stmt.query([]).map_err(|e| self.err(e))?;
        while let Some(r) = rows.next().map_err(|e| self.err(e))? {
            let id: i64 = r.get(0).map_err(|e| self.err(e))?;
            let Some(&i) = index.get(&id) else { continue };
            let tag = bounded(text(r.get_ref(1).map_err(|e| self.err(e))?));
            if !tag.trim().is_empty() {
                items[i].tags.push(tag.trim().to_string());
            }
        }
        Ok(())
    }
}

/// Text of any SQLite value (Zotero's value columns have no declared type); NULL is empty.
fn text(v: ValueRef<'_>) -> String {
    match v {
        ValueRef::Null => String::new(),
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(f) => f.to_string(),
        ValueRef::Text(b) | ValueRef::Blob(b) => String::from_utf8_lossy(b).into_owned(),
    }
}

/// A name or tag cut to [`MAX_FIELD_BYTES`] (at a character boundary).
fn bounded(mut s: String) -> String {
    if s.len() > MAX_FIELD_BYTES {
        let mut cut = MAX_FIELD_BYTES;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
    }
    s
}

/// The ids of the collections named `name` and of all their sub-collections.
fn selected(
    collections: &HashMap<i64, Collection>,
    name: &str,
) -> Result<HashSet<i64>, ZoteroError> {
    let mut roots: Vec<i64> = collections
        .iter()
        .filter(|(_, c)| c.name == name)
        .map(|(id, _)| *id)
        .collect();
    if roots.is_empty() {
        let lower = name.to_lowercase();
        roots = collections
            .iter()
            .filter(|(_, c)| c.name.to_lowercase() == lower)
            .map(|(id, _)| *id)
            .collect();
    }
    if roots.is_empty() {
        let lower = name.to_lowercase();
        let mut known: Vec<String> = collections.values().map(|c| c.name.clone()).collect();
        known.sort();
        known.dedup();
        let score = |n: &str| {
            let n = n.to_lowercase();
            strsim::jaro_winkler(&lower, &n).max(strsim::normalized_levenshtein(&lower, &n))
        };
        known.sort_by(|a, b| score(b).total_cmp(&score(a)).then_with(|| a.cmp(b)));
        return Err(ZoteroError::UnknownCollection {
            name: name.into(),
            known,
        });
    }
    let mut children: HashMap<i64, Vec<i64>> = HashMap::new();
    for (id, c) in collections {
        if let Some(p) = c.parent {
            children.entry(p).or_default().push(*id);
        }
    }
    // A visited set: a damaged file may hold a cycle of parents.
    let mut out: HashSet<i64> = HashSet::new();
    let mut stack = roots;
    while let Some(id) = stack.pop() {
        if out.insert(id)
            && let Some(kids) = children.get(&id)
        {
            stack.extend(kids);
        }
    }
    Ok(out)
}

/// One item as a record; `None` when it has no title.
fn record_of(
    mut item: Item,
    collections: &HashMap<i64, Collection>,
    wanted: Option<&HashSet<i64>>,
    warnings: &mut Vec<String>,
) -> Option<Record> {
    let title = ["title", "caseName", "nameOfAct", "subject"]
        .iter()
        .find_map(|f| item.fields.remove(f).filter(|t| !t.trim().is_empty()))?;
    let mut r = Record::new();
    let s = |v: String| Value::String(v);
    r.insert("id".into(), s(item.key.clone()));
    r.insert("title".into(), s(title.trim().to_string()));
    if let Some(a) = item
        .fields
        .remove("abstractNote")
        .filter(|a| !a.trim().is_empty())
    {
        r.insert("summary".into(), s(a));
    }
    // Authors proper; an item without any (an edited book) is filed under its other creators.
    let has_authors = item
        .creators
        .iter()
        .any(|(_, k)| k.as_deref() == Some("author"));
    let authors: Vec<Value> = item
        .creators
        .into_iter()
        .filter(|(_, k)| !has_authors || k.as_deref() == Some("author"))
        .map(|(n, _)| s(n))
        .collect();
    if !authors.is_empty() {
        r.insert("author".into(), Value::Array(authors));
    }
    // Zotero stores `date` as "YYYY-MM-DD as typed" ("2017-00-00 2017").
    if let Some(y) = item.fields.get("date").and_then(|d| year_in(d)) {
        r.insert("year".into(), Value::from(y));
    }
    let doi = item.fields.remove("DOI").filter(|d| !d.trim().is_empty());
    if let Some(d) = &doi {
        match normalize_doi(d) {
            Some(d) => {
                r.insert("doi".into(), s(d));
            }
            None => warnings.push(format!(
                "{}: `DOI` {:?} is not a DOI like \"10.1145/3292500.3330701\"; left out",
                item.key,
                d.trim()
            )),
        }
    }
    let url = item.fields.remove("url").filter(|u| !u.trim().is_empty());
    if let Some(a) = arxiv_of(
        item.fields.get("archiveID").map(String::as_str),
        item.fields.get("extra").map(String::as_str),
        doi.as_deref(),
        url.as_deref(),
    ) {
        r.insert("arxiv".into(), s(a));
    }
    if let Some(u) = url {
        r.insert("url".into(), s(u.trim().to_string()));
    }
    // The topic is the item's first collection, inside `--collection` when one is given.
    let mut names: Vec<String> = Vec::new();
    let mut order = item.collections.clone();
    if let Some(w) = wanted {
        order.sort_by_key(|c| !w.contains(c));
    }
    for c in order {
        if let Some(c) = collections.get(&c) {
            let n = c.name.trim();
            if !n.is_empty() && !names.iter().any(|m| m == n) {
                names.push(n.to_string());
            }
        }
    }
    if let Some((first, rest)) = names.split_first() {
        r.insert("topic".into(), s(first.clone()));
        if !rest.is_empty() {
            r.insert(
                "also_topics".into(),
                Value::Array(rest.iter().cloned().map(s).collect()),
            );
        }
    }
    let mut keywords: Vec<String> = std::mem::take(&mut item.tags);
    keywords.extend(names);
    if !keywords.is_empty() {
        r.insert(
            "keywords".into(),
            Value::Array(keywords.into_iter().map(s).collect()),
        );
    }
    Some(r)
}

/// The arXiv id of an item, from (in this order) its `archiveID` (`arXiv:2503.14476`), an
/// `arXiv: ID` line of `extra`, a DOI of arXiv's (`10.48550/arXiv.2503.14476`), or an arXiv
/// URL (`arxiv.org/abs/ID`, `arxiv.org/pdf/ID`).
fn arxiv_of(
    archive_id: Option<&str>,
    extra: Option<&str>,
    doi: Option<&str>,
    url: Option<&str>,
) -> Option<String> {
    if let Some(a) = archive_id.and_then(normalize_arxiv) {
        return Some(a);
    }
    if let Some(a) = extra.and_then(|e| {
        e.lines().find_map(|line| {
            let line = line.trim();
            let rest = line
                .get(..6)
                .filter(|h| h.eq_ignore_ascii_case("arxiv:"))
                .map(|_| &line[6..])?;
            normalize_arxiv(rest.split_whitespace().next()?)
        })
    }) {
        return Some(a);
    }
    if let Some(a) = doi.and_then(normalize_doi).and_then(|d| {
        let prefix = "10.48550/arxiv.";
        d.get(..prefix.len())
            .filter(|h| h.eq_ignore_ascii_case(prefix))
            .and_then(|_| normalize_arxiv(&d[prefix.len()..]))
    }) {
        return Some(a);
    }
    let url = url?;
    let lower = url.to_ascii_lowercase();
    ["arxiv.org/abs/", "arxiv.org/pdf/"].iter().find_map(|p| {
        let at = lower.find(p)? + p.len();
        let rest = url.get(at..)?;
        let id = rest.split(['?', '#']).next()?.trim_end_matches('/');
        normalize_arxiv(id)
    })
}

#[cfg(test)]
mod tests {
    //! Built on Zotero's own schema files (`tests/fixtures/zotero/`, see its README): the test
    //! creates a `zotero.sqlite` from them, fills the tables Zotero fills from `schema.json` at
    //! run time (by name, with ids unlike Zotero's), then adds items as Zotero stores them.

    use super::*;
    use crate::corpus::fields::{Origin, Outcome, map_record};
    use rusqlite::params;

    const USERDATA: &str = include_str!("../../tests/fixtures/zotero/userdata.sql");
    const SYSTEM: &str = include_str!("../../tests/fixtures/zotero/system.sql");

    /// The version on the fixture's first line (`-- 123`).
    fn fixture_version() -> i64 {
        USERDATA
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("-- "))
            .and_then(|v| v.trim().parse().ok())
            .expect("userdata.sql starts with its version")
    }

    /// An empty library of the fixture's schema, with the rows Zotero adds at startup.
    fn empty_library(db: &Path) -> Connection {
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
        for (i, t) in types.iter().enumerate() {
            let id = 201 + 7 * i as i64;
            conn.execute(
                "INSERT INTO itemTypes (itemTypeID, typeName, templateItemTypeID, display) VALUES (?1, ?2, NULL, 1)",
                params![id, t],
            )
            .unwrap();
            conn.execute(
                "INSERT INTO itemTypesCombined (itemTypeID, typeName, display, custom) VALUES (?1, ?2, 1, 0)",
                params![id, t],
            )
            .unwrap();
        }
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
        for (i, f) in fields.iter().enumerate() {
            let id = 503 - 11 * i as i64;
            conn.execute(
                "INSERT INTO fields (fieldID, fieldName, fieldFormatID) VALUES (?1, ?2, NULL)",
                params![id, f],
            )
            .unwrap();
            conn.execute(
                "INSERT INTO fieldsCombined (fieldID, fieldName, label, fieldFormatID, custom) VALUES (?1, ?2, NULL, NULL, 0)",
                params![id, f],
            )
            .unwrap();
        }
        conn.execute_batch(
            "INSERT INTO creatorTypes (creatorTypeID, creatorType) VALUES (31, 'author');
             INSERT INTO creatorTypes (creatorTypeID, creatorType) VALUES (37, 'editor');",
        )
        .unwrap();
        conn
    }

    fn add_item(conn: &Connection, id: i64, key: &str, type_name: &str, fields: &[(&str, &str)]) {
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

    fn add_creator(conn: &Connection, item: i64, first: &str, last: &str, kind: &str, order: i64) {
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

    fn add_tag(conn: &Connection, item: i64, name: &str) {
        conn.execute("INSERT OR IGNORE INTO tags (name) VALUES (?1)", [name])
            .unwrap();
        conn.execute(
            "INSERT INTO itemTags (itemID, tagID, type) VALUES (?1, (SELECT tagID FROM tags WHERE name = ?2), 0)",
            params![item, name],
        )
        .unwrap();
    }

    fn add_collection(conn: &Connection, id: i64, name: &str, parent: Option<i64>) {
        conn.execute(
            "INSERT INTO collections (collectionID, collectionName, parentCollectionID, libraryID, key)
             VALUES (?1, ?2, ?3, 1, ?4)",
            params![id, name, parent, format!("COLL{id:04}")],
        )
        .unwrap();
    }

    fn file(conn: &Connection, collection: i64, item: i64) {
        conn.execute(
            "INSERT INTO collectionItems (collectionID, itemID) VALUES (?1, ?2)",
            params![collection, item],
        )
        .unwrap();
    }

    /// A small library: three papers and a book, a note, an attachment with an annotation, a
    /// trashed paper, an untitled one; collections "Reading group", "Deep Learning" and its
    /// sub-collection "Transformers".
    fn library(dir: &Path) -> PathBuf {
        let db = dir.join(DATABASE_FILE);
        let conn = empty_library(&db);
        add_collection(&conn, 1, "Reading group", None);
        add_collection(&conn, 2, "Deep Learning", None);
        add_collection(&conn, 3, "Transformers", Some(2));

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

        add_item(&conn, 4, "NOTE2345", "note", &[]);
        conn.execute(
            "INSERT INTO itemNotes (itemID, parentItemID, note, title) VALUES (4, 1, '<p>read</p>', 'read')",
            [],
        )
        .unwrap();
        add_item(
            &conn,
            5,
            "ATTA2345",
            "attachment",
            &[("title", "Full Text PDF")],
        );
        conn.execute(
            "INSERT INTO itemAttachments (itemID, parentItemID, linkMode, contentType, path)
             VALUES (5, 1, 0, 'application/pdf', 'storage:paper.pdf')",
            [],
        )
        .unwrap();
        add_item(&conn, 6, "ANNO2345", "annotation", &[]);
        conn.execute(
            "INSERT INTO itemAnnotations (itemID, parentItemID, type, text, sortIndex, position, isExternal)
             VALUES (6, 5, 1, 'a highlight', '00000|000000|00000', '{}', 0)",
            [],
        )
        .unwrap();

        add_item(
            &conn,
            7,
            "TRSH2345",
            "journalArticle",
            &[("title", "Thrown away")],
        );
        file(&conn, 2, 7);
        conn.execute("INSERT INTO deletedItems (itemID) VALUES (7)", [])
            .unwrap();

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
        let ids: Vec<&str> = lib
            .records
            .iter()
            .map(|r| r["id"].as_str().unwrap())
            .collect();
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
        let ids: Vec<&str> = lib
            .records
            .iter()
            .map(|r| r["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, ["ABCD2345"]);
        assert_eq!(
            lib.records[0]["topic"], "Transformers",
            "the topic inside the collection"
        );
        assert_eq!(lib.skipped.outside_collection, 4);
        assert_eq!(lib.skipped.trashed, 1);

        let lib = read(&db, &only("Reading group")).unwrap();
        let ids: Vec<&str> = lib
            .records
            .iter()
            .map(|r| r["id"].as_str().unwrap())
            .collect();
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
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let bytes: Vec<u8> = (0..8192)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect();
        fs::write(&db, bytes).unwrap();
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
}
