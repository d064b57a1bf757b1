use super::{Document, Renderer};

/// A GitHub-flavoured Markdown table, ready to paste into notes.
pub struct MarkdownRenderer;

fn escape(cell: &str) -> String {
    super::neutralize(cell).replace('|', "\\|")
}

impl Renderer for MarkdownRenderer {
    fn render(&self, doc: &Document) -> String {
        let mut s = String::new();
        let names: Vec<&str> = doc.columns.iter().map(|c| c.name).collect();
        s.push_str(&format!("| {} |\n", names.join(" | ")));
        s.push_str(&format!("|{}\n", "---|".repeat(names.len())));
        for row in &doc.rows {
            let cells: Vec<String> = row.iter().map(|c| escape(c)).collect();
            s.push_str(&format!("| {} |\n", cells.join(" | ")));
        }
        s
    }
}
