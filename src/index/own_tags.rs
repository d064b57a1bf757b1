//! The list's own vocabulary: the words a user already filed each paper under.
//!
//! A user's list rarely carries the curated tags of `src/corpus/tags.txt`, but it nearly always
//! says something about each paper in its own words: BibTeX `keywords` and `groups`, CSV/JSONL
//! `tags`, `keywords` and `categories`, arXiv categories, Zotero tags and collections (all kept
//! in [`crate::corpus::Paper::keywords`]), a facets side file, and the section a reading list
//! files the paper under (`topic`, `also_topics`). Each distinct name becomes one tag of this
//! list, weighed by its inverse document frequency in this list, so the evidence follows the
//! user's vocabulary instead of ours.
//!
//! Names are compared folded (case, width, runs of whitespace), so `Web Agents` and
//! `web agents` are one tag. A name more than half of the list carries tells nothing about
//! which papers go together and weighs nothing; a name with control characters, or empty
//! after folding, is not a tag.

use super::evidence::sparse_dot;
use super::papers::PaperTable;
use hashbrown::HashMap;

/// Longest name kept, in characters: a "keyword" longer than a sentence is a note.
const MAX_NAME_CHARS: usize = 120;

/// The list's own tags: one unit-length IDF-weighted row per paper.
pub struct OwnTags {
    /// Per paper: (tag id, weight), ascending tag ids, unit length (empty when untagged or
    /// when every tag it carries weighs nothing).
    rows: Vec<Vec<(u32, f32)>>,
    /// The folded names, by tag id.
    names: Vec<String>,
    /// Per tag: the papers whose row holds it, ascending ([`OwnTags::similar_to`] reads only
    /// these).
    postings: Vec<Vec<u32>>,
}

impl OwnTags {
    /// The own tags of `table`. `sections` says whether a paper's section (`topic`,
    /// `also_topics`) counts as one of its tags: the topics evaluation compares clusters with
    /// the sections, so it must not see them as evidence.
    pub fn new(table: &PaperTable<'_>, sections: bool) -> OwnTags {
        let mut ids: HashMap<String, u32> = HashMap::new();
        let mut names: Vec<String> = Vec::new();
        let mut raw: Vec<Vec<u32>> = Vec::with_capacity(table.len());
        for i in 0..table.len() {
            let mut given = table.keywords(i);
            if sections {
                given.push(table.topic(i).into_owned());
                given.extend(table.also_topics(i));
            }
            let mut row: Vec<u32> = given
                .iter()
                .filter_map(|n| fold_name(n))
                .filter(|n| !is_workflow_mark(n))
                .map(|n| {
                    *ids.entry(n.clone()).or_insert_with(|| {
                        names.push(n);
                        (names.len() - 1) as u32
                    })
                })
                .collect();
            row.sort_unstable();
            row.dedup();
            raw.push(row);
        }
        let n = table.len();
        let mut df = vec![0usize; names.len()];
        for t in raw.iter().flatten() {
            df[*t as usize] += 1;
        }
        // A tag on more than half of the list separates nothing; a tag on one paper links
        // nothing (it cannot be shared), so both weigh zero.
        let idf: Vec<f32> = df
            .iter()
            .map(|&d| {
                if d < 2 || 2 * d > n {
                    0.0
                } else {
                    ((1.0 + n as f32) / (1.0 + d as f32)).ln()
                }
            })
            .collect();
        let rows = raw
            .into_iter()
            .map(|row| {
                let kept: Vec<(u32, f32)> = row
                    .into_iter()
                    .filter(|&t| idf[t as usize] > 0.0)
                    .map(|t| (t, idf[t as usize]))
                    .collect();
                let norm = kept.iter().map(|(_, w)| w * w).sum::<f32>().sqrt();
                kept.into_iter()
                    .map(|(t, w)| (t, w / norm.max(1e-12)))
                    .collect()
            })
            .collect::<Vec<Vec<(u32, f32)>>>();
        let postings = super::evidence::postings_of(&rows, names.len());
        OwnTags {
            rows,
            names,
            postings,
        }
    }

    /// Whether no two papers share a tag that weighs anything: then the signal is silent.
    pub fn is_empty(&self) -> bool {
        self.rows.iter().all(|r| r.is_empty())
    }

    /// Whether paper `a` carries a tag that weighs anything.
    pub fn has_any(&self, a: usize) -> bool {
        !self.rows[a].is_empty()
    }

    /// Weighted cosine of paper `a`'s own tags with every paper's (zeros when `a` has none).
    pub fn similar_to(&self, a: usize) -> Vec<f32> {
        let seed = &self.rows[a];
        let mut out = vec![0.0; self.rows.len()];
        // Only papers sharing a tag can score above the 0.0 `sparse_dot` gives disjoint rows:
        // the values of a full scan, at the cost of the seed's postings.
        for &(t, _) in seed {
            for &p in &self.postings[t as usize] {
                out[p as usize] = sparse_dot(seed, &self.rows[p as usize]);
            }
        }
        out
    }

    /// [`OwnTags::similar_to`] at `papers` only, in their order (the same values).
    pub fn similar_at(&self, a: usize, papers: &[usize]) -> Vec<f32> {
        let seed = &self.rows[a];
        papers
            .iter()
            .map(|&p| sparse_dot(seed, &self.rows[p]))
            .collect()
    }

    /// The names papers `a` and `b` share, heaviest first (for explanations).
    pub fn shared(&self, a: usize, b: usize) -> Vec<&str> {
        let mut both: Vec<(f32, &str)> = Vec::new();
        let (ra, rb) = (&self.rows[a], &self.rows[b]);
        let (mut i, mut j) = (0, 0);
        while i < ra.len() && j < rb.len() {
            match ra[i].0.cmp(&rb[j].0) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    both.push((ra[i].1 * rb[j].1, &self.names[ra[i].0 as usize]));
                    i += 1;
                    j += 1;
                }
            }
        }
        both.sort_by(|x, y| y.0.total_cmp(&x.0));
        both.into_iter().map(|(_, n)| n).collect()
    }
}

/// `name` folded for comparison (NFKC, lower case, `-` and `_` as spaces, whitespace runs as
/// one space, trimmed): a section "Late Interaction" and a keyword `late-interaction` are one
/// tag. `None` when empty, too long or holding control characters.
/// Tags that say how the reader handles a paper, not what it is about (folded as
/// [`fold_name`] folds). Reference managers are full of them; as evidence they made two papers
/// related for being favourites (a blind probe: a `favourite` tag on Voyager and ReAct put
/// ReAct first among Voyager's related work).
const WORKFLOW_MARKS: &[&str] = &[
    "to read",
    "toread",
    "read",
    "unread",
    "reading",
    "read later",
    "read next",
    "must read",
    "skimmed",
    "favorite",
    "favourite",
    "favorites",
    "favourites",
    "fav",
    "favs",
    "starred",
    "star",
    "important",
    "todo",
    "to do",
    "later",
    "priority",
    "high priority",
    "low priority",
    "done",
    "queue",
    "inbox",
    "待读",
    "已读",
    "在读",
    "必读",
    "精读",
    "收藏",
    "重要",
];

/// Whether the folded tag `name` is a reading-workflow mark ([`WORKFLOW_MARKS`]) or holds no
/// letter or digit at all (`★`, `!!`).
fn is_workflow_mark(name: &str) -> bool {
    WORKFLOW_MARKS.contains(&name) || !name.chars().any(char::is_alphanumeric)
}

pub fn fold_name(name: &str) -> Option<String> {
    use unicode_normalization::UnicodeNormalization;
    if name.chars().any(|c| c.is_control()) {
        return None;
    }
    let folded: String = name
        .nfkc()
        .flat_map(char::to_lowercase)
        .map(|c| if c == '-' || c == '_' { ' ' } else { c })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    (!folded.is_empty() && folded.chars().count() <= MAX_NAME_CHARS).then_some(folded)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Paper;
    use crate::index::papers::PaperColumns;

    fn table_of(papers: &[Paper]) -> PaperColumns {
        PaperColumns::build(papers)
    }

    fn paper(id: &str, keywords: &[&str], topic: &str) -> Paper {
        Paper {
            id: id.into(),
            title: id.into(),
            keywords: keywords.iter().map(|s| s.to_string()).collect(),
            topic: topic.into(),
            ..Paper::default()
        }
    }

    #[test]
    fn shared_specific_names_link_and_common_ones_weigh_nothing() {
        let papers = vec![
            paper("a", &["Web Agents", "rl"], "S1"),
            paper("b", &["web  agents", "rl"], "S2"),
            paper("c", &["rl", "math"], "S2"),
            paper("d", &["rl", "math"], "S3"),
            paper("e", &["rl"], "S3"),
        ];
        let cols = table_of(&papers);
        let tags = OwnTags::new(&cols.table(), false);
        let s = tags.similar_to(0);
        assert!(s[1] > 0.99, "a and b share 'web agents' only: {s:?}");
        assert_eq!(s[2], 0.0, "'rl' is on every paper and weighs nothing");
        assert_eq!(tags.shared(0, 1), vec!["web agents"]);
        let with_sections = OwnTags::new(&cols.table(), true);
        assert!(
            with_sections.similar_to(2)[1] > 0.0,
            "c and b share section S2"
        );
        assert_eq!(
            tags.similar_to(2)[1],
            0.0,
            "without sections, c and b share nothing"
        );
    }

    /// Marks of how the reader handles a paper link nothing; the topics beside them still do.
    #[test]
    fn reading_workflow_marks_are_not_evidence() {
        let papers = vec![
            paper("voyager", &["Favourite", "embodied"], ""),
            paper("react", &["favourite", "To-Read", "★"], ""),
            paper("minecraft", &["embodied", "to read", "★"], ""),
            paper("other", &["vision"], ""),
            paper("more", &["vision"], ""),
        ];
        let cols = table_of(&papers);
        let tags = OwnTags::new(&cols.table(), false);
        assert_eq!(tags.similar_to(0)[1], 0.0, "favourites are not related");
        assert_eq!(tags.similar_to(1)[2], 0.0, "nor papers still to read");
        assert!(tags.similar_to(0)[2] > 0.99, "'embodied' still links");
    }

    #[test]
    fn control_characters_and_empty_names_are_not_tags() {
        assert_eq!(fold_name("  "), None);
        assert_eq!(fold_name("a\u{7}b"), None);
        assert_eq!(fold_name(&"x".repeat(500)), None);
        assert_eq!(fold_name(" Ｗeb   Agents "), Some("web agents".into()));
        assert_eq!(fold_name("Late-Interaction"), fold_name("late interaction"));
        assert_eq!(fold_name("multi_agent"), Some("multi agent".into()));
    }

    #[test]
    fn thousands_of_distinct_tags_or_one_on_every_paper_stay_silent() {
        let distinct: Vec<Paper> = (0..3000)
            .map(|i| paper(&format!("p{i}"), &[&format!("tag{i}")], ""))
            .collect();
        let cols = table_of(&distinct);
        assert!(OwnTags::new(&cols.table(), true).is_empty());
        let everywhere: Vec<Paper> = (0..50)
            .map(|i| paper(&format!("p{i}"), &["agents"], "all"))
            .collect();
        let cols = table_of(&everywhere);
        assert!(OwnTags::new(&cols.table(), true).is_empty());
    }
}
