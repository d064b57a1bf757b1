//! Where a reader's feed state and the candidate vectors are kept: [`Files`] beside an index
//! (`<index>.feed.json`, `<index>.feed-vectors.bin`), or a shared PostgreSQL store keyed by
//! reader (`crate::store::FeedHome`). `recommend feed`, `recommend rate` and the Inbox read and
//! write through a [`Home`], so one rule serves both.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::state::{self, Cache, State, StateError};

/// A place that keeps one reader's [`State`] and a cache of candidate vectors.
///
/// Writes are whole or not at all: on any error the kept state is as it was.
pub trait Home {
    /// The reader's state (a fresh one when there is none), checked against the index's model.
    fn state(&self) -> Result<State, StateError>;
    /// Keeps `state` as the reader's state.
    fn save_state(&self, state: &mut State) -> Result<(), StateError>;
    /// The cached vectors of `keys` ([`state::text_key`]) that the home has (a file home may
    /// return more), and why a cache was not used, for a note.
    fn vectors(&self, keys: &[String]) -> (Cache, Option<String>);
    /// Caches the vectors of `cache` whose keys are in `keep`.
    fn save_vectors(&self, cache: &Cache, keep: &HashSet<String>) -> Result<(), StateError>;
}

/// What to do when a file beside the index cannot be written.
const BESIDE: &str = " (the feed keeps its files beside the index: make that folder writable, \
                      or copy the index to a writable folder and pass --index)";

/// The two files beside an index.
pub struct Files {
    index: PathBuf,
    model_id: String,
    dim: usize,
    /// The state as [`Home::state`] read it: a save writes only what changed since, merged
    /// into the state kept then (several processes rate on one index: `serve` and the CLI).
    read: Mutex<Option<State>>,
}

impl Files {
    /// The home beside `index`, for vectors of `model_id`, `dim` wide.
    pub fn beside(index: &Path, model_id: &str, dim: usize) -> Files {
        Files {
            index: index.to_path_buf(),
            model_id: model_id.to_string(),
            dim,
            read: Mutex::new(None),
        }
    }
}

/// The most vectors the cache file keeps beyond a run's own and the shown papers' (about
/// 1.5 KB each at 384 dimensions: 30 MB).
pub const MAX_OTHER_VECTORS: usize = 20_000;

impl Files {
    /// An exclusive lock on `<index>.feed.lock`, held until the file is dropped: runs at once
    /// take turns to read and write the state and the cache.
    fn locked(&self) -> Result<std::fs::File, StateError> {
        let lock_path = state::lock_path(&self.index);
        let failed = |e: std::io::Error| StateError::Write {
            path: lock_path.clone(),
            error: format!("{e}{BESIDE}"),
        };
        let lock = std::fs::File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(failed)?;
        lock.lock().map_err(failed)?;
        Ok(lock)
    }
}

impl Home for Files {
    fn state(&self) -> Result<State, StateError> {
        let s = State::load(&state::state_path(&self.index), &self.model_id)?;
        *self.read.lock().unwrap_or_else(|e| e.into_inner()) = Some(s.clone());
        Ok(s)
    }

    /// Under an exclusive lock on `<index>.feed.lock`: the state kept now, read again, takes
    /// this run's changes since [`Home::state`] ([`state::merged`]), and is written atomically;
    /// `s` becomes that merged state.
    fn save_state(&self, s: &mut State) -> Result<(), StateError> {
        let path = state::state_path(&self.index);
        let _lock = self.locked()?;
        let mut read = self.read.lock().unwrap_or_else(|e| e.into_inner());
        let before = read.clone().unwrap_or_else(|| State::new(&self.model_id));
        let mut kept = state::merged(&before, s, State::load(&path, &self.model_id)?);
        kept.save(&path).map_err(|e| match e {
            StateError::Write { path, error } => StateError::Write {
                path,
                error: format!("{error}{BESIDE}"),
            },
            other => other,
        })?;
        *read = Some(kept.clone());
        *s = kept;
        Ok(())
    }

    fn vectors(&self, _keys: &[String]) -> (Cache, Option<String>) {
        let path = state::cache_path(&self.index);
        let (cache, why) = Cache::load(&path, &self.model_id, self.dim);
        (cache, why.map(|w| format!("{}: {w}", path.display())))
    }

    /// The file keeps `keep` (this run's candidates and the papers shown), and what it holds
    /// when this run saves (other runs' candidates, papers this run's filters left out) up to
    /// [`MAX_OTHER_VECTORS`] more: read again under the feed's lock, so that runs at once keep
    /// each other's vectors and a filter never costs the next run an embedding.
    fn save_vectors(&self, cache: &Cache, keep: &HashSet<String>) -> Result<(), StateError> {
        let path = state::cache_path(&self.index);
        let _lock = self.locked()?;
        let (now, _) = Cache::load(&path, &self.model_id, self.dim);
        let mut vectors: std::collections::BTreeMap<String, Vec<f32>> = cache
            .vectors
            .iter()
            .filter(|(k, _)| keep.contains(*k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let others: Vec<(String, Vec<f32>)> = now
            .vectors
            .into_iter()
            .chain(cache.vectors.iter().map(|(k, v)| (k.clone(), v.clone())))
            .filter(|(k, _)| !keep.contains(k))
            .collect();
        let room = MAX_OTHER_VECTORS;
        let mut added = 0;
        for (k, v) in others {
            if added == room {
                break;
            }
            if let std::collections::btree_map::Entry::Vacant(e) = vectors.entry(k) {
                e.insert(v);
                added += 1;
            }
        }
        let kept = Cache {
            model_id: cache.model_id.clone(),
            dim: cache.dim,
            vectors,
        };
        kept.save(&path).map_err(|e| StateError::Write {
            path,
            error: format!("{e}{BESIDE}"),
        })
    }
}
