//! Output formats. Commands describe their output once, as a [`Document`] (columns and rows for
//! people, JSON records for programs); one [`Renderer`] per format turns it into text.

mod json;
mod markdown;
pub mod records;
mod table;

use serde::Serialize;

pub use json::{JsonRenderer, JsonlRenderer};
pub use markdown::MarkdownRenderer;
pub use table::TableRenderer;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Table,
    Json,
    Jsonl,
    Markdown,
}

/// A column of the human-readable forms.
#[derive(Debug, Clone)]
pub struct Column {
    pub name: &'static str,
    /// Columns that may be cut to fit the terminal (long text).
    pub wrap: bool,
}

pub const fn col(name: &'static str) -> Column {
    Column { name, wrap: false }
}

pub const fn wrap(name: &'static str) -> Column {
    Column { name, wrap: true }
}

/// What a command outputs, in both shapes.
#[derive(Debug, Clone, Default)]
pub struct Document {
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<String>>,
    pub records: Vec<serde_json::Value>,
    /// (title column, link column): Markdown renders the title as a link to the address in
    /// the link column and drops that column; a table keeps it as plain text.
    pub link: Option<(usize, usize)>,
}

impl Document {
    pub fn new(columns: Vec<Column>) -> Document {
        Document {
            columns,
            ..Document::default()
        }
    }

    /// Make column `title` a link to the address in column `link` where the format has links.
    pub fn link_title(&mut self, title: usize, link: usize) {
        self.link = Some((title, link));
    }

    /// Add one result: its cells for people and its record for programs.
    pub fn push<T: Serialize>(&mut self, cells: Vec<String>, record: &T) {
        self.rows.push(cells);
        self.records
            .push(serde_json::to_value(record).unwrap_or(serde_json::Value::Null));
    }
}

/// One output format.
pub trait Renderer {
    fn render(&self, doc: &Document) -> String;
}

/// The renderer for `format`, sized to the terminal where that matters.
pub fn renderer(format: Format) -> Box<dyn Renderer> {
    renderer_with(format, None)
}

/// [`renderer`], with tables' colour forced on or off (`None`: as [`TableRenderer::for_terminal`]
/// decides).
pub fn renderer_with(format: Format, color: Option<bool>) -> Box<dyn Renderer> {
    match format {
        Format::Table => {
            let mut t = TableRenderer::for_terminal();
            t.color = color.unwrap_or(t.color);
            Box::new(t)
        }
        Format::Json => Box::new(JsonRenderer),
        Format::Jsonl => Box::new(JsonlRenderer),
        Format::Markdown => Box::new(MarkdownRenderer),
    }
}

/// Whether `c` would act on the terminal or reorder text instead of being shown: C0 and C1
/// control characters (ESC starts terminal escape sequences) and the Unicode bidirectional
/// controls (U+202E RIGHT-TO-LEFT OVERRIDE makes text read backwards).
fn is_hazard(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

/// `text` made safe to print in a terminal or a Markdown file: tabs and line breaks become
/// spaces, every other control character and bidi control becomes U+FFFD (visible, inert).
/// JSON output needs none of this: serde_json escapes control characters itself.
pub fn neutralize(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(is_hazard) {
        return std::borrow::Cow::Borrowed(text);
    }
    text.chars()
        .map(|c| match c {
            '\t' | '\n' | '\r' => ' ',
            c if is_hazard(c) => '\u{fffd}',
            c => c,
        })
        .collect::<String>()
        .into()
}

/// Cut `text` to at most `width` terminal columns, ending in '…' when cut. CJK characters take
/// two columns, so counting chars would overflow.
pub fn trim_to_width(text: &str, width: usize) -> String {
    use unicode_width::UnicodeWidthChar;
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if unicode_width::UnicodeWidthStr::width(text.as_str()) <= width {
        return text;
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trimming_counts_terminal_columns() {
        assert_eq!(trim_to_width("abc", 5), "abc");
        assert_eq!(trim_to_width("abcdef", 5), "abcd…");
        assert_eq!(trim_to_width("强化学习训练", 7), "强化学…");
    }

    #[test]
    fn controls_and_bidi_overrides_are_neutralized() {
        assert_eq!(neutralize("plain 强化"), "plain 强化");
        assert_eq!(
            neutralize("a\u{1b}[31mred\u{202e}txt\u{9b}\tz\n"),
            "a\u{fffd}[31mred\u{fffd}txt\u{fffd} z "
        );
    }

    #[test]
    fn every_format_renders_the_same_rows() {
        let mut doc = Document::new(vec![col("id"), wrap("title")]);
        doc.push(
            vec!["a".into(), "Alpha | pipe".into()],
            &serde_json::json!({"id": "a"}),
        );
        doc.push(
            vec!["b".into(), "贝塔".into()],
            &serde_json::json!({"id": "b"}),
        );
        let json: serde_json::Value = serde_json::from_str(&JsonRenderer.render(&doc)).unwrap();
        assert_eq!(json.as_array().unwrap().len(), 2);
        assert_eq!(JsonlRenderer.render(&doc).lines().count(), 2);
        let md = MarkdownRenderer.render(&doc);
        assert!(md.contains("Alpha \\| pipe"), "{md}");
        let table = TableRenderer {
            width: 80,
            color: false,
        }
        .render(&doc);
        assert!(table.contains("贝塔"), "{table}");
    }

    /// Visible width of a terminal line: OSC sequences (`ESC ] ... ESC \`) and CSI sequences
    /// (`ESC [ ... letter`) take no room.
    fn visible_width(line: &str) -> usize {
        let mut out = String::new();
        let mut rest = line;
        while let Some(i) = rest.find('\u{1b}') {
            out.push_str(&rest[..i]);
            let after = &rest[i + 1..];
            let skip = if let Some(osc) = after.strip_prefix(']') {
                osc.find("\u{1b}\\").map_or(after.len(), |e| e + 3)
            } else {
                after
                    .find(|c: char| c.is_ascii_alphabetic())
                    .map_or(after.len(), |e| e + 1)
            };
            rest = &after[skip..];
        }
        out.push_str(rest);
        unicode_width::UnicodeWidthStr::width(out.as_str())
    }

    #[test]
    fn colour_tables_make_linked_titles_clickable_and_stay_in_width() {
        let mut doc = Document::new(vec![col("#"), wrap("title"), wrap("why"), col("link")]);
        doc.push(
            vec![
                "1".into(),
                "WebAgent-R1".into(),
                "builds on GRPO; both web-agent, multi-turn".repeat(3),
                "https://arxiv.org/abs/2505.16421".into(),
            ],
            &serde_json::json!({}),
        );
        doc.push(
            vec![
                "2".into(),
                "No link".into(),
                "x".into(),
                "javascript:alert(1)".into(),
            ],
            &serde_json::json!({}),
        );
        doc.link_title(1, 3);
        let table = TableRenderer {
            width: 80,
            color: true,
        }
        .render(&doc);
        assert!(
            table.contains("\u{1b}]8;;https://arxiv.org/abs/2505.16421\u{1b}\\WebAgent-R1"),
            "{table:?}"
        );
        assert!(!table.contains("javascript:"), "{table:?}");
        for line in table.lines() {
            assert!(visible_width(line) <= 80, "{line:?}");
        }
        // Without colour: no escapes; the link column only where it fits whole.
        let plain = TableRenderer {
            width: 80,
            color: false,
        }
        .render(&doc);
        assert!(
            !plain.contains('\u{1b}') && !plain.contains("https://"),
            "{plain}"
        );
        let wide = TableRenderer {
            width: 200,
            color: false,
        }
        .render(&doc);
        assert!(wide.contains("https://arxiv.org/abs/2505.16421"), "{wide}");
    }
}
