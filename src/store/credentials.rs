//! The password file as libpq reads it: `~/.pgpass`, or the file `PGPASSFILE` names, lines
//! `host:port:database:user:password` with `*` matching anything and `\:` and `\\` escaped.
//!
//! On Unix a file that its group or others may read is ignored, with a warning, as libpq
//! ignores it: a password others can read is no secret, and a lab moving from `psql` expects
//! the same file to work, or fail, the same way here.

use std::path::{Path, PathBuf};

use postgres::Config;
use postgres::config::Host;

/// What the password file gave for a connection.
#[derive(Debug, Default)]
pub struct FromFile {
    /// The password of the first matching line.
    pub password: Option<String>,
    /// The file, when it was ignored because its group or others may read it (named in a
    /// missing-password error, so the fix is said where the failure shows).
    pub ignored: Option<PathBuf>,
}

/// The password file: `PGPASSFILE`, else `~/.pgpass`.
fn password_file() -> Option<PathBuf> {
    match std::env::var_os("PGPASSFILE") {
        Some(f) => Some(PathBuf::from(f)),
        None => Some(PathBuf::from(std::env::var_os("HOME")?).join(".pgpass")),
    }
}

/// The permission bits of `file` when its group or others have any access to it.
#[cfg(unix)]
fn too_open(file: &Path) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(file).ok()?.permissions().mode() & 0o777;
    (mode & 0o077 != 0).then_some(mode)
}

#[cfg(not(unix))]
fn too_open(_: &Path) -> Option<u32> {
    None
}

/// Tell once per process, on stderr as libpq does, that `file` is ignored: the warning belongs
/// to whichever command connects, and a server that reconnects says it once, not per request.
fn warn_ignored(file: &Path, mode: u32) {
    static WARNED: std::sync::Once = std::sync::Once::new();
    WARNED.call_once(|| {
        eprintln!(
            "warning: password file {} has group or world access (mode {mode:03o}), so it is \
             ignored; permissions should be u=rw (0600) or less: chmod 600 {}",
            file.display(),
            file.display()
        );
    });
}

/// The password the password file holds for this host, port, database and user.
pub fn from_file(config: &Config) -> FromFile {
    let Some(file) = password_file() else {
        return FromFile::default();
    };
    if let Some(mode) = too_open(&file) {
        warn_ignored(&file, mode);
        return FromFile {
            password: None,
            ignored: Some(file),
        };
    }
    let text = crate::safe_fs::read_regular(&file, 1 << 20)
        .ok()
        .and_then(|t| String::from_utf8(t).ok());
    let Some(text) = text else {
        return FromFile::default();
    };
    let host = match config.get_hosts().first() {
        Some(Host::Tcp(h)) => h.clone(),
        _ => "localhost".to_string(),
    };
    let port = config
        .get_ports()
        .first()
        .copied()
        .unwrap_or(5432)
        .to_string();
    let user = config.get_user().unwrap_or("").to_string();
    let db = config
        .get_dbname()
        .map_or_else(|| user.clone(), str::to_string);
    FromFile {
        password: pgpass_lookup(&text, &[&host, &port, &db, &user]),
        ignored: None,
    }
}

/// The password of the first line of a `.pgpass` text whose four fields match `want` (host,
/// port, database, user; `*` matches anything).
pub fn pgpass_lookup(text: &str, want: &[&str; 4]) -> Option<String> {
    for line in text.lines() {
        if line.trim_start().starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let fields = split_pgpass(line);
        if fields.len() != 5 {
            continue;
        }
        if fields[..4]
            .iter()
            .zip(want)
            .all(|(f, w)| f == "*" || f == w)
        {
            return Some(fields[4].clone());
        }
    }
    None
}

/// A `.pgpass` line's fields: `:` separates, `\` escapes the next character.
fn split_pgpass(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(n) = chars.next() {
                    fields.last_mut().expect("never empty").push(n);
                }
            }
            ':' if fields.len() < 5 => fields.push(String::new()),
            c => fields.last_mut().expect("never empty").push(c),
        }
    }
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pgpass_lines_match_as_libpq_reads_them() {
        let text = "# comment\nother:5432:*:ann:no\ndb\\:x:*:papers:ann:pa\\:ss\n*:*:*:*:any\n";
        assert_eq!(
            pgpass_lookup(text, &["db:x", "5432", "papers", "ann"]).as_deref(),
            Some("pa:ss")
        );
        assert_eq!(
            pgpass_lookup(text, &["elsewhere", "1", "d", "u"]).as_deref(),
            Some("any")
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_file_others_may_read_is_too_open() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pgpass");
        std::fs::write(&file, "*:*:*:*:pw\n").unwrap();
        for (mode, open) in [(0o600, false), (0o400, false), (0o640, true), (0o604, true)] {
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).unwrap();
            assert_eq!(too_open(&file).is_some(), open, "{mode:o}");
        }
    }
}
