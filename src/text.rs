//! Text analysis shared by the lexical index, title resolution and topic labels.
//!
//! Chinese has no spaces, so CJK runs become character unigrams and bigrams (robust, needs no
//! dictionary, costs nothing at start-up); Latin text becomes lowercase words. This is what the
//! lexical ranking indexes; topic labels use a word segmenter on top (see `engine::topics`).

/// True for characters of the CJK scripts that are written without spaces.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FA1F
        | 0x3040..=0x30FF | 0x31F0..=0x31FF)
}

/// English words too common to say anything about a paper.
const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "into", "is", "it",
    "its", "of", "on", "or", "the", "to", "via", "with", "we", "our", "this", "that", "using",
    "towards", "toward", "through", "can", "do", "does", "how", "what", "when", "which", "via",
];

/// Chinese characters that carry grammar, not meaning.
const CJK_STOPCHARS: &str = "的了和与在是为及对中等其将从以并或而且这那一个于被把也就都";

pub fn is_stopword(word: &str) -> bool {
    STOPWORDS.contains(&word)
}

/// Whether a term is worth showing a person as a reason: not a lone CJK character and not a
/// CJK bigram that contains a grammatical character ("上的", "中的" say nothing).
pub fn is_telling(term: &str) -> bool {
    let cjk: Vec<char> = term.chars().filter(|&c| is_cjk(c)).collect();
    if cjk.is_empty() {
        return true;
    }
    cjk.len() > 1 && !cjk.iter().any(|&c| CJK_STOPCHARS.contains(c))
}

/// Join overlapping CJK terms into the phrases they come from, for showing reasons to a person.
///
/// Character bigrams read badly ("端到", "到端"; "强化", "化学", "学习"): two CJK terms where one
/// ends with the character the other starts with are joined ("端到端", then "强化学习") when the
/// joined phrase occurs in every one of `texts`; terms contained in a kept phrase are dropped.
/// Order follows the first member of each phrase in `terms` (callers pass terms best first).
///
/// ```
/// use recommend::text::join_phrases;
/// let terms = ["化学", "强化", "rl", "学习"].map(String::from);
/// assert_eq!(join_phrases(&terms, &["基于强化学习的智能体", "强化学习 RL"]), ["强化学习", "rl"]);
/// ```
pub fn join_phrases(terms: &[String], texts: &[&str]) -> Vec<String> {
    let texts: Vec<String> = texts.iter().map(|t| fold(t)).collect();
    let cjk_only = |t: &str| !t.is_empty() && t.chars().all(is_cjk);
    let mut out: Vec<String> = Vec::new();
    for t in terms {
        if !out.contains(t) {
            out.push(t.clone());
        }
    }
    loop {
        let mut joined = None;
        'search: for i in 0..out.len() {
            for j in 0..out.len() {
                let (a, b) = (&out[i], &out[j]);
                if i == j || !cjk_only(a) || !cjk_only(b) {
                    continue;
                }
                let (Some(last), Some(first)) = (a.chars().last(), b.chars().next()) else {
                    continue;
                };
                if last != first || a.chars().count() < 2 || b.chars().count() < 2 {
                    continue;
                }
                let phrase: String = a.chars().chain(b.chars().skip(1)).collect();
                if texts.iter().all(|t| t.contains(&phrase)) {
                    joined = Some((i.min(j), i.max(j), phrase));
                    break 'search;
                }
            }
        }
        let Some((keep, drop, phrase)) = joined else {
            break;
        };
        out[keep] = phrase;
        out.remove(drop);
    }
    let all = out.clone();
    out.retain(|t| {
        !cjk_only(t)
            || !all
                .iter()
                .any(|o| o != t && o.chars().count() > t.chars().count() && o.contains(t.as_str()))
    });
    out
}

/// Lowercase, and fold full-width ASCII (common in Chinese text) to ASCII.
pub fn fold(text: &str) -> String {
    text.chars()
        .map(|c| match c as u32 {
            0xFF01..=0xFF5E => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
            0x3000 => ' ',
            _ => c,
        })
        .flat_map(char::to_lowercase)
        .collect()
}

/// The terms the lexical index stores for `text`, in order, repeats kept (for term frequency).
///
/// ```
/// use recommend::text::terms;
/// assert_eq!(terms("GRPO 推理"), ["grpo", "推", "推理", "理"]);
/// ```
///
/// - Latin/digit runs become lowercase words; hyphenated names also keep their joined form, so
///   "WebAgent-R1" yields `webagent`, `r1` and `webagent-r1`. Stopwords are dropped.
/// - Each CJK run yields its characters (minus grammatical ones) and its bigrams.
pub fn terms(text: &str) -> Vec<String> {
    let folded = fold(text);
    let mut out = Vec::new();
    let mut word = String::new();
    let mut cjk: Vec<char> = Vec::new();
    let flush_word = |word: &mut String, out: &mut Vec<String>| {
        if word.is_empty() {
            return;
        }
        let w = word.trim_matches('-').to_string();
        let parts: Vec<&str> = w.split('-').filter(|p| !p.is_empty()).collect();
        for p in &parts {
            if !is_stopword(p) {
                out.push((*p).to_string());
            }
        }
        if parts.len() > 1 {
            out.push(parts.join("-"));
        }
        word.clear();
    };
    let flush_cjk = |cjk: &mut Vec<char>, out: &mut Vec<String>| {
        for (i, &c) in cjk.iter().enumerate() {
            if !CJK_STOPCHARS.contains(c) {
                out.push(c.to_string());
            }
            if let Some(&n) = cjk.get(i + 1) {
                out.push([c, n].iter().collect());
            }
        }
        cjk.clear();
    };
    for c in folded.chars() {
        if is_cjk(c) {
            flush_word(&mut word, &mut out);
            cjk.push(c);
        } else if c.is_alphanumeric() || (c == '-' && !word.is_empty()) {
            flush_cjk(&mut cjk, &mut out);
            word.push(c);
        } else {
            flush_word(&mut word, &mut out);
            flush_cjk(&mut cjk, &mut out);
        }
    }
    flush_word(&mut word, &mut out);
    flush_cjk(&mut cjk, &mut out);
    out
}

/// A key for comparing names: lowercase alphanumerics (and CJK) only, so "Dr. GRPO", "dr grpo"
/// and "DR-GRPO" all compare equal.
pub fn name_key(text: &str) -> String {
    fold(text).chars().filter(|c| c.is_alphanumeric()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin_words_keep_hyphenated_names() {
        assert_eq!(
            terms("WebAgent-R1: Training"),
            ["webagent", "r1", "webagent-r1", "training"]
        );
    }

    #[test]
    fn chinese_runs_become_unigrams_and_bigrams() {
        assert_eq!(
            terms("强化学习"),
            ["强", "强化", "化", "化学", "学", "学习", "习"]
        );
        // grammatical characters are not unigrams but stay inside bigrams
        assert_eq!(terms("的模型"), ["的模", "模", "模型", "型"]);
    }

    #[test]
    fn mixed_text_and_full_width() {
        assert_eq!(terms("ＲＬ训练 of LLM"), ["rl", "训", "训练", "练", "llm"]);
    }

    #[test]
    fn telling_terms() {
        assert!(is_telling("grpo"));
        assert!(is_telling("推理"));
        assert!(!is_telling("推"));
        assert!(!is_telling("中的"));
    }

    #[test]
    fn name_keys_ignore_case_and_punctuation() {
        assert_eq!(name_key("Dr. GRPO"), name_key("dr-grpo"));
        assert_eq!(name_key("Tülu 3"), "tülu3");
    }

    #[test]
    fn overlapping_bigrams_join_only_into_phrases_both_texts_hold() {
        let t = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        // 端到 + 到端 -> 端到端; 成功 + 功率 -> 成功率; Latin terms pass through in place.
        assert_eq!(
            join_phrases(
                &t(&["到端", "r1", "端到"]),
                &["端到端的训练 R1", "一个端到端框架 r1"]
            ),
            ["端到端", "r1"]
        );
        // One text has the pairs apart: no 强化学习 is claimed.
        assert_eq!(
            join_phrases(
                &t(&["强化", "化学", "学习"]),
                &["强化学习", "强化和化学与学习"]
            ),
            ["强化", "化学", "学习"]
        );
        // A term inside a kept phrase is dropped; duplicates collapse.
        assert_eq!(
            join_phrases(&t(&["智能", "能体", "智能", "体"]), &["智能体", "多智能体"]),
            ["智能体"]
        );
        assert!(join_phrases(&[], &["x"]).is_empty());
    }
}
