//! From a record as a file holds it (a JSON object, a CSV row, a BibTeX entry) to a [`Paper`].
//!
//! Reading lists come from many tools, and each names things its own way: arXiv's metadata says
//! `abstract` and `update_date`, Zotero says `Abstract Note` and `Publication Year`, BibTeX says
//! `author` and `keywords`. This module is the one place that knows those names:
//!
//! - keys are matched ignoring case, and `-` or spaces count as `_` (`Abstract Note` is
//!   `abstract_note`);
//! - aliases map onto the record: `abstract` -> `summary`; `author` -> `authors` (text, or a
//!   list of names or CSL JSON name objects); `year`, `publication_year`, `published`, `date`,
//!   `issued` (a CSL JSON date) -> `year` (the first holding a year wins), else the year of an
//!   arXiv id taken from `id`, else `update_date` (the arXiv snapshot's last revision); `url`, `pdf`, `pdf_url` -> `url`; `categories`, `keyword`,
//!   `manual_tags`, `automatic_tags`, `groups` (JabRef), `collections` -> `keywords` (all of
//!   them, merged); `section` -> `topic`;
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

mod identifiers;
mod keys;
mod validation;
mod values;

use serde_json::{Map, Value};

pub use identifiers::{arxiv_of_doi, derived_id, normalize_arxiv, normalize_doi};
pub use keys::{known_keys, normalize_key};
pub use validation::{id_problem, text_problems};
pub use values::year_in;

use super::paper::{Kind, Paper, tag_vocabulary};
use identifiers::arxiv_year;
use keys::{Target, target_of};
use values::{Split, authors, boolean, items, kind, scalar, year};

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
    /// The publication date when the year's key gives one finer than the year
    /// (`YYYY-MM-DD` or `YYYY-MM`, [`values::iso_date`]); a paper keeps only its year.
    pub date: Option<String>,
}

/// Where a record comes from: a structured format (JSONL) keeps the curated record's exact
/// values; text formats (CSV, BibTeX) have only strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Json,
    Text,
}

/// Map one record. `origin` says whether values are typed (JSON) or all text (CSV, BibTeX).
pub fn map_record(record: &Record, origin: Origin) -> Outcome {
    let sorted = SortedKeys::of(record);
    let mut ignored = sorted.ignored;
    let mut fields = Fields::default();
    let mut problems = fields.fill(sorted.keyed, &mut ignored);
    problems.extend(oversized(record));
    let off_vocabulary = fields.sort_tags();
    dedup_keep_order(&mut fields.paper.keywords);
    if !problems.is_empty() {
        return Outcome::Problems(problems);
    }
    let Some(title) = fields.title.take().filter(|t| !t.trim().is_empty()) else {
        return Outcome::Untitled { name: fields.id };
    };
    fields.paper.title = title;
    fields.infer_arxiv_and_year(origin);
    if let Some((key, value)) = sorted.revised {
        if fields.paper.year.is_none() {
            match year(key, value) {
                Ok(y) => fields.paper.year = y,
                Err(e) => return Outcome::Problems(vec![e]),
            }
        } else {
            ignored.push(format!("{key} (a year given)"));
        }
    }
    let mut p = fields.paper;
    // Without a `kind`, a title that says it is a survey is one, in every format (the curated
    // corpus gives every paper its kind; a user's JSON export gives none).
    if !fields.kind_given {
        let lower = p.title.to_lowercase();
        if lower.contains("survey") || lower.contains("综述") {
            p.kind = Kind::Survey;
        }
    }
    let derived = fields.id.is_none();
    p.id = fields.id.unwrap_or_else(|| derived_id(&p));
    arxiv_from_address(&mut p);
    Outcome::Paper(Box::new(Mapped {
        paper: p,
        derived_id: derived,
        ignored,
        off_vocabulary,
        date: fields.date,
    }))
}

/// The keys of a record sorted for mapping: known keys in priority order (so the strongest key
/// wins regardless of file order), arXiv's `update_date` aside (a fallback year), the rest
/// ignored.
struct SortedKeys<'a> {
    keyed: Vec<(usize, Target, &'a String, &'a Value)>,
    revised: Option<(&'a String, &'a Value)>,
    ignored: Vec<String>,
}

impl<'a> SortedKeys<'a> {
    fn of(record: &'a Record) -> SortedKeys<'a> {
        let mut sorted = SortedKeys {
            keyed: Vec::new(),
            revised: None,
            ignored: Vec::new(),
        };
        for (key, value) in record {
            let normalized = normalize_key(key);
            match target_of(&normalized) {
                Some((rank, t)) => sorted.keyed.push((rank, t, key, value)),
                None if normalized == "update_date" => sorted.revised = Some((key, value)),
                None => sorted.ignored.push(key.clone()),
            }
        }
        sorted.keyed.sort_by_key(|k| k.0);
        sorted
    }
}

/// A record's fields as they are being mapped.
#[derive(Default)]
struct Fields {
    paper: Paper,
    id: Option<String>,
    title: Option<String>,
    kind_given: bool,
    arxiv_given: bool,
    /// `tags` values, before they are checked against the vocabulary.
    tags: Vec<String>,
    /// The date the year came from, when finer than the year.
    date: Option<String>,
}

impl Fields {
    /// Fill the fields from `keyed` (in priority order): a single-valued field takes the first
    /// non-empty key and reports later ones as shadowed in `ignored`. Returns the problems.
    fn fill(
        &mut self,
        keyed: Vec<(usize, Target, &String, &Value)>,
        ignored: &mut Vec<String>,
    ) -> Vec<String> {
        let mut problems = Vec::new();
        // Single-valued targets: which key (by priority) filled them.
        let mut filled: Vec<(Target, usize, String)> = Vec::new();
        for (rank, target, key, value) in keyed {
            let multi = matches!(
                target,
                Target::Keywords
                    | Target::AlsoTopics
                    | Target::Aliases
                    | Target::Sources
                    | Target::BuildsOn
                    | Target::Tags
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
            match self.set(target, key, value) {
                Ok(()) if !multi => filled.push((target, rank, key.clone())),
                Ok(()) => {}
                Err(e) => problems.push(e),
            }
        }
        problems
    }

    /// Set the field `target` from `key`'s `value`. (One arm per target: a flat table.)
    fn set(&mut self, target: Target, key: &str, value: &Value) -> Result<(), String> {
        let p = &mut self.paper;
        match target {
            Target::Id => self.id = scalar(key, value)?,
            Target::Title => self.title = scalar(key, value)?,
            Target::Aliases => p.aliases.extend(items(key, value, Split::Semicolons)?),
            Target::Highlight => p.highlight = scalar(key, value)?.unwrap_or_default(),
            Target::Summary => p.summary = scalar(key, value)?.unwrap_or_default(),
            Target::SeedHighlight => p.seed_highlight = scalar(key, value)?.unwrap_or_default(),
            Target::Topic => p.topic = scalar(key, value)?.unwrap_or_default(),
            Target::TopicEn => p.topic_en = scalar(key, value)?.unwrap_or_default(),
            Target::Kind => {
                if let Some(k) = kind(value)? {
                    p.kind = k;
                    self.kind_given = true;
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
                self.arxiv_given = true;
            }
            Target::Year => {
                p.year = year(key, value)?;
                self.date = values::iso_date(value);
            }
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
            Target::Tags => self.tags.extend(items(key, value, Split::Commas)?),
            Target::Keywords => {
                let split = if normalize_key(key) == "categories" {
                    Split::Spaces
                } else {
                    Split::Commas
                };
                p.keywords.extend(items(key, value, split)?)
            }
            Target::BuildsOn => p.builds_on.extend(items(key, value, Split::Semicolons)?),
            Target::AlsoTopics => p.also_topics.extend(items(key, value, Split::Semicolons)?),
        }
        Ok(())
    }

    /// Keep the `tags` of the controlled vocabulary; the others become keywords and are
    /// returned.
    fn sort_tags(&mut self) -> Vec<String> {
        let vocabulary: Vec<&str> = tag_vocabulary().collect();
        let mut off_vocabulary = Vec::new();
        for t in std::mem::take(&mut self.tags) {
            if vocabulary.contains(&t.as_str()) {
                self.paper.tags.push(t);
            } else {
                off_vocabulary.push(t.clone());
                self.paper.keywords.push(t);
            }
        }
        off_vocabulary
    }

    /// An id that is an arXiv id says where the paper lives (the arXiv metadata snapshot's
    /// ids); so does its first-version month, when no date is given.
    fn infer_arxiv_and_year(&mut self, origin: Origin) {
        let p = &mut self.paper;
        if p.arxiv.is_none()
            && let Some(a) = self.id.as_deref().and_then(normalize_arxiv)
        {
            p.arxiv = Some(a);
        }
        // (Not from a curated record's own `arxiv`: its missing year is a curation decision.)
        if p.year.is_none()
            && !(self.arxiv_given && origin == Origin::Json)
            && let Some(a) = &p.arxiv
            && let Some(y) = arxiv_year(a)
        {
            p.year = Some(y);
        }
    }
}

/// A paper whose `url` or `link` names its arXiv page (`arxiv.org/abs/ID`, `arxiv.org/pdf/ID`,
/// `arXiv:ID`)
/// lives on arXiv as surely as one with an `arxiv` field: it gets that id and, without a date,
/// the id's year, so that the month an arXiv id gives (the feed's time split, `bench`) and
/// "is this candidate already in my library" work for lists that only link their papers. Done
/// after the id is derived: a record without an id keeps its title's slug, the id ratings and
/// judged sets already name.
pub(crate) fn arxiv_from_address(p: &mut Paper) {
    if p.arxiv.is_some() {
        return;
    }
    let Some(a) = [&p.url, &p.link]
        .into_iter()
        .flatten()
        .find_map(|s| normalize_arxiv(s))
    else {
        return;
    };
    if p.year.is_none() {
        p.year = arxiv_year(&a);
    }
    p.arxiv = Some(a);
}

/// Values too long for any field (see [`MAX_FIELD_BYTES`]), one problem each.
fn oversized(record: &Record) -> Vec<String> {
    let mut problems = Vec::new();
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
    problems
}

fn dedup_keep_order(v: &mut Vec<String>) {
    let mut seen = std::collections::HashSet::new();
    v.retain(|s| seen.insert(s.to_lowercase()));
}
