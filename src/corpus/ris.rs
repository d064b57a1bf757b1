//! RIS files (what Zotero, Mendeley, EndNote, Google Scholar and Web of Science export) as
//! records.
//!
//! An entry runs from a `TY  - TYPE` line to an `ER  - ` line; every line between is
//! `XX  - value` (a two-character tag, spaces, a hyphen; the space after it may be missing) or
//! continues the field before it. Tags map onto the record's keys: the title from `TI`/`T1`
//! (else `CT`/`BT`), the abstract from `AB`/`N2`, authors from `AU`/`A1` ("Family, Given" read
//! as "Given Family", as BibTeX names are), the year from the first of `PY`/`Y1`/`DA` holding
//! one, `DO` the DOI (an arXiv DOI also the arXiv id), `UR` the address, each `KW` a keyword,
//! `ID` the id; a repeated title line is an alias, repeated abstract lines are one abstract, a
//! `KW` holding `;` several keywords. Other tags (and a second title or abstract tag, e.g. `T1`
//! beside `TI`) are kept under their own names, so the import names them as left out, as it
//! does a BibTeX entry's `publisher`.

use serde_json::Value;

use super::fields::{Record, arxiv_of_doi, year_in};

/// One entry: the line of its `TY` and its fields.
#[derive(Debug)]
pub struct Entry {
    pub line: usize,
    pub record: Record,
}

/// One tag line of an entry: its tag, its value (with its continuation lines), its line.
type Field = (String, String, usize);

/// Title tags, strongest first.
const TITLE: &[&str] = &["TI", "T1", "CT", "BT"];
/// Abstract tags, strongest first.
const ABSTRACT: &[&str] = &["AB", "N2"];
/// Date tags, strongest first: the first holding a year gives it; the others say the same.
const DATE: &[&str] = &["PY", "Y1", "DA"];

/// `XX  - value` as `(XX, value)`: an upper-case letter and a letter or digit, at least one
/// space, `-`, and the value after one optional space. A lower-case tag (`au  - `, written by
/// hand or by a lax exporter) is read as its upper case when exactly two spaces separate it
/// from the hyphen, so that prose in a continued abstract ("is - ok") is never a tag.
fn tag_line(line: &str) -> Option<(String, &str)> {
    let b = line.as_bytes();
    if b.len() < 4 || !b[0].is_ascii_alphabetic() || !b[1].is_ascii_alphanumeric() {
        return None;
    }
    let upper = b[0].is_ascii_uppercase() && !b[1].is_ascii_lowercase();
    let rest = &line[2..];
    let value = if upper {
        let after = rest.trim_start_matches(' ');
        if after.len() == rest.len() {
            return None;
        }
        after.strip_prefix('-')?
    } else {
        rest.strip_prefix("  -")?
    };
    Some((
        line[..2].to_ascii_uppercase(),
        value.strip_prefix(' ').unwrap_or(value).trim_end(),
    ))
}

/// Parse a RIS file. Problems are `(line, message)`: a line outside any entry (the first of
/// each run), an entry never closed by `ER`, a date holding no year.
pub fn parse(text: &str) -> (Vec<Entry>, Vec<(usize, String)>) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut entries = Vec::new();
    let mut problems = Vec::new();
    // The open entry: the line of its TY and its fields as (tag, value, line).
    let mut open: Option<(usize, Vec<Field>)> = None;
    let mut stray = false;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let tagged = tag_line(line);
        match (
            tagged.as_ref().map(|(t, v)| (t.as_str(), *v)),
            open.as_mut(),
        ) {
            (Some(("TY", _)), current) => {
                if let Some((start, _)) = current {
                    problems.push((
                        *start,
                        format!("this entry has no `ER  - ` line before the next `TY` at line {n}"),
                    ));
                }
                open = Some((n, Vec::new()));
                stray = false;
            }
            (Some(("ER", _)), Some(_)) => {
                if let Some((start, fields)) = open.take() {
                    match record_of(&fields) {
                        Ok(record) => entries.push(Entry {
                            line: start,
                            record,
                        }),
                        Err(p) => problems.push(p),
                    }
                }
            }
            (Some((tag, value)), Some((_, fields))) => {
                fields.push((tag.to_string(), value.to_string(), n));
            }
            (None, Some((_, fields))) if !line.trim().is_empty() => match fields.last_mut() {
                Some((_, value, _)) => {
                    value.push(' ');
                    value.push_str(line.trim());
                }
                None => problems.push((
                    n,
                    "a line without a tag right after `TY` (expected `XX  - value`)".into(),
                )),
            },
            (_, None) if !line.trim().is_empty() && !stray => {
                stray = true;
                problems.push((
                    n,
                    format!(
                        "{:?} is outside an entry: an entry starts with a `TY  - ` line and ends \
                         with `ER  - ` (is this a RIS file?)",
                        line.trim().chars().take(40).collect::<String>()
                    ),
                ));
            }
            _ => {}
        }
    }
    if let Some((start, _)) = open {
        problems.push((
            start,
            "this entry has no `ER  - ` line before the end of the file (was the file cut \
             short?)"
                .into(),
        ));
    }
    (entries, problems)
}

/// An entry's fields as a record (see the module doc); a problem when a date tag holds no
/// year and none other does.
fn record_of(fields: &[Field]) -> Result<Record, (usize, String)> {
    let mut r = Record::new();
    let present = |tags: &[&str]| {
        tags.iter()
            .find_map(|t| fields.iter().find(|f| f.0 == *t && !f.1.is_empty()))
            .map(|f| f.0.clone())
    };
    let title = present(TITLE);
    let summary = present(ABSTRACT);
    let mut authors = Vec::new();
    let mut keywords = Vec::new();
    let mut aliases = Vec::new();
    let mut abstract_parts: Vec<&str> = Vec::new();
    let mut others: Vec<(&str, Vec<&str>)> = Vec::new();
    for (tag, value, _) in fields {
        if value.is_empty() {
            continue;
        }
        let v = value.as_str();
        match tag.as_str() {
            // A second title (a translation, a subtitle line) is another name of the paper.
            t if Some(t) == title.as_deref() => {
                if r.contains_key("title") {
                    aliases.push(Value::String(v.into()));
                } else {
                    r.insert("title".into(), Value::String(v.into()));
                }
            }
            // Exporters split a long abstract over several lines of its tag.
            t if Some(t) == summary.as_deref() => abstract_parts.push(v),
            "AU" | "A1" => authors.push(Value::String(given_first(v))),
            // One keyword a line, or several joined by `;` (Web of Science, EndNote).
            "KW" => keywords.extend(
                v.split(';')
                    .map(str::trim)
                    .filter(|k| !k.is_empty())
                    .map(|k| Value::String(k.into())),
            ),
            "ID" if !r.contains_key("id") => {
                r.insert("id".into(), Value::String(v.into()));
            }
            "DO" if !r.contains_key("doi") => {
                if let Some(a) = arxiv_of_doi(v) {
                    r.insert("arxiv".into(), Value::String(a));
                }
                r.insert("doi".into(), Value::String(v.into()));
            }
            "UR" if !r.contains_key("url") => {
                r.insert("url".into(), Value::String(v.into()));
            }
            t if DATE.contains(&t) => {}
            "TY" | "ER" => {}
            t => match others.iter_mut().find(|(o, _)| *o == t) {
                Some((_, values)) => values.push(v),
                None => others.push((t, vec![v])),
            },
        }
    }
    let dates: Vec<&Field> = DATE
        .iter()
        .flat_map(|t| fields.iter().filter(move |f| f.0 == *t && !f.1.is_empty()))
        .collect();
    match dates.iter().find_map(|f| ris_date(&f.1)) {
        // A date finer than its year (`DA  - 2025/06/09/`) goes in as a date: `feed --since`
        // reads the day.
        Some((_, Some(day))) => {
            r.insert("date".into(), Value::String(day));
        }
        Some((y, None)) => {
            r.insert("year".into(), Value::from(y));
        }
        None => {
            if let Some((tag, value, line)) = dates.first() {
                return Err((*line, format!("`{tag}` {value:?} holds no year")));
            }
        }
    }
    if !abstract_parts.is_empty() {
        r.insert("abstract".into(), Value::String(abstract_parts.join(" ")));
    }
    if !aliases.is_empty() {
        r.insert("aliases".into(), Value::Array(aliases));
    }
    if !authors.is_empty() {
        r.insert("author".into(), Value::Array(authors));
    }
    if !keywords.is_empty() {
        r.insert("keywords".into(), Value::Array(keywords));
    }
    for (tag, values) in others {
        r.insert(tag.into(), Value::String(values.join("; ")));
    }
    Ok(r)
}

/// The year of a RIS date and, when it gives one, its day or month as `YYYY-MM[-DD]`: RIS
/// writes `YYYY/MM/DD/other` (`2025/06/09/`, `2025///Spring`), some exports `20250609` or an
/// ISO date; `None` without a year.
fn ris_date(value: &str) -> Option<(u16, Option<String>)> {
    let v = value.trim();
    let compact = v.len() == 8 && v.bytes().all(|b| b.is_ascii_digit());
    let iso = if compact {
        format!("{}-{}-{}", &v[..4], &v[4..6], &v[6..])
    } else {
        let parts: Vec<&str> = v.split('/').collect();
        let numeric: Vec<&str> = parts
            .iter()
            .take(3)
            .map(|p| p.trim())
            .take_while(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
            .collect();
        if parts.len() > 1 && numeric.len() > 1 && numeric[0].len() == 4 {
            let rest = numeric[1..].iter().filter_map(|n| n.parse::<u32>().ok());
            std::iter::once(numeric[0].to_string())
                .chain(rest.map(|n| format!("{n:02}")))
                .collect::<Vec<_>>()
                .join("-")
        } else {
            v.to_string()
        }
    };
    let year = year_in(&iso)?;
    let fine =
        crate::util::date::finer_than_year(&iso).filter(|d| d.starts_with(&year.to_string()));
    Some((year, fine))
}

/// `Family, Given` -> `Given Family` (`Family, Given, Suffix` -> `Given Family Suffix`); a name
/// without a comma stays as written.
fn given_first(name: &str) -> String {
    let parts: Vec<&str> = name.split(',').map(str::trim).collect();
    match parts.as_slice() {
        [family, given] if !given.is_empty() => format!("{given} {family}"),
        [family, given, suffix] if !given.is_empty() => format!("{given} {family} {suffix}"),
        _ => name.trim().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ris_date_keeps_its_day_in_every_form_exports_write_it() {
        assert_eq!(
            ris_date("2025/06/09/"),
            Some((2025, Some("2025-06-09".into())))
        );
        assert_eq!(
            ris_date("2025/6/9"),
            Some((2025, Some("2025-06-09".into())))
        );
        assert_eq!(
            ris_date("20250609"),
            Some((2025, Some("2025-06-09".into())))
        );
        assert_eq!(
            ris_date("2025-06-09"),
            Some((2025, Some("2025-06-09".into())))
        );
        assert_eq!(
            ris_date("2025/06//Spring"),
            Some((2025, Some("2025-06".into())))
        );
        assert_eq!(ris_date("2025///"), Some((2025, None)));
        assert_eq!(ris_date("2025"), Some((2025, None)));
        // A day that does not exist keeps the year alone; no year, no date.
        assert_eq!(ris_date("2025/02/30/"), Some((2025, None)));
        assert_eq!(ris_date("n.d."), None);
    }

    #[test]
    fn tag_lines_are_read_with_or_without_the_space_after_the_hyphen() {
        let read = |l| tag_line(l).map(|(t, v)| (t, v.to_string()));
        let tag = |t: &str, v: &str| Some((t.to_string(), v.to_string()));
        assert_eq!(read("TI  - A Title"), tag("TI", "A Title"));
        assert_eq!(read("ER  -"), tag("ER", ""));
        assert_eq!(read("T1  -Title"), tag("T1", "Title"));
        assert_eq!(read("AU - Smith, J."), tag("AU", "Smith, J."));
        // Lower case in the standard's exact form only.
        assert_eq!(read("au  - Ba, Jimmy Lei"), tag("AU", "Ba, Jimmy Lei"));
        assert_eq!(read("Ti  - x"), tag("TI", "x"));
        assert_eq!(read("er  - "), tag("ER", ""));
        for not in [
            "continued text",
            "of   - the",
            "is - ok",
            "au - x",
            "TI- x",
            "TI",
            "",
            "ü  - x",
            "It was - ok",
        ] {
            assert_eq!(tag_line(not), None, "{not:?}");
        }
    }

    #[test]
    fn names_are_given_name_first() {
        assert_eq!(given_first("Vaswani, Ashish"), "Ashish Vaswani");
        assert_eq!(given_first("King, Martin L., Jr."), "Martin L. King Jr.");
        assert_eq!(given_first("DeepSeek-AI"), "DeepSeek-AI");
    }

    #[test]
    fn an_entry_maps_its_tags_and_keeps_the_unknown_ones_under_their_names() {
        let text = "TY  - JOUR\nTI  - Attention\nT2  - NeurIPS\nAB  - We propose\n  the model.\n\
                    AU  - Vaswani, Ashish\nAU  - Shazeer, Noam\nDA  - 2017/06/12/\nPY  - n.d.\n\
                    DO  - 10.48550/arXiv.1706.03762\nKW  - attention\nKW  - transformers\n\
                    VL  - 30\nER  - \n";
        let (entries, problems) = parse(text);
        assert!(problems.is_empty(), "{problems:?}");
        let r = &entries[0].record;
        assert_eq!(entries[0].line, 1);
        assert_eq!(r["title"], "Attention");
        assert_eq!(r["abstract"], "We propose the model.");
        assert_eq!(
            r["author"],
            serde_json::json!(["Ashish Vaswani", "Noam Shazeer"])
        );
        assert_eq!(
            r["date"], "2017-06-12",
            "the day DA gives, for `feed --since`"
        );
        assert_eq!(r["arxiv"], "1706.03762");
        assert_eq!(
            r["keywords"],
            serde_json::json!(["attention", "transformers"])
        );
        assert_eq!(r["T2"], "NeurIPS");
        assert_eq!(r["VL"], "30");
    }

    #[test]
    fn repeated_titles_abstracts_and_joined_keywords_lose_nothing() {
        let text = "TY  - JOUR\nTI  - Attention\nTI  - 注意力机制\nAB  - First half.\n\
                    AB  - Second half.\nKW  - gan; adversarial;generative\nER  - \n";
        let (entries, problems) = parse(text);
        assert!(problems.is_empty(), "{problems:?}");
        let r = &entries[0].record;
        assert_eq!(r["title"], "Attention");
        assert_eq!(r["aliases"], serde_json::json!(["注意力机制"]));
        assert_eq!(r["abstract"], "First half. Second half.");
        assert_eq!(
            r["keywords"],
            serde_json::json!(["gan", "adversarial", "generative"])
        );
    }
}
