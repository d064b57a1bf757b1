//! The HNSW graph as `index.bin` stores it: built from hnsw_rs, validated, searched by our loop.
//! (The stored graph inside real index files, the rebuild hint on corruption and agreement with
//! the exact scan through `Searcher::nearest` are in `tests/serve.rs` and `tests/engine.rs`.)

use recommend::bench::synthetic;
use recommend::index::ann::{HnswParams, exact_search};
use recommend::index::graph::{GraphData, GraphView};

fn data(n: usize) -> ndarray::Array2<f32> {
    let (_, vectors) = synthetic::corpus(n, 32, 8, 3);
    ndarray::Array2::from_shape_vec((n, 32), vectors.into_iter().flatten().collect()).unwrap()
}

#[test]
fn the_stored_graph_validates_and_finds_what_the_exact_scan_finds() {
    let v = data(1500);
    let g = GraphData::build(v.view(), HnswParams::default());
    let flat = v.as_slice().unwrap();
    let view = GraphView::new(
        1500,
        &g.levels,
        &g.slots,
        &g.offsets,
        &g.neighbours,
        &g.entry,
    )
    .unwrap();
    let (mut found, mut total) = (0, 0);
    for q in (0..1500).step_by(37) {
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
    // Deterministic below the parallel-build size: the same vectors give the same graph.
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

/// `index.bin` with one value of `section` replaced and the checksum recomputed: only the
/// graph's own validation can catch it.
fn corrupt_section(section: &str, at: usize, value: &[u8]) -> tempfile::TempDir {
    use recommend::index::{IndexMeta, format};
    let mut bytes = std::fs::read("index.bin").unwrap();
    let c: format::Container<IndexMeta> = format::open(&bytes, "index.bin").unwrap();
    let r = c
        .range(section)
        .expect("the shipped index stores the graph");
    bytes[r.start + at..r.start + at + value.len()].copy_from_slice(value);
    let body_end = bytes.len() - 8;
    let crc = crc32fast::hash(&bytes[..body_end]);
    bytes[body_end..body_end + 4].copy_from_slice(&crc.to_le_bytes());
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("index.bin"), &bytes).unwrap();
    dir
}

#[test]
fn a_corrupt_graph_section_is_exit_1_with_the_rebuild_hint() {
    for (section, at, value) in [
        ("hnsw.neighbours", 8, &u32::MAX.to_le_bytes()[..]),
        ("hnsw.neighbours", 0, &141u32.to_le_bytes()[..]),
        ("hnsw.offsets", 16, &u64::MAX.to_le_bytes()[..]),
        ("hnsw.slots", 8, &7u64.to_le_bytes()[..]),
        ("hnsw.levels", 3, &[200u8][..]),
        ("hnsw.entry", 0, &9999u32.to_le_bytes()[..]),
    ] {
        let dir = corrupt_section(section, at, value);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_recommend"))
            .arg("--index")
            .arg(dir.path().join("index.bin"))
            .args(["--like", "GRPO"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{section}: {err}");
        assert!(err.contains("HNSW graph is corrupt"), "{section}: {err}");
        assert!(
            err.contains("rebuild it with `recommend index`"),
            "{section}: {err}"
        );
        assert!(!err.contains("panicked"), "{section}: {err}");
    }
}

#[test]
fn the_shipped_index_stores_a_graph_that_agrees_with_the_exact_scan() {
    let index = recommend::index::Searcher::new(
        recommend::index::Index::load(std::path::Path::new("index.bin")).unwrap(),
    );
    let g = index.graph().expect("index.bin stores the HNSW graph");
    assert_eq!(g.len(), index.len());
    let vectors = index.vectors();
    let flat = vectors.as_slice().unwrap();
    let k = 10;
    let (mut found, mut total) = (0, 0);
    for i in 0..index.len() {
        let q = index.vector(i).to_vec();
        let exact = index.nearest(&q, k, true);
        let approx = g.search(flat, index.dim(), &q, k, index.meta.hnsw.ef_search);
        assert_eq!(approx.len(), k);
        // Scores are the same cosines the scan computes.
        for (j, s) in &approx {
            assert!((s - recommend::index::ann::dot(&q, &index.vector(*j).to_vec())).abs() < 1e-5);
        }
        found += approx
            .iter()
            .filter(|h| exact.iter().any(|e| e.0 == h.0))
            .count();
        total += k;
    }
    assert!(
        found as f64 / total as f64 >= 0.99,
        "recall@10 {found}/{total} on the shipped index"
    );
    // Below the size threshold, nearest() without `exact` is the exact scan.
    assert!(!index.uses_graph());
    let q = index.vector(3).to_vec();
    assert_eq!(index.nearest(&q, k, false), index.nearest(&q, k, true));
}

#[test]
fn above_the_threshold_nearest_walks_the_graph_and_agrees_with_the_scan() {
    use recommend::index::{GRAPH_MIN_PAPERS, Index, Searcher};
    let n = GRAPH_MIN_PAPERS + 500;
    let (mut papers, mut vectors) = synthetic::corpus(n + 50, 64, 70, 11);
    let queries = vectors.split_off(n);
    papers.truncate(n);
    let mut given = Some(vectors);
    let index = Searcher::new(
        Index::build(papers, "papers.jsonl", "m", &mut |_| {
            given.take().ok_or_else(|| "embedded twice".to_string())
        })
        .unwrap(),
    );
    assert!(index.uses_graph());
    let (mut found, mut total) = (0, 0);
    for q in &queries {
        let exact = index.nearest(q, 10, true);
        let approx = index.nearest(q, 10, false);
        assert_eq!(approx.len(), 10);
        found += approx.iter().filter(|h| exact.contains(h)).count();
        total += 10;
    }
    assert!(
        found as f64 / total as f64 >= 0.95,
        "recall {found}/{total}"
    );
    // A query of the wrong length falls back to the scan instead of panicking.
    assert_eq!(index.nearest(&[1.0; 3], 5, false).len(), 5);
}

/// A synthetic index just above the graph threshold, and the same index forced to scan.
fn large_index() -> (recommend::index::Searcher, recommend::index::Searcher) {
    use recommend::index::{GRAPH_MIN_PAPERS, Index, Searcher};
    let n = GRAPH_MIN_PAPERS + 200;
    let (papers, vectors) = synthetic::corpus(n, 64, 40, 13);
    let build = |p: Vec<recommend::corpus::Paper>, v: Vec<Vec<f32>>| {
        let mut given = Some(v);
        Searcher::new(
            Index::build(p, "papers.jsonl", "m", &mut |_| {
                given.take().ok_or_else(|| "embedded twice".to_string())
            })
            .unwrap(),
        )
    };
    let graph = build(papers.clone(), vectors.clone());
    let mut exact = build(papers, vectors);
    exact.set_exact_scan(true);
    assert!(graph.uses_graph() && !exact.uses_graph());
    (graph, exact)
}

#[test]
fn on_a_large_index_related_work_from_graph_candidates_agrees_with_the_exact_scan() {
    use recommend::engine::{self, Filters, Mode};
    let (graph, exact) = large_index();
    let (mut same, mut total) = (0, 0);
    for seed in (0..graph.len()).step_by(97) {
        let a =
            engine::retrieve::related(&graph, &[seed], &[], 10, Mode::Hybrid, &Filters::default());
        let b =
            engine::retrieve::related(&exact, &[seed], &[], 10, Mode::Hybrid, &Filters::default());
        assert_eq!(a.len(), 10);
        assert!(a.iter().all(|h| h.paper != seed && h.score.is_finite()));
        let b: Vec<usize> = b.iter().map(|h| h.paper).collect();
        same += a.iter().filter(|h| b.contains(&h.paper)).count();
        total += 10;
    }
    // Candidates come from the graph and scores are standardized on a corpus sample, so the
    // lists may differ at the margin, never wholesale.
    assert!(same as f64 / total as f64 >= 0.8, "{same}/{total} shared");
    // Neighbour lists (topics, paths) likewise.
    let (mut same, mut total) = (0, 0);
    for seed in (0..graph.len()).step_by(131) {
        let a = engine::retrieve::neighbours(&graph, seed, 10, true);
        let b = engine::retrieve::neighbours(&exact, seed, 10, true);
        same += a.iter().filter(|p| b.contains(p)).count();
        total += 10;
    }
    assert!(same as f64 / total as f64 >= 0.8, "{same}/{total} shared");
}

#[test]
fn on_a_large_index_paths_between_papers_of_one_topic_are_found_on_demand() {
    let (graph, exact) = large_index();
    let topic = |i: usize| graph.paper(i).topic.clone();
    let from = 0;
    let to = (1..graph.len())
        .rev()
        .find(|&i| topic(i) == topic(from))
        .unwrap();
    let a = recommend::engine::reading::path_between(&graph, from, to).unwrap();
    let b = recommend::engine::reading::path_between(&exact, from, to).unwrap();
    assert_eq!(a.first().unwrap().id, graph.paper(from).id);
    assert_eq!(a.last().unwrap().id, graph.paper(to).id);
    // Breadth-first on demand finds a chain as short as the full graph's, give or take a hop.
    assert!(a.len() <= b.len() + 1, "{} vs {} steps", a.len(), b.len());
    // Every hop stays inside the topic (the synthetic topics are well separated).
    assert!(
        a.iter()
            .all(|s| s.topic.contains(&topic(from).replace("合成主题 ", "")))
    );
}

#[test]
fn exact_is_accepted_by_every_query_command_and_changes_nothing_on_a_small_index() {
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_recommend"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(args)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    for args in [
        &["--like", "WebAgent-R1", "-f", "json"][..],
        &[
            "search",
            "--mode",
            "lexical",
            "credit assignment",
            "-f",
            "json",
        ],
        &[
            "path",
            "--like",
            "GRPO",
            "--to",
            "WebAgent-R1",
            "-f",
            "json",
        ],
    ] {
        let mut exact = args.to_vec();
        exact.push("--exact");
        // 141 papers are scanned anyway: the flag may not change a byte.
        assert_eq!(run(args), run(&exact), "{args:?}");
    }
}

/// The beam an index stores is measured on its own graph: it reaches the recall target there,
/// and a poorer graph (fewer links per paper, as at a million papers) gets a wider one.
#[test]
fn the_stored_beam_is_calibrated_to_reach_the_recall_target_on_its_graph() {
    use recommend::index::graph::{EF_LADDER, EF_TARGET_RECALL, calibrate_ef};
    let n = 3000;
    let (_, vectors) = synthetic::corpus(n, 48, 12, 5);
    let v =
        ndarray::Array2::from_shape_vec((n, 48), vectors.into_iter().flatten().collect()).unwrap();
    let flat = v.as_slice().unwrap();
    let recall = |view: GraphView<'_>, ef: usize| {
        let (mut found, mut total) = (0, 0);
        for q in (0..n).step_by(29) {
            let query = v.row(q).to_vec();
            let exact: Vec<usize> = exact_search(v.view(), &query, 11)
                .iter()
                .map(|h| h.0)
                .filter(|&j| j != q)
                .take(10)
                .collect();
            let got: Vec<usize> = view
                .search(flat, 48, &query, 11, ef)
                .iter()
                .map(|h| h.0)
                .filter(|&j| j != q)
                .collect();
            found += exact.iter().filter(|j| got.contains(j)).count();
            total += exact.len();
        }
        found as f64 / total as f64
    };

    let full = GraphData::build(v.view(), HnswParams::default());
    let ef_full = calibrate_ef(full.view(), v.view(), EF_TARGET_RECALL);
    assert!(EF_LADDER.contains(&ef_full));
    assert!(recall(full.view(), ef_full) >= 0.98, "ef {ef_full}");

    // The same graph keeping only 3 base-layer links per paper: the walk needs a wider beam.
    let mut thin = full.clone();
    let mut neighbours = Vec::new();
    let mut offsets = vec![0u64];
    for i in 0..n {
        for l in 0..=usize::from(thin.levels[i]) {
            let slot = thin.slots[i] as usize + l;
            let list =
                &full.neighbours[full.offsets[slot] as usize..full.offsets[slot + 1] as usize];
            let keep = if l == 0 {
                3.min(list.len())
            } else {
                list.len()
            };
            neighbours.extend_from_slice(&list[..keep]);
            offsets.push(neighbours.len() as u64);
        }
    }
    (thin.neighbours, thin.offsets) = (neighbours, offsets);
    let view = GraphView::new(
        n,
        &thin.levels,
        &thin.slots,
        &thin.offsets,
        &thin.neighbours,
        &thin.entry,
    )
    .expect("still a valid graph");
    let ef_thin = calibrate_ef(view, v.view(), EF_TARGET_RECALL);
    assert!(
        ef_thin > ef_full,
        "thin graph ef {ef_thin} vs full {ef_full}"
    );
    // The narrowest beam would have missed the target on the thin graph.
    assert!(recall(view, EF_LADDER[0]) < EF_TARGET_RECALL);
}

/// `recommend bench` on a large index reports the stored graph against the exact scan, and
/// skips (with a note) the quality sections that would rank every paper against every other.
#[test]
fn bench_on_a_large_index_reports_the_graph_and_skips_quadratic_sections() {
    use recommend::bench::{self, QUALITY_MAX_PAPERS};
    use recommend::index::{Index, Searcher};
    let n = QUALITY_MAX_PAPERS + 100;
    let (papers, vectors) = synthetic::corpus(n, 32, 70, 17);
    let mut given = Some(vectors);
    let index = Searcher::new(
        Index::build(papers, "papers.jsonl", "m", &mut |_| {
            given.take().ok_or_else(|| "embedded twice".to_string())
        })
        .unwrap(),
    );
    let opts = bench::Options {
        quick: true,
        latency_queries: 20,
        ..Default::default()
    };
    let report = bench::run(&index, None, &opts).unwrap();
    let g = report.graph.as_ref().expect("a graph section");
    assert_eq!(g.papers, n);
    assert_eq!(g.ef_search, index.meta.hnsw.ef_search);
    assert_eq!(g.probes, bench::graph::PROBES);
    assert!(g.recall_at_10 >= 0.95, "recall {}", g.recall_at_10);
    assert!(g.graph_ms > 0.0 && g.scan_ms > 0.0);
    assert!(report.related.is_empty() && report.clusters.is_none());
    assert!(
        report.notes.iter().any(|n| n.contains("skipped above")),
        "{:?}",
        report.notes
    );
    // The JSON has the section; the tables show it.
    let json = serde_json::to_value(&report).unwrap();
    assert!(json["graph"]["recall_at_10"].as_f64().is_some());
    let text = bench::tables::render(&report, recommend::render::Format::Table);
    assert!(text.contains("HNSW graph vs exact scan"), "{text}");
}
