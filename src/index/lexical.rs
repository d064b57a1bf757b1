//! The lexical side of retrieval: BM25 for free-text queries and TF-IDF cosine between papers.
//!
//! Terms come from [`crate::text::terms`] (English words, CJK unigrams and bigrams), so Chinese
//! needs no dictionary. Titles and aliases weigh more than highlights: a paper's name is what
//! people search for. The topic field is deliberately not indexed, so related-work quality
//! measured against topics is not inflated by the label itself.

use serde::{Deserialize, Serialize};

use crate::corpus::Paper;
use crate::text::terms;

/// How many times a title or alias term counts, relative to a highlight term.
const TITLE_WEIGHT: f32 = 3.0;
const BM25_K1: f32 = 1.2;
const BM25_B: f32 = 0.75;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Lexical {
    /// Sorted vocabulary; a term's id is its position.
    vocab: Vec<String>,
    /// Per term: (doc, weighted term frequency), by doc.
    postings: Vec<Vec<(u32, f32)>>,
    /// Per doc: L2-normalized TF-IDF vector as (term, weight), by term.
    tfidf: Vec<Vec<(u32, f32)>>,
    doc_len: Vec<f32>,
    avg_len: f32,
}

impl Lexical {
    pub fn build(papers: &[Paper]) -> Lexical {
        let docs: Vec<Vec<(String, f32)>> = papers.iter().map(weighted_terms).collect();
        let mut vocab: Vec<String> = docs.iter().flatten().map(|(t, _)| t.clone()).collect();
        vocab.sort();
        vocab.dedup();
        let mut postings: Vec<Vec<(u32, f32)>> = vec![Vec::new(); vocab.len()];
        let mut doc_len = Vec::with_capacity(docs.len());
        let mut doc_tf: Vec<Vec<(u32, f32)>> = Vec::with_capacity(docs.len());
        for (d, doc) in docs.iter().enumerate() {
            let mut tf: Vec<(u32, f32)> = doc
                .iter()
                .map(|(t, w)| (vocab.binary_search(t).expect("term in vocab") as u32, *w))
                .collect();
            tf.sort_by_key(|&(t, _)| t);
            let mut merged: Vec<(u32, f32)> = Vec::new();
            for (t, w) in tf {
                match merged.last_mut() {
                    Some((lt, lw)) if *lt == t => *lw += w,
                    _ => merged.push((t, w)),
                }
            }
            doc_len.push(merged.iter().map(|(_, w)| w).sum());
            for &(t, w) in &merged {
                postings[t as usize].push((d as u32, w));
            }
            doc_tf.push(merged);
        }
        let n = papers.len().max(1) as f32;
        let avg_len = doc_len.iter().sum::<f32>() / n;
        let idf: Vec<f32> = postings
            .iter()
            .map(|p| ((1.0 + n) / (1.0 + p.len() as f32)).ln() + 1.0)
            .collect();
        let tfidf = doc_tf
            .into_iter()
            .map(|tf| {
                let mut v: Vec<(u32, f32)> = tf
                    .into_iter()
                    .map(|(t, w)| (t, (1.0 + w.ln()) * idf[t as usize]))
                    .collect();
                let norm = v.iter().map(|(_, w)| w * w).sum::<f32>().sqrt();
                if norm > 0.0 {
                    v.iter_mut().for_each(|(_, w)| *w /= norm);
                }
                v
            })
            .collect();
        Lexical {
            vocab,
            postings,
            tfidf,
            doc_len,
            avg_len,
        }
    }

    pub fn len(&self) -> usize {
        self.doc_len.len()
    }

    pub fn is_empty(&self) -> bool {
        self.doc_len.is_empty()
    }

    fn term_id(&self, term: &str) -> Option<usize> {
        self.vocab.binary_search_by(|t| t.as_str().cmp(term)).ok()
    }

    fn idf(&self, term: usize) -> f32 {
        let n = self.len() as f32;
        let df = self.postings[term].len() as f32;
        ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
    }

    /// BM25 score of every document for a free-text query (zero where no term matches).
    pub fn bm25(&self, query: &str) -> Vec<f32> {
        let mut scores = vec![0.0f32; self.len()];
        let mut q = terms(query);
        q.sort();
        q.dedup();
        for term in q {
            let Some(t) = self.term_id(&term) else {
                continue;
            };
            let idf = self.idf(t);
            for &(d, tf) in &self.postings[t] {
                let len = self.doc_len[d as usize] / self.avg_len.max(1e-6);
                let denom = tf + BM25_K1 * (1.0 - BM25_B + BM25_B * len);
                scores[d as usize] += idf * tf * (BM25_K1 + 1.0) / denom;
            }
        }
        scores
    }

    /// TF-IDF cosine of document `doc` with every document (itself included).
    pub fn similar_to(&self, doc: usize) -> Vec<f32> {
        let mut scores = vec![0.0f32; self.len()];
        for &(t, w) in &self.tfidf[doc] {
            for &(d, _) in &self.postings[t as usize] {
                scores[d as usize] += w * self.weight(d as usize, t);
            }
        }
        scores
    }

    /// TF-IDF cosine of documents `a` and `b`.
    pub fn pair(&self, a: usize, b: usize) -> f32 {
        self.tfidf[a]
            .iter()
            .map(|&(t, w)| w * self.weight(b, t))
            .sum()
    }

    fn weight(&self, doc: usize, term: u32) -> f32 {
        let v = &self.tfidf[doc];
        v.binary_search_by_key(&term, |&(t, _)| t)
            .map(|i| v[i].1)
            .unwrap_or(0.0)
    }

    /// The terms documents `a` and `b` share, most telling first (by product of weights).
    /// Terms that say nothing to a person ([`crate::text::is_telling`]) are skipped.
    pub fn shared_terms(&self, a: usize, b: usize, max: usize) -> Vec<String> {
        let mut shared: Vec<(f32, &str)> = self.tfidf[a]
            .iter()
            .filter_map(|&(t, w)| {
                let wb = self.weight(b, t);
                let term = self.vocab[t as usize].as_str();
                (wb > 0.0 && crate::text::is_telling(term)).then_some((w * wb, term))
            })
            .collect();
        shared.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(y.1)));
        shared
            .into_iter()
            .take(max)
            .map(|(_, t)| t.to_string())
            .collect()
    }

    /// Query terms that occur in document `doc`, most telling first.
    pub fn matched_terms(&self, query: &str, doc: usize, max: usize) -> Vec<String> {
        let mut q = terms(query);
        q.sort();
        q.dedup();
        let mut hits: Vec<(f32, String)> = q
            .into_iter()
            .filter(|t| crate::text::is_telling(t))
            .filter_map(|t| {
                let id = self.term_id(&t)?;
                let w = self.weight(doc, id as u32);
                (w > 0.0).then_some((w, t))
            })
            .collect();
        hits.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
        hits.into_iter().take(max).map(|(_, t)| t).collect()
    }
}

/// A paper's terms with their field weights: title and aliases count more than the highlight.
fn weighted_terms(p: &Paper) -> Vec<(String, f32)> {
    let mut out: Vec<(String, f32)> = Vec::new();
    let mut names = p.title.clone();
    for a in &p.aliases {
        names.push(' ');
        names.push_str(a);
    }
    out.extend(terms(&names).into_iter().map(|t| (t, TITLE_WEIGHT)));
    out.extend(terms(&p.highlight).into_iter().map(|t| (t, 1.0)));
    out
}
