//! Text analysis shared by the lexical index, title resolution, explanations and topic labels.
//!
//! [`terms`] turns text into the units the lexical index counts:
//! - English: lowercase words; names keep their whole form ("webagent-r1") and also give their
//!   parts, split at hyphens and case changes ("web", "agent", "r1"), so "WebAgent-R1" meets
//!   "web agents"; ordinary words are stemmed (Snowball) so "writer" meets "writing".
//! - Chinese: words from the jieba segmenter ([`segment`]) of two or more characters. Character
//!   bigrams, used before, crossed word boundaries ("化学" inside "强化学习") and counted as
//!   evidence.
//!
//! Function words of both languages never count ([`is_stopword`]); generic words of a field
//! are left to corpus statistics (IDF, and the document-frequency cap of the lexical index),
//! never listed by hand.

pub mod glossary;
pub mod segment;
pub mod similar;

/// True for characters of the CJK scripts that are written without spaces.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FA1F
        | 0x3040..=0x30FF | 0x31F0..=0x31FF)
}

/// English function words and filler (one per line in `stopwords_en.txt`).
fn english_stopwords() -> &'static std::collections::HashSet<&'static str> {
    static SET: std::sync::OnceLock<std::collections::HashSet<&'static str>> =
        std::sync::OnceLock::new();
    SET.get_or_init(|| word_list(include_str!("stopwords_en.txt")).collect())
}

/// The terms (as [`terms`] makes them: lowercase, stemmed) of `generic_words.txt`.
fn generic_words() -> &'static std::collections::HashSet<String> {
    static SET: std::sync::OnceLock<std::collections::HashSet<String>> = std::sync::OnceLock::new();
    SET.get_or_init(|| {
        word_list(include_str!("generic_words.txt"))
            .flat_map(|w| [w.to_string(), stem(w)])
            .collect()
    })
}

/// The scale words Chinese writes after digits ("80万条", "10亿"): a term starting with one is
/// a count whose digits the segmenter cut off ("万条"). Other numerals start real terms
/// ("三维", 3-D; "几何", geometry; "百川", a model family).
const CJK_NUMERALS: &str = "万亿";
/// Chinese characters that carry grammar, not meaning.
const CJK_STOPCHARS: &str = "的了和与在是为及对中等其将从以并或而且这那一个于被把也就都";

/// The words of a data file: one per line, `#` starts a comment line.
pub(crate) fn word_list(text: &'static str) -> impl Iterator<Item = &'static str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}

/// A function word of English (`of`, `via`, `based`) or Chinese (`通过`, `基于`).
pub fn is_stopword(word: &str) -> bool {
    english_stopwords().contains(word) || segment::is_chinese_stopword(word)
}

/// Whether a term is worth showing a person as a reason: not a word any research title or note
/// may use (`generic_words.txt`: "models", "evaluating", "efficient", "大模型"), not a lone CJK
/// character, not a CJK bigram that contains a grammatical character ("上的", "中的" say
/// nothing) and not a quantity ("万条", "ten thousand items": the segmenter cuts "80万条" so).
pub fn is_telling(term: &str) -> bool {
    let cjk: Vec<char> = term.chars().filter(|&c| is_cjk(c)).collect();
    if cjk.is_empty() {
        return !generic_words().contains(term) && !is_parameter_count(term);
    }
    cjk.len() > 1
        && !cjk.iter().any(|&c| CJK_STOPCHARS.contains(c))
        && !CJK_NUMERALS.contains(cjk[0])
        && !generic_words().contains(term)
}

/// A model size as the tokenizer leaves it: "7b", "1.5b", "5-32b" (from "Qwen2.5-32B"), "1-8b"
/// ("Llama-3.1-8B"), "350m": digits, dots and hyphens, then "b" or "m". Which size two papers
/// trained is no reason they are related; a named checkpoint ("torl-7b") still is.
fn is_parameter_count(term: &str) -> bool {
    let Some(body) = term.strip_suffix(['b', 'm']) else {
        return false;
    };
    body.starts_with(|c: char| c.is_ascii_digit())
        && body.ends_with(|c: char| c.is_ascii_digit())
        && body
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == '-')
}

/// Join overlapping or adjacent CJK terms into the phrases they come from, for showing reasons
/// to a person.
///
/// Character bigrams read badly ("端到", "到端"; "强化", "化学", "学习"): two CJK terms where one
/// ends with the character the other starts with are joined ("端到端", then "强化学习") when the
/// joined phrase occurs in every one of `texts`; so are two words that stand side by side in
/// every text, a compound term the segmenter cut ("信用" + "分配" -> "信用分配", credit
/// assignment, where each half alone means "credit" or "allocation"). Terms contained in a kept
/// phrase are dropped.
/// Order follows the first member of each phrase in `terms` (callers pass terms best first).
///
/// ```
/// use recommend::text::join_phrases;
/// let terms = ["化学", "强化", "rl", "学习"].map(String::from);
/// assert_eq!(join_phrases(&terms, &["基于强化学习的智能体", "强化学习 RL"]), ["强化学习", "rl"]);
/// let cut = ["分配", "memory", "信用"].map(String::from);
/// assert_eq!(join_phrases(&cut, &["多轮信用分配", "解决信用分配问题"]), ["信用分配", "memory"]);
/// // side by side in one text only: kept apart
/// assert_eq!(join_phrases(&cut, &["信用分配", "分配信用"]).len(), 3);
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
                if a.chars().count() < 2 || b.chars().count() < 2 {
                    continue;
                }
                // Overlapping bigrams ("强化" + "化学" -> "强化学"), else two words side by
                // side ("信用" + "分配" -> "信用分配": the segmenter cut a compound term).
                let overlapping = a.chars().last() == b.chars().next();
                let phrases = [
                    overlapping.then(|| a.chars().chain(b.chars().skip(1)).collect::<String>()),
                    Some(format!("{a}{b}")),
                ];
                if let Some(phrase) = phrases
                    .into_iter()
                    .flatten()
                    .find(|p| texts.iter().all(|t| t.contains(p.as_str())))
                {
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

/// Character 2-4-grams of each word (CJK runs count as words), padded with spaces as
/// scikit-learn's `char_wb` analyzer does: how names are spelled, which sees that GRPO, DAPO
/// and VAPO share "po " and Search-R1 and WebAgent-R1 share " r1 ". Used as they are by the
/// engine on lists of bare titles (`index::evidence::Spelling`) and by `recommend bench`'s
/// character TF-IDF baseline.
///
/// ```
/// let grams = recommend::text::char_ngrams("DAPO");
/// assert!(grams.contains(&" da".to_string()) && grams.contains(&"po ".to_string()));
/// ```
pub fn char_ngrams(text: &str) -> Vec<String> {
    let folded = crate::text::fold(text);
    let mut out = Vec::new();
    for word in folded
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let padded: Vec<char> = std::iter::once(' ')
            .chain(word.chars())
            .chain(std::iter::once(' '))
            .collect();
        for n in 2..=4 {
            for w in padded.windows(n) {
                out.push(w.iter().collect());
            }
        }
    }
    out
}

/// Lowercase, and fold full-width ASCII (common in Chinese text) to ASCII.
pub fn fold(text: &str) -> String {
    fold_width(text).to_lowercase()
}

/// The revision of [`terms`] and [`name_key`]: bump it whenever either returns something else
/// for some text. An index records the revision its lexical postings and name table were built
/// with, and one built with another is refused until it is rebuilt (its query terms and name
/// keys would not meet its own).
pub const TERMS_VERSION: u32 = 3;

/// The terms the lexical index stores for `text`, in order, repeats kept (for term frequency).
///
/// ```
/// use recommend::text::terms;
/// assert_eq!(terms("GRPO 强化学习"), ["grpo", "强化学习"]);
/// assert_eq!(terms("WebAgent-R1"), ["webagent-r1", "webagent", "web", "agent", "r1"]);
/// assert_eq!(terms("training writers"), ["train", "writer"]);
/// ```
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut cjk = String::new();
    for c in fold_width(text).chars() {
        if is_cjk(c) {
            latin_terms(&word, &mut out);
            word.clear();
            cjk.push(c);
        } else if c.is_alphanumeric() || (c == '-' && !word.is_empty()) {
            segment::chinese_terms(&cjk, &mut out);
            cjk.clear();
            word.push(c);
        } else {
            latin_terms(&word, &mut out);
            segment::chinese_terms(&cjk, &mut out);
            word.clear();
            cjk.clear();
        }
    }
    latin_terms(&word, &mut out);
    segment::chinese_terms(&cjk, &mut out);
    abbreviate(&mut out);
    out
}

/// The field's standard abbreviations and the stemmed words they stand for.
const ABBREVIATIONS: [(&str, &[&str]); 2] = [
    ("rl", &["reinforc", "learn"]),
    ("llm", &["larg", "languag", "model"]),
];

/// Spelled-out names of the field's standard abbreviations become the abbreviation, so
/// "reinforcement learning" and "RL" are one term. Otherwise a list whose titles mostly say
/// "RL" makes "reinforcement" a rare, telling word, and a query saying "reinforcement
/// learning" ranks the few titles that spell it out first, whatever they are about.
fn abbreviate(terms: &mut Vec<String>) {
    for (short, words) in ABBREVIATIONS {
        let mut i = 0;
        while i + words.len() <= terms.len() {
            if terms[i..i + words.len()]
                .iter()
                .zip(words)
                .all(|(t, w)| t == w)
            {
                terms.splice(i..i + words.len(), [short.to_string()]);
            }
            i += 1;
        }
    }
}

/// A stopword, or the plural of one ("results", "improvements" of "result", "improvement"):
/// the list names each word once.
fn is_function_word(lower: &str) -> bool {
    is_stopword(lower) || (lower.len() > 3 && lower.strip_suffix('s').is_some_and(is_stopword))
}

/// Terms of one run of letters, digits and hyphens (case kept, width folded).
fn latin_terms(run: &str, out: &mut Vec<String>) {
    let run = run.trim_matches('-');
    if run.is_empty() {
        return;
    }
    let parts: Vec<&str> = run.split('-').filter(|p| !p.is_empty()).collect();
    if parts.len() > 1 {
        out.push(run.to_lowercase());
    }
    for part in parts {
        let lower = part.to_lowercase();
        // Numbers ("2025", "3b", "64") match by coincidence, never by topic.
        if is_function_word(&lower) || lower.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        let pieces = case_pieces(part);
        if pieces.len() > 1 {
            // A name (WebAgent, rStar): the whole name, then its pieces as ordinary words.
            out.push(lower);
            for piece in pieces {
                let p = piece.to_lowercase();
                if p.chars().count() >= 2 && !is_function_word(&p) {
                    out.push(stem(&p));
                }
            }
        } else if part.chars().any(|c| c.is_ascii_digit()) || is_acronym(part) {
            out.push(lower);
        } else if lower.chars().count() >= 2 {
            out.push(stem(&lower));
        }
    }
}

/// All capitals (GRPO, LLM): an acronym is a name, never stemmed ("GRPOs" is rare, "PPO" ->
/// "ppo" must not lose its last letter).
fn is_acronym(word: &str) -> bool {
    word.chars().filter(|c| c.is_alphabetic()).count() >= 2
        && word.chars().all(|c| !c.is_lowercase())
}

/// Split a word at case changes: "WebAgent" -> Web, Agent; "LLMAgent" -> LLM, Agent; "rStar2"
/// -> r, Star2. Digits stay with the letters before them ("R1", "Star2").
fn case_pieces(word: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = word.char_indices().collect();
    let mut cuts = vec![0];
    for k in 1..chars.len() {
        let (i, c) = chars[k];
        let prev = chars[k - 1].1;
        let next_lower = chars.get(k + 1).is_some_and(|&(_, n)| n.is_lowercase());
        if c.is_uppercase() && (prev.is_lowercase() || (prev.is_uppercase() && next_lower)) {
            cuts.push(i);
        }
    }
    cuts.push(word.len());
    cuts.windows(2).map(|w| &word[w[0]..w[1]]).collect()
}

/// The words of one text, indexed by what they are and what they stem to, so that
/// [`WordForms::surface`] answers for many terms with one pass over the text (explanations ask
/// about a dozen terms per result; stemming the text again for each was most of a warm
/// `--like`).
#[derive(Debug, Clone)]
pub struct WordForms {
    folded: String,
    /// Word or stem -> the first word of the text that is it or stems to it.
    first: std::collections::HashMap<String, String>,
}

impl WordForms {
    pub fn of(text: &str) -> WordForms {
        let folded = fold(text);
        let mut first = std::collections::HashMap::new();
        let mut seen = std::collections::HashSet::new();
        let words = folded
            .split(|c: char| !(c.is_alphanumeric() || c == '-'))
            .map(|w| w.trim_matches('-'))
            .filter(|w| !w.is_empty());
        for w in words {
            if !seen.insert(w) {
                continue;
            }
            first.entry(w.to_string()).or_insert_with(|| w.to_string());
            first.entry(stem(w)).or_insert_with(|| w.to_string());
        }
        WordForms { folded, first }
    }

    /// The text as [`fold`] gives it.
    pub fn folded(&self) -> &str {
        &self.folded
    }

    /// How a lexical term reads in this text: the first word that is the term or stems to it
    /// ("creativ" -> "creative"), lowercase. `None` when the term is only part of a longer
    /// name here ("seek" inside "DeepSeek"), which is no evidence to show a person. CJK terms
    /// read as themselves when the text contains them.
    pub fn surface(&self, term: &str) -> Option<String> {
        if term.chars().any(is_cjk) {
            return self.folded.contains(term).then(|| term.to_string());
        }
        self.first.get(term).cloned()
    }
}

/// The Snowball (Porter 2) stem of a lowercase English word; short words stay as they are.
pub(crate) fn stem(word: &str) -> String {
    static STEMMER: std::sync::OnceLock<rust_stemmers::Stemmer> = std::sync::OnceLock::new();
    if word.chars().count() <= 3 || !word.chars().all(|c| c.is_ascii_lowercase()) {
        return word.to_string();
    }
    STEMMER
        .get_or_init(|| rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English))
        .stem(word)
        .into_owned()
}

/// Whether `word` is written as a name: an uppercase letter after its first character, or a
/// digit ("ALFWorld", "AIME24", "UIUC"), as opposed to an ordinary word ("tackles", "Reports").
pub fn is_name(word: &str) -> bool {
    word.chars().skip(1).any(char::is_uppercase) || word.chars().any(|c| c.is_ascii_digit())
}

/// The lexical terms `text` writes as names ([`is_name`]), each as itself and as its stem.
pub fn names_in(text: &str) -> std::collections::HashSet<String> {
    let mut out = std::collections::HashSet::new();
    for w in fold_width(text)
        .split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .map(|w| w.trim_matches('-'))
        .filter(|w| !w.is_empty())
    {
        if is_name(w) {
            let lower = w.to_lowercase();
            out.insert(stem(&lower));
            out.insert(lower);
        }
    }
    out
}

/// Fold full-width ASCII (common in Chinese text) to ASCII, keeping case.
pub fn fold_width(text: &str) -> String {
    text.chars()
        .map(|c| match c as u32 {
            0xFF01..=0xFF5E => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
            0x3000 => ' ',
            _ => c,
        })
        .collect()
}

/// A key for comparing names: lowercase alphanumerics (and CJK) and `+` only, so "Dr. GRPO",
/// "dr grpo" and "DR-GRPO" all compare equal. A `+` names another thing ("R1-Searcher++" is
/// the successor of "R1-Searcher", as C++ is not C), so it is kept: a list holding both
/// must be able to name each.
pub fn name_key(text: &str) -> String {
    fold(text)
        .chars()
        .filter(|&c| c.is_alphanumeric() || c == '+')
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_keep_their_whole_form_and_give_their_parts() {
        assert_eq!(
            terms("WebAgent-R1: Training"),
            ["webagent-r1", "webagent", "web", "agent", "r1", "train"]
        );
        assert_eq!(
            terms("rStar2-Agent"),
            ["rstar2-agent", "rstar2", "star2", "agent"]
        );
        assert_eq!(terms("LLMAgent"), ["llmagent", "llm", "agent"]);
        assert_eq!(terms("GRPO PPO"), ["grpo", "ppo"]);
    }

    #[test]
    fn english_words_are_stemmed_and_function_words_dropped() {
        assert_eq!(
            terms("the writer writes via writing"),
            ["writer", "write", "write"]
        );
        assert_eq!(terms("agents of agentic"), ["agent", "agent"]);
    }

    #[test]
    fn names_are_told_from_ordinary_words() {
        let names = names_in("It tackles ALFWorld and AIME24, Reports gains; UIUC");
        for name in ["alfworld", "aime24", "uiuc"] {
            assert!(names.contains(name), "{name}");
        }
        for word in ["tackl", "tackles", "report", "gain"] {
            assert!(!names.contains(word), "{word}");
        }
    }

    #[test]
    fn spelled_out_abbreviations_are_the_abbreviation() {
        assert_eq!(
            terms("Reinforcement Learning with Large Language Models"),
            terms("RL with LLM")
        );
        assert_eq!(terms("deep reinforcement learning"), ["deep", "rl"]);
        // Only the whole name: each word alone stays itself.
        assert_eq!(terms("learning to reinforce"), ["learn", "reinforc"]);
        assert_eq!(terms("large models"), ["larg", "model"]);
    }

    #[test]
    fn plurals_of_function_words_are_function_words_too() {
        // "results" is no more evidence than "result"; "no" and "further" are NLTK's.
        assert_eq!(terms("Results: no further gains"), ["gain"]);
        assert_eq!(terms("Results-Aware"), ["results-aware", "awar"]);
    }

    #[test]
    fn chinese_becomes_words_never_cross_word_bigrams() {
        let t = terms("用强化学习训练网页智能体");
        assert!(t.contains(&"强化学习".to_string()), "{t:?}");
        assert!(t.contains(&"智能体".to_string()), "{t:?}");
        assert!(!t.contains(&"化学".to_string()), "{t:?}");
        assert!(t.iter().all(|w| w.chars().count() >= 2), "{t:?}");
    }

    #[test]
    fn mixed_text_and_full_width() {
        assert_eq!(terms("ＲＬ训练 of LLM"), ["rl", "训练", "llm"]);
    }

    #[test]
    fn telling_terms() {
        assert!(is_telling("grpo"));
        assert!(!is_telling("models") && !is_telling(&stem("evaluating")));
        assert!(is_telling(&stem("negotiation")));
        assert!(!is_telling("大模型") && is_telling("世界模型"));
        assert!(is_telling("推理"));
        assert!(!is_telling("推"));
        assert!(!is_telling("中的"));
        // a count whose digits were cut off, and the Chinese of words any paper may use
        assert!(!is_telling("万条") && !is_telling("优化") && !is_telling("算法"));
        // Model sizes and base models say nothing two papers share; named checkpoints and
        // benchmarks do.
        for size in ["7b", "1.5b", "5-32b", "1-8b", "350m", "671b"] {
            assert!(!is_telling(size), "{size}");
        }
        for base in ["gpt-4", "llama-3", "qwen2.5", "llama"] {
            assert!(!is_telling(base), "{base}");
        }
        for named in ["torl-7b", "b", "m", "3d", "r1", "aime", "gsm8k"] {
            assert!(is_telling(named), "{named}");
        }
        assert!(is_telling("三维") && is_telling("几何"));
    }

    #[test]
    fn name_keys_ignore_case_and_punctuation() {
        assert_eq!(name_key("Dr. GRPO"), name_key("dr-grpo"));
        assert_eq!(name_key("Tülu 3"), "tülu3");
        assert_ne!(name_key("R1-Searcher++"), name_key("R1-Searcher"));
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
