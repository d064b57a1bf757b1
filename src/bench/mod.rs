//! Quality and speed evaluation behind `recommend bench`.
//!
//! [`run`] measures everything on one index and returns a [`BenchReport`]: plain data, serialized
//! as one JSON object so runs can be compared, and laid out as [`Section`]s for people.

mod clustering;
pub mod crosslingual;
pub mod feed;
pub mod graph;
pub mod judged;
pub mod quality;
pub mod speed;
pub mod synthetic;
pub mod tables;
pub mod tfidf;

use std::collections::BTreeSet;
use std::time::Duration;

use serde::Serialize;

use crate::engine::topics;
use crate::index::{IndexError, Searcher};
use crate::model::{Embedder, ModelError};

pub use clustering::{clusters, size_ratio};
pub use crosslingual::{CrossLingual, Retrieval};
pub use quality::RelatedQuality;
pub use speed::{Latency, Machine};
pub use tables::Section;

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error(transparent)]
    Model(#[from] ModelError),
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error(transparent)]
    Build(#[from] crate::pipeline::BuildError),
    #[error(transparent)]
    Topics(#[from] topics::TopicError),
}

/// What to measure.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Skip the speed measurements that need the model.
    pub quick: bool,
    /// How long loading the index file took, when it came from one.
    pub index_load: Option<Duration>,
    /// How long building the index took, when the caller built it (else it is rebuilt, timed).
    pub index_build: Option<Duration>,
    /// Queries per latency measurement.
    pub latency_queries: usize,
    /// The judged development set to measure on (see [`judged`]).
    pub judgments: Option<judged::Judged>,
    /// A held-out judged set of the same list: written blind like the development set, on
    /// other seeds and queries, and never used to choose anything. Measured on the index and
    /// on its reduced forms, so that a ranking tuned on the development set shows what it is
    /// worth on seeds it has not seen.
    pub heldout: Option<judged::Judged>,
    /// Queries from other fields and short queries about the field: how often search calls
    /// them weak matches is reported beside the judged queries' false alarms.
    pub probes: judged::WeakProbes,
}

#[derive(Debug, Clone, Serialize)]
pub struct CorpusInfo {
    pub source: String,
    pub papers: usize,
    /// Distinct topic labels.
    pub topics: usize,
    pub model_id: String,
}

/// One clustering's agreement with the topic labels.
#[derive(Debug, Clone, Serialize)]
pub struct ClusterScore {
    pub method: String,
    pub k: usize,
    pub nmi: f64,
    pub ari: f64,
    /// Largest cluster over the median cluster size.
    pub largest_over_median: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Clusters {
    /// Distinct topic labels, and the papers that carry one.
    pub labels: usize,
    pub papers: usize,
    /// `topics::cluster` with automatic k, then TF-IDF k-means at the same k.
    pub results: Vec<ClusterScore>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Speed {
    pub index_load_ms: Option<f64>,
    /// Warm `--like` (engine::related, hybrid, top 10), no model involved.
    pub like: Latency,
    pub model_load_ms: Option<f64>,
    /// Building the index: embedding every passage (title + highlight) plus the lexical index.
    pub index_build_s: Option<f64>,
    pub passages_per_s: Option<f64>,
    /// Titles alone, batched.
    pub titles_per_s: Option<f64>,
    /// Titles alone, one model call each (the naive way), on up to 32 titles.
    pub titles_per_s_one_by_one: Option<f64>,
    /// Chinese highlights alone, batched.
    pub highlights_per_s: Option<f64>,
    /// Warm free-text search: query embedding + engine::search (hybrid, top 10).
    pub search: Option<Latency>,
    /// The query-embedding part of `search`.
    pub search_embed: Option<Latency>,
    /// Warm free-text search as `search`, over the judged set's queries: what a researcher
    /// types (9 to 55 tokens on the shipped set), where `search` takes half its queries from
    /// whole highlights (up to 134 tokens, which set its p95).
    pub search_judged: Option<Latency>,
}

/// Judged-set figures for every system.
#[derive(Debug, Clone, Serialize)]
pub struct JudgedReport {
    pub source: String,
    pub like: Vec<judged::LikeScore>,
    pub paths: judged::PathScore,
    /// The weak-link flag against the judgments (`None` when the index has no strengths).
    pub weak_links: Option<judged::WeakLinkScore>,
    /// `None` without the model.
    pub search: Option<Vec<judged::SearchScore>>,
    /// `None` without the model or without a search reference in the index.
    pub weak_matches: Option<judged::WeakMatchScore>,
    /// The set's second reader against the first, when it has one.
    pub readers: Option<judged::ReaderAgreement>,
}

/// The same measurements on the corpus reduced to what a user's list has: titles (and
/// aliases) and highlights, without the curated summaries, tags and `builds_on`.
#[derive(Debug, Clone, Serialize)]
pub struct UncuratedReport {
    pub related: Vec<RelatedQuality>,
    pub judged: Option<JudgedReport>,
    /// The held-out judged set on the reduced list, when there is one.
    pub heldout: Option<JudgedReport>,
}

/// Every figure of one `recommend bench` run.
#[derive(Debug, Clone, Serialize)]
pub struct BenchReport {
    pub recommend: String,
    pub quick: bool,
    pub machine: Machine,
    pub corpus: CorpusInfo,
    /// `--like` for every paper whose topic has another member: every system of
    /// [`judged::like_systems`].
    pub related: Vec<RelatedQuality>,
    /// The judged development set, when one was given.
    pub judged: Option<JudgedReport>,
    /// The held-out judged set ([`Options::heldout`]), when there is one.
    pub heldout: Option<JudgedReport>,
    /// The corpus without its curated fields, when it has any and the model is available.
    pub uncurated: Option<UncuratedReport>,
    /// The corpus as titles and abstracts (the English summaries) only, nothing curated: a
    /// user's list from BibTeX or arXiv metadata. When some paper has a summary and the model
    /// is available.
    pub abstracts: Option<UncuratedReport>,
    /// `None` when the model was not available.
    pub crosslingual: Option<CrossLingual>,
    /// `None` when the corpus has fewer than two topic labels.
    pub clusters: Option<Clusters>,
    /// The stored HNSW graph against the exact scan; `None` below the size queries use it.
    pub graph: Option<graph::GraphFigures>,
    /// The feed on a time split of the list (`bench::feed`); `None` without dated sections.
    pub feed: Option<feed::FeedReport>,
    pub speed: Speed,
    /// What was skipped, and why.
    pub notes: Vec<String>,
}

/// Same-topic precision@5 and MRR of every system of [`judged::like_systems`]. Ours ranks
/// without the sections as its own tags (`engine::retrieve::related_without_sections`): the
/// sections are what this measures agreement with.
pub fn related_qualities(index: &Searcher) -> Vec<RelatedQuality> {
    judged::like_systems(index)
        .iter()
        .map(|(name, rank)| {
            if *name == judged::OURS {
                let blind =
                    |s: usize| crate::engine::retrieve::related_without_sections(index, s, 10);
                quality::related_quality_with(index, name, &blind)
            } else {
                quality::related_quality_with(index, name, rank.as_ref())
            }
        })
        .collect()
}

/// Judged-set figures of every system on `index` (search only with an embedder); the
/// `probes` go into the weak-match figures.
pub fn judged_report(
    index: &Searcher,
    judged: &judged::Judged,
    embedder: Option<&Embedder>,
    probes: &judged::WeakProbes,
) -> Result<JudgedReport, BenchError> {
    // Every system ranks every seed once, for the figures of one reader and of two.
    let rankings = judged::rank_seeds(index, judged);
    Ok(JudgedReport {
        source: judged.source.display().to_string(),
        like: judged::like_scores(&rankings, judged),
        paths: judged::path_scores(index, judged),
        weak_links: judged::weak_link_score(index, judged),
        search: match embedder {
            Some(e) => Some(judged::search_scores(index, judged, e)?),
            None => None,
        },
        readers: judged::reader_agreement(&rankings, judged),
        weak_matches: match embedder {
            Some(e) => judged::weak_match_score(index, judged, probes, e)?,
            None => None,
        },
    })
}

/// A paper as a user's own list would hold it: names and highlight, nothing curated.
pub fn uncurated(p: &crate::corpus::Paper) -> crate::corpus::Paper {
    crate::corpus::Paper {
        summary: String::new(),
        seed_highlight: String::new(),
        tags: Vec::new(),
        builds_on: Vec::new(),
        ..p.clone()
    }
}

/// A paper as a list of titles and abstracts holds it: names and the English summary in the
/// abstract's place; no highlight, tags or `builds_on`.
pub fn titles_and_abstracts(p: &crate::corpus::Paper) -> crate::corpus::Paper {
    crate::corpus::Paper {
        highlight: String::new(),
        seed_highlight: String::new(),
        tags: Vec::new(),
        builds_on: Vec::new(),
        ..p.clone()
    }
}

/// Whether any paper has a curated field that [`uncurated`] removes.
fn has_curated_fields(papers: &[crate::corpus::Paper]) -> bool {
    papers
        .iter()
        .any(|p| !p.summary.is_empty() || !p.tags.is_empty() || !p.builds_on.is_empty())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// [`run`]'s figures on the corpus reduced by `strip` (its curated fields left out), rebuilt
/// with `embedder`.
fn uncurated_report(
    papers: &[crate::corpus::Paper],
    strip: fn(&crate::corpus::Paper) -> crate::corpus::Paper,
    e: &Embedder,
    opts: &Options,
) -> Result<UncuratedReport, BenchError> {
    let stripped: Vec<_> = papers.iter().map(strip).collect();
    let (plain, _) = speed::build_index(stripped, "uncurated", e)?;
    let plain = Searcher::new(plain);
    Ok(UncuratedReport {
        related: related_qualities(&plain),
        judged: match &opts.judgments {
            Some(j) => Some(judged_report(&plain, j, Some(e), &opts.probes)?),
            None => None,
        },
        heldout: match &opts.heldout {
            Some(j) => Some(judged_report(&plain, j, Some(e), &Default::default())?),
            None => None,
        },
    })
}

/// The speed figures: `--like` latency always; the model's figures with an embedder and
/// without `quick` (else a note says why they are missing): warm search, and with `reembed`
/// also the index build and embedding throughput (which embed the whole corpus again).
fn measure_speed(
    index: &Searcher,
    embedder: Option<&Embedder>,
    opts: &Options,
    notes: &mut Vec<String>,
    reembed: bool,
) -> Result<Speed, BenchError> {
    let papers = index.papers();
    let queries = if opts.latency_queries == 0 {
        100
    } else {
        opts.latency_queries
    };
    let mut speed = Speed {
        index_load_ms: opts.index_load.map(ms),
        like: speed::like_latency(index, queries),
        model_load_ms: None,
        index_build_s: None,
        passages_per_s: None,
        titles_per_s: None,
        titles_per_s_one_by_one: None,
        highlights_per_s: None,
        search: None,
        search_embed: None,
        search_judged: None,
    };
    match embedder {
        Some(e) if !opts.quick && !reembed => {
            speed.model_load_ms = Some(ms(e.load_timings().total));
            search_speed(&mut speed, index, e, opts, queries)?;
        }
        Some(e) if !opts.quick => {
            speed.model_load_ms = Some(ms(e.load_timings().total));
            let build = match opts.index_build {
                Some(d) => d,
                None => speed::build_index(papers.to_vec(), "bench", e)?.1,
            };
            speed.index_build_s = Some(build.as_secs_f64());
            speed.passages_per_s = Some(papers.len() as f64 / build.as_secs_f64());
            let titles: Vec<String> = papers.iter().map(|p| p.title.clone()).collect();
            let highlights: Vec<String> = papers
                .iter()
                .map(|p| p.highlight.clone())
                .filter(|h| !h.trim().is_empty())
                .collect();
            speed.titles_per_s = Some(speed::throughput(e, &titles)?);
            let few = &titles[..titles.len().min(32)];
            speed.titles_per_s_one_by_one = Some(speed::throughput_one_by_one(e, few)?);
            if !highlights.is_empty() {
                speed.highlights_per_s = Some(speed::throughput(e, &highlights)?);
            }
            search_speed(&mut speed, index, e, opts, queries)?;
        }
        _ => notes.push(if opts.quick {
            "--quick: model speed figures skipped".into()
        } else {
            "model speed figures skipped: the model is not installed".into()
        }),
    }
    Ok(speed)
}

/// Warm search latency into `speed`: over `queries` queries from the papers' highlights and
/// titles, and over the judged set's queries when there is one.
fn search_speed(
    speed: &mut Speed,
    index: &Searcher,
    e: &Embedder,
    opts: &Options,
    queries: usize,
) -> Result<(), BenchError> {
    let qs = speed::search_queries(index.papers(), queries);
    let (total, embed) = speed::search_latency(index, e, &qs)?;
    speed.search = Some(total);
    speed.search_embed = Some(embed);
    if let Some(j) = &opts.judgments {
        let qs: Vec<String> = j.search.iter().map(|(_, q, _)| q.clone()).collect();
        if !qs.is_empty() {
            speed.search_judged = Some(speed::search_latency(index, e, &qs)?.0);
        }
    }
    Ok(())
}

/// Above this many papers `recommend bench` measures scale, not quality: the graph, `--like`
/// latency and the index load. The quality sections rank every paper against every other with
/// each baseline (quadratic: hours at 100k papers) or embed the whole corpus again (titles-only
/// and cross-lingual: an hour at 10k papers on 2 cores), so they are skipped, and said so.
pub const QUALITY_MAX_PAPERS: usize = 5_000;

/// Measure everything on `index`. Without an embedder, cross-lingual retrieval and the model's
/// speed figures are skipped (and said so in `notes`); with `quick`, only the model's speed.
/// Above [`QUALITY_MAX_PAPERS`], only the graph and the speed figures that need no re-embedding.
pub fn run(
    index: &Searcher,
    embedder: Option<&Embedder>,
    opts: &Options,
) -> Result<BenchReport, BenchError> {
    if index.len() > QUALITY_MAX_PAPERS {
        return run_scale(index, embedder, opts);
    }
    let mut notes = Vec::new();
    let papers = index.papers();
    let topics_n = papers
        .iter()
        .map(|p| p.topic.trim())
        .filter(|t| !t.is_empty())
        .collect::<BTreeSet<_>>()
        .len();
    let related = related_qualities(index);
    let judged = match &opts.judgments {
        Some(j) => Some(judged_report(index, j, embedder, &opts.probes)?),
        None => {
            notes.push("judged set skipped: no judgments for this index".into());
            None
        }
    };
    let heldout = match &opts.heldout {
        Some(j) => Some(judged_report(index, j, embedder, &Default::default())?),
        None => None,
    };
    let uncurated = match embedder {
        Some(e) if has_curated_fields(papers) => {
            Some(uncurated_report(papers, uncurated, e, opts)?)
        }
        _ => None,
    };
    let abstracts = match embedder {
        // A list that is already titles and abstracts would be built a second time, to give
        // its own figures again.
        Some(_) if papers.iter().all(|p| titles_and_abstracts(p) == *p) => {
            if papers.iter().any(|p| !p.summary.is_empty()) {
                notes.push(
                    "titles + abstracts form skipped: the list is in that form (its figures \
                     are the list's own)"
                        .into(),
                );
            }
            None
        }
        Some(e) if papers.iter().any(|p| !p.summary.is_empty()) => {
            Some(uncurated_report(papers, titles_and_abstracts, e, opts)?)
        }
        _ => None,
    };
    let crosslingual = match embedder {
        Some(e) => Some(crosslingual::cross_lingual(papers, e)?),
        None => {
            notes.push("cross-lingual retrieval skipped: the model is not installed".into());
            None
        }
    };
    let clusters = clusters(index, None)?;
    if clusters.is_none() {
        notes.push("topic clusters skipped: the corpus has fewer than two topic labels".into());
    }
    let graph = graph::measure(index);
    let feed = feed::report(index);
    if feed.is_none() {
        notes.push("feed time split skipped: too few dated papers in sections".into());
    }
    let speed = measure_speed(index, embedder, opts, &mut notes, true)?;
    Ok(BenchReport {
        recommend: env!("CARGO_PKG_VERSION").into(),
        quick: opts.quick,
        machine: speed::machine(),
        corpus: corpus_info(index, topics_n),
        related,
        judged,
        heldout,
        uncurated,
        abstracts,
        crosslingual,
        clusters,
        graph,
        feed,
        speed,
        notes,
    })
}

fn corpus_info(index: &Searcher, topics: usize) -> CorpusInfo {
    CorpusInfo {
        source: index.meta.corpus_source.clone(),
        papers: index.len(),
        topics,
        model_id: index.meta.model_id.clone(),
    }
}

/// [`run`] on an index above [`QUALITY_MAX_PAPERS`]: the graph against the scan, `--like`
/// latency, index load, and warm search when the model is there and not `quick`.
fn run_scale(
    index: &Searcher,
    embedder: Option<&Embedder>,
    opts: &Options,
) -> Result<BenchReport, BenchError> {
    let mut notes = vec![format!(
        "{} papers: quality sections (related work, judged set, titles-only, cross-lingual, \
         topics) and embedding throughput skipped above {QUALITY_MAX_PAPERS} papers",
        index.len()
    )];
    let speed = measure_speed(index, embedder, opts, &mut notes, false)?;
    Ok(BenchReport {
        recommend: env!("CARGO_PKG_VERSION").into(),
        quick: opts.quick,
        machine: speed::machine(),
        corpus: corpus_info(index, 0),
        related: Vec::new(),
        judged: None,
        heldout: None,
        uncurated: None,
        abstracts: None,
        crosslingual: None,
        clusters: None,
        graph: graph::measure(index),
        feed: None,
        speed,
        notes,
    })
}
