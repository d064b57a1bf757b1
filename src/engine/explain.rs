//! Why a paper is in a result list, in words a researcher can check: a `builds_on` link,
//! the curated tags two papers share, the specific terms they share (never a word most papers
//! of the corpus use: those carry no weight in the lexical index), and where the paper stands
//! among the candidates. One module for `--like`, search and reading paths, so every command
//! explains itself the same way.

use std::borrow::Cow;

use super::retrieve::Mode;
use crate::index::Index;
use crate::index::evidence::Relation;
use crate::text::{WordForms, join_phrases};

/// Most terms quoted in one reason.
const MAX_TERMS: usize = 3;
/// Most tags quoted in one reason.
const MAX_TAGS: usize = 3;

fn quote(terms: &[String]) -> String {
    terms
        .iter()
        .map(|t| format!("'{t}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// "top 3% of 140": the scale every command reports similarity on.
pub fn standing(percentile: f32, candidates: usize) -> String {
    let top = ((1.0 - percentile) * 100.0).ceil().max(1.0);
    format!("top {top:.0}% of {candidates}")
}

/// The `builds_on` link between `a` and `b`, told from `b`'s side ("builds on GRPO").
pub fn relation(index: &Index, a: usize, b: usize) -> Option<String> {
    let title = |i: usize| index.table().title(i).into_owned();
    Some(match index.relations().between(b, a)? {
        Relation::BuildsOn => format!("builds on {}", title(a)),
        Relation::BuiltOnBy => format!("{} builds on it", title(a)),
        Relation::SharedParent(p) => format!("both build on {}", title(p)),
    })
}

/// The tags `a` and `b` share, rarest first ("both web-agent, multi-turn").
pub fn shared_tags(index: &Index, a: usize, b: usize) -> Option<String> {
    let tags = index.tags();
    if tags.is_empty() {
        return None;
    }
    let shared: Vec<&str> = tags.shared(a, b).into_iter().take(MAX_TAGS).collect();
    (!shared.is_empty()).then(|| format!("both {}", shared.join(", ")))
}

/// The specific terms `a` and `b` share, as phrases ("shares 'webarena', '网页'").
pub fn shared_terms(index: &Index, a: usize, b: usize) -> Option<String> {
    let mut shared = index.lexical().shared_terms(a, b, 4 * MAX_TERMS);
    if shared.is_empty() {
        return None;
    }
    // A word that only the long summaries share is usually the prose they are written in
    // ("tackles", "reports", "plus"); what a summary alone can vouch for is a name (ALFWorld,
    // AIME24, MuJoCo). The title, aliases and highlight say what the paper is.
    // Chinese terms are kept as they are, so only the Latin words of the short fields are
    // needed: the Chinese text is blanked, which also spares loading the segmenter here.
    let papers = [index.paper(a), index.paper(b)];
    let short: std::collections::HashSet<String> = papers
        .iter()
        .flat_map(|p| {
            let text: String = format!("{} {} {}", p.title, p.aliases.join(" "), p.highlight)
                .chars()
                .map(|c| if crate::text::is_cjk(c) { ' ' } else { c })
                .collect();
            crate::text::terms(&text)
        })
        .collect();
    let mut names: Option<std::collections::HashSet<String>> = None;
    shared.retain(|t| {
        t.chars().any(crate::text::is_cjk)
            || short.contains(t)
            || names
                .get_or_insert_with(|| {
                    papers
                        .iter()
                        .flat_map(|p| crate::text::names_in(&p.summary))
                        .collect()
                })
                .contains(t)
    });
    let forms = [index.word_forms(a), index.word_forms(b)];
    let terms: Vec<String> = shared.iter().filter_map(|t| readable(t, &forms)).collect();
    let mut phrases = join_phrases(&terms, &[forms[0].folded(), forms[1].folded()]);
    phrases.truncate(MAX_TERMS);
    (!phrases.is_empty()).then(|| format!("shares {}", quote(&phrases)))
}

/// A term as a person reads it in the first of `texts`, when every text holds it as a word of
/// its own or an inflection of one, not only inside a longer name ("seek" in "DeepSeek").
fn readable(term: &str, texts: &[impl std::ops::Deref<Target = WordForms>; 2]) -> Option<String> {
    let shown = texts[0].surface(term)?;
    texts[1].surface(term).is_some().then_some(shown)
}

/// Why `hit` is related to `seeds`.
pub fn related(index: &Index, seeds: &[usize], hit: usize, percentile: f32, mode: Mode) -> String {
    let mut parts: Vec<String> = Vec::new();
    for &s in seeds {
        if let Some(r) = relation(index, s, hit) {
            parts.push(r);
        }
    }
    if mode != Mode::Lexical
        && let Some(t) = seeds.iter().find_map(|&s| shared_tags(index, s, hit))
    {
        parts.push(t);
    }
    if let Some(t) = seeds.iter().find_map(|&s| shared_terms(index, s, hit)) {
        parts.push(t);
    }
    let candidates = index.len().saturating_sub(seeds.len());
    parts.push(format!(
        "{} by similarity",
        standing(percentile, candidates)
    ));
    parts.join("; ")
}

/// Why `hit` answers `query`.
pub fn search(index: &Index, query: &str, hit: usize, percentile: f32, with_dense: bool) -> String {
    let mut parts = Vec::new();
    let expanded = format!("{query} {}", crate::text::glossary::translations(query));
    let forms = [Cow::Owned(WordForms::of(&expanded)), index.word_forms(hit)];
    let terms: Vec<String> = index
        .lexical()
        .matched_terms(&expanded, hit, 4 * MAX_TERMS)
        .iter()
        .filter_map(|t| readable(t, &forms))
        .collect();
    let mut terms = join_phrases(&terms, &[&expanded, forms[1].folded()]);
    terms.truncate(MAX_TERMS + 1);
    if !terms.is_empty() {
        parts.push(format!("matches {}", quote(&terms)));
    }
    if with_dense && terms.is_empty() {
        parts.push("close in meaning".to_string());
    }
    parts.push(format!(
        "{} by relevance",
        standing(percentile, index.len())
    ));
    parts.join("; ")
}
