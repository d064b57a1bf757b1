//! Interruption: SIGINT, SIGTERM and SIGHUP end the process cleanly instead of abruptly.
//!
//! A watcher thread waits for the signals; on one it kills the child processes we started
//! (pip, with its process group) and removes the temp files and folders of unfinished writes
//! (both registered by [`recommend::safe_fs`]), then exits with 128 + the signal number, as a
//! shell expects. An index or model file being replaced keeps its old content: the rename
//! never happened.

use std::sync::atomic::{AtomicBool, Ordering};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};

/// Set when a signal arrived: its handler is cleaning up and will end the process.
static RECEIVED: AtomicBool = AtomicBool::new(false);
use signal_hook::iterator::Signals;

/// Start watching; best effort (without it, interruption still never corrupts a file, it only
/// leaves a temp file for the next run to remove).
pub fn install() {
    let Ok(mut signals) = Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    let spawned = std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            if let Some(sig) = signals.forever().next() {
                RECEIVED.store(true, Ordering::SeqCst);
                let (children, paths) = recommend::safe_fs::cleanup_registered();
                let name = match sig {
                    SIGINT => "interrupted",
                    SIGTERM => "terminated",
                    _ => "hung up",
                };
                if children + paths > 0 {
                    eprintln!(
                        "{name}: stopped {children} child process(es), removed {paths} unfinished \
                         file(s); no existing file was replaced"
                    );
                } else {
                    eprintln!("{name}");
                }
                std::process::exit(128 + sig);
            }
        });
    let _ = spawned;
}

/// Called when the command returns: if a signal arrived meanwhile (killing pip makes the
/// install fail, for instance), let its handler finish the cleanup and set the exit code
/// instead of reporting that consequence as an error.
pub fn settle() {
    if RECEIVED.load(Ordering::SeqCst) {
        loop {
            std::thread::park();
        }
    }
}
