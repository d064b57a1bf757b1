//! Re-indexing without re-embedding: vectors of unchanged papers come from the previous index.
//!
//! Embedding is nearly all of an index build (a 10k-paper list of abstracts takes tens of
//! minutes on two cores; the rest takes seconds). A vector depends only on the embedded text
//! ([`passage_text`]) and the model, so it is keyed by a hash of both ([`vector_key`]): a paper
//! whose title, aliases, summary and highlight are unchanged keeps its vector even when its
//! topic, tags, links or position in the corpus change, and any change to those texts (or
//! another model) embeds it again. Identical texts are embedded once.

use std::collections::HashMap;

use sha2::{Digest, Sha256};

use super::{CorpusSource, EmbedFn, Index, IndexError, passage_text};
use crate::corpus::Paper;

/// How a build got its vectors.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reuse {
    /// Papers whose vector came from the previous index.
    pub reused: usize,
    /// Papers embedded now (new or changed texts).
    pub embedded: usize,
}

/// The key of a vector: SHA-256 of the model id and the embedded text.
pub fn vector_key(model_id: &str, text: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(model_id.as_bytes());
    h.update([0u8]);
    h.update(text.as_bytes());
    h.finalize().into()
}

/// [`Index::build`], taking the vector of every paper whose [`vector_key`] the `previous`
/// index already holds, and calling `embed` once, for the distinct texts of the others (not at
/// all when there are none, so an unchanged or metadata-only corpus needs no model).
pub fn build_incremental(
    papers: Vec<Paper>,
    source: impl Into<CorpusSource>,
    model_id: &str,
    previous: Option<&Index>,
    embed: &mut EmbedFn<'_>,
) -> Result<(Index, Reuse), IndexError> {
    if papers.is_empty() {
        return Err(IndexError::Empty);
    }
    let mut known: HashMap<[u8; 32], usize> = HashMap::new();
    if let Some(prev) = previous {
        for (row, p) in prev.papers().iter().enumerate() {
            known
                .entry(vector_key(&prev.meta.model_id, &passage_text(p)))
                .or_insert(row);
        }
    }
    let texts: Vec<String> = papers.iter().map(passage_text).collect();
    let mut vectors: Vec<Option<Vec<f32>>> = vec![None; papers.len()];
    // Distinct texts to embed, and which papers wait for each.
    let mut missing: Vec<String> = Vec::new();
    let mut waiting: HashMap<[u8; 32], Vec<usize>> = HashMap::new();
    let mut reuse = Reuse::default();
    for (i, text) in texts.iter().enumerate() {
        let key = vector_key(model_id, text);
        if let (Some(prev), Some(&row)) = (previous, known.get(&key)) {
            vectors[i] = Some(prev.vector(row).to_vec());
            reuse.reused += 1;
            continue;
        }
        reuse.embedded += 1;
        waiting
            .entry(key)
            .or_insert_with(|| {
                missing.push(text.clone());
                Vec::new()
            })
            .push(i);
    }
    if !missing.is_empty() {
        let fresh = embed(&missing).map_err(IndexError::Embed)?;
        if fresh.len() != missing.len() {
            return Err(IndexError::Embedding {
                got: fresh.len(),
                dim: fresh.first().map_or(0, Vec::len),
                expected: missing.len(),
            });
        }
        for (text, v) in missing.iter().zip(fresh) {
            for &i in &waiting[&vector_key(model_id, text)] {
                vectors[i] = Some(v.clone());
            }
        }
    }
    let mut all: Option<Vec<Vec<f32>>> = Some(vectors.into_iter().flatten().collect());
    // Index::build checks the count, dimensions and finiteness of what it is given.
    let index = Index::build(papers, source, model_id, &mut |_| {
        all.take()
            .ok_or_else(|| "vectors requested twice".to_string())
    })?;
    Ok((index, reuse))
}
