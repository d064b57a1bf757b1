//! RSS 2.0: the daily listings (`rss.arxiv.org/rss/cs.LG`).

use roxmltree::{Document, Node};

use super::xml::{
    all_text, arxiv_doi, child, child_text, collapse, creators, push_unique, read_entries,
    rfc822_day, split_description, split_version,
};
use super::{ARXIV_NS, Entry, Feed, FeedError, FeedFormat};

/// Old listings titled items `Title. (arXiv:2301.00001v1 [cs.LG])`; the suffix goes.
pub(super) fn strip_title_suffix(t: &str) -> &str {
    match t.rfind(" (arXiv:") {
        Some(i) if t.ends_with(')') => t[..i].trim_end_matches('.').trim_end(),
        _ => t,
    }
}

pub(super) fn rss(doc: &Document, root: Node) -> Result<Feed, FeedError> {
    let channel = root
        .children()
        .find(|c| c.has_tag_name("channel"))
        .ok_or_else(|| FeedError::NotAFeed {
            found: "an <rss> without a <channel>".into(),
        })?;
    let (entries, skipped, skipped_ids) = read_entries(
        doc,
        channel.children().filter(|c| c.has_tag_name("item")),
        |node, line| {
            let title = child_text(node, "", "title")
                .map(|t| strip_title_suffix(&t).to_string())
                .filter(|t| !t.is_empty())
                .ok_or(FeedError::Missing {
                    line,
                    field: "<title>",
                })?;
            let description = child(node, "", "description")
                .map(all_text)
                .unwrap_or_default();
            let (desc_id, summary) = split_description(&description);
            let summary = collapse(summary);
            let guid = child_text(node, "", "guid");
            let link = child_text(node, "", "link");
            // The guid and the description carry the version; the link does not.
            let raw_id = guid
                .as_deref()
                .map(|g| g.strip_prefix("oai:arXiv.org:").unwrap_or(g))
                .or(desc_id)
                .or(link.as_deref())
                .ok_or(FeedError::Missing {
                    line,
                    field: "arXiv id (<guid>, <link> or an `arXiv:` description)",
                })?
                .to_string();
            let (arxiv, version) = split_version(&raw_id)
                .or_else(|| link.as_deref().and_then(split_version))
                .ok_or_else(|| FeedError::BadId {
                    line,
                    id: raw_id.clone(),
                })?;
            let mut categories = Vec::new();
            for c in node.children().filter(|c| c.has_tag_name("category")) {
                push_unique(&mut categories, collapse(&all_text(c)));
            }
            let authors = creators(node);
            let doi = arxiv_doi(node);
            Ok(Entry {
                line,
                url: link.unwrap_or_else(|| format!("https://arxiv.org/abs/{arxiv}")),
                arxiv,
                version,
                title,
                summary,
                authors,
                published: child_text(node, "", "pubDate").and_then(|d| rfc822_day(&d)),
                updated: None,
                categories,
                doi,
                comment: None,
                announce_type: child_text(node, ARXIV_NS, "announce_type"),
            })
        },
        |node| {
            let guid = child_text(node, "", "guid")?;
            split_version(guid.strip_prefix("oai:arXiv.org:").unwrap_or(&guid))
                .map(|(arxiv, _)| arxiv)
        },
    )?;
    Ok(Feed {
        format: FeedFormat::Rss,
        entries,
        total_results: None,
        skipped,
        skipped_ids,
    })
}
