//! Paper records as columns: one text section per field, plus a sorted name table.
//!
//! Decoding 100k records up front costs more than the whole `--like` budget, so the index keeps
//! them as columns and materializes a [`Paper`] only when one is shown. Filters read single
//! fields, and name resolution binary-searches the name table, without building records.

use std::borrow::Cow;
use std::ops::Range;

use crate::corpus::{Kind, Paper};
use crate::text::name_key;

/// Joins the items of a list field (aliases, sources) inside one column entry.
const LIST_SEP: char = '\u{1f}';

/// The text columns, in section order; each is stored as `papers.<name>` (the UTF-8 text) and
/// `papers.<name>.offsets` (`n + 1` u64 positions).
pub const TEXT_COLUMNS: [&str; COLUMNS] = [
    "id",
    "title",
    "aliases",
    "highlight",
    "topic",
    "topic_en",
    "link",
    "sources",
    "capability",
    "direction",
    "summary",
    "seed_highlight",
    "arxiv",
    "year",
    "url",
    "code",
    "authors",
    "tags",
    "builds_on",
];

/// How many text columns a paper has.
pub const COLUMNS: usize = 19;

/// Text columns added after format v3 shipped, stored like the others but optional when read:
/// an index written before them reads them as empty (no format bump, no forced rebuild).
pub const EXTRA_COLUMNS: [&str; EXTRAS] = ["doi", "keywords", "also_topics"];

/// How many optional text columns a paper has.
pub const EXTRAS: usize = 3;

fn extra_fields(p: &Paper) -> [Cow<'_, str>; EXTRAS] {
    [
        Cow::Borrowed(p.doi.as_deref().unwrap_or("")),
        Cow::Owned(p.keywords.join(LIST_SEP.encode_utf8(&mut [0; 4]))),
        Cow::Owned(p.also_topics.join(LIST_SEP.encode_utf8(&mut [0; 4]))),
    ]
}

fn text_fields(p: &Paper) -> [Cow<'_, str>; COLUMNS] {
    fn list(v: &[String]) -> Cow<'_, str> {
        Cow::Owned(v.join(LIST_SEP.encode_utf8(&mut [0; 4])))
    }
    fn opt(o: &Option<String>) -> Cow<'_, str> {
        Cow::Borrowed(o.as_deref().unwrap_or(""))
    }
    [
        Cow::Borrowed(&p.id),
        Cow::Borrowed(&p.title),
        list(&p.aliases),
        Cow::Borrowed(&p.highlight),
        Cow::Borrowed(&p.topic),
        Cow::Borrowed(&p.topic_en),
        opt(&p.link),
        list(&p.sources),
        opt(&p.capability),
        opt(&p.direction),
        Cow::Borrowed(&p.summary),
        Cow::Borrowed(&p.seed_highlight),
        opt(&p.arxiv),
        Cow::Owned(p.year.map(|y| y.to_string()).unwrap_or_default()),
        opt(&p.url),
        opt(&p.code),
        opt(&p.authors),
        list(&p.tags),
        list(&p.builds_on),
    ]
}

/// Text values concatenated, and their `n + 1` offsets.
#[derive(Debug, Default, Clone)]
pub struct TextColumn {
    pub text: Vec<u8>,
    pub offsets: Vec<u64>,
}

impl TextColumn {
    fn new() -> TextColumn {
        TextColumn {
            text: Vec::new(),
            offsets: vec![0],
        }
    }

    fn push(&mut self, s: &str) {
        self.text.extend_from_slice(s.as_bytes());
        self.offsets.push(self.text.len() as u64);
    }
}

/// Everything the index stores about papers, ready to be written as sections.
#[derive(Debug, Clone)]
pub struct PaperColumns {
    pub text: Vec<TextColumn>,
    /// The [`EXTRA_COLUMNS`].
    pub extra: Vec<TextColumn>,
    /// Position of each paper's kind in [`Kind::ALL`].
    pub kind: Vec<u8>,
    pub open_source: Vec<u8>,
    /// Every name key (id, title, aliases; see [`name_key`]) with its paper, sorted by key.
    pub names: TextColumn,
    pub name_papers: Vec<u32>,
}

impl PaperColumns {
    pub fn build(papers: &[Paper]) -> PaperColumns {
        let mut text = vec![TextColumn::new(); TEXT_COLUMNS.len()];
        let mut extra = vec![TextColumn::new(); EXTRA_COLUMNS.len()];
        let mut kind = Vec::with_capacity(papers.len());
        let mut open_source = Vec::with_capacity(papers.len());
        let mut names: Vec<(String, u32)> = Vec::new();
        for (i, p) in papers.iter().enumerate() {
            for (col, value) in text.iter_mut().zip(text_fields(p)) {
                col.push(&value);
            }
            for (col, value) in extra.iter_mut().zip(extra_fields(p)) {
                col.push(&value);
            }
            kind.push(Kind::ALL.iter().position(|k| *k == p.kind).unwrap_or(0) as u8);
            open_source.push(u8::from(p.open_source));
            for n in std::iter::once(&p.id).chain([&p.title]).chain(&p.aliases) {
                let key = name_key(n);
                if !key.is_empty() {
                    names.push((key, i as u32));
                }
            }
        }
        names.sort_unstable();
        names.dedup();
        let mut name_col = TextColumn::new();
        for (k, _) in &names {
            name_col.push(k);
        }
        PaperColumns {
            text,
            extra,
            kind,
            open_source,
            names: name_col,
            name_papers: names.into_iter().map(|(_, i)| i).collect(),
        }
    }
}

impl PaperColumns {
    /// The columns as the table an index reads them through (for evidence built before any
    /// index exists, and for tests).
    pub fn table(&self) -> PaperTable<'_> {
        let n = self.kind.len();
        fn view(c: &TextColumn, n: usize) -> TextView<'_> {
            TextView::new(&c.text, &c.offsets, n).expect("columns built by `build` are valid")
        }
        PaperTable {
            text: std::array::from_fn(|k| view(&self.text[k], n)),
            extra: std::array::from_fn(|k| Some(view(&self.extra[k], n))),
            kind: &self.kind,
            open_source: &self.open_source,
            names: TextView::new(
                &self.names.text,
                &self.names.offsets,
                self.name_papers.len(),
            )
            .expect("columns built by `build` are valid"),
            name_papers: &self.name_papers,
        }
    }
}

/// A validated text column over borrowed bytes.
#[derive(Debug, Clone, Copy)]
pub struct TextView<'a> {
    text: &'a [u8],
    offsets: &'a [u64],
}

impl<'a> TextView<'a> {
    /// `offsets` must be `n + 1` non-decreasing positions from 0 to at most `text.len()`.
    pub fn new(text: &'a [u8], offsets: &'a [u64], n: usize) -> Option<TextView<'a>> {
        super::lexical::valid_offsets(offsets, n, text.len()).then_some(TextView { text, offsets })
    }

    /// A view of offsets already checked by [`TextView::new`] (at index load), without checking
    /// them again: views are made per lookup, and checking costs O(n).
    pub(crate) fn trusted(text: &'a [u8], offsets: &'a [u64]) -> TextView<'a> {
        TextView { text, offsets }
    }

    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn range(&self, i: usize) -> Range<usize> {
        self.offsets[i] as usize..self.offsets[i + 1] as usize
    }

    /// Entry `i` as text (invalid UTF-8, possible only in a forged file, is replaced, not fatal).
    pub fn get(&self, i: usize) -> Cow<'a, str> {
        String::from_utf8_lossy(&self.text[self.range(i)])
    }

    fn bytes(&self, i: usize) -> &'a [u8] {
        &self.text[self.range(i)]
    }
}

/// Read access to the paper columns of an index.
#[derive(Debug, Clone, Copy)]
pub struct PaperTable<'a> {
    pub text: [TextView<'a>; COLUMNS],
    /// The [`EXTRA_COLUMNS`]; `None` in an index written before they existed.
    pub extra: [Option<TextView<'a>>; EXTRAS],
    pub kind: &'a [u8],
    pub open_source: &'a [u8],
    pub names: TextView<'a>,
    pub name_papers: &'a [u32],
}

impl<'a> PaperTable<'a> {
    pub fn len(&self) -> usize {
        self.kind.len()
    }

    pub fn is_empty(&self) -> bool {
        self.kind.is_empty()
    }

    fn field(&self, col: usize, i: usize) -> Cow<'a, str> {
        self.text[col].get(i)
    }

    pub fn id(&self, i: usize) -> Cow<'a, str> {
        self.field(0, i)
    }

    pub fn title(&self, i: usize) -> Cow<'a, str> {
        self.field(1, i)
    }

    pub fn highlight(&self, i: usize) -> Cow<'a, str> {
        self.field(3, i)
    }

    /// Paper `i`'s summary (an abstract, long notes).
    pub fn summary(&self, i: usize) -> Cow<'a, str> {
        self.field(10, i)
    }

    pub fn topic(&self, i: usize) -> Cow<'a, str> {
        self.field(4, i)
    }

    pub fn topic_en(&self, i: usize) -> Cow<'a, str> {
        self.field(5, i)
    }

    pub fn kind(&self, i: usize) -> Kind {
        Kind::ALL
            .get(self.kind[i] as usize)
            .copied()
            .unwrap_or_default()
    }

    pub fn open_source(&self, i: usize) -> bool {
        self.open_source[i] != 0
    }

    /// Paper `i` as a record.
    pub fn get(&self, i: usize) -> Paper {
        let list = |col: usize| self.list(col, i);
        let opt = |col: usize| -> Option<String> {
            let s = self.field(col, i);
            (!s.is_empty()).then(|| s.into_owned())
        };
        Paper {
            id: self.id(i).into_owned(),
            title: self.title(i).into_owned(),
            aliases: list(2),
            highlight: self.field(3, i).into_owned(),
            topic: self.topic(i).into_owned(),
            topic_en: self.topic_en(i).into_owned(),
            kind: self.kind(i),
            open_source: self.open_source(i),
            link: opt(6),
            sources: list(7),
            capability: opt(8),
            direction: opt(9),
            summary: self.field(10, i).into_owned(),
            seed_highlight: self.field(11, i).into_owned(),
            arxiv: opt(12),
            // Written from a u16 by `text_fields`; anything else comes from a forged file.
            year: self.field(13, i).parse().ok(),
            url: opt(14),
            code: opt(15),
            authors: opt(16),
            tags: list(17),
            builds_on: list(18),
            doi: self
                .extra_field(0, i)
                .filter(|s| !s.is_empty())
                .map(Cow::into_owned),
            keywords: self.extra_list(1, i),
            also_topics: self.extra_list(2, i),
        }
    }

    fn extra_field(&self, col: usize, i: usize) -> Option<Cow<'a, str>> {
        self.extra[col].map(|v| v.get(i))
    }

    /// A list field of the [`EXTRA_COLUMNS`] (empty in an index written before it existed).
    fn extra_list(&self, col: usize, i: usize) -> Vec<String> {
        match self.extra_field(col, i) {
            Some(s) if !s.is_empty() => s.split(LIST_SEP).map(str::to_string).collect(),
            _ => Vec::new(),
        }
    }

    /// Paper `i`'s own words for it ([`Paper::keywords`]).
    pub fn keywords(&self, i: usize) -> Vec<String> {
        self.extra_list(1, i)
    }

    /// The other sections paper `i` is filed under ([`Paper::also_topics`]).
    pub fn also_topics(&self, i: usize) -> Vec<String> {
        self.extra_list(2, i)
    }

    fn list(&self, col: usize, i: usize) -> Vec<String> {
        let s = self.field(col, i);
        if s.is_empty() {
            Vec::new()
        } else {
            s.split(LIST_SEP).map(str::to_string).collect()
        }
    }

    /// Whether paper `i` has any text beyond its names: a highlight or a summary (abstract).
    pub fn has_text(&self, i: usize) -> bool {
        !self.text[3].bytes(i).is_empty() || !self.text[10].bytes(i).is_empty()
    }

    /// Paper `i`'s tags, without materializing the record.
    pub fn tags(&self, i: usize) -> Vec<String> {
        self.list(17, i)
    }

    /// The ids paper `i` builds on, without materializing the record.
    pub fn builds_on(&self, i: usize) -> Vec<String> {
        self.list(18, i)
    }

    /// The papers one of whose names (id, title, alias) has exactly this [`name_key`], ascending.
    pub fn named(&self, key: &str) -> Vec<usize> {
        let key = key.as_bytes();
        let n = self.names.len();
        // First entry >= key.
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.names.bytes(mid) < key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let mut out: Vec<usize> = (lo..n)
            .take_while(|&j| self.names.bytes(j) == key)
            .filter_map(|j| self.name_papers.get(j).map(|&p| p as usize))
            .filter(|&p| p < self.len())
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paper(id: &str, title: &str, aliases: &[&str]) -> Paper {
        Paper {
            id: id.into(),
            title: title.into(),
            aliases: aliases.iter().map(|s| s.to_string()).collect(),
            highlight: "高亮".into(),
            topic: "主题".into(),
            topic_en: String::new(),
            kind: Kind::Survey,
            open_source: true,
            link: Some("https://example.org".into()),
            sources: vec!["000".into(), "003".into()],
            direction: Some("d".into()),
            summary: "A summary.".into(),
            arxiv: Some("2505.16421".into()),
            year: Some(2025),
            tags: vec!["web-agent".into(), "grpo-family".into()],
            builds_on: vec!["grpo".into()],
            ..Paper::default()
        }
    }

    fn view(c: &PaperColumns, n: usize) -> PaperTable<'_> {
        assert_eq!(c.kind.len(), n);
        c.table()
    }

    #[test]
    fn records_round_trip_and_names_are_found() {
        let papers = vec![
            paper("web-agent-r1", "WebAgent-R1", &["WA-R1"]),
            paper("grpo", "GRPO", &[]),
            paper("dr-grpo", "Dr. GRPO", &["Dr GRPO", "WA-R1"]),
        ];
        let cols = PaperColumns::build(&papers);
        let t = view(&cols, papers.len());
        for (i, p) in papers.iter().enumerate() {
            assert_eq!(&t.get(i), p);
        }
        assert_eq!(t.named(&name_key("webagent r1")), vec![0]);
        assert_eq!(t.named(&name_key("DR-GRPO")), vec![2]);
        assert_eq!(t.named(&name_key("wa-r1")), vec![0, 2]);
        assert!(t.named(&name_key("nothing")).is_empty());
    }

    #[test]
    fn broken_offsets_are_rejected() {
        assert!(TextView::new(b"abc", &[0, 2, 1], 2).is_none());
        assert!(TextView::new(b"abc", &[0, 4], 1).is_none());
        assert!(TextView::new(b"abc", &[0, 3], 2).is_none());
        assert!(TextView::new(b"abc", &[1, 3], 1).is_none());
        let v = TextView::new(b"ab\xffc", &[0, 4], 1).unwrap();
        assert_eq!(v.get(0), "ab\u{fffd}c");
    }
}
