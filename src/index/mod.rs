//! The index: everything a query needs, in one validated file (`index.bin`).
//!
//! It holds the paper records, their embedding vectors, the lexical index, the HNSW parameters,
//! the model id the vectors came from and a hash of the corpus they were built from. Building
//! takes an embedding function, so this module knows nothing about how vectors are made.

pub mod ann;
pub mod format;
pub mod lexical;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use ndarray::{Array2, ArrayView1, ArrayView2};
use serde::{Deserialize, Serialize};

pub use ann::{Ann, HnswParams};
pub use format::FormatError;
pub use lexical::Lexical;

use crate::corpus::{self, Paper};

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error(transparent)]
    Format(#[from] FormatError),
    #[error(
        "{index} is stale: {corpus} changed since the index was built (corpus hash {found:.12}, \
         index built from {expected:.12}); rebuild it with `recommend index --corpus {corpus} --out {index}`"
    )]
    Stale {
        index: String,
        corpus: String,
        found: String,
        expected: String,
    },
    #[error("{path} is inconsistent: {detail}; rebuild it with `recommend index`")]
    Inconsistent { path: String, detail: String },
    #[error("cannot index an empty corpus")]
    Empty,
    #[error("the embedder returned {got} vectors of dimension {dim} for {expected} texts")]
    Embedding {
        got: usize,
        dim: usize,
        expected: usize,
    },
    #[error("embedding failed: {0}")]
    Embed(String),
}

/// Maps passage texts to L2-normalized vectors, or says why it could not.
pub type EmbedFn<'a> = dyn FnMut(&[String]) -> Result<Vec<Vec<f32>>, String> + 'a;

/// What `index.bin` stores.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct IndexData {
    /// The embedding model the vectors come from; queries must use the same one.
    pub model_id: String,
    /// [`corpus::content_hash`] of the papers at build time.
    pub corpus_hash: String,
    /// The corpus path given at build time, relative to the index file's directory when possible.
    pub corpus_source: String,
    /// The recommend version that built the index.
    pub built_by: String,
    /// Stored as JSON text: `Paper` skips empty fields when serialized, which a
    /// non-self-describing format like bincode cannot represent.
    #[serde(with = "papers_as_json")]
    pub papers: Vec<Paper>,
    pub dim: usize,
    /// Row-major `papers.len() x dim`, L2-normalized passage embeddings of title + highlight.
    pub vectors: Vec<f32>,
    pub lexical: Lexical,
    pub hnsw: HnswParams,
}

mod papers_as_json {
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    use crate::corpus::Paper;

    pub fn serialize<S: Serializer>(papers: &[Paper], s: S) -> Result<S::Ok, S::Error> {
        let json = serde_json::to_string(papers).map_err(serde::ser::Error::custom)?;
        s.serialize_str(&json)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Paper>, D::Error> {
        let json = String::deserialize(d)?;
        serde_json::from_str(&json).map_err(D::Error::custom)
    }
}

/// A loaded, validated index.
pub struct Index {
    pub data: IndexData,
    vectors: Array2<f32>,
    ann: OnceLock<Ann>,
    path: Option<PathBuf>,
}

/// The text embedded for a paper: its names and its highlight, never its topic label.
pub fn passage_text(p: &Paper) -> String {
    let mut s = p.title.clone();
    let extra: Vec<&str> = p
        .aliases
        .iter()
        .map(String::as_str)
        .filter(|a| !p.title.contains(*a))
        .collect();
    if !extra.is_empty() {
        s.push_str(" (");
        s.push_str(&extra.join(", "));
        s.push(')');
    }
    if !p.highlight.is_empty() {
        s.push_str(". ");
        s.push_str(&p.highlight);
    }
    s
}

impl Index {
    /// Build an index over `papers`. `embed` maps passage texts to L2-normalized vectors.
    pub fn build(
        papers: Vec<Paper>,
        corpus_source: &str,
        model_id: &str,
        embed: &mut EmbedFn<'_>,
    ) -> Result<Index, IndexError> {
        if papers.is_empty() {
            return Err(IndexError::Empty);
        }
        let texts: Vec<String> = papers.iter().map(passage_text).collect();
        let vecs = embed(&texts).map_err(IndexError::Embed)?;
        let dim = vecs.first().map_or(0, Vec::len);
        if vecs.len() != texts.len() || dim == 0 || vecs.iter().any(|v| v.len() != dim) {
            return Err(IndexError::Embedding {
                got: vecs.len(),
                dim,
                expected: texts.len(),
            });
        }
        let data = IndexData {
            model_id: model_id.to_string(),
            corpus_hash: corpus::content_hash(&papers),
            corpus_source: corpus_source.to_string(),
            built_by: format!("recommend {}", env!("CARGO_PKG_VERSION")),
            lexical: Lexical::build(&papers),
            papers,
            dim,
            vectors: vecs.into_iter().flatten().collect(),
            hnsw: HnswParams::default(),
        };
        Index::from_data(data, None)
    }

    fn from_data(data: IndexData, path: Option<PathBuf>) -> Result<Index, IndexError> {
        let name = path
            .as_ref()
            .map_or("index".to_string(), |p| p.display().to_string());
        let bad = |detail: String| IndexError::Inconsistent {
            path: name.clone(),
            detail,
        };
        let n = data.papers.len();
        if n == 0 {
            return Err(bad("it holds no papers".into()));
        }
        if data.dim == 0 || data.vectors.len() != n * data.dim {
            return Err(bad(format!(
                "{} vector values for {n} papers of dimension {}",
                data.vectors.len(),
                data.dim
            )));
        }
        if data.lexical.len() != n {
            return Err(bad(format!(
                "lexical index covers {} papers, not {n}",
                data.lexical.len()
            )));
        }
        if data.vectors.iter().any(|x| !x.is_finite()) {
            return Err(bad("a vector holds NaN or infinity".into()));
        }
        let vectors = Array2::from_shape_vec((n, data.dim), data.vectors.clone())
            .map_err(|e| bad(e.to_string()))?;
        Ok(Index {
            data,
            vectors,
            ann: OnceLock::new(),
            path,
        })
    }

    /// Read and validate `path` (magic, version, checksum, then shape).
    pub fn load(path: &Path) -> Result<Index, IndexError> {
        let name = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|source| FormatError::Io {
            path: name.clone(),
            source,
        })?;
        let data: IndexData = format::decode(&bytes, &name)?;
        Index::from_data(data, Some(path.to_path_buf()))
    }

    /// Write to `path` atomically.
    pub fn save(&self, path: &Path) -> Result<(), IndexError> {
        let bytes = format::encode(&self.data)?;
        format::write_atomic(path, &bytes)?;
        Ok(())
    }

    /// The corpus file the index records, resolved against the index file's directory.
    pub fn recorded_corpus(&self) -> PathBuf {
        let src = Path::new(&self.data.corpus_source);
        match self.path.as_ref().and_then(|p| p.parent()) {
            Some(dir) if src.is_relative() => dir.join(src),
            _ => src.to_path_buf(),
        }
    }

    /// Check the index against the papers of the corpus it claims to come from.
    pub fn check_fresh(
        &self,
        corpus_papers: &[Paper],
        corpus_name: &str,
    ) -> Result<(), IndexError> {
        let found = corpus::content_hash(corpus_papers);
        if found != self.data.corpus_hash {
            return Err(IndexError::Stale {
                index: self
                    .path
                    .as_ref()
                    .map_or("index".into(), |p| p.display().to_string()),
                corpus: corpus_name.to_string(),
                found,
                expected: self.data.corpus_hash.clone(),
            });
        }
        Ok(())
    }

    pub fn papers(&self) -> &[Paper] {
        &self.data.papers
    }

    pub fn len(&self) -> usize {
        self.data.papers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.papers.is_empty()
    }

    pub fn vectors(&self) -> ArrayView2<'_, f32> {
        self.vectors.view()
    }

    pub fn vector(&self, i: usize) -> ArrayView1<'_, f32> {
        self.vectors.row(i)
    }

    pub fn lexical(&self) -> &Lexical {
        &self.data.lexical
    }

    /// The HNSW graph, built on first use.
    pub fn ann(&self) -> &Ann {
        self.ann
            .get_or_init(|| Ann::build(self.vectors.view(), self.data.hnsw))
    }
}
