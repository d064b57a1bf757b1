//! Which format a file is in (its extension, or what a directory stands for), and reading the
//! one format that needs no parser module of its own: JSONL, one object per line. Apart from the
//! import so that adding a format starts here.

use std::path::Path;

use super::super::fields::Record;

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
    /// A facets side file (`id<TAB>tag;tag`, [`super::super::facets`]): tags for the other
    /// files' papers.
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

    /// Whether a directory's file with this name belongs to the corpus: papers in every format
    /// but `.md` (an awesome-list is named alone), since corpus directories hold provenance
    /// notes and READMEs in `.json` and `.md`.
    pub fn in_directory(path: &Path) -> bool {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        matches!(
            ext.as_deref(),
            Some("jsonl" | "ndjson" | "bib" | "csv" | "tsv" | "facets" | "atom" | "rss")
        )
    }
}

/// The JSON objects of a JSONL text, by line; blank lines skipped, a BOM and CRLF tolerated.
pub(super) fn jsonl_records(text: &str) -> Vec<(usize, Result<Record, String>)> {
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
