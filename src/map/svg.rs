//! The static map: one SVG document (deterministic bytes).

use super::{MapData, cluster_color, escape_xml, labels, palette};
use std::fmt::Write;

const WIDTH: f32 = 1280.0;
const HEIGHT: f32 = 900.0;
/// The plot square: left, top, size.
const PLOT: (f32, f32, f32) = (40.0, 60.0, 810.0);
/// The legend column starts here.
const LEGEND_X: f32 = 900.0;
const LABEL_FONT: f32 = 14.0;
const LEGEND_ROW: f32 = 19.0;

/// Renders the map as a standalone SVG document (1280 x 900): a title, one
/// `<circle class="paper">` per point (coloured by cluster, with a `<title>` tooltip: title,
/// topic, kind, highlight), cluster labels as `<text class="cluster-label">` at the cluster
/// anchors (greedy collision avoidance; labels with no free spot are left out), a legend of
/// clusters with their sizes, and, with a focus, rings around the paper and its neighbours
/// and the reading path as a `<polyline class="path">` with numbered steps.
///
/// `xy[i]` (in `[0, 1]^2`, as [`super::layout`] returns) places `data.points[i]`; points
/// without coordinates are not drawn. All text is XML-escaped; the output is the same bytes
/// for the same input.
pub fn render_svg(data: &MapData, xy: &[[f32; 2]]) -> String {
    let n = data.drawn(xy);
    let (px, py, size) = PLOT;
    let sx = |p: [f32; 2]| px + p[0].clamp(0.0, 1.0) * size;
    let sy = |p: [f32; 2]| py + p[1].clamp(0.0, 1.0) * size;
    let radius = if n <= 300 {
        4.5
    } else if n <= 2_000 {
        3.0
    } else {
        2.0
    };
    let mut s = String::with_capacity(4096 + n * 400);
    let _ = write!(
        s,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{HEIGHT}\" \
         viewBox=\"0 0 {WIDTH} {HEIGHT}\" font-family=\"system-ui, 'Noto Sans', 'Noto Sans CJK SC', \
         'PingFang SC', 'Microsoft YaHei', sans-serif\" data-points=\"{n}\">\n"
    );
    s.push_str(
        "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" \
         markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" \
         fill=\"#222\"/></marker></defs>\n",
    );
    s.push_str(
        "<style>.cluster-label{font-weight:600;paint-order:stroke;stroke:#fff;stroke-width:4px;\
         stroke-linejoin:round}.step{font-size:11px;font-weight:700;fill:#fff}</style>\n",
    );
    let _ = writeln!(
        s,
        "<rect width=\"{WIDTH}\" height=\"{HEIGHT}\" fill=\"#fff\"/>"
    );
    let _ = writeln!(
        s,
        "<text class=\"title\" x=\"{px}\" y=\"34\" font-size=\"20\" font-weight=\"600\" fill=\"#222\">{}</text>",
        escape_xml(&data.title)
    );

    // Papers.
    s.push_str("<g class=\"papers\" stroke=\"#fff\" stroke-width=\"0.6\">\n");
    for (i, p) in data.points.iter().take(n).enumerate() {
        let mut tip = p.title.clone();
        for extra in [&p.topic, &p.kind] {
            if !extra.is_empty() {
                tip.push_str(" | ");
                tip.push_str(extra);
            }
        }
        if !p.highlight.is_empty() {
            tip.push('\n');
            tip.push_str(&p.highlight);
        }
        let _ = writeln!(
            s,
            "<circle class=\"paper\" data-id=\"{}\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"{radius}\" fill=\"{}\"><title>{}</title></circle>",
            escape_xml(&p.id),
            sx(xy[i]),
            sy(xy[i]),
            data.point_color(i),
            escape_xml(&tip)
        );
    }
    s.push_str("</g>\n");

    // Focus: rings, path, numbered steps.
    if let Some(focus) = &data.focus {
        s.push_str("<g class=\"focus\" fill=\"none\">\n");
        for &j in focus.neighbors.iter().filter(|&&j| j < n) {
            let _ = writeln!(
                s,
                "<circle class=\"neighbor-ring\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"{:.1}\" stroke=\"#555\" stroke-width=\"1.5\"/>",
                sx(xy[j]),
                sy(xy[j]),
                radius + 3.0
            );
        }
        let path: Vec<usize> = focus.path.iter().copied().filter(|&j| j < n).collect();
        if path.len() >= 2 {
            let pts: Vec<String> = path
                .iter()
                .map(|&j| format!("{:.1},{:.1}", sx(xy[j]), sy(xy[j])))
                .collect();
            let _ = writeln!(
                s,
                "<polyline class=\"path\" points=\"{}\" stroke=\"#222\" stroke-width=\"1.8\" stroke-opacity=\"0.8\" marker-mid=\"url(#arrow)\" marker-end=\"url(#arrow)\"/>",
                pts.join(" ")
            );
        }
        if focus.paper < n {
            let _ = writeln!(
                s,
                "<circle class=\"focus-ring\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"{:.1}\" stroke=\"#d62728\" stroke-width=\"3\"/>",
                sx(xy[focus.paper]),
                sy(xy[focus.paper]),
                radius + 5.0
            );
        }
        for (step, &j) in path.iter().enumerate() {
            let _ = writeln!(
                s,
                "<g class=\"step-mark\"><circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"8\" fill=\"#222\"/><text class=\"step\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" dominant-baseline=\"central\">{}</text></g>",
                sx(xy[j]) + 10.0,
                sy(xy[j]) - 10.0,
                sx(xy[j]) + 10.0,
                sy(xy[j]) - 10.0,
                step + 1
            );
        }
        s.push_str("</g>\n");
    }

    // Cluster labels, biggest clusters first.
    let infos = data.cluster_infos(xy);
    let mut order: Vec<usize> = (0..infos.len())
        .filter(|&c| infos[c].anchor.is_some())
        .collect();
    order.sort_by(|&a, &b| infos[b].count.cmp(&infos[a].count).then(a.cmp(&b)));
    let items: Vec<([f32; 2], f32, f32)> = order
        .iter()
        .map(|&c| {
            let a = infos[c].anchor.unwrap_or([0.5, 0.5]);
            let label = short(&data.clusters[c].label, 40);
            (
                [sx(a), sy(a)],
                labels::text_width_em(&label) * LABEL_FONT + 8.0,
                LABEL_FONT * 1.3,
            )
        })
        .collect();
    // Labels keep off the focus marks (the paper, the numbered steps).
    let mut obstacles: Vec<labels::Rect> = Vec::new();
    if let Some(focus) = &data.focus {
        let mut block = |x: f32, y: f32, h: f32| obstacles.push([x - h, y - h, x + h, y + h]);
        if focus.paper < n {
            block(sx(xy[focus.paper]), sy(xy[focus.paper]), radius + 6.0);
        }
        for &j in focus.path.iter().filter(|&&j| j < n) {
            block(sx(xy[j]), sy(xy[j]), radius + 4.0);
            block(sx(xy[j]) + 10.0, sy(xy[j]) - 10.0, 9.0);
        }
    }
    let spots = labels::place(
        &items,
        &obstacles,
        [0.0, py - 10.0, LEGEND_X - 10.0, py + size + 20.0],
    );
    s.push_str("<g class=\"labels\">\n");
    for (&c, spot) in order.iter().zip(&spots) {
        if let Some([x, y]) = spot {
            let _ = writeln!(
                s,
                "<text class=\"cluster-label\" x=\"{x:.1}\" y=\"{y:.1}\" font-size=\"{LABEL_FONT}\" text-anchor=\"middle\" dominant-baseline=\"central\" fill=\"#222\">{}</text>",
                escape_xml(&short(&data.clusters[c].label, 40))
            );
        }
    }
    s.push_str("</g>\n");

    // Legend.
    s.push_str("<g class=\"legend\" font-size=\"13\" fill=\"#222\">\n");
    let _ = writeln!(
        s,
        "<text x=\"{LEGEND_X}\" y=\"{}\" font-weight=\"600\">Topics</text>",
        py + 4.0
    );
    let max_rows = ((HEIGHT - py - 60.0) / LEGEND_ROW) as usize;
    let shown = if infos.len() > max_rows {
        max_rows - 1
    } else {
        infos.len()
    };
    for (c, info) in infos.iter().enumerate().take(shown) {
        let y = py + 24.0 + c as f32 * LEGEND_ROW;
        let _ = writeln!(
            s,
            "<g class=\"legend-item\"><circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"6\" fill=\"{}\"/><text x=\"{:.1}\" y=\"{:.1}\" dominant-baseline=\"central\">{} ({})</text></g>",
            LEGEND_X + 6.0,
            y,
            cluster_color(c),
            LEGEND_X + 18.0,
            y,
            escape_xml(&short(&data.clusters[c].label, 34)),
            info.count
        );
    }
    if shown < infos.len() {
        let y = py + 24.0 + shown as f32 * LEGEND_ROW;
        let _ = writeln!(
            s,
            "<text x=\"{LEGEND_X}\" y=\"{y:.1}\" dominant-baseline=\"central\" fill=\"#666\">… and {} more</text>",
            infos.len() - shown
        );
    }
    let unclustered = (0..n)
        .filter(|&i| data.cluster_slot(data.points[i].cluster).is_none())
        .count();
    if unclustered > 0 {
        let y = py + 24.0 + (shown + usize::from(shown < infos.len())) as f32 * LEGEND_ROW;
        let _ = writeln!(
            s,
            "<g class=\"legend-item\"><circle cx=\"{:.1}\" cy=\"{y:.1}\" r=\"6\" fill=\"{}\"/><text x=\"{:.1}\" y=\"{y:.1}\" dominant-baseline=\"central\">other ({unclustered})</text></g>",
            LEGEND_X + 6.0,
            palette::UNCLUSTERED,
            LEGEND_X + 18.0,
        );
    }
    s.push_str("</g>\n</svg>\n");
    s
}

/// `text` cut to at most `max` characters (with an ellipsis).
pub(crate) fn short(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let mut t: String = text.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}
