//! The 2-D layout: PCA start, then a UMAP-like neighbour embedding of the cosine kNN graph.
//!
//! Determinism: every float sum has a fixed order (the dot product uses 8 fixed lanes, rows of
//! the kNN search are independent of each other so rayon cannot change a result), the
//! optimisation is sequential and its negative samples come from a fixed-seed SplitMix64.
//! Rust never contracts `a * b + c` into an FMA nor reorders float operations, so the output
//! is the same bytes on every run and every (IEEE 754) machine.

mod epochs;
mod neighbours;

use epochs::{SPREAD, normalize, optimize, pca_init, spread};
use ndarray::ArrayView2;
use neighbours::{K, fuzzy_graph, given_knn, knn, normalized_rows};

/// Seed of the negative sampler and of the start jitter.
pub(super) const SEED: u64 = 0x6d61_705f_7365_6564; // "map_seed"

/// Deterministic 2-D projection of `vectors` (`n x d`, one row per paper, rows expected to be
/// L2-normalized; they are normalized again here and non-finite entries count as 0) to points
/// in `[0, 1]^2` that keep cosine neighbours together. Output row `i` is the point of input row
/// `i`; the picture keeps its aspect ratio and is centred in the unit square.
///
/// Algorithm (UMAP-like, with `a = b = 1`, i.e. the low-dimensional kernel `1 / (1 + d^2)`):
/// 1. exact cosine kNN (`k = 15`, blocked `O(n^2 d)`, parallel over rows, ties broken by index);
/// 2. fuzzy neighbour weights `exp(-(d - rho_i) / sigma_i)` with `sigma_i` set so that each
///    point's weights sum to `log2(k)`, symmetrized as `a + b - ab`;
/// 3. start: the first two principal components (power iteration from a fixed start vector),
///    scaled to `[-10, 10]^2`, plus a tiny fixed jitter so duplicate vectors can separate;
/// 4. 500 epochs (300 above 2,000 points, 150 above 5,000) of SGD: each edge pulls its ends together as often
///    as its weight says, with 5 random negative samples per pull pushing apart;
/// 5. scale to the unit square.
///
/// Takes about 70 ms for 150 points and about 3.5 s for 5,000 (release build, 2 cores).
/// `n = 0` gives no points, `n = 1` the centre, and nothing here produces NaN.
pub fn layout(vectors: ArrayView2<f32>) -> Vec<[f32; 2]> {
    layout_with(vectors, None)
}

/// [`layout`] with each point's neighbour candidates given (`neighbours[i]`: rows near row
/// `i`, any order, duplicates and self links ignored), instead of the exact `O(n^2 d)` kNN
/// search: the 15 nearest candidates by the rows' cosine distance are the point's neighbours.
/// Large maps pass candidates gathered from the links the index already has. Lists that do not
/// cover every row are ignored (the exact search runs).
pub fn layout_with_neighbours(
    vectors: ArrayView2<f32>,
    neighbours: &[Vec<usize>],
) -> Vec<[f32; 2]> {
    layout_with(vectors, Some(neighbours))
}

fn layout_with(vectors: ArrayView2<f32>, neighbours: Option<&[Vec<usize>]>) -> Vec<[f32; 2]> {
    let n = vectors.nrows();
    match n {
        0 => return Vec::new(),
        1 => return vec![[0.5, 0.5]],
        _ => {}
    }
    let d = vectors.ncols();
    let data = normalized_rows(vectors);
    let k = K.min(n - 1);
    let knn = match neighbours.filter(|l| l.len() == n) {
        Some(lists) => given_knn(&data, d, lists, k),
        None => knn(&data, n, d, k),
    };
    let edges = fuzzy_graph(&knn, n);
    let mut y = pca_init(&data, n, d);
    // Fewer epochs as the graph grows: each epoch touches every edge, and a map of thousands
    // of points is read for its regions, not for the placement of one point.
    let epochs = match n {
        0..=2_000 => 500,
        2_001..=5_000 => 300,
        _ => 150,
    };
    optimize(&mut y, &edges, epochs);
    let mut xy = normalize(&y);
    // Neighbour embeddings pack tight groups into dots; give every point room of its own.
    spread(&mut xy, SPREAD / (n as f32).sqrt(), 60);
    normalize(&xy)
}

#[cfg(test)]
mod tests {
    use super::neighbours::{exp_det, log2_det};
    use super::*;
    use crate::util::SplitMix64 as Rng;
    use crate::util::vector::dot_balanced;
    use ndarray::Array2;

    /// `clusters` groups of `per` unit vectors in `d` dimensions around random centres.
    pub(crate) fn clustered(clusters: usize, per: usize, d: usize, noise: f32) -> Array2<f32> {
        let mut rng = Rng(42);
        let centres: Vec<Vec<f32>> = (0..clusters)
            .map(|_| (0..d).map(|_| rng.next_signed()).collect())
            .collect();
        let mut a = Array2::<f32>::zeros((clusters * per, d));
        for c in 0..clusters {
            for p in 0..per {
                let mut row: Vec<f32> = centres[c]
                    .iter()
                    .map(|&x| x + noise * rng.next_signed())
                    .collect();
                let norm = dot_balanced(&row, &row).sqrt();
                row.iter_mut().for_each(|x| *x /= norm);
                for (j, x) in row.into_iter().enumerate() {
                    a[[c * per + p, j]] = x;
                }
            }
        }
        a
    }

    fn all_in_range(xy: &[[f32; 2]]) -> bool {
        xy.iter()
            .all(|p| p.iter().all(|v| v.is_finite() && (0.0..=1.0).contains(v)))
    }

    fn dist(a: [f32; 2], b: [f32; 2]) -> f32 {
        ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
    }

    #[test]
    fn layout_is_deterministic_and_in_range() {
        let v = clustered(5, 30, 384, 0.6);
        let a = layout(v.view());
        let b = layout(v.view());
        assert_eq!(a.len(), 150);
        let bits = |xy: &[[f32; 2]]| -> Vec<u32> {
            xy.iter()
                .flat_map(|p| [p[0].to_bits(), p[1].to_bits()])
                .collect()
        };
        assert_eq!(bits(&a), bits(&b));
        assert!(all_in_range(&a));
        // The picture fills the square along its longer side.
        let max_x = a.iter().map(|p| p[0]).fold(0.0, f32::max);
        let max_y = a.iter().map(|p| p[1]).fold(0.0, f32::max);
        assert!(max_x > 0.99 || max_y > 0.99);
    }

    #[test]
    fn given_neighbours_lay_out_as_the_exact_search_would() {
        let v = clustered(4, 20, 12, 0.1);
        let (n, d) = (v.nrows(), v.ncols());
        let data = normalized_rows(v.view());
        // The exact search's lists, in a scrambled order with a self link and a duplicate.
        let lists: Vec<Vec<usize>> = knn(&data, n, d, K)
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let mut l: Vec<usize> = l.iter().rev().map(|e| e.1 as usize).collect();
                l.push(i);
                l.push(l[0]);
                l
            })
            .collect();
        assert_eq!(layout_with_neighbours(v.view(), &lists), layout(v.view()));
        // Lists that do not cover every row are ignored (the exact search runs).
        assert_eq!(
            layout_with_neighbours(v.view(), &lists[1..]),
            layout(v.view())
        );
    }

    #[test]
    fn separated_clusters_stay_separated() {
        let v = clustered(2, 40, 384, 0.5);
        let xy = layout(v.view());
        let (mut intra, mut n_intra, mut inter, mut n_inter) = (0.0, 0, 0.0, 0);
        for i in 0..80 {
            for j in i + 1..80 {
                let dd = dist(xy[i], xy[j]);
                if (i < 40) == (j < 40) {
                    intra += dd;
                    n_intra += 1;
                } else {
                    inter += dd;
                    n_inter += 1;
                }
            }
        }
        let (intra, inter) = (intra / n_intra as f32, inter / n_inter as f32);
        assert!(intra * 2.0 < inter, "intra {intra} inter {inter}");
        // Every point is nearer its own cluster's centroid than the other one's.
        let centroid = |r: std::ops::Range<usize>| {
            let m = r.len() as f32;
            let s = xy[r]
                .iter()
                .fold([0.0, 0.0], |s, p| [s[0] + p[0], s[1] + p[1]]);
            [s[0] / m, s[1] / m]
        };
        let (c0, c1) = (centroid(0..40), centroid(40..80));
        for (i, p) in xy.iter().enumerate() {
            let (own, other) = if i < 40 { (c0, c1) } else { (c1, c0) };
            assert!(dist(*p, own) < dist(*p, other), "point {i}");
        }
    }

    #[test]
    fn many_clusters_keep_neighbours_together() {
        let v = clustered(8, 20, 64, 0.5);
        let xy = layout(v.view());
        // For most points, the nearest point in the layout is in the same cluster.
        let same = (0..xy.len())
            .filter(|&i| {
                let nearest = (0..xy.len())
                    .filter(|&j| j != i)
                    .min_by(|&a, &b| dist(xy[i], xy[a]).total_cmp(&dist(xy[i], xy[b])))
                    .unwrap();
                nearest / 20 == i / 20
            })
            .count();
        assert!(same as f32 >= 0.95 * xy.len() as f32, "{same}/{}", xy.len());
    }

    #[test]
    fn tiny_and_degenerate_inputs_give_finite_points() {
        assert!(layout(Array2::<f32>::zeros((0, 8)).view()).is_empty());
        assert_eq!(layout(Array2::<f32>::ones((1, 8)).view()), vec![[0.5, 0.5]]);
        for n in 2..6 {
            let xy = layout(clustered(1, n, 16, 0.3).view());
            assert_eq!(xy.len(), n);
            assert!(all_in_range(&xy));
        }
        // All duplicates, zero vectors, NaN entries, zero columns.
        let dup = Array2::<f32>::from_elem((20, 16), 0.25);
        let xy = layout(dup.view());
        assert!(all_in_range(&xy));
        assert!(all_in_range(&layout(Array2::<f32>::zeros((7, 16)).view())));
        let mut nan = clustered(2, 5, 16, 0.3);
        nan[[3, 2]] = f32::NAN;
        nan[[4, 0]] = f32::INFINITY;
        assert!(all_in_range(&layout(nan.view())));
        assert!(all_in_range(&layout(Array2::<f32>::zeros((4, 0)).view())));
        // Duplicates among distinct points: still finite, duplicates stay close.
        let mut v = clustered(3, 10, 32, 0.4);
        for j in 0..32 {
            v[[1, j]] = v[[0, j]];
            v[[2, j]] = v[[0, j]];
        }
        let xy = layout(v.view());
        assert!(all_in_range(&xy));
        assert!(dist(xy[0], xy[1]) < 0.2);
    }

    #[test]
    fn deterministic_exp_and_log_are_accurate() {
        for i in -800..=800 {
            let x = i as f32 / 10.0;
            let (got, want) = (exp_det(x) as f64, (x as f64).exp());
            assert!(
                ((got - want) / want).abs() < 1e-6,
                "exp({x}) = {got}, want {want}"
            );
        }
        assert_eq!(exp_det(-100.0), 0.0);
        for k in 1..=15 {
            assert!((log2_det(k as f32) - (k as f32).log2()).abs() < 1e-5);
        }
    }

    #[test]
    fn points_do_not_overlap() {
        let v = clustered(9, 17, 64, 0.5);
        let xy = layout(v.view());
        let n = xy.len();
        let min = (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .map(|(i, j)| dist(xy[i], xy[j]))
            .fold(f32::INFINITY, f32::min);
        assert!(min > 0.5 * SPREAD / (n as f32).sqrt(), "min distance {min}");
    }

    #[test]
    fn non_standard_layout_input_matches_standard() {
        let v = clustered(3, 10, 16, 0.4);
        let t = v.t().to_owned();
        let view = t.t(); // same values, column-major
        assert_eq!(layout(v.view()), layout(view));
    }
}
