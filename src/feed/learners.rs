//! How ratings re-rank the feed beyond a profile: the logistic model of [`super::Learner::Linear`] and
//! the nearest rated neighbours of [`super::Learner::Neighbours`], over the signals [`super::rank_with`]
//! gathers for each candidate.

use super::nearest::moments;
use super::{Feedback, Signals};

/// [`super::Learner::Neighbours`]: the weight of the closeness to the nearest paper rated up, in standard
/// deviations of the interest score per standard deviation of that closeness (both over the
/// library's own papers, [`super::calibration`]).
/// On the time split (56 readers of six lists) 0.25 / 0.5 / 0.75 / 1.0 gave precision@10 0.286 /
/// 0.291 / 0.291 / 0.289 (no ratings 0.255): a plateau, and 0.5 is in its middle.
pub const NEIGHBOUR_UP: f32 = 0.5;

/// [`super::Learner::Neighbours`]: how far a paper rated down pulls down a candidate closer to it than to
/// any library paper or paper rated up: this weight times that gap in cosine, over the spread of
/// the candidates' closeness to papers rated down (0.5 and 1.0 both gave 0.293 beside the up
/// side, 0.291 without it).
pub const NEIGHBOUR_DOWN: f32 = 0.5;

/// A fitted logistic model over (base, up, down).
#[derive(Debug, Clone, Copy)]
pub(super) struct Linear {
    w: [f32; 3],
    b: f32,
}

impl Linear {
    /// The model before any rating: the interest score, plus closeness to what was rated up,
    /// minus closeness to what was rated down.
    const PRIOR: [f32; 3] = [1.0, 0.5, -0.5];

    /// Fits the ratings (1 up, 0 down) by gradient descent, penalized towards [`Self::PRIOR`]:
    /// ten ratings are too few to learn three weights from nothing (unpenalized, two ratings
    /// ranked an unrelated paper first). With ratings of one side only, the prior stands.
    pub(super) fn fit(examples: &[([f32; 3], f32)]) -> Linear {
        let mut m = Linear {
            w: Self::PRIOR,
            b: 0.0,
        };
        let both = examples.iter().any(|e| e.1 > 0.5) && examples.iter().any(|e| e.1 < 0.5);
        if !both {
            return m;
        }
        let (rate, l2) = (0.5f32, 0.5f32);
        for _ in 0..500 {
            let mut g = [0.0f32; 3];
            let mut gb = 0.0f32;
            for (x, y) in examples {
                let p = 1.0 / (1.0 + (-m.value(x)).exp());
                for k in 0..3 {
                    g[k] += (p - y) * x[k];
                }
                gb += p - y;
            }
            let n = examples.len() as f32;
            for ((w, g), p) in m.w.iter_mut().zip(g).zip(Self::PRIOR) {
                *w -= rate * (g / n + l2 * (*w - p));
            }
            m.b -= rate * gb / n;
        }
        m
    }

    pub(super) fn value(&self, x: &[f32; 3]) -> f32 {
        self.w[0] * x[0] + self.w[1] * x[1] + self.w[2] * x[2] + self.b
    }
}

/// The scale [`super::Learner::Neighbours`] weighs its evidence on, measured over the library's own
/// papers ([`super::calibration`]), never over the candidates: the spread of the interest
/// scores, the mean and spread of the closeness to papers rated up, and the spread of the
/// closeness to papers rated down. The evidence is added in units of the interest scores'
/// spread, so a score stays on the scale `--min-score` reads.
pub(super) struct Neighbours {
    spread: f32,
    up: Option<(f32, f32)>,
    down: Option<f32>,
}

impl Neighbours {
    pub(super) fn of(own: &[Signals], feedback: &Feedback) -> Neighbours {
        Neighbours {
            spread: moments(own.iter().map(|s| s.base)).1,
            up: (!feedback.up.is_empty()).then(|| moments(own.iter().map(|s| s.up))),
            down: (!feedback.down.is_empty()).then(|| moments(own.iter().map(|s| s.down)).1),
        }
    }

    pub(super) fn score(&self, s: &Signals) -> f32 {
        let mut evidence = 0.0;
        if let Some((mean, sd)) = self.up {
            evidence += NEIGHBOUR_UP * (s.up - mean) / sd;
        }
        if let Some(sd) = self.down {
            let liked = s.near.first().map_or(0.0, |n| n.1);
            let liked = if self.up.is_some() {
                liked.max(s.up)
            } else {
                liked
            };
            evidence -= NEIGHBOUR_DOWN * (s.down - liked).max(0.0) / sd;
        }
        s.base + self.spread * evidence
    }
}
