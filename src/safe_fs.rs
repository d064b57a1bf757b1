//! File access that cannot hang, exhaust memory or leave debris behind.
//!
//! * Reading: only regular files are opened ([`read_regular`], [`open_regular`]), and their size
//!   is checked against a limit before a byte is read. A FIFO, a character device
//!   (`/dev/zero`, `/dev/urandom`), a socket or a directory is refused by its metadata, which
//!   never blocks; the file is then opened with `O_NONBLOCK` and checked again on the open
//!   handle, so swapping a FIFO in between cannot hang the reader either.
//! * Writing: [`write_atomic`] writes a temp file beside the target, syncs it and renames it over
//!   the target. A symlinked target is written through (the link's final target is replaced,
//!   not the link), and a directory target is refused with a plain message.
//! * Leftovers: every temp file or folder this crate creates is named
//!   `.recommend.<pid>.<...>` and registered ([`TempGuard`]) while it exists. The binary's signal
//!   handler calls [`cleanup_registered`] on SIGINT/SIGTERM/SIGHUP; for SIGKILL, which no
//!   handler sees, the next write into the same folder removes temp entries whose process is
//!   gone ([`sweep_stale`]).
//! * Child processes (pip) are registered too ([`ChildGuard`]) and killed, with their whole
//!   process group, by [`cleanup_registered`].

use std::fs::{self, File, Metadata};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Prefix of every temp file and folder we create; followed by `<pid>.`.
pub const TEMP_PREFIX: &str = ".recommend.";

/// Largest corpus file read (JSONL or Markdown), in bytes: a 100k-paper corpus is ~30 MB.
pub const MAX_CORPUS_FILE: u64 = 1 << 30;
/// Largest index file opened, in bytes: 100k papers take ~250 MB.
pub const MAX_INDEX_FILE: u64 = 16 << 30;
/// Largest query file (`--like-file`, `search --queries`), in bytes.
pub const MAX_QUERY_FILE: u64 = 64 << 20;

fn describe(ft: &fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if ft.is_char_device() {
            return "a character device";
        }
        if ft.is_block_device() {
            return "a block device";
        }
        if ft.is_socket() {
            return "a socket";
        }
    }
    if ft.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

fn check_meta(meta: &Metadata, limit: u64) -> io::Result<()> {
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("it is {}, not a regular file", describe(&meta.file_type())),
        ));
    }
    if meta.len() > limit {
        return Err(too_large(meta.len(), limit));
    }
    Ok(())
}

fn too_large(len: u64, limit: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::FileTooLarge,
        format!("it holds {len} bytes, more than the limit of {limit}"),
    )
}

/// Metadata of `path` (following symlinks) if it is a regular file of at most `limit` bytes.
/// Never opens the file, so never blocks.
pub fn check_regular(path: &Path, limit: u64) -> io::Result<Metadata> {
    let meta = fs::metadata(path)?;
    check_meta(&meta, limit)?;
    Ok(meta)
}

/// Open `path` for reading if it is a regular file of at most `limit` bytes; the check is made
/// before opening (no blocking on a FIFO) and again on the open handle.
pub fn open_regular(path: &Path, limit: u64) -> io::Result<(File, u64)> {
    check_regular(path, limit)?;
    let mut opts = fs::OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = opts.open(path)?;
    let meta = file.metadata()?;
    check_meta(&meta, limit)?;
    Ok((file, meta.len()))
}

/// The bytes of the regular file `path`, refusing anything larger than `limit` (also when the
/// file grows while it is read).
pub fn read_regular(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let (file, len) = open_regular(path, limit)?;
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(bytes.len() as u64, limit));
    }
    Ok(bytes)
}

/// Follow `path` through symlinks to the entry a write should replace (the path itself when it
/// is not a link). A dangling link yields its (missing) target, so the write creates it.
pub fn final_target(path: &Path) -> io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let t = fs::read_link(&p)?;
                p = if t.is_absolute() {
                    t
                } else {
                    parent_dir(&p).join(t)
                };
            }
            _ => return Ok(p),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        "too many levels of symbolic links",
    ))
}

fn parent_dir(p: &Path) -> &Path {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Write `bytes` to `path` atomically: a registered temp file in the target's folder, fsync,
/// rename. A crash or kill leaves the old file or the new one, never a mix; a symlink is
/// written through; a directory or other non-regular target is refused. Stale temp files of
/// dead processes in that folder are removed first.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let target = final_target(path)?;
    let mut mode = 0o644;
    match fs::metadata(&target) {
        Ok(m) if m.is_dir() => {
            return Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                "it is a directory; give a file name",
            ));
        }
        Ok(m) if !m.is_file() => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("it is {}, not a regular file", describe(&m.file_type())),
            ));
        }
        Ok(_m) => {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                mode = _m.permissions().mode() & 0o7777;
            }
        }
        Err(_) => {}
    }
    let dir = parent_dir(&target);
    fs::create_dir_all(dir)?;
    sweep_stale(dir);
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!("{TEMP_PREFIX}{}.", std::process::id()))
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(|e| {
            // tempfile's error names the random temporary file; the folder is what to fix.
            let plain = e
                .raw_os_error()
                .map_or_else(|| io::Error::from(e.kind()), io::Error::from_raw_os_error);
            io::Error::new(
                e.kind(),
                format!("cannot create a file in {}: {plain}", dir.display()),
            )
        })?;
    let _guard = TempGuard::new(tmp.path());
    let (head, tail) = bytes.split_at(bytes.len() / 2);
    tmp.write_all(head)?;
    test_pause();
    tmp.write_all(tail)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // tempfile creates 0600; keep the replaced file's mode, else ordinary shared data.
        let _ = tmp
            .as_file()
            .set_permissions(fs::Permissions::from_mode(mode));
    }
    let _ = mode;
    tmp.as_file().sync_all()?;
    tmp.persist(&target).map_err(|e| e.error)?;
    Ok(())
}

/// Test hook: `RECOMMEND_TEST_WRITE_PAUSE_MS` holds every atomic write half-written for that
/// long, so that the interruption tests can signal a process while its temp file exists (a
/// real write is over in milliseconds). Unset, it costs one environment lookup per write.
fn test_pause() {
    if let Some(ms) = std::env::var("RECOMMEND_TEST_WRITE_PAUSE_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
}

/// A temp folder in `dir`, named and registered like the temp files (removed when dropped, on
/// SIGINT/SIGTERM, or by a later [`sweep_stale`] after SIGKILL).
pub fn temp_dir_in(dir: &Path, what: &str) -> io::Result<(tempfile::TempDir, TempGuard)> {
    sweep_stale(dir);
    let t = tempfile::Builder::new()
        .prefix(&format!("{TEMP_PREFIX}{}.{what}.", std::process::id()))
        .tempdir_in(dir)?;
    let guard = TempGuard::new(t.path());
    Ok((t, guard))
}

/// The process id a temp entry name of ours carries.
fn owner_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(TEMP_PREFIX)?;
    let pid = rest.split('.').next()?;
    pid.parse().ok()
}

fn process_alive(pid: u32) -> bool {
    #[cfg(unix)]
    {
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            return false;
        };
        // SAFETY: kill with signal 0 only checks that the process exists.
        let r = unsafe { libc::kill(pid, 0) };
        r == 0 || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
    }
}

/// Remove the temp files and folders of ours in `dir` whose process no longer runs (left by a
/// SIGKILL or a power cut). Returns how many were removed; errors are ignored (best effort).
pub fn sweep_stale(dir: &Path) -> usize {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    let me = std::process::id();
    let mut removed = 0;
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(owner_pid) else {
            continue;
        };
        if pid == me || process_alive(pid) {
            continue;
        }
        if remove_entry(&e.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

fn remove_entry(p: &Path) -> io::Result<()> {
    match fs::symlink_metadata(p) {
        Ok(m) if m.is_dir() => fs::remove_dir_all(p),
        Ok(_) => fs::remove_file(p),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

#[derive(Default)]
struct Registry {
    next: u64,
    paths: Vec<(u64, PathBuf)>,
    children: Vec<(u64, u32)>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    next: 0,
    paths: Vec::new(),
    children: Vec::new(),
});

fn registry() -> std::sync::MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

/// Keeps a temp path registered for removal on interruption; unregisters when dropped (by then
/// the path was renamed into place or removed by its owner).
pub struct TempGuard(u64);

impl TempGuard {
    pub fn new(path: &Path) -> TempGuard {
        let mut r = registry();
        r.next += 1;
        let id = r.next;
        r.paths.push((id, path.to_path_buf()));
        TempGuard(id)
    }
}

impl Drop for TempGuard {
    fn drop(&mut self) {
        registry().paths.retain(|(id, _)| *id != self.0);
    }
}

/// Keeps a child process registered for killing on interruption.
pub struct ChildGuard(u64);

impl ChildGuard {
    /// Register `pid`, which must lead its own process group (spawned with
    /// `process_group(0)`), so that its own children die with it.
    pub fn new(pid: u32) -> ChildGuard {
        let mut r = registry();
        r.next += 1;
        let id = r.next;
        r.children.push((id, pid));
        ChildGuard(id)
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        registry().children.retain(|(id, _)| *id != self.0);
    }
}

/// Set once the process is being ended by a signal ([`cleanup_registered`]): work still running
/// on other threads (an ONNX Runtime batch) fails as the process exits, and says nothing.
static ENDING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether a signal is ending the process.
pub fn ending() -> bool {
    ENDING.load(std::sync::atomic::Ordering::SeqCst)
}

/// Kill the registered children (their process groups) and remove the registered temp paths;
/// returns how many of each. Called by the binary's signal handler before it exits; safe to
/// call from any thread.
pub fn cleanup_registered() -> (usize, usize) {
    ENDING.store(true, std::sync::atomic::Ordering::SeqCst);
    let (children, paths) = {
        let r = registry();
        (
            r.children.iter().map(|c| c.1).collect::<Vec<_>>(),
            r.paths.iter().map(|p| p.1.clone()).collect::<Vec<_>>(),
        )
    };
    #[cfg(unix)]
    for &pid in &children {
        if let Ok(pid) = libc::pid_t::try_from(pid) {
            // SAFETY: plain signal delivery to a process group we created.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
                libc::kill(pid, libc::SIGKILL);
            }
        }
    }
    // A killed child may still be finishing a system call in a folder we remove: wait for it
    // to become a zombie (or vanish) first, briefly.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    while children.iter().any(|&pid| running(pid)) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    for p in &paths {
        if remove_entry(p).is_err() {
            std::thread::sleep(std::time::Duration::from_millis(50));
            let _ = remove_entry(p);
        }
    }
    (children.len(), paths.len())
}

/// Whether `pid` is still executing (not a zombie, not gone).
fn running(pid: u32) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(s) => s
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X"),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_within_the_limit_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.txt");
        fs::write(&f, b"hello").unwrap();
        assert_eq!(read_regular(&f, 5).unwrap(), b"hello");
        let e = read_regular(&f, 4).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::FileTooLarge, "{e}");
        let e = read_regular(dir.path(), 100).unwrap_err();
        assert!(e.to_string().contains("directory"), "{e}");
        let e = read_regular(Path::new("/dev/zero"), 100).unwrap_err();
        assert!(e.to_string().contains("character device"), "{e}");
    }

    #[test]
    fn stale_temp_names_carry_their_pid() {
        assert_eq!(owner_pid(".recommend.123.abc.tmp"), Some(123));
        assert_eq!(owner_pid(".recommend.x.tmp"), None);
        assert_eq!(owner_pid("index.bin"), None);
        let dir = tempfile::tempdir().unwrap();
        // A pid that cannot be running (beyond pid_max), and our own.
        let dead = dir.path().join(".recommend.4194305.x.tmp");
        let mine = dir
            .path()
            .join(format!(".recommend.{}.y.tmp", std::process::id()));
        fs::write(&dead, b"x").unwrap();
        fs::write(&mine, b"y").unwrap();
        fs::create_dir(dir.path().join(".recommend.4194306.download.z")).unwrap();
        assert_eq!(sweep_stale(dir.path()), 2);
        assert!(!dead.exists());
        assert!(mine.exists());
    }

    #[test]
    fn atomic_writes_go_through_symlinks_and_refuse_directories() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("real.html");
        fs::write(&target, b"old").unwrap();
        let link = dir.path().join("link.html");
        std::os::unix::fs::symlink("real.html", &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read(&target).unwrap(), b"new");
        let e = write_atomic(dir.path(), b"x").unwrap_err();
        assert!(e.to_string().contains("directory"), "{e}");
        let mut names: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["link.html", "real.html"]);
    }
}
