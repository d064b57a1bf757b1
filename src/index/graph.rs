//! The HNSW graph stored in `index.bin`, and our search over it.
//!
//! `recommend index` builds the graph with hnsw_rs ([`super::Ann`], serial inserts: the same
//! vectors always give the same graph, so the same corpus gives the same `index.bin`) and copies
//! its neighbour lists into four plain sections. Queries never rebuild it and never hand bytes to
//! hnsw_rs (which cannot load from lists, and panics or aborts on corrupt dump files): the
//! search loop below walks the stored lists in place.
//!
//! Sections (little-endian, viewed in place):
//! - `hnsw.levels`: `u8` per paper, the top layer the paper appears in (0 = base layer only);
//! - `hnsw.slots`: `u64` per paper plus one: paper `i`'s neighbour lists are the slots
//!   `slots[i] ..= slots[i] + levels[i]`, one per layer, so `slots[i + 1] = slots[i] + levels[i] + 1`;
//! - `hnsw.offsets`: `u64` per slot plus one: slot `s` holds `neighbours[offsets[s]..offsets[s + 1]]`;
//! - `hnsw.neighbours`: `u32` paper numbers;
//! - `hnsw.entry`: two `u32`, the entry paper and the top layer.
//!
//! [`GraphView::new`] checks all of it once at load (every neighbour in range and present on
//! the layer it is listed for, offsets monotonic and covering the lists, entry on the top layer),
//! so the search can index without further checks and a corrupt graph is an error, never a panic.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use ndarray::ArrayView2;

use super::ann::{Ann, HnswParams, dot, sort_hits};

/// Highest layer a stored graph may have (hnsw_rs draws at most 16 layers).
pub const MAX_LEVEL: u8 = 15;

/// Section names, in file order.
pub const SECTIONS: [&str; 5] = [
    "hnsw.levels",
    "hnsw.slots",
    "hnsw.offsets",
    "hnsw.neighbours",
    "hnsw.entry",
];

/// The graph as owned arrays, ready to be written as sections.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphData {
    pub levels: Vec<u8>,
    pub slots: Vec<u64>,
    pub offsets: Vec<u64>,
    pub neighbours: Vec<u32>,
    pub entry: [u32; 2],
}

impl GraphData {
    /// Build the graph over the rows of `vectors` (L2-normalized) with hnsw_rs and copy out its
    /// neighbour lists. Deterministic: hnsw_rs's serial insertion uses a fixed seed.
    pub fn build(vectors: ArrayView2<f32>, params: HnswParams) -> GraphData {
        let n = vectors.nrows();
        let ann = Ann::build(vectors, params);
        let pi = ann.hnsw().get_point_indexation();
        let top = pi.get_max_level_observed().min(MAX_LEVEL);
        // Every point, with its level and per-layer neighbour lists, keyed by its row.
        let mut lists: Vec<Vec<Vec<u32>>> = vec![Vec::new(); n];
        let mut levels = vec![0u8; n];
        let mut entry = None;
        for layer in (0..=top).rev() {
            for point in pi.get_layer_iterator(usize::from(layer)) {
                let row = point.get_origin_id();
                if row >= n {
                    continue;
                }
                entry.get_or_insert(row as u32);
                levels[row] = layer;
                let hood = point.get_neighborhood_id();
                lists[row] = (0..=usize::from(layer))
                    .map(|l| {
                        hood.get(l).map_or_else(Vec::new, |ns| {
                            ns.iter()
                                .map(|nb| nb.get_origin_id())
                                .filter(|&j| j < n && j != row)
                                .map(|j| j as u32)
                                .collect()
                        })
                    })
                    .collect();
            }
        }
        let mut slots = Vec::with_capacity(n + 1);
        let mut offsets = vec![0u64];
        let mut neighbours = Vec::new();
        slots.push(0u64);
        for (i, per_layer) in lists.into_iter().enumerate() {
            for l in 0..=usize::from(levels[i]) {
                // A neighbour listed on layer l must live on layer l (hnsw_rs guarantees it;
                // the filter makes the stored graph valid by construction regardless).
                if let Some(ns) = per_layer.get(l) {
                    neighbours.extend(ns.iter().filter(|&&j| usize::from(levels[j as usize]) >= l));
                }
                offsets.push(neighbours.len() as u64);
            }
            slots.push(offsets.len() as u64 - 1);
        }
        GraphData {
            levels,
            slots,
            offsets,
            neighbours,
            entry: [entry.unwrap_or(0), u32::from(top)],
        }
    }

    pub fn view(&self) -> GraphView<'_> {
        GraphView::trusted(
            &self.levels,
            &self.slots,
            &self.offsets,
            &self.neighbours,
            &self.entry,
        )
    }
}

/// The stored graph, viewed in place.
#[derive(Debug, Clone, Copy)]
pub struct GraphView<'a> {
    levels: &'a [u8],
    slots: &'a [u64],
    offsets: &'a [u64],
    neighbours: &'a [u32],
    entry: u32,
    top: u8,
}

impl<'a> GraphView<'a> {
    /// Check the arrays of a graph over `n` papers; `Err` says what is wrong.
    pub fn new(
        n: usize,
        levels: &'a [u8],
        slots: &'a [u64],
        offsets: &'a [u64],
        neighbours: &'a [u32],
        entry: &'a [u32],
    ) -> Result<GraphView<'a>, String> {
        if levels.len() != n || slots.len() != n + 1 {
            return Err(format!("graph levels do not cover {n} papers"));
        }
        let &[e, top] = entry else {
            return Err("graph entry section is not two numbers".into());
        };
        if e as usize >= n || top > u32::from(MAX_LEVEL) || u32::from(levels[e as usize]) != top {
            return Err("graph entry point is not on its top layer".into());
        }
        if slots[0] != 0 {
            return Err("graph slots do not start at 0".into());
        }
        for i in 0..n {
            if levels[i] > top as u8 || slots[i + 1] != slots[i] + u64::from(levels[i]) + 1 {
                return Err(format!("graph layers of paper {i} are inconsistent"));
            }
        }
        let s = slots[n];
        if offsets.len() as u64 != s + 1
            || offsets[0] != 0
            || offsets[s as usize] != neighbours.len() as u64
            || offsets.windows(2).any(|w| w[0] > w[1])
        {
            return Err("graph neighbour offsets are inconsistent".into());
        }
        for i in 0..n {
            for l in 0..=levels[i] {
                let slot = slots[i] as usize + usize::from(l);
                let list = &neighbours[offsets[slot] as usize..offsets[slot + 1] as usize];
                if list
                    .iter()
                    .any(|&j| j as usize >= n || levels[j as usize] < l)
                {
                    return Err(format!(
                        "graph neighbours of paper {i} on layer {l} are out of range"
                    ));
                }
            }
        }
        Ok(Self::trusted(levels, slots, offsets, neighbours, entry))
    }

    /// A view of arrays already checked by [`GraphView::new`] (or built by [`GraphData::build`]).
    pub fn trusted(
        levels: &'a [u8],
        slots: &'a [u64],
        offsets: &'a [u64],
        neighbours: &'a [u32],
        entry: &'a [u32],
    ) -> GraphView<'a> {
        GraphView {
            levels,
            slots,
            offsets,
            neighbours,
            entry: entry[0],
            top: entry[1] as u8,
        }
    }

    pub fn len(&self) -> usize {
        self.levels.len()
    }

    pub fn is_empty(&self) -> bool {
        self.levels.is_empty()
    }

    /// Number of stored links (all layers).
    pub fn links(&self) -> usize {
        self.neighbours.len()
    }

    /// The neighbours of paper `i` on `layer` (empty above its level).
    pub fn neighbours(&self, i: usize, layer: u8) -> &'a [u32] {
        if layer > self.levels[i] {
            return &[];
        }
        let slot = self.slots[i] as usize + usize::from(layer);
        &self.neighbours[self.offsets[slot] as usize..self.offsets[slot + 1] as usize]
    }

    /// The `k` rows of `vectors` (row-major, `dim` values each, L2-normalized) most similar to
    /// `query`, as (row, cosine), best first, with a beam of `ef` (at least `k`) on the base
    /// layer: greedy descent through the upper layers, then the standard HNSW best-first search.
    /// Approximate: recall@10 against the exact scan is measured in `benches/ann.rs`.
    pub fn search(
        &self,
        vectors: &[f32],
        dim: usize,
        query: &[f32],
        k: usize,
        ef: usize,
    ) -> Vec<(usize, f32)> {
        let n = self.len();
        if k == 0 || n == 0 || dim == 0 {
            return Vec::new();
        }
        let sim = |i: usize| dot(&vectors[i * dim..(i + 1) * dim], query);
        let mut cur = self.entry as usize;
        let mut cur_sim = sim(cur);
        for layer in (1..=self.top).rev() {
            loop {
                let mut moved = false;
                for &j in self.neighbours(cur, layer) {
                    let s = sim(j as usize);
                    if s > cur_sim {
                        (cur, cur_sim, moved) = (j as usize, s, true);
                    }
                }
                if !moved {
                    break;
                }
            }
        }
        let ef = ef.max(k);
        let mut visited = vec![0u64; n.div_ceil(64)];
        let mut seen = |i: usize| {
            let (w, b) = (i / 64, 1u64 << (i % 64));
            let was = visited[w] & b != 0;
            visited[w] |= b;
            was
        };
        seen(cur);
        // Candidates to expand, best first; results kept, worst on top.
        let mut candidates = BinaryHeap::from([Scored(cur_sim, cur)]);
        let mut results = BinaryHeap::from([std::cmp::Reverse(Scored(cur_sim, cur))]);
        while let Some(Scored(s, c)) = candidates.pop() {
            let worst = results.peek().map_or(f32::MIN, |r| r.0.0);
            if results.len() >= ef && s < worst {
                break;
            }
            for &j in self.neighbours(c, 0) {
                let j = j as usize;
                if seen(j) {
                    continue;
                }
                let sj = sim(j);
                let worst = results.peek().map_or(f32::MIN, |r| r.0.0);
                if results.len() < ef || sj > worst {
                    candidates.push(Scored(sj, j));
                    results.push(std::cmp::Reverse(Scored(sj, j)));
                    if results.len() > ef {
                        results.pop();
                    }
                }
            }
        }
        let mut hits: Vec<(usize, f32)> = results.into_iter().map(|r| (r.0.1, r.0.0)).collect();
        sort_hits(&mut hits);
        hits.truncate(k);
        hits
    }
}

/// The beam widths [`calibrate_ef`] tries, narrowest first.
pub const EF_LADDER: [usize; 10] = [64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536];

/// Recall@10 the stored `ef_search` must reach on the index's own papers ([`calibrate_ef`]).
///
/// Held-out queries (free text, a query between papers) are harder than a paper's own vector:
/// measured on 100k and 1M synthetic papers (`examples/graph_scale.rs`; BENCHMARKS.md, Speed
/// and scale) they land a few points lower, so the calibration aims above the 0.95-0.98 a
/// user should see.
pub const EF_TARGET_RECALL: f64 = 0.99;

/// How many of its own papers an index probes to pick its `ef_search`.
const EF_PROBES: usize = 200;

/// The narrowest beam of [`EF_LADDER`] whose recall@10 reaches `target`, measured on
/// [`EF_PROBES`] papers spread evenly over the index: each paper's vector is the query, the
/// paper itself is left out of both answers, and the truth is the exact scan. A fixed beam
/// (64 in hnsw_rs's examples) that reaches 0.99 at 100k papers reaches only 0.86 at 1M on 384-d
/// embeddings, so the beam must grow with the graph, and by how much depends on the vectors:
/// measuring beats a formula in n. Deterministic for a given graph; costs [`EF_PROBES`] exact
/// scans (~50 s at 1M papers on 2 cores, under 5% of the graph's build) plus the walks.
/// Returns the widest beam when none reaches `target`.
pub fn calibrate_ef(graph: GraphView<'_>, vectors: ArrayView2<f32>, target: f64) -> usize {
    use rayon::prelude::*;
    const K: usize = 10;
    let n = vectors.nrows();
    let dim = vectors.ncols();
    let widest = EF_LADDER[EF_LADDER.len() - 1];
    let Some(flat) = vectors.as_slice() else {
        return widest;
    };
    if n <= K + 1 || graph.len() != n {
        return EF_LADDER[0];
    }
    let probes = probe_papers(n, EF_PROBES);
    let without = |hits, me| neighbours_of(hits, me, K);
    let truth: Vec<Vec<usize>> = probes
        .par_iter()
        .map(|&i| {
            let q = &flat[i * dim..(i + 1) * dim];
            without(super::ann::exact_search(vectors, q, K + 1), i)
        })
        .collect();
    for ef in EF_LADDER {
        let found: usize = probes
            .par_iter()
            .zip(&truth)
            .map(|(&i, t)| {
                let q = &flat[i * dim..(i + 1) * dim];
                let got = without(graph.search(flat, dim, q, K + 1, ef), i);
                t.iter().filter(|j| got.contains(j)).count()
            })
            .sum();
        let wanted: usize = truth.iter().map(Vec::len).sum();
        if found as f64 >= target * wanted.max(1) as f64 {
            return ef;
        }
    }
    widest
}

/// `count` papers spread evenly over `n` (all of them when `n <= count`): the queries of a
/// self-recall measurement.
pub fn probe_papers(n: usize, count: usize) -> Vec<usize> {
    let count = count.min(n);
    (0..count).map(|p| p * n / count).collect()
}

/// The first `k` papers of `hits` other than `me`: a paper's neighbours when it is the query.
pub fn neighbours_of(hits: Vec<(usize, f32)>, me: usize, k: usize) -> Vec<usize> {
    hits.into_iter()
        .map(|(j, _)| j)
        .filter(|&j| j != me)
        .take(k)
        .collect()
}

/// A similarity and a row, ordered by similarity (total order), then by row.
#[derive(Debug, Clone, Copy)]
struct Scored(f32, usize);

impl PartialEq for Scored {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Scored {}
impl PartialOrd for Scored {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Scored {
    fn cmp(&self, other: &Self) -> Ordering {
        // Higher similarity is greater; on ties the lower row is greater (preferred).
        self.0.total_cmp(&other.0).then(other.1.cmp(&self.1))
    }
}
