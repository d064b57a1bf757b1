//! The judged development set (`bench/judgments.jsonl`): related work and free-text search
//! measured against relevance a person wrote down before seeing the engine's answers.
//!
//! Each line is one item. Related work: `{"task":"like","seed":ID,"relevant":{ID:grade}}`;
//! search: `{"task":"search","lang":"zh"|"en"|"mixed","query":TEXT,"relevant":{ID:grade}}`.
//! Grade 2 means "read this next" (or "what the query looks for"), 1 "reasonably related",
//! 0 "acceptable among the recommendations, not related work" (it shares a specific setting or
//! technique with the seed; counted neither as related nor as absurd). Every paper not listed
//! is unrelated, and an unrelated paper in a top 5 is counted as absurd.
//!
//! Every system is measured on the same items in the same run: the shipped ranking, its dense
//! and lexical halves, two TF-IDF baselines (arxiv-sanity-style words, character 2-4-grams)
//! and reciprocal-rank fusion of dense and TF-IDF.
//!
//! A set can have a second reader ([`Judged::second`], `<set>-reader2.jsonl` beside it): the
//! same seeds judged again, independently, each with the reader's own five best picks
//! (`"ranked": [ID, ...]`). [`reader_agreement`] says how far the two readers agree and what
//! a careful reader's own top 5 scores by the first reader's grades: the figure a ranking can
//! be held to, where one reader's grades alone cannot tell a ranking's errors from the
//! reader's.

mod margin;
mod readers;
mod set;
mod weak;

use std::collections::HashMap;

use serde::Serialize;

pub use margin::Margin;
pub use readers::{ReaderAgreement, ReaderRow, Top5, reader_agreement};
pub use set::{Grades, Judged, load};
pub use weak::{WeakMatchScore, WeakProbes, weak_match_score};

use super::tfidf::Tfidf;
use crate::engine::{self, Filters, Mode};
use crate::index::Searcher;
use crate::index::ann::sort_hits;
use crate::model::{Embedder, ModelError, Role};

/// Related-work quality of one system on the judged seeds.
#[derive(Debug, Clone, Serialize)]
pub struct LikeScore {
    pub system: String,
    /// Share of the top 5 judged related (grade >= 1), averaged over seeds.
    pub related_at_5: f64,
    /// Graded nDCG of the top 10.
    pub ndcg_at_10: f64,
    /// Share of the top 5 judged unrelated: not listed for the seed at all (a grade-0 paper is
    /// acceptable, not absurd). Without grade-0 judgments this is 1 - related@5.
    pub absurd_at_5: f64,
    pub seeds: usize,
    /// Ours minus this system on related@5, with its paired-bootstrap 95% interval over seeds
    /// (`None` on the shipped ranking's own row).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ours_minus_this: Option<Margin>,
    /// Related@5 of each seed, in the judged set's order: the margins here, and paired
    /// comparisons of two runs on one judged set.
    pub per_seed: Vec<f64>,
}

/// A query's vector and, where the index matches tokens, its token states.
pub type QueryInput = (Vec<f32>, Option<crate::model::TokenStates>);

/// What the shipped search embeds for each of `queries`: on an index with search tokens the
/// vector and token states of one model run per query (`Session::search`'s way), else the
/// vectors of one batched run.
pub fn query_inputs(
    index: &Searcher,
    embedder: &Embedder,
    queries: &[&str],
) -> Result<Vec<QueryInput>, ModelError> {
    if index.search_tokens().is_some() {
        queries
            .iter()
            .map(|q| {
                let (v, t) = embedder.embed_query_with_tokens(q)?;
                Ok((v, Some(t)))
            })
            .collect()
    } else {
        Ok(embedder
            .embed(queries, Role::Query)?
            .into_iter()
            .map(|v| (v, None))
            .collect())
    }
}

/// Search quality of one system on the judged queries of one language.
#[derive(Debug, Clone, Serialize)]
pub struct SearchScore {
    pub system: String,
    pub lang: String,
    pub queries: usize,
    /// A relevant paper (grade >= 1) first.
    pub hit_at_1: f64,
    /// A relevant paper in the top 5.
    pub hit_at_5: f64,
    /// Reciprocal rank of the first relevant paper (0 beyond the top 10).
    pub mrr: f64,
    /// Ours minus this system on MRR, with its paired-bootstrap 95% interval over the
    /// language's queries (`None` on the shipped ranking's own rows).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ours_minus_this: Option<Margin>,
    /// Reciprocal rank of each query of the language, in the judged set's order.
    #[serde(skip)]
    pub per_query: Vec<f64>,
}

/// The name of the shipped ranking's rows.
pub const OURS: &str = "ours (hybrid)";

/// Reading paths (`path --like SEED -n 6`) on the judged seeds.
#[derive(Debug, Clone, Serialize)]
pub struct PathScore {
    pub seeds: usize,
    /// Steps other than the seed itself.
    pub steps: usize,
    /// Share of those steps judged related to the seed (grade >= 1).
    pub related_share: f64,
    /// `builds_on` pairs placed child before parent (must be zero).
    pub backwards_edges: usize,
    /// Mean over seeds of the judged-related steps over what a path of [`PATH_STEPS`] could
    /// hold: `min(PATH_STEPS - 1, papers judged related to the seed)`; seeds with no judged
    /// related paper are left out. A path that stops short of what the list has scores low.
    pub recall: f64,
}

/// How well `why`'s "a weak link for this list" tells a doubtful result: the shipped ranking's
/// top 5 of every judged seed, split by the flag.
#[derive(Debug, Clone, Serialize)]
pub struct WeakLinkScore {
    /// Top-5 results flagged weak, and not.
    pub flagged: usize,
    pub unflagged: usize,
    /// Share judged unrelated among each (grade 0 counts as acceptable, as in absurd@5).
    pub flagged_unrelated: f64,
    pub unflagged_unrelated: f64,
    /// Share judged related (grade >= 1) among each.
    pub flagged_related: f64,
    pub unflagged_related: f64,
}

/// [`WeakLinkScore`] on `judged`; `None` when the index has no link strengths.
pub fn weak_link_score(index: &Searcher, judged: &Judged) -> Option<WeakLinkScore> {
    index.link_strengths()?;
    // (results, judged unrelated, judged related) with the flag, then without
    let mut counts = [(0usize, 0usize, 0usize); 2];
    for (seed, grades) in &judged.like {
        for h in engine::related(index, &[*seed], &[], 5, Mode::Hybrid, &Filters::default()) {
            let weak = engine::explain::is_weak_link(h.link_strength);
            let c = &mut counts[usize::from(!weak)];
            c.0 += 1;
            match grades.get(&h.paper) {
                None => c.1 += 1,
                Some(&g) if g >= 1 => c.2 += 1,
                Some(_) => {}
            }
        }
    }
    let share = |part: usize, all: usize| part as f64 / all.max(1) as f64;
    let [(f, fu, fr), (u, uu, ur)] = counts;
    Some(WeakLinkScore {
        flagged: f,
        unflagged: u,
        flagged_unrelated: share(fu, f),
        unflagged_unrelated: share(uu, u),
        flagged_related: share(fr, f),
        unflagged_related: share(ur, u),
    })
}

/// Path length used by [`path_scores`].
pub const PATH_STEPS: usize = 6;

/// Judge the reading path of every judged seed.
pub fn path_scores(index: &Searcher, judged: &Judged) -> PathScore {
    let relations = index.relations();
    let (mut steps, mut related, mut backwards) = (0usize, 0usize, 0usize);
    let (mut recall, mut recall_seeds) = (0.0f64, 0usize);
    for (seed, grades) in &judged.like {
        let Ok(path) = engine::reading::reading_path(index, *seed, PATH_STEPS) else {
            continue;
        };
        let order: Vec<usize> = path
            .iter()
            .filter_map(|s| {
                let t = index.table();
                t.named(&crate::text::name_key(&s.id))
                    .into_iter()
                    .find(|&i| t.id(i) == s.id)
            })
            .collect();
        let judged_related = grades
            .iter()
            .filter(|&(&i, &g)| i != *seed && g >= 1)
            .count();
        let mut found = 0usize;
        for (pos, &i) in order.iter().enumerate() {
            if i != *seed {
                steps += 1;
                let hit = grades.get(&i).is_some_and(|&g| g >= 1);
                related += usize::from(hit);
                found += usize::from(hit);
            }
            backwards += relations.parents[i]
                .iter()
                .filter(|p| order[pos + 1..].contains(p))
                .count();
        }
        let room = judged_related.min(PATH_STEPS - 1);
        if room > 0 {
            recall += found.min(room) as f64 / room as f64;
            recall_seeds += 1;
        }
    }
    PathScore {
        seeds: judged.like.len(),
        steps,
        related_share: related as f64 / steps.max(1) as f64,
        backwards_edges: backwards,
        recall: recall / recall_seeds.max(1) as f64,
    }
}

/// Graded nDCG of `ranked` (best first) at `k`.
pub fn ndcg(ranked: &[usize], grades: &Grades, k: usize) -> f64 {
    let gain = |g: u8| f64::from((1u32 << g) - 1);
    let dcg: f64 = ranked
        .iter()
        .take(k)
        .enumerate()
        .map(|(i, p)| gain(grades.get(p).copied().unwrap_or(0)) / ((i + 2) as f64).log2())
        .sum();
    let mut ideal: Vec<u8> = grades.values().copied().collect();
    ideal.sort_unstable_by(|a, b| b.cmp(a));
    let idcg: f64 = ideal
        .iter()
        .take(k)
        .enumerate()
        .map(|(i, &g)| gain(g) / ((i + 2) as f64).log2())
        .sum();
    if idcg > 0.0 { dcg / idcg } else { 0.0 }
}

/// A ranking of papers for one seed (best first, the seed excluded).
pub type LikeRanker<'a> = Box<dyn Fn(usize) -> Vec<usize> + 'a>;

/// The systems every related-work measurement compares, on `index`.
pub fn like_systems(index: &Searcher) -> Vec<(&'static str, LikeRanker<'_>)> {
    let engine = |mode: Mode| -> LikeRanker<'_> {
        Box::new(move |s| {
            engine::related(index, &[s], &[], 10, mode, &Filters::default())
                .into_iter()
                .map(|h| h.paper)
                .collect()
        })
    };
    let words = Tfidf::fit_papers(index.papers());
    let chars = Tfidf::fit_papers_chars(index.papers());
    let by_scores = |scores: Vec<f32>, seed: usize| -> Vec<usize> {
        let mut v: Vec<(usize, f32)> = scores
            .into_iter()
            .enumerate()
            .filter(|&(i, _)| i != seed)
            .collect();
        sort_hits(&mut v);
        v.into_iter().map(|(i, _)| i).collect()
    };
    let rrf_words = words.clone();
    vec![
        (OURS, engine(Mode::Hybrid)),
        ("dense", engine(Mode::Dense)),
        ("lexical", engine(Mode::Lexical)),
        (
            "tfidf words",
            Box::new(move |s| by_scores(words.similar_to(s), s)),
        ),
        (
            "tfidf char 2-4",
            Box::new(move |s| by_scores(chars.similar_to(s), s)),
        ),
        (
            "rrf dense+tfidf",
            Box::new(move |s| {
                let dense = by_scores(index.similarities(&index.vector(s).to_vec()), s);
                let words = by_scores(rrf_words.similar_to(s), s);
                reciprocal_rank_fusion(&[dense, words])
            }),
        ),
    ]
}

/// Reciprocal-rank fusion (k = 60) of full rankings, best first.
pub fn reciprocal_rank_fusion(rankings: &[Vec<usize>]) -> Vec<usize> {
    let mut score: HashMap<usize, f64> = HashMap::new();
    for r in rankings {
        for (pos, &i) in r.iter().enumerate() {
            *score.entry(i).or_default() += 1.0 / (60.0 + pos as f64 + 1.0);
        }
    }
    let mut v: Vec<(usize, f64)> = score.into_iter().collect();
    v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    v.into_iter().map(|(i, _)| i).collect()
}

/// Every system of [`like_systems`] with its ranking of each of `judged`'s related-work seeds,
/// in the set's order: ranked once, read by [`like_scores`] and [`reader_agreement`].
pub type SeedRankings = Vec<(&'static str, Vec<Vec<usize>>)>;

/// [`SeedRankings`] of `judged` on `index`.
pub fn rank_seeds(index: &Searcher, judged: &Judged) -> SeedRankings {
    like_systems(index)
        .into_iter()
        .map(|(name, rank)| (name, judged.like.iter().map(|(s, _)| rank(*s)).collect()))
        .collect()
}

/// Related-work figures of every system, from its `rankings` of `judged`'s seeds.
pub fn like_scores(rankings: &SeedRankings, judged: &Judged) -> Vec<LikeScore> {
    let mut scores: Vec<LikeScore> = rankings
        .iter()
        .map(|(name, ranked_seeds)| {
            let (mut nd, mut absurd) = (0.0, 0.0);
            let mut per_seed = Vec::with_capacity(judged.like.len());
            for ((_, grades), ranked) in judged.like.iter().zip(ranked_seeds) {
                let (related, unrelated) = top5_shares(ranked, grades);
                per_seed.push(related);
                absurd += unrelated;
                nd += ndcg(ranked, grades, 10);
            }
            let n = judged.like.len().max(1) as f64;
            LikeScore {
                system: name.to_string(),
                related_at_5: per_seed.iter().sum::<f64>() / n,
                ndcg_at_10: nd / n,
                absurd_at_5: absurd / n,
                seeds: judged.like.len(),
                ours_minus_this: None,
                per_seed,
            }
        })
        .collect();
    if let Some(ours) = scores
        .iter()
        .find(|s| s.system == OURS)
        .map(|s| s.per_seed.clone())
    {
        for s in scores.iter_mut().filter(|s| s.system != OURS) {
            s.ours_minus_this = Margin::paired(&ours, &s.per_seed);
        }
    }
    scores
}

/// Shares of the top 5 of `ranked` judged related (grade >= 1) and judged unrelated (not
/// listed at all; grade 0 is "acceptable", neither).
fn top5_shares(ranked: &[usize], grades: &Grades) -> (f64, f64) {
    let top5 = &ranked[..ranked.len().min(5)];
    let related = top5
        .iter()
        .filter(|p| grades.get(p).is_some_and(|&g| g >= 1))
        .count();
    let unrelated = top5.iter().filter(|p| !grades.contains_key(p)).count();
    (related as f64 / 5.0, unrelated as f64 / 5.0)
}

/// Hit@1, hit@5 and MRR (top 10) of one system on the judged queries in `lang`; `None` when
/// there are none.
fn language_score(
    judged: &Judged,
    name: &str,
    lang: &str,
    rank: &dyn Fn(usize) -> Vec<usize>,
) -> Option<SearchScore> {
    let (mut h1, mut h5, mut n) = (0.0, 0.0, 0usize);
    let mut per_query = Vec::new();
    for (q, (l, _, grades)) in judged.search.iter().enumerate() {
        if l != lang {
            continue;
        }
        n += 1;
        let ranked = rank(q);
        let first = ranked
            .iter()
            .take(10)
            .position(|p| grades.get(p).is_some_and(|&g| g >= 1));
        if let Some(pos) = first {
            h1 += f64::from(pos == 0);
            h5 += f64::from(pos < 5);
        }
        per_query.push(first.map_or(0.0, |pos| 1.0 / (pos + 1) as f64));
    }
    (n > 0).then(|| SearchScore {
        system: name.to_string(),
        lang: lang.to_string(),
        queries: n,
        hit_at_1: h1 / n as f64,
        hit_at_5: h5 / n as f64,
        mrr: per_query.iter().sum::<f64>() / n as f64,
        ours_minus_this: None,
        per_query,
    })
}

/// Search figures per language for the shipped search, its halves and the baselines.
pub fn search_scores(
    index: &Searcher,
    judged: &Judged,
    embedder: &Embedder,
) -> Result<Vec<SearchScore>, ModelError> {
    let queries: Vec<&str> = judged.search.iter().map(|(_, q, _)| q.as_str()).collect();
    let inputs = query_inputs(index, embedder, &queries)?;
    let vectors: Vec<Vec<f32>> = inputs.iter().map(|(v, _)| v.clone()).collect();
    let words = Tfidf::fit_papers(index.papers());
    let chars = Tfidf::fit_papers_chars(index.papers());
    let ranked_scores = |scores: Vec<f32>| -> Vec<usize> {
        let mut v: Vec<(usize, f32)> = scores.into_iter().enumerate().collect();
        sort_hits(&mut v);
        v.into_iter().map(|(i, _)| i).take(10).collect()
    };
    let engine = |mode: Mode, q: usize| -> Vec<usize> {
        engine::search(
            index,
            queries[q],
            Some(&vectors[q]),
            inputs[q].1.as_ref(),
            10,
            mode,
            &Filters::default(),
        )
        .into_iter()
        .map(|h| h.paper)
        .collect()
    };
    type Ranker<'a> = Box<dyn Fn(usize) -> Vec<usize> + 'a>;
    let systems: Vec<(&str, Ranker<'_>)> = vec![
        (OURS, Box::new(|q| engine(Mode::Hybrid, q))),
        ("dense", Box::new(|q| engine(Mode::Dense, q))),
        ("lexical", Box::new(|q| engine(Mode::Lexical, q))),
        (
            "tfidf words",
            Box::new(|q| ranked_scores(words.scores(&words.transform(queries[q])))),
        ),
        (
            "tfidf char 2-4",
            Box::new(|q| ranked_scores(chars.scores(&chars.transform(queries[q])))),
        ),
        (
            "rrf dense+tfidf",
            Box::new(|q| {
                let all = |s: Vec<f32>| {
                    let mut v: Vec<(usize, f32)> = s.into_iter().enumerate().collect();
                    sort_hits(&mut v);
                    v.into_iter().map(|(i, _)| i).collect::<Vec<_>>()
                };
                let d = all(index.similarities(&vectors[q]));
                let w = all(words.scores(&words.transform(queries[q])));
                reciprocal_rank_fusion(&[d, w])
            }),
        ),
    ];
    let mut out: Vec<SearchScore> = Vec::new();
    for (name, rank) in &systems {
        for lang in ["zh", "en", "mixed"] {
            out.extend(language_score(judged, name, lang, rank));
        }
    }
    let ours: HashMap<String, Vec<f64>> = out
        .iter()
        .filter(|s| s.system == OURS)
        .map(|s| (s.lang.clone(), s.per_query.clone()))
        .collect();
    for s in out.iter_mut().filter(|s| s.system != OURS) {
        s.ours_minus_this = ours
            .get(&s.lang)
            .and_then(|o| Margin::paired(o, &s.per_query));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acceptable_papers_are_neither_related_nor_absurd() {
        let g: Grades = [(1, 2), (2, 0), (3, 1)].into_iter().collect();
        // 1 related (2), 2 acceptable (0), 3 related (1), 4 and 5 unlisted.
        assert_eq!(top5_shares(&[1, 2, 3, 4, 5, 6], &g), (0.4, 0.4));
        assert_eq!(top5_shares(&[2], &g), (0.0, 0.0));
        // grade 0 adds no gain to nDCG: acceptable first scores like unlisted first
        assert_eq!(ndcg(&[2, 1, 3], &g, 10), ndcg(&[9, 1, 3], &g, 10));
    }

    #[test]
    fn ndcg_is_one_for_the_ideal_order_and_zero_without_relevant_results() {
        let g: Grades = [(1, 2), (2, 1)].into_iter().collect();
        assert!((ndcg(&[1, 2, 3], &g, 10) - 1.0).abs() < 1e-12);
        assert!(ndcg(&[2, 1, 3], &g, 10) < 1.0);
        assert_eq!(ndcg(&[3, 4], &g, 10), 0.0);
    }

    #[test]
    fn rank_fusion_rewards_agreement() {
        let f = reciprocal_rank_fusion(&[vec![1, 2, 3], vec![2, 3, 1]]);
        assert_eq!(f[0], 2);
    }
}
