//! The index: everything a query needs, in one validated file (`index.bin`).
//!
//! It holds the paper records, their embedding vectors, the lexical index, the HNSW parameters,
//! the model id the vectors came from and a hash of the corpus they were built from. Building
//! takes an embedding function, so this module knows nothing about how vectors are made.

pub mod ann;
pub mod evidence;
pub mod format;
pub mod graph;
mod layout;
pub use layout::LINK_STRENGTH_CUTS;
pub mod lexical;
mod output;
pub mod papers;
pub mod reuse;
mod storage;

use std::borrow::Cow;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use bytemuck::Pod;
use ndarray::{ArrayView1, ArrayView2};
use serde::{Deserialize, Serialize};

pub use ann::{Ann, HnswParams};
pub use format::FormatError;
pub use graph::{GraphData, GraphView};
pub use lexical::{Lexical, LexicalData};
pub use output::{OutputError, check_output};
pub use papers::PaperTable;
pub use reuse::{Reuse, build_incremental};

/// The script of a query or a text, as far as the search reference cares
/// ([`Index::match_reference`]): any Chinese, Japanese or Korean character makes it CJK.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Script {
    Latin = 0,
    Cjk = 1,
}

impl Script {
    pub fn of(text: &str) -> Script {
        if text.chars().any(crate::text::is_cjk) {
            Script::Cjk
        } else {
            Script::Latin
        }
    }
}

use crate::corpus::{self, Paper};
use layout::Layout;
use papers::{PaperColumns, TEXT_COLUMNS, TextView};
use storage::Storage;

/// What an index records as its maker: the recommend version and the [`terms_stamp`].
fn built_by() -> String {
    format!("recommend {}{}", env!("CARGO_PKG_VERSION"), terms_stamp())
}

/// The end of `built_by` naming the revision of the word analysis the postings come from.
fn terms_stamp() -> String {
    format!(" (terms v{})", crate::text::TERMS_VERSION)
}

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
    #[error(
        "{index} was built by {built_by}, whose word analysis differs from this recommend's \
         (terms v{current}); rebuild it with `recommend index --corpus {corpus} --out {index}` \
         (the vectors are reused: nothing is embedded again)"
    )]
    OldTerms {
        index: String,
        corpus: String,
        built_by: String,
        current: u32,
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
    #[error("the embedder returned a vector holding NaN or infinity")]
    NonFinite,
    #[error("embedding failed: {0}")]
    Embed(String),
}

/// Maps passage texts to L2-normalized vectors, or says why it could not.
pub type EmbedFn<'a> = dyn FnMut(&[String]) -> Result<Vec<Vec<f32>>, String> + 'a;

/// Where the papers of an index came from.
#[derive(Debug, Clone, Default)]
pub struct CorpusSource {
    /// The corpus path given at build time, relative to the index file's directory when
    /// possible (see `recommend index`).
    pub path: String,
    /// [`corpus::fingerprint`] of the corpus files at build time, when they were files.
    pub fingerprint: Option<String>,
}

impl From<&str> for CorpusSource {
    fn from(path: &str) -> Self {
        CorpusSource {
            path: path.to_string(),
            fingerprint: None,
        }
    }
}

/// The small metadata of an index (the header of `index.bin`); the arrays are sections.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct IndexMeta {
    /// The embedding model the vectors come from; queries must use the same one.
    pub model_id: String,
    /// [`corpus::content_hash`] of the papers at build time.
    pub corpus_hash: String,
    /// [`corpus::fingerprint`] of the corpus files at build time: when the files still have it,
    /// the index is fresh without parsing them (the parse costs ~1 s at 100k papers).
    pub corpus_fingerprint: Option<String>,
    /// The corpus path given at build time, relative to the index file's directory when possible;
    /// several paths (`recommend index --corpus A --corpus B`, `recommend add`) one per line.
    pub corpus_source: String,
    /// The recommend version that built the index.
    pub built_by: String,
    pub papers: u64,
    pub dim: u64,
    pub hnsw: HnswParams,
}

/// Below this many papers the exact scan answers dense queries: it is exact, and measured in
/// `benches/ann.rs` (stored graph vs parallel scan, per query, same run, 2 cores) it is faster
/// at 1,000 papers (0.16 vs 0.30 ms) and slower from 2,000 on (0.55 vs 0.44 ms; 5,000: 1.42 vs
/// 0.58 ms). See BENCHMARKS.md, Speed and scale (`cargo bench --bench ann`).
pub const GRAPH_MIN_PAPERS: usize = 2_000;

/// Where a large index's nearest neighbours come from instead of its stored graph (the store's
/// pgvector HNSW index, `crate::store::query`). Only [`Index::nearest`] asks it, and only where
/// the graph would answer ([`Index::uses_graph`], not `exact`): every signal is still computed
/// from the index itself.
pub trait NearestSource: Send + Sync {
    /// The `k` papers nearest `query` as (position, cosine), best first; `None` when the
    /// source cannot answer now, and the stored graph answers instead.
    fn nearest(&self, query: &[f32], k: usize) -> Option<Vec<(usize, f32)>>;
}

/// A loaded, validated index. The arrays stay in the mapped file; papers are materialized
/// on demand ([`Index::paper`]) or all at once on first use of [`Index::papers`].
pub struct Index {
    pub meta: IndexMeta,
    storage: Storage,
    layout: Layout,
    papers: OnceLock<Vec<Paper>>,
    ann: OnceLock<Ann>,
    centroid: OnceLock<evidence::Centroid>,
    tags: OnceLock<evidence::Tags>,
    relations: OnceLock<evidence::Relations>,
    spelling: OnceLock<Option<evidence::Spelling>>,
    surfaces: OnceLock<evidence::Surfaces>,
    path: Option<PathBuf>,
    /// `--exact`: never walk the graph, whatever the size.
    exact_scan: bool,
    /// Asked before the stored graph ([`Index::set_nearest_source`]).
    nearest_source: Option<std::sync::Arc<dyn NearestSource>>,
}

/// The text embedded for a paper: its names, its English summary and its highlight, never its
/// topic label (topics are what clustering is evaluated against) nor its curated tags.
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
    for part in [&p.summary, &p.highlight] {
        if !part.is_empty() {
            s.push_str(". ");
            s.push_str(part);
        }
    }
    s
}

/// The passages' token states of a list, as search reads them from `index.bin`
/// ([`Index::search_tokens`]): centred on `mean`, projected on `basis` when there is one, and
/// normalized, stored as f16.
#[derive(Debug, Clone, Copy)]
pub struct SearchTokens<'a> {
    /// Rows of [`SearchTokens::width`] f16 values (as bits).
    pub states: &'a [u16],
    /// Paper `i`'s rows are `offsets[i]..offsets[i + 1]`.
    pub offsets: &'a [u32],
    /// The list's token ids, ascending, and in how many papers each occurs.
    pub vocab: &'a [u32],
    pub df: &'a [u32],
    /// The list's mean token state (before centring), to centre a query's tokens alike.
    pub mean: &'a [f32],
    /// Orthonormal rows of `dim` values that the centred states were projected on (the
    /// list's principal directions), to project a query's tokens alike; empty in indexes
    /// that store the states whole (older builds).
    pub basis: &'a [f32],
}

impl SearchTokens<'_> {
    /// How many values a stored row has: the basis's rows, or the model's dimension.
    pub fn width(&self) -> usize {
        width(self.mean.len(), self.basis.len())
    }

    /// An owned copy, to store in another index.
    pub fn to_data(&self) -> SearchTokenData {
        SearchTokenData {
            states: self.states.to_vec(),
            offsets: self.offsets.to_vec(),
            vocab: self.vocab.to_vec(),
            df: self.df.to_vec(),
            mean: self.mean.to_vec(),
            basis: self.basis.to_vec(),
        }
    }
}

/// A stored token row's width: the number of basis rows of `dim` values, or `dim` without a
/// basis.
fn width(dim: usize, basis: usize) -> usize {
    if basis == 0 { dim } else { basis / dim.max(1) }
}

/// [`SearchTokens`] to store ([`Index::with_search_tokens`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SearchTokenData {
    pub states: Vec<u16>,
    pub offsets: Vec<u32>,
    pub vocab: Vec<u32>,
    pub df: Vec<u32>,
    pub mean: Vec<f32>,
    pub basis: Vec<f32>,
}

impl SearchTokenData {
    /// These tokens as search reads them.
    pub fn view(&self) -> SearchTokens<'_> {
        SearchTokens {
            states: &self.states,
            offsets: &self.offsets,
            vocab: &self.vocab,
            df: &self.df,
            mean: &self.mean,
            basis: &self.basis,
        }
    }
}

impl Index {
    /// Build an index over `papers`. `embed` maps passage texts to L2-normalized vectors.
    pub fn build(
        papers: Vec<Paper>,
        source: impl Into<CorpusSource>,
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
        // Checked here too (also at load): an embedder fault is named as such.
        if vecs.iter().flatten().any(|x| !x.is_finite()) {
            return Err(IndexError::NonFinite);
        }
        let source = source.into();
        let mut meta = IndexMeta {
            model_id: model_id.to_string(),
            corpus_hash: corpus::content_hash(&papers),
            corpus_fingerprint: source.fingerprint,
            corpus_source: source.path,
            built_by: built_by(),
            papers: papers.len() as u64,
            dim: dim as u64,
            hnsw: HnswParams::default(),
        };
        let vectors: Vec<f32> = vecs.into_iter().flatten().collect();
        let graph = GraphData::build(
            ArrayView2::from_shape((papers.len(), dim), &vectors[..])
                .expect("vectors were checked to have one dimension"),
            meta.hnsw,
        );
        if papers.len() >= GRAPH_MIN_PAPERS {
            // Queries walk the graph from this size on: give them the beam it needs.
            meta.hnsw.ef_search = graph::calibrate_ef(
                graph.view(),
                ArrayView2::from_shape((papers.len(), dim), &vectors[..])
                    .expect("vectors were checked to have one dimension"),
                graph::EF_TARGET_RECALL,
            );
        }
        let cols = PaperColumns::build(&papers);
        let lex = LexicalData::build(&papers);
        let bytes = layout::encode(&meta, &vectors, &cols, &lex, &graph, None)?;
        let index = Index::open(Storage::from_bytes(&bytes), None)?;
        // The records are at hand: keep them rather than materializing them again.
        let _ = index.papers.set(papers);
        Ok(index)
    }

    /// How strong this list's related-work links run: the fused scores at the percentiles 0,
    /// 1, ..., 100 of its papers' top-5 results, as [`Index::with_link_strengths`] stored them
    /// (`None` in an index built without). A score's place among them says whether a result
    /// is a weak link for this list, whatever its seed: the fused score is a sum of z-scores
    /// over one seed's candidates, and a seed with few related papers still gets five.
    pub fn link_strengths(&self) -> Option<&[f32]> {
        self.layout.link_strengths.as_ref().map(|r| self.slice(r))
    }

    /// This index with `cuts` ([`layout::LINK_STRENGTH_CUTS`] ascending scores, see
    /// [`Index::link_strengths`]) stored as one more section; every other section is copied.
    /// The engine computes them from the built index, which is why they come after the build.
    pub fn with_link_strengths(self, cuts: &[f32]) -> Result<Index, IndexError> {
        self.with_section(layout::section::LINK_STRENGTHS, cuts)
    }

    /// How close this list's papers come to their nearest other paper when a paper's own text
    /// in `script` is the query: e5 cosines at the percentiles 0, 1, ..., 100, as
    /// [`Index::with_match_reference`] stored them; `None` when the index has none for that
    /// script (built without, or no paper has text in it). A search whose best cosine falls
    /// below most of them matches nothing here as closely as the list's papers match each
    /// other: the query is about something else. Cosines differ by script (a Chinese query
    /// sits 0.05 higher against anything), hence one reference per script.
    pub fn match_reference(&self, script: Script) -> Option<&[f32]> {
        self.layout.match_reference[script as usize]
            .as_ref()
            .map(|r| self.slice(r))
    }

    /// This index with `cuts` stored as its [`Index::match_reference`] for `script`.
    pub fn with_match_reference(self, script: Script, cuts: &[f32]) -> Result<Index, IndexError> {
        self.with_section(layout::section::MATCH_REFERENCE[script as usize], cuts)
    }

    /// Every pair's token alignment score (`engine::alignment`), row after row, `n x n`, as
    /// [`Index::with_alignment`] stored them; `None` for a list it was not measured for.
    pub fn alignment(&self) -> Option<&[f32]> {
        self.layout.alignment.as_ref().map(|r| self.slice(r))
    }

    /// Paper `i`'s row of [`Index::alignment`].
    pub fn alignment_row(&self, i: usize) -> Option<&[f32]> {
        let n = self.len();
        self.alignment().and_then(|a| a.get(i * n..(i + 1) * n))
    }

    /// This index with `scores` (`n x n`, see [`Index::alignment`]) stored as one more section.
    pub fn with_alignment(self, scores: &[f32]) -> Result<Index, IndexError> {
        self.with_section(layout::section::ALIGNMENT, scores)
    }

    /// The passages' token states for search (`engine::alignment::query_match`), as
    /// [`Index::with_search_tokens`] stored them; `None` for a list without.
    pub fn search_tokens(&self) -> Option<SearchTokens<'_>> {
        let r = self.layout.search_tokens.as_ref()?;
        let bytes = self.storage.bytes();
        let cast = |k: usize| &bytes[r.parts[k].clone()];
        Some(SearchTokens {
            states: bytemuck::cast_slice(cast(0)),
            offsets: bytemuck::cast_slice(cast(1)),
            vocab: bytemuck::cast_slice(cast(2)),
            df: bytemuck::cast_slice(cast(3)),
            mean: bytemuck::cast_slice(cast(4)),
            basis: r
                .basis
                .as_ref()
                .map_or(&[][..], |b| bytemuck::cast_slice(&bytes[b.clone()])),
        })
    }

    /// This index with `tokens` stored as its [`Index::search_tokens`]: in the projected
    /// sections ([`layout::section::SEARCH_TOKENS_PROJECTED`]) when they have a basis, else in
    /// the whole-state ones; either way without the other kind.
    pub fn with_search_tokens(self, tokens: &SearchTokenData) -> Result<Index, IndexError> {
        let mut sections: Vec<&[u8]> = vec![
            bytemuck::cast_slice(&tokens.states),
            bytemuck::cast_slice(&tokens.offsets),
            bytemuck::cast_slice(&tokens.vocab),
            bytemuck::cast_slice(&tokens.df),
            bytemuck::cast_slice(&tokens.mean),
        ];
        let (projected, whole) = (
            &layout::section::SEARCH_TOKENS_PROJECTED[..],
            &layout::section::SEARCH_TOKENS[..],
        );
        let (names, other) = if tokens.basis.is_empty() {
            (whole, projected)
        } else {
            sections.push(bytemuck::cast_slice(&tokens.basis));
            (projected, whole)
        };
        let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        self.rewrite(other, &names, &sections)
    }

    /// This index with `values` stored as section `name` (replacing one of that name).
    fn with_section(self, name: &str, values: &[f32]) -> Result<Index, IndexError> {
        self.rewrite(&[], &[name.to_string()], &[bytemuck::cast_slice(values)])
    }

    /// This index without the sections named in `remove`, and with each of `names` stored
    /// with its bytes (replacing sections of those names); every other section is copied.
    fn rewrite(
        self,
        remove: &[&str],
        names: &[String],
        values: &[&[u8]],
    ) -> Result<Index, IndexError> {
        let bytes = {
            let bytes = self.storage.bytes();
            let container: format::Container<IndexMeta> = format::open(bytes, "index")?;
            let mut sections: Vec<(&str, &[u8])> = container
                .sections
                .iter()
                .filter(|e| !names.contains(&e.name) && !remove.contains(&e.name.as_str()))
                .map(|e| {
                    let start = e.offset as usize;
                    (e.name.as_str(), &bytes[start..start + e.len as usize])
                })
                .collect();
            sections.extend(names.iter().map(String::as_str).zip(values.iter().copied()));
            format::encode(&self.meta, &sections)?
        };
        let index = Index::open(Storage::from_bytes(&bytes), self.path.clone())?;
        if let Some(papers) = self.papers.into_inner() {
            let _ = index.papers.set(papers);
        }
        Ok(index)
    }

    /// Validate `storage` and lay out its sections: the container ([`format::open`]), every
    /// section's place and shape ([`Layout::locate`]), then the views that hold offsets.
    fn open(storage: Storage, path: Option<PathBuf>) -> Result<Index, IndexError> {
        let name = path
            .as_ref()
            .map_or("index".to_string(), |p| p.display().to_string());
        let bad = |detail: String| IndexError::Inconsistent {
            path: name.clone(),
            detail,
        };
        let (meta, layout) = {
            let bytes = storage.bytes();
            let container: format::Container<IndexMeta> = format::open(bytes, &name)?;
            let meta = container.meta.clone();
            let n = usize::try_from(meta.papers).map_err(|e| bad(e.to_string()))?;
            let dim = usize::try_from(meta.dim).map_err(|e| bad(e.to_string()))?;
            if n == 0 {
                return Err(bad("it holds no papers".into()));
            }
            let layout = Layout::locate(&container, bytes, n, dim).map_err(bad)?;
            (meta, layout)
        };
        let index = Index {
            meta,
            storage,
            layout,
            papers: OnceLock::new(),
            ann: OnceLock::new(),
            centroid: OnceLock::new(),
            tags: OnceLock::new(),
            relations: OnceLock::new(),
            spelling: OnceLock::new(),
            surfaces: OnceLock::new(),
            path,
            exact_scan: false,
            nearest_source: None,
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

    fn slice<T: Pod>(&self, r: &Range<usize>) -> &[T] {
        // Alignment and size were checked in `open`.
        bytemuck::cast_slice(&self.storage.bytes()[r.clone()])
    }

    /// The paper columns; with `check`, `None` unless every offset table is valid.
    fn paper_table(&self, check: bool) -> Option<PaperTable<'_>> {
        let n = self.layout.kind.len();
        let text_view = |(t, o): &(Range<usize>, Range<usize>), n: usize| {
            let (text, offsets) = (&self.storage.bytes()[t.clone()], self.slice(o));
            if check {
                TextView::new(text, offsets, n)
            } else {
                Some(TextView::trusted(text, offsets))
            }
        };
        let mut text = Vec::with_capacity(TEXT_COLUMNS.len());
        for pair in &self.layout.text {
            text.push(text_view(pair, n)?);
        }
        let mut extra = [None; papers::EXTRAS];
        for (slot, pair) in extra.iter_mut().zip(&self.layout.extra) {
            if let Some(pair) = pair {
                *slot = Some(text_view(pair, n)?);
            }
        }
        let name_papers: &[u32] = self.slice(&self.layout.name_papers);
        Some(PaperTable {
            text: text.try_into().ok()?,
            extra,
            kind: self.slice(&self.layout.kind),
            open_source: self.slice(&self.layout.open_source),
            names: text_view(&self.layout.names, name_papers.len())?,
            name_papers,
        })
    }

    /// The paper columns (validated at load, so cheap to view).
    pub fn table(&self) -> PaperTable<'_> {
        self.paper_table(false)
            .expect("unchecked views always exist")
    }

    fn lexical_arrays(&self) -> lexical::LexicalArrays<'_> {
        // `layout.lexical` holds the sections in `section::LEXICAL` order, as `layout::write`
        // writes them.
        let l = &self.layout.lexical;
        lexical::LexicalArrays {
            vocab: &self.storage.bytes()[l[0].clone()],
            vocab_offsets: self.slice(&l[1]),
            posting_offsets: self.slice(&l[2]),
            posting_docs: self.slice(&l[3]),
            posting_tf: self.slice(&l[4]),
            posting_weights: self.slice(&l[5]),
            doc_offsets: self.slice(&l[6]),
            doc_terms: self.slice(&l[7]),
            doc_weights: self.slice(&l[8]),
            doc_len: self.slice(&l[9]),
        }
    }

    /// The lexical index (validated at load, so cheap to view).
    pub fn lexical(&self) -> Lexical<'_> {
        Lexical::trusted(self.lexical_arrays())
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

    /// Every paper, materialized on first use (~0.1 s per 100k papers). Single lookups should
    /// use [`Index::paper`] or [`Index::table`].
    pub fn papers(&self) -> &[Paper] {
        self.papers.get_or_init(|| {
            let t = self.table();
            (0..t.len()).map(|i| t.get(i)).collect()
        })
    }

    /// Paper `i` (borrowed when every paper is already materialized).
    pub fn paper(&self, i: usize) -> Cow<'_, Paper> {
        match self.papers.get() {
            Some(all) => Cow::Borrowed(&all[i]),
            None => Cow::Owned(self.table().get(i)),
        }
    }

    pub fn len(&self) -> usize {
        self.layout.kind.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn dim(&self) -> usize {
        self.meta.dim as usize
    }

    pub fn vectors(&self) -> ArrayView2<'_, f32> {
        ArrayView2::from_shape((self.len(), self.dim()), self.slice(&self.layout.vectors))
            .expect("vector section shape was validated when the index was opened")
    }

    pub fn vector(&self, i: usize) -> ArrayView1<'_, f32> {
        let dim = self.dim();
        ArrayView1::from(&self.slice::<f32>(&self.layout.vectors)[i * dim..(i + 1) * dim])
    }

    /// Cosine similarity of `query` (unit length, `dim` values) with every paper, in paper order.
    /// Rows are split across cores: at 100k papers this reads 150 MB, which one core does in
    /// ~25 ms on the reference machine.
    pub fn similarities(&self, query: &[f32]) -> Vec<f32> {
        use rayon::prelude::*;
        let dim = self.dim();
        let rows: &[f32] = self.slice(&self.layout.vectors);
        let mut out = vec![0.0f32; self.len()];
        const ROWS_PER_TASK: usize = 4096;
        out.par_chunks_mut(ROWS_PER_TASK)
            .zip(rows.par_chunks(ROWS_PER_TASK * dim))
            .for_each(|(o, r)| {
                for (x, row) in o.iter_mut().zip(r.chunks_exact(dim)) {
                    *x = ann::dot(row, query);
                }
            });
        out
    }

    /// The mean passage vector and each paper's dot product with it, computed on first use.
    pub fn centroid(&self) -> &evidence::Centroid {
        self.centroid
            .get_or_init(|| evidence::Centroid::new(self.slice(&self.layout.vectors), self.dim()))
    }

    /// The curated tags as weighted vectors, read on first use.
    pub fn tags(&self) -> &evidence::Tags {
        self.tags.get_or_init(|| evidence::Tags::new(&self.table()))
    }

    /// Whether the list carries curated evidence of relatedness: tags or `builds_on` links.
    /// Without it, related work leans on its own signals (reciprocal neighbours, a lexical
    /// weight that follows the text; `engine::retrieve`).
    pub fn has_curated_evidence(&self) -> bool {
        !(self.tags().is_empty() && self.relations().is_empty())
    }

    /// The spelling of the papers' texts when the list is one of bare titles
    /// ([`evidence::Spelling::is_for`]) small enough to scan ([`GRAPH_MIN_PAPERS`]); `None`
    /// otherwise. Built on first use: 10,000 titles of 80 characters take 0.24 s and 39 MB, a
    /// cost every cold query of a large index would pay, where the stored graph keeps queries
    /// in milliseconds (and the reading lists measured, 88-181 titles, are small).
    pub fn spelling(&self) -> Option<&evidence::Spelling> {
        self.spelling
            .get_or_init(|| {
                let table = self.table();
                let small = self.len() < GRAPH_MIN_PAPERS;
                (small && evidence::Spelling::is_for(&table)).then(|| {
                    evidence::Spelling::new((0..self.len()).map(|i| passage_text(&table.get(i))))
                })
            })
            .as_ref()
    }

    /// The `builds_on` graph, read on first use.
    pub fn relations(&self) -> &evidence::Relations {
        self.relations
            .get_or_init(|| evidence::Relations::new(&self.table()))
    }

    /// Paper `i`'s words by stem ([`crate::text::WordForms`] of its [`passage_text`]), kept
    /// once built on indexes small enough ([`evidence::Surfaces`]).
    pub fn word_forms(&self, i: usize) -> Cow<'_, crate::text::WordForms> {
        self.surfaces
            .get_or_init(|| evidence::Surfaces::new(self.len()))
            .get(i, || passage_text(&self.paper(i)))
    }

    /// The stored HNSW graph (validated at load), if the index has one.
    pub fn graph(&self) -> Option<GraphView<'_>> {
        let g = self.layout.graph.as_ref()?;
        Some(GraphView::trusted(
            &self.storage.bytes()[g[0].clone()],
            self.slice(&g[1]),
            self.slice(&g[2]),
            self.slice(&g[3]),
            self.slice(&g[4]),
        ))
    }

    /// Whether [`Index::nearest`] without `exact` walks the graph: the index has one and holds
    /// at least [`GRAPH_MIN_PAPERS`] papers.
    pub fn uses_graph(&self) -> bool {
        !self.exact_scan && self.len() >= GRAPH_MIN_PAPERS && self.graph().is_some()
    }

    /// Answer every query of this index by the exact scan (`--exact`): no approximation, at
    /// the cost of a scan per query (and per paper for topics and paths) on a large index.
    pub fn set_exact_scan(&mut self, exact: bool) {
        self.exact_scan = exact;
    }

    /// Whether [`Index::set_exact_scan`] is on.
    pub fn exact_scan(&self) -> bool {
        self.exact_scan
    }

    /// The `k` papers whose vectors are most similar to `query` (unit length, `dim` values), as
    /// (paper, cosine), best first, ties by paper. `exact` forces the exact scan; otherwise large
    /// indexes ([`Index::uses_graph`]) answer from the stored HNSW graph with the beam measured
    /// for it at build time (approximate: recall@10 0.99 on the index's own papers; held-out
    /// queries at 100k and 1M: BENCHMARKS.md, Speed and scale) and small ones from the scan. A
    /// `query` of another length compares the common prefix: wrong but never a panic.
    pub fn nearest(&self, query: &[f32], k: usize, exact: bool) -> Vec<(usize, f32)> {
        if let Some(source) = &self.nearest_source
            && !exact
            && self.uses_graph()
            && let Some(hits) = source.nearest(query, k)
        {
            return hits;
        }
        match self.graph() {
            Some(g) if !exact && self.uses_graph() && query.len() == self.dim() => {
                let ef = self.meta.hnsw.ef_search.max(k);
                g.search(self.slice(&self.layout.vectors), self.dim(), query, k, ef)
            }
            _ => {
                let scored: Vec<(usize, f32)> =
                    self.similarities(query).into_iter().enumerate().collect();
                ann::top_hits(scored, k)
            }
        }
    }

    /// Take the approximate nearest neighbours from `source` rather than the stored graph (see
    /// [`NearestSource`]); `None` goes back to the graph.
    pub fn set_nearest_source(&mut self, source: Option<std::sync::Arc<dyn NearestSource>>) {
        self.nearest_source = source;
    }

    /// An in-memory hnsw_rs graph, rebuilt from the vectors on first use (minutes at 100k
    /// papers). Queries use the stored graph ([`Index::nearest`]); this is for comparisons.
    pub fn ann(&self) -> &Ann {
        self.ann
            .get_or_init(|| Ann::build(self.vectors(), self.meta.hnsw))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::synthetic;

    fn synthetic_index(n: usize) -> (Vec<Paper>, Vec<Vec<f32>>, Index) {
        let (papers, vectors) = synthetic::corpus(n, 16, 9, 7);
        let mut given = Some(vectors.clone());
        let index = Index::build(papers.clone(), "papers.jsonl", "test-model", &mut |_| {
            given.take().ok_or_else(|| "embedded twice".to_string())
        })
        .unwrap();
        (papers, vectors, index)
    }

    #[test]
    fn a_saved_index_reads_back_the_same_papers_vectors_and_lexical_scores() {
        let (papers, vectors, built) = synthetic_index(300);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.bin");
        built.save(&path).unwrap();
        let loaded = Index::load(&path).unwrap();

        assert_eq!(loaded.meta.model_id, "test-model");
        assert_eq!(loaded.len(), 300);
        // Single records come from the columns, before anything materializes all of them.
        assert_eq!(loaded.paper(17).into_owned(), papers[17]);
        assert_eq!(loaded.papers(), &papers[..]);
        for (i, v) in vectors.iter().enumerate() {
            assert_eq!(loaded.vector(i).to_vec(), *v);
        }
        let sims = loaded.similarities(&vectors[3]);
        assert!((sims[3] - 1.0).abs() < 1e-5);
        assert_eq!(sims, built.similarities(&vectors[3]));

        let fresh = LexicalData::build(&papers);
        let (a, b) = (loaded.lexical(), fresh.view());
        assert_eq!(a.similar_to(5), b.similar_to(5));
        assert_eq!(a.bm25("Policy 强化学习"), b.bm25("Policy 强化学习"));
        assert_eq!(a.shared_terms(5, 6, 3), b.shared_terms(5, 6, 3));
        // similar_to (from postings) agrees with pair (from document vectors).
        let row = a.similar_to(5);
        for j in [0, 5, 6, 299] {
            assert!((row[j] - a.pair(5, j)).abs() < 1e-5, "{j}");
        }
        assert_eq!(
            loaded.table().named(&crate::text::name_key(&papers[42].id)),
            vec![42]
        );
    }

    /// Link strengths are an optional section: an index without them loads (built before they
    /// existed), one with them reads them back after a save, every other section the same;
    /// cuts that are not 101 ascending finite scores are refused at load.
    #[test]
    fn the_search_reference_is_an_optional_validated_section_per_script() {
        let (_, _, built) = synthetic_index(60);
        assert_eq!(built.match_reference(Script::Latin), None);
        let cuts: Vec<f32> = (0..LINK_STRENGTH_CUTS)
            .map(|q| 0.8 + q as f32 / 1000.0)
            .collect();
        let with = built.with_match_reference(Script::Cjk, &cuts).unwrap();
        assert_eq!(with.match_reference(Script::Cjk), Some(&cuts[..]));
        assert_eq!(with.match_reference(Script::Latin), None);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.bin");
        with.save(&path).unwrap();
        let loaded = Index::load(&path).unwrap();
        assert_eq!(loaded.match_reference(Script::Cjk), Some(&cuts[..]));
        let both = loaded.with_match_reference(Script::Latin, &cuts).unwrap();
        assert_eq!(both.match_reference(Script::Latin), Some(&cuts[..]));
        let bytes = std::fs::read(&path).unwrap();
        let falling: Vec<f32> = cuts.iter().rev().copied().collect();
        let err = match Index::from_bytes(&bytes)
            .unwrap()
            .with_match_reference(Script::Latin, &falling)
        {
            Err(e) => e.to_string(),
            Ok(_) => panic!("accepted falling cuts"),
        };
        assert!(err.contains("search reference"), "{err}");
        assert_eq!(Script::of("GRPO 的改进"), Script::Cjk);
        assert_eq!(Script::of("GRPO"), Script::Latin);
    }

    /// Token alignment scores are an optional section of `n x n` values in [0, 1]: absent
    /// unless stored, read back after a save, a paper's row is its slice; a wrong size, a NaN
    /// or a value out of range is refused.
    #[test]
    fn alignment_is_an_optional_validated_section() {
        let (_, _, built) = synthetic_index(60);
        assert_eq!(built.alignment(), None);
        assert_eq!(built.alignment_row(3), None);
        let n = built.len();
        let scores: Vec<f32> = (0..n * n).map(|k| (k % 7) as f32 / 10.0).collect();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.bin");
        built.with_alignment(&scores).unwrap().save(&path).unwrap();
        let loaded = Index::load(&path).unwrap();
        assert_eq!(loaded.alignment(), Some(&scores[..]));
        assert_eq!(loaded.alignment_row(2), Some(&scores[2 * n..3 * n]));
        let bytes = std::fs::read(&path).unwrap();
        let mut nan = scores.clone();
        nan[5] = f32::NAN;
        let mut high = scores.clone();
        high[9] = 1.5;
        for bad in [scores[..n * n - 1].to_vec(), nan, high] {
            let err = match Index::from_bytes(&bytes).unwrap().with_alignment(&bad) {
                Err(e) => e.to_string(),
                Ok(_) => panic!("accepted bad alignment scores"),
            };
            assert!(err.contains("alignment scores"), "{err}");
        }
    }

    /// Search tokens are five optional sections, validated together at load.
    #[test]
    fn search_tokens_are_optional_validated_sections() {
        let (_, _, built) = synthetic_index(60);
        assert!(built.search_tokens().is_none());
        let n = built.len();
        let dim = built.dim();
        // Three rows, spread over the papers.
        let good = SearchTokenData {
            states: vec![half::f16::from_f32(0.5).to_bits(); 3 * dim],
            offsets: std::iter::once(0)
                .chain((1..n).map(|i| (i * 3 / n) as u32))
                .chain(std::iter::once(3))
                .collect(),
            vocab: vec![5, 9],
            df: vec![1, 2],
            mean: vec![0.0; dim],
            basis: Vec::new(),
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.bin");
        built
            .with_search_tokens(&good)
            .unwrap()
            .save(&path)
            .unwrap();
        let loaded = Index::load(&path).unwrap();
        assert_eq!(loaded.search_tokens().unwrap().to_data(), good);
        assert_eq!(loaded.search_tokens().unwrap().width(), dim);
        // Projected: rows as wide as the basis has rows, in sections of their own that
        // replace the whole-state ones (and the other way round).
        let mut projected = good.clone();
        projected.basis = vec![0.25; 2 * dim];
        projected.states.truncate(3 * 2);
        let with = loaded.with_search_tokens(&projected).unwrap();
        assert_eq!(with.search_tokens().unwrap().width(), 2);
        assert_eq!(with.search_tokens().unwrap().to_data(), projected);
        let names = |i: &Index| -> Vec<String> {
            let c: format::Container<IndexMeta> = format::open(i.storage.bytes(), "t").unwrap();
            c.sections.iter().map(|e| e.name.clone()).collect()
        };
        assert!(
            names(&with)
                .iter()
                .all(|n| !n.starts_with("search.tokens."))
        );
        let back = with.with_search_tokens(&good).unwrap();
        assert!(
            names(&back)
                .iter()
                .all(|n| !n.starts_with("search.ptokens."))
        );
        assert_eq!(back.search_tokens().unwrap().to_data(), good);
        let bytes = std::fs::read(&path).unwrap();
        let mut nan = good.clone();
        nan.states[7] = half::f16::NAN.to_bits();
        let mut short = good.clone();
        short.offsets.pop();
        let mut unsorted = good.clone();
        unsorted.vocab = vec![9, 5];
        let mut wide = projected.clone();
        wide.states = good.states.clone();
        let mut ragged = projected.clone();
        ragged.basis.pop();
        let mut infinite = projected.clone();
        infinite.basis[3] = f32::INFINITY;
        for bad in [nan, short, unsorted, wide, ragged, infinite] {
            let err = match Index::from_bytes(&bytes).unwrap().with_search_tokens(&bad) {
                Err(e) => e.to_string(),
                Ok(_) => panic!("accepted bad search tokens"),
            };
            assert!(err.contains("search token"), "{err}");
        }
    }

    #[test]
    fn link_strengths_are_an_optional_validated_section() {
        let (papers, vectors, built) = synthetic_index(60);
        assert_eq!(built.link_strengths(), None);
        let cuts: Vec<f32> = (0..LINK_STRENGTH_CUTS).map(|q| q as f32 / 10.0).collect();
        let with = built.with_link_strengths(&cuts).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.bin");
        with.save(&path).unwrap();
        let loaded = Index::load(&path).unwrap();
        assert_eq!(loaded.link_strengths(), Some(&cuts[..]));
        assert_eq!(loaded.papers(), &papers[..]);
        assert_eq!(loaded.vector(7).to_vec(), vectors[7]);
        // Stored again, the section is replaced, not doubled.
        let again = loaded.with_link_strengths(&cuts).unwrap();
        assert_eq!(again.link_strengths(), Some(&cuts[..]));
        let bytes = std::fs::read(&path).unwrap();
        for bad in [
            cuts[..100].to_vec(),
            cuts.iter().rev().copied().collect(),
            cuts.iter()
                .map(|&c| if c > 5.0 { f32::NAN } else { c })
                .collect(),
        ] {
            let index = Index::from_bytes(&bytes).unwrap();
            let err = match index.with_link_strengths(&bad) {
                Err(e) => e.to_string(),
                Ok(_) => panic!("accepted {bad:?}"),
            };
            assert!(err.contains("link strengths"), "{err}");
        }
    }

    #[test]
    fn a_corpus_fingerprint_is_recorded_and_compared() {
        let dir = tempfile::tempdir().unwrap();
        let corpus = dir.path().join("c.jsonl");
        std::fs::write(&corpus, "{\"id\":\"a\",\"title\":\"A\"}\n").unwrap();
        let source = CorpusSource {
            path: "c.jsonl".into(),
            fingerprint: Some(corpus::fingerprint(&corpus).unwrap()),
        };
        let papers = vec![serde_json::from_str::<Paper>(r#"{"id":"a","title":"A"}"#).unwrap()];
        let index =
            Index::build(papers, source, "m", &mut |t| Ok(vec![vec![1.0]; t.len()])).unwrap();
        let path = dir.path().join("index.bin");
        index.save(&path).unwrap();
        let index = Index::load(&path).unwrap();
        assert_eq!(index.recorded_corpus(), corpus);
        assert!(index.fingerprint_matches(&corpus));
        std::fs::write(&corpus, "{\"id\":\"a\",  \"title\":\"A\"}\n").unwrap();
        assert!(!index.fingerprint_matches(&corpus));
    }

    #[test]
    fn spelling_is_a_signal_of_lists_of_bare_titles_only() {
        let build = |papers: &str| {
            let papers: Vec<Paper> = papers
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            Index::build(papers, "papers.jsonl", "m", &mut |t| {
                Ok(vec![vec![1.0]; t.len()])
            })
            .unwrap()
        };
        let bare = build(concat!(
            "{\"id\":\"a\",\"title\":\"DAPO\"}\n",
            "{\"id\":\"b\",\"title\":\"VAPO\"}\n",
            "{\"id\":\"c\",\"title\":\"WebArena\",\"highlight\":\"web tasks\"}",
        ));
        let row = bare
            .spelling()
            .expect("2 of 3 papers are bare titles")
            .similar_to(0);
        assert!(row[1] > 0.0 && row[2] == 0.0, "{row:?}");
        let described = build(concat!(
            "{\"id\":\"a\",\"title\":\"DAPO\",\"highlight\":\"clip-higher\"}\n",
            "{\"id\":\"b\",\"title\":\"VAPO\",\"summary\":\"value-based\"}\n",
            "{\"id\":\"c\",\"title\":\"WebArena\"}",
        ));
        assert!(described.spelling().is_none(), "2 of 3 papers have text");
    }
}
