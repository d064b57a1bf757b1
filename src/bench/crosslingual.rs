//! Cross-lingual retrieval: a paper's Chinese highlight must find the paper by its English title
//! alone, and the other way round.
//!
//! Documents are titles alone (or highlights alone for the reverse direction), embedded as
//! passages; queries are embedded as queries. Lexical is BM25 over the same one-field documents
//! (the engine's [`Lexical`]), the baseline is TF-IDF cosine ([`super::tfidf`]), and hybrid is the
//! engine's search fusion ([`fusion::fuse_search`] over the whole collection), with token
//! matching exactly where the engine would match tokens on a list of those documents
//! ([`alignment::search_applies_to`]: described ones, such as long summaries; never titles).
//! Ties count at their expected rank under random tie-breaking, so a ranking that scores
//! everything zero gets chance-level figures, not the benefit of corpus order.

use serde::Serialize;

use super::tfidf::Tfidf;
use crate::corpus::Paper;
use crate::engine::{alignment, fusion};
use crate::index::lexical::Lexical;
use crate::index::{LexicalData, SearchTokenData};
use crate::model::{Embedder, ModelError, Role, TokenStates};
use crate::util::vector::dot;

/// Retrieval quality of one system in one direction.
#[derive(Debug, Clone, Serialize)]
pub struct Retrieval {
    pub system: String,
    pub recall_at_1: f64,
    pub recall_at_10: f64,
    pub mrr: f64,
}

/// Both directions, every system.
#[derive(Debug, Clone, Serialize)]
pub struct CrossLingual {
    /// Papers with both a title and a highlight (each one query).
    pub queries: usize,
    /// Chinese highlight as query, English titles as documents.
    pub zh_to_en: Vec<Retrieval>,
    /// English title as query, Chinese highlights as documents.
    pub en_to_zh: Vec<Retrieval>,
}

/// Expected 1-based rank of `scores[target]`, ties broken at random.
pub fn expected_rank(scores: &[f32], target: usize) -> f64 {
    let t = scores[target];
    let greater = scores.iter().filter(|&&s| s > t).count();
    let ties = scores.iter().filter(|&&s| s == t).count() - 1;
    1.0 + greater as f64 + ties as f64 / 2.0
}

/// Evaluate a scorer where query `q`'s single relevant document is document `q`.
pub fn evaluate(system: &str, queries: usize, score: &dyn Fn(usize) -> Vec<f32>) -> Retrieval {
    let (mut r1, mut r10, mut rr) = (0.0, 0.0, 0.0);
    for q in 0..queries {
        let rank = expected_rank(&score(q), q);
        if rank <= 1.0 {
            r1 += 1.0;
        }
        if rank <= 10.0 {
            r10 += 1.0;
        }
        rr += 1.0 / rank;
    }
    let n = queries.max(1) as f64;
    Retrieval {
        system: system.to_string(),
        recall_at_1: r1 / n,
        recall_at_10: r10 / n,
        mrr: rr / n,
    }
}

/// The engine's search fusion of dense, lexical and token-matching score vectors over every
/// document ([`fusion::fuse_search`]; `tokens` zeros where the documents get no token
/// matching).
pub fn fuse(
    dense: &[f32],
    lexical: &[f32],
    tokens: &[f32],
    index: &Lexical<'_>,
    query: &str,
) -> Vec<f32> {
    let pool: Vec<usize> = (0..dense.len()).collect();
    // One-field documents carry no curated tags.
    let tags = vec![0.0f32; dense.len()];
    fusion::fuse_search(&pool, index, query, dense, lexical, tokens, &tags)
}

/// What token matching needs in one direction: the documents' stored tokens
/// ([`alignment::passage_tokens`]) and each query's token states.
struct Tokens {
    stored: SearchTokenData,
    queries: Vec<TokenStates>,
}

/// One direction: `queries[i]` should find `docs[i]`. `doc_papers` are the one-field papers the
/// lexical index is built from; `tokens` is there when the engine would match tokens on them.
fn direction(
    queries: &[String],
    docs: &[String],
    doc_papers: &[Paper],
    query_vecs: &[Vec<f32>],
    doc_vecs: &[Vec<f32>],
    tokens: Option<&Tokens>,
) -> Vec<Retrieval> {
    let n = queries.len();
    let dense =
        |q: usize| -> Vec<f32> { doc_vecs.iter().map(|d| dot(d, &query_vecs[q])).collect() };
    let lexical_data = LexicalData::build(doc_papers);
    let lexical = lexical_data.view();
    let bm25 = |q: usize| lexical.bm25(&queries[q]);
    let all: Vec<usize> = (0..docs.len()).collect();
    let matched = |q: usize| match tokens {
        Some(t) => alignment::query_match(&t.stored.view(), &t.queries[q], &all),
        None => vec![0.0; docs.len()],
    };
    let tfidf = Tfidf::fit(docs);
    let chars = Tfidf::fit_chars(docs);
    vec![
        evaluate("hybrid", n, &|q| {
            fuse(&dense(q), &bm25(q), &matched(q), &lexical, &queries[q])
        }),
        evaluate("dense", n, &dense),
        evaluate("lexical", n, &bm25),
        evaluate("tfidf", n, &|q| tfidf.scores(&tfidf.transform(&queries[q]))),
        evaluate("tfidf-char-2-4", n, &|q| {
            chars.scores(&chars.transform(&queries[q]))
        }),
    ]
}

/// Measure both directions over the papers that have a title and a highlight.
pub fn cross_lingual(papers: &[Paper], embedder: &Embedder) -> Result<CrossLingual, ModelError> {
    let kept: Vec<&Paper> = papers
        .iter()
        .filter(|p| !p.title.trim().is_empty() && !p.highlight.trim().is_empty())
        .collect();
    let titles: Vec<String> = kept.iter().map(|p| p.title.clone()).collect();
    let highlights: Vec<String> = kept.iter().map(|p| p.highlight.clone()).collect();
    let embed = |v: &[String], role: Role| -> Result<Vec<Vec<f32>>, ModelError> {
        let r: Vec<&str> = v.iter().map(String::as_str).collect();
        embedder.embed(&r, role)
    };
    let title_papers: Vec<Paper> = kept
        .iter()
        .map(|p| Paper {
            id: p.id.clone(),
            title: p.title.clone(),
            ..Paper::default()
        })
        .collect();
    let highlight_papers: Vec<Paper> = kept
        .iter()
        .map(|p| Paper {
            id: p.id.clone(),
            highlight: p.highlight.clone(),
            ..Paper::default()
        })
        .collect();
    // Token states only where the engine would match tokens on a list of these documents.
    let tokens = |queries: &[String], docs: &[String], doc_papers: &[Paper]| {
        if !alignment::search_applies_to(doc_papers) {
            return Ok(None);
        }
        let states = |v: &[String], role: Role| {
            let r: Vec<&str> = v.iter().map(String::as_str).collect();
            embedder.token_states(&r, role)
        };
        Ok::<_, ModelError>(Some(Tokens {
            stored: alignment::passage_tokens(&states(docs, Role::Passage)?),
            queries: states(queries, Role::Query)?,
        }))
    };
    let zh_to_en = direction(
        &highlights,
        &titles,
        &title_papers,
        &embed(&highlights, Role::Query)?,
        &embed(&titles, Role::Passage)?,
        tokens(&highlights, &titles, &title_papers)?.as_ref(),
    );
    let en_to_zh = direction(
        &titles,
        &highlights,
        &highlight_papers,
        &embed(&titles, Role::Query)?,
        &embed(&highlights, Role::Passage)?,
        tokens(&titles, &highlights, &highlight_papers)?.as_ref(),
    );
    Ok(CrossLingual {
        queries: kept.len(),
        zh_to_en,
        en_to_zh,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_count_at_their_expected_rank() {
        assert_eq!(expected_rank(&[0.0, 0.0, 0.0], 1), 2.0);
        assert_eq!(expected_rank(&[0.5, 0.9, 0.1], 0), 2.0);
        let r = evaluate("zero", 3, &|_| vec![0.0; 3]);
        assert_eq!(r.recall_at_1, 0.0);
        let r = evaluate("perfect", 3, &|q| {
            (0..3).map(|d| f32::from(d == q)).collect()
        });
        assert_eq!((r.recall_at_1, r.mrr), (1.0, 1.0));
    }

    #[test]
    fn fusion_is_the_engines() {
        let papers: Vec<Paper> = ["web agent training", "robot arm control"]
            .iter()
            .map(|t| Paper {
                id: t.replace(' ', "-"),
                title: t.to_string(),
                ..Paper::default()
            })
            .collect();
        let data = LexicalData::build(&papers);
        let lexical = data.view();
        let none = [0.0, 0.0];
        let f = fuse(&[0.8, 0.9], &[0.0, 10.0], &none, &lexical, "robot arm");
        assert!(f[1] > f[0]);
        assert_eq!(
            fuse(&[1.0, 1.0], &[0.0, 0.0], &none, &lexical, "robot arm"),
            vec![0.0, 0.0]
        );
        // The weights are the engine's: a query whose words no paper holds leaves lexical
        // search no say, and the dense order stands.
        let g = fuse(
            &[0.9, 0.8],
            &[0.0, 10.0],
            &none,
            &lexical,
            "quadruped locomotion",
        );
        assert!(g[0] > g[1], "{g:?}");
        // Token matching counts as in the engine's search.
        let t = fuse(
            &[0.9, 0.8],
            &[0.0, 10.0],
            &[0.1, 0.9],
            &lexical,
            "quadruped locomotion",
        );
        assert!(t[1] - t[0] > g[1] - g[0], "{t:?} {g:?}");
    }
}
