//! The bench report for people and programs: its [`BenchReport::sections`] as one document
//! each, rendered in the requested format (titled tables for a terminal).

use super::BenchReport;
use crate::render::{self, Document, Format, col, wrap};

/// `report` in `format`: one document per section; in a table each is preceded by its title.
/// (`--format json` prints the report itself, not this.)
pub fn render(report: &BenchReport, format: Format) -> String {
    let mut text = String::new();
    for s in &report.sections() {
        let mut doc = Document::new(
            s.columns
                .iter()
                .enumerate()
                .map(|(i, c)| if i == 0 { col(c) } else { wrap(c) })
                .collect(),
        );
        for r in &s.rows {
            let record: serde_json::Map<String, serde_json::Value> = s
                .columns
                .iter()
                .zip(r)
                .map(|(c, v)| (c.to_string(), v.clone().into()))
                .collect();
            doc.push(r.clone(), &record);
        }
        if format == Format::Table {
            text.push_str(&format!("{}\n", s.title));
        }
        text.push_str(&render::renderer(format).render(&doc));
        if format == Format::Table {
            text.push('\n');
        }
    }
    text
}
