//! Commands that write an index: `index` (from a corpus) and `add` (more papers to the corpus
//! of an index). Both reuse the vectors of unchanged papers and embed only the rest.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use recommend::corpus::{Corpus, Format as CorpusFormat, LoadOptions};
use recommend::index::{CorpusRead, CorpusSource, Index, Reuse};
use recommend::model;
use recommend::pipeline::{Builder, Model, Progress, Step};

use super::{model_dir, usage};
use crate::cli::{CommonArgs, CorpusFormatArg, ReadArgs};

pub(super) fn load_options(read: ReadArgs) -> LoadOptions {
    LoadOptions {
        format: read.corpus_format.map(|f| match f {
            CorpusFormatArg::Jsonl => CorpusFormat::Jsonl,
            CorpusFormatArg::Json => CorpusFormat::Json,
            CorpusFormatArg::Bib => CorpusFormat::Bibtex,
            CorpusFormatArg::Ris => CorpusFormat::Ris,
            CorpusFormatArg::Csv => CorpusFormat::Csv,
            CorpusFormatArg::Tsv => CorpusFormat::Tsv,
            CorpusFormatArg::Md => CorpusFormat::Markdown,
        }),
        strict: read.strict,
        collection: read.collection,
        ..LoadOptions::default()
    }
}

/// Load a corpus, printing its warnings (what was left out) to stderr.
pub(super) fn load_corpus(paths: &[PathBuf], options: &LoadOptions) -> Result<Corpus> {
    // `--corpus` defaults to the checkout's `corpus` folder: elsewhere, say what to give.
    if paths == [PathBuf::from("corpus")] && !Path::new("corpus").exists() {
        return Err(usage(
            "no --corpus given, and no `corpus` folder here: name your list with --corpus PATH \
             (a .bib, .ris, .csv, .json or .md file, a Zotero library with --zotero, or a folder)",
        ));
    }
    let corpus = Corpus::load_with(paths, options)?;
    for w in &corpus.warnings {
        eprintln!("warning: {w}");
    }
    for n in &corpus.notes {
        eprintln!("note: {n}");
    }
    Ok(corpus)
}

/// Build `out` from the corpus at `paths`, reusing the vectors of unchanged papers from the
/// index at `previous` (if it loads and was built with the same model); the model is loaded
/// only when something needs embedding. Writes atomically: on any error `out` is untouched.
fn index_corpus(
    common: &CommonArgs,
    paths: &[PathBuf],
    corpus: Corpus,
    read: &CorpusRead,
    previous: Option<&Path>,
    out: &Path,
) -> Result<(usize, Reuse)> {
    let mut recorded = Vec::new();
    for p in paths {
        let s = corpus_source(p, out);
        if s.contains('\n') {
            return Err(usage(format!(
                "{s:?}: a corpus path with a line break cannot be recorded in an index"
            )));
        }
        recorded.push(s);
    }
    let source = CorpusSource {
        path: recorded.join("\n"),
        fingerprint: recommend::corpus::fingerprint_all(paths).ok(),
    };
    let previous = match previous.filter(|p| p.exists()) {
        Some(p) => match Index::load(p) {
            Ok(i) => Some(i),
            Err(e) => {
                eprintln!("note: embedding every paper: the previous index cannot be reused ({e})");
                None
            }
        },
        None => None,
    };
    let dir = model_dir(common);
    let files = model::ensure_installed(&dir)
        .with_context(|| format!("cannot install the model into {}", dir.display()))?;
    let n = corpus.papers.len();
    let mut bar: Option<indicatif::ProgressBar> = None;
    let (index, reuse) = Builder::new(Model::Files(&files))
        .progress(|p| match p {
            Progress::Start(step, len) => {
                let what = match step {
                    Step::Embedding => "embedding",
                    Step::ReadingTokens => {
                        eprintln!(
                            "reading the tokens of {len} papers (described papers: once per change of the list)"
                        );
                        "reading tokens"
                    }
                };
                bar = Some(progress_bar(what, len));
            }
            Progress::At(done) => {
                if let Some(b) = &bar {
                    b.set_position(done as u64);
                }
            }
            Progress::End => {
                if let Some(b) = bar.take() {
                    b.finish_and_clear();
                }
            }
        })
        .build(corpus.papers, source, previous)?;
    let index = index.with_corpus_read(read)?;
    index.save(out)?;
    let index = recommend::index::Searcher::new(index);
    eprintln!(
        "{}",
        recommend::engine::plan::of(&index).summary().trim_end()
    );
    Ok((n, reuse))
}

/// A progress bar on stderr for `len` texts, drawn only on a terminal and for more than a few.
fn progress_bar(what: &str, len: usize) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    let target = if std::io::stderr().is_terminal() && len > recommend::pipeline::EMBED_CHUNK / 8 {
        indicatif::ProgressDrawTarget::stderr()
    } else {
        indicatif::ProgressDrawTarget::hidden()
    };
    let pb = indicatif::ProgressBar::with_draw_target(Some(len as u64), target);
    if let Ok(style) = indicatif::ProgressStyle::with_template(&format!(
        "{what} [{{elapsed}}] [{{bar:30}}] {{pos}}/{{len}} ({{per_sec}}, {{eta}} left)"
    )) {
        pb.set_style(style.progress_chars("=> "));
    }
    pb
}

pub(super) fn build_index(
    common: &CommonArgs,
    corpus_paths: &[PathBuf],
    out: Option<&Path>,
    force: bool,
    fetch_abstracts: bool,
    read: ReadArgs,
) -> Result<()> {
    let out = out.unwrap_or(&common.index);
    // Before anything loads: a refused --out should cost nothing.
    for path in corpus_paths {
        // Refusals are the user's choice of --out (exit 2); a folder that takes no file is the
        // machine's state, as for every other output (exit 1).
        recommend::index::check_output(path, out, force).map_err(|e| match e {
            recommend::index::OutputError::FolderRefuses { .. } => anyhow::anyhow!(e.to_string()),
            _ => usage(e.to_string()),
        })?;
    }
    let options = load_options(read);
    let mut corpus = load_corpus(corpus_paths, &options)?;
    with_abstracts(&mut corpus, out, fetch_abstracts)?;
    let started = std::time::Instant::now();
    let read = CorpusRead::of(&options, corpus_paths);
    let (n, reuse) = index_corpus(common, corpus_paths, corpus, &read, Some(out), out)?;
    eprintln!(
        "indexed {n} papers from {} into {} in {:.1} s ({} embedded, {} vectors reused)",
        corpus_paths
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
        out.display(),
        started.elapsed().as_secs_f64(),
        reuse.embedded,
        reuse.reused
    );
    Ok(())
}

/// The corpus to build from: as given, except that the default `corpus` folder, when there is
/// none here, stands for the corpus the index being rebuilt records (a list grown by `add`, a
/// list kept elsewhere), read as it was read then. Anything else is left to the build's own
/// errors, which name the missing path.
pub(super) fn recorded_when_default(
    common: &CommonArgs,
    corpus: Vec<PathBuf>,
    out: Option<&Path>,
    read: &ReadArgs,
) -> Vec<PathBuf> {
    let default = corpus.len() == 1 && corpus[0] == Path::new("corpus");
    if !default || corpus[0].exists() || read.collection.is_some() || read.corpus_format.is_some() {
        return corpus;
    }
    let out = out.unwrap_or(&common.index);
    let Ok(index) = recommend::index::Index::load(out) else {
        return corpus;
    };
    let recorded = index.recorded_corpora();
    if recorded.is_empty()
        || index.corpus_read() != CorpusRead::default()
        || !recorded.iter().all(|p| p.exists())
    {
        return corpus;
    }
    eprintln!(
        "note: no corpus folder here: rebuilding {} from the corpus it records ({})",
        out.display(),
        recorded
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    recorded
}

/// `recommend add FILE`: the index's corpus plus FILE, re-indexed with every vector reused
/// but those of the new papers.
pub(super) fn add(
    common: &CommonArgs,
    files: &[PathBuf],
    fetch_abstracts: bool,
    read: ReadArgs,
) -> Result<()> {
    let out = &common.index;
    if !out.exists() {
        return Err(usage(format!(
            "no index at {}: build one first with `recommend index --corpus PATH --out {}`",
            out.display(),
            out.display()
        )));
    }
    let index = Index::load(out)?;
    let mut paths = index.recorded_corpora();
    // The recorded corpus is read as its build read it (its collection, each path's format);
    // a `--corpus-format` given here is for the files added.
    let recorded = index.corpus_read().load_options(&paths);
    drop(index);
    let mut options = load_options(read);
    options.collection = options.collection.or(recorded.collection);
    options.formats = recorded.formats;
    if let Some(f) = options.format.take() {
        options.formats.extend(files.iter().map(|p| (p.clone(), f)));
    }
    let same = |a: &Path, b: &Path| {
        std::fs::canonicalize(a)
            .ok()
            .zip(std::fs::canonicalize(b).ok())
            .is_some_and(|(x, y)| x == y)
    };
    for f in files {
        if !f.exists() {
            return Err(usage(format!("{}: no such file or directory", f.display())));
        }
        if paths.iter().any(|p| same(p, f)) {
            return Err(usage(format!(
                "{} is already part of the corpus of {}",
                f.display(),
                out.display()
            )));
        }
        paths.push(f.clone());
    }
    let before = Corpus::load_with(&paths[..paths.len() - files.len()], &options)
        .map(|c| c.papers.len())
        .ok();
    let mut corpus = load_corpus(&paths, &options)?;
    with_abstracts(&mut corpus, out, fetch_abstracts)?;
    let started = std::time::Instant::now();
    let read = CorpusRead::of(&options, &paths);
    let (n, reuse) = index_corpus(common, &paths, corpus, &read, Some(out), out)?;
    let added = before.map_or(String::new(), |b| {
        format!("papers added: {}, ", n.saturating_sub(b))
    });
    eprintln!(
        "{}: {added}{n} in all; {} embedded, {} vectors reused, in {:.1} s",
        out.display(),
        reuse.embedded,
        reuse.reused,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Describe the papers of `corpus` by the arXiv abstracts cached beside the index at `out`,
/// fetching the missing ones first when `fetch` (`--abstracts`). Without `fetch` and without a
/// cache this does nothing: a build never goes online unasked.
fn with_abstracts(corpus: &mut Corpus, out: &Path, fetch: bool) -> Result<()> {
    use recommend::corpus::abstracts::{AbstractCache, AbstractsError, cache_path};
    let path = cache_path(out);
    if !fetch && !path.exists() {
        if let Some(bare) = recommend::corpus::abstracts::worth_fetching(&corpus.papers) {
            eprintln!(
                "note: {bare} of {} papers have an arXiv id and no summary; `--abstracts` \
                 describes them by their arXiv abstracts (fetched once, then kept offline)",
                corpus.papers.len()
            );
        }
        return Ok(());
    }
    let mut cache = AbstractCache::open(&path).map_err(|e| match e {
        AbstractsError::Format { .. } => usage(e.to_string()),
        other => other.into(),
    })?;
    if fetch {
        let with_id = corpus.papers.iter().filter(|p| p.arxiv.is_some()).count();
        if with_id == 0 {
            eprintln!(
                "note: --abstracts: no paper has an arXiv id (an `arxiv` field, or an arxiv.org \
                 link as its url or link), so there is nothing to fetch"
            );
        }
        let missing = cache.missing(&corpus.papers);
        if !missing.is_empty() {
            let client = super::arxiv_client();
            eprintln!(
                "fetching the arXiv abstracts of {} paper(s) from {} ({} request(s), {} s apart)",
                missing.len(),
                client.base(),
                missing
                    .len()
                    .div_ceil(recommend::corpus::arxiv::IDS_PER_REQUEST),
                client.delay.as_secs()
            );
            let got = cache.fetch(&missing, &client).map_err(|e| match e {
                AbstractsError::Fetch { ref error, .. } if error.is_usage() => {
                    usage(error.to_string())
                }
                other => other.into(),
            })?;
            super::note_skipped(&client);
            let unknown = missing
                .iter()
                .filter(|m| cache.unknown().contains(m))
                .count();
            let again = cache.missing(&corpus.papers).len();
            eprintln!(
                "{got} abstract(s) fetched into {}{}{}",
                path.display(),
                if unknown > 0 {
                    format!("; arXiv knows no paper for {unknown} id(s)")
                } else {
                    String::new()
                },
                if again > 0 {
                    format!(
                        "; arXiv answered {again} id(s) without an abstract this time: \
                         `--abstracts` asks for them again"
                    )
                } else {
                    String::new()
                }
            );
        }
    }
    let applied = cache.apply(&mut corpus.papers);
    const SHOWN: usize = 10;
    for (id, arxiv, title) in applied.mismatched.iter().take(SHOWN) {
        eprintln!(
            "warning: paper {id:?} links arXiv {arxiv}, which arXiv titles {title:?}: its abstract \
             is left out; check the paper's link"
        );
    }
    if applied.mismatched.len() > SHOWN {
        eprintln!(
            "note: {} more paper(s) whose arXiv title is not theirs",
            applied.mismatched.len() - SHOWN
        );
    }
    eprintln!(
        "{} of {} papers described by their arXiv abstract ({})",
        applied.filled,
        corpus.papers.len(),
        path.display()
    );
    Ok(())
}

/// How the index records its corpus: as given when both sit in the current directory tree
/// (so a checkout can move), else as an absolute path.
fn corpus_source(corpus: &Path, out: &Path) -> String {
    let out_dir_is_cwd = out
        .parent()
        .is_none_or(|p| p.as_os_str().is_empty() || p == Path::new("."));
    if corpus.is_relative() && out_dir_is_cwd {
        corpus.display().to_string()
    } else {
        std::fs::canonicalize(corpus)
            .unwrap_or_else(|_| corpus.to_path_buf())
            .display()
            .to_string()
    }
}

#[cfg(test)]
mod tests {
    use clap::ValueEnum;

    use super::*;

    /// Every format `--corpus-format` forces is recorded in the index under its own name, so
    /// that the freshness check and the rebuild command read the corpus the same way.
    #[test]
    fn every_forced_format_is_recorded_by_its_flag_value() {
        for arg in CorpusFormatArg::value_variants() {
            let read = ReadArgs {
                corpus_format: Some(*arg),
                strict: false,
                collection: None,
            };
            let recorded = CorpusRead::of(&load_options(read), &[PathBuf::from("list")]);
            let name = arg.to_possible_value().unwrap().get_name().to_string();
            assert_eq!(recorded.formats, [Some(name.clone())], "{arg:?}");
            assert_eq!(recorded.args(), format!(" --corpus-format {name}"));
        }
    }
}
