//! Values as a record holds them (JSON, or text from CSV and BibTeX) converted to a field's type:
//! text on one line, lists, yes/no, years, kinds, authors. An error names the key and what it
//! held.

use serde_json::Value;

use super::super::paper::Kind;

/// The first year (1000-2999) written in `s` as four digits of their own: `2023-05-01`,
/// `Mon, 2 Apr 2007 19:18:42 GMT`, `2017`, or opening a compact date (`20230501`).
pub fn year_in(s: &str) -> Option<u16> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            // A compact date (`20250609`) holds its year in its first four digits.
            let digits =
                if i - start == 8 && crate::util::date::finer_than_year(&s[start..i]).is_some() {
                    4
                } else {
                    i - start
                };
            if digits == 4
                && let Ok(y) = s[start..start + 4].parse::<u16>()
                && (1000..=2999).contains(&y)
            {
                return Some(y);
            }
        } else {
            i += 1;
        }
    }
    None
}

/// Text with line breaks or tabs (a wrapped arXiv title, a multi-line BibTeX abstract) becomes
/// one line; text without them is kept exactly as written.
pub(super) fn one_line(s: &str) -> String {
    if s.contains(['\n', '\r', '\t']) {
        s.split_whitespace().collect::<Vec<_>>().join(" ")
    } else {
        s.to_string()
    }
}

fn describe(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "text",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// A scalar as text; `None` for null or empty text.
pub(super) fn scalar(key: &str, v: &Value) -> Result<Option<String>, String> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) => Ok((!s.trim().is_empty()).then(|| one_line(s))),
        Value::Number(n) => Ok(Some(n.to_string())),
        Value::Bool(b) => Ok(Some(b.to_string())),
        other => Err(format!("`{key}` must be text, not {}", describe(other))),
    }
}

/// How a list field written as one text splits into items.
#[derive(Clone, Copy)]
pub(super) enum Split {
    /// `a; b` (names that may hold commas)
    Semicolons,
    /// `a, b; c` (keywords)
    Commas,
    /// `cs.CL cs.AI` (arXiv categories)
    Spaces,
}

pub(super) fn items(key: &str, v: &Value, split: Split) -> Result<Vec<String>, String> {
    let parts: Vec<String> = match v {
        Value::Null => Vec::new(),
        Value::Array(a) => {
            let mut out = Vec::new();
            for x in a {
                // Zotero's JSON gives each tag as `{"tag": "RLHF", "type": 1}`.
                let x = match x.get("tag") {
                    Some(tag @ Value::String(_)) => tag,
                    _ => x,
                };
                if let Some(s) = scalar(key, x).map_err(|_| {
                    format!("`{key}` must be a list of texts, not of {}", describe(x))
                })? {
                    out.push(s);
                }
            }
            out
        }
        Value::String(s) => match split {
            Split::Semicolons => s.split(';').map(str::to_string).collect(),
            Split::Commas => s.split([';', ',']).map(str::to_string).collect(),
            Split::Spaces => s.split_whitespace().map(str::to_string).collect(),
        },
        other => {
            return Err(format!(
                "`{key}` must be a list or text, not {}",
                describe(other)
            ));
        }
    };
    Ok(parts
        .into_iter()
        .map(|s| one_line(&s).trim().to_string())
        .filter(|s| !s.is_empty())
        .collect())
}

pub(super) fn boolean(key: &str, v: &Value) -> Result<bool, String> {
    match v {
        Value::Bool(b) => Ok(*b),
        Value::Null => Ok(false),
        Value::Number(n) if n.as_u64() == Some(0) => Ok(false),
        Value::Number(n) if n.as_u64() == Some(1) => Ok(true),
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" | "y" | "1" | "x" => Ok(true),
            "false" | "no" | "n" | "0" | "" => Ok(false),
            other => Err(format!(
                "`{key}` {other:?} is not a yes/no value (true, false, yes, no, 1, 0)"
            )),
        },
        other => Err(format!(
            "`{key}` must be true or false, not {}",
            describe(other)
        )),
    }
}

pub(super) fn year(key: &str, v: &Value) -> Result<Option<u16>, String> {
    match v {
        Value::Null => Ok(None),
        Value::Number(n) => match n.as_u64().and_then(|y| u16::try_from(y).ok()) {
            Some(y) => Ok(Some(y)),
            None => Err(format!("`{key}` {n} is not a year")),
        },
        Value::String(s) if s.trim().is_empty() => Ok(None),
        Value::String(s) => year_in(s)
            .map(Some)
            .ok_or_else(|| format!("`{key}` {s:?} holds no year")),
        // A CSL JSON date (Zotero's and Mendeley's JSON export): `{"date-parts": [[2017, 6]]}`.
        Value::Object(date) => {
            let first = date
                .get("date-parts")
                .and_then(|d| d.get(0))
                .and_then(|d| d.get(0))
                .or_else(|| date.get("raw"))
                .or_else(|| date.get("literal"));
            match first {
                Some(v @ (Value::Number(_) | Value::String(_))) => year(key, v),
                _ => Err(format!(
                    "`{key}` holds no year (a date object needs `date-parts`, `raw` or `literal`)"
                )),
            }
        }
        other => Err(format!(
            "`{key}` must be a year or a date, not {}",
            describe(other)
        )),
    }
}

/// A publication date finer than its year, as `YYYY-MM-DD` or `YYYY-MM`: a text holding one
/// in a form exports write ([`crate::util::date::finer_than_year`]: `2025-03-18`,
/// `2025/03/18`, `18.03.2025`, `June 9, 2025`, a time after it), or a CSL JSON date with a
/// month (`{"date-parts": [[2025, 3, 18]]}`); `None` for a year alone, a date that does not
/// exist, or anything else. A feed's `--since` compares on it, where the year alone would let
/// a whole year through.
pub(super) fn iso_date(v: &Value) -> Option<String> {
    let valid = |y: u64, m: u64, d: Option<u64>| {
        let days = u64::from(crate::util::date::days_in_month(y as u32, m as u32));
        (1000..=2999).contains(&y)
            && (1..=12).contains(&m)
            && d.is_none_or(|d| (1..=days).contains(&d))
    };
    match v {
        Value::String(s) => crate::util::date::finer_than_year(s),
        Value::Object(date) => {
            let parts = date.get("date-parts")?.get(0)?.as_array()?;
            let n = |i: usize| parts.get(i).and_then(Value::as_u64);
            let (y, m, d) = (n(0)?, n(1)?, n(2));
            valid(y, m, d).then(|| match d {
                Some(d) => format!("{y:04}-{m:02}-{d:02}"),
                None => format!("{y:04}-{m:02}"),
            })
        }
        _ => None,
    }
}

pub(super) fn kind(v: &Value) -> Result<Option<Kind>, String> {
    let Some(s) = scalar("kind", v)? else {
        return Ok(None);
    };
    Kind::ALL
        .iter()
        .copied()
        .find(|k| k.as_str() == s.trim())
        .map(Some)
        .ok_or_else(|| {
            format!("unknown kind {s:?}; kind must be one of: survey, method, system, benchmark, dataset, model")
        })
}

/// A list of authors: names joined by ", "; a text stays as written. A name may be a CSL JSON
/// name object (`{"family": "Vaswani", "given": "Ashish"}` or `{"literal": "DeepSeek-AI"}`), a
/// Zotero creator (`{"creatorType": "author", "firstName": .., "lastName": ..}`, editors and
/// other roles left out) or a `{"name": ..}` object (Semantic Scholar, Zotero's one-field names).
pub(super) fn authors(v: &Value) -> Result<Option<String>, String> {
    match v {
        Value::Array(list) => {
            let names: Vec<Value> = list
                .iter()
                .filter(|n| {
                    n.get("creatorType")
                        .and_then(Value::as_str)
                        .is_none_or(|t| t == "author")
                })
                .map(csl_name)
                .collect::<Result<_, _>>()?;
            let names = items("authors", &Value::Array(names), Split::Semicolons)?;
            Ok((!names.is_empty()).then(|| names.join(", ")))
        }
        other => scalar("authors", other),
    }
}

/// A CSL JSON name object as "Given Family" text; any other value as it is.
fn csl_name(v: &Value) -> Result<Value, String> {
    let Value::Object(name) = v else {
        return Ok(v.clone());
    };
    let part = |k: &str| name.get(k).and_then(Value::as_str).map(str::trim);
    if let Some(literal) = part("literal")
        .or_else(|| part("name"))
        .filter(|l| !l.is_empty())
    {
        return Ok(Value::String(literal.to_string()));
    }
    let parts: Vec<&str> = [
        "given",
        "firstName",
        "non-dropping-particle",
        "family",
        "lastName",
        "suffix",
    ]
    .into_iter()
    .filter_map(part)
    .filter(|p| !p.is_empty())
    .collect();
    if parts.is_empty() {
        return Err(
            "`authors` holds a name without `family`, `given`, `literal` or `name` (a CSL \
             JSON name object, or a Zotero creator with `firstName` and `lastName`)"
                .into(),
        );
    }
    Ok(Value::String(parts.join(" ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_year_is_four_digits_of_their_own_or_a_compact_dates_first_four() {
        assert_eq!(year_in("2023-05-01"), Some(2023));
        assert_eq!(year_in("20230501"), Some(2023));
        assert_eq!(year_in("v2 of 20230501"), Some(2023));
        assert_eq!(year_in("20231301"), None, "no month 13: not a date");
        assert_eq!(year_in("12345"), None);
    }

    #[test]
    fn a_date_finer_than_its_year_is_kept_as_iso() {
        let date = |v: Value| iso_date(&v);
        assert_eq!(date(json!("2025-03-18")).as_deref(), Some("2025-03-18"));
        assert_eq!(
            date(json!(" 2025-03-18T09:00:00Z")).as_deref(),
            Some("2025-03-18")
        );
        assert_eq!(date(json!("2025-03")).as_deref(), Some("2025-03"));
        assert_eq!(date(json!("March 2025")).as_deref(), Some("2025-03"));
        assert_eq!(date(json!("2025/01/02")).as_deref(), Some("2025-01-02"));
        assert_eq!(date(json!("02.01.2025")).as_deref(), Some("2025-01-02"));
        assert_eq!(date(json!("June 9 2025")).as_deref(), Some("2025-06-09"));
        assert_eq!(
            date(json!({"date-parts": [[2025, 3, 8]]})).as_deref(),
            Some("2025-03-08")
        );
        assert_eq!(
            date(json!({"date-parts": [[2025, 3]]})).as_deref(),
            Some("2025-03")
        );
        for year_only in [
            json!("2025"),
            json!(2025),
            json!("01/02/2025"),
            json!("2025-02-30"),
            json!({"date-parts": [[2025, 2, 30]]}),
            json!("2025-13-01"),
            json!("2025-03-32"),
            json!("2025-03-181"),
            json!({"date-parts": [[2025]]}),
        ] {
            assert_eq!(iso_date(&year_only), None, "{year_only}");
        }
    }
}
