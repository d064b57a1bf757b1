//! `recommend model status`: what is installed and whether each file still verifies.

use super::super::files;
use super::super::onnx::Variant;
use super::paths::ort_lib_override;
use super::pins::{PACKAGES, PinnedPackage};
use super::verify::{CheckError, Verify, check_files, first_damage, read_manifest};
use serde::Serialize;
use std::fs;
use std::path::{Path, PathBuf};

/// What `recommend model status` shows.
#[derive(Debug, Clone, Serialize)]
pub struct ModelStatus {
    pub dir: PathBuf,
    pub installed: bool,
    /// Why the model is not usable, when it is not.
    pub problem: Option<String>,
    pub model_id: Option<String>,
    pub variant: Option<Variant>,
    pub packages: Vec<PinnedPackage>,
    pub files: Vec<FileStatus>,
    /// The ONNX Runtime library that will be loaded, and whether it comes from an override.
    pub ort_lib: PathBuf,
    pub ort_lib_overridden: bool,
    pub total_bytes: u64,
    /// How the files were checked: `sha256` (every byte hashed), `sha256-cached` (hashed unless
    /// unchanged since the last hash) or `size`.
    pub checked: Verify,
}

/// One file in [`ModelStatus`].
#[derive(Debug, Clone, Serialize)]
pub struct FileStatus {
    pub name: String,
    pub path: PathBuf,
    pub present: bool,
    pub size: u64,
    /// The SHA-256 recorded at install time.
    pub sha256: Option<String>,
    pub source: Option<String>,
    /// Whether the file passed the check named by [`ModelStatus::checked`].
    pub ok: bool,
}

/// Report what is installed in `model_dir`, hashing files that changed since they were last
/// hashed ([`Verify::Cached`]).
pub fn status(model_dir: &Path) -> ModelStatus {
    status_with(model_dir, Verify::Cached)
}

/// Report what is installed in `model_dir`, checking every file as `verify` says.
pub fn status_with(model_dir: &Path, verify: Verify) -> ModelStatus {
    let manifest = read_manifest(model_dir);
    let (ort_lib, overridden) = match ort_lib_override() {
        Some(p) => (p, true),
        None => (model_dir.join(files::ORT_LIB), false),
    };
    let mut st = ModelStatus {
        dir: model_dir.to_path_buf(),
        installed: false,
        problem: None,
        model_id: None,
        variant: None,
        packages: PACKAGES.to_vec(),
        files: Vec::new(),
        ort_lib,
        ort_lib_overridden: overridden,
        total_bytes: 0,
        checked: verify,
    };
    match manifest {
        Err(e) => st.problem = Some(format!("not installed ({e})")),
        Ok(m) => {
            st.model_id = Some(m.model_id.clone());
            st.variant = Some(m.variant);
            let verdicts = check_files(model_dir, m.variant, verify);
            for f in &m.files {
                let path = model_dir.join(&f.name);
                let size = fs::metadata(&path).map(|md| md.len()).ok();
                st.total_bytes += size.unwrap_or(0);
                let ok = verdicts
                    .as_ref()
                    .is_ok_and(|v| v.iter().any(|(n, verdict)| n == &f.name && verdict.is_ok()));
                st.files.push(FileStatus {
                    name: f.name.clone(),
                    path,
                    present: size.is_some(),
                    size: size.unwrap_or(0),
                    sha256: Some(f.sha256.clone()),
                    source: Some(f.source.clone()),
                    ok,
                });
            }
            match verdicts.and_then(|v| first_damage(model_dir, &v)) {
                Ok(()) => st.installed = true,
                Err(e @ CheckError::Damaged { .. }) => {
                    st.problem = Some(format!(
                        "{e}; repair it with `recommend model install --force`"
                    ))
                }
                Err(e) => st.problem = Some(e.to_string()),
            }
        }
    }
    st
}
