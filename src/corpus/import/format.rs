//! Which format a file is in (its extension, or what a directory stands for). Apart from the
//! import so that adding a format starts here.

use std::path::Path;

/// A corpus file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One JSON object per line (the record format, arXiv metadata snapshots).
    Jsonl,
    /// A `.json` file: a list of records (`[{...}, ...]`, or an object whose `papers` or
    /// `items` is one), or JSONL.
    Json,
    /// RIS (`TY  - ` ... `ER  - `), see [`super::super::ris`].
    Ris,
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
            "jsonl" | "ndjson" => Format::Jsonl,
            "json" => Format::Json,
            "ris" => Format::Ris,
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
    /// but `.md` (an awesome-list is named alone) and `.json`, since corpus directories hold
    /// provenance notes and READMEs in `.json` and `.md`.
    pub fn in_directory(path: &Path) -> bool {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        matches!(
            ext.as_deref(),
            Some("jsonl" | "ndjson" | "bib" | "ris" | "csv" | "tsv" | "facets" | "atom" | "rss")
        )
    }
}
