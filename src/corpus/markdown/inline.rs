//! The inline parts of a Markdown list: which lines are list items, code or comments, where a
//! link starts and ends, what a table row's cells are, and a description as plain text.

/// The first `[text](url)` link of `s` (not an image): its start, text, address and what
/// follows it. Brackets inside the text are balanced (`[[2401.00002] Title](url)`).
pub(super) fn first_link(s: &str) -> Option<(usize, &str, &str, &str)> {
    for (i, _) in s.match_indices('[') {
        if s[..i].ends_with('!') {
            continue;
        }
        let mut depth = 0usize;
        for (j, c) in s[i..].char_indices() {
            match c {
                '[' => depth += 1,
                ']' => {
                    depth -= 1;
                    if depth == 0 {
                        let close = i + j;
                        if let Some(rest) = s[close + 1..].strip_prefix('(') {
                            let (url, after) = split_url(rest);
                            return Some((i, &s[i + 1..close], url, after));
                        }
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    None
}

/// Link texts that name a paper's code, not the paper (compared folded).
const CODE_LINKS: [&str; 7] = [
    "code",
    "github",
    "repo",
    "official code",
    "project code",
    "代码",
    "源码",
];

/// `text` without its code links (`[[code](url)]`, `[GitHub](url)`, `[代码](url)`), and the
/// first one's address. Awesome lists put them beside the paper's own link; read as the paper's
/// words they would put "[code]" in every description.
pub(super) fn take_code_links(text: &str) -> (String, Option<String>) {
    let mut out = String::new();
    let mut code = None;
    let mut rest = text;
    while let Some((at, inner, url, after)) = first_link(rest) {
        let name = crate::text::fold(inner.trim());
        if CODE_LINKS.contains(&name.trim()) {
            // `[[code](url)]`: the brackets around the link go with it.
            let before = &rest[..at];
            let (before, after) = match (before.strip_suffix('['), after.strip_prefix(']')) {
                (Some(b), Some(a)) => (b, a),
                _ => (before, after),
            };
            out.push_str(before.trim_end());
            out.push(' ');
            code = code.or_else(|| Some(url.trim().to_string()));
            rest = after;
        } else {
            out.push_str(&rest[..rest.len() - after.len()]);
            rest = after;
        }
    }
    out.push_str(rest);
    (out.trim().to_string(), code)
}

/// A cell's title: the text of the link it opens with (`[Title](url) [[code](url)] [开源]`),
/// else [`link_text`] of the whole cell.
pub(super) fn cell_title(cell: &str) -> String {
    match first_link(cell.trim()) {
        Some((0, text, _, _)) => text.to_string(),
        _ => link_text(cell),
    }
}

/// What lies outside the list's text: fenced code blocks and HTML comments.
#[derive(Default)]
pub(super) struct Skip {
    /// The open fence (its character and length), if inside a code block.
    fence: Option<(char, usize)>,
    /// Inside an HTML comment that has not closed yet.
    comment: bool,
}

impl Skip {
    /// Whether `line` (trimmed) is code or comment, noting where blocks open and close.
    pub(super) fn skips(&mut self, line: &str) -> bool {
        if let Some((c, n)) = self.fence {
            let run = line.chars().take_while(|&x| x == c).count();
            if run >= n && line[run * c.len_utf8()..].trim().is_empty() {
                self.fence = None;
            }
            return true;
        }
        if self.comment {
            self.comment = !line.contains("-->");
            return true;
        }
        for c in ['`', '~'] {
            let run = line.chars().take_while(|&x| x == c).count();
            if run >= 3 {
                self.fence = Some((c, run));
                return true;
            }
        }
        if let Some(rest) = line.strip_prefix("<!--") {
            self.comment = !rest.contains("-->");
            return true;
        }
        false
    }
}

/// The content of a list item (`-`, `*`, `+`, `1.` or `1)`, and a task box `[ ]`/`[x]`
/// after it), or `None` for a line that is no list item.
pub(super) fn list_item(line: &str) -> Option<&str> {
    let rest = match line.strip_prefix(['-', '*', '+']) {
        Some(rest) => rest,
        None => {
            let digits = line.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 || digits > 9 {
                return None;
            }
            line[digits..].strip_prefix(['.', ')'])?
        }
    };
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let rest = rest.trim_start();
    let rest = ["[ ] ", "[x] ", "[X] "]
        .iter()
        .find_map(|b| rest.strip_prefix(b))
        .unwrap_or(rest);
    Some(rest.trim_start())
}

/// After a link's `](`: the address up to its closing `)`, parentheses inside it balanced
/// (`https://en.wikipedia.org/wiki/Foo_(bar)`), and what follows.
pub(super) fn split_url(rest: &str) -> (&str, &str) {
    let mut depth = 0usize;
    for (i, c) in rest.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => return (&rest[..i], &rest[i + 1..]),
            ')' => depth -= 1,
            _ => {}
        }
    }
    (rest, "")
}

/// The title of `"Title" *venue*.` (the quoted part, the rest after it), or the whole text
/// without its emphasis and trailing separators.
pub(super) fn quoted_title(text: &str) -> (String, &str) {
    let t = text.trim().trim_matches(['*', '_']).trim();
    // Bold inside the title (`**Search-R1**: Training ...`) is markup too.
    if t.contains("**") || t.contains("__") {
        let (title, _) = quoted_title(&t.replace("**", "").replace("__", ""));
        return (title, "");
    }
    for (open, close) in [('"', '"'), ('“', '”')] {
        if let Some(inner) = t.strip_prefix(open)
            && let Some(end) = inner.find(close)
        {
            let title = inner[..end].trim().trim_end_matches(['.', ',']);
            return (title.to_string(), &inner[end + close.len_utf8()..]);
        }
    }
    let title = t
        .trim_end_matches(['-', ':', ',', '.', '–', '—', ' ', '*', '_'])
        .to_string();
    (title, "")
}

/// A description as text: badges (`![alt](url)`) dropped, links kept as their text, bare
/// addresses dropped (an explanation citing "https" as a shared word helps no one).
pub(super) fn plain(text: &str) -> String {
    let mut unbadged = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("![") {
        match first_link(&rest[i + 1..]) {
            Some((0, _, _, after)) => {
                unbadged.push_str(&rest[..i]);
                rest = after;
            }
            _ => {
                unbadged.push_str(&rest[..i + 2]);
                rest = &rest[i + 2..];
            }
        }
    }
    unbadged.push_str(rest);
    let mut out = String::new();
    let mut rest = unbadged.as_str();
    while let Some((at, inner, _, after)) = first_link(rest) {
        out.push_str(&rest[..at]);
        out.push_str(inner);
        rest = after;
    }
    out.push_str(rest);
    // Emphasis marks (`*venue*`, `**bold**`) are markup, not words.
    out.replace('*', " ")
        .split_whitespace()
        .filter(|w| !(w.starts_with("http://") || w.starts_with("https://")))
        .collect::<Vec<_>>()
        .join(" ")
        .trim_matches(['*', '_', ' '])
        .to_string()
}

/// A table row's cells; `\|` is a pipe inside a cell, as GitHub reads it.
pub(super) fn table_cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|');
    let inner = match inner.strip_suffix('|') {
        Some(i) if !i.ends_with('\\') => i,
        _ => inner,
    };
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                chars.next();
                cell.push('|');
            }
            '|' => cells.push(std::mem::take(&mut cell)),
            c => cell.push(c),
        }
    }
    cells.push(cell);
    cells.iter().map(|c| c.trim().to_string()).collect()
}

/// `[text](url)` -> url; anything else -> `None`.
pub(super) fn link_url(cell: &str) -> Option<String> {
    let c = cell.trim();
    let rest = c.strip_prefix('[')?;
    let close = rest.find("](")?;
    let (url, _) = split_url(&rest[close + 2..]);
    Some(url.trim().to_string())
}

/// `[text](url)` -> text; anything else -> itself.
pub(super) fn link_text(cell: &str) -> String {
    let c = cell.trim();
    if let (Some(rest), true) = (c.strip_prefix('['), c.ends_with(')'))
        && let Some(close) = rest.find("](")
    {
        return rest[..close].to_string();
    }
    c.to_string()
}
