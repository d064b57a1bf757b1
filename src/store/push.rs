//! `recommend push`: an index into the store, incrementally, one transaction per batch.
//!
//! A paper is keyed as the index keys it (its id) plus a digest of its record and vector
//! ([`paper_digest`]): the rows of a paper whose (key, digest) the store holds are not written
//! again, so a push after a small change writes only the changed papers (and the plan). New rows
//! go in batches of [`BATCH`] papers, each in its own transaction with the paper's terms, tags,
//! `builds_on` parents and topics; nothing reads them until the last transaction publishes the
//! new version (its plan, each paper's nearest on a large list, its metadata, the removal of
//! rows no longer in the list, a NOTIFY).
//! A push that fails anywhere before that commit leaves every answer as it was; its committed
//! batches are reused by the next push (same digests), never shown.

use std::collections::HashSet;

use rayon::prelude::*;
use sha2::{Digest, Sha256};

use super::schema::{self, CHANNEL};
use super::{Store, StoreError};
use crate::corpus::Paper;
use crate::engine::retrieve::SEED_NEAREST;
use crate::index::{Index, Searcher};

/// Papers per batch transaction.
pub const BATCH: usize = 500;
/// Bytes per row of the plan (bytea values stay well under PostgreSQL's 1 GB limit and the
/// protocol's message sizes).
const PLAN_CHUNK: usize = 8 << 20;

/// What a push did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PushReport {
    /// The published store version (unchanged when nothing was new).
    pub version: i64,
    pub papers: usize,
    /// Papers written now (new or changed).
    pub written: usize,
    /// Papers already stored with the same content.
    pub unchanged: usize,
    /// Stored contents no longer in the list, removed at publication.
    pub removed: usize,
    /// Batch transactions committed.
    pub batches: usize,
    /// Whether a new version was published (false: the store already held this index).
    pub published: bool,
    /// On a large index, the beam factor published and the recall@10 it reached against the
    /// exact scan on the sampled papers (`query::calibrate_beam`).
    pub beam: Option<(f32, f64)>,
    /// On a large index, the papers whose nearest neighbours were stored with the version
    /// (`schema::NEAREST_TABLE`).
    pub nearest: usize,
}

/// A paper's content key: SHA-256 (first 16 bytes, hex) of its JSON record and its vector's
/// bytes. Readers compute it from the plan to tell the rows of the version they read.
pub fn paper_digest(p: &Paper, vector: &[f32]) -> String {
    let mut h = Sha256::new();
    h.update(serde_json::to_vec(p).unwrap_or_default());
    h.update([0u8]);
    h.update(bytemuck::cast_slice::<f32, u8>(vector));
    hex::encode(&h.finalize()[..16])
}

/// Every paper's digest, in index order.
pub fn digests(index: &Index) -> Vec<String> {
    (0..index.len())
        .into_par_iter()
        .map(|i| {
            let v = index.vector(i);
            let row: Vec<f32> = v.iter().copied().collect();
            paper_digest(&index.paper(i), &row)
        })
        .collect()
}

/// pgvector's text form of a vector: `[x,y,...]`, each value as Rust prints it (the shortest
/// form that reads back to the same f32).
pub fn vector_text(v: impl IntoIterator<Item = f32>) -> String {
    let mut s = String::from("[");
    for (i, x) in v.into_iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&x.to_string());
    }
    s.push(']');
    s
}

/// A record as jsonb takes it: JSON text without `\u0000`, which jsonb refuses (the plan keeps
/// the record as it is).
fn record_json(p: &Paper) -> String {
    serde_json::to_string(p)
        .unwrap_or_else(|_| "{}".into())
        .replace("\\u0000", "\\ufffd")
}

/// `RECOMMEND_STORE_FAULT=after-batch:N`: fail after N committed batches (tests of a failed
/// push; never set in use).
fn injected_fault() -> Option<usize> {
    std::env::var("RECOMMEND_STORE_FAULT")
        .ok()?
        .strip_prefix("after-batch:")?
        .parse()
        .ok()
}

/// The columns of one batch's rows.
#[derive(Default)]
struct Rows {
    keys: Vec<String>,
    digests: Vec<String>,
    records: Vec<String>,
    vectors: Vec<String>,
    /// (key, digest, value[, weight]) of the evidence tables.
    terms: (Vec<String>, Vec<String>, Vec<String>, Vec<f32>),
    tags: (Vec<String>, Vec<String>, Vec<String>),
    parents: (Vec<String>, Vec<String>, Vec<String>),
    topics: (Vec<String>, Vec<String>, Vec<String>),
}

impl Rows {
    fn add(&mut self, index: &Index, i: usize, digest: &str) {
        let p = index.paper(i);
        let key = p.id.clone();
        self.keys.push(key.clone());
        self.digests.push(digest.to_string());
        self.records.push(record_json(&p));
        self.vectors
            .push(vector_text(index.vector(i).iter().copied()));
        for (t, w) in crate::index::lexical::paper_terms(&p) {
            self.terms.0.push(key.clone());
            self.terms.1.push(digest.to_string());
            self.terms.2.push(t);
            self.terms.3.push(w);
        }
        let push_all = |table: &mut (Vec<String>, Vec<String>, Vec<String>),
                        values: &mut Vec<String>| {
            values.sort();
            values.dedup();
            for v in values.drain(..) {
                table.0.push(key.clone());
                table.1.push(digest.to_string());
                table.2.push(v);
            }
        };
        push_all(&mut self.tags, &mut p.tags.clone());
        push_all(&mut self.parents, &mut p.builds_on.clone());
        let mut topics: Vec<String> = std::iter::once(&p.topic)
            .chain(&p.also_topics)
            .filter(|t| !t.is_empty())
            .cloned()
            .collect();
        push_all(&mut self.topics, &mut topics);
    }

    fn write(&self, tx: &mut postgres::Transaction<'_>) -> Result<(), postgres::Error> {
        tx.execute(
            "INSERT INTO recommend.papers (key, digest, record, embedding)
             SELECT k, d, r::jsonb, e::vector
             FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS t(k, d, r, e)
             ON CONFLICT DO NOTHING",
            &[&self.keys, &self.digests, &self.records, &self.vectors],
        )?;
        tx.execute(
            "INSERT INTO recommend.terms (key, digest, term, weight)
             SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::real[])
             ON CONFLICT DO NOTHING",
            &[&self.terms.0, &self.terms.1, &self.terms.2, &self.terms.3],
        )?;
        for (table, column, rows) in [
            ("tags", "tag", &self.tags),
            ("builds_on", "parent", &self.parents),
            ("topics", "topic", &self.topics),
        ] {
            tx.execute(
                &format!(
                    "INSERT INTO recommend.{table} (key, digest, {column})
                     SELECT * FROM unnest($1::text[], $2::text[], $3::text[])
                     ON CONFLICT DO NOTHING"
                ),
                &[&rows.0, &rows.1, &rows.2],
            )?;
        }
        Ok(())
    }
}

/// SHA-256 of the plan bytes, hex: a push of the index the store already publishes is a no-op.
fn plan_hash(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Whether the published version's plan rows hold `bytes` as a push writes them: each row's
/// SHA-256 (PostgreSQL computes it; 32 bytes a row cross the wire) against the same chunk of
/// `bytes`. A push of the index the store says it publishes is otherwise a no-op, and a
/// damaged or missing plan row, which readers refuse, could never be repaired by pushing again.
fn plan_intact(
    c: &mut postgres::Client,
    store: &Store,
    version: i64,
    bytes: &[u8],
) -> Result<bool, StoreError> {
    let rows = c
        .query(
            "SELECT sha256(body) FROM recommend.plan WHERE version = $1 ORDER BY seq",
            &[&version],
        )
        .map_err(store.fail("checking the stored plan"))?;
    let stored: Vec<Vec<u8>> = rows.iter().map(|r| r.get::<_, Vec<u8>>(0)).collect();
    let expected: Vec<Vec<u8>> = bytes
        .chunks(PLAN_CHUNK)
        .map(|chunk| Sha256::digest(chunk).to_vec())
        .collect();
    Ok(stored == expected)
}

/// Push the index whose validated bytes are `bytes` into `store` (see the module
/// documentation); `progress` hears the papers written so far.
pub fn push(
    store: &Store,
    bytes: &[u8],
    progress: &mut dyn FnMut(usize, usize),
) -> Result<PushReport, StoreError> {
    let index = Searcher::new(Index::from_bytes(bytes)?);
    let target = store.target().clone();
    let fault = injected_fault();
    store.with(|c| {
        // One push at a time: a publication removes the rows its own list lacks, which are the
        // rows another push is writing (a probe's two overlapping pushes left a published
        // version with half its papers). The lock is the session's: a dropped connection frees
        // it.
        let locked: bool = c
            .query_one("SELECT pg_try_advisory_lock($1)", &[&PUSH_LOCK])
            .map_err(store.fail("taking the push lock"))?
            .get(0);
        if !locked {
            return Err(StoreError::PushRunning {
                target: target.clone(),
            });
        }
        let result = push_locked(c, store, &index, bytes, fault, progress);
        // A connection that cannot unlock is closed by the pool's next health check, which
        // frees the lock too.
        let _ = c.execute("SELECT pg_advisory_unlock($1)", &[&PUSH_LOCK]);
        result
    })
}

/// The advisory lock a push holds for its whole run (any number: it only has to differ from
/// the schema's creation lock, 7339012).
const PUSH_LOCK: i64 = 7_339_013;

/// [`push`] once it holds the push lock.
fn push_locked(
    c: &mut postgres::Client,
    store: &Store,
    index: &Searcher,
    bytes: &[u8],
    fault: Option<usize>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<PushReport, StoreError> {
    let target = store.target().clone();
    let meta = schema::ensure(c, &target, index.dim())?;
    schema::ensure_nearest(c).map_err(store.fail("creating the table of nearest papers"))?;
    if meta.dim != index.dim()
        || (!meta.model_id.is_empty() && meta.model_id != index.meta.model_id)
    {
        return Err(StoreError::OtherModel {
            target: target.clone(),
            stored: if meta.model_id.is_empty() {
                "no model yet".into()
            } else {
                meta.model_id.clone()
            },
            stored_dim: meta.dim,
            given: index.meta.model_id.clone(),
            given_dim: index.dim(),
        });
    }
    let stored: HashSet<(String, String)> = c
        .query("SELECT key, digest FROM recommend.papers", &[])
        .map_err(store.fail("reading the stored papers"))?
        .into_iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let digests = digests(index);
    let keys: Vec<String> = (0..index.len())
        .map(|i| index.table().id(i).to_string())
        .collect();
    let new: Vec<usize> = (0..index.len())
        .filter(|&i| !stored.contains(&(keys[i].clone(), digests[i].clone())))
        .collect();
    let members: HashSet<(&str, &str)> = keys
        .iter()
        .map(String::as_str)
        .zip(digests.iter().map(String::as_str))
        .collect();
    let removed = stored
        .iter()
        .filter(|(k, d)| !members.contains(&(k.as_str(), d.as_str())))
        .count();
    let hash = plan_hash(bytes);
    let published_hash = c
        .query_opt(
            "SELECT value FROM recommend.meta WHERE key = 'plan_sha256'",
            &[],
        )
        .map_err(store.fail("reading the store's metadata"))?
        .map(|r| r.get::<_, String>(0));
    let mut report = PushReport {
        version: meta.version,
        papers: index.len(),
        written: new.len(),
        unchanged: index.len() - new.len(),
        removed,
        batches: 0,
        published: false,
        beam: None,
        nearest: 0,
    };
    // A store published without a calibrated beam or without its papers' nearest (an older
    // push), or whose lists were damaged, deleted or swapped since, is published again.
    let calibrated = !index.graph_answers()
        || (c
            .query_opt(
                "SELECT value FROM recommend.meta WHERE key = 'beam_factor'",
                &[],
            )
            .map_err(store.fail("reading the store's metadata"))?
            .is_some()
            && nearest_intact(c, store, meta.version)?);
    if new.is_empty()
        && removed == 0
        && published_hash.as_deref() == Some(hash.as_str())
        && calibrated
        && plan_intact(c, store, meta.version, bytes)?
    {
        return Ok(report);
    }
    let mut done = 0;
    for chunk in new.chunks(BATCH) {
        if fault == Some(report.batches) {
            return Err(StoreError::Injected(report.batches));
        }
        let mut rows = Rows::default();
        for &i in chunk {
            rows.add(index, i, &digests[i]);
        }
        let mut tx = c
            .transaction()
            .map_err(store.fail("writing a batch of papers"))?;
        rows.write(&mut tx)
            .map_err(store.fail("writing a batch of papers"))?;
        tx.commit()
            .map_err(store.fail("writing a batch of papers"))?;
        report.batches += 1;
        done += chunk.len();
        progress(done, new.len());
    }
    if fault == Some(report.batches) {
        return Err(StoreError::Injected(report.batches));
    }
    let beam = if index.graph_answers() {
        let (factor, recall) = super::query::calibrate_beam(c, store, index, &keys, &digests)?;
        report.beam = Some((factor, recall));
        factor
    } else {
        1.0
    };
    let nearest = if index.graph_answers() {
        nearest_lists(index)
    } else {
        Vec::new()
    };
    report.nearest = nearest.len();
    let published = Published {
        hash: &hash,
        beam_factor: beam,
        nearest: &nearest,
    };
    report.version = publish(c, store, index, bytes, published, &keys, &digests)?;
    report.published = true;
    Ok(report)
}

/// What a publication records of the version besides its rows: the plan's SHA-256, the
/// calibrated beam factor and each paper's nearest ([`nearest_lists`]; none on a small index).
struct Published<'a> {
    hash: &'a str,
    beam_factor: f32,
    nearest: &'a [Vec<u32>],
}

/// Every paper's [`SEED_NEAREST`] nearest papers, as the index's own graph finds them for a
/// `like` of it: the store then answers a `like` as the index file does, without a search.
/// A 100k push with them took 273 s in all (bench/runs/2026-12-07-store-nearest/).
fn nearest_lists(index: &Searcher) -> Vec<Vec<u32>> {
    (0..index.len())
        .into_par_iter()
        .map(|i| {
            index
                .paper_nearest(i, SEED_NEAREST)
                .into_iter()
                .map(|j| j as u32)
                .collect()
        })
        .collect()
}

/// A list's bytes as a row of `recommend.nearest` holds them.
fn list_bytes(list: &[u32]) -> Vec<u8> {
    list.iter().flat_map(|j| j.to_le_bytes()).collect()
}

/// The SHA-256 (hex) of the lists of a version: of each row's SHA-256, in paper order. Kept in
/// `meta` as `nearest_sha256` at publication, so that a push of the same index can tell
/// intact lists from damaged, missing or swapped rows without finding them again.
fn nearest_digest<'a>(row_digests: impl Iterator<Item = &'a [u8]>) -> String {
    let mut h = Sha256::new();
    for d in row_digests {
        h.update(d);
    }
    hex::encode(h.finalize())
}

/// Whether the published `version`'s lists are as its publication recorded them.
fn nearest_intact(
    c: &mut postgres::Client,
    store: &Store,
    version: i64,
) -> Result<bool, StoreError> {
    let fail = store.fail("checking the stored nearest papers");
    let recorded = c
        .query_opt(
            "SELECT value FROM recommend.meta WHERE key = 'nearest_sha256'",
            &[],
        )
        .map_err(&fail)?
        .map(|r| r.get::<_, String>(0));
    let Some(recorded) = recorded else {
        return Ok(false);
    };
    let rows = c
        .query(
            "SELECT sha256(list) FROM recommend.nearest WHERE version = $1 ORDER BY paper",
            &[&version],
        )
        .map_err(&fail)?;
    let stored = nearest_digest(rows.iter().map(|r| r.get::<_, &[u8]>(0)));
    Ok(stored == recorded)
}

/// `nearest` as rows of `recommend.nearest` for `version`, in one COPY; their
/// [`nearest_digest`].
fn copy_nearest(
    tx: &mut postgres::Transaction<'_>,
    version: i64,
    nearest: &[Vec<u32>],
) -> Result<String, postgres::Error> {
    use postgres::binary_copy::BinaryCopyInWriter;
    use postgres::types::Type;
    let sink = tx.copy_in("COPY recommend.nearest (version, paper, list) FROM STDIN BINARY")?;
    let mut rows = BinaryCopyInWriter::new(sink, &[Type::INT8, Type::INT4, Type::BYTEA]);
    let mut row_digests = Vec::with_capacity(nearest.len());
    for (paper, list) in nearest.iter().enumerate() {
        let bytes = list_bytes(list);
        rows.write(&[&version, &(paper as i32), &bytes.as_slice()])?;
        row_digests.push(Sha256::digest(&bytes));
    }
    rows.finish()?;
    Ok(nearest_digest(row_digests.iter().map(|d| d.as_slice())))
}

/// The last transaction of a push: the plan under a new version, the metadata, the removal of
/// contents no longer listed, and a notification. Returns the new version.
fn publish(
    c: &mut postgres::Client,
    store: &Store,
    index: &Index,
    bytes: &[u8],
    published: Published<'_>,
    keys: &[String],
    digests: &[String],
) -> Result<i64, StoreError> {
    let Published {
        hash,
        beam_factor,
        nearest,
    } = published;
    let fail = store.fail("publishing the new version");
    let mut tx = c.transaction().map_err(&fail)?;
    let current: String = tx
        .query_one(
            "SELECT value FROM recommend.meta WHERE key = 'version' FOR UPDATE",
            &[],
        )
        .map_err(&fail)?
        .get(0);
    let version = current.parse::<i64>().unwrap_or(0) + 1;
    for (seq, chunk) in bytes.chunks(PLAN_CHUNK).enumerate() {
        tx.execute(
            "INSERT INTO recommend.plan (version, seq, body) VALUES ($1, $2, $3)",
            &[&version, &(seq as i32), &chunk],
        )
        .map_err(&fail)?;
    }
    let nearest_sha256 = if nearest.is_empty() {
        nearest_digest(std::iter::empty())
    } else {
        copy_nearest(&mut tx, version, nearest).map_err(&fail)?
    };
    tx.execute(
        "DELETE FROM recommend.nearest WHERE version < $1",
        &[&version],
    )
    .map_err(&fail)?;
    tx.execute(
        "DELETE FROM recommend.papers p WHERE NOT EXISTS (
             SELECT 1 FROM unnest($1::text[], $2::text[]) AS m(k, d)
             WHERE m.k = p.key AND m.d = p.digest)",
        &[&keys, &digests],
    )
    .map_err(&fail)?;
    tx.execute("DELETE FROM recommend.plan WHERE version < $1", &[&version])
        .map_err(&fail)?;
    let meta: [(&str, String); 8] = [
        ("version", version.to_string()),
        ("nearest_sha256", nearest_sha256),
        ("beam_factor", beam_factor.to_string()),
        ("model_id", index.meta.model_id.clone()),
        ("papers", index.len().to_string()),
        ("corpus_hash", index.meta.corpus_hash.clone()),
        ("plan_sha256", hash.to_string()),
        ("built_by", index.meta.built_by.clone()),
    ];
    for (k, v) in &meta {
        tx.execute(
            "INSERT INTO recommend.meta (key, value) VALUES ($1, $2)
             ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            &[k, v],
        )
        .map_err(&fail)?;
    }
    tx.execute(
        "SELECT pg_notify($1, $2)",
        &[&CHANNEL, &version.to_string()],
    )
    .map_err(&fail)?;
    tx.commit().map_err(&fail)?;
    Ok(version)
}
