//! CSV and TSV files with a header row (a spreadsheet, a Zotero CSV export) as records.
//!
//! Parsing is the `csv` crate's (quoted fields, embedded newlines and delimiters, CRLF). The
//! header names the columns; they match the record's keys ignoring case, spaces and `-`
//! (`Abstract Note`, `Publication Year`, `Manual Tags`; see [`super::fields`]). Empty cells are
//! absent values; a row longer than the header is a problem, a shorter one has empty cells.

use serde_json::Value;

use super::fields::{Record, normalize_key};

/// One row: its line (of its first character) and its non-empty cells by column name.
#[derive(Debug)]
pub struct Row {
    pub line: usize,
    pub record: Record,
}

/// Parse `text` with `delimiter` (`b','` or `b'\t'`). Problems are `(line, message)`.
pub fn parse(text: &str, delimiter: u8) -> (Vec<Row>, Vec<(usize, String)>) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut problems = Vec::new();
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let header: Vec<String> = match reader.headers() {
        Ok(h) => h.iter().map(str::to_string).collect(),
        Err(e) => {
            problems.push((1, format!("cannot read the header row: {e}")));
            return (Vec::new(), problems);
        }
    };
    if header.iter().all(String::is_empty) {
        problems.push((
            1,
            "the first row must name the columns (title, abstract, authors, year, ...)".into(),
        ));
        return (Vec::new(), problems);
    }
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
    if !problems.is_empty() {
        return (Vec::new(), problems);
    }
    let mut rows = Vec::new();
    // A record's position may fall on the line break that ends the row before it: skip line
    // breaks, then count them.
    let start_of = |byte: u64| {
        let mut b = (byte as usize).min(text.len());
        while b < text.len() && matches!(text.as_bytes()[b], b'\r' | b'\n') {
            b += 1;
        }
        b
    };
    let line_of = |byte: u64| {
        let b = start_of(byte);
        1 + text.as_bytes()[..b].iter().filter(|&&c| c == b'\n').count()
    };
    let mut records = Vec::new();
    for result in reader.records() {
        match result {
            Ok(r) => records.push(r),
            Err(e) => {
                let line = e.position().map_or(0, |p| line_of(p.byte()));
                problems.push((line, format!("cannot read this row: {e}")));
            }
        }
    }
    // A quote opened and never closed makes the reader take the rest of the file as one cell;
    // the last record's raw text then holds an odd number of quotes.
    if let Some(last) = records.last() {
        let start = last.position().map_or(0, |p| start_of(p.byte()));
        if text.is_char_boundary(start) && text[start..].matches('"').count() % 2 == 1 {
            problems.push((
                line_of(start as u64),
                "a quoted cell in this row is never closed: the rest of the file was read into \
                 it (a missing `\"`?)"
                    .into(),
            ));
            return (rows, problems);
        }
    }
    for record in records {
        let line = record.position().map_or(0, |p| line_of(p.byte()));
        if record.iter().all(str::is_empty) {
            continue;
        }
        if record.len() > header.len() && record.iter().skip(header.len()).any(|c| !c.is_empty()) {
            problems.push((
                line,
                format!(
                    "row has {} cells but the header names {} columns (an unquoted {} inside a \
                     cell?)",
                    record.len(),
                    header.len(),
                    if delimiter == b'\t' { "tab" } else { "comma" }
                ),
            ));
            continue;
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
        rows.push(Row {
            line,
            record: fields,
        });
    }
    (rows, problems)
}
