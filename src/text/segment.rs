//! Chinese word segmentation: jieba with the field's terms added to its dictionary.
//!
//! The segmenter is built once per process (the dictionary takes ~0.1-0.2 s to load); commands
//! that read only an index (`--like`, `topics`, `path`) never tokenize Chinese and never pay it.

use std::collections::HashSet;
use std::sync::OnceLock;

use jieba_rs::Jieba;

use super::{is_cjk, word_list};

/// The segmenter, built on first use.
pub fn jieba() -> &'static Jieba {
    static JIEBA: OnceLock<Jieba> = OnceLock::new();
    JIEBA.get_or_init(|| {
        let mut j = Jieba::new();
        for w in word_list(include_str!("field_terms_zh.txt")) {
            j.add_word(w, Some(100_000), Some("n"));
        }
        j
    })
}

/// Build the segmenter on a spare thread, so that a command that will need it (free-text
/// search) overlaps its start-up with other work such as loading the model.
pub fn warm_up() {
    std::thread::spawn(|| {
        jieba();
    });
}

fn chinese_stopwords() -> &'static HashSet<&'static str> {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| word_list(include_str!("stopwords_zh.txt")).collect())
}

/// A Chinese function or filler word (`通过`, `基于`, `显著`).
pub fn is_chinese_stopword(word: &str) -> bool {
    chinese_stopwords().contains(word)
}

/// Append the words of one run of CJK characters: jieba's precise cut, words of two or more
/// characters that are not function words. Not the search-mode cut: it adds the words inside a
/// long word ("强化学习" and "强化", "学习"), so the field's most common concepts would count
/// three times in every query.
pub fn chinese_terms(run: &str, out: &mut Vec<String>) {
    if run.is_empty() {
        return;
    }
    for token in jieba().cut(run, true) {
        let w = token.word;
        if w.chars().count() >= 2 && w.chars().all(is_cjk) && !is_chinese_stopword(w) {
            out.push(w.to_string());
        }
    }
}
