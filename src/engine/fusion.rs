//! How the ranking signals are combined: one function for the engine and for `recommend bench`.
//!
//! Each signal is standardized over the candidate pool (z-scores) and the standardized signals
//! are summed with fixed weights, but for search's lexical weight, which follows how much of
//! the query its best lexical match holds ([`search_weights`]). Standardizing puts e5's compressed cosines (0.85-0.95 for any
//! two papers of one field), TF-IDF cosines, BM25's open-ended scores and tag overlaps on one
//! scale, so the weights mean "how many standard deviations of this signal is one of that".
//! A signal that is constant over the pool (no tags in the corpus, no lexical match for a
//! query) standardizes to zero and neither helps nor hurts.
//!
//! The weights were set on the judged development set (`bench/judgments.jsonl`) and checked on
//! imported public reading lists that played no part in choosing them, with blind judged sets
//! of their own (`bench/judgments-<list>.jsonl`; BENCHMARKS.md, Imported lists): where they
//! disagreed, the value that held up on the imported lists was kept.

use crate::index::lexical::Lexical;

/// Related work (`--like`): the centered embedding cosine is the base signal.
pub const LIKE_DENSE: f32 = 1.0;
/// Related work: TF-IDF cosine of specific terms (frequent terms are capped out).
pub const LIKE_LEXICAL: f32 = 0.3;
/// Related work's lexical weight on a list without curated evidence (no tags, no `builds_on`),
/// given `share`, the share of the list the seed has any specific term in common with:
/// [`LIKE_LEXICAL`], or `share`² when that is larger.
///
/// On titles and one-line notes a seed shares a word with a fifth to a third of the list; the
/// z-scores of so sparse a signal overstate its few matches, and 0.3 was measured best there.
/// Abstracts give the lexical signal something to say about nearly every pair (share 0.9), and
/// there the embedding at four times its weight dragged TF-IDF's good ranking down: on the
/// shipped list as titles + English summaries only, judged related@5 was 0.620 against 0.652
/// for lexical alone; with this rule 0.685 (docs/experiments.md, "Related work: lexical"). The
/// square keeps lists of titles at the old weight (a share of 0.4 gives 0.16). A curated list
/// keeps [`LIKE_LEXICAL`]: its tags and links carry what is specific, and more lexical weight
/// lowered its figures.
pub fn like_lexical_weight(share: f32, curated: bool) -> f32 {
    if curated {
        LIKE_LEXICAL
    } else {
        LIKE_LEXICAL.max(share.clamp(0.0, 1.0).powi(2))
    }
}
/// Related work: IDF-weighted cosine of curated tags (silent without tags).
pub const LIKE_TAGS: f32 = 0.8;
/// Related work: IDF-weighted cosine of the list's own tags (keywords, categories,
/// collections, sections; `index::own_tags`), the same kind of evidence as curated tags and so
/// the same weight, fixed before any list was measured with it: on the five judged imported
/// lists related@5 0.385 -> 0.382, 0.538 -> 0.549, 0.561 -> 0.635, 0.451 -> 0.557 and
/// 0.419 -> 0.506 (docs/experiments.md, "Related work: the list's own tags").
pub const LIKE_OWN_TAGS: f32 = 0.8;

/// The weight of the list's own tags: [`LIKE_OWN_TAGS`], or none on a list with curated
/// evidence, whose tags and `builds_on` links already say what a section says, more finely:
/// there the seed documents' sections took related@5 from 0.918 to 0.826.
pub fn like_own_tags_weight(curated: bool) -> f32 {
    if curated { 0.0 } else { LIKE_OWN_TAGS }
}
/// Related work on a list of titles and abstracts: token alignment (`engine::alignment`;
/// silent on other lists). Half the embedding's weight: added to the shipped fusion at 0.5, on
/// the three judged lists with abstracts related@5 0.685 -> 0.705, 0.549 -> 0.557 and 0.509 ->
/// 0.538; 1.0 gave 0.698, 0.537, 0.545, and taking the embedding's place instead lost on one
/// list (0.518) (docs/experiments.md, "Related work: token alignment").
pub const LIKE_ALIGNMENT: f32 = 0.5;
/// Related work on a list of bare titles: the cosine of the titles' character n-grams
/// (`index::evidence::Spelling`; silent on other lists), at the lexical weight: a second
/// lexical view of the same few words, one that sees the shared parts of coined names.
pub const LIKE_SPELLING: f32 = LIKE_LEXICAL;
/// Related work: added (in standard deviations) when one paper builds on the other, at most;
/// see [`builds_on_weight`].
pub const LIKE_BUILDS_ON: f32 = 1.5;

/// Related work: the weight of a direct `builds_on` link, given how specific its parent is
/// (`Relations::parent_specificity`, in [0, 1]). Half of [`LIKE_BUILDS_ON`] always, the other
/// half times the specificity: building on a niche paper carries its idea, building on the
/// method most of the list trains with (GRPO in an agentic-RL list: 41 of 141 papers) says
/// less. The blind judged set marks GRPO unrelated for 10 of the 23 seeds that build on it,
/// other parents for 3 of 10. Measured: curated related@5 0.849 -> 0.852, absurd@5 8.9% ->
/// 8.2% (docs/experiments.md, "Related work: links, feedback and fusion").
pub fn builds_on_weight(parent_specificity: f32) -> f32 {
    LIKE_BUILDS_ON * (0.5 + 0.5 * parent_specificity.clamp(0.0, 1.0))
}
/// Related work: added when both build on the same paper, times how specific that parent is
/// (`Relations::parent_specificity`: sharing GRPO says little in an agentic-RL list).
pub const LIKE_SHARED_PARENT: f32 = 0.5;
/// Related work: pseudo-relevance feedback. The fused scores of the best [`LIKE_FEEDBACK_TOP`]
/// candidates, as seeds of their own, are averaged and added with this weight: a candidate
/// close to the seed's closest papers is likelier related than one close to the seed alone.
pub const LIKE_FEEDBACK: f32 = 0.6;
/// How many of the best candidates feed back.
pub const LIKE_FEEDBACK_TOP: usize = 5;
/// Related work on a list without curated evidence: added (in standard deviations) to a
/// candidate that has the seed among its own closest papers (`retrieve::reciprocity`).
pub const LIKE_RECIPROCAL: f32 = 0.5;
/// How many of a candidate's closest papers are checked for the seed.
pub const LIKE_RECIPROCAL_K: usize = 10;
/// How many of the best candidates are checked.
pub const LIKE_RECIPROCAL_TOP: usize = 15;
/// Free-text search: token matching (`engine::alignment::query_match`), on lists whose index
/// holds the passages' token states. Chosen offline (1.0: shipped list MRR en / mixed / zh
/// 0.967 / 0.942 / 0.888 -> 0.983 / 0.981 / 0.928); built, 0.983 / 0.981 / 0.931, Chinese
/// 0.757 -> 0.845 and 0.883 -> 1.000 on the lists with abstracts, whose English and mixed
/// queries lose 0.02 (docs/experiments.md, "Search: token matching").
pub const SEARCH_TOKENS: f32 = 1.0;
/// Free-text search: the summed IDF of the curated tags a paper carries among those the query
/// names (`index::evidence::Tags::named_in`; silent without tags or without a named tag). The
/// vocabulary names each tag in English and Chinese, so a query meets the tag in the language
/// the paper's record does not use: the README's `search "用强化学习训练网页智能体"` found
/// WebAgent-R1 12th, its record saying "web" only in English; 6th with this signal. A tag says
/// which ten or so papers, not which one, hence a third of the other signals' weight. 0.5, the
/// weight chosen first, moved one Chinese query of the development set a rank down (it names
/// 多智能体 to exclude it); 0.35 leaves every judged figure as it was, both held-out sets
/// included (docs/experiments.md, "Search").
pub const SEARCH_TAGS: f32 = 0.35;
/// Free-text search: the query-passage embedding cosine.
pub const SEARCH_DENSE: f32 = 1.0;
/// Free-text search: BM25 of the query and its glossary translations, at most (see
/// [`search_weights`]).
pub const SEARCH_LEXICAL: f32 = 1.0;

/// The (dense, lexical) weights of free-text search for `query` over `lexical`.
///
/// A query in Latin script gives BM25 the share of its lexical evidence that the best-matching
/// paper holds ([`Lexical::best_match_share`]): on a list of titles and one-line notes, a
/// paraphrased English query shares one or two ordinary words ("problems", "trained") with some
/// titles, and those scattered matches, standardized over a pool that mostly scores zero,
/// outweighed the embedding, which reads the whole query in its own language. Where the
/// query's telling words meet in one paper (a name, or the long summaries of the curated list)
/// lexical keeps its weight. Measured on five blind judged sets (docs/experiments.md, "Search"),
/// English search MRR: awesome-rl-ai-agents 0.483 -> 0.658, Awesome-Agent-RL-Papers 0.722 ->
/// 0.739, a third list held out until the rule was chosen 0.386 -> 0.403, the shipped list
/// titles-only 0.739 -> 0.758, curated 0.975 unchanged.
///
/// A query with Chinese keeps the full lexical weight: its words reach English papers only
/// through the glossary, while the embedding's cross-lingual matching is weak (dense MRR 0.26
/// vs lexical 0.47 for Chinese queries on that list), and the same rule cost curated Chinese
/// search 0.975 -> 0.917 when tried (docs/experiments.md, "Search").
pub fn search_weights(lexical: &Lexical<'_>, query: &str) -> (f32, f32) {
    if query.chars().any(crate::text::is_cjk) {
        (SEARCH_DENSE, SEARCH_LEXICAL)
    } else {
        (
            SEARCH_DENSE,
            SEARCH_LEXICAL * lexical.best_match_share(query),
        )
    }
}

/// Free-text search's fusion over `pool`, in pool order: the query's embedding cosine `dense`,
/// its BM25 `bm25` over `lexical`, its token matching `tokens` (zeros where the list has no
/// token states) and the curated tags it names `tags` (zeros where it names none), one value
/// per paper, weighed for `query` ([`search_weights`], [`SEARCH_TOKENS`], [`SEARCH_TAGS`]).
/// The engine's search and `recommend bench` both rank by it.
pub fn fuse_search(
    pool: &[usize],
    lexical: &Lexical<'_>,
    query: &str,
    dense: &[f32],
    bm25: &[f32],
    tokens: &[f32],
    tags: &[f32],
) -> Vec<f32> {
    let (wd, wl) = search_weights(lexical, query);
    fuse(
        pool,
        &[
            (wd, dense),
            (wl, bm25),
            (SEARCH_TOKENS, tokens),
            (SEARCH_TAGS, tags),
        ],
    )
}

/// z-scores of `values` over the members of `pool`, in pool order (zeros when constant).
pub fn standardize(pool: &[usize], values: &[f32]) -> Vec<f32> {
    standardize_by(pool, pool, values)
}

/// z-scores of the members of `pool`, in pool order, with the mean and spread of `values`
/// over `reference` (zeros when constant there). A large index scores only candidates (a
/// biased, top-heavy set) and standardizes them by a sample of the whole corpus instead.
pub fn standardize_by(pool: &[usize], reference: &[usize], values: &[f32]) -> Vec<f32> {
    if pool.is_empty() || reference.is_empty() {
        return vec![0.0; pool.len()];
    }
    let m = reference.len() as f64;
    let mean = reference.iter().map(|&i| f64::from(values[i])).sum::<f64>() / m;
    let var = reference
        .iter()
        .map(|&i| (f64::from(values[i]) - mean).powi(2))
        .sum::<f64>()
        / m;
    let sd = var.sqrt();
    if !sd.is_finite() || sd < 1e-9 {
        return vec![0.0; pool.len()];
    }
    pool.iter()
        .map(|&i| ((f64::from(values[i]) - mean) / sd) as f32)
        .collect()
}

/// The weighted sum of standardized `signals` (weight, one value per paper) over `pool`, in
/// pool order.
pub fn fuse(pool: &[usize], signals: &[(f32, &[f32])]) -> Vec<f32> {
    fuse_by(pool, pool, signals)
}

/// [`fuse`] with each signal standardized by its mean and spread over `reference`
/// ([`standardize_by`]).
pub fn fuse_by(pool: &[usize], reference: &[usize], signals: &[(f32, &[f32])]) -> Vec<f32> {
    let mut out = vec![0.0f32; pool.len()];
    for &(w, values) in signals {
        if w == 0.0 {
            continue;
        }
        for (o, z) in out.iter_mut().zip(standardize_by(pool, reference, values)) {
            *o += w * z;
        }
    }
    out
}

/// `values` at the percentiles 0, 1, ..., 100 ([`crate::index::LINK_STRENGTH_CUTS`] ascending
/// values): the form in which an index stores a list's own scales (its link strengths, its
/// search reference). `None` when there are no values.
pub fn percentile_cuts(mut values: Vec<f32>) -> Option<Vec<f32>> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f32::total_cmp);
    let last = values.len() - 1;
    Some(
        (0..crate::index::LINK_STRENGTH_CUTS)
            .map(|q| values[(q * last + 50) / 100])
            .collect(),
    )
}

/// Where `x` stands on a scale stored as [`percentile_cuts`]: the share of the cuts below it,
/// 0..=1.
pub fn share_below(cuts: &[f32], x: f32) -> f32 {
    let below = cuts.partition_point(|&c| c < x);
    (below as f32 / cuts.len() as f32).clamp(0.0, 1.0)
}

/// Where `score` stands among `scores`: the share of them it beats, 0..=1.
pub fn percentile(scores: &[f32], score: f32) -> f32 {
    if scores.len() <= 1 {
        return 1.0;
    }
    let below = scores.iter().filter(|&&s| s < score).count();
    below as f32 / (scores.len() - 1) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_weight_of_related_work_follows_the_seeds_coverage_on_uncurated_lists() {
        // curated lists: always the base weight
        assert_eq!(like_lexical_weight(0.95, true), LIKE_LEXICAL);
        // titles: a seed shares words with a fifth to a third of the list; unchanged
        assert_eq!(like_lexical_weight(0.2, false), LIKE_LEXICAL);
        assert_eq!(like_lexical_weight(0.5, false), LIKE_LEXICAL);
        // abstracts: nearly every pair shares a specific term
        assert!((like_lexical_weight(0.9, false) - 0.81).abs() < 1e-6);
        assert_eq!(like_lexical_weight(1.7, false), 1.0);
    }

    #[test]
    fn a_builds_on_link_weighs_more_the_more_specific_its_parent() {
        assert_eq!(builds_on_weight(1.0), LIKE_BUILDS_ON);
        assert_eq!(builds_on_weight(0.0), LIKE_BUILDS_ON / 2.0);
        assert!(builds_on_weight(0.25) < builds_on_weight(0.75));
        // out-of-range specificities are clamped, never negative or above the full weight
        assert_eq!(builds_on_weight(-3.0), LIKE_BUILDS_ON / 2.0);
        assert_eq!(builds_on_weight(7.0), LIKE_BUILDS_ON);
    }

    #[test]
    fn fusion_standardizes_each_signal() {
        let pool = [0, 1, 2];
        let f = fuse(
            &pool,
            &[(1.0, &[0.80, 0.90, 0.85]), (0.5, &[0.0, 10.0, 0.0])],
        );
        assert!(f[1] > f[2] && f[2] > f[0], "{f:?}");
        // A constant signal contributes nothing.
        let g = fuse(&pool, &[(1.0, &[1.0, 2.0, 3.0]), (5.0, &[7.0, 7.0, 7.0])]);
        assert_eq!(g, fuse(&pool, &[(1.0, &[1.0, 2.0, 3.0])]));
        // Only pool members count.
        let h = fuse(&[0, 2], &[(1.0, &[1.0, 100.0, 3.0])]);
        assert_eq!(h, vec![-1.0, 1.0]);
    }

    #[test]
    fn percentiles() {
        assert_eq!(percentile(&[1.0, 2.0, 3.0], 3.0), 1.0);
        assert_eq!(percentile(&[1.0, 2.0, 3.0], 1.0), 0.0);
        assert_eq!(percentile(&[5.0], 5.0), 1.0);
    }
}
