//! Token alignment: how much of one paper's text finds a close counterpart, token by token,
//! in another's, and the other way round; a `--like` signal for lists of titles and
//! abstracts.
//!
//! The pooled e5 vector of a whole abstract averages its specific words into the field's
//! common ground: on the shipped list as titles and abstracts its cosine alone puts 0.44 of
//! the top 5 among the judged related papers. The model's last layer still holds each token
//! in its context, so two abstracts can be compared the way late-interaction retrievers
//! (ColBERT) compare a query with a passage: every token of one finds its most similar token of
//! the other. Here each token's vector is centred on the list's mean token and normalized,
//! a match counts only above [`MATCH_FLOOR`] (what remains is the same word, an inflection, a
//! translation or a close paraphrase, not the field's shared ground), and each token weighs by
//! its rarity in the list (`ln((n+1)/(df+1))` over token ids, which gives the "passage:" prefix
//! and words in every abstract nothing). The score of a pair is the mean of both directions.
//! Alone it reaches 0.65 related@5 on that form (lexical TF-IDF 0.65, the pooled cosine 0.44),
//! and it adds to them (BENCHMARKS.md, stop 30).
//!
//! It needs every pair's token states, so it is measured once per build (the caller runs the
//! model; the engine never loads it) and stored as an `n x n` section of `index.bin`; only on
//! lists it helps: without curated evidence (tags and `builds_on` carry what it adds; on the
//! shipped list it lowered every figure), whose papers are described (a one-line note or a
//! bare title has too few tokens to align: every such list measured lost), and of at most
//! [`MAX_PAPERS`] papers (the cost grows with the square of the list).

use rayon::prelude::*;

use crate::index::{Index, IndexError};
use crate::model::TokenStates;

/// A token match counts only above this cosine (between centred token vectors). Chosen on the
/// shipped list as titles and abstracts alone (0.5: related@5 0.698 against 0.666 with every
/// match counted); 0.4 and 0.6 gave the same picture on the lists with abstracts.
pub const MATCH_FLOOR: f32 = 0.5;

/// Lists above this many papers get no alignment section: at about 15 million multiply-adds a
/// pair, 500 papers take about a minute of a build on 2 cores.
pub const MAX_PAPERS: usize = 500;

/// Whether `index` is a list token alignment is measured for: no curated evidence, described
/// papers ([`super::reference::MIN_DESCRIPTION_WORDS`]), 3 to [`MAX_PAPERS`] papers.
pub fn applies(index: &Index) -> bool {
    (3..=MAX_PAPERS).contains(&index.len())
        && !index.has_curated_evidence()
        && super::reference::described(index, &(0..index.len()).collect::<Vec<_>>())
}

/// Every pair's alignment score, row after row (`n x n`, symmetric, zero on the diagonal), from
/// each paper's token states in index order (consumed: they are centred and normalized in
/// place, so a build holds them once). Deterministic: the same states give the same bits.
pub fn scores(mut states: Vec<TokenStates>) -> Vec<f32> {
    let n = states.len();
    let dim = crate::model::DIM;
    let mut df: std::collections::HashMap<u32, usize> = std::collections::HashMap::new();
    for s in &states {
        let mut ids = s.ids.clone();
        ids.sort_unstable();
        ids.dedup();
        for t in ids {
            *df.entry(t).or_default() += 1;
        }
    }
    let idf = |t: u32| (((n + 1) as f32) / ((df[&t] + 1) as f32)).ln();
    // The list's mean token: what every token shares with every other (the field, the prefix).
    let mut mean = vec![0.0f64; dim];
    let mut count = 0usize;
    for s in &states {
        for row in s.states.chunks_exact(dim) {
            for (m, &x) in mean.iter_mut().zip(row) {
                *m += f64::from(x);
            }
            count += 1;
        }
    }
    let mean: Vec<f32> = mean
        .iter()
        .map(|&m| (m / count.max(1) as f64) as f32)
        .collect();
    for s in &mut states {
        let rows = s.states.len() / dim;
        s.states.truncate(rows * dim);
        s.ids.truncate(rows);
        for row in s.states.chunks_exact_mut(dim) {
            let mut norm = 0.0f32;
            for (x, &c) in row.iter_mut().zip(&mean) {
                *x -= c;
                norm += *x * *x;
            }
            let norm = norm.sqrt().max(1e-12);
            row.iter_mut().for_each(|x| *x /= norm);
        }
    }
    let docs: Vec<(ndarray::ArrayView2<'_, f32>, Vec<f32>, f32)> = states
        .iter()
        .map(|s| {
            let m = ndarray::ArrayView2::from_shape((s.ids.len(), dim), &s.states)
                .expect("rows of DIM values");
            let w: Vec<f32> = s.ids.iter().map(|&t| idf(t)).collect();
            let total = w.iter().sum::<f32>();
            (m, w, total)
        })
        .collect();
    // Half of a pair's score: `a`'s tokens' best matches above the floor, weighted, over all
    // of `a`'s weight.
    let half = |best: &[f32], w: &[f32], total: f32| -> f32 {
        if total <= 0.0 {
            return 0.0;
        }
        best.iter()
            .zip(w)
            .filter(|(b, _)| **b > MATCH_FLOOR)
            .map(|(b, w)| b * w)
            .sum::<f32>()
            / total
    };
    let upper: Vec<Vec<f32>> = (0..n)
        .into_par_iter()
        .map(|a| {
            let (ma, wa, ta) = &docs[a];
            (a + 1..n)
                .map(|b| {
                    let (mb, wb, tb) = &docs[b];
                    if ma.nrows() == 0 || mb.nrows() == 0 {
                        return 0.0;
                    }
                    let sim = ma.dot(&mb.t());
                    let best_a: Vec<f32> = sim
                        .rows()
                        .into_iter()
                        .map(|r| r.fold(f32::MIN, |x, &y| x.max(y)))
                        .collect();
                    let best_b: Vec<f32> = sim
                        .columns()
                        .into_iter()
                        .map(|c| c.fold(f32::MIN, |x, &y| x.max(y)))
                        .collect();
                    0.5 * (half(&best_a, wa, *ta) + half(&best_b, wb, *tb))
                })
                .collect()
        })
        .collect();
    let mut out = vec![0.0f32; n * n];
    for (a, row) in upper.iter().enumerate() {
        for (k, &v) in row.iter().enumerate() {
            let b = a + 1 + k;
            out[a * n + b] = v;
            out[b * n + a] = v;
        }
    }
    out
}

/// Turns passages into token states, or fails with `E`.
pub type TokenEmbedder<'a, E> = dyn FnMut(&[&str]) -> Result<Vec<TokenStates>, E> + 'a;

/// `index` with its alignment scores measured and stored when it [`applies`]; `embed` gives the
/// token states of the papers' passages (`index::passage_text`, embedded as passages). Every
/// build that users query goes through this, before [`super::calibrated`] (link strengths are
/// measured on the ranking this signal is part of).
pub fn with_alignment<E: From<IndexError>>(
    index: Index,
    embed: &mut TokenEmbedder<'_, E>,
) -> Result<Index, E> {
    if !applies(&index) {
        return Ok(index);
    }
    let texts: Vec<String> = index
        .papers()
        .iter()
        .map(crate::index::passage_text)
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let states = embed(&refs)?;
    if states.len() != index.len() {
        return Err(IndexError::Embedding {
            got: states.len(),
            dim: crate::model::DIM,
            expected: index.len(),
        }
        .into());
    }
    Ok(index.with_alignment(&scores(states))?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::DIM;

    /// A text of tokens whose states are unit vectors along the given axes (one token per id).
    fn text(tokens: &[(u32, usize)]) -> TokenStates {
        let mut states = Vec::new();
        for &(_, axis) in tokens {
            let mut v = vec![0.0f32; DIM];
            v[axis] = 1.0;
            states.extend(v);
        }
        TokenStates {
            ids: tokens.iter().map(|&(id, _)| id).collect(),
            states,
        }
    }

    #[test]
    fn shared_rare_tokens_align_and_the_scores_are_symmetric() {
        // Token 0 is in every text (the prefix): it weighs nothing. Texts 0 and 1 share the
        // rare token 7; text 2 shares nothing with them.
        let states = vec![
            text(&[(0, 0), (7, 7), (8, 8)]),
            text(&[(0, 0), (7, 7), (9, 9)]),
            text(&[(0, 0), (5, 5), (6, 6)]),
            text(&[(0, 0), (3, 3), (4, 4)]),
        ];
        let n = states.len();
        let s = scores(states.clone());
        for a in 0..n {
            assert_eq!(s[a * n + a], 0.0);
            for b in 0..n {
                assert_eq!(s[a * n + b], s[b * n + a]);
                assert!(s[a * n + b].is_finite() && (0.0..=1.0).contains(&s[a * n + b]));
            }
        }
        assert!(s[1] > 0.3, "{}", s[1]);
        assert!(s[2] < 0.05 && s[3] < 0.05, "{:?}", &s[..n]);
        assert_eq!(scores(states), s, "deterministic");
    }

    #[test]
    fn empty_texts_align_with_nothing() {
        let states = vec![
            TokenStates {
                ids: vec![],
                states: vec![],
            },
            text(&[(1, 1)]),
            text(&[(1, 1)]),
        ];
        let s = scores(states);
        assert_eq!(&s[..3], &[0.0, 0.0, 0.0]);
    }
}
