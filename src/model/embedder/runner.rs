//! What runs the model: our session over the memory-mapped `model.ort`, or fastembed's
//! `TextEmbedding` over the bytes of `model.ort` or `model.onnx`, and how either is opened.
//! Apart from the embedder's batching so that the two runtimes meet behind one enum.

use std::path::Path;

use fastembed::{
    InitOptionsUserDefined, OutputKey, Pooling, TextEmbedding, TokenizerFiles,
    UserDefinedEmbeddingModel,
};
use ort::environment::Environment;
use tokenizers::Tokenizer;

use super::super::encoder::{Hidden, MappedEncoder};
use super::super::provision::ModelFiles;
use super::super::{ModelError, convert};
use super::EmbedderOptions;

/// What runs the model: our session over the mapped `model.ort`, or fastembed's.
pub(super) enum Runner {
    Mapped {
        encoder: MappedEncoder,
        tokenizer: Tokenizer,
    },
    Fastembed(TextEmbedding),
}

impl Runner {
    pub(super) fn tokenizer(&self) -> &Tokenizer {
        match self {
            Runner::Mapped { tokenizer, .. } => tokenizer,
            Runner::Fastembed(te) => &te.tokenizer,
        }
    }

    pub(super) fn tokenizer_mut(&mut self) -> &mut Tokenizer {
        match self {
            Runner::Mapped { tokenizer, .. } => tokenizer,
            Runner::Fastembed(te) => &mut te.tokenizer,
        }
    }

    /// One vector per text of `batch` (tokenized together, padded to the longest).
    pub(super) fn embed(&mut self, batch: &[&str]) -> Result<Vec<Vec<f32>>, ModelError> {
        match self {
            Runner::Mapped { encoder, tokenizer } => encoder.embed(tokenizer, batch),
            Runner::Fastembed(te) => te.embed(batch, Some(batch.len())).map_err(fe_err),
        }
    }
}

impl Runner {
    /// The token ids, attention mask and `last_hidden_state` of `batch` (tokenized together,
    /// padded to the longest); `None` for an empty batch.
    pub(super) fn hidden(&mut self, batch: &[&str]) -> Result<Option<Hidden>, ModelError> {
        match self {
            Runner::Mapped { encoder, tokenizer } => encoder.hidden(tokenizer, batch),
            Runner::Fastembed(te) => {
                if batch.is_empty() {
                    return Ok(None);
                }
                let encodings = te
                    .tokenizer
                    .encode_batch(batch.to_vec(), true)
                    .map_err(|e| ModelError::Tokenizer(e.to_string()))?;
                let len = encodings.first().map_or(0, |e| e.len());
                let flat: Vec<i64> = encodings
                    .iter()
                    .flat_map(|e| e.get_ids().iter().map(|&x| i64::from(x)))
                    .collect();
                let ids =
                    ndarray::Array2::from_shape_vec((batch.len(), len), flat).map_err(|_| {
                        ModelError::Tokenizer("texts of a batch were not padded".into())
                    })?;
                let out = te
                    .transform(batch, Some(batch.len()))
                    .map_err(fe_err)?
                    .into_raw();
                let [one] = &out[..] else {
                    return Err(ModelError::Runtime("expected one batch of outputs".into()));
                };
                let hidden = one
                    .select_output(&&[OutputKey::ByName("last_hidden_state")][..])
                    .map_err(fe_err)?
                    .into_dimensionality::<ndarray::Ix3>()
                    .map_err(|_| {
                        ModelError::Runtime(
                            "last_hidden_state is not [batch, sequence, hidden]".into(),
                        )
                    })?
                    .to_owned();
                let mask = one.attention_mask_array.clone();
                if hidden.dim().0 != ids.dim().0
                    || hidden.dim().1 != ids.dim().1
                    || mask.dim() != ids.dim()
                {
                    return Err(ModelError::Runtime(
                        "last_hidden_state does not match the batch".into(),
                    ));
                }
                Ok(Some((ids, mask, hidden)))
            }
        }
    }
}

/// Read a model file (tens of MB) into a buffer backed by transparent huge pages where the
/// kernel offers them: faulting the buffer in 4 KiB pages was ~10% of a cold `search`'s CPU,
/// on the path to the first result.
pub(super) fn read(path: &Path) -> Result<Vec<u8>, ModelError> {
    use std::io::Read;
    let io = |e| ModelError::io(path, e);
    let mut file = std::fs::File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len() as usize;
    let mut buf: Vec<u8> = Vec::with_capacity(len + 1);
    advise_huge_pages(buf.as_mut_ptr(), buf.capacity());
    file.read_to_end(&mut buf).map_err(io)?;
    Ok(buf)
}

/// Ask for transparent huge pages over the whole 2 MiB pages inside `[ptr, ptr + len)`.
/// Advice only: the memory stays an ordinary allocation, and failure changes nothing.
fn advise_huge_pages(ptr: *mut u8, len: usize) {
    const HUGE: usize = 2 << 20;
    let start = (ptr as usize).next_multiple_of(HUGE);
    let end = (ptr as usize + len) & !(HUGE - 1);
    if end > start {
        // SAFETY: the range lies inside the caller's live allocation; MADV_HUGEPAGE changes
        // how the kernel backs it, never its contents or validity.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

/// A trivial tokenizer that lets fastembed build its `TextEmbedding` at once; the real one
/// (full, or reduced per call) replaces it before any use.
fn placeholder_tokenizer() -> TokenizerFiles {
    TokenizerFiles {
        tokenizer_file: br#"{"version":"1.0","truncation":null,"padding":null,"added_tokens":[],
            "normalizer":null,"pre_tokenizer":{"type":"Whitespace"},"post_processor":null,
            "decoder":null,"model":{"type":"WordLevel","unk_token":"<unk>",
            "vocab":{"<s>":0,"<pad>":1,"</s>":2,"<unk>":3}}}"#
            .to_vec(),
        config_file: br#"{"pad_token_id":1}"#.to_vec(),
        special_tokens_map_file: b"{}".to_vec(),
        tokenizer_config_file: br#"{"model_max_length":512,"pad_token":"<pad>"}"#.to_vec(),
    }
}

fn fe_err(e: fastembed::Error) -> ModelError {
    ModelError::Runtime(e.to_string())
}

/// fastembed's `TextEmbedding` over `graph` (the bytes of `model.ort` or `model.onnx`: ONNX
/// Runtime recognises either format from memory). fastembed drops `graph` once the session
/// exists; ONNX Runtime keeps its own copy (no option to use the bytes in place is set).
fn text_embedding(
    env: &Environment,
    graph: Vec<u8>,
    threads: usize,
    spin_threads: bool,
) -> Result<TextEmbedding, ModelError> {
    let mut init = InitOptionsUserDefined::new()
        .with_environment(env.clone())
        .with_max_length(convert::MAX_LENGTH)
        .with_intra_threads(threads.max(1));
    if !spin_threads {
        init = init.with_session_config("session.intra_op.allow_spinning", "0");
    }
    let model =
        UserDefinedEmbeddingModel::new(graph, placeholder_tokenizer()).with_pooling(Pooling::Mean);
    TextEmbedding::try_new_from_user_defined(model, init).map_err(fe_err)
}

/// The session from the optimised graph when the install has a loadable one (an unreadable or
/// incompatible `model.ort` is not an error: the model still works), else from `model.onnx`.
/// `true` when it came from `model.ort`.
pub(super) fn open_session(
    env: &Environment,
    files: &ModelFiles,
    threads: usize,
    options: &EmbedderOptions,
) -> Result<(Runner, bool), ModelError> {
    let spin = options.spin_threads;
    if options.in_place
        && let Some(path) = &files.optimized
        && let Ok(encoder) = MappedEncoder::open(env, path, threads, spin)
    {
        let tokenizer = Tokenizer::from_bytes(placeholder_tokenizer().tokenizer_file)
            .map_err(|e| ModelError::Tokenizer(e.to_string()))?;
        return Ok((Runner::Mapped { encoder, tokenizer }, true));
    }
    let open = |bytes| text_embedding(env, bytes, threads, spin);
    if let Some(path) = &files.optimized
        && let Ok(te) = read(path).and_then(open)
    {
        return Ok((Runner::Fastembed(te), true));
    }
    Ok((Runner::Fastembed(open(read(&files.onnx)?)?), false))
}
