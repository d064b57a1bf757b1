//! The HNSW graph as `index.bin` stores it: built from hnsw_rs, validated, searched by our loop.
//! (The stored graph inside real index files, the rebuild hint on corruption and agreement with
//! the exact scan through `Index::nearest` are in `tests/serve.rs` and `tests/engine.rs`.)

use recommend::bench::synthetic;
use recommend::index::ann::{HnswParams, exact_search};
use recommend::index::graph::{GraphData, GraphView};

fn data(n: usize) -> ndarray::Array2<f32> {
    let (_, vectors) = synthetic::corpus(n, 32, 8, 3);
    ndarray::Array2::from_shape_vec((n, 32), vectors.into_iter().flatten().collect()).unwrap()
}

#[test]
fn the_stored_graph_validates_and_finds_what_the_exact_scan_finds() {
    let v = data(2000);
    let g = GraphData::build(v.view(), HnswParams::default());
    let flat = v.as_slice().unwrap();
    let view = GraphView::new(
        2000,
        &g.levels,
        &g.slots,
        &g.offsets,
        &g.neighbours,
        &g.entry,
    )
    .unwrap();
    let (mut found, mut total) = (0, 0);
    for q in (0..2000).step_by(37) {
        let query = v.row(q).to_vec();
        let exact: Vec<usize> = exact_search(v.view(), &query, 10)
            .iter()
            .map(|h| h.0)
            .collect();
        let approx = view.search(flat, 32, &query, 10, 64);
        assert_eq!(approx.len(), 10);
        assert_eq!(approx[0].0, q, "a stored row finds itself first");
        found += approx.iter().filter(|h| exact.contains(&h.0)).count();
        total += 10;
    }
    assert!(
        found as f64 / total as f64 >= 0.95,
        "recall {found}/{total}"
    );
    // Deterministic: the same vectors give the same graph.
    assert_eq!(GraphData::build(v.view(), HnswParams::default()), g);
}

#[test]
fn every_kind_of_corruption_is_rejected() {
    let v = data(300);
    let g = GraphData::build(v.view(), HnswParams::default());
    fn check(g: &GraphData) -> Result<GraphView<'_>, String> {
        GraphView::new(
            300,
            &g.levels,
            &g.slots,
            &g.offsets,
            &g.neighbours,
            &g.entry,
        )
    }
    assert!(check(&g).is_ok());
    let mut bad = g.clone();
    bad.neighbours[5] = 300;
    assert!(check(&bad).unwrap_err().contains("out of range"));
    let mut bad = g.clone();
    let low = (0..300).find(|&i| g.levels[i] == 0).unwrap();
    let high = (0..300).find(|&i| g.levels[i] > 0).unwrap();
    // A base-layer-only paper listed on layer 1.
    let slot = g.slots[high] as usize + 1;
    let at = g.offsets[slot] as usize;
    if at < g.offsets[slot + 1] as usize {
        bad.neighbours[at] = low as u32;
        assert!(check(&bad).is_err());
    }
    let mut bad = g.clone();
    bad.levels[low] = 1;
    assert!(check(&bad).is_err());
    let mut bad = g.clone();
    bad.entry[0] = 300;
    assert!(check(&bad).is_err());
    let mut bad = g.clone();
    bad.entry[1] = 200;
    assert!(check(&bad).is_err());
    let mut bad = g.clone();
    bad.offsets[10] = u64::MAX;
    assert!(check(&bad).is_err());
    let mut bad = g.clone();
    *bad.offsets.last_mut().unwrap() += 1;
    assert!(check(&bad).is_err());
    let mut bad = g.clone();
    bad.slots.pop();
    assert!(check(&bad).is_err());
    assert!(GraphView::new(300, &g.levels, &g.slots, &g.offsets, &g.neighbours, &[0]).is_err());
}
