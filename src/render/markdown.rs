use super::{Document, Renderer};

/// A GitHub-flavoured Markdown table, ready to paste into notes. A linked title
/// ([`Document::link_title`]) becomes `[title](address)`; only http(s) addresses ever become
/// links (a `javascript:` address stays out).
pub struct MarkdownRenderer;

/// A cell's text as text: a pipe would end the cell, brackets would make a link, and `<` would
/// let a title such as `<script>...` through as HTML (GitHub's renderer passes inline HTML).
fn escape(cell: &str) -> String {
    super::neutralize(cell)
        .replace('<', "\\<")
        .replace('|', "\\|")
        .replace('[', "\\[")
        .replace(']', "\\]")
}

impl Renderer for MarkdownRenderer {
    fn render(&self, doc: &Document) -> String {
        let mut s = String::new();
        let shown: Vec<usize> = (0..doc.columns.len())
            .filter(|&c| doc.link.is_none_or(|(_, l)| l != c))
            .collect();
        let names: Vec<&str> = shown.iter().map(|&c| doc.columns[c].name).collect();
        s.push_str(&format!("| {} |\n", names.join(" | ")));
        s.push_str(&format!("|{}\n", "---|".repeat(names.len())));
        for row in &doc.rows {
            let cells: Vec<String> = shown
                .iter()
                .map(|&c| match doc.link {
                    Some((t, l)) if t == c && crate::corpus::paper::is_http_url(&row[l]) => {
                        let url = row[l].replace('(', "%28").replace(')', "%29");
                        format!("[{}]({url})", escape(&row[c]))
                    }
                    _ => escape(&row[c]),
                })
                .collect();
            s.push_str(&format!("| {} |\n", cells.join(" | ")));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::{col, wrap};

    #[test]
    fn data_cannot_open_html_links_or_cells() {
        let mut doc = Document::new(vec![col("#"), wrap("title")]);
        doc.push(
            vec!["1".into(), "<script>alert(1)</script> [x](y) | z".into()],
            &serde_json::json!({}),
        );
        let md = MarkdownRenderer.render(&doc);
        assert!(
            md.contains(r"\<script>alert(1)\</script> \[x\](y) \| z"),
            "{md}"
        );
    }
}
