//! The records programs read: one ranked result ([`ResultRecord`], what `--format json` prints
//! and `recommend serve` answers) and one paper's whole record ([`PaperRecord`], `recommend
//! show`), with the documents that show them to people. The field names are a public schema:
//! rename nothing.

use serde::Serialize;

use super::{Document, col, wrap};
use crate::corpus::{Kind, Paper};
use crate::engine::Hit;
use crate::index::Searcher;

/// One result as `--format json` prints it (and `recommend serve` answers it).
#[derive(Serialize)]
pub struct ResultRecord<'a> {
    pub rank: usize,
    pub id: String,
    pub title: String,
    pub score: f64,
    pub topic: String,
    pub kind: Kind,
    pub highlight: String,
    pub why: &'a str,
    /// Related work: the share of this list's related-work links the result is stronger than
    /// (0..1; below 0.25 `why` calls it a weak link). Absent for search and where not measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link_strength: Option<f64>,
    /// Search: where the query's best match stands against how close this list's papers come
    /// to each other (0..1; below 0.10 the query is a weak match). Absent for related work and
    /// where not measured (a list of titles).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub match_strength: Option<f64>,
    /// Search: `true` on every result of a query about nothing in this list (its best match is
    /// as far as above, or no closer than most queries about other fields come to the list);
    /// `why` says so. Absent otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub weak_match: bool,
    /// Where to read the paper ([`Paper::href`]): its page, else its arXiv abstract.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arxiv: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub year: Option<u16>,
}

/// What a paper says about itself in one line: its highlight, or (imported lists have
/// abstracts, not highlights) its summary.
pub fn blurb(p: &Paper) -> &str {
    if p.highlight.is_empty() {
        &p.summary
    } else {
        &p.highlight
    }
}

/// The records of ranked `hits` of `index`, ranks from 1, scores rounded to 4 decimals.
pub fn result_records<'a>(index: &Searcher, hits: &'a [Hit]) -> Vec<ResultRecord<'a>> {
    hits.iter()
        .enumerate()
        .map(|(r, h)| {
            let p = index.paper(h.paper).into_owned();
            let url = p.href();
            let highlight = blurb(&p).to_string();
            ResultRecord {
                rank: r + 1,
                id: p.id,
                title: p.title,
                score: (f64::from(h.score) * 10000.0).round() / 10000.0,
                topic: p.topic,
                kind: p.kind,
                url,
                arxiv: p.arxiv,
                code: p.code,
                year: p.year,
                highlight,
                why: &h.why,
                link_strength: h
                    .link_strength
                    .map(|x| (f64::from(x) * 100.0).round() / 100.0),
                match_strength: h
                    .match_strength
                    .map(|x| (f64::from(x) * 100.0).round() / 100.0),
                weak_match: h.weak_match.is_some(),
            }
        })
        .collect()
}

/// Ranked results as a document: rank, title (linked), topic, score, why, highlight, link.
pub fn results_document(index: &Searcher, hits: &[Hit]) -> Document {
    let mut doc = Document::new(vec![
        col("#"),
        wrap("title"),
        col("topic"),
        col("score"),
        wrap("why"),
        wrap("highlight"),
        col("link"),
    ]);
    for r in result_records(index, hits) {
        doc.push(
            vec![
                r.rank.to_string(),
                r.title.to_string(),
                r.topic.to_string(),
                format!("{:.3}", r.score),
                r.why.to_string(),
                r.highlight.to_string(),
                r.url.clone().unwrap_or_default(),
            ],
            &r,
        );
    }
    doc.link_title(1, 6);
    doc
}

/// One paper's whole record (`recommend show --format json`).
#[derive(Serialize)]
pub struct PaperRecord {
    #[serde(flatten)]
    pub paper: Paper,
    /// Where to read it ([`Paper::href`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub href: Option<String>,
    /// Papers of the index this one builds on, and those that build on it: (id, title).
    pub builds_on_papers: Vec<(String, String)>,
    pub built_on_by: Vec<(String, String)>,
}

impl PaperRecord {
    /// Paper `i` of `index`, with the papers of the index it builds on and that build on it.
    pub fn new(index: &Searcher, i: usize) -> PaperRecord {
        let paper = index.paper(i).into_owned();
        let rel = index.relations();
        let named = |v: &[usize]| -> Vec<(String, String)> {
            let t = index.table();
            v.iter()
                .map(|&j| (t.id(j).into_owned(), t.title(j).into_owned()))
                .collect()
        };
        PaperRecord {
            href: paper.href(),
            builds_on_papers: named(&rel.parents[i]),
            built_on_by: named(&rel.children[i]),
            paper,
        }
    }

    /// The record for people: one row per field that has a value.
    pub fn document(&self) -> Document {
        let p = &self.paper;
        let titles = |v: &[(String, String)]| {
            v.iter()
                .map(|(_, t)| t.as_str())
                .collect::<Vec<_>>()
                .join("; ")
        };
        let mut rows: Vec<(&str, String)> = vec![
            ("id", p.id.clone()),
            ("title", p.title.clone()),
            ("aliases", p.aliases.join(", ")),
            ("kind", p.kind.to_string()),
            ("year", p.year.map(|y| y.to_string()).unwrap_or_default()),
            ("authors", p.authors.clone().unwrap_or_default()),
            ("topic", p.topic.clone()),
            ("also filed under", p.also_topics.join("; ")),
            ("tags", p.tags.join(", ")),
            ("keywords", p.keywords.join(", ")),
            ("summary", p.summary.clone()),
            ("highlight", p.highlight.clone()),
            ("seed highlight", p.seed_highlight.clone()),
            ("link", self.href.clone().unwrap_or_default()),
            ("arXiv", p.arxiv.clone().unwrap_or_default()),
            ("code", p.code.clone().unwrap_or_default()),
            ("builds on", titles(&self.builds_on_papers)),
            ("built on by", titles(&self.built_on_by)),
        ];
        rows.retain(|(_, v)| !v.is_empty());
        let mut doc = Document::new(vec![col("field"), wrap("value")]);
        for (k, v) in rows {
            doc.push(vec![k.to_string(), v.clone()], &serde_json::json!({ k: v }));
        }
        doc
    }
}

/// Papers as a list: id, title, kind, topic, highlight (records are the papers themselves).
pub fn papers_document<'a>(papers: impl IntoIterator<Item = &'a Paper>) -> Document {
    let mut doc = Document::new(vec![
        col("id"),
        wrap("title"),
        col("kind"),
        col("topic"),
        wrap("highlight"),
    ]);
    for p in papers {
        doc.push(
            vec![
                p.id.clone(),
                p.title.clone(),
                p.kind.to_string(),
                p.topic.clone(),
                blurb(p).to_string(),
            ],
            p,
        );
    }
    doc
}
