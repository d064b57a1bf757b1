//! What queries read from an index beyond its arrays: dense similarities and nearest papers
//! (scan or stored graph), and the evidence built on first use (centroid, tags, relations,
//! spelling, word forms). Apart from storage so that query-time state is found in one place.

use std::borrow::Cow;

use super::{Ann, GRAPH_MIN_PAPERS, GraphView, Index, ann, evidence, passage_text};

impl Index {
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

    /// The list's own tags ([`super::own_tags::OwnTags`]): its keywords, tags outside the
    /// curated vocabulary, categories and collections, and with `sections` also the sections
    /// it files papers under. Built on first use (one pass over the keyword columns).
    pub fn own_tags(&self, sections: bool) -> &super::own_tags::OwnTags {
        self.own_tags[usize::from(sections)]
            .get_or_init(|| super::own_tags::OwnTags::new(&self.table(), sections))
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
    /// [`super::NearestSource`]); `None` goes back to the graph.
    pub fn set_nearest_source(&mut self, source: Option<std::sync::Arc<dyn super::NearestSource>>) {
        self.nearest_source = source;
    }

    /// An in-memory hnsw_rs graph, rebuilt from the vectors on first use (minutes at 100k
    /// papers). Queries use the stored graph ([`Index::nearest`]); this is for comparisons.
    pub fn ann(&self) -> &Ann {
        self.ann
            .get_or_init(|| Ann::build(self.vectors(), self.meta.hnsw))
    }
}
