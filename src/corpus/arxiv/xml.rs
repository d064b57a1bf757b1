//! What the two readers share: reading elements and text, ids and dates, the bounds of an
//! entry's fields.

use roxmltree::{Document, Node};

use super::super::fields::{MAX_FIELD_BYTES, normalize_arxiv, normalize_doi};
use super::super::lines::LineCounter;
use super::{ARXIV_NS, DC_NS, Entry, FeedError, MAX_ENTRIES};

pub(super) fn line_of(doc: &Document, node: Node) -> u32 {
    doc.text_pos_at(node.range().start).row
}

/// All text inside an element (entities and CDATA resolved), in document order.
pub(super) fn all_text(node: Node) -> String {
    node.descendants()
        .filter(Node::is_text)
        .filter_map(|n| n.text())
        .collect()
}

/// Runs of whitespace (arXiv wraps titles and abstracts) become one space; ends trimmed.
pub(super) fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The first child element `name` in namespace `ns` ("" for none, as RSS's own elements).
pub(super) fn child<'a, 'i>(node: Node<'a, 'i>, ns: &str, name: &str) -> Option<Node<'a, 'i>> {
    node.children().find(|c| named(*c, ns, name))
}

pub(super) fn named(node: Node, ns: &str, name: &str) -> bool {
    let t = node.tag_name();
    node.is_element() && t.name() == name && t.namespace().unwrap_or("") == ns
}

pub(super) fn child_text(node: Node, ns: &str, name: &str) -> Option<String> {
    child(node, ns, name)
        .map(|c| collapse(&all_text(c)))
        .filter(|t| !t.is_empty())
}

/// `2503.14476v2` -> (`2503.14476`, Some(2)).
pub(super) fn split_version(raw: &str) -> Option<(String, Option<u32>)> {
    let bare = normalize_arxiv(raw)?;
    let t = raw.trim();
    let version = t
        .rfind('v')
        .filter(|&v| v > 0 && t[..v].ends_with(|c: char| c.is_ascii_digit()))
        .and_then(|v| t[v + 1..].parse::<u32>().ok());
    Some((bare, version))
}

/// `2025-03-18T17:59:59Z` -> `2025-03-18`.
pub(super) fn iso_day(s: &str) -> Option<String> {
    let d = s.trim().get(..10)?;
    let b = d.as_bytes();
    let shaped = b.iter().enumerate().all(|(i, c)| match i {
        4 | 7 => *c == b'-',
        _ => c.is_ascii_digit(),
    });
    shaped.then(|| d.to_string())
}

/// RFC 822 (`Wed, 19 Mar 2025 00:00:00 -0400`) -> `2025-03-19`.
pub(super) fn rfc822_day(s: &str) -> Option<String> {
    const MONTHS: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let tokens: Vec<&str> = s.split([' ', ',']).filter(|t| !t.is_empty()).collect();
    let (i, month) = tokens.iter().enumerate().find_map(|(i, t)| {
        let l = t.to_ascii_lowercase();
        MONTHS
            .iter()
            .position(|m| l.starts_with(m))
            .map(|m| (i, m + 1))
    })?;
    let day: u32 = tokens.get(i.checked_sub(1)?)?.parse().ok()?;
    let year: u32 = tokens.get(i + 1)?.parse().ok()?;
    ((1..=31).contains(&day) && (1000..=2999).contains(&year))
        .then(|| format!("{year:04}-{month:02}-{day:02}"))
}

pub(super) fn bounded(line: u32, field: &'static str, s: &str) -> Result<(), FeedError> {
    if s.len() > MAX_FIELD_BYTES {
        return Err(FeedError::FieldTooLong {
            line,
            field,
            bytes: s.len(),
        });
    }
    Ok(())
}

/// What [`read_entries`] read: the entries, the problems of those it left out, and the arXiv
/// ids of the left-out entries whose id could still be read.
pub(super) type Read = (Vec<Entry>, Vec<FeedError>, Vec<String>);

/// The entries of `nodes` (a feed's `<entry>` or `<item>` elements), each read by `read` from
/// its node and line, then held to the bounds of its fields ([`check_entry`]); a feed of more
/// than [`MAX_ENTRIES`] is refused at the first entry past them. `id_of` reads the arXiv id of
/// an entry left out, so that a caller asking for it knows arXiv answered for it.
pub(super) fn read_entries<'a, 'i: 'a>(
    doc: &Document,
    nodes: impl Iterator<Item = Node<'a, 'i>>,
    mut read: impl FnMut(Node<'a, 'i>, u32) -> Result<Entry, FeedError>,
    id_of: impl Fn(Node<'a, 'i>) -> Option<String>,
) -> Result<Read, FeedError> {
    let mut entries = Vec::new();
    let mut skipped = Vec::new();
    let mut skipped_ids = Vec::new();
    let mut lines = LineCounter::new(doc.input_text().as_bytes());
    for node in nodes {
        if entries.len() + skipped.len() == MAX_ENTRIES {
            return Err(FeedError::TooMany {
                limit: format!("{MAX_ENTRIES} entries"),
            });
        }
        let line = u32::try_from(lines.line_of(node.range().start)).unwrap_or(u32::MAX);
        match read(node, line).and_then(|e| check_entry(line, &e).map(|()| e)) {
            Ok(entry) => entries.push(entry),
            // The API's error entry is the answer, not one bad entry among good ones.
            Err(e @ FeedError::Api { .. }) => return Err(e),
            Err(e) => {
                skipped.push(e);
                skipped_ids.extend(id_of(node));
            }
        }
    }
    Ok((entries, skipped, skipped_ids))
}

/// The DOI of an entry: the API says `arxiv:doi`, the RSS-era Atom listings `arxiv:DOI`.
pub(super) fn arxiv_doi(node: Node) -> Option<String> {
    node.children()
        .find(|c| {
            c.tag_name().namespace() == Some(ARXIV_NS)
                && c.tag_name().name().eq_ignore_ascii_case("doi")
        })
        .and_then(|d| first_doi(&all_text(d)))
}

pub(super) fn check_entry(line: u32, e: &Entry) -> Result<(), FeedError> {
    bounded(line, "title", &e.title)?;
    bounded(line, "summary", &e.summary)?;
    bounded(line, "url", &e.url)?;
    for a in &e.authors {
        bounded(line, "author", a)?;
    }
    for c in &e.categories {
        bounded(line, "category", c)?;
    }
    if let Some(c) = &e.comment {
        bounded(line, "comment", c)?;
    }
    Ok(())
}

pub(super) fn first_doi(s: &str) -> Option<String> {
    s.split_whitespace().find_map(normalize_doi)
}

pub(super) fn push_unique(v: &mut Vec<String>, s: String) {
    if !s.is_empty() && !v.contains(&s) {
        v.push(s);
    }
}

/// The names of the listings' `dc:creator` elements, which separate them with commas.
pub(super) fn creators(node: Node) -> Vec<String> {
    let mut authors = Vec::new();
    for c in node
        .children()
        .filter(|c| c.has_tag_name((DC_NS, "creator")))
    {
        for name in all_text(c).split(',') {
            push_unique(&mut authors, collapse(name));
        }
    }
    authors
}

/// `arXiv:2503.14476v1 Announce Type: new \nAbstract: ...` -> (`2503.14476v1`, the abstract).
pub(super) fn split_description(d: &str) -> (Option<&str>, &str) {
    let t = d.trim_start();
    let Some(rest) = t.strip_prefix("arXiv:") else {
        return (None, t);
    };
    let id = rest.split_whitespace().next();
    match rest.find("Abstract:") {
        Some(i) => (id, rest[i + "Abstract:".len()..].trim_start()),
        None => (id, t),
    }
}
