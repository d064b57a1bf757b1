//! What an index says about papers beyond their text, derived once per process from the
//! stored columns and vectors: the corpus centroid of the embeddings, the curated tags as
//! IDF-weighted unit vectors, the `builds_on` graph in both directions, the spelling of the
//! papers' texts on lists of bare titles, and each paper's words by stem (for explanations).
//!
//! All of it is optional data: a user's corpus of titles and abstracts has no tags and no
//! relations, and then these signals are simply silent (empty vectors, no edges).

use std::borrow::Cow;
use std::collections::HashMap;

use super::lexical::Lexical;
use super::papers::PaperTable;
pub use super::spelling::Spelling;
pub use centroid::Centroid;

mod centroid;
use crate::text::{WordForms, name_key};

/// The fewest papers in each of the two groups an axis runs between ([`language_axis`],
/// [`shape_axis`]): the mean of fewer is one topic's as much as the group's.
pub const LANGUAGE_AXIS_MIN_PAPERS: usize = 5;

/// The language a paper is described in, from its notes (summary and highlight; titles of
/// either kind of list are mostly English): Chinese when Chinese characters are at least 60%
/// of its characters-and-words, English when it has Latin words and no Chinese character;
/// `None` for mixed notes (the curated list's Chinese highlight with an English summary sits
/// at 9-58%) and for papers without notes.
pub fn described_in_chinese(notes: &str) -> Option<bool> {
    let cjk = notes.chars().filter(|&c| crate::text::is_cjk(c)).count();
    let words = notes
        .split(|c: char| !c.is_ascii_alphabetic())
        .filter(|w| !w.is_empty())
        .count();
    if cjk + words == 0 {
        None
    } else if cjk == 0 {
        Some(false)
    } else if cjk as f32 >= 0.6 * (cjk + words) as f32 {
        Some(true)
    } else {
        None
    }
}

/// [`described_in_chinese`] of every paper of `table`, from its summary and highlight.
pub fn languages(table: &PaperTable<'_>) -> Vec<Option<bool>> {
    (0..table.len())
        .map(|i| described_in_chinese(&format!("{} {}", table.summary(i), table.highlight(i))))
        .collect()
}

/// Whether a paper is described, from its notes: `Some(true)` for 20 words or more (or 40
/// Chinese characters: an abstract, a paragraph of notes), `Some(false)` for none at all (a
/// bare title), `None` between (a one-line note belongs to neither group).
pub fn described_at_length(notes: &str) -> Option<bool> {
    let notes = notes.trim();
    if notes.is_empty() {
        return Some(false);
    }
    let words = notes.split_whitespace().count();
    let cjk = notes.chars().filter(|&c| crate::text::is_cjk(c)).count();
    (words >= 20 || cjk >= 40).then_some(true)
}

/// [`described_at_length`] of every paper of `table`, from its summary and highlight.
pub fn shapes(table: &PaperTable<'_>) -> Vec<Option<bool>> {
    (0..table.len())
        .map(|i| described_at_length(&format!("{} {}", table.summary(i), table.highlight(i))))
        .collect()
}

/// On a list whose papers are described some in Chinese and some in English (at least
/// [`LANGUAGE_AXIS_MIN_PAPERS`] each), the unit direction from the English-described papers'
/// mean vector to the Chinese-described ones'. e5 places a passage by its language as well as
/// its topic: on the shipped papers with half described by their Chinese highlight and half by
/// their English summary, 99.4% of `--like`'s top 5 came from the seed's language (half would
/// be expected). `None` on a list in one language.
pub fn language_axis(languages: &[Option<bool>], rows: &[f32], dim: usize) -> Option<Vec<f32>> {
    group_axis(languages, rows, dim)
}

/// On a list of papers some described at length and some bare titles (at least
/// [`LANGUAGE_AXIS_MIN_PAPERS`] each, [`shapes`]), the unit direction from the bare titles'
/// mean vector to the described papers'. e5 places a passage by its length and kind as well as
/// its topic: a bare title is closer to any other bare title than to the abstract of its own
/// subject, so a user's list of both gave related work and topics by shape (a blind probe: one
/// topic of five bare titles of five subjects). `None` where either group is smaller.
pub fn shape_axis(shapes: &[Option<bool>], rows: &[f32], dim: usize) -> Option<Vec<f32>> {
    group_axis(shapes, rows, dim)
}

/// The unit direction from the mean vector of the papers in group `Some(false)` to that of
/// group `Some(true)`, when each has [`LANGUAGE_AXIS_MIN_PAPERS`] papers or more.
fn group_axis(groups: &[Option<bool>], rows: &[f32], dim: usize) -> Option<Vec<f32>> {
    let mut sums = [vec![0.0f64; dim], vec![0.0f64; dim]];
    let mut counts = [0usize; 2];
    for (group, row) in groups.iter().zip(rows.chunks_exact(dim)) {
        let Some(g) = group else { continue };
        let g = usize::from(*g);
        counts[g] += 1;
        for (s, x) in sums[g].iter_mut().zip(row) {
            *s += f64::from(*x);
        }
    }
    if counts.iter().any(|&c| c < LANGUAGE_AXIS_MIN_PAPERS) {
        return None;
    }
    let d: Vec<f64> = (0..dim)
        .map(|k| sums[1][k] / counts[1] as f64 - sums[0][k] / counts[0] as f64)
        .collect();
    let norm = d.iter().map(|x| x * x).sum::<f64>().sqrt();
    (norm > 1e-9).then(|| d.iter().map(|x| (x / norm) as f32).collect())
}

/// Curated tags as sparse unit vectors, each tag weighted by its inverse document frequency
/// ln((1 + n) / (1 + df)) (a tag every paper carries says nothing; a rare shared tag says a
/// lot). Without the "+ 1" floor of the smoothed TF-IDF: with it, a tag on a quarter of the
/// list (`grpo-family`, `reasoning`) still weighed half as much as one shared by two papers,
/// and pulled the field's foundations into every top 5 (judged related@5 0.836 -> 0.846,
/// section P@5 0.667 -> 0.681, path steps related 87.2% -> 89.3% without it).
#[derive(Debug, Clone, Default)]
pub struct Tags {
    pub names: Vec<String>,
    /// Per paper: (tag id, weight), ascending tag ids, unit length (empty when untagged).
    pub rows: Vec<Vec<(u32, f32)>>,
    pub idf: Vec<f32>,
    /// Per tag: the papers carrying it, ascending ([`Tags::similar_to`] reads only these).
    postings: Vec<Vec<u32>>,
}

impl Tags {
    pub fn new(table: &PaperTable<'_>) -> Tags {
        let mut ids: HashMap<String, u32> = HashMap::new();
        let mut names = Vec::new();
        let mut raw: Vec<Vec<u32>> = Vec::with_capacity(table.len());
        for i in 0..table.len() {
            let mut row: Vec<u32> = table
                .tags(i)
                .into_iter()
                .map(|t| {
                    *ids.entry(t.clone()).or_insert_with(|| {
                        names.push(t);
                        (names.len() - 1) as u32
                    })
                })
                .collect();
            row.sort_unstable();
            row.dedup();
            raw.push(row);
        }
        let mut df = vec![0usize; names.len()];
        for t in raw.iter().flatten() {
            df[*t as usize] += 1;
        }
        let n = table.len() as f32;
        let idf: Vec<f32> = df
            .iter()
            .map(|&d| ((1.0 + n) / (1.0 + d as f32)).ln())
            .collect();
        let rows = raw
            .into_iter()
            .map(|row| {
                let norm = row
                    .iter()
                    .map(|&t| idf[t as usize].powi(2))
                    .sum::<f32>()
                    .sqrt();
                row.into_iter()
                    .map(|t| (t, idf[t as usize] / norm.max(1e-12)))
                    .collect()
            })
            .collect::<Vec<Vec<(u32, f32)>>>();
        let postings = postings_of(&rows, names.len());
        Tags {
            names,
            rows,
            idf,
            postings,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Weighted cosine of paper `a`'s tags with every paper's (zeros when `a` is untagged).
    pub fn similar_to(&self, a: usize) -> Vec<f32> {
        cosines(&self.rows, &self.postings, a)
    }

    /// [`Tags::similar_to`] at `papers` only, in their order (the same values).
    pub fn similar_at(&self, a: usize, papers: &[usize]) -> Vec<f32> {
        cosines_at(&self.rows, a, papers)
    }

    /// The tags of this list that `query` names, by the vocabulary's English or Chinese name or
    /// by the tag itself (`src/corpus/tags.txt`), each with the name as the query wrote it (the
    /// name in the query's language when only its glossary translations spell one).
    ///
    /// The vocabulary is bilingual, so a Chinese query that says 网页智能体 finds the papers
    /// tagged `web-agent` whose records say "web agent" only in English. An English name is
    /// named when all its words are among the query's, plurals aside ("web agents" names "Web
    /// agents"; "writes" does not name "Writing", which a stemmer would conflate), or among
    /// the query's words and their glossary translations (界面操作智能体 names "GUI agents"
    /// through 界面 -> gui and 智能体 -> agent, as BM25 reads them); a Chinese
    /// name when consecutive words of the query (jieba's whole cut, [`spelling_words`]) spell it,
    /// so word boundaries hold ('化学', chemistry, is not named by '强化学习') and function
    /// words count ('基于模型的强化学习', model-based RL). A tag whose English name is generic
    /// is named by nothing, in either language: generic in any research text (`Systems`,
    /// `Models`: not [`crate::text::is_telling`]) or in this list ([`Lexical::is_generic`]:
    /// 'reasoning', and so '推理', in a list about RL for reasoning models). A Chinese name is
    /// a fixed phrase and is not judged by its words: 基于模型的强化学习 is made of words every
    /// paper of such a list uses.
    pub fn named_in(&self, query: &str, lexical: &Lexical<'_>) -> Vec<(u32, &'static str)> {
        if self.is_empty() {
            return Vec::new();
        }
        let own = name_words(query);
        let translated = name_words(&crate::text::glossary::translations(query));
        let cut = spelling_words(query);
        let chinese = query.chars().any(crate::text::is_cjk);
        let specific = |ts: &[String]| {
            ts.iter()
                .any(|t| crate::text::is_telling(t) && !lexical.is_generic(t))
        };
        let mut named = Vec::new();
        for (tag, en, zh) in crate::corpus::paper::tag_names() {
            let Some(id) = self.names.iter().position(|n| n == tag) else {
                continue;
            };
            if !specific(&crate::text::terms(en)) {
                continue;
            }
            let key: String = crate::text::fold(zh)
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect();
            let spelled_zh =
                key.chars().any(crate::text::is_cjk) && consecutive_spelling(&cut, &key).is_some();
            let all_in = |name: &str, with_translations: bool| {
                let ws = name_words(name);
                !ws.is_empty()
                    && ws
                        .iter()
                        .all(|w| own.contains(w) || (with_translations && translated.contains(w)))
            };
            // The name as the query wrote it; when only the query's glossary translations spell
            // the English name (界面操作智能体: interface, gui, operation, agent), the name in
            // the query's language.
            let name = if spelled_zh {
                Some(zh)
            } else {
                [tag, en]
                    .into_iter()
                    .find(|name| all_in(name, false))
                    .or_else(|| all_in(en, true).then_some(if chinese { zh } else { en }))
            };
            if let Some(name) = name {
                named.push((id as u32, name));
            }
        }
        named
    }

    /// Whether paper `paper` carries tag `tag`.
    pub fn carries(&self, paper: usize, tag: u32) -> bool {
        self.rows
            .get(paper)
            .is_some_and(|row| row.iter().any(|&(t, _)| t == tag))
    }

    /// Per paper, the summed IDF of the `tags` it carries (zero for the others).
    pub fn carried(&self, tags: &[u32]) -> Vec<f32> {
        self.rows
            .iter()
            .map(|row| {
                row.iter()
                    .filter(|(t, _)| tags.contains(t))
                    .map(|&(t, _)| self.idf[t as usize])
                    .sum()
            })
            .collect()
    }

    /// The tags `a` and `b` share, rarest first.
    pub fn shared(&self, a: usize, b: usize) -> Vec<&str> {
        let mut shared: Vec<u32> = self.rows[a]
            .iter()
            .filter(|(t, _)| self.rows[b].iter().any(|(u, _)| u == t))
            .map(|&(t, _)| t)
            .collect();
        shared.sort_by(|x, y| {
            self.idf[*y as usize]
                .total_cmp(&self.idf[*x as usize])
                .then(x.cmp(y))
        });
        shared
            .into_iter()
            .map(|t| self.names[t as usize].as_str())
            .collect()
    }
}

/// The Latin words of `text` for matching a tag's name: folded, split at anything but letters,
/// digits and hyphens, a plural "s" dropped from words of four letters or more.
fn name_words(text: &str) -> Vec<String> {
    crate::text::fold(text)
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .filter(|w| !w.is_empty())
        .map(|w| match w.strip_suffix('s') {
            Some(stem) if w.len() >= 4 && !stem.ends_with('s') => stem.to_string(),
            _ => w.to_string(),
        })
        .collect()
}

/// `text` as a sequence of words, as a reader would cut it: jieba's precise cut of each run of
/// CJK characters with its function words and single characters kept (so "基于模型的强化学习"
/// is 基于 / 模型 / 的 / 强化学习 and spells that tag's name), and the folded Latin words.
fn spelling_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut cjk, mut latin) = (String::new(), String::new());
    let flush = |cjk: &mut String, latin: &mut String, out: &mut Vec<String>| {
        out.extend(crate::text::segment::cut_words(cjk));
        out.extend(name_words(latin));
        cjk.clear();
        latin.clear();
    };
    for c in crate::text::fold(text).chars() {
        if crate::text::is_cjk(c) {
            if !latin.is_empty() {
                flush(&mut cjk, &mut latin, &mut out);
            }
            cjk.push(c);
        } else {
            if !cjk.is_empty() {
                flush(&mut cjk, &mut latin, &mut out);
            }
            latin.push(c);
        }
    }
    flush(&mut cjk, &mut latin, &mut out);
    out
}

/// The consecutive `words` whose concatenation is `key`, if any.
fn consecutive_spelling<'w>(words: &'w [String], key: &str) -> Option<&'w [String]> {
    if key.is_empty() {
        return None;
    }
    for start in 0..words.len() {
        let mut spelled = String::new();
        for (end, w) in words.iter().enumerate().skip(start) {
            spelled.push_str(w);
            if spelled == key {
                return Some(&words[start..=end]);
            }
            if !key.starts_with(&spelled) {
                break;
            }
        }
    }
    None
}

/// The cosine of sparse unit row `a` with every row (zeros when `a` is empty).
fn cosines(rows: &[Vec<(u32, f32)>], postings: &[Vec<u32>], a: usize) -> Vec<f32> {
    let seed = &rows[a];
    let mut out = vec![0.0; rows.len()];
    // Only papers that share a tag can have a non-zero dot product; every other one is the
    // 0.0 that `sparse_dot` of disjoint rows gives, so the values are those of a full scan.
    for &(t, _) in seed {
        for &p in &postings[t as usize] {
            out[p as usize] = sparse_dot(seed, &rows[p as usize]);
        }
    }
    out
}

/// [`cosines`] at `papers` only, in their order.
fn cosines_at(rows: &[Vec<(u32, f32)>], a: usize, papers: &[usize]) -> Vec<f32> {
    let seed = &rows[a];
    papers.iter().map(|&p| sparse_dot(seed, &rows[p])).collect()
}

/// Per id (of `ids`): the rows holding it, ascending.
pub(crate) fn postings_of(rows: &[Vec<(u32, f32)>], ids: usize) -> Vec<Vec<u32>> {
    let mut postings = vec![Vec::new(); ids];
    for (p, row) in rows.iter().enumerate() {
        for &(t, _) in row {
            postings[t as usize].push(p as u32);
        }
    }
    postings
}

/// Dot product of two sparse rows sorted by id: a merge of two short lists.
pub fn sparse_dot<I: Ord>(a: &[(I, f32)], b: &[(I, f32)]) -> f32 {
    let (mut i, mut j, mut s) = (0, 0, 0.0f32);
    while i < a.len() && j < b.len() {
        match a[i].0.cmp(&b[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                s += a[i].1 * b[j].1;
                i += 1;
                j += 1;
            }
        }
    }
    s
}

/// The `builds_on` graph: `parents[i]` are the papers `i` builds on, `children[i]` those that
/// build on `i`. Ids that do not resolve (possible only in a hand-edited index) are skipped.
#[derive(Debug, Clone, Default)]
pub struct Relations {
    pub parents: Vec<Vec<usize>>,
    pub children: Vec<Vec<usize>>,
}

impl Relations {
    pub fn new(table: &PaperTable<'_>) -> Relations {
        let n = table.len();
        let mut parents = vec![Vec::new(); n];
        let mut children = vec![Vec::new(); n];
        for (i, ps) in parents.iter_mut().enumerate() {
            for id in table.builds_on(i) {
                let key = name_key(&id);
                if let Some(j) = table
                    .named(&key)
                    .into_iter()
                    .find(|&j| j != i && table.id(j) == id)
                {
                    ps.push(j);
                    children[j].push(i);
                }
            }
        }
        Relations { parents, children }
    }

    pub fn is_empty(&self) -> bool {
        self.parents.iter().all(Vec::is_empty)
    }

    /// How `a` and `b` are related through `builds_on`, if at all.
    /// How much sharing parent `p` says about two papers, in [0, 1]: `ln(n / c) / ln(n)` for
    /// `c` papers built on `p` out of `n`, the IDF of terms and tags applied to parents. Two
    /// papers that both build on a method most of the list uses (GRPO in an agentic-RL list)
    /// share little more than the field; two that build on a niche paper share its idea.
    pub fn parent_specificity(&self, p: usize) -> f32 {
        let n = self.parents.len() as f32;
        let c = self.children[p].len().max(1) as f32;
        if n <= 1.0 {
            return 0.0;
        }
        ((n / c).ln() / n.ln()).clamp(0.0, 1.0)
    }

    pub fn between(&self, a: usize, b: usize) -> Option<Relation> {
        if self.parents[a].contains(&b) {
            Some(Relation::BuildsOn)
        } else if self.children[a].contains(&b) {
            Some(Relation::BuiltOnBy)
        } else {
            // The most specific shared parent: the one fewest papers build on.
            self.parents[a]
                .iter()
                .filter(|p| self.parents[b].contains(p))
                .min_by_key(|&&p| self.children[p].len())
                .map(|&p| Relation::SharedParent(p))
        }
    }
}

/// A `builds_on` link between two papers, seen from the first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    /// The first builds on the second.
    BuildsOn,
    /// The second builds on the first.
    BuiltOnBy,
    /// Both build on this paper.
    SharedParent(usize),
}

/// Each paper's words indexed by their stems ([`WordForms`]), built on first use and kept, so
/// that explanations (a dozen shared terms per result, a dozen results per query) stem a
/// paper's text once per process rather than once per question. Kept only for indexes of up
/// to [`Surfaces::MAX_PAPERS`] papers (~10-20 KB each, so at most some 40 MB); above that they are built per call, so a
/// long-running server's memory cannot grow with every paper it ever explained.
pub struct Surfaces {
    forms: Box<[std::sync::OnceLock<WordForms>]>,
}

impl Surfaces {
    pub const MAX_PAPERS: usize = 2_000;

    /// A cache for `n` papers (empty above [`Surfaces::MAX_PAPERS`]).
    pub fn new(n: usize) -> Surfaces {
        let n = if n <= Self::MAX_PAPERS { n } else { 0 };
        Surfaces {
            forms: (0..n).map(|_| std::sync::OnceLock::new()).collect(),
        }
    }

    /// The word forms of paper `i`, whose text `text` gives when they are not cached yet.
    pub fn get(&self, i: usize, text: impl FnOnce() -> String) -> Cow<'_, WordForms> {
        match self.forms.get(i) {
            Some(cell) => Cow::Borrowed(cell.get_or_init(|| WordForms::of(&text()))),
            None => Cow::Owned(WordForms::of(&text())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Relation, Relations, WordForms, consecutive_spelling, name_words, spelling_words};

    #[test]
    fn tag_names_match_whole_words_plurals_aside() {
        assert_eq!(
            name_words("GUI agents, WebAgents!"),
            ["gui", "agent", "webagent"]
        );
        // Short words and double s keep their s: "RL" stays, "process" is not "proces".
        assert_eq!(name_words("ppo process RLs"), ["ppo", "process", "rls"]);
        let words: Vec<String> = ["强化学习", "训练", "网页", "智能体"]
            .map(String::from)
            .into();
        assert_eq!(
            consecutive_spelling(&words, "网页智能体"),
            Some(&words[2..4])
        );
        // Inside one word is no spelling: '化学' (chemistry) is not in '强化学习'.
        assert_eq!(consecutive_spelling(&words, "化学"), None);
        assert_eq!(consecutive_spelling(&words, "训练网页"), Some(&words[1..3]));
        assert_eq!(consecutive_spelling(&words, ""), None);
        // The cut keeps function words and single characters, and folds Latin words.
        assert_eq!(
            spelling_words("基于模型的强化学习, GUI Agents"),
            ["基于", "模型", "的", "强化学习", "gui", "agent"]
        );
    }

    /// Papers 0 (a hub: 1-4 build on it) and 5 (a niche parent: 3 and 4 build on it).
    fn family() -> Relations {
        let parents = vec![vec![], vec![0], vec![0], vec![0, 5], vec![0, 5], vec![]];
        let mut children = vec![Vec::new(); parents.len()];
        for (i, ps) in parents.iter().enumerate() {
            for &p in ps {
                children[p].push(i);
            }
        }
        Relations { parents, children }
    }

    #[test]
    fn a_shared_niche_parent_says_more_than_a_shared_hub() {
        let r = family();
        assert!(r.parent_specificity(5) > r.parent_specificity(0));
        assert!((0.0..=1.0).contains(&r.parent_specificity(0)));
        // 3 and 4 share both parents: the relation names the more specific one.
        assert_eq!(r.between(3, 4), Some(Relation::SharedParent(5)));
        assert_eq!(r.between(1, 2), Some(Relation::SharedParent(0)));
        assert_eq!(r.between(1, 0), Some(Relation::BuildsOn));
        assert_eq!(r.between(0, 1), Some(Relation::BuiltOnBy));
        assert_eq!(r.between(5, 1), None);
    }

    #[test]
    fn word_forms_give_the_first_word_that_is_or_stems_to_a_term() {
        let f = WordForms::of("Creative writers write; DeepSeek seeks 网页智能体");
        assert_eq!(f.surface("creativ").as_deref(), Some("creative"));
        assert_eq!(f.surface("writer").as_deref(), Some("writers"));
        assert_eq!(f.surface("seek").as_deref(), Some("seeks"));
        assert_eq!(f.surface("网页").as_deref(), Some("网页"));
        assert_eq!(f.surface("agent"), None);
    }
}
