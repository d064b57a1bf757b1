//! The ranking plan: which signals a list's rankings use, with which weight, over which
//! candidates, derived once from what the list holds.
//!
//! A list is measured into a [`Profile`] (size, curated evidence, its own tags, described or
//! bare titles, languages, whether queries use the stored graph), and the [`Plan`] follows from
//! the profile by the rules of [`super::fusion`]. The engine takes its weights from the plan
//! ([`Plan::related`]), so what `recommend show --plan` prints and what `recommend index`
//! reports after a build is what every ranking runs. A signal that does not apply to the list
//! has weight zero and says why.

use serde::Serialize;

use super::fusion;
use crate::index::Index;

/// What a list holds that decides its plan.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Profile {
    pub papers: usize,
    /// Papers carrying a tag of the curated vocabulary (`src/corpus/tags.txt`).
    pub curated_tagged: usize,
    /// Papers with at least one `builds_on` link.
    pub linked: usize,
    /// Papers carrying one of the list's own tags that weighs anything (keywords, categories,
    /// collections, sections shared by 2 to half of the list).
    pub own_tagged: usize,
    /// Whether the median paper is described in 30 words or more (abstracts, long notes).
    pub described: bool,
    /// Whether under half the papers have any text beyond their names.
    pub bare_titles: bool,
    /// Share of papers whose text has Chinese (CJK) characters.
    pub cjk_share: f32,
    /// Whether queries take candidates from the stored HNSW graph (2,000 papers or more, not
    /// `--exact`).
    pub graph: bool,
}

impl Profile {
    /// Whether the list has curated evidence: curated tags or `builds_on` links.
    pub fn curated(&self) -> bool {
        self.curated_tagged > 0 || self.linked > 0
    }
}

impl RelatedWeights {
    /// The weights for `index`, from evidence the index holds or caches (cheap on every
    /// query; the same rules as the printed [`Plan`]).
    pub fn of(index: &Index) -> RelatedWeights {
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
            spelling: on(index.spelling().is_some(), fusion::LIKE_SPELLING),
            alignment: on(index.alignment().is_some(), fusion::LIKE_ALIGNMENT),
            reciprocal: !index.uses_graph() && !curated,
        }
    }
}

/// The weights of related work's fused signals ([`super::retrieve`]); zero means off.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RelatedWeights {
    pub dense: f32,
    /// The lexical weight's floor; with `lexical_follows_share` the weight is the larger of
    /// the floor and the square of the share of the list the seed shares a specific term with.
    pub lexical: f32,
    pub lexical_follows_share: bool,
    pub tags: f32,
    pub own_tags: f32,
    pub spelling: f32,
    pub alignment: f32,
    /// Whether reciprocal neighbours are added after the fusion.
    pub reciprocal: bool,
}

impl RelatedWeights {
    /// The lexical weight for a seed sharing specific terms with `share` of the list.
    pub fn lexical_for(&self, share: f32) -> f32 {
        fusion::like_lexical_weight(share, !self.lexical_follows_share)
    }
}

/// One line of the printed plan.
#[derive(Debug, Clone, Serialize)]
pub struct SignalLine {
    pub ranking: &'static str,
    pub signal: &'static str,
    /// The weight as a number or a rule ("0.3, or share² when larger"); "off" when it does not
    /// apply.
    pub weight: String,
    /// Why it is on or off for this list.
    pub why: String,
}

/// A list's ranking plan.
#[derive(Debug, Clone, Serialize)]
pub struct Plan {
    pub profile: Profile,
    pub related: RelatedWeights,
    /// Every signal with its weight and why, related work then search.
    pub signals: Vec<SignalLine>,
    /// Which candidates a query scores.
    pub scope: String,
}

impl Plan {
    /// The plan of `index`, from its [`Profile`].
    pub fn of(index: &Index) -> Plan {
        let profile = profile(index);
        let curated = index.has_curated_evidence();
        let related = RelatedWeights::of(index);
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
        let mut signals = vec![
            line(
                "related",
                "dense (centred e5 cosine)",
                on_off(related.dense),
                "always",
            ),
            line(
                "related",
                "lexical (TF-IDF of specific terms)",
                if related.lexical_follows_share {
                    format!("{}, or share² when larger", related.lexical)
                } else {
                    format!("{}", related.lexical)
                },
                if curated {
                    "fixed: curated evidence carries the rest"
                } else {
                    "follows how much of the list the seed shares a specific term with"
                },
            ),
            line(
                "related",
                "curated tags",
                on_off(related.tags),
                if related.tags > 0.0 {
                    "the list carries tags of the curated vocabulary"
                } else {
                    "no paper carries a curated tag"
                },
            ),
            line(
                "related",
                "the list's own tags",
                on_off(related.own_tags),
                if profile.own_tagged == 0 {
                    "no keyword, category, collection or section is shared by 2 papers and at most half the list"
                } else if curated {
                    "curated tags and links already say what the list's sections say"
                } else {
                    "keywords, categories, collections and sections, IDF-weighted in this list"
                },
            ),
            line(
                "related",
                "spelling (character 2-4-grams)",
                on_off(related.spelling),
                if spelling {
                    "a list of bare titles under 2,000 papers"
                } else {
                    "the papers are described, or the list is large"
                },
            ),
            line(
                "related",
                "token alignment",
                on_off(related.alignment),
                if alignment {
                    "described papers, no curated evidence, 3-500 papers (measured at build)"
                } else {
                    "needs described papers, no curated evidence and 3-500 papers"
                },
            ),
            line(
                "related",
                "builds_on links",
                if profile.linked > 0 {
                    "+1.5 x (0.5 + 0.5 x specificity)".into()
                } else {
                    "off".into()
                },
                if profile.linked > 0 {
                    "papers name what they build on"
                } else {
                    "no builds_on links"
                },
            ),
            line(
                "related",
                "feedback (best 5 candidates)",
                format!("+{} x mean", fusion::LIKE_FEEDBACK),
                "always",
            ),
            line(
                "related",
                "reciprocal neighbours",
                if related.reciprocal {
                    format!("+{}", fusion::LIKE_RECIPROCAL)
                } else {
                    "off".into()
                },
                if related.reciprocal {
                    "no curated evidence; every paper scored"
                } else if curated {
                    "curated evidence is symmetric already"
                } else {
                    "the graph answers this index's queries"
                },
            ),
        ];
        signals.extend([
            line(
                "search",
                "dense (query-passage cosine)",
                "1".into(),
                "always",
            ),
            line(
                "search",
                "BM25 (with glossary translations)",
                "1, or the best match's share (Latin query)".into(),
                "always",
            ),
            line(
                "search",
                "token matching",
                if search_tokens {
                    format!("{}", fusion::SEARCH_TOKENS)
                } else {
                    "off".into()
                },
                if search_tokens {
                    "described papers, 3-500 papers (states stored at build)"
                } else {
                    "needs described papers and 3-500 papers"
                },
            ),
            line(
                "search",
                "named curated tags",
                if profile.curated_tagged > 0 {
                    format!("{}", fusion::SEARCH_TAGS)
                } else {
                    "off".into()
                },
                if profile.curated_tagged > 0 {
                    "the list carries curated tags"
                } else {
                    "no paper carries a curated tag"
                },
            ),
        ]);
        let scope = if profile.graph {
            "candidates: graph neighbours, best lexical and tag matches, builds_on relatives; \
             each signal standardized over a fixed 256-paper sample"
                .to_string()
        } else {
            "every paper scored; each signal standardized over the candidates".to_string()
        };
        Plan {
            profile,
            related,
            signals,
            scope,
        }
    }

    /// The plan as text: the profile in a line, then one line per signal.
    pub fn describe(&self) -> String {
        let p = &self.profile;
        let mut out = format!(
            "plan for {} papers: {} with curated tags, {} with builds_on links, {} with own tags; \
             {}; {:.0}% with Chinese text\n{}\n",
            p.papers,
            p.curated_tagged,
            p.linked,
            p.own_tagged,
            if p.bare_titles {
                "bare titles"
            } else if p.described {
                "described (median 30+ words)"
            } else {
                "short notes"
            },
            100.0 * p.cjk_share,
            self.scope,
        );
        for s in &self.signals {
            out.push_str(&format!(
                "  {:<8} {:<36} {:<44} {}\n",
                s.ranking, s.signal, s.weight, s.why
            ));
        }
        out
    }
}

fn line(ranking: &'static str, signal: &'static str, weight: String, why: &str) -> SignalLine {
    SignalLine {
        ranking,
        signal,
        weight,
        why: why.to_string(),
    }
}

/// The [`Profile`] of `index`.
pub fn profile(index: &Index) -> Profile {
    let table = index.table();
    let n = index.len();
    let own = index.own_tags(true);
    let cjk = (0..n)
        .filter(|&i| {
            table.highlight(i).chars().any(crate::text::is_cjk)
                || table.title(i).chars().any(crate::text::is_cjk)
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
        graph: index.uses_graph(),
    }
}
