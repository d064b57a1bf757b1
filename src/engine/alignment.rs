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
//! and it adds to them (fused: docs/experiments.md, "Related work: token alignment").
//!
//! It needs every pair's token states, so it is measured once per build (the caller runs the
//! model; the engine never loads it) and stored as an `n x n` section of `index.bin`; only on
//! lists it helps: without curated evidence (tags and `builds_on` carry what it adds; on the
//! shipped list it lowered every figure), whose papers are described (a one-line note or a
//! bare title has too few tokens to align: every such list measured lost). Every pair up to
//! [`MAX_PAPERS`] papers; above, each paper's candidate pool ([`candidate_pools`]), up to
//! [`ALIGN_MAX_PAPERS`] (the build holds every paper's token states).
//!
//! Search matches tokens the same way, from the query's side ([`query_match`]): each token of
//! the query (its state from the run of the model that gives the query's vector) finds its
//! best token among a paper's, weighed by its rarity in the list. That needs the passages'
//! token states at query time: every described list of at most [`ALIGN_MAX_PAPERS`] papers,
//! curated or not, stores them ([`passage_tokens`]: f16, without the tokens common to a fifth
//! of the list, projected on the list's [`SEARCH_TOKEN_WIDTH`] principal directions), about
//! 0.03 MB a paper, capped at [`SEARCH_TOKENS_PER_PAPER`] tokens (16 KB) above [`MAX_PAPERS`]. Chinese queries gain most: the multilingual token states meet English abstracts
//! across languages (docs/experiments.md, "Search: token matching").

use rayon::prelude::*;

use std::collections::HashMap;

use half::slice::{HalfBitsSliceExt, HalfFloatSliceExt};

use crate::corpus::Paper;
use crate::index::{
    AlignmentData, Index, IndexError, PooledScoresData, SearchTokenData, SearchTokens, Searcher,
};
use crate::model::TokenStates;

/// A token match counts only above this cosine (between centred token vectors). Chosen on the
/// shipped list as titles and abstracts alone (0.5: related@5 0.698 against 0.666 with every
/// match counted); 0.4 and 0.6 gave the same picture on the lists with abstracts.
pub const MATCH_FLOOR: f32 = 0.5;

/// Lists up to this many papers get every pair aligned; larger ones each paper's candidate
/// pool ([`candidate_pools`]): at about 15 million multiply-adds a pair, 500 papers take about a
/// minute of a build on 2 cores, and every pair grows with the square of the list. Search
/// stores every token's state up to this size, its rarest above ([`passage_tokens`]).
pub const MAX_PAPERS: usize = 500;

/// Lists above this many papers get no alignment: a build holds every paper's token states at
/// once, about 0.3 MB a described paper (the 5,000-paper run peaked at 2.0 GB,
/// `bench/runs/2026-12-06-5000-described/`), so 20,000 papers take some 6 GB and the
/// states of a larger list would not fit the memory of the machines it is built on.
pub const ALIGN_MAX_PAPERS: usize = 20_000;

/// Whether `index` is a list token alignment is measured for: no curated evidence, described
/// papers ([`super::reference::MIN_DESCRIPTION_WORDS`]), 3 to [`ALIGN_MAX_PAPERS`] papers;
/// every pair up to [`MAX_PAPERS`], each paper's candidate pool above.
pub fn applies(index: &Searcher) -> bool {
    !index.has_curated_evidence()
        && (3..=ALIGN_MAX_PAPERS).contains(&index.len())
        && super::reference::described(index, &(0..index.len()).collect::<Vec<_>>())
}

/// `ln((n+1)/(df+1))`: how rare a token in `df` of a list's `n` papers is (0 in every paper).
fn rarity(n: usize, df: usize) -> f32 {
    (((n + 1) as f32) / ((df + 1) as f32)).ln()
}

/// Every pair's alignment score, row after row (`n x n`, symmetric, zero on the diagonal), from
/// each paper's token states in index order (consumed: they are centred and normalized in
/// place, so a build holds them once). Deterministic: the same states give the same bits.
pub fn scores(states: Vec<TokenStates>) -> Vec<f32> {
    let n = states.len();
    let aligner = Aligner::new(states);
    let upper: Vec<Vec<f32>> = (0..n)
        .into_par_iter()
        .map(|a| (a + 1..n).map(|b| aligner.pair(a, b)).collect())
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

/// The alignment scores of the pairs `pools` names (`pools[a]`: the papers paper `a` is
/// compared with, its candidate pool; a pair named from either side is scored once and stored
/// in both rows), from the token states as [`scores`] takes them. The same pair gets the same
/// bits as in [`scores`].
pub fn pooled_scores(states: Vec<TokenStates>, pools: &[Vec<usize>]) -> PooledScoresData {
    let n = states.len();
    let mut rows: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (a, pool) in pools.iter().enumerate().take(n) {
        for &b in pool.iter().filter(|&&b| b != a && b < n) {
            rows[a].push(b);
            rows[b].push(a);
        }
    }
    for r in &mut rows {
        r.sort_unstable();
        r.dedup();
    }
    let aligner = Aligner::new(states);
    // Each pair once, from its lower paper's row; the upper one reads it back.
    let lower: Vec<Vec<f32>> = rows
        .par_iter()
        .enumerate()
        .map(|(a, r)| {
            r.iter()
                .filter(|&&b| b > a)
                .map(|&b| aligner.pair(a, b))
                .collect()
        })
        .collect();
    let mut out = PooledScoresData {
        offsets: vec![0],
        ..PooledScoresData::default()
    };
    for (a, r) in rows.iter().enumerate() {
        let mut mine = lower[a].iter();
        for &b in r {
            let v = if b > a {
                *mine.next().expect("one score per upper partner")
            } else {
                let k = rows[b]
                    .iter()
                    .filter(|&&x| x > b)
                    .position(|&x| x == a)
                    .expect("pairs are symmetric");
                lower[b][k]
            };
            out.partners.push(b as u32);
            out.values.push(v);
        }
        out.offsets.push(out.partners.len() as u32);
    }
    out
}

/// Papers each paper is aligned with on a list above [`MAX_PAPERS`]: its [`POOL`] closest by
/// the centred passage cosine and its [`POOL`] closest by TF-IDF, where `--like`'s top results
/// come from. Measured by aligning the judged lists with abstracts (84-141 papers) over pools
/// of 15 + 15 instead of every pair: related@5 moved by -0.008 to +0.018, inside every list's
/// interval (`bench/runs/2026-12-06-pooled-alignment/`).
pub fn candidate_pools(index: &Searcher) -> Vec<Vec<usize>> {
    (0..index.len())
        .into_par_iter()
        .map(|a| {
            let dense = index.similarities(&index.vector(a).to_vec());
            let centred = index.centroid().center(a, &dense);
            let lexical = index.lexical().similar_to(a);
            let mut pool = Vec::with_capacity(2 * POOL);
            // Every paper has a dense cosine; only those sharing a term have a TF-IDF one.
            for (values, floor) in [(&centred, f32::NEG_INFINITY), (&lexical, 0.0)] {
                let scored: Vec<(usize, f32)> = values
                    .iter()
                    .copied()
                    .enumerate()
                    .filter(|&(i, v)| i != a && v > floor)
                    .collect();
                pool.extend(
                    crate::index::ann::top_hits(scored, POOL)
                        .into_iter()
                        .map(|(i, _)| i),
                );
            }
            pool.sort_unstable();
            pool.dedup();
            pool
        })
        .collect()
}

/// Candidates per signal a paper of a large list is aligned with ([`candidate_pools`]): about
/// 100 partners a paper, so a 5,000-paper list costs what every pair of ~700 papers does.
pub const POOL: usize = 50;

/// The token states of a list, centred on its mean token and normalized, with each token's
/// rarity: what a pair's score is computed from.
struct Aligner {
    docs: Vec<(ndarray::Array2<f32>, Vec<f32>, f32)>,
}

impl Aligner {
    fn new(mut states: Vec<TokenStates>) -> Aligner {
        let n = states.len();
        let dim = crate::model::DIM;
        let df = document_frequencies(&states);
        let idf = |t: u32| rarity(n, df[&t]);
        let mean = mean_token(&states);
        for s in &mut states {
            let rows = s.states.len() / dim;
            s.states.truncate(rows * dim);
            s.ids.truncate(rows);
            for row in s.states.chunks_exact_mut(dim) {
                centre(row, &mean);
            }
        }
        let docs = states
            .into_iter()
            .map(|s| {
                let w: Vec<f32> = s.ids.iter().map(|&t| idf(t)).collect();
                let total = w.iter().sum::<f32>();
                let m = ndarray::Array2::from_shape_vec((s.ids.len(), dim), s.states)
                    .expect("rows of DIM values");
                (m, w, total)
            })
            .collect();
        Aligner { docs }
    }

    /// The score of papers `a` and `b`: the mean of both directions' weighted best matches.
    fn pair(&self, a: usize, b: usize) -> f32 {
        let (ma, wa, ta) = &self.docs[a];
        let (mb, wb, tb) = &self.docs[b];
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
        // Two texts with the same tokens score 1 up to rounding; the stored section holds [0, 1].
        (0.5 * (half(&best_a, wa, *ta) + half(&best_b, wb, *tb))).clamp(0.0, 1.0)
    }
}

/// Half of a pair's score: `a`'s tokens' best matches above the floor, weighted, over all of
/// `a`'s weight.
fn half(best: &[f32], w: &[f32], total: f32) -> f32 {
    if total <= 0.0 {
        return 0.0;
    }
    best.iter()
        .zip(w)
        .filter(|(b, _)| **b > MATCH_FLOOR)
        .map(|(b, w)| b * w)
        .sum::<f32>()
        / total
}

/// In how many of the texts each token id occurs.
fn document_frequencies(states: &[TokenStates]) -> HashMap<u32, usize> {
    let mut df: HashMap<u32, usize> = HashMap::new();
    for s in states {
        let mut ids = s.ids.clone();
        ids.sort_unstable();
        ids.dedup();
        for t in ids {
            *df.entry(t).or_default() += 1;
        }
    }
    df
}

/// The list's mean token: what every token shares with every other (the field, the prefix).
fn mean_token(states: &[TokenStates]) -> Vec<f32> {
    let dim = crate::model::DIM;
    let mut mean = vec![0.0f64; dim];
    let mut count = 0usize;
    for s in states {
        for row in s.states.chunks_exact(dim) {
            for (m, &x) in mean.iter_mut().zip(row) {
                *m += f64::from(x);
            }
            count += 1;
        }
    }
    mean.iter()
        .map(|&m| (m / count.max(1) as f64) as f32)
        .collect()
}

/// `row` centred on `mean` and normalized, in place.
fn centre(row: &mut [f32], mean: &[f32]) {
    let mut norm = 0.0f32;
    for (x, &c) in row.iter_mut().zip(mean) {
        *x -= c;
        norm += *x * *x;
    }
    let norm = norm.sqrt().max(1e-12);
    row.iter_mut().for_each(|x| *x /= norm);
}

/// Search keeps a passage's tokens that occur in at most this share of the list's papers: the
/// rest match every query alike. On the shipped list 15.7k of 28.6k tokens, with the same
/// judged search figures as all of them.
pub const SEARCH_MAX_DF: f32 = 0.2;

/// `k` orthonormal rows of [`crate::model::DIM`] values spanning the directions along which
/// `rows` (row after row) vary most: the top-`k` eigenvectors' span of their second-moment
/// matrix, found by subspace iteration (a fixed start and number of rounds, so the same rows
/// give the same bits on one machine). Any orthonormal basis of that span serves: projections
/// on it keep the same dot products.
pub fn principal_directions(rows: &[f32], k: usize) -> Vec<f32> {
    let dim = crate::model::DIM;
    let k = k.clamp(1, dim);
    let x =
        ndarray::ArrayView2::from_shape((rows.len() / dim, dim), &rows[..rows.len() / dim * dim])
            .expect("rows of DIM values")
            .mapv(f64::from);
    let moments = x.t().dot(&x);
    // A fixed pseudo-random start (no direction of it is orthogonal to the top span in
    // practice); 40 rounds leave the span's error far below f16's precision on real lists.
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut q = ndarray::Array2::<f64>::from_shape_fn((dim, k), |_| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    });
    for _ in 0..40 {
        q = moments.dot(&q);
        orthonormalize_columns(&mut q);
    }
    q.t().iter().map(|&v| v as f32).collect()
}

/// Modified Gram-Schmidt on the columns of `q`, in place (a column with nothing left after
/// the ones before it becomes zero).
fn orthonormalize_columns(q: &mut ndarray::Array2<f64>) {
    for j in 0..q.ncols() {
        for i in 0..j {
            let d = q.column(j).dot(&q.column(i));
            let before = q.column(i).to_owned();
            q.column_mut(j).scaled_add(-d, &before);
        }
        let norm = q.column(j).dot(&q.column(j)).sqrt();
        let scale = if norm > 1e-12 { 1.0 / norm } else { 0.0 };
        q.column_mut(j).mapv_inplace(|v| v * scale);
    }
}

/// `token` (a centred token) projected on `basis` (rows of DIM values) into `out`, normalized.
fn project(basis: &[f32], token: &[f32], out: &mut [f32]) {
    for (o, b) in out.iter_mut().zip(basis.chunks_exact(crate::model::DIM)) {
        *o = crate::util::vector::dot(b, token);
    }
    let norm = out.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
    out.iter_mut().for_each(|x| *x /= norm);
}

/// Whether a token in `df` of a list's `n` papers is one search stores and matches.
fn stored_df(df: usize, n: usize) -> bool {
    df as f32 <= SEARCH_MAX_DF * n as f32
}

/// Whether search gets token matching on `index`: described papers (abstracts, not one-line
/// notes: on the shipped list's titles + highlights form it lost English queries) and 3 to
/// [`ALIGN_MAX_PAPERS`] papers (a build holds every paper's token states; above
/// [`MAX_PAPERS`] the stored form is capped, [`passage_tokens`]).
pub fn search_applies(index: &Searcher) -> bool {
    (3..=ALIGN_MAX_PAPERS).contains(&index.len())
        && super::reference::described(index, &(0..index.len()).collect::<Vec<_>>())
}

/// [`search_applies`] for a list of these papers, before any index is built of them.
pub fn search_applies_to(papers: &[Paper]) -> bool {
    (3..=ALIGN_MAX_PAPERS).contains(&papers.len()) && super::reference::papers_described(papers)
}

/// Search stores a passage's tokens projected on the list's [`SEARCH_TOKEN_WIDTH`] principal
/// directions, not whole: a match reads every stored token of every candidate, so its time
/// (and the index's size) follows the width. Measured at 96, 128 and 192 against the whole
/// 384 (docs/experiments.md, "Search: token matching"): the judged search figures moved by
/// one or two queries either way on each list (128 kept the shipped list's English and mixed
/// figures), the matching took a third of the time and the shipped `index.bin` 4.9 MB instead
/// of 12.7 MB (BENCHMARKS.md, Speed and scale).
pub const SEARCH_TOKEN_WIDTH: usize = 128;

/// What `index.bin` stores for search from the passages' token states (index order): each
/// token centred on the list's mean token, projected on the principal directions of those
/// centred tokens ([`SEARCH_TOKEN_WIDTH`] of them, [`principal_directions`]) and normalized,
/// as f16, but for the tokens in more than [`SEARCH_MAX_DF`] of the papers; the list's token
/// ids with their document frequencies (a query's tokens weigh by their rarity in the list);
/// the mean token; the directions.
///
/// Above [`MAX_PAPERS`] papers each paper keeps only its [`SEARCH_TOKENS_PER_PAPER`] rarest
/// tokens and the directions come from an evenly spaced sample of [`MAX_PAPERS`] papers, so
/// that the index grows by about 16 KB a paper and the build never holds every token's centred
/// state (a 5,000-paper list of abstracts would hold some 2 GB of them).
pub fn passage_tokens(states: &[TokenStates]) -> SearchTokenData {
    let cap = (states.len() > MAX_PAPERS).then_some(SEARCH_TOKENS_PER_PAPER);
    passage_tokens_capped(states, cap)
}

/// [`passage_tokens`], each paper keeping at most `cap` tokens (its rarest in the list, in
/// text order) when `cap` is given.
pub fn passage_tokens_capped(states: &[TokenStates], cap: Option<usize>) -> SearchTokenData {
    let n = states.len();
    let dim = crate::model::DIM;
    let df = document_frequencies(states);
    let mean = mean_token(states);
    let mut out = SearchTokenData {
        offsets: vec![0],
        mean: mean.clone(),
        ..SearchTokenData::default()
    };
    let chosen: Vec<Vec<usize>> = states
        .iter()
        .map(|s| {
            let mut kept: Vec<usize> = (0..s.ids.len())
                .filter(|&k| stored_df(df[&s.ids[k]], n))
                .collect();
            if let Some(cap) = cap.filter(|&c| kept.len() > c) {
                kept.sort_by_key(|&k| (df[&s.ids[k]], k));
                kept.truncate(cap);
                kept.sort_unstable();
            }
            kept
        })
        .collect();
    let centred_of = |i: usize, k: usize, buf: &mut [f32]| {
        buf.copy_from_slice(&states[i].states[k * dim..(k + 1) * dim]);
        centre(buf, &mean);
    };
    let mut buf = vec![0.0f32; dim];
    let mut sample: Vec<f32> = Vec::new();
    for i in (0..n).step_by(n.div_ceil(MAX_PAPERS).max(1)) {
        for &k in &chosen[i] {
            centred_of(i, k, &mut buf);
            sample.extend_from_slice(&buf);
        }
    }
    out.basis = principal_directions(&sample, SEARCH_TOKEN_WIDTH);
    drop(sample);
    let mut row = vec![0.0f32; SEARCH_TOKEN_WIDTH];
    for (i, kept) in chosen.iter().enumerate() {
        for &k in kept {
            centred_of(i, k, &mut buf);
            project(&out.basis, &buf, &mut row);
            out.states
                .extend(row.iter().map(|&x| half::f16::from_f32(x).to_bits()));
        }
        out.offsets
            .push((out.states.len() / SEARCH_TOKEN_WIDTH) as u32);
    }
    let mut vocab: Vec<(u32, usize)> = df.into_iter().collect();
    vocab.sort_unstable();
    out.vocab = vocab.iter().map(|&(t, _)| t).collect();
    out.df = vocab.iter().map(|&(_, d)| d as u32).collect();
    out
}

/// The most tokens a paper keeps for search on a list above [`MAX_PAPERS`]
/// ([`passage_tokens`]): 64 rows of [`SEARCH_TOKEN_WIDTH`] f16 values, 16 KB. Forced on the
/// lists with abstracts (84-141 papers), the sum of their 12 search MRRs went 11.06 (every
/// token) -> 11.01 at 64, 10.80 at 32, 10.75 with no token matching (docs/experiments.md).
pub const SEARCH_TOKENS_PER_PAPER: usize = 64;

/// How well each paper of `papers` holds the query's tokens: each query token's best match
/// among the paper's stored tokens, counted above [`MATCH_FLOOR`], weighed by the token's
/// rarity in the list (a token the list never uses weighs most), over the query's weight.
///
/// A query token as common as the tokens [`passage_tokens`] leaves out (in more than
/// [`SEARCH_MAX_DF`] of the papers) is not matched: its own counterparts are not stored, so its
/// best match would be some other token, noise. Its weight stays in the query's total. On the
/// judged sets this gained mixed queries on three lists with abstracts and cost one shipped
/// Chinese query a rank; it takes about a third off the matching time.
pub fn query_match(tokens: &SearchTokens<'_>, query: &TokenStates, papers: &[usize]) -> Vec<f32> {
    let dim = tokens.width();
    let n = tokens.offsets.len().saturating_sub(1);
    let mut q: Vec<f32> = Vec::with_capacity(query.states.len());
    let mut w: Vec<f32> = Vec::new();
    let mut unmatched = 0.0f32;
    let mut centred = vec![0.0f32; crate::model::DIM];
    for (&t, state) in query
        .ids
        .iter()
        .zip(query.states.chunks_exact(crate::model::DIM))
    {
        let df = tokens
            .vocab
            .binary_search(&t)
            .map_or(0, |k| tokens.df[k] as usize);
        let weight = rarity(n, df);
        if !stored_df(df, n) {
            unmatched += weight;
            continue;
        }
        centred.copy_from_slice(state);
        centre(&mut centred, tokens.mean);
        let start = q.len();
        if tokens.basis.is_empty() {
            q.extend_from_slice(&centred);
        } else {
            q.resize(start + dim, 0.0);
            project(tokens.basis, &centred, &mut q[start..]);
        }
        w.push(weight);
    }
    let total: f32 = w.iter().sum::<f32>() + unmatched;
    let rows = w.len();
    if rows == 0 || total <= 0.0 {
        return vec![0.0; papers.len()];
    }
    let q = ndarray::ArrayView2::from_shape((rows, dim), &q).expect("rows of DIM values");
    papers
        .iter()
        .map(|&i| {
            let (Some(&a), Some(&b)) = (tokens.offsets.get(i), tokens.offsets.get(i + 1)) else {
                return 0.0;
            };
            let (a, b) = (a as usize * dim, b as usize * dim);
            if a >= b || b > tokens.states.len() {
                return 0.0;
            }
            let mut p = vec![0.0f32; b - a];
            let stored: &[half::f16] = tokens.states[a..b].reinterpret_cast();
            stored.convert_to_f32_slice(&mut p);
            let p = ndarray::ArrayView2::from_shape(((b - a) / dim, dim), &p)
                .expect("rows of DIM values");
            let sim = q.dot(&p.t());
            sim.rows()
                .into_iter()
                .zip(&w)
                .map(|(r, &wt)| {
                    let best = r.fold(f32::MIN, |x, &y| x.max(y));
                    if best > MATCH_FLOOR { best * wt } else { 0.0 }
                })
                .sum::<f32>()
                / total
        })
        .collect()
}

/// Turns passages into token states, or fails with `E`.
pub type TokenEmbedder<'a, E> = dyn FnMut(&[&str]) -> Result<Vec<TokenStates>, E> + 'a;

/// `index` with what the passages' token states give it: the alignment scores when it
/// [`applies`], the search tokens when [`search_applies`]; `embed` gives the token states of the
/// papers' passages (`index::passage_text`, embedded as passages) and is called only when one
/// of the two applies. Every build that users query goes through this, before
/// [`super::calibrated`] (link strengths are measured on the ranking alignment is part of).
pub fn with_tokens<E: From<IndexError>>(
    index: Index,
    embed: &mut TokenEmbedder<'_, E>,
) -> Result<Index, E> {
    let searcher = Searcher::new(index);
    let (align, search) = (applies(&searcher), search_applies(&searcher));
    let pools = (align && searcher.len() > MAX_PAPERS).then(|| candidate_pools(&searcher));
    let index = searcher.into_index();
    if !align && !search {
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
    let mut index = index;
    if search {
        index = index.with_search_tokens(&passage_tokens(&states))?;
    }
    if align {
        index = match pools {
            None => index.with_alignment(&scores(states))?,
            Some(pools) => {
                index.with_alignment_data(&AlignmentData::Pooled(pooled_scores(states, &pools)))?
            }
        };
    }
    Ok(index)
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
    fn a_query_matches_the_papers_holding_its_rare_tokens() {
        // Ten texts share token 0 (dropped from the stored states: in every paper); text 3
        // alone holds token 40, texts 4 and 5 token 50.
        let mut states: Vec<TokenStates> = (0..10)
            .map(|i| text(&[(0, 0), (100 + i as u32, 100 + i)]))
            .collect();
        states[3] = text(&[(0, 0), (40, 40), (103, 103)]);
        states[4] = text(&[(0, 0), (50, 50), (104, 104)]);
        states[5] = text(&[(0, 0), (50, 50), (105, 105)]);
        let data = passage_tokens(&states);
        assert_eq!(data.offsets.len(), 11);
        assert_eq!(
            data.states.len(),
            13 * SEARCH_TOKEN_WIDTH,
            "token 0 is in every paper: not stored"
        );
        let stored = data.view();
        let papers: Vec<usize> = (0..10).collect();
        let m = query_match(&stored, &text(&[(0, 0), (40, 40)]), &papers);
        let best = (0..10).max_by(|&a, &b| m[a].total_cmp(&m[b])).unwrap();
        assert_eq!(best, 3, "{m:?}");
        assert!(m[3] > 0.5 && m[0] == 0.0, "{m:?}");
        let m = query_match(&stored, &text(&[(50, 50)]), &papers);
        assert!(m[4] > 0.5 && m[4] == m[5] && m[3] == 0.0, "{m:?}");
        let none = query_match(
            &stored,
            &TokenStates {
                ids: vec![],
                states: vec![],
            },
            &papers,
        );
        assert!(none.iter().all(|&x| x == 0.0));
    }

    #[test]
    fn a_capped_paper_keeps_its_rarest_tokens_and_still_answers_for_them() {
        // Paper 0 holds tokens of document frequency 3 (token 60), 2 (50) and 1 (40); capped
        // at two it keeps 50 and 40.
        let mut states: Vec<TokenStates> = (0..20)
            .map(|i| text(&[(100 + i as u32, 100 + i)]))
            .collect();
        states[0] = text(&[(60, 60), (50, 50), (40, 40)]);
        states[1] = text(&[(60, 60), (50, 50), (101, 101)]);
        states[2] = text(&[(60, 60), (102, 102)]);
        let whole = passage_tokens_capped(&states, None);
        let capped = passage_tokens_capped(&states, Some(2));
        assert_eq!(whole, passage_tokens(&states), "no cap below MAX_PAPERS");
        let rows = |d: &SearchTokenData, i: usize| (d.offsets[i + 1] - d.offsets[i]) as usize;
        assert_eq!((rows(&whole, 0), rows(&capped, 0)), (3, 2));
        assert_eq!(
            rows(&capped, 2),
            2,
            "a paper within the cap keeps every token"
        );
        let papers: Vec<usize> = (0..20).collect();
        let m = query_match(&capped.view(), &text(&[(40, 40)]), &papers);
        assert!(m[0] > 0.5, "{m:?}");
        let m = query_match(&capped.view(), &text(&[(50, 50)]), &papers);
        assert!(m[0] > 0.5 && m[1] > 0.5, "{m:?}");
        // Token 60, dropped from paper 0 by the cap, is matched in paper 2 only.
        let m = query_match(&capped.view(), &text(&[(60, 60)]), &papers);
        assert!(m[0] < 0.5 && m[2] > 0.5, "{m:?}");
    }

    #[test]
    fn a_query_token_too_common_to_store_matches_nothing() {
        // Token 60 is in 3 of 10 papers (more than a fifth): not stored, and a query's token 60
        // is not matched either, not even by paper 7's token 61, which points the same way.
        let mut states: Vec<TokenStates> = (0..10)
            .map(|i| text(&[(100 + i as u32, 100 + i)]))
            .collect();
        for (i, s) in states.iter_mut().enumerate().take(3) {
            *s = text(&[(60, 60), (100 + i as u32, 100 + i)]);
        }
        states[7] = text(&[(61, 60), (107, 107)]);
        states[8] = text(&[(40, 40), (108, 108)]);
        let data = passage_tokens(&states);
        let stored = data.view();
        let papers: Vec<usize> = (0..10).collect();
        let m = query_match(&stored, &text(&[(60, 60)]), &papers);
        assert!(m.iter().all(|&x| x == 0.0), "{m:?}");
        // Its weight still counts: a query that also holds token 40 finds paper 8, but only
        // for the share of its weight that token 40 carries.
        let m = query_match(&stored, &text(&[(60, 60), (40, 40)]), &papers);
        assert_eq!(m[7], 0.0, "{m:?}");
        assert!(m[8] > 0.3 && m[8] < 0.9, "{m:?}");
    }

    #[test]
    fn principal_directions_span_the_rows_and_are_orthonormal() {
        // 50 rows in the span of three directions, plus a little noise: three directions
        // hold (nearly) all of every row, and come out orthonormal and reproducible.
        let axes = [3usize, 70, 200];
        let mut rows = Vec::new();
        for r in 0..50 {
            let mut v = vec![0.0f32; DIM];
            for (j, &a) in axes.iter().enumerate() {
                v[a] = ((r * 7 + j * 13) % 11) as f32 - 5.0;
                v[(a + 1) % DIM] = 0.5 * v[a];
            }
            v[(r * 17) % DIM] += 0.001;
            rows.extend(v);
        }
        let basis = principal_directions(&rows, 3);
        assert_eq!(basis.len(), 3 * DIM);
        for i in 0..3 {
            for j in 0..3 {
                let d = crate::util::vector::dot(
                    &basis[i * DIM..(i + 1) * DIM],
                    &basis[j * DIM..(j + 1) * DIM],
                );
                let expected = if i == j { 1.0 } else { 0.0 };
                assert!((d - expected).abs() < 1e-4, "{i} {j} {d}");
            }
        }
        for row in rows.chunks_exact(DIM) {
            let norm = crate::util::vector::dot(row, row).sqrt();
            let kept: f32 = basis
                .chunks_exact(DIM)
                .map(|b| crate::util::vector::dot(b, row).powi(2))
                .sum::<f32>()
                .sqrt();
            assert!((kept / norm - 1.0).abs() < 1e-3, "{kept} of {norm}");
        }
        assert_eq!(principal_directions(&rows, 3), basis, "deterministic");
    }

    #[test]
    fn whole_token_states_from_older_indexes_still_match() {
        // An older index stores each kept token whole (384 wide, no basis):
        // the same query finds the same paper in it as in the projected form.
        let mut states: Vec<TokenStates> = (0..10)
            .map(|i| text(&[(100 + i as u32, 100 + i)]))
            .collect();
        states[6] = text(&[(40, 40), (106, 106)]);
        let projected = passage_tokens(&states);
        let mut whole = SearchTokenData {
            offsets: projected.offsets.clone(),
            vocab: projected.vocab.clone(),
            df: projected.df.clone(),
            mean: projected.mean.clone(),
            ..SearchTokenData::default()
        };
        for s in &states {
            for row in s.states.chunks_exact(DIM) {
                let mut r = row.to_vec();
                centre(&mut r, &projected.mean);
                whole
                    .states
                    .extend(r.iter().map(|&x| half::f16::from_f32(x).to_bits()));
            }
        }
        assert_eq!(whole.view().width(), DIM);
        assert_eq!(projected.view().width(), SEARCH_TOKEN_WIDTH);
        let papers: Vec<usize> = (0..10).collect();
        let query = text(&[(40, 40)]);
        for data in [&whole, &projected] {
            let m = query_match(&data.view(), &query, &papers);
            let best = (0..10).max_by(|&a, &b| m[a].total_cmp(&m[b])).unwrap();
            assert_eq!(best, 6, "{m:?}");
            assert!(m[6] > 0.9, "{m:?}");
        }
    }

    #[test]
    fn pooled_scores_are_the_every_pair_scores_of_the_pairs_named_from_either_side() {
        let texts: Vec<TokenStates> = (0..6)
            .map(|i| text(&[(i as u32, i % 3), (10 + i as u32 % 2, 3), (20, 4)]))
            .collect();
        let every = scores(texts.clone());
        // Paper 0 names 3 and 5, paper 4 names 0: 0's row holds 3, 4, 5; 1 and 2 hold nothing.
        let pools = vec![vec![5, 3, 3, 0], vec![], vec![], vec![], vec![0], vec![]];
        let pooled = pooled_scores(texts, &pools);
        assert_eq!(pooled.offsets, vec![0, 3, 3, 3, 4, 5, 6]);
        assert_eq!(pooled.partners, vec![3, 4, 5, 0, 0, 0]);
        let n = 6;
        for a in 0..n {
            let (from, to) = (pooled.offsets[a] as usize, pooled.offsets[a + 1] as usize);
            for k in from..to {
                let b = pooled.partners[k] as usize;
                assert_eq!(pooled.values[k].to_bits(), every[a * n + b].to_bits());
            }
        }
        assert!(every[3] > 0.0, "papers 0 and 3 share a rare token");
        // The same text twice scores 1 at most: a list may hold a paper twice.
        let twice = scores(vec![
            text(&[(1, 0), (2, 1)]),
            text(&[(1, 0), (2, 1)]),
            text(&[(3, 2)]),
        ]);
        assert!(twice.iter().all(|v| (0.0..=1.0).contains(v)), "{twice:?}");
        assert!(twice[1] > 0.99);
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
