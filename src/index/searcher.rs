//! Query-time state beside the stored index (tantivy's `Index` / `Searcher` split): the
//! evidence built on first use from the stored columns (centroid, tags, relations, spelling,
//! word forms, an in-memory graph) and the query modes (`--exact`, a nearest-neighbour source).
//! [`Index`] is the validated file and its views; a [`Searcher`] owns one and answers dense
//! queries (scan or stored graph). It derefs to its index, so storage reads go straight through.

use std::borrow::Cow;
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use super::{Ann, GRAPH_MIN_PAPERS, GraphView, Index, NearestSource, ann, evidence, passage_text};

/// Each paper's group for an axis ([`evidence::languages`], [`evidence::shapes`]).
type GroupsOf = fn(&super::papers::PaperTable<'_>) -> Vec<Option<bool>>;
/// The axis between two groups' mean vectors ([`evidence::language_axis`], [`evidence::shape_axis`]).
type AxisBetween = fn(&[Option<bool>], &[f32], usize) -> Option<Vec<f32>>;

/// An index opened for queries, with what queries build on first use (see the module
/// documentation). Cheap to make: nothing is computed until asked for.
pub struct Searcher {
    index: Index,
    ann: OnceLock<Ann>,
    centroid: OnceLock<evidence::Centroid>,
    /// The language axis measured from the papers, for an index without a stored plan.
    measured_axis: OnceLock<Option<Vec<f32>>>,
    measured_shape_axis: OnceLock<Option<Vec<f32>>>,
    tags: OnceLock<evidence::Tags>,
    /// The list's own tags, with its sections and without ([`super::own_tags`]).
    own_tags: [OnceLock<super::own_tags::OwnTags>; 2],
    relations: OnceLock<evidence::Relations>,
    spelling: OnceLock<Option<evidence::Spelling>>,
    surfaces: OnceLock<evidence::Surfaces>,
    group_names: OnceLock<std::collections::HashSet<String>>,
    /// `--exact`: never walk the graph, whatever the size.
    exact_scan: bool,
    /// Asked before the stored graph ([`Searcher::set_nearest_source`]).
    nearest_source: Option<Arc<dyn NearestSource>>,
}

impl Deref for Searcher {
    type Target = Index;

    fn deref(&self) -> &Index {
        &self.index
    }
}

impl From<Index> for Searcher {
    fn from(index: Index) -> Searcher {
        Searcher::new(index)
    }
}

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

    /// Whether the graph answers this index's dense queries unless `--exact`: it has one and
    /// holds at least [`GRAPH_MIN_PAPERS`] papers.
    pub fn graph_answers(&self) -> bool {
        self.len() >= GRAPH_MIN_PAPERS && self.graph().is_some()
    }
}

impl Searcher {
    /// A searcher over `index`, in the default mode (the graph where it answers).
    pub fn new(index: Index) -> Searcher {
        Searcher {
            index,
            ann: OnceLock::new(),
            centroid: OnceLock::new(),
            measured_axis: OnceLock::new(),
            measured_shape_axis: OnceLock::new(),
            tags: OnceLock::new(),
            own_tags: [OnceLock::new(), OnceLock::new()],
            relations: OnceLock::new(),
            spelling: OnceLock::new(),
            surfaces: OnceLock::new(),
            group_names: OnceLock::new(),
            exact_scan: false,
            nearest_source: None,
        }
    }

    /// The stored index.
    pub fn index(&self) -> &Index {
        &self.index
    }

    /// The stored index, for a build step that adds a section; what this searcher built is
    /// dropped (a new index is a new list of evidence).
    pub fn into_index(self) -> Index {
        self.index
    }

    /// The mean passage vector and each paper's dot product with it, computed on first use.
    pub fn centroid(&self) -> &evidence::Centroid {
        self.centroid.get_or_init(|| {
            let rows = self.slice(&self.layout.vectors);
            evidence::Centroid::with_axes(rows, self.dim(), self.language_axis(), self.shape_axis())
        })
    }

    /// The direction related work's dense similarity is projected off: the stored plan's
    /// (`Plan::language_axis`), else, for an index being built, measured from its papers'
    /// notes and vectors as the plan will store it ([`evidence::language_axis`]).
    pub fn language_axis(&self) -> Option<&[f32]> {
        self.axis(
            |plan| plan.language_axis.as_deref(),
            &self.measured_axis,
            (evidence::languages, evidence::language_axis),
        )
    }

    /// The direction between bare titles and papers described at length that related work's
    /// dense similarity is also projected off: the stored plan's (`Plan::shape_axis`), else
    /// measured from the papers as the plan will store it ([`evidence::shape_axis`]).
    pub fn shape_axis(&self) -> Option<&[f32]> {
        self.axis(
            |plan| plan.shape_axis.as_deref(),
            &self.measured_shape_axis,
            (evidence::shapes, evidence::shape_axis),
        )
    }

    /// An axis: the stored plan's, else measured once into `measured` (search asks for it on
    /// every query) from each paper's group and the vectors.
    fn axis<'a>(
        &'a self,
        stored: impl FnOnce(&'a super::plan::Plan) -> Option<&'a [f32]>,
        measured: &'a OnceLock<Option<Vec<f32>>>,
        (groups, between): (GroupsOf, AxisBetween),
    ) -> Option<&'a [f32]> {
        match self.plan() {
            Some(plan) => stored(plan),
            None => measured
                .get_or_init(|| {
                    between(
                        &groups(&self.table()),
                        self.slice(&self.layout.vectors),
                        self.dim(),
                    )
                })
                .as_deref(),
        }
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

    /// Whether `query` is, letter for letter (as [`crate::text::name_key`] compares names), the
    /// name of a group this list files papers under: a section, a curated tag in English or
    /// Chinese, or one of its own keywords or tags. Built on first use (one pass over the
    /// papers).
    pub fn names_a_group(&self, query: &str) -> bool {
        let key = crate::text::name_key(query);
        !key.is_empty()
            && self
                .group_names
                .get_or_init(|| {
                    let mut names = std::collections::HashSet::new();
                    for i in 0..self.len() {
                        let p = self.paper(i);
                        let curated = p
                            .tags
                            .iter()
                            .filter_map(|t| crate::corpus::paper::tag_name(t));
                        let texts = [p.topic.as_str(), p.topic_en.as_str()]
                            .into_iter()
                            .chain(p.also_topics.iter().map(String::as_str))
                            .chain(p.keywords.iter().map(String::as_str))
                            .chain(p.tags.iter().map(String::as_str))
                            .chain(curated.flat_map(|(en, zh)| [en, zh]));
                        names.extend(texts.map(crate::text::name_key).filter(|k| !k.is_empty()));
                    }
                    names
                })
                .contains(&key)
    }

    /// Whether the list carries curated evidence of relatedness: tags or `builds_on` links.
    /// Without it, related work leans on its own signals (reciprocal neighbours, a lexical
    /// weight that follows the text; `engine::retrieve`).
    pub fn has_curated_evidence(&self) -> bool {
        !(self.tags().is_empty() && self.relations().is_empty())
    }

    /// The spelling of the papers' texts when the list is one of bare titles
    /// ([`evidence::Spelling::is_for`]) small enough to build it on first use
    /// ([`GRAPH_MIN_PAPERS`]); `None` otherwise. 10,000 titles of 80 characters take 0.24 s
    /// and 39 MB, a cost every cold query of a large index would pay: a larger list stores its
    /// pooled form instead ([`Index::pooled_spelling`], read by [`Searcher::spelling_row`]).
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

    /// Whether spelling is a signal of this list, in either form ([`Searcher::spelling_row`]).
    pub fn has_spelling(&self) -> bool {
        self.pooled_spelling().is_some() || self.spelling().is_some()
    }

    /// Paper `a`'s spelling cosine with every paper: built on first use on a small list of bare
    /// titles, read from the stored pooled form on a large one (zero outside `a`'s closest
    /// spellings); `None` where spelling is no signal.
    pub fn spelling_row(&self, a: usize) -> Option<Vec<f32>> {
        match self.pooled_spelling() {
            Some(p) => Some(p.dense_row(a, self.len())),
            None => self.spelling().map(|s| s.similar_to(a)),
        }
    }

    /// [`Searcher::spelling_row`] at `papers` only, in their order (the same values).
    pub fn spelling_at(&self, a: usize, papers: &[usize]) -> Option<Vec<f32>> {
        match self.pooled_spelling() {
            Some(p) => {
                let row: Vec<(u32, f32)> = p.row(a).collect();
                Some(
                    papers
                        .iter()
                        .map(|&i| {
                            row.binary_search_by_key(&(i as u32), |x| x.0)
                                .map_or(0.0, |k| row[k].1)
                        })
                        .collect(),
                )
            }
            None => self.spelling().map(|s| s.similar_at(a, papers)),
        }
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

    /// Whether [`Searcher::nearest`] without `exact` walks the graph: not `--exact`, and
    /// [`Index::graph_answers`].
    pub fn uses_graph(&self) -> bool {
        !self.exact_scan && self.graph_answers()
    }

    /// Answer every query of this index by the exact scan (`--exact`): no approximation, at
    /// the cost of a scan per query (and per paper for topics and paths) on a large index.
    pub fn set_exact_scan(&mut self, exact: bool) {
        self.exact_scan = exact;
    }

    /// Whether [`Searcher::set_exact_scan`] is on.
    pub fn exact_scan(&self) -> bool {
        self.exact_scan
    }

    /// The `k` papers whose vectors are most similar to `query` (unit length, `dim` values), as
    /// (paper, cosine), best first, ties by paper. `exact` forces the exact scan; otherwise large
    /// indexes ([`Searcher::uses_graph`]) answer from the stored HNSW graph with the beam measured
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
                let ef = self.graph_beam(k);
                g.search(self.slice(&self.layout.vectors), self.dim(), query, k, ef)
            }
            _ => {
                let scored: Vec<(usize, f32)> =
                    self.similarities(query).into_iter().enumerate().collect();
                ann::top_hits(scored, k)
            }
        }
    }

    /// The `k` papers nearest paper `i`'s vector (`i` itself among them), as
    /// [`Searcher::nearest`] without `exact` finds them; a source's stored list for the paper
    /// ([`NearestSource::paper_nearest`]) answers first, which is what a related-work query asks
    /// for its seed.
    pub fn paper_nearest(&self, i: usize, k: usize) -> Vec<usize> {
        if let Some(source) = &self.nearest_source
            && self.uses_graph()
            && let Some(list) = source.paper_nearest(i, k)
        {
            return list;
        }
        let v = self.vector(i).to_vec();
        self.nearest(&v, k, false)
            .into_iter()
            .map(|(j, _)| j)
            .collect()
    }

    /// The beam [`Searcher::nearest`] walks the stored graph with for `k` papers: a list found
    /// with the same beam for more papers begins with these `k`.
    pub fn graph_beam(&self, k: usize) -> usize {
        self.meta.hnsw.ef_search.max(k)
    }

    /// Take the approximate nearest neighbours from `source` rather than the stored graph (see
    /// [`NearestSource`]); `None` goes back to the graph.
    pub fn set_nearest_source(&mut self, source: Option<Arc<dyn NearestSource>>) {
        self.nearest_source = source;
    }

    /// An in-memory hnsw_rs graph, rebuilt from the vectors on first use (minutes at 100k
    /// papers). Queries use the stored graph ([`Searcher::nearest`]); this is for comparisons.
    pub fn ann(&self) -> &Ann {
        self.ann
            .get_or_init(|| Ann::build(self.vectors(), self.meta.hnsw))
    }
}
