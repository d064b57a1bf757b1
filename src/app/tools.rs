//! Commands about the model and the measurements: `model`, `embed`, `bench`.

use std::path::Path;

use anyhow::Result;
use serde::Serialize;

use recommend::corpus::Corpus;
use recommend::model::{self, EmbedderOptions, Role};
use recommend::render::{Document, Format, col, wrap};
use recommend::session;

use super::{emit, format_of, model_dir, open_session, show, usage};
use crate::cli::{CommonArgs, ModelAction, RoleArg};

pub(super) fn model_cmd(common: &CommonArgs, action: ModelAction) -> Result<()> {
    let dir = model_dir(common);
    match action {
        ModelAction::Install { force } => {
            let opts = model::InstallOptions {
                force,
                ..model::InstallOptions::default()
            };
            model::install_with(&dir, &opts)?;
            eprintln!("model installed in {}", dir.display());
            Ok(())
        }
        ModelAction::Status { quick } => {
            let verify = if quick {
                model::Verify::Size
            } else {
                model::Verify::Full
            };
            let status = model::status_with(&dir, verify);
            emit(&format!("{}\n", serde_json::to_string_pretty(&status)?))
        }
    }
}

#[derive(Serialize)]
struct EmbedRecord<'a> {
    text: &'a str,
    embedding: &'a [f32],
}

pub(super) fn embed(common: &CommonArgs, role: RoleArg, texts: &[String]) -> Result<()> {
    let role = match role {
        RoleArg::Query => Role::Query,
        RoleArg::Passage => Role::Passage,
        RoleArg::Raw => Role::Raw,
    };
    let embedder = session::load_embedder(&model_dir(common), EmbedderOptions::default())?;
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let vecs = embedder.embed(&refs, role)?;
    let mut doc = Document::new(vec![wrap("text"), col("dim"), wrap("embedding")]);
    for (t, v) in texts.iter().zip(&vecs) {
        let head: Vec<String> = v.iter().take(6).map(|x| format!("{x:.4}")).collect();
        doc.push(
            vec![
                t.clone(),
                v.len().to_string(),
                format!("[{}, …]", head.join(", ")),
            ],
            &EmbedRecord {
                text: t,
                embedding: v,
            },
        );
    }
    show(common, &doc)
}

/// Where `recommend bench` looks for the judged development set by default.
const DEFAULT_JUDGMENTS: &str = "bench/judgments.jsonl";

/// Search queries from fields outside agentic RL, for the weak-match figures.
const OFFTOPIC_QUERIES: &str = "bench/offtopic-queries.txt";

/// Short search queries from fields outside agentic RL, for the weak-match figures.
const OFFTOPIC_SHORT_QUERIES: &str = "bench/offtopic-short-queries.txt";

/// Short search queries about the field, judged on the shipped list, for the weak-match
/// figures' false alarms on every list of the field.
const INFIELD_SHORT_QUERIES: &str = "bench/judgments-short-queries.jsonl";

/// The held-out judged set that goes with the development set at `dev`:
/// `bench/judgments.jsonl` -> `bench/judgments-heldout.jsonl`. Reported only when the
/// development set was found by default; `--judgments FILE` measures one set, the one named.
fn heldout_companion(dev: &Path) -> std::path::PathBuf {
    companion(dev, "heldout")
}

/// `bench/judgments.jsonl` -> `bench/judgments-<what>.jsonl`.
fn companion(set: &Path, what: &str) -> std::path::PathBuf {
    let stem = set.file_stem().unwrap_or_default().to_string_lossy();
    set.with_file_name(format!("{stem}-{what}.jsonl"))
}

/// `judged` with its second reader (`<set>-reader2.jsonl` beside the set) when that file
/// exists. A second reader that does not fit the index is an error: it was written for this
/// set, so a broken one must not go unnoticed as a missing figure.
fn with_second_reader(
    judged: recommend::bench::judged::Judged,
    index: &recommend::index::Index,
) -> Result<recommend::bench::judged::Judged> {
    let path = companion(&judged.source, "reader2");
    if !path.exists() {
        return Ok(judged);
    }
    let second = recommend::bench::judged::load(&path, index).map_err(usage)?;
    Ok(recommend::bench::judged::Judged {
        second: Some(Box::new(second)),
        ..judged
    })
}

pub(super) fn bench(
    common: &CommonArgs,
    corpus: Option<&Path>,
    quick: bool,
    judgments: Option<&Path>,
) -> Result<()> {
    use recommend::bench;
    let mut opts = bench::Options {
        quick,
        ..bench::Options::default()
    };
    // The model: required to build from a corpus; otherwise used when installed (installed on
    // demand unless --quick, which never downloads).
    let wants_model = !quick || model::status(&model_dir(common)).installed;
    let (built, session);
    let (index, embedder) = match corpus {
        Some(path) => {
            let e = session::load_embedder(&model_dir(common), EmbedderOptions::default())?;
            let c = Corpus::load(path)?;
            let (index, took) =
                bench::speed::build_index(c.papers, &path.display().to_string(), &e)?;
            opts.index_build = Some(took);
            built = (recommend::index::Searcher::new(index), e);
            (&built.0, Some(&built.1))
        }
        None => {
            let started = std::time::Instant::now();
            session = open_session(common)?;
            opts.index_load = Some(started.elapsed());
            let e = if wants_model {
                Some(session.embedder()?)
            } else {
                None
            };
            (session.searcher(), e)
        }
    };
    // An explicit judged set must fit the index; the default ones are used when they do: the
    // list's own (`bench/judgments-<corpus file stem>.jsonl`, for the imported lists), then
    // the shipped list's.
    opts.judgments = match judgments {
        Some(path) => Some(bench::judged::load(path, index).map_err(usage)?),
        None => {
            let own = corpus.and_then(|c| c.file_stem()).map(|stem| {
                Path::new("bench").join(format!("judgments-{}.jsonl", stem.to_string_lossy()))
            });
            own.into_iter()
                .chain(std::iter::once(Path::new(DEFAULT_JUDGMENTS).to_path_buf()))
                .find_map(|p| bench::judged::load(&p, index).ok().map(|j| (p, j)))
                .map(|(p, j)| {
                    // The set's held-out companion is reported beside it when it fits too.
                    opts.heldout = bench::judged::load(&heldout_companion(&p), index).ok();
                    j
                })
        }
    };
    opts.judgments = opts
        .judgments
        .take()
        .map(|j| with_second_reader(j, index))
        .transpose()?;
    opts.heldout = opts
        .heldout
        .take()
        .map(|j| with_second_reader(j, index))
        .transpose()?;
    opts.probes = weak_probes()?;
    let report = bench::run(index, embedder, &opts)?;
    let format = format_of(common, Format::Table);
    if format == Format::Json {
        return emit(&format!("{}\n", serde_json::to_string_pretty(&report)?));
    }
    for n in &report.notes {
        eprintln!("note: {n}");
    }
    emit(&bench::tables::render(&report, format))
}

/// The queries that put the weak-match note to the test, from the repository's `bench/` files
/// where they are (a clone has them; an installed binary measures the judged queries alone).
fn weak_probes() -> Result<recommend::bench::judged::WeakProbes> {
    // A line per query, '#' comments.
    let lines = |path: &str| -> Vec<String> {
        std::fs::read_to_string(path)
            .map(|text| {
                text.lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty() && !l.starts_with('#'))
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut infield = Vec::new();
    if let Ok(text) = std::fs::read_to_string(INFIELD_SHORT_QUERIES) {
        for (n, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            #[derive(serde::Deserialize)]
            struct Row {
                query: String,
                relevant: std::collections::BTreeMap<String, u8>,
            }
            let row: Row = serde_json::from_str(line)
                .map_err(|e| usage(format!("{INFIELD_SHORT_QUERIES}:{}: {e}", n + 1)))?;
            let ids = row.relevant.into_iter().filter(|&(_, g)| g >= 1);
            infield.push((row.query, ids.map(|(id, _)| id).collect()));
        }
    }
    Ok(recommend::bench::judged::WeakProbes {
        offtopic: lines(OFFTOPIC_QUERIES),
        offtopic_short: lines(OFFTOPIC_SHORT_QUERIES),
        infield_short: infield,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_held_out_set_sits_beside_the_development_set() {
        assert_eq!(
            heldout_companion(Path::new("bench/judgments.jsonl")),
            Path::new("bench/judgments-heldout.jsonl")
        );
        assert_eq!(
            heldout_companion(Path::new("bench/judgments-awesome-rl-ai-agents.jsonl")),
            Path::new("bench/judgments-awesome-rl-ai-agents-heldout.jsonl")
        );
        assert_eq!(
            companion(Path::new("bench/judgments-heldout.jsonl"), "reader2"),
            Path::new("bench/judgments-heldout-reader2.jsonl")
        );
    }
}
