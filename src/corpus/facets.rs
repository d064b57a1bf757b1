//! A facets side file: the user's own tags for papers of the corpus, one paper per line.
//!
//! ```text
//! # id<TAB>tag;tag;...  (one tab between the id and its tags)
//! webagent-r1<TAB>web agents;multi-turn RL
//! 2505.16421<TAB>credit assignment
//! ```
//!
//! A file whose name ends in `.facets` is read as one wherever corpus files are read. Each tag
//! joins the paper's [`super::Paper::keywords`], the list's own vocabulary
//! (`index::own_tags`), so a user can say what a list without keywords is about without
//! editing the list itself. Lines name papers by id, exactly; a line naming no paper, a line
//! without a tab, or a tag with control characters is a problem at its `file:line`, and every
//! problem of the file is reported at once.

use super::error::Problem;
use std::path::{Path, PathBuf};

/// Tags per line kept at most: a line longer than this is a pasted document, not facets.
const MAX_TAGS_PER_LINE: usize = 256;

/// One line of a facets file: where it is, the paper id it names and its tags.
#[derive(Debug, Clone)]
pub struct FacetLine {
    pub file: PathBuf,
    pub line: usize,
    pub id: String,
    pub tags: Vec<String>,
}

/// The lines of a facets file and the problems found in it (blank lines and `#` comments
/// skipped).
pub fn parse(file: &Path, text: &str) -> (Vec<FacetLine>, Vec<Problem>) {
    let mut lines = Vec::new();
    let mut problems = Vec::new();
    let problem = |line: usize, message: String| Problem {
        path: file.to_path_buf(),
        line,
        message,
    };
    for (k, raw) in text.lines().enumerate() {
        let line = k + 1;
        let raw = raw.strip_prefix('\u{feff}').unwrap_or(raw);
        if raw.trim().is_empty() || raw.trim_start().starts_with('#') {
            continue;
        }
        let Some((id, tags)) = raw.split_once('\t') else {
            problems.push(problem(
                line,
                "a facets line is `id<TAB>tag;tag;...`: no tab found".into(),
            ));
            continue;
        };
        let id = id.trim();
        if id.is_empty() {
            problems.push(problem(line, "the paper id before the tab is empty".into()));
            continue;
        }
        let tags: Vec<String> = tags
            .split(';')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_string)
            .collect();
        if let Some(bad) = tags.iter().find(|t| t.chars().any(char::is_control)) {
            problems.push(problem(
                line,
                format!("the tag {bad:?} holds a control character"),
            ));
            continue;
        }
        if tags.len() > MAX_TAGS_PER_LINE {
            problems.push(problem(
                line,
                format!(
                    "{} tags on one line; at most {MAX_TAGS_PER_LINE} are read",
                    tags.len()
                ),
            ));
            continue;
        }
        lines.push(FacetLine {
            file: file.to_path_buf(),
            line,
            id: id.to_string(),
            tags,
        });
    }
    (lines, problems)
}

/// How a facet line's id is compared: an arXiv id or a DOI in the forms lists write them
/// (`arXiv:2305.18290v2`, a `doi.org` address), as the paper's own; any other id as written.
fn facet_key(id: &str) -> String {
    use crate::corpus::fields::{normalize_arxiv, normalize_doi};
    if let Some(a) = normalize_arxiv(id) {
        format!("arxiv:{a}")
    } else if let Some(d) = normalize_doi(id) {
        format!("doi:{}", d.to_ascii_lowercase())
    } else {
        id.trim().to_string()
    }
}

/// Adds each line's tags to the keywords of the paper it names (by id, arXiv id or DOI); a
/// line naming no paper of `papers` is a problem at its line.
pub fn apply<'a>(
    lines: &[FacetLine],
    papers: impl Iterator<Item = &'a mut super::Paper>,
) -> Vec<Problem> {
    let mut by_id: hashbrown::HashMap<String, Vec<&FacetLine>> = hashbrown::HashMap::new();
    for l in lines {
        by_id.entry(facet_key(&l.id)).or_default().push(l);
    }
    let mut used: hashbrown::HashSet<(PathBuf, usize)> = hashbrown::HashSet::new();
    for p in papers {
        let mut names = vec![facet_key(&p.id)];
        names.extend(p.arxiv.iter().map(|a| facet_key(a)));
        names.extend(p.doi.iter().map(|d| facet_key(d)));
        names.dedup();
        for ls in names.iter().filter_map(|n| by_id.get(n)) {
            for l in ls {
                for t in &l.tags {
                    if !p.keywords.contains(t) {
                        p.keywords.push(t.clone());
                    }
                }
                used.insert((l.file.clone(), l.line));
            }
        }
    }
    lines
        .iter()
        .filter(|l| !used.contains(&(l.file.clone(), l.line)))
        .map(|l| Problem {
            path: l.file.clone(),
            line: l.line,
            message: format!(
                "no paper of the corpus has the id {:?} (facets name papers by id, arXiv id or \
                 DOI; `recommend list` shows the ids)",
                l.id
            ),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Paper;

    #[test]
    fn tags_join_keywords_and_every_bad_line_is_reported_at_once() {
        let text = "# comment\na\tweb agents; credit assignment\n\nnope\tx\nno tab here\nb\tok;bad\u{7}tag\n\tx\n";
        let (lines, problems) = parse(Path::new("f.facets"), text);
        let at: Vec<usize> = problems.iter().map(|p| p.line).collect();
        assert_eq!(at, vec![5, 6, 7], "{problems:?}");
        let mut papers = [
            Paper {
                id: "a".into(),
                title: "A".into(),
                ..Paper::default()
            },
            Paper {
                id: "b".into(),
                title: "B".into(),
                ..Paper::default()
            },
        ];
        let unknown = apply(&lines, papers.iter_mut());
        assert_eq!(unknown.len(), 1);
        assert_eq!(unknown[0].line, 4);
        assert!(unknown[0].message.contains("\"nope\""));
        assert_eq!(papers[0].keywords, vec!["web agents", "credit assignment"]);
        assert!(papers[1].keywords.is_empty());
        // A paper is named by its arXiv id or DOI too, in the forms lists write them.
        let text = "arXiv:2305.18290v2\tpreference\nhttps://doi.org/10.1000/ABC\tjournal\n";
        let (lines, problems) = parse(Path::new("f.facets"), text);
        assert!(problems.is_empty(), "{problems:?}");
        let mut papers = [Paper {
            id: "dpo".into(),
            title: "DPO".into(),
            arxiv: Some("2305.18290".into()),
            doi: Some("10.1000/abc".into()),
            ..Paper::default()
        }];
        assert!(apply(&lines, papers.iter_mut()).is_empty());
        assert_eq!(papers[0].keywords, vec!["preference", "journal"]);
    }
}
