use super::{Document, Renderer};

/// A JSON array of the records, pretty-printed.
pub struct JsonRenderer;

impl Renderer for JsonRenderer {
    fn render(&self, doc: &Document) -> String {
        let mut s = serde_json::to_string_pretty(&doc.records).unwrap_or_else(|_| "[]".into());
        s.push('\n');
        s
    }
}

/// One compact JSON record per line.
pub struct JsonlRenderer;

impl Renderer for JsonlRenderer {
    fn render(&self, doc: &Document) -> String {
        doc.records
            .iter()
            .map(|r| format!("{}\n", serde_json::to_string(r).unwrap_or_default()))
            .collect()
    }
}
