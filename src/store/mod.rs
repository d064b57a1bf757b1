//! The library in PostgreSQL with pgvector: one store that several `recommend serve` processes
//! read while `recommend push` updates it.
//!
//! What is stored ([`schema`]): every paper once per content (`key` = the index's paper id,
//! `digest` = a hash of its record and vector, so a changed paper is a new row and an unchanged
//! one is never written again), its vector in `vector(DIM)` under an HNSW index with cosine
//! ops, its lexical terms as the engine's own analyzer makes them (stemmed English, jieba-cut
//! Chinese), tags, `builds_on` parents and topics; and the ranking plan: the list-wide evidence
//! the fusion needs (IDF, centroid, link strengths, search reference, token states, the graph),
//! as the validated `index.bin` bytes of the pushed index, under the store version that
//! published it. Feed state (ratings with their vectors, seen papers) has rows keyed by reader,
//! and the candidate vectors one cache the readers share ([`feed`]).
//!
//! Consistency: a push writes new paper rows in batches, one transaction each, then publishes
//! in one last transaction (plan, version, removal of rows no longer in the list). Readers take
//! the plan of one version in one snapshot and use the paper rows only as ANN candidates,
//! filtered to the (key, digest) pairs of that plan, so a failed push, or a push under way,
//! changes no answer: readers see the old version until the new one is published whole.
//!
//! Queries ([`query`]): a query process loads the plan once per version (and checks the
//! version, one indexed row, per request), and runs the same engine on it, so a store answer is
//! the `index.bin` answer: exact on lists below [`crate::index::GRAPH_MIN_PAPERS`] papers, where
//! every paper is scored; above, the dense candidates come from pgvector's HNSW index
//! ([`crate::index::NearestSource`]) instead of the plan's own graph, and the lexical, tag and
//! `builds_on` candidates and every signal from the plan.
//!
//! Credentials come from the URL, `PGPASSWORD` or `~/.pgpass` (`PGPASSFILE`), and never
//! appear in an error or a log line: targets are shown as `user@host:port/db`. What the URL
//! leaves out comes from libpq's environment (`PGHOST`, `PGPORT`, ...; `libpq.rs`).

pub mod connect;
pub mod credentials;
pub mod feed;
mod libpq;
pub mod push;
pub mod query;
pub mod schema;

pub use connect::{Store, Target};
pub use feed::FeedHome;
pub use push::{PushReport, push};
pub use query::Snapshot;

/// How long a statement waits for a lock another session holds before it fails
/// ([`StoreError::Busy`]): longer than any lock of the store's own (a batch, a publication),
/// short enough that a command stuck behind an admin's lock says so.
pub const LOCK_WAIT_SECONDS: u32 = 10;

/// The form of a store URL, for messages about one that is not.
const URL_FORM: &str = "give the store as postgres://USER@HOST[:PORT]/DATABASE (password from \
                        the URL, PGPASSWORD or ~/.pgpass)";

/// Why the store could not be read or written; each says what to do next.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Not a connection string, or one with a parameter that cannot be (a mistake in the
    /// input: exit 2); the message says which and what to give instead.
    #[error("{0}")]
    BadUrl(String),
    /// A `PG*` environment variable holds what it cannot (a mistake in the input: exit 2).
    #[error("{0}")]
    BadEnv(String),
    /// `PGSSLROOTCERT` names no usable certificate file (a mistake in the input: exit 2).
    #[error(
        "PGSSLROOTCERT={}: {message}; name a PEM file of the certificate authorities that \
         signed the server's certificate, or unset it to trust the public (webpki) roots",
        path.display()
    )]
    BadRootCert {
        path: std::path::PathBuf,
        message: String,
    },
    #[error(
        "cannot reach PostgreSQL at {target}: {message}; check that the server runs and the host \
         and port are right"
    )]
    Unreachable { target: Target, message: String },
    #[error(
        "PostgreSQL at {target} refused the login: {message}; check the user and the password \
         (in the URL, PGPASSWORD or ~/.pgpass)"
    )]
    Auth { target: Target, message: String },
    /// The server runs but has no such database (a mistake in the URL or a missing step).
    #[error(
        "PostgreSQL at {target} has no such database ({message}); fix the name in the URL, or \
         create it: `CREATE DATABASE name;` then, in it, `CREATE EXTENSION vector;`"
    )]
    NoDatabase { target: Target, message: String },
    /// No password from the URL, PGPASSWORD or a matching ~/.pgpass line.
    #[error(
        "no password for {target}: give it in the URL, in PGPASSWORD, or as a line \
         host:port:database:user:password of ~/.pgpass (or the file PGPASSFILE names, readable \
         by you alone){}",
        ignored.as_ref().map_or(String::new(), |f| format!(
            "; {} was ignored because its group or others may read it: chmod 600 {}",
            f.display(),
            f.display()
        ))
    )]
    NoPassword {
        target: Target,
        /// The password file, when it was ignored for being open to others.
        ignored: Option<std::path::PathBuf>,
    },
    /// The connection asks for TLS and the server offers none (runtime: exit 1).
    #[error(
        "PostgreSQL at {target} does not offer TLS, and the connection asks for it (sslmode \
         require, verify-ca or verify-full, in the URL or PGSSLMODE); nothing was sent: turn TLS \
         on at the server (ssl = on, with a certificate, in postgresql.conf), or on a network \
         you trust connect without it (sslmode=disable)"
    )]
    NoTls { target: Target },
    /// The TLS handshake failed: most often a certificate no trusted authority signed, or one
    /// for another host name.
    #[error(
        "the TLS handshake with PostgreSQL at {target} failed: {message}; if the lab's own \
         authority signed the server's certificate, name its PEM file in PGSSLROOTCERT; the \
         certificate must name the host as the URL gives it"
    )]
    Tls { target: Target, message: String },
    /// The server ended the session, or takes none now (SQLSTATE class 57, an idle timeout, or
    /// a connection closed without a word): the next command or request connects again.
    #[error(
        "PostgreSQL at {target} closed the connection while {doing}: {why} ({message}); nothing \
         was changed by the failed step, and the next command or request connects again: run it \
         again{}",
        if *doing == "connecting" { " once the server is up" } else { "" }
    )]
    Closed {
        target: Target,
        doing: &'static str,
        why: &'static str,
        message: String,
    },
    /// The role lacks a privilege, or the schema lacks a table the store needs: the same again
    /// fails the same way.
    #[error(
        "PostgreSQL at {target} refused {doing}: {message}; running it again will not help: \
         grant this role what it needs (readers: USAGE on schema recommend and SELECT on its \
         tables; the one who pushes: ownership), or push into a database with a complete store"
    )]
    Denied {
        target: Target,
        doing: &'static str,
        message: String,
    },
    #[error(
        "the database {target} has no pgvector extension and it cannot be created here \
         ({message}); install pgvector on the server and run `CREATE EXTENSION vector;` in that \
         database as a superuser, then push again"
    )]
    NoVector { target: Target, message: String },
    #[error(
        "{target} holds no recommend store (schema `recommend`); write one with \
         `recommend push --to URL --index FILE`"
    )]
    NoStore { target: Target },
    /// The schema is there but no push has published a version yet (one was interrupted).
    #[error(
        "{target} holds a recommend store with no published version yet (a push did not \
         finish): run `recommend push --to URL --index FILE` again; it reuses what was written"
    )]
    Unpublished { target: Target },
    /// Another push into the same store has not ended (runtime: exit 1).
    #[error(
        "another `recommend push` into {target} is running; wait for it to end, then push again \
         (two pushes at once would remove each other's papers)"
    )]
    PushRunning { target: Target },
    #[error(
        "{target} holds a recommend store of schema version {found}; this recommend reads and \
         writes version {expected}: use the recommend that wrote it, or push into a new \
         database (or drop it with `DROP SCHEMA recommend CASCADE;` and push again)"
    )]
    OtherVersion {
        target: Target,
        found: String,
        expected: i64,
    },
    #[error(
        "{target} holds papers embedded by {stored} in {stored_dim} dimensions, but the index \
         was built with {given} in {given_dim}: push into another database, or rebuild the \
         index with the store's model"
    )]
    OtherModel {
        target: Target,
        stored: String,
        stored_dim: usize,
        given: String,
        given_dim: usize,
    },
    /// The store's plan does not validate as an index (written by something else, or damaged).
    #[error("the ranking plan in {target} is damaged ({detail}); push the index again")]
    Damaged { target: Target, detail: String },
    /// A lock another session holds kept a statement waiting past `lock_timeout`.
    #[error(
        "PostgreSQL at {target} kept {doing} waiting over {LOCK_WAIT_SECONDS} s for a lock \
         another session holds (a schema change, VACUUM FULL or REINDEX?); nothing was changed: \
         try again once it is done (pg_locks names the holder)"
    )]
    Busy { target: Target, doing: &'static str },
    #[error(
        "PostgreSQL at {target} failed while {doing}: {message}; nothing was changed by the failed step, run the command again"
    )]
    Failed {
        target: Target,
        doing: &'static str,
        message: String,
    },
    /// A fault injected by `RECOMMEND_STORE_FAULT` (tests of a failed push).
    #[error("injected fault after {0} batches (RECOMMEND_STORE_FAULT); the store is as it was")]
    Injected(usize),
    #[error(transparent)]
    Index(#[from] crate::index::IndexError),
}

impl StoreError {
    /// A mistake in what was asked (a malformed URL) rather than a failure to do it.
    pub fn is_input(&self) -> bool {
        matches!(
            self,
            StoreError::BadUrl(_) | StoreError::BadEnv(_) | StoreError::BadRootCert { .. }
        )
    }

    /// The store cannot be reached now (down, restarting, refusing connections): a server
    /// answers 503 and tries again on the next request.
    pub fn is_unavailable(&self) -> bool {
        matches!(
            self,
            StoreError::Unreachable { .. }
                | StoreError::Closed { .. }
                | StoreError::Failed { .. }
                | StoreError::Busy { .. }
        )
    }
}
