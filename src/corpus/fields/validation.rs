//! Checks on field values that hold whatever the source format: ids and the text of every
//! field.

use super::super::paper::Paper;
use super::MAX_ID_CHARS;

/// What is wrong with an id, if anything: ids may be any text (arXiv ids, DOIs, citation keys)
/// but must be non-empty, without control characters or surrounding spaces, and not huge.
pub fn id_problem(id: &str) -> Option<String> {
    if id.trim().is_empty() {
        Some("empty id".into())
    } else if let Some(c) = id.chars().find(|c| c.is_control()) {
        Some(format!(
            "id {id:?} contains the control character U+{:04X}",
            c as u32
        ))
    } else if id.trim() != id {
        Some(format!("id {id:?} has leading or trailing spaces"))
    } else if id.chars().count() > MAX_ID_CHARS {
        Some(format!(
            "id of {} characters is too long (at most {MAX_ID_CHARS})",
            id.chars().count()
        ))
    } else {
        None
    }
}

/// Problems with the text of any field: control characters (other than line breaks and tabs in
/// long texts) would corrupt list columns and terminals.
pub fn text_problems(p: &Paper) -> Vec<String> {
    let mut out = Vec::new();
    let mut check = |what: &str, s: &str, allow_breaks: bool| {
        if let Some(c) = s
            .chars()
            .find(|&c| c.is_control() && !(allow_breaks && matches!(c, '\n' | '\r' | '\t')))
        {
            out.push(format!(
                "paper {:?}: {what} contains the control character U+{:04X}",
                p.id, c as u32
            ));
        }
    };
    check("title", &p.title, false);
    for (what, s) in [
        ("highlight", &p.highlight),
        ("summary", &p.summary),
        ("seed_highlight", &p.seed_highlight),
    ] {
        check(what, s, true);
    }
    for (what, s) in [("topic", &p.topic), ("topic_en", &p.topic_en)] {
        check(what, s, false);
    }
    for (what, list) in [
        ("an alias", &p.aliases),
        ("a source", &p.sources),
        ("a keyword", &p.keywords),
        ("another topic", &p.also_topics),
        ("a tag", &p.tags),
        ("builds_on", &p.builds_on),
    ] {
        for s in list {
            check(what, s, false);
        }
    }
    for (what, s) in [
        ("link", &p.link),
        ("authors", &p.authors),
        ("capability", &p.capability),
        ("direction", &p.direction),
    ] {
        if let Some(s) = s {
            check(what, s, false);
        }
    }
    out
}
