//! Tests of clustering, choosing k, labels and agreement.

use super::agreement::*;
use super::kmeans::*;
use super::labels::*;
use super::select::*;
use super::*;
use crate::corpus::Kind;
use crate::text;
use crate::util::SplitMix64 as Rng;
use ndarray::Array2;

pub(crate) fn paper(id: &str, title: &str, highlight: &str, topic: &str) -> Paper {
    Paper {
        id: id.into(),
        title: title.into(),
        highlight: highlight.into(),
        topic: topic.into(),
        kind: Kind::Method,
        ..Paper::default()
    }
}

/// `groups` clusters of `per` points around orthogonal axes, slightly perturbed.
fn blobs(groups: usize, per: usize, dim: usize) -> Array2<f32> {
    let n = groups * per;
    let mut m = Array2::zeros((n, dim));
    let mut rng = Rng(7);
    for i in 0..n {
        let g = i % groups;
        m[[i, g]] = 1.0;
        for j in 0..dim {
            m[[i, j]] += (rng.unit() as f32 - 0.5) * 0.3;
        }
        let norm = m.row(i).iter().map(|x| x * x).sum::<f32>().sqrt();
        m.row_mut(i).mapv_inplace(|x| x / norm);
    }
    m
}

fn corpus(groups: usize, per: usize) -> Vec<Paper> {
    let words = [
        ("GRPO reasoning reward", "强化学习 推理 奖励模型"),
        ("web search agent", "搜索 智能体 网页"),
        ("SWE-bench code repair", "代码 修复 软件工程"),
        ("memory long context", "记忆 长上下文 检索"),
        ("GUI computer use", "界面 操作 电脑"),
    ];
    (0..groups * per)
        .map(|i| {
            let g = i % groups;
            let (t, h) = words[g % words.len()];
            paper(
                &format!("p{i}"),
                &format!("{t} paper {i}"),
                h,
                &format!("topic{g}"),
            )
        })
        .collect()
}

#[test]
fn nmi_ari_known_values() {
    let t = [0, 0, 1, 1];
    let p = [0, 0, 1, 2];
    assert!((nmi(&t, &p) - 0.8).abs() < 1e-9, "{}", nmi(&t, &p));
    assert!((ari(&t, &p) - 4.0 / 7.0).abs() < 1e-9, "{}", ari(&t, &p));
    assert!((nmi(&t, &t) - 1.0).abs() < 1e-12);
    assert!((ari(&t, &t) - 1.0).abs() < 1e-12);
    // permuted names do not matter
    assert!((nmi(&[0, 0, 1, 1], &[5, 5, 3, 3]) - 1.0).abs() < 1e-12);
    // independent partitions: MI = 0, ARI = -0.5 (sklearn gives -0.5 for this one)
    assert!(nmi(&[0, 0, 1, 1], &[0, 1, 0, 1]).abs() < 1e-12);
    assert!((ari(&[0, 0, 1, 1], &[0, 1, 0, 1]) + 0.5).abs() < 1e-9);
    // one cluster against two: 0
    assert!(nmi(&[0, 0, 0, 0], &[0, 0, 1, 1]).abs() < 1e-12);
    // hand computed: t=[0,0,0,1,1,1], p=[0,0,1,1,2,2]: ARI = (2 - 6*3/15)/(4.5 - 1.2) = 0.8/3.3
    let (t, p) = ([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]);
    assert!((ari(&t, &p) - 0.8 / 3.3).abs() < 1e-9);
}

#[test]
fn clusters_cover_every_paper_once_and_recover_blobs() {
    let v = blobs(4, 10, 16);
    let papers = corpus(4, 10);
    let topics = cluster(&papers, v.view(), Some(4)).unwrap();
    assert_eq!(topics.len(), 4);
    let mut seen: Vec<&str> = topics
        .iter()
        .flat_map(|t| t.papers.iter().map(String::as_str))
        .collect();
    seen.sort();
    let mut all: Vec<&str> = papers.iter().map(|p| p.id.as_str()).collect();
    all.sort();
    assert_eq!(seen, all);
    for t in &topics {
        assert!(!t.papers.is_empty());
        assert_eq!(t.central, t.papers[0]);
        assert!(!t.keywords.is_empty() && t.keywords.len() <= KEYWORDS);
    }
    let a = agreement(&topics, &papers).unwrap();
    assert!(
        (a.nmi - 1.0).abs() < 1e-9 && (a.ari - 1.0).abs() < 1e-9,
        "{a:?}"
    );
    assert_eq!((a.k, a.labels, a.papers), (4, 4, 40));
}

#[test]
fn auto_k_finds_the_blobs() {
    let v = blobs(5, 8, 16);
    let papers = corpus(5, 8);
    let topics = cluster(&papers, v.view(), None).unwrap();
    assert_eq!(topics.len(), 5);
    assert!(agreement(&topics, &papers).unwrap().nmi > 0.99);
}

#[test]
fn deterministic_output() {
    let v = blobs(5, 9, 12);
    let papers = corpus(5, 9);
    let a = serde_json::to_string(&cluster(&papers, v.view(), None).unwrap()).unwrap();
    let b = serde_json::to_string(&cluster(&papers, v.view(), None).unwrap()).unwrap();
    assert_eq!(a, b);
    let c = serde_json::to_string(&cluster(&papers, v.view(), Some(7)).unwrap()).unwrap();
    let d = serde_json::to_string(&cluster(&papers, v.view(), Some(7)).unwrap()).unwrap();
    assert_eq!(c, d);
}

#[test]
fn k_bounds_and_errors() {
    let v = blobs(2, 3, 4);
    let papers = corpus(2, 3);
    assert_eq!(cluster(&papers, v.view(), Some(0)), Err(TopicError::ZeroK));
    assert_eq!(
        cluster(&papers, v.view(), Some(7)),
        Err(TopicError::TooManyTopics { k: 7, n: 6 })
    );
    assert_eq!(
        cluster(&[], Array2::<f32>::zeros((0, 4)).view(), None),
        Err(TopicError::Empty)
    );
    assert!(matches!(
        cluster(&papers[..3], v.view(), None),
        Err(TopicError::Mismatch { .. })
    ));
    // k == n: singletons, none empty
    let t = cluster(&papers, v.view(), Some(6)).unwrap();
    assert_eq!(t.len(), 6);
    assert!(t.iter().all(|t| t.papers.len() == 1));
    // one paper
    let t = cluster(&papers[..1], v.slice(ndarray::s![..1, ..]), None).unwrap();
    assert_eq!(t.len(), 1);
}

#[test]
fn duplicate_vectors_never_leave_empty_clusters() {
    let mut v = Array2::zeros((6, 3));
    for i in 0..6 {
        v[[i, 0]] = 1.0;
    }
    let papers = corpus(1, 6);
    let t = cluster(&papers, v.view(), Some(4)).unwrap();
    assert_eq!(t.len(), 4);
    assert_eq!(t.iter().map(|t| t.papers.len()).sum::<usize>(), 6);
}

#[test]
fn keywords_and_labels_mix_scripts() {
    let v = blobs(3, 6, 8);
    let papers = corpus(3, 6);
    let topics = cluster(&papers, v.view(), Some(3)).unwrap();
    let grpo = topics
        .iter()
        .find(|t| t.keywords.iter().any(|k| k == "GRPO"))
        .expect("GRPO kept in caps");
    assert!(
        grpo.keywords.iter().any(|k| k == "推理" || k == "强化学习"),
        "{:?}",
        grpo.keywords
    );
    assert!(grpo.label.contains(" · "));
    assert!(
        grpo.label.chars().any(text::is_cjk) && grpo.label.chars().any(|c| c.is_ascii_alphabetic()),
        "{}",
        grpo.label
    );
    let swe = topics
        .iter()
        .find(|t| t.keywords.iter().any(|k| k == "SWE-bench"))
        .expect("names kept");
    assert!(!swe.keywords.iter().any(|k| k == "paper"));
}

/// An abstract's function words and announcing verbs are no keyword; its terms are.
#[test]
fn keywords_skip_the_filler_of_abstracts() {
    let paper = Paper {
        id: "a".into(),
        title: "Credit assignment for web agents".into(),
        summary: "It adds a critic whose values must guide rollouts; we find and show gains."
            .into(),
        ..Paper::default()
    };
    let keys: Vec<String> = paper_terms(&paper).into_iter().map(|(k, _)| k).collect();
    for filler in ["adds", "whose", "must", "find", "show"] {
        assert!(!keys.contains(&filler.to_string()), "{filler} in {keys:?}");
    }
    for term in ["credit", "critic", "rollouts", "gains"] {
        assert!(keys.contains(&term.to_string()), "{term} not in {keys:?}");
    }
}

#[test]
fn labels_skip_nested_keywords_and_mix_scripts() {
    let kw = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        make_label(&kw(&["多智能体", "智能体", "GUI", "agents"])),
        "多智能体 · GUI · agents"
    );
    assert_eq!(
        make_label(&kw(&["推理", "奖励", "reward", "GRPO"])),
        "推理 · 奖励 · reward"
    );
    assert_eq!(
        make_label(&kw(&["GRPO", "推理", "reward"])),
        "GRPO · 推理 · reward"
    );
    assert_eq!(make_label(&kw(&["search"])), "search");
    assert_eq!(make_label(&[]), "(untitled)");
}

#[test]
fn k_range_bounds() {
    assert_eq!(k_range(0), 1..=1);
    assert_eq!(k_range(1), 1..=1);
    assert_eq!(k_range(5), 2..=2);
    assert_eq!(k_range(40), 4..=9);
    assert_eq!(k_range(150), 9..=18);
}

/// Naive average-linkage agglomerative clustering on cosine (O(n³)), for comparison only.
fn average_linkage(v: ndarray::ArrayView2<f32>, k: usize) -> Vec<usize> {
    let n = v.nrows();
    let g = gram_matrix(v);
    let mut clusters: Vec<Vec<usize>> = (0..n).map(|i| vec![i]).collect();
    while clusters.len() > k {
        let mut best = (f64::NEG_INFINITY, 0, 0);
        for a in 0..clusters.len() {
            for b in a + 1..clusters.len() {
                let mut s = 0.0f64;
                for &i in &clusters[a] {
                    for &j in &clusters[b] {
                        s += f64::from(g[i * n + j]);
                    }
                }
                s /= (clusters[a].len() * clusters[b].len()) as f64;
                if s > best.0 {
                    best = (s, a, b);
                }
            }
        }
        let merged = clusters.remove(best.2);
        clusters[best.1].extend(merged);
    }
    let mut labels = vec![0; n];
    for (c, m) in clusters.iter().enumerate() {
        for &i in m {
            labels[i] = c;
        }
    }
    labels
}

/// Measures agreement with the seed topics on a real corpus:
/// `RECOMMEND_EVAL_CORPUS=corpus/papers.jsonl cargo test --lib eval_corpus -- --ignored --nocapture`
#[test]
#[ignore]
fn eval_corpus() {
    let Ok(path) = std::env::var("RECOMMEND_EVAL_CORPUS") else {
        return;
    };
    let papers: Vec<Paper> = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let gold: Vec<usize> = gold_labels(&papers)
        .into_iter()
        .map(|g| g.unwrap_or(usize::MAX))
        .collect();
    let tfidf = crate::bench::tfidf::Tfidf::fit_papers(&papers);
    let mut v = ndarray::Array2::zeros((papers.len(), tfidf.dim()));
    for (i, row) in tfidf.rows().iter().enumerate() {
        for &(t, w) in row {
            v[[i, t]] = w;
        }
    }
    let g = gram_matrix(v.view());
    let n = papers.len();
    for k in [8, 12, 16, 20, 23] {
        let base = crate::bench::tfidf::kmeans_baseline(&papers, k);
        let km = spherical_kmeans(&Dense(v.view()), k, 10).labels;
        let km1 = spherical_kmeans(&Dense(v.view()), k, 1).labels;
        let al = average_linkage(v.view(), k);
        println!(
            "k={k:2} baseline nmi {:.3} ari {:.3} | kmeans(10) nmi {:.3} ari {:.3} sil {:.3} | kmeans(1) nmi {:.3} | avg-link nmi {:.3} ari {:.3} sil {:.3}",
            nmi(&gold, &base),
            ari(&gold, &base),
            nmi(&gold, &km),
            ari(&gold, &km),
            silhouette(&g, n, &km, k),
            nmi(&gold, &km1),
            nmi(&gold, &al),
            ari(&gold, &al),
            silhouette(&g, n, &al, k)
        );
    }
    let t0 = std::time::Instant::now();
    let topics = cluster(&papers, v.view(), None).unwrap();
    println!(
        "auto: {:?} in {:?}",
        agreement(&topics, &papers).unwrap(),
        t0.elapsed()
    );
    for t in &topics {
        println!(
            "{:2} {:3} {} | {} | {}",
            t.id,
            t.papers.len(),
            t.label,
            t.keywords.join(", "),
            t.central
        );
    }
}
