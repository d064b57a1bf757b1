//! From a record as a file holds it (a JSON object, a CSV row, a BibTeX entry) to a [`Paper`].
//!
//! Reading lists come from many tools, and each names things its own way: arXiv's metadata says
//! `abstract` and `update_date`, Zotero says `Abstract Note` and `Publication Year`, BibTeX says
//! `author` and `keywords`. This module is the one place that knows those names:
//!
//! - keys are matched ignoring case, and `-` or spaces count as `_` (`Abstract Note` is
//!   `abstract_note`);
//! - aliases map onto the record: `abstract` -> `summary`; `author` -> `authors` (text or a list
//!   of names); `year`, `publication_year`, `published`, `date` -> `year` (the first holding a
//!   year wins), else the year of an arXiv id taken from `id`, else `update_date` (the arXiv
//!   snapshot's last revision); `url`, `pdf`, `pdf_url` -> `url`; `categories`, `keyword`,
//!   `manual_tags`, `automatic_tags` -> `keywords` (all of them, merged);
//! - every other key is kept out of the index and reported by the caller (see
//!   [`Mapped::ignored`]): nothing is dropped without a word.
//!
//! Ids are taken as found (`arXiv:2503.14476`, `2401.12345v2`, `10.1145/3292500.3330701`,
//! `vaswani2017attention`): any text without control characters or surrounding spaces. Lookups
//! by id are exact. A record without an id gets one derived from its arXiv id, else its DOI,
//! else a slug of its title ([`derived_id`]), stable across runs.
//!
//! `tags` are the controlled vocabulary of the curated corpus (`corpus/README.md`); a user's own
//! words go in `keywords`. A `tags` value outside the vocabulary is moved to `keywords` and
//! reported ([`Mapped::off_vocabulary`]), so an imported list keeps its tags and a typo in the
//! curated corpus is still caught (`--strict` makes it an error).

use serde_json::{Map, Value};

use super::markdown::slugify;
use super::paper::{Kind, Paper, is_arxiv_id, tag_vocabulary};

/// A record before mapping: keys as the file spells them, values as JSON.
pub type Record = Map<String, Value>;

/// Longest value one field may hold, in bytes. Real abstracts stay under 10 KB; anything past
/// this is a broken export (a whole file in one cell, a missing closing quote).
pub const MAX_FIELD_BYTES: usize = 100_000;

/// Longest id, in characters.
pub const MAX_ID_CHARS: usize = 300;

/// What became of one record.
#[derive(Debug)]
pub enum Outcome {
    Paper(Box<Mapped>),
    /// No title (or only spaces): the record cannot be shown or searched, so it is skipped and
    /// the caller counts and names it. `name` is its id, if it had one.
    Untitled {
        name: Option<String>,
    },
    /// What is wrong, one message per problem.
    Problems(Vec<String>),
}

/// A mapped record and what was left out of it.
#[derive(Debug)]
pub struct Mapped {
    pub paper: Paper,
    /// The id was derived, not given (the caller makes derived ids unique).
    pub derived_id: bool,
    /// Keys kept out of the index: unknown keys as spelled in the file, and aliases shadowed by
    /// a stronger key, as `"pdf (url given)"`.
    pub ignored: Vec<String>,
    /// `tags` values outside the controlled vocabulary, kept as keywords.
    pub off_vocabulary: Vec<String>,
}

/// Where a record comes from: a structured format (JSONL) keeps the curated record's exact
/// values; text formats (CSV, BibTeX) have only strings and guess a survey from its title.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Json,
    Text,
}

/// The field a key feeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    Id,
    Title,
    Aliases,
    Highlight,
    Summary,
    SeedHighlight,
    Topic,
    TopicEn,
    Kind,
    OpenSource,
    Link,
    Sources,
    Capability,
    Direction,
    Arxiv,
    Year,
    Url,
    Doi,
    Code,
    Authors,
    Tags,
    Keywords,
    BuildsOn,
}

/// Known keys (normalized), in priority order within each target: for single-valued targets
/// the first key present wins and later ones are reported as shadowed.
const KEYS: &[(&str, Target)] = &[
    ("id", Target::Id),
    ("key", Target::Id),
    ("citation_key", Target::Id),
    ("citekey", Target::Id),
    ("title", Target::Title),
    ("aliases", Target::Aliases),
    ("alias", Target::Aliases),
    ("highlight", Target::Highlight),
    ("summary", Target::Summary),
    ("abstract", Target::Summary),
    ("abstract_note", Target::Summary),
    ("seed_highlight", Target::SeedHighlight),
    ("topic", Target::Topic),
    ("topic_en", Target::TopicEn),
    ("kind", Target::Kind),
    ("open_source", Target::OpenSource),
    ("link", Target::Link),
    ("sources", Target::Sources),
    ("capability", Target::Capability),
    ("direction", Target::Direction),
    ("arxiv", Target::Arxiv),
    ("arxiv_id", Target::Arxiv),
    ("year", Target::Year),
    ("publication_year", Target::Year),
    ("published", Target::Year),
    ("date", Target::Year),
    ("url", Target::Url),
    ("pdf", Target::Url),
    ("pdf_url", Target::Url),
    ("doi", Target::Doi),
    ("code", Target::Code),
    ("code_url", Target::Code),
    ("authors", Target::Authors),
    ("author", Target::Authors),
    ("tags", Target::Tags),
    ("keywords", Target::Keywords),
    ("keyword", Target::Keywords),
    ("categories", Target::Keywords),
    ("manual_tags", Target::Keywords),
    ("automatic_tags", Target::Keywords),
    ("builds_on", Target::BuildsOn),
];

/// `Abstract Note` -> `abstract_note`.
pub fn normalize_key(key: &str) -> String {
    key.trim()
        .chars()
        .map(|c| match c {
            '-' | ' ' => '_',
            c => c.to_ascii_lowercase(),
        })
        .collect()
}

fn target_of(key: &str) -> Option<(usize, Target)> {
    KEYS.iter()
        .position(|(k, _)| *k == key)
        .map(|i| (i, KEYS[i].1))
}

/// What is wrong with an id, if anything: ids may be any text (arXiv ids, DOIs, citation keys)
/// but must be non-empty, without control characters or surrounding spaces, and not huge.
pub fn id_problem(id: &str) -> Option<String> {
    if id.trim().is_empty() {
        Some("empty id".into())
    } else if let Some(c) = id.chars().find(|c| c.is_control()) {
        Some(format!(
            "id {id:?} contains the control character U+{:04X}",
            c as u32
        ))
    } else if id.trim() != id {
        Some(format!("id {id:?} has leading or trailing spaces"))
    } else if id.chars().count() > MAX_ID_CHARS {
        Some(format!(
            "id of {} characters is too long (at most {MAX_ID_CHARS})",
            id.chars().count()
        ))
    } else {
        None
    }
}

/// `arXiv:2401.12345v2`, `https://arxiv.org/abs/2401.12345`, `2401.12345` -> `2401.12345`;
/// `None` when what remains is not an arXiv id.
pub fn normalize_arxiv(s: &str) -> Option<String> {
    let mut t = s.trim();
    for prefix in [
        "https://arxiv.org/abs/",
        "http://arxiv.org/abs/",
        "https://arxiv.org/pdf/",
        "http://arxiv.org/pdf/",
        "arxiv.org/abs/",
        "arxiv:",
    ] {
        // `get` rather than slicing: the cut may fall inside a multi-byte character.
        if let Some(head) = t.get(..prefix.len())
            && head.eq_ignore_ascii_case(prefix)
        {
            t = &t[prefix.len()..];
            break;
        }
    }
    let t = t.strip_suffix(".pdf").unwrap_or(t);
    let t = match t.rfind('v') {
        Some(v)
            if v > 0
                && v + 1 < t.len()
                && t[v + 1..].bytes().all(|b| b.is_ascii_digit())
                && t.as_bytes()[v - 1].is_ascii_digit() =>
        {
            &t[..v]
        }
        _ => t,
    };
    is_arxiv_id(t).then(|| t.to_string())
}

/// `doi:10.1/x`, `https://doi.org/10.1/x` -> `10.1/x`; `None` unless it looks like a DOI.
pub fn normalize_doi(s: &str) -> Option<String> {
    let mut t = s.trim();
    for prefix in [
        "https://doi.org/",
        "http://doi.org/",
        "https://dx.doi.org/",
        "http://dx.doi.org/",
        "doi:",
    ] {
        if t.len() >= prefix.len() && t[..prefix.len()].eq_ignore_ascii_case(prefix) {
            t = t[prefix.len()..].trim();
            break;
        }
    }
    let ok = t.starts_with("10.")
        && t.contains('/')
        && !t.chars().any(|c| c.is_whitespace() || c.is_control());
    ok.then(|| t.to_string())
}

/// The id of a record that has none: its arXiv id, else its DOI, else a slug of its title.
pub fn derived_id(p: &Paper) -> String {
    if let Some(a) = &p.arxiv {
        return a.clone();
    }
    if let Some(d) = &p.doi {
        return d.to_ascii_lowercase();
    }
    slugify(&p.title)
}

/// The first year (1000-2999) written in `s` as four digits of their own: `2023-05-01`,
/// `Mon, 2 Apr 2007 19:18:42 GMT`, `2017`.
pub fn year_in(s: &str) -> Option<u16> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if i - start == 4
                && let Ok(y) = s[start..i].parse::<u16>()
                && (1000..=2999).contains(&y)
            {
                return Some(y);
            }
        } else {
            i += 1;
        }
    }
    None
}

/// Text with line breaks or tabs (a wrapped arXiv title, a multi-line BibTeX abstract) becomes
/// one line; text without them is kept exactly as written.
fn one_line(s: &str) -> String {
    if s.contains(['\n', '\r', '\t']) {
        s.split_whitespace().collect::<Vec<_>>().join(" ")
    } else {
        s.to_string()
    }
}

fn describe(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "text",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// A scalar as text; `None` for null or empty text.
fn scalar(key: &str, v: &Value) -> Result<Option<String>, String> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) => Ok((!s.trim().is_empty()).then(|| one_line(s))),
        Value::Number(n) => Ok(Some(n.to_string())),
        Value::Bool(b) => Ok(Some(b.to_string())),
        other => Err(format!("`{key}` must be text, not {}", describe(other))),
    }
}

/// How a list field written as one text splits into items.
#[derive(Clone, Copy)]
enum Split {
    /// `a; b` (names that may hold commas)
    Semicolons,
    /// `a, b; c` (keywords)
    Commas,
    /// `cs.CL cs.AI` (arXiv categories)
    Spaces,
}

fn items(key: &str, v: &Value, split: Split) -> Result<Vec<String>, String> {
    let parts: Vec<String> = match v {
        Value::Null => Vec::new(),
        Value::Array(a) => {
            let mut out = Vec::new();
            for x in a {
                if let Some(s) = scalar(key, x).map_err(|_| {
                    format!("`{key}` must be a list of texts, not of {}", describe(x))
                })? {
                    out.push(s);
                }
            }
            out
        }
        Value::String(s) => match split {
            Split::Semicolons => s.split(';').map(str::to_string).collect(),
            Split::Commas => s.split([';', ',']).map(str::to_string).collect(),
            Split::Spaces => s.split_whitespace().map(str::to_string).collect(),
        },
        other => {
            return Err(format!(
                "`{key}` must be a list or text, not {}",
                describe(other)
            ));
        }
    };
    Ok(parts
        .into_iter()
        .map(|s| one_line(&s).trim().to_string())
        .filter(|s| !s.is_empty())
        .collect())
}

fn boolean(key: &str, v: &Value) -> Result<bool, String> {
    match v {
        Value::Bool(b) => Ok(*b),
        Value::Null => Ok(false),
        Value::Number(n) if n.as_u64() == Some(0) => Ok(false),
        Value::Number(n) if n.as_u64() == Some(1) => Ok(true),
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" | "y" | "1" | "x" => Ok(true),
            "false" | "no" | "n" | "0" | "" => Ok(false),
            other => Err(format!(
                "`{key}` {other:?} is not a yes/no value (true, false, yes, no, 1, 0)"
            )),
        },
        other => Err(format!(
            "`{key}` must be true or false, not {}",
            describe(other)
        )),
    }
}

fn year(key: &str, v: &Value) -> Result<Option<u16>, String> {
    match v {
        Value::Null => Ok(None),
        Value::Number(n) => match n.as_u64().and_then(|y| u16::try_from(y).ok()) {
            Some(y) => Ok(Some(y)),
            None => Err(format!("`{key}` {n} is not a year")),
        },
        Value::String(s) if s.trim().is_empty() => Ok(None),
        Value::String(s) => year_in(s)
            .map(Some)
            .ok_or_else(|| format!("`{key}` {s:?} holds no year")),
        other => Err(format!(
            "`{key}` must be a year or a date, not {}",
            describe(other)
        )),
    }
}

fn kind(v: &Value) -> Result<Option<Kind>, String> {
    let Some(s) = scalar("kind", v)? else {
        return Ok(None);
    };
    Kind::ALL
        .iter()
        .copied()
        .find(|k| k.as_str() == s.trim())
        .map(Some)
        .ok_or_else(|| {
            format!("unknown kind {s:?}; kind must be one of: survey, method, system, benchmark, dataset, model")
        })
}

/// A list of authors: names joined by ", "; a text stays as written.
fn authors(v: &Value) -> Result<Option<String>, String> {
    match v {
        Value::Array(_) => {
            let names = items("authors", v, Split::Semicolons)?;
            Ok((!names.is_empty()).then(|| names.join(", ")))
        }
        other => scalar("authors", other),
    }
}

/// Map one record. `origin` says whether values are typed (JSON) or all text (CSV, BibTeX).
pub fn map_record(record: &Record, origin: Origin) -> Outcome {
    let mut p = Paper::default();
    let mut problems = Vec::new();
    let mut ignored = Vec::new();
    let mut id: Option<String> = None;
    let mut title: Option<String> = None;
    let mut kind_given = false;
    let mut arxiv_given = false;
    let mut tags = Vec::new();
    // Single-valued targets: which key (by priority) filled them.
    let mut filled: Vec<(Target, usize, String)> = Vec::new();
    // Process keys in priority order so the strongest key wins regardless of file order.
    let mut keyed: Vec<(usize, Target, &String, &Value)> = Vec::new();
    let mut revised: Option<(&String, &Value)> = None;
    for (key, value) in record {
        let normalized = normalize_key(key);
        match target_of(&normalized) {
            Some((rank, t)) => keyed.push((rank, t, key, value)),
            None if normalized == "update_date" => revised = Some((key, value)),
            None => ignored.push(key.clone()),
        }
    }
    keyed.sort_by_key(|k| k.0);
    for (rank, target, key, value) in keyed {
        let multi = matches!(
            target,
            Target::Keywords | Target::Aliases | Target::Sources | Target::BuildsOn | Target::Tags
        );
        if !multi {
            let empty = matches!(value, Value::Null)
                || matches!(value, Value::String(s) if s.trim().is_empty());
            if empty {
                continue;
            }
            if let Some((_, _, by)) = filled.iter().find(|f| f.0 == target) {
                ignored.push(format!("{key} ({by} given)"));
                continue;
            }
        }
        let r: Result<(), String> = (|| {
            match target {
                Target::Id => id = scalar(key, value)?,
                Target::Title => title = scalar(key, value)?,
                Target::Aliases => p.aliases.extend(items(key, value, Split::Semicolons)?),
                Target::Highlight => p.highlight = scalar(key, value)?.unwrap_or_default(),
                Target::Summary => p.summary = scalar(key, value)?.unwrap_or_default(),
                Target::SeedHighlight => p.seed_highlight = scalar(key, value)?.unwrap_or_default(),
                Target::Topic => p.topic = scalar(key, value)?.unwrap_or_default(),
                Target::TopicEn => p.topic_en = scalar(key, value)?.unwrap_or_default(),
                Target::Kind => {
                    if let Some(k) = kind(value)? {
                        p.kind = k;
                        kind_given = true;
                    }
                }
                Target::OpenSource => p.open_source = boolean(key, value)?,
                Target::Link => p.link = scalar(key, value)?,
                Target::Sources => p.sources.extend(items(key, value, Split::Semicolons)?),
                Target::Capability => p.capability = scalar(key, value)?,
                Target::Direction => p.direction = scalar(key, value)?,
                Target::Arxiv => {
                    // Kept as written when malformed: validation names the problem.
                    p.arxiv = scalar(key, value)?.map(|a| normalize_arxiv(&a).unwrap_or(a));
                    arxiv_given = true;
                }
                Target::Year => p.year = year(key, value)?,
                Target::Url => p.url = scalar(key, value)?.map(|u| u.trim().to_string()),
                Target::Doi => {
                    if let Some(d) = scalar(key, value)? {
                        p.doi = Some(normalize_doi(&d).ok_or_else(|| {
                            format!("`{key}` {d:?} is not a DOI like \"10.1145/3292500.3330701\"")
                        })?);
                    }
                }
                Target::Code => p.code = scalar(key, value)?.map(|u| u.trim().to_string()),
                Target::Authors => p.authors = authors(value)?,
                Target::Tags => tags.extend(items(key, value, Split::Commas)?),
                Target::Keywords => {
                    let split = if normalize_key(key) == "categories" {
                        Split::Spaces
                    } else {
                        Split::Commas
                    };
                    p.keywords.extend(items(key, value, split)?)
                }
                Target::BuildsOn => p.builds_on.extend(items(key, value, Split::Semicolons)?),
            }
            Ok(())
        })();
        match r {
            Ok(()) if !multi => filled.push((target, rank, key.clone())),
            Ok(()) => {}
            Err(e) => problems.push(e),
        }
    }
    for (key, value) in record {
        if let Value::String(s) = value
            && s.len() > MAX_FIELD_BYTES
        {
            problems.push(format!(
                "`{key}` holds {} bytes, more than the {MAX_FIELD_BYTES} a field may hold (a \
                 broken export, or a whole file in one cell?)",
                s.len()
            ));
        }
    }
    let vocabulary: Vec<&str> = tag_vocabulary().collect();
    let mut off_vocabulary = Vec::new();
    for t in tags {
        if vocabulary.contains(&t.as_str()) {
            p.tags.push(t);
        } else {
            off_vocabulary.push(t.clone());
            p.keywords.push(t);
        }
    }
    dedup_keep_order(&mut p.keywords);
    if !problems.is_empty() {
        return Outcome::Problems(problems);
    }
    let Some(title) = title.filter(|t| !t.trim().is_empty()) else {
        return Outcome::Untitled { name: id };
    };
    p.title = title;
    // An id that is an arXiv id says where the paper lives (the arXiv metadata snapshot's ids);
    // so does its first-version month, when no date is given.
    if p.arxiv.is_none()
        && let Some(a) = id.as_deref().and_then(normalize_arxiv)
    {
        p.arxiv = Some(a);
    }
    // (Not from a curated record's own `arxiv`: its missing year is a curation decision.)
    if p.year.is_none()
        && !(arxiv_given && origin == Origin::Json)
        && let Some(a) = &p.arxiv
        && let Some(y) = arxiv_year(a)
    {
        p.year = Some(y);
    }
    if let Some((key, value)) = revised {
        if p.year.is_none() {
            match year(key, value) {
                Ok(y) => p.year = y,
                Err(e) => return Outcome::Problems(vec![e]),
            }
        } else {
            ignored.push(format!("{key} (a year given)"));
        }
    }
    if origin == Origin::Text && !kind_given {
        let lower = p.title.to_lowercase();
        if lower.contains("survey") || lower.contains("综述") {
            p.kind = Kind::Survey;
        }
    }
    let derived = id.is_none();
    p.id = id.unwrap_or_else(|| derived_id(&p));
    Outcome::Paper(Box::new(Mapped {
        paper: p,
        derived_id: derived,
        ignored,
        off_vocabulary,
    }))
}

/// The year of an arXiv id's first version: `2503.14476` -> 2025, `cs/0112017` -> 2001.
fn arxiv_year(a: &str) -> Option<u16> {
    let yy: u16 = match a.split_once('/') {
        Some((_, num)) => num.get(..2)?.parse().ok()?,
        None => a.get(..2)?.parse().ok()?,
    };
    Some(if yy >= 91 { 1900 + yy } else { 2000 + yy })
}

fn dedup_keep_order(v: &mut Vec<String>) {
    let mut seen = std::collections::HashSet::new();
    v.retain(|s| seen.insert(s.to_lowercase()));
}

/// Problems with the text of any field: control characters (other than line breaks and tabs in
/// long texts) would corrupt list columns and terminals.
pub fn text_problems(p: &Paper) -> Vec<String> {
    let mut out = Vec::new();
    let mut check = |what: &str, s: &str, allow_breaks: bool| {
        if let Some(c) = s
            .chars()
            .find(|&c| c.is_control() && !(allow_breaks && matches!(c, '\n' | '\r' | '\t')))
        {
            out.push(format!(
                "paper {:?}: {what} contains the control character U+{:04X}",
                p.id, c as u32
            ));
        }
    };
    check("title", &p.title, false);
    for (what, s) in [
        ("highlight", &p.highlight),
        ("summary", &p.summary),
        ("seed_highlight", &p.seed_highlight),
    ] {
        check(what, s, true);
    }
    for (what, s) in [("topic", &p.topic), ("topic_en", &p.topic_en)] {
        check(what, s, false);
    }
    for (what, list) in [
        ("an alias", &p.aliases),
        ("a source", &p.sources),
        ("a keyword", &p.keywords),
        ("a tag", &p.tags),
        ("builds_on", &p.builds_on),
    ] {
        for s in list {
            check(what, s, false);
        }
    }
    for (what, s) in [
        ("link", &p.link),
        ("authors", &p.authors),
        ("capability", &p.capability),
        ("direction", &p.direction),
    ] {
        if let Some(s) = s {
            check(what, s, false);
        }
    }
    out
}
