//! One item as a record of the importers' keys, and the selection of `--collection`.

use std::collections::{HashMap, HashSet};

use rusqlite::types::ValueRef;
use serde_json::Value;

use super::super::fields::{
    MAX_FIELD_BYTES, Record, arxiv_of_doi, normalize_arxiv, normalize_doi, year_in,
};
use super::ZoteroError;
use super::items::{Collection, Item};

/// Text of any SQLite value (Zotero's value columns have no declared type); NULL is empty.
pub(super) fn text(v: ValueRef<'_>) -> String {
    match v {
        ValueRef::Null => String::new(),
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(f) => f.to_string(),
        ValueRef::Text(b) | ValueRef::Blob(b) => {
            without_controls(&String::from_utf8_lossy(b), false).into_owned()
        }
    }
}

/// `s` with each control character a space (line breaks and tabs kept where `breaks`). Zotero
/// keeps what PDFs and web pages gave it (a form feed in an abstract is common), the corpus
/// refuses such characters, and a user cannot edit them out of `zotero.sqlite`.
pub(super) fn without_controls(s: &str, breaks: bool) -> std::borrow::Cow<'_, str> {
    let bad = |c: char| c.is_control() && !(breaks && matches!(c, '\n' | '\r' | '\t'));
    if s.chars().any(bad) {
        s.chars().map(|c| if bad(c) { ' ' } else { c }).collect()
    } else {
        std::borrow::Cow::Borrowed(s)
    }
}

/// A name or tag cut to [`MAX_FIELD_BYTES`] (at a character boundary).
pub(super) fn bounded(mut s: String) -> String {
    if s.len() > MAX_FIELD_BYTES {
        let mut cut = MAX_FIELD_BYTES;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
    }
    s
}

/// The ids of the collections named `name` and of all their sub-collections.
pub(super) fn selected(
    collections: &HashMap<i64, Collection>,
    name: &str,
) -> Result<HashSet<i64>, ZoteroError> {
    let mut roots: Vec<i64> = collections
        .iter()
        .filter(|(_, c)| c.name == name)
        .map(|(id, _)| *id)
        .collect();
    if roots.is_empty() {
        let lower = name.to_lowercase();
        roots = collections
            .iter()
            .filter(|(_, c)| c.name.to_lowercase() == lower)
            .map(|(id, _)| *id)
            .collect();
    }
    if roots.is_empty() {
        let lower = name.to_lowercase();
        let mut known: Vec<String> = collections.values().map(|c| c.name.clone()).collect();
        known.sort();
        known.dedup();
        let score = |n: &str| {
            let n = n.to_lowercase();
            strsim::jaro_winkler(&lower, &n).max(strsim::normalized_levenshtein(&lower, &n))
        };
        known.sort_by(|a, b| score(b).total_cmp(&score(a)).then_with(|| a.cmp(b)));
        return Err(ZoteroError::UnknownCollection {
            name: name.into(),
            known,
        });
    }
    let mut children: HashMap<i64, Vec<i64>> = HashMap::new();
    for (id, c) in collections {
        if let Some(p) = c.parent {
            children.entry(p).or_default().push(*id);
        }
    }
    // A visited set: a damaged file may hold a cycle of parents.
    let mut out: HashSet<i64> = HashSet::new();
    let mut stack = roots;
    while let Some(id) = stack.pop() {
        if out.insert(id)
            && let Some(kids) = children.get(&id)
        {
            stack.extend(kids);
        }
    }
    Ok(out)
}

/// One item as a record; `None` when it has no title.
pub(super) fn record_of(
    mut item: Item,
    collections: &HashMap<i64, Collection>,
    wanted: Option<&HashSet<i64>>,
    warnings: &mut Vec<String>,
) -> Option<Record> {
    let title = ["title", "caseName", "nameOfAct", "subject"]
        .iter()
        .find_map(|f| item.fields.remove(f).filter(|t| !t.trim().is_empty()))?;
    let mut r = Record::new();
    let s = |v: String| Value::String(v);
    r.insert("id".into(), s(item.key.clone()));
    r.insert("title".into(), s(title.trim().to_string()));
    if let Some(a) = item
        .fields
        .remove("abstractNote")
        .filter(|a| !a.trim().is_empty())
    {
        r.insert("summary".into(), s(a));
    }
    // Authors proper; an item without any (an edited book) is filed under its other creators.
    let has_authors = item
        .creators
        .iter()
        .any(|(_, k)| k.as_deref() == Some("author"));
    let authors: Vec<Value> = item
        .creators
        .into_iter()
        .filter(|(_, k)| !has_authors || k.as_deref() == Some("author"))
        .map(|(n, _)| s(n))
        .collect();
    if !authors.is_empty() {
        r.insert("author".into(), Value::Array(authors));
    }
    // Zotero stores `date` as "YYYY-MM-DD as typed" ("2017-00-00 2017").
    if let Some(y) = item.fields.get("date").and_then(|d| year_in(d)) {
        r.insert("year".into(), Value::from(y));
    }
    let doi = item.fields.remove("DOI").filter(|d| !d.trim().is_empty());
    if let Some(d) = &doi {
        match normalize_doi(d) {
            Some(d) => {
                r.insert("doi".into(), s(d));
            }
            None => warnings.push(format!(
                "{}: `DOI` {:?} is not a DOI like \"10.1145/3292500.3330701\"; left out",
                item.key,
                d.trim()
            )),
        }
    }
    let url = item.fields.remove("url").filter(|u| !u.trim().is_empty());
    if let Some(a) = arxiv_of(
        item.fields.get("archiveID").map(String::as_str),
        item.fields.get("extra").map(String::as_str),
        doi.as_deref(),
        url.as_deref(),
    ) {
        r.insert("arxiv".into(), s(a));
    }
    if let Some(u) = url {
        // `www.example.com`, `file:///...`, a link with a space: not an address to open, and
        // no reason to refuse the library.
        if crate::corpus::paper::is_http_url(u.trim()) {
            r.insert("url".into(), s(u.trim().to_string()));
        } else {
            warnings.push(format!(
                "{}: `url` {:?} is not an http(s) address; left out",
                item.key,
                u.trim()
            ));
        }
    }
    // The topic is the item's first collection, inside `--collection` when one is given.
    let mut names: Vec<String> = Vec::new();
    let mut order = item.collections.clone();
    if let Some(w) = wanted {
        order.sort_by_key(|c| !w.contains(c));
    }
    for c in order {
        if let Some(c) = collections.get(&c) {
            let n = c.name.trim();
            if !n.is_empty() && !names.iter().any(|m| m == n) {
                names.push(n.to_string());
            }
        }
    }
    if let Some((first, rest)) = names.split_first() {
        r.insert("topic".into(), s(first.clone()));
        if !rest.is_empty() {
            r.insert(
                "also_topics".into(),
                Value::Array(rest.iter().cloned().map(s).collect()),
            );
        }
    }
    let mut keywords: Vec<String> = std::mem::take(&mut item.tags);
    keywords.extend(names);
    if !keywords.is_empty() {
        r.insert(
            "keywords".into(),
            Value::Array(keywords.into_iter().map(s).collect()),
        );
    }
    Some(r)
}

/// The arXiv id of an item, from (in this order) its `archiveID` (`arXiv:2503.14476`), an
/// `arXiv: ID` line of `extra`, a DOI of arXiv's (`10.48550/arXiv.2503.14476`), or an arXiv
/// URL (`arxiv.org/abs/ID`, `arxiv.org/pdf/ID`).
pub(super) fn arxiv_of(
    archive_id: Option<&str>,
    extra: Option<&str>,
    doi: Option<&str>,
    url: Option<&str>,
) -> Option<String> {
    if let Some(a) = archive_id.and_then(normalize_arxiv) {
        return Some(a);
    }
    if let Some(a) = extra.and_then(|e| {
        e.lines().find_map(|line| {
            let line = line.trim();
            let rest = line
                .get(..6)
                .filter(|h| h.eq_ignore_ascii_case("arxiv:"))
                .map(|_| &line[6..])?;
            normalize_arxiv(rest.split_whitespace().next()?)
        })
    }) {
        return Some(a);
    }
    if let Some(a) = doi.and_then(arxiv_of_doi) {
        return Some(a);
    }
    let url = url?;
    let lower = url.to_ascii_lowercase();
    ["arxiv.org/abs/", "arxiv.org/pdf/"].iter().find_map(|p| {
        let at = lower.find(p)? + p.len();
        let rest = url.get(at..)?;
        let id = rest.split(['?', '#']).next()?.trim_end_matches('/');
        normalize_arxiv(id)
    })
}
