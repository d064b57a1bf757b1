//! ONNX Runtime: the process-wide environment (shared with fastembed, which creates the encoder
//! session) and the optimised graph written at install time.
//!
//! A cold query pays for the session. Created from `model.onnx` it parses 68 MB of protobuf and
//! runs the graph optimisers: ~0.2-0.4 s of CPU on the 2-core build machine. `model install`
//! therefore also writes `model.ort`, the same graph already optimised (level "extended":
//! fusions that do not depend on the CPU) in ONNX Runtime's own format. For queries the embedder
//! maps it and creates its session over the mapping with the weights left in place
//! ([`super::encoder::MappedEncoder`]); handed to fastembed as a byte buffer, which fastembed
//! drops, the runtime must copy the graph and every initializer, and the session takes about
//! three times as long (BENCHMARKS.md, Speed and scale): fine for embedding a corpus, not for
//! a query.

use super::ModelError;
use ort::environment::Environment;
use ort::session::Session;
use ort::session::builder::GraphOptimizationLevel;
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
        // ONNX Runtime's warnings and errors as it prints them by default, except while a
        // signal ends the process: a batch cut short then logged a kernel error after
        // "interrupted" (a blind probe).
        let logger: ort::logging::LoggerFunction = std::sync::Arc::new(
            |level: ort::logging::LogLevel, _category: &str, _id: &str, at: &str, message: &str| {
                use ort::logging::LogLevel::{Error, Fatal, Warning};
                // The graph optimizer's notice that it dropped an unused weight is no warning
                // to a user: it came twice on every first run after an install.
                let benign = level == Warning && message.starts_with("Removing initializer");
                if matches!(level, Warning | Error | Fatal) && !benign && !crate::safe_fs::ending() {
                    eprintln!("onnxruntime ({level:?}, {at}): {message}");
                }
            },
        );
        let env = builder
            .with_name("recommend")
            .with_logger(logger)
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

/// Optimise `onnx` and write the result in ORT format to `out` (overwritten if present).
/// ONNX Runtime writes `out` itself: callers write to a temporary name and rename.
pub(crate) fn write_optimized(
    env: &Environment,
    onnx: &Path,
    out: &Path,
) -> Result<(), ModelError> {
    let mut b = Session::builder(env)
        .map_err(rt_err)?
        .with_optimization_level(GraphOptimizationLevel::Level2)
        .map_err(rt_err)?
        .with_intra_threads(1)
        .map_err(rt_err)?
        .with_config_entry("session.save_model_format", "ORT")
        .map_err(rt_err)?
        .with_optimized_model_path(out)
        .map_err(rt_err)?;
    let bytes = std::fs::read(onnx).map_err(|e| ModelError::io(onnx, e))?;
    b.commit_from_memory(&bytes).map_err(rt_err)?;
    Ok(())
}
