//! Turning what a user typed ("webagent r1", "RLER", "Dr GRPO") into one paper.
//!
//! Order: exact id; title or alias ignoring case and punctuation; a unique paper whose name
//! contains what was typed; then fuzzy matching, accepted only when one candidate is clearly
//! best. Anything else is an error carrying candidates or suggestions for the user.
//!
//! Nothing is guessed silently: a name contained in several papers' names is an
//! [`ResolveError::Ambiguous`] error listing them, however many there are, and a containment or
//! fuzzy match says so ([`Resolved::matched`]), so the caller can tell the user which paper it
//! took.

use crate::corpus::Paper;
use crate::index::Index;
use crate::text::name_key;
use crate::text::similar::JaroQuery;

/// Longest query accepted anywhere (a paper name, a search, a line of a batch file), in
/// characters: titles are far shorter, the model reads at most 512 tokens, and fuzzy matching
/// costs time in proportion to the length.
pub const MAX_QUERY_CHARS: usize = 2000;

/// How a query found its paper.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Matched {
    /// Its id, title or an alias (ignoring case and punctuation).
    Exact,
    /// The only paper with a name containing the query.
    Contains,
    /// The clearly closest name, spelled differently.
    Fuzzy,
}

/// A resolved query: the paper and how it was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resolved {
    pub paper: usize,
    pub matched: Matched,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ResolveError {
    #[error(
        "a paper name needs letters or digits; give its title or id (`recommend list` shows them)"
    )]
    Empty,
    #[error("a query of {chars} characters is too long (at most {MAX_QUERY_CHARS})")]
    TooLong { chars: usize },
    #[error("{query:?} matches {} papers: {}; be more specific or use an id", candidates.len(), show(candidates))]
    Ambiguous {
        query: String,
        candidates: Vec<(String, String)>,
    },
    #[error("no paper matches {query:?}{}", suggest(suggestions))]
    Unknown {
        query: String,
        suggestions: Vec<(String, String)>,
    },
}

/// Candidates listed in a message; the rest are counted.
const SHOWN: usize = 12;

fn show(c: &[(String, String)]) -> String {
    let mut s = c
        .iter()
        .take(SHOWN)
        .map(|(id, title)| format!("{title} [{id}]"))
        .collect::<Vec<_>>()
        .join("; ");
    if c.len() > SHOWN {
        s.push_str(&format!("; and {} more", c.len() - SHOWN));
    }
    s
}

/// The queries of a batch file (`--like-file`, `search --queries`): one per non-blank line,
/// trimmed, a leading byte-order mark dropped. `Err(line)` names the first line (1-based) that
/// is not UTF-8. Lengths are checked per query when it is answered, so one bad line does not
/// stop the batch.
pub fn query_lines(bytes: &[u8]) -> Result<Vec<String>, usize> {
    let bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
    let mut out = Vec::new();
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = std::str::from_utf8(line).map_err(|_| i + 1)?.trim();
        if !line.is_empty() {
            out.push(line.to_string());
        }
    }
    Ok(out)
}

/// Check the length of a query against [`MAX_QUERY_CHARS`] (without counting past it).
pub fn check_length(query: &str) -> Result<(), ResolveError> {
    if query.len() > MAX_QUERY_CHARS {
        let chars = query.chars().count();
        if chars > MAX_QUERY_CHARS {
            return Err(ResolveError::TooLong { chars });
        }
    }
    Ok(())
}

fn suggest(s: &[(String, String)]) -> String {
    if s.is_empty() {
        "; `recommend list` shows every paper".into()
    } else {
        format!("; did you mean: {}?", show(s))
    }
}

/// Fuzzy score above which a sole best candidate is taken without asking.
const ACCEPT: f64 = 0.92;
/// ... provided the runner-up trails by at least this much.
const MARGIN: f64 = 0.04;
/// Fuzzy score above which a paper is worth suggesting.
const SUGGEST: f64 = 0.7;

fn entry(p: &Paper) -> (String, String) {
    (p.id.clone(), p.title.clone())
}

/// Resolve `query` to one paper of `index`.
///
/// The common case, an exact id or name, is a lookup in the index's name table; only anything
/// looser (containment, fuzzy matching, errors with suggestions) reads every paper's names.
pub fn resolve(index: &Index, query: &str) -> Result<usize, ResolveError> {
    resolve_match(index, query).map(|r| r.paper)
}

/// [`resolve`], saying how the paper was found.
pub fn resolve_match(index: &Index, query: &str) -> Result<Resolved, ResolveError> {
    check_length(query)?;
    let q = query.trim();
    let table = index.table();
    let exact = table.named(&name_key(q));
    let found = |paper| Resolved {
        paper,
        matched: Matched::Exact,
    };
    if let Some(&i) = exact.iter().find(|&&i| table.id(i) == q) {
        return Ok(found(i));
    }
    if let [i] = exact[..] {
        return Ok(found(i));
    }
    resolve_with_keys(index.papers(), Some(index.name_keys()), query)
}

/// The paper an identifier names: `arXiv:2503.14476`, `https://arxiv.org/abs/2503.14476v2`,
/// a bare arXiv id, a DOI (`10.1/x`, `https://doi.org/10.1/x`), or arXiv's own DOI
/// (`10.48550/arXiv.2503.14476`). Suggestions print these names, so they must resolve.
fn by_identifier(papers: &[Paper], q: &str) -> Option<usize> {
    use crate::corpus::fields::{normalize_arxiv, normalize_doi};
    let doi = normalize_doi(q);
    let arxiv = normalize_arxiv(q).or_else(|| {
        let d = doi.as_deref()?;
        let rest = d
            .get(..15)?
            .eq_ignore_ascii_case("10.48550/arxiv.")
            .then(|| &d[15..])?;
        normalize_arxiv(rest)
    });
    if let Some(a) = arxiv {
        let found = papers
            .iter()
            .position(|p| p.arxiv.as_deref().and_then(normalize_arxiv).as_deref() == Some(&a));
        if found.is_some() {
            return found;
        }
    }
    let d = doi?;
    papers.iter().position(|p| {
        p.doi
            .as_deref()
            .and_then(normalize_doi)
            .is_some_and(|x| x.eq_ignore_ascii_case(&d))
    })
}

/// Resolve `query` to the position of one paper in `papers`.
pub fn resolve_in(papers: &[Paper], query: &str) -> Result<usize, ResolveError> {
    resolve_match_in(papers, query).map(|r| r.paper)
}

/// [`resolve_in`], saying how the paper was found.
pub fn resolve_match_in(papers: &[Paper], query: &str) -> Result<Resolved, ResolveError> {
    resolve_with_keys(papers, None, query)
}

/// [`resolve_match_in`] with every paper's name keys given ([`Index::name_keys`]), else made
/// here.
fn resolve_with_keys(
    papers: &[Paper],
    keys: Option<&[Vec<String>]>,
    query: &str,
) -> Result<Resolved, ResolveError> {
    check_length(query)?;
    let q = query.trim();
    let key = name_key(q);
    let at = |paper, matched| Ok(Resolved { paper, matched });
    if key.is_empty() {
        // A title of emoji or punctuation alone has no name key: it is found as written.
        if !q.is_empty()
            && let Some(i) = papers
                .iter()
                .position(|p| p.title.trim() == q || p.aliases.iter().any(|a| a.trim() == q))
        {
            return at(i, Matched::Exact);
        }
        return Err(ResolveError::Empty);
    }
    if let Some(i) = papers.iter().position(|p| p.id == q) {
        return at(i, Matched::Exact);
    }
    if let Some(i) = by_identifier(papers, q) {
        return at(i, Matched::Exact);
    }
    // Every paper's name keys, made once: the passes below each read them all.
    let made: Vec<Vec<String>>;
    let keys: &[Vec<String>] = match keys {
        Some(k) if k.len() == papers.len() => k,
        _ => {
            made = papers.iter().map(Paper::name_keys).collect();
            &made
        }
    };
    let exact: Vec<usize> = (0..papers.len())
        .filter(|&i| keys[i].contains(&key))
        .collect();
    if exact.len() == 1 {
        return at(exact[0], Matched::Exact);
    }
    // Containment: "webagent" finds "WebAgent-R1" when it is the only such paper; several
    // such papers are listed, never guessed between. Very short keys would match half the
    // corpus, so they must be whole names (handled above).
    if key.chars().count() >= 3 {
        // One searcher for every name: building one per name cost more than the search.
        let finder = memchr::memmem::Finder::new(key.as_bytes());
        let contains: Vec<usize> = (0..papers.len())
            .filter(|&i| {
                keys[i]
                    .iter()
                    .any(|n| n.len() >= key.len() && finder.find(n.as_bytes()).is_some())
            })
            .collect();
        // A title's name before its colon ("ColBERT" of "ColBERT: Efficient and Effective
        // Passage Search") names that paper, though "ColBERTv2: ..." contains it too.
        let named: Vec<usize> = contains
            .iter()
            .copied()
            .filter(|&i| {
                papers[i]
                    .title
                    .split_once(':')
                    .is_some_and(|(name, _)| name_key(name) == key)
            })
            .collect();
        match contains.len() {
            0 => {}
            1 => return at(contains[0], Matched::Contains),
            _ if named.len() == 1 => return at(named[0], Matched::Exact),
            _ => {
                return Err(ResolveError::Ambiguous {
                    query: q.to_string(),
                    candidates: contains.iter().map(|&i| entry(&papers[i])).collect(),
                });
            }
        }
    }
    let scored = fuzzy_scores(keys, &key);
    if let Some(&(best, i)) = scored.first() {
        let runner_up = scored.get(1).map_or(0.0, |s| s.0);
        if best >= ACCEPT && best - runner_up >= MARGIN {
            return at(i, Matched::Fuzzy);
        }
    }
    let mut order = suggestions(keys, &key, &scored);
    if order.is_empty() && key.chars().count() < 3 {
        // A key too short for containment ("R1") is still a word of some names: offer them.
        order = (0..papers.len())
            .filter(|&i| {
                std::iter::once(&papers[i].title)
                    .chain(&papers[i].aliases)
                    .any(|n| {
                        n.split(|c: char| !c.is_alphanumeric())
                            .any(|w| name_key(w) == key)
                    })
            })
            .collect();
    }
    Err(ResolveError::Unknown {
        query: q.to_string(),
        suggestions: order
            .into_iter()
            .take(5)
            .map(|i| entry(&papers[i]))
            .collect(),
    })
}

/// Each paper's best name similarity to `key` (Jaro-Winkler or normalized Levenshtein), best
/// first, ties by paper, for the papers that can reach [`SUGGEST`]: a name whose characters
/// cannot make either measure that high is not measured ([`Reach::within`]), which leaves every
/// decision unchanged (a taken match needs [`ACCEPT`], far above a skipped runner-up).
fn fuzzy_scores(keys: &[Vec<String>], key: &str) -> Vec<(f64, usize)> {
    let query = Reach::new(key);
    let mut jaro = JaroQuery::new(key);
    let mut scored: Vec<(f64, usize)> = keys
        .iter()
        .enumerate()
        .filter_map(|(i, names)| {
            let best = names
                .iter()
                .map(|n| match query.within(n) {
                    (false, false) => 0.0,
                    (jw, lev) => {
                        let j = if jw { jaro.jaro_winkler(n) } else { 0.0 };
                        let l = if lev {
                            strsim::normalized_levenshtein(key, n)
                        } else {
                            0.0
                        };
                        j.max(l)
                    }
                })
                .fold(0.0, f64::max);
            (best > 0.0).then_some((best, i))
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored
}

/// What [`Reach::within`] needs of a query: its characters, counted.
struct Reach<'a> {
    key: &'a str,
    len: usize,
    /// Counts of the ASCII characters, and the rest as (character, count).
    ascii: [i16; 128],
    other: Vec<(char, i16)>,
}

impl<'a> Reach<'a> {
    fn new(key: &'a str) -> Reach<'a> {
        let mut ascii = [0i16; 128];
        let mut other: Vec<(char, i16)> = Vec::new();
        for c in key.chars() {
            if c.is_ascii() {
                ascii[c as usize] += 1;
            } else if let Some(e) = other.iter_mut().find(|e| e.0 == c) {
                e.1 += 1;
            } else {
                other.push((c, 1));
            }
        }
        Reach {
            key,
            len: key.chars().count(),
            ascii,
            other,
        }
    }

    /// Whether `name` can score [`SUGGEST`] against the query by Jaro-Winkler, and by
    /// normalized Levenshtein. Both are bounded by the characters the two share (as
    /// multisets): Levenshtein by shared / longer length; Jaro by (shared / |query| + shared /
    /// |name| + 1) / 3, and Winkler's bonus by the common prefix actually there. A query more
    /// than twice as long as a name never reaches it.
    fn within(&self, name: &str) -> (bool, bool) {
        // Most names are ASCII: counted and read as bytes (an unknown name at 100k synthetic
        // papers: 127 -> 99 ms).
        let plain = name.is_ascii();
        let b = if plain {
            name.len()
        } else {
            name.chars().count()
        };
        let a = self.len;
        if a == 0 || b == 0 || a > 2 * b {
            return (false, false);
        }
        let mut ascii = self.ascii;
        let mut shared = 0usize;
        if plain {
            for &c in name.as_bytes() {
                let left = &mut ascii[c as usize];
                if *left > 0 {
                    *left -= 1;
                    shared += 1;
                }
            }
            return self.bounds(name, a, b, shared);
        }
        let mut other = self.other.clone();
        for c in name.chars() {
            let left = if c.is_ascii() {
                &mut ascii[c as usize]
            } else if let Some(e) = other.iter_mut().find(|e| e.0 == c) {
                &mut e.1
            } else {
                continue;
            };
            if *left > 0 {
                *left -= 1;
                shared += 1;
            }
        }
        self.bounds(name, a, b, shared)
    }

    /// The Jaro-Winkler and Levenshtein bounds of [`Reach::within`] for a name of `b`
    /// characters sharing `shared` with the query's `a`.
    fn bounds(&self, name: &str, a: usize, b: usize, shared: usize) -> (bool, bool) {
        let m = shared as f64;
        let levenshtein = m / a.max(b) as f64;
        let jaro = (m / a as f64 + m / b as f64 + 1.0) / 3.0;
        let prefix = self
            .key
            .chars()
            .zip(name.chars())
            .take(4)
            .take_while(|(x, y)| x == y)
            .count() as f64;
        let winkler = jaro + 0.1 * prefix * (1.0 - jaro);
        (winkler >= SUGGEST, levenshtein >= SUGGEST)
    }
}

/// The papers to suggest for an unknown `key`, best first: a query that holds a whole name
/// ("Search R1 Agentic Web" holds "Search-R1") suggests that paper, longest name first; then
/// the close spellings of `scored`.
fn suggestions(keys: &[Vec<String>], key: &str, scored: &[(f64, usize)]) -> Vec<usize> {
    let mut held: Vec<(usize, usize)> = (0..keys.len())
        .filter_map(|i| {
            keys[i]
                .iter()
                .filter(|n| {
                    n.len() <= key.len() && n.chars().count() >= 4 && key.contains(n.as_str())
                })
                .map(|n| n.chars().count())
                .max()
                .map(|len| (len, i))
        })
        .collect();
    held.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut order: Vec<usize> = held.into_iter().map(|(_, i)| i).collect();
    for &(score, i) in scored {
        if score >= SUGGEST && !order.contains(&i) {
            order.push(i);
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paper(id: &str, title: &str, aliases: &[&str]) -> Paper {
        serde_json::from_value(serde_json::json!({
            "id": id, "title": title, "aliases": aliases
        }))
        .unwrap()
    }

    fn corpus() -> Vec<Paper> {
        vec![
            paper("webagent-r1", "WebAgent-R1", &[]),
            paper("dr-tulu-rler", "DR Tulu / RLER", &["DR Tulu", "RLER"]),
            paper("dr-grpo", "Dr. GRPO", &[]),
            paper("grpo", "GRPO", &[]),
            paper("search-r1", "Search-R1", &[]),
            paper("search-o1", "Search-o1", &[]),
        ]
    }

    #[test]
    fn exact_names_ignore_case_and_punctuation() {
        let c = corpus();
        assert_eq!(resolve_in(&c, "webagent r1"), Ok(0));
        assert_eq!(resolve_in(&c, "rler"), Ok(1));
        assert_eq!(resolve_in(&c, "DR TULU"), Ok(1));
        assert_eq!(resolve_in(&c, "dr grpo"), Ok(2));
        assert_eq!(resolve_in(&c, "GRPO"), Ok(3));
        assert_eq!(resolve_in(&c, "search-o1"), Ok(5));
    }

    #[test]
    fn a_title_of_no_letters_is_found_as_written() {
        // A probe's list held "🤖🧠" and "..." as titles: indexed, then never found.
        let mut c = corpus();
        c.push(paper("paper-1", "🤖🧠", &[]));
        c.push(paper("paper-2", "...", &[]));
        assert_eq!(resolve_in(&c, "🤖🧠"), Ok(6));
        assert_eq!(resolve_in(&c, " ... "), Ok(7));
        assert_eq!(resolve_in(&c, "!!"), Err(ResolveError::Empty));
    }

    #[test]
    fn a_successor_named_with_plus_signs_is_its_own_paper() {
        let mut c = corpus();
        c.push(paper("r1-searcher", "R1-Searcher", &[]));
        c.push(paper("r1-searcher-pp", "R1-Searcher++", &[]));
        assert_eq!(resolve_in(&c, "R1-Searcher"), Ok(6));
        assert_eq!(resolve_in(&c, "r1 searcher++"), Ok(7));
    }

    #[test]
    fn a_titles_name_before_its_colon_names_it_among_containers() {
        let papers = vec![
            Paper::titled(
                "c1",
                "ColBERT: Efficient and Effective Passage Search",
                None,
            ),
            Paper::titled("c2", "ColBERTv2: Effective and Efficient Retrieval", None),
            Paper::titled(
                "c3",
                "PLAID: An Efficient Engine for Late Interaction",
                None,
            ),
        ];
        assert_eq!(resolve_in(&papers, "ColBERT").unwrap(), 0);
        assert_eq!(resolve_in(&papers, "colbertv2").unwrap(), 1);
        // A key no title starts with stays ambiguous between its containers.
        assert!(matches!(
            resolve_in(&papers, "efficient"),
            Err(ResolveError::Ambiguous { .. })
        ));
    }

    #[test]
    fn containment_and_fuzzy() {
        let c = corpus();
        assert_eq!(resolve_in(&c, "WebAgent"), Ok(0));
        assert_eq!(resolve_in(&c, "WebAgnt-R1"), Ok(0));
        match resolve_in(&c, "search") {
            Err(ResolveError::Ambiguous { candidates, .. }) => assert_eq!(candidates.len(), 2),
            other => panic!("{other:?}"),
        }
    }

    /// A user's list has no aliases: a misspelt name before a title's colon still finds it.
    #[test]
    fn a_misspelt_name_before_a_titles_colon_is_found_without_aliases() {
        let c = vec![
            paper(
                "a",
                "ReAct: Synergizing Reasoning and Acting in Language Models",
                &[],
            ),
            paper(
                "b",
                "Reflexion: Language Agents with Verbal Reinforcement Learning",
                &[],
            ),
            paper(
                "c",
                "Voyager: An Open-Ended Embodied Agent with Large Language Models",
                &[],
            ),
            paper(
                "d",
                "Toolformer: Language Models Can Teach Themselves to Use Tools",
                &[],
            ),
        ];
        for (typed, want) in [("Reflexon", 1), ("Voyagr", 2), ("Toolformr", 3)] {
            let r = resolve_match_in(&c, typed);
            assert_eq!(
                r,
                Ok(Resolved {
                    paper: want,
                    matched: Matched::Fuzzy
                }),
                "{typed}"
            );
        }
        // A long text before a colon is no name.
        let long = paper(
            "e",
            "What we learned from five years of agents: a survey",
            &[],
        );
        assert_eq!(long.name_keys().len(), 2, "{:?}", long.name_keys());
    }

    #[test]
    fn how_a_name_matched_is_reported_and_many_containers_are_listed() {
        let c = corpus();
        let how = |q| resolve_match_in(&c, q).map(|r| r.matched);
        assert_eq!(how("grpo"), Ok(Matched::Exact));
        assert_eq!(how("WebAgent"), Ok(Matched::Contains));
        assert_eq!(how("WebAgnt-R1"), Ok(Matched::Fuzzy));
        // Eleven papers share "agent": listed, never one picked.
        let mut many = c.clone();
        for k in 0..10 {
            many.push(paper(&format!("agent-{k}"), &format!("Agent Zoo {k}"), &[]));
        }
        match resolve_in(&many, "agent") {
            Err(e @ ResolveError::Ambiguous { .. }) => {
                let msg = e.to_string();
                assert!(msg.contains("matches 11 papers"), "{msg}");
                assert!(msg.contains("WebAgent-R1 [webagent-r1]"), "{msg}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            resolve_in(&c, &"x".repeat(MAX_QUERY_CHARS + 1)),
            Err(ResolveError::TooLong {
                chars: MAX_QUERY_CHARS + 1
            })
        );
    }

    #[test]
    fn unknown_names_get_suggestions() {
        let c = corpus();
        match resolve_in(&c, "Search-X") {
            Err(e @ ResolveError::Unknown { .. }) => {
                let msg = e.to_string();
                assert!(msg.contains("did you mean"), "{msg}");
                assert!(msg.contains("Search-R1"), "{msg}");
            }
            other => panic!("{other:?}"),
        }
        // A short key is no containment match, but the names holding it as a word are offered.
        match resolve_in(&c, "R1") {
            Err(e @ ResolveError::Unknown { .. }) => {
                let msg = e.to_string();
                assert!(
                    msg.contains("WebAgent-R1") && msg.contains("Search-R1"),
                    "{msg}"
                );
                assert!(!msg.contains("Search-o1"), "{msg}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(resolve_in(&c, "  "), Err(ResolveError::Empty));
        assert!(matches!(
            resolve_in(&c, "quantum chromodynamics"),
            Err(ResolveError::Unknown { .. })
        ));
    }

    #[test]
    fn the_reach_bound_never_skips_a_name_that_scores() {
        let names = [
            "webagentr1",
            "searchr1",
            "searcho1",
            "drgrpo",
            "grpo",
            "drtulurler",
            "syn105",
            "selfloop10500",
            "deepseekmathpushingthelimitsofmathematicalreasoning",
            "智能体强化学习",
            "强化学习",
            "a",
            "r1searcher",
        ];
        let queries = [
            "webagentr2",
            "serchr1",
            "grpp",
            "syn105000",
            "searhr1agentic",
            "deepseekmath",
            "智能体学习",
            "r1",
            "zzqqxxnosuchpaper",
            "rlersearch",
            "ab",
        ];
        for q in queries {
            let reach = Reach::new(q);
            // A query more than twice a name's length is never measured against it (as before
            // the bound): that rule is the bound's too.
            for n in names
                .iter()
                .filter(|n| q.chars().count() <= 2 * n.chars().count())
            {
                let (jw, lev) = reach.within(n);
                if strsim::jaro_winkler(q, n) >= SUGGEST {
                    assert!(jw, "{q} ~ {n}: Jaro-Winkler skipped");
                }
                if strsim::normalized_levenshtein(q, n) >= SUGGEST {
                    assert!(lev, "{q} ~ {n}: Levenshtein skipped");
                }
            }
        }
    }

    #[test]
    fn the_index_lookup_agrees_with_the_scan() {
        let c = corpus();
        let index = Index::build(c.clone(), "t.jsonl", "test", &mut |texts| {
            Ok(texts.iter().map(|_| vec![1.0, 0.0]).collect())
        })
        .unwrap();
        for q in [
            "webagent r1",
            "rler",
            "DR TULU",
            "dr grpo",
            "GRPO",
            "grpo",
            "search-o1",
            "WebAgent",
            "WebAgnt-R1",
            "search",
            "Search-X",
            "  ",
        ] {
            assert_eq!(resolve(&index, q), resolve_in(&c, q), "{q}");
        }
    }
}
