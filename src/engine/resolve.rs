//! Turning what a user typed ("webagent r1", "RLER", "Dr GRPO") into one paper.
//!
//! Order: exact id; title or alias ignoring case and punctuation; a unique paper whose name
//! contains what was typed; then fuzzy matching, accepted only when one candidate is clearly
//! best. Anything else is an error carrying candidates or suggestions for the user.

use crate::corpus::Paper;
use crate::index::Index;
use crate::text::name_key;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ResolveError {
    #[error("empty paper name")]
    Empty,
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

fn show(c: &[(String, String)]) -> String {
    c.iter()
        .map(|(id, title)| format!("{title} [{id}]"))
        .collect::<Vec<_>>()
        .join("; ")
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

fn names(p: &Paper) -> impl Iterator<Item = String> + '_ {
    std::iter::once(name_key(&p.title))
        .chain(p.aliases.iter().map(|a| name_key(a)))
        .chain(std::iter::once(name_key(&p.id)))
        .filter(|k| !k.is_empty())
}

fn entry(p: &Paper) -> (String, String) {
    (p.id.clone(), p.title.clone())
}

/// Resolve `query` to one paper of `index`.
///
/// The common case, an exact id or name, is a lookup in the index's name table; only anything
/// looser (containment, fuzzy matching, errors with suggestions) reads every paper's names.
pub fn resolve(index: &Index, query: &str) -> Result<usize, ResolveError> {
    let q = query.trim();
    let table = index.table();
    let exact = table.named(&name_key(q));
    if let Some(&i) = exact.iter().find(|&&i| table.id(i) == q) {
        return Ok(i);
    }
    if let [i] = exact[..] {
        return Ok(i);
    }
    resolve_in(index.papers(), query)
}

/// Resolve `query` to the position of one paper in `papers`.
pub fn resolve_in(papers: &[Paper], query: &str) -> Result<usize, ResolveError> {
    let q = query.trim();
    let key = name_key(q);
    if key.is_empty() {
        return Err(ResolveError::Empty);
    }
    if let Some(i) = papers.iter().position(|p| p.id == q) {
        return Ok(i);
    }
    let exact: Vec<usize> = (0..papers.len())
        .filter(|&i| names(&papers[i]).any(|n| n == key))
        .collect();
    if exact.len() == 1 {
        return Ok(exact[0]);
    }
    // Containment: "webagent" finds "WebAgent-R1" when it is the only such paper. Very short
    // keys would match half the corpus, so they must be whole names (handled above).
    if key.chars().count() >= 3 {
        let contains: Vec<usize> = (0..papers.len())
            .filter(|&i| names(&papers[i]).any(|n| n.contains(&key)))
            .collect();
        match contains.len() {
            1 => return Ok(contains[0]),
            2..=8 => {
                return Err(ResolveError::Ambiguous {
                    query: q.to_string(),
                    candidates: contains.iter().map(|&i| entry(&papers[i])).collect(),
                });
            }
            _ => {}
        }
    }
    let mut scored: Vec<(f64, usize)> = (0..papers.len())
        .map(|i| {
            let best = names(&papers[i])
                .map(|n| {
                    strsim::jaro_winkler(&key, &n).max(strsim::normalized_levenshtein(&key, &n))
                })
                .fold(0.0, f64::max);
            (best, i)
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    if let Some(&(best, i)) = scored.first() {
        let runner_up = scored.get(1).map_or(0.0, |s| s.0);
        if best >= ACCEPT && best - runner_up >= MARGIN {
            return Ok(i);
        }
    }
    Err(ResolveError::Unknown {
        query: q.to_string(),
        suggestions: scored
            .iter()
            .filter(|s| s.0 >= SUGGEST)
            .take(5)
            .map(|&(_, i)| entry(&papers[i]))
            .collect(),
    })
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
    fn containment_and_fuzzy() {
        let c = corpus();
        assert_eq!(resolve_in(&c, "WebAgent"), Ok(0));
        assert_eq!(resolve_in(&c, "WebAgnt-R1"), Ok(0));
        match resolve_in(&c, "search") {
            Err(ResolveError::Ambiguous { candidates, .. }) => assert_eq!(candidates.len(), 2),
            other => panic!("{other:?}"),
        }
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
        assert_eq!(resolve_in(&c, "  "), Err(ResolveError::Empty));
        assert!(matches!(
            resolve_in(&c, "quantum chromodynamics"),
            Err(ResolveError::Unknown { .. })
        ));
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
