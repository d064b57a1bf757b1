//! The scales a feed's scores are read on, measured on the library's own papers.
//!
//! Two parts of a score need a scale: the lexical side is added to the dense one in units of
//! the dense scores' spread, and the nearest rated neighbours add their evidence in units of the
//! interest scores' spread. Measured over the day's candidates, those spreads move with the
//! batch: one paper scored 0.906 among 18 candidates and 0.764 alone (a blind probe), so
//! `--min-score` cut each batch differently. Here each sampled library paper is scored as a
//! candidate against the rest of its library (itself left out), and the spreads are read from
//! those scores: a paper's score depends on the library and the ratings only.

use super::nearest::{Nearest, PerInterest, moments, per_interest};
use super::{Feedback, LEXICAL_WEIGHT, Library};

/// Library papers the scales are read from: every paper up to this many, else an even sample
/// (the engine's standardization sample is as large).
pub const SAMPLE: usize = 256;

/// `min(n, SAMPLE)` rows spread evenly over `0..n`, ascending.
pub(super) fn sample(n: usize) -> Vec<usize> {
    if n <= SAMPLE {
        return (0..n).collect();
    }
    (0..SAMPLE).map(|k| k * n / SAMPLE).collect()
}

/// The library's sampled papers, each against every interest with itself left out, and their
/// rows (centred vectors). Papers rated down are not sampled: they have left their interests.
/// `lexical` says whether the lexical side is used; `seeds_of` gives a paper's cosines with
/// the papers rated up, per interest, as for a candidate.
pub(super) fn own(
    library: &Library,
    lexical: bool,
    seeds_of: &(dyn Fn(&[f32]) -> Vec<Vec<f32>> + Sync),
    feedback: &Feedback,
) -> (Vec<PerInterest>, Vec<Vec<f32>>) {
    let kept: Vec<usize> = library
        .sample
        .iter()
        .enumerate()
        .filter(|(_, m)| feedback.dropped.binary_search(m).is_err())
        .map(|(k, _)| k)
        .collect();
    let rows: Vec<Vec<f32>> = kept
        .iter()
        .map(|&k| library.rows.row(library.sample[k]).to_vec())
        .collect();
    let sims = super::similarities(library, &rows);
    let own_lexical = library.own_lexical.as_ref().filter(|_| lexical);
    // On every core, as the candidates are: the default learner does this on every feed.
    use rayon::prelude::*;
    let sims: Vec<&[f32]> = sims
        .rows()
        .into_iter()
        .map(|r| r.to_slice().unwrap_or(&[]))
        .collect();
    let per = kept
        .par_iter()
        .zip(&rows)
        .zip(&sims)
        .map(|((&k, v), s)| {
            let m = library.sample[k];
            let lex = own_lexical.and_then(|l| l.row(k).to_slice()).unwrap_or(&[]);
            let mut dropped = feedback.dropped.clone();
            if let Err(at) = dropped.binary_search(&m) {
                dropped.insert(at, m);
            }
            per_interest(library, (s, lex), &seeds_of(v), &dropped)
        })
        .collect();
    (per, rows)
}

/// The lexical side's `(scale, offset)`: its scores, less their mean, in units of the dense
/// scores' spread ([`LEXICAL_WEIGHT`] of it), both over every (paper, interest) of `own`;
/// `(0, 0)` without a lexical side.
pub(super) fn lexical_scale(own: &[PerInterest]) -> (f32, f32) {
    if own.iter().all(|p| p.lexical.is_empty()) {
        return (0.0, 0.0);
    }
    let (_, sd_d) = moments(own.iter().flat_map(|p| p.dense.iter().map(Nearest::score)));
    let (mu_l, sd_l) = moments(own.iter().flat_map(|p| p.lexical.iter().copied()));
    (LEXICAL_WEIGHT * sd_d / sd_l, mu_l)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sample_is_every_paper_or_an_even_spread() {
        assert_eq!(sample(3), vec![0, 1, 2]);
        assert_eq!(sample(SAMPLE).len(), SAMPLE);
        let s = sample(5_000);
        assert_eq!(s.len(), SAMPLE);
        assert_eq!(s[0], 0);
        assert!(s.windows(2).all(|w| w[0] < w[1]));
        assert!(*s.last().unwrap() + 5_000 / SAMPLE >= 4_999);
    }
}
