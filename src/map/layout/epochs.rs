//! The layout's placement: the PCA start, the optimisation epochs, the spreading of points
//! that overlap and the scaling to the unit square.

use super::SEED;
use super::neighbours::Edge;
use crate::util::SplitMix64 as Rng;
use crate::util::vector::dot_balanced;
use rayon::prelude::*;

/// Negative samples per positive sample.
const NEGATIVES: usize = 5;
/// Weight of the repulsive (negative-sample) term.
const GAMMA: f32 = 1.0;
/// Columns per task in the PCA's power iteration.
const PCA_COLUMNS: usize = 32;
/// The start layout is scaled into [-INIT_SCALE, INIT_SCALE]^2.
const INIT_SCALE: f32 = 10.0;

/// The first two principal components of the rows (power iteration with deflation from fixed
/// start vectors), scaled to `[-INIT_SCALE, INIT_SCALE]`, plus a small fixed jitter.
pub(super) fn pca_init(data: &[f32], n: usize, d: usize) -> Vec<[f32; 2]> {
    let row = |i: usize| &data[i * d..(i + 1) * d];
    let mut mean = vec![0f32; d];
    for i in 0..n {
        for (m, v) in mean.iter_mut().zip(row(i)) {
            *m += v;
        }
    }
    mean.iter_mut().for_each(|m| *m /= n as f32);
    let centered: Vec<f32> = (0..n)
        .flat_map(|i| row(i).iter().zip(&mean).map(|(v, m)| v - m))
        .collect();
    let crow = |i: usize| &centered[i * d..(i + 1) * d];

    let mut rng = Rng(SEED);
    let mut comps: Vec<Vec<f32>> = Vec::new();
    for _ in 0..2 {
        let mut v: Vec<f32> = (0..d).map(|_| rng.next_signed()).collect();
        for _ in 0..40 {
            orthogonalize(&mut v, &comps);
            if !unit(&mut v) {
                break;
            }
            // v <- X^T (X v), summed row by row in order.
            // Rows in parallel for the projections, slices of columns in parallel for the
            // sum: each entry still adds its terms in row order.
            let proj: Vec<f32> = (0..n)
                .into_par_iter()
                .map(|i| dot_balanced(crow(i), &v))
                .collect();
            let mut next = vec![0f32; d];
            next.par_chunks_mut(PCA_COLUMNS)
                .enumerate()
                .for_each(|(c, out)| {
                    let lo = c * PCA_COLUMNS;
                    for (i, &p) in proj.iter().enumerate() {
                        for (acc, x) in out.iter_mut().zip(&crow(i)[lo..]) {
                            *acc += p * x;
                        }
                    }
                });
            v = next;
        }
        orthogonalize(&mut v, &comps);
        if !unit(&mut v) {
            v.iter_mut().for_each(|x| *x = 0.0);
        }
        comps.push(v);
    }

    let mut y: Vec<[f32; 2]> = (0..n)
        .map(|i| {
            [
                dot_balanced(crow(i), &comps[0]),
                dot_balanced(crow(i), &comps[1]),
            ]
        })
        .collect();
    let max_abs = y
        .iter()
        .flat_map(|p| p.iter())
        .fold(0f32, |m, v| m.max(v.abs()));
    if max_abs > 1e-9 && max_abs.is_finite() {
        let s = INIT_SCALE / max_abs;
        for p in &mut y {
            p[0] = p[0] * s + 0.01 * rng.next_signed();
            p[1] = p[1] * s + 0.01 * rng.next_signed();
        }
    } else {
        // Degenerate input (all rows equal): a fixed random start.
        for p in &mut y {
            p[0] = INIT_SCALE * rng.next_signed();
            p[1] = INIT_SCALE * rng.next_signed();
        }
    }
    y
}

fn orthogonalize(v: &mut [f32], basis: &[Vec<f32>]) {
    for b in basis {
        let p = dot_balanced(v, b);
        v.iter_mut().zip(b).for_each(|(x, bb)| *x -= p * bb);
    }
}

/// Scales `v` to unit length; false when it is (numerically) zero.
fn unit(v: &mut [f32]) -> bool {
    let norm = dot_balanced(v, v).sqrt();
    if norm > 1e-20 && norm.is_finite() {
        v.iter_mut().for_each(|x| *x /= norm);
        true
    } else {
        false
    }
}

fn clip(g: f32) -> f32 {
    g.clamp(-4.0, 4.0)
}

/// UMAP's SGD with `a = b = 1`: per epoch, every edge due pulls its ends together and pushes
/// its head away from `NEGATIVES` random points.
pub(super) fn optimize(y: &mut [[f32; 2]], edges: &[Edge], epochs: usize) {
    let n = y.len();
    let max_w = edges.iter().map(|e| e.weight).fold(0f32, f32::max);
    if max_w <= 0.0 {
        return;
    }
    // Edges too weak to be sampled even once are dropped.
    let edges: Vec<Edge> = edges
        .iter()
        .copied()
        .filter(|e| e.weight >= max_w / epochs as f32)
        .collect();
    let per_sample: Vec<f32> = edges.iter().map(|e| max_w / e.weight).collect();
    let per_negative: Vec<f32> = per_sample.iter().map(|p| p / NEGATIVES as f32).collect();
    let mut next_sample = per_sample.clone();
    let mut next_negative = per_negative.clone();
    let mut rng = Rng(SEED ^ 0x5851_f42d_4c95_7f2d);

    for epoch in 0..epochs {
        let alpha = 1.0 - epoch as f32 / epochs as f32;
        let now = epoch as f32;
        for (e, edge) in edges.iter().enumerate() {
            if next_sample[e] > now {
                continue;
            }
            let (j, k) = (edge.head as usize, edge.tail as usize);
            let dx = y[j][0] - y[k][0];
            let dy = y[j][1] - y[k][1];
            let d2 = dx * dx + dy * dy;
            if d2 > 0.0 {
                let coeff = -2.0 / (1.0 + d2);
                let gx = clip(coeff * dx) * alpha;
                let gy = clip(coeff * dy) * alpha;
                y[j][0] += gx;
                y[j][1] += gy;
                y[k][0] -= gx;
                y[k][1] -= gy;
            }
            next_sample[e] += per_sample[e];

            let n_neg = ((now - next_negative[e]) / per_negative[e])
                .floor()
                .max(0.0) as usize;
            for _ in 0..n_neg {
                let k = rng.below(n);
                if k == j {
                    continue;
                }
                let dx = y[j][0] - y[k][0];
                let dy = y[j][1] - y[k][1];
                let d2 = dx * dx + dy * dy;
                if d2 > 0.0 {
                    let coeff = 2.0 * GAMMA / ((0.001 + d2) * (1.0 + d2));
                    y[j][0] += clip(coeff * dx) * alpha;
                    y[j][1] += clip(coeff * dy) * alpha;
                }
            }
            next_negative[e] += n_neg as f32 * per_negative[e];
        }
    }
}

/// Scales the points uniformly into `[0, 1]^2`, centred; non-finite coordinates become 0.5.
pub(super) fn normalize(y: &[[f32; 2]]) -> Vec<[f32; 2]> {
    let finite = |p: &[f32; 2]| p[0].is_finite() && p[1].is_finite();
    let mut lo = [f32::INFINITY; 2];
    let mut hi = [f32::NEG_INFINITY; 2];
    for p in y.iter().filter(|p| finite(p)) {
        for a in 0..2 {
            lo[a] = lo[a].min(p[a]);
            hi[a] = hi[a].max(p[a]);
        }
    }
    let span = (hi[0] - lo[0]).max(hi[1] - lo[1]);
    if !(span > 0.0 && span.is_finite()) {
        return vec![[0.5, 0.5]; y.len()];
    }
    let pad = [
        (1.0 - (hi[0] - lo[0]) / span) / 2.0,
        (1.0 - (hi[1] - lo[1]) / span) / 2.0,
    ];
    y.iter()
        .map(|p| {
            if finite(p) {
                [
                    ((p[0] - lo[0]) / span + pad[0]).clamp(0.0, 1.0),
                    ((p[1] - lo[1]) / span + pad[1]).clamp(0.0, 1.0),
                ]
            } else {
                [0.5, 0.5]
            }
        })
        .collect()
}

/// Minimum distance between points after [`spread`], times `sqrt(n)`: n disks of this
/// diameter cover about 13% of the unit square.
pub(super) const SPREAD: f32 = 0.36;

/// Pushes apart points closer than `min_sep` (sequentially, in index order, on a grid of
/// cells of size `min_sep`), `iters` rounds: removes overlaps while keeping the picture.
pub(super) fn spread(y: &mut [[f32; 2]], min_sep: f32, iters: usize) {
    let n = y.len();
    if n < 2 || min_sep.is_nan() || min_sep <= 0.0 {
        return;
    }
    let cell = |p: [f32; 2]| {
        (
            (p[0] / min_sep).floor() as i32,
            (p[1] / min_sep).floor() as i32,
        )
    };
    let mut rng = Rng(SEED ^ 0x2545_f491_4f6c_dd1d);
    for _ in 0..iters {
        let grid = Grid::new(y, cell);
        let mut moved = false;
        for i in 0..n {
            let (cx, cy) = cell(y[i]);
            for gx in cx - 1..=cx + 1 {
                for gy in cy - 1..=cy + 1 {
                    let members = grid.members(gx, gy);
                    for &j in members {
                        let j = j as usize;
                        if j <= i {
                            continue;
                        }
                        let mut dx = y[j][0] - y[i][0];
                        let mut dy = y[j][1] - y[i][1];
                        let mut d = (dx * dx + dy * dy).sqrt();
                        if d >= min_sep {
                            continue;
                        }
                        if d < 1e-9 {
                            // Coincident points: a fixed pseudo-random direction.
                            dx = rng.next_signed();
                            dy = rng.next_signed();
                            d = (dx * dx + dy * dy).sqrt().max(1e-6);
                            dx *= 1e-3 * min_sep / d;
                            dy *= 1e-3 * min_sep / d;
                            d = 1e-3 * min_sep;
                        }
                        let push = 0.5 * (min_sep - d) / d;
                        y[i][0] -= dx * push;
                        y[i][1] -= dy * push;
                        y[j][0] += dx * push;
                        y[j][1] += dy * push;
                        moved = true;
                    }
                }
            }
        }
        if !moved {
            break;
        }
    }
}

/// The points of each grid cell, in index order: a dense table over the occupied cells'
/// bounding box (counting sort, `O(n + cells)`), or a hash map when that box is far larger
/// than the number of points (outliers).
enum Grid {
    /// Slot `s` of `area` holds the points `members[start[s]..start[s + 1]]`.
    Dense {
        area: CellBox,
        start: Vec<u32>,
        members: Vec<u32>,
    },
    Sparse(std::collections::HashMap<(i32, i32), Vec<u32>>),
}

/// The occupied cells' bounding box: `width` columns from `x0`, `height` rows from `y0`.
#[derive(Clone, Copy)]
struct CellBox {
    x0: i64,
    y0: i64,
    width: i64,
    height: i64,
}

impl CellBox {
    /// The table slot of cell `(gx, gy)`, column by column; `None` outside the box.
    fn slot(self, (gx, gy): (i32, i32)) -> Option<usize> {
        let (x, y) = (i64::from(gx) - self.x0, i64::from(gy) - self.y0);
        (x >= 0 && y >= 0 && x < self.width && y < self.height)
            .then(|| (x * self.height + y) as usize)
    }
}

impl Grid {
    fn new(y: &[[f32; 2]], cell: impl Fn([f32; 2]) -> (i32, i32)) -> Grid {
        let cells: Vec<(i32, i32)> = y.iter().map(|&p| cell(p)).collect();
        let (mut x0, mut x1, mut y0, mut y1) = (i64::MAX, i64::MIN, i64::MAX, i64::MIN);
        for &(cx, cy) in &cells {
            (x0, x1) = (x0.min(cx.into()), x1.max(cx.into()));
            (y0, y1) = (y0.min(cy.into()), y1.max(cy.into()));
        }
        let (width, height) = (x1 - x0 + 1, y1 - y0 + 1);
        if cells.is_empty() || width.saturating_mul(height) > 64 * cells.len() as i64 + 4096 {
            let mut map: std::collections::HashMap<(i32, i32), Vec<u32>> =
                std::collections::HashMap::new();
            for (i, &c) in cells.iter().enumerate() {
                map.entry(c).or_default().push(i as u32);
            }
            return Grid::Sparse(map);
        }
        let area = CellBox {
            x0,
            y0,
            width,
            height,
        };
        let slot = |c| area.slot(c).expect("every cell lies in its bounding box");
        let mut start = vec![0u32; (width * height) as usize + 1];
        for &c in &cells {
            start[slot(c) + 1] += 1;
        }
        for s in 1..start.len() {
            start[s] += start[s - 1];
        }
        let mut fill = start.clone();
        let mut members = vec![0u32; cells.len()];
        for (i, &c) in cells.iter().enumerate() {
            let at = &mut fill[slot(c)];
            members[*at as usize] = i as u32;
            *at += 1;
        }
        Grid::Dense {
            area,
            start,
            members,
        }
    }

    /// The points in cell `(gx, gy)`, in index order.
    fn members(&self, gx: i32, gy: i32) -> &[u32] {
        match self {
            Grid::Dense {
                area,
                start,
                members,
            } => area
                .slot((gx, gy))
                .map_or(&[], |s| &members[start[s] as usize..start[s + 1] as usize]),
            Grid::Sparse(map) => map.get(&(gx, gy)).map_or(&[], |v| v.as_slice()),
        }
    }
}
