//! Quality and speed evaluation behind `recommend bench`.
//!
//! [`run`] measures everything on one index and returns a [`BenchReport`]: plain data, serialized
//! as one JSON object so runs can be compared, and laid out as [`Section`]s for people.

pub mod crosslingual;
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
    /// The judged development set to measure on (see [`judged`]).
    pub judgments: Option<judged::Judged>,
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
}

/// Judged-set figures for every system.
#[derive(Debug, Clone, Serialize)]
pub struct JudgedReport {
    pub source: String,
    pub like: Vec<judged::LikeScore>,
    pub paths: judged::PathScore,
    /// `None` without the model.
    pub search: Option<Vec<judged::SearchScore>>,
}

/// The same measurements on the corpus reduced to what a user's list has: titles (and
/// aliases) and highlights, without the curated summaries, tags and `builds_on`.
#[derive(Debug, Clone, Serialize)]
pub struct UncuratedReport {
    pub related: Vec<RelatedQuality>,
    pub judged: Option<JudgedReport>,
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
    /// The corpus without its curated fields, when it has any and the model is available.
    pub uncurated: Option<UncuratedReport>,
    /// `None` when the model was not available.
    pub crosslingual: Option<CrossLingual>,
    /// `None` when the corpus has fewer than two topic labels.
    pub clusters: Option<Clusters>,
    pub speed: Speed,
    /// What was skipped, and why.
    pub notes: Vec<String>,
}

/// Same-topic precision@5 and MRR of every system of [`judged::like_systems`].
pub fn related_qualities(index: &Index) -> Vec<RelatedQuality> {
    judged::like_systems(index)
        .iter()
        .map(|(name, rank)| quality::related_quality_with(index, name, rank.as_ref()))
        .collect()
}

/// Judged-set figures of every system on `index` (search only with an embedder).
pub fn judged_report(
    index: &Index,
    judged: &judged::Judged,
    embedder: Option<&Embedder>,
) -> Result<JudgedReport, BenchError> {
    Ok(JudgedReport {
        source: judged.source.display().to_string(),
        like: judged::like_scores(index, judged),
        paths: judged::path_scores(index, judged),
        search: match embedder {
            Some(e) => Some(judged::search_scores(index, judged, e)?),
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

/// Whether any paper has a curated field that [`uncurated`] removes.
fn has_curated_fields(papers: &[crate::corpus::Paper]) -> bool {
    papers
        .iter()
        .any(|p| !p.summary.is_empty() || !p.tags.is_empty() || !p.builds_on.is_empty())
}

/// Topic clusters against the labels: ours (graph communities, automatic k), then TF-IDF
/// k-means and dense (e5) k-means at the same k; with the largest cluster's size over the
/// median size (a catch-all shows as a large ratio).
pub fn clusters(index: &Index) -> Result<Option<Clusters>, BenchError> {
    let ours = crate::engine::communities::cluster(index, None)?;
    let Some(agree) = topics::agreement(&ours, index.papers()) else {
        return Ok(None);
    };
    let gold = topics::gold_labels(index.papers());
    let score = |method: &str, labels: &[usize]| -> ClusterScore {
        let (g, b): (Vec<usize>, Vec<usize>) = gold
            .iter()
            .zip(labels)
            .filter_map(|(g, b)| g.map(|g| (g, *b)))
            .unzip();
        ClusterScore {
            method: method.into(),
            k: agree.k,
            nmi: topics::nmi(&g, &b),
            ari: topics::ari(&g, &b),
            largest_over_median: size_ratio(labels),
        }
    };
    let mut ours_labels = vec![0usize; index.len()];
    for t in &ours {
        for id in &t.papers {
            if let Some(i) = index
                .table()
                .named(&crate::text::name_key(id))
                .into_iter()
                .find(|&i| index.table().id(i) == *id)
            {
                ours_labels[i] = t.id;
            }
        }
    }
    let dense = topics::kmeans_labels(index.vectors(), agree.k);
    let tfidf = tfidf::kmeans_baseline(index.papers(), agree.k);
    Ok(Some(Clusters {
        labels: agree.labels,
        papers: agree.papers,
        results: vec![
            score("ours (related-work graph, spectral, auto k)", &ours_labels),
            score("tfidf k-means", &tfidf),
            score("dense e5 k-means", &dense),
        ],
    }))
}

/// Largest cluster size over the median cluster size.
pub fn size_ratio(labels: &[usize]) -> f64 {
    let k = labels.iter().max().map_or(0, |m| m + 1);
    let mut sizes = vec![0usize; k];
    for &l in labels {
        sizes[l] += 1;
    }
    sizes.retain(|&s| s > 0);
    sizes.sort_unstable();
    if sizes.is_empty() {
        return 0.0;
    }
    let mid = sizes.len() / 2;
    let median = if sizes.len() % 2 == 1 {
        sizes[mid] as f64
    } else {
        (sizes[mid - 1] + sizes[mid]) as f64 / 2.0
    };
    *sizes.last().expect("not empty") as f64 / median
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
    let related = related_qualities(index);
    let judged = match &opts.judgments {
        Some(j) => Some(judged_report(index, j, embedder)?),
        None => {
            notes.push("judged set skipped: no judgments for this index".into());
            None
        }
    };
    let uncurated = match embedder {
        Some(e) if has_curated_fields(papers) => {
            let stripped: Vec<_> = papers.iter().map(uncurated).collect();
            let (plain, _) = speed::build_index(stripped.clone(), "uncurated", e)?;
            Some(UncuratedReport {
                related: related_qualities(&plain),
                judged: match &opts.judgments {
                    Some(j) => Some(judged_report(&plain, j, Some(e))?),
                    None => None,
                },
            })
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
        judged,
        uncurated,
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

fn related_section(related: &[RelatedQuality], what: &str) -> Section {
    let base = related.iter().find(|r| r.mode == "tfidf words");
    Section {
        title: format!(
            "Related work{what} (--like, {} seeds): same-topic precision@5 and MRR",
            related.first().map_or(0, |r| r.seeds)
        ),
        columns: vec!["system", "P@5", "MRR", "P@5 vs tfidf words"],
        rows: related
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
    }
}

fn judged_sections(j: &JudgedReport, what: &str, out: &mut Vec<Section>) {
    out.push(Section {
        title: format!(
            "Judged related work{what} ({} seeds, {})",
            j.like.first().map_or(0, |l| l.seeds),
            j.source
        ),
        columns: vec!["system", "related@5", "nDCG@10", "absurd@5"],
        rows: j
            .like
            .iter()
            .map(|l| {
                vec![
                    l.system.clone(),
                    f3(l.related_at_5),
                    f3(l.ndcg_at_10),
                    f3(l.absurd_at_5),
                ]
            })
            .collect(),
    });
    out.push(Section {
        title: format!(
            "Judged reading paths{what} (path --like SEED -n {}, {} seeds)",
            judged::PATH_STEPS,
            j.paths.seeds
        ),
        columns: vec!["steps", "judged related", "builds_on edges backwards"],
        rows: vec![vec![
            j.paths.steps.to_string(),
            f3(j.paths.related_share),
            j.paths.backwards_edges.to_string(),
        ]],
    });
    if let Some(search) = &j.search {
        out.push(Section {
            title: format!("Judged search{what} (per query language)"),
            columns: vec!["system", "lang", "queries", "hit@1", "hit@5", "MRR"],
            rows: search
                .iter()
                .map(|s| {
                    vec![
                        s.system.clone(),
                        s.lang.clone(),
                        s.queries.to_string(),
                        f3(s.hit_at_1),
                        f3(s.hit_at_5),
                        f3(s.mrr),
                    ]
                })
                .collect(),
        });
    }
}

impl BenchReport {
    /// The report as tables: related work, cross-lingual, clusters, speed.
    pub fn sections(&self) -> Vec<Section> {
        let mut out = Vec::new();
        out.push(related_section(&self.related, ""));
        if let Some(j) = &self.judged {
            judged_sections(j, "", &mut out);
        }
        if let Some(u) = &self.uncurated {
            out.push(related_section(
                &u.related,
                " on titles + highlights only (no curated fields)",
            ));
            if let Some(j) = &u.judged {
                judged_sections(j, " on titles + highlights only", &mut out);
            }
        }
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
                columns: vec!["method", "k", "NMI", "ARI", "largest/median"],
                rows: c
                    .results
                    .iter()
                    .map(|r| {
                        vec![
                            r.method.clone(),
                            r.k.to_string(),
                            f3(r.nmi),
                            f3(r.ari),
                            format!("{:.2}", r.largest_over_median),
                        ]
                    })
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
