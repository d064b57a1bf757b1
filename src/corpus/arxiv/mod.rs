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
//!
//! The code: this file holds the entry, the errors and [`parse`]; `xml` the helpers both
//! readers share; `atom` and `rss` the two formats; `fetch` the live [`Client`].

mod atom;
mod fetch;
mod rss;
mod xml;

#[cfg(test)]
mod tests;

use roxmltree::{Document, Node, ParsingOptions};
use serde_json::Value;

use super::fields::{MAX_FIELD_BYTES, Record};
use atom::atom;
use rss::rss;
use xml::{all_text, collapse, line_of};

pub use fetch::{
    BASE_URL_ENV, Client, DEFAULT_BASE_URL, FetchError, IDS_PER_REQUEST, MAX_FETCHED, Retry,
    UsageError, validate_category,
};

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
    /// The line of the document where the entry starts (for messages naming file:line).
    pub line: u32,
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
    /// Entries left out, each with its problem and line: [`parse`] refuses a document with
    /// any, [`parse_fetched`] keeps the rest.
    pub skipped: Vec<FeedError>,
    /// The arXiv ids of the entries in [`Feed::skipped`] whose id could be read: arXiv answered
    /// for them, unreadably.
    pub skipped_ids: Vec<String>,
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

impl FeedError {
    /// The line of the document the error is at, when it is at one.
    pub fn line(&self) -> Option<u32> {
        match self {
            FeedError::Truncated { line, .. }
            | FeedError::Malformed { line, .. }
            | FeedError::TooDeep { line }
            | FeedError::Missing { line, .. }
            | FeedError::BadId { line, .. }
            | FeedError::FieldTooLong { line, .. } => Some(*line),
            _ => None,
        }
    }
}

/// `entries` with one entry per arXiv id, and the (title, line, line of the entry kept) of each
/// left out. One id is one paper whatever its titles: pages saved together overlap, and a
/// title revised between versions would otherwise make two papers of one id (a duplicate id
/// refused the whole file). The latest version is kept, in the place of the first.
pub fn one_per_id(entries: Vec<Entry>) -> (Vec<Entry>, Vec<(String, u32, u32)>) {
    let mut first: std::collections::HashMap<String, usize> = Default::default();
    let mut kept: Vec<Entry> = Vec::new();
    let mut repeats = Vec::new();
    for e in entries {
        match first.get(&e.arxiv) {
            Some(&k) => {
                let at = kept[k].line;
                repeats.push((e.title.clone(), e.line, at));
                if e.version > kept[k].version {
                    kept[k] = Entry { line: at, ..e };
                }
            }
            None => {
                first.insert(e.arxiv.clone(), kept.len());
                kept.push(e);
            }
        }
    }
    (kept, repeats)
}

/// The entries of an arXiv Atom or RSS document.
pub fn parse_feed(text: &str) -> Result<Vec<Entry>, FeedError> {
    parse(text).map(|f| f.entries)
}

/// The document with what it says of the query ([`Feed::total_results`]). A file is the
/// user's to fix, so its first bad entry is the error, with its line.
pub fn parse(text: &str) -> Result<Feed, FeedError> {
    let feed = parse_fetched(text)?;
    match feed.skipped.first() {
        Some(e) => Err(e.clone()),
        None => Ok(feed),
    }
}

/// [`parse`] of a page arXiv answered: an entry it cannot read (no title, a field past its
/// limit) is left out and listed in [`Feed::skipped`], since nobody can fix arXiv's answer and
/// asking again gives the same page.
pub fn parse_fetched(text: &str) -> Result<Feed, FeedError> {
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
