//! The ranking plan: which signals a list's rankings use, with which weight, over which
//! candidates, derived once from what the list holds.
//!
//! A list is measured into a [`Profile`] (size, curated evidence, its own tags, described or
//! bare titles, languages, whether queries use the stored graph), and the [`Plan`] follows from
//! the profile by the rules of [`super::fusion`] ([`derive`]). A build stores it in `index.bin`
//! ([`with_plan`], `crate::index::plan`) and the engine takes its weights from the stored copy
//! ([`weights`]), so what `recommend show --plan` prints and what `recommend index` reports
//! after a build is what every ranking runs. A signal that does not apply to the list has
//! weight zero and says why; the index's size chooses how a signal is approximated (graph
//! candidates, a fixed standardization sample), never whether it exists, except where a line
//! says so (spelling: its cost is quadratic).

use std::borrow::Cow;

use super::fusion;
pub use crate::index::plan::{Plan, Profile, RelatedWeights, SignalLine};
use crate::index::{Index, Searcher};

impl RelatedWeights {
    /// The weights for `index` by the rules of [`super::fusion`], from evidence the index
    /// holds (what [`derive`] stores; queries read the stored copy, [`weights`]).
    fn derive(index: &Searcher) -> RelatedWeights {
        let curated = index.has_curated_evidence();
        let on = |present: bool, w: f32| if present { w } else { 0.0 };
        RelatedWeights {
            dense: fusion::LIKE_DENSE,
            lexical: fusion::LIKE_LEXICAL,
            lexical_follows_share: !curated,
            tags: on(!index.tags().is_empty(), fusion::LIKE_TAGS),
            own_tags: on(
                !index.own_tags(true).is_empty(),
                fusion::like_own_tags_weight(curated),
            ),
            spelling: on(index.has_spelling(), fusion::LIKE_SPELLING),
            alignment: on(index.has_alignment(), fusion::LIKE_ALIGNMENT),
            // At any size: the neighbour lists it reads are stored at build
            // (`retrieve::with_like_neighbours`), so the graph changes how they are found,
            // never whether the signal exists.
            reciprocal: !curated,
        }
    }

    /// The lexical weight for a seed sharing specific terms with `share` of the list.
    pub fn lexical_for(&self, share: f32) -> f32 {
        fusion::like_lexical_weight(share, !self.lexical_follows_share)
    }
}

/// The plan every ranking of `index` runs: the one stored at build, or, for an index still
/// being built (or built without `pipeline::Builder`), the one [`derive`] gives.
pub fn of(index: &Searcher) -> Cow<'_, Plan> {
    match index.plan() {
        Some(p) => Cow::Borrowed(p),
        None => Cow::Owned(derive(index)),
    }
}

/// The related-work weights of [`of`], without building the printed lines.
pub fn weights(index: &Searcher) -> RelatedWeights {
    match index.plan() {
        Some(p) => p.related,
        None => RelatedWeights::derive(index),
    }
}

/// `index` with its plan derived and stored ([`Index::with_plan`]): the build step every
/// later step (neighbour lists, link strengths) and every query reads.
pub fn with_plan(index: Index) -> Result<Index, crate::index::IndexError> {
    let searcher = Searcher::new(index);
    let plan = derive(&searcher);
    searcher.into_index().with_plan(&plan)
}

/// Where a signal's candidates come from, as printed.
struct Scopes {
    every: &'static str,
    candidates: &'static str,
    exact: &'static str,
    sampled: &'static str,
}

/// The plan of `index`, derived from its [`Profile`] by the rules of [`super::fusion`].
pub fn derive(index: &Searcher) -> Plan {
    let profile = profile(index);
    let language_axis = index.language_axis().map(<[f32]>::to_vec);
    let shape_axis = index.shape_axis().map(<[f32]>::to_vec);
    let curated = profile.curated();
    let related = RelatedWeights::derive(index);
    let spelling = related.spelling > 0.0;
    let alignment = related.alignment > 0.0;
    let search_tokens = index.search_tokens().is_some();
    let on_off = |w: f32| {
        if w == 0.0 {
            "off".to_string()
        } else {
            format!("{w}")
        }
    };
    let sc = if profile.graph {
        Scopes {
            every: "graph candidates (HNSW neighbours, best 200 lexical and tag matches, builds_on relatives)",
            candidates: "graph candidates",
            exact: "standardized over a fixed 256-paper sample",
            sampled: "the graph's beam reaches recall@10 0.99; standardized over a fixed 256-paper sample",
        }
    } else {
        Scopes {
            every: "every paper",
            candidates: "every paper",
            exact: "exact",
            sampled: "exact",
        }
    };
    let alignment_off = format!(
        "needs papers described in 30+ words (the median paper), no curated evidence and at most {} papers (the build holds every paper's token states)",
        super::alignment::ALIGN_MAX_PAPERS
    );
    let search_off = format!(
        "needs papers described in 30+ words (the median paper) and at most {} papers (the build holds every paper's token states)",
        super::alignment::ALIGN_MAX_PAPERS
    );
    let reciprocal_approx = if profile.graph {
        "lists computed at build from graph candidates"
    } else {
        "lists computed at build, exact"
    };
    let mut signals = vec![
        line(
            ["related", "dense (centred e5 cosine)"],
            on_off(related.dense),
            [sc.every, sc.sampled],
            "always",
        ),
        line(
            ["related", "language axis (off the dense cosine)"],
            if language_axis.is_some() { "on" } else { "off" }.to_string(),
            ["every paper", "direction computed at build"],
            &if language_axis.is_some() {
                format!(
                    "{} papers have notes in Chinese and {} in English: the direction between \
                     their means is removed, so a paper's notes' language does not decide its \
                     related work",
                    profile.described_chinese, profile.described_english
                )
            } else {
                format!(
                    "needs at least {} papers with notes in Chinese and {} in English",
                    crate::index::evidence::LANGUAGE_AXIS_MIN_PAPERS,
                    crate::index::evidence::LANGUAGE_AXIS_MIN_PAPERS
                )
            },
        ),
        line(
            ["related", "shape axis (off the dense cosine)"],
            if shape_axis.is_some() { "on" } else { "off" }.to_string(),
            ["every paper", "direction computed at build"],
            &if shape_axis.is_some() {
                format!(
                    "{} papers are described at length and {} are bare titles: the direction \
                     between their means is removed, so being a bare title does not decide a \
                     paper's related work",
                    profile.described_at_length, profile.bare
                )
            } else {
                format!(
                    "needs at least {} papers described in 20+ words and {} bare titles",
                    crate::index::evidence::LANGUAGE_AXIS_MIN_PAPERS,
                    crate::index::evidence::LANGUAGE_AXIS_MIN_PAPERS
                )
            },
        ),
        line(
            ["related", "lexical (TF-IDF of specific terms)"],
            if related.lexical_follows_share {
                format!("{}, or share² when larger", related.lexical)
            } else {
                format!("{}", related.lexical)
            },
            [sc.candidates, sc.exact],
            if curated {
                "fixed: curated evidence carries the rest"
            } else {
                "follows how much of the list the seed shares a specific term with"
            },
        ),
        line(
            ["related", "curated tags"],
            on_off(related.tags),
            [sc.candidates, sc.exact],
            if related.tags > 0.0 {
                "the list carries tags of the curated vocabulary"
            } else {
                "no paper carries a curated tag"
            },
        ),
        line(
            ["related", "the list's own tags"],
            on_off(related.own_tags),
            [sc.candidates, sc.exact],
            if profile.own_tagged == 0 {
                "no keyword, category, collection or section is shared by 2 papers and at most half the list"
            } else if curated {
                "curated tags and links already say what the list's sections say"
            } else {
                "keywords, categories, collections and sections, IDF-weighted in this list"
            },
        ),
        line(
            ["related", "spelling (character 2-4-grams)"],
            on_off(related.spelling),
            [
                sc.candidates,
                if index.pooled_spelling().is_some() {
                    "each paper's 50 closest spellings, computed at build"
                } else {
                    sc.exact
                },
            ],
            if spelling {
                "a list of bare titles"
            } else {
                "the papers have notes or abstracts, not bare titles"
            },
        ),
        line(
            ["related", "token alignment"],
            on_off(related.alignment),
            [
                if !alignment {
                    "-"
                } else if index.alignment().is_some() {
                    "every pair"
                } else {
                    "each paper's 50 closest by dense and 50 by TF-IDF"
                },
                if alignment { "computed at build" } else { "-" },
            ],
            if alignment {
                "described papers, no curated evidence"
            } else {
                &alignment_off
            },
        ),
        line(
            ["related", "builds_on links"],
            if profile.linked > 0 {
                "+1.5 x (0.5 + 0.5 x specificity)".into()
            } else {
                "off".into()
            },
            [sc.candidates, "exact"],
            if profile.linked > 0 {
                "papers name what they build on"
            } else {
                "no builds_on links"
            },
        ),
        line(
            ["related", "feedback (best 5 candidates)"],
            format!("+{} x mean", fusion::LIKE_FEEDBACK),
            ["the best 5 candidates", sc.exact],
            "always",
        ),
        line(
            ["related", "reciprocal neighbours"],
            if related.reciprocal {
                format!("+{}", fusion::LIKE_RECIPROCAL)
            } else {
                "off".into()
            },
            [
                "the best 15 candidates against each one's 10 most related",
                if related.reciprocal {
                    reciprocal_approx
                } else {
                    "-"
                },
            ],
            if related.reciprocal {
                "no curated evidence"
            } else {
                "curated evidence is symmetric already"
            },
        ),
    ];
    signals.extend([
        line(
            ["search", "dense (query-passage cosine)"],
            "1".into(),
            [
                if profile.graph {
                    "graph neighbours"
                } else {
                    "every paper"
                },
                sc.sampled,
            ],
            "always",
        ),
        line(
            ["search", "BM25 (with glossary translations)"],
            "1, or the best match's share (Latin query)".into(),
            ["the best 200 by dense and by BM25", "exact"],
            "always",
        ),
        line(
            ["search", "token matching"],
            if search_tokens {
                format!("{}", fusion::SEARCH_TOKENS)
            } else {
                "off".into()
            },
            [
                if search_tokens {
                    "the best 200 by dense and by BM25"
                } else {
                    "-"
                },
                if !search_tokens {
                    "-"
                } else if index.len() > super::alignment::MAX_PAPERS {
                    "each paper's 64 rarest tokens, projected on 128 directions, stored at build"
                } else {
                    "states projected on 128 directions, stored at build"
                },
            ],
            if search_tokens {
                "described papers"
            } else {
                &search_off
            },
        ),
        line(
            ["search", "named curated tags"],
            if profile.curated_tagged > 0 {
                format!("{}", fusion::SEARCH_TAGS)
            } else {
                "off".into()
            },
            ["the best 200 by dense and by BM25", "exact"],
            if profile.curated_tagged > 0 {
                "the list carries curated tags"
            } else {
                "no paper carries a curated tag"
            },
        ),
    ]);
    let scope = if profile.graph {
        "candidates: graph neighbours, best lexical and tag matches, builds_on relatives; \
         each signal standardized over a fixed 256-paper sample, filters only remove results \
         (--exact: every paper scored, nothing else changes)"
            .to_string()
    } else {
        "every paper scored; each signal standardized over the candidates; filters only \
         remove results"
            .to_string()
    };
    Plan {
        profile,
        related,
        signals,
        scope,
        language_axis,
        shape_axis,
    }
}

fn line(
    [ranking, signal]: [&str; 2],
    weight: String,
    [scope, approximation]: [&str; 2],
    why: &str,
) -> SignalLine {
    SignalLine {
        ranking: ranking.to_string(),
        signal: signal.to_string(),
        weight,
        scope: scope.to_string(),
        approximation: approximation.to_string(),
        why: why.to_string(),
    }
}

/// The [`Profile`] of `index`.
pub fn profile(index: &Searcher) -> Profile {
    let table = index.table();
    let n = index.len();
    let own = index.own_tags(true);
    let languages = crate::index::evidence::languages(&table);
    let shapes = crate::index::evidence::shapes(&table);
    let cjk = (0..n)
        .filter(|&i| {
            table.highlight(i).chars().any(crate::text::is_cjk)
                || table.title(i).chars().any(crate::text::is_cjk)
                || table.summary(i).chars().any(crate::text::is_cjk)
        })
        .count();
    Profile {
        papers: n,
        curated_tagged: (0..n).filter(|&i| !table.tags(i).is_empty()).count(),
        linked: (0..n).filter(|&i| !table.builds_on(i).is_empty()).count(),
        own_tagged: (0..n).filter(|&i| own.has_any(i)).count(),
        described: super::reference::described(
            index,
            &(0..n).step_by(n.div_ceil(1000).max(1)).collect::<Vec<_>>(),
        ),
        bare_titles: crate::index::evidence::Spelling::is_for(&table),
        cjk_share: cjk as f32 / n.max(1) as f32,
        described_chinese: languages.iter().filter(|l| **l == Some(true)).count(),
        described_english: languages.iter().filter(|l| **l == Some(false)).count(),
        described_at_length: shapes.iter().filter(|l| **l == Some(true)).count(),
        bare: shapes.iter().filter(|l| **l == Some(false)).count(),
        graph: index.len() >= crate::index::GRAPH_MIN_PAPERS && index.graph().is_some(),
    }
}
