//! Step 2 of the map for an index: its topics, each paper's related papers and the focus of
//! `--like X`, from the same engine calls as `recommend topics`, `--like` and `path`.

use std::collections::HashMap;

use super::{Focus, MapCluster, MapData, MapPoint};
use crate::engine::{communities, path::PathError, reading, topics::TopicError};
use crate::index::Searcher;
use crate::util::vector::dot;

/// Related papers shown per paper, and the length of the focus's reading path.
const RELATED: usize = 8;
const PATH_STEPS: usize = 6;
/// Neighbours per point in the layout of a large index (the exact layout uses 15 too).
const LAYOUT_NEIGHBOURS: usize = 15;

#[derive(Debug, thiserror::Error)]
pub enum MapError {
    #[error(transparent)]
    Topics(#[from] TopicError),
    #[error(transparent)]
    Path(#[from] PathError),
}

/// The map of `index` (topics as clusters; with `focus`, that paper, its neighbours and its
/// reading path).
pub fn map_data(index: &Searcher, focus: Option<usize>) -> Result<MapData, MapError> {
    Ok(map_parts(index, focus)?.0)
}

/// [`map_data`] and the links it was built from (each paper's
/// [`communities::NEIGHBOURS`] most related papers, best first).
fn map_parts(
    index: &Searcher,
    focus: Option<usize>,
) -> Result<(MapData, Vec<Vec<usize>>), MapError> {
    // One set of links serves the topics, each paper's related papers (the best `RELATED` of
    // its `communities::NEIGHBOURS`, the same as `neighbours(i, RELATED)`) and, on a large
    // index, the layout's neighbour candidates.
    let lists = communities::neighbour_lists(index);
    let clusters = communities::cluster_with(index, None, &lists)?;
    let papers = index.papers();
    let mut position: HashMap<&str, usize> = HashMap::with_capacity(papers.len());
    for (i, p) in papers.iter().enumerate() {
        position.entry(p.id.as_str()).or_insert(i);
    }
    let mut cluster_of = vec![0usize; index.len()];
    for t in &clusters {
        for id in &t.papers {
            if let Some(&i) = position.get(id.as_str()) {
                cluster_of[i] = t.id;
            }
        }
    }
    let related: Vec<Vec<usize>> = lists
        .iter()
        .map(|l| l[..l.len().min(RELATED)].to_vec())
        .collect();
    let focus = match focus {
        Some(x) => {
            let steps = reading::reading_path(index, x, PATH_STEPS)?;
            let path = steps
                .iter()
                .filter_map(|s| position.get(s.id.as_str()).copied())
                .collect();
            Some(Focus {
                paper: x,
                neighbors: related[x].clone(),
                path,
            })
        }
        None => None,
    };
    let data = MapData {
        points: papers
            .iter()
            .zip(&cluster_of)
            .map(|(p, &c)| MapPoint::from_paper(p, c))
            .collect(),
        clusters: clusters
            .iter()
            .map(|t| MapCluster {
                id: t.id,
                label: t.label.clone(),
            })
            .collect(),
        related,
        focus,
        title: format!(
            "recommend: map of {} ({} papers, {} topics)",
            index.meta.corpus_source,
            index.len(),
            clusters.len()
        ),
    };
    Ok((data, lists))
}

/// The map of `index` as a self-contained HTML page, or as an SVG picture.
pub fn draw(index: &Searcher, focus: Option<usize>, svg: bool) -> Result<String, MapError> {
    let (data, lists) = map_parts(index, focus)?;
    let xy = if index.uses_graph() {
        // The layout's exact kNN search is O(n^2 d); a large index finds the neighbours from
        // the links it already has.
        super::layout_with_neighbours(index.vectors(), &layout_neighbours(index, &lists))
    } else {
        super::layout(index.vectors())
    };
    Ok(if svg {
        super::render_svg(&data, &xy)
    } else {
        super::render_html(&data, &xy)
    })
}

/// Each paper's [`LAYOUT_NEIGHBOURS`] nearest papers by cosine, approximately, from links
/// already at hand rather than a search per paper: the candidates are the paper's base-layer
/// links in the stored graph and its related papers (`lists`, from the topics); one round of
/// neighbour descent (the nearest of the candidates' own nearest) then fills what they miss.
/// Without a stored graph the related papers alone are the candidates. About 300 dot products
/// per paper, where a graph search per paper computes thousands.
fn layout_neighbours(index: &Searcher, lists: &[Vec<usize>]) -> Vec<Vec<usize>> {
    use rayon::prelude::*;
    let n = index.len();
    let graph = index.graph().filter(|g| g.len() == n);
    let first: Vec<Vec<usize>> = (0..n)
        .into_par_iter()
        .map(|i| {
            let links = graph.as_ref().map_or(&[][..], |g| g.neighbours(i, 0));
            let mut cand: Vec<usize> = links.iter().map(|&j| j as usize).collect();
            cand.extend(lists.get(i).into_iter().flatten());
            nearest_of(index, i, cand, LAYOUT_NEIGHBOURS)
        })
        .collect();
    (0..n)
        .into_par_iter()
        .map(|i| {
            let mut cand = first[i].clone();
            for &j in &first[i] {
                cand.extend(&first[j]);
            }
            nearest_of(index, i, cand, LAYOUT_NEIGHBOURS)
        })
        .collect()
}

/// The `k` candidates (rows other than `i`, duplicates allowed) most similar to row `i`, most
/// similar first, ties to the lower row.
fn nearest_of(index: &Searcher, i: usize, mut cand: Vec<usize>, k: usize) -> Vec<usize> {
    let n = index.len();
    cand.retain(|&j| j < n && j != i);
    cand.sort_unstable();
    cand.dedup();
    let v = index.vector(i);
    let v = v.as_slice().expect("index rows are contiguous");
    let mut scored: Vec<(f32, usize)> = cand
        .into_iter()
        .map(|j| {
            let w = index.vector(j);
            (dot(v, w.as_slice().expect("index rows are contiguous")), j)
        })
        .collect();
    let order = |a: &(f32, usize), b: &(f32, usize)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
    if scored.len() > k {
        scored.select_nth_unstable_by(k, order);
        scored.truncate(k);
    }
    scored.sort_unstable_by(order);
    scored.into_iter().map(|(_, j)| j).collect()
}
