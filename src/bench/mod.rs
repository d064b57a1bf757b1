//! Quality and speed evaluation behind `recommend bench`.
//!
//! [`run`] measures everything on one index and returns a [`BenchReport`]: plain data, serialized
//! as one JSON object so runs can be compared, and laid out as [`Section`]s for people.

pub mod crosslingual;
pub mod quality;
pub mod speed;
pub mod synthetic;
pub mod tfidf;

use std::collections::BTreeSet;
use std::time::Duration;

use serde::Serialize;

use crate::engine::Mode;
use crate::engine::topics;
use crate::index::{Index, IndexError};
use crate::model::{Embedder, ModelError};

pub use crosslingual::{CrossLingual, Retrieval};
pub use quality::RelatedQuality;
pub use speed::{Latency, Machine};

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error(transparent)]
    Model(#[from] ModelError),
    #[error(transparent)]
    Index(#[from] IndexError),
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
}

/// Every figure of one `recommend bench` run.
#[derive(Debug, Clone, Serialize)]
pub struct BenchReport {
    pub recommend: String,
    pub quick: bool,
    pub machine: Machine,
    pub corpus: CorpusInfo,
    /// `--like` for every paper whose topic has another member: hybrid, dense, lexical, TF-IDF.
    pub related: Vec<RelatedQuality>,
    /// `None` when the model was not available.
    pub crosslingual: Option<CrossLingual>,
    /// `None` when the corpus has fewer than two topic labels.
    pub clusters: Option<Clusters>,
    pub speed: Speed,
    /// What was skipped, and why.
    pub notes: Vec<String>,
}

/// The TF-IDF baseline for related work: cosine over title + highlight ([`tfidf`]).
pub fn tfidf_related_quality(index: &Index) -> RelatedQuality {
    let model = tfidf::Tfidf::fit_papers(index.papers());
    quality::related_quality_with(index, "tfidf", &|seed| {
        let scores = model.similar_to(seed);
        let mut ranked: Vec<(usize, f32)> = scores
            .into_iter()
            .enumerate()
            .filter(|&(i, _)| i != seed)
            .collect();
        crate::index::ann::sort_hits(&mut ranked);
        ranked.into_iter().take(10).map(|(i, _)| i).collect()
    })
}

/// Topic clusters against the labels: ours (auto k) and TF-IDF k-means at the same k.
pub fn clusters(index: &Index) -> Result<Option<Clusters>, BenchError> {
    let ours = topics::cluster(index.papers(), index.vectors(), None)?;
    let Some(agree) = topics::agreement(&ours, index.papers()) else {
        return Ok(None);
    };
    let base = tfidf::kmeans_baseline(index.papers(), agree.k);
    let (g, b): (Vec<usize>, Vec<usize>) = topics::gold_labels(index.papers())
        .iter()
        .zip(&base)
        .filter_map(|(g, b)| g.map(|g| (g, *b)))
        .unzip();
    Ok(Some(Clusters {
        labels: agree.labels,
        papers: agree.papers,
        results: vec![
            ClusterScore {
                method: "ours (e5 + spherical k-means, auto k)".into(),
                k: agree.k,
                nmi: agree.nmi,
                ari: agree.ari,
            },
            ClusterScore {
                method: "tfidf k-means".into(),
                k: agree.k,
                nmi: topics::nmi(&g, &b),
                ari: topics::ari(&g, &b),
            },
        ],
    }))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Measure everything on `index`. Without an embedder, cross-lingual retrieval and the model's
/// speed figures are skipped (and said so in `notes`); with `quick`, only the model's speed.
pub fn run(
    index: &Index,
    embedder: Option<&Embedder>,
    opts: &Options,
) -> Result<BenchReport, BenchError> {
    let mut notes = Vec::new();
    let papers = index.papers();
    let topics_n = papers
        .iter()
        .map(|p| p.topic.trim())
        .filter(|t| !t.is_empty())
        .collect::<BTreeSet<_>>()
        .len();
    let mut related: Vec<RelatedQuality> = Mode::ALL
        .iter()
        .map(|&m| quality::related_quality(index, m))
        .collect();
    related.push(tfidf_related_quality(index));
    let crosslingual = match embedder {
        Some(e) => Some(crosslingual::cross_lingual(papers, e)?),
        None => {
            notes.push("cross-lingual retrieval skipped: the model is not installed".into());
            None
        }
    };
    let clusters = clusters(index)?;
    if clusters.is_none() {
        notes.push("topic clusters skipped: the corpus has fewer than two topic labels".into());
    }
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
    };
    match embedder {
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
            let qs = speed::search_queries(papers, queries);
            let (total, embed) = speed::search_latency(index, e, &qs)?;
            speed.search = Some(total);
            speed.search_embed = Some(embed);
        }
        _ => notes.push(if opts.quick {
            "--quick: model speed figures skipped".into()
        } else {
            "model speed figures skipped: the model is not installed".into()
        }),
    }
    Ok(BenchReport {
        recommend: env!("CARGO_PKG_VERSION").into(),
        quick: opts.quick,
        machine: speed::machine(),
        corpus: CorpusInfo {
            source: index.meta.corpus_source.clone(),
            papers: papers.len(),
            topics: topics_n,
            model_id: index.meta.model_id.clone(),
        },
        related,
        crosslingual,
        clusters,
        speed,
        notes,
    })
}

/// One table of the report, for people.
#[derive(Debug, Clone)]
pub struct Section {
    pub title: String,
    pub columns: Vec<&'static str>,
    pub rows: Vec<Vec<String>>,
}

fn f3(x: f64) -> String {
    format!("{x:.3}")
}

fn ratio(a: f64, b: f64) -> String {
    if b > 0.0 {
        format!("{:.2}x", a / b)
    } else {
        "-".into()
    }
}

fn opt(x: Option<f64>, digits: usize) -> String {
    x.map_or("-".into(), |v| format!("{v:.digits$}"))
}

impl BenchReport {
    /// The report as tables: related work, cross-lingual, clusters, speed.
    pub fn sections(&self) -> Vec<Section> {
        let mut out = Vec::new();
        let base = self.related.iter().find(|r| r.mode == "tfidf");
        out.push(Section {
            title: format!(
                "Related work (--like, {} seeds): same-topic precision@5 and MRR",
                self.related.first().map_or(0, |r| r.seeds)
            ),
            columns: vec!["system", "P@5", "MRR", "P@5 vs tfidf"],
            rows: self
                .related
                .iter()
                .map(|r| {
                    vec![
                        r.mode.clone(),
                        f3(r.precision_at_5),
                        f3(r.mrr),
                        base.map_or("-".into(), |b| ratio(r.precision_at_5, b.precision_at_5)),
                    ]
                })
                .collect(),
        });
        if let Some(c) = &self.crosslingual {
            let mut rows = Vec::new();
            for (dir, rs) in [
                ("zh highlight -> en title", &c.zh_to_en),
                ("en title -> zh highlight", &c.en_to_zh),
            ] {
                for r in rs {
                    rows.push(vec![
                        dir.to_string(),
                        r.system.clone(),
                        f3(r.recall_at_1),
                        f3(r.recall_at_10),
                        f3(r.mrr),
                    ]);
                }
            }
            out.push(Section {
                title: format!("Cross-lingual retrieval ({} queries each way)", c.queries),
                columns: vec!["direction", "system", "R@1", "R@10", "MRR"],
                rows,
            });
        }
        if let Some(c) = &self.clusters {
            out.push(Section {
                title: format!(
                    "Topic clusters vs {} labels ({} papers)",
                    c.labels, c.papers
                ),
                columns: vec!["method", "k", "NMI", "ARI"],
                rows: c
                    .results
                    .iter()
                    .map(|r| vec![r.method.clone(), r.k.to_string(), f3(r.nmi), f3(r.ari)])
                    .collect(),
            });
        }
        let s = &self.speed;
        let lat = |l: &Latency| format!("p50 {:.2} ms, p95 {:.2} ms", l.p50_ms, l.p95_ms);
        let mut rows = vec![
            vec![
                "machine".into(),
                match self.machine.load_average {
                    Some(l) => format!(
                        "{} cores, {}, load average {l:.2} at start",
                        self.machine.cores, self.machine.cpu
                    ),
                    None => format!("{} cores, {}", self.machine.cores, self.machine.cpu),
                },
                String::new(),
            ],
            vec![
                "index load".into(),
                opt(s.index_load_ms, 2) + " ms",
                String::new(),
            ],
            vec![
                format!("--like warm ({} queries)", s.like.queries),
                lat(&s.like),
                String::new(),
            ],
        ];
        if !self.quick {
            rows.push(vec![
                "model load".into(),
                opt(s.model_load_ms, 0) + " ms",
                String::new(),
            ]);
            rows.push(vec![
                format!("index build ({} passages)", self.corpus.papers),
                opt(s.index_build_s, 2) + " s",
                opt(s.passages_per_s, 1) + " passages/s",
            ]);
            rows.push(vec![
                "embedding: titles, batched".into(),
                opt(s.titles_per_s, 1) + "/s",
                match (s.titles_per_s, s.titles_per_s_one_by_one) {
                    (Some(a), Some(b)) => {
                        format!("one by one {b:.1}/s: batched is {}", ratio(a, b))
                    }
                    _ => String::new(),
                },
            ]);
            rows.push(vec![
                "embedding: zh highlights, batched".into(),
                opt(s.highlights_per_s, 1) + "/s",
                String::new(),
            ]);
            if let (Some(t), Some(e)) = (&s.search, &s.search_embed) {
                rows.push(vec![
                    format!("free-text search warm ({} queries)", t.queries),
                    lat(t),
                    format!("of which query embedding p50 {:.2} ms", e.p50_ms),
                ]);
            }
        }
        out.push(Section {
            title: "Speed".into(),
            columns: vec!["measure", "value", "note"],
            rows,
        });
        out
    }
}
