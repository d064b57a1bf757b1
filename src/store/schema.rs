//! The store's tables, in their own PostgreSQL schema `recommend`, and their version.
//!
//! [`SCHEMA_VERSION`] names the layout below; a store of another version is refused by every
//! reader and writer ([`StoreError::OtherVersion`]), never read by guesswork or migrated
//! silently. Paper rows are keyed by (key, digest): the index's paper id and a hash of the
//! paper's record and vector (see [`super::push`]), so a push adds rows for new contents and
//! the evidence tables follow their paper by `ON DELETE CASCADE`.

use postgres::{Client, GenericClient};

use super::{StoreError, Target};

/// The version of the layout this recommend reads and writes: 2 keeps each rating's vector and
/// the shared cache of candidate vectors (`super::feed`).
pub const SCHEMA_VERSION: i64 = 2;

/// The channel a push notifies with the new store version when it publishes.
pub const CHANNEL: &str = "recommend_store";

/// pgvector's HNSW build beam (its default is 64): with 64, recall@10 of the 200 candidates a
/// `like` takes fell from 0.9975 at 100k papers to 0.975 at 300k, and to 0.983 at pgvector's
/// widest search beam (bench/runs/2026-12-06-store-300k/).
const HNSW_EF_CONSTRUCTION: usize = 128;

/// The tables, for a list of `dim`-dimensional vectors.
fn ddl(dim: usize) -> String {
    let terms = evidence("terms", "term", " weight real NOT NULL,");
    let tags = evidence("tags", "tag", "");
    let builds_on = evidence("builds_on", "parent", "");
    let topics = evidence("topics", "topic", "");
    format!(
        "CREATE SCHEMA recommend;
         CREATE TABLE recommend.meta (key text PRIMARY KEY, value text NOT NULL);
         CREATE TABLE recommend.papers (
             key text NOT NULL,
             digest text NOT NULL,
             record jsonb NOT NULL,
             embedding vector({dim}) NOT NULL,
             pushed_at timestamptz NOT NULL DEFAULT now(),
             PRIMARY KEY (key, digest));
         CREATE INDEX papers_embedding ON recommend.papers
             USING hnsw (embedding vector_cosine_ops)
             WITH (m = 16, ef_construction = {HNSW_EF_CONSTRUCTION});
         {terms}
         CREATE INDEX terms_term ON recommend.terms (term);
         {tags}
         CREATE INDEX tags_tag ON recommend.tags (tag);
         {builds_on}
         CREATE INDEX builds_on_parent ON recommend.builds_on (parent);
         {topics}
         {NEAREST_TABLE}
         CREATE TABLE recommend.plan (
             version bigint NOT NULL, seq int NOT NULL, body bytea NOT NULL,
             PRIMARY KEY (version, seq));
         CREATE TABLE recommend.feed_ratings (
             user_name text NOT NULL, paper text NOT NULL,
             verdict smallint NOT NULL CHECK (verdict IN (-1, 1)),
             title text NOT NULL, embedding vector({dim}) NOT NULL, rated_on text NOT NULL,
             PRIMARY KEY (user_name, paper));
         CREATE TABLE recommend.feed_seen (
             user_name text NOT NULL, paper text NOT NULL,
             title text NOT NULL, text_key text NOT NULL, seen_on text NOT NULL,
             PRIMARY KEY (user_name, paper));
         CREATE TABLE recommend.feed_vectors (
             text_key text PRIMARY KEY, embedding vector({dim}) NOT NULL);
         INSERT INTO recommend.meta VALUES
             ('schema_version', '{SCHEMA_VERSION}'), ('version', '0'), ('dim', '{dim}');"
    )
}

/// Each paper's nearest papers in one published version (`list`: their positions in the
/// version's plan, little-endian u32), written by the push that publishes the version so that a
/// `like` reads its seed's candidates by key instead of walking pgvector's HNSW index, which
/// cost 2.3 ms of the server's CPU per `like` at 100k papers (bench/runs/2026-12-06-store-latency/).
/// Optional: a store pushed without it is searched through pgvector, so a push creates it in a
/// store made before it and readers that do not know it ignore it.
pub const NEAREST_TABLE: &str = "CREATE TABLE IF NOT EXISTS recommend.nearest (
             version bigint NOT NULL, paper int NOT NULL, list bytea NOT NULL,
             PRIMARY KEY (version, paper));";

/// [`NEAREST_TABLE`] in a store made before it. Only when it is missing: `CREATE TABLE IF NOT
/// EXISTS` asks for the right to create in the schema even when the table is there, which a
/// lab's pushing role may lack. Roles that may read `recommend.papers` are given the same on
/// the new table: a lab's reader role, granted SELECT on the store's tables, would otherwise be
/// refused the lists after the first push that makes them.
pub fn ensure_nearest(c: &mut Client) -> Result<(), postgres::Error> {
    let present: bool = c
        .query_one("SELECT to_regclass('recommend.nearest') IS NOT NULL", &[])?
        .get(0);
    if present {
        return Ok(());
    }
    let mut tx = c.transaction()?;
    tx.batch_execute(NEAREST_TABLE)?;
    let readers: Vec<String> = tx
        .query(
            "SELECT DISTINCT grantee::text FROM information_schema.role_table_grants
             WHERE table_schema = 'recommend' AND table_name = 'papers'
               AND privilege_type = 'SELECT' AND grantee <> current_user",
            &[],
        )?
        .iter()
        .map(|r| r.get(0))
        .collect();
    for role in readers {
        let role = if role == "PUBLIC" {
            role
        } else {
            format!("\"{}\"", role.replace('"', "\"\""))
        };
        tx.batch_execute(&format!("GRANT SELECT ON recommend.nearest TO {role}"))?;
    }
    tx.commit()
}

/// Whether the connected role can read [`NEAREST_TABLE`] (a store pushed before it has none; a
/// role may lack the right): without, a `like` searches pgvector as before.
pub fn nearest_readable(c: &mut impl GenericClient) -> Result<bool, postgres::Error> {
    let row = c.query_one(
        "SELECT COALESCE(has_table_privilege(to_regclass('recommend.nearest'), 'SELECT'), false)",
        &[],
    )?;
    Ok(row.get(0))
}

/// An evidence table: the values `column` (with the `extra` columns) of each paper row, keyed
/// by the paper's (key, digest) and deleted with it.
fn evidence(table: &str, column: &str, extra: &str) -> String {
    format!(
        "CREATE TABLE recommend.{table} (
             key text NOT NULL, digest text NOT NULL, {column} text NOT NULL,{extra}
             PRIMARY KEY (key, digest, {column}),
             FOREIGN KEY (key, digest) REFERENCES recommend.papers ON DELETE CASCADE);"
    )
}

/// What the `meta` table says about a store.
#[derive(Debug, Clone, Default)]
pub struct Meta {
    /// The published version: 0 until a first push completes.
    pub version: i64,
    pub dim: usize,
    /// The model the stored vectors come from (empty before the first push).
    pub model_id: String,
    pub papers: usize,
    /// How much wider than asked pgvector's beam is set (`query::calibrate_beam`; 1 when the
    /// store holds none).
    pub beam_factor: f32,
}

/// The catalog query of whether the schema exists in the connected database.
const HAS_SCHEMA: &str = "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = 'recommend')";

/// The catalog query of whether pgvector is installed in the connected database.
const HAS_VECTOR: &str = "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector')";

/// The answer to `query`, one of the catalog questions above; `doing` names the step in an
/// error.
fn holds(
    c: &mut impl GenericClient,
    target: &Target,
    query: &str,
    doing: &'static str,
) -> Result<bool, StoreError> {
    let row = c
        .query_one(query, &[])
        .map_err(|e| super::connect::classify(target, &e, doing))?;
    Ok(row.get(0))
}

/// The store's metadata, refusing a database without a store or with another version.
pub fn read_meta(c: &mut impl GenericClient, target: &Target) -> Result<Meta, StoreError> {
    if !holds(c, target, HAS_SCHEMA, "reading the catalog")? {
        return Err(StoreError::NoStore {
            target: target.clone(),
        });
    }
    let rows = c
        .query("SELECT key, value FROM recommend.meta", &[])
        .map_err(|e| super::connect::classify(target, &e, "reading the store's metadata"))?;
    let get = |k: &str| {
        rows.iter()
            .find(|r| r.get::<_, &str>(0) == k)
            .map(|r| r.get::<_, String>(1))
    };
    let found = get("schema_version").unwrap_or_else(|| "none".into());
    if found != SCHEMA_VERSION.to_string() {
        return Err(StoreError::OtherVersion {
            target: target.clone(),
            found,
            expected: SCHEMA_VERSION,
        });
    }
    let num = |k: &str| get(k).and_then(|v| v.parse::<i64>().ok()).unwrap_or(0);
    Ok(Meta {
        version: num("version"),
        dim: num("dim").max(0) as usize,
        model_id: get("model_id").unwrap_or_default(),
        papers: num("papers").max(0) as usize,
        beam_factor: get("beam_factor")
            .and_then(|v| v.parse::<f32>().ok())
            .filter(|f| f.is_finite() && *f >= 1.0)
            .unwrap_or(1.0),
    })
}

/// pgvector in the connected database: present, or created now (which needs the extension on
/// the server and the right to create it).
fn ensure_vector(c: &mut Client, target: &Target) -> Result<(), StoreError> {
    if holds(c, target, HAS_VECTOR, "reading the catalog")? {
        return Ok(());
    }
    c.batch_execute("CREATE EXTENSION IF NOT EXISTS vector")
        .map_err(|e| StoreError::NoVector {
            target: target.clone(),
            message: e
                .as_db_error()
                .map_or_else(|| e.to_string(), |d| d.message().to_string()),
        })
}

/// The store's metadata, creating the schema first (for `dim`-dimensional vectors) in a
/// database that has none. Two pushes creating it at once: one wins, the other reads it.
pub fn ensure(c: &mut Client, target: &Target, dim: usize) -> Result<Meta, StoreError> {
    if !holds(c, target, HAS_SCHEMA, "reading the catalog")? {
        ensure_vector(c, target)?;
        let mut tx = c
            .transaction()
            .map_err(|e| super::connect::classify(target, &e, "creating the store"))?;
        tx.batch_execute("SELECT pg_advisory_xact_lock(7339012)")
            .map_err(|e| super::connect::classify(target, &e, "creating the store"))?;
        if !holds(&mut tx, target, HAS_SCHEMA, "creating the store")? {
            tx.batch_execute(&ddl(dim))
                .map_err(|e| super::connect::classify(target, &e, "creating the store"))?;
        }
        tx.commit()
            .map_err(|e| super::connect::classify(target, &e, "creating the store"))?;
    }
    read_meta(c, target)
}
