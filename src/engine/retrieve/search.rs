//! Free-text search: dense candidates (stored graph or scan) and BM25 candidates (a query that
//! names a paper puts it first), fused with token matching and the tags the query names, and
//! how close the best comes against the list's own match reference. Apart from related work,
//! with which it shares only the filters and the ranking of the final pool.

use super::super::{explain, fusion};
use super::{Filters, Hit, Mode, POOL, best_positive, ranked};
use crate::index::Searcher;
use crate::index::ann::top_hits;

/// Free-text search. `query_vector` is the query's embedding (role "query"); without one only
/// lexical search is possible, and asking for dense or hybrid is the caller's error to report.
pub fn search(
    index: &Searcher,
    query: &str,
    query_vector: Option<&[f32]>,
    query_tokens: Option<&crate::model::TokenStates>,
    k: usize,
    mode: Mode,
    filters: &Filters,
) -> Vec<Hit> {
    let n = index.len();
    if k == 0 {
        return Vec::new();
    }
    let mut bm25 = index.lexical().bm25(query);
    // A query that is exactly a paper's name asks for that paper: put it first lexically.
    let key = crate::text::name_key(query);
    let top = bm25.iter().copied().fold(0.0f32, f32::max);
    let mut names_a_paper = false;
    if !key.is_empty() {
        let table = index.table();
        for i in table.named(&key) {
            // The name table also holds ids (for resolution); only a title or alias counts here.
            let p = table.get(i);
            let named = std::iter::once(&p.title)
                .chain(&p.aliases)
                .any(|n| crate::text::name_key(n) == key);
            if named {
                bm25[i] += top.max(1.0);
                names_a_paper = true;
            }
        }
    }
    let with_dense = query_vector.is_some() && mode != Mode::Lexical;
    let mut dense = vec![0.0f32; n];
    let mut candidates: Vec<usize> = Vec::new();
    let graph = index.uses_graph() && filters.is_empty();
    if let Some(q) = query_vector.filter(|_| mode != Mode::Lexical) {
        if graph {
            // A large index: the dense candidates from the stored HNSW graph; the cosine of
            // the lexical candidates is computed below.
            for (i, c) in index.nearest(q, POOL.max(k), false) {
                dense[i] = c;
                candidates.push(i);
            }
        } else {
            dense = index.similarities(q);
            let pool = if filters.is_empty() { POOL } else { n };
            let scored: Vec<(usize, f32)> = dense.iter().copied().enumerate().collect();
            candidates.extend(top_hits(scored, pool).iter().map(|&(i, _)| i));
        }
    }
    let lex_pool = if filters.is_empty() { POOL.max(k) } else { n };
    candidates.extend(best_positive(&bm25, lex_pool));
    candidates.sort_unstable();
    candidates.dedup();
    // Whether the list has anything on the query is asked of the whole list: a filter that
    // removes the paper a query is about does not make the list weak on it.
    let best_in_list = candidates
        .iter()
        .map(|&i| dense[i])
        .fold(f32::NEG_INFINITY, f32::max);
    candidates.retain(|&i| filters.accepts_at(index, i));
    if graph && let Some(q) = query_vector.filter(|_| mode != Mode::Lexical) {
        for &i in &candidates {
            if let Some(row) = index.vector(i).as_slice() {
                dense[i] = crate::index::ann::dot(q, row);
            }
        }
    }
    if mode == Mode::Lexical || !with_dense {
        candidates.retain(|&i| bm25[i] > 0.0);
    }
    // On a list described in two languages the ranking's cosine is taken off the plan's
    // language axis, as related work's is: a Chinese query otherwise prefers the papers
    // described in Chinese. The plain cosine stays for the weak-match check, whose references
    // are plain cosines.
    let ranking_dense: std::borrow::Cow<'_, [f32]> =
        match (index.language_axis(), query_vector.filter(|_| with_dense)) {
            (Some(axis), Some(q)) => {
                let qd = crate::index::ann::dot(q, axis);
                let centroid = index.centroid();
                let mut projected = dense.clone();
                for &i in &candidates {
                    let pd = centroid.on_language_axis(i);
                    let norm = ((1.0 - qd * qd) * (1.0 - pd * pd)).max(1e-12).sqrt();
                    projected[i] = (dense[i] - qd * pd) / norm;
                }
                std::borrow::Cow::Owned(projected)
            }
            _ => std::borrow::Cow::Borrowed(&dense),
        };
    let named = match mode {
        Mode::Hybrid => index.tags().named_in(query, &index.lexical()),
        Mode::Dense | Mode::Lexical => Vec::new(),
    };
    let score: Vec<f32> = match mode {
        Mode::Dense => candidates.iter().map(|&i| ranking_dense[i]).collect(),
        Mode::Lexical => candidates.iter().map(|&i| bm25[i]).collect(),
        Mode::Hybrid => {
            // Token matching (`alignment::query_match`) where the index and the query have
            // token states; silent (zeros) elsewhere.
            let mut tokens = vec![0.0f32; n];
            if let (Some(stored), Some(q)) = (index.search_tokens(), query_tokens) {
                let matched = super::super::alignment::query_match(&stored, q, &candidates);
                for (&i, m) in candidates.iter().zip(matched) {
                    tokens[i] = m;
                }
            }
            // The curated tags the query names, in either language (zeros without any).
            let ids: Vec<u32> = named.iter().map(|&(t, _)| t).collect();
            let tags = index.tags().carried(&ids);
            fusion::fuse_search(
                &candidates,
                &index.lexical(),
                query,
                &ranking_dense,
                &bm25,
                &tokens,
                &tags,
            )
        }
    };
    let d: Vec<f32> = candidates.iter().map(|&i| dense[i]).collect();
    let l: Vec<f32> = candidates.iter().map(|&i| bm25[i]).collect();
    // How close the best candidate comes, against how close the list's papers come to each
    // other (a query that names a paper has found it, however its words embed).
    let script = crate::index::Script::of(query);
    let best = (with_dense && !names_a_paper && !d.is_empty())
        .then(|| d.iter().copied().fold(f32::NEG_INFINITY, f32::max));
    let match_strength = best.and_then(|best| {
        index
            .match_reference(crate::index::Reference::Neighbours, script)
            .map(|cuts| fusion::share_below(cuts, best))
    });
    let weak_match = best
        .and_then(|best| super::super::reference::weak_match(index, query, best.max(best_in_list)));
    ranked(&candidates, &score, &d, &l, k)
        .into_iter()
        .map(|mut h| {
            h.match_strength = match_strength;
            h.weak_match = weak_match;
            h.why = explain::search(
                index,
                query,
                &named,
                h.paper,
                h.percentile,
                with_dense,
                weak_match.is_some(),
            );
            h
        })
        .collect()
}
