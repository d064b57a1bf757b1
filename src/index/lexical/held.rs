//! Whether the list holds a query in the query's own words: evidence that the list is about
//! it that a short query's cosine cannot give ("credit assignment" comes no closer to a list
//! of agentic-RL papers than a short query about credit scoring does, and one of them holds
//! the phrase).

use super::Lexical;
use crate::text::terms;

impl Lexical<'_> {
    /// Whether one document holds every distinct term of `query`, and the query has at least
    /// one. A hyphenated compound counts through its parts, which are terms of their own
    /// ("label-free" holds "label" and "free"): a list may spell it apart. Glossary
    /// translations and acronyms do not count: this asks about the words as typed.
    pub fn one_holds_every_term(&self, query: &str) -> bool {
        let mut wanted = terms(query);
        wanted.retain(|t| !t.contains('-'));
        wanted.sort_unstable();
        wanted.dedup();
        if wanted.is_empty() {
            return false;
        }
        let mut held = vec![0usize; self.len()];
        for term in &wanted {
            let Some(t) = self.term_id(term) else {
                return false;
            };
            for &d in self.postings(t).0 {
                held[d as usize] += 1;
            }
        }
        held.contains(&wanted.len())
    }
}

#[cfg(test)]
mod tests {
    use crate::index::lexical::LexicalData;
    use crate::index::lexical::tests::papers;

    #[test]
    fn one_paper_must_hold_every_word_of_the_query() {
        let papers = papers(&[
            "Credit assignment in multi-turn agents",
            "Label-free reinforcement learning",
            "信用分配与过程奖励",
            "Credit scoring is not here",
        ]);
        let data = LexicalData::build(&papers);
        let lex = data.view();
        assert!(lex.one_holds_every_term("credit assignment"));
        assert!(lex.one_holds_every_term("信用分配"));
        // through a compound's parts, spelled apart in the list or not
        assert!(lex.one_holds_every_term("label-free RL"));
        assert!(lex.one_holds_every_term("label free reinforcement learning"));
        // the words are in the list, but not in one paper
        assert!(!lex.one_holds_every_term("credit reinforcement"));
        // a word the list does not hold, an empty query
        assert!(!lex.one_holds_every_term("credit default swaps"));
        assert!(!lex.one_holds_every_term(""));
        assert!(!lex.one_holds_every_term("the of"));
    }
}
