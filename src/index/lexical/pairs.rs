//! Paper-to-paper TF-IDF cosines at chosen documents only: what a large index's related-work
//! query needs for its feedback papers, which score a few hundred candidates, not the list.

use super::Lexical;

impl Lexical<'_> {
    /// [`Lexical::similar_to`] at `docs` only, in their order: the same values, each summed
    /// over the shared terms in the same ascending order as the postings pass adds them, at the
    /// cost of the documents' own terms rather than the postings of every term of `doc` (a
    /// common term's postings are a tenth of a large list).
    pub fn similar_at(&self, doc: usize, docs: &[usize]) -> Vec<f32> {
        thread_local! {
            /// `doc`'s weight per term id, zero elsewhere: left all zeros after each call.
            static WEIGHTS: std::cell::RefCell<Vec<f32>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        let (terms, weights) = self.doc(doc);
        WEIGHTS.with(|cell| {
            let mut by_term = cell.borrow_mut();
            let vocabulary = self.a.vocab_offsets.len().saturating_sub(1);
            if by_term.len() < vocabulary {
                by_term.resize(vocabulary, 0.0);
            }
            for (&t, &w) in terms.iter().zip(weights) {
                by_term[t as usize] = w;
            }
            let out = docs
                .iter()
                .map(|&d| {
                    let (other, other_weights) = self.doc(d);
                    let mut s = 0.0f32;
                    for (&t, &w) in other.iter().zip(other_weights) {
                        let seed = by_term[t as usize];
                        if seed != 0.0 {
                            s += seed * w;
                        }
                    }
                    s
                })
                .collect();
            for &t in terms {
                by_term[t as usize] = 0.0;
            }
            out
        })
    }
}
