//! New papers from arXiv (issue 37's feed): the arXiv API's Atom answers and arXiv's RSS
//! listings, read from text ([`parse_feed`]) or fetched live ([`Client::fetch_recent`]).
//!
//! Two formats, both as arXiv writes them:
//!
//! - **Atom** from the API (`export.arxiv.org/api/query`): `<feed xmlns="http://www.w3.org/2005/Atom">`
//!   with one `<entry>` a paper: `id` (`http://arxiv.org/abs/2503.14476v2`), `title`, `summary`,
//!   `published` (first version), `updated`, `author/name`, `link rel="alternate"` (the abstract
//!   page) and `title="pdf"`, `arxiv:primary_category`, `category term=".."`, `arxiv:doi`,
//!   `arxiv:comment`; the feed says how many results the query has in
//!   `opensearch:totalResults`. A query arXiv refuses comes back as a feed whose one entry is
//!   titled `Error` with an id under `/api/errors`: that is [`FeedError::Api`].
//! - **RSS 2.0** from the daily listings (`rss.arxiv.org/rss/cs.LG`): `<rss><channel><item>` with
//!   `title`, `link`, `description` (`arXiv:2503.14476v1 Announce Type: new \nAbstract: ...`),
//!   `guid` (`oai:arXiv.org:2503.14476v1`), `category` (one element each), `dc:creator` (names
//!   separated by commas), `pubDate` (the announcement day) and `arxiv:announce_type` (`new`,
//!   `cross`, `replace`, `replace-cross`).
//!
//! The listings' Atom twin (`rss.arxiv.org/atom/cs.LG`: ids `oai:arXiv.org:..`, the RSS
//! preamble in `summary`, names in `dc:creator`) is read as Atom.
//!
//! Whitespace in titles, abstracts and names is collapsed to single spaces. An [`Entry`]
//! becomes a corpus record with [`Entry::to_record`], keyed as the importer reads it.
//!
//! Bounds: a document over [`MAX_DOCUMENT_BYTES`] is refused before parsing, and so is one of
//! more than [`MAX_ENTRIES`] entries, elements nested deeper than [`MAX_DEPTH`], or a field
//! longer than [`MAX_FIELD_BYTES`]. A feed without entries is `Ok(vec![])`: the caller says so.

use std::collections::HashSet;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use roxmltree::{Document, Node, ParsingOptions};
use serde_json::Value;

use super::fields::{MAX_FIELD_BYTES, Record, normalize_arxiv, normalize_doi};

/// Largest document read, in bytes (a page of 2,000 API results is about 5 MB).
pub const MAX_DOCUMENT_BYTES: usize = 64 * 1024 * 1024;
/// Most entries one document may hold.
pub const MAX_ENTRIES: usize = 100_000;
/// Deepest element nesting accepted (arXiv's feeds nest 4 deep).
pub const MAX_DEPTH: usize = 32;
/// Most XML nodes parsed: generous for [`MAX_ENTRIES`] real entries, a stop for junk.
const MAX_NODES: u32 = 8_000_000;

const ATOM_NS: &str = "http://www.w3.org/2005/Atom";
const ARXIV_NS: &str = "http://arxiv.org/schemas/atom";
const OPENSEARCH_NS: &str = "http://a9.com/-/spec/opensearch/1.1/";
const DC_NS: &str = "http://purl.org/dc/elements/1.1/";

/// One paper of a feed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The arXiv id without its version: `2503.14476`, `hep-th/9901001`.
    pub arxiv: String,
    /// The version the feed describes (`v2` -> 2), when it says.
    pub version: Option<u32>,
    pub title: String,
    /// The abstract (RSS: without the `arXiv:.. Announce Type: ..` preamble).
    pub summary: String,
    pub authors: Vec<String>,
    /// `YYYY-MM-DD`: Atom's `published` (the first version's submission); RSS's `pubDate` (the
    /// day the listing announced it).
    pub published: Option<String>,
    /// `YYYY-MM-DD` of this version (Atom's `updated`); `None` from RSS.
    pub updated: Option<String>,
    /// The primary category first, then the cross-lists, each once.
    pub categories: Vec<String>,
    /// The abstract page.
    pub url: String,
    pub doi: Option<String>,
    /// The authors' comment (`arxiv:comment`: pages, venue).
    pub comment: Option<String>,
    /// RSS's `arxiv:announce_type`: `new`, `cross`, `replace`, `replace-cross`.
    pub announce_type: Option<String>,
}

impl Entry {
    /// The entry as a corpus record: the bare arXiv id as `id` and `arxiv`, `title`, `summary`,
    /// `authors` (a list), `year` (of `published`), `url`, `doi`, `categories` (a list, which
    /// the importer keeps as keywords). Empty fields are left out.
    pub fn to_record(&self) -> Record {
        let mut r = Record::new();
        r.insert("id".into(), Value::from(self.arxiv.clone()));
        r.insert("title".into(), Value::from(self.title.clone()));
        if !self.summary.is_empty() {
            r.insert("summary".into(), Value::from(self.summary.clone()));
        }
        if !self.authors.is_empty() {
            r.insert("authors".into(), Value::from(self.authors.clone()));
        }
        r.insert("arxiv".into(), Value::from(self.arxiv.clone()));
        if let Some(y) = self
            .published
            .as_deref()
            .and_then(|p| p.get(..4))
            .and_then(|y| y.parse::<u16>().ok())
        {
            r.insert("year".into(), Value::from(y));
        }
        if !self.url.is_empty() {
            r.insert("url".into(), Value::from(self.url.clone()));
        }
        if let Some(d) = &self.doi {
            r.insert("doi".into(), Value::from(d.clone()));
        }
        if !self.categories.is_empty() {
            r.insert("categories".into(), Value::from(self.categories.clone()));
        }
        r
    }
}

/// Which of the two formats a document is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeedFormat {
    Atom,
    Rss,
}

/// A parsed document: its entries and, from the API, how many results the query has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Feed {
    pub format: FeedFormat,
    pub entries: Vec<Entry>,
    /// `opensearch:totalResults` (Atom from the API only).
    pub total_results: Option<u64>,
}

/// Why a document gave no entries. Each message says what to do next.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FeedError {
    #[error(
        "the document is {bytes} bytes, more than the {MAX_DOCUMENT_BYTES} a feed may be; \
         save a smaller listing or fetch fewer results"
    )]
    TooLarge { bytes: usize },
    #[error(
        "the document holds more than {limit}; it is not one of arXiv's feeds, or save a smaller \
         listing"
    )]
    TooMany { limit: String },
    #[error(
        "the document ends at line {line}, column {col} before its elements are closed: a \
         truncated download? fetch or save the feed again"
    )]
    Truncated { line: u32, col: u32 },
    #[error(
        "not well-formed XML at line {line}, column {col}: {message}; fetch or save the feed \
         again (a truncated or edited file?)"
    )]
    Malformed {
        line: u32,
        col: u32,
        message: String,
    },
    #[error(
        "this is an HTML page{}, not an Atom or RSS feed: an error page or a web page saved \
         instead of the feed? save the API's Atom answer or the rss.arxiv.org listing itself",
        title.as_ref().map(|t| format!(" (titled {t:?})")).unwrap_or_default()
    )]
    Html { title: Option<String> },
    #[error(
        "{found}: neither an Atom feed (<feed> in {ATOM_NS}) nor RSS 2.0 (<rss><channel>); give \
         an arXiv API answer or an rss.arxiv.org listing"
    )]
    NotAFeed { found: String },
    #[error(
        "elements nested more than {MAX_DEPTH} deep at line {line}: not one of arXiv's feeds; \
         check the file"
    )]
    TooDeep { line: u32 },
    #[error("the entry at line {line} has no {field}; fix or remove that entry")]
    Missing { line: u32, field: &'static str },
    #[error(
        "the entry at line {line} has the id {id:?}, which is not an arXiv id like \
         2503.14476v2; only arXiv's feeds can be read"
    )]
    BadId { line: u32, id: String },
    #[error(
        "the entry at line {line} has a {field} of {bytes} bytes, more than the \
         {MAX_FIELD_BYTES} a field may hold; check the file"
    )]
    FieldTooLong {
        line: u32,
        field: &'static str,
        bytes: usize,
    },
    #[error("arXiv refused the query: {message}; check the categories and the query")]
    Api { message: String },
}

/// The entries of an arXiv Atom or RSS document.
pub fn parse_feed(text: &str) -> Result<Vec<Entry>, FeedError> {
    parse(text).map(|f| f.entries)
}

/// The document with what it says of the query ([`Feed::total_results`]).
pub fn parse(text: &str) -> Result<Feed, FeedError> {
    if text.len() > MAX_DOCUMENT_BYTES {
        return Err(FeedError::TooLarge { bytes: text.len() });
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    sniff(text)?;
    let opts = ParsingOptions {
        allow_dtd: false,
        nodes_limit: MAX_NODES,
        ..ParsingOptions::default()
    };
    let doc = Document::parse_with_options(text, opts).map_err(|e| xml_error(text, &e))?;
    check_depth(&doc)?;
    let root = doc.root_element();
    let name = root.tag_name();
    match (name.name(), name.namespace()) {
        ("feed", Some(ATOM_NS)) => atom(&doc, root),
        ("rss", _) => rss(&doc, root),
        ("html", _) => Err(FeedError::Html {
            title: root
                .descendants()
                .find(|n| n.has_tag_name("title"))
                .map(|t| collapse(&all_text(t)))
                .filter(|t| !t.is_empty()),
        }),
        ("feed", ns) => Err(FeedError::NotAFeed {
            found: format!(
                "the root is <feed> in {}",
                ns.map_or("no namespace".to_string(), |n| format!("namespace {n}"))
            ),
        }),
        (other, _) => Err(FeedError::NotAFeed {
            found: format!("the root element is <{other}>"),
        }),
    }
}

/// HTML pages and plain text are named before the XML parser sees them: an HTML page is
/// rarely well-formed XML, and "not well-formed" would hide what it is.
fn sniff(text: &str) -> Result<(), FeedError> {
    let start = text.trim_start();
    if !start.starts_with('<') {
        let first: String = start.chars().take(60).collect();
        let first = collapse(&first);
        return Err(FeedError::NotAFeed {
            found: if first.is_empty() {
                "the document is empty".to_string()
            } else {
                format!("the document is text beginning {first:?}")
            },
        });
    }
    let head: String = start.chars().take(2048).collect::<String>().to_lowercase();
    let html_at = head
        .find("<!doctype html")
        .into_iter()
        .chain(head.find("<html"))
        .min();
    let feed_at = head
        .find("<feed")
        .into_iter()
        .chain(head.find("<rss"))
        .min();
    let is_html = match (html_at, feed_at) {
        (Some(h), Some(f)) => h < f,
        (Some(_), None) => true,
        _ => false,
    };
    if is_html {
        return Err(FeedError::Html {
            title: html_title(text),
        });
    }
    Ok(())
}

fn html_title(text: &str) -> Option<String> {
    let head = match text.char_indices().nth(65_536) {
        Some((i, _)) => &text[..i],
        None => text,
    };
    let lower = head.to_ascii_lowercase();
    let open = lower.find("<title")?;
    let body = open + lower[open..].find('>')? + 1;
    let close = body + lower[body..].find("</title")?;
    let t: String = collapse(&head[body..close]).chars().take(120).collect();
    (!t.is_empty()).then_some(t)
}

fn xml_error(text: &str, e: &roxmltree::Error) -> FeedError {
    use roxmltree::Error as E;
    match e {
        E::UnexpectedEndOfStream | E::UnclosedRootNode => {
            // Where the text stops: after a final newline, the start of the next line.
            let line = text.bytes().filter(|&b| b == b'\n').count() + 1;
            let col = text.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            FeedError::Truncated {
                line: u32::try_from(line).unwrap_or(u32::MAX),
                col: u32::try_from(col).unwrap_or(u32::MAX),
            }
        }
        E::NodesLimitReached => FeedError::TooMany {
            limit: format!("{MAX_NODES} XML nodes"),
        },
        E::AttributesLimitReached | E::NamespacesLimitReached => FeedError::TooMany {
            limit: "the attributes or namespaces an XML parser takes".into(),
        },
        other => {
            let pos = other.pos();
            // roxmltree's message ends with " at L:C"; the position is given once, ours.
            let message = other.to_string();
            let message = message
                .strip_suffix(&format!(" at {pos}"))
                .unwrap_or(&message)
                .to_string();
            FeedError::Malformed {
                line: pos.row,
                col: pos.col,
                message,
            }
        }
    }
}

/// Iterative, so a hostile document cannot exhaust the stack here.
fn check_depth(doc: &Document) -> Result<(), FeedError> {
    let mut stack = vec![(doc.root(), 0usize)];
    while let Some((node, depth)) = stack.pop() {
        if depth > MAX_DEPTH {
            return Err(FeedError::TooDeep {
                line: line_of(doc, node),
            });
        }
        stack.extend(
            node.children()
                .filter(Node::is_element)
                .map(|c| (c, depth + 1)),
        );
    }
    Ok(())
}

fn line_of(doc: &Document, node: Node) -> u32 {
    doc.text_pos_at(node.range().start).row
}

/// All text inside an element (entities and CDATA resolved), in document order.
fn all_text(node: Node) -> String {
    node.descendants()
        .filter(Node::is_text)
        .filter_map(|n| n.text())
        .collect()
}

/// Runs of whitespace (arXiv wraps titles and abstracts) become one space; ends trimmed.
fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The first child element `name` in namespace `ns` ("" for none, as RSS's own elements).
fn child<'a, 'i>(node: Node<'a, 'i>, ns: &str, name: &str) -> Option<Node<'a, 'i>> {
    node.children().find(|c| named(*c, ns, name))
}

fn named(node: Node, ns: &str, name: &str) -> bool {
    let t = node.tag_name();
    node.is_element() && t.name() == name && t.namespace().unwrap_or("") == ns
}

fn child_text(node: Node, ns: &str, name: &str) -> Option<String> {
    child(node, ns, name)
        .map(|c| collapse(&all_text(c)))
        .filter(|t| !t.is_empty())
}

/// `2503.14476v2` -> (`2503.14476`, Some(2)).
fn split_version(raw: &str) -> Option<(String, Option<u32>)> {
    let bare = normalize_arxiv(raw)?;
    let t = raw.trim();
    let version = t
        .rfind('v')
        .filter(|&v| v > 0 && t[..v].ends_with(|c: char| c.is_ascii_digit()))
        .and_then(|v| t[v + 1..].parse::<u32>().ok());
    Some((bare, version))
}

/// `2025-03-18T17:59:59Z` -> `2025-03-18`.
fn iso_day(s: &str) -> Option<String> {
    let d = s.trim().get(..10)?;
    let b = d.as_bytes();
    let shaped = b.iter().enumerate().all(|(i, c)| match i {
        4 | 7 => *c == b'-',
        _ => c.is_ascii_digit(),
    });
    shaped.then(|| d.to_string())
}

/// RFC 822 (`Wed, 19 Mar 2025 00:00:00 -0400`) -> `2025-03-19`.
fn rfc822_day(s: &str) -> Option<String> {
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

fn bounded(line: u32, field: &'static str, s: &str) -> Result<(), FeedError> {
    if s.len() > MAX_FIELD_BYTES {
        return Err(FeedError::FieldTooLong {
            line,
            field,
            bytes: s.len(),
        });
    }
    Ok(())
}

fn check_entry(line: u32, e: &Entry) -> Result<(), FeedError> {
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

fn first_doi(s: &str) -> Option<String> {
    s.split_whitespace().find_map(normalize_doi)
}

fn push_unique(v: &mut Vec<String>, s: String) {
    if !s.is_empty() && !v.contains(&s) {
        v.push(s);
    }
}

fn atom(doc: &Document, feed: Node) -> Result<Feed, FeedError> {
    let total_results =
        child_text(feed, OPENSEARCH_NS, "totalResults").and_then(|t| t.parse().ok());
    let mut entries = Vec::new();
    for node in feed
        .children()
        .filter(|c| c.has_tag_name((ATOM_NS, "entry")))
    {
        if entries.len() == MAX_ENTRIES {
            return Err(FeedError::TooMany {
                limit: format!("{MAX_ENTRIES} entries"),
            });
        }
        let line = line_of(doc, node);
        let id = child_text(node, ATOM_NS, "id").ok_or(FeedError::Missing {
            line,
            field: "<id>",
        })?;
        if id.contains("arxiv.org/api/errors") {
            let message = child_text(node, ATOM_NS, "summary").unwrap_or(id);
            return Err(FeedError::Api { message });
        }
        let title = child_text(node, ATOM_NS, "title").ok_or(FeedError::Missing {
            line,
            field: "<title>",
        })?;
        // The listings' Atom (rss.arxiv.org/atom) says `oai:arXiv.org:2409.11111v1`.
        let bare = id.strip_prefix("oai:arXiv.org:").unwrap_or(&id);
        let (arxiv, version) = split_version(bare).ok_or_else(|| FeedError::BadId {
            line,
            id: id.clone(),
        })?;
        let mut categories = Vec::new();
        if let Some(p) = child(node, ARXIV_NS, "primary_category").and_then(|p| p.attribute("term"))
        {
            push_unique(&mut categories, p.trim().to_string());
        }
        for c in node
            .children()
            .filter(|c| c.has_tag_name((ATOM_NS, "category")))
        {
            if let Some(t) = c.attribute("term") {
                push_unique(&mut categories, t.trim().to_string());
            }
        }
        let mut authors: Vec<String> = node
            .children()
            .filter(|c| c.has_tag_name((ATOM_NS, "author")))
            .filter_map(|a| child_text(a, ATOM_NS, "name"))
            .collect();
        if authors.is_empty() {
            authors = creators(node);
        }
        let summary = child(node, ATOM_NS, "summary")
            .map(all_text)
            .unwrap_or_default();
        let url = node
            .children()
            .filter(|c| c.has_tag_name((ATOM_NS, "link")))
            .find(|l| l.attribute("rel") == Some("alternate"))
            .and_then(|l| l.attribute("href"))
            .map(|h| h.trim().to_string())
            .unwrap_or_else(|| format!("https://arxiv.org/abs/{arxiv}"));
        // The API says `arxiv:doi`; the RSS-era Atom listings say `arxiv:DOI`.
        let doi = node
            .children()
            .find(|c| {
                c.tag_name().namespace() == Some(ARXIV_NS)
                    && c.tag_name().name().eq_ignore_ascii_case("doi")
            })
            .and_then(|d| first_doi(&all_text(d)));
        let entry = Entry {
            arxiv,
            version,
            title,
            summary: collapse(split_description(&summary).1),
            authors,
            published: child_text(node, ATOM_NS, "published").and_then(|p| iso_day(&p)),
            updated: child_text(node, ATOM_NS, "updated").and_then(|p| iso_day(&p)),
            categories,
            url,
            doi,
            comment: child_text(node, ARXIV_NS, "comment"),
            announce_type: child_text(node, ARXIV_NS, "announce_type"),
        };
        check_entry(line, &entry)?;
        entries.push(entry);
    }
    Ok(Feed {
        format: FeedFormat::Atom,
        entries,
        total_results,
    })
}

/// The names of the listings' `dc:creator` elements, which separate them with commas.
fn creators(node: Node) -> Vec<String> {
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
fn split_description(d: &str) -> (Option<&str>, &str) {
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

/// Old listings titled items `Title. (arXiv:2301.00001v1 [cs.LG])`; the suffix goes.
fn strip_title_suffix(t: &str) -> &str {
    match t.rfind(" (arXiv:") {
        Some(i) if t.ends_with(')') => t[..i].trim_end_matches('.').trim_end(),
        _ => t,
    }
}

fn rss(doc: &Document, root: Node) -> Result<Feed, FeedError> {
    let channel = root
        .children()
        .find(|c| c.has_tag_name("channel"))
        .ok_or_else(|| FeedError::NotAFeed {
            found: "an <rss> without a <channel>".into(),
        })?;
    let mut entries = Vec::new();
    for node in channel.children().filter(|c| c.has_tag_name("item")) {
        if entries.len() == MAX_ENTRIES {
            return Err(FeedError::TooMany {
                limit: format!("{MAX_ENTRIES} entries"),
            });
        }
        let line = line_of(doc, node);
        let title = child_text(node, "", "title")
            .map(|t| strip_title_suffix(&t).to_string())
            .filter(|t| !t.is_empty())
            .ok_or(FeedError::Missing {
                line,
                field: "<title>",
            })?;
        let description = child(node, "", "description")
            .map(all_text)
            .unwrap_or_default();
        let (desc_id, summary) = split_description(&description);
        let summary = collapse(summary);
        let guid = child_text(node, "", "guid");
        let link = child_text(node, "", "link");
        // The guid and the description carry the version; the link does not.
        let raw_id = guid
            .as_deref()
            .map(|g| g.strip_prefix("oai:arXiv.org:").unwrap_or(g))
            .or(desc_id)
            .or(link.as_deref())
            .ok_or(FeedError::Missing {
                line,
                field: "arXiv id (<guid>, <link> or an `arXiv:` description)",
            })?
            .to_string();
        let (arxiv, version) = split_version(&raw_id)
            .or_else(|| link.as_deref().and_then(split_version))
            .ok_or_else(|| FeedError::BadId {
                line,
                id: raw_id.clone(),
            })?;
        let mut categories = Vec::new();
        for c in node.children().filter(|c| c.has_tag_name("category")) {
            push_unique(&mut categories, collapse(&all_text(c)));
        }
        let authors = creators(node);
        let doi = node
            .children()
            .find(|c| {
                c.tag_name().namespace() == Some(ARXIV_NS)
                    && c.tag_name().name().eq_ignore_ascii_case("doi")
            })
            .and_then(|d| first_doi(&all_text(d)));
        let entry = Entry {
            url: link.unwrap_or_else(|| format!("https://arxiv.org/abs/{arxiv}")),
            arxiv,
            version,
            title,
            summary,
            authors,
            published: child_text(node, "", "pubDate").and_then(|d| rfc822_day(&d)),
            updated: None,
            categories,
            doi,
            comment: None,
            announce_type: child_text(node, ARXIV_NS, "announce_type"),
        };
        check_entry(line, &entry)?;
        entries.push(entry);
    }
    Ok(Feed {
        format: FeedFormat::Rss,
        entries,
        total_results: None,
    })
}

// ---------------------------------------------------------------------------------------------
// Live fetching

/// The API's address when `RECOMMEND_ARXIV_URL` is unset.
pub const DEFAULT_BASE_URL: &str = "https://export.arxiv.org";
/// The environment variable that points the client elsewhere (a mirror, a test server).
pub const BASE_URL_ENV: &str = "RECOMMEND_ARXIV_URL";
/// Most entries one [`Client::fetch_recent`] gathers, however many days are asked for.
pub const MAX_FETCHED: usize = 5_000;

/// A request that cannot be right, whatever the network does: the CLI's exit 2.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UsageError {
    #[error(
        "{0:?} is not an arXiv category; give one like cs.LG, math.AG, hep-th or \
         astro-ph.CO (archive[.SUBJECT])"
    )]
    BadCategory(String),
    #[error("no category given; name at least one, like cs.LG")]
    NoCategory,
    #[error("the number of days must be at least 1")]
    NoDays,
}

/// Why a fetch failed. [`FetchError::Usage`] is the caller's mistake ([`FetchError::is_usage`]);
/// the others happened at run time.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error(transparent)]
    Usage(#[from] UsageError),
    #[error("could not reach {host}: {reason}; check the network or use saved files")]
    Unreachable { host: String, reason: String },
    #[error(
        "{url} answered HTTP {status}{}; check the address ({BASE_URL_ENV}) and the categories",
        detail.as_ref().map(|d| format!(" ({d})")).unwrap_or_default()
    )]
    Status {
        status: u16,
        url: String,
        detail: Option<String>,
    },
    #[error(
        "{url} still failed after {attempts} attempts (last: {last}); arXiv may be down or \
         busy: try again later or use saved files"
    )]
    RetriesExhausted {
        url: String,
        attempts: u32,
        last: String,
    },
    #[error(
        "{url} asks to wait {seconds} s before another request; try again later or use saved \
         files"
    )]
    RateLimited { url: String, seconds: u64 },
    // The feed's error is part of the message, not a `source`: `{:#}` would print it twice.
    #[error("{url} answered with something other than an arXiv feed: {error}")]
    Feed { url: String, error: FeedError },
    #[error("reading the answer from {url} failed: {reason}; try again or use saved files")]
    Body { url: String, reason: String },
}

impl FetchError {
    /// The request itself was wrong (exit 2), not the network or arXiv (exit 1).
    pub fn is_usage(&self) -> bool {
        matches!(self, FetchError::Usage(_))
    }
}

/// `cs.LG`, `math.AG`, `hep-th`, `astro-ph.CO`, `cond-mat.stat-mech`: archive[.SUBJECT].
pub fn validate_category(c: &str) -> Result<(), UsageError> {
    fn words(s: &str, lowercase: bool) -> bool {
        !s.is_empty()
            && s.split('-').all(|w| {
                !w.is_empty()
                    && w.bytes().all(|b| b.is_ascii_alphabetic())
                    && (!lowercase || w.bytes().all(|b| b.is_ascii_lowercase()))
            })
    }
    let ok = match c.split_once('.') {
        Some((archive, subject)) => words(archive, true) && words(subject, false),
        None => words(c, true),
    };
    if ok && c.len() <= 40 {
        Ok(())
    } else {
        Err(UsageError::BadCategory(c.to_string()))
    }
}

/// A client of the arXiv API that keeps arXiv's terms: one request at a time, at least
/// [`Client::delay`] apart, a descriptive User-Agent, and backing off when told to.
pub struct Client {
    base: String,
    agent: ureq::Agent,
    /// Least time between two requests (arXiv asks for 3 s).
    pub delay: Duration,
    /// The wait before the first retry; doubled for each later one. A `Retry-After` of more
    /// seconds wins, up to [`Client::max_retry_after`].
    pub backoff: Duration,
    /// A `Retry-After` longer than this stops the fetch ([`FetchError::RateLimited`]).
    pub max_retry_after: Duration,
    /// Attempts per request, the first included.
    pub attempts: u32,
    /// Results asked for per request.
    pub page_size: usize,
    /// Most entries gathered by one [`Client::fetch_recent`].
    pub max_entries: usize,
    last_request: Mutex<Option<Instant>>,
}

impl Default for Client {
    fn default() -> Self {
        Self::new()
    }
}

impl Client {
    /// A client of `RECOMMEND_ARXIV_URL`, else of [`DEFAULT_BASE_URL`].
    pub fn new() -> Client {
        let base = std::env::var(BASE_URL_ENV)
            .ok()
            .map(|b| b.trim().to_string())
            .filter(|b| !b.is_empty())
            .unwrap_or_else(|| DEFAULT_BASE_URL.to_string());
        Client::with_base(&base)
    }

    /// A client of `base` (`https://export.arxiv.org`, `http://127.0.0.1:8080`).
    pub fn with_base(base: &str) -> Client {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(Duration::from_secs(10)))
            .timeout_global(Some(Duration::from_secs(60)))
            .user_agent(format!(
                "recommend/{} (offline research-paper recommendations; reads new papers of \
                 chosen categories, one request every few seconds)",
                env!("CARGO_PKG_VERSION")
            ))
            .build()
            .into();
        Client {
            base: base.trim_end_matches('/').to_string(),
            agent,
            delay: Duration::from_secs(3),
            backoff: Duration::from_secs(4),
            max_retry_after: Duration::from_secs(300),
            attempts: 4,
            page_size: 200,
            max_entries: MAX_FETCHED,
            last_request: Mutex::new(None),
        }
    }

    /// The address requests go to.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// The papers of `categories` submitted in the last `days` days before `now` (newest
    /// first, each once), paging through the API until entries get older, the results run
    /// out, or [`Client::max_entries`] are gathered. Categories are checked before any request.
    pub fn fetch_recent(
        &self,
        categories: &[String],
        days: u32,
        now: SystemTime,
    ) -> Result<Vec<Entry>, FetchError> {
        if categories.is_empty() {
            return Err(UsageError::NoCategory.into());
        }
        for c in categories {
            validate_category(c)?;
        }
        if days == 0 {
            return Err(UsageError::NoDays.into());
        }
        let cutoff = day_before(now, days);
        let query = categories
            .iter()
            .map(|c| format!("cat:{c}"))
            .collect::<Vec<_>>()
            .join("+OR+");
        let page_size = self.page_size.max(1);
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        let mut start = 0usize;
        loop {
            let url = format!(
                "{}/api/query?search_query={query}&sortBy=submittedDate&sortOrder=descending\
                 &start={start}&max_results={page_size}",
                self.base
            );
            let feed = self.get_feed(&url)?;
            let n = feed.entries.len();
            let mut older = false;
            for e in feed.entries {
                if e.published.as_deref().is_some_and(|p| p < cutoff.as_str()) {
                    older = true;
                    continue;
                }
                if out.len() < self.max_entries && seen.insert(e.arxiv.clone()) {
                    out.push(e);
                }
            }
            start += n;
            let exhausted = feed.total_results.is_some_and(|t| start as u64 >= t);
            if n == 0 || older || exhausted || out.len() >= self.max_entries {
                return Ok(out);
            }
        }
    }

    /// One page of the API, retried on 429 and 5xx.
    pub fn get_feed(&self, url: &str) -> Result<Feed, FetchError> {
        let attempts = self.attempts.max(1);
        let mut last = String::new();
        for attempt in 1..=attempts {
            self.pace();
            let result = self.agent.get(url).call();
            let mut resp = match result {
                Ok(r) => r,
                Err(e) => return Err(self.transport(url, e)),
            };
            let status = resp.status().as_u16();
            let retry_after = resp
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok());
            let body = resp
                .body_mut()
                .with_config()
                .limit(MAX_DOCUMENT_BYTES as u64)
                .read_to_string();
            match status {
                200..=299 => {
                    let body = body.map_err(|e| self.body_error(url, e))?;
                    return parse(&body).map_err(|error| FetchError::Feed {
                        url: url.to_string(),
                        error,
                    });
                }
                429 | 500 | 502 | 503 | 504 => {
                    last = format!("HTTP {status}");
                    if attempt == attempts {
                        break;
                    }
                    let mut wait = self.backoff.saturating_mul(1 << (attempt - 1).min(16));
                    if let Some(s) = retry_after {
                        let asked = Duration::from_secs(s);
                        if asked > self.max_retry_after {
                            return Err(FetchError::RateLimited {
                                url: url.to_string(),
                                seconds: s,
                            });
                        }
                        wait = wait.max(asked);
                    }
                    std::thread::sleep(wait);
                }
                _ => {
                    // A refused query comes back as 400 with an Atom error entry: say what it says.
                    let detail = body.ok().and_then(|b| match parse(&b) {
                        Err(FeedError::Api { message }) => Some(message),
                        _ => None,
                    });
                    return Err(FetchError::Status {
                        status,
                        url: url.to_string(),
                        detail,
                    });
                }
            }
        }
        Err(FetchError::RetriesExhausted {
            url: url.to_string(),
            attempts,
            last,
        })
    }

    /// Waits until [`Client::delay`] has passed since the last request, then notes this one.
    fn pace(&self) {
        let mut last = self.last_request.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(t) = *last {
            let since = t.elapsed();
            if since < self.delay {
                std::thread::sleep(self.delay - since);
            }
        }
        *last = Some(Instant::now());
    }

    fn host(&self) -> String {
        let rest = self
            .base
            .split_once("://")
            .map_or(self.base.as_str(), |(_, r)| r);
        rest.split('/').next().unwrap_or(rest).to_string()
    }

    fn transport(&self, url: &str, e: ureq::Error) -> FetchError {
        match e {
            ureq::Error::BodyExceedsLimit(_) => self.body_error(url, e),
            ureq::Error::StatusCode(status) => FetchError::Status {
                status,
                url: url.to_string(),
                detail: None,
            },
            other => FetchError::Unreachable {
                host: self.host(),
                reason: other.to_string(),
            },
        }
    }

    fn body_error(&self, url: &str, e: ureq::Error) -> FetchError {
        let reason = match e {
            ureq::Error::BodyExceedsLimit(_) => {
                format!("the answer is larger than the {MAX_DOCUMENT_BYTES} bytes a feed may be")
            }
            other => other.to_string(),
        };
        FetchError::Body {
            url: url.to_string(),
            reason,
        }
    }
}

/// `YYYY-MM-DD` of the day `days` before `now` (UTC).
fn day_before(now: SystemTime, days: u32) -> String {
    let secs = now
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    civil(secs.div_euclid(86_400) - i64::from(days))
}

/// Days since 1970-01-01 -> `YYYY-MM-DD` (proleptic Gregorian; Howard Hinnant's algorithm).
fn civil(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::fields::{Origin, Outcome, map_record};
    use std::io::{Read, Write};
    use std::net::TcpListener;
    use std::sync::Arc;

    fn fixture(name: &str) -> String {
        let path = format!("{}/tests/fixtures/arxiv/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    /// 2026-12-03T12:00:00Z.
    fn now() -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(20_790 * 86_400 + 12 * 3_600)
    }

    #[test]
    fn atom_page_of_the_classic_layout() {
        let feed = parse(&fixture("api-page1.atom")).unwrap();
        assert_eq!(feed.format, FeedFormat::Atom);
        assert_eq!(feed.total_results, Some(3));
        assert_eq!(feed.entries.len(), 2);
        let e = &feed.entries[0];
        assert_eq!(e.arxiv, "2612.01234");
        assert_eq!(e.version, Some(2));
        assert_eq!(
            e.title,
            "Sparse Retrieval Heads: Locating Where Long-Context Models Look Things Up"
        );
        assert!(
            e.summary
                .starts_with("Language models that read long inputs")
        );
        assert!(e.summary.ends_with("40% lower decoding cost."));
        assert!(!e.summary.contains('\n') && !e.summary.contains("  "));
        assert_eq!(
            e.authors,
            ["Maren Okafor", "Tomasz Lindqvist", "Priya Raman"]
        );
        assert_eq!(e.published.as_deref(), Some("2026-12-02"));
        assert_eq!(e.updated.as_deref(), Some("2026-12-02"));
        assert_eq!(e.categories, ["cs.CL", "cs.LG"]);
        assert_eq!(e.url, "http://arxiv.org/abs/2612.01234v2");
        assert_eq!(e.doi.as_deref(), Some("10.48550/arXiv.2612.01234"));
        assert_eq!(
            e.comment.as_deref(),
            Some("14 pages, 6 figures; v2 adds results on two more model families")
        );
        let e = &feed.entries[1];
        assert_eq!((e.arxiv.as_str(), e.version), ("2612.00987", Some(1)));
        assert_eq!(e.categories, ["cs.LG", "stat.ML"]);
        assert_eq!(e.doi, None);
        assert_eq!(e.comment, None);
    }

    #[test]
    fn atom_page_of_the_current_layout() {
        let feed = parse(&fixture("api-page2.atom")).unwrap();
        assert_eq!(feed.total_results, Some(3));
        let [e] = feed.entries.as_slice() else {
            panic!("one entry expected: {:?}", feed.entries)
        };
        assert_eq!(e.arxiv, "2611.30412");
        assert_eq!(
            e.title,
            "Tokenizer Drift: How Vocabulary Updates Break Cached Embeddings & What to Do About It"
        );
        // The primary category comes first even when listed last.
        assert_eq!(e.categories, ["cs.IR", "cs.CL"]);
        assert_eq!(e.authors, ["Élodie Marchand", "Kwame Asante"]);
        assert_eq!(e.url, "https://arxiv.org/abs/2611.30412v1");
        assert_eq!(e.published.as_deref(), Some("2026-11-30"));
    }

    #[test]
    fn atom_listing_of_the_rss_service() {
        let text = r#"<?xml version='1.0' encoding='UTF-8'?>
<feed xmlns:arxiv="http://arxiv.org/schemas/atom" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns="http://www.w3.org/2005/Atom" xml:lang="en-us">
  <id>http://rss.arxiv.org/atom/cs.LG</id>
  <title>cs.LG updates on arXiv.org</title>
  <updated>2026-12-03T05:00:12.000000+00:00</updated>
  <link href="http://rss.arxiv.org/atom/cs.LG" rel="self" type="application/atom+xml"/>
  <subtitle>cs.LG updates on the arXiv.org e-print archive.</subtitle>
  <entry>
    <id>oai:arXiv.org:2612.00987v1</id>
    <title>Calibrated Early Exit for Graph Neural Networks on Streaming Data</title>
    <updated>2026-12-03T00:00:00-05:00</updated>
    <link href="https://arxiv.org/abs/2612.00987" rel="alternate" type="text/html"/>
    <summary>arXiv:2612.00987v1 Announce Type: new 
Abstract: Graph neural networks applied to event streams spend the same compute on every node.</summary>
    <category term="cs.LG" scheme="http://arxiv.org/schemas/atom"/>
    <published>2026-12-03T00:00:00-05:00</published>
    <arxiv:announce_type>new</arxiv:announce_type>
    <dc:rights>http://creativecommons.org/licenses/by/4.0/</dc:rights>
    <dc:creator>Jun-seo Park, Ana Beatriz Queiroz</dc:creator>
  </entry>
</feed>"#;
        let [e]: [Entry; 1] = parse_feed(text).unwrap().try_into().unwrap();
        assert_eq!((e.arxiv.as_str(), e.version), ("2612.00987", Some(1)));
        assert_eq!(
            e.summary,
            "Graph neural networks applied to event streams spend the same compute on every node."
        );
        assert_eq!(e.authors, ["Jun-seo Park", "Ana Beatriz Queiroz"]);
        assert_eq!(e.announce_type.as_deref(), Some("new"));
        assert_eq!(e.published.as_deref(), Some("2026-12-03"));
    }

    #[test]
    fn rss_listing() {
        let feed = parse(&fixture("listing.rss")).unwrap();
        assert_eq!(feed.format, FeedFormat::Rss);
        assert_eq!(feed.total_results, None);
        assert_eq!(feed.entries.len(), 3);
        let e = &feed.entries[0];
        assert_eq!((e.arxiv.as_str(), e.version), ("2612.00987", Some(1)));
        assert_eq!(
            e.title,
            "Calibrated Early Exit for Graph Neural Networks on Streaming Data"
        );
        assert!(
            e.summary.starts_with("Graph neural networks applied"),
            "{}",
            e.summary
        );
        assert!(!e.summary.contains("Announce Type"));
        assert_eq!(e.authors, ["Jun-seo Park", "Ana Beatriz Queiroz"]);
        assert_eq!(e.categories, ["cs.LG", "stat.ML"]);
        assert_eq!(e.published.as_deref(), Some("2026-12-03"));
        assert_eq!(e.url, "https://arxiv.org/abs/2612.00987");
        assert_eq!(e.announce_type.as_deref(), Some("new"));
        assert_eq!(feed.entries[1].announce_type.as_deref(), Some("cross"));
        let e = &feed.entries[2];
        assert_eq!((e.arxiv.as_str(), e.version), ("2605.11873", Some(3)));
        assert_eq!(e.announce_type.as_deref(), Some("replace"));
        assert_eq!(e.authors.len(), 3);
        assert_eq!(e.doi.as_deref(), Some("10.1145/3701234.3705678"));
    }

    #[test]
    fn old_rss_titles_lose_their_id_suffix() {
        assert_eq!(
            strip_title_suffix("A Study of Things. (arXiv:2301.00001v1 [cs.LG])"),
            "A Study of Things"
        );
        assert_eq!(
            strip_title_suffix("Plain (with parens)"),
            "Plain (with parens)"
        );
    }

    #[test]
    fn records_map_onto_papers_without_ignored_keys() {
        for name in ["api-page1.atom", "listing.rss"] {
            for e in parse_feed(&fixture(name)).unwrap() {
                let Outcome::Paper(m) = map_record(&e.to_record(), Origin::Json) else {
                    panic!("{name}: {} did not map", e.arxiv)
                };
                assert!(m.ignored.is_empty(), "{:?}", m.ignored);
                assert!(!m.derived_id);
                let p = &m.paper;
                assert_eq!(p.id, e.arxiv);
                assert_eq!(p.arxiv.as_deref(), Some(e.arxiv.as_str()));
                assert_eq!(p.title, e.title);
                assert_eq!(p.summary, e.summary);
                assert_eq!(p.year, Some(2026));
                assert_eq!(p.authors, Some(e.authors.join(", ")));
                assert_eq!(p.doi, e.doi);
                assert_eq!(p.url.as_deref(), Some(e.url.as_str()));
                for c in &e.categories {
                    assert!(p.keywords.contains(c), "{c} not in {:?}", p.keywords);
                }
            }
        }
    }

    #[test]
    fn truncated_document_names_where_it_ends() {
        let err = parse_feed(&fixture("truncated.atom")).unwrap_err();
        let msg = err.to_string();
        match &err {
            FeedError::Truncated { line, .. } | FeedError::Malformed { line, .. } => {
                assert!(*line >= 30, "{msg}")
            }
            other => panic!("{other:?}"),
        }
        assert!(msg.contains("line 3"), "{msg}");
        // Cut between two elements, too.
        let text = fixture("api-page1.atom");
        let cut = &text[..text.find("  <entry>").unwrap()];
        let err = parse_feed(cut).unwrap_err();
        assert!(
            matches!(err, FeedError::Truncated { line: 10, .. }),
            "{err}"
        );
    }

    #[test]
    fn malformed_xml_has_line_and_column() {
        let text =
            fixture("api-page1.atom").replace("</title>\n    <summary>", "</titel>\n    <summary>");
        let err = parse_feed(&text).unwrap_err();
        let FeedError::Malformed { line, col, .. } = &err else {
            panic!("{err:?}")
        };
        // roxmltree places a mismatched close tag at its element's start.
        assert_eq!(*line, 15);
        assert!(*col > 1);
        assert!(err.to_string().contains("line 15, column"), "{err}");
        assert!(err.to_string().contains("titel"), "{err}");
    }

    #[test]
    fn html_page_is_named_as_such() {
        let err = parse_feed(&fixture("error.html")).unwrap_err();
        assert_eq!(
            err,
            FeedError::Html {
                title: Some("503 Service Unavailable | arXiv e-print repository".into())
            }
        );
        assert!(err.to_string().contains("HTML page"), "{err}");
        // Well-formed XHTML too.
        let err = parse_feed("<?xml version=\"1.0\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><head><title>Oops</title></head><body/></html>").unwrap_err();
        assert_eq!(
            err,
            FeedError::Html {
                title: Some("Oops".into())
            }
        );
    }

    #[test]
    fn other_documents_are_neither_atom_nor_rss() {
        let err = parse_feed("<svg xmlns=\"http://www.w3.org/2000/svg\"/>").unwrap_err();
        assert!(matches!(err, FeedError::NotAFeed { .. }), "{err:?}");
        assert!(err.to_string().contains("<svg>"), "{err}");
        let err = parse_feed("Rate exceeded.").unwrap_err();
        assert!(err.to_string().contains("Rate exceeded."), "{err}");
        let err = parse_feed("<feed><entry/></feed>").unwrap_err();
        assert!(err.to_string().contains("no namespace"), "{err}");
        assert!(matches!(parse_feed("  "), Err(FeedError::NotAFeed { .. })));
        let err = parse_feed("<rss version=\"2.0\"></rss>").unwrap_err();
        assert!(err.to_string().contains("without a <channel>"), "{err}");
    }

    #[test]
    fn zero_entries_is_ok_and_empty() {
        let feed = parse(&fixture("empty.atom")).unwrap();
        assert!(feed.entries.is_empty());
        assert_eq!(feed.total_results, Some(0));
        let rss = "<rss version=\"2.0\"><channel><title>cs.LG updates on arXiv.org</title></channel></rss>";
        assert_eq!(parse_feed(rss).unwrap(), vec![]);
    }

    #[test]
    fn entry_without_title_or_id_is_named_by_line() {
        let text = fixture("api-page1.atom").replace(
            "    <title>Calibrated Early Exit for Graph Neural Networks on Streaming Data</title>\n",
            "",
        );
        let err = parse_feed(&text).unwrap_err();
        assert_eq!(
            err,
            FeedError::Missing {
                line: 41,
                field: "<title>"
            }
        );
        assert!(err.to_string().contains("line 41"), "{err}");
        let text = fixture("api-page1.atom")
            .replace("    <id>http://arxiv.org/abs/2612.00987v1</id>\n", "");
        assert!(matches!(
            parse_feed(&text),
            Err(FeedError::Missing {
                line: 41,
                field: "<id>"
            })
        ));
        let text = fixture("api-page1.atom").replace(
            "http://arxiv.org/abs/2612.00987v1</id>",
            "urn:uuid:1234</id>",
        );
        assert!(matches!(
            parse_feed(&text),
            Err(FeedError::BadId { line: 41, .. })
        ));
        let rss = fixture("listing.rss").replace(
            "      <title>Calibrated Early Exit for Graph Neural Networks on Streaming Data</title>\n",
            "",
        );
        assert!(matches!(
            parse_feed(&rss),
            Err(FeedError::Missing {
                line: 17,
                field: "<title>"
            })
        ));
    }

    #[test]
    fn api_error_entry_is_reported() {
        let text = r#"<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title type="html">ArXiv Query: search_query=&amp;id_list=1234.12345v&amp;start=0&amp;max_results=10</title>
  <id>http://arxiv.org/api/ad7WzOz5Zy0cFMRLhV0cZl3AR1k</id>
  <opensearch:totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">1</opensearch:totalResults>
  <entry>
    <id>http://arxiv.org/api/errors#incorrect_id_format_for_1234.12345v</id>
    <title>Error</title>
    <summary>incorrect id format for 1234.12345v</summary>
    <updated>2026-12-03T00:00:00-05:00</updated>
    <link href="http://arxiv.org/api/errors#incorrect_id_format_for_1234.12345v" rel="alternate" type="text/html"/>
    <author>
      <name>arXiv api core</name>
    </author>
  </entry>
</feed>"#;
        assert_eq!(
            parse_feed(text).unwrap_err(),
            FeedError::Api {
                message: "incorrect id format for 1234.12345v".into()
            }
        );
    }

    #[test]
    fn bounds_are_kept() {
        let deep = format!(
            "<feed xmlns=\"{ATOM_NS}\">{}{}</feed>",
            "<x>".repeat(200),
            "</x>".repeat(200)
        );
        assert!(matches!(
            parse_feed(&deep),
            Err(FeedError::TooDeep { line: 1 })
        ));
        // Far deeper than any stack: refused, not a crash.
        let deeper = format!(
            "<feed xmlns=\"{ATOM_NS}\">{}{}</feed>",
            "<x>".repeat(200_000),
            "</x>".repeat(200_000)
        );
        assert!(matches!(
            parse_feed(&deeper),
            Err(FeedError::TooDeep { .. })
        ));
        let long = "word ".repeat(MAX_FIELD_BYTES / 5 + 1);
        let text = fixture("api-page2.atom").replace("Retrieval systems often", &long);
        assert!(matches!(
            parse_feed(&text),
            Err(FeedError::FieldTooLong {
                line: 10,
                field: "summary",
                ..
            })
        ));
        let huge = " ".repeat(MAX_DOCUMENT_BYTES + 1);
        assert!(matches!(parse_feed(&huge), Err(FeedError::TooLarge { .. })));
    }

    #[test]
    fn dates_and_ids() {
        assert_eq!(civil(0), "1970-01-01");
        assert_eq!(civil(11_016), "2000-02-29");
        assert_eq!(civil(20_790), "2026-12-03");
        assert_eq!(day_before(now(), 7), "2026-11-26");
        assert_eq!(
            rfc822_day("Wed, 19 Mar 2025 00:00:00 -0400").as_deref(),
            Some("2025-03-19")
        );
        assert_eq!(rfc822_day("not a date"), None);
        assert_eq!(
            iso_day("2025-03-18T17:59:59Z").as_deref(),
            Some("2025-03-18")
        );
        assert_eq!(iso_day("March 2025"), None);
        assert_eq!(
            split_version("http://arxiv.org/abs/2503.14476v2"),
            Some(("2503.14476".into(), Some(2)))
        );
        assert_eq!(
            split_version("http://arxiv.org/abs/hep-th/9901001v1"),
            Some(("hep-th/9901001".into(), Some(1)))
        );
        assert_eq!(
            split_version("2503.14476"),
            Some(("2503.14476".into(), None))
        );
    }

    #[test]
    fn categories_are_checked_before_any_request() {
        for good in [
            "cs.LG",
            "math.AG",
            "hep-th",
            "astro-ph.CO",
            "cond-mat.stat-mech",
            "stat.ML",
            "q-bio.NC",
        ] {
            assert_eq!(validate_category(good), Ok(()), "{good}");
        }
        for bad in [
            "",
            "cs.",
            ".LG",
            "CS.LG",
            "cs LG",
            "cs.LG+OR+x",
            "cs.LG&start=9",
            "cs.L1",
            "cs..LG",
            "-cs",
        ] {
            assert!(validate_category(bad).is_err(), "{bad:?}");
        }
        // A closed port: a request would fail as unreachable, not as a usage error.
        let client = Client::with_base(&closed_port_base());
        for cats in [vec!["cs.LG".to_string(), "cs LG".to_string()], vec![]] {
            let err = client.fetch_recent(&cats, 3, now()).unwrap_err();
            assert!(err.is_usage(), "{err}");
        }
        let err = client
            .fetch_recent(&["cs.LG".into()], 0, now())
            .unwrap_err();
        assert!(err.is_usage(), "{err}");
    }

    // --- a local HTTP server answering canned responses -------------------------------------

    struct Canned {
        status: u16,
        headers: Vec<(&'static str, String)>,
        body: String,
    }

    fn ok(body: String) -> Canned {
        Canned {
            status: 200,
            headers: vec![("Content-Type", "application/atom+xml; charset=utf-8".into())],
            body,
        }
    }

    fn status(status: u16, headers: Vec<(&'static str, String)>) -> Canned {
        Canned {
            status,
            headers,
            body: format!("status {status}"),
        }
    }

    /// Serves `responses` in order, one a connection, then stops; gives the base URL and the
    /// requests seen (request line and User-Agent).
    fn serve(responses: Vec<Canned>) -> (String, Arc<Mutex<Vec<String>>>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        listener.set_nonblocking(true).unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(20);
            for r in responses {
                let mut stream = loop {
                    match listener.accept() {
                        Ok((s, _)) => break s,
                        Err(_) if Instant::now() < deadline => {
                            std::thread::sleep(Duration::from_millis(2))
                        }
                        Err(_) => return,
                    }
                };
                stream.set_nonblocking(false).unwrap();
                stream
                    .set_read_timeout(Some(Duration::from_secs(5)))
                    .unwrap();
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&head).to_string();
                let line = head.lines().next().unwrap_or("").to_string();
                let agent = head
                    .lines()
                    .find_map(|l| {
                        l.split_once(':')
                            .filter(|(k, _)| k.eq_ignore_ascii_case("user-agent"))
                            .map(|(_, v)| v.trim().to_string())
                    })
                    .unwrap_or_default();
                log.lock().unwrap().push(format!("{line}\n{agent}"));
                let mut out = format!(
                    "HTTP/1.1 {} Canned\r\nContent-Length: {}\r\nConnection: close\r\n",
                    r.status,
                    r.body.len()
                );
                for (k, v) in &r.headers {
                    out.push_str(&format!("{k}: {v}\r\n"));
                }
                out.push_str("\r\n");
                out.push_str(&r.body);
                let _ = stream.write_all(out.as_bytes());
                let _ = stream.flush();
            }
        });
        (base, seen)
    }

    fn closed_port_base() -> String {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        drop(listener);
        base
    }

    fn quick(base: &str) -> Client {
        let mut c = Client::with_base(base);
        c.delay = Duration::from_millis(1);
        c.backoff = Duration::from_millis(1);
        c.page_size = 2;
        c
    }

    fn cats() -> Vec<String> {
        vec!["cs.LG".into(), "cs.CL".into()]
    }

    #[test]
    fn pages_until_the_results_run_out() {
        let (base, seen) = serve(vec![
            ok(fixture("api-page1.atom")),
            ok(fixture("api-page2.atom")),
        ]);
        let entries = quick(&base).fetch_recent(&cats(), 7, now()).unwrap();
        let ids: Vec<_> = entries.iter().map(|e| e.arxiv.as_str()).collect();
        assert_eq!(ids, ["2612.01234", "2612.00987", "2611.30412"]);
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 2, "{seen:?}");
        assert!(
            seen[0].starts_with(
                "GET /api/query?search_query=cat:cs.LG+OR+cat:cs.CL&sortBy=submittedDate\
                 &sortOrder=descending&start=0&max_results=2 HTTP/1.1"
            ),
            "{}",
            seen[0]
        );
        assert!(seen[1].contains("&start=2&max_results=2 "), "{}", seen[1]);
        assert!(seen[0].contains("\nrecommend/"), "{}", seen[0]);
    }

    #[test]
    fn paging_stops_at_older_entries() {
        // Page 1 ends with a paper of 2026-12-01; one day back from 2026-12-03 is 2026-12-02.
        let (base, seen) = serve(vec![
            ok(fixture("api-page1.atom")),
            ok(fixture("api-page2.atom")),
        ]);
        let entries = quick(&base).fetch_recent(&cats(), 1, now()).unwrap();
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].arxiv, "2612.01234");
        assert_eq!(seen.lock().unwrap().len(), 1);
    }

    #[test]
    fn the_cap_stops_paging() {
        let (base, seen) = serve(vec![
            ok(fixture("api-page1.atom")),
            ok(fixture("api-page2.atom")),
        ]);
        let mut client = quick(&base);
        client.max_entries = 2;
        assert_eq!(client.fetch_recent(&cats(), 7, now()).unwrap().len(), 2);
        assert_eq!(seen.lock().unwrap().len(), 1);
    }

    #[test]
    fn empty_answer_is_no_entries() {
        let (base, _) = serve(vec![ok(fixture("empty.atom"))]);
        assert_eq!(
            quick(&base).fetch_recent(&cats(), 7, now()).unwrap(),
            vec![]
        );
    }

    #[test]
    fn a_503_is_retried() {
        let (base, seen) = serve(vec![
            status(503, vec![]),
            ok(fixture("api-page1.atom")),
            ok(fixture("api-page2.atom")),
        ]);
        let entries = quick(&base).fetch_recent(&cats(), 7, now()).unwrap();
        assert_eq!(entries.len(), 3);
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 3);
        // The retry asks for the same page again.
        assert_eq!(seen[0], seen[1]);
    }

    #[test]
    fn a_429_waits_as_told() {
        let (base, seen) = serve(vec![
            status(429, vec![("Retry-After", "1".into())]),
            ok(fixture("api-page1.atom")),
            ok(fixture("api-page2.atom")),
        ]);
        let t = Instant::now();
        let entries = quick(&base).fetch_recent(&cats(), 7, now()).unwrap();
        assert!(t.elapsed() >= Duration::from_secs(1), "{:?}", t.elapsed());
        assert_eq!(entries.len(), 3);
        assert_eq!(seen.lock().unwrap().len(), 3);
    }

    #[test]
    fn a_long_retry_after_stops() {
        let (base, _) = serve(vec![status(429, vec![("Retry-After", "3600".into())])]);
        let err = quick(&base).fetch_recent(&cats(), 7, now()).unwrap_err();
        assert!(
            matches!(err, FetchError::RateLimited { seconds: 3600, .. }),
            "{err}"
        );
        assert!(!err.is_usage());
    }

    #[test]
    fn a_permanent_500_gives_up_naming_the_url() {
        let (base, seen) = serve((0..4).map(|_| status(500, vec![])).collect());
        let err = quick(&base).fetch_recent(&cats(), 7, now()).unwrap_err();
        let msg = err.to_string();
        assert!(
            matches!(&err, FetchError::RetriesExhausted { attempts: 4, last, .. } if last == "HTTP 500"),
            "{msg}"
        );
        assert!(
            msg.contains(&format!("{base}/api/query?search_query=cat:cs.LG")),
            "{msg}"
        );
        assert_eq!(seen.lock().unwrap().len(), 4);
    }

    #[test]
    fn a_client_error_is_not_retried() {
        let body = r#"<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>http://arxiv.org/api/errors#bad_query</id><title>Error</title><summary>malformed query</summary></entry></feed>"#;
        let (base, seen) = serve(vec![Canned {
            status: 400,
            headers: vec![],
            body: body.into(),
        }]);
        let err = quick(&base).fetch_recent(&cats(), 7, now()).unwrap_err();
        assert!(
            matches!(&err, FetchError::Status { status: 400, detail: Some(d), .. } if d == "malformed query"),
            "{err}"
        );
        assert!(err.to_string().contains(&base), "{err}");
        assert_eq!(seen.lock().unwrap().len(), 1);
    }

    #[test]
    fn an_html_answer_is_named() {
        let (base, _) = serve(vec![Canned {
            status: 200,
            headers: vec![("Content-Type", "text/html".into())],
            body: fixture("error.html"),
        }]);
        let err = quick(&base).fetch_recent(&cats(), 7, now()).unwrap_err();
        assert!(
            matches!(
                &err,
                FetchError::Feed {
                    error: FeedError::Html { .. },
                    ..
                }
            ),
            "{err}"
        );
        assert!(err.to_string().contains("HTML page"), "{err}");
    }

    #[test]
    fn a_refused_connection_is_offline() {
        let base = closed_port_base();
        let err = quick(&base).fetch_recent(&cats(), 7, now()).unwrap_err();
        let host = base.trim_start_matches("http://");
        assert!(
            matches!(&err, FetchError::Unreachable { host: h, .. } if h == host),
            "{err}"
        );
        let msg = err.to_string();
        assert!(
            msg.starts_with(&format!("could not reach {host}: ")),
            "{msg}"
        );
        assert!(
            msg.ends_with("check the network or use saved files"),
            "{msg}"
        );
        assert!(!err.is_usage());
    }

    #[test]
    fn https_goes_through_tls() {
        // A plain-text server on an https address: the TLS handshake is tried, and fails on
        // the answer (rustls: "received corrupt message"), not for want of TLS support.
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("https://{}", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            if let Ok((mut s, _)) = listener.accept() {
                let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
            }
        });
        let err = quick(&base).fetch_recent(&cats(), 7, now()).unwrap_err();
        let FetchError::Unreachable { reason, .. } = &err else {
            panic!("{err:?}")
        };
        assert!(!reason.contains("TLS required"), "{reason}");
        assert!(reason.contains("corrupt message"), "{reason}");
    }

    #[test]
    fn requests_are_paced() {
        let (base, _) = serve(vec![
            ok(fixture("api-page1.atom")),
            ok(fixture("api-page2.atom")),
        ]);
        let mut client = quick(&base);
        client.delay = Duration::from_millis(300);
        let t = Instant::now();
        client.fetch_recent(&cats(), 7, now()).unwrap();
        assert!(
            t.elapsed() >= Duration::from_millis(300),
            "{:?}",
            t.elapsed()
        );
    }

    #[test]
    fn base_url_defaults_and_trims() {
        assert_eq!(
            Client::with_base("http://127.0.0.1:9/").base(),
            "http://127.0.0.1:9"
        );
        let c = Client::with_base(DEFAULT_BASE_URL);
        assert_eq!(c.delay, Duration::from_secs(3));
        assert_eq!(c.attempts, 4);
        assert_eq!(c.max_entries, MAX_FETCHED);
        assert_eq!(c.host(), "export.arxiv.org");
    }
}
