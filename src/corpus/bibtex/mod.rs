//! BibTeX and BibLaTeX files (Zotero, Mendeley, JabRef, Google Scholar exports) as records.
//!
//! Parsing is the `biblatex` crate's: field values come back with LaTeX accents, escapes and
//! braces decoded (`M{\"u}ller` -> `Müller`, `{BERT}` -> `BERT`); names are split into given
//! and family names. What the crate leaves (formatting commands like `\emph{...}`) is reduced to
//! its text here.
//!
//! The crate stops at the first error of a file. To report every broken entry at once, the file
//! is cut into entries at each line that opens one (`@article{`, `@misc(`...), and each entry is
//! parsed on its own with the file's `@string` abbreviations: an unbalanced brace costs one
//! entry, reported with its line and key, not the rest of the file. (`crossref` parents are
//! therefore not merged into their children; the child keeps its own fields.)
//!
//! Here: the entries, the parse and each entry's record. Cutting the file into entries is in
//! `chunks`, `@string` expansion and resolving in `strings`.

mod chunks;
mod math;
mod strings;

pub use chunks::MAX_BRACE_DEPTH;
pub use strings::{MAX_STRING_DEPTH, MAX_STRING_PIECES};

use chunks::{chunks, key_guess, parse_error, too_deep, trailing_text};
use strings::{Strings, resolve};

use biblatex::{Chunk, ChunksExt, RawBibliography, Spanned};
use serde_json::Value;

use super::fields::{Record, normalize_arxiv};

/// One entry of a file: where it starts, its citation key, its fields.
#[derive(Debug)]
pub struct Entry {
    pub line: usize,
    pub key: String,
    pub record: Record,
    /// Fields left out because they use an undefined `@string` abbreviation, as
    /// `"journal (undefined @string jmlr)"`.
    pub dropped: Vec<String>,
}

/// A problem at a line, with the entry key when known.
#[derive(Debug)]
pub struct BibProblem {
    pub line: usize,
    pub key: Option<String>,
    pub message: String,
}

/// What biblatex leaves of LaTeX: `\emph{x}` -> `x`, `\em x` -> `x`, stray braces dropped,
/// whitespace collapsed. Math is read by [`field_text`] before this.
pub fn clean_latex(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let mut name = String::new();
                while let Some(&n) = chars.peek() {
                    if n.is_ascii_alphabetic() {
                        name.push(n);
                        chars.next();
                    } else {
                        break;
                    }
                }
                if name.is_empty() {
                    // An escaped symbol biblatex left: keep the symbol.
                    if let Some(n) = chars.next() {
                        out.push(n);
                    }
                } else if let Some(symbol) = math::symbol(&name) {
                    // A symbol written outside math (`\ldots`, `{\alpha}`) reads as itself.
                    out.push_str(symbol);
                } else if matches!(chars.peek(), Some(' ')) {
                    chars.next();
                }
            }
            '{' | '}' => {}
            c => out.push(c),
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Fields whose values are addresses or identifiers: never reduced as LaTeX text.
const VERBATIM: &[&str] = &["url", "doi", "eprint", "file", "pdf", "isbn", "issn"];

/// Parse a BibTeX/BibLaTeX file. Never panics: a parser failure on an entry is that entry's
/// problem.
pub fn parse(text: &str) -> (Vec<Entry>, Vec<BibProblem>) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let chunks = chunks(text);
    let mut problems = Vec::new();
    // Abbreviations from every @string block, in file order (BibTeX reads them so too).
    let mut abbreviations = Vec::new();
    let mut raw_entries = Vec::new();
    for chunk in &chunks {
        match chunk.kind.as_str() {
            "comment" | "preamble" => continue,
            _ => {}
        }
        if let Some(depth) = too_deep(chunk.text) {
            problems.push(BibProblem {
                line: chunk.line,
                key: key_guess(chunk.text),
                message: format!(
                    "braces nested {depth} deep, more than the {MAX_BRACE_DEPTH} an entry may \
                     nest (the entry was not read)"
                ),
            });
            continue;
        }
        let parsed = std::panic::catch_unwind(|| RawBibliography::parse(chunk.text));
        match parsed {
            Ok(Ok(raw)) => {
                let end = raw
                    .entries
                    .iter()
                    .map(|e| e.span.end)
                    .chain(raw.abbreviations.iter().map(|a| a.value.span.end))
                    .max()
                    .unwrap_or(0);
                if let Some(p) = trailing_text(chunk, end) {
                    problems.push(p);
                    continue;
                }
                if chunk.kind == "string" {
                    abbreviations.extend(raw.abbreviations.into_iter().map(|a| (chunk.line, a)));
                } else {
                    for e in raw.entries {
                        raw_entries.push((chunk, e.v));
                    }
                }
            }
            Ok(Err(e)) => problems.push(parse_error(chunk, e.span.start, &e.kind)),
            Err(_) => problems.push(BibProblem {
                line: chunk.line,
                key: key_guess(chunk.text),
                message: "the BibTeX parser failed on this entry (it was not read)".into(),
            }),
        }
    }
    let strings = Strings::expand(&abbreviations);
    let mut entries = Vec::new();
    for (chunk, mut raw) in raw_entries {
        let key = raw.key.v.to_string();
        let used = match strings.used_by(&raw) {
            Ok(used) => used,
            Err(message) => {
                problems.push(BibProblem {
                    line: chunk.line,
                    key: Some(key),
                    message,
                });
                continue;
            }
        };
        // Each entry is resolved alone, so a parent is never there to merge; and the parser
        // follows a `crossref`/`xdata` naming the entry itself until its stack overflows.
        raw.fields
            .retain(|f| !matches!(f.key.v.to_ascii_lowercase().as_str(), "crossref" | "xdata"));
        let (resolved, dropped) = resolve(&mut raw, &used);
        match resolved {
            Ok(bib) => {
                for e in bib.iter() {
                    entries.push(Entry {
                        line: chunk.line,
                        key: key.clone(),
                        record: record_of(e),
                        dropped: dropped.clone(),
                    });
                }
            }
            Err(message) => problems.push(BibProblem {
                line: chunk.line,
                key: Some(key),
                message,
            }),
        }
    }
    (entries, problems)
}

/// A field's text with its math read as text (`$\alpha$-divergence` -> `α-divergence`, see
/// [`math`]), for [`clean_latex`].
fn field_text(chunks: &[Spanned<Chunk>]) -> String {
    let mut out = String::new();
    for chunk in chunks {
        match &chunk.v {
            Chunk::Normal(s) | Chunk::Verbatim(s) => out.push_str(s),
            Chunk::Math(tex) => out.push_str(&math::plain(tex)),
        }
    }
    out
}

/// One entry as a record: the citation key as `id`, fields by name, authors as a list of
/// "Given Family" names, an arXiv `eprint` as `arxiv`, `primaryclass` as `categories`.
fn record_of(e: &biblatex::Entry) -> Record {
    let mut r = Record::new();
    r.insert("id".into(), Value::String(e.key.clone()));
    let archive = ["archiveprefix", "eprinttype"]
        .iter()
        .find_map(|k| e.fields.get(*k))
        .map(|c| c.format_verbatim().to_ascii_lowercase());
    for (name, chunks) in &e.fields {
        let value = if VERBATIM.contains(&name.as_str()) {
            chunks.format_verbatim().trim().to_string()
        } else {
            clean_latex(&field_text(chunks))
        };
        if value.is_empty() {
            continue;
        }
        match name.as_str() {
            "author" => {
                let names: Vec<Value> = match e.author() {
                    Ok(people) if !people.is_empty() => people
                        .iter()
                        .map(|p| {
                            let parts = [&p.given_name, &p.prefix, &p.name, &p.suffix];
                            let full = parts
                                .iter()
                                .map(|s| clean_latex(s))
                                .filter(|s| !s.is_empty())
                                .collect::<Vec<_>>()
                                .join(" ");
                            Value::String(full)
                        })
                        .collect(),
                    _ => vec![Value::String(value)],
                };
                r.insert("author".into(), Value::Array(names));
            }
            "eprint"
                if archive.as_deref().is_none_or(|a| a == "arxiv")
                    && normalize_arxiv(&value).is_some() =>
            {
                r.insert("arxiv".into(), Value::String(value));
            }
            "archiveprefix" | "eprinttype"
                if archive.as_deref() == Some("arxiv") && e.fields.contains_key("eprint") => {}
            "primaryclass" => {
                r.insert("categories".into(), Value::String(value));
            }
            _ => {
                r.insert(name.clone(), Value::String(value));
            }
        }
    }
    r
}
