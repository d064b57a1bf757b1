//! The optimised graph, `model.ort`: `model.onnx` after ONNX Runtime's graph optimisations,
//! saved in ONNX Runtime's own format (see [`crate::model::runtime`]; through fastembed it no
//! longer starts a query faster: BENCHMARKS.md, Speed and scale). It is generated on the
//! user's machine, by the installed ONNX Runtime, at `model install`, and recorded in the
//! manifest with its size and SHA-256 like every other file. It is optional: when it is
//! missing, damaged or unloadable the model loads from `model.onnx`, and the next check writes
//! it again.

use super::super::onnx::Variant;
use super::super::{ModelError, files, runtime};
use super::install::lock_dir;
use super::paths::ort_lib_override;
use super::verify::{
    ManifestFile, Verdict, Verify, check_files, read_manifest, sha256_file, write_atomic,
};
use std::fs;
use std::path::{Path, PathBuf};

pub(super) fn path(dir: &Path) -> PathBuf {
    dir.join(files::OPTIMIZED)
}

/// Whether a check found the optimised graph listed and intact.
pub(super) fn verified(verdicts: &[Verdict]) -> bool {
    verdicts
        .iter()
        .any(|(name, v)| name == files::OPTIMIZED && v.is_ok())
}

/// Write the optimised graph again (under the install lock); `None` when that fails (a
/// read-only model directory, an ONNX Runtime that cannot save the format): the caller then
/// loads `model.onnx`.
pub(super) fn regenerate(dir: &Path, variant: Variant) -> Option<PathBuf> {
    let _lock = lock_dir(dir).ok()?;
    // Another process may have written it while we waited for the lock.
    if let Ok(v) = check_files(dir, variant, Verify::Cached)
        && verified(&v)
    {
        return Some(path(dir));
    }
    regenerate_locked(dir, variant).ok()
}

/// [`regenerate`] for a caller that holds the install lock and has written the manifest.
pub(super) fn regenerate_locked(dir: &Path, variant: Variant) -> Result<PathBuf, ModelError> {
    let lib = ort_lib_override().unwrap_or_else(|| dir.join(files::ORT_LIB));
    let env = runtime::environment(&lib)?;
    let dest = path(dir);
    // A damaged file leaves the manifest first, so that no crash below can leave it trusted.
    let mut manifest = read_manifest(dir).map_err(|e| ModelError::NotInstalled {
        dir: dir.to_path_buf(),
        reason: e,
    })?;
    if manifest.files.iter().any(|f| f.name == files::OPTIMIZED) {
        manifest.files.retain(|f| f.name != files::OPTIMIZED);
        write_manifest(dir, &manifest)?;
    }
    // ONNX Runtime writes the file itself: into a registered temporary folder (removed on any
    // exit), then renamed into place.
    let (tmp, _guard) =
        crate::safe_fs::temp_dir_in(dir, "optimize").map_err(|e| ModelError::io(dir, e))?;
    let out = tmp.path().join(files::OPTIMIZED);
    runtime::write_optimized(&env, &dir.join(files::ONNX), &out)?;
    fs::File::open(&out)
        .and_then(|f| f.sync_all())
        .map_err(|e| ModelError::io(&out, e))?;
    let (sha256, size) = sha256_file(&out)?;
    fs::rename(&out, &dest).map_err(|e| ModelError::io(&dest, e))?;
    manifest.files.push(ManifestFile {
        name: files::OPTIMIZED.into(),
        size,
        sha256,
        source: format!("{} optimised by ONNX Runtime (ORT format)", files::ONNX),
    });
    write_manifest(dir, &manifest)?;
    // Record its stamp, so that loads trust it until it changes.
    let _ = check_files(dir, variant, Verify::Cached);
    Ok(dest)
}

fn write_manifest(dir: &Path, manifest: &super::verify::Manifest) -> Result<(), ModelError> {
    let json =
        serde_json::to_vec_pretty(manifest).map_err(|e| ModelError::InvalidInput(e.to_string()))?;
    write_atomic(dir, files::MANIFEST, &json)?;
    Ok(())
}
