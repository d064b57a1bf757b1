//! Dot products and cosine similarity over `f32` vectors.
//!
//! Each function fixes its summation order, so its result has the same bits on every run; the
//! orders differ on purpose and changing one changes stored or printed results:
//! - [`dot`]: eight lanes then their sequential sum; the ranking, the HNSW graph stored in
//!   `index.bin`, the corpus centroid (fast, auto-vectorized).
//! - [`dot_balanced`]: eight lanes then a fixed tree; the map layout.
//! - [`dot_exact`]: sequential in `f64`; the clustering's similarity matrix.
//! - [`cosine`]: `f64`, for vectors not known to be normalized (tests, model checks).

use ndarray::ArrayView1;

/// Dot product with eight lanes of accumulation (auto-vectorized in release builds), over the
/// common length of `a` and `b`.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0f32; 8];
    let ca = a.chunks_exact(8);
    let cb = b.chunks_exact(8);
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for i in 0..8 {
            acc[i] += x[i] * y[i];
        }
    }
    acc.iter().sum::<f32>() + tail
}

/// Dot product with eight lanes, summed as a fixed balanced tree.
pub fn dot_balanced(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let ca = a.chunks_exact(8);
    let cb = b.chunks_exact(8);
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for l in 0..8 {
            acc[l] += x[l] * y[l];
        }
    }
    let mut tail = 0f32;
    for (x, y) in ra.iter().zip(rb) {
        tail += x * y;
    }
    ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7])) + tail
}

/// Dot product summed in index order in `f64` (rows of a matrix need not be contiguous).
pub fn dot_exact(a: ArrayView1<f32>, b: ArrayView1<f32>) -> f32 {
    let mut s = 0.0f64;
    for (x, y) in a.iter().zip(b.iter()) {
        s += f64::from(*x) * f64::from(*y);
    }
    s as f32
}

/// Cosine similarity of two vectors (not assumed normalized), in `f64`; 0 when either is zero.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let (mut dot, mut na, mut nb) = (0f64, 0f64, 0f64);
    for (x, y) in a.iter().zip(b) {
        dot += (*x as f64) * (*y as f64);
        na += (*x as f64) * (*x as f64);
        nb += (*y as f64) * (*y as f64);
    }
    if na == 0.0 || nb == 0.0 {
        return 0.0;
    }
    (dot / (na.sqrt() * nb.sqrt())) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dots_agree_on_exact_values() {
        let a: Vec<f32> = (0..19).map(|i| i as f32).collect();
        let b: Vec<f32> = (0..19).map(|i| (i % 3) as f32).collect();
        let want: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert_eq!(dot(&a, &b), want);
        assert_eq!(dot_balanced(&a, &b), want);
        assert_eq!(dot_exact(ArrayView1::from(&a), ArrayView1::from(&b)), want);
        assert_eq!(cosine(&a, &[0.0; 19]), 0.0);
        assert!((cosine(&a, &a) - 1.0).abs() < 1e-6);
    }
}
