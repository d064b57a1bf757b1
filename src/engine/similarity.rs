//! How the topic and reading-path algorithms see "how related are two papers".
//!
//! The engine computes hybrid (dense + lexical) similarities; the algorithms only need the
//! [`Similarity`] trait. [`DenseSimilarity`] is the exact dot-product implementation over
//! L2-normalized rows, used in tests and as a fallback.
//!
//! Determinism: dot products are summed sequentially in a fixed order (no SIMD reassociation,
//! no parallel reductions), and every ranking breaks ties by the lower index.

use ndarray::ArrayView2;
use std::cmp::Ordering;

/// Pairwise relatedness of `len()` items.
pub trait Similarity: Sync {
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// similarity in [0,1]-ish, symmetric, higher = more related
    fn sim(&self, a: usize, b: usize) -> f32;
    /// the k most similar other items of `a`, best first (never `a` itself)
    fn neighbors(&self, a: usize, k: usize) -> Vec<(usize, f32)>;
}

/// Exact cosine similarity of L2-normalized rows (cosine = dot product).
#[derive(Debug, Clone, Copy)]
pub struct DenseSimilarity<'a> {
    pub vectors: ArrayView2<'a, f32>,
}

impl<'a> DenseSimilarity<'a> {
    pub fn new(vectors: ArrayView2<'a, f32>) -> Self {
        DenseSimilarity { vectors }
    }
}

/// Dot product summed in index order in f64: the same bits on every machine.
pub fn dot(a: ndarray::ArrayView1<f32>, b: ndarray::ArrayView1<f32>) -> f32 {
    let mut s = 0.0f64;
    for (x, y) in a.iter().zip(b.iter()) {
        s += f64::from(*x) * f64::from(*y);
    }
    s as f32
}

/// Best first; equal scores keep the lower index first. NaN sorts last.
pub fn by_score_desc(a: &(usize, f32), b: &(usize, f32)) -> Ordering {
    let (x, y) = (
        if a.1.is_nan() { f32::NEG_INFINITY } else { a.1 },
        if b.1.is_nan() { f32::NEG_INFINITY } else { b.1 },
    );
    y.total_cmp(&x).then(a.0.cmp(&b.0))
}

/// The `k` best of `scored` (best first, ties by index), in O(n log k)-ish via select + sort.
pub fn top_k(mut scored: Vec<(usize, f32)>, k: usize) -> Vec<(usize, f32)> {
    if k == 0 {
        return Vec::new();
    }
    if scored.len() > k {
        scored.select_nth_unstable_by(k - 1, by_score_desc);
        scored.truncate(k);
    }
    scored.sort_by(by_score_desc);
    scored
}

impl Similarity for DenseSimilarity<'_> {
    fn len(&self) -> usize {
        self.vectors.nrows()
    }

    fn sim(&self, a: usize, b: usize) -> f32 {
        dot(self.vectors.row(a), self.vectors.row(b))
    }

    fn neighbors(&self, a: usize, k: usize) -> Vec<(usize, f32)> {
        let row = self.vectors.row(a);
        let scored: Vec<(usize, f32)> = (0..self.len())
            .filter(|&b| b != a)
            .map(|b| (b, dot(row, self.vectors.row(b))))
            .collect();
        top_k(scored, k)
    }
}

/// Hybrid relatedness of indexed papers: mostly embedding cosine, plus TF-IDF cosine of their
/// terms (names and shared vocabulary the embedding may blur). Both are in [0,1] for
/// related papers, so the blend is too. Used by reading paths and maps.
pub struct IndexSimilarity<'a> {
    index: &'a crate::index::Index,
}

/// Share of the lexical signal in [`IndexSimilarity`].
pub const LEXICAL_SHARE: f32 = 0.3;

impl<'a> IndexSimilarity<'a> {
    pub fn new(index: &'a crate::index::Index) -> Self {
        IndexSimilarity { index }
    }

    fn row(&self, a: usize) -> Vec<f32> {
        let lex = self.index.lexical().similar_to(a);
        (0..self.index.len())
            .map(|b| {
                (1.0 - LEXICAL_SHARE) * dot(self.index.vector(a), self.index.vector(b))
                    + LEXICAL_SHARE * lex[b]
            })
            .collect()
    }
}

impl Similarity for IndexSimilarity<'_> {
    fn len(&self) -> usize {
        self.index.len()
    }

    fn sim(&self, a: usize, b: usize) -> f32 {
        (1.0 - LEXICAL_SHARE) * dot(self.index.vector(a), self.index.vector(b))
            + LEXICAL_SHARE * self.index.lexical().pair(a, b)
    }

    fn neighbors(&self, a: usize, k: usize) -> Vec<(usize, f32)> {
        let scored = self
            .row(a)
            .into_iter()
            .enumerate()
            .filter(|&(b, _)| b != a)
            .collect();
        top_k(scored, k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn neighbors_are_sorted_exclude_self_and_break_ties_by_index() {
        let v = array![
            [1.0f32, 0.0],
            [1.0, 0.0],
            [0.0, 1.0],
            [1.0, 0.0],
            [0.6, 0.8]
        ];
        let s = DenseSimilarity::new(v.view());
        assert_eq!(s.len(), 5);
        let n = s.neighbors(0, 3);
        let ids: Vec<usize> = n.iter().map(|p| p.0).collect();
        assert_eq!(ids, [1, 3, 4]);
        assert!((n[2].1 - 0.6).abs() < 1e-6);
        assert_eq!(s.neighbors(0, 10).len(), 4);
        assert!(s.neighbors(0, 0).is_empty());
        assert!((s.sim(2, 4) - s.sim(4, 2)).abs() < 1e-7);
    }

    #[test]
    fn top_k_handles_nan_and_ties() {
        let t = top_k(vec![(3, 0.5), (1, f32::NAN), (0, 0.5), (2, 0.9)], 3);
        assert_eq!(t.iter().map(|p| p.0).collect::<Vec<_>>(), [2, 0, 3]);
    }
}
