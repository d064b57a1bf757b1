//! Reading paths: what to read after (or on the way to) a paper.
//!
//! - [`reading_path`]: n papers outward from X, in the seeds' order survey → benchmark/dataset →
//!   method → model → system ([`Kind::reading_stage`]). Candidates are X's neighbourhood, grown
//!   with the neighbours of each chosen step; the set is picked greedily by maximal marginal
//!   relevance (relevance to X, minus redundancy with what is already chosen, plus a small bonus
//!   for a reading stage not yet covered); within a stage the steps form a chain, each the most
//!   related to the previous step that is not a near-duplicate of it.
//! - [`path_between`]: the smoothest chain from X to Y: Dijkstra on the symmetric kNN graph.
//!
//! Both use only [`Similarity::sim`] and [`Similarity::neighbors`] (O(n·k) memory at most), and
//! are deterministic: every choice breaks ties by the lower paper index.

use crate::corpus::{Kind, Paper};
use crate::engine::similarity::{Similarity, by_score_desc};
use crate::engine::topics::paper_terms;
use rayon::prelude::*;
use serde::Serialize;
use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeMap, BTreeSet, BinaryHeap};

/// One step of a reading path.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Step {
    pub step: usize,
    pub id: String,
    pub title: String,
    pub kind: Kind,
    /// the paper's section (`topic_en` when known, else `topic`)
    pub topic: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub year: Option<u16>,
    /// where to read it (see [`Paper::href`])
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// why this step follows, in English
    pub why: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    #[error("paper index {index} is out of range: the corpus has {len} papers")]
    OutOfRange { index: usize, len: usize },
    #[error("a reading path needs at least one step")]
    ZeroSteps,
    #[error("X and Y are the same paper")]
    SamePaper,
    #[error("no chain of related papers leads from '{from}' to '{to}'")]
    Unreachable { from: String, to: String },
    #[error("{sims} similarities for {papers} papers: the index does not match the corpus")]
    Mismatch { papers: usize, sims: usize },
}

/// Weight of relevance to X against redundancy with chosen steps (MMR).
pub const MMR_LAMBDA: f32 = 0.7;
/// Bonus for a candidate whose reading stage the path does not cover yet.
pub const STAGE_BONUS: f32 = 0.05;
/// Above this similarity to a chosen step, a candidate is a near-duplicate.
pub const NEAR_DUPLICATE: f32 = 0.95;
/// Above this similarity, two papers are not put back to back when another order exists.
pub const ADJACENT_MAX: f32 = 0.9;
/// Neighbours of each chosen step added to the candidate pool.
const EXPAND: usize = 8;

fn check(papers: &[Paper], sim: &dyn Similarity, idx: &[usize]) -> Result<(), PathError> {
    if sim.len() != papers.len() {
        return Err(PathError::Mismatch {
            papers: papers.len(),
            sims: sim.len(),
        });
    }
    for &index in idx {
        if index >= papers.len() {
            return Err(PathError::OutOfRange {
                index,
                len: papers.len(),
            });
        }
    }
    Ok(())
}

fn topic_of(p: &Paper) -> &str {
    if p.topic_en.trim().is_empty() {
        p.topic.trim()
    } else {
        p.topic_en.trim()
    }
}

fn step(step: usize, p: &Paper, why: String) -> Step {
    Step {
        step,
        id: p.id.clone(),
        title: p.title.clone(),
        kind: p.kind,
        topic: topic_of(p).to_string(),
        year: p.year,
        url: p.href(),
        why,
    }
}

/// Readable terms shared by two papers, rarest in `pool` first (at most `max`).
struct SharedTerms {
    terms: BTreeMap<usize, BTreeMap<String, String>>,
    df: BTreeMap<String, usize>,
}

impl SharedTerms {
    fn new(papers: &[Paper], pool: &BTreeSet<usize>) -> Self {
        let ids: Vec<usize> = pool.iter().copied().collect();
        let terms: BTreeMap<usize, BTreeMap<String, String>> = ids
            .par_iter()
            .map(|&i| {
                (
                    i,
                    paper_terms(&papers[i])
                        .into_iter()
                        .collect::<BTreeMap<_, _>>(),
                )
            })
            .collect::<Vec<_>>()
            .into_iter()
            .collect();
        let mut df = BTreeMap::new();
        for t in terms.values() {
            for k in t.keys() {
                *df.entry(k.clone()).or_insert(0) += 1;
            }
        }
        SharedTerms { terms, df }
    }

    fn shared(&self, a: usize, b: usize, max: usize) -> Vec<String> {
        let (Some(ta), Some(tb)) = (self.terms.get(&a), self.terms.get(&b)) else {
            return Vec::new();
        };
        let mut common: Vec<(usize, &str, &str)> = ta
            .iter()
            .filter(|(k, _)| tb.contains_key(*k))
            .map(|(k, s)| (self.df.get(k).copied().unwrap_or(0), k.as_str(), s.as_str()))
            .collect();
        common.sort_by(|x, y| x.0.cmp(&y.0).then(x.1.cmp(y.1)));
        common
            .into_iter()
            .take(max)
            .map(|c| c.2.to_string())
            .collect()
    }
}

/// A route of up to `n` papers outward from `start` (which is not part of it), numbered from
/// 1, in reading order survey → benchmark/dataset → method → model → system. Fewer than `n`
/// steps only when the corpus has fewer than `n + 1` papers.
pub fn reading_path(
    papers: &[Paper],
    sim: &dyn Similarity,
    start: usize,
    n: usize,
) -> Result<Vec<Step>, PathError> {
    check(papers, sim, &[start])?;
    if n == 0 {
        return Err(PathError::ZeroSteps);
    }
    let n = n.min(papers.len() - 1);
    if n == 0 {
        return Ok(Vec::new());
    }
    // candidate pool: index -> similarity to X
    let mut pool_k = (4 * n).max(20).min(papers.len() - 1);
    let mut pool: BTreeMap<usize, f32> = sim.neighbors(start, pool_k).into_iter().collect();
    let mut chosen: Vec<usize> = Vec::new();
    let mut stages: BTreeSet<u8> = BTreeSet::new();
    while chosen.len() < n {
        let mut scored: Vec<(usize, f32)> = pool
            .iter()
            .filter(|(c, _)| **c != start && !chosen.contains(c))
            .map(|(&c, &rel)| {
                let redundancy = chosen
                    .iter()
                    .map(|&s| sim.sim(c, s))
                    .fold(f32::NEG_INFINITY, f32::max);
                let redundancy = if chosen.is_empty() { 0.0 } else { redundancy };
                let mut score = MMR_LAMBDA * rel - (1.0 - MMR_LAMBDA) * redundancy;
                if !stages.contains(&papers[c].kind.reading_stage()) {
                    score += STAGE_BONUS;
                }
                if redundancy > NEAR_DUPLICATE {
                    score -= 1.0;
                }
                (c, score)
            })
            .collect();
        if scored.is_empty() {
            // the neighbourhood is used up: widen it, and once it spans the corpus, take
            // whatever `neighbors` does not return (unrelated papers)
            let before = pool.len();
            pool_k = (pool_k * 2).min(papers.len() - 1);
            for (c, s) in sim.neighbors(start, pool_k) {
                pool.entry(c).or_insert(s);
            }
            if pool.len() == before {
                for c in (0..papers.len()).filter(|&c| c != start) {
                    pool.entry(c).or_insert_with(|| sim.sim(start, c));
                }
            }
            continue;
        }
        scored.sort_by(by_score_desc);
        let pick = scored[0].0;
        chosen.push(pick);
        stages.insert(papers[pick].kind.reading_stage());
        for (c, _) in sim.neighbors(pick, EXPAND) {
            if c != start {
                pool.entry(c).or_insert_with(|| sim.sim(start, c));
            }
        }
    }
    let order = order_by_stage(papers, sim, start, &chosen, &pool);
    let terms_pool: BTreeSet<usize> = pool.keys().copied().chain([start]).collect();
    let terms = SharedTerms::new(papers, &terms_pool);
    let x = &papers[start];
    let mut steps = Vec::with_capacity(order.len());
    let mut prev: Option<usize> = None;
    for (i, &c) in order.iter().enumerate() {
        let rel = pool[&c];
        let why = match prev {
            Some(p) if sim.sim(p, c) >= rel => {
                let s = sim.sim(p, c);
                let shared = terms.shared(p, c, 2);
                if shared.is_empty() {
                    format!("{} close to the previous step ({s:.2})", papers[c].kind)
                } else {
                    format!(
                        "{} sharing '{}' with the previous step ({s:.2})",
                        papers[c].kind,
                        shared.join(", ")
                    )
                }
            }
            _ => relation_to_x(x, &papers[c], rel, &terms.shared(start, c, 2)),
        };
        steps.push(step(i + 1, &papers[c], why));
        prev = Some(c);
    }
    Ok(steps)
}

fn relation_to_x(x: &Paper, c: &Paper, rel: f32, shared: &[String]) -> String {
    let same_topic = !topic_of(x).is_empty() && topic_of(x) == topic_of(c);
    match (c.kind, same_topic, shared.is_empty()) {
        (Kind::Survey, true, _) => {
            format!(
                "survey covering X's topic '{}' (similarity {rel:.2} to X)",
                topic_of(x)
            )
        }
        (Kind::Survey, false, false) => {
            format!(
                "survey covering '{}' from X (similarity {rel:.2} to X)",
                shared.join(", ")
            )
        }
        (kind, _, false) => format!(
            "{kind} sharing '{}' with X (similarity {rel:.2})",
            shared.join(", ")
        ),
        (kind, true, true) => format!(
            "{kind} in X's topic '{}' (similarity {rel:.2} to X)",
            topic_of(x)
        ),
        (kind, false, true) => format!("{kind} related to X (similarity {rel:.2})"),
    }
}

/// Sort by reading stage; within a stage, chain: the first step is the most relevant to X, each
/// next the best mix of closeness to the previous step and to X that is not a near-duplicate of
/// the previous step (if all are, the least similar one).
fn order_by_stage(
    papers: &[Paper],
    sim: &dyn Similarity,
    start: usize,
    chosen: &[usize],
    rel: &BTreeMap<usize, f32>,
) -> Vec<usize> {
    let mut by_stage: BTreeMap<u8, Vec<usize>> = BTreeMap::new();
    for &c in chosen {
        by_stage
            .entry(papers[c].kind.reading_stage())
            .or_default()
            .push(c);
    }
    let mut order: Vec<usize> = Vec::with_capacity(chosen.len());
    for (_, mut group) in by_stage {
        group.sort_unstable();
        while !group.is_empty() {
            let prev = order.last().copied();
            let scored: Vec<(usize, f32)> = group
                .iter()
                .map(|&c| {
                    let r = rel.get(&c).copied().unwrap_or_else(|| sim.sim(start, c));
                    match prev {
                        None => (c, r),
                        Some(p) => {
                            let s = sim.sim(p, c);
                            (
                                c,
                                if s > ADJACENT_MAX {
                                    -10.0 - s
                                } else {
                                    0.5 * s + 0.5 * r
                                },
                            )
                        }
                    }
                })
                .collect();
            let best = scored
                .into_iter()
                .min_by(by_score_desc)
                .expect("group not empty");
            group.retain(|&c| c != best.0);
            order.push(best.0);
        }
    }
    order
}

/// Ordered key for the Dijkstra heap: distance, then index.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Key(f64, usize);
impl Eq for Key {}
impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Key {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0).then(self.1.cmp(&other.1))
    }
}

/// Edge length: `(1 - similarity)²`. Squaring makes two small steps cheaper than one big jump,
/// so the chain is smooth rather than merely short (with plain `1 - sim`, a direct edge to Y
/// would nearly always win).
fn edge_cost(s: f32) -> f64 {
    let d = (1.0 - f64::from(s)).max(0.0);
    d * d
}

fn knn_graph(sim: &dyn Similarity, k: usize) -> Vec<Vec<(usize, f32)>> {
    let n = sim.len();
    let out: Vec<Vec<(usize, f32)>> = (0..n)
        .into_par_iter()
        .map(|i| sim.neighbors(i, k))
        .collect();
    let mut adj: Vec<BTreeMap<usize, f32>> = vec![BTreeMap::new(); n];
    for (i, list) in out.iter().enumerate() {
        for &(j, s) in list {
            if j == i {
                continue;
            }
            for (a, b) in [(i, j), (j, i)] {
                let e = adj[a].entry(b).or_insert(s);
                *e = e.max(s);
            }
        }
    }
    adj.into_iter().map(|m| m.into_iter().collect()).collect()
}

fn dijkstra(adj: &[Vec<(usize, f32)>], from: usize, to: usize) -> Option<Vec<usize>> {
    let n = adj.len();
    let mut dist = vec![f64::INFINITY; n];
    let mut prev: Vec<Option<usize>> = vec![None; n];
    let mut heap = BinaryHeap::new();
    dist[from] = 0.0;
    heap.push(Reverse(Key(0.0, from)));
    while let Some(Reverse(Key(d, u))) = heap.pop() {
        if d > dist[u] {
            continue;
        }
        if u == to {
            break;
        }
        for &(v, s) in &adj[u] {
            let nd = d + edge_cost(s);
            if nd < dist[v] {
                dist[v] = nd;
                prev[v] = Some(u);
                heap.push(Reverse(Key(nd, v)));
            }
        }
    }
    if !dist[to].is_finite() {
        return None;
    }
    let mut chain = vec![to];
    while let Some(p) = prev[*chain.last().expect("non-empty")] {
        chain.push(p);
    }
    chain.reverse();
    Some(chain)
}

/// The smoothest chain of related papers from `from` (X) to `to` (Y): shortest path on the
/// symmetric kNN graph (each paper linked to its `max_neighbors` nearest, both directions),
/// edge length `(1 - similarity)²`. When Y is unreachable the neighbourhood doubles until it
/// spans the whole corpus. Step 0 is X itself (why "start"), the last step is Y; every other
/// step's why names its similarity to the previous step.
pub fn path_between(
    papers: &[Paper],
    sim: &dyn Similarity,
    from: usize,
    to: usize,
    max_neighbors: usize,
) -> Result<Vec<Step>, PathError> {
    check(papers, sim, &[from, to])?;
    if from == to {
        return Err(PathError::SamePaper);
    }
    let all = papers.len() - 1;
    let mut k = max_neighbors.clamp(1, all);
    let (chain, adj) = loop {
        let adj = knn_graph(sim, k);
        if let Some(chain) = dijkstra(&adj, from, to) {
            break (chain, adj);
        }
        if k >= all {
            return Err(PathError::Unreachable {
                from: papers[from].id.clone(),
                to: papers[to].id.clone(),
            });
        }
        k = (k * 2).min(all);
    };
    let pool: BTreeSet<usize> = chain
        .iter()
        .flat_map(|&c| adj[c].iter().map(|e| e.0).chain([c]))
        .collect();
    let terms = SharedTerms::new(papers, &pool);
    let mut steps = vec![step(0, &papers[from], "start".to_string())];
    for (i, w) in chain.windows(2).enumerate() {
        let (p, c) = (w[0], w[1]);
        let s = sim.sim(p, c);
        let shared = terms.shared(p, c, 2);
        let mut why = if shared.is_empty() {
            format!(
                "{} with similarity {s:.2} to the previous step",
                papers[c].kind
            )
        } else {
            format!(
                "{} sharing '{}' with the previous step (similarity {s:.2})",
                papers[c].kind,
                shared.join(", ")
            )
        };
        if c == to {
            why = format!("the destination: {why}");
        }
        steps.push(step(i + 1, &papers[c], why));
    }
    Ok(steps)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::similarity::DenseSimilarity;
    use ndarray::Array2;

    fn paper(id: &str, kind: Kind, title: &str, topic: &str) -> Paper {
        Paper {
            id: id.into(),
            title: title.into(),
            highlight: "强化学习 智能体".into(),
            topic: topic.into(),
            kind,
            ..Paper::default()
        }
    }

    fn normalize(m: &mut Array2<f32>) {
        for mut r in m.rows_mut() {
            let n = r.iter().map(|x| x * x).sum::<f32>().sqrt();
            r.mapv_inplace(|x| x / n);
        }
    }

    /// 0 = X (method); around it surveys, benchmarks, methods, systems on the same topic
    /// (axis 0 plus a small individual offset), and 6 unrelated papers (axis 1).
    fn synthetic() -> (Vec<Paper>, Array2<f32>) {
        let kinds = [
            Kind::Method,
            Kind::System,
            Kind::Method,
            Kind::Survey,
            Kind::System,
            Kind::Benchmark,
            Kind::Method,
            Kind::Survey,
            Kind::Model,
            Kind::Method,
        ];
        let mut papers = Vec::new();
        let dim = 24;
        let mut m = Array2::zeros((kinds.len() + 6, dim));
        for (i, k) in kinds.iter().enumerate() {
            papers.push(paper(
                &format!("p{i}"),
                *k,
                &format!("deep research search agent {i}"),
                "深度研究",
            ));
            m[[i, 0]] = 1.0;
            m[[i, 2 + i]] = 0.5;
        }
        for j in 0..6 {
            let i = kinds.len() + j;
            papers.push(paper(&format!("o{j}"), Kind::Method, "GUI clicking", "GUI"));
            m[[i, 1]] = 1.0;
            m[[i, 2 + kinds.len() + j % 3]] = 0.4;
        }
        normalize(&mut m);
        (papers, m)
    }

    #[test]
    fn reading_path_orders_stages_and_never_repeats() {
        let (papers, m) = synthetic();
        let sim = DenseSimilarity::new(m.view());
        let steps = reading_path(&papers, &sim, 0, 6).unwrap();
        assert_eq!(steps.len(), 6);
        assert!(
            steps.iter().all(|s| s.id != "p0"),
            "X is not part of its own path"
        );
        let ids: BTreeSet<&str> = steps.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids.len(), steps.len(), "no repeats");
        let stages: Vec<u8> = steps.iter().map(|s| s.kind.reading_stage()).collect();
        assert!(stages.windows(2).all(|w| w[0] <= w[1]), "{stages:?}");
        assert_eq!(steps[0].kind, Kind::Survey);
        assert!(
            steps[0]
                .why
                .starts_with("survey covering X's topic '深度研究'"),
            "{}",
            steps[0].why
        );
        assert!(steps.iter().any(|s| s.kind == Kind::System));
        assert_eq!(
            steps.iter().map(|s| s.step).collect::<Vec<_>>(),
            [1, 2, 3, 4, 5, 6]
        );
        // related papers before unrelated ones
        assert!(steps.iter().all(|s| s.id.starts_with('p')));
    }

    #[test]
    fn reading_path_is_deterministic_and_bounded() {
        let (papers, m) = synthetic();
        let sim = DenseSimilarity::new(m.view());
        let a = serde_json::to_string(&reading_path(&papers, &sim, 3, 5).unwrap()).unwrap();
        let b = serde_json::to_string(&reading_path(&papers, &sim, 3, 5).unwrap()).unwrap();
        assert_eq!(a, b);
        // n larger than the corpus: every other paper once
        let all = reading_path(&papers, &sim, 0, 100).unwrap();
        assert_eq!(all.len(), papers.len() - 1);
        let ids: BTreeSet<&str> = all.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids.len(), papers.len() - 1);
        assert_eq!(reading_path(&papers, &sim, 0, 0), Err(PathError::ZeroSteps));
        assert_eq!(
            reading_path(&papers, &sim, 99, 3),
            Err(PathError::OutOfRange { index: 99, len: 16 })
        );
    }

    #[test]
    fn near_duplicates_are_not_back_to_back() {
        // X, two identical methods A A', and two distinct methods B, C
        let mut m = Array2::zeros((5, 4));
        m[[0, 0]] = 1.0;
        m[[1, 0]] = 1.0;
        m[[1, 1]] = 0.5;
        m[[2, 0]] = 1.0;
        m[[2, 1]] = 0.5;
        m[[3, 0]] = 1.0;
        m[[3, 2]] = 0.6;
        m[[4, 0]] = 1.0;
        m[[4, 3]] = 0.6;
        normalize(&mut m);
        let papers: Vec<Paper> = (0..5)
            .map(|i| paper(&format!("p{i}"), Kind::Method, "t", ""))
            .collect();
        let sim = DenseSimilarity::new(m.view());
        let steps = reading_path(&papers, &sim, 0, 4).unwrap();
        let pos = |id: &str| steps.iter().position(|s| s.id == id).unwrap();
        assert!(pos("p1").abs_diff(pos("p2")) > 1, "{steps:?}");
        // with room for only two, the duplicate pair is not both chosen
        let two = reading_path(&papers, &sim, 0, 2).unwrap();
        assert!(
            !(two.iter().any(|s| s.id == "p1") && two.iter().any(|s| s.id == "p2")),
            "{two:?}"
        );
    }

    #[test]
    fn path_between_reaches_the_target() {
        // a chain 0 - 1 - 2 - 3 - 4 on a quarter circle: neighbours are adjacent points
        let n = 5;
        let mut m = Array2::zeros((n, 2));
        for i in 0..n {
            let a = std::f32::consts::FRAC_PI_2 * i as f32 / (n - 1) as f32;
            m[[i, 0]] = a.cos();
            m[[i, 1]] = a.sin();
        }
        let papers: Vec<Paper> = (0..n)
            .map(|i| paper(&format!("p{i}"), Kind::Method, "t", ""))
            .collect();
        let sim = DenseSimilarity::new(m.view());
        let steps = path_between(&papers, &sim, 0, 4, 2).unwrap();
        let ids: Vec<&str> = steps.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["p0", "p1", "p2", "p3", "p4"]);
        assert_eq!(steps[0].why, "start");
        assert!(
            steps[4].why.starts_with("the destination"),
            "{}",
            steps[4].why
        );
        assert!(steps[2].why.contains("0.92"), "{}", steps[2].why);
        // smooth even with every paper linked to every other
        let steps = path_between(&papers, &sim, 0, 4, 10).unwrap();
        assert_eq!(steps.len(), 5);
        assert_eq!(
            serde_json::to_string(&steps).unwrap(),
            serde_json::to_string(&path_between(&papers, &sim, 0, 4, 10).unwrap()).unwrap()
        );
    }

    #[test]
    fn path_between_errors_and_widening() {
        let (papers, m) = synthetic();
        let sim = DenseSimilarity::new(m.view());
        assert_eq!(
            path_between(&papers, &sim, 2, 2, 5),
            Err(PathError::SamePaper)
        );
        assert_eq!(
            PathError::SamePaper.to_string(),
            "X and Y are the same paper"
        );
        assert!(matches!(
            path_between(&papers, &sim, 2, 50, 5),
            Err(PathError::OutOfRange { .. })
        ));
        // with one neighbour each the two groups are disconnected: the search widens
        let steps = path_between(&papers, &sim, 0, 12, 1).unwrap();
        assert_eq!(steps.first().unwrap().id, "p0");
        assert_eq!(steps.last().unwrap().id, "o2");
    }

    /// Two groups with zero similarity between them, and neighbours only where similarity > 0.
    struct TwoIslands;
    impl Similarity for TwoIslands {
        fn len(&self) -> usize {
            6
        }
        fn sim(&self, a: usize, b: usize) -> f32 {
            if a / 3 == b / 3 { 0.8 } else { 0.0 }
        }
        fn neighbors(&self, a: usize, k: usize) -> Vec<(usize, f32)> {
            (0..6)
                .filter(|&b| b != a && self.sim(a, b) > 0.0)
                .map(|b| (b, 0.8))
                .take(k)
                .collect()
        }
    }

    #[test]
    fn unreachable_target_is_an_error() {
        let papers: Vec<Paper> = (0..6)
            .map(|i| paper(&format!("p{i}"), Kind::Method, "t", ""))
            .collect();
        let err = path_between(&papers, &TwoIslands, 0, 4, 1).unwrap_err();
        assert_eq!(
            err,
            PathError::Unreachable {
                from: "p0".into(),
                to: "p4".into()
            }
        );
        assert!(path_between(&papers, &TwoIslands, 0, 2, 1).is_ok());
        // a reading path in a small island widens to the rest of the corpus rather than stopping
        let steps = reading_path(&papers, &TwoIslands, 0, 5).unwrap();
        assert_eq!(steps.len(), 5);
    }
}
