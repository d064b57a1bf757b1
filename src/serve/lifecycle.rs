//! The life of a server process: its runtime and listener, the model warmed on a thread of
//! its own, and a clean stop on SIGINT or SIGTERM at any moment.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result};
use axum::Router;

use super::guard;

/// glibc gives each thread that allocates under contention an arena of its own (up to 8 per
/// core) and rarely returns their memory: under 32 concurrent clients the server grew by 40%
/// and never shrank. Two arenas keep it within ~10% of its warmed-up size (benches/serve_load.py)
/// at no measurable cost in latency: the threads mostly wait on the model, not on malloc.
fn bound_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; called before the runtime starts its
    // threads.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
}

/// What both servers (an index file, `--store`) do once their state exists: a small runtime,
/// the listener on `addr`, the model loaded by `warm` on a thread of its own (so the first
/// search does not wait for it), the routes of `app` until SIGINT or SIGTERM. `describe` says
/// what is served, after "listening on ... (".
///
/// Requests run on the blocking pool (CPU work), at most `max_blocking` threads. Tokio's default
/// of up to 512 threads buys nothing on a few cores (searches share one model) and each thread
/// can pin memory of its own: a small pool answers as fast and keeps the server's memory flat
/// under load.
pub(super) fn listen_and_serve(
    addr: SocketAddr,
    max_blocking: usize,
    app: Router,
    warm: impl FnOnce() -> Result<(), String> + Send + 'static,
    describe: String,
) -> Result<()> {
    bound_malloc_arenas();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(max_blocking)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .with_context(|| format!("cannot listen on {addr}; pick another --addr HOST:PORT"))?;
        let local = listener
            .local_addr()
            .context("cannot read the bound address")?;
        // Whether the warm-up has ended, and whether the server is stopping: a model still
        // loading when the process exits would have ONNX Runtime torn down under it (a probe's
        // SIGTERM right after start: a segfault, or a "repair the install" warning).
        let warm_state = std::sync::Arc::new((AtomicBool::new(false), AtomicBool::new(false)));
        let warming = std::sync::Arc::clone(&warm_state);
        std::thread::spawn(move || {
            let result = warm();
            if let Err(e) = result
                && !warming.1.load(Ordering::SeqCst)
            {
                eprintln!(
                    "warning: the model is unavailable ({e}); dense and hybrid search answer \
                     503, everything else works"
                );
            }
            warming.0.store(true, Ordering::SeqCst);
        });
        if !local.ip().is_loopback() {
            eprintln!(
                "warning: listening on {local}, which is not loopback: anyone who can reach \
                 this machine can query the index"
            );
        }
        let stop = shutdown_signal();
        eprintln!("recommend serve: listening on http://{local}/ ({describe}); Ctrl-C stops");
        axum::serve(guard::GuardedListener(listener), app)
            .with_graceful_shutdown(stop)
            .await
            .context("the server failed")?;
        warm_state.1.store(true, Ordering::SeqCst);
        eprintln!("recommend serve: stopped");
        if !warm_state.0.load(Ordering::SeqCst) {
            // Leave without running exit handlers, which would free what the loading thread
            // still uses; nothing of the server's is left to write.
            use std::io::Write;
            let _ = std::io::stdout().flush();
            let _ = std::io::stderr().flush();
            // SAFETY: `_exit` ends the process at once; no Rust state is observed after it.
            unsafe { libc::_exit(0) };
        }
        Ok(())
    })
}

/// The end of serving: SIGINT or SIGTERM. The handlers are installed when this is called, not
/// when the future first runs, so a signal sent as soon as the server says it listens is caught
/// (it killed the process outright before).
fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    let (int, term) = {
        use tokio::signal::unix::{SignalKind, signal};
        (
            signal(SignalKind::interrupt()).ok(),
            signal(SignalKind::terminate()).ok(),
        )
    };
    async move {
        #[cfg(unix)]
        {
            let wait = |s: Option<tokio::signal::unix::Signal>| async move {
                match s {
                    Some(mut s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                () = wait(int) => {},
                () = wait(term) => {},
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
