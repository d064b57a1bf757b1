//! Chinese word segmentation: jieba with the field's terms added to its dictionary.
//!
//! Building jieba's full dictionary (349k words into a trie) costs ~0.1 s of CPU, which a
//! one-shot `search` paid beside the model load on a 2-core machine. A process that segments
//! only a few known texts (a query and its glossary translations) therefore asks for a
//! [`focus`]: a jieba holding only the dictionary words that occur in those texts, with the
//! dictionary's total frequency carried over. Its cut of any run inside those texts is the full
//! dictionary's cut, exactly: the cut only ever looks up substrings of the run, and scores each
//! word by its frequency over that total. Any other run is cut by the full dictionary, built on
//! first use (index builds, topic labels, a resident server).

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};
use std::thread::JoinHandle;

use jieba_rs::Jieba;

use super::{is_cjk, word_list};

/// jieba-rs 0.11.0's own dictionary (`src/data/dict.txt`, MIT, from the jieba project), copied
/// verbatim: the crate keeps its copy private, and a focused dictionary is made by scanning it.
/// The test `focused_total_matches_the_full_dictionary` checks the copy against the crate's.
static DICT: &str = include_str!("jieba_dict.txt");

/// The longest word of [`DICT`] or the field terms, in characters (checked by a test).
const MAX_WORD_CHARS: usize = 16;

/// Frequency given to the field's terms: high enough that jieba keeps them whole.
const FIELD_TERM_FREQ: usize = 100_000;

fn field_terms() -> impl Iterator<Item = &'static str> {
    word_list(include_str!("field_terms_zh.txt"))
}

/// The segmenter with the full dictionary, built on first use.
pub fn jieba() -> &'static Jieba {
    static JIEBA: OnceLock<Jieba> = OnceLock::new();
    JIEBA.get_or_init(|| {
        let mut j = Jieba::new();
        for w in field_terms() {
            j.add_word(w, Some(FIELD_TERM_FREQ), Some("n"));
        }
        j
    })
}

/// A jieba whose dictionary is reduced to the words occurring in `texts`.
struct Focused {
    texts: Vec<String>,
    jieba: Jieba,
}

impl Focused {
    fn build(texts: Vec<String>) -> Focused {
        let mut substrings: HashSet<&str> = HashSet::new();
        for t in &texts {
            let starts: Vec<usize> = t.char_indices().map(|(i, _)| i).collect();
            for (k, &s) in starts.iter().enumerate() {
                for len in 1..=MAX_WORD_CHARS {
                    let end = starts.get(k + len).copied().unwrap_or(t.len());
                    substrings.insert(&t[s..end]);
                    if end == t.len() {
                        break;
                    }
                }
            }
        }
        let fields: HashSet<&str> = field_terms().collect();
        let mut jieba = Jieba::empty();
        let mut total = 0usize;
        let mut kept = 0usize;
        for line in DICT.lines() {
            let mut parts = line.split_ascii_whitespace();
            let (Some(word), Some(freq)) = (parts.next(), parts.next()) else {
                continue;
            };
            let freq: usize = freq.parse().unwrap_or(0);
            // A field term replaces the dictionary's entry (as `add_word` does in `jieba()`).
            if fields.contains(word) {
                continue;
            }
            total += freq;
            if substrings.contains(word) {
                kept += freq;
                jieba.add_word(word, Some(freq), parts.next());
            }
        }
        for w in &fields {
            total += FIELD_TERM_FREQ;
            if substrings.contains(w) {
                kept += FIELD_TERM_FREQ;
                jieba.add_word(w, Some(FIELD_TERM_FREQ), Some("n"));
            }
        }
        // The rest of the total, under a word no text can contain (a private-use character),
        // so that every kept word scores as it does in the full dictionary.
        if total > kept {
            jieba.add_word("\u{E000}", Some(total - kept), Some("x"));
        }
        Focused { texts, jieba }
    }

    fn covers(&self, run: &str) -> bool {
        self.texts.iter().any(|t| t.contains(run))
    }
}

static FOCUSED: OnceLock<Focused> = OnceLock::new();
static PENDING: Mutex<Option<JoinHandle<()>>> = Mutex::new(None);

/// Prepare, on a spare thread, a dictionary focused on `texts` (see the module comment), so
/// that a command that will segment only them overlaps ~20 ms of set-up with other work (the
/// model load) instead of building the full dictionary. Call once per process; later calls
/// are ignored. Runs outside `texts` stay exact: they use the full dictionary.
pub fn focus(texts: Vec<String>) {
    let mut pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
    if FOCUSED.get().is_some() || pending.is_some() || !worth_focusing(&texts) {
        return;
    }
    *pending = Some(std::thread::spawn(move || {
        let _ = FOCUSED.set(Focused::build(texts));
    }));
}

/// Above this many characters (a large `--queries` file) a focused dictionary costs more than
/// the full one: a set of every substring of up to [`MAX_WORD_CHARS`] characters, and a scan
/// of the texts per run.
const FOCUS_MAX_CHARS: usize = 20_000;

fn worth_focusing(texts: &[String]) -> bool {
    texts.iter().map(|t| t.chars().count()).sum::<usize>() <= FOCUS_MAX_CHARS
}

/// The segmenter for `run`: the focused one when it covers the run, else the full one.
fn segmenter_for(run: &str) -> &'static Jieba {
    let pending = PENDING.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some(handle) = pending {
        // A panicked build leaves no focus: every run then takes the full dictionary.
        let _ = handle.join();
    }
    match FOCUSED.get() {
        Some(f) if f.covers(run) => &f.jieba,
        _ => jieba(),
    }
}

fn chinese_stopwords() -> &'static HashSet<&'static str> {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| word_list(include_str!("stopwords_zh.txt")).collect())
}

/// A Chinese function or filler word (`通过`, `基于`, `显著`).
pub fn is_chinese_stopword(word: &str) -> bool {
    chinese_stopwords().contains(word)
}

/// Every word of jieba's precise cut of one run of CJK characters, function words and single
/// characters included: the cut as it falls, for checking where a query's word boundaries are.
pub fn cut_words(run: &str) -> Vec<String> {
    if run.is_empty() {
        return Vec::new();
    }
    segmenter_for(run)
        .cut(run, true)
        .into_iter()
        .map(|t| t.word.to_string())
        .collect()
}

/// Append the words of one run of CJK characters: jieba's precise cut, words of two or more
/// characters that are not function words. Not the search-mode cut: it adds the words inside a
/// long word ("强化学习" and "强化", "学习"), so the field's most common concepts would count
/// three times in every query.
pub fn chinese_terms(run: &str, out: &mut Vec<String>) {
    if run.is_empty() {
        return;
    }
    for token in segmenter_for(run).cut(run, true) {
        let w = token.word;
        if w.chars().count() >= 2 && w.chars().all(is_cjk) && !is_chinese_stopword(w) {
            out.push(w.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn total_of(j: &Jieba) -> String {
        let d = format!("{j:?}");
        d.split("total_freq: ")
            .nth(1)
            .unwrap_or_default()
            .to_string()
    }

    #[test]
    fn the_copied_dictionary_is_the_crates() {
        // Same number of entries and the same total frequency as jieba-rs's private copy.
        let full = format!("{:?}", Jieba::new());
        let lines = DICT.lines().filter(|l| !l.trim().is_empty()).count();
        let total: usize = DICT
            .lines()
            .filter_map(|l| l.split_ascii_whitespace().nth(1)?.parse::<usize>().ok())
            .sum();
        assert_eq!(
            full,
            format!("Jieba {{ records_len: {lines}, total_freq: {total} }}")
        );
        let longest = DICT
            .lines()
            .filter_map(|l| l.split_ascii_whitespace().next())
            .chain(field_terms())
            .map(|w| w.chars().count())
            .max();
        assert_eq!(longest, Some(MAX_WORD_CHARS));
    }

    #[test]
    fn focused_total_matches_the_full_dictionary() {
        let f = Focused::build(vec!["用强化学习训练网页智能体".into()]);
        assert_eq!(total_of(&f.jieba), total_of(jieba()));
        assert!(f.covers("网页智能体") && !f.covers("世界模型"));
    }

    /// Every Chinese run of the shipped corpus (and odd runs) cuts the same with a dictionary
    /// focused on the texts as with the full one.
    #[test]
    fn focused_cut_is_the_full_cut() {
        let corpus = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/papers.jsonl"),
        )
        .expect("the shipped corpus");
        let mut runs: Vec<String> = vec![
            "的的的的".into(),
            "一".into(),
            "长长长长长长长长长长长长长长长长长长长长长长长长长".into(),
            "南京市长江大桥".into(),
            "多智能体强化学习中的信用分配问题".into(),
        ];
        let mut run = String::new();
        for c in corpus.chars().chain(std::iter::once(' ')) {
            if is_cjk(c) {
                run.push(c);
            } else if !run.is_empty() {
                runs.push(std::mem::take(&mut run));
            }
        }
        assert!(runs.len() > 500, "{} runs", runs.len());
        let f = Focused::build(runs.clone());
        for r in &runs {
            let words = |j: &Jieba| -> Vec<String> {
                j.cut(r, true).iter().map(|t| t.word.to_string()).collect()
            };
            assert_eq!(words(&f.jieba), words(jieba()), "{r}");
        }
    }

    #[test]
    fn large_batches_are_not_focused() {
        assert!(worth_focusing(&["强化学习".repeat(100)]));
        assert!(!worth_focusing(&vec![
            "强化学习训练网页智能体".to_string();
            5_000
        ]));
    }

    #[test]
    fn runs_outside_the_focus_use_the_full_dictionary() {
        focus(vec!["网页智能体".into()]);
        let mut inside = Vec::new();
        chinese_terms("网页智能体", &mut inside);
        assert_eq!(inside, ["网页", "智能体"]);
        let mut outside = Vec::new();
        chinese_terms("世界模型与具身智能", &mut outside);
        let mut full = Vec::new();
        for t in jieba().cut("世界模型与具身智能", true) {
            if t.word.chars().count() >= 2 && !is_chinese_stopword(t.word) {
                full.push(t.word.to_string());
            }
        }
        assert_eq!(outside, full);
        assert!(!outside.is_empty());
    }
}
