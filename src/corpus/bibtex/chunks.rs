//! A BibTeX file cut into entries at each line that opens one, so that each is parsed alone
//! and a broken entry costs itself only; with the checks made on an entry's text before the
//! parser sees it (brace depth) and the problems named by line and key when it fails.

use biblatex::ParseErrorKind;

use super::BibProblem;

/// One `@...` block of the file.
pub(super) struct Chunk<'s> {
    pub(super) line: usize,
    pub(super) kind: String,
    pub(super) text: &'s str,
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

pub(super) fn chunks(text: &str) -> Vec<Chunk<'_>> {
    let mut out: Vec<Chunk<'_>> = Vec::new();
    let mut offset = 0;
    // Inside `@comment{...}`: its opening bracket and how deep the comment still is. An entry
    // commented out this way (JabRef's and BibTeX's own way) is comment, not an entry.
    let mut comment: Option<(char, usize)> = None;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if let Some((open, depth)) = comment.as_mut() {
            let close = if *open == '{' { '}' } else { ')' };
            for c in line.chars() {
                if c == *open {
                    *depth += 1;
                } else if c == close {
                    *depth = depth.saturating_sub(1);
                }
            }
            if *depth == 0 {
                comment = None;
            }
        } else if let Some(kind) = opens_entry(line) {
            if kind == "comment" {
                let at = line.find(['{', '(']).unwrap_or(0);
                let open = line[at..].chars().next().unwrap_or('{');
                let close = if open == '{' { '}' } else { ')' };
                let depth = line[at..].matches(open).count();
                let closed = line[at..].matches(close).count();
                if depth > closed {
                    comment = Some((open, depth - closed));
                }
            }
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
pub(super) fn key_guess(chunk: &str) -> Option<String> {
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

pub(super) fn parse_error(
    chunk: &Chunk<'_>,
    span_start: usize,
    kind: &ParseErrorKind,
) -> BibProblem {
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
pub(super) fn trailing_text(chunk: &Chunk<'_>, end: usize) -> Option<BibProblem> {
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

/// Braces may nest this deep in one entry: real exports nest a handful of levels, and the
/// parser recurses once per level, so a deeper entry is refused before it is parsed.
pub const MAX_BRACE_DEPTH: usize = 64;

/// The deepest brace nesting of `text` when it exceeds [`MAX_BRACE_DEPTH`], in one pass.
pub(super) fn too_deep(text: &str) -> Option<usize> {
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

#[cfg(test)]
mod tests {
    use super::chunks;

    #[test]
    fn an_entry_inside_a_comment_block_is_comment() {
        // A probe's valid `@comment{...}` around an entry failed the whole build.
        let text = "@comment{\n@article{inside, title = {Not A Paper}}\n}\n\
                    @comment(one line {braces})\n\
                    @article{real,\n  title = {A Paper}\n}\n";
        let kinds: Vec<(usize, String)> =
            chunks(text).into_iter().map(|c| (c.line, c.kind)).collect();
        let want = [(1, "comment"), (4, "comment"), (5, "article")];
        assert_eq!(kinds, want.map(|(l, k)| (l, k.to_string())));
        let (entries, problems) = super::super::parse(text);
        assert!(problems.is_empty());
        assert_eq!(entries.len(), 1);
    }
}
