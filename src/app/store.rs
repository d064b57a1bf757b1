//! `recommend push --to URL`, and the sessions of `--store URL`.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result};

use recommend::session::Session;
use recommend::store::{Snapshot, Store};

use crate::cli::CommonArgs;

/// Connections a one-shot command keeps: its query, and pgvector's candidates beside it.
const COMMAND_CONNECTIONS: u32 = 2;

/// `push`: the index of `--index` (opened as queries open it, so a stale or damaged index is
/// refused before anything is written) into the store at `to`.
pub fn push(common: &CommonArgs, to: &str) -> Result<()> {
    // The same policy as every query: missing, damaged, stale or of another analyzer: refused.
    Session::open(&common.index, super::model_dir(common))?;
    let bytes = recommend::safe_fs::read_regular(&common.index, recommend::safe_fs::MAX_INDEX_FILE)
        .with_context(|| format!("cannot read {}", common.index.display()))?;
    let store = Store::connect(to, COMMAND_CONNECTIONS)?;
    let mut last = 0;
    let report = recommend::store::push(&store, &bytes, &mut |done, total| {
        if done - last >= 5_000 || done == total {
            eprintln!("push: {done} of {total} new or changed papers written");
            last = done;
        }
    })?;
    if report.published {
        eprintln!(
            "pushed {} to {}: version {}, {} papers ({} written, {} unchanged, {} removed)",
            common.index.display(),
            store.target(),
            report.version,
            report.papers,
            report.written,
            report.unchanged,
            report.removed
        );
        if let Some((factor, recall)) = report.beam {
            eprintln!(
                "vector search calibrated: pgvector's beam at {factor}x what a query asks, \
                 recall@10 {recall:.3} against the exact scan on sampled papers"
            );
        }
        if report.nearest > 0 {
            eprintln!(
                "stored the nearest papers of each of the {} papers: a `like` reads its seed's by key",
                report.nearest
            );
        }
    } else {
        eprintln!(
            "{} already holds {} (version {}, {} papers): nothing to write",
            store.target(),
            common.index.display(),
            report.version,
            report.papers
        );
    }
    Ok(())
}

/// The session of `--store URL`: its published version, in memory.
pub fn open_session(common: &CommonArgs, url: &str) -> Result<Session> {
    let store = Arc::new(Store::connect(url, COMMAND_CONNECTIONS)?);
    let snapshot = Snapshot::load(&store)?;
    Ok(Session::from_index(
        snapshot.index,
        PathBuf::from(store.target().to_string()),
        super::model_dir(common),
    ))
}
