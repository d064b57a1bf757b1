//! The paired-bootstrap margin of the shipped ranking over a baseline.

use serde::Serialize;

/// How far the shipped ranking is ahead of a baseline on the same judged items: the mean
/// paired difference and a 95% percentile-bootstrap interval over the items. The sets are
/// small (5-61 items per figure): a lead whose interval spans 0 is one or two items, not a
/// win a second judged set would repeat.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Margin {
    pub mean: f64,
    pub low: f64,
    pub high: f64,
}

/// Bootstrap resamples behind a [`Margin`]: enough for stable 2.5% / 97.5% percentiles.
const RESAMPLES: usize = 2000;

impl Margin {
    /// The paired margin of `ours` over `other` (one value per item, same order); `None` when
    /// there are no items or the lengths differ. Resampling uses a fixed seed, so a report is
    /// reproducible to the digit.
    pub fn paired(ours: &[f64], other: &[f64]) -> Option<Margin> {
        if ours.is_empty() || ours.len() != other.len() {
            return None;
        }
        let diffs: Vec<f64> = ours.iter().zip(other).map(|(a, b)| a - b).collect();
        let n = diffs.len();
        let mean = diffs.iter().sum::<f64>() / n as f64;
        let mut rng = crate::util::rng::SplitMix64(0x5eed_b007);
        let mut means: Vec<f64> = (0..RESAMPLES)
            .map(|_| (0..n).map(|_| diffs[rng.below(n)]).sum::<f64>() / n as f64)
            .collect();
        means.sort_by(f64::total_cmp);
        let at = |q: f64| means[((q * RESAMPLES as f64) as usize).min(RESAMPLES - 1)];
        Some(Margin {
            mean,
            low: at(0.025),
            high: at(0.975),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn margins_are_paired_and_their_interval_holds_the_mean() {
        // The same items: no margin, and an interval of width 0.
        let a = [0.2, 0.4, 0.6, 0.8];
        assert_eq!(
            Margin::paired(&a, &a),
            Some(Margin {
                mean: 0.0,
                low: 0.0,
                high: 0.0
            })
        );
        // Ahead on every item by 0.2: the whole interval is 0.2, however the items vary.
        let b = [0.0, 0.2, 0.4, 0.6];
        let m = Margin::paired(&a, &b).unwrap();
        assert!((m.mean - 0.2).abs() < 1e-12 && (m.low - 0.2).abs() < 1e-12);
        // Ahead on one item of twenty: a lead, but an interval that reaches 0.
        let ours: Vec<f64> = (0..20).map(|i| if i == 0 { 1.0 } else { 0.5 }).collect();
        let base = vec![0.5; 20];
        let m = Margin::paired(&ours, &base).unwrap();
        assert!(m.mean > 0.0 && m.low <= 0.0 && m.high > m.mean, "{m:?}");
        // Reproducible to the digit; nothing to pair gives nothing.
        assert_eq!(Margin::paired(&ours, &base), Some(m));
        assert_eq!(Margin::paired(&[], &[]), None);
        assert_eq!(Margin::paired(&a, &b[..3]), None);
    }
}
