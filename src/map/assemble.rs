//! Step 2 of the map for an index: its topics, each paper's related papers and the focus of
//! `--like X`, from the same engine calls as `recommend topics`, `--like` and `path`.

use std::collections::HashMap;

use super::{Focus, MapCluster, MapData, MapPoint};
use crate::engine::{communities, path::PathError, reading, topics::TopicError};
use crate::index::Index;

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
pub fn map_data(index: &Index, focus: Option<usize>) -> Result<MapData, MapError> {
    // One set of links serves the topics and each paper's related papers (the best
    // `RELATED` of its `communities::NEIGHBOURS`, the same as `neighbours(i, RELATED)`).
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
        .into_iter()
        .map(|mut l| {
            l.truncate(RELATED);
            l
        })
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
    Ok(MapData {
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
    })
}

/// The map of `index` as a self-contained HTML page, or as an SVG picture.
pub fn draw(index: &Index, focus: Option<usize>, svg: bool) -> Result<String, MapError> {
    let data = map_data(index, focus)?;
    let xy = if index.uses_graph() {
        // The layout's exact kNN search is O(n^2 d); a large index asks its HNSW graph.
        use rayon::prelude::*;
        let knn: Vec<Vec<usize>> = (0..index.len())
            .into_par_iter()
            .map(|i| {
                let v = index.vector(i).to_vec();
                index
                    .nearest(&v, LAYOUT_NEIGHBOURS + 1, false)
                    .into_iter()
                    .map(|(j, _)| j)
                    .filter(|&j| j != i)
                    .collect()
            })
            .collect();
        super::layout_with_neighbours(index.vectors(), &knn)
    } else {
        super::layout(index.vectors())
    };
    Ok(if svg {
        super::render_svg(&data, &xy)
    } else {
        super::render_html(&data, &xy)
    })
}
