//! The lexical side of retrieval: BM25 for free-text queries and TF-IDF cosine between papers.
//!
//! Terms come from [`crate::text::terms`] (stemmed English words and name parts, jieba-segmented
//! Chinese words). Titles and aliases weigh more than summaries and highlights: a paper's name
//! is what people search for. The topic field and the curated tags are deliberately not
//! indexed, so related-work quality measured against topics is not inflated by the label.
//!
//! Paper-to-paper similarity ignores terms that occur in more than [`MAX_DF`] of the papers of
//! a corpus of at least [`MAX_DF_MIN_DOCS`]: in a reading list about agentic RL, "agent", "rl"
//! and "强化学习" are everywhere and say nothing about which two papers belong together.
//! The cap comes from the corpus itself, not from a word list.

use crate::corpus::Paper;
use crate::text::terms;

/// How many times a title or alias term counts, relative to a highlight term.
const TITLE_WEIGHT: f32 = 3.0;
const BM25_K1: f32 = 1.2;
/// Share of documents above which a term carries no weight in paper-to-paper similarity.
pub const MAX_DF: f32 = 0.3;
/// Smallest corpus the cap applies to (in a handful of papers every term is "frequent").
pub const MAX_DF_MIN_DOCS: usize = 20;
/// Share of documents above which a shared term is not cited as a reason two papers are
/// related (explanations only; it still weighs in the similarity below [`MAX_DF`]). A word one
/// paper in ten carries ('rl' or 'reasoning' in a list about RL, 'grpo' in the shipped one)
/// does not single a pair out; a relation or a shared tag says what the pair has in common.
pub const CITED_MAX_DF: f32 = 0.1;
/// Weight of a query's glossary translations relative to its own words.
const TRANSLATION_WEIGHT: f32 = 0.7;
const BM25_B: f32 = 0.75;

/// Whether a term in `df` of `n` documents is over the cap of paper-to-paper similarity
/// ([`MAX_DF`], from [`MAX_DF_MIN_DOCS`] documents up): the one rule for a generic term.
fn over_cap(df: usize, n: usize) -> bool {
    n >= MAX_DF_MIN_DOCS && df as f32 > MAX_DF * n as f32
}

/// The IDF of paper-to-paper similarity for a term in `df` of `n` documents (smoothed, so a
/// term of every document still weighs 1).
fn similarity_idf(df: usize, n: usize) -> f32 {
    ((1.0 + n.max(1) as f32) / (1.0 + df as f32)).ln() + 1.0
}

/// The L2-normalized TF-IDF vector of `(term, field-weighted frequency, idf)`: the one weighting
/// of an indexed document and of a paper compared with the index ([`Lexical::vector_of`]).
fn unit_tfidf(terms: impl Iterator<Item = (u32, f32, f32)>) -> Vec<(u32, f32)> {
    let mut v: Vec<(u32, f32)> = terms
        .map(|(t, tf, idf)| (t, (1.0 + tf.ln()) * idf))
        .collect();
    let norm = v.iter().map(|(_, w)| w * w).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|(_, w)| *w /= norm);
    }
    v
}

/// The lexical index as built: flat arrays (compressed sparse rows), ready to be written as
/// sections of `index.bin` and read back without decoding. Query it through [`LexicalData::view`].
#[derive(Debug, Clone, Default)]
pub struct LexicalData {
    /// Sorted vocabulary, concatenated; term `t` is `vocab[vocab_offsets[t]..vocab_offsets[t + 1]]`.
    pub vocab: Vec<u8>,
    pub vocab_offsets: Vec<u64>,
    /// Postings of term `t`: `posting_offsets[t]..posting_offsets[t + 1]` into `posting_docs`
    /// (ascending document numbers), `posting_tf` (field-weighted term frequencies, for BM25)
    /// and `posting_weights` (the term's weight in the document's TF-IDF vector, so that
    /// similarity to one document is a pass over its terms' postings, no lookups).
    pub posting_offsets: Vec<u64>,
    pub posting_docs: Vec<u32>,
    pub posting_tf: Vec<f32>,
    pub posting_weights: Vec<f32>,
    /// The L2-normalized TF-IDF vector of document `d`: `doc_offsets[d]..doc_offsets[d + 1]`
    /// into `doc_terms` (ascending term ids) and `doc_weights`.
    pub doc_offsets: Vec<u64>,
    pub doc_terms: Vec<u32>,
    pub doc_weights: Vec<f32>,
    /// Field-weighted length of each document (BM25's length normalization).
    pub doc_len: Vec<f32>,
}

/// A document's weighted terms as (term id, summed weight), ascending by term id; weights of a
/// term that occurs several times are added in the order they occur.
fn term_frequencies(doc: &[(String, f32)], vocab: &[&str]) -> Vec<(u32, f32)> {
    let mut tf: Vec<(u32, f32)> = doc
        .iter()
        .map(|(t, w)| {
            let id = vocab
                .binary_search(&t.as_str())
                .expect("every term is in the vocabulary");
            (id as u32, *w)
        })
        .collect();
    tf.sort_by_key(|&(t, _)| t);
    let mut merged: Vec<(u32, f32)> = Vec::new();
    for (t, w) in tf {
        match merged.last_mut() {
            Some((lt, lw)) if *lt == t => *lw += w,
            _ => merged.push((t, w)),
        }
    }
    merged
}

impl LexicalData {
    pub fn build(papers: &[Paper]) -> LexicalData {
        let both = described_in_both_languages(papers);
        let docs: Vec<Vec<(String, f32)>> = papers
            .iter()
            .map(|p| {
                let mut terms = weighted_terms(p);
                if both {
                    terms.extend(
                        english_notes_in_chinese(p)
                            .into_iter()
                            .map(|t| (t, TRANSLATION_WEIGHT)),
                    );
                }
                terms
            })
            .collect();
        let mut vocab: Vec<&str> = docs.iter().flatten().map(|(t, _)| t.as_str()).collect();
        vocab.sort_unstable();
        vocab.dedup();
        let mut postings: Vec<Vec<(u32, f32)>> = vec![Vec::new(); vocab.len()];
        let mut doc_len = Vec::with_capacity(docs.len());
        let mut doc_tf: Vec<Vec<(u32, f32)>> = Vec::with_capacity(docs.len());
        for (d, doc) in docs.iter().enumerate() {
            let merged = term_frequencies(doc, &vocab);
            doc_len.push(merged.iter().map(|(_, w)| w).sum());
            for &(t, w) in &merged {
                postings[t as usize].push((d as u32, w));
            }
            doc_tf.push(merged);
        }
        let idf: Vec<f32> = postings
            .iter()
            .map(|p| similarity_idf(p.len(), papers.len()))
            .collect();
        let mut out = LexicalData {
            doc_len,
            ..LexicalData::default()
        };
        out.vocab_offsets.push(0);
        for t in &vocab {
            out.vocab.extend_from_slice(t.as_bytes());
            out.vocab_offsets.push(out.vocab.len() as u64);
        }
        out.posting_offsets.push(0);
        for p in &postings {
            out.posting_docs.extend(p.iter().map(|&(d, _)| d));
            out.posting_tf.extend(p.iter().map(|&(_, w)| w));
            out.posting_offsets.push(out.posting_docs.len() as u64);
        }
        out.doc_offsets.push(0);
        out.posting_weights = vec![0.0; out.posting_docs.len()];
        // Documents in ascending order meet each term's postings in order.
        let mut cursor: Vec<usize> = out.posting_offsets[..vocab.len()]
            .iter()
            .map(|&o| o as usize)
            .collect();
        let capped = |t: u32| over_cap(postings[t as usize].len(), papers.len());
        for tf in doc_tf {
            let v = unit_tfidf(
                tf.into_iter()
                    .filter(|&(t, _)| !capped(t))
                    .map(|(t, w)| (t, w, idf[t as usize])),
            );
            for &(t, w) in &v {
                out.posting_weights[cursor[t as usize]] = w;
                cursor[t as usize] += 1;
            }
            out.doc_terms.extend(v.iter().map(|&(t, _)| t));
            out.doc_weights.extend(v.iter().map(|&(_, w)| w));
            out.doc_offsets.push(out.doc_terms.len() as u64);
        }
        out
    }

    pub fn view(&self) -> Lexical<'_> {
        Lexical::trusted(LexicalArrays {
            vocab: &self.vocab,
            vocab_offsets: &self.vocab_offsets,
            posting_offsets: &self.posting_offsets,
            posting_docs: &self.posting_docs,
            posting_tf: &self.posting_tf,
            posting_weights: &self.posting_weights,
            doc_offsets: &self.doc_offsets,
            doc_terms: &self.doc_terms,
            doc_weights: &self.doc_weights,
            doc_len: &self.doc_len,
        })
    }
}

/// The mean of the document lengths `doc_len` ([`Lexical::trusted_with_average`]).
pub fn average_len(doc_len: &[f32]) -> f32 {
    average(doc_len)
}

fn average(v: &[f32]) -> f32 {
    v.iter().sum::<f32>() / v.len().max(1) as f32
}

mod held;
mod pairs;
mod translated;
use translated::{chinese_notes_in_english, described_in_both_languages, english_notes_in_chinese};

/// A read-only view of a lexical index, over built arrays or the sections of a loaded file.
///
/// Every constructor guarantees the invariants the methods index by (see [`Lexical::new`]), so
/// the methods never panic, whatever file the arrays came from.
#[derive(Debug, Clone, Copy)]
pub struct Lexical<'a> {
    a: LexicalArrays<'a>,
    avg_len: f32,
}

/// The arrays of a lexical index as read from `index.bin`, by name (see [`LexicalData`] for
/// their meaning).
#[derive(Debug, Clone, Copy)]
pub struct LexicalArrays<'a> {
    pub vocab: &'a [u8],
    pub vocab_offsets: &'a [u64],
    pub posting_offsets: &'a [u64],
    pub posting_docs: &'a [u32],
    pub posting_tf: &'a [f32],
    pub posting_weights: &'a [f32],
    pub doc_offsets: &'a [u64],
    pub doc_terms: &'a [u32],
    pub doc_weights: &'a [f32],
    pub doc_len: &'a [f32],
}

/// `offsets` are `n + 1` non-decreasing positions from 0 to at most `len` (the shape of every
/// offsets section in `index.bin`).
pub(crate) fn valid_offsets(offsets: &[u64], n: usize, len: usize) -> bool {
    offsets.len() == n + 1
        && offsets.first() == Some(&0)
        && offsets.windows(2).all(|w| w[0] <= w[1])
        && offsets.last().is_some_and(|&l| l as usize <= len)
}

impl<'a> Lexical<'a> {
    /// Check arrays read from a file and view them; `Err` names the first broken invariant.
    /// O(size of the index): run once per load, then use [`Lexical::trusted`].
    pub fn new(arrays: LexicalArrays<'a>) -> Result<Lexical<'a>, String> {
        let a = &arrays;
        let terms = a.vocab_offsets.len().saturating_sub(1);
        let docs = a.doc_len.len();
        if !valid_offsets(a.vocab_offsets, terms, a.vocab.len())
            || std::str::from_utf8(a.vocab).is_err()
        {
            return Err("lexical vocabulary offsets or text are invalid".into());
        }
        if !valid_offsets(a.posting_offsets, terms, a.posting_docs.len())
            || a.posting_tf.len() != a.posting_docs.len()
            || a.posting_weights.len() != a.posting_docs.len()
            || a.posting_docs.iter().any(|&d| d as usize >= docs)
        {
            return Err("lexical postings are invalid".into());
        }
        if !valid_offsets(a.doc_offsets, docs, a.doc_terms.len())
            || a.doc_weights.len() != a.doc_terms.len()
            || a.doc_terms.iter().any(|&t| t as usize >= terms)
        {
            return Err("lexical document vectors are invalid".into());
        }
        Ok(Lexical::trusted(arrays))
    }

    /// View arrays that [`Lexical::new`] accepted before, without checking them again.
    pub fn trusted(arrays: LexicalArrays<'a>) -> Lexical<'a> {
        Lexical::trusted_with_average(arrays, average(arrays.doc_len))
    }

    /// [`Lexical::trusted`] with the mean document length [`average_len`] gave for these arrays:
    /// an index viewed many times per query sums its 100k lengths once.
    pub fn trusted_with_average(arrays: LexicalArrays<'a>, avg_len: f32) -> Lexical<'a> {
        Lexical { avg_len, a: arrays }
    }

    pub fn len(&self) -> usize {
        self.a.doc_len.len()
    }

    pub fn is_empty(&self) -> bool {
        self.a.doc_len.is_empty()
    }

    fn terms_len(&self) -> usize {
        self.a.vocab_offsets.len().saturating_sub(1)
    }

    fn term(&self, t: usize) -> &'a str {
        let (a, b) = (
            self.a.vocab_offsets[t] as usize,
            self.a.vocab_offsets[t + 1] as usize,
        );
        // Validated as UTF-8 as a whole, and every term starts at a term boundary.
        std::str::from_utf8(&self.a.vocab[a..b]).unwrap_or("")
    }

    fn term_id(&self, term: &str) -> Option<usize> {
        let (mut lo, mut hi) = (0, self.terms_len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.term(mid).cmp(term) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    fn postings(&self, t: usize) -> (&'a [u32], &'a [f32]) {
        let r = self.a.posting_offsets[t] as usize..self.a.posting_offsets[t + 1] as usize;
        (&self.a.posting_docs[r.clone()], &self.a.posting_tf[r])
    }

    fn doc(&self, d: usize) -> (&'a [u32], &'a [f32]) {
        let r = self.a.doc_offsets[d] as usize..self.a.doc_offsets[d + 1] as usize;
        (&self.a.doc_terms[r.clone()], &self.a.doc_weights[r])
    }

    /// Robertson-Spärck Jones inverse document frequency, floored at zero: a term in half the
    /// documents or more is no evidence for any of them (the "+1" variant would still let a
    /// query's most generic words outweigh its one specific word).
    fn idf(&self, term: usize) -> f32 {
        let n = self.len() as f32;
        let df = self.postings(term).0.len() as f32;
        ((n - df + 0.5) / (df + 0.5)).ln().max(0.0)
    }

    /// BM25 score of every document for a free-text query (zero where no term matches). The
    /// query's glossary translations ([`crate::text::glossary`]) count at a reduced weight.
    pub fn bm25(&self, query: &str) -> Vec<f32> {
        let mut scores = vec![0.0f32; self.len()];
        let mut q: Vec<(String, f32)> = terms(query).into_iter().map(|t| (t, 1.0)).collect();
        q.extend(
            terms(&crate::text::glossary::translations(query))
                .into_iter()
                .map(|t| (t, TRANSLATION_WEIGHT)),
        );
        q.extend(
            self.acronyms(query)
                .into_iter()
                .map(|t| (t, TRANSLATION_WEIGHT)),
        );
        // One weight per distinct term: its own word wins over a translation.
        q.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
        q.dedup_by(|a, b| a.0 == b.0);
        for (term, weight) in q {
            let Some(t) = self.term_id(&term) else {
                continue;
            };
            let idf = weight * self.idf(t);
            let (docs, tfs) = self.postings(t);
            for (&d, &tf) in docs.iter().zip(tfs) {
                let len = self.a.doc_len[d as usize] / self.avg_len.max(1e-6);
                let denom = tf + BM25_K1 * (1.0 - BM25_B + BM25_B * len);
                scores[d as usize] += idf * tf * (BM25_K1 + 1.0) / denom;
            }
        }
        scores
    }

    /// The acronyms `query` spells out that the list uses as terms: the initials of 2 to 5
    /// consecutive words, with or without the function words between them ("group relative
    /// policy optimization" -> "grpo", "chain of thought" -> "cot"), at least 3 letters, and
    /// not a word of the query itself.
    ///
    /// A list of bare method names holds "GRPO", never the words it stands for; a researcher
    /// asks in words. Measured: English search MRR on the list of bare names 0.403 -> 0.428
    /// (BENCHMARKS.md, Imported lists: the third list), cross-lingual en -> zh 0.460 -> 0.463,
    /// every other figure the same.
    pub fn acronyms(&self, query: &str) -> Vec<String> {
        let words: Vec<String> = crate::text::fold(query)
            .split(|c: char| !c.is_ascii_alphabetic())
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect();
        let content: Vec<String> = words
            .iter()
            .filter(|w| !crate::text::is_stopword(w))
            .cloned()
            .collect();
        let mut found: Vec<String> = Vec::new();
        for seq in [&words, &content] {
            for len in 2..=5 {
                for window in seq.windows(len) {
                    let acronym: String = window.iter().filter_map(|w| w.chars().next()).collect();
                    if acronym.len() >= 3
                        && !words.contains(&acronym)
                        && !found.contains(&acronym)
                        && self.term_id(&acronym).is_some()
                    {
                        found.push(acronym);
                    }
                }
            }
        }
        found
    }

    /// The largest share of `query`'s lexical evidence that one document holds (0..=1): the
    /// IDF mass of the query's distinct terms that occur in the corpus, and the share of it
    /// the best-matching document holds. A query whose telling words all meet in one paper
    /// scores 1; one that meets the corpus only in scattered ordinary words scores low.
    /// Glossary translations are not counted: this measures the words as typed.
    pub fn best_match_share(&self, query: &str) -> f32 {
        let mut q = terms(query);
        q.sort_unstable();
        q.dedup();
        let mut held = vec![0.0f32; self.len()];
        let mut total = 0.0f32;
        for t in q.iter().filter_map(|term| self.term_id(term)) {
            let idf = self.idf(t);
            total += idf;
            for &d in self.postings(t).0 {
                held[d as usize] += idf;
            }
        }
        if total <= 0.0 {
            return 0.0;
        }
        (held.into_iter().fold(0.0f32, f32::max) / total).clamp(0.0, 1.0)
    }

    /// Whether `term` is too common in this corpus to tell papers apart: in more than
    /// [`MAX_DF`] of the documents of a corpus of at least [`MAX_DF_MIN_DOCS`] (the cap of
    /// paper-to-paper similarity). A term the corpus does not hold is not generic.
    pub fn is_generic(&self, term: &str) -> bool {
        self.term_id(term)
            .is_some_and(|t| over_cap(self.postings(t).0.len(), self.len()))
    }

    /// TF-IDF cosine of document `doc` with every document (itself included).
    pub fn similar_to(&self, doc: usize) -> Vec<f32> {
        let mut scores = vec![0.0f32; self.len()];
        let (terms, weights) = self.doc(doc);
        self.accumulate(
            terms.iter().copied().zip(weights.iter().copied()),
            &mut scores,
        );
        scores
    }

    /// A paper outside the index as a TF-IDF vector of the index (ascending term ids): its terms
    /// by the index's analyzer ([`paper_terms`]), weighted by the index's own document
    /// frequencies as an indexed document is. Terms the index never saw, and those over the
    /// cap ([`MAX_DF`]), are left out, norm included: they say nothing about which indexed
    /// paper it is close to, so a paper full of new words is not pushed away from all of them.
    pub fn vector_of(&self, paper: &Paper) -> Vec<(u32, f32)> {
        let n = self.len();
        let mut found: Vec<(u32, f32, f32)> = paper_terms(paper)
            .into_iter()
            .filter_map(|(term, tf)| {
                let t = self.term_id(&term)?;
                let df = self.postings(t).0.len();
                (!over_cap(df, n)).then(|| (t as u32, tf, similarity_idf(df, n)))
            })
            .collect();
        found.sort_by_key(|&(t, _, _)| t);
        unit_tfidf(found.into_iter())
    }

    /// TF-IDF cosine of a paper outside the index ([`Lexical::vector_of`]) with every document,
    /// written into `scores` (one per document): a pass over its terms' postings, so the cost
    /// is those postings, not the index's size.
    pub fn similar_to_paper(&self, paper: &Paper, scores: &mut [f32]) {
        scores.iter_mut().for_each(|s| *s = 0.0);
        self.accumulate(self.vector_of(paper).into_iter(), scores);
    }

    /// Adds `w * weight` of every posting of each `(term, w)` to its document's score.
    fn accumulate(&self, vector: impl Iterator<Item = (u32, f32)>, scores: &mut [f32]) {
        for (t, w) in vector {
            let r = self.a.posting_offsets[t as usize] as usize
                ..self.a.posting_offsets[t as usize + 1] as usize;
            for (&d, &pw) in self.a.posting_docs[r.clone()]
                .iter()
                .zip(&self.a.posting_weights[r])
            {
                scores[d as usize] += w * pw;
            }
        }
    }

    /// TF-IDF cosine of documents `a` and `b`.
    pub fn pair(&self, a: usize, b: usize) -> f32 {
        let (terms, weights) = self.doc(a);
        terms
            .iter()
            .zip(weights)
            .map(|(&t, &w)| w * self.weight(b, t))
            .sum()
    }

    fn weight(&self, doc: usize, term: u32) -> f32 {
        let (terms, weights) = self.doc(doc);
        terms
            .binary_search(&term)
            .map(|i| weights[i])
            .unwrap_or(0.0)
    }

    /// The terms documents `a` and `b` share, most telling first (by product of weights).
    /// Terms that say nothing to a person ([`crate::text::is_telling`]) are skipped, and so
    /// are terms too common to single a pair out ([`CITED_MAX_DF`], on 20 papers or more).
    pub fn shared_terms(&self, a: usize, b: usize, max: usize) -> Vec<String> {
        let (terms, weights) = self.doc(a);
        let n = self.len();
        let specific = |t: u32| {
            n < MAX_DF_MIN_DOCS
                || self.postings(t as usize).0.len() as f32 <= CITED_MAX_DF * n as f32
        };
        let mut shared: Vec<(f32, &str)> = terms
            .iter()
            .zip(weights)
            .filter_map(|(&t, &w)| {
                let wb = self.weight(b, t);
                let term = self.term(t as usize);
                (wb > 0.0 && specific(t) && crate::text::is_telling(term)).then_some((w * wb, term))
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
/// A paper described only in Chinese (English title, Chinese notes: the shipped seeds' own form,
/// and a Chinese reader's list) also gets the glossary's English for its notes
/// ([`chinese_notes_in_english`]).
/// A paper's lexical terms as the index weighs them (title and alias terms
/// [`TITLE_WEIGHT`] each, summary and highlight terms 1, glossary English of Chinese notes
/// [`TRANSLATION_WEIGHT`]), each term once with its summed weight, sorted by term: what the
/// store's term table holds, so that other tools see the engine's own analysis.
pub fn paper_terms(p: &Paper) -> Vec<(String, f32)> {
    let mut terms = weighted_terms(p);
    terms.sort_by(|a, b| a.0.cmp(&b.0));
    let mut merged: Vec<(String, f32)> = Vec::with_capacity(terms.len());
    for (t, w) in terms {
        match merged.last_mut() {
            Some((lt, lw)) if *lt == t => *lw += w,
            _ => merged.push((t, w)),
        }
    }
    merged
}

fn weighted_terms(p: &Paper) -> Vec<(String, f32)> {
    let mut out: Vec<(String, f32)> = Vec::new();
    let mut names = p.title.clone();
    for a in &p.aliases {
        names.push(' ');
        names.push_str(a);
    }
    out.extend(terms(&names).into_iter().map(|t| (t, TITLE_WEIGHT)));
    for text in [&p.summary, &p.highlight] {
        out.extend(terms(text).into_iter().map(|t| (t, 1.0)));
    }
    out.extend(
        chinese_notes_in_english(p)
            .into_iter()
            .map(|t| (t, TRANSLATION_WEIGHT)),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn papers(titles: &[&str]) -> Vec<Paper> {
        titles
            .iter()
            .enumerate()
            .map(|(i, t)| Paper {
                id: format!("p{i}"),
                title: t.to_string(),
                ..Paper::default()
            })
            .collect()
    }

    #[test]
    fn a_query_that_spells_out_an_acronym_finds_the_paper_named_by_it() {
        let data = LexicalData::build(&papers(&[
            "GRPO",
            "DAPO: An Open-Source RL System",
            "Web agents trained online",
            "Chain of Thought prompting survey",
        ]));
        let lex = data.view();
        assert_eq!(lex.acronyms("group relative policy optimization"), ["grpo"]);
        // with the function word ("chain of thought") and without it
        assert!(
            lex.acronyms("chain of thought").is_empty(),
            "no CoT in the list"
        );
        // the query's own words and acronyms the list does not use are no acronyms
        assert!(lex.acronyms("grpo gr po").is_empty());
        // without the acronym, no word of the query is in the list
        let scores = lex.bm25("group relative policy optimization");
        assert!(
            scores[0] > 0.0 && scores[1..].iter().all(|&x| x == 0.0),
            "{scores:?}"
        );
    }

    #[test]
    fn chinese_notes_meet_english_titles_through_the_glossary() {
        let mut list = papers(&[
            "WebRL: Training Web Agents",
            "Project Falcon",
            "Project Osprey",
            "Geometry solver",
        ]);
        list[1].highlight = "用强化学习训练网页智能体".to_string();
        // English notes with a Chinese word: left as they are
        list[2].highlight = "A study of 网页 agents trained with curricula".to_string();
        let data = LexicalData::build(&list);
        let lex = data.view();
        // the notes' Chinese meets the first title's English only through the glossary
        assert!(lex.pair(0, 1) > 0.0, "网页 -> web");
        assert!(lex.shared_terms(0, 1, 5).contains(&"web".to_string()));
        assert!(chinese_notes_in_english(&list[1]).contains(&"web".to_string()));
        assert!(chinese_notes_in_english(&list[2]).is_empty());
        assert!(chinese_notes_in_english(&list[0]).is_empty());
        assert_eq!(lex.pair(1, 3), 0.0);
    }

    /// On a list described in both languages the glossary works both ways: a paper with
    /// English notes also gets their Chinese terms, and meets a paper whose Chinese notes share
    /// no English word with it. A list in one language is left as it is.
    #[test]
    fn on_a_list_in_two_languages_english_notes_meet_chinese_ones() {
        let mut list = papers(&[
            "Alpha", "Beta", "Gamma", "Delta", "Epsilon", "Zeta", "Eta", "Theta", "Iota", "Kappa",
        ]);
        for (i, p) in list.iter_mut().enumerate() {
            p.summary = if i < 5 {
                format!("第{i}篇：关于奖励模型的研究")
            } else {
                format!("study number {i} of reward models for agents")
            };
        }
        assert!(described_in_both_languages(&list));
        assert!(english_notes_in_chinese(&list[5]).contains(&"奖励模型".to_string()));
        assert!(english_notes_in_chinese(&list[0]).is_empty());
        let english_only: Vec<Paper> = list[5..].to_vec();
        assert!(!described_in_both_languages(&english_only));
        let both = LexicalData::build(&list);
        let one = LexicalData::build(&english_only);
        assert!(
            both.view()
                .shared_terms(5, 0, 5)
                .contains(&"奖励模型".to_string())
        );
        let shared = one.view().shared_terms(0, 1, 5);
        assert!(!shared.is_empty(), "the English notes share words");
        assert!(
            shared.iter().all(|t| !t.chars().any(crate::text::is_cjk)),
            "{shared:?}"
        );
    }

    #[test]
    fn the_best_match_share_is_high_when_the_query_words_meet_in_one_paper() {
        let data = LexicalData::build(&papers(&[
            "Reward models for web agents",
            "Solving geometry problems step by step",
            "Robot arm grasping from pixels",
            "Curriculum sampling of math problems",
        ]));
        let lex = data.view();
        // every word of the query is in the first title
        assert!((lex.best_match_share("web agents reward models") - 1.0).abs() < 1e-6);
        // words of the list, spread over different papers: no paper holds most of them
        let spread = lex.best_match_share("robot web geometry curriculum");
        assert!(spread > 0.0 && spread < 0.4, "{spread}");
        // words the list never uses carry no evidence either way
        assert_eq!(
            lex.best_match_share("robot arm quadruped locomotion"),
            lex.best_match_share("robot arm")
        );
        assert_eq!(lex.best_match_share("quadruped locomotion"), 0.0);
    }
}
