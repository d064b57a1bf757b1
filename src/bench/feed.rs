//! The feed against its peers' rankings, on a time split of one list.
//!
//! A simulated reader's library is the papers of one or two of the list's sections published
//! before a date (the list's median date: arXiv ids give the month, else the year); the
//! candidates are every paper after it; the relevant ones are those of the reader's sections.
//! Baselines in the same run: newest first; the mean cosine to the library
//! (zotero-arxiv-daily's ranking); a TF-IDF linear SVM trained with the library as positives
//! and the rest as negatives (arxiv-sanity's); and one mean profile of the whole library (what
//! several interests replace); and ours on its dense signal alone (what the lexical side adds).
//! Ratings: the reader rates up the first five relevant and down the first five other papers of
//! the unrated feed, and every learner (none, Rocchio, linear, seeds, nearest rated neighbours)
//! is measured again on the candidates left.

use serde::Serialize;

use super::judged::Margin;
use super::tfidf::Tfidf;
use crate::corpus::Paper;
use crate::feed::{Feedback, Interest, Learner, Library, lexical_similarities, rank, rank_with};
use crate::index::{LexicalData, Searcher};
use crate::util::vector::dot;

/// Results a reader looks at.
pub const AT: usize = 10;
/// Ratings of each kind the rated figures give.
pub const RATINGS: usize = 5;
/// Fewest library papers (before the split) and relevant candidates (after) a reader needs.
const MIN_LIBRARY: usize = 3;
const MIN_RELEVANT: usize = 2;

/// One system's figures over the readers.
#[derive(Debug, Clone, Serialize)]
pub struct FeedSystem {
    pub name: String,
    pub precision_at_10: f64,
    pub ndcg_at_10: f64,
    /// Ours (the first row) minus this row, precision@10, paired over readers.
    pub margin: Option<Margin>,
    /// precision@10 of each reader, in reader order (the same order in every row): what pools
    /// the paired margin over several lists.
    pub per_reader: Vec<f64>,
}

/// The time-split figures of one list.
#[derive(Debug, Clone, Serialize)]
pub struct FeedReport {
    /// The split, as `YYYY-MM`.
    pub split: String,
    pub readers: usize,
    pub candidates: usize,
    pub library_mean: f64,
    /// Ours first, then the baselines.
    pub systems: Vec<FeedSystem>,
    /// After five up and five down ratings, on the candidates left: no ratings first.
    pub rated: Vec<FeedSystem>,
}

/// A paper's month (`year * 12 + month - 1`): from its arXiv id, else mid-year.
fn month(p: &Paper) -> Option<u32> {
    if let Some(a) = p.arxiv.as_deref()
        && a.len() >= 4
        && a.as_bytes()[..4].iter().all(u8::is_ascii_digit)
    {
        let yy: u32 = a[..2].parse().ok()?;
        let mm: u32 = a[2..4].parse().ok()?;
        if (1..=12).contains(&mm) {
            return Some((2000 + yy) * 12 + mm - 1);
        }
    }
    p.year.map(|y| u32::from(y) * 12 + 6)
}

/// precision@10 and nDCG@10 of `ranked` (candidate positions) against `relevant`.
fn figures(ranked: &[usize], relevant: &dyn Fn(usize) -> bool) -> (f64, f64) {
    let top = &ranked[..ranked.len().min(AT)];
    let hits = top.iter().filter(|&&c| relevant(c)).count();
    let dcg: f64 = top
        .iter()
        .enumerate()
        .filter(|(_, c)| relevant(**c))
        .map(|(i, _)| 1.0 / ((i + 2) as f64).log2())
        .sum();
    let ideal_n = ranked.iter().filter(|&&c| relevant(c)).count().min(AT);
    let ideal: f64 = (0..ideal_n).map(|i| 1.0 / ((i + 2) as f64).log2()).sum();
    (
        hits as f64 / AT as f64,
        if ideal > 0.0 { dcg / ideal } else { 0.0 },
    )
}

/// A linear SVM (hinge loss, L2, class-balanced) by Pegasos over sparse rows; the weights.
fn linear_svm(rows: &[&[(usize, f32)]], labels: &[bool], dim: usize) -> Vec<f32> {
    let n = rows.len();
    let positives = labels.iter().filter(|&&l| l).count().max(1) as f32;
    let negatives = (n as f32 - positives).max(1.0);
    // arxiv-sanity's C = 0.01 over scikit-learn's liblinear, as lambda = 1 / (C n).
    let lambda = 1.0 / (0.01 * n as f32);
    let mut w = vec![0.0f32; dim];
    let mut scale = 1.0f32;
    let mut rng = crate::util::rng::SplitMix64(0xfeed);
    let steps = 20 * n;
    for t in 1..=steps {
        let i = rng.below(n);
        let eta = 1.0 / (lambda * t as f32);
        let y = if labels[i] { 1.0 } else { -1.0 };
        let weight = if labels[i] {
            n as f32 / (2.0 * positives)
        } else {
            n as f32 / (2.0 * negatives)
        };
        let margin = y * scale * rows[i].iter().map(|&(j, x)| w[j] * x).sum::<f32>();
        scale *= 1.0 - eta * lambda;
        if scale < 1e-6 {
            w.iter_mut().for_each(|x| *x *= scale);
            scale = 1.0;
        }
        if margin < 1.0 {
            for &(j, x) in rows[i] {
                w[j] += eta * weight * y * x / scale;
            }
        }
    }
    w.iter().map(|x| x * scale).collect()
}

/// Positions of `scores` sorted best first, ties by position.
fn order(scores: &[(usize, f32)]) -> Vec<usize> {
    let mut s = scores.to_vec();
    s.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    s.into_iter().map(|(i, _)| i).collect()
}

/// The time-split figures, or `None` when the list has too few dated sections for one reader.
pub fn report(index: &Searcher) -> Option<FeedReport> {
    let papers = index.papers();
    let months: Vec<Option<u32>> = papers.iter().map(month).collect();
    let mut dated: Vec<u32> = months.iter().flatten().copied().collect();
    if dated.len() < 10 {
        return None;
    }
    dated.sort_unstable();
    let split = dated[dated.len() / 2];
    let before = |i: usize| months[i].is_some_and(|m| m < split);
    let after = |i: usize| months[i].is_some_and(|m| m >= split);
    let candidates: Vec<usize> = (0..papers.len()).filter(|&i| after(i)).collect();
    // Sections in order of first appearance.
    let mut sections: Vec<&str> = Vec::new();
    for p in papers {
        let t = p.topic.trim();
        if !t.is_empty() && !sections.contains(&t) {
            sections.push(t);
        }
    }
    let in_section = |i: usize, s: &[&str]| s.contains(&papers[i].topic.trim());
    let usable: Vec<&str> = sections
        .iter()
        .copied()
        .filter(|s| {
            let lib = (0..papers.len())
                .filter(|&i| before(i) && in_section(i, &[s]))
                .count();
            let rel = candidates.iter().filter(|&&c| in_section(c, &[s])).count();
            lib >= MIN_LIBRARY && rel >= MIN_RELEVANT
        })
        .collect();
    let mut readers: Vec<Vec<&str>> = usable.iter().map(|s| vec![*s]).collect();
    readers.extend(usable.windows(2).map(<[&str]>::to_vec));
    if readers.is_empty() {
        return None;
    }

    let dim = index.dim();
    let mut centroid = vec![0.0f32; dim];
    for i in 0..papers.len() {
        for (c, x) in centroid.iter_mut().zip(index.vector(i).iter()) {
            *c += x / papers.len() as f32;
        }
    }
    let vector = |i: usize| index.vector(i).to_vec();
    let tfidf = Tfidf::fit_papers(papers);
    // The lexical side as `recommend feed` computes it: the candidates through the lexical index
    // of a library that never saw them, here the list before the split (a reader's one or two
    // sections, 5 to 17 papers on average, are too few to weigh a field's words by).
    let earlier: Vec<usize> = (0..papers.len()).filter(|&i| before(i)).collect();
    let earlier_papers: Vec<Paper> = earlier.iter().map(|&i| papers[i].clone()).collect();
    let candidate_papers: Vec<&Paper> = candidates.iter().map(|&c| &papers[c]).collect();
    let earlier_lexical = LexicalData::build(&earlier_papers);
    let lex_earlier = lexical_similarities(earlier_lexical.view(), &candidate_papers);

    // The index a reader's library is part of (the list before the split, its sections as
    // interests), whose papers set the feed's scales as `recommend feed` reads them from the
    // whole `index.bin`.
    let whole = {
        let vectors: Vec<Vec<f32>> = earlier.iter().map(|&i| vector(i)).collect();
        let refs: Vec<&[f32]> = vectors.iter().map(Vec::as_slice).collect();
        let mut interests: Vec<Interest> = Vec::new();
        for (k, &i) in earlier.iter().enumerate() {
            let name = papers[i].topic.trim();
            match interests.iter_mut().find(|x| x.name == name) {
                Some(x) => x.members.push(k),
                None => interests.push(Interest {
                    name: name.to_string(),
                    members: vec![k],
                }),
            }
        }
        let whole = Library::new(&refs, &centroid, interests);
        let sample: Vec<&Paper> = whole
            .calibration_papers()
            .iter()
            .map(|&k| &earlier_papers[k])
            .collect();
        let own = lexical_similarities(earlier_lexical.view(), &sample);
        std::sync::Arc::new(whole.with_lexical(own))
    };

    let names = [
        "ours (several interests)",
        "newest first",
        "mean cosine to the library (zotero-arxiv-daily)",
        "TF-IDF linear SVM (arxiv-sanity)",
        "one mean profile",
        "ours, dense signal only",
    ];
    let rated_names = [
        "ours, no ratings",
        "ours + Rocchio profile",
        "ours + linear model",
        "ours + seeds (up joins its interest, down as --unlike)",
        "ours + nearest rated neighbours",
    ];
    let mut figs: Vec<Vec<(f64, f64)>> = vec![Vec::new(); names.len()];
    let mut rated: Vec<Vec<(f64, f64)>> = vec![Vec::new(); rated_names.len()];
    let mut library_sizes = Vec::new();
    for reader in &readers {
        let library: Vec<usize> = (0..papers.len())
            .filter(|&i| before(i) && in_section(i, reader))
            .collect();
        library_sizes.push(library.len() as f64);
        let relevant = |c: usize| in_section(candidates[c], reader);
        let vectors: Vec<Vec<f32>> = library.iter().map(|&i| vector(i)).collect();
        let refs: Vec<&[f32]> = vectors.iter().map(Vec::as_slice).collect();
        let interests: Vec<Interest> = reader
            .iter()
            .map(|s| Interest {
                name: s.to_string(),
                members: (0..library.len())
                    .filter(|&k| in_section(library[k], &[s]))
                    .collect(),
            })
            .collect();
        let lib = Library::new(&refs, &centroid, interests);
        let lib = lib.within(whole.clone());
        let cands: Vec<Vec<f32>> = candidates.iter().map(|&c| lib.center(&vector(c))).collect();
        let columns: Vec<usize> = library
            .iter()
            .filter_map(|i| earlier.binary_search(i).ok())
            .collect();
        let lex_all = lex_earlier.select(ndarray::Axis(1), &columns);
        let ours = rank_with(
            &lib,
            &cands,
            Some(&lex_all),
            &Feedback::default(),
            Learner::None,
        );
        let dense_only: Vec<usize> = rank(&lib, &cands, &Feedback::default(), Learner::None)
            .iter()
            .map(|s| s.candidate)
            .collect();
        let ours_order: Vec<usize> = ours.iter().map(|s| s.candidate).collect();
        let newest = order(
            &(0..candidates.len())
                .map(|c| (c, months[candidates[c]].unwrap_or(0) as f32))
                .collect::<Vec<_>>(),
        );
        let mean_cos = order(
            &(0..candidates.len())
                .map(|c| {
                    let v = vector(candidates[c]);
                    let s: f32 = vectors.iter().map(|l| dot(l, &v)).sum();
                    (c, s / vectors.len() as f32)
                })
                .collect::<Vec<_>>(),
        );
        let svm = {
            let mut rows: Vec<&[(usize, f32)]> = Vec::new();
            let mut labels = Vec::new();
            for &i in &library {
                rows.push(&tfidf.rows()[i]);
                labels.push(true);
            }
            for &c in &candidates {
                rows.push(&tfidf.rows()[c]);
                labels.push(false);
            }
            let w = linear_svm(&rows, &labels, tfidf.dim());
            order(
                &(0..candidates.len())
                    .map(|c| {
                        let row = &tfidf.rows()[candidates[c]];
                        (c, row.iter().map(|&(j, x)| w[j] * x).sum::<f32>())
                    })
                    .collect::<Vec<_>>(),
            )
        };
        let profile = {
            let all = vec![Interest {
                name: "all".into(),
                members: (0..library.len()).collect(),
            }];
            let one = Library::new(&refs, &centroid, all);
            let mut mean = vec![0.0f32; dim];
            for v in &refs {
                let c = one.center(v);
                mean.iter_mut().zip(&c).for_each(|(m, x)| *m += x);
            }
            order(
                &cands
                    .iter()
                    .enumerate()
                    .map(|(c, v)| (c, dot(&mean, v)))
                    .collect::<Vec<_>>(),
            )
        };
        for (k, ranked) in [&ours_order, &newest, &mean_cos, &svm, &profile, &dense_only]
            .into_iter()
            .enumerate()
        {
            figs[k].push(figures(ranked, &relevant));
        }

        // Ratings from the unrated feed, then every ranking again on the candidates left.
        let ups: Vec<usize> = ours_order
            .iter()
            .copied()
            .filter(|&c| relevant(c))
            .take(RATINGS)
            .collect();
        let downs: Vec<usize> = ours_order
            .iter()
            .copied()
            .filter(|&c| !relevant(c))
            .take(RATINGS)
            .collect();
        let feedback = Feedback {
            up: ups.iter().map(|&c| cands[c].clone()).collect(),
            down: downs.iter().map(|&c| cands[c].clone()).collect(),
            // The bench rates candidates, never library papers.
            dropped: Vec::new(),
        };
        let left: Vec<usize> = (0..candidates.len())
            .filter(|c| !ups.contains(c) && !downs.contains(c))
            .collect();
        let left_vectors: Vec<Vec<f32>> = left.iter().map(|&c| cands[c].clone()).collect();
        let left_relevant = |k: usize| relevant(left[k]);
        let left_lex = lex_all.select(ndarray::Axis(0), &left);
        for (k, learner) in [
            Learner::None,
            Learner::Rocchio,
            Learner::Linear,
            Learner::Seeds,
            Learner::Neighbours,
        ]
        .into_iter()
        .enumerate()
        {
            let r: Vec<usize> = rank_with(&lib, &left_vectors, Some(&left_lex), &feedback, learner)
                .iter()
                .map(|s| s.candidate)
                .collect();
            rated[k].push(figures(&r, &left_relevant));
        }
    }
    let summarize = |names: &[&str], figs: &[Vec<(f64, f64)>]| -> Vec<FeedSystem> {
        let ours: Vec<f64> = figs[0].iter().map(|f| f.0).collect();
        names
            .iter()
            .zip(figs)
            .enumerate()
            .map(|(k, (name, f))| {
                let p: Vec<f64> = f.iter().map(|x| x.0).collect();
                FeedSystem {
                    name: name.to_string(),
                    precision_at_10: mean(&p),
                    ndcg_at_10: mean(&f.iter().map(|x| x.1).collect::<Vec<_>>()),
                    margin: (k > 0).then(|| Margin::paired(&ours, &p)).flatten(),
                    per_reader: p.clone(),
                }
            })
            .collect()
    };
    Some(FeedReport {
        split: format!("{}-{:02}", split / 12, split % 12 + 1),
        readers: readers.len(),
        candidates: candidates.len(),
        library_mean: mean(&library_sizes),
        systems: summarize(&names, &figs),
        rated: summarize(&rated_names, &rated),
    })
}

fn mean(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        0.0
    } else {
        xs.iter().sum::<f64>() / xs.len() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precision_and_ndcg_count_the_top_ten() {
        let ranked: Vec<usize> = (0..20).collect();
        let (p, n) = figures(&ranked, &|c| c < 10);
        assert_eq!((p, n), (1.0, 1.0));
        let (p, n) = figures(&ranked, &|c| c >= 10);
        assert_eq!((p, n), (0.0, 0.0));
        let (p, _) = figures(&ranked, &|c| c % 2 == 0);
        assert_eq!(p, 0.5);
    }

    #[test]
    fn the_svm_separates_what_it_was_trained_on() {
        let rows: Vec<Vec<(usize, f32)>> = vec![
            vec![(0, 1.0)],
            vec![(0, 0.9), (1, 0.1)],
            vec![(1, 1.0)],
            vec![(1, 0.9), (2, 0.1)],
            vec![(2, 1.0)],
        ];
        let refs: Vec<&[(usize, f32)]> = rows.iter().map(Vec::as_slice).collect();
        let w = linear_svm(&refs, &[true, true, false, false, false], 3);
        assert!(w[0] > 0.0 && w[1] < w[0] && w[2] < w[0], "{w:?}");
    }
}
