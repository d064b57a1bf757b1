//! The corpus centroid of the embeddings, and the axes related work's similarity is taken
//! off, in closed form over the stored vectors.

use crate::index::ann::dot;

/// The mean of the unit passage vectors and each vector's dot product with it.
///
/// Every passage of a reading list about one field shares a large common component (e5
/// cosines of any two papers sit at 0.85-0.95); subtracting the mean before comparing two
/// papers leaves what distinguishes them. The centered cosine of `a` and `b` is
/// `(a.b - a.m - b.m + m.m) / sqrt((1 - 2 a.m + m.m) (1 - 2 b.m + m.m))`, computed from the
/// plain dot products with no second copy of the vectors.
///
/// With axes (unit directions: [`language_axis`], [`shape_axis`]) every vector is first
/// projected off the plane they span (`u = v - sum_k (v.e_k) e_k`, `e_k` the axes made
/// orthonormal), so two papers are not close for being described in the same language, or for
/// both being bare titles. The same closed form holds with `u.u' = v.v' - p.p'` (`p` the
/// vector's coordinates on the axes), `u.mu = v.m - p.q` (`q` the mean's, `mu` the projected
/// mean) and `mu.mu = m.m - q.q`.
#[derive(Debug, Clone)]
pub struct Centroid {
    pub mean: Vec<f32>,
    /// `dots[i]` = vector `i` . mean (projected off the axes when there are any).
    pub dots: Vec<f32>,
    /// mean . mean (projected)
    pub norm2: f32,
    /// Each vector's coordinates on the orthonormal axes, `axes` per vector; empty without.
    coords: Vec<f32>,
    axes: usize,
    /// Whether the first axis is the language axis ([`Centroid::on_language_axis`]).
    language: bool,
}

impl Centroid {
    pub fn new(rows: &[f32], dim: usize) -> Centroid {
        Centroid::with_axes(rows, dim, None, None)
    }

    /// [`Centroid::new`] with every vector projected off the language axis and the shape axis
    /// (unit vectors of `dim`, either or both absent).
    pub fn with_axes(
        rows: &[f32],
        dim: usize,
        language: Option<&[f32]>,
        shape: Option<&[f32]>,
    ) -> Centroid {
        let n = rows.len() / dim.max(1);
        let mut mean = vec![0.0f64; dim];
        for row in rows.chunks_exact(dim) {
            for (m, x) in mean.iter_mut().zip(row) {
                *m += f64::from(*x);
            }
        }
        let mean: Vec<f32> = mean.iter().map(|m| (m / n.max(1) as f64) as f32).collect();
        let dots: Vec<f32> = rows.chunks_exact(dim).map(|r| dot(r, &mean)).collect();
        let norm2 = dot(&mean, &mean);
        let language = language.filter(|a| a.len() == dim);
        let axes = orthonormal(language.into_iter().chain(shape.filter(|a| a.len() == dim)));
        let k = axes.len();
        let coords: Vec<f32> = rows
            .chunks_exact(dim)
            .flat_map(|r| axes.iter().map(move |e| dot(r, e)))
            .collect();
        let q: Vec<f32> = axes.iter().map(|e| dot(&mean, e)).collect();
        let dots = if k == 0 {
            dots
        } else {
            dots.iter()
                .zip(coords.chunks_exact(k))
                .map(|(d, p)| d - dot(p, &q))
                .collect()
        };
        Centroid {
            mean,
            dots,
            norm2: norm2 - dot(&q, &q),
            coords,
            axes: k,
            language: language.is_some(),
        }
    }

    /// Centered cosine of paper `a` with every paper, from `sims` = plain cosines of `a`.
    pub fn center(&self, a: usize, sims: &[f32]) -> Vec<f32> {
        let la = self.len(a);
        sims.iter()
            .enumerate()
            .map(|(i, &s)| self.centered(a, la, i, s))
            .collect()
    }

    /// [`Centroid::center`] at `papers` only: `sims[j]` is paper `papers[j]`'s cosine with
    /// `a`, and so is the result's `j`-th value (the same values, no corpus-length vector).
    pub fn center_at(&self, a: usize, sims: &[f32], papers: &[usize]) -> Vec<f32> {
        let la = self.len(a);
        papers
            .iter()
            .zip(sims)
            .map(|(&i, &s)| self.centered(a, la, i, s))
            .collect()
    }

    /// Paper `i`'s coordinates on the axes (empty without any).
    fn coords(&self, i: usize) -> &[f32] {
        self.coords
            .get(i * self.axes..(i + 1) * self.axes)
            .unwrap_or(&[])
    }

    /// Paper `i`'s projection on the language axis (0 without one).
    pub fn on_language_axis(&self, i: usize) -> f32 {
        if self.language {
            self.coords(i).first().copied().unwrap_or(0.0)
        } else {
            0.0
        }
    }

    /// Length of paper `i`'s vector minus the centroid.
    fn len(&self, i: usize) -> f32 {
        let p = self.coords(i);
        (1.0 - dot(p, p) - 2.0 * self.dots[i] + self.norm2)
            .max(1e-12)
            .sqrt()
    }

    fn centered(&self, a: usize, la: f32, i: usize, s: f32) -> f32 {
        let s = s - dot(self.coords(a), self.coords(i));
        (s - self.dots[a] - self.dots[i] + self.norm2) / (la * self.len(i))
    }
}

/// `axes` made orthonormal in their order (Gram-Schmidt): the first stays as it is; one that
/// adds no direction of its own is dropped.
fn orthonormal<'a>(axes: impl Iterator<Item = &'a [f32]>) -> Vec<Vec<f32>> {
    let mut out: Vec<Vec<f32>> = Vec::new();
    for a in axes {
        let mut v: Vec<f64> = a.iter().map(|&x| f64::from(x)).collect();
        for e in &out {
            let d: f64 = v.iter().zip(e).map(|(x, y)| x * f64::from(*y)).sum();
            v.iter_mut()
                .zip(e)
                .for_each(|(x, y)| *x -= d * f64::from(*y));
        }
        let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        if norm > 1e-6 {
            out.push(v.iter().map(|x| (x / norm) as f32).collect());
        }
    }
    out
}
