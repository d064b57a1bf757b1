//! ONNX Runtime: the process-wide environment, the encoder session and its forward pass, and
//! the optimised graph written at install time.
//!
//! A cold query pays for the session. Created from `model.onnx` it parses 68 MB of protobuf,
//! copies every initializer (54 MB of them the 4-bit word embedding) and runs the graph
//! optimisers: ~0.2-0.4 s of CPU on the 2-core build machine. `model install` therefore also
//! writes `model.ort`, the same graph already optimised (level "extended": fusions that do not
//! depend on the CPU) in ONNX Runtime's own format. That file is mapped, not read, and its
//! initializers are used in place (`session.use_ort_model_bytes_for_initializers`): only the
//! pages a query touches are ever loaded (a handful of embedding rows), and the page cache is
//! shared by every process. Measured: session CPU about halved, peak RSS 206 -> 68 MiB.

use super::ModelError;
use ort::environment::Environment;
use ort::session::builder::{GraphOptimizationLevel, SessionBuilder};
use ort::session::{InMemorySession, Session};
use ort::value::Tensor;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

static ORT_ENV: OnceLock<Result<(Environment, PathBuf), String>> = OnceLock::new();

/// Load ONNX Runtime from `lib` once per process. Later calls reuse the first environment.
pub(crate) fn environment(lib: &Path) -> Result<Environment, ModelError> {
    let r = ORT_ENV.get_or_init(|| {
        if !lib.is_file() {
            return Err(format!(
                "ONNX Runtime library {} does not exist (install the model, or set RECOMMEND_ORT_LIB)",
                lib.display()
            ));
        }
        let builder = ort::init_from(lib)
            .map_err(|e| format!("cannot load ONNX Runtime from {}: {e}", lib.display()))?;
        let env = builder
            .with_name("recommend")
            .with_telemetry(false)
            .build()
            .map_err(|e| format!("cannot create the ONNX Runtime environment: {e}"))?;
        Ok((env, lib.to_path_buf()))
    });
    match r {
        Ok((env, _)) => Ok(env.clone()),
        Err(e) => Err(ModelError::Runtime(e.clone())),
    }
}

fn rt_err(e: impl std::fmt::Display) -> ModelError {
    ModelError::Runtime(e.to_string())
}

fn builder(
    env: &Environment,
    threads: usize,
    level: GraphOptimizationLevel,
) -> Result<SessionBuilder, ModelError> {
    Session::builder(env)
        .map_err(rt_err)?
        .with_optimization_level(level)
        .map_err(rt_err)?
        .with_intra_threads(threads.max(1))
        .map_err(rt_err)
}

/// Optimise `onnx` and write the result in ORT format to `out` (overwritten if present).
/// ONNX Runtime writes `out` itself: callers write to a temporary name and rename.
pub(crate) fn write_optimized(
    env: &Environment,
    onnx: &Path,
    out: &Path,
) -> Result<(), ModelError> {
    let mut b = builder(env, 1, GraphOptimizationLevel::Level2)?
        .with_config_entry("session.save_model_format", "ORT")
        .map_err(rt_err)?
        .with_optimized_model_path(out)
        .map_err(rt_err)?;
    let bytes = std::fs::read(onnx).map_err(|e| ModelError::io(onnx, e))?;
    b.commit_from_memory(&bytes).map_err(rt_err)?;
    Ok(())
}

/// An ORT-format session whose initializers live in the mapped file.
struct MappedSession {
    // Declared before `_map`: dropped first, while the bytes it points into are still mapped.
    session: InMemorySession<'static>,
    _map: memmap2::Mmap,
}

enum Held {
    Owned(Session),
    Mapped(MappedSession),
}

/// Which file the session was created from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionSource {
    /// `model.ort`, mapped.
    Optimized,
    /// `model.onnx`, optimised while loading.
    Onnx,
}

/// The encoder: token ids in, L2-normalised mean-pooled vectors out.
pub(crate) struct Encoder {
    held: Held,
    pad_id: u32,
}

impl Encoder {
    /// A session from the optimised graph `ort` when given and loadable, else from `onnx`
    /// (an unreadable or incompatible `model.ort` is not an error: the model still works).
    pub(crate) fn open(
        env: &Environment,
        onnx: &Path,
        ort: Option<&Path>,
        threads: usize,
        pad_id: u32,
    ) -> Result<(Encoder, SessionSource), ModelError> {
        if let Some(path) = ort
            && let Ok(mapped) = open_mapped(env, path, threads)
        {
            let enc = Encoder {
                held: Held::Mapped(mapped),
                pad_id,
            };
            return Ok((enc, SessionSource::Optimized));
        }
        let bytes = std::fs::read(onnx).map_err(|e| ModelError::io(onnx, e))?;
        let session = builder(env, threads, GraphOptimizationLevel::Level3)?
            .commit_from_memory(&bytes)
            .map_err(rt_err)?;
        let enc = Encoder {
            held: Held::Owned(session),
            pad_id,
        };
        Ok((enc, SessionSource::Onnx))
    }

    /// One forward pass over a batch of token-id sequences (padded here to the longest).
    pub(crate) fn embed(&mut self, batch: &[Vec<u32>]) -> Result<Vec<Vec<f32>>, ModelError> {
        let b = batch.len();
        let s = batch.iter().map(Vec::len).max().unwrap_or(0);
        if b == 0 || s == 0 {
            return Err(ModelError::InvalidInput("empty batch".into()));
        }
        let mut ids = vec![self.pad_id as i64; b * s];
        let mut mask = vec![0i64; b * s];
        for (r, seq) in batch.iter().enumerate() {
            for (c, &t) in seq.iter().enumerate() {
                ids[r * s + c] = t as i64;
                mask[r * s + c] = 1;
            }
        }
        let types = vec![0i64; b * s];
        let tensor = |v: Vec<i64>| Tensor::from_array(([b, s], v)).map_err(rt_err);
        let inputs = ort::inputs![
            "input_ids" => tensor(ids)?,
            "attention_mask" => tensor(mask.clone())?,
            "token_type_ids" => tensor(types)?,
        ];
        let outputs = match &mut self.held {
            Held::Owned(session) => session.run(inputs),
            Held::Mapped(m) => m.session.run(inputs),
        }
        .map_err(rt_err)?;
        let (shape, hidden) = outputs["last_hidden_state"]
            .try_extract_tensor::<f32>()
            .map_err(rt_err)?;
        let dim = super::DIM;
        if shape.len() != 3 || shape[0] as usize != b || shape[1] as usize != s {
            return Err(ModelError::Runtime(format!(
                "model returned shape {shape:?} for a {b} x {s} batch"
            )));
        }
        if shape[2] as usize != dim {
            return Err(ModelError::Runtime(format!(
                "model returned a {}-d vector, expected {dim}",
                shape[2]
            )));
        }
        Ok((0..b).map(|r| pool(hidden, &mask, r, s, dim)).collect())
    }
}

/// Attention-masked mean of row `r`'s token vectors, L2-normalised.
fn pool(hidden: &[f32], mask: &[i64], r: usize, s: usize, dim: usize) -> Vec<f32> {
    let mut sum = vec![0f32; dim];
    let mut n = 0f32;
    for c in 0..s {
        if mask[r * s + c] == 0 {
            continue;
        }
        n += 1.0;
        let row = &hidden[(r * s + c) * dim..(r * s + c + 1) * dim];
        for (a, x) in sum.iter_mut().zip(row) {
            *a += x;
        }
    }
    let n = n.max(1e-9);
    sum.iter_mut().for_each(|a| *a /= n);
    let norm = sum.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
    sum.iter_mut().for_each(|a| *a /= norm);
    sum
}

fn open_mapped(
    env: &Environment,
    path: &Path,
    threads: usize,
) -> Result<MappedSession, ModelError> {
    let (file, _) =
        crate::safe_fs::open_regular(path, 1 << 32).map_err(|e| ModelError::io(path, e))?;
    // SAFETY: the map is read-only; model files are only ever replaced by rename
    // (`write_atomic`), which leaves a mapped inode intact. A process truncating the file in
    // place could still fault us, as for `index.bin`; no recommend command does that.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| ModelError::io(path, e))?;
    // SAFETY (lifetime): the slice points into the mapping, which does not move when the
    // `Mmap` value moves and stays mapped until `_map` drops, after `session` (field order).
    let bytes: &'static [u8] = unsafe { std::slice::from_raw_parts(map.as_ptr(), map.len()) };
    let session = builder(env, threads, GraphOptimizationLevel::Disable)?
        .with_config_entry("session.use_ort_model_bytes_for_initializers", "1")
        .map_err(rt_err)?
        .commit_from_memory_directly(bytes)
        .map_err(rt_err)?;
    Ok(MappedSession { session, _map: map })
}
