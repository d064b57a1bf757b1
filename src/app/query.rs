//! Commands that ask the index: `--like` (one query or a file of them), `search`, `show`,
//! `list`.

use std::path::{Path, PathBuf};

use anyhow::Result;

use recommend::corpus::Paper;
use recommend::engine::{self, Filters, Mode};
use recommend::render::records::{PaperRecord, papers_document, results_document};
use recommend::session;

use super::{
    answer_batch, emit, format_of, kind_of, open_session, open_session_loading_model,
    query_options, read_lines, show, usage,
};
use crate::cli::{CommonArgs, KindArg, QueryArgs, ReadArgs};
use recommend::render::Format;

pub(super) fn like(
    common: &CommonArgs,
    q: &QueryArgs,
    likes: &[String],
    unlikes: &[String],
) -> Result<()> {
    let opts = query_options(q)?;
    let session = open_session(common)?;
    // Filters checked, names resolved (a guess noted on stderr), ranked: as `recommend serve`.
    let hits = session.like(likes, unlikes, &opts)?;
    let papers = session.searcher().len();
    if hits.is_empty() && papers <= likes.len() + unlikes.len() {
        // An empty answer should say why: the list holds nothing besides the seeds.
        eprintln!(
            "note: the index holds {papers} paper(s), all of them named here: nothing else to \
             relate them to"
        );
    }
    show(common, &results_document(session.searcher(), &hits))
}

pub(super) fn like_batch(common: &CommonArgs, q: &QueryArgs, file: &Path) -> Result<()> {
    let opts = query_options(q)?;
    let lines = read_lines(file)?;
    let session = open_session(common)?;
    session.check_filters(&opts.filters)?;
    answer_batch(session.searcher(), &lines, &mut |line| {
        let seed = engine::resolve(session.searcher(), line)?;
        Ok(session.related(&[seed], &[], &opts)?)
    })
}

pub(super) fn search(
    common: &CommonArgs,
    q: &QueryArgs,
    text: Vec<String>,
    queries: Option<PathBuf>,
) -> Result<()> {
    let opts = query_options(q)?;
    let lines = match &queries {
        Some(f) => read_lines(f)?,
        None => {
            let t = text.join(" ");
            session::check_query(&t)?;
            vec![t]
        }
    };
    // The only Chinese this process segments is in the queries and their glossary
    // translations: a dictionary focused on them takes ~20 ms instead of ~0.1 s for the full
    // one, and is built while the index opens and the model loads.
    let mut focus = lines.clone();
    focus.extend(
        lines
            .iter()
            .map(|l| recommend::text::glossary::translations(l)),
    );
    recommend::text::segment::focus(focus);
    let session = if opts.mode == Mode::Lexical {
        open_session(common)?
    } else {
        // One query: its tokenizer is built beside the model (a batch builds its own per line).
        open_session_loading_model(common, if queries.is_none() { &lines } else { &[] })?
    };
    session.check_filters(&opts.filters)?;
    if opts.mode != Mode::Lexical {
        // Now, not per line: a model that cannot load fails the command, not every query.
        session.embedder()?;
    }
    if queries.is_some() {
        return answer_batch(session.searcher(), &lines, &mut |line| {
            Ok(session.search(line, &opts)?)
        });
    }
    let hits = session.search(&lines[0], &opts)?;
    // Lexical search answers only papers that hold a word of the query; none is an answer too,
    // said where an empty JSON list cannot.
    if hits.is_empty() && opts.mode == Mode::Lexical {
        eprintln!(
            "note: lexical search found no paper holding a word of this query; hybrid search \
             (the default) also finds papers close in meaning"
        );
    }
    // A table cuts long reasons short: say it once, where it cannot be cut.
    if let Some(weak) = hits.first().and_then(|h| h.weak_match) {
        // Hedged: a few long paraphrases of a paper of the list fall below the bar too.
        eprintln!(
            "note: this list may have nothing on this query: its best match is {}",
            weak.reason()
        );
    }
    show(common, &results_document(session.searcher(), &hits))
}

pub(super) fn show_paper(common: &CommonArgs, title: &str) -> Result<()> {
    let session = open_session(common)?;
    let i = session.resolve(title)?;
    let record = PaperRecord::new(session.searcher(), i);
    if matches!(
        format_of(common, Format::Table),
        Format::Json | Format::Jsonl
    ) {
        return emit(&format!("{}\n", serde_json::to_string_pretty(&record)?));
    }
    show(common, &record.document())
}

/// `recommend show --plan`: the ranking plan of the index, as text or (`-f json`) JSON.
pub(super) fn show_plan(common: &CommonArgs) -> Result<()> {
    let session = open_session(common)?;
    let plan = recommend::engine::plan::of(session.searcher());
    if matches!(
        format_of(common, Format::Table),
        Format::Json | Format::Jsonl
    ) {
        return emit(&format!("{}\n", serde_json::to_string_pretty(&plan)?));
    }
    emit(&plan.describe())
}

pub(super) fn list(
    common: &CommonArgs,
    (topic, kind, limit): (Option<String>, Option<KindArg>, Option<usize>),
    corpus: &[PathBuf],
    read: ReadArgs,
) -> Result<()> {
    if limit == Some(0) {
        return Err(usage(
            "-n/--limit must be at least 1 (leave it out to list every paper)",
        ));
    }
    let papers: Vec<Paper> = if !corpus.is_empty() {
        super::build::load_corpus(corpus, &super::build::load_options(read))?.papers
    } else if common.index.exists() || !Path::new("corpus").exists() {
        if read.collection.is_some() {
            return Err(usage(
                "--collection narrows a Zotero database: give it with --corpus PATH/zotero.sqlite",
            ));
        }
        // With neither, the missing index is what to report (and how to build it), not the
        // default corpus folder the user never named.
        open_session(common)?.searcher().papers().to_vec()
    } else {
        super::build::load_corpus(
            &[PathBuf::from("corpus")],
            &super::build::load_options(read),
        )?
        .papers
    };
    let filters = Filters {
        topic,
        kind: kind.map(kind_of),
        open_source: false,
    };
    if let Some(t) = &filters.topic {
        let probe = Filters {
            topic: Some(t.clone()),
            ..Filters::default()
        };
        session::check_topic(
            t,
            papers.len(),
            |i| probe.accepts(&papers[i]),
            |i| papers[i].topic.clone(),
        )?;
    }
    show(
        common,
        &papers_document(
            papers
                .iter()
                .filter(|p| filters.accepts(p))
                .take(limit.unwrap_or(usize::MAX)),
        ),
    )
}
