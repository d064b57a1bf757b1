//! Reading the store: the published version, its plan as an index in memory, and pgvector's
//! nearest neighbours for it.
//!
//! [`Snapshot::load`] reads the metadata and every plan row of one version in one
//! repeatable-read transaction, so a push publishing meanwhile is either wholly seen or not at
//! all, and validates the plan as `index.bin` is validated (checksums included). On a list
//! large enough for the graph ([`crate::index::Searcher::uses_graph`]) the index's dense
//! candidates then come from the store ([`PgNearest`]): a paper's own nearest from the lists
//! the push stored for this version, a query's from the store's HNSW index, filtered to the
//! rows of this version; a query that cannot reach the store meanwhile falls back to the plan's
//! own graph, so an answer is never torn or lost mid-query. [`current_version`] is the cheap check a
//! long-lived reader makes per request.

use hashbrown::HashMap;
use std::sync::Arc;

use super::schema;
use super::{Store, StoreError};
use crate::engine::retrieve::SEED_NEAREST;
use crate::index::{Index, NearestSource, Searcher};

/// pgvector's HNSW search returns at most `hnsw.ef_search` rows (default 40): the beam is set
/// per query to what is asked, plus room for rows of other versions, within pgvector's limit,
/// and never below [`MIN_EF`].
const MAX_EF: usize = 1000;
/// The narrowest beam: pgvector's default of 40 gave recall@10 0.937 against the exact scan at
/// 100k papers (benches/store.rs, 2026-12-03).
const MIN_EF: usize = 100;

/// The beam widths tried when a push calibrates the store ([`calibrate_beam`]), as factors of
/// what a query asks for; the smallest whose recall@10 reaches [`BEAM_RECALL`] is kept.
const BEAM_FACTORS: [f32; 3] = [1.0, 2.0, 4.0];
/// The recall@10 against the exact scan a calibrated beam reaches on the sampled papers: above
/// the 0.99 the store promises, since the sample's papers are not the queries.
const BEAM_RECALL: f64 = 0.995;
/// Papers a calibration queries (evenly spaced).
const BEAM_SAMPLE: usize = 64;
/// Candidates a `like` asks of pgvector: what the calibration asks.
const BEAM_K: usize = 200;

/// The SQL of one pgvector search: `limit` rows nearest `query` with a beam of `ef`.
fn search_sql(query: &[f32], ef: usize, limit: usize) -> String {
    let v = super::push::vector_text(query.iter().copied());
    format!(
        "SET LOCAL hnsw.ef_search = {ef}; \
         SELECT key, digest, (1 - (embedding <=> '{v}'))::real FROM recommend.papers \
         ORDER BY embedding <=> '{v}' LIMIT {limit}"
    )
}

/// Rows asked for `k` nearest, and the beam for them given the store's calibrated `factor`.
fn beam(k: usize, factor: f32) -> (usize, usize) {
    let want = k + k / 4 + 8;
    let ef = ((want as f32 * factor.max(1.0)).round() as usize).clamp(MIN_EF, MAX_EF);
    (want, ef)
}

/// The beam factor pgvector's HNSW index needs for this index's papers: with the defaults its
/// recall falls as the store grows (recall@10 of the 200 candidates a `like` takes: 0.9975 at
/// 100k papers, 0.975 at 300k; bench/runs/2026-12-06-store-300k/), where the file's graph keeps
/// a beam measured at build. `BEAM_SAMPLE` papers are queried by their own vectors and their
/// ten nearest others compared with the exact scan, at each of [`BEAM_FACTORS`]. Run on the
/// pushed rows before the version is published (`keys` and `digests` name them).
pub(super) fn calibrate_beam(
    c: &mut postgres::Client,
    store: &Store,
    index: &Index,
    keys: &[String],
    digests: &[String],
) -> Result<(f32, f64), StoreError> {
    let n = index.len();
    let sample: Vec<usize> = (0..BEAM_SAMPLE.min(n))
        .map(|s| s * n / BEAM_SAMPLE.min(n))
        .collect();
    let exact: Vec<Vec<usize>> = sample
        .iter()
        .map(|&i| {
            let scored: Vec<(usize, f32)> = index
                .similarities(&index.vector(i).to_vec())
                .into_iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .collect();
            crate::index::ann::top_hits(scored, 10)
                .into_iter()
                .map(|h| h.0)
                .collect()
        })
        .collect();
    let positions: HashMap<(&str, &str), usize> = keys
        .iter()
        .zip(digests)
        .enumerate()
        .map(|(i, (k, d))| ((k.as_str(), d.as_str()), i))
        .collect();
    let mut measured = (BEAM_FACTORS[BEAM_FACTORS.len() - 1], 0.0);
    for factor in BEAM_FACTORS {
        let (want, ef) = beam(BEAM_K, factor);
        let mut found = 0usize;
        for (&i, truth) in sample.iter().zip(&exact) {
            let query: Vec<f32> = index.vector(i).to_vec();
            let rows = c
                .simple_query(&search_sql(&query, ef, want + 1))
                .map_err(store.fail("calibrating the vector search"))?;
            let got: Vec<usize> = rows
                .iter()
                .filter_map(|m| match m {
                    postgres::SimpleQueryMessage::Row(r) => {
                        positions.get(&(r.get(0)?, r.get(1)?)).copied()
                    }
                    _ => None,
                })
                .filter(|&j| j != i)
                .take(10)
                .collect();
            found += truth.iter().filter(|t| got.contains(t)).count();
        }
        let total = exact.iter().map(Vec::len).sum::<usize>().max(1);
        let recall = found as f64 / total as f64;
        measured = (factor, recall);
        if recall >= BEAM_RECALL || ef >= MAX_EF {
            break;
        }
    }
    Ok(measured)
}

/// One published version of the store, opened as an index.
pub struct Snapshot {
    pub version: i64,
    /// The SHA-256 of its plan, as `meta` records it ([`identity`]).
    pub plan_sha256: String,
    /// The version's index, its nearest neighbours from pgvector on a large one.
    pub index: Searcher,
}

/// What a published version is: its number and its plan's SHA-256. A store dropped and made
/// again, or restored from an older backup, starts its numbers again: the hash tells its
/// plan from the one a server holds.
pub fn identity(
    c: &mut impl postgres::GenericClient,
    target: &super::Target,
) -> Result<(i64, String), StoreError> {
    let rows = c
        .query(
            "SELECT key, value FROM recommend.meta WHERE key IN ('version', 'plan_sha256')",
            &[],
        )
        .map_err(|e| match e.code() {
            Some(&postgres::error::SqlState::UNDEFINED_TABLE) => StoreError::NoStore {
                target: target.clone(),
            },
            _ => super::connect::classify(target, &e, "reading the store version"),
        })?;
    let get = |k: &str| {
        rows.iter()
            .find(|r| r.get::<_, &str>(0) == k)
            .map(|r| r.get::<_, String>(1))
            .unwrap_or_default()
    };
    Ok((get("version").parse().unwrap_or(0), get("plan_sha256")))
}

/// The store's published version (0: nothing published yet).
pub fn current_version(store: &Store) -> Result<i64, StoreError> {
    store.with(|c| identity(c, store.target()).map(|(version, _)| version))
}

impl Snapshot {
    /// The published version of `store` as an index, its dense candidates from pgvector.
    pub fn load(store: &Arc<Store>) -> Result<Snapshot, StoreError> {
        let target = store.target().clone();
        let (version, beam_factor, listed, bytes) = store.with(|c| {
            let fail =
                |e: postgres::Error| super::connect::classify(&target, &e, "reading the plan");
            let mut tx = c
                .build_transaction()
                .isolation_level(postgres::IsolationLevel::RepeatableRead)
                .read_only(true)
                .start()
                .map_err(fail)?;
            let meta = schema::read_meta(&mut tx, &target)?;
            if meta.version == 0 {
                return Err(StoreError::Unpublished {
                    target: target.clone(),
                });
            }
            let (_, plan_sha256) = identity(&mut tx, &target)?;
            let rows = tx
                .query(
                    "SELECT body FROM recommend.plan WHERE version = $1 ORDER BY seq",
                    &[&meta.version],
                )
                .map_err(fail)?;
            let mut bytes = Vec::new();
            for r in rows {
                bytes.extend_from_slice(r.get::<_, &[u8]>(0));
            }
            tx.commit().map_err(fail)?;
            let listed = has_nearest(c, meta.version);
            Ok(((meta.version, plan_sha256), meta.beam_factor, listed, bytes))
        })?;
        let (version, plan_sha256) = version;
        let mut index =
            Searcher::new(Index::from_bytes(&bytes).map_err(|e| StoreError::Damaged {
                target: target.clone(),
                detail: e.to_string(),
            })?);
        if index.uses_graph() {
            let digests = super::push::digests(&index);
            let positions = (0..index.len())
                .map(|i| ((index.table().id(i).to_string(), digests[i].clone()), i))
                .collect();
            let lists = listed.then(|| Lists {
                version,
                papers: index.len(),
                ef_search: index.meta.hnsw.ef_search,
            });
            index.set_nearest_source(Some(Arc::new(PgNearest {
                store: Arc::clone(store),
                positions,
                beam_factor,
                lists,
                recent: std::sync::Mutex::new(lru::LruCache::new(RECENT_SEARCHES)),
            })));
        }
        Ok(Snapshot {
            version,
            plan_sha256,
            index,
        })
    }
}

/// Whether `version` has its papers' nearest stored (`schema::NEAREST_TABLE`) and this role
/// may read them. Asked after the plan's transaction, waiting at most [`LIST_LOCK_WAIT`] for a
/// lock on the table (an administrator's `VACUUM FULL`): any failure means no lists, and
/// pgvector answers as for a store pushed without them.
fn has_nearest(c: &mut postgres::Client, version: i64) -> bool {
    let check = |c: &mut postgres::Client| -> Result<bool, postgres::Error> {
        let mut tx = c.build_transaction().read_only(true).start()?;
        tx.batch_execute(&format!("SET LOCAL lock_timeout = '{LIST_LOCK_WAIT}'"))?;
        let listed = schema::nearest_readable(&mut tx)?
            && tx
                .query_one(
                    "SELECT EXISTS (SELECT 1 FROM recommend.nearest WHERE version = $1)",
                    &[&version],
                )?
                .get(0);
        tx.commit()?;
        Ok(listed)
    };
    check(c).unwrap_or(false)
}

/// How long a read of the stored lists waits for a lock on them before pgvector answers
/// instead (a `like` otherwise waited out the 10 s statement timeout behind a `VACUUM FULL`).
const LIST_LOCK_WAIT: &str = "100ms";

/// pgvector's HNSW index, and the papers' stored nearest, as the nearest-neighbour source of
/// one snapshot.
pub struct PgNearest {
    store: Arc<Store>,
    /// The rows of the snapshot's version: (key, digest) -> position in its index.
    positions: HashMap<(String, String), usize>,
    /// The published beam factor ([`calibrate_beam`]; 1 for a store pushed without one).
    beam_factor: f32,
    /// The version's stored nearest lists, when it has them.
    lists: Option<Lists>,
    /// Its recent answers to query vectors.
    recent: std::sync::Mutex<RecentSearches>,
}

/// What a snapshot knows of its version's stored nearest lists.
struct Lists {
    version: i64,
    papers: usize,
    /// The index's own beam: the graph walks `ef_search.max(k)` for `k` papers
    /// ([`Searcher::graph_beam`]), so a shorter list is the stored list's beginning only when
    /// that beam is the one the stored lists were found with.
    ef_search: usize,
}

/// A (key, digest) row as read, looked up in [`PgNearest::positions`] without copying it: it
/// hashes as the owned pair does (a `String` hashes as its `str`).
#[derive(Hash)]
struct RowKey<'a>(&'a str, &'a str);

impl hashbrown::Equivalent<(String, String)> for RowKey<'_> {
    fn equivalent(&self, key: &(String, String)) -> bool {
        self.0 == key.0 && self.1 == key.1
    }
}

impl PgNearest {
    /// The `k` nearest rows of this version, or the store's error.
    pub fn search(&self, query: &[f32], k: usize) -> Result<Vec<(usize, f32)>, StoreError> {
        let (want, ef) = beam(k, self.beam_factor);
        if query.iter().any(|x| !x.is_finite()) {
            return Ok(Vec::new());
        }
        let key = (k, query.iter().map(|x| x.to_bits()).collect::<Vec<u32>>());
        if let Some(hits) = self.recent_lock().get(&key) {
            return Ok(hits.clone());
        }
        // One round trip: the beam and the search in one simple query (one implicit
        // transaction, so SET LOCAL holds for the search). The literal is made of formatted
        // finite floats only.
        let sql = search_sql(query, ef, want);
        let messages = self.store.with(|c| {
            c.simple_query(&sql)
                .map_err(self.store.fail("searching the vectors"))
        })?;
        let mut hits: Vec<(usize, f32)> = messages
            .iter()
            .filter_map(|m| match m {
                postgres::SimpleQueryMessage::Row(r) => {
                    let key = RowKey(r.get(0)?, r.get(1)?);
                    let cos = r.get(2)?.parse::<f32>().ok()?;
                    self.positions.get(&key).map(|&i| (i, cos))
                }
                _ => None,
            })
            .collect();
        hits.truncate(k);
        self.recent_lock().put(key, hits.clone());
        Ok(hits)
    }

    fn recent_lock(&self) -> std::sync::MutexGuard<'_, RecentSearches> {
        self.recent.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A snapshot's recent pgvector answers, by (k, the query vector's bits): a server's kept query
/// vectors (`crate::session`) are bit for bit the same when a query is asked again, and one
/// version's answer does not change. 256 answers of up to ~260 hits: ~0.5 MB.
type RecentSearches = lru::LruCache<(usize, Vec<u32>), Vec<(usize, f32)>>;

/// Answers a snapshot keeps ([`RecentSearches`]).
const RECENT_SEARCHES: std::num::NonZeroUsize = std::num::NonZeroUsize::new(256).unwrap();

impl PgNearest {
    /// Paper `paper`'s stored list cut to `k`, when the version has lists, `k` is a beginning
    /// of the list the graph would give for `k`, and the row reads whole; `None` otherwise.
    fn stored(&self, paper: usize, k: usize) -> Option<Vec<usize>> {
        let lists = self.lists.as_ref()?;
        if k > SEED_NEAREST || lists.ef_search.max(k) != lists.ef_search.max(SEED_NEAREST) {
            return None;
        }
        // One round trip by primary key, in one implicit transaction (so the lock wait holds
        // for it); the list as hex text, whatever `bytea_output` says.
        let sql = format!(
            "SET LOCAL lock_timeout = '{LIST_LOCK_WAIT}'; \
             SELECT encode(list, 'hex') FROM recommend.nearest \
             WHERE version = {} AND paper = {paper}",
            lists.version
        );
        let messages = self
            .store
            .with(|c| {
                c.simple_query(&sql)
                    .map_err(self.store.fail("reading a paper's nearest"))
            })
            .ok()?;
        let hex = messages.iter().find_map(|m| match m {
            postgres::SimpleQueryMessage::Row(r) => r.get(0),
            _ => None,
        })?;
        let bytes = hex::decode(hex).ok()?;
        let mut list: Vec<usize> = bytes
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .collect();
        // A row of another paper (copied or restored wrongly) lacks the paper itself, which
        // the graph finds first for its own vector: the lookup then answers nothing.
        if list.len() < k || list.iter().any(|&j| j >= lists.papers) || !list.contains(&paper) {
            return None;
        }
        list.truncate(k);
        Some(list)
    }
}

impl NearestSource for PgNearest {
    fn nearest(&self, query: &[f32], k: usize) -> Option<Vec<(usize, f32)>> {
        self.search(query, k).ok().filter(|h| !h.is_empty())
    }

    fn paper_nearest(&self, paper: usize, k: usize) -> Option<Vec<usize>> {
        self.stored(paper, k)
    }
}
