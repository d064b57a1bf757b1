//! Retrieval quality against the corpus's own topic labels.

use serde::Serialize;

use crate::engine::{Filters, Mode, related};
use crate::index::Searcher;

/// Related-work quality of one ranking.
#[derive(Debug, Clone, Serialize)]
pub struct RelatedQuality {
    pub mode: String,
    /// Share of the top-5 results that share the seed paper's topic, averaged over seeds.
    pub precision_at_5: f64,
    /// Mean reciprocal rank of the first same-topic result.
    pub mrr: f64,
    /// Seeds evaluated: papers whose topic has at least one other paper.
    pub seeds: usize,
}

/// Evaluate `--like` for every paper whose topic has another member.
pub fn related_quality(index: &Searcher, mode: Mode) -> RelatedQuality {
    related_quality_with(index, mode.as_str(), &|seed| {
        related(index, &[seed], &[], 10, mode, &Filters::default())
            .into_iter()
            .map(|h| h.paper)
            .collect()
    })
}

/// Evaluate any ranking function `rank(seed) -> papers, best first` the same way.
pub fn related_quality_with(
    index: &Searcher,
    name: &str,
    rank: &dyn Fn(usize) -> Vec<usize>,
) -> RelatedQuality {
    let papers = index.papers();
    let mut p5 = 0.0;
    let mut rr = 0.0;
    let mut seeds = 0;
    for (s, p) in papers.iter().enumerate() {
        if p.topic.is_empty()
            || !papers
                .iter()
                .enumerate()
                .any(|(j, q)| j != s && q.topic == p.topic)
        {
            continue;
        }
        seeds += 1;
        let ranked = rank(s);
        let same: Vec<bool> = ranked.iter().map(|&j| papers[j].topic == p.topic).collect();
        p5 += same.iter().take(5).filter(|&&x| x).count() as f64 / 5.0;
        if let Some(r) = same.iter().position(|&x| x) {
            rr += 1.0 / (r + 1) as f64;
        }
    }
    let n = seeds.max(1) as f64;
    RelatedQuality {
        mode: name.to_string(),
        precision_at_5: p5 / n,
        mrr: rr / n,
        seeds,
    }
}
