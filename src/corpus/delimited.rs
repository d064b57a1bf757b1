//! CSV and TSV files with a header row (a spreadsheet, a Zotero CSV export) as records.
//!
//! Parsing is the `csv` crate's (quoted fields, embedded newlines and delimiters, CRLF). The
//! header names the columns; they match the record's keys ignoring case, spaces and `-`
//! (`Abstract Note`, `Publication Year`, `Manual Tags`; see [`super::fields`]). Empty cells are
//! absent values; a row longer than the header is a problem, a shorter one has empty cells.
//! A `.csv` whose header row holds semicolons and no comma is read with `;` ([`sniff`]), as
//! spreadsheets save CSV where the decimal mark is a comma; an Excel `sep=X` first line names
//! the separator and is not the header.

use serde_json::Value;

use super::fields::{Record, normalize_key};
use super::lines::LineCounter;

/// One row: its line (of its first character) and its non-empty cells by column name.
#[derive(Debug)]
pub struct Row {
    pub line: usize,
    pub record: Record,
}

/// The delimiter of a `.csv` text: the one an Excel `sep=X` first line names; else `;` when
/// its header row (the first line) holds a semicolon and no comma, a tab when it holds tabs
/// and neither (a tab-separated export saved as `.csv`); else `,`.
pub fn sniff(text: &str) -> u8 {
    if let Some(d) = sep_line(text) {
        return d;
    }
    let header = text.lines().next().unwrap_or("");
    if header.contains(',') {
        b','
    } else if header.contains(';') {
        b';'
    } else if header.contains('\t') {
        b'\t'
    } else {
        b','
    }
}

/// The delimiter an Excel `sep=X` first line names (a line Excel writes and reads to say
/// which separator the file uses), if the text starts with one.
fn sep_line(text: &str) -> Option<u8> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let first = text.lines().next()?.trim_end();
    match first.strip_prefix("sep=")?.as_bytes() {
        [d] if d.is_ascii_punctuation() || *d == b'\t' => Some(*d),
        _ => None,
    }
}

/// Parse `text` with `delimiter` (`b','`, `b';'` or `b'\t'`). Problems are `(line, message)`.
/// An Excel `sep=X` first line is not a header: the header is the line after it.
pub fn parse(text: &str, delimiter: u8) -> (Vec<Row>, Vec<(usize, String)>) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // Emptied, not removed, so that every later line keeps its number (the reader skips
    // empty lines).
    let emptied;
    let text = match sep_line(text) {
        Some(_) => {
            emptied = text
                .split_once('\n')
                .map_or(String::new(), |(_, rest)| format!("\n{rest}"));
            emptied.as_str()
        }
        None => text,
    };
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let header = match header(&mut reader) {
        Ok(h) => h,
        Err(problems) => return (Vec::new(), problems),
    };
    let mut lines = Lines::new(text);
    let mut problems = Vec::new();
    let mut records = Vec::new();
    for result in reader.records() {
        match result {
            Ok(r) => records.push(r),
            Err(e) => {
                let line = e.position().map_or(0, |p| lines.line_of(p.byte()));
                problems.push((line, format!("cannot read this row: {e}")));
            }
        }
    }
    // Where each record starts, the one a quote never closed included: it bounds the row before.
    let starts: Vec<usize> = records
        .iter()
        .map(|r| r.position().map_or(0, |p| p.byte() as usize))
        .collect();
    let unclosed = records
        .last()
        .and_then(|last| unclosed_quote(&mut lines, last));
    if unclosed.is_some() {
        // The last record swallowed the rest of the file; the rows before it are still checked,
        // so every problem is reported at once.
        records.pop();
    }
    let mut strays = stray_quotes(text, delimiter).into_iter().peekable();
    let mut rows = Vec::new();
    for (k, record) in records.into_iter().enumerate() {
        let line = record.position().map_or(0, |p| lines.line_of(p.byte()));
        // A quote that closes a cell in the middle of its text: the rows between were read
        // into that cell, so the row is reported rather than kept with another row's text.
        let end = starts.get(k + 1).copied().unwrap_or(text.len());
        let mut stray = None;
        while let Some(&q) = strays.peek().filter(|&&q| q < end) {
            strays.next();
            stray = stray.or((q >= starts[k]).then_some(q));
        }
        if let Some(q) = stray {
            let at = lines.line_of(q as u64);
            let shown: String = text[q..]
                .chars()
                .take(24)
                .take_while(|c| *c != '\n')
                .collect();
            let message = if at > line {
                format!(
                    "a quoted cell opened in this row is closed on line {at} in the middle of text                      (`{shown}`): a `\"` missing here? The lines between were read into it"
                )
            } else {
                format!(
                    "a quoted cell in this row is closed in the middle of its text (`{shown}`): a                      `\"` missing or one too many? Inside a quoted cell a quote is written `\"\"`"
                )
            };
            problems.push((line, message));
            continue;
        }
        if record.iter().all(str::is_empty) {
            continue;
        }
        match row_record(&header, &record, delimiter) {
            Ok(fields) => rows.push(Row {
                line,
                record: fields,
            }),
            Err(message) => problems.push((line, message)),
        }
    }
    if let Some(p) = unclosed {
        problems.push(p);
        return (Vec::new(), problems);
    }
    (rows, problems)
}

/// The header row's column names, or the problems that make the file unreadable (no header,
/// an empty one, a column named twice).
fn header(reader: &mut csv::Reader<&[u8]>) -> Result<Vec<String>, Vec<(usize, String)>> {
    let header: Vec<String> = match reader.headers() {
        Ok(h) => h.iter().map(str::to_string).collect(),
        Err(e) => return Err(vec![(1, format!("cannot read the header row: {e}"))]),
    };
    if header.iter().all(String::is_empty) {
        return Err(vec![(
            1,
            "the first row must name the columns (title, abstract, authors, year, ...)".into(),
        )]);
    }
    if !header.iter().any(|n| normalize_key(n) == "title") {
        let columns: Vec<String> = header.iter().take(12).map(|n| format!("{n:?}")).collect();
        // A `;`-separated header read with tabs (a `.tsv`) reads as one column.
        let hint = if header.len() == 1 && header[0].contains(';') {
            "; the row is separated by `;`: save the file with commas (CSV) or tabs (TSV)"
        } else {
            "; name the column holding each paper's title `title`"
        };
        return Err(vec![(
            1,
            format!(
                "no column is called `title` (the columns: {}){hint}",
                columns.join(", ")
            ),
        )]);
    }
    let mut problems = Vec::new();
    for (i, name) in header.iter().enumerate() {
        if let Some(j) = header[..i]
            .iter()
            .position(|n| !n.is_empty() && normalize_key(n) == normalize_key(name))
        {
            problems.push((
                1,
                format!(
                    "column {} ({name:?}) repeats column {} ({:?}); rename one",
                    i + 1,
                    j + 1,
                    header[j]
                ),
            ));
        }
    }
    if problems.is_empty() {
        Ok(header)
    } else {
        Err(problems)
    }
}

/// Byte positions of the text as line numbers.
struct Lines<'a>(&'a str, LineCounter<'a>);

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        Lines(text, LineCounter::new(text.as_bytes()))
    }

    /// A record's position may fall on the line break that ends the row before it: skip line
    /// breaks.
    fn start_of(&self, byte: u64) -> usize {
        let text = self.0;
        let mut b = (byte as usize).min(text.len());
        while b < text.len() && matches!(text.as_bytes()[b], b'\r' | b'\n') {
            b += 1;
        }
        b
    }

    /// The line (from 1) of the record starting at `byte`.
    fn line_of(&mut self, byte: u64) -> usize {
        let b = self.start_of(byte);
        self.1.line_of(b)
    }
}

/// Byte offsets of the quotes that close a quoted cell and are followed by more text rather
/// than the delimiter or the end of the row (`"Paper two, 2023` left open takes the next row's
/// opening quote as its end). The `csv` reader accepts them and goes on, which merges rows
/// silently. A quote counts as opening a cell only as its first character, as the reader
/// reads it; `""` inside a quoted cell is a quote.
fn stray_quotes(text: &str, delimiter: u8) -> Vec<usize> {
    #[derive(Clone, Copy)]
    enum At {
        Start,
        Plain,
        Quoted,
        QuoteInQuoted,
    }
    let mut state = At::Start;
    let mut out = Vec::new();
    for (i, &b) in text.as_bytes().iter().enumerate() {
        let ends = b == delimiter || b == b'\n' || b == b'\r';
        state = match (state, b) {
            (At::Start, b'"') => At::Quoted,
            (At::Start | At::Plain, _) if ends => At::Start,
            (At::Start | At::Plain, _) => At::Plain,
            (At::Quoted, b'"') => At::QuoteInQuoted,
            (At::Quoted, _) => At::Quoted,
            (At::QuoteInQuoted, b'"') => At::Quoted,
            (At::QuoteInQuoted, _) if ends => At::Start,
            (At::QuoteInQuoted, _) => {
                out.push(i - 1);
                At::Plain
            }
        };
    }
    out
}

/// A quote opened and never closed makes the reader take the rest of the file as one cell;
/// the last record's raw text then holds an odd number of quotes.
fn unclosed_quote(lines: &mut Lines, last: &csv::StringRecord) -> Option<(usize, String)> {
    let text = lines.0;
    let start = last.position().map_or(0, |p| lines.start_of(p.byte()));
    (text.is_char_boundary(start) && text[start..].matches('"').count() % 2 == 1).then(|| {
        (
            lines.line_of(start as u64),
            "a quoted cell in this row is never closed: the rest of the file was read into \
             it (a missing `\"`?)"
                .into(),
        )
    })
}

/// One row's non-empty cells by column name; an error when it has more cells than the header
/// names columns.
fn row_record(
    header: &[String],
    record: &csv::StringRecord,
    delimiter: u8,
) -> Result<Record, String> {
    if record.len() > header.len() && record.iter().skip(header.len()).any(|c| !c.is_empty()) {
        return Err(format!(
            "row has {} cells but the header names {} columns (an unquoted {} inside a \
             cell?)",
            record.len(),
            header.len(),
            match delimiter {
                b'\t' => "tab",
                b';' => "semicolon",
                _ => "comma",
            }
        ));
    }
    let mut fields = Record::new();
    for (i, cell) in record.iter().enumerate().take(header.len()) {
        if cell.is_empty() {
            continue;
        }
        let name = if header[i].is_empty() {
            format!("(column {} without a name)", i + 1)
        } else {
            header[i].clone()
        };
        fields.insert(name, Value::String(cell.to_string()));
    }
    Ok(fields)
}

#[cfg(test)]
mod tests {
    /// A row of too many cells and a quote never closed after it are both reported, at their
    /// lines, in one run (the quote's problem alone was).
    #[test]
    fn every_problem_is_reported_with_an_unclosed_quote_after_it() {
        let text = "title,year,note\n\"A paper\",2024,ok\n\"C\",2024,a,b,c\n\"D paper,2024,open\n\"E\",2024,x\n";
        let (rows, problems) = super::parse(text, b',');
        assert!(rows.is_empty(), "a broken file gives no papers");
        let at: Vec<usize> = problems.iter().map(|p| p.0).collect();
        assert_eq!(at, [3, 4], "{problems:?}");
        assert!(problems[0].1.contains("row has 5 cells"), "{problems:?}");
        assert!(problems[1].1.contains("never closed"), "{problems:?}");
    }

    /// A quote left open takes the next row's opening quote as its end: the merged row is
    /// reported at its line, naming where the cell was closed, and the rows around it are kept.
    #[test]
    fn a_quote_left_open_in_a_row_is_reported_not_merged_into_the_next() {
        let text = "title,abstract,year\n\"Paper one\",\"fine\",2023\n\"Paper two, with a typo,2023\n\"Paper three\",\"ok\",2022\n\"Paper four\",\"ok\",2021\n";
        let (rows, problems) = super::parse(text, b',');
        let titles: Vec<&str> = rows
            .iter()
            .map(|r| r.record["title"].as_str().unwrap())
            .collect();
        assert_eq!(titles, ["Paper one", "Paper four"], "{problems:?}");
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].0, 3);
        assert!(problems[0].1.contains("closed on line 4"), "{problems:?}");
        // A cell closed early in its own row.
        let text = "title,abstract,year\n\"Broken quote paper,\"never closed,2023\nOk,fine,2020\n";
        let (rows, problems) = super::parse(text, b',');
        assert_eq!(rows.len(), 1);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].0, 2);
        assert!(problems[0].1.contains("`\"never closed"), "{problems:?}");
        // Quotes that are text: doubled inside a quoted cell, or inside a cell that does not
        // open with one; a quoted cell with a line break in it.
        let text = "title,note\n\"Say \"\"hi\"\"\",a 5\" disk\n\"Two\nlines\",x\n";
        let (rows, problems) = super::parse(text, b',');
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].record["title"], "Say \"hi\"");
        assert_eq!(rows[1].record["title"], "Two\nlines");
    }
}
