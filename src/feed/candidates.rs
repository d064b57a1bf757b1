//! Candidates for a feed: which papers are new to the library, which pass the reader's filters,
//! and the library's interests. Pure functions over papers, shared by the CLI and the tests.

use std::collections::{HashMap, HashSet};

use crate::corpus::Paper;
use crate::corpus::fields::{normalize_arxiv, normalize_doi};
use crate::index::Searcher;
use crate::text::name_key;

use super::Interest;

/// A paper offered to the feed, with its publication date when the source gave one.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub paper: Paper,
    /// `YYYY-MM-DD` (arXiv feeds, a `date` column), `YYYY-MM`, or `YYYY` (a year only).
    pub date: Option<String>,
    /// What identifies it across runs and sources: [`key`].
    pub key: String,
    /// Far from the library: its title, searched in the library, would be a weak match there
    /// ([`mark_far`]).
    pub far: bool,
}

/// A paper's identity across sources: its arXiv id, else its DOI, else its title's name key
/// (so the same paper from an arXiv listing and a BibTeX export is one paper).
pub fn key(p: &Paper) -> String {
    // The first of its identifiers, which always ends with the title's.
    identifiers(p).next().unwrap_or_default()
}

/// The id a reader sees for the paper keyed `key` titled `title`: its arXiv id or DOI, else
/// the slug a library paper without an id gets (`web-agents-trained-with-...`), so that new
/// papers and library papers read alike.
pub fn shown_id(key: &str, title: &str) -> String {
    match key.strip_prefix("title:") {
        Some(_) => crate::corpus::markdown::slugify(title),
        None => key.to_string(),
    }
}

/// Whether `wanted` names the paper keyed `key` titled `title`: by its key, the id shown for it
/// ([`shown_id`], or the key without its `title:` prefix), or its title (folded as names are).
pub fn names(key: &str, title: &str, wanted: &str) -> bool {
    key == wanted
        || key.eq_ignore_ascii_case(wanted)
        || key.trim_start_matches("title:") == wanted
        || shown_id(key, title) == wanted
        || name_key(title) == name_key(wanted)
}

impl Candidate {
    pub fn new(paper: Paper, date: Option<String>) -> Candidate {
        let date = date.or_else(|| paper.year.map(|y| y.to_string()));
        let key = key(&paper);
        Candidate {
            paper,
            date,
            key,
            far: false,
        }
    }
}

/// What a candidate is searched by in its library to tell whether it is far from it: its
/// title, or, for a title of fewer than four words (a name: "UI-TARS"), the title and the first
/// sentence that describes the paper. A name alone matches little of any list: of 130 papers of
/// another list of the field, a list of credit-assignment papers marked 16 and 17 far by their
/// titles, 3 by this text (the shipped list: 3 of 126 -> 1 of 133).
pub fn searched_as(p: &Paper) -> String {
    let sentence = crate::engine::reference::describing_sentence(&p.summary).trim();
    if p.title.split_whitespace().count() >= 4 || sentence.is_empty() {
        p.title.clone()
    } else {
        format!("{}: {sentence}", p.title)
    }
}

/// Marks each of `candidates` far from the library of `index` whose [`searched_as`] text's
/// query vector (`titles[i]`, of the index's model) comes no closer to the library than most
/// queries about other fields ([`crate::engine::reference::unrelated`]): a score says how well
/// a paper serves its closest interest, this says the paper is from another field. Measured with six judged lists as libraries (`bench/runs/2026-12-07-feed-far/`): 14-23
/// of the 58 off-topic queries as titles marked, 0-3 of 84-133 papers with abstracts of another
/// list of the field.
pub fn mark_far(index: &Searcher, candidates: &mut [Candidate], titles: &[Vec<f32>]) {
    for (c, v) in candidates.iter_mut().zip(titles) {
        if v.len() != index.dim() || index.is_empty() {
            continue;
        }
        let best = index.nearest(v, 1, false).first().map(|&(_, b)| b);
        let text = searched_as(&c.paper);
        c.far = best.is_some_and(|b| crate::engine::reference::unrelated(index, &text, b));
    }
}

/// Whether `c` stays far from the library ([`mark_far`]) with the ratings `up` holds: a paper
/// the reader rated up is theirs (rated up, it scored highest and stayed below a paper rated
/// down, a blind probe found).
pub fn still_far(c: &Candidate, up: &Known) -> bool {
    c.far && up.key_of(c).is_none()
}

/// `ranked` reordered so that every candidate far from the library ([`mark_far`]) comes after
/// every other one, each part in its own order. A paper from another field is not recommended
/// ahead of one the library is about, whatever its score: "papers unrelated to my library at
/// the top" is the first complaint of feed readers. Its score stays, for `--min-score`.
pub fn far_last(ranked: &mut [super::Scored], far: impl Fn(usize) -> bool) {
    ranked.sort_by_key(|s| far(s.candidate));
}

/// What [`new_papers`] left out, counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Skipped {
    pub in_library: usize,
    pub repeated: usize,
}

/// Every name a paper is known by, most specific first: its arXiv id, its DOI and its title.
fn identifiers(p: &Paper) -> impl Iterator<Item = String> {
    let arxiv = p.arxiv.as_deref().and_then(normalize_arxiv);
    let doi = p
        .doi
        .as_deref()
        .and_then(normalize_doi)
        .map(|d| d.to_ascii_lowercase());
    arxiv
        .into_iter()
        .chain(doi)
        .chain(std::iter::once(format!("title:{}", name_key(&p.title))))
}

/// The papers a state file knows, by every identifier they were shown or rated under and by
/// their titles, so that a paper shown by its title alone and listed again with its arXiv id,
/// or the other way round, is the paper shown before.
pub struct Known(HashMap<String, String>);

impl Known {
    /// The papers the feeds of `state` showed and the reader rated.
    pub fn of(state: &super::state::State) -> Known {
        let shown = state.shown.iter().map(|(k, s)| (k, &s.title));
        Known::from(shown.chain(state.ratings.iter().map(|(k, r)| (k, &r.title))))
    }

    /// The papers the reader of `state` rated.
    pub fn rated(state: &super::state::State) -> Known {
        Known::from(state.ratings.iter().map(|(k, r)| (k, &r.title)))
    }

    /// The papers the reader of `state` rated up: theirs, however far from the library.
    pub fn rated_up(state: &super::state::State) -> Known {
        let up = state
            .ratings
            .iter()
            .filter(|(_, r)| r.verdict == super::state::Verdict::Up);
        Known::from(up.map(|(k, r)| (k, &r.title)))
    }

    fn from<'a>(keyed: impl Iterator<Item = (&'a String, &'a String)>) -> Known {
        let mut by = HashMap::new();
        let mut titles = Vec::new();
        for (key, title) in keyed {
            by.insert(key.clone(), key.clone());
            titles.push((format!("title:{}", name_key(title)), key.clone()));
        }
        // A key wins over a title that happens to spell it.
        for (title, key) in titles {
            by.entry(title).or_insert(key);
        }
        Known(by)
    }

    /// The key under which the state holds `c`, if it holds it by any identifier.
    pub fn key_of(&self, c: &Candidate) -> Option<&str> {
        std::iter::once(c.key.clone())
            .chain(identifiers(&c.paper))
            .find_map(|i| self.0.get(&i))
            .map(String::as_str)
    }
}

/// The candidates that are not in `library` (by arXiv id, DOI or title: any one of them a
/// library paper has), each once.
pub fn new_papers(library: &[Paper], candidates: Vec<Candidate>) -> (Vec<Candidate>, Skipped) {
    let known: HashSet<String> = library.iter().flat_map(identifiers).collect();
    let mut seen = HashSet::new();
    let mut skipped = Skipped::default();
    let mut out = Vec::new();
    for c in candidates {
        let title = format!("title:{}", name_key(&c.paper.title));
        if identifiers(&c.paper).any(|i| known.contains(&i)) {
            skipped.in_library += 1;
        } else if !seen.insert(c.key.clone()) || (title != c.key && !seen.insert(title)) {
            // (A paper without an arXiv id or DOI has its title for key: inserting it twice
            // would count every such paper as its own repeat.)
            skipped.repeated += 1;
        } else {
            out.push(c);
        }
    }
    (out, skipped)
}

/// A `--since` date: `YYYY-MM-DD`, `YYYY-MM` or `YYYY`; `None` unless it is one.
pub fn parse_since(s: &str) -> Option<String> {
    let s = s.trim();
    let iso = |n: usize| {
        s.len() == n
            && s.bytes().enumerate().all(|(i, b)| {
                if i == 4 || i == 7 {
                    b == b'-'
                } else {
                    b.is_ascii_digit()
                }
            })
    };
    if iso(4) {
        return Some(s.to_string());
    }
    // A month or a day that exists (`2025-02-30` is refused, not read as March).
    (iso(7) || iso(10))
        .then(|| crate::util::date::finer_than_year(s))
        .flatten()
}

/// Whether a candidate dated `date` is on or after `since`: compared on the precision both
/// have (a paper known only by its year passes a date within that year).
pub fn on_or_after(date: Option<&str>, since: &str) -> bool {
    let Some(d) = date else { return false };
    let n = d.len().min(since.len());
    d[..n] >= since[..n]
}

/// Whether `text` holds `word` (case-insensitive; Chinese words as substrings).
pub fn mentions(text: &str, word: &str) -> bool {
    let w = word.trim().to_lowercase();
    !w.is_empty() && text.to_lowercase().contains(&w)
}

/// The library's interests: its own sections or collections (the papers' topics) when at least
/// two cover half the library, else the engine's topic clusters, else the library as one.
/// A section's name with its English rendering after " · " when the list gives one
/// (`topic_en`): a reader of the digest, and `--interest`, may use either language.
fn bilingual(topic: &str, english: Option<&str>) -> String {
    match english {
        Some(en) if !en.is_empty() && !en.eq_ignore_ascii_case(topic) => format!("{topic} · {en}"),
        _ => topic.to_string(),
    }
}

pub fn interests(index: &Searcher) -> Vec<Interest> {
    let papers = index.papers();
    let mut order: Vec<&str> = Vec::new();
    let mut members: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, p) in papers.iter().enumerate() {
        let t = p.topic.trim();
        if t.is_empty() {
            continue;
        }
        if !members.contains_key(t) {
            order.push(t);
        }
        members.entry(t).or_default().push(i);
    }
    let covered: usize = members.values().map(Vec::len).sum();
    if order.len() >= 2 && covered * 2 >= papers.len() {
        return order
            .into_iter()
            .map(|t| {
                let members = members.remove(t).unwrap_or_default();
                Interest {
                    name: bilingual(t, members.first().map(|&i| papers[i].topic_en.trim())),
                    members,
                }
            })
            .collect();
    }
    if papers.len() >= 4
        && let Ok(topics) = crate::engine::communities::cluster(index, None)
    {
        let at: HashMap<&str, usize> = papers
            .iter()
            .enumerate()
            .map(|(i, p)| (p.id.as_str(), i))
            .collect();
        return topics
            .into_iter()
            .map(|t| Interest {
                members: t
                    .papers
                    .iter()
                    .filter_map(|id| at.get(id.as_str()).copied())
                    .collect(),
                name: t.label,
            })
            .collect();
    }
    vec![Interest {
        name: "your library".into(),
        members: (0..papers.len()).collect(),
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_paper_far_from_the_library_comes_after_every_other_whatever_its_score() {
        let candidate = |title: &str, far: bool| Candidate {
            paper: Paper {
                title: title.into(),
                ..Paper::default()
            },
            date: None,
            key: title.into(),
            far,
        };
        let candidates = [
            candidate("far, best score", true),
            candidate("near", false),
            candidate("far, worst score", true),
            candidate("near, worse", false),
        ];
        let scored = |candidate: usize, score: f32| super::super::Scored {
            candidate,
            score,
            interest: 0,
            near: Vec::new(),
            base: score,
        };
        let mut ranked = vec![
            scored(0, 0.9),
            scored(1, 0.8),
            scored(3, 0.5),
            scored(2, 0.1),
        ];
        far_last(&mut ranked, |i| candidates[i].far);
        let order: Vec<usize> = ranked.iter().map(|s| s.candidate).collect();
        assert_eq!(order, [1, 3, 0, 2]);
        assert_eq!(ranked[2].score, 0.9, "the score stays");
    }

    fn paper(id: &str, title: &str, arxiv: Option<&str>) -> Paper {
        Paper::titled(id, title, arxiv)
    }

    #[test]
    fn library_papers_and_repeats_are_skipped_and_counted() {
        let mut both = paper("b", "Published Version", Some("2503.00003"));
        both.doi = Some("10.1234/Lib.5".into());
        let library = vec![paper("a", "Known Paper", Some("2501.00001")), both];
        // A candidate known only by the DOI of a library paper that also has an arXiv id (a
        // bad-input probe found it ranked first), and a preprint carrying that DOI.
        let mut by_doi = paper("d", "Another Title", None);
        by_doi.doi = Some("https://doi.org/10.1234/lib.5".into());
        let mut preprint = paper("e", "A Preprint Title", Some("2504.00004"));
        preprint.doi = Some("10.1234/lib.5".into());
        let cands = vec![
            Candidate::new(by_doi, None),
            Candidate::new(preprint, None),
            Candidate::new(paper("x", "Other Title", Some("2501.00001v2")), None),
            Candidate::new(paper("y", "known paper", None), None),
            Candidate::new(paper("z", "New One", Some("2502.00002")), None),
            Candidate::new(paper("z2", "New One", None), None),
            Candidate::new(paper("w", "Known by its title alone", None), None),
        ];
        let (new, skipped) = new_papers(&library, cands);
        let ids: Vec<&str> = new.iter().map(|c| c.paper.id.as_str()).collect();
        assert_eq!(
            ids,
            ["z", "w"],
            "a paper without arXiv id or DOI is no repeat of itself"
        );
        assert_eq!(
            skipped,
            Skipped {
                in_library: 4,
                repeated: 1
            }
        );
    }

    #[test]
    fn dates_compare_on_the_precision_both_have() {
        assert_eq!(parse_since("2025-03-01").as_deref(), Some("2025-03-01"));
        assert!(parse_since("2025-13-01").is_none() && parse_since("yesterday").is_none());
        assert_eq!(parse_since("2024-02-29").as_deref(), Some("2024-02-29"));
        assert_eq!(parse_since(" 2025 ").as_deref(), Some("2025"));
        for no in [
            "2025-02-30",
            "2025-04-31",
            "2025/03/01",
            "2025-3-1",
            "20250301",
        ] {
            assert_eq!(parse_since(no), None, "{no}");
        }
        assert!(on_or_after(Some("2025-03-02"), "2025-03-01"));
        assert!(!on_or_after(Some("2025-02-28"), "2025-03-01"));
        assert!(on_or_after(Some("2025"), "2025-03-01"));
        assert!(!on_or_after(None, "2025"));
        assert!(mentions("Credit Assignment in RL", "credit") && !mentions("abc", " "));
    }
}
