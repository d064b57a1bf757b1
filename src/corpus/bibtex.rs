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

use biblatex::{Bibliography, ChunksExt, ParseErrorKind, RawBibliography};
use serde_json::Value;

use super::fields::{MAX_FIELD_BYTES, Record, normalize_arxiv};

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

/// One `@...` block of the file.
struct Chunk<'s> {
    line: usize,
    kind: String,
    text: &'s str,
}

/// Whether `line` opens an entry: `@`, a type name, then `{` or `(`.
fn opens_entry(line: &str) -> Option<String> {
    let rest = line.trim_start().strip_prefix('@')?;
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .collect();
    let after = rest[name.len()..].trim_start();
    (!name.is_empty() && (after.starts_with('{') || after.starts_with('(')))
        .then(|| name.to_ascii_lowercase())
}

fn chunks(text: &str) -> Vec<Chunk<'_>> {
    let mut out: Vec<Chunk<'_>> = Vec::new();
    let mut offset = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if let Some(kind) = opens_entry(line) {
            out.push(Chunk {
                line: i + 1,
                kind,
                text: &text[offset..offset],
            });
        }
        offset += line.len();
        if let Some(last) = out.last_mut() {
            let start = last.text.as_ptr() as usize - text.as_ptr() as usize;
            last.text = &text[start..offset];
        }
    }
    out
}

/// The citation key as written after `@type{`, for messages about entries that do not parse.
fn key_guess(chunk: &str) -> Option<String> {
    let open = chunk.find(['{', '('])?;
    let key: String = chunk[open + 1..]
        .chars()
        .take_while(|&c| c != ',' && c != '\n' && c != '}' && c != ')')
        .collect();
    let key = key.trim();
    (!key.is_empty() && !key.contains('=')).then(|| key.to_string())
}

/// Braces opened and closed outside `\{` and `\}` escapes.
fn brace_balance(s: &str) -> (usize, usize) {
    let (mut open, mut close) = (0, 0);
    let mut escaped = false;
    for c in s.chars() {
        match c {
            '\\' if !escaped => {
                escaped = true;
                continue;
            }
            '{' if !escaped => open += 1,
            '}' if !escaped => close += 1,
            _ => {}
        }
        escaped = false;
    }
    (open, close)
}

fn line_at(chunk: &Chunk<'_>, offset: usize) -> usize {
    let upto = offset.min(chunk.text.len());
    let upto = (0..=upto)
        .rev()
        .find(|&i| chunk.text.is_char_boundary(i))
        .unwrap_or(0);
    chunk.line + chunk.text[..upto].matches('\n').count()
}

fn parse_error(chunk: &Chunk<'_>, span_start: usize, kind: &ParseErrorKind) -> BibProblem {
    let (open, close) = brace_balance(chunk.text);
    let balanced = open == close;
    let message = if open > close {
        format!(
            "unbalanced braces: {open} `{{` but {close} `}}` (a closing brace is missing; the \
             entry was not read)"
        )
    } else if close > open {
        format!(
            "unbalanced braces: {open} `{{` but {close} `}}` (one closing brace too many; the \
             entry was not read)"
        )
    } else {
        format!("{kind} (the entry was not read)")
    };
    BibProblem {
        // An unbalanced brace is found where parsing gives up, often entries later: name the
        // entry's first line instead.
        line: if balanced {
            line_at(chunk, span_start)
        } else {
            chunk.line
        },
        key: key_guess(chunk.text),
        message,
    }
}

/// Text after an entry's end, up to the next entry, is a comment for BibTeX, but anything there
/// other than `%` comment lines is almost always a field cut off by one closing brace too many
/// (`title = {A}},`): the entry would silently lose the fields after it.
fn trailing_text(chunk: &Chunk<'_>, end: usize) -> Option<BibProblem> {
    let mut end = end.min(chunk.text.len());
    while !chunk.text.is_char_boundary(end) {
        end -= 1;
    }
    // The span ends at the closing brace or just before it.
    let rest = chunk.text[end..].trim_start_matches(['}', ')']);
    let stray = rest
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('%'))?;
    let offset = end + (chunk.text.len() - end - rest.len()) + rest.find(stray).unwrap_or(0);
    let (open, close) = brace_balance(chunk.text);
    let stray: String = rest.split_whitespace().collect::<Vec<_>>().join(" ");
    let stray: String = stray.chars().take(40).collect();
    Some(BibProblem {
        line: line_at(chunk, offset),
        key: key_guess(chunk.text),
        message: if close > open {
            format!(
                "unbalanced braces: {open} `{{` but {close} `}}`; the entry ends early and \
                 {stray:?} is left outside it (one closing brace too many?)"
            )
        } else {
            format!("text after the end of the entry: {stray:?} (a stray closing brace?)")
        },
    })
}

/// What biblatex leaves of LaTeX: `\emph{x}` -> `x`, `\em x` -> `x`, stray braces dropped,
/// whitespace collapsed. Math (`$...$`) is kept as written.
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

/// Braces may nest this deep in one entry: real exports nest a handful of levels, and the
/// parser recurses once per level, so a deeper entry is refused before it is parsed.
pub const MAX_BRACE_DEPTH: usize = 64;

/// An `@string` chain may refer this deep (`@string{b = a # a}` refers one deep to `a`).
pub const MAX_STRING_DEPTH: usize = 64;

/// An expanded `@string` may hold at most this many pieces (`#`-joined parts, after
/// expansion); with [`MAX_FIELD_BYTES`] it bounds the work of doubling chains
/// (`@string{s1 = s0 # s0}`, ...), which grow exponentially.
pub const MAX_STRING_PIECES: usize = 10_000;

/// The deepest brace nesting of `text` when it exceeds [`MAX_BRACE_DEPTH`], in one pass.
fn too_deep(text: &str) -> Option<usize> {
    let (mut depth, mut deepest, mut escaped) = (0usize, 0usize, false);
    for b in text.bytes() {
        match b {
            b'\\' if !escaped => {
                escaped = true;
                continue;
            }
            b'{' if !escaped => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b'}' if !escaped => depth = depth.saturating_sub(1),
            _ => {}
        }
        escaped = false;
    }
    (deepest > MAX_BRACE_DEPTH).then_some(deepest)
}

/// The file's `@string` abbreviations, expanded on use to pieces of the file's own text, so
/// the parser never follows one abbreviation into another: a cycle (`@string{c = c # c}`) or
/// a doubling chain would otherwise overflow its stack or build gigabytes before any limit is
/// checked. Every size is computed (saturating) before anything is built.
struct Strings<'a, 's> {
    /// The definition of each name (a later one replaces an earlier, as in the parser's own
    /// table), with its line.
    defs: Defs<'a, 's>,
    /// Each defined name's expanded size, or why it cannot be expanded.
    state: std::collections::HashMap<&'s str, Expansion>,
}

type Defs<'a, 's> = std::collections::HashMap<&'s str, (usize, &'a biblatex::Pair<'s>)>;

/// What expanding one abbreviation found.
#[derive(Clone)]
enum Expansion {
    Visiting,
    /// Bytes and pieces of the expansion.
    Sized(usize, usize),
    Refused(String),
}

impl<'a, 's> Strings<'a, 's> {
    fn expand(abbreviations: &'a [(usize, biblatex::Pair<'s>)]) -> Self {
        let mut defs = Defs::new();
        for (line, pair) in abbreviations {
            defs.insert(pair.key.v, (*line, pair));
        }
        let mut state = std::collections::HashMap::new();
        let mut names: Vec<&'s str> = defs.keys().copied().collect();
        names.sort_unstable();
        for name in names {
            size_of(name, &defs, &mut state, &mut Vec::new());
        }
        Strings { defs, state }
    }

    /// The expanded abbreviations `raw` uses (their values only text, and names no
    /// `@string` defines, such as the month names the parser knows), or why `raw` cannot be
    /// read.
    fn used_by(&self, raw: &biblatex::RawEntry<'s>) -> Result<Vec<biblatex::Pair<'s>>, String> {
        let mut used: Vec<(&'s str, &'s str)> = Vec::new();
        for f in &raw.fields {
            for c in &f.value.v {
                if let biblatex::RawChunk::Abbreviation(a) = c.v
                    && self.defs.contains_key(a)
                    && !used.iter().any(|(n, _)| *n == a)
                {
                    used.push((a, f.key.v));
                }
            }
        }
        let mut total = 0usize;
        for (name, field) in &used {
            let refused = match &self.state[name] {
                Expansion::Sized(_, count) => {
                    total = total.saturating_add(*count);
                    (total > MAX_STRING_PIECES).then(|| {
                        format!("its @string uses expand to more than {MAX_STRING_PIECES} pieces")
                    })
                }
                Expansion::Refused(why) => Some(why.clone()),
                Expansion::Visiting => unreachable!("every walk ends its names"),
            };
            if let Some(why) = refused {
                return Err(format!(
                    "`{}` uses @string {name}: {why} (the entry was not read)",
                    field.to_ascii_lowercase()
                ));
            }
        }
        Ok(used
            .into_iter()
            .map(|(name, _)| {
                let (_, pair) = self.defs[name];
                let mut value = Vec::new();
                pieces(&pair.value.v, &self.defs, &mut value);
                biblatex::Pair::new(
                    pair.key.clone(),
                    biblatex::Spanned::new(value, pair.value.span.clone()),
                )
            })
            .collect())
    }
}

/// Bytes and pieces `name` expands to, memoized in `state`; `chain` is the walk so far, to
/// name a cycle.
fn size_of<'a, 's>(
    name: &'s str,
    defs: &Defs<'a, 's>,
    state: &mut std::collections::HashMap<&'s str, Expansion>,
    chain: &mut Vec<&'s str>,
) -> Expansion {
    if let Some(known) = state.get(name) {
        return match known {
            Expansion::Visiting => {
                let from = chain.iter().position(|n| *n == name).unwrap_or(0);
                let mut cycle: Vec<&str> = chain[from..].to_vec();
                cycle.push(name);
                Expansion::Refused(format!("it refers to itself ({})", cycle.join(" -> ")))
            }
            other => other.clone(),
        };
    }
    let Some(&(line, pair)) = defs.get(name) else {
        return Expansion::Sized(0, 1);
    };
    if chain.len() >= MAX_STRING_DEPTH {
        return Expansion::Refused(format!(
            "its @string definitions refer more than {MAX_STRING_DEPTH} deep"
        ));
    }
    state.insert(name, Expansion::Visiting);
    chain.push(name);
    let (mut bytes, mut count) = (0usize, 0usize);
    let mut outcome = None;
    for piece in &pair.value.v {
        let (b, c) = match piece.v {
            biblatex::RawChunk::Normal(text) => (text.len(), 1),
            biblatex::RawChunk::Abbreviation(inner) => {
                if !defs.contains_key(inner) {
                    (0, 1)
                } else {
                    match size_of(inner, defs, state, chain) {
                        Expansion::Sized(b, c) => (b, c),
                        Expansion::Refused(why) => {
                            outcome = Some(Expansion::Refused(why));
                            break;
                        }
                        Expansion::Visiting => unreachable!("size_of never returns Visiting"),
                    }
                }
            }
        };
        bytes = bytes.saturating_add(b);
        count = count.saturating_add(c);
        if bytes > MAX_FIELD_BYTES || count > MAX_STRING_PIECES {
            outcome = Some(Expansion::Refused(format!(
                "it expands to more than {MAX_FIELD_BYTES} bytes or {MAX_STRING_PIECES} pieces \
                 (@string {name} at line {line})"
            )));
            break;
        }
    }
    chain.pop();
    let outcome = outcome.unwrap_or(Expansion::Sized(bytes, count));
    state.insert(name, outcome.clone());
    outcome
}

/// Appends the pieces of `value` with every defined abbreviation replaced by its own pieces;
/// called only on abbreviations [`size_of`] found bounded and acyclic.
fn pieces<'a, 's>(value: &biblatex::Field<'s>, defs: &Defs<'a, 's>, out: &mut biblatex::Field<'s>) {
    for piece in value {
        match piece.v {
            biblatex::RawChunk::Abbreviation(inner) if defs.contains_key(inner) => {
                pieces(&defs[inner].1.value.v, defs, out)
            }
            _ => out.push(piece.clone()),
        }
    }
}

/// Resolve one entry against the file's abbreviations. Undefined abbreviations (`journal =
/// jmlr` without `@string{jmlr=...}`) cost their field, not the entry: BibTeX itself warns and
/// goes on; the dropped fields are returned, described.
fn resolve(
    raw: &mut biblatex::RawEntry<'_>,
    abbreviations: &[biblatex::Pair<'_>],
) -> (Result<Bibliography, String>, Vec<String>) {
    let mut dropped = Vec::new();
    let resolved = loop {
        let bib = RawBibliography {
            preamble: String::new(),
            entries: vec![biblatex::Spanned::new(raw.clone(), 0..0)],
            abbreviations: abbreviations.to_vec(),
        };
        match std::panic::catch_unwind(|| Bibliography::from_raw(bib)) {
            Ok(Ok(b)) => break Ok(b),
            Ok(Err(e)) => {
                if let ParseErrorKind::UnknownAbbreviation(name) = &e.kind
                    && let Some(pos) = raw.fields.iter().position(|f| {
                        f.value.v.iter().any(
                            |c| matches!(c.v, biblatex::RawChunk::Abbreviation(a) if a == name),
                        )
                    })
                {
                    let field = raw.fields.remove(pos);
                    dropped.push(format!(
                        "{} (undefined @string {name})",
                        field.key.v.to_ascii_lowercase()
                    ));
                    continue;
                }
                break Err(format!("{} (the entry was not read)", e.kind));
            }
            Err(_) => {
                break Err("the BibTeX parser failed on this entry (it was not read)".into());
            }
        }
    };
    (resolved, dropped)
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
        let raw = chunks.format_verbatim();
        let value = if VERBATIM.contains(&name.as_str()) {
            raw.trim().to_string()
        } else {
            clean_latex(&raw)
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
