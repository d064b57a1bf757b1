//! What can be wrong with a corpus: a located [`Problem`], and the [`CorpusError`] of a load.
//! Shared by the loader and every importer, so they need not know each other.

use std::fmt;
use std::path::PathBuf;

/// One thing wrong with a corpus file, located by file and line.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    pub path: PathBuf,
    pub line: usize,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.path.display(), self.line, self.message)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    // The OS error is part of the message, not a `source`: `{:#}` would print it twice.
    #[error("cannot read {}: {error}", path.display())]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{} problem(s) in the corpus; fix them and run again:\n{}", problems.len(), list(problems))]
    Invalid { problems: Vec<Problem> },
    #[error("{}: no papers found (expected {}){}", path.display(), expected, left_out(why))]
    Empty {
        path: PathBuf,
        expected: &'static str,
        /// What was left out on the way, when something was (an entry whose title is too long
        /// for a field): the reason a file of one such entry holds no paper.
        why: Vec<String>,
    },
    #[error(
        "{}: unknown corpus format; use .jsonl or .ndjson (one JSON object per line), .json (a \
         list of them), .bib (BibTeX), .ris (RIS), .csv or .tsv (with a header row), .md (an \
         awesome-list), .atom, .rss or .xml (an arXiv feed), .facets (tags for ids), \
         zotero.sqlite, or a directory of such files; --corpus-format says the format of a file \
         with another extension",
        path.display()
    )]
    UnknownFormat { path: PathBuf },
    /// A Zotero database or an arXiv feed that cannot be read as a whole (`input`: the file
    /// is at fault, exit 2; else the machine, exit 1).
    #[error("{message}")]
    Source { message: String, input: bool },
}

impl CorpusError {
    /// A problem of the corpus itself (invalid, empty, unknown format, or a path that names
    /// nothing: what the user typed, as `recommend add` and `--like-file` treat it) rather than
    /// of reading it (permissions, a failing disk).
    pub fn is_input(&self) -> bool {
        match self {
            // A path that names nothing, a FIFO or device, or a file past the size limit is
            // what the user gave, as for `--like-file`; a failing read is the machine's.
            CorpusError::Io { error, .. } => matches!(
                error.kind(),
                std::io::ErrorKind::NotFound
                    | std::io::ErrorKind::InvalidInput
                    | std::io::ErrorKind::FileTooLarge
            ),
            CorpusError::Source { input, .. } => *input,
            _ => true,
        }
    }
}

fn list(problems: &[Problem]) -> String {
    const SHOWN: usize = 25;
    let mut s: Vec<String> = problems
        .iter()
        .take(SHOWN)
        .map(|p| format!("  {p}"))
        .collect();
    if problems.len() > SHOWN {
        s.push(format!("  ... and {} more", problems.len() - SHOWN));
    }
    s.join("\n")
}

/// The warnings that explain an empty corpus, after a colon; nothing without them.
fn left_out(why: &[String]) -> String {
    if why.is_empty() {
        String::new()
    } else {
        format!("; {}", why.join("; "))
    }
}
