//! Why a paper is in a result list, in words a researcher can check: a `builds_on` link,
//! the curated tags two papers share, the specific terms they share (never a word most papers
//! of the corpus use: those carry no weight in the lexical index), and where the paper stands
//! among the candidates. One module for `--like`, search and reading paths, so every command
//! explains itself the same way.

use std::borrow::Cow;

use super::retrieve::Mode;
use crate::corpus::paper::problem_name;
use crate::index::Searcher;
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
pub fn relation(index: &Searcher, a: usize, b: usize) -> Option<String> {
    let title = |i: usize| index.table().title(i).into_owned();
    Some(match index.relations().between(b, a)? {
        Relation::BuildsOn => format!("builds on {}", title(a)),
        Relation::BuiltOnBy => format!("{} builds on it", title(a)),
        Relation::SharedParent(p) => format!("both build on {}", title(p)),
    })
}

/// The tags `a` and `b` share: the research problem first, by name, then the other tags
/// rarest first ("same problem: Tool-integrated reasoning; both multimodal, multi-turn").
pub fn shared_tags(index: &Searcher, a: usize, b: usize) -> Option<String> {
    let tags = index.tags();
    if tags.is_empty() {
        return None;
    }
    let (problems, others): (Vec<&str>, Vec<&str>) = tags
        .shared(a, b)
        .into_iter()
        .partition(|t| problem_name(t).is_some());
    let mut parts = Vec::new();
    if !problems.is_empty() {
        let names: Vec<&str> = problems.iter().filter_map(|t| problem_name(t)).collect();
        parts.push(format!("same problem: {}", names.join(", ")));
    }
    let others: Vec<&str> = others.into_iter().take(MAX_TAGS).collect();
    if !others.is_empty() {
        parts.push(format!("both {}", others.join(", ")));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// The list's own tags (keywords, categories, collections, sections) `a` and `b` share,
/// heaviest first ("both tagged 'segmentation', 'vision/segmentation'"): the evidence the
/// own-tags signal scores, said as the curated tags are.
pub fn shared_own_tags(index: &Searcher, a: usize, b: usize) -> Option<String> {
    let names: Vec<String> = index
        .own_tags(true)
        .shared(a, b)
        .into_iter()
        .take(MAX_TAGS)
        .map(str::to_string)
        .collect();
    (!names.is_empty()).then(|| format!("both tagged {}", quote(&names)))
}

/// The specific terms `a` and `b` share, as phrases ("shares 'webarena', '网页'").
pub fn shared_terms(index: &Searcher, a: usize, b: usize) -> Option<String> {
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

/// Titles [`spelled_alike`] reads to tell a rare stretch from a common one: every title of a
/// list under 4,000 papers, an evenly spaced sample of 2,000 to 3,999 of a larger one.
const RARITY_SAMPLE: usize = 2_000;

/// Shortest shared stretch of a name [`spelled_alike`] cites.
const MIN_SPELLED: usize = 3;

/// On a list of bare titles (where spelling is a signal, `index::evidence::Spelling`): the
/// longest stretch of letters and digits the coined names in the titles of `a` and `b` share
/// ("apo" of DAPO and VAPO), when it is at least [`MIN_SPELLED`] long and rare among the
/// titles (at most [`crate::index::lexical::CITED_MAX_DF`] of them, or two): what the
/// spelling signal saw. Ordinary words are left to [`shared_terms`]: a stretch of two of them
/// ("generati", "ction") is a coincidence of English, not of naming.
pub fn spelled_alike(index: &Searcher, a: usize, b: usize) -> Option<String> {
    index.has_spelling().then_some(())?;
    let table = index.table();
    let (ta, tb) = (table.title(a), table.title(b));
    let shared = shared_part(&ta, &tb)?;
    if !crate::text::is_telling(&shared) {
        return None;
    }
    // The share of titles carrying it, counted over at most RARITY_SAMPLE evenly spaced titles:
    // a list of 100,000 bare titles would otherwise lowercase every title for every result.
    let n = index.len();
    let step = (n / RARITY_SAMPLE).max(1);
    let looked = n.div_ceil(step);
    let carriers = (0..n)
        .step_by(step)
        .filter(|&i| table.title(i).to_lowercase().contains(&shared))
        .count();
    let rare =
        carriers <= 2 || carriers as f32 <= crate::index::lexical::CITED_MAX_DF * looked as f32;
    rare.then_some(shared)
}

/// The coined names of a title as written: words in capitals (GRPO), with a capital or a digit
/// after their first character (WebAgent, R1, rStar2).
fn coined_words(title: &str) -> impl Iterator<Item = &str> {
    title.split(|c: char| !c.is_alphanumeric()).filter(|w| {
        let letters = w.chars().filter(|c| c.is_alphabetic()).count();
        w.chars()
            .skip(1)
            .any(|c| c.is_uppercase() || c.is_ascii_digit())
            || (letters >= 2 && w.chars().all(|c| !c.is_lowercase()))
    })
}

/// The coined names of a title, lowercase, separated by spaces.
fn coined(title: &str) -> String {
    coined_words(title)
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// One coined name, lowercase, with the positions where its CamelCase parts begin and end
/// (0 and its length included).
struct NameParts {
    lower: Vec<char>,
    bounds: Vec<usize>,
}

/// The coined names of `title` split into parts: a part begins at a capital after a small
/// letter (Deep|Seek), or at the last capital of a run of them before a small letter
/// (GUI|Agent). A name whose lowercase has another length (a few non-Latin letters) is left
/// out.
fn name_parts(title: &str) -> Vec<NameParts> {
    coined_words(title)
        .filter_map(|word| {
            let chars: Vec<char> = word.chars().collect();
            let lower: Vec<char> = word.to_lowercase().chars().collect();
            if lower.len() != chars.len() {
                return None;
            }
            let mut bounds: Vec<usize> = vec![0];
            bounds.extend((1..chars.len()).filter(|&i| {
                chars[i].is_uppercase()
                    && (chars[i - 1].is_lowercase()
                        || (chars[i - 1].is_uppercase()
                            && chars.get(i + 1).is_some_and(|c| c.is_lowercase())))
            }));
            bounds.push(chars.len());
            Some(NameParts { lower, bounds })
        })
        .collect()
}

/// The longest run of letters and digits the coined names of `a` and `b` share (at least
/// [`MIN_SPELLED`] long) that is a part of its own in at least one of the names: it
/// lies inside one CamelCase part, or begins and ends where parts do ("deepseek" of two
/// DeepSeek-Prover titles, "tir" of SimpleTIR and AutoTIR). A stretch that runs from inside
/// one part into the next in both names ("tot" of AutoTIR and OctoTools, "otir" of AutoTIR and
/// ZeroTIR) is a coincidence of spelling, and the shorter shared part is cited instead.
fn shared_part(a: &str, b: &str) -> Option<String> {
    let (ca, cb) = (coined(a), coined(b));
    let chars: Vec<char> = ca.chars().collect();
    let mut runs: Vec<String> = Vec::new();
    for i in 0..chars.len() {
        for j in i + MIN_SPELLED..=chars.len() {
            if !chars[i..j].iter().all(|c| c.is_alphanumeric()) {
                break;
            }
            let run: String = chars[i..j].iter().collect();
            if cb.contains(&run) {
                runs.push(run);
            }
        }
    }
    // longest first; on a tie, the first in `a` (a stable sort keeps the scan's order)
    runs.sort_by_key(|r| std::cmp::Reverse(r.chars().count()));
    let (pa, pb) = (name_parts(a), name_parts(b));
    runs.into_iter()
        .find(|r| !(straddles_parts(&pa, r) && straddles_parts(&pb, r)))
}

/// Whether every occurrence of `stretch` (lowercase) in `names` runs from inside one part into
/// the next ("auto|TIR", "Octo|Tools"); false when it occurs inside a part or spans whole parts
/// somewhere, or not at all.
fn straddles_parts(names: &[NameParts], stretch: &str) -> bool {
    let stretch: Vec<char> = stretch.chars().collect();
    let mut seen = false;
    for NameParts { lower, bounds } in names {
        for at in (0..lower.len()).filter(|&i| lower[i..].starts_with(&stretch)) {
            seen = true;
            let end = at + stretch.len();
            let inside_one = !bounds.iter().any(|&b| at < b && b < end);
            let whole_parts = bounds.contains(&at) && bounds.contains(&end);
            if inside_one || whole_parts {
                return false;
            }
        }
    }
    seen
}

/// A term as a person reads it in the first of `texts`, when every text holds it as a word of
/// its own or an inflection of one, not only inside a longer name ("seek" in "DeepSeek").
fn readable(term: &str, texts: &[impl std::ops::Deref<Target = WordForms>; 2]) -> Option<String> {
    let shown = texts[0].surface(term)?;
    texts[1].surface(term).is_some().then_some(shown)
}

/// Below this share of a list's related-work links ([`crate::index::Index::link_strengths`]),
/// a result is called a weak link: "top 3% by similarity" is true of the fourth result of any
/// seed, however few papers relate to it. On the judged sets results in the weakest quarter
/// are judged unrelated several times as often as the rest (BENCHMARKS.md, Quality on the
/// shipped list and Imported lists).
pub const WEAK_LINK: f32 = 0.25;

/// Whether a result at `link_strength` (see [`crate::engine::Hit::link_strength`]) is a weak
/// link for its list; `None` (not measured) never is.
pub fn is_weak_link(link_strength: Option<f32>) -> bool {
    link_strength.is_some_and(|s| s < WEAK_LINK)
}

/// Why `hit` is related to `seeds`.
pub fn related(
    index: &Searcher,
    seeds: &[usize],
    hit: usize,
    percentile: f32,
    link_strength: Option<f32>,
    mode: Mode,
) -> String {
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
    if mode != Mode::Lexical
        && super::plan::weights(index).own_tags > 0.0
        && let Some(t) = seeds.iter().find_map(|&s| shared_own_tags(index, s, hit))
    {
        parts.push(t);
    }
    let terms = seeds.iter().find_map(|&s| shared_terms(index, s, hit));
    if let Some(name) = seeds.iter().find_map(|&s| spelled_alike(index, s, hit))
        && !terms.as_deref().unwrap_or("").contains(&name)
    {
        parts.push(format!("names alike ('{name}')"));
    }
    parts.extend(terms);
    let candidates = index.len().saturating_sub(seeds.len());
    let weak = if is_weak_link(link_strength) {
        ", but a weak link for this list"
    } else {
        ""
    };
    parts.push(format!(
        "{} by similarity{weak}",
        standing(percentile, candidates)
    ));
    parts.join("; ")
}

/// What `why` says first on every result of a search that is a weak match for its list.
pub const WEAK_MATCH_NOTE: &str = "a weak match for this list";

/// Why `hit` answers `query`: the query's words it matches, the tags among `named_tags` (the
/// curated tags the query names, `Tags::named_in`) it carries, and its standing; `weak` when
/// the query's best match is weak for the list ([`crate::engine::reference::weak_match`]).
pub fn search(
    index: &Searcher,
    query: &str,
    named_tags: &[(u32, &str)],
    hit: usize,
    percentile: f32,
    with_dense: bool,
    weak: bool,
) -> String {
    let mut parts = Vec::new();
    let expanded = format!(
        "{query} {} {}",
        crate::text::glossary::translations(query),
        index.lexical().acronyms(query).join(" ")
    );
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
    let tags: Vec<String> = named_tags
        .iter()
        .filter(|&&(t, _)| index.tags().carries(hit, t))
        .map(|&(_, name)| name.to_string())
        .collect();
    if !tags.is_empty() {
        parts.push(format!("tagged {}", quote(&tags)));
    }
    // A weak match is said first, where a table's cut cannot hide it, and its best is only the
    // nearest in meaning: nothing in the list is close to the query.
    if with_dense && terms.is_empty() && tags.is_empty() {
        parts.push(
            if weak {
                "nearest in meaning"
            } else {
                "close in meaning"
            }
            .to_string(),
        );
    }
    if weak {
        parts.insert(0, WEAK_MATCH_NOTE.to_string());
    }
    parts.push(format!(
        "{} by relevance",
        standing(percentile, index.len())
    ));
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use super::{coined, name_parts, shared_part, straddles_parts};

    #[test]
    fn a_stretch_across_two_parts_of_both_names_is_no_shared_part() {
        let (a, b) = (
            "AutoTIR: Autonomous Tools",
            "OctoTools: an agentic framework",
        );
        assert!(straddles_parts(&name_parts(a), "tot") && straddles_parts(&name_parts(b), "tot"));
        assert_eq!(shared_part(a, b), None);
        // the part they do share is cited, not the longer stretch across parts
        assert_eq!(
            shared_part("AutoTIR: tools", "ZeroTIR: scaling").as_deref(),
            Some("tir")
        );
        // whole parts across a boundary are a shared name
        assert_eq!(
            shared_part("DeepSeek-Prover-V1.5", "DeepSeek-Prover-V2").as_deref(),
            Some("deepseek")
        );
        assert_eq!(
            shared_part("InfiGUIAgent", "InfiGUI-R1").as_deref(),
            Some("infigui")
        );
        assert_eq!(shared_part("DAPO", "VAPO").as_deref(), Some("apo"));
        // inside a part of either name: shared naming
        assert!(!straddles_parts(
            &name_parts("SimpleTIR: end-to-end RL"),
            "tir"
        ));
        assert!(!straddles_parts(
            &name_parts("DAPO: an open-source system"),
            "apo"
        ));
        assert!(!straddles_parts(&name_parts("WebAgent-R1"), "agent"));
        // not there at all: nothing straddles
        assert!(!straddles_parts(&name_parts("GRPO"), "tot"));
    }

    #[test]
    fn coined_names_are_the_words_with_inner_capitals_or_digits() {
        assert_eq!(coined("DAPO: An Open-Source LLM RL System"), "dapo llm rl");
        assert_eq!(
            coined("WebAgent-R1 for rStar2 agents"),
            "webagent r1 rstar2"
        );
        assert_eq!(coined("Evaluating General Agents"), "");
    }

    #[test]
    fn a_shared_part_stays_within_letters_and_digits_of_coined_names() {
        assert_eq!(shared_part("DAPO", "VAPO").as_deref(), Some("apo"));
        // "-r1" is not a run (the hyphen is not a letter), and "r1" is shorter than a part
        // worth citing; "Searcher" is an ordinary word, not a coined name
        assert_eq!(shared_part("Search-R1", "R1-Searcher"), None);
        assert_eq!(
            shared_part("rStar2-Agent", "rStar-Math").as_deref(),
            Some("rstar")
        );
        assert_eq!(shared_part("GRPO", "XYZ"), None);
    }
}
