//! The HTML map without a browser: self-contained, data embedded safely, text escaped.

use crate::support::map_fixture;

use map_fixture::{TRICKY, sample, tricky};
use recommend::map::{MapData, layout, render_html};

/// The JSON inside `<script type="application/json" id="map-data">`.
fn embedded_json(page: &str) -> &str {
    let open = "<script type=\"application/json\" id=\"map-data\">";
    let start = page.find(open).expect("data script") + open.len();
    let end = start + page[start..].find("</script>").expect("end of data script");
    &page[start..end]
}

#[test]
fn page_is_self_contained() {
    let (data, v) = sample(150, true);
    let page = render_html(&data, &layout(v.view()));
    assert!(page.starts_with("<!DOCTYPE html>"));
    for banned in [
        "http://",
        "https://",
        "<link",
        " src=",
        "@import",
        "url(",
        "innerHTML",
    ] {
        assert!(!page.contains(banned), "page contains {banned:?}");
    }
    assert!(page.contains("data-points=\"150\""));
    let json: serde_json::Value = serde_json::from_str(embedded_json(&page)).unwrap();
    assert_eq!(json["points"].as_array().unwrap().len(), 150);
    assert_eq!(json["clusters"].as_array().unwrap().len(), 9);
    assert_eq!(json["focus"]["path"].as_array().unwrap().len(), 5);
    assert_eq!(json["points"][7]["title"], data.points[7].title.as_str());
    assert_eq!(json["related"][3].as_array().unwrap().len(), 6);
}

#[test]
fn tricky_text_cannot_break_out() {
    let (data, v) = tricky(30);
    let page = render_html(&data, &layout(v.view()));
    // Exactly the page's own three script elements, and the data one holds no markup.
    assert_eq!(page.matches("<script").count(), 3);
    assert_eq!(page.matches("</script>").count(), 3);
    let json = embedded_json(&page);
    assert!(!json.contains('<') && !json.contains('>') && !json.contains('&'));
    let value: serde_json::Value = serde_json::from_str(json).unwrap();
    assert_eq!(value["points"][0]["highlight"], TRICKY);
    assert_eq!(value["title"], data.title.as_str());
    // The title as HTML is escaped; the "{{DATA}}" inside it stayed text.
    assert!(page.contains(
        "<title>map a &lt; b &amp;&amp; c &gt; &quot;d&quot; &#39;e&#39; &lt;/script&gt;"
    ));
    assert!(page.contains("中文「强化」 {{DATA}}</title>"));
}

#[test]
fn page_bytes_are_deterministic_and_odd_inputs_render() {
    let (data, v) = sample(100, true);
    let a = render_html(&data, &layout(v.view()));
    let b = render_html(&data, &layout(v.view()));
    assert_eq!(a, b);
    let empty = render_html(&MapData::default(), &[]);
    assert!(empty.contains("data-points=\"0\""));
    let value: serde_json::Value = serde_json::from_str(embedded_json(&empty)).unwrap();
    assert!(value["points"].as_array().unwrap().is_empty());
    // Indices out of range are dropped, not passed to the script.
    let (mut data, xy) = map_fixture::sample_with_coords(20);
    data.related[0] = vec![1, 99];
    data.focus = Some(recommend::map::Focus {
        paper: 50,
        neighbors: vec![2, 70],
        path: vec![2, 3, 80],
    });
    let page = render_html(&data, &xy);
    let value: serde_json::Value = serde_json::from_str(embedded_json(&page)).unwrap();
    assert_eq!(value["related"][0], serde_json::json!([1]));
    assert_eq!(
        value["focus"],
        serde_json::json!({"paper": null, "neighbors": [2], "path": [2, 3]})
    );
}

#[test]
fn papers_link_to_their_pages_in_the_side_panel_data() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("map.html");
    assert_cmd::Command::cargo_bin("recommend")
        .unwrap()
        .args(["map", "--index", "index.bin", "--out"])
        .arg(&out)
        .assert()
        .success();
    let page = std::fs::read_to_string(&out).unwrap();
    let data: serde_json::Value = serde_json::from_str(embedded_json(&page)).unwrap();
    let points = data["points"].as_array().unwrap();
    let web = points.iter().find(|p| p["id"] == "webagent-r1").unwrap();
    assert_eq!(web["url"], "https://arxiv.org/abs/2505.16421");
    // Only http(s) addresses are ever linked; the panel sets them as properties, not markup.
    assert!(points.iter().all(|p| p["url"].is_null()
        || p["url"].as_str().unwrap().starts_with("https://")
        || p["url"].as_str().unwrap().starts_with("http://")));
    assert!(page.contains("a.href = p.url"));
}
