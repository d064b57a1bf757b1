//! Commands that write an index: `index` (from a corpus) and `add` (more papers to the corpus
//! of an index). Both reuse the vectors of unchanged papers and embed only the rest.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use recommend::corpus::{Corpus, Format as CorpusFormat, LoadOptions};
use recommend::index::{CorpusSource, Index, Reuse, Script};
use recommend::model::{self, Embedder, EmbedderOptions, Role};

use super::{model_dir, usage};
use crate::cli::{CommonArgs, CorpusFormatArg, ReadArgs};

fn load_options(read: ReadArgs) -> LoadOptions {
    LoadOptions {
        format: read.corpus_format.map(|f| match f {
            CorpusFormatArg::Jsonl => CorpusFormat::Jsonl,
            CorpusFormatArg::Bib => CorpusFormat::Bibtex,
            CorpusFormatArg::Csv => CorpusFormat::Csv,
            CorpusFormatArg::Tsv => CorpusFormat::Tsv,
            CorpusFormatArg::Md => CorpusFormat::Markdown,
        }),
        strict: read.strict,
        collection: read.collection,
    }
}

/// Load a corpus, printing its warnings (what was left out) to stderr.
pub(super) fn load_corpus(paths: &[PathBuf], read: ReadArgs) -> Result<Corpus> {
    let corpus = Corpus::load_with(paths, &load_options(read))?;
    for w in &corpus.warnings {
        eprintln!("warning: {w}");
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
    let model_id = model::model_id(files.variant);
    let mut embedder: Option<Embedder> = None;
    let n = corpus.papers.len();
    let (index, reuse) = recommend::index::build_incremental(
        corpus.papers,
        source,
        model_id,
        previous.as_ref(),
        &mut |texts| {
            if embedder.is_none() {
                let options = EmbedderOptions {
                    full_tokenizer: texts.len() > 512,
                    // A corpus is embedded through fastembed; queries use the faster-starting
                    // in-place session (the same vectors).
                    in_place: false,
                    ..EmbedderOptions::default()
                };
                embedder = Some(Embedder::load(&files, options).map_err(|e| e.to_string())?);
            }
            let e = embedder.as_ref().expect("loaded above");
            embed_passages(e, texts).map_err(|e| e.to_string())
        },
    )?;
    // The previous index when it holds the same papers, vectors and model: what the build
    // derives from them comes out the same, and measuring it again would load the model only
    // for that (0.2 s -> 3.7 s for the shipped list).
    let unchanged = previous.as_ref().filter(|p| {
        embedder.is_none() && p.meta.model_id == index.meta.model_id && p.papers() == index.papers()
    });
    // An unchanged list keeps its search reference.
    let kept: Vec<(Script, Vec<f32>)> = unchanged
        .map(|p| {
            [Script::Latin, Script::Cjk]
                .into_iter()
                .filter_map(|s| p.match_reference(s).map(|c| (s, c.to_vec())))
                .collect()
        })
        .unwrap_or_default();
    // And what the token states give (alignment, search tokens), which needs the model for
    // every paper; kept only when the previous index has all that applies.
    let kept_tokens = unchanged
        .filter(|p| {
            (p.alignment().is_some() || !recommend::engine::alignment::applies(&index))
                // Whole (unprojected) token states, from before stop 31, are measured again.
                && (p.search_tokens().is_some_and(|t| !t.basis.is_empty())
                    || !recommend::engine::alignment::search_applies(&index))
        })
        .map(|p| {
            (
                p.alignment().map(<[f32]>::to_vec),
                p.search_tokens().map(|t| t.to_data()),
            )
        });
    drop(previous);
    let index = match kept_tokens {
        Some((alignment, search)) => {
            // In `with_tokens`' order, so that the file comes out byte-identical.
            let mut index = index;
            if let Some(tokens) = search {
                index = index.with_search_tokens(&tokens)?;
            }
            if let Some(scores) = alignment {
                index = index.with_alignment(&scores)?;
            }
            index
        }
        None => recommend::engine::alignment::with_tokens(index, &mut |texts: &[&str]| {
            eprintln!(
                "reading the tokens of {} papers (described papers: once per change of the list)",
                texts.len()
            );
            if embedder.is_none() {
                let options = EmbedderOptions {
                    full_tokenizer: true,
                    in_place: false,
                    ..EmbedderOptions::default()
                };
                embedder = Some(Embedder::load(&files, options)?);
            }
            passage_token_states(embedder.as_ref().expect("loaded above"), texts)
        })?,
    };
    let mut index = recommend::engine::calibrated(index)?;
    if kept.is_empty() {
        // The reference embeds some of the papers' own text as queries: the model is loaded
        // for it when nothing else needed it (and not at all for a list it does not apply to).
        index = recommend::engine::reference::with_reference(index, &mut |texts: &[&str]| {
            if embedder.is_none() {
                embedder = Some(Embedder::load(&files, EmbedderOptions::default())?);
            }
            let e = embedder.as_ref().expect("loaded above");
            e.embed(texts, Role::Query).map_err(anyhow::Error::from)
        })?;
    } else {
        for (script, cuts) in &kept {
            index = index.with_match_reference(*script, cuts)?;
        }
    }
    index.save(out)?;
    eprint!("{}", recommend::engine::plan::Plan::of(&index).describe());
    Ok((n, reuse))
}

/// Texts per embedding call when indexing: the embedder tokenizes (and pads) a whole call at
/// once, so this bounds the memory of a build (a 10k-paper call held ~0.7 GB of encodings).
const EMBED_CHUNK: usize = 256;

/// Embed passages in chunks of similar length (sorted by length first, so chunking costs no
/// padding), with one progress bar (rate and time left) on stderr when it is a terminal.
fn embed_passages(e: &Embedder, texts: &[String]) -> Result<Vec<Vec<f32>>> {
    let mut order: Vec<usize> = (0..texts.len()).collect();
    order.sort_by_key(|&i| texts[i].len());
    let pb = progress_bar("embedding", texts.len());
    let mut out: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
    for (k, chunk) in order.chunks(EMBED_CHUNK).enumerate() {
        let refs: Vec<&str> = chunk.iter().map(|&i| texts[i].as_str()).collect();
        let base = (k * EMBED_CHUNK) as u64;
        let vecs = e.embed_with_progress(&refs, Role::Passage, &mut |done, _| {
            pb.set_position(base + done as u64)
        })?;
        for (&i, v) in chunk.iter().zip(vecs) {
            out[i] = v;
        }
    }
    pb.finish_and_clear();
    Ok(out)
}

/// A progress bar on stderr for `len` texts, drawn only on a terminal and for more than a few.
fn progress_bar(what: &str, len: usize) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    let target = if std::io::stderr().is_terminal() && len > EMBED_CHUNK / 8 {
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

/// Texts per token-state call: the states of a call are held at once (about 0.24 MB a text).
const TOKEN_CHUNK: usize = 32;

/// The token states of `texts` as passages, in input order, with a progress bar on stderr.
fn passage_token_states(
    e: &Embedder,
    texts: &[&str],
) -> Result<Vec<recommend::model::TokenStates>> {
    // Sorted by length first, as `embed_passages` does: chunks of similar texts pad little.
    let mut order: Vec<usize> = (0..texts.len()).collect();
    order.sort_by_key(|&i| texts[i].len());
    let pb = progress_bar("reading tokens", texts.len());
    let mut out: Vec<Option<recommend::model::TokenStates>> = vec![None; texts.len()];
    for (k, chunk) in order.chunks(TOKEN_CHUNK).enumerate() {
        let refs: Vec<&str> = chunk.iter().map(|&i| texts[i]).collect();
        for (&i, t) in chunk.iter().zip(e.token_states(&refs, Role::Passage)?) {
            out[i] = Some(t);
        }
        pb.set_position((k * TOKEN_CHUNK + chunk.len()) as u64);
    }
    pb.finish_and_clear();
    out.into_iter()
        .map(|t| t.ok_or_else(|| anyhow::anyhow!("no token states for a passage")))
        .collect()
}

pub(super) fn build_index(
    common: &CommonArgs,
    corpus_paths: &[PathBuf],
    out: Option<&Path>,
    force: bool,
    read: ReadArgs,
) -> Result<()> {
    let out = out.unwrap_or(&common.index);
    // Before anything loads: a refused --out should cost nothing.
    for path in corpus_paths {
        recommend::index::check_output(path, out, force).map_err(|e| usage(e.to_string()))?;
    }
    let corpus = load_corpus(corpus_paths, read)?;
    let started = std::time::Instant::now();
    let (n, reuse) = index_corpus(common, corpus_paths, corpus, Some(out), out)?;
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

/// `recommend add FILE`: the index's corpus plus FILE, re-indexed with every vector reused
/// but those of the new papers.
pub(super) fn add(common: &CommonArgs, files: &[PathBuf], read: ReadArgs) -> Result<()> {
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
    drop(index);
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
    let before = Corpus::load_with(
        &paths[..paths.len() - files.len()],
        &load_options(read.clone()),
    )
    .map(|c| c.papers.len())
    .ok();
    let corpus = load_corpus(&paths, read)?;
    let started = std::time::Instant::now();
    let (n, reuse) = index_corpus(common, &paths, corpus, Some(out), out)?;
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
