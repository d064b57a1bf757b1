//! Reading lists in the formats researchers keep them in, read into one corpus.
//!
//! A corpus is one or more paths; a directory stands for its `.jsonl`, `.ndjson`, `.bib`,
//! `.ris`, `.csv` and `.tsv` files in name order (not its `.md` and `.json` files: directories
//! hold READMEs and notes; name such a list directly). Each file's format comes from its
//! extension or is forced ([`LoadOptions::format`]). Records of every format go through
//! [`fields::map_record`], so the same keys mean the same thing everywhere.
//!
//! Nothing is dropped without a word: keys kept out of the index, records skipped for want of a
//! title, tags moved to keywords and repeated listings of one paper merged into its first are
//! summed up in [`Import::finish`]'s warnings (one line each, naming the keys with their
//! counts); with [`LoadOptions::strict`] each is a problem at its `file:line`.
//!
//! Here: the options and the import that reads each file into records. Formats are in
//! `format`, JSON and JSONL in `json`, merging repeated listings in `merge`.

mod format;
mod json;
mod merge;

pub use format::Format;

use json::{json_records, jsonl_records};

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::bibtex;
use super::delimited;
use super::error::{CorpusError, Problem};
use super::fields::{self, Mapped, Origin, Outcome, Record};
use super::markdown;
use super::paper::Paper;
use super::ris;

/// How to read a corpus.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// Read every file in this format, whatever its extension.
    pub format: Option<Format>,
    /// Read the files of these corpus paths (a file, or a directory's files) in these formats,
    /// before [`LoadOptions::format`]: an index's corpus may hold files given with different
    /// `--corpus-format`s (`recommend add`).
    pub formats: Vec<(std::path::PathBuf, Format)>,
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
    /// Files whose `tags` hold words outside the curated vocabulary: a user's own tags.
    own_tag_files: BTreeSet<PathBuf>,
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
    /// What file readers left out (a Zotero database's items, a JSON file's second list), one
    /// line each.
    reader_notes: Vec<String>,
    /// Lines of facets files, applied to the papers once all files are read.
    facets: Vec<super::facets::FacetLine>,
    /// Entries of an Atom/RSS file that cannot be read are left out with a warning, not
    /// problems ([`Import::skipping`]).
    skip_unreadable: bool,
    /// Publication dates finer than a year, by the record's file and line ([`Mapped::date`]).
    dates: HashMap<(PathBuf, usize), String>,
}

impl Import {
    pub fn new(options: LoadOptions) -> Import {
        Import {
            options,
            entries: Vec::new(),
            derived: Vec::new(),
            problems: Vec::new(),
            tally: Tally::default(),
            reader_notes: Vec::new(),
            facets: Vec::new(),
            skip_unreadable: false,
            dates: HashMap::new(),
        }
    }

    /// An import for a feed's candidates: an entry of a saved arXiv feed that cannot be read
    /// (no title, a field past its limit) is left out with a warning at its line, as arXiv's
    /// own answers are, instead of refusing the file.
    pub fn skipping(options: LoadOptions) -> Import {
        Import {
            skip_unreadable: true,
            ..Import::new(options)
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
            self.reader_notes.push(format!(
                "{}: {skipped} Zotero item(s) are not papers and were left out ({})",
                file.display(),
                library.skipped
            ));
        }
        self.reader_notes.extend(library.warnings);
        Ok(())
    }

    /// Read one file's text, in the format [`LoadOptions::format`] forces, else its
    /// extension's.
    pub fn add_file(&mut self, file: &Path, text: &str) -> Result<(), CorpusError> {
        self.add_file_as(file, text, self.options.format)
    }

    /// Read one file's text in `forced` format, else its extension's.
    pub fn add_file_as(
        &mut self,
        file: &Path,
        text: &str,
        forced: Option<Format>,
    ) -> Result<(), CorpusError> {
        // A facets file is a facets file whatever format the other files are forced to.
        let facets = Format::of_path(file).filter(|f| *f == Format::Facets);
        let format = facets
            .or(forced)
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
            Format::Jsonl | Format::Json => {
                let records = if format == Format::Json {
                    let (records, unread) = json_records(text);
                    if let Some(unread) = unread {
                        self.reader_notes
                            .push(format!("{}: {unread}", file.display()));
                    }
                    records
                } else {
                    jsonl_records(text)
                };
                for (line, parsed) in records {
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
            Format::Ris => {
                let (entries, problems) = ris::parse(text);
                for (line, message) in problems {
                    self.problems.push(at(line, None).problem(message));
                }
                for e in entries {
                    self.add_record(at(e.line, None), &e.record, Origin::Text);
                }
            }
            Format::Csv | Format::Tsv => {
                let delimiter = if format == Format::Tsv {
                    b'\t'
                } else {
                    delimited::sniff(text)
                };
                let (rows, problems) = delimited::parse(text, delimiter);
                for (line, message) in problems {
                    self.problems.push(at(line, None).problem(message));
                }
                for row in rows {
                    self.add_record(at(row.line, None), &row.record, Origin::Text);
                }
            }
            Format::Feed => match if self.skip_unreadable {
                super::arxiv::parse_fetched(text)
            } else {
                super::arxiv::parse(text)
            } {
                Ok(mut feed) => {
                    for e in &feed.skipped {
                        self.reader_notes
                            .push(format!("{}: left out: {e}", file.display()));
                    }
                    let repeats;
                    (feed.entries, repeats) = super::arxiv::one_per_id(feed.entries);
                    for (title, line, first) in repeats {
                        self.tally.repeats.push(format!(
                            "{title:?} at {}:{line} (first at {}:{first})",
                            file.display(),
                            file.display()
                        ));
                    }
                    for e in &feed.entries {
                        let line = e.line as usize;
                        self.add_record(
                            at(line, Some(e.arxiv.clone())),
                            &e.to_record(),
                            Origin::Json,
                        );
                    }
                }
                Err(e) => {
                    let line = e.line().unwrap_or(1) as usize;
                    self.problems.push(at(line, None).problem(e.to_string()))
                }
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
                for (line, mut p) in parsed.papers {
                    // As for every other format: an arxiv.org link is the paper's arXiv id.
                    fields::arxiv_from_address(&mut p);
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
                    date,
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
                    self.tally.own_tag_files.insert(at.file.clone());
                }
                for m in fields::text_problems(&paper) {
                    self.problems.push(at.problem(m));
                }
                if let Some(d) = date {
                    self.dates.insert((at.file.clone(), at.line), d);
                }
                self.entries.push(((at.file, at.line), paper));
                self.derived.push(derived_id);
            }
        }
    }

    /// The publication dates finer than a year read so far, by file and line (what
    /// [`Import::finish`] does not return).
    pub fn take_dates(&mut self) -> HashMap<(PathBuf, usize), String> {
        std::mem::take(&mut self.dates)
    }

    /// The entries (derived ids made unique: `-2`, `-3`, ... in file order), the problems, and
    /// one summary warning per kind of thing left out, and how many repeated listings were
    /// merged into an earlier one.
    #[allow(clippy::type_complexity)]
    pub fn finish(
        mut self,
    ) -> (
        Vec<((PathBuf, usize), Paper)>,
        Vec<Problem>,
        Vec<String>,
        usize,
    ) {
        if !self.options.strict {
            self.own_tags_as_keywords();
        }
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
        let mut warnings = std::mem::take(&mut self.reader_notes);
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
                     DOI, or the same title and no differing link, arXiv id or DOI; a repeat's \
                     own id still finds the paper; --strict makes them errors): {}",
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
                let mut tags: Vec<(&String, &usize)> = t.off_vocabulary.iter().collect();
                tags.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
                let shown: Vec<String> = tags.iter().map(|(k, n)| format!("{k:?} ({n})")).collect();
                let files: Vec<String> = t
                    .own_tag_files
                    .iter()
                    .map(|f| f.display().to_string())
                    .collect();
                warnings.push(format!(
                    "{}: `tags` read as the list's own keywords, all of them ({} tag(s) are not \
                     in the curated vocabulary; --strict makes them errors): {}",
                    files.join(", "),
                    shown.len(),
                    first_few(&shown)
                ));
            }
        }
        let merged = self.tally.repeats.len();
        (self.entries, self.problems, warnings, merged)
    }
}

impl Import {
    /// A file whose `tags` hold words outside the curated vocabulary carries a user's own
    /// tags: every one of its tags becomes a keyword, those that happen to be curated words
    /// too. Else a few shared words (`memory`, `reasoning`) would mark the list as curated,
    /// switch its own tags and reciprocal neighbours off and read GPU memory as agent memory.
    fn own_tags_as_keywords(&mut self) {
        let files = &self.tally.own_tag_files;
        for ((file, _), p) in &mut self.entries {
            if files.contains(file) {
                for t in std::mem::take(&mut p.tags) {
                    if !p.keywords.contains(&t) {
                        p.keywords.push(t);
                    }
                }
            }
        }
    }
}

/// The first ten `items` joined with commas, then how many more there are.
pub(super) fn first_few(items: &[String]) -> String {
    const SHOWN: usize = 10;
    let mut shown: Vec<String> = items.iter().take(SHOWN).cloned().collect();
    if items.len() > SHOWN {
        shown.push(format!("and {} more", items.len() - SHOWN));
    }
    shown.join(", ")
}
