//! Which papers a related-work query scores and the signals it scores them on: the whole list
//! on a small index, the seed's candidates (graph, lexical, tags, `builds_on`) on a large one,
//! standardized over a fixed sample. Apart from the ranking so that the cost model of a query
//! (what is scanned, what is sampled) reads in one place.

use super::super::fusion;
use super::{Mode, best_positive};
use crate::index::Searcher;
use crate::index::evidence::Relation;

/// The per-paper signals of related work, seen from one seed (one value per paper of the
/// index; on a large index the dense cosine is computed for the scored papers only).
pub(super) struct Signals {
    pub(super) dense: Vec<f32>,
    centered: Vec<f32>,
    pub(super) lexical: Vec<f32>,
    tags: Vec<f32>,
    /// The list's own tags (`index::own_tags`); zeros without any.
    own_tags: Vec<f32>,
    /// Spelling cosine (`Searcher::spelling_row`); zeros unless the list is bare titles.
    spelling: Vec<f32>,
    /// Token alignment (`engine::alignment`); zeros unless the list has it.
    alignment: Vec<f32>,
    links: Vec<f32>,
    /// The list's weights ([`crate::engine::plan::RelatedWeights`]).
    weights: crate::engine::plan::RelatedWeights,
}

/// Which papers a query scores, and over which the signals are standardized.
///
/// On a small index (or with `--exact`) every paper is a candidate and the scores
/// are standardized over the candidates, as the judged figures (BENCHMARKS.md, Quality on the
/// shipped list) were measured. On a large index ([`Searcher::uses_graph`]) scoring every paper costs
/// a scan per signal pass (six passes per `--like` with feedback, one per paper for topics and
/// paths), so only candidates are scored: the seed's nearest papers from the stored HNSW graph,
/// its best lexical and tag matches and its `builds_on` relatives. Candidates are the top of each
/// signal, so their own spread says little about a signal's scale: a fixed sample of the corpus
/// ([`REFERENCE`] papers, evenly spaced) supplies each signal's mean and spread instead.
pub(super) struct Scope {
    /// The papers that may be returned, ascending.
    pub(super) pool: Vec<usize>,
    /// The papers whose dense cosine is computed (pool and reference), ascending; `None`: all.
    scored: Option<Vec<usize>>,
    /// The papers whose mean and spread standardize each signal; `None`: the pool.
    reference: Option<Vec<usize>>,
    /// The lexical and tag similarities of the seeds, computed once to find the candidates
    /// and reused by [`Scope::signals`] (each is a pass over the corpus).
    seen: Vec<(usize, Similarities)>,
    /// Whether a paper's section counts among its own tags ([`Searcher::own_tags`]); not for
    /// topics, which are compared with the sections.
    pub(super) sections: bool,
}

/// One paper's lexical, tag and spelling similarity to every paper of the index.
#[derive(Clone)]
struct Similarities {
    lexical: Vec<f32>,
    tags: Vec<f32>,
    own_tags: Vec<f32>,
    spelling: Vec<f32>,
}

impl Similarities {
    fn of(index: &Searcher, seed: usize, sections: bool) -> Similarities {
        Similarities {
            lexical: index.lexical().similar_to(seed),
            own_tags: index.own_tags(sections).similar_to(seed),
            tags: index.tags().similar_to(seed),
            spelling: index
                .spelling_row(seed)
                .unwrap_or_else(|| vec![0.0; index.len()]),
        }
    }
}

/// Size of the corpus sample that standardizes the signals of a large index.
const REFERENCE: usize = 256;

/// The [`REFERENCE`] papers, evenly spaced, of an index of `n`.
fn sample(n: usize) -> Vec<usize> {
    (0..n).step_by(n.div_ceil(REFERENCE).max(1)).collect()
}

impl Scope {
    /// Every paper `keep` accepts, scored and standardized over themselves.
    pub(super) fn everything(index: &Searcher, keep: impl Fn(usize) -> bool) -> Scope {
        Scope {
            pool: (0..index.len()).filter(|&i| keep(i)).collect(),
            scored: None,
            reference: None,
            seen: Vec::new(),
            sections: true,
        }
    }

    /// The candidates of `seeds` that `keep` accepts ([`candidates`], `per_seed` from each
    /// retriever), standardized over a fixed corpus sample.
    pub(super) fn candidates_of(
        index: &Searcher,
        seeds: &[usize],
        per_seed: usize,
        sections: bool,
        keep: impl Fn(usize) -> bool,
    ) -> Scope {
        let mut pool = Vec::new();
        let mut seen = Vec::with_capacity(seeds.len());
        for &s in seeds {
            let sims = Similarities::of(index, s, sections);
            candidates(index, s, per_seed, &sims, &mut pool);
            seen.push((s, sims));
        }
        pool.sort_unstable();
        pool.dedup();
        pool.retain(|&i| keep(i));
        Scope::on_sample(index, seeds, pool, seen, sections)
    }

    /// `pool` scored with `seeds` and the fixed corpus sample ([`sample`]), standardized over
    /// the sample.
    fn on_sample(
        index: &Searcher,
        seeds: &[usize],
        pool: Vec<usize>,
        seen: Vec<(usize, Similarities)>,
        sections: bool,
    ) -> Scope {
        let reference = sample(index.len());
        let mut scored = pool.clone();
        scored.extend(&reference);
        scored.extend(seeds);
        scored.sort_unstable();
        scored.dedup();
        Scope {
            pool,
            scored: Some(scored),
            reference: Some(reference),
            seen,
            sections,
        }
    }

    /// [`Scope::everything`] on a small index, [`Scope::candidates_of`] on a large one.
    /// Filters are applied to the ranking, never to the scope: standardizing over the filtered
    /// papers alone would reorder what a filter keeps.
    pub(super) fn for_seeds(
        index: &Searcher,
        seeds: &[usize],
        per_seed: usize,
        keep: impl Fn(usize) -> bool,
    ) -> Scope {
        if !index.uses_graph() {
            Scope::everything(index, keep)
        } else {
            Scope::candidates_of(index, seeds, per_seed, true, keep)
        }
    }

    /// Every paper `keep` accepts, standardized over the fixed corpus sample that
    /// [`Scope::candidates_of`] uses: the scan of a large index whose candidates ran dry
    /// under a filter, on the same scale as its candidates.
    pub(super) fn sampled(
        index: &Searcher,
        seeds: &[usize],
        keep: impl Fn(usize) -> bool,
    ) -> Scope {
        let pool: Vec<usize> = (0..index.len()).filter(|&i| keep(i)).collect();
        Scope::on_sample(index, seeds, pool, Vec::new(), true)
    }

    /// The signals of `seed` over this scope.
    pub(super) fn signals(&self, index: &Searcher, seed: usize) -> Signals {
        let sims = match self.seen.iter().find(|(s, _)| *s == seed) {
            Some((_, sims)) => sims.clone(),
            None => Similarities::of(index, seed, self.sections),
        };
        signals(index, seed, self.scored.as_deref(), sims)
    }

    /// `sig`'s score for every member of the pool, in pool order.
    pub(super) fn score(&self, sig: &Signals, mode: Mode) -> Vec<f32> {
        let reference = self.reference.as_deref().unwrap_or(&self.pool);
        sig.score(&self.pool, reference, mode)
    }
}

/// Adds to `out` the papers a large index scores for `seed`: its `size` nearest by the stored
/// graph, its best `size` by lexical, tag and spelling similarity, and its `builds_on`
/// relatives.
fn candidates(
    index: &Searcher,
    seed: usize,
    size: usize,
    sims: &Similarities,
    out: &mut Vec<usize>,
) {
    let v = index.vector(seed).to_vec();
    out.extend(
        index
            .nearest(&v, size + 1, false)
            .into_iter()
            .map(|(i, _)| i),
    );
    for values in [&sims.lexical, &sims.tags, &sims.own_tags, &sims.spelling] {
        out.extend(best_positive(values, size + 1));
    }
    let relations = index.relations();
    out.extend(&relations.parents[seed]);
    out.extend(&relations.children[seed]);
    for &p in &relations.parents[seed] {
        out.extend(&relations.children[p]);
    }
    out.retain(|&i| i != seed);
}

/// The signals of `seed` (whose lexical and tag similarities are `sims`); the dense cosine for
/// the papers of `scored` only (all when `None`).
fn signals(index: &Searcher, seed: usize, scored: Option<&[usize]>, sims: Similarities) -> Signals {
    let seed_vector = index.vector(seed).to_vec();
    let dense = match scored {
        None => index.similarities(&seed_vector),
        Some(papers) => {
            let mut d = vec![0.0f32; index.len()];
            for &i in papers {
                d[i] =
                    crate::index::ann::dot(&seed_vector, index.vector(i).as_slice().unwrap_or(&[]));
            }
            d
        }
    };
    let centered = match scored {
        None => index.centroid().center(seed, &dense),
        Some(papers) => index.centroid().center_only(seed, &dense, papers),
    };
    let Similarities {
        lexical,
        tags,
        own_tags,
        spelling,
    } = sims;
    let relations = index.relations();
    let link = |i: usize| match relations.between(seed, i) {
        Some(Relation::BuildsOn) => fusion::builds_on_weight(relations.parent_specificity(i)),
        Some(Relation::BuiltOnBy) => fusion::builds_on_weight(relations.parent_specificity(seed)),
        Some(Relation::SharedParent(p)) => {
            fusion::LIKE_SHARED_PARENT * relations.parent_specificity(p)
        }
        None => 0.0,
    };
    let links = match scored {
        None => (0..index.len()).map(link).collect(),
        Some(papers) => {
            let mut l = vec![0.0f32; index.len()];
            for &i in papers {
                l[i] = link(i);
            }
            l
        }
    };
    let alignment = match index.alignment_row(seed) {
        Some(row) => row.to_vec(),
        None => vec![0.0; index.len()],
    };
    Signals {
        alignment,
        dense,
        centered,
        lexical,
        tags,
        own_tags,
        spelling,
        links,
        weights: crate::engine::plan::weights(index),
    }
}

impl Signals {
    /// This seed's score for every member of `pool`, in pool order, each signal standardized
    /// over `reference`.
    fn score(&self, pool: &[usize], reference: &[usize], mode: Mode) -> Vec<f32> {
        match mode {
            Mode::Dense => pool.iter().map(|&i| self.dense[i]).collect(),
            Mode::Lexical => pool.iter().map(|&i| self.lexical[i]).collect(),
            Mode::Hybrid => {
                let share = reference.iter().filter(|&&i| self.lexical[i] > 0.0).count() as f32
                    / reference.len().max(1) as f32;
                let w = &self.weights;
                let mut f = fusion::fuse_by(
                    pool,
                    reference,
                    &[
                        (w.dense, &self.centered),
                        (w.lexical_for(share), &self.lexical),
                        (w.tags, &self.tags),
                        (w.own_tags, &self.own_tags),
                        (w.spelling, &self.spelling),
                        (w.alignment, &self.alignment),
                    ],
                );
                for (x, &i) in f.iter_mut().zip(pool) {
                    *x += self.links[i];
                }
                f
            }
        }
    }
}
