//! Reading a judged set: its lines, their validation, and the paper ids resolved against an index.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::index::Index;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    task: String,
    #[serde(default)]
    seed: Option<String>,
    #[serde(default)]
    query: Option<String>,
    #[serde(default)]
    lang: Option<String>,
    relevant: BTreeMap<String, u8>,
    /// A reader's own recommendations for a `like` seed, best first (second readers).
    #[serde(default)]
    ranked: Vec<String>,
    #[serde(default)]
    #[allow(dead_code)]
    note: Option<String>,
}

/// Relevance grades of papers (by index position) for one item.
pub type Grades = HashMap<usize, u8>;

/// A loaded judged set, resolved against one index.
#[derive(Debug, Clone, Default)]
pub struct Judged {
    pub source: PathBuf,
    pub like: Vec<(usize, Grades)>,
    /// (language, query, grades)
    pub search: Vec<(String, String, Grades)>,
    /// Per `like` seed, the reader's own recommendations, best first (from `"ranked"`; only
    /// second readers give them).
    pub ranked: HashMap<usize, Vec<usize>>,
    /// A second reader's independent judgments of the same seeds, when there are any.
    pub second: Option<Box<Judged>>,
}

/// Read `path` and resolve its paper ids in `index`; every problem is reported as `file:line`.
pub fn load(path: &Path, index: &Index) -> Result<Judged, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read judged set {}: {e}", path.display()))?;
    let table = index.table();
    // An id no paper has (every id is among the names `named` searches) may name a listing the
    // loader merged into another record of the same paper; that listing's name now resolves to
    // the kept record, and only to it.
    let find = |id: &str| -> Option<usize> {
        let named = table.named(&crate::text::name_key(id));
        named
            .iter()
            .copied()
            .find(|&i| table.id(i) == id)
            .or_else(|| match named[..] {
                [only] => Some(only),
                _ => None,
            })
    };
    let mut out = Judged {
        source: path.to_path_buf(),
        ..Judged::default()
    };
    let mut problems = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let at = format!("{}:{}", path.display(), n + 1);
        if raw.trim().is_empty() {
            continue;
        }
        let line: Line = match serde_json::from_str(raw) {
            Ok(l) => l,
            Err(e) => {
                problems.push(format!("{at}: {e}"));
                continue;
            }
        };
        let mut grades = Grades::new();
        for (id, g) in &line.relevant {
            match find(id) {
                Some(i) => {
                    grades.insert(i, *g);
                }
                None => problems.push(format!("{at}: unknown paper id {id:?}")),
            }
        }
        let mut ranked = Vec::with_capacity(line.ranked.len());
        for id in &line.ranked {
            match find(id) {
                Some(i) if !ranked.contains(&i) => ranked.push(i),
                Some(_) => problems.push(format!("{at}: {id:?} ranked twice")),
                None => problems.push(format!("{at}: unknown paper id {id:?} in \"ranked\"")),
            }
        }
        if !ranked.is_empty() && line.task != "like" {
            problems.push(format!("{at}: only a \"like\" item can have \"ranked\""));
        }
        match (line.task.as_str(), line.seed, line.query, line.lang) {
            ("like", Some(seed), None, _) => match find(&seed) {
                Some(s) => {
                    // A repeat of the seed merged into it is the seed itself, not its related work.
                    grades.remove(&s);
                    if ranked.contains(&s) {
                        problems.push(format!("{at}: the seed {seed:?} ranks itself"));
                    }
                    if !ranked.is_empty() {
                        out.ranked.insert(s, ranked);
                    }
                    out.like.push((s, grades))
                }
                None => problems.push(format!("{at}: unknown seed id {seed:?}")),
            },
            ("search", None, Some(q), Some(lang)) if ["zh", "en", "mixed"].contains(&&*lang) => {
                out.search.push((lang, q, grades))
            }
            _ => problems.push(format!(
                "{at}: expected a \"like\" item with a seed or a \"search\" item with a query \
                 and lang zh|en|mixed"
            )),
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems.join("\n"))
    }
}
