//! Loading and validating corpora: the JSONL record format and awesome-list Markdown.
//!
//! Every problem names the file and line it comes from, and all of them are reported at once:
//! a corpus is either loaded whole or not at all, nothing is silently dropped.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub use super::error::{CorpusError, Problem};
use super::fields::id_problem;
use super::files::corpus_files;
use super::import::{Format, Import, LoadOptions};
use super::paper::{Paper, is_arxiv_id, is_http_url, tag_vocabulary};
use crate::text::name_key;

/// A loaded corpus: the papers, in file order, and where each came from.
#[derive(Debug, Clone)]
pub struct Corpus {
    pub papers: Vec<Paper>,
    /// `origins[i]` is the file and line paper `i` was read from.
    pub origins: Vec<(PathBuf, usize)>,
    /// What was left out (unknown keys, untitled records, ...), one summary line each; empty
    /// under [`LoadOptions::strict`], where they are problems instead.
    pub warnings: Vec<String>,
    /// What the corpus paths hold and the load did not read (a directory's other files and
    /// subfolders), one line a directory: nothing wrong with the papers, but worth knowing.
    pub notes: Vec<String>,
    /// Repeated listings of a paper merged into its first (each named in a warning).
    pub merged: usize,
    /// Publication dates finer than a year (`YYYY-MM-DD` or `YYYY-MM`), by a paper's origin,
    /// where its record gave one (a `date`, `published` or `issued` column): a paper keeps
    /// only its year, and a feed's `--since` reads these.
    pub dates: HashMap<(PathBuf, usize), String>,
}

impl Corpus {
    /// Load a corpus from a file (`.jsonl`, `.json`, `.bib`, `.ris`, `.csv`, `.tsv`, `.md`) or a
    /// directory of such files (see [`super::import`]), with the default options.
    pub fn load(path: &Path) -> Result<Corpus, CorpusError> {
        Corpus::load_with(&[path.to_path_buf()], &LoadOptions::default())
    }

    /// Load a corpus from several paths, each a file or a directory, in the given order.
    pub fn load_with(paths: &[PathBuf], options: &LoadOptions) -> Result<Corpus, CorpusError> {
        Corpus::load_inner(paths, options, false)
    }

    /// [`Corpus::load_with`] for a feed's candidates: a record with a problem (no title, a
    /// malformed link, a title naming two papers) is left out with one warning naming each at
    /// its `file:line`, instead of refusing the whole list, so that one odd entry of a day's
    /// listing does not stop the feed. When nothing is left, the problems are the error.
    pub fn load_skipping(paths: &[PathBuf], options: &LoadOptions) -> Result<Corpus, CorpusError> {
        Corpus::load_inner(paths, options, true)
    }

    fn load_inner(
        paths: &[PathBuf],
        options: &LoadOptions,
        skip: bool,
    ) -> Result<Corpus, CorpusError> {
        // Each file with the format forced on the path it came from, if any.
        let mut files: Vec<(PathBuf, Option<Format>)> = Vec::new();
        for path in paths {
            let forced = options
                .formats
                .iter()
                .find(|(p, _)| p == path)
                .map(|(_, f)| *f)
                .or(options.format);
            files.extend(corpus_files(path)?.into_iter().map(|f| (f, forced)));
        }
        // A SQLite file of another name is a Zotero database too (its backup,
        // `zotero.sqlite.bak`, is what a damaged library is rebuilt from).
        let zotero = |(f, forced): &(PathBuf, Option<Format>)| {
            forced.or_else(|| Format::of_path(f)) == Some(Format::Zotero)
                || (forced.is_none() && super::zotero::is_database(f))
        };
        if let Some(name) = &options.collection
            && !files.iter().any(zotero)
        {
            return Err(CorpusError::Source {
                message: format!(
                    "--collection {name:?} narrows a Zotero database, and the corpus holds none: \
                     give its zotero.sqlite (--zotero PATH)"
                ),
                input: true,
            });
        }
        let mut import = if skip {
            Import::skipping(options.clone())
        } else {
            Import::new(options.clone())
        };
        let mut encoding = Vec::new();
        for entry in &files {
            let (file, forced) = entry;
            if zotero(entry) {
                import.add_zotero(file)?;
                continue;
            }
            let bytes = crate::safe_fs::read_regular(file, crate::safe_fs::MAX_CORPUS_FILE)
                .map_err(|error| CorpusError::Io {
                    path: file.clone(),
                    error,
                })?;
            let (text, mut bad) = decode_lines(file, &bytes);
            encoding.append(&mut bad);
            import.add_file_as(file, &text, *forced)?;
        }
        let dates = import.take_dates();
        let (mut entries, mut problems, mut warnings, merged) = import.finish();
        // What a directory holds and does not read is named, so that no list is left out
        // unseen (a `.json` list, a subfolder).
        let mut notes = Vec::new();
        for path in paths {
            let unread = super::files::unread_in(path);
            if !unread.is_empty() {
                const SHOWN: usize = 8;
                let more = unread.len().saturating_sub(SHOWN);
                notes.push(format!(
                    "{}: not read: {}{} (a directory reads its .jsonl, .ndjson, .bib, .ris, .csv, \
                     .tsv, .atom, .rss and .facets files, and .xml files that are Atom or RSS; give \
                     another file by its own path)",
                    path.display(),
                    unread[..unread.len().min(SHOWN)].join(", "),
                    if more > 0 {
                        format!(" and {more} more")
                    } else {
                        String::new()
                    }
                ));
            }
        }
        problems.append(&mut encoding);
        problems.extend(validate(&entries));
        // In reading order: file by file, line by line.
        let order = |p: &Problem| (files.iter().position(|(f, _)| *f == p.path), p.line);
        problems.sort_by_key(order);
        if skip && !problems.is_empty() {
            let mut skipped = Vec::new();
            // Leaving a record out can settle another's problem (two titles alike): again
            // until nothing more is left out.
            loop {
                let bad: std::collections::HashSet<(&Path, usize)> = problems
                    .iter()
                    .map(|p| (p.path.as_path(), p.line))
                    .collect();
                let before = entries.len();
                entries.retain(|((f, l), _)| !bad.contains(&(f.as_path(), *l)));
                skipped.append(&mut problems);
                problems = validate(&entries);
                if problems.is_empty() || entries.len() == before {
                    break;
                }
            }
            skipped.append(&mut problems);
            skipped.sort_by_key(order);
            if entries.is_empty() {
                return Err(CorpusError::Invalid { problems: skipped });
            }
            let shown: Vec<String> = skipped.iter().map(ToString::to_string).collect();
            warnings.push(format!(
                "left out {} record(s) with a problem (the rest is read): {}",
                shown.len(),
                super::import::first_few(&shown)
            ));
        }
        if !problems.is_empty() {
            return Err(CorpusError::Invalid { problems });
        }
        if entries.is_empty() {
            return Err(CorpusError::Empty {
                path: paths.first().cloned().unwrap_or_default(),
                expected: "at least one record with a title",
                why: warnings,
            });
        }
        // A paper whose code is released is open source, marked so or not: `--open-source`
        // means "with released code" (corpus/README.md), and 44 of the shipped list's 57
        // papers with a `code` address carried no marker.
        for (_, p) in &mut entries {
            p.open_source |= p.code.is_some();
        }
        let (origins, papers) = entries.into_iter().unzip();
        Ok(Corpus {
            papers,
            origins,
            warnings,
            notes,
            merged,
            dates,
        })
    }
}

/// The papers of one file with their line numbers, and its problems.
pub type Parsed = (Vec<(usize, Paper)>, Vec<Problem>);

/// Parse the bytes of one corpus file (the format follows its extension). Lines that are not
/// UTF-8 are reported, each once with its line number, and skipped, so the other lines are
/// still checked and every problem is reported at once.
pub fn parse_file(file: &Path, bytes: &[u8]) -> Result<Parsed, CorpusError> {
    let (text, mut problems) = decode_lines(file, bytes);
    let mut import = Import::new(LoadOptions::default());
    import.add_file(file, &text)?;
    let (entries, mut more, _, _) = import.finish();
    problems.append(&mut more);
    problems.sort_by_key(|p| p.line);
    let papers = entries
        .into_iter()
        .map(|((_, line), p)| (line, p))
        .collect();
    Ok((papers, problems))
}

/// `bytes` as text, with every line that is not valid UTF-8 replaced by an empty line (so line
/// numbers stay right) and reported as a problem. A file that starts with a UTF-16 byte order
/// mark (Excel's "Unicode text", some Windows exports) is decoded from UTF-16 first.
fn decode_lines(file: &Path, bytes: &[u8]) -> (String, Vec<Problem>) {
    if let Some((text, broken)) = utf16(bytes) {
        let problems = broken.map(|message| Problem {
            path: file.to_path_buf(),
            line: 1,
            message: format!(
                "{message}; convert the file with `iconv -f UTF-16 -t UTF-8 FILE > FILE.utf8` \
                 or save it as UTF-8"
            ),
        });
        return (text, problems.into_iter().collect());
    }
    if let Ok(text) = std::str::from_utf8(bytes) {
        return (text.to_string(), Vec::new());
    }
    let mut text = String::with_capacity(bytes.len());
    let mut problems = Vec::new();
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if i > 0 {
            text.push('\n');
        }
        match std::str::from_utf8(line) {
            Ok(l) => text.push_str(l),
            Err(e) => problems.push(Problem {
                path: file.to_path_buf(),
                line: i + 1,
                message: format!(
                    "not valid UTF-8 (byte {} of the line); save the file as UTF-8",
                    e.valid_up_to() + 1
                ),
            }),
        }
    }
    (text, problems)
}

/// The text of bytes that start with a UTF-16 byte order mark (little- or big-endian), or that
/// read as UTF-16 without one ([`unmarked_utf16`]), without the mark, and what is wrong when
/// the rest is not UTF-16 (the text then holds U+FFFD where it breaks); `None` otherwise.
fn utf16(bytes: &[u8]) -> Option<(String, Option<String>)> {
    let (little, start) = match bytes {
        [0xFF, 0xFE, ..] => (true, 2),
        [0xFE, 0xFF, ..] => (false, 2),
        _ => (unmarked_utf16(bytes)?, 0),
    };
    let pairs = bytes[start..].chunks_exact(2);
    let odd = !pairs.remainder().is_empty();
    let units: Vec<u16> = pairs
        .map(|p| {
            let pair = [p[0], p[1]];
            if little {
                u16::from_le_bytes(pair)
            } else {
                u16::from_be_bytes(pair)
            }
        })
        .collect();
    Some(match String::from_utf16(&units) {
        Ok(text) if !odd => (text, None),
        Ok(text) => (
            text,
            Some("starts as UTF-16 but has an odd number of bytes (cut short?)".into()),
        ),
        Err(_) => (
            String::from_utf16_lossy(&units),
            Some("starts as UTF-16 but holds a broken character (an unpaired surrogate)".into()),
        ),
    })
}

/// Whether bytes without a byte order mark are UTF-16 text (`Some(true)`: little-endian): of
/// their first 256 two-byte units none is zero whole, four in ten or more hold a zero byte on
/// one side (the high byte of ASCII and Latin-1) and at most one in ten on the other. UTF-8
/// text holds no zero byte, so it never reads as UTF-16.
fn unmarked_utf16(bytes: &[u8]) -> Option<bool> {
    let units: Vec<&[u8]> = bytes.chunks_exact(2).take(256).collect();
    if units.len() < 2 || units.iter().any(|u| u[0] == 0 && u[1] == 0) {
        return None;
    }
    let zeros = |side: usize| units.iter().filter(|u| u[side] == 0).count() * 10;
    let (high_le, high_be) = (zeros(1), zeros(0));
    let n = units.len();
    if high_le >= 4 * n && high_be <= n {
        Some(true)
    } else if high_be >= 4 * n && high_le <= n {
        Some(false)
    } else {
        None
    }
}

/// Checks across records: ids well-formed and unique, titles present, names unambiguous.
pub fn validate(entries: &[((PathBuf, usize), Paper)]) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut ids: HashMap<&str, usize> = HashMap::new();
    // name key -> (entry index, what it is), for titles, ids and aliases
    let mut names: HashMap<String, (usize, String)> = HashMap::new();
    for (i, ((path, line), p)) in entries.iter().enumerate() {
        let mut problem = |message: String| {
            problems.push(Problem {
                path: path.clone(),
                line: *line,
                message,
            })
        };
        // A record's own problems first: a record that has any is left out (a feed ranks the
        // rest), so its id and names do not make a later record a duplicate or ambiguous.
        let mut own_problems: Vec<String> = id_problem(&p.id).into_iter().collect();
        if p.title.trim().is_empty() {
            own_problems.push(format!("paper {:?} has an empty title", p.id));
        }
        own_problems.extend(field_problems(p));
        if p.aliases.iter().any(|a| name_key(a).is_empty()) {
            own_problems.push(format!("paper {:?} has an empty alias", p.id));
        }
        if !own_problems.is_empty() {
            own_problems.into_iter().for_each(&mut problem);
            continue;
        }
        if let Some(&first) = ids.get(p.id.as_str()) {
            let (fp, fl) = &entries[first].0;
            problem(format!(
                "duplicate id {:?} (first used at {}:{})",
                p.id,
                fp.display(),
                fl
            ));
        } else {
            ids.insert(&p.id, i);
        }
        // A title or alias may repeat within its own paper, never across papers.
        let mut own: Vec<(String, String)> =
            vec![(name_key(&p.title), format!("title {:?}", p.title))];
        own.extend(
            p.aliases
                .iter()
                .map(|a| (name_key(a), format!("alias {a:?}"))),
        );
        own.sort();
        own.dedup_by(|a, b| a.0 == b.0);
        for (key, what) in own {
            if key.is_empty() {
                continue;
            }
            match names.get(&key) {
                Some((other, other_what)) if *other != i => {
                    let ((op, ol), o) = &entries[*other];
                    problem(format!(
                        "{what} of {:?} is ambiguous: it is also the {other_what} of {:?} ({}:{})",
                        p.id,
                        o.id,
                        op.display(),
                        ol
                    ));
                }
                Some(_) => {}
                None => {
                    names.insert(key, (i, what));
                }
            }
        }
    }
    problems.extend(builds_on_problems(entries, &ids));
    problems
}

/// Shape of the curated fields of one record: arXiv id, year, links, tags.
fn field_problems(p: &Paper) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(a) = &p.arxiv
        && !is_arxiv_id(a)
    {
        out.push(format!(
            "paper {:?}: arxiv {a:?} is not an arXiv id like \"2505.16421\" (no version, no \"arXiv:\")",
            p.id
        ));
    }
    if let Some(y) = p.year
        && !(1900..=2100).contains(&y)
    {
        out.push(format!("paper {:?}: year {y} is out of range", p.id));
    }
    for (key, value) in [("url", &p.url), ("code", &p.code)] {
        if let Some(v) = value
            && !is_http_url(v)
        {
            out.push(format!(
                "paper {:?}: {key} {v:?} must be an http(s) address",
                p.id
            ));
        }
    }
    for t in &p.tags {
        if !tag_vocabulary().any(|v| v == t) {
            out.push(format!(
                "paper {:?}: unknown tag {t:?} (the vocabulary is in corpus/README.md)",
                p.id
            ));
        }
    }
    out
}

/// `builds_on` names existing ids, never the paper itself, and never closes a cycle.
fn builds_on_problems(
    entries: &[((PathBuf, usize), Paper)],
    ids: &HashMap<&str, usize>,
) -> Vec<Problem> {
    let mut problems = Vec::new();
    let at = |i: usize, message: String| Problem {
        path: entries[i].0.0.clone(),
        line: entries[i].0.1,
        message,
    };
    let mut edges: Vec<Vec<usize>> = vec![Vec::new(); entries.len()];
    for (i, (_, p)) in entries.iter().enumerate() {
        for b in &p.builds_on {
            match ids.get(b.as_str()) {
                Some(&j) if j == i => {
                    problems.push(at(i, format!("paper {:?} builds_on itself", p.id)))
                }
                Some(&j) => edges[i].push(j),
                None => problems.push(at(
                    i,
                    format!("paper {:?}: builds_on names unknown id {b:?}", p.id),
                )),
            }
        }
    }
    // Iterative depth-first search; a back edge closes a cycle, reported once at its source.
    let mut state = vec![0u8; entries.len()]; // 0 new, 1 on the stack, 2 done
    for start in 0..entries.len() {
        if state[start] != 0 {
            continue;
        }
        let mut stack = vec![(start, 0usize)];
        state[start] = 1;
        while let Some((node, next)) = stack.pop() {
            if let Some(&to) = edges[node].get(next) {
                stack.push((node, next + 1));
                match state[to] {
                    0 => {
                        state[to] = 1;
                        stack.push((to, 0));
                    }
                    1 => problems.push(at(
                        node,
                        format!(
                            "paper {:?}: builds_on {:?} closes a cycle",
                            entries[node].1.id, entries[to].1.id
                        ),
                    )),
                    _ => {}
                }
            } else {
                state[node] = 2;
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record left out for its own problem does not make a later record of the same title
    /// ambiguous: the feed then ranked neither (a probe's Atom entry with a `javascript:` link).
    #[test]
    fn a_record_left_out_names_nothing_for_the_others() {
        let paper = |id: &str, url: &str| Paper {
            id: id.into(),
            title: "Same Title Of Two Entries".into(),
            url: Some(url.into()),
            ..Paper::default()
        };
        let at = |line| (PathBuf::from("new.atom"), line);
        let entries = vec![
            (at(3), paper("2501.00001", "javascript:alert(1)")),
            (
                at(9),
                paper("2501.00002", "https://arxiv.org/abs/2501.00002"),
            ),
        ];
        let problems = validate(&entries);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].line, 3);
        assert!(
            problems[0].message.contains("http(s) address"),
            "{problems:?}"
        );
        // Two sound records of one title are still ambiguous.
        let entries = vec![
            (
                at(3),
                paper("2501.00001", "https://arxiv.org/abs/2501.00001"),
            ),
            (
                at(9),
                paper("2501.00002", "https://arxiv.org/abs/2501.00002"),
            ),
        ];
        let problems = validate(&entries);
        assert!(
            problems
                .iter()
                .any(|p| p.line == 9 && p.message.contains("ambiguous"))
        );
    }
}
