//! Decides, once per change of the PostgreSQL install, whether the store tests can run here:
//! they can when the binaries are where `scripts/setup.sh` unpacks them (or `$RECOMMEND_PG_BIN`
//! names them). The answer is a cfg of this small crate, not of `recommend`, so installing
//! PostgreSQL recompiles this crate and the test crate, never the library (which the README's
//! first command has already built).

use std::path::{Path, PathBuf};

fn main() {
    for var in [
        "RECOMMEND_PG_BIN",
        "RECOMMEND_PG_HOME",
        "XDG_CACHE_HOME",
        "HOME",
    ] {
        println!("cargo::rerun-if-env-changed={var}");
    }
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rustc-check-cfg=cfg(postgres_installed)");
    let (bin, watch) = locate();
    // A watched path that does not exist would rerun this script, and recompile the test crate,
    // on every build; a folder that exists is scanned, so an install inside it is seen.
    if let Some(watch) = watch.filter(|w| w.is_dir()) {
        println!("cargo::rerun-if-changed={}", watch.display());
    }
    match bin {
        Some(bin) if bin.join("postgres").is_file() && bin.join("initdb").is_file() => {
            println!("cargo::rustc-cfg=postgres_installed");
        }
        _ => println!(
            "cargo::warning=store tests skipped: no PostgreSQL (run scripts/setup.sh, which \
             installs it on x86_64 Linux, or set RECOMMEND_PG_BIN to a PostgreSQL 16 bin folder \
             with pgvector)"
        ),
    }
}

/// The PostgreSQL bin folder the tests use (as `tests/support/pg.rs` finds it), and the folder
/// whose changes mean an install came or went.
fn locate() -> (Option<PathBuf>, Option<PathBuf>) {
    if let Some(bin) = std::env::var_os("RECOMMEND_PG_BIN") {
        let bin = PathBuf::from(bin);
        return (Some(bin.clone()), Some(bin));
    }
    let home = match std::env::var_os("RECOMMEND_PG_HOME") {
        Some(home) => PathBuf::from(home),
        None => {
            let cache = std::env::var_os("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")));
            match cache {
                Some(cache) => cache.join("recommend").join("pgserver"),
                None => return (None, None),
            }
        }
    };
    // setup.sh moves a complete install into `home` in one rename, inside this parent: created
    // here so that it can be watched before the first install.
    let parent = home.parent().map(Path::to_path_buf);
    if let Some(parent) = &parent {
        let _ = std::fs::create_dir_all(parent);
    }
    (
        Some(home.join("pgserver").join("pginstall").join("bin")),
        parent,
    )
}
