//! Which papers a related-work query scores and the signals it scores them on: the whole list
//! on a small index, the seed's candidates (graph, lexical, tags, `builds_on`) on a large one,
//! standardized over a fixed sample. Apart from the ranking so that the cost model of a query
//! (what is scanned, what is sampled) reads in one place.

use super::super::fusion;
use super::{Mode, best_positive};
use crate::index::Searcher;
use crate::index::evidence::Relation;

/// The per-paper signals of related work, seen from one seed: one value per paper the scope
/// scores, at that paper's slot ([`Scope::pool_slots`]): every paper of a small index, the
/// candidates, the sample and the seeds of a large one (a few hundred of 100k papers, so a
/// query allocates and fills no vector the length of the list beyond its seeds' own).
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
    /// Where each member of the pool, in pool order, sits in a [`Signals`] vector.
    pub(super) pool_slots: Vec<usize>,
    /// The papers whose signals are computed (pool, reference and seeds), ascending, the
    /// slot of each its position here; `None`: every paper, at its own position.
    scored: Option<Vec<usize>>,
    /// The slots of the papers whose mean and spread standardize each signal; `None`: the
    /// pool's.
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
    /// [`Similarities::of`] at `papers` only, in their order (the same values): what a
    /// feedback paper or a negative needs, which finds no candidates.
    fn at(index: &Searcher, seed: usize, papers: &[usize], sections: bool) -> Similarities {
        Similarities {
            lexical: index.lexical().similar_at(seed, papers),
            own_tags: index.own_tags(sections).similar_at(seed, papers),
            tags: index.tags().similar_at(seed, papers),
            spelling: index
                .spelling_at(seed, papers)
                .unwrap_or_else(|| vec![0.0; papers.len()]),
        }
    }

    /// These similarities (one per paper of the index) at `papers` only, in their order.
    fn gather(&self, papers: &[usize]) -> Similarities {
        let at = |v: &[f32]| papers.iter().map(|&i| v[i]).collect();
        Similarities {
            lexical: at(&self.lexical),
            tags: at(&self.tags),
            own_tags: at(&self.own_tags),
            spelling: at(&self.spelling),
        }
    }

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
        let pool: Vec<usize> = (0..index.len()).filter(|&i| keep(i)).collect();
        Scope {
            pool_slots: pool.clone(),
            pool,
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
            candidates(index, s, per_seed, &sims, sections, &mut pool);
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
        let slots = |papers: &[usize]| -> Vec<usize> {
            papers
                .iter()
                .map(|p| scored.binary_search(p).unwrap_or_default())
                .collect()
        };
        Scope {
            pool_slots: slots(&pool),
            reference: Some(slots(&reference)),
            pool,
            scored: Some(scored),
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
        let seen = self.seen.iter().find(|(s, _)| *s == seed).map(|(_, s)| s);
        let sims = match (&self.scored, seen) {
            (None, Some(sims)) => sims.clone(),
            (None, None) => Similarities::of(index, seed, self.sections),
            (Some(papers), Some(sims)) => sims.gather(papers),
            (Some(papers), None) => Similarities::at(index, seed, papers, self.sections),
        };
        signals(index, seed, self.scored.as_deref(), sims)
    }

    /// `sig`'s score for every member of the pool, in pool order.
    pub(super) fn score(&self, sig: &Signals, mode: Mode) -> Vec<f32> {
        let reference = self.reference.as_deref().unwrap_or(&self.pool_slots);
        sig.score(&self.pool_slots, reference, mode)
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
    sections: bool,
    out: &mut Vec<usize>,
) {
    out.extend(index.paper_nearest(seed, size + 1));
    // A signal silent for this seed (no tags, no own tags, no spelling on a large list) has no
    // positive value to rank: its pass over the list is skipped.
    let speaks = [
        true,
        !index.tags().rows[seed].is_empty(),
        index.own_tags(sections).has_any(seed),
        index.has_spelling(),
    ];
    for (values, speaks) in [&sims.lexical, &sims.tags, &sims.own_tags, &sims.spelling]
        .into_iter()
        .zip(speaks)
    {
        if speaks {
            out.extend(best_positive(values, size + 1));
        }
    }
    let relations = index.relations();
    out.extend(&relations.parents[seed]);
    out.extend(&relations.children[seed]);
    for &p in &relations.parents[seed] {
        out.extend(&relations.children[p]);
    }
    out.retain(|&i| i != seed);
}

/// The signals of `seed` (whose lexical and tag similarities are `sims`, at the same slots)
/// for the papers of `scored` (all when `None`), at their slots.
fn signals(index: &Searcher, seed: usize, scored: Option<&[usize]>, sims: Similarities) -> Signals {
    let seed_vector = index.vector(seed).to_vec();
    let relations = index.relations();
    let link = |i: usize| match relations.between(seed, i) {
        Some(Relation::BuildsOn) => fusion::builds_on_weight(relations.parent_specificity(i)),
        Some(Relation::BuiltOnBy) => fusion::builds_on_weight(relations.parent_specificity(seed)),
        Some(Relation::SharedParent(p)) => {
            fusion::LIKE_SHARED_PARENT * relations.parent_specificity(p)
        }
        None => 0.0,
    };
    let row = index.alignment_row(seed);
    let (dense, centered, links, alignment) = match scored {
        None => {
            let dense = index.similarities(&seed_vector);
            let centered = index.centroid().center(seed, &dense);
            let alignment = match row {
                Some(row) => row.to_vec(),
                None => vec![0.0; index.len()],
            };
            (
                dense,
                centered,
                (0..index.len()).map(link).collect(),
                alignment,
            )
        }
        Some(papers) => {
            let dense: Vec<f32> = papers
                .iter()
                .map(|&i| {
                    crate::index::ann::dot(&seed_vector, index.vector(i).as_slice().unwrap_or(&[]))
                })
                .collect();
            let centered = index.centroid().center_at(seed, &dense, papers);
            let alignment = match row {
                Some(row) => papers.iter().map(|&i| row[i]).collect(),
                None => vec![0.0; papers.len()],
            };
            (
                dense,
                centered,
                papers.iter().map(|&i| link(i)).collect(),
                alignment,
            )
        }
    };
    let Similarities {
        lexical,
        tags,
        own_tags,
        spelling,
    } = sims;
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
    /// This seed's score for the papers at the slots `pool`, in that order, each signal
    /// standardized over the papers at the slots `reference`.
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
