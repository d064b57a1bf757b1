//! JSON records: JSONL (one object per line), and a `.json` file holding a list of records
//! (`[{...}, {...}]`, pretty-printed or on one line) or an object whose `papers`, `items`,
//! `data` or `results` is that list. Each record comes with the line of its first character, so a problem names it.

use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::super::fields::Record;
use super::super::lines::LineCounter;

/// Records by line, or what is wrong at that line.
pub(super) type Read = Vec<(usize, Result<Record, String>)>;

/// The keys of a wrapping object that hold the list of records: `papers`, `items` (Zotero's
/// and Better BibTeX's JSON), `data` (Semantic Scholar's API), `results` (OpenAlex's API).
const LIST_KEYS: &[&str] = &["papers", "items", "data", "results"];

/// The JSON objects of a JSONL text, by line; blank lines skipped, a BOM and CRLF tolerated.
pub(super) fn jsonl_records(text: &str) -> Read {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim().trim_start_matches('\u{feff}');
        if trimmed.is_empty() {
            continue;
        }
        let parsed = match parse(trimmed) {
            Ok(v) => object_of(v, "per line"),
            Err(e) => Err(describe_json_error(&e)),
        };
        out.push((i + 1, parsed));
    }
    out
}

/// A `.json` file's records: a list, or an object holding one under [`LIST_KEYS`], or a single
/// record written over several lines; any other text is read as JSONL. With them, a sentence
/// naming the lists of a wrapping object that were not read (it holds more than one).
pub(super) fn json_records(text: &str) -> (Read, Option<String>) {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let start = body.len() - body.trim_start().len();
    let read = match body.as_bytes().get(start) {
        Some(b'[') => list_records(body, start, true),
        Some(b'{') => match parse(body) {
            Ok(Value::Object(map)) => match wrapped_list(body, start, &map) {
                Some((at, key)) => {
                    let unread = unread_lists(&map, &key);
                    return (list_records(body, at, false), unread);
                }
                None => vec![(line_of(body, start), Ok(map))],
            },
            // One object per line: the first line is a whole value on its own.
            Err(_) if first_line_is_json(&body[start..]) => jsonl_records(text),
            Err(e) => vec![(e.line().max(1), Err(describe_json_error(&e)))],
            Ok(_) => jsonl_records(text),
        },
        None => Vec::new(),
        // Not JSON at all (another format under `.json`, or forced to it): one problem, not
        // one a line.
        Some(_) => vec![(
            line_of(body, start),
            Err(format!(
                "not JSON: a .json file holds a list `[...]` or objects `{{...}}`, and this \
                 starts with {:?}; check the file's format (--corpus-format)",
                body[start..].chars().take(24).collect::<String>()
            )),
        )],
    };
    (read, None)
}

/// The other lists of a wrapping object than the one read (under `read`), said: one list is
/// read per file, since two lists of one object may hold the same papers or other things.
fn unread_lists(map: &Record, read: &str) -> Option<String> {
    let others: Vec<String> = LIST_KEYS
        .iter()
        .filter(|k| **k != read)
        .filter_map(|k| match map.get(*k) {
            Some(Value::Array(a)) => Some(format!(
                "{k:?} ({} {})",
                a.len(),
                if a.len() == 1 { "entry" } else { "entries" }
            )),
            _ => None,
        })
        .collect();
    (!others.is_empty()).then(|| {
        format!(
            "read the list under {read:?}; {} not read (one list a file: save another list \
             to a file of its own to index it too)",
            others.join(", ")
        )
    })
}

fn first_line_is_json(text: &str) -> bool {
    let first = text.lines().next().unwrap_or("");
    serde_json::from_str::<IgnoredAny>(first).is_ok()
}

/// The line (from 1) of byte `at`, for a single question.
fn line_of(text: &str, at: usize) -> usize {
    LineCounter::new(text.as_bytes()).line_of(at)
}

fn skip_space(text: &str, mut at: usize) -> usize {
    let b = text.as_bytes();
    while at < b.len() && b[at].is_ascii_whitespace() {
        at += 1;
    }
    at
}

/// Where the list under one of [`LIST_KEYS`] of the object at `start` begins, if the object
/// (already parsed whole as `map`) has one.
fn wrapped_list(body: &str, start: usize, map: &Record) -> Option<(usize, String)> {
    if !LIST_KEYS
        .iter()
        .any(|k| matches!(map.get(*k), Some(Value::Array(_))))
    {
        return None;
    }
    let b = body.as_bytes();
    let mut at = start + 1;
    loop {
        at = skip_space(body, at);
        let mut keys = serde_json::Deserializer::from_str(&body[at..]).into_iter::<String>();
        let key = keys.next()?.ok()?;
        at = skip_space(body, at + keys.byte_offset());
        at = skip_space(body, at + usize::from(b.get(at) == Some(&b':')));
        if LIST_KEYS.contains(&key.as_str()) && b.get(at) == Some(&b'[') {
            return Some((at, key));
        }
        let mut value = serde_json::Deserializer::from_str(&body[at..]).into_iter::<IgnoredAny>();
        value.next()?.ok()?;
        at = skip_space(body, at + value.byte_offset());
        if b.get(at) != Some(&b',') {
            return None;
        }
        at += 1;
    }
}

/// The records of the list opening at `at` (a `[`), each at the line of its first character;
/// reading stops at the first malformed element, reported at its line. `top`: the list is
/// the whole file, so text after it is a problem.
fn list_records(body: &str, at: usize, top: bool) -> Read {
    let b = body.as_bytes();
    let mut out = Vec::new();
    let mut at = skip_space(body, at + 1);
    if b.get(at) == Some(&b']') {
        return out;
    }
    let mut lines = LineCounter::new(body.as_bytes());
    loop {
        let line = lines.line_of(at);
        let mut values = serde_json::Deserializer::from_str(&body[at..]).into_iter::<Unique>();
        match values.next() {
            Some(Ok(Unique(v))) => out.push((line, object_of(v, "for each record of the list"))),
            Some(Err(e)) => {
                out.push((line + e.line().max(1) - 1, Err(describe_json_error(&e))));
                return out;
            }
            None => {
                out.push((
                    line,
                    Err("the list is never closed (a missing `]`?)".into()),
                ));
                return out;
            }
        }
        at = skip_space(body, at + values.byte_offset());
        match b.get(at) {
            Some(b',') => at = skip_space(body, at + 1),
            Some(b']') => break,
            _ => {
                let what = if at >= b.len() {
                    "the list is never closed (a missing `]`?)"
                } else {
                    "expected `,` or `]` after a record (a missing comma?)"
                };
                out.push((lines.line_of(at), Err(what.into())));
                return out;
            }
        }
    }
    // A list inside a wrapping object was parsed whole already; a list alone ends the file.
    let rest = skip_space(body, at + 1);
    if top && rest < b.len() {
        out.push((
            line_of(body, rest),
            Err("text after the end of the list (a second list, or a stray bracket?)".into()),
        ));
    }
    out
}

/// `text` as one JSON value, every object's keys each given once.
fn parse(text: &str) -> Result<Value, serde_json::Error> {
    serde_json::from_str::<Unique>(text).map(|u| u.0)
}

/// A JSON value whose objects give each key once. serde_json keeps the last of a repeated
/// key without a word, so `{"title": "A", "title": "B"}` would lose "A" silently; here it is a
/// problem at its line, and the user says which value is meant.
struct Unique(Value);

impl<'de> Deserialize<'de> for Unique {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(UniqueVisitor).map(Unique)
    }
}

struct UniqueVisitor;

impl<'de> Visitor<'de> for UniqueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(Unique(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let Unique(v) = map.next_value()?;
            if out.contains_key(&key) {
                return Err(de::Error::custom(format!(
                    "the key {key:?} is given twice in one object (which value is meant? \
                     keep one)"
                )));
            }
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

/// A parsed value as a record, or what it is instead (`where_` says where objects belong).
fn object_of(v: Value, where_: &str) -> Result<Record, String> {
    match v {
        Value::Object(map) => Ok(map),
        other => Err(format!(
            "expected a JSON object ({{\"title\": ...}}) {where_}, found {}",
            match other {
                Value::Array(_) => "a list",
                Value::String(_) => "a string",
                Value::Number(_) => "a number",
                _ => "a bare value",
            }
        )),
    }
}

/// A serde_json error as a message for a corpus line.
fn describe_json_error(e: &serde_json::Error) -> String {
    let msg = e.to_string();
    // serde_json appends " at line 1 column N": the line is ours, keep only the column.
    let msg = match msg.rfind(" at line ") {
        Some(at) => {
            let col = msg[at..].rsplit(' ').next().unwrap_or("");
            format!("{} (column {col})", &msg[..at])
        }
        None => msg,
    };
    if msg.contains("unknown variant") {
        format!("{msg}; kind must be one of: survey, method, system, benchmark, dataset, model")
    } else if e.is_syntax() || e.is_eof() {
        format!("malformed JSON: {msg}")
    } else {
        msg
    }
}
