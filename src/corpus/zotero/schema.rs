//! Finding the database, copying it (and its write-ahead log) so a running Zotero's lock
//! never blocks the read, and checking the userdata schema version and the tables read.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, ErrorCode};

use super::{DATABASE_FILE, MAX_USERDATA_VERSION, MIN_USERDATA_VERSION, ZoteroError};

/// `path` itself, or `path/zotero.sqlite` when `path` is a directory.
pub(super) fn database_file(path: &Path) -> Result<PathBuf, ZoteroError> {
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

/// A copy of the database (and its write-ahead log) in a temporary directory only its owner can
/// read (the library holds notes and annotations), removed on drop, on SIGINT/SIGTERM, or by the
/// next run after a SIGKILL (`safe_fs::temp_dir_in`).
pub(super) struct Copy {
    _dir: tempfile::TempDir,
    _guard: crate::safe_fs::TempGuard,
    pub(super) file: PathBuf,
}

impl Copy {
    pub(super) fn of(db: &Path) -> Result<Copy, ZoteroError> {
        let uncopyable = |error| ZoteroError::Uncopyable {
            path: db.into(),
            error,
        };
        let (dir, guard) =
            crate::safe_fs::temp_dir_in(&std::env::temp_dir(), "zotero").map_err(uncopyable)?;
        private(dir.path(), 0o700).map_err(uncopyable)?;
        let file = dir.path().join(DATABASE_FILE);
        fs::copy(db, &file).map_err(uncopyable)?;
        private(&file, 0o600).map_err(uncopyable)?;
        // A write-ahead log holds changes not yet written into the file (Zotero checkpoints
        // it from time to time): without it the copy would miss the latest edits. A rollback
        // journal holds the pages a write under way has overwritten in the file: without it
        // the copy would hold half a transaction. SQLite replays the one and rolls back the
        // other when the copy is opened. The `-shm` index is rebuilt from the log.
        for suffix in ["-wal", "-journal"] {
            let mut side = db.as_os_str().to_owned();
            side.push(suffix);
            let side = PathBuf::from(side);
            if side.is_file() {
                let to = dir.path().join(format!("{DATABASE_FILE}{suffix}"));
                fs::copy(&side, &to)
                    .and_then(|_| private(&to, 0o600))
                    .map_err(|error| ZoteroError::Uncopyable {
                        path: side.clone(),
                        error,
                    })?;
            }
        }
        Ok(Copy {
            _dir: dir,
            _guard: guard,
            file,
        })
    }
}

/// `path` readable by its owner alone (`mode`), where permissions exist.
fn private(path: &Path, mode: u32) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(path, fs::Permissions::from_mode(mode))
    }
    #[cfg(not(unix))]
    {
        let _ = (path, mode);
        Ok(())
    }
}

/// A SQLite error as the user needs it: a file that is not a database (or a damaged one) is
/// named as such; anything else is a read failure.
pub(super) fn sql_error(db: &Path, e: rusqlite::Error) -> ZoteroError {
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
    ("items", &["itemID", "itemTypeID", "key", "libraryID"]),
    ("groups", &["groupID", "libraryID"]),
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
pub(super) fn check_schema(conn: &Connection, db: &Path) -> Result<i64, ZoteroError> {
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

pub(super) fn table_exists(conn: &Connection, table: &str) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1)",
        [table],
        |r| r.get(0),
    )
}

pub(super) fn columns_of(conn: &Connection, table: &str) -> rusqlite::Result<HashSet<String>> {
    let mut stmt = conn.prepare("SELECT name FROM pragma_table_info(?1)")?;
    let rows = stmt.query_map([table], |r| r.get::<_, String>(0))?;
    rows.collect()
}
