//! What the feed remembers between runs, in two files beside the index:
//! `<index>.feed.json` (ratings with the rated paper's vector, and every paper shown) and
//! `<index>.feed-vectors.bin` (a cache of candidate vectors by text, so a second run over the
//! same candidates embeds nothing).
//!
//! Both are written atomically (a crash leaves the old file or the new one). The state file is
//! the reader's own data: one that does not parse is an error naming it, never overwritten. The
//! cache is only a cache: one that does not verify is ignored and rebuilt.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::safe_fs;

/// The state file's format revision.
pub const STATE_VERSION: u32 = 1;
/// Largest state file read: about 10,000 ratings with their vectors.
pub const MAX_STATE_BYTES: u64 = 64 << 20;
/// Largest vector cache read.
pub const MAX_CACHE_BYTES: u64 = 1 << 30;
/// Most papers remembered as shown; the oldest are forgotten first.
pub const MAX_SHOWN: usize = 200_000;

/// A reader's verdict on a paper.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Up,
    Down,
}

/// One rating: the paper's title (for messages) and its vector (the evidence later feeds use).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rating {
    pub verdict: Verdict,
    pub title: String,
    pub vector: Vec<f32>,
    /// When it was given (UTC date).
    pub date: String,
}

/// A paper a feed showed: enough to rate it later without the candidate file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Shown {
    pub title: String,
    /// The key of its vector in the cache ([`text_key`]).
    pub text: String,
    /// The date of the feed that first showed it.
    pub date: String,
}

/// The state file's content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct State {
    pub version: u32,
    /// The model whose vectors the ratings hold.
    pub model_id: String,
    pub ratings: BTreeMap<String, Rating>,
    pub shown: BTreeMap<String, Shown>,
}

/// What can go wrong with the state file.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    #[error(
        "cannot read the feed state {path}: {error} (it holds your ratings: fix or move it; \
         it is never overwritten while it does not read)"
    )]
    Unreadable { path: PathBuf, error: String },
    #[error(
        "the feed state {path} was written with the vectors of {found}, this index uses \
         {expected}: move it away to start afresh"
    )]
    OtherModel {
        path: PathBuf,
        found: String,
        expected: String,
    },
    #[error("cannot write {path}: {error}")]
    Write { path: PathBuf, error: String },
}

/// `<index>.feed.json`.
pub fn state_path(index: &Path) -> PathBuf {
    with_suffix(index, ".feed.json")
}

/// `<index>.feed.lock`: held while a state is read again, merged and written, so that feeds,
/// ratings and servers on one index never write over each other's changes.
pub fn lock_path(index: &Path) -> PathBuf {
    with_suffix(index, ".feed.lock")
}

/// `<index>.feed-vectors.bin`.
pub fn cache_path(index: &Path) -> PathBuf {
    with_suffix(index, ".feed-vectors.bin")
}

fn with_suffix(index: &Path, suffix: &str) -> PathBuf {
    let stem = index
        .file_stem()
        .map_or_else(|| "index".into(), |s| s.to_string_lossy().into_owned());
    index.with_file_name(format!("{stem}{suffix}"))
}

/// The cache key of a passage text.
pub fn text_key(text: &str) -> String {
    hex::encode(&Sha256::digest(text.as_bytes())[..16])
}

impl State {
    pub fn new(model_id: &str) -> State {
        State {
            version: STATE_VERSION,
            model_id: model_id.to_string(),
            ratings: BTreeMap::new(),
            shown: BTreeMap::new(),
        }
    }

    /// The state at `path` (a fresh one when there is none), checked against the index's model.
    pub fn load(path: &Path, model_id: &str) -> Result<State, StateError> {
        let unreadable = |error: String| StateError::Unreadable {
            path: path.to_path_buf(),
            error,
        };
        let bytes = match safe_fs::read_regular(path, MAX_STATE_BYTES) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(State::new(model_id)),
            Err(e) => return Err(unreadable(e.to_string())),
        };
        // The version first: a state another build wrote may have other fields, and "missing
        // field" would hide that it is another format.
        #[derive(Deserialize)]
        struct Version {
            version: Option<u32>,
        }
        if let Ok(Version { version: Some(v) }) = serde_json::from_slice::<Version>(&bytes)
            && v != STATE_VERSION
        {
            return Err(unreadable(format!(
                "format {v} (this build reads {STATE_VERSION})"
            )));
        }
        let state: State = serde_json::from_slice(&bytes).map_err(|e| unreadable(e.to_string()))?;
        if state.version != STATE_VERSION {
            return Err(unreadable(format!(
                "format {} (this build reads {STATE_VERSION})",
                state.version
            )));
        }
        if state.model_id != model_id {
            return Err(StateError::OtherModel {
                path: path.to_path_buf(),
                found: state.model_id,
                expected: model_id.to_string(),
            });
        }
        let dim = state.ratings.values().map(|r| r.vector.len()).next();
        if let Some(bad) = state
            .ratings
            .iter()
            .find(|(_, r)| Some(r.vector.len()) != dim || r.vector.iter().any(|x| !x.is_finite()))
        {
            return Err(unreadable(format!(
                "the rating of {:?} holds a malformed vector",
                bad.0
            )));
        }
        Ok(state)
    }

    /// Writes the state atomically, forgetting the oldest shown papers past [`MAX_SHOWN`].
    pub fn save(&mut self, path: &Path) -> Result<(), StateError> {
        if self.shown.len() > MAX_SHOWN {
            let mut by_date: Vec<(String, String)> = self
                .shown
                .iter()
                .map(|(k, s)| (s.date.clone(), k.clone()))
                .collect();
            by_date.sort();
            for (_, k) in by_date.iter().take(self.shown.len() - MAX_SHOWN) {
                self.shown.remove(k);
            }
        }
        let bytes = serde_json::to_vec(self).map_err(|e| StateError::Write {
            path: path.to_path_buf(),
            error: e.to_string(),
        })?;
        safe_fs::write_atomic(path, &bytes).map_err(|e| StateError::Write {
            path: path.to_path_buf(),
            error: e.to_string(),
        })
    }
}

/// `after`'s changes since `before` laid over `current`, the state kept now: two processes that
/// read one state and each rate a paper must keep both ratings, not the last writer's alone.
/// A rating `after` added, changed or removed wins over `current`'s; papers `after` newly shows
/// join `current`'s shown papers.
pub fn merged(before: &State, after: &State, mut current: State) -> State {
    for (key, rating) in &after.ratings {
        if before.ratings.get(key) != Some(rating) {
            current.ratings.insert(key.clone(), rating.clone());
        }
    }
    for key in before.ratings.keys() {
        if !after.ratings.contains_key(key) {
            current.ratings.remove(key);
        }
    }
    for (key, shown) in &after.shown {
        if !before.shown.contains_key(key) {
            current
                .shown
                .entry(key.clone())
                .or_insert_with(|| shown.clone());
        }
    }
    current
}

/// Candidate vectors by [`text_key`], for one model.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Cache {
    pub model_id: String,
    pub dim: usize,
    pub vectors: BTreeMap<String, Vec<f32>>,
}

/// The cache's magic and revision, checked before its bytes are decoded.
const CACHE_MAGIC: &[u8; 8] = b"RFEEDV01";

impl Cache {
    /// The cache at `path` if it verifies for `model_id` and `dim`, else an empty one (and why
    /// the old one was not used, for a note).
    pub fn load(path: &Path, model_id: &str, dim: usize) -> (Cache, Option<String>) {
        let empty = || Cache {
            model_id: model_id.to_string(),
            dim,
            vectors: BTreeMap::new(),
        };
        let bytes = match safe_fs::read_regular(path, MAX_CACHE_BYTES) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (empty(), None),
            Err(e) => return (empty(), Some(e.to_string())),
        };
        let decoded = (|| {
            let body = bytes
                .strip_prefix(CACHE_MAGIC)
                .ok_or("not a vector cache")?;
            let (sum, body) = body.split_at_checked(4).ok_or("truncated")?;
            if crc32fast::hash(body).to_le_bytes() != sum {
                return Err("checksum mismatch");
            }
            let (c, _): (Cache, usize) =
                bincode::serde::decode_from_slice(body, bincode::config::standard())
                    .map_err(|_| "does not decode")?;
            let ok = c.model_id == model_id
                && c.dim == dim
                && c.vectors.values().all(|v| v.len() == dim);
            ok.then_some(c).ok_or("made with another model")
        })();
        match decoded {
            Ok(c) => (c, None),
            Err(why) => (empty(), Some(why.to_string())),
        }
    }

    /// Writes the cache atomically.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let body = bincode::serde::encode_to_vec(self, bincode::config::standard())
            .map_err(std::io::Error::other)?;
        let mut bytes = CACHE_MAGIC.to_vec();
        bytes.extend(crc32fast::hash(&body).to_le_bytes());
        bytes.extend(body);
        safe_fs::write_atomic(path, &bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_and_cache_round_trip_and_a_broken_state_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let index = dir.path().join("mine.bin");
        let path = state_path(&index);
        assert_eq!(path, dir.path().join("mine.feed.json"));
        let mut s = State::load(&path, "m").unwrap();
        s.ratings.insert(
            "2501.00001".into(),
            Rating {
                verdict: Verdict::Up,
                title: "T".into(),
                vector: vec![0.5, 0.5],
                date: "2026-12-03".into(),
            },
        );
        s.save(&path).unwrap();
        assert_eq!(State::load(&path, "m").unwrap(), s);
        assert!(matches!(
            State::load(&path, "other"),
            Err(StateError::OtherModel { .. })
        ));
        std::fs::write(&path, b"{\"version\": 99}").unwrap();
        let err = State::load(&path, "m").unwrap_err().to_string();
        assert!(err.contains("format 99 (this build reads 1)"), "{err}");
        std::fs::write(&path, b"{\"version\": 1, \"ratings\": ").unwrap();
        let err = State::load(&path, "m").unwrap_err().to_string();
        assert!(
            err.contains("mine.feed.json") && err.contains("never overwritten"),
            "{err}"
        );

        // Two runs read the same state; each rates a paper; the second write keeps both.
        let base = State::load(&state_path(&index), "m").unwrap_or_else(|_| State::new("m"));
        let rated = |key: &str, verdict| {
            let mut s = base.clone();
            s.ratings.insert(
                key.into(),
                Rating {
                    verdict,
                    title: key.into(),
                    vector: vec![1.0, 0.0],
                    date: "2026-12-06".into(),
                },
            );
            s
        };
        let first = rated("a", Verdict::Up);
        let second = rated("b", Verdict::Down);
        let kept = merged(&base, &second, merged(&base, &first, base.clone()));
        assert_eq!(
            kept.ratings.keys().collect::<Vec<_>>(),
            ["a", "b"],
            "both ratings kept"
        );
        let mut cleared = kept.clone();
        cleared.ratings.remove("a");
        let now = merged(&kept, &cleared, kept.clone());
        assert_eq!(
            now.ratings.keys().collect::<Vec<_>>(),
            ["b"],
            "a cleared rating stays cleared"
        );

        let cache_file = cache_path(&index);
        let mut c = Cache::load(&cache_file, "m", 2).0;
        c.vectors.insert(text_key("a"), vec![1.0, 0.0]);
        c.save(&cache_file).unwrap();
        assert_eq!(Cache::load(&cache_file, "m", 2).0.vectors.len(), 1);
        let (other, why) = Cache::load(&cache_file, "m", 3);
        assert!(other.vectors.is_empty() && why.is_some());
        let mut bytes = std::fs::read(&cache_file).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0xff;
        std::fs::write(&cache_file, bytes).unwrap();
        let (broken, why) = Cache::load(&cache_file, "m", 2);
        assert!(broken.vectors.is_empty() && why.unwrap().contains("checksum"));
    }
}
