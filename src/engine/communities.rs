//! Topics as communities of the related-work graph.
//!
//! Each paper is linked to its [`NEIGHBOURS`] most related papers by the same fused score
//! `--like` ranks by (centered embeddings, specific terms, tags, `builds_on`), and the links
//! are made symmetric. The graph is cut by spectral clustering (Ng, Jordan and Weiss): the
//! leading eigenvectors of the normalized adjacency, rows scaled to unit length, grouped by
//! spherical k-means. The number of topics comes from how the papers link, not from a
//! constant: the finest cut in which every topic is still a community in the weak sense of
//! Radicchi et al. (2004), more link weight inside it than from it to the rest of the list
//! (see [`finest_communities`]). Clustering the embeddings directly made catch-all clusters:
//! every paper of one field is close to every other in e5 space, while the related-work graph
//! separates what a researcher separates.

use ndarray::Array2;
use rayon::prelude::*;

use super::retrieve;
use super::topics::{self, Topic, TopicError};
use crate::index::Searcher;

/// Links per paper in the graph.
pub const NEIGHBOURS: usize = 10;
/// Iterations of the orthogonal (subspace) iteration.
const ITERATIONS: usize = 300;

/// Cluster the papers of `index` into `k` topics, or the number [`finest_communities`] picks.
pub fn cluster(index: &Searcher, k: Option<usize>) -> Result<Vec<Topic>, TopicError> {
    cluster_with(index, k, &neighbour_lists(index))
}

/// [`cluster`] on links already computed by [`neighbour_lists`] (the map shares them).
pub fn cluster_with(
    index: &Searcher,
    k: Option<usize>,
    lists: &[Vec<usize>],
) -> Result<Vec<Topic>, TopicError> {
    let n = index.len();
    if n == 0 {
        return Err(TopicError::Empty);
    }
    let range = match k {
        Some(0) => return Err(TopicError::ZeroK),
        Some(k) if k > n => return Err(TopicError::TooManyTopics { k, n }),
        Some(k) => k..=k,
        None => k_range(n),
    };
    let adjacency = weighted(lists);
    let labels = if n < 3 {
        (0..n).collect()
    } else {
        let kmax = *range.end();
        let embedding = spectral_embedding(&adjacency, kmax);
        // Each k is cut independently (in parallel); the choice runs in k order.
        let cuts: Vec<Vec<usize>> = candidate_ks(range, n)
            .into_par_iter()
            .map(|k| cut(&embedding, k))
            .collect();
        finest_communities(&adjacency, cuts)
    };
    Ok(topics::topics_from_labels(
        index.papers(),
        index.vectors(),
        &labels,
        Some(index),
    ))
}

/// Candidate numbers of topics: from 4 up to a quarter of the papers (at most 40).
pub fn k_range(n: usize) -> std::ops::RangeInclusive<usize> {
    let hi = (n / 4).clamp(1, 40);
    let lo = 4.min(hi);
    lo..=hi
}

/// The numbers of topics tried: every one in `range` up to [`LARGE`] papers; above, every one
/// up to 10 and then steps of about 15% (each try is a k-means of every paper, and modularity
/// changes slowly with k at that size).
fn candidate_ks(range: std::ops::RangeInclusive<usize>, n: usize) -> Vec<usize> {
    if n <= LARGE {
        return range.collect();
    }
    let (lo, hi) = (*range.start(), *range.end());
    let mut ks = Vec::new();
    let mut k = lo;
    while k <= hi {
        ks.push(k);
        k = if k < 10 {
            k + 1
        } else {
            (k * 115).div_ceil(100)
        };
    }
    if ks.last() != Some(&hi) {
        ks.push(hi);
    }
    ks
}

/// From this many papers, topics save work where it changes little: fewer numbers of topics
/// are tried ([`candidate_ks`]) and the spectral iteration stops earlier.
const LARGE: usize = 2_000;
/// Iterations of the orthogonal iteration above [`LARGE`] papers.
const ITERATIONS_LARGE: usize = 100;

/// Each paper's [`NEIGHBOURS`] most related papers (the `--like` fused score), best first.
pub fn neighbour_lists(index: &Searcher) -> Vec<Vec<usize>> {
    with_malloc_top_pad(|| {
        (0..index.len())
            .into_par_iter()
            .map(|i| retrieve::neighbours(index, i, NEIGHBOURS, false))
            .collect()
    })
}

/// Heap kept beyond each allocation's need while [`neighbour_lists`] runs.
const TOP_PAD: usize = 8 << 20;
/// glibc's documented default of `M_TOP_PAD`, restored afterwards.
const DEFAULT_TOP_PAD: usize = 128 << 10;

/// Runs `f` with glibc's `M_TOP_PAD` raised to [`TOP_PAD`]. Scoring a paper on a large index
/// allocates and frees a few vectors of one value per paper; glibc returned the freed top of
/// each thread's heap to the system every time and took it back on the next paper, page by
/// page: at 10k papers 460k page faults, 1.3 s of system time and as much again of user time
/// (`recommend topics`), against 19k faults with the pad. Memory stays bounded: the pad is
/// kept per arena (a few MiB each), and the default is restored when `f` returns. (Setting it
/// also stops glibc adjusting its mmap threshold dynamically from then on.)
fn with_malloc_top_pad<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter (glibc takes its own locks).
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, TOP_PAD as libc::c_int);
    }
    let out = f();
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: as above.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, DEFAULT_TOP_PAD as libc::c_int);
    }
    out
}

/// The symmetric links of `lists`, each weighted by how much the two papers' neighbourhoods
/// overlap (Jaccard, each paper counting itself: shared-nearest-neighbour weighting, as
/// PhenoGraph does). A link between two papers whose related work is largely the same weighs
/// near 1, a chance link between two areas near 0, so the cut follows areas rather than the
/// hubs a 10-NN graph of one field always has. Measured on the shipped list and two imported
/// public lists: NMI at the automatic k 0.657 -> 0.719, 0.635 -> 0.664,
/// 0.314 -> 0.370.
pub(crate) fn weighted(lists: &[Vec<usize>]) -> Vec<Vec<(usize, f64)>> {
    let adj = symmetric(lists);
    let sets: Vec<Vec<usize>> = lists
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let mut s: Vec<usize> = l.iter().copied().filter(|&j| j < lists.len()).collect();
            s.push(i);
            s.sort_unstable();
            s.dedup();
            s
        })
        .collect();
    adj.par_iter()
        .enumerate()
        .map(|(i, a)| {
            a.iter()
                .map(|&j| {
                    let inter = sets[i]
                        .iter()
                        .filter(|x| sets[j].binary_search(x).is_ok())
                        .count();
                    let union = sets[i].len() + sets[j].len() - inter;
                    (j, inter as f64 / union.max(1) as f64)
                })
                .collect()
        })
        .collect()
}

/// Symmetric adjacency lists (sorted, no self loops) of per-paper link `lists`.
pub(crate) fn symmetric(lists: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); lists.len()];
    for (i, l) in lists.iter().enumerate() {
        for &j in l {
            if j < lists.len() && j != i {
                adj[i].push(j);
                adj[j].push(i);
            }
        }
    }
    for a in &mut adj {
        a.sort_unstable();
        a.dedup();
    }
    adj
}

/// The `dim` leading eigenvectors of `(I + D^-1/2 A D^-1/2) / 2` (the shift makes the spectrum
/// non-negative, so the leading ones are the cluster indicators), by orthogonal iteration
/// from a fixed start: deterministic.
fn spectral_embedding(adj: &[Vec<(usize, f64)>], dim: usize) -> Array2<f32> {
    let n = adj.len();
    let dim = dim.min(n);
    let inv_sqrt: Vec<f64> = adj
        .iter()
        .map(|a| {
            let degree: f64 = a.iter().map(|&(_, w)| w).sum();
            if degree > 0.0 {
                1.0 / degree.sqrt()
            } else {
                0.0
            }
        })
        .collect();
    let mut q: Vec<Vec<f64>> = (0..dim)
        .map(|c| {
            (0..n)
                .map(|i| (((i * 7919 + c * 104_729) % 1009) as f64 / 1009.0) - 0.5 + 1e-3)
                .collect()
        })
        .collect();
    orthonormalize(&mut q);
    let iterations = if n > LARGE {
        ITERATIONS_LARGE
    } else {
        ITERATIONS
    };
    // Rows are gathered into one row-major buffer per iteration, so each paper's update reads
    // its neighbours' `dim` values contiguously; every entry still sums its terms in the same
    // order (from -0.0, as `Iterator::sum` does), so the result does not depend on the layout
    // nor on the number of threads.
    let mut rows = vec![0.0f64; n * dim];
    let mut next = vec![0.0f64; n * dim];
    for _ in 0..iterations {
        for (c, col) in q.iter().enumerate() {
            for (i, &x) in col.iter().enumerate() {
                rows[i * dim + c] = inv_sqrt[i] * x;
            }
        }
        next.par_chunks_mut(dim.max(1))
            .zip(adj.par_iter())
            .enumerate()
            .for_each(|(i, (out, a))| {
                out.iter_mut().for_each(|s| *s = -0.0);
                for &(j, w) in a {
                    let r = &rows[j * dim..(j + 1) * dim];
                    for (s, x) in out.iter_mut().zip(r) {
                        *s += w * x;
                    }
                }
                for (c, s) in out.iter_mut().enumerate() {
                    *s = 0.5 * q[c][i] + 0.5 * inv_sqrt[i] * *s;
                }
            });
        for (c, col) in q.iter_mut().enumerate() {
            for (i, x) in col.iter_mut().enumerate() {
                *x = next[i * dim + c];
            }
        }
        orthonormalize(&mut q);
    }
    Array2::from_shape_fn((n, dim), |(i, c)| q[c][i] as f32)
}

/// Columns whose projections [`orthonormalize`] computes together.
const GS_GROUP: usize = 8;

/// Modified Gram-Schmidt, in column order; a column that vanishes is replaced by zeros.
/// Right-looking: once column `p` is final, every later column is reduced against it in
/// parallel. Each column sees the same operations in the same order as in the sequential
/// (left-looking) loop, so the result is the same bits.
fn orthonormalize(q: &mut [Vec<f64>]) {
    for p in 0..q.len() {
        let (head, tail) = q.split_at_mut(p + 1);
        let done = &mut head[p];
        let norm = done.iter().map(|x| x * x).sum::<f64>().sqrt();
        for x in done.iter_mut() {
            *x = if norm > 1e-12 { *x / norm } else { 0.0 };
        }
        let done = &head[p];
        // A few columns per task, their dot products interleaved: each is still one sum in
        // index order (from -0.0, as `Iterator::sum`), but they no longer wait on each other.
        let n = done.len();
        let zeros = vec![0.0f64; n];
        tail.par_chunks_mut(GS_GROUP).for_each(|group| {
            // A short last group reads zeros in place of the missing columns (results unused).
            let cols: [&[f64]; GS_GROUP] =
                std::array::from_fn(|c| group.get(c).map_or(&zeros[..], |v| &v[..n]));
            let mut d = [-0.0f64; GS_GROUP];
            for (i, &y) in done.iter().enumerate() {
                for c in 0..GS_GROUP {
                    d[c] += cols[c][i] * y;
                }
            }
            for (col, &dc) in group.iter_mut().zip(&d) {
                for (x, y) in col.iter_mut().zip(done) {
                    *x -= dc * y;
                }
            }
        });
    }
}

/// Labels from the first `k` eigenvectors: rows to unit length, then spherical k-means.
fn cut(embedding: &Array2<f32>, k: usize) -> Vec<usize> {
    let n = embedding.nrows();
    let mut rows = Array2::<f32>::zeros((n, k));
    for i in 0..n {
        let norm = (0..k)
            .map(|c| embedding[[i, c]].powi(2))
            .sum::<f32>()
            .sqrt();
        for c in 0..k {
            rows[[i, c]] = if norm > 0.0 {
                embedding[[i, c]] / norm
            } else {
                0.0
            };
        }
    }
    topics::kmeans_labels(rows.view(), k)
}

/// The cut to keep among `cuts` (in increasing number of topics, never empty): the last of
/// the leading run in which every topic is a weak community ([`weakest_community`] > 1), or,
/// when the coarsest already fails, the cut of highest modularity.
///
/// Why not the modularity maximum throughout: modularity cannot resolve communities smaller
/// than about the square root of the graph's size (Fortunato and Barthelemy, 2007), and on
/// every list measured it chose far coarser topics than the list's own sections (9 for 23
/// sections, 6 for 17, 5 for 10). The weak-community rule asks of each topic only what a
/// reader asks of an area: that its papers link to each other more than to the rest. It
/// chose 16, 12 and 7 on those lists, and NMI with their sections rose.
fn finest_communities(adj: &[Vec<(usize, f64)>], cuts: Vec<Vec<usize>>) -> Vec<usize> {
    let leading = cuts
        .iter()
        .take_while(|labels| weakest_community(adj, labels) > 1.0)
        .count();
    if leading > 0 {
        return cuts.into_iter().nth(leading - 1).expect("counted");
    }
    let mut best: Option<(f64, Vec<usize>)> = None;
    for labels in cuts {
        let q = modularity(adj, &labels);
        if best.as_ref().is_none_or(|b| q > b.0 + 1e-12) {
            best = Some((q, labels));
        }
    }
    best.expect("the cuts are never empty").1
}

/// The smallest ratio, over the clusters of `labels`, of the link weight inside a cluster
/// (each link counted from both ends) to the weight of its links to other clusters; above 1
/// every cluster is a community in the weak sense of Radicchi et al. (infinite when no
/// cluster has outside links).
pub fn weakest_community(adj: &[Vec<(usize, f64)>], labels: &[usize]) -> f64 {
    let k = labels.iter().max().map_or(0, |m| m + 1);
    let mut inside = vec![0.0f64; k];
    let mut outside = vec![0.0f64; k];
    for (i, a) in adj.iter().enumerate() {
        for &(j, w) in a {
            if labels[j] == labels[i] {
                inside[labels[i]] += w;
            } else {
                outside[labels[i]] += w;
            }
        }
    }
    (0..k)
        .map(|c| {
            if outside[c] > 0.0 {
                inside[c] / outside[c]
            } else {
                f64::INFINITY
            }
        })
        .fold(f64::INFINITY, f64::min)
}

/// Newman's modularity of `labels` on the weighted graph `adj`.
pub fn modularity(adj: &[Vec<(usize, f64)>], labels: &[usize]) -> f64 {
    let two_m: f64 = adj.iter().flatten().map(|&(_, w)| w).sum();
    if two_m == 0.0 {
        return 0.0;
    }
    let k = labels.iter().max().map_or(0, |m| m + 1);
    let mut inside = vec![0.0f64; k];
    let mut degree = vec![0.0f64; k];
    for (i, a) in adj.iter().enumerate() {
        degree[labels[i]] += a.iter().map(|&(_, w)| w).sum::<f64>();
        inside[labels[i]] += a
            .iter()
            .filter(|&&(j, _)| labels[j] == labels[i])
            .map(|&(_, w)| w)
            .sum::<f64>();
    }
    (0..k)
        .map(|c| inside[c] / two_m - (degree[c] / two_m).powi(2))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three 4-cliques, each joined to the next by one link.
    fn three_cliques() -> Vec<Vec<usize>> {
        let mut lists: Vec<Vec<usize>> = (0..12)
            .map(|i| {
                let base = i / 4 * 4;
                (base..base + 4).filter(|&j| j != i).collect()
            })
            .collect();
        lists[3].push(4);
        lists[7].push(8);
        lists
    }

    #[test]
    fn the_finest_cut_whose_topics_are_all_communities_is_kept() {
        let adj = weighted(&three_cliques());
        let by_clique: Vec<usize> = (0..12).map(|i| i / 4).collect();
        let two: Vec<usize> = (0..12).map(|i| usize::from(i >= 4)).collect();
        // the third clique split in two: each half links more outside than inside
        let four: Vec<usize> = (0..12).map(|i| if i >= 10 { 3 } else { i / 4 }).collect();
        assert!(weakest_community(&adj, &by_clique) > 1.0);
        assert!(weakest_community(&adj, &four) < 1.0);
        let chosen = finest_communities(&adj, vec![two.clone(), by_clique.clone(), four]);
        assert_eq!(chosen, by_clique);
        // When even the coarsest cut fails, the cut of highest modularity is kept.
        let bad: Vec<usize> = (0..12).map(|i| i % 2).collect();
        assert!(weakest_community(&adj, &bad) < 1.0);
        assert_eq!(finest_communities(&adj, vec![bad, two.clone()]), two);
        // A cluster without outside links never limits the choice.
        assert_eq!(weakest_community(&adj, &[0; 12]), f64::INFINITY);
    }

    #[test]
    fn modularity_prefers_the_true_communities() {
        // two triangles joined by one edge
        let lists = vec![
            vec![1, 2],
            vec![0, 2],
            vec![0, 1, 3],
            vec![2, 4, 5],
            vec![3, 5],
            vec![3, 4],
        ];
        let adj = weighted(&lists);
        // The bridge 2-3 shares less of the two neighbourhoods than a triangle's edges.
        let w = |i: usize, j: usize| adj[i].iter().find(|x| x.0 == j).unwrap().1;
        assert!(w(2, 3) < w(0, 1), "{adj:?}");
        let good = modularity(&adj, &[0, 0, 0, 1, 1, 1]);
        let bad = modularity(&adj, &[0, 1, 0, 1, 0, 1]);
        assert!(good > 0.3 && good > bad, "{good} {bad}");
        let emb = spectral_embedding(&adj, 2);
        let labels = cut(&emb, 2);
        assert_eq!(labels[0], labels[1]);
        assert_eq!(labels[3], labels[5]);
        assert_ne!(labels[0], labels[4]);
    }
}
