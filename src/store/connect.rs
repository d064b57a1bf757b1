//! Connecting to the store: the URL, the password's sources, TLS, and a pool.
//!
//! A URL (`postgres://USER[:PASSWORD]@HOST[:PORT]/DB?sslmode=require`, or libpq's
//! `key=value` form) is checked by `libpq.rs` (parameters by name, libpq's TLS modes, the `PG*`
//! environment for what it leaves out) and parsed by rust-postgres. A password missing from it
//! comes from `PGPASSWORD`, then from the password file ([`credentials`]). TLS is used when the
//! URL or `PGSSLMODE` asks for it (`require`, `verify-ca`, `verify-full`), with rustls, the
//! certificate and host name always verified; otherwise the connection is plain, as on a lab's
//! own network or a loopback. The password never leaves this module: errors name the store by
//! its [`Target`], which has none.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use postgres::config::{Host, SslMode};
use postgres::error::SqlState;
use postgres::{Client, Config, NoTls};
use r2d2_postgres::PostgresConnectionManager;
use tokio_postgres_rustls::MakeRustlsConnect;

use super::{StoreError, credentials, libpq};

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
    pub(super) fn of(config: &Config) -> Target {
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
    /// The password file, when it was ignored for being open to others.
    ignored: Option<PathBuf>,
}

/// The connection settings `url` names, with the environment's and the password's other
/// sources applied; and the password file, when it was ignored for being open to others.
fn config_of(url: &str) -> Result<(Config, Option<PathBuf>), StoreError> {
    let trimmed = url.trim();
    if trimmed.is_empty() {
        return Err(StoreError::BadUrl(format!(
            "an empty store URL: {}",
            super::URL_FORM
        )));
    }
    // rust-postgres takes both forms; anything else would be read as key=value pairs.
    let is_url = trimmed.starts_with("postgres://") || trimmed.starts_with("postgresql://");
    if !is_url && !trimmed.contains('=') {
        return Err(StoreError::BadUrl(format!(
            "{:?} is not a PostgreSQL URL: {}",
            redact(trimmed),
            super::URL_FORM
        )));
    }
    let (text, ssl_mode) = libpq::prepare(trimmed, &libpq::process_env)?;
    let mut config = Config::from_str(&text).map_err(|e| {
        // rust-postgres says which option and why in the error's source.
        let why = std::error::Error::source(&e).map_or_else(|| e.to_string(), |s| s.to_string());
        StoreError::BadUrl(format!(
            "cannot read the store URL {:?} ({why}): {}",
            redact(trimmed),
            super::URL_FORM
        ))
    })?;
    if let Some(mode) = ssl_mode {
        config.ssl_mode(mode);
    }
    libpq::apply_env(&mut config, trimmed, &libpq::process_env)?;
    let mut ignored = None;
    if config.get_password().is_none() {
        if let Some(pw) = std::env::var_os("PGPASSWORD").filter(|p| !p.is_empty()) {
            config.password(pw.to_string_lossy().as_bytes());
        } else {
            let found = credentials::from_file(&config);
            ignored = found.ignored;
            if let Some(pw) = found.password {
                config.password(pw.as_bytes());
            }
        }
    }
    config.connect_timeout(CONNECT_TIMEOUT);
    config.application_name("recommend");
    // No statement waits on a lock for ever (a probe's `like` hung behind an admin's
    // ACCESS EXCLUSIVE lock): past this it fails as [`StoreError::Busy`]. Options of the URL's
    // own come after, so a lab can still set its own.
    let own = config.get_options().unwrap_or_default().to_string();
    config.options(format!("-c lock_timeout={}s {own}", super::LOCK_WAIT_SECONDS).trim_end());
    Ok((config, ignored))
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
        Some(c) if closed_why(c).is_some() => StoreError::Closed {
            target,
            doing,
            why: closed_why(c).unwrap_or_default(),
            message,
        },
        Some(c) if *c == SqlState::LOCK_NOT_AVAILABLE => StoreError::Busy { target, doing },
        Some(_) => StoreError::Failed {
            target,
            doing,
            message,
        },
        None if message.contains("password missing") => StoreError::NoPassword {
            target,
            ignored: None,
        },
        None if message.contains("server does not support TLS") => StoreError::NoTls { target },
        None if message.contains("TLS handshake") => StoreError::Tls { target, message },
        None if doing != "connecting" && cut(e) => StoreError::Closed {
            target,
            doing,
            why: "the server ended the session (an administrator's pg_terminate_backend, a \
                  restart) or the network or a proxy dropped it",
            message,
        },
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

/// Whether `e` is an established connection that ended: closed, or reset or cut mid-exchange
/// (a terminated session's socket is often reset before its last message is read).
fn cut(e: &postgres::Error) -> bool {
    use std::io::ErrorKind::{BrokenPipe, ConnectionAborted, ConnectionReset, UnexpectedEof};
    let io = std::error::Error::source(e).and_then(|s| s.downcast_ref::<std::io::Error>());
    e.is_closed()
        || io.is_some_and(|io| {
            matches!(
                io.kind(),
                BrokenPipe | ConnectionAborted | ConnectionReset | UnexpectedEof
            )
        })
}

/// What the server's SQLSTATE `code` says of why it closed a session or would not open one,
/// for the codes of class 57 (operator intervention) and the idle timeouts.
fn closed_why(code: &SqlState) -> Option<&'static str> {
    Some(match code {
        c if *c == SqlState::ADMIN_SHUTDOWN => {
            "an administrator ended the session (pg_terminate_backend) or the server is shutting \
             down"
        }
        c if *c == SqlState::CRASH_SHUTDOWN => {
            "the server is restarting after another of its processes crashed"
        }
        c if *c == SqlState::CANNOT_CONNECT_NOW => {
            "the server is starting up, shutting down or recovering, and takes no connections yet"
        }
        c if *c == SqlState::IDLE_SESSION_TIMEOUT
            || *c == SqlState::IDLE_IN_TRANSACTION_SESSION_TIMEOUT =>
        {
            "the session was idle longer than the server's idle timeout allows"
        }
        _ => return None,
    })
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
/// [`SESSION_TIMEOUT`]. The attempt runs on a thread of its own, left to end by itself. A
/// missing password names the password file `ignored` for being open to others.
fn connect_within(
    config: &Config,
    tls: Option<&MakeRustlsConnect>,
    target: &Target,
    ignored: Option<&Path>,
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
        Ok(c) => c.map_err(|e| match classify(target, &e, "connecting") {
            StoreError::NoPassword { target, .. } => StoreError::NoPassword {
                target,
                ignored: ignored.map(Path::to_path_buf),
            },
            other => other,
        }),
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
        let (config, ignored) = config_of(url)?;
        let target = Target::of(&config);
        let tls = match config.get_ssl_mode() {
            SslMode::Require => Some(tls()?),
            _ => None,
        };
        connect_within(&config, tls.as_ref(), &target, ignored.as_deref())?;
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
            ignored,
        })
    }

    /// A connection of its own, outside the pool (a LISTEN that lasts as long as the process).
    pub fn connect_one(&self) -> Result<Client, StoreError> {
        connect_within(
            &self.config,
            self.tls.as_ref(),
            &self.target,
            self.ignored.as_deref(),
        )
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

    /// What a failure of this store's connection `e` while `doing` means, said for the user.
    pub fn error(&self, e: &postgres::Error, doing: &'static str) -> StoreError {
        classify(&self.target, e, doing)
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
        let (c, _) = config_of("postgres://ann:s3cret@db.lab:5433/papers").unwrap();
        assert_eq!(Target::of(&c).to_string(), "ann@db.lab:5433/papers");
    }

    #[test]
    fn what_is_not_a_url_is_an_input_error() {
        assert!(matches!(config_of("  "), Err(StoreError::BadUrl(_))));
        assert!(matches!(config_of("mysql-box"), Err(StoreError::BadUrl(_))));
    }
}
