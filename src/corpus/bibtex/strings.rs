//! The file's `@string` abbreviations, expanded with every size bounded before anything is
//! built, and an entry resolved against them (an undefined one costs its field, not the
//! entry). Apart from parsing because this is where hostile input (cycles, doubling chains)
//! is defused.

use biblatex::{Bibliography, ParseErrorKind, RawBibliography};

use super::super::fields::MAX_FIELD_BYTES;

/// An `@string` chain may refer this deep (`@string{b = a # a}` refers one deep to `a`).
pub const MAX_STRING_DEPTH: usize = 64;

/// An expanded `@string` may hold at most this many pieces (`#`-joined parts, after
/// expansion); with [`MAX_FIELD_BYTES`] it bounds the work of doubling chains
/// (`@string{s1 = s0 # s0}`, ...), which grow exponentially.
pub const MAX_STRING_PIECES: usize = 10_000;

/// The file's `@string` abbreviations, expanded on use to pieces of the file's own text, so
/// the parser never follows one abbreviation into another: a cycle (`@string{c = c # c}`) or
/// a doubling chain would otherwise overflow its stack or build gigabytes before any limit is
/// checked. Every size is computed (saturating) before anything is built.
pub(super) struct Strings<'a, 's> {
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
    pub(super) fn expand(abbreviations: &'a [(usize, biblatex::Pair<'s>)]) -> Self {
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
    pub(super) fn used_by(
        &self,
        raw: &biblatex::RawEntry<'s>,
    ) -> Result<Vec<biblatex::Pair<'s>>, String> {
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
pub(super) fn resolve(
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
