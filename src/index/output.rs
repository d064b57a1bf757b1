//! Where `recommend index` may write: never over its own corpus, never into it, and never over
//! a file that is not an index unless asked to.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::corpus::files::corpus_files;
use crate::safe_fs;

#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error(
        "refusing to write the index to {}: it is the corpus file {} being indexed; give \
         another --out (such as index.bin)",
        out.display(),
        corpus.display()
    )]
    OverCorpus { out: PathBuf, corpus: PathBuf },
    #[error(
        "refusing to write the index to {}: it would become part of the corpus directory {} \
         (every .jsonl file there is read as papers); give an --out outside it or not ending \
         in .jsonl",
        out.display(),
        dir.display()
    )]
    IntoCorpus { out: PathBuf, dir: PathBuf },
    #[error(
        "refusing to replace {}: it exists and is not a recommend index; give another --out, \
         or pass --force to replace it",
        out.display()
    )]
    NotAnIndex { out: PathBuf },
    #[error("cannot write the index to {}: {detail}", out.display())]
    Unwritable { out: PathBuf, detail: String },
    /// The folder takes no new file (read-only, full, a path through a file): the machine's
    /// state rather than a wrong argument, as for every other output that cannot be written.
    #[error("cannot write the index to {}: {detail}", out.display())]
    FolderRefuses { out: PathBuf, detail: String },
}

/// Whether two metadata describe the same file (device and inode), which also catches hard
/// links and paths through symlinks.
fn same_file(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        a.dev() == b.dev() && a.ino() == b.ino()
    }
    #[cfg(not(unix))]
    {
        let _ = (a, b);
        false
    }
}

/// Whether the folder `target` goes in (or, not made yet, the nearest folder above it that is)
/// takes a new file: tried with a temp file of ours, removed at once. A read-only place was
/// otherwise found only after every paper was embedded (12.9 s for 1,200 titles).
fn writable_folder(target: &Path) -> Result<(), String> {
    let mut dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    while !dir.exists() {
        match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => dir = p.to_path_buf(),
            _ => {
                dir = PathBuf::from(".");
                break;
            }
        }
    }
    tempfile::Builder::new()
        .prefix(&format!("{}{}.", safe_fs::TEMP_PREFIX, std::process::id()))
        .suffix(".tmp")
        .tempfile_in(&dir)
        .map(drop)
        .map_err(|e| {
            let plain = e.raw_os_error().map_or_else(
                || std::io::Error::from(e.kind()),
                std::io::Error::from_raw_os_error,
            );
            format!("cannot create a file in {}: {plain}", dir.display())
        })
}

/// Check that writing an index built from `corpus` to `out` loses nothing: `out` (followed
/// through symlinks, as the write will) is neither a corpus file (by canonical path and by file
/// identity) nor a `.jsonl` file inside a corpus directory, and, when it exists, it is a regular
/// file holding an index (any format version), unless `force`.
///
/// A corpus that cannot be read is not judged here: loading it reports that.
pub fn check_output(corpus: &Path, out: &Path, force: bool) -> Result<(), OutputError> {
    let unwritable = |detail: String| OutputError::Unwritable {
        out: out.to_path_buf(),
        detail,
    };
    let target = safe_fs::final_target(out).map_err(|e| unwritable(e.to_string()))?;
    let target_meta = fs::metadata(&target).ok();
    let target_canon = fs::canonicalize(&target).ok();
    if let Ok(files) = corpus_files(corpus) {
        for f in files {
            let same_path = target_canon.is_some() && fs::canonicalize(&f).ok() == target_canon;
            let same_inode = match (&target_meta, fs::metadata(&f)) {
                (Some(t), Ok(c)) => same_file(t, &c),
                _ => false,
            };
            if same_path || same_inode {
                return Err(OutputError::OverCorpus {
                    out: out.to_path_buf(),
                    corpus: f,
                });
            }
        }
    }
    if fs::metadata(corpus).is_ok_and(|m| m.is_dir()) {
        let parent = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let reads_it = target
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("jsonl"));
        if reads_it
            && let (Ok(a), Ok(b)) = (fs::canonicalize(parent), fs::canonicalize(corpus))
            && a == b
        {
            return Err(OutputError::IntoCorpus {
                out: out.to_path_buf(),
                dir: corpus.to_path_buf(),
            });
        }
    }
    writable_folder(&target).map_err(|detail| OutputError::FolderRefuses {
        out: out.to_path_buf(),
        detail,
    })?;
    let Some(meta) = target_meta else {
        return Ok(());
    };
    if meta.is_dir() {
        return Err(unwritable(
            "it is a directory; give a file name such as index.bin".into(),
        ));
    }
    // Only the magic bytes are read, from a regular file (a FIFO is refused, never opened).
    let (file, _) =
        safe_fs::open_regular(&target, u64::MAX).map_err(|e| unwritable(e.to_string()))?;
    let mut head = Vec::with_capacity(super::format::MAGIC.len());
    file.take(super::format::MAGIC.len() as u64)
        .read_to_end(&mut head)
        .map_err(|e| unwritable(e.to_string()))?;
    if head != super::format::MAGIC && !force {
        return Err(OutputError::NotAnIndex {
            out: out.to_path_buf(),
        });
    }
    Ok(())
}
