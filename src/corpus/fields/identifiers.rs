//! Identifiers as files write them: arXiv ids and DOIs in their many spellings, and the id of
//! a record that has none.

use super::super::markdown::slugify;
use super::super::paper::{Paper, is_arxiv_id};

/// `s` without the first of `prefixes` it starts with, in any ASCII case.
fn without_prefix<'a>(s: &'a str, prefixes: &[&str]) -> &'a str {
    for prefix in prefixes {
        // `get` rather than slicing: the cut may fall inside a multi-byte character.
        if let Some(head) = s.get(..prefix.len())
            && head.eq_ignore_ascii_case(prefix)
        {
            return &s[prefix.len()..];
        }
    }
    s
}

/// `arXiv:2401.12345v2`, `https://arxiv.org/abs/2401.12345`, `2401.12345` -> `2401.12345`;
/// `None` when what remains is not an arXiv id.
///
/// Addresses are read as lists write them: `http`, `https` or no scheme; the `www.` and
/// `export.` hosts; `abs/`, `pdf/` and `html/` pages; a trailing `/`, query or fragment; an
/// old-style id's archive in any case and with its subject class (`math.DG/0211159` is
/// `math/0211159`, as arXiv files it).
pub fn normalize_arxiv(s: &str) -> Option<String> {
    let s = s.trim();
    let host = without_prefix(
        without_prefix(s, &["https://", "http://"]),
        &["www.", "export."],
    );
    let t = match host.get(..10) {
        Some(h) if h.eq_ignore_ascii_case("arxiv.org/") => {
            let path = &host[10..];
            let page = without_prefix(path, &["abs/", "pdf/", "html/"]);
            if page.len() == path.len() {
                return None;
            }
            let end = page.find(['?', '#']).unwrap_or(page.len());
            page[..end].trim_end_matches('/')
        }
        _ => without_prefix(s, &["arxiv:"]),
    };
    let old_style;
    let t = match t.split_once('/') {
        Some((archive, number)) if !archive.is_empty() => {
            let archive = archive.split('.').next().unwrap_or(archive);
            old_style = format!("{}/{number}", archive.to_ascii_lowercase());
            old_style.as_str()
        }
        _ => t,
    };
    let t = t.strip_suffix(".pdf").unwrap_or(t);
    let t = match t.rfind('v') {
        Some(v)
            if v > 0
                && v + 1 < t.len()
                && t[v + 1..].bytes().all(|b| b.is_ascii_digit())
                && t.as_bytes()[v - 1].is_ascii_digit() =>
        {
            &t[..v]
        }
        _ => t,
    };
    is_arxiv_id(t).then(|| t.to_string())
}

/// `doi:10.1/x`, `https://doi.org/10.1/x` -> `10.1/x`; `None` unless it looks like a DOI.
pub fn normalize_doi(s: &str) -> Option<String> {
    let t = without_prefix(
        s.trim(),
        &[
            "https://doi.org/",
            "http://doi.org/",
            "https://dx.doi.org/",
            "http://dx.doi.org/",
            "doi:",
        ],
    )
    .trim();
    let ok = t.starts_with("10.")
        && t.contains('/')
        && !t.chars().any(|c| c.is_whitespace() || c.is_control());
    ok.then(|| t.to_string())
}

/// The arXiv id in a DOI arXiv assigned (`10.48550/arXiv.2503.14476` -> `2503.14476`), in any
/// of the spellings [`normalize_doi`] reads; `None` for any other DOI.
pub fn arxiv_of_doi(doi: &str) -> Option<String> {
    let d = normalize_doi(doi)?;
    let prefix = "10.48550/arxiv.";
    d.get(..prefix.len())
        .filter(|h| h.eq_ignore_ascii_case(prefix))
        .and_then(|_| normalize_arxiv(&d[prefix.len()..]))
}

/// The id of a record that has none: its arXiv id, else its DOI, else a slug of its title.
pub fn derived_id(p: &Paper) -> String {
    if let Some(a) = &p.arxiv {
        return a.clone();
    }
    if let Some(d) = &p.doi {
        return d.to_ascii_lowercase();
    }
    slugify(&p.title)
}

/// The year of an arXiv id's first version: `2503.14476` -> 2025, `cs/0112017` -> 2001.
pub(super) fn arxiv_year(a: &str) -> Option<u16> {
    let yy: u16 = match a.split_once('/') {
        Some((_, num)) => num.get(..2)?.parse().ok()?,
        None => a.get(..2)?.parse().ok()?,
    };
    Some(if yy >= 91 { 1900 + yy } else { 2000 + yy })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_read_in_their_spellings_and_anything_else_is_none() {
        assert_eq!(
            normalize_doi("https://doi.org/10.1145/3292500.3330701").as_deref(),
            Some("10.1145/3292500.3330701")
        );
        assert_eq!(normalize_doi("DOI:10.1/x").as_deref(), Some("10.1/x"));
        assert_eq!(
            normalize_arxiv("https://arxiv.org/pdf/2504.16084v2").as_deref(),
            Some("2504.16084")
        );
        // Addresses as lists write them (a bad-input probe found 7 of 10 of these skipped).
        for (s, id) in [
            ("https://www.arxiv.org/abs/2401.00001", "2401.00001"),
            ("https://export.arxiv.org/abs/2401.00002", "2401.00002"),
            ("https://arxiv.org/abs/2401.00003/", "2401.00003"),
            ("https://arxiv.org/html/2401.00005v1", "2401.00005"),
            ("https://arxiv.org/abs/2401.00006?context=cs", "2401.00006"),
            ("http://arxiv.org/pdf/2401.00007v3.pdf#page=2", "2401.00007"),
            ("arxiv.org/abs/2401.00008", "2401.00008"),
            ("https://arxiv.org/abs/HEP-TH/9901001", "hep-th/9901001"),
            ("https://arxiv.org/abs/math.DG/0211159v2", "math/0211159"),
            ("arXiv:cs/0112017", "cs/0112017"),
            ("2504.16084", "2504.16084"),
        ] {
            assert_eq!(normalize_arxiv(s).as_deref(), Some(id), "{s:?}");
        }
        for s in [
            "https://arxiv.org/list/cs.LG/recent",
            "https://github.com/x/2401.00001",
            "https://arxiv.org/abs/",
            "https://arxiv.org/abs/2401.1",
        ] {
            assert_eq!(normalize_arxiv(s), None, "{s:?}");
        }
        // Any link is now asked for both: a prefix's length may end inside a character.
        for s in [
            "https://例え.jp/論文",
            "doi强化学习",
            "arxiv.or強",
            "",
            "10.",
            "https://doi.org/",
        ] {
            assert_eq!(normalize_doi(s), None, "{s:?}");
            assert_eq!(normalize_arxiv(s), None, "{s:?}");
        }
    }
}
