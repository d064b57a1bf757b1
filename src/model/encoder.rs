//! The encoder run in place over the memory-mapped `model.ort`: what a cold query waits for.
//!
//! fastembed creates its ONNX Runtime session from a byte buffer that it owns and drops, so the
//! runtime must copy the graph and then every initializer out of it, into memory the kernel
//! has to fault in and zero first: measured on the 2-core build machine, 280-360 ms for the
//! session from a buffer against 85-120 ms for one over a mapping of `model.ort` whose
//! initializers stay in place (`session.use_ort_model_bytes_directly` and
//! `session.use_ort_model_bytes_for_initializers`; BENCHMARKS.md, Speed and scale). Those
//! options require the bytes to outlive the session, which only a session we own can
//! guarantee: [`MappedEncoder`] keeps the mapping beside the session and drops it after.
//! Inputs, outputs and pooling are fastembed's (padded `input_ids`, `attention_mask`,
//! `token_type_ids`; the attention-masked mean of `last_hidden_state`, L2-normalized), so both
//! paths give the same vectors; fastembed runs the model where start-up does not matter
//! (embedding a corpus) and whenever the install has no loadable `model.ort`.

use std::path::Path;

use memmap2::Mmap;
use ndarray::{Array2, Array3, Axis};
use ort::environment::Environment;
use ort::session::Session;
use ort::session::builder::GraphOptimizationLevel;
use ort::value::TensorRef;
use tokenizers::Tokenizer;

use super::ModelError;

/// A batch's token ids and attention mask (`[batch, sequence]`, padded) and its
/// `last_hidden_state` (`[batch, sequence, hidden]`).
pub(crate) type Hidden = (Array2<i64>, Array2<i64>, Array3<f32>);

/// An ONNX Runtime session reading its graph and weights from a mapping of `model.ort`.
pub(crate) struct MappedEncoder {
    // Field order is drop order: the session goes before the bytes it reads.
    session: Session,
    _bytes: Mmap,
}

fn rt_err(e: impl std::fmt::Display) -> ModelError {
    ModelError::Runtime(e.to_string())
}

impl MappedEncoder {
    /// Map `path` (an ORT-format graph written by `model install`) and create the session over
    /// it, with the options fastembed uses (all graph optimizations, `threads` intra-op
    /// threads, spinning as `spin_threads` says).
    pub(crate) fn open(
        env: &Environment,
        path: &Path,
        threads: usize,
        spin_threads: bool,
    ) -> Result<MappedEncoder, ModelError> {
        let file = std::fs::File::open(path).map_err(|e| ModelError::io(path, e))?;
        // SAFETY: `model install` replaces `model.ort` only by renaming a complete new file
        // over it, never by writing into it, so the mapped file never changes under us (a
        // replaced file stays mapped until we drop it).
        let bytes = unsafe { Mmap::map(&file) }.map_err(|e| ModelError::io(path, e))?;
        let mut builder = Session::builder(env)
            .map_err(rt_err)?
            .with_optimization_level(GraphOptimizationLevel::Level3)
            .map_err(rt_err)?
            .with_intra_threads(threads.max(1))
            .map_err(rt_err)?
            .with_config_entry("session.use_ort_model_bytes_directly", "1")
            .map_err(rt_err)?
            .with_config_entry("session.use_ort_model_bytes_for_initializers", "1")
            .map_err(rt_err)?;
        if !spin_threads {
            builder = builder
                .with_config_entry("session.intra_op.allow_spinning", "0")
                .map_err(rt_err)?;
        }
        // The session borrows `bytes` for its whole life (the options above); both live in
        // the returned value, and the session is dropped first.
        let session = builder.commit_from_memory(&bytes).map_err(rt_err)?;
        Ok(MappedEncoder {
            session,
            _bytes: bytes,
        })
    }

    /// The token ids and attention mask (`[batch, sequence]`, padded) and `last_hidden_state`
    /// (`[batch, sequence, hidden]`) of `batch`, tokenized by `tokenizer`; `None` for an empty
    /// batch.
    pub(crate) fn hidden(
        &mut self,
        tokenizer: &Tokenizer,
        batch: &[&str],
    ) -> Result<Option<Hidden>, ModelError> {
        let encodings = tokenizer
            .encode_batch(batch.to_vec(), true)
            .map_err(|e| ModelError::Tokenizer(e.to_string()))?;
        let Some(len) = encodings.first().map(|e| e.len()) else {
            return Ok(None);
        };
        let shape = (encodings.len(), len);
        let column = |f: &dyn Fn(&tokenizers::Encoding) -> &[u32]| {
            let flat: Vec<i64> = encodings
                .iter()
                .flat_map(|e| f(e).iter().map(|&x| i64::from(x)))
                .collect();
            Array2::from_shape_vec(shape, flat)
                .map_err(|_| ModelError::Tokenizer("texts of a batch were not padded".into()))
        };
        let ids = column(&|e| e.get_ids())?;
        let mask = column(&|e| e.get_attention_mask())?;
        let types = column(&|e| e.get_type_ids())?;
        let outputs = self
            .session
            .run(ort::inputs![
                "input_ids" => TensorRef::from_array_view(&ids).map_err(rt_err)?,
                "attention_mask" => TensorRef::from_array_view(&mask).map_err(rt_err)?,
                "token_type_ids" => TensorRef::from_array_view(&types).map_err(rt_err)?,
            ])
            .map_err(rt_err)?;
        let hidden = outputs
            .get("last_hidden_state")
            .ok_or_else(|| rt_err("the model has no last_hidden_state output"))?
            .try_extract_array::<f32>()
            .map_err(rt_err)?;
        let hidden = hidden
            .into_dimensionality::<ndarray::Ix3>()
            .map_err(|_| rt_err("last_hidden_state is not [batch, sequence, hidden]"))?;
        if hidden.dim().0 != shape.0 || hidden.dim().1 != shape.1 {
            return Err(rt_err("last_hidden_state does not match the batch"));
        }
        Ok(Some((ids, mask, hidden.to_owned())))
    }

    /// One L2-normalized vector per text of `batch`, tokenized by `tokenizer` (which pads to
    /// the longest text of the batch).
    pub(crate) fn embed(
        &mut self,
        tokenizer: &Tokenizer,
        batch: &[&str],
    ) -> Result<Vec<Vec<f32>>, ModelError> {
        let Some((_, mask, hidden)) = self.hidden(tokenizer, batch)? else {
            return Ok(Vec::new());
        };
        mean_pool(&mask, &hidden)
    }
}

/// fastembed's mean pooling, operation for operation: mask, sum over the sequence, divide by
/// the count of real tokens; then its normalization. One L2-normalized vector per row.
pub(crate) fn mean_pool(
    mask: &Array2<i64>,
    hidden: &Array3<f32>,
) -> Result<Vec<Vec<f32>>, ModelError> {
    let weights = mask
        .view()
        .insert_axis(Axis(2))
        .broadcast(hidden.dim())
        .ok_or_else(|| rt_err("cannot broadcast the attention mask"))?
        .mapv(|x| x as f32);
    let sum = (&weights * hidden).sum_axis(Axis(1));
    let count = weights
        .sum_axis(Axis(1))
        .mapv(|x| if x == 0.0 { 1.0 } else { x });
    let mean = &sum / &count;
    Ok(mean
        .rows()
        .into_iter()
        .map(|row| {
            let norm = row.iter().map(|v| v * v).sum::<f32>().sqrt();
            row.iter().map(|&v| v / (norm + 1e-12)).collect()
        })
        .collect())
}
