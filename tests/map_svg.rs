//! The static SVG map: well-formed XML, one mark per paper, escaped text, deterministic.

use crate::support::map_fixture;

use map_fixture::{TRICKY, sample, tricky};
use recommend::map::{MapData, layout, render_svg};

fn parse(svg: &str) -> roxmltree::Document<'_> {
    roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("SVG is not well-formed XML: {e}"))
}

fn papers<'a>(doc: &'a roxmltree::Document<'a>) -> Vec<roxmltree::Node<'a, 'a>> {
    doc.descendants()
        .filter(|n| n.has_tag_name("circle") && n.attribute("class") == Some("paper"))
        .collect()
}

#[test]
fn svg_is_well_formed_with_one_mark_per_paper() {
    let (data, v) = sample(150, true);
    let xy = layout(v.view());
    let svg = render_svg(&data, &xy);
    let doc = parse(&svg);
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    assert_eq!(doc.root_element().attribute("data-points"), Some("150"));
    let marks = papers(&doc);
    assert_eq!(marks.len(), 150);
    for (m, p) in marks.iter().zip(&data.points) {
        assert_eq!(m.attribute("data-id"), Some(p.id.as_str()));
        let title = m
            .children()
            .find(|c| c.has_tag_name("title"))
            .expect("a <title> per paper");
        assert!(title.text().unwrap_or("").starts_with(&p.title));
        for a in ["cx", "cy", "r"] {
            let v: f32 = m.attribute(a).unwrap().parse().unwrap();
            assert!(v.is_finite() && v >= 0.0);
        }
    }
    // Cluster labels, a legend entry per topic, the focus path.
    let labels: Vec<_> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("cluster-label"))
        .collect();
    assert!(
        labels.len() >= 7,
        "only {} of 9 cluster labels placed",
        labels.len()
    );
    let legend = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("legend-item"))
        .count();
    assert_eq!(legend, 9);
    let path = doc
        .descendants()
        .find(|n| n.has_tag_name("polyline") && n.attribute("class") == Some("path"))
        .expect("focus path");
    assert_eq!(path.attribute("points").unwrap().split(' ').count(), 5);
    assert_eq!(
        doc.descendants()
            .filter(|n| n.attribute("class") == Some("step"))
            .count(),
        5
    );
}

#[test]
fn cluster_labels_do_not_overlap() {
    let (data, v) = sample(150, false);
    let svg = render_svg(&data, &layout(v.view()));
    let doc = parse(&svg);
    let boxes: Vec<[f32; 4]> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("cluster-label"))
        .map(|n| {
            let x: f32 = n.attribute("x").unwrap().parse().unwrap();
            let y: f32 = n.attribute("y").unwrap().parse().unwrap();
            let text = n.text().unwrap();
            // Conservative width: every character 0.55 em, CJK 1 em, at 14px.
            let w: f32 = text
                .chars()
                .map(|c| if c.is_ascii() { 0.55 } else { 1.0 })
                .sum::<f32>()
                * 14.0;
            [x - w / 2.0, y - 8.0, x + w / 2.0, y + 8.0]
        })
        .collect();
    for (i, a) in boxes.iter().enumerate() {
        for b in &boxes[i + 1..] {
            let overlap = a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
            assert!(!overlap, "labels overlap: {a:?} {b:?}");
        }
    }
}

#[test]
fn tricky_text_is_escaped() {
    let (data, v) = tricky(40);
    let svg = render_svg(&data, &layout(v.view()));
    let doc = parse(&svg);
    assert_eq!(papers(&doc).len(), 40);
    assert!(!svg.contains("<script"), "raw <script> in SVG");
    assert!(!svg.contains("</script>"));
    assert!(svg.contains("&lt;/script&gt;"));
    assert!(svg.contains("中文「强化」"));
    // The parsed text is the original text.
    let first = papers(&doc)[0];
    assert_eq!(first.attribute("data-id"), Some(data.points[0].id.as_str()));
    let tip = first
        .children()
        .find(|c| c.has_tag_name("title"))
        .unwrap()
        .text()
        .unwrap();
    assert!(tip.contains(TRICKY));
    let title = doc
        .descendants()
        .find(|n| n.attribute("class") == Some("title"))
        .unwrap();
    assert_eq!(title.text(), Some(data.title.as_str()));
    // The cluster label (cut to 40 characters) comes back as written.
    let label_start: String = TRICKY.chars().take(39).collect();
    assert!(
        doc.descendants()
            .filter(|n| n.attribute("class") == Some("cluster-label"))
            .any(|n| n.text().unwrap_or("").starts_with(&label_start))
    );
}

#[test]
fn svg_bytes_are_deterministic() {
    let (data, v) = sample(120, true);
    let a = render_svg(&data, &layout(v.view()));
    let b = render_svg(&data, &layout(v.view()));
    assert_eq!(a, b);
}

#[test]
fn odd_inputs_render() {
    // Nothing at all.
    let empty = MapData::default();
    let doc_src = render_svg(&empty, &[]);
    assert_eq!(papers(&parse(&doc_src)).len(), 0);
    // Out-of-range indices, unknown clusters, many clusters, fewer coordinates than points.
    let (mut data, v) = sample(60, true);
    let xy = layout(v.view());
    data.points[3].cluster = 999;
    data.related[0].push(10_000);
    if let Some(f) = data.focus.as_mut() {
        f.path.push(5_000);
        f.neighbors.push(77_777);
    }
    for id in 9..30 {
        data.clusters.push(recommend::map::MapCluster {
            id,
            label: format!("extra topic {id}"),
        });
    }
    let svg = render_svg(&data, &xy[..50]);
    let doc = parse(&svg);
    assert_eq!(papers(&doc).len(), 50);
    assert!(svg.contains("other (1)"));
}
