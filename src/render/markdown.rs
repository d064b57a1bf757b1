use super::{Document, Renderer};

/// A GitHub-flavoured Markdown table, ready to paste into notes. A linked title
/// ([`Document::link_title`]) becomes `[title](address)`; only http(s) addresses ever become
/// links (a `javascript:` address stays out).
pub struct MarkdownRenderer;

fn escape(cell: &str) -> String {
    super::neutralize(cell)
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
