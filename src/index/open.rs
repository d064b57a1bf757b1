//! Opening an index: validating its bytes (container, sections, views), loading and saving
//! the file, and checking it against the corpus it was built from (fingerprint, content hash,
//! word-analysis revision). Apart from the build so that every way in is validated alike.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::format;
use super::layout::Layout;
use super::storage::Storage;
use super::{GraphView, Index, IndexError, IndexMeta, Lexical, terms_stamp};
use crate::corpus::{self, Paper};

impl Index {
    /// Validate `storage` and lay out its sections: the container ([`format::open`]), every
    /// section's place and shape ([`Layout::locate`]), then the views that hold offsets.
    pub(super) fn open(storage: Storage, path: Option<PathBuf>) -> Result<Index, IndexError> {
        let name = path
            .as_ref()
            .map_or("index".to_string(), |p| p.display().to_string());
        let bad = |detail: String| IndexError::Inconsistent {
            path: name.clone(),
            detail,
        };
        let (meta, layout, plan) = {
            let bytes = storage.bytes();
            let container: format::Container<IndexMeta> = format::open(bytes, &name)?;
            let meta = container.meta.clone();
            let n = usize::try_from(meta.papers).map_err(|e| bad(e.to_string()))?;
            let dim = usize::try_from(meta.dim).map_err(|e| bad(e.to_string()))?;
            if n == 0 {
                return Err(bad("it holds no papers".into()));
            }
            let layout = Layout::locate(&container, bytes, n, dim).map_err(bad)?;
            let plan = super::plan::decode(layout.plan.as_ref().map(|r| &bytes[r.clone()]))
                .map_err(bad)?;
            super::corpus_read::CorpusRead::decode(
                layout.corpus_read.as_ref().map(|r| &bytes[r.clone()]),
            )
            .map_err(bad)?;
            (meta, layout, plan)
        };
        let index = Index {
            meta,
            storage,
            layout,
            papers: OnceLock::new(),
            lexical_avg_len: OnceLock::new(),
            name_keys: OnceLock::new(),
            plan,
            path,
        };
        index.check_views().map_err(bad)?;
        Ok(index)
    }

    /// The checks that need the located sections: paper columns, lexical index and graph
    /// offsets all in range, the lexical index covering every paper.
    fn check_views(&self) -> Result<(), String> {
        let n = self.len();
        self.paper_table(true)
            .ok_or_else(|| "paper columns are inconsistent".to_string())?;
        Lexical::new(self.lexical_arrays())?;
        if let Some(g) = &self.layout.graph {
            let s = |i: usize| g[i].clone();
            GraphView::new(
                n,
                &self.storage.bytes()[s(0)],
                self.slice(&s(1)),
                self.slice(&s(2)),
                self.slice(&s(3)),
                self.slice(&s(4)),
            )
            .map_err(|e| format!("the HNSW graph is corrupt ({e})"))?;
        }
        if self.lexical().len() != n {
            return Err(format!(
                "lexical index covers {} papers, not {n}",
                self.lexical().len()
            ));
        }
        Ok(())
    }

    /// Map and validate `path` (magic, version, checksum, then every section's shape and every
    /// vector value). Only a regular file within [`crate::safe_fs::MAX_INDEX_FILE`] is opened.
    pub fn load(path: &Path) -> Result<Index, IndexError> {
        Index::open(Storage::open(path)?, Some(path.to_path_buf()))
    }

    /// The file the index was loaded from (`None` for one built or read from memory).
    pub fn file_path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Validate index bytes held in memory, as [`Index::load`] does a file (the fuzz harness
    /// feeds it mutated indexes).
    pub fn from_bytes(bytes: &[u8]) -> Result<Index, IndexError> {
        Index::open(Storage::from_bytes(bytes), None)
    }

    /// Write to `path` atomically.
    pub fn save(&self, path: &Path) -> Result<(), IndexError> {
        format::write_atomic(path, self.storage.bytes())?;
        Ok(())
    }

    /// The corpus file the index records, resolved against the index file's directory.
    pub fn recorded_corpus(&self) -> PathBuf {
        let src = Path::new(&self.meta.corpus_source);
        match self.path.as_ref().and_then(|p| p.parent()) {
            Some(dir) if src.is_relative() => dir.join(src),
            _ => src.to_path_buf(),
        }
    }

    /// Every corpus path the index records (see [`IndexMeta::corpus_source`]), resolved like
    /// [`Index::recorded_corpus`].
    pub fn recorded_corpora(&self) -> Vec<PathBuf> {
        let dir = self.path.as_ref().and_then(|p| p.parent());
        self.meta
            .corpus_source
            .lines()
            .map(|s| match dir {
                Some(d) if Path::new(s).is_relative() => d.join(s),
                _ => PathBuf::from(s),
            })
            .collect()
    }

    /// Whether the files at `corpus_paths` still have the fingerprint recorded at build time.
    pub fn fingerprints_match(&self, corpus_paths: &[PathBuf]) -> bool {
        self.meta
            .corpus_fingerprint
            .as_ref()
            .is_some_and(|f| corpus::fingerprint_all(corpus_paths).is_ok_and(|g| &g == f))
    }

    /// Whether the corpus files at `corpus_path` still have the fingerprint recorded at build
    /// time (then the index is fresh without parsing them).
    pub fn fingerprint_matches(&self, corpus_path: &Path) -> bool {
        self.meta
            .corpus_fingerprint
            .as_ref()
            .is_some_and(|f| corpus::fingerprint(corpus_path).is_ok_and(|g| &g == f))
    }

    /// Whether the lexical postings were built by this recommend's [`crate::text::terms`]
    /// ([`crate::text::TERMS_VERSION`], recorded in `built_by`); `corpus_name` is named in the
    /// error, for the command that rebuilds the index.
    pub fn check_terms(&self, corpus_name: &str) -> Result<(), IndexError> {
        if self.meta.built_by.ends_with(&terms_stamp()) {
            return Ok(());
        }
        Err(IndexError::OldTerms {
            index: self
                .path
                .as_ref()
                .map_or("index".into(), |p| p.display().to_string()),
            corpus: corpus_name.to_string(),
            built_by: self.meta.built_by.clone(),
            current: crate::text::TERMS_VERSION,
        })
    }

    /// Check the index against the papers of the corpus it claims to come from.
    pub fn check_fresh(
        &self,
        corpus_papers: &[Paper],
        corpus_name: &str,
    ) -> Result<(), IndexError> {
        let found = corpus::content_hash(corpus_papers);
        if found != self.meta.corpus_hash {
            return Err(IndexError::Stale {
                index: self
                    .path
                    .as_ref()
                    .map_or("index".into(), |p| p.display().to_string()),
                corpus: corpus_name.to_string(),
                found,
                expected: self.meta.corpus_hash.clone(),
            });
        }
        Ok(())
    }
}
