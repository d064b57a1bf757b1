//! The corpus map: a 2-D picture of the papers in which related papers sit together.
//!
//! Three steps, each a pure function of its input (same bytes on every run and machine):
//!
//! 1. [`layout`] projects the paper vectors (`n x d`, rows L2-normalized) to points in
//!    `[0, 1]^2` that keep neighbours together (PCA start, then a UMAP-like neighbour
//!    embedding of the cosine kNN graph; see [`layout`] for the details).
//! 2. A [`MapData`] ([`map_data`] builds it for an index from the engine's topics, related
//!    papers and reading path; [`draw`] runs all three steps): one [`MapPoint`] per paper (in the order of the
//!    vector rows), the [`MapCluster`]s (topics) with their labels, the related papers of each
//!    paper, and an optional [`Focus`] (`--like X`: the paper, its neighbours, a reading path).
//! 3. [`render_html`] writes one self-contained interactive page (canvas; hover, click, zoom,
//!    pan, search; no network), [`render_svg`] a static picture.
//!
//! Indices everywhere (`related`, `Focus`) are positions in `MapData::points`, and
//! `MapPoint::cluster` is the `id` of a [`MapCluster`]; a point whose cluster id is not in
//! `clusters` is drawn grey. Indices out of range are ignored by the renderers, never a panic.

mod assemble;
mod html;
mod layout;
mod palette;
mod svg;

pub use assemble::{MapError, draw, map_data};
pub use html::render_html;
pub use layout::{layout, layout_with_neighbours};
pub use palette::cluster_color;
pub use svg::render_svg;

use crate::corpus::paper::Paper;
use serde::Serialize;

/// One paper on the map.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MapPoint {
    pub id: String,
    pub title: String,
    pub topic: String,
    pub highlight: String,
    pub kind: String,
    /// Where to read the paper: an http(s) address or nothing ([`Paper::href`]).
    pub url: Option<String>,
    /// The `id` of the paper's [`MapCluster`].
    pub cluster: usize,
}

impl MapPoint {
    /// The map point of a paper filed in cluster `cluster`.
    pub fn from_paper(paper: &Paper, cluster: usize) -> MapPoint {
        MapPoint {
            id: paper.id.clone(),
            title: paper.title.clone(),
            topic: paper.topic.clone(),
            highlight: paper.highlight.clone(),
            kind: paper.kind.as_str().to_string(),
            url: paper
                .href()
                .filter(|u| crate::corpus::paper::is_http_url(u)),
            cluster,
        }
    }
}

/// A cluster (topic) of papers; its label is drawn at the centroid of its points.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MapCluster {
    pub id: usize,
    pub label: String,
}

/// The paper a map is focused on (`--like X`).
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Focus {
    /// Index of the paper X.
    pub paper: usize,
    /// Indices of X's nearest neighbours (highlighted).
    pub neighbors: Vec<usize>,
    /// A reading path, in reading order (drawn as numbered arrows).
    pub path: Vec<usize>,
}

/// Everything a map shows besides the coordinates.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct MapData {
    pub points: Vec<MapPoint>,
    pub clusters: Vec<MapCluster>,
    /// Per point: indices of its top related papers (shown on click). May be shorter than
    /// `points` (missing entries mean "none").
    pub related: Vec<Vec<usize>>,
    /// From `--like X`.
    pub focus: Option<Focus>,
    /// The page / picture title, e.g. "recommend: map of corpus/ (152 papers, 9 topics)".
    pub title: String,
}

impl MapData {
    /// Position of cluster id `id` in `clusters` (the colour index), if any.
    fn cluster_slot(&self, id: usize) -> Option<usize> {
        self.clusters.iter().position(|c| c.id == id)
    }

    /// Colour of point `i`.
    fn point_color(&self, i: usize) -> String {
        match self.cluster_slot(self.points[i].cluster) {
            Some(slot) => cluster_color(slot),
            None => palette::UNCLUSTERED.to_string(),
        }
    }
}

/// Per cluster (in `clusters` order): how many drawn points it has and where its label goes
/// (the member point nearest the members' centroid, so a label never floats in empty space
/// between two lobes).
pub(crate) struct ClusterInfo {
    pub count: usize,
    pub anchor: Option<[f32; 2]>,
}

impl MapData {
    /// Number of points drawn: those with coordinates.
    pub(crate) fn drawn(&self, xy: &[[f32; 2]]) -> usize {
        self.points.len().min(xy.len())
    }

    pub(crate) fn cluster_infos(&self, xy: &[[f32; 2]]) -> Vec<ClusterInfo> {
        let n = self.drawn(xy);
        let slots: Vec<Option<usize>> = (0..n)
            .map(|i| self.cluster_slot(self.points[i].cluster))
            .collect();
        (0..self.clusters.len())
            .map(|slot| {
                let members: Vec<usize> = (0..n).filter(|&i| slots[i] == Some(slot)).collect();
                if members.is_empty() {
                    return ClusterInfo {
                        count: 0,
                        anchor: None,
                    };
                }
                let m = members.len() as f32;
                let c = members.iter().fold([0f32; 2], |s, &i| {
                    [s[0] + xy[i][0] / m, s[1] + xy[i][1] / m]
                });
                let d2 = |i: usize| (xy[i][0] - c[0]).powi(2) + (xy[i][1] - c[1]).powi(2);
                let best = members
                    .iter()
                    .copied()
                    .min_by(|&a, &b| d2(a).total_cmp(&d2(b)).then(a.cmp(&b)))
                    .unwrap_or(members[0]);
                ClusterInfo {
                    count: members.len(),
                    anchor: Some(xy[best]),
                }
            })
            .collect()
    }
}

/// Escapes text for XML/HTML content and attribute values (`&`, `<`, `>`, `"`, `'`), and drops
/// characters XML 1.0 forbids (control characters other than tab, newline, carriage return).
pub fn escape_xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

/// Label placement shared by the SVG renderer (the HTML page does the same in JS, per zoom).
pub(crate) mod labels {
    /// Rough width of `text` in units of the font size: CJK and other wide characters count
    /// as 1, narrow ones as 0.58.
    pub fn text_width_em(text: &str) -> f32 {
        text.chars()
            .map(|c| {
                if unicode_width::UnicodeWidthChar::width(c).unwrap_or(0) >= 2 {
                    1.0
                } else {
                    0.58
                }
            })
            .sum()
    }

    /// An axis-aligned box: x0, y0, x1, y1.
    pub type Rect = [f32; 4];

    fn overlaps(a: &Rect, b: &Rect) -> bool {
        a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]
    }

    /// Greedy placement: each label (`(anchor, width, height)`, in priority order) goes at its
    /// anchor or the first of a ring of nearby offsets where it overlaps no placed label, no
    /// obstacle and stays inside `bounds`; labels with no free spot are dropped (`None`).
    /// Returns the centre of each placed label.
    pub fn place(
        items: &[([f32; 2], f32, f32)],
        obstacles: &[Rect],
        bounds: Rect,
    ) -> Vec<Option<[f32; 2]>> {
        let mut placed: Vec<Rect> = Vec::new();
        let mut out = Vec::with_capacity(items.len());
        for &(anchor, w, h) in items {
            let mut spot = None;
            'search: for ring in 0..6 {
                let r = ring as f32;
                let offsets: &[(f32, f32)] = if ring == 0 {
                    &[(0.0, 0.0)]
                } else {
                    &[
                        (0.0, -1.0),
                        (0.0, 1.0),
                        (1.0, 0.0),
                        (-1.0, 0.0),
                        (0.7, -0.7),
                        (-0.7, -0.7),
                        (0.7, 0.7),
                        (-0.7, 0.7),
                    ]
                };
                for &(dx, dy) in offsets {
                    let cx = anchor[0] + dx * r * w * 0.5;
                    let cy = anchor[1] + dy * r * h * 1.1;
                    let rect = [cx - w / 2.0, cy - h / 2.0, cx + w / 2.0, cy + h / 2.0];
                    if rect[0] < bounds[0]
                        || rect[1] < bounds[1]
                        || rect[2] > bounds[2]
                        || rect[3] > bounds[3]
                    {
                        continue;
                    }
                    if placed.iter().chain(obstacles).any(|p| overlaps(p, &rect)) {
                        continue;
                    }
                    placed.push(rect);
                    spot = Some([cx, cy]);
                    break 'search;
                }
            }
            out.push(spot);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_xml_escapes_markup_and_drops_controls() {
        assert_eq!(
            escape_xml("a<b>&\"c'\u{1}</script>中文"),
            "a&lt;b&gt;&amp;&quot;c&#39;&lt;/script&gt;中文"
        );
    }

    #[test]
    fn labels_do_not_overlap() {
        let items: Vec<([f32; 2], f32, f32)> =
            (0..10).map(|_| ([50.0, 50.0], 20.0, 10.0)).collect();
        let spots = labels::place(&items, &[], [0.0, 0.0, 100.0, 100.0]);
        let rects: Vec<labels::Rect> = spots
            .iter()
            .flatten()
            .map(|c| [c[0] - 10.0, c[1] - 5.0, c[0] + 10.0, c[1] + 5.0])
            .collect();
        assert!(rects.len() >= 5, "placed only {}", rects.len());
        for (i, a) in rects.iter().enumerate() {
            for b in &rects[i + 1..] {
                assert!(!(a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]));
            }
        }
    }
}
