//! What each command does: parsed arguments -> a checked configuration -> a library
//! [`Session`] (or corpus) -> one engine call -> a rendered document on stdout.
//!
//! One module per command group: `query` (`--like`, `search`, `show`, `list`), `build`
//! (`index`, `add`), `explore` (`topics`, `path`, `map`), `tools` (`model`, `embed`, `bench`).
//! Policy (freshness, model checks, schemas, ranking) lives in the library; what stays here
//! is what only a terminal needs: flag names in messages, notes on stderr, exit codes.

mod build;
mod explore;
mod feed;
mod feed_options;
mod feed_output;
mod query;
mod store;
mod tools;

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;

use recommend::corpus::{CorpusError, Kind};
use recommend::engine::{self, Filters, Mode, ResolveError};
use recommend::index::Searcher;
use recommend::model;
use recommend::render::{self, Document, Format, records::ResultRecord};
use recommend::session::{QueryOptions, Session, SessionError};

use crate::cli::{Cli, ColorArg, Command, CommonArgs, FormatArg, KindArg, ModeArg, QueryArgs};

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
            || c.downcast_ref::<CorpusError>()
                .is_some_and(CorpusError::is_input)
            || c.downcast_ref::<SessionError>()
                .is_some_and(SessionError::is_input)
            || c.downcast_ref::<recommend::store::StoreError>()
                .is_some_and(recommend::store::StoreError::is_input)
    });
    if input { 2 } else { 1 }
}

pub fn run(cli: Cli) -> Result<()> {
    let common = cli.common.clone();
    if cli.command.is_some() && (!cli.like.is_empty() || cli.like_file.is_some()) {
        return Err(usage(
            "--like and --batch go without a command (`recommend --like X`, or `recommend like X`); `path` and \
             `map` take their own --like after the command name",
        ));
    }
    if common.format == Some(FormatArg::Html) && !matches!(cli.command, Some(Command::Feed(_))) {
        return Err(usage(
            "--format html is for `recommend feed` (a digest); `recommend map` draws HTML maps",
        ));
    }
    if common.store.is_some() {
        let refused = match &cli.command {
            Some(Command::Index { .. } | Command::Add { .. }) => Some("writes an index file"),
            Some(Command::Bench { .. }) => Some("measures an index file"),
            Some(Command::Push { .. }) => Some("reads --index and writes --to"),
            _ => None,
        };
        if let Some(why) = refused {
            return Err(usage(format!(
                "--store is for queries and `serve`; this command {why}: give --index FILE \
                 instead (and leave RECOMMEND_STORE unset)"
            )));
        }
    }
    match cli.command {
        Some(Command::Push { to }) => store::push(&common, &to),
        Some(Command::Feed(args)) => {
            let options = feed::FeedOptions::new(args)?;
            feed::feed(&common, &options)
        }
        Some(Command::Rate { id, verdict, user }) => {
            feed::rate(&common, &id, verdict, user.as_deref())
        }
        Some(Command::Like {
            titles,
            unlike,
            batch,
            query,
        }) => match batch {
            Some(file) => query::like_batch(&common, &query, &file),
            None => query::like(&common, &query, &titles, &unlike),
        },
        Some(Command::Search {
            text,
            queries,
            query,
        }) => query::search(&common, &query, text, queries),
        Some(Command::Show { plan: true, .. }) => query::show_plan(&common),
        Some(Command::Show { title, .. }) => {
            query::show_paper(&common, title.as_deref().unwrap_or_default())
        }
        Some(Command::List {
            limit,
            topic,
            kind,
            corpus,
            read,
        }) => query::list(&common, (topic, kind, limit), &corpus, read),
        Some(Command::Index {
            corpus,
            zotero,
            out,
            force,
            abstracts,
            read,
        }) => {
            // `--zotero` names a database (any name: its backup is `.sqlite.bak`) or its folder.
            if let Some(z) = zotero.as_deref()
                && z.is_file()
                && !recommend::corpus::zotero::is_database(z)
            {
                return Err(usage(format!(
                    "{}: not a SQLite database, so not a Zotero library; give Zotero's \
                     zotero.sqlite (or the data folder holding it), or index another list \
                     with --corpus",
                    z.display()
                )));
            }
            let corpus = zotero.map_or(corpus, |z| vec![z]);
            let corpus = build::recorded_when_default(&common, corpus, out.as_deref(), &read);
            build::build_index(&common, &corpus, out.as_deref(), force, abstracts, read)
        }
        Some(Command::Add {
            file,
            abstracts,
            read,
        }) => build::add(&common, &file, abstracts, read),
        Some(Command::Topics { k, evaluate }) => explore::topics(&common, k, evaluate),
        Some(Command::Path { start, like, to, n }) => {
            // clap requires exactly one of the two.
            let start = start.or(like).unwrap_or_default();
            explore::path(&common, &start, to.as_deref(), n)
        }
        Some(Command::Map { out, like, force }) => {
            explore::map(&common, &out, like.as_deref(), force)
        }
        Some(Command::Bench {
            corpus,
            quick,
            judgments,
        }) => tools::bench(&common, corpus.as_deref(), quick, judgments.as_deref()),
        Some(Command::Model { action }) => tools::model_cmd(&common, action),
        Some(Command::Embed { role, text }) => tools::embed(&common, role, &text),
        Some(Command::Serve { addr, port, feed }) => {
            let addr = port.map_or(addr, |p| format!("127.0.0.1:{p}"));
            let addr = std::net::ToSocketAddrs::to_socket_addrs(addr.as_str())
                .ok()
                .and_then(|mut a| a.next())
                .ok_or_else(|| {
                    usage(format!(
                        "--addr {addr:?} is not an address to listen on: give HOST:PORT, e.g. \
                         127.0.0.1:8321"
                    ))
                })?;
            if let Some(url) = &common.store {
                let inbox = (!feed.is_empty()).then_some(
                    move |s: &Session, home: &dyn recommend::feed::home::Home| {
                        feed::inbox(s, &feed, home)
                    },
                );
                return crate::serve::run_store(url, addr, model_dir(&common), common.exact, inbox);
            }
            let session = open_session(&common)?;
            let inbox = if feed.is_empty() {
                None
            } else {
                let index = session.searcher();
                let home = recommend::feed::home::Files::beside(
                    session.index_path(),
                    &index.meta.model_id,
                    index.dim(),
                );
                Some(feed::inbox(&session, &feed, &home)?)
            };
            crate::serve::run(session, addr, inbox)
        }
        None => {
            if let Some(file) = &cli.like_file {
                query::like_batch(&common, &cli.query, file)
            } else if !cli.like.is_empty() {
                query::like(&common, &cli.query, &cli.like, &cli.unlike)
            } else {
                Err(usage(
                    "nothing to do: give --like TITLE, or a command (search, list, index, topics, \
                     path, map, bench, model, embed); see `recommend --help`",
                ))
            }
        }
    }
}

// ---------------------------------------------------------------- arguments to library types

fn format_of(common: &CommonArgs, default: Format) -> Format {
    match common.format {
        None => default,
        Some(FormatArg::Table) => Format::Table,
        Some(FormatArg::Json) => Format::Json,
        Some(FormatArg::Jsonl) => Format::Jsonl,
        Some(FormatArg::Markdown) => Format::Markdown,
        // Refused for every command but `feed`, which renders it itself.
        Some(FormatArg::Html) => default,
    }
}

fn kind_of(k: KindArg) -> Kind {
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

/// The query flags as library options, checked (`-k 0` is refused here, before any loading).
/// A new query flag is one more field set here.
pub(crate) fn query_options(q: &QueryArgs) -> Result<QueryOptions> {
    Ok(QueryOptions {
        top: q.top,
        mode: mode_of(q.mode),
        filters: Filters {
            topic: q.topic.clone(),
            kind: q.kind.map(kind_of),
            open_source: q.open_source,
        },
    }
    .validated()?)
}

fn model_dir(common: &CommonArgs) -> PathBuf {
    common
        .model_dir
        .clone()
        .unwrap_or_else(model::default_model_dir)
}

/// The session of `--index` (opened, checked fresh; the model loads when first needed); a
/// paper name it takes as a guess is announced on stderr (one line), so that a guess is never
/// silent.
fn open_session(common: &CommonArgs) -> Result<Session> {
    let mut session = match &common.store {
        Some(url) => store::open_session(common, url)?,
        None => Session::open(&common.index, model_dir(common))?,
    };
    session.set_exact_scan(common.exact);
    session.set_on_guess(|g| eprintln!("note: {g}"));
    Ok(session)
}

/// [`open_session`] for a command that embeds a query: the model loads while the index opens.
pub(crate) fn open_session_loading_model(
    common: &CommonArgs,
    queries: &[String],
) -> Result<Session> {
    let mut session = match &common.store {
        Some(url) => store::open_session(common, url)?,
        None => Session::open_loading_model(&common.index, model_dir(common), queries)?,
    };
    session.set_exact_scan(common.exact);
    session.set_on_guess(|g| eprintln!("note: {g}"));
    Ok(session)
}

// ---------------------------------------------------------------- output

/// Write to stdout; a closed pipe (`| head`) ends quietly instead of panicking.
fn emit(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("cannot write to standard output"),
    }
}

/// Render `doc` in the requested format (a table by default) to stdout.
/// `--color`: tables' colour forced on or off, or `None` for the terminal to decide.
fn color_of(common: &CommonArgs) -> Option<bool> {
    match common.color {
        ColorArg::Auto => None,
        ColorArg::Always => Some(true),
        ColorArg::Never => Some(false),
    }
}

fn show(common: &CommonArgs, doc: &Document) -> Result<()> {
    let format = format_of(common, Format::Table);
    emit(&render::renderer_with(format, color_of(common)).render(doc))
}

// ---------------------------------------------------------------- batches

/// What a batch line echoes of its query: all of it, or its start when it is over the limit.
fn echo(line: &str) -> String {
    match line.char_indices().nth(engine::MAX_QUERY_CHARS) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_string(),
    }
}

/// One answer of a batch (`--like-file`, `search --queries`): results, or why there are none.
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
fn answer_batch(
    index: &Searcher,
    lines: &[String],
    answer: &mut dyn FnMut(&str) -> Result<Vec<engine::Hit>>,
) -> Result<()> {
    let mut failed = 0;
    let mut out = String::new();
    for line in lines {
        let l = match answer(line) {
            Ok(hits) => serde_json::to_string(&BatchLine {
                query: line.into(),
                results: Some(render::records::result_records(index, &hits)),
                error: None,
            })?,
            Err(e) => {
                failed += 1;
                serde_json::to_string(&BatchLine {
                    query: echo(line).into(),
                    results: None,
                    error: Some(format!("{e:#}")),
                })?
            }
        };
        out.push_str(&l);
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

/// The arXiv client of `index --abstracts` and `feed --arxiv`: `RECOMMEND_ARXIV_URL` or arXiv,
/// saying each wait before a retry, which a server can make minutes long.
fn arxiv_client() -> recommend::corpus::arxiv::Client {
    let mut client = recommend::corpus::arxiv::Client::new();
    client.on_retry = Some(Box::new(|r| eprintln!("note: {r}")));
    client
}

/// Say how many entries of arXiv's answers `client` left out as unreadable, and the first
/// problem: the rest of each answer is used.
fn note_skipped(client: &recommend::corpus::arxiv::Client) {
    let skipped = client.skipped();
    if let Some(first) = skipped.first() {
        eprintln!(
            "note: {} entr{} of arXiv's answers could not be read and {} left out (the first: {first})",
            skipped.len(),
            if skipped.len() == 1 { "y" } else { "ies" },
            if skipped.len() == 1 { "was" } else { "were" },
        );
    }
}
