//! Building an index from papers: embed their passages, check the vectors, lay out the
//! graph, the paper columns and the lexical postings, then open the bytes as any index is
//! opened. Apart from opening so that a build is validated exactly as a load is.

use ndarray::ArrayView2;

use super::papers::PaperColumns;
use super::storage::Storage;
use super::{
    CorpusSource, EmbedFn, GRAPH_MIN_PAPERS, GraphData, HnswParams, Index, IndexError, IndexMeta,
    LexicalData, built_by, graph, layout, passage_text,
};
use crate::corpus::{self, Paper};

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
}
