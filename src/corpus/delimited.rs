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
    for result in reader.records() {
        let record = match result {
            Ok(r) => r,
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line() as usize);
                problems.push((line, format!("cannot read this row: {e}")));
                continue;
            }
        };
        let line = record.position().map_or(0, |p| p.line() as usize);
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
