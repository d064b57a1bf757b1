//! Connecting to the store: the URL, the password's sources, TLS, and a pool.
//!
//! A URL (`postgres://USER[:PASSWORD]@HOST[:PORT]/DB?sslmode=require`, or libpq's
//! `key=value` form) is parsed by rust-postgres. A password missing from it comes from
//! `PGPASSWORD`, then from `~/.pgpass` (or `PGPASSFILE`) as libpq reads it
//! (`host:port:database:user:password`, `*` matching anything, `\:` and `\\` escaped); a user
//! missing from it from `PGUSER`, then `USER`. TLS is used when the URL asks for it
//! (`sslmode=require`), with rustls and the webpki roots; otherwise the connection is plain, as
//! on a lab's own network or a loopback. The password never leaves this module: errors name the
//! store by its [`Target`], which has none.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use postgres::config::{Host, SslMode};
use postgres::error::SqlState;
use postgres::{Client, Config, NoTls};
use r2d2_postgres::PostgresConnectionManager;
use tokio_postgres_rustls::MakeRustlsConnect;

use super::StoreError;

/// How long a connection attempt may take before the store counts as unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a request waits for a pooled connection (a server answers 503 after it).
const CHECKOUT_TIMEOUT: Duration = Duration::from_secs(3);

/// A store as errors and logs name it: `user@host:port/db`, never the password.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target(String);

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Target {
    fn of(config: &Config) -> Target {
        let host = match config.get_hosts().first() {
            Some(Host::Tcp(h)) => h.clone(),
            Some(Host::Unix(p)) => p.display().to_string(),
            None => "localhost".to_string(),
        };
        let port = config.get_ports().first().copied().unwrap_or(5432);
        Target(format!(
            "{}@{host}:{port}/{}",
            config.get_user().unwrap_or(""),
            config
                .get_dbname()
                .unwrap_or(config.get_user().unwrap_or(""))
        ))
    }
}

enum Pool {
    Plain(r2d2_postgres::r2d2::Pool<PostgresConnectionManager<NoTls>>),
    Tls(r2d2_postgres::r2d2::Pool<PostgresConnectionManager<MakeRustlsConnect>>),
}

/// An open store: a pool of connections to one database. Cheap to share between threads.
pub struct Store {
    target: Target,
    pool: Pool,
    config: Config,
    /// The TLS connector when the URL asks for TLS (`sslmode=require`).
    tls: Option<MakeRustlsConnect>,
}

/// The connection settings `url` names, with the password's and user's other sources applied.
fn config_of(url: &str) -> Result<Config, StoreError> {
    let trimmed = url.trim();
    if trimmed.is_empty() {
        return Err(StoreError::BadUrl("an empty store URL".into()));
    }
    // rust-postgres takes both forms; anything else would be read as key=value pairs.
    let is_url = trimmed.starts_with("postgres://") || trimmed.starts_with("postgresql://");
    if !is_url && !trimmed.contains('=') {
        return Err(StoreError::BadUrl(format!(
            "{:?} is not a PostgreSQL URL",
            redact(trimmed)
        )));
    }
    let mut config = Config::from_str(trimmed).map_err(|e| {
        StoreError::BadUrl(format!(
            "cannot read the store URL {:?} ({e})",
            redact(trimmed)
        ))
    })?;
    if config.get_hosts().is_empty() {
        // libpq would try a Unix socket; this client speaks TCP, so the host must be named.
        match std::env::var("PGHOST")
            .ok()
            .filter(|h| !h.trim().is_empty())
        {
            Some(host) => {
                config.host(host.trim());
            }
            None => {
                return Err(StoreError::BadUrl(format!(
                    "the store URL {:?} names no host: give one, as in \
                     postgres://USER@HOST[:PORT]/DB (or set PGHOST)",
                    redact(trimmed)
                )));
            }
        }
    }
    if config.get_user().is_none() {
        let user = std::env::var("PGUSER")
            .or_else(|_| std::env::var("USER"))
            .unwrap_or_else(|_| "postgres".into());
        config.user(&user);
    }
    if config.get_password().is_none() {
        if let Some(pw) = std::env::var_os("PGPASSWORD").filter(|p| !p.is_empty()) {
            config.password(pw.to_string_lossy().as_bytes());
        } else if let Some(pw) = pgpass_password(&config) {
            config.password(pw.as_bytes());
        }
    }
    config.connect_timeout(CONNECT_TIMEOUT);
    config.application_name("recommend");
    // No statement waits on a lock for ever (a probe's `like` hung behind an admin's
    // ACCESS EXCLUSIVE lock): past this it fails as [`StoreError::Busy`]. Options of the URL's
    // own come after, so a lab can still set its own.
    let own = config.get_options().unwrap_or_default().to_string();
    config.options(format!("-c lock_timeout={}s {own}", super::LOCK_WAIT_SECONDS).trim_end());
    Ok(config)
}

/// `url` with any password in it replaced by `***`, for messages about a URL that did not parse.
pub fn redact(url: &str) -> String {
    // Any `scheme://` (a misspelt or upper-case one too): the userinfo runs to the last `@`,
    // since a password may hold an unencoded `?`, `/` or `#`.
    if let Some(sep) = url.find("://") {
        let (scheme, rest) = url.split_at(sep + 3);
        if let Some(at) = rest.rfind('@') {
            let userinfo = &rest[..at];
            let shown = match userinfo.split_once(':') {
                Some((user, _)) => format!("{user}:***"),
                None => userinfo.to_string(),
            };
            return format!("{scheme}{shown}{}", &rest[at..]);
        }
        return url.to_string();
    }
    // key=value form: hide the value of `password`, quoted (`'a b'`, with `\'` inside) or not,
    // with spaces around `=` or not.
    let lower = url.to_ascii_lowercase();
    let mut out = String::new();
    let mut from = 0;
    while let Some(found) = lower[from..].find("password") {
        let key_end = from + found + "password".len();
        let after = &url[key_end..];
        let Some(value) = after.trim_start().strip_prefix('=') else {
            out.push_str(&url[from..key_end]);
            from = key_end;
            continue;
        };
        let value = value.trim_start();
        let start = url.len() - value.len();
        let end = if let Some(quoted) = value.strip_prefix('\'') {
            let mut escaped = false;
            let close = quoted.char_indices().find(|&(_, c)| {
                let closes = c == '\'' && !escaped;
                escaped = c == '\\' && !escaped;
                closes
            });
            close.map_or(url.len(), |(i, _)| start + 1 + i + 1)
        } else {
            start + value.find(char::is_whitespace).unwrap_or(value.len())
        };
        out.push_str(&url[from..key_end]);
        out.push_str(&url[key_end..start]);
        out.push_str("***");
        from = end;
    }
    out.push_str(&url[from..]);
    out
}

/// The password `~/.pgpass` (or `PGPASSFILE`) holds for this host, port, database and user.
fn pgpass_password(config: &Config) -> Option<String> {
    let file = match std::env::var_os("PGPASSFILE") {
        Some(f) => PathBuf::from(f),
        None => PathBuf::from(std::env::var_os("HOME")?).join(".pgpass"),
    };
    let text = crate::safe_fs::read_regular(&file, 1 << 20).ok()?;
    let text = String::from_utf8(text).ok()?;
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
    pgpass_lookup(&text, &[&host, &port, &db, &user])
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

/// The rustls connector for `sslmode=require`: the certificate authorities of the PEM file
/// `PGSSLROOTCERT` names (as libpq reads it: a lab's own CA), else the webpki roots; the ring
/// provider. The server's certificate is always verified, host name included.
fn tls() -> Result<MakeRustlsConnect, StoreError> {
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject;
    let roots = match std::env::var_os("PGSSLROOTCERT") {
        None => rustls::RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        },
        Some(path) => {
            let bad = |message: String| StoreError::BadRootCert {
                path: path.clone().into(),
                message,
            };
            let mut store = rustls::RootCertStore::empty();
            for cert in CertificateDer::pem_file_iter(&path).map_err(|e| bad(e.to_string()))? {
                let cert = cert.map_err(|e| bad(e.to_string()))?;
                store.add(cert).map_err(|e| bad(e.to_string()))?;
            }
            if store.is_empty() {
                return Err(bad("it holds no PEM certificate".into()));
            }
            store
        }
    };
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .expect("ring supports the default protocol versions")
    .with_root_certificates(roots)
    .with_no_client_auth();
    Ok(MakeRustlsConnect::new(config))
}

/// A connection error as the kind of failure it is, with the server's words (which never hold
/// the password).
pub(super) fn classify(target: &Target, e: &postgres::Error, doing: &'static str) -> StoreError {
    let message = match e.as_db_error() {
        Some(db) => db.message().to_string(),
        None => {
            let mut m = e.to_string();
            let mut source = std::error::Error::source(e);
            while let Some(s) = source {
                m.push_str(": ");
                m.push_str(&s.to_string());
                source = s.source();
            }
            m
        }
    };
    let target = target.clone();
    match e.code() {
        Some(c)
            if *c == SqlState::INVALID_PASSWORD
                || *c == SqlState::INVALID_AUTHORIZATION_SPECIFICATION =>
        {
            StoreError::Auth { target, message }
        }
        Some(c) if *c == SqlState::INVALID_CATALOG_NAME => {
            StoreError::NoDatabase { target, message }
        }
        // Class 42 (a privilege, a missing table) fails the same way however often it runs.
        Some(c)
            if *c == SqlState::INSUFFICIENT_PRIVILEGE
                || *c == SqlState::UNDEFINED_TABLE
                || *c == SqlState::UNDEFINED_COLUMN =>
        {
            StoreError::Denied {
                target,
                doing,
                message,
            }
        }
        Some(c) if *c == SqlState::ADMIN_SHUTDOWN || *c == SqlState::CANNOT_CONNECT_NOW => {
            StoreError::Unreachable { target, message }
        }
        Some(c) if *c == SqlState::LOCK_NOT_AVAILABLE => StoreError::Busy { target, doing },
        Some(_) => StoreError::Failed {
            target,
            doing,
            message,
        },
        None if message.contains("password missing") => StoreError::NoPassword { target },
        None if e.is_closed() || doing == "connecting" => {
            StoreError::Unreachable { target, message }
        }
        None => StoreError::Failed {
            target,
            doing,
            message,
        },
    }
}

/// A pool of up to `max` connections made by `manager`, none kept idle. No test query on
/// checkout: it would cost a round trip per use. A connection the server closed is seen as
/// closed and replaced; one that fails mid-query fails that query, which every caller survives
/// (503, or the plan's own graph).
fn pool_of<M: r2d2_postgres::r2d2::ManageConnection>(
    max: u32,
    manager: M,
) -> r2d2_postgres::r2d2::Pool<M> {
    r2d2_postgres::r2d2::Pool::builder()
        .max_size(max.max(1))
        .min_idle(Some(0))
        .test_on_check_out(false)
        .connection_timeout(CHECKOUT_TIMEOUT)
        .build_unchecked(manager)
}

/// How long a connection may take from the first byte to a session, the login included:
/// `connect_timeout` bounds the TCP connect alone, and a server that takes the connection but
/// never answers (frozen, or another service on the port) held a command for ever.
const SESSION_TIMEOUT: Duration = Duration::from_secs(15);

/// A connection of `config`, or [`StoreError::Unreachable`] when none is made within
/// [`SESSION_TIMEOUT`]. The attempt runs on a thread of its own, left to end by itself.
fn connect_within(
    config: &Config,
    tls: Option<&MakeRustlsConnect>,
    target: &Target,
) -> Result<Client, StoreError> {
    let (config, tls) = (config.clone(), tls.cloned());
    let (sent, got) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let c = match tls {
            Some(t) => config.connect(t),
            None => config.connect(NoTls),
        };
        let _ = sent.send(c);
    });
    match got.recv_timeout(SESSION_TIMEOUT) {
        Ok(c) => c.map_err(|e| classify(target, &e, "connecting")),
        Err(_) => Err(StoreError::Unreachable {
            target: target.clone(),
            message: format!(
                "it took the connection but did not answer within {} s (a frozen server, or \
                 another service on that port?)",
                SESSION_TIMEOUT.as_secs()
            ),
        }),
    }
}

impl Store {
    /// Connect to the store `url` names: one connection is made now, so that a wrong password,
    /// an unreachable host or a missing database is reported here, by kind; the pool makes the
    /// others when needed (up to `max` at once).
    pub fn connect(url: &str, max: u32) -> Result<Store, StoreError> {
        let config = config_of(url)?;
        let target = Target::of(&config);
        let tls = match config.get_ssl_mode() {
            SslMode::Require => Some(tls()?),
            _ => None,
        };
        connect_within(&config, tls.as_ref(), &target)?;
        let pool = if let Some(t) = &tls {
            Pool::Tls(pool_of(
                max,
                PostgresConnectionManager::new(config.clone(), t.clone()),
            ))
        } else {
            Pool::Plain(pool_of(
                max,
                PostgresConnectionManager::new(config.clone(), NoTls),
            ))
        };
        Ok(Store {
            target,
            pool,
            config,
            tls,
        })
    }

    /// A connection of its own, outside the pool (a LISTEN that lasts as long as the process).
    pub fn connect_one(&self) -> Result<Client, StoreError> {
        connect_within(&self.config, self.tls.as_ref(), &self.target)
    }

    /// The store as errors name it.
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// Run `f` on a pooled connection; a connection that cannot be had is
    /// [`StoreError::Unreachable`].
    pub fn with<T>(
        &self,
        f: impl FnOnce(&mut Client) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let unreachable = |e: r2d2_postgres::r2d2::Error| StoreError::Unreachable {
            target: self.target.clone(),
            message: e.to_string(),
        };
        match &self.pool {
            Pool::Plain(p) => f(&mut *p.get().map_err(unreachable)?),
            Pool::Tls(p) => f(&mut *p.get().map_err(unreachable)?),
        }
    }

    /// [`classify`] for this store.
    pub(super) fn fail(&self, doing: &'static str) -> impl Fn(postgres::Error) -> StoreError + '_ {
        move |e| classify(&self.target, &e, doing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_never_show() {
        assert_eq!(
            redact("postgres://ann:s3cret@db.lab:5433/papers?sslmode=require"),
            "postgres://ann:***@db.lab:5433/papers?sslmode=require"
        );
        assert_eq!(
            redact("postgres://ann@db/papers"),
            "postgres://ann@db/papers"
        );
        assert_eq!(
            redact("host=db password=s3cret user=ann"),
            "host=db password=*** user=ann"
        );
        // Forms a bad-input probe saw echoed whole or in part.
        for (given, shown) in [
            (
                "postgress://ann:s3cret@db:5432/papers",
                "postgress://ann:***@db:5432/papers",
            ),
            (
                "POSTGRES://ann:s3cret@db/papers",
                "POSTGRES://ann:***@db/papers",
            ),
            ("mysql://ann:s3cret@db/papers", "mysql://ann:***@db/papers"),
            (
                "postgres://ann:s3c?r/et@db:99999/papers",
                "postgres://ann:***@db:99999/papers",
            ),
            (
                "host=db password='s3cret with spaces' sslmode=bogus",
                "host=db password=*** sslmode=bogus",
            ),
            (
                "host=db password = s3cret foo=1",
                "host=db password = *** foo=1",
            ),
            (
                "host=db PASSWORD='it\\'s' user=ann",
                "host=db PASSWORD=*** user=ann",
            ),
        ] {
            let out = redact(given);
            assert_eq!(out, shown, "{given}");
            assert!(!out.contains("s3c"), "{out}");
        }
        let c = config_of("postgres://ann:s3cret@db.lab:5433/papers").unwrap();
        assert_eq!(Target::of(&c).to_string(), "ann@db.lab:5433/papers");
    }

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

    #[test]
    fn what_is_not_a_url_is_an_input_error() {
        assert!(matches!(config_of("  "), Err(StoreError::BadUrl(_))));
        assert!(matches!(config_of("mysql-box"), Err(StoreError::BadUrl(_))));
    }
}
