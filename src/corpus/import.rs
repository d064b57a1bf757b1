//! Reading lists in the formats researchers keep them in, read into one corpus.
//!
//! A corpus is one or more paths; a directory stands for its `.jsonl`, `.ndjson`, `.bib`,
//! `.csv` and `.tsv` files in name order (not its `.md` files: directories hold READMEs; name a
//! Markdown list directly). Each file's format comes from its extension or is forced
//! ([`LoadOptions::format`]). Records of every format go through [`fields::map_record`], so the
//! same keys mean the same thing everywhere.
//!
//! Nothing is dropped without a word: keys kept out of the index, records skipped for want of a
//! title, tags moved to keywords and repeated listings of one paper merged into its first are
//! summed up in [`Import::finish`]'s warnings (one line each, naming the keys with their
//! counts); with [`LoadOptions::strict`] each is a problem at its `file:line`.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use super::bibtex;
use super::delimited;
use super::error::{CorpusError, Problem};
use super::fields::{self, Mapped, Origin, Outcome, Record};
use super::markdown;
use super::paper::Paper;
use crate::text::name_key;

/// A corpus file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One JSON object per line (the record format, arXiv metadata snapshots).
    Jsonl,
    /// BibTeX or BibLaTeX.
    Bibtex,
    /// Comma-separated values with a header row.
    Csv,
    /// Tab-separated values with a header row.
    Tsv,
    /// An awesome-list (see [`markdown`]).
    Markdown,
    /// The arXiv API's Atom answer or an arXiv RSS/Atom listing (see [`super::arxiv`]).
    Feed,
    /// A Zotero database, `zotero.sqlite` (see [`super::zotero`]); read from its path, never
    /// as text.
    Zotero,
    /// A facets side file (`id<TAB>tag;tag`, [`super::facets`]): tags for the other files'
    /// papers.
    Facets,
}

impl Format {
    /// The format a file name says, if any.
    pub fn of_path(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "jsonl" | "ndjson" | "json" => Format::Jsonl,
            "bib" | "bibtex" => Format::Bibtex,
            "csv" => Format::Csv,
            "tsv" | "tab" => Format::Tsv,
            "md" | "markdown" => Format::Markdown,
            "atom" | "rss" | "xml" => Format::Feed,
            "sqlite" => Format::Zotero,
            "facets" => Format::Facets,
            _ => return None,
        })
    }

    /// Whether a directory's file with this name belongs to the corpus. `.json` and `.md` files
    /// do not: corpus directories hold provenance notes and READMEs.
    pub fn in_directory(path: &Path) -> bool {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        matches!(
            ext.as_deref(),
            Some("jsonl" | "ndjson" | "bib" | "csv" | "tsv" | "facets")
        )
    }
}

/// How to read a corpus.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// Read every file in this format, whatever its extension.
    pub format: Option<Format>,
    /// Unknown keys, untitled records and tags outside the vocabulary are errors, not warnings.
    pub strict: bool,
    /// Of a Zotero database, only this collection (and its sub-collections).
    pub collection: Option<String>,
}

/// Where a record was read: file, line, and (BibTeX) its citation key.
#[derive(Debug, Clone)]
struct At {
    file: PathBuf,
    line: usize,
    key: Option<String>,
}

impl At {
    fn show(&self) -> String {
        match &self.key {
            Some(k) => format!("{}:{} (entry {k})", self.file.display(), self.line),
            None => format!("{}:{}", self.file.display(), self.line),
        }
    }

    fn problem(&self, message: String) -> Problem {
        Problem {
            path: self.file.clone(),
            line: self.line,
            message: match &self.key {
                Some(k) => format!("entry {k}: {message}"),
                None => message,
            },
        }
    }
}

/// What was left out, across all files, for the summary warnings.
#[derive(Debug, Default)]
struct Tally {
    /// key -> (records, first place)
    ignored: BTreeMap<String, (usize, String)>,
    untitled: Vec<String>,
    off_vocabulary: BTreeMap<String, usize>,
    /// "file:line (first at file:line)" of each listing merged into an earlier one
    repeats: Vec<String>,
    /// Pairs of records with one arXiv id or DOI under unrelated names, both kept
    clashes: Vec<String>,
    /// "file:line \"text\"" of each Markdown link to a section of its own page
    navigation: Vec<String>,
}

/// Records read so far; [`Import::finish`] gives the entries, problems and warnings.
#[derive(Debug)]
pub struct Import {
    options: LoadOptions,
    entries: Vec<((PathBuf, usize), Paper)>,
    derived: Vec<bool>,
    problems: Vec<Problem>,
    tally: Tally,
    /// What Zotero databases left out, one line each.
    zotero_notes: Vec<String>,
    /// Lines of facets files, applied to the papers once all files are read.
    facets: Vec<super::facets::FacetLine>,
}

impl Import {
    pub fn new(options: LoadOptions) -> Import {
        Import {
            options,
            entries: Vec::new(),
            derived: Vec::new(),
            problems: Vec::new(),
            tally: Tally::default(),
            zotero_notes: Vec::new(),
            facets: Vec::new(),
        }
    }

    /// Read a Zotero database's regular items (see [`super::zotero::read`]); its skipped items
    /// are counted in one warning.
    pub fn add_zotero(&mut self, file: &Path) -> Result<(), CorpusError> {
        let options = super::zotero::ZoteroOptions {
            collection: self.options.collection.clone(),
        };
        let library = super::zotero::read(file, &options).map_err(|e| CorpusError::Source {
            input: !matches!(
                e,
                super::zotero::ZoteroError::Uncopyable { .. }
                    | super::zotero::ZoteroError::Read { .. }
            ),
            message: e.to_string(),
        })?;
        for (k, record) in library.records.iter().enumerate() {
            let key = record
                .get("id")
                .and_then(|v| v.as_str())
                .map(str::to_string);
            let place = At {
                file: file.to_path_buf(),
                line: k + 1,
                key,
            };
            self.add_record(place, record, Origin::Json);
        }
        let skipped = library.skipped.total();
        if skipped > 0 {
            self.zotero_notes.push(format!(
                "{}: {skipped} Zotero item(s) are not papers and were left out ({})",
                file.display(),
                library.skipped
            ));
        }
        self.zotero_notes.extend(library.warnings);
        Ok(())
    }

    /// Read one file's text.
    pub fn add_file(&mut self, file: &Path, text: &str) -> Result<(), CorpusError> {
        // A facets file is a facets file whatever format the other files are forced to.
        let facets = Format::of_path(file).filter(|f| *f == Format::Facets);
        let format = facets
            .or(self.options.format)
            .or_else(|| Format::of_path(file))
            .ok_or_else(|| CorpusError::UnknownFormat {
                path: file.to_path_buf(),
            })?;
        let at = |line: usize, key: Option<String>| At {
            file: file.to_path_buf(),
            line,
            key,
        };
        match format {
            Format::Jsonl => {
                for (line, parsed) in jsonl_records(text) {
                    match parsed {
                        Ok(record) => self.add_record(at(line, None), &record, Origin::Json),
                        Err(message) => self.problems.push(at(line, None).problem(message)),
                    }
                }
            }
            Format::Bibtex => {
                let (entries, problems) = bibtex::parse(text);
                for p in problems {
                    self.problems.push(at(p.line, p.key).problem(p.message));
                }
                for e in entries {
                    let place = at(e.line, Some(e.key));
                    for d in &e.dropped {
                        self.ignore(&place, d.clone());
                    }
                    self.add_record(place, &e.record, Origin::Text);
                }
            }
            Format::Csv | Format::Tsv => {
                let delimiter = if format == Format::Tsv { b'\t' } else { b',' };
                let (rows, problems) = delimited::parse(text, delimiter);
                for (line, message) in problems {
                    self.problems.push(at(line, None).problem(message));
                }
                for row in rows {
                    self.add_record(at(row.line, None), &row.record, Origin::Text);
                }
            }
            Format::Feed => match super::arxiv::parse(text) {
                Ok(feed) => {
                    for e in &feed.entries {
                        self.add_record(at(1, Some(e.arxiv.clone())), &e.to_record(), Origin::Json);
                    }
                }
                Err(e) => self.problems.push(at(1, None).problem(e.to_string())),
            },
            Format::Zotero => {
                return Err(CorpusError::Source {
                    message: format!(
                        "{}: a Zotero database is read from its path (`recommend index --zotero \
                         PATH`), not as text",
                        file.display()
                    ),
                    input: true,
                });
            }
            Format::Facets => {
                let (lines, problems) = super::facets::parse(file, text);
                self.problems.extend(problems);
                self.facets.extend(lines);
            }
            Format::Markdown => {
                let parsed = markdown::parse(file, text);
                self.problems.extend(parsed.problems);
                for (line, text) in parsed.navigation {
                    self.tally
                        .navigation
                        .push(format!("{}:{line} {text:?}", file.display()));
                }
                for (line, p) in parsed.papers {
                    self.entries.push(((file.to_path_buf(), line), p));
                    self.derived.push(false);
                }
            }
        }
        Ok(())
    }

    fn ignore(&mut self, at: &At, key: String) {
        if self.options.strict {
            self.problems.push(at.problem(format!(
                "`{key}` is not a paper field (without --strict it is left out with a warning)"
            )));
        }
        let first = format!("{}:{}", at.file.display(), at.line);
        let e = self.tally.ignored.entry(key).or_insert((0, first));
        e.0 += 1;
    }

    fn add_record(&mut self, at: At, record: &Record, origin: Origin) {
        match fields::map_record(record, origin) {
            Outcome::Problems(ps) => {
                for m in ps {
                    self.problems.push(at.problem(m));
                }
            }
            Outcome::Untitled { name } => {
                let what = match &name {
                    Some(n) if at.key.is_none() => format!("{} ({n})", at.show()),
                    _ => at.show(),
                };
                if self.options.strict {
                    self.problems.push(at.problem("record has no title".into()));
                }
                self.tally.untitled.push(what);
            }
            Outcome::Paper(m) => {
                let Mapped {
                    paper,
                    derived_id,
                    ignored,
                    off_vocabulary,
                } = *m;
                for key in ignored {
                    self.ignore(&at, key);
                }
                for t in off_vocabulary {
                    if self.options.strict {
                        self.problems.push(at.problem(format!(
                            "tag {t:?} is not in the controlled vocabulary (corpus/README.md); \
                             put your own words in `keywords`"
                        )));
                    }
                    *self.tally.off_vocabulary.entry(t).or_insert(0) += 1;
                }
                for m in fields::text_problems(&paper) {
                    self.problems.push(at.problem(m));
                }
                self.entries.push(((at.file, at.line), paper));
                self.derived.push(derived_id);
            }
        }
    }

    /// The entries (derived ids made unique: `-2`, `-3`, ... in file order), the problems, and
    /// one summary warning per kind of thing left out.
    #[allow(clippy::type_complexity)]
    pub fn finish(mut self) -> (Vec<((PathBuf, usize), Paper)>, Vec<Problem>, Vec<String>) {
        self.merge_repeats();
        let facets = std::mem::take(&mut self.facets);
        let unknown = super::facets::apply(&facets, self.entries.iter_mut().map(|(_, p)| p));
        self.problems.extend(unknown);
        let given: HashSet<String> = self
            .entries
            .iter()
            .zip(&self.derived)
            .filter(|(_, d)| !**d)
            .map(|((_, p), _)| p.id.clone())
            .collect();
        let mut taken = given;
        for ((_, p), derived) in self.entries.iter_mut().zip(&self.derived) {
            if !*derived {
                continue;
            }
            let base = p.id.clone();
            let mut n = 1;
            while taken.contains(&p.id) {
                n += 1;
                p.id = format!("{base}-{n}");
            }
            taken.insert(p.id.clone());
        }
        let mut warnings = std::mem::take(&mut self.zotero_notes);
        // Not a record problem, so not an error under --strict either: a table of contents.
        if !self.tally.navigation.is_empty() {
            warnings.push(format!(
                "skipped {} link(s) to sections of the same page (a table of contents, not \
                 papers): {}",
                self.tally.navigation.len(),
                first_few(&self.tally.navigation)
            ));
        }
        if !self.options.strict {
            let t = &self.tally;
            if !t.ignored.is_empty() {
                let mut keys: Vec<(&String, &(usize, String))> = t.ignored.iter().collect();
                keys.sort_by(|a, b| b.1.0.cmp(&a.1.0).then(a.0.cmp(b.0)));
                let shown: Vec<String> = keys
                    .iter()
                    .map(|(k, (n, first))| format!("{k} ({n}, first at {first})"))
                    .collect();
                warnings.push(format!(
                    "kept out of the index (not paper fields; --strict makes them errors): {}",
                    shown.join(", ")
                ));
            }
            if !t.untitled.is_empty() {
                warnings.push(format!(
                    "skipped {} record(s) without a title (--strict makes them errors): {}",
                    t.untitled.len(),
                    first_few(&t.untitled)
                ));
            }
            if !t.repeats.is_empty() {
                warnings.push(format!(
                    "merged {} repeated listing(s) of a paper into its first (the same arXiv id or \
                     DOI, or the same title and no differing link or id; --strict makes them \
                     errors): {}",
                    t.repeats.len(),
                    first_few(&t.repeats)
                ));
            }
            if !t.clashes.is_empty() {
                warnings.push(format!(
                    "kept {} pair(s) of records that give one arXiv id or DOI under different \
                     names, as two papers; one link of each pair is probably wrong: {}",
                    t.clashes.len(),
                    first_few(&t.clashes)
                ));
            }
            if !t.off_vocabulary.is_empty() {
                let shown: Vec<String> = t
                    .off_vocabulary
                    .iter()
                    .map(|(k, n)| format!("{k:?} ({n})"))
                    .collect();
                warnings.push(format!(
                    "tags outside the controlled vocabulary kept as keywords (--strict makes \
                     them errors): {}",
                    shown.join(", ")
                ));
            }
        }
        (self.entries, self.problems, warnings)
    }
}

impl Import {
    /// Drop each record that repeats an earlier one: an awesome list files a paper under two
    /// sections (often once under its full title and once under its short name), an export
    /// holds it twice, two lists of one field share papers. Left in, the repeat is recommended
    /// as the paper's own best related work and takes a second place in every list it enters.
    ///
    /// A repeat shares a name (title or alias, as [`name_key`] compares names) with an earlier
    /// record and has no arXiv id, DOI or link that differs from that record's; or it has the
    /// arXiv id or DOI of an earlier record and a name in common with it, the short name before
    /// a title's colon included ([`names_agree`]). One identifier under unrelated names is a
    /// clash, not a repeat: both records stay, with a warning. The first listing is kept, plus
    /// the repeat's other names as aliases (every name the file used still finds the paper), its
    /// note and summary where they say something else, and its section in `also_topics`. Under
    /// `--strict` a repeat under another name is a problem (one under the same name already is:
    /// its title is ambiguous).
    fn merge_repeats(&mut self) {
        use std::collections::HashMap;
        let mut by_name: HashMap<String, usize> = HashMap::new();
        let mut by_identifier: HashMap<String, usize> = HashMap::new();
        let mut merged: HashSet<usize> = HashSet::new();
        for i in 0..self.entries.len() {
            let p = &self.entries[i].1;
            let keys = name_keys(p);
            let identifiers = identifiers(p);
            let same_identifier = identifiers
                .iter()
                .find_map(|k| by_identifier.get(k).map(|&j| (j, k.clone())));
            let same_name = keys.iter().find_map(|k| by_name.get(k).copied());
            let (j, shared) = match (same_identifier, same_name) {
                // The same name and no identifier that differs: the plainest repeat.
                (_, Some(j)) if same_paper(&self.entries[j].1, p) => (j, None),
                (Some((j, identifier)), _) if names_agree(&self.entries[j].1, p) => {
                    (j, Some(identifier))
                }
                (Some((j, identifier)), _) => {
                    // Two names with one identifier: one listing's link is likely wrong (a
                    // list's "ToRL" linking R1-Searcher's arXiv page). Merging would lose a
                    // paper; both stay, and the user hears of it.
                    let ((fi, li), (fj, lj)) = (&self.entries[i].0, &self.entries[j].0);
                    self.tally.clashes.push(format!(
                        "{:?} at {}:{li} and {:?} at {}:{lj} ({})",
                        p.title,
                        fi.display(),
                        self.entries[j].1.title,
                        fj.display(),
                        identifier.replace(':', " ")
                    ));
                    // A later listing under this record's own name repeats it, not the other.
                    for k in keys {
                        by_name.entry(k).or_insert(i);
                    }
                    continue;
                }
                (None, Some(_)) => continue,
                (None, None) => {
                    for k in keys {
                        by_name.entry(k).or_insert(i);
                    }
                    for k in identifiers {
                        by_identifier.entry(k).or_insert(i);
                    }
                    continue;
                }
            };
            let ((fi, li), (fj, lj)) = (&self.entries[i].0, &self.entries[j].0);
            let (title, first_title) = (&p.title, &self.entries[j].1.title);
            let how = match &shared {
                Some(identifier) if name_key(title) != name_key(first_title) => {
                    format!(
                        " as {first_title:?}, the same {}",
                        identifier.replace(':', " ")
                    )
                }
                _ => String::new(),
            };
            let note = format!(
                "{title:?} at {}:{li} (first at {}:{lj}{how})",
                fi.display(),
                fj.display()
            );
            if self.options.strict {
                if shared.is_some() && !how.is_empty() {
                    self.problems.push(Problem {
                        path: fi.clone(),
                        line: *li,
                        message: format!(
                            "repeats the paper at {}:{lj} ({first_title:?}, the same {}); \
                             keep one listing, or drop --strict to merge them",
                            fj.display(),
                            shared.as_deref().unwrap_or_default().replace(':', " ")
                        ),
                    });
                }
                continue;
            }
            merged.insert(i);
            self.tally.repeats.push(note);
            // The repeat's names join the kept record, so each still resolves to the paper.
            let known: HashSet<String> = name_keys(&self.entries[j].1).into_iter().collect();
            let mut extra: Vec<String> = Vec::new();
            for name in std::iter::once(&self.entries[i].1.title).chain(&self.entries[i].1.aliases)
            {
                let k = name_key(name);
                if !k.is_empty() && !known.contains(&k) && !extra.iter().any(|e| name_key(e) == k) {
                    extra.push(name.clone());
                }
            }
            for k in keys {
                by_name.entry(k).or_insert(j);
            }
            for k in identifiers {
                by_identifier.entry(k).or_insert(j);
            }
            self.entries[j].1.aliases.extend(extra);
            // Its note is kept too: two sections of a list say different things of one paper.
            let (highlight, summary) = {
                let r = &self.entries[i].1;
                (r.highlight.clone(), r.summary.clone())
            };
            let topics: Vec<String> = {
                let r = &self.entries[i].1;
                std::iter::once(&r.topic)
                    .chain(&r.also_topics)
                    .filter(|t| !t.trim().is_empty())
                    .cloned()
                    .collect()
            };
            let kept = &mut self.entries[j].1;
            append_new(&mut kept.highlight, &highlight);
            append_new(&mut kept.summary, &summary);
            for t in topics {
                if t != kept.topic && !kept.also_topics.contains(&t) {
                    kept.also_topics.push(t);
                }
            }
        }
        let keep: Vec<bool> = (0..self.entries.len())
            .map(|i| !merged.contains(&i))
            .collect();
        let mut k = keep.iter();
        self.entries
            .retain(|_| *k.next().expect("one flag per entry"));
        let mut k = keep.iter();
        self.derived
            .retain(|_| *k.next().expect("one flag per entry"));
    }
}

/// `text` after `into` (a space between), unless `into` already holds it or the field would
/// outgrow what a field may hold ([`fields::MAX_FIELD_BYTES`]: a paper listed a thousand
/// times must not make one text a thousand times that size; the first notes are kept).
fn append_new(into: &mut String, text: &str) {
    if text.is_empty()
        || into.contains(text)
        || into.len() + 1 + text.len() > fields::MAX_FIELD_BYTES
    {
        return;
    }
    if !into.is_empty() {
        into.push(' ');
    }
    into.push_str(text);
}

/// Whether two records with one identifier go by one name: a name of one (title or alias) is
/// a name of the other, or the short name before a title's colon is ("TTRL" and "TTRL:
/// Test-Time Reinforcement Learning").
fn names_agree(a: &Paper, b: &Paper) -> bool {
    let names = |p: &Paper| -> HashSet<String> {
        let mut out: HashSet<String> = name_keys(p).into_iter().collect();
        if let Some((short, _)) = p.title.split_once(':') {
            let k = name_key(short);
            if !k.is_empty() {
                out.insert(k);
            }
        }
        out
    };
    !names(a).is_disjoint(&names(b))
}

/// The keys a record's names are compared by: its title and aliases, as [`name_key`] gives them.
fn name_keys(p: &Paper) -> Vec<String> {
    std::iter::once(&p.title)
        .chain(&p.aliases)
        .map(|n| name_key(n))
        .filter(|k| !k.is_empty())
        .collect()
}

/// The identifiers that name one paper whatever its title: `arXiv:<id>` from the arXiv field or
/// an arXiv address, `DOI:<doi>` (lower case, as DOIs compare) from the DOI field or a doi.org
/// address.
fn identifiers(p: &Paper) -> Vec<String> {
    let places = || {
        [&p.arxiv, &p.doi, &p.url, &p.link]
            .into_iter()
            .flatten()
            .map(String::as_str)
    };
    let mut out: Vec<String> = places()
        .filter_map(fields::normalize_arxiv)
        .map(|id| format!("arXiv:{id}"))
        .chain(
            places()
                .filter_map(fields::normalize_doi)
                .map(|d| format!("DOI:{}", d.to_lowercase())),
        )
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The first ten `items` joined with commas, then how many more there are.
fn first_few(items: &[String]) -> String {
    const SHOWN: usize = 10;
    let mut shown: Vec<String> = items.iter().take(SHOWN).cloned().collect();
    if items.len() > SHOWN {
        shown.push(format!("and {} more", items.len() - SHOWN));
    }
    shown.join(", ")
}

/// Whether two records with the same title are one paper: no identifier both have differs (an
/// arXiv address is compared by its id, whatever the version or abs/pdf form).
fn same_paper(a: &Paper, b: &Paper) -> bool {
    let norm = |s: &str| {
        fields::normalize_arxiv(s).unwrap_or_else(|| s.trim().trim_end_matches('/').to_lowercase())
    };
    let agree = |x: &Option<String>, y: &Option<String>| match (x, y) {
        (Some(x), Some(y)) => norm(x) == norm(y),
        _ => true,
    };
    agree(&a.arxiv, &b.arxiv)
        && agree(&a.doi, &b.doi)
        && agree(&a.url, &b.url)
        && agree(&a.link, &b.link)
}

/// The JSON objects of a JSONL text, by line; blank lines skipped, a BOM and CRLF tolerated.
fn jsonl_records(text: &str) -> Vec<(usize, Result<Record, String>)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim().trim_start_matches('\u{feff}');
        if trimmed.is_empty() {
            continue;
        }
        let parsed = match serde_json::from_str::<serde_json::Value>(trimmed) {
            Ok(serde_json::Value::Object(map)) => Ok(map),
            Ok(other) => Err(format!(
                "expected a JSON object ({{\"title\": ...}}) per line, found {}",
                match other {
                    serde_json::Value::Array(_) => "a list",
                    serde_json::Value::String(_) => "a string",
                    serde_json::Value::Number(_) => "a number",
                    _ => "a bare value",
                }
            )),
            Err(e) => Err(describe_json_error(&e)),
        };
        out.push((i + 1, parsed));
    }
    out
}

/// A serde_json error as a message for a corpus line.
fn describe_json_error(e: &serde_json::Error) -> String {
    let msg = e.to_string();
    // serde_json appends " at line 1 column N": the line is ours, keep only the column.
    let msg = match msg.rfind(" at line ") {
        Some(at) => {
            let col = msg[at..].rsplit(' ').next().unwrap_or("");
            format!("{} (column {col})", &msg[..at])
        }
        None => msg,
    };
    if msg.contains("unknown variant") {
        format!("{msg}; kind must be one of: survey, method, system, benchmark, dataset, model")
    } else if e.is_syntax() || e.is_eof() {
        format!("malformed JSON: {msg}")
    } else {
        msg
    }
}
