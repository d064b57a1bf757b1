//! The index: everything a query needs, in one validated file (`index.bin`).
//!
//! It holds the paper records, their embedding vectors, the lexical index, the HNSW parameters,
//! the model id the vectors came from and a hash of the corpus they were built from. Building
//! takes an embedding function, so this module knows nothing about how vectors are made.
//!
//! Here: the types and the storage views. The build is in `build`, opening and validation in
//! `open`, the sections added after the build in `sections`; query-time state is a
//! [`Searcher`] (`searcher`).

pub mod ann;
mod build;
pub mod corpus_read;
pub mod evidence;
pub mod format;
pub mod graph;
mod layout;
pub use layout::LINK_STRENGTH_CUTS;
pub mod lexical;
mod open;
mod output;
pub mod own_tags;
pub mod papers;
pub mod plan;
pub mod reuse;
mod searcher;
mod sections;
mod spelling;
mod storage;

use std::borrow::Cow;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::OnceLock;

use bytemuck::Pod;
use ndarray::{ArrayView1, ArrayView2};
use serde::{Deserialize, Serialize};

pub use ann::{Ann, HnswParams};
pub use corpus_read::CorpusRead;
pub use format::FormatError;
pub use graph::{GraphData, GraphView};
pub use lexical::{Lexical, LexicalData};
pub use output::{OutputError, check_output};
pub use papers::PaperTable;
pub use reuse::{Reuse, build_incremental};
pub use searcher::Searcher;
pub use sections::{AlignmentData, PooledScores, PooledScoresData, SearchTokenData, SearchTokens};

use sections::width;

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

/// A search reference ([`Index::match_reference`]): what a query's best cosine in the list is
/// measured against to tell whether the list has anything on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reference {
    /// How close the list's papers come to their nearest other paper, their own text the
    /// query: on lists whose papers are described.
    Neighbours = 0,
    /// How close queries from unrelated fields come to the list: on every list.
    Unrelated = 1,
    /// The same for short queries from unrelated fields (a few words): on every list built
    /// since it exists. A short query comes closer to any list than a sentence does.
    UnrelatedShort = 2,
}

impl Reference {
    /// Every kind, in the order of [`layout::section::MATCH_REFERENCE`].
    pub const ALL: [Reference; 3] = [
        Reference::Neighbours,
        Reference::Unrelated,
        Reference::UnrelatedShort,
    ];
}

use crate::corpus::Paper;
use layout::Layout;
use papers::{TEXT_COLUMNS, TextView};
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
         index built from {expected:.12}); rebuild it with `recommend index {corpus} --out {index}`"
    )]
    Stale {
        index: String,
        corpus: String,
        found: String,
        expected: String,
    },
    #[error(
        "{index} is stale: {gone} was part of its corpus and is gone; restore it, or rebuild \
         the index from the rest with `recommend index {rest} --out {index}`"
    )]
    CorpusGone {
        index: String,
        gone: String,
        rest: String,
    },
    #[error(
        "{index} was built by {built_by}, whose word analysis differs from this recommend's \
         (terms v{current}); rebuild it with `recommend index {corpus} --out {index}` \
         (the vectors are reused: nothing is embedded again)"
    )]
    OldTerms {
        index: String,
        corpus: String,
        built_by: String,
        current: u32,
    },
    #[error(
        "{index} stores ranking plan v{found}, this recommend runs v{current} (0: none stored, \
         an older build); rebuild it with `recommend index {corpus} --out {index}` \
         (the vectors are reused: nothing is embedded again)"
    )]
    OldPlan {
        index: String,
        corpus: String,
        found: u32,
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
/// pgvector HNSW index, `crate::store::query`). Only [`Searcher::nearest`] asks it, and only where
/// the graph would answer ([`Searcher::uses_graph`], not `exact`): every signal is still computed
/// from the index itself.
pub trait NearestSource: Send + Sync {
    /// The `k` papers nearest `query` as (position, cosine), best first; `None` when the
    /// source cannot answer now, and the stored graph answers instead.
    fn nearest(&self, query: &[f32], k: usize) -> Option<Vec<(usize, f32)>>;

    /// The `k` papers nearest paper `paper`'s own vector (itself among them), best first, as
    /// the stored graph gives them ([`Searcher::paper_nearest`]); `None` when the source holds
    /// no such list, and [`NearestSource::nearest`] is asked with the paper's vector instead.
    fn paper_nearest(&self, _paper: usize, _k: usize) -> Option<Vec<usize>> {
        None
    }
}

/// A loaded, validated index. The arrays stay in the mapped file; papers are materialized
/// on demand ([`Index::paper`]) or all at once on first use of [`Index::papers`]. Queries go
/// through a [`Searcher`], which owns one and keeps what they build on first use.
pub struct Index {
    pub meta: IndexMeta,
    storage: Storage,
    layout: Layout,
    papers: OnceLock<Vec<Paper>>,
    /// The lexical index's mean document length, computed on the first view of it
    /// ([`Index::lexical`]).
    lexical_avg_len: OnceLock<f32>,
    /// Every paper's name keys ([`Index::name_keys`]), made on the first name that is not
    /// found at once.
    name_keys: OnceLock<Vec<Vec<String>>>,
    /// The stored ranking plan ([`Index::plan`]), decoded at open, or the revision found
    /// when it is not this recommend's (0: none stored).
    plan: Result<plan::Plan, u32>,
    path: Option<PathBuf>,
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

impl Index {
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
        let arrays = self.lexical_arrays();
        let avg = *self
            .lexical_avg_len
            .get_or_init(|| lexical::average_len(arrays.doc_len));
        Lexical::trusted_with_average(arrays, avg)
    }

    /// Every paper, materialized on first use (~0.1 s per 100k papers). Single lookups should
    /// use [`Index::paper`] or [`Index::table`].
    pub fn papers(&self) -> &[Paper] {
        self.papers.get_or_init(|| {
            let t = self.table();
            (0..t.len()).map(|i| t.get(i)).collect()
        })
    }

    /// Each paper's [`Paper::name_keys`], made once: resolving a name the table does not hold reads
    /// them all, several times (a server answering unknown names at 100k papers spent 0.1 s
    /// making them per request).
    pub fn name_keys(&self) -> &[Vec<String>] {
        self.name_keys
            .get_or_init(|| self.papers().iter().map(Paper::name_keys).collect())
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::synthetic;
    use crate::corpus;

    /// Requires `change` refused with a message that contains `says`; `what` names the change
    /// when it was accepted.
    fn assert_refused(change: Result<Index, IndexError>, what: &str, says: &str) {
        match change {
            Err(e) => assert!(e.to_string().contains(says), "{e}"),
            Ok(_) => panic!("accepted {what}"),
        }
    }

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
        let (n, u) = (Reference::Neighbours, Reference::Unrelated);
        assert_eq!(built.match_reference(n, Script::Latin), None);
        let cuts: Vec<f32> = (0..LINK_STRENGTH_CUTS)
            .map(|q| 0.8 + q as f32 / 1000.0)
            .collect();
        let with = built.with_match_reference(n, Script::Cjk, &cuts).unwrap();
        assert_eq!(with.match_reference(n, Script::Cjk), Some(&cuts[..]));
        assert_eq!(with.match_reference(n, Script::Latin), None);
        assert_eq!(with.match_reference(u, Script::Cjk), None);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.bin");
        with.save(&path).unwrap();
        let loaded = Index::load(&path).unwrap();
        assert_eq!(loaded.match_reference(n, Script::Cjk), Some(&cuts[..]));
        let both = loaded
            .with_match_reference(u, Script::Latin, &cuts)
            .unwrap();
        assert_eq!(both.match_reference(u, Script::Latin), Some(&cuts[..]));
        assert_eq!(both.match_reference(n, Script::Latin), None);
        let bytes = std::fs::read(&path).unwrap();
        let falling: Vec<f32> = cuts.iter().rev().copied().collect();
        for kind in [n, u] {
            assert_refused(
                Index::from_bytes(&bytes).unwrap().with_match_reference(
                    kind,
                    Script::Latin,
                    &falling,
                ),
                "falling cuts",
                "search reference",
            );
        }
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
        assert_eq!(built.alignment_row(3).as_deref(), None);
        let n = built.len();
        let scores: Vec<f32> = (0..n * n).map(|k| (k % 7) as f32 / 10.0).collect();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.bin");
        built.with_alignment(&scores).unwrap().save(&path).unwrap();
        let loaded = Index::load(&path).unwrap();
        assert_eq!(loaded.alignment(), Some(&scores[..]));
        assert_eq!(
            loaded.alignment_row(2).as_deref(),
            Some(&scores[2 * n..3 * n])
        );
        let bytes = std::fs::read(&path).unwrap();
        let mut nan = scores.clone();
        nan[5] = f32::NAN;
        let mut high = scores.clone();
        high[9] = 1.5;
        for bad in [scores[..n * n - 1].to_vec(), nan, high] {
            assert_refused(
                Index::from_bytes(&bytes).unwrap().with_alignment(&bad),
                "bad alignment scores",
                "alignment scores",
            );
        }
    }

    /// Alignment over candidate pools is three optional sections: a paper's row holds its
    /// partners' scores and zeros; the every-pair form and the pooled one replace each other;
    /// rows that do not cover the papers, a partner out of range or repeated, or a score out of
    /// range are refused.
    #[test]
    fn pooled_alignment_is_validated_and_replaces_the_every_pair_form() {
        let (_, _, built) = synthetic_index(60);
        let n = built.len();
        let mut pooled = PooledScoresData {
            offsets: vec![0],
            ..PooledScoresData::default()
        };
        for i in 0..n {
            for p in [(i + 1) % n, (i + 7) % n] {
                let p = p as u32;
                if !pooled.partners[*pooled.offsets.last().unwrap() as usize..].contains(&p) {
                    pooled.partners.push(p);
                    pooled.values.push(0.25);
                }
            }
            let row = *pooled.offsets.last().unwrap() as usize;
            pooled.partners[row..].sort_unstable();
            pooled.offsets.push(pooled.partners.len() as u32);
        }
        let every = AlignmentData::Every(vec![0.5; n * n]);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.bin");
        built
            .with_alignment_data(&every)
            .unwrap()
            .with_alignment_data(&AlignmentData::Pooled(pooled.clone()))
            .unwrap()
            .save(&path)
            .unwrap();
        let loaded = Index::load(&path).unwrap();
        assert!(loaded.alignment().is_none() && loaded.has_alignment());
        assert_eq!(
            loaded.alignment_data(),
            Some(AlignmentData::Pooled(pooled.clone()))
        );
        let row = loaded.alignment_row(3).unwrap();
        assert_eq!(row.len(), n);
        assert_eq!((row[4], row[10], row[5]), (0.25, 0.25, 0.0));
        let back = loaded.with_alignment_data(&every).unwrap();
        assert!(back.pooled_alignment().is_none());
        assert_eq!(back.alignment_row(3).as_deref(), Some(&[0.5; 60][..]));

        let mut short = pooled.clone();
        short.offsets.pop();
        let mut outside = pooled.clone();
        outside.partners[0] = n as u32;
        let mut repeated = pooled.clone();
        repeated.partners[1] = repeated.partners[0];
        let mut high = pooled.clone();
        high.values[2] = 1.5;
        let bytes = std::fs::read(&path).unwrap();
        for bad in [short, outside, repeated, high] {
            let fresh = Index::from_bytes(&bytes).unwrap();
            let err = match fresh.with_alignment_data(&AlignmentData::Pooled(bad.clone())) {
                Err(e) => e.to_string(),
                Ok(_) => panic!("accepted a bad pooled alignment"),
            };
            assert!(err.contains("pooled alignment"), "{err}");
            // The pooled spelling of a large list of bare titles is held to the same form.
            let fresh = Index::from_bytes(&bytes).unwrap();
            let err = match fresh.with_pooled_spelling(Some(&bad)) {
                Err(e) => e.to_string(),
                Ok(_) => panic!("accepted a bad pooled spelling"),
            };
            assert!(err.contains("pooled spelling"), "{err}");
        }
        let spelled = Index::from_bytes(&bytes)
            .unwrap()
            .with_pooled_spelling(Some(&pooled))
            .unwrap();
        assert_eq!(spelled.pooled_spelling().unwrap().to_data(), pooled);
        let unspelled = spelled.with_pooled_spelling(None).unwrap();
        assert!(unspelled.pooled_spelling().is_none() && unspelled.has_alignment());
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
            assert_refused(
                Index::from_bytes(&bytes).unwrap().with_search_tokens(&bad),
                "bad search tokens",
                "search token",
            );
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
            assert_refused(
                index.with_link_strengths(&bad),
                &format!("{bad:?}"),
                "link strengths",
            );
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
            Searcher::new(
                Index::build(papers, "papers.jsonl", "m", &mut |t| {
                    Ok(vec![vec![1.0]; t.len()])
                })
                .unwrap(),
            )
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

    /// A large index scores the candidates of a query only: their similarities must be the
    /// values the whole-list passes give, bit for bit, or rankings would move.
    #[test]
    fn similarities_at_some_papers_equal_the_whole_list_pass() {
        let (mut papers, vectors) = synthetic::corpus(300, 16, 9, 7);
        let tags = ["web-agent", "gui-agent", "search-agent", "code-agent"];
        for (i, p) in papers.iter_mut().enumerate() {
            if i % 3 > 0 {
                p.tags = vec![tags[i % 4].to_string(), tags[i % 7 % 4].to_string()];
            }
            if i % 5 > 0 {
                p.keywords = vec![format!("kw{}", i % 11), format!("kw{}", i % 13)];
            }
        }
        let mut given = Some(vectors);
        let index = Searcher::new(
            Index::build(papers, "papers.jsonl", "test-model", &mut |_| {
                given.take().ok_or_else(|| "embedded twice".to_string())
            })
            .unwrap(),
        );
        let all: Vec<usize> = (0..index.len()).collect();
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
        let lexical = index.lexical();
        for d in 0..index.len() {
            assert_eq!(
                bits(&lexical.similar_at(d, &all)),
                bits(&lexical.similar_to(d))
            );
            let t = index.tags();
            assert_eq!(bits(&t.similar_at(d, &all)), bits(&t.similar_to(d)));
            for sections in [false, true] {
                let o = index.own_tags(sections);
                assert_eq!(bits(&o.similar_at(d, &all)), bits(&o.similar_to(d)));
            }
        }
        assert!(!index.tags().is_empty() && !index.own_tags(false).is_empty());
    }
}
