//! What each command does: glue from parsed arguments through the library to the terminal.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Serialize;

use recommend::corpus::{Corpus, CorpusError, Format as CorpusFormat, Kind, LoadOptions, Paper};
use recommend::engine::{self, Filters, Hit, Mode, ResolveError};
use recommend::index::{CorpusSource, Index, Reuse};
use recommend::model::{self, Embedder, EmbedderOptions, Role};
use recommend::render::{self, Document, Format, col, wrap};

use crate::cli::{
    Cli, Command, CommonArgs, CorpusFormatArg, FormatArg, KindArg, ModeArg, ModelAction, QueryArgs,
    ReadArgs, RoleArg,
};

/// A mistake in what the user asked for: exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

fn usage(msg: impl Into<String>) -> anyhow::Error {
    UsageError(msg.into()).into()
}

/// 2 for usage and input errors (bad arguments, unknown papers, invalid corpus), else 1.
pub fn exit_code(e: &anyhow::Error) -> u8 {
    let input = e.chain().any(|c| {
        c.is::<UsageError>()
            || c.is::<ResolveError>()
            || matches!(
                c.downcast_ref::<CorpusError>(),
                Some(
                    CorpusError::Invalid { .. }
                        | CorpusError::Empty { .. }
                        | CorpusError::UnknownFormat { .. }
                )
            )
    });
    if input { 2 } else { 1 }
}

pub fn run(cli: Cli) -> Result<()> {
    let common = cli.common.clone();
    if cli.command.is_some() && (!cli.like.is_empty() || cli.like_file.is_some()) {
        return Err(usage(
            "--like and --like-file go without a command (`recommend --like X`); `path` and \
             `map` take their own --like after the command name",
        ));
    }
    match cli.command {
        Some(Command::Search {
            text,
            queries,
            query,
        }) => search(&common, &query, text, queries),
        Some(Command::Show { title }) => show_paper(&common, &title),
        Some(Command::List {
            topic,
            kind,
            corpus,
            read,
        }) => list(&common, topic, kind, &corpus, read),
        Some(Command::Index {
            corpus,
            out,
            force,
            read,
        }) => build_index(&common, &corpus, out.as_deref(), force, read),
        Some(Command::Add { file, read }) => add(&common, &file, read),
        Some(Command::Topics { k, evaluate }) => topics(&common, k, evaluate),
        Some(Command::Path { like, to, n }) => path(&common, &like, to.as_deref(), n),
        Some(Command::Map { out, like }) => map(&common, &out, like.as_deref()),
        Some(Command::Bench {
            corpus,
            quick,
            judgments,
        }) => bench(&common, corpus.as_deref(), quick, judgments.as_deref()),
        Some(Command::Model { action }) => model_cmd(&common, action),
        Some(Command::Embed { role, text }) => embed(&common, role, &text),
        Some(Command::Serve { addr }) => crate::serve::run(&common, &addr),
        None => {
            if let Some(file) = &cli.like_file {
                like_batch(&common, &cli.query, file)
            } else if !cli.like.is_empty() {
                like(&common, &cli.query, &cli.like, &cli.unlike)
            } else {
                Err(usage(
                    "nothing to do: give --like TITLE, or a command (search, list, index, topics, \
                     path, map, bench, model, embed); see `recommend --help`",
                ))
            }
        }
    }
}

// ---------------------------------------------------------------- shared steps

fn format_of(common: &CommonArgs, default: Format) -> Format {
    match common.format {
        None => default,
        Some(FormatArg::Table) => Format::Table,
        Some(FormatArg::Json) => Format::Json,
        Some(FormatArg::Jsonl) => Format::Jsonl,
        Some(FormatArg::Markdown) => Format::Markdown,
    }
}

pub(crate) fn kind_of(k: KindArg) -> Kind {
    match k {
        KindArg::Survey => Kind::Survey,
        KindArg::Method => Kind::Method,
        KindArg::System => Kind::System,
        KindArg::Benchmark => Kind::Benchmark,
        KindArg::Dataset => Kind::Dataset,
        KindArg::Model => Kind::Model,
    }
}

fn mode_of(m: ModeArg) -> Mode {
    match m {
        ModeArg::Hybrid => Mode::Hybrid,
        ModeArg::Dense => Mode::Dense,
        ModeArg::Lexical => Mode::Lexical,
    }
}

/// Write to stdout; a closed pipe (`| head`) ends quietly instead of panicking.
fn emit(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("cannot write to standard output"),
    }
}

/// Render `doc` in the requested format (a table by default) to stdout.
fn show(common: &CommonArgs, doc: &Document) -> Result<()> {
    emit(&render::renderer(format_of(common, Format::Table)).render(doc))
}

/// Load the index, and check it against the corpus it was built from when that is at hand.
pub(crate) fn load_index(common: &CommonArgs) -> Result<Index> {
    let path = &common.index;
    if !path.exists() {
        bail!(
            "no index at {}: build one with `recommend index --corpus PATH --out {}`, or pass \
             --index PATH",
            path.display(),
            path.display()
        );
    }
    // Temp files left by a killed `index` run (SIGKILL, power cut) go now.
    recommend::safe_fs::sweep_stale(
        path.parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new(".")),
    );
    let index = Index::load(path)?;
    let corpora = index.recorded_corpora();
    // Unchanged files need no parsing; changed bytes may still hold the same papers.
    if corpora.iter().all(|p| p.exists()) && !index.fingerprints_match(&corpora) {
        let corpus = Corpus::load_with(&corpora, &LoadOptions::default())?;
        index.check_fresh(&corpus.papers, &corpus_args(&corpora))?;
    }
    Ok(index)
}

fn model_dir(common: &CommonArgs) -> PathBuf {
    common
        .model_dir
        .clone()
        .unwrap_or_else(model::default_model_dir)
}

/// Install the model if needed, and load it.
pub(crate) fn load_embedder(common: &CommonArgs, progress: bool) -> Result<Embedder> {
    let dir = model_dir(common);
    let files = model::ensure_installed(&dir).map_err(|e| match e {
        // Already names the file and the repair.
        e @ model::ModelError::Damaged { .. } => anyhow::Error::from(e),
        e => anyhow::Error::from(e)
            .context(format!("cannot install the model into {}", dir.display())),
    })?;
    let options = EmbedderOptions {
        progress,
        ..EmbedderOptions::default()
    };
    Embedder::load(&files, options).map_err(|e| {
        anyhow::anyhow!(
            "cannot load the model in {}: {e}; `recommend model status` checks every file, and \
             `recommend model install --force` repairs the install",
            dir.display()
        )
    })
}

fn filters_of(q: &QueryArgs) -> Filters {
    Filters {
        topic: q.topic.clone(),
        kind: q.kind.map(kind_of),
        open_source: q.open_source,
    }
}

pub(crate) fn check_top(q: &QueryArgs) -> Result<()> {
    if q.top == 0 {
        return Err(usage("-k/--top must be at least 1"));
    }
    Ok(())
}

/// Reject filters that match nothing at all: almost always a typo.
pub(crate) fn check_filters(index: &Index, f: &Filters) -> Result<()> {
    if let Some(t) = &f.topic {
        let probe = Filters {
            topic: Some(t.clone()),
            ..Filters::default()
        };
        if !(0..index.len()).any(|i| probe.accepts_at(index, i)) {
            let table = index.table();
            return Err(unknown_topic(
                t,
                (0..index.len()).map(|i| table.topic(i).into_owned()),
            ));
        }
    }
    Ok(())
}

fn unknown_topic(t: &str, topics: impl Iterator<Item = String>) -> anyhow::Error {
    let mut topics: Vec<String> = topics.collect();
    topics.sort();
    topics.dedup();
    usage(format!(
        "no paper has a topic matching {t:?}; topics are: {}",
        topics.join(", ")
    ))
}

/// One result as `--format json` prints it (and `recommend serve` answers it).
#[derive(Serialize)]
pub(crate) struct ResultRecord<'a> {
    pub rank: usize,
    pub id: String,
    pub title: String,
    pub score: f64,
    pub topic: String,
    pub kind: Kind,
    pub highlight: String,
    pub why: &'a str,
    /// Where to read the paper ([`Paper::href`]): its page, else its arXiv abstract.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arxiv: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub year: Option<u16>,
}

pub(crate) fn records<'a>(index: &Index, hits: &'a [Hit]) -> Vec<ResultRecord<'a>> {
    hits.iter()
        .enumerate()
        .map(|(r, h)| {
            let p = index.paper(h.paper).into_owned();
            let url = p.href();
            ResultRecord {
                rank: r + 1,
                id: p.id,
                title: p.title,
                score: (f64::from(h.score) * 10000.0).round() / 10000.0,
                topic: p.topic,
                kind: p.kind,
                url,
                arxiv: p.arxiv,
                code: p.code,
                year: p.year,
                // Imported lists have abstracts, not highlights: show what the paper has.
                highlight: if p.highlight.is_empty() {
                    p.summary
                } else {
                    p.highlight
                },
                why: &h.why,
            }
        })
        .collect()
}

fn results_document(index: &Index, hits: &[Hit]) -> Document {
    let mut doc = Document::new(vec![
        col("#"),
        wrap("title"),
        col("topic"),
        col("score"),
        wrap("why"),
        wrap("highlight"),
        col("link"),
    ]);
    for r in records(index, hits) {
        doc.push(
            vec![
                r.rank.to_string(),
                r.title.to_string(),
                r.topic.to_string(),
                format!("{:.3}", r.score),
                r.why.to_string(),
                r.highlight.to_string(),
                r.url.clone().unwrap_or_default(),
            ],
            &r,
        );
    }
    doc.link_title(1, 6);
    doc
}

/// Resolve a paper name; a containment or fuzzy match is announced on stderr (one line), so
/// that a guess is never silent.
fn resolve(index: &Index, name: &str) -> Result<usize> {
    let r = engine::resolve_match(index, name)?;
    let how = match r.matched {
        engine::Matched::Exact => return Ok(r.paper),
        engine::Matched::Contains => "the only paper whose name contains it",
        engine::Matched::Fuzzy => "the closest name",
    };
    let p = index.paper(r.paper);
    eprintln!(
        "note: {:?} taken as {:?} [{}], {how}",
        render::neutralize(name.trim()),
        render::neutralize(&p.title),
        p.id
    );
    Ok(r.paper)
}

fn resolve_all(index: &Index, names: &[String]) -> Result<Vec<usize>> {
    names.iter().map(|n| resolve(index, n)).collect()
}

// ---------------------------------------------------------------- commands

fn like(common: &CommonArgs, q: &QueryArgs, likes: &[String], unlikes: &[String]) -> Result<()> {
    check_top(q)?;
    let index = load_index(common)?;
    let hits = like_hits(&index, q, likes, unlikes)?;
    show(common, &results_document(&index, &hits))
}

/// `--like`: check the filters, resolve the seeds, rank (shared with `recommend serve`).
pub(crate) fn like_hits(
    index: &Index,
    q: &QueryArgs,
    likes: &[String],
    unlikes: &[String],
) -> Result<Vec<Hit>> {
    let filters = filters_of(q);
    check_filters(index, &filters)?;
    let seeds = resolve_all(index, likes)?;
    let negatives = resolve_all(index, unlikes)?;
    if let Some(s) = seeds.iter().find(|s| negatives.contains(s)) {
        return Err(usage(format!(
            "{:?} is both liked and unliked",
            index.paper(*s).title
        )));
    }
    Ok(engine::related(
        index,
        &seeds,
        &negatives,
        q.top,
        mode_of(q.mode),
        &filters,
    ))
}

/// What a batch line echoes of its query: all of it, or its start when it is over the limit.
fn echo(line: &str) -> String {
    match line.char_indices().nth(engine::MAX_QUERY_CHARS) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_string(),
    }
}

#[derive(Serialize)]
struct BatchLine<'a> {
    query: std::borrow::Cow<'a, str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    results: Option<Vec<ResultRecord<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// The queries of a batch file: a regular file within [`recommend::safe_fs::MAX_QUERY_FILE`],
/// UTF-8, one query per non-blank line.
fn read_lines(file: &Path) -> Result<Vec<String>> {
    let bytes = recommend::safe_fs::read_regular(file, recommend::safe_fs::MAX_QUERY_FILE)
        .map_err(|e| usage(format!("cannot read {}: {e}", file.display())))?;
    engine::query_lines(&bytes).map_err(|line| {
        usage(format!(
            "{}:{line}: not valid UTF-8; save the file as UTF-8",
            file.display()
        ))
    })
}

/// Answer each line as one JSON object; a bad line gets an `error` instead of results, the batch
/// goes on, and the exit code is 2 if any line failed.
fn answer_batch(lines: &[String], answer: &mut dyn FnMut(&str) -> Result<String>) -> Result<()> {
    let mut failed = 0;
    let mut out = String::new();
    for line in lines {
        match answer(line) {
            Ok(json) => out.push_str(&json),
            Err(e) => {
                failed += 1;
                let l = BatchLine {
                    query: echo(line).into(),
                    results: None,
                    error: Some(format!("{e:#}")),
                };
                out.push_str(&serde_json::to_string(&l)?);
            }
        }
        out.push('\n');
    }
    emit(&out)?;
    if failed > 0 {
        return Err(usage(format!(
            "{failed} of {} queries failed (see their `error`)",
            lines.len()
        )));
    }
    Ok(())
}

fn like_batch(common: &CommonArgs, q: &QueryArgs, file: &Path) -> Result<()> {
    check_top(q)?;
    let lines = read_lines(file)?;
    let index = load_index(common)?;
    let filters = filters_of(q);
    check_filters(&index, &filters)?;
    answer_batch(&lines, &mut |line| {
        let seed = engine::resolve(&index, line)?;
        let hits = engine::related(&index, &[seed], &[], q.top, mode_of(q.mode), &filters);
        let l = BatchLine {
            query: line.into(),
            results: Some(records(&index, &hits)),
            error: None,
        };
        Ok(serde_json::to_string(&l)?)
    })
}

/// The same length limit as every other query input ([`engine::MAX_QUERY_CHARS`]).
pub(crate) fn check_query(text: &str) -> Result<()> {
    engine::resolve::check_length(text)?;
    if text.trim().is_empty() {
        return Err(usage("empty query: give some words to search for"));
    }
    Ok(())
}

fn search(
    common: &CommonArgs,
    q: &QueryArgs,
    text: Vec<String>,
    queries: Option<PathBuf>,
) -> Result<()> {
    check_top(q)?;
    let mode = mode_of(q.mode);
    let lines = match &queries {
        Some(f) => read_lines(f)?,
        None => {
            let t = text.join(" ");
            check_query(&t)?;
            vec![t]
        }
    };
    let index = load_index(common)?;
    let filters = filters_of(q);
    check_filters(&index, &filters)?;
    let embedder = if mode == Mode::Lexical {
        None
    } else {
        if mode == Mode::Hybrid {
            // The query's Chinese words are segmented by jieba (~0.1 s to build): overlap it
            // with the model load.
            recommend::text::segment::warm_up();
        }
        let e = load_embedder(common, false)?;
        check_model(common, &index, &e)?;
        Some(e)
    };
    let run_one = |text: &str| search_hits(&index, embedder.as_ref(), q, text);
    if queries.is_some() {
        return answer_batch(&lines, &mut |line| {
            let hits = run_one(line)?;
            let l = BatchLine {
                query: line.into(),
                results: Some(records(&index, &hits)),
                error: None,
            };
            Ok(serde_json::to_string(&l)?)
        });
    }
    let hits = run_one(&lines[0])?;
    show(common, &results_document(&index, &hits))
}

/// The index must come from the model that embeds the queries.
pub(crate) fn check_model(common: &CommonArgs, index: &Index, e: &Embedder) -> Result<()> {
    if e.model_id() != index.meta.model_id {
        bail!(
            "{} was built with model {}, but the installed model is {}; rebuild it with \
             `recommend index`",
            common.index.display(),
            index.meta.model_id,
            e.model_id()
        );
    }
    Ok(())
}

/// One free-text query (shared with `recommend serve`): `embedder` is needed unless the mode is
/// lexical; filters are checked by the caller.
pub(crate) fn search_hits(
    index: &Index,
    embedder: Option<&Embedder>,
    q: &QueryArgs,
    text: &str,
) -> Result<Vec<Hit>> {
    check_query(text)?;
    let mode = mode_of(q.mode);
    let qv = match embedder.filter(|_| mode != Mode::Lexical) {
        Some(e) => Some(e.embed(&[text], Role::Query)?.remove(0)),
        None if mode != Mode::Lexical => bail!("{} search needs the model", mode.as_str()),
        None => None,
    };
    Ok(engine::search(
        index,
        text,
        qv.as_deref(),
        q.top,
        mode,
        &filters_of(q),
    ))
}

#[derive(Serialize)]
struct PaperRecord<'a> {
    #[serde(flatten)]
    paper: &'a Paper,
    /// Where to read it ([`Paper::href`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    href: Option<String>,
    /// Papers of the index this one builds on, and those that build on it: (id, title).
    builds_on_papers: Vec<(String, String)>,
    built_on_by: Vec<(String, String)>,
}

fn show_paper(common: &CommonArgs, title: &str) -> Result<()> {
    let index = load_index(common)?;
    let i = resolve(&index, title)?;
    let p = index.paper(i).into_owned();
    let rel = index.relations();
    let named = |v: &[usize]| -> Vec<(String, String)> {
        v.iter()
            .map(|&j| {
                let t = index.table();
                (t.id(j).into_owned(), t.title(j).into_owned())
            })
            .collect()
    };
    let record = PaperRecord {
        paper: &p,
        href: p.href(),
        builds_on_papers: named(&rel.parents[i]),
        built_on_by: named(&rel.children[i]),
    };
    let titles = |v: &[(String, String)]| {
        v.iter()
            .map(|(_, t)| t.as_str())
            .collect::<Vec<_>>()
            .join("; ")
    };
    let mut rows: Vec<(&str, String)> = vec![
        ("id", p.id.clone()),
        ("title", p.title.clone()),
        ("aliases", p.aliases.join(", ")),
        ("kind", p.kind.to_string()),
        ("year", p.year.map(|y| y.to_string()).unwrap_or_default()),
        ("authors", p.authors.clone().unwrap_or_default()),
        ("topic", p.topic.clone()),
        ("tags", p.tags.join(", ")),
        ("summary", p.summary.clone()),
        ("highlight", p.highlight.clone()),
        ("seed highlight", p.seed_highlight.clone()),
        ("link", record.href.clone().unwrap_or_default()),
        ("arXiv", p.arxiv.clone().unwrap_or_default()),
        ("code", p.code.clone().unwrap_or_default()),
        ("builds on", titles(&record.builds_on_papers)),
        ("built on by", titles(&record.built_on_by)),
    ];
    rows.retain(|(_, v)| !v.is_empty());
    let format = format_of(common, Format::Table);
    if matches!(format, Format::Json | Format::Jsonl) {
        return emit(&format!("{}\n", serde_json::to_string_pretty(&record)?));
    }
    let mut doc = Document::new(vec![col("field"), wrap("value")]);
    for (k, v) in rows {
        doc.push(vec![k.to_string(), v.clone()], &serde_json::json!({ k: v }));
    }
    show(common, &doc)
}

fn list(
    common: &CommonArgs,
    topic: Option<String>,
    kind: Option<KindArg>,
    corpus: &[PathBuf],
    read: ReadArgs,
) -> Result<()> {
    let papers: Vec<Paper> = if !corpus.is_empty() {
        load_corpus(corpus, read)?.papers
    } else if common.index.exists() {
        load_index(common)?.papers().to_vec()
    } else {
        load_corpus(&[PathBuf::from("corpus")], read)?.papers
    };
    if let Some(t) = &topic {
        let probe = Filters {
            topic: Some(t.clone()),
            ..Filters::default()
        };
        if !papers.iter().any(|p| probe.accepts(p)) {
            return Err(unknown_topic(t, papers.iter().map(|p| p.topic.clone())));
        }
    }
    let filters = Filters {
        topic,
        kind: kind.map(kind_of),
        open_source: false,
    };
    let mut doc = Document::new(vec![
        col("id"),
        wrap("title"),
        col("kind"),
        col("topic"),
        wrap("highlight"),
    ]);
    for p in papers.iter().filter(|p| filters.accepts(p)) {
        doc.push(
            vec![
                p.id.clone(),
                p.title.clone(),
                p.kind.to_string(),
                p.topic.clone(),
                if p.highlight.is_empty() {
                    p.summary.clone()
                } else {
                    p.highlight.clone()
                },
            ],
            p,
        );
    }
    show(common, &doc)
}

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
    }
}

/// Load a corpus, printing its warnings (what was left out) to stderr.
fn load_corpus(paths: &[PathBuf], read: ReadArgs) -> Result<Corpus> {
    let corpus = Corpus::load_with(paths, &load_options(read))?;
    for w in &corpus.warnings {
        eprintln!("warning: {w}");
    }
    Ok(corpus)
}

/// `a --corpus b`: several corpus paths as the `--corpus` arguments that name them.
fn corpus_args(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(" --corpus ")
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
        fingerprint: recommend::corpus::import::fingerprint_all(paths).ok(),
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
                    ..EmbedderOptions::default()
                };
                embedder = Some(Embedder::load(&files, options).map_err(|e| e.to_string())?);
            }
            let e = embedder.as_ref().expect("loaded above");
            embed_passages(e, texts).map_err(|e| e.to_string())
        },
    )?;
    drop(previous);
    index.save(out)?;
    Ok((n, reuse))
}

/// Texts per embedding call when indexing: the embedder tokenizes (and pads) a whole call at
/// once, so this bounds the memory of a build (a 10k-paper call held ~0.7 GB of encodings).
const EMBED_CHUNK: usize = 256;

/// Embed passages in chunks of similar length (sorted by length first, so chunking costs no
/// padding), with one progress bar (rate and time left) on stderr when it is a terminal.
fn embed_passages(e: &Embedder, texts: &[String]) -> Result<Vec<Vec<f32>>> {
    use std::io::IsTerminal;
    let mut order: Vec<usize> = (0..texts.len()).collect();
    order.sort_by_key(|&i| texts[i].len());
    let target = if std::io::stderr().is_terminal() && texts.len() > EMBED_CHUNK / 8 {
        indicatif::ProgressDrawTarget::stderr()
    } else {
        indicatif::ProgressDrawTarget::hidden()
    };
    let pb = indicatif::ProgressBar::with_draw_target(Some(texts.len() as u64), target);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "embedding [{elapsed}] [{bar:30}] {pos}/{len} ({per_sec}, {eta} left)",
    ) {
        pb.set_style(style.progress_chars("=> "));
    }
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

fn build_index(
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
fn add(common: &CommonArgs, files: &[PathBuf], read: ReadArgs) -> Result<()> {
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
    let before = Corpus::load_with(&paths[..paths.len() - files.len()], &load_options(read))
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

fn model_cmd(common: &CommonArgs, action: ModelAction) -> Result<()> {
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

fn embed(common: &CommonArgs, role: RoleArg, texts: &[String]) -> Result<()> {
    let role = match role {
        RoleArg::Query => Role::Query,
        RoleArg::Passage => Role::Passage,
        RoleArg::Raw => Role::Raw,
    };
    let embedder = load_embedder(common, false)?;
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

/// Topic clusters of the index (shared with `recommend serve`).
pub(crate) fn topic_clusters(
    index: &Index,
    k: Option<usize>,
) -> Result<Vec<engine::topics::Topic>> {
    engine::communities::cluster(index, k).map_err(|e| match e {
        engine::topics::TopicError::ZeroK | engine::topics::TopicError::TooManyTopics { .. } => {
            usage(e.to_string())
        }
        other => other.into(),
    })
}

fn topics(common: &CommonArgs, k: Option<usize>, evaluate: bool) -> Result<()> {
    let index = load_index(common)?;
    let clusters = topic_clusters(&index, k)?;
    let mut doc = Document::new(vec![
        col("#"),
        wrap("label"),
        col("size"),
        wrap("central"),
        wrap("keywords"),
    ]);
    for t in &clusters {
        let central = index
            .papers()
            .iter()
            .find(|p| p.id == t.central)
            .map_or(t.central.clone(), |p| p.title.clone());
        doc.push(
            vec![
                t.id.to_string(),
                t.label.clone(),
                t.papers.len().to_string(),
                central,
                t.keywords.join(", "),
            ],
            t,
        );
    }
    show(common, &doc)?;
    if evaluate {
        let Some(c) = recommend::bench::clusters(&index)? else {
            return Err(usage("the corpus has no topic labels to evaluate against"));
        };
        eprintln!(
            "agreement with the corpus topics ({} labels, {} papers):",
            c.labels, c.papers
        );
        for r in &c.results {
            eprintln!(
                "  {}: k={} NMI {:.3} ARI {:.3} largest/median {:.2}",
                r.method, r.k, r.nmi, r.ari, r.largest_over_median
            );
        }
    }
    Ok(())
}

fn path_error(e: engine::path::PathError) -> anyhow::Error {
    match e {
        engine::path::PathError::SamePaper | engine::path::PathError::ZeroSteps => {
            usage(e.to_string())
        }
        other => other.into(),
    }
}

/// A reading path from `like` (to `to`, or of `n` papers) (shared with `recommend serve`).
pub(crate) fn path_steps(
    index: &Index,
    like: &str,
    to: Option<&str>,
    n: usize,
) -> Result<Vec<engine::path::Step>> {
    let from = resolve(index, like)?;
    Ok(match to {
        Some(to_name) => {
            let to = resolve(index, to_name)?;
            if to == from {
                let p = index.paper(from);
                return Err(usage(format!(
                    "--like {like:?} and --to {to_name:?} are the same paper, {:?} [{}]; give \
                     two different papers, or leave out --to for a reading path from it",
                    p.title, p.id
                )));
            }
            engine::reading::path_between(index, from, to).map_err(path_error)?
        }
        None => engine::reading::reading_path(index, from, n).map_err(path_error)?,
    })
}

fn path(common: &CommonArgs, like: &str, to: Option<&str>, n: usize) -> Result<()> {
    let index = load_index(common)?;
    let steps = path_steps(&index, like, to, n)?;
    let mut doc = Document::new(vec![
        col("step"),
        wrap("title"),
        col("year"),
        col("kind"),
        col("topic"),
        wrap("why"),
        col("link"),
    ]);
    for s in &steps {
        doc.push(
            vec![
                s.step.to_string(),
                s.title.clone(),
                s.year.map(|y| y.to_string()).unwrap_or_default(),
                s.kind.to_string(),
                s.topic.clone(),
                s.why.clone(),
                s.url.clone().unwrap_or_default(),
            ],
            s,
        );
    }
    doc.link_title(1, 6);
    show(common, &doc)
}

fn map(common: &CommonArgs, out: &Path, like: Option<&str>) -> Result<()> {
    let svg = match out
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("svg") => true,
        Some("html" | "htm") => false,
        _ => {
            return Err(usage(format!(
                "{}: the map is written as .html or .svg",
                out.display()
            )));
        }
    };
    // Refuse an unwritable --out before the minutes of layout work.
    let target = recommend::safe_fs::final_target(out)
        .map_err(|e| usage(format!("cannot write {}: {e}", out.display())))?;
    if target.is_dir() {
        return Err(usage(format!(
            "cannot write {}: it is a directory; give a file name such as map.html",
            out.display()
        )));
    }
    let index = load_index(common)?;
    let text = map_text(&index, like, svg)?;
    recommend::safe_fs::write_atomic(out, text.as_bytes())
        .with_context(|| format!("cannot write {}", out.display()))?;
    eprintln!("wrote {} ({} papers)", out.display(), index.len());
    Ok(())
}

/// The map of `index` as an HTML page or an SVG (shared with `recommend serve`).
pub(crate) fn map_text(index: &Index, like: Option<&str>, svg: bool) -> Result<String> {
    use recommend::map::{Focus, MapCluster, MapData, MapPoint};
    let focus_paper = like.map(|l| resolve(index, l)).transpose()?;
    let clusters = engine::communities::cluster(index, None)?;
    let mut cluster_of = vec![0usize; index.len()];
    for t in &clusters {
        for id in &t.papers {
            if let Some(i) = index.papers().iter().position(|p| &p.id == id) {
                cluster_of[i] = t.id;
            }
        }
    }
    let related: Vec<Vec<usize>> = (0..index.len())
        .map(|i| engine::retrieve::neighbours(index, i, 8))
        .collect();
    let focus = match focus_paper {
        Some(x) => {
            let steps = engine::reading::reading_path(index, x, 6).map_err(path_error)?;
            let path = steps
                .iter()
                .filter_map(|s| index.papers().iter().position(|p| p.id == s.id))
                .collect();
            Some(Focus {
                paper: x,
                neighbors: related[x].clone(),
                path,
            })
        }
        None => None,
    };
    let data = MapData {
        points: index
            .papers()
            .iter()
            .zip(&cluster_of)
            .map(|(p, &c)| MapPoint::from_paper(p, c))
            .collect(),
        clusters: clusters
            .iter()
            .map(|t| MapCluster {
                id: t.id,
                label: t.label.clone(),
            })
            .collect(),
        related,
        focus,
        title: format!(
            "recommend: map of {} ({} papers, {} topics)",
            index.meta.corpus_source,
            index.len(),
            clusters.len()
        ),
    };
    let xy = recommend::map::layout(index.vectors());
    Ok(if svg {
        recommend::map::render_svg(&data, &xy)
    } else {
        recommend::map::render_html(&data, &xy)
    })
}

/// Where `recommend bench` looks for the judged development set by default.
const DEFAULT_JUDGMENTS: &str = "bench/judgments.jsonl";

fn bench(
    common: &CommonArgs,
    corpus: Option<&Path>,
    quick: bool,
    judgments: Option<&Path>,
) -> Result<()> {
    use recommend::bench;
    // The model: required to build from a corpus; otherwise used when installed (installed on
    // demand unless --quick, which never downloads).
    let embedder = if corpus.is_some() || !quick || model::status(&model_dir(common)).installed {
        Some(load_embedder(common, false)?)
    } else {
        None
    };
    let mut opts = bench::Options {
        quick,
        ..bench::Options::default()
    };
    let index = match corpus {
        Some(path) => {
            let c = Corpus::load(path)?;
            let e = embedder.as_ref().expect("loaded above");
            let (index, took) =
                bench::speed::build_index(c.papers, &path.display().to_string(), e)?;
            opts.index_build = Some(took);
            index
        }
        None => {
            let started = std::time::Instant::now();
            let index = load_index(common)?;
            opts.index_load = Some(started.elapsed());
            if let Some(e) = &embedder {
                check_model(common, &index, e)?;
            }
            index
        }
    };
    // An explicit judged set must fit the index; the default one is used when it does.
    opts.judgments = match judgments {
        Some(path) => Some(bench::judged::load(path, &index).map_err(usage)?),
        None => bench::judged::load(Path::new(DEFAULT_JUDGMENTS), &index).ok(),
    };
    let report = bench::run(&index, embedder.as_ref(), &opts)?;
    let format = format_of(common, Format::Table);
    if format == Format::Json {
        return emit(&format!("{}\n", serde_json::to_string_pretty(&report)?));
    }
    let mut text = String::new();
    let sections = report.sections();
    for s in &sections {
        let mut doc = Document::new(
            s.columns
                .iter()
                .enumerate()
                .map(|(i, c)| if i == 0 { col(c) } else { wrap(c) })
                .collect(),
        );
        for r in &s.rows {
            let record: serde_json::Map<String, serde_json::Value> = s
                .columns
                .iter()
                .zip(r)
                .map(|(c, v)| (c.to_string(), v.clone().into()))
                .collect();
            doc.push(r.clone(), &record);
        }
        if format == Format::Table {
            text.push_str(&format!("{}\n", s.title));
        }
        text.push_str(&render::renderer(format).render(&doc));
        if format == Format::Table {
            text.push('\n');
        }
    }
    for n in &report.notes {
        eprintln!("note: {n}");
    }
    emit(&text)
}
