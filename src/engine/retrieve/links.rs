//! Related work as other steps use it: a list's link strengths, measured once per build from
//! its papers' own rankings, and a paper's neighbours, the links graph topics and reading
//! paths are built on.

use super::super::fusion;
use super::scope::Scope;
use super::{Filters, Mode, scored_related};
use crate::index::ann::top_hits;
use crate::index::{Index, Searcher};

/// Seeds sampled to measure a list's link strengths: every paper up to this many, else an even
/// spread of this many (about a second at 10k papers, 2 cores).
const STRENGTH_SEEDS: usize = 400;

/// The fused scores at the percentiles 0, 1, ..., 100 of the top 5 `--like` results of the
/// papers of `index` (all of them, or [`STRENGTH_SEEDS`] evenly spread): what
/// [`crate::index::Index::with_link_strengths`] stores. `None` for a list too small to have
/// five links per paper.
pub fn link_strength_cuts(index: &Searcher) -> Option<Vec<f32>> {
    use rayon::prelude::*;
    let n = index.len();
    if n < 6 {
        return None;
    }
    let step = n.div_ceil(STRENGTH_SEEDS);
    let seeds: Vec<usize> = (0..n).step_by(step).collect();
    let scores: Vec<f32> = seeds
        .par_iter()
        .flat_map_iter(|&s| {
            scored_related(index, &[s], &[], 5, Mode::Hybrid, &Filters::default())
                .into_iter()
                .map(|h| h.score)
        })
        .filter(|x| x.is_finite())
        .collect();
    fusion::percentile_cuts(scores)
}

/// `index` with its link strengths measured and stored ([`link_strength_cuts`]); as it was
/// when the list is too small to measure them. Every build that users query goes through this.
pub fn calibrated(index: Index) -> Result<Index, crate::index::IndexError> {
    let searcher = Searcher::new(index);
    match link_strength_cuts(&searcher) {
        Some(cuts) => searcher.into_index().with_link_strengths(&cuts),
        None => Ok(searcher.into_index()),
    }
}

/// The reciprocity check reads lists of exactly the length the index stores.
const _: () = assert!(fusion::LIKE_RECIPROCAL_K == crate::index::plan::NEIGHBOURS_PER_PAPER);

/// `index` with every paper's [`fusion::LIKE_RECIPROCAL_K`] [`neighbours`] stored
/// ([`Index::with_like_neighbours`]) when its plan adds reciprocal neighbours; as it was
/// otherwise. Stored because each reciprocity check is a related-work ranking of its own: on a
/// large index 15 candidate searches per query, which is why reciprocity used to be off there.
pub fn with_like_neighbours(index: Index) -> Result<Index, crate::index::IndexError> {
    use rayon::prelude::*;
    let index = Searcher::new(index);
    if !super::super::plan::weights(&index).reciprocal {
        return Ok(index.into_index());
    }
    let k = fusion::LIKE_RECIPROCAL_K;
    let lists: Vec<u32> = (0..index.len())
        .into_par_iter()
        .flat_map_iter(|i| {
            let mut l = neighbours(&index, i, k, true);
            // A list of fewer papers than k (a tiny list) is padded with the paper itself,
            // which is never a seed of a query that has it as a candidate.
            l.resize(k, i);
            l.into_iter().map(|p| p as u32)
        })
        .collect();
    index.into_index().with_like_neighbours(&lists)
}

/// Candidates per retriever for [`neighbours`] on a large index: enough for a top 10.
const NEIGHBOUR_POOL: usize = 50;

/// The `k` papers most related to `seed` by the fused related-work score (without feedback or
/// explanations): the links of the graph topics and reading paths are built on. `sections`:
/// whether the sections the list files papers under count as evidence (not for topics, which
/// are measured against those sections).
pub fn neighbours(index: &Searcher, seed: usize, k: usize, sections: bool) -> Vec<usize> {
    let scope = if index.uses_graph() {
        Scope::candidates_of(index, &[seed], NEIGHBOUR_POOL.max(k), sections, |i| {
            i != seed
        })
    } else {
        let mut all = Scope::everything(index, |i| i != seed);
        all.sections = sections;
        all
    };
    let score = scope.score(&scope.signals(index, seed), Mode::Hybrid);
    let scored: Vec<(usize, f32)> = score.into_iter().enumerate().collect();
    top_hits(scored, k)
        .into_iter()
        .map(|(j, _)| scope.pool[j])
        .collect()
}
