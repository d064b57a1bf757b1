//! Exact, reproducible dot products for the clustering code (the engine's ranking uses the
//! vectorized [`crate::index::ann::dot`] over the mapped vectors).

/// Dot product summed in index order in f64: the same bits on every machine.
pub fn dot(a: ndarray::ArrayView1<f32>, b: ndarray::ArrayView1<f32>) -> f32 {
    let mut s = 0.0f64;
    for (x, y) in a.iter().zip(b.iter()) {
        s += f64::from(*x) * f64::from(*y);
    }
    s as f32
}
