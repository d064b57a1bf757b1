//! Naming a cluster: c-TF-IDF keywords over titles and highlights (English words, jieba-
//! segmented Chinese), keywords particular to the cluster, and bilingual labels from curated
//! tags when the corpus has them.

use super::kmeans::{Dense, Points};
use super::{KEYWORDS, Topic};
use crate::corpus::Paper;
use crate::corpus::paper::tag_name;
use crate::text;
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

pub(super) fn build_topics(papers: &[Paper], points: &Dense, labels: &[usize]) -> Vec<Topic> {
    let k = labels.iter().max().map_or(0, |m| m + 1);
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); k];
    for (i, &c) in labels.iter().enumerate() {
        members[c].push(i);
    }
    members.retain(|m| !m.is_empty());
    members.sort_by(|a, b| b.len().cmp(&a.len()).then(a[0].cmp(&b[0])));
    // most central first: mean similarity to the cluster = dot with the members' sum
    for m in members.iter_mut() {
        let mut sum = vec![0.0f64; points.dim()];
        for &i in m.iter() {
            points.add_to(i, &mut sum);
        }
        let sum: Vec<f32> = sum.into_iter().map(|x| x as f32).collect();
        let mut scored: Vec<(usize, f64)> =
            m.iter().map(|&i| (i, points.dot_dense(i, &sum))).collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        *m = scored.into_iter().map(|s| s.0).collect();
    }
    let keywords = ctfidf_keywords(papers, &members, KEYWORDS);
    members
        .iter()
        .zip(keywords)
        .enumerate()
        .map(|(id, (m, kw))| Topic {
            id,
            label: make_label(&kw),
            keywords: kw,
            papers: m.iter().map(|&i| papers[i].id.clone()).collect(),
            central: papers[m[0]].id.clone(),
        })
        .collect()
}

pub(super) fn is_cjk_word(w: &str) -> bool {
    w.chars().any(text::is_cjk)
}

/// The top 2 keywords, plus a third that brings in the other script (English/Chinese) when the
/// first two share one; else the third keyword. A keyword inside an earlier one, or containing
/// it (智能体 after 多智能体), is skipped. Joined with " · ".
pub(super) fn make_label(keywords: &[String]) -> String {
    let lower: Vec<String> = keywords.iter().map(|k| k.to_lowercase()).collect();
    let mut distinct: Vec<usize> = Vec::new();
    for (i, k) in lower.iter().enumerate() {
        if !distinct
            .iter()
            .any(|&j| lower[j].contains(k.as_str()) || k.contains(lower[j].as_str()))
        {
            distinct.push(i);
        }
    }
    let mut parts: Vec<&str> = distinct
        .iter()
        .take(2)
        .map(|&i| keywords[i].as_str())
        .collect();
    if parts.len() == 2 {
        let (a, b) = (is_cjk_word(parts[0]), is_cjk_word(parts[1]));
        let rest = &distinct[2..];
        let third = if a == b {
            rest.iter()
                .find(|&&i| is_cjk_word(&keywords[i]) != a)
                .or(rest.first())
        } else {
            rest.first()
        };
        if let Some(&t) = third {
            parts.push(&keywords[t]);
        }
    }
    if parts.is_empty() {
        "(untitled)".to_string()
    } else {
        parts.join(" · ")
    }
}

/// Grammatical jieba tags: particles, prepositions, conjunctions, pronouns, adverbs, numerals,
/// quantifiers, directions, modal/exclamation/onomatopoeia, non-words.
pub(super) fn grammatical_tag(tag: &str) -> bool {
    tag == "ad"
        || matches!(
            tag.as_bytes().first(),
            Some(
                b'u' | b'p'
                    | b'c'
                    | b'r'
                    | b'd'
                    | b'm'
                    | b'q'
                    | b'f'
                    | b'y'
                    | b'e'
                    | b'o'
                    | b'x'
                    | b'w'
            )
        )
}

/// Words that never name a topic but that abstracts use in every other sentence: function
/// words the ranking's stopword list leaves in (it is kept small: a longer one moved the
/// judged figures: docs/experiments.md) and the verbs an abstract announces its work with.
/// Labels and keywords only; "GRPO, policy, optimization, adds, whose" named a topic on a list
/// with abstracts.
const LABEL_FILLER: &[&str] = &[
    "must",
    "whose",
    "may",
    "might",
    "shall",
    "thus",
    "hence",
    "therefore",
    "whether",
    "every",
    "several",
    "among",
    "upon",
    "within",
    "yet",
    "since",
    "either",
    "neither",
    "per",
    "whereby",
    "thereby",
    "add",
    "adds",
    "find",
    "finds",
    "show",
    "shows",
    "propose",
    "proposes",
    "introduce",
    "introduces",
    "present",
    "presents",
    "report",
    "reports",
    "demonstrate",
    "demonstrates",
    "reach",
    "reaches",
    "yield",
    "yields",
    "obtain",
    "obtains",
    "let",
    "lets",
];

/// Readable terms of a paper (title + highlight) as (key, surface form), repeats kept.
/// English: words and hyphenated names; key lowercase; the surface keeps case only for
/// acronyms and names (an uppercase letter after the first character: GRPO, WebAgent).
/// Chinese: jieba words of ≥ 2 characters, grammatical words dropped.
pub(crate) fn paper_terms(paper: &Paper) -> Vec<(String, String)> {
    let text = text::fold_width(&format!(
        "{}\n{}\n{}",
        paper.title, paper.summary, paper.highlight
    ));
    let mut out = Vec::new();
    // English
    let mut word = String::new();
    let push_word = |word: &mut String, out: &mut Vec<(String, String)>| {
        let w = word.trim_matches('-');
        let chars = w.chars().count();
        let starts_alpha = w.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
        if chars >= 2 && starts_alpha {
            let key = w.to_lowercase();
            // Words any title may use ("models", "evaluating") name no topic.
            if !text::is_stopword(&key)
                && text::is_telling(&key)
                && !LABEL_FILLER.contains(&key.as_str())
            {
                let named = w
                    .split('-')
                    .any(|p| p.chars().skip(1).any(|c| c.is_uppercase()));
                out.push((key.clone(), if named { w.to_string() } else { key }));
            }
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || (c == '-' && !word.is_empty()) {
            word.push(c);
        } else {
            push_word(&mut word, &mut out);
        }
    }
    push_word(&mut word, &mut out);
    // Chinese
    for tag in text::segment::jieba().tag(&text, true) {
        let w = tag.word;
        if w.chars().count() >= 2
            && w.chars().all(text::is_cjk)
            && !grammatical_tag(tag.tag)
            && !text::is_stopword(w)
            && text::is_telling(w)
        {
            out.push((w.to_string(), w.to_string()));
        }
    }
    out
}

/// Top `top` keywords of each cluster by c-TF-IDF (term counted once per paper). In clusters
/// of three or more papers a keyword must occur in at least two of them when enough do.
pub(super) fn ctfidf_keywords(
    papers: &[Paper],
    clusters: &[Vec<usize>],
    top: usize,
) -> Vec<Vec<String>> {
    let doc_terms: Vec<Vec<(String, String)>> = papers.par_iter().map(paper_terms).collect();
    // surface form: the most frequent one over the corpus, ties the smallest
    let mut surfaces: BTreeMap<&str, BTreeMap<&str, usize>> = BTreeMap::new();
    for terms in &doc_terms {
        for (k, s) in terms {
            *surfaces.entry(k).or_default().entry(s).or_default() += 1;
        }
    }
    let surface = |key: &str| -> String {
        surfaces[key]
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
            .map(|s| s.0.to_string())
            .unwrap_or_else(|| key.to_string())
    };
    // corpus-wide stopwords: in a corpus of 20+ papers, a term in more than a quarter of them
    // ("RL" in an RL corpus) names no topic
    let mut df: BTreeMap<&str, usize> = BTreeMap::new();
    for terms in &doc_terms {
        let set: BTreeSet<&str> = terms.iter().map(|t| t.0.as_str()).collect();
        for t in set {
            *df.entry(t).or_default() += 1;
        }
    }
    let common = |t: &str| papers.len() >= 20 && df[t] * 4 > papers.len();
    let class_tf: Vec<BTreeMap<&str, usize>> = clusters
        .iter()
        .map(|m| {
            let mut tf: BTreeMap<&str, usize> = BTreeMap::new();
            for &i in m {
                let set: BTreeSet<&str> = doc_terms[i].iter().map(|t| t.0.as_str()).collect();
                for t in set.into_iter().filter(|t| !common(t)) {
                    *tf.entry(t).or_default() += 1;
                }
            }
            tf
        })
        .collect();
    let mut total: BTreeMap<&str, usize> = BTreeMap::new();
    for tf in &class_tf {
        for (t, c) in tf {
            *total.entry(t).or_default() += c;
        }
    }
    let words: Vec<usize> = class_tf.iter().map(|tf| tf.values().sum()).collect();
    let avg = words.iter().sum::<usize>() as f64 / words.len().max(1) as f64;
    class_tf
        .iter()
        .zip(clusters)
        .zip(&words)
        .map(|((tf, m), &w)| {
            let mut scored: Vec<(f64, &str, usize)> = tf
                .iter()
                .map(|(t, &c)| {
                    let score = (c as f64 / w.max(1) as f64) * (1.0 + avg / total[t] as f64).ln();
                    (score, *t, c)
                })
                .collect();
            scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
            let shared: Vec<&(f64, &str, usize)> = scored.iter().filter(|s| s.2 >= 2).collect();
            let chosen: Vec<&str> = if m.len() >= 3 && shared.len() >= top {
                shared.iter().take(top).map(|s| s.1).collect()
            } else if m.len() >= 3 {
                // the shared ones first, then the best of the rest
                let mut v: Vec<&str> = shared.iter().map(|s| s.1).collect();
                v.extend(scored.iter().filter(|s| s.2 < 2).map(|s| s.1));
                v.truncate(top);
                v
            } else {
                scored.iter().take(top).map(|s| s.1).collect()
            };
            chosen.into_iter().map(surface).collect()
        })
        .collect()
}

/// The keywords (best first) most of whose papers lie in the cluster: a word spread evenly
/// over the corpus ("优化", "learning") describes no cluster, however often it occurs in it.
/// `terms[i]` holds paper `i`'s term keys.
pub(super) fn distinctive(
    terms: &[BTreeSet<String>],
    members: &[usize],
    keywords: &[String],
) -> Vec<String> {
    let mut out: Vec<String> = keywords
        .iter()
        .filter(|k| {
            let key = k.to_lowercase();
            let inside = members.iter().filter(|&&i| terms[i].contains(&key)).count();
            let all = terms.iter().filter(|t| t.contains(&key)).count();
            inside >= 2.min(members.len()) && inside * 2 >= all
        })
        .cloned()
        .collect();
    if out.is_empty() {
        out = keywords.iter().take(2).cloned().collect();
    }
    out
}

/// A bilingual label from the curated tags most particular to the cluster: coverage (share of
/// the cluster carrying the tag) times concentration (share of the tag's papers in the
/// cluster). "Web agents & GUI agents · 网页智能体与GUI 智能体".
///
/// A tag named by one word that more than a quarter of the papers use ("Reasoning" in an RL
/// list) names no area, the same rule as for keywords; `terms[i]` holds paper `i`'s term keys.
pub(super) fn tag_label(
    papers: &[Paper],
    members: &[usize],
    terms: &[BTreeSet<String>],
) -> Option<String> {
    let mut total: BTreeMap<&str, usize> = BTreeMap::new();
    for p in papers {
        for t in &p.tags {
            *total.entry(t).or_default() += 1;
        }
    }
    let mut inside: BTreeMap<&str, usize> = BTreeMap::new();
    for &i in members {
        for t in &papers[i].tags {
            *inside.entry(t).or_default() += 1;
        }
    }
    let generic = |tag: &str| {
        let en = tag_name(tag).map_or(tag.to_string(), |(en, _)| en.to_lowercase());
        let df = |word: &str| terms.iter().filter(|t| t.contains(word)).count();
        papers.len() >= 20 && !en.contains(' ') && df(&en) * 4 > papers.len()
    };
    let size = members.len().max(1) as f64;
    let mut scored: Vec<(f64, &str)> = inside
        .iter()
        .filter(|(t, _)| !generic(t))
        .filter(|(_, c)| **c >= 2.min(members.len()))
        .map(|(t, &c)| ((c as f64 / size) * (c as f64 / total[t] as f64), *t))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    let (best, first) = *scored.first()?;
    let mut chosen = vec![first];
    let en_of = |t: &str| tag_name(t).map_or(t.to_string(), |(en, _)| en.to_lowercase());
    // A Chinese name whose characters all occur in the other's says nothing more ("GUI 智能体"
    // beside "GUI与网页智能体", "科学" beside "科学设计与发现"), even where the English differs.
    let zh_of = |t: &str| -> String {
        tag_name(t).map_or(String::new(), |(_, zh)| {
            zh.chars().filter(|c| !c.is_whitespace()).collect()
        })
    };
    let repeats = |a: &str, b: &str| {
        let (a, b) = (zh_of(a), zh_of(b));
        !b.is_empty() && b.chars().all(|c| a.contains(c))
    };
    if let Some(&(s, second)) = scored.get(1)
        && s >= 0.5 * best
        && !en_of(second).contains(&en_of(first))
        && !en_of(first).contains(&en_of(second))
        && !repeats(first, second)
        && !repeats(second, first)
    {
        chosen.push(second);
    }
    let names: Vec<(&str, &str)> = chosen
        .iter()
        .map(|t| tag_name(t).unwrap_or((*t, *t)))
        .collect();
    let en: Vec<&str> = names.iter().map(|n| n.0).collect();
    let zh: Vec<&str> = names.iter().map(|n| n.1).collect();
    Some(format!("{} · {}", en.join(" & "), zh.join("与")))
}
