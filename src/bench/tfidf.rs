//! The TF-IDF baselines. [`Tfidf`] is of the kind arxiv-sanity uses: word unigrams and bigrams
//! (plus CJK character unigrams and bigrams, since an English tokenizer sees nothing in
//! Chinese), sublinear term frequency, smoothed idf, L2-normalized rows, cosine. [`Tfidf::fit_chars`]
//! is the other common baseline: character 2-4-grams within words. The word baseline keeps its
//! own plain analyzer on purpose: a baseline must not improve when the engine's text analysis
//! does. The character one uses [`crate::text::char_ngrams`], scikit-learn's fixed `char_wb`
//! definition, which the engine also uses as it is on lists of bare titles.

use std::collections::BTreeMap;

use crate::corpus::Paper;
use crate::engine::topics;
use crate::index::evidence::sparse_dot as dot;

/// The baseline's tokens: lowercase words (stopwords kept) and CJK character unigrams and
/// bigrams; no stemming, no segmentation.
pub fn baseline_terms(text: &str) -> Vec<String> {
    let folded = crate::text::fold(text);
    let mut out = Vec::new();
    let mut word = String::new();
    let mut cjk: Vec<char> = Vec::new();
    let flush = |word: &mut String, cjk: &mut Vec<char>, out: &mut Vec<String>| {
        let w = std::mem::take(word);
        if !w.is_empty() && !crate::text::is_stopword(&w) {
            out.push(w);
        }
        for (i, &c) in cjk.iter().enumerate() {
            out.push(c.to_string());
            if let Some(&n) = cjk.get(i + 1) {
                out.push([c, n].iter().collect());
            }
        }
        cjk.clear();
    };
    for c in folded.chars() {
        if crate::text::is_cjk(c) {
            flush(&mut word, &mut Vec::new(), &mut out);
            cjk.push(c);
        } else if c.is_alphanumeric() {
            if !cjk.is_empty() {
                flush(&mut String::new(), &mut cjk, &mut out);
            }
            word.push(c);
        } else {
            flush(&mut word, &mut cjk, &mut out);
        }
    }
    flush(&mut word, &mut cjk, &mut out);
    out
}

fn passages(papers: &[Paper]) -> Vec<String> {
    papers.iter().map(crate::index::passage_text).collect()
}

/// A fitted TF-IDF model over a set of documents.
#[derive(Debug, Clone)]
pub struct Tfidf {
    vocab: BTreeMap<String, usize>,
    idf: Vec<f32>,
    /// Per document: sparse L2-normalized row, by feature id.
    rows: Vec<Vec<(usize, f32)>>,
    analyzer: fn(&str) -> Vec<String>,
}

/// Features of a text: its terms, and bigrams of adjacent Latin-script terms.
pub fn features(text: &str) -> Vec<String> {
    let t = baseline_terms(text);
    let latin = |s: &str| !s.chars().any(crate::text::is_cjk);
    let mut out = t.clone();
    for w in t.windows(2) {
        if latin(&w[0]) && latin(&w[1]) && !w[1].starts_with(&format!("{}-", w[0])) {
            out.push(format!("{} {}", w[0], w[1]));
        }
    }
    out
}

impl Tfidf {
    /// Word (and word-bigram) features: the arxiv-sanity-style baseline.
    pub fn fit(docs: &[String]) -> Tfidf {
        Tfidf::fit_with(docs, features)
    }

    /// Character 2-4-gram features.
    pub fn fit_chars(docs: &[String]) -> Tfidf {
        Tfidf::fit_with(docs, crate::text::char_ngrams)
    }

    fn fit_with(docs: &[String], analyzer: fn(&str) -> Vec<String>) -> Tfidf {
        let feats: Vec<Vec<String>> = docs.iter().map(|d| analyzer(d)).collect();
        let mut vocab: BTreeMap<String, usize> = BTreeMap::new();
        for f in feats.iter().flatten() {
            vocab.entry(f.clone()).or_insert(0);
        }
        for (i, v) in vocab.values_mut().enumerate() {
            *v = i;
        }
        let mut df = vec![0usize; vocab.len()];
        let tfs: Vec<BTreeMap<usize, usize>> = feats
            .iter()
            .map(|f| {
                let mut tf = BTreeMap::new();
                for t in f {
                    *tf.entry(vocab[t]).or_insert(0) += 1;
                }
                for t in tf.keys() {
                    df[*t] += 1;
                }
                tf
            })
            .collect();
        let n = docs.len() as f32;
        let idf: Vec<f32> = df
            .iter()
            .map(|&d| ((1.0 + n) / (1.0 + d as f32)).ln() + 1.0)
            .collect();
        let rows = tfs.into_iter().map(|tf| weigh(tf, &idf)).collect();
        Tfidf {
            vocab,
            idf,
            rows,
            analyzer,
        }
    }

    /// Fit on the papers' passages: the same text the engine embeds and indexes.
    pub fn fit_papers(papers: &[Paper]) -> Tfidf {
        Tfidf::fit(&passages(papers))
    }

    /// [`Tfidf::fit_chars`] on the papers' passages.
    pub fn fit_papers_chars(papers: &[Paper]) -> Tfidf {
        Tfidf::fit_chars(&passages(papers))
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Number of features (the row dimension).
    pub fn dim(&self) -> usize {
        self.vocab.len()
    }

    /// The documents' sparse L2-normalized rows, by feature id.
    pub fn rows(&self) -> &[Vec<(usize, f32)>] {
        &self.rows
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The L2-normalized row of an unseen text (features outside the vocabulary are dropped).
    pub fn transform(&self, text: &str) -> Vec<(usize, f32)> {
        let mut tf = BTreeMap::new();
        for f in (self.analyzer)(text) {
            if let Some(&id) = self.vocab.get(&f) {
                *tf.entry(id).or_insert(0) += 1;
            }
        }
        weigh(tf, &self.idf)
    }

    /// Cosine of a sparse row with every document.
    pub fn scores(&self, row: &[(usize, f32)]) -> Vec<f32> {
        self.rows.iter().map(|d| dot(d, row)).collect()
    }

    /// Cosine of document `i` with every document (itself included).
    pub fn similar_to(&self, i: usize) -> Vec<f32> {
        self.scores(&self.rows[i])
    }
}

/// The clustering baseline: spherical k-means on the TF-IDF rows of titles + highlights, at a
/// given k (`recommend bench` and `topics --evaluate` run it at the k ours chose).
pub fn kmeans_baseline(papers: &[Paper], k: usize) -> Vec<usize> {
    let model = Tfidf::fit_papers(papers);
    let dim = model.dim();
    topics::kmeans_sparse(model.rows, dim, k)
}

fn weigh(tf: BTreeMap<usize, usize>, idf: &[f32]) -> Vec<(usize, f32)> {
    let mut row: Vec<(usize, f32)> = tf
        .into_iter()
        .map(|(t, c)| (t, (1.0 + (c as f32).ln()) * idf[t]))
        .collect();
    let norm = row.iter().map(|x| x.1 * x.1).sum::<f32>().sqrt();
    if norm > 0.0 {
        row.iter_mut().for_each(|x| x.1 /= norm);
    }
    row
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_documents_score_one_and_disjoint_zero() {
        let docs = vec![
            "reward model for web agents".to_string(),
            "reward model for web agents".to_string(),
            "视觉 世界模型".to_string(),
        ];
        let t = Tfidf::fit(&docs);
        let s = t.similar_to(0);
        assert!((s[1] - 1.0).abs() < 1e-5, "{s:?}");
        assert_eq!(s[2], 0.0);
        assert!(features("web agents").contains(&"web agents".to_string()));
        let q = t.transform("世界模型");
        assert!(t.scores(&q)[2] > 0.0);
    }

    #[test]
    fn kmeans_baseline_recovers_lexical_groups() {
        let words = [
            ("GRPO reasoning reward", "强化学习 推理 奖励模型"),
            ("web search agent", "搜索 智能体 网页"),
            ("SWE-bench code repair", "代码 修复 软件工程"),
        ];
        let papers: Vec<Paper> = (0..18)
            .map(|i| {
                let (t, h) = words[i % 3];
                serde_json::from_value(serde_json::json!({
                    "id": format!("p{i}"), "title": format!("{t} paper {i}"), "highlight": h
                }))
                .unwrap()
            })
            .collect();
        let labels = kmeans_baseline(&papers, 3);
        let gold: Vec<usize> = (0..18).map(|i| i % 3).collect();
        assert!(topics::nmi(&labels, &gold) > 0.99, "{labels:?}");
        assert_eq!(kmeans_baseline(&papers, 100).len(), papers.len());
        assert!(kmeans_baseline(&[], 3).is_empty());
    }
}
