//! The bench report for people and programs: its [`BenchReport::sections`] as one document
//! each, rendered in the requested format (titled tables for a terminal).

use super::judged;
use super::{BenchReport, Clusters, CrossLingual, JudgedReport, Latency, RelatedQuality};
use crate::render::{self, Document, Format, col, wrap};

/// `report` in `format`: one document per section; in a table each is preceded by its title.
/// (`--format json` prints the report itself, not this.)
pub fn render(report: &BenchReport, format: Format) -> String {
    let mut text = String::new();
    for s in &report.sections() {
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
    text
}

/// The feed on the time split: every system, then the rated runs.
fn feed_sections(f: &super::feed::FeedReport, out: &mut Vec<Section>) {
    let rows = |systems: &[super::feed::FeedSystem]| -> Vec<Vec<String>> {
        systems
            .iter()
            .map(|s| {
                vec![
                    s.name.clone(),
                    format!("{:.3}", s.precision_at_10),
                    format!("{:.3}", s.ndcg_at_10),
                    s.margin.map_or(String::new(), |m| {
                        format!("{:+.3} [{:+.3}, {:+.3}]", m.mean, m.low, m.high)
                    }),
                ]
            })
            .collect()
    };
    let columns = vec!["system", "P@10", "nDCG@10", "ours minus this, P@10 [95%]"];
    out.push(Section {
        title: format!(
            "Feed: {} readers (one or two sections before {}, {:.1} papers each), {} candidates after",
            f.readers, f.split, f.library_mean, f.candidates
        ),
        columns: columns.clone(),
        rows: rows(&f.systems),
    });
    out.push(Section {
        title: format!(
            "Feed after {} up and {} down ratings, on the candidates left",
            super::feed::RATINGS,
            super::feed::RATINGS
        ),
        columns,
        rows: rows(&f.rated),
    });
}

/// The stored graph against the exact scan.
fn graph_section(g: &super::graph::GraphFigures) -> Section {
    Section {
        title: format!(
            "HNSW graph vs exact scan ({} papers, {} of them as queries, themselves left out)",
            g.papers, g.probes
        ),
        columns: vec!["measure", "value"],
        rows: vec![
            vec!["stored ef_search".into(), g.ef_search.to_string()],
            vec!["recall@10".into(), format!("{:.4}", g.recall_at_10)],
            vec![
                "per query".into(),
                format!(
                    "graph {:.3} ms, scan {:.3} ms: {:.1}x",
                    g.graph_ms, g.scan_ms, g.speedup
                ),
            ],
        ],
    }
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

/// "+0.167 [+0.098, +0.236]": ours minus a baseline and its 95% interval; "-" on our own row.
fn margin(m: Option<judged::Margin>) -> String {
    m.map_or("-".into(), |m| {
        format!("{:+.3} [{:+.3}, {:+.3}]", m.mean, m.low, m.high)
    })
}

fn judged_sections(j: &JudgedReport, what: &str, out: &mut Vec<Section>) {
    out.push(Section {
        title: format!(
            "Judged related work{what} ({} seeds, {})",
            j.like.first().map_or(0, |l| l.seeds),
            j.source
        ),
        columns: vec![
            "system",
            "related@5",
            "nDCG@10",
            "absurd@5",
            "ours - it, related@5 [95%]",
        ],
        rows: j
            .like
            .iter()
            .map(|l| {
                vec![
                    l.system.clone(),
                    f3(l.related_at_5),
                    f3(l.ndcg_at_10),
                    f3(l.absurd_at_5),
                    margin(l.ours_minus_this),
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
        columns: vec![
            "steps",
            "judged related",
            "recall",
            "builds_on edges backwards",
        ],
        rows: vec![vec![
            j.paths.steps.to_string(),
            f3(j.paths.related_share),
            f3(j.paths.recall),
            j.paths.backwards_edges.to_string(),
        ]],
    });
    if let Some(w) = &j.weak_links {
        out.push(Section {
            title: format!(
                "Weak links{what}: our top 5 split by why's \"a weak link for this list\""
            ),
            columns: vec!["results", "count", "judged unrelated", "judged related"],
            rows: vec![
                vec![
                    "flagged weak".into(),
                    w.flagged.to_string(),
                    f3(w.flagged_unrelated),
                    f3(w.flagged_related),
                ],
                vec![
                    "not flagged".into(),
                    w.unflagged.to_string(),
                    f3(w.unflagged_unrelated),
                    f3(w.unflagged_related),
                ],
            ],
        });
    }
    if let Some(r) = &j.readers {
        let pair = |t: judged::Top5| format!("{} / {}", f3(t.related_at_5), f3(t.absurd_at_5));
        let mut rows: Vec<Vec<String>> = r
            .systems
            .iter()
            .map(|s| {
                vec![
                    s.system.clone(),
                    pair(s.first),
                    pair(s.second),
                    pair(s.either),
                ]
            })
            .collect();
        if let Some(t) = r.reader_top5 {
            rows.push(vec![
                "second reader's own top 5 (full records)".into(),
                pair(t),
                "-".into(),
                "-".into(),
            ]);
        }
        out.push(Section {
            title: format!(
                "Two readers{what} ({} seeds, {}): related@5 / absurd@5 by each reader's grades; \
                 of each reader's related papers the other lists {} / {}",
                r.seeds,
                r.source,
                f3(r.second_listed_by_first),
                f3(r.first_listed_by_second)
            ),
            columns: vec!["system", "first reader", "second reader", "either reader"],
            rows,
        });
    }
    if let Some(search) = &j.search {
        out.push(Section {
            title: format!("Judged search{what} (per query language)"),
            columns: vec![
                "system",
                "lang",
                "queries",
                "hit@1",
                "hit@5",
                "MRR",
                "ours - it, MRR [95%]",
            ],
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
                        margin(s.ours_minus_this),
                    ]
                })
                .collect(),
        });
    }
    if let Some(w) = &j.weak_matches {
        let mut rows = vec![vec![
            "judged queries (about the list)".into(),
            w.judged_queries.to_string(),
            w.judged_flagged.to_string(),
            format!("{} answered at #1 all the same", w.judged_flagged_answered),
        ]];
        if w.offtopic_queries > 0 {
            rows.push(vec![
                "queries from other fields".into(),
                w.offtopic_queries.to_string(),
                w.offtopic_flagged.to_string(),
                String::new(),
            ]);
        }
        if w.offtopic_short_queries > 0 {
            rows.push(vec![
                "short queries from other fields".into(),
                w.offtopic_short_queries.to_string(),
                w.offtopic_short_flagged.to_string(),
                String::new(),
            ]);
        }
        if w.infield_short_queries > 0 {
            rows.push(vec![
                "short queries about the field".into(),
                w.infield_short_queries.to_string(),
                w.infield_short_flagged.to_string(),
                format!(
                    "{} answered at #1 all the same (judged on the shipped list)",
                    w.infield_short_flagged_answered
                ),
            ]);
        }
        out.push(Section {
            title: format!(
                "Weak matches{what}: searches whose why says \"a weak match for this list\""
            ),
            columns: vec!["queries", "count", "called weak", "note"],
            rows,
        });
    }
}

impl BenchReport {
    /// The report as tables: related work, judged set, uncurated corpus, cross-lingual,
    /// clusters, speed.
    pub fn sections(&self) -> Vec<Section> {
        let mut out = Vec::new();
        if !self.related.is_empty() {
            out.push(related_section(&self.related, ""));
        }
        if let Some(j) = &self.judged {
            judged_sections(j, "", &mut out);
        }
        if let Some(j) = &self.heldout {
            judged_sections(j, " on the held-out set (never tuned on)", &mut out);
        }
        for (u, what) in [
            (&self.uncurated, "titles + highlights"),
            (&self.abstracts, "titles + abstracts"),
        ] {
            let Some(u) = u else { continue };
            out.push(related_section(
                &u.related,
                &format!(" on {what} only (no curated fields)"),
            ));
            if let Some(j) = &u.judged {
                judged_sections(j, &format!(" on {what} only"), &mut out);
            }
            if let Some(j) = &u.heldout {
                judged_sections(
                    j,
                    &format!(" on {what} only, held-out set (never tuned on)"),
                    &mut out,
                );
            }
        }
        if let Some(c) = &self.crosslingual {
            out.push(crosslingual_section(c));
        }
        if let Some(c) = &self.clusters {
            out.push(clusters_section(c));
        }
        if let Some(g) = &self.graph {
            out.push(graph_section(g));
        }
        if let Some(f) = &self.feed {
            feed_sections(f, &mut out);
        }
        out.push(self.speed_section());
        out
    }

    /// Speed figures, the model's only when they were measured.
    fn speed_section(&self) -> Section {
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
            if let Some(t) = &s.search_judged {
                rows.push(vec![
                    format!("free-text search warm, judged queries ({})", t.queries),
                    lat(t),
                    "as a researcher types them".into(),
                ]);
            }
        }
        Section {
            title: "Speed".into(),
            columns: vec!["measure", "value", "note"],
            rows,
        }
    }
}

fn crosslingual_section(c: &CrossLingual) -> Section {
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
    Section {
        title: format!("Cross-lingual retrieval ({} queries each way)", c.queries),
        columns: vec!["direction", "system", "R@1", "R@10", "MRR"],
        rows,
    }
}

fn clusters_section(c: &Clusters) -> Section {
    Section {
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
    }
}
