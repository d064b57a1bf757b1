use comfy_table::{Attribute, Cell, ContentArrangement, LineStyle, Table, TableStyle};

use super::{Document, Renderer, trim_to_width};

/// Terminal width from which result tables keep their link column.
pub const WIDE_ENOUGH_FOR_LINKS: usize = 160;

/// An aligned terminal table that fits the terminal width; long text columns are trimmed.
pub struct TableRenderer {
    pub width: u16,
    pub color: bool,
}

impl TableRenderer {
    /// Sized to the terminal on stdout (120 columns when not a terminal, or `COLUMNS`); bold
    /// headers only on a terminal and when `NO_COLOR` is unset.
    pub fn for_terminal() -> TableRenderer {
        use std::io::IsTerminal;
        let tty = std::io::stdout().is_terminal();
        let width = std::env::var("COLUMNS")
            .ok()
            .and_then(|c| c.parse().ok())
            .or_else(|| tty.then(|| comfy_table::Table::new().width()).flatten())
            .unwrap_or(120);
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        TableRenderer {
            width: width.max(40),
            color: tty && !no_color,
        }
    }
}

impl Renderer for TableRenderer {
    fn render(&self, doc: &Document) -> String {
        if doc.rows.is_empty() {
            return "(no results)\n".into();
        }
        // On a colour terminal a linked title is a clickable OSC 8 hyperlink and the link
        // column goes; elsewhere a link is shown whole or not at all (a cut address leads
        // nowhere): only wide terminals keep the column. JSON and Markdown always carry links.
        if let Some((title, l)) = doc.link
            && self.color
        {
            let mut linked = doc.clone();
            linked.columns.remove(l);
            let urls: Vec<Option<String>> = linked
                .rows
                .iter_mut()
                .map(|row| Some(row.remove(l)).filter(|u| crate::corpus::paper::is_http_url(u)))
                .collect();
            linked.link = None;
            let title = if l < title { title - 1 } else { title };
            return self.render_with_links(&linked, Some((title, &urls)));
        }
        if let Some((_, l)) = doc.link
            && (self.width as usize) < WIDE_ENOUGH_FOR_LINKS
        {
            let mut narrow = doc.clone();
            narrow.columns.remove(l);
            for row in &mut narrow.rows {
                row.remove(l);
            }
            narrow.link = None;
            return self.render(&narrow);
        }
        self.render_with_links(doc, None)
    }
}

impl TableRenderer {
    /// The table; with `links`, the cells of column `links.0` become OSC 8 hyperlinks to the
    /// row's address (validated http(s): no control character can ride along).
    fn render_with_links(
        &self,
        doc: &Document,
        links: Option<(usize, &[Option<String>])>,
    ) -> String {
        // Terminal escapes and bidi overrides in the data must not reach the terminal.
        let rows: Vec<Vec<String>> = doc
            .rows
            .iter()
            .map(|r| {
                r.iter()
                    .map(|c| super::neutralize(c).into_owned())
                    .collect()
            })
            .collect();
        // Fixed columns get what they need; wrapping columns share the rest, narrow ones first
        // so a short column does not waste room a long one could use.
        let ncols = doc.columns.len();
        let natural: Vec<usize> = (0..ncols)
            .map(|c| {
                rows.iter()
                    .map(|r| unicode_width::UnicodeWidthStr::width(r[c].as_str()))
                    .chain(std::iter::once(doc.columns[c].name.len()))
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        // A fixed column wider than a quarter of the table (a list's 60-character slug ids, its
        // long section names) is cut too, else it leaves the titles 11 characters; a link is
        // never cut (a cut address leads nowhere).
        let link_col = links.map(|(c, _)| c).or(doc.link.map(|(_, l)| l));
        let cut: Vec<bool> = (0..ncols)
            .map(|c| {
                doc.columns[c].wrap || (Some(c) != link_col && natural[c] > self.width as usize / 4)
            })
            .collect();
        // one space of padding each side of a cell, one junction between columns
        let gaps = 3 * ncols;
        let fixed: usize = (0..ncols).filter(|&c| !cut[c]).map(|c| natural[c]).sum();
        let mut remaining = (self.width as usize).saturating_sub(gaps + fixed);
        let mut wrapping: Vec<usize> = (0..ncols).filter(|&c| cut[c]).collect();
        wrapping.sort_by_key(|&c| natural[c]);
        let mut room = vec![0usize; ncols];
        for (i, &c) in wrapping.iter().enumerate() {
            let share = remaining / (wrapping.len() - i);
            room[c] = natural[c].min(share).max(12);
            remaining = remaining.saturating_sub(room[c]);
        }

        let mut table = Table::new();
        table
            .load_style(
                TableStyle::new().header_separator(LineStyle::none().fill('─').junction(' ')),
            )
            .set_content_arrangement(ContentArrangement::Disabled);
        table.set_header(doc.columns.iter().map(|c| {
            let cell = Cell::new(c.name);
            if self.color {
                cell.add_attribute(Attribute::Bold)
            } else {
                cell
            }
        }));
        for (r, row) in rows.iter().enumerate() {
            table.add_row(row.iter().enumerate().map(|(c, text)| {
                let shown = if cut[c] {
                    trim_to_width(text, room[c])
                } else {
                    text.clone()
                };
                match links {
                    Some((col, urls)) if col == c => match urls.get(r).cloned().flatten() {
                        Some(url) => {
                            Cell::new(format!("\u{1b}]8;;{url}\u{1b}\\{shown}\u{1b}]8;;\u{1b}\\"))
                        }
                        None => Cell::new(shown),
                    },
                    _ => Cell::new(shown),
                }
            }));
        }
        if !self.color {
            table.force_no_tty();
        }
        format!("{table}\n")
    }
}
