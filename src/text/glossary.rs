//! A bilingual glossary of the field (`glossary.tsv`): query expansion across languages.
//!
//! A Chinese query about "网页智能体" should find an English record about "web agents", and an
//! English query about "reward models" a Chinese highlight about "奖励模型". The dense model
//! bridges languages too, but weakly on short, technical queries; the glossary gives the
//! lexical side the same reach. It holds general vocabulary only, never a paper's facts.

use std::sync::OnceLock;

use super::{fold, word_list};

/// (Chinese, English) pairs, English folded to lowercase.
fn pairs() -> &'static [(&'static str, String)] {
    static PAIRS: OnceLock<Vec<(&'static str, String)>> = OnceLock::new();
    PAIRS.get_or_init(|| {
        word_list(include_str!("glossary.tsv"))
            .filter_map(|l| l.split_once('\t'))
            .map(|(zh, en)| (zh.trim(), fold(en.trim())))
            .filter(|(zh, en)| !zh.is_empty() && !en.is_empty())
            .collect()
    })
}

/// The other language's words for the glossary terms `query` contains, joined by spaces
/// (empty when it contains none). English terms match whole words only ("art" is not in
/// "start").
///
/// ```
/// use recommend::text::glossary::translations;
/// assert!(translations("用强化学习训练网页智能体").contains("web"));
/// assert!(translations("reward models for web agents").contains("奖励模型"));
/// assert_eq!(translations("start"), "");
/// // a term inside a longer one is not a word of the query: 化学 (chemistry) in 强化学习
/// assert!(!translations("用强化学习做分子设计").contains("chemistry"));
/// assert!(translations("化学反应的强化学习").contains("chemistry"));
/// // multi-agent vocabulary: collaboration and communication between agents
/// let t = translations("多智能体如何协同与通信");
/// assert!(t.contains("collaboration") && t.contains("communication"));
/// // one Chinese word, two English ones: 界面 is an interface, and in agents' papers a GUI
/// let t = translations("界面操作智能体");
/// assert!(t.contains("interface") && t.contains("gui"));
/// ```
pub fn translations(query: &str) -> String {
    let folded = fold(query);
    let words: Vec<&str> = folded
        .split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .filter(|w| !w.is_empty())
        .collect();
    let has_phrase = |phrase: &str| {
        let p: Vec<&str> = phrase.split(' ').collect();
        words.windows(p.len()).any(|w| {
            w.iter()
                .zip(&p)
                .all(|(a, b)| a == b || a.strip_suffix('s') == Some(b))
        })
    };
    // Where each Chinese term occurs; a term that occurs only inside a longer term is part of
    // that word, not a word of the query ("化学", chemistry, inside "强化学习").
    let spans: Vec<(usize, usize)> = pairs()
        .iter()
        .flat_map(|(zh, _)| folded.match_indices(*zh).map(|(s, m)| (s, s + m.len())))
        .collect();
    let inside_longer = |s: usize, e: usize| {
        spans
            .iter()
            .any(|&(a, b)| a <= s && e <= b && b - a > e - s)
    };
    let occurs = |zh: &str| {
        folded
            .match_indices(zh)
            .any(|(s, m)| !inside_longer(s, s + m.len()))
    };
    let mut out: Vec<&str> = Vec::new();
    for (zh, en) in pairs() {
        if occurs(zh) && !out.contains(&en.as_str()) {
            out.push(en);
        } else if has_phrase(en) && !out.contains(zh) {
            out.push(zh);
        }
    }
    out.join(" ")
}
