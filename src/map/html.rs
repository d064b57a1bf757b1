//! The interactive map: one self-contained HTML page (inline CSS and JS, no network).

use super::{MapData, escape_xml, palette};
use serde::Serialize;

/// What the page's script reads (embedded as JSON in a `<script type="application/json">`).
#[derive(Serialize)]
struct Payload<'a> {
    title: &'a str,
    points: Vec<PointOut<'a>>,
    clusters: Vec<ClusterOut<'a>>,
    related: Vec<Vec<usize>>,
    focus: Option<FocusOut>,
    unclustered: &'static str,
}

#[derive(Serialize)]
struct PointOut<'a> {
    id: &'a str,
    title: &'a str,
    topic: &'a str,
    highlight: &'a str,
    kind: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<&'a str>,
    /// Position in `clusters`, or -1.
    c: i64,
    x: f32,
    y: f32,
}

#[derive(Serialize)]
struct ClusterOut<'a> {
    label: &'a str,
    color: String,
    count: usize,
    anchor: Option<[f32; 2]>,
}

#[derive(Serialize)]
struct FocusOut {
    paper: Option<usize>,
    neighbors: Vec<usize>,
    path: Vec<usize>,
}

/// Coordinates in the page keep 4 decimals (0.1 px on a 1,000 px map).
fn round4(v: f32) -> f32 {
    ((v.clamp(0.0, 1.0) as f64 * 1e4).round() / 1e4) as f32
}

/// The payload as JSON that is safe inside a `<script>` element: `<`, `>` and `&` (which
/// can only occur inside JSON strings) are written as `\u003c`, `\u003e`, `\u0026`, so no
/// `</script>` or `<!--` can appear.
fn script_json(payload: &Payload) -> String {
    let json = serde_json::to_string(payload).unwrap_or_else(|_| "null".to_string());
    let mut out = String::with_capacity(json.len() + 64);
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// Renders the map as one self-contained HTML page that works from disk (no network, no
/// external fonts, scripts or styles): a canvas with one dot per paper coloured by cluster,
/// cluster labels at the cluster anchors (greedy collision avoidance, redone at each zoom
/// level; paper titles appear when zoomed in), a tooltip on hover (title, topic, kind,
/// highlight), a side panel on click (the paper and its `related` papers, which select and
/// centre on click), wheel zoom, drag pan, a title search that highlights matches (Enter jumps
/// to the first), a legend (click a topic to highlight it), and, with a focus, the paper, its
/// neighbours and the reading path as numbered arrows.
///
/// The data travels as JSON in `<script type="application/json" id="map-data">`, escaped so
/// that it cannot close the script element; text reaches the page through `textContent` only.
/// After drawing, the root element `#map-root` carries `data-points` (points in the data),
/// `data-rendered-points` (points drawn) and `data-errors` (script errors so far), and
/// `window.__mapReady = {points: N}` is set.
///
/// `xy[i]` (in `[0, 1]^2`, as [`super::layout`] returns) places `data.points[i]`; points
/// without coordinates are left out, and indices out of range are dropped.
pub fn render_html(data: &MapData, xy: &[[f32; 2]]) -> String {
    let n = data.drawn(xy);
    let infos = data.cluster_infos(xy);
    let valid = |v: &[usize]| -> Vec<usize> { v.iter().copied().filter(|&j| j < n).collect() };
    let payload = Payload {
        title: &data.title,
        points: (0..n)
            .map(|i| {
                let p = &data.points[i];
                PointOut {
                    id: &p.id,
                    title: &p.title,
                    topic: &p.topic,
                    highlight: &p.highlight,
                    kind: &p.kind,
                    url: p.url.as_deref(),
                    c: data.cluster_slot(p.cluster).map_or(-1, |s| s as i64),
                    x: round4(xy[i][0]),
                    y: round4(xy[i][1]),
                }
            })
            .collect(),
        clusters: data
            .clusters
            .iter()
            .zip(&infos)
            .enumerate()
            .map(|(slot, (c, info))| ClusterOut {
                label: &c.label,
                color: super::cluster_color(slot),
                count: info.count,
                anchor: info.anchor.map(|a| [round4(a[0]), round4(a[1])]),
            })
            .collect(),
        related: (0..n)
            .map(|i| data.related.get(i).map(|r| valid(r)).unwrap_or_default())
            .collect(),
        focus: data.focus.as_ref().map(|f| FocusOut {
            paper: (f.paper < n).then_some(f.paper),
            neighbors: valid(&f.neighbors),
            path: valid(&f.path),
        }),
        unclustered: palette::UNCLUSTERED,
    };
    let title = escape_xml(&data.title);
    let count = n.to_string();
    let json = script_json(&payload);
    fill(
        TEMPLATE,
        &[
            ("{{TITLE}}", &title),
            ("{{N}}", &count),
            ("{{DATA}}", &json),
        ],
    )
}

/// The template with each placeholder replaced, in one pass (so that a value containing a
/// placeholder's name is never substituted again).
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out =
        String::with_capacity(template.len() + values.iter().map(|v| v.1.len()).sum::<usize>());
    let mut rest = template;
    while let Some(at) = rest.find("{{") {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        match values.iter().find(|(k, _)| rest.starts_with(k)) {
            Some((k, v)) => {
                out.push_str(v);
                rest = &rest[k.len()..];
            }
            None => {
                out.push_str("{{");
                rest = &rest[2..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The page: HTML, CSS and script with `{{TITLE}}`-style placeholders (see [`fill`]).
const TEMPLATE: &str = include_str!("map.html");
