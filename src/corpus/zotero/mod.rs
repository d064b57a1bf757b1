//! A Zotero library read straight from its database (`zotero.sqlite`), so a user can index the
//! papers they already collect without exporting them first (issue 37).
//!
//! Each regular item becomes a [`Record`] of the keys the other importers produce (see
//! [`super::fields`]): `id` (the item's Zotero key, stable across syncs and edits; `KEY-gGROUPID` for an item of a group library whose key another library's item has), `title`,
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
//! waited for the lock would wait until Zotero quits. The file and its journal (a `-wal` log
//! holding the latest changes, or a `-journal` holding what a write under way replaced) are
//! copied to a private temporary directory, where SQLite brings the copy to the last committed
//! state: Zotero's files are never written, and Zotero may stay open.
//!
//! A copy taken while Zotero is in the middle of writing may be torn; SQLite then reports the
//! copy as damaged, and [`ZoteroError::NotSqlite`] says to run again (or close Zotero first).
//!
//! Zotero's tables are joined by name (`itemTypes.typeName`, `fields.fieldName`), never by
//! numeric id: since Zotero moved its item types to `schema.json` the ids are assigned per
//! installation.
//!
//! The code: this file holds the API (options, the library, errors, [`read`]); `schema` finds
//! and copies the database and checks its schema version and tables; `items` queries the
//! items; `record` turns one item into a record.

mod items;
mod record;
mod schema;

#[cfg(test)]
mod tests;

use std::fs;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use super::fields::Record;
use items::Reader;
use schema::{Copy, check_schema, database_file, sql_error};

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
    /// [`MAX_FIELD_BYTES`](super::fields::MAX_FIELD_BYTES), a DOI field that holds no DOI (left out).
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

impl std::fmt::Display for Skipped {
    /// "1 note, 2 attachments, 1 in the trash": the kinds that occur.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kinds = [
            (self.notes, "note", "notes"),
            (self.attachments, "attachment", "attachments"),
            (self.annotations, "annotation", "annotations"),
            (self.trashed, "in the trash", "in the trash"),
            (self.feed_items, "feed item", "feed items"),
            (
                self.outside_collection,
                "outside the collection",
                "outside the collection",
            ),
            (self.untitled, "without a title", "without a title"),
        ];
        let parts: Vec<String> = kinds
            .iter()
            .filter(|(n, _, _)| *n > 0)
            .map(|(n, one, many)| format!("{n} {}", if *n == 1 { one } else { many }))
            .collect();
        f.write_str(&parts.join(", "))
    }
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

/// Whether `path` is a file that begins as every SQLite database does, for a library given
/// under another name than `.sqlite` (Zotero's backup is `zotero.sqlite.bak`). Only the
/// header is read; any error reads as "no".
pub fn is_database(path: &Path) -> bool {
    const HEADER: &[u8; 16] = b"SQLite format 3\0";
    let mut head = [0u8; 16];
    // A regular file only: opening a FIFO would wait for a writer.
    fs::metadata(path).is_ok_and(|m| m.is_file())
        && fs::File::open(path)
            .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
            .is_ok_and(|()| &head == HEADER)
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
    // The copy is opened for writing so that SQLite can roll back a transaction Zotero had
    // under way (a read-only connection refuses a hot journal); no statement writes to it.
    let conn = Connection::open_with_flags(
        &copy.file,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .and_then(|c| c.pragma_update(None, "query_only", true).map(|()| c))
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
