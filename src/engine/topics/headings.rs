//! Section headings for clusters of a list without curated tags: the multi-word phrase of the
//! members' titles (and, on a list written partly in Chinese, of their Chinese text) that is
//! most particular to the cluster, in the words the titles use ("Web agents", "Tool-integrated
//! reasoning · 工具调用"). A keyword list ("entropy", "rubric · deep") names words a cluster
//! shares; a heading names what its papers are about, which a reader of section headings expects.
//!
//! A phrase is two or three words of one title clause with no function word inside, or two
//! adjacent words of jieba's cut of a Chinese run. It is scored as the curated tag labels are
//! (`labels::tag_label`): coverage (share of the cluster's papers using it) times concentration
//! (share of the papers using it that are in the cluster), so a phrase every cluster uses
//! ("large language models", "reinforcement learning" in an RL list) names none of them.

use std::collections::{BTreeMap, BTreeSet};

use crate::corpus::Paper;
use crate::text;

/// One paper's phrases: key (lowercase, last English word stemmed) -> the surface its text uses.
pub(super) type Phrases = BTreeMap<String, String>;

/// A phrase must be used by at least this many of a cluster's papers to head it.
const MIN_PAPERS: usize = 2;

/// A second phrase joins the first ("A and B") when it scores at least this share of the first.
const SECOND_SHARE: f64 = 0.5;

/// A phrase on more than this share of the list names the field, not one of its topics.
const MAX_LIST_SHARE: f64 = 0.2;

/// A phrase heads a cluster only when at least this share of the papers using it are in it.
const MIN_CONCENTRATION: f64 = 0.34;

/// A phrase holding one of the cluster's three most distinctive keywords (its c-TF-IDF words)
/// names what sets the cluster apart: its score counts this much more.
const KEYWORD_BONUS: f64 = 1.5;

/// A list whose papers have Chinese text at least this often gets a Chinese phrase too.
const CHINESE_SHARE: f64 = 0.3;

/// Words that end a clause of a title, not only function words: a heading does not start or end
/// with them ("towards", "via", "using").
const BREAKS: &[&str] = &[
    "towards",
    "toward",
    "via",
    "using",
    "based",
    "through",
    "beyond",
    "without",
    "versus",
    "vs",
    "new",
    "novel",
    "simple",
    "better",
    "improving",
    "enhancing",
    "boosting",
    "scaling",
    "large",
];

/// The phrases of each paper, computed once for every cluster of the list.
pub(super) fn paper_phrases(papers: &[Paper]) -> Vec<Phrases> {
    papers
        .iter()
        .map(|p| {
            let mut out = Phrases::new();
            // The title first: where a phrase is in it, the heading spells it as the title does.
            // English phrases come from the title and the note, never an abstract, whose
            // sentences put verbs beside the nouns ("lets LLM agents", "beats DPO").
            for part in [&p.title, &p.highlight] {
                english_phrases(&text::fold_width(part), &mut out);
            }
            for part in [&p.title, &p.highlight, &p.summary] {
                chinese_phrases(&text::fold_width(part), &mut out);
            }
            out
        })
        .collect()
}

/// Whether the list is written in Chinese often enough that its headings carry Chinese.
pub(super) fn chinese_list(papers: &[Paper]) -> bool {
    let with = papers
        .iter()
        .filter(|p| {
            [&p.title, &p.highlight, &p.summary]
                .iter()
                .any(|t| t.chars().any(text::is_cjk))
        })
        .count();
    with as f64 >= CHINESE_SHARE * papers.len() as f64
}

/// Two- and three-word runs of each clause of `title` (a title or a sentence).
fn english_phrases(title: &str, out: &mut Phrases) {
    let mut clause: Vec<&str> = Vec::new();
    let flush = |clause: &mut Vec<&str>, out: &mut Phrases| {
        for n in [2, 3] {
            for w in clause.windows(n) {
                let key: Vec<String> = w
                    .iter()
                    .enumerate()
                    .map(|(i, word)| {
                        let lower = word.to_lowercase();
                        if i + 1 == w.len() {
                            text::stem(&lower)
                        } else {
                            lower
                        }
                    })
                    .collect();
                out.entry(key.join(" ")).or_insert_with(|| heading_case(w));
            }
        }
        clause.clear();
    };
    // A clause ends where the title's punctuation ends one (":", ",", "(").
    for part in title.split(|c: char| ":;,.!?()[]".contains(c)) {
        for token in part.split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '\'')) {
            let word = token.trim_matches(|c| c == '-' || c == '\'');
            let lower = word.to_lowercase();
            let is_word = word.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && word.chars().count() >= 2
                && !word.chars().any(text::is_cjk);
            if !is_word || text::is_stopword(&lower) || BREAKS.contains(&lower.as_str()) {
                flush(&mut clause, out);
            } else {
                clause.push(word);
            }
        }
        flush(&mut clause, out);
    }
}

/// Words as a heading writes them: the first capitalized, names and acronyms as written
/// ("GUI", "WebAgent"), every other word lowercase ("Web Agents" -> "Web agents"), each part
/// of a hyphenated word on its own ("Multi-Turn" -> "multi-turn", "LLM-Based" -> "LLM-based").
fn heading_case(words: &[&str]) -> String {
    let part = |p: &str| {
        if text::is_name(p) {
            p.to_string()
        } else {
            p.to_lowercase()
        }
    };
    let text = words
        .iter()
        .map(|w| w.split('-').map(part).collect::<Vec<_>>().join("-"))
        .collect::<Vec<_>>()
        .join(" ");
    let mut c = text.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// Pairs of adjacent words of jieba's cut of each Chinese run of `text`, neither a function
/// word nor a single character, three to eight characters together.
fn chinese_phrases(text: &str, out: &mut Phrases) {
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut Phrases| {
        let words = text::segment::cut_words(run);
        for w in words.windows(2) {
            let ok = |x: &str| x.chars().count() >= 2 && !text::segment::is_chinese_stopword(x);
            let chars = w[0].chars().count() + w[1].chars().count();
            if ok(&w[0]) && ok(&w[1]) && (3..=8).contains(&chars) {
                let phrase = format!("{}{}", w[0], w[1]);
                out.entry(phrase.clone()).or_insert(phrase);
            }
        }
        run.clear();
    };
    for c in text.chars() {
        if text::is_cjk(c) {
            run.push(c);
        } else {
            flush(&mut run, out);
        }
    }
    flush(&mut run, out);
}

/// The heading of the cluster `members` of a list whose papers' phrases are `phrases`, its
/// c-TF-IDF `keywords` best first; `None` when no phrase is used by [`MIN_PAPERS`] of its papers
/// (the keyword label stands then).
pub(super) fn heading(
    phrases: &[Phrases],
    members: &[usize],
    chinese: bool,
    keywords: &[String],
) -> Option<String> {
    let distinctive: BTreeSet<String> = keywords
        .iter()
        .take(3)
        .map(|k| {
            let k = k.to_lowercase();
            if k.chars().any(text::is_cjk) {
                k
            } else {
                text::stem(&k)
            }
        })
        .collect();
    let names_keyword = |key: &str| {
        distinctive.iter().any(|k| key.contains(k.as_str()))
            || key
                .split([' ', '-'])
                .any(|w| distinctive.contains(&text::stem(w)))
    };
    let inside = count(phrases, members.iter().copied());
    let all = count(phrases, 0..phrases.len());
    let size = members.len().max(1) as f64;
    let list = phrases.len() as f64;
    let mut scored: Vec<(f64, usize, &str, &str)> = inside
        .iter()
        .filter(|(key, (n, _))| *n >= MIN_PAPERS.min(members.len()) && telling(key))
        .filter_map(|(key, (n, surface))| {
            let total = all.get(key).map_or(*n, |a| a.0) as f64;
            let concentration = *n as f64 / total;
            (total <= MAX_LIST_SHARE * list && concentration >= MIN_CONCENTRATION).then(|| {
                let bonus = if names_keyword(key) {
                    KEYWORD_BONUS
                } else {
                    1.0
                };
                let score = (*n as f64 / size) * concentration * bonus;
                (score, key.split(' ').count(), key.as_str(), *surface)
            })
        })
        .collect();
    // Best score, then the longer phrase (it says more at the same coverage), then the key.
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(b.2)));
    let is_chinese = |key: &str| key.chars().any(text::is_cjk);
    let english: Vec<&(f64, usize, &str, &str)> =
        scored.iter().filter(|s| !is_chinese(s.2)).collect();
    let best_chinese = scored.iter().find(|s| is_chinese(s.2));
    let mut label = match english.first() {
        Some(first) => {
            let words: BTreeSet<&str> = first.2.split(' ').collect();
            let second = english[1..].iter().find(|s| {
                s.0 >= SECOND_SHARE * first.0
                    && s.1 + first.1 <= 4
                    && s.2.split(' ').all(|w| !words.contains(w))
            });
            match second {
                Some(s) => format!("{} and {}", first.3, lower_first(s.3)),
                None => first.3.to_string(),
            }
        }
        None => String::new(),
    };
    if chinese && let Some(c) = best_chinese {
        if label.is_empty() {
            label = c.3.to_string();
        } else {
            label = format!("{label} · {}", c.3);
        }
    }
    (!label.is_empty()).then_some(label)
}

/// Whether a phrase says something: an English one with a word outside the generic words any
/// research title uses (`text::is_telling`: "language model" says nothing); a Chinese one
/// telling as a term.
fn telling(key: &str) -> bool {
    if key.chars().any(text::is_cjk) {
        return text::is_telling(key);
    }
    key.split(' ')
        .any(|w| text::is_telling(w) && !text::is_stopword(w))
}

/// For each phrase key, the papers of `of` using it and the surface of the first that does.
fn count(phrases: &[Phrases], of: impl Iterator<Item = usize>) -> BTreeMap<&String, (usize, &str)> {
    let mut out: BTreeMap<&String, (usize, &str)> = BTreeMap::new();
    for i in of {
        for (key, surface) in &phrases[i] {
            out.entry(key).or_insert((0, surface.as_str())).0 += 1;
        }
    }
    out
}

/// A heading's second phrase after "and": its first letter lowercase unless its first word
/// is a name ("Tool use" -> "tool use", "GUI agents" stays).
fn lower_first(phrase: &str) -> String {
    let first = phrase.split([' ', '-']).next().unwrap_or_default();
    if text::is_name(first) {
        return phrase.to_string();
    }
    let mut c = phrase.chars();
    c.next()
        .map(|f| f.to_lowercase().chain(c).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paper(title: &str, highlight: &str) -> Paper {
        Paper {
            id: title.to_string(),
            title: title.to_string(),
            highlight: highlight.to_string(),
            ..Default::default()
        }
    }

    /// `papers` followed by unrelated ones, so that no phrase of `papers` is on a fifth of
    /// the list by their number alone.
    fn with_others(mut papers: Vec<Paper>, highlight: &str) -> Vec<Paper> {
        let others = [
            "Protein Folding",
            "Galaxy Surveys",
            "Coral Reefs",
            "Tax Policy",
        ];
        for (i, o) in others.iter().cycle().take(14).enumerate() {
            papers.push(paper(&format!("{o} Volume{i}"), highlight));
        }
        papers
    }

    #[test]
    fn a_cluster_is_headed_by_the_phrase_particular_to_it() {
        let papers = with_others(
            vec![
                paper("WebRL: Training Web Agents with Reinforcement Learning", ""),
                paper("Reinforcement Learning for Long-Horizon Web Agents", ""),
                paper("WebDancer: Web Agents that Browse", ""),
                paper("Tool-Integrated Reasoning with Reinforcement Learning", ""),
                paper("ToRL: Scaling Tool-Integrated Reasoning", ""),
                paper("Reward Models for Reinforcement Learning", ""),
                paper("Offline Reinforcement Learning", ""),
            ],
            "",
        );
        let phrases = paper_phrases(&papers);
        assert_eq!(
            heading(&phrases, &[0, 1, 2], false, &[]).as_deref(),
            Some("Web agents")
        );
        assert_eq!(
            heading(&phrases, &[3, 4], false, &[]).as_deref(),
            Some("Tool-integrated reasoning")
        );
        // "Reinforcement learning" is on over a fifth of the list: it heads no cluster, and a
        // cluster whose phrases are each one paper's keeps the keyword label.
        assert_eq!(
            heading(&phrases, &[5], false, &[]).as_deref(),
            Some("Reward models")
        );
        assert_eq!(heading(&phrases, &[0, 5], false, &[]), None);
        // A phrase holding one of the cluster's distinctive keywords is preferred.
        let papers = with_others(
            vec![
                paper("Budget-Aware Planning by Tree Search", ""),
                paper("Budget-Aware Planning with Tree Search", ""),
                paper("Budget-Aware Planning and Tree Search", ""),
                paper("Tree Search Agents", ""),
            ],
            "",
        );
        // Six more, so that the tree search of four papers is not on a fifth of the list.
        let papers: Vec<Paper> = papers
            .into_iter()
            .chain((0..6).map(|i| paper(&format!("Ocean Tides Volume{i}"), "")))
            .collect();
        let phrases = paper_phrases(&papers);
        let members = [0, 1, 2, 3];
        assert_eq!(
            heading(&phrases, &members, false, &[]).as_deref(),
            Some("Tree search and budget-aware planning")
        );
        assert_eq!(
            heading(&phrases, &members, false, &["budget".to_string()]).as_deref(),
            Some("Budget-aware planning and tree search")
        );
    }

    #[test]
    fn a_chinese_list_gets_a_chinese_phrase_beside_the_english_one() {
        let papers = with_others(
            vec![
                paper("GUI Agents at Scale", "用强化学习训练图形界面智能体"),
                paper("Mobile GUI Agents", "图形界面智能体的在线训练"),
                paper("Math Reasoning", "数学推理的奖励设计"),
                paper("Math Proofs", "数学证明"),
                paper("Code Repair", "代码修复"),
            ],
            "蛋白质",
        );
        assert!(chinese_list(&papers));
        assert!(!chinese_list(
            &papers[..5]
                .iter()
                .map(|p| paper(&p.title, ""))
                .collect::<Vec<_>>()
        ));
        let phrases = paper_phrases(&papers);
        let label = heading(&phrases, &[0, 1], true, &[]).unwrap();
        assert!(label.starts_with("GUI agents · "), "{label}");
        assert!(label.contains("界面"), "{label}");
        assert_eq!(
            heading(&phrases, &[0, 1], false, &[]).as_deref(),
            Some("GUI agents")
        );
    }

    #[test]
    fn headings_keep_names_and_acronyms_as_written() {
        assert_eq!(heading_case(&["Web", "Agents"]), "Web agents");
        assert_eq!(heading_case(&["GUI", "Agents"]), "GUI agents");
        assert_eq!(heading_case(&["multi-turn", "RL"]), "Multi-turn RL");
        assert_eq!(heading_case(&["LLM-Based", "Agents"]), "LLM-based agents");
        assert_eq!(lower_first("Tool use"), "tool use");
        assert_eq!(lower_first("GUI agents"), "GUI agents");
    }
}
