//! Atom: the API's answers (`export.arxiv.org/api/query`) and the listings' Atom twin.

use roxmltree::{Document, Node};

use super::xml::{
    all_text, arxiv_doi, child, child_text, collapse, creators, iso_day, push_unique, read_entries,
    split_description, split_version,
};
use super::{ARXIV_NS, ATOM_NS, Entry, Feed, FeedError, FeedFormat, OPENSEARCH_NS};

pub(super) fn atom(doc: &Document, feed: Node) -> Result<Feed, FeedError> {
    let total_results =
        child_text(feed, OPENSEARCH_NS, "totalResults").and_then(|t| t.parse().ok());
    let (entries, skipped, skipped_ids) = read_entries(
        doc,
        feed.children()
            .filter(|c| c.has_tag_name((ATOM_NS, "entry"))),
        |node, line| {
            let id = child_text(node, ATOM_NS, "id").ok_or(FeedError::Missing {
                line,
                field: "<id>",
            })?;
            if id.contains("arxiv.org/api/errors") {
                let message = child_text(node, ATOM_NS, "summary").unwrap_or(id);
                return Err(FeedError::Api { message });
            }
            let title = child_text(node, ATOM_NS, "title").ok_or(FeedError::Missing {
                line,
                field: "<title>",
            })?;
            // The listings' Atom (rss.arxiv.org/atom) says `oai:arXiv.org:2409.11111v1`.
            let bare = id.strip_prefix("oai:arXiv.org:").unwrap_or(&id);
            let (arxiv, version) = split_version(bare).ok_or_else(|| FeedError::BadId {
                line,
                id: id.clone(),
            })?;
            let mut categories = Vec::new();
            if let Some(p) =
                child(node, ARXIV_NS, "primary_category").and_then(|p| p.attribute("term"))
            {
                push_unique(&mut categories, p.trim().to_string());
            }
            for c in node
                .children()
                .filter(|c| c.has_tag_name((ATOM_NS, "category")))
            {
                if let Some(t) = c.attribute("term") {
                    push_unique(&mut categories, t.trim().to_string());
                }
            }
            let mut authors: Vec<String> = node
                .children()
                .filter(|c| c.has_tag_name((ATOM_NS, "author")))
                .filter_map(|a| child_text(a, ATOM_NS, "name"))
                .collect();
            if authors.is_empty() {
                authors = creators(node);
            }
            let summary = child(node, ATOM_NS, "summary")
                .map(all_text)
                .unwrap_or_default();
            let url = node
                .children()
                .filter(|c| c.has_tag_name((ATOM_NS, "link")))
                .find(|l| l.attribute("rel") == Some("alternate"))
                .and_then(|l| l.attribute("href"))
                .map(|h| h.trim().to_string())
                .unwrap_or_else(|| format!("https://arxiv.org/abs/{arxiv}"));
            let doi = arxiv_doi(node);
            Ok(Entry {
                line,
                arxiv,
                version,
                title,
                summary: collapse(split_description(&summary).1),
                authors,
                published: child_text(node, ATOM_NS, "published").and_then(|p| iso_day(&p)),
                updated: child_text(node, ATOM_NS, "updated").and_then(|p| iso_day(&p)),
                categories,
                url,
                doi,
                comment: child_text(node, ARXIV_NS, "comment"),
                announce_type: child_text(node, ARXIV_NS, "announce_type"),
            })
        },
        |node| {
            let id = child_text(node, ATOM_NS, "id")?;
            let bare = id.strip_prefix("oai:arXiv.org:").unwrap_or(&id);
            split_version(bare).map(|(arxiv, _)| arxiv)
        },
    )?;
    Ok(Feed {
        format: FeedFormat::Atom,
        entries,
        total_results,
        skipped,
        skipped_ids,
    })
}
