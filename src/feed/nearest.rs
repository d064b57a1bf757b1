//! One candidate against each interest of a library: the scores of its closest papers there,
//! kept without collecting them first, and the moments the feed's scales are read from.

use super::{Library, NEAREST};

/// The [`NEAREST`] largest scores of an interest's members, best first (ties by member), kept
/// in place: an interest's nearest papers are found for every candidate and interest (70,000
/// times in benches/feed.rs), so they are never collected first.
#[derive(Debug, Clone, Copy)]
pub(super) struct Nearest {
    best: [(usize, f32); NEAREST],
    len: usize,
}

/// A member that seeds add to an interest ([`super::Learner::Seeds`]): it counts, but is no paper.
const SEED: usize = usize::MAX;

impl Nearest {
    /// Their mean (0 without members).
    pub(super) fn score(&self) -> f32 {
        self.best[..self.len].iter().map(|n| n.1).sum::<f32>() / self.len.max(1) as f32
    }

    /// The library papers among them, best first.
    pub(super) fn papers(&self) -> Vec<(usize, f32)> {
        self.best[..self.len]
            .iter()
            .copied()
            .filter(|n| n.0 != SEED)
            .collect()
    }
}

impl Nearest {
    pub(super) const NONE: Nearest = Nearest {
        best: [(0, 0.0); NEAREST],
        len: 0,
    };

    /// Counts `x` (member, score) in.
    pub(super) fn push(&mut self, x: (usize, f32)) {
        let before = |a: &(usize, f32), b: &(usize, f32)| {
            b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)) == std::cmp::Ordering::Less
        };
        // Most members are below the third: one float comparison says so (exact: `<` of
        // two non-NaN floats implies `total_cmp` Less, and NaN takes the full comparison).
        if self.len == NEAREST
            && (x.1 < self.best[NEAREST - 1].1 || !before(&x, &self.best[NEAREST - 1]))
        {
            return;
        }
        self.len = (self.len + 1).min(NEAREST);
        let mut i = self.len - 1;
        while i > 0 && before(&x, &self.best[i - 1]) {
            self.best[i] = self.best[i - 1];
            i -= 1;
        }
        self.best[i] = x;
    }
}

/// One candidate against every interest: the dense nearest papers, and the lexical score, per
/// interest.
pub(super) struct PerInterest {
    pub(super) dense: Vec<Nearest>,
    pub(super) lexical: Vec<f32>,
}

/// A candidate against every interest, its cosines with the library's papers being `sims`
/// and its lexical similarities `lex` (empty without a lexical side). `seeds[k]` are
/// cosines with the papers rated up that serve interest `k` (empty without seeds): they join
/// its members.
pub(super) fn per_interest(
    library: &Library,
    (sims, lex): (&[f32], &[f32]),
    seeds: &[Vec<f32>],
    dropped: &[usize],
) -> PerInterest {
    let k = library.interests.len();
    let mut dense = vec![Nearest::NONE; k];
    let mut lexical = vec![Nearest::NONE; if lex.is_empty() { 0 } else { k }];
    for &(m, i) in &library.memberships {
        if !dropped.is_empty() && dropped.binary_search(&m).is_ok() {
            continue;
        }
        dense[i].push((m, sims[m]));
        if let Some(l) = lexical.get_mut(i) {
            l.push((m, lex[m]));
        }
    }
    for (near, extra) in dense.iter_mut().zip(seeds) {
        extra.iter().for_each(|&x| near.push((SEED, x)));
    }
    PerInterest {
        dense,
        lexical: lexical.iter().map(Nearest::score).collect(),
    }
}

/// Mean and standard deviation of `xs` (standard deviation floored above zero).
pub(super) fn moments(xs: impl Iterator<Item = f32> + Clone) -> (f32, f32) {
    let n = xs.clone().count().max(1) as f32;
    let mean = xs.clone().sum::<f32>() / n;
    let var = xs.map(|x| (x - mean) * (x - mean)).sum::<f32>() / n;
    (mean, var.sqrt().max(1e-6))
}
