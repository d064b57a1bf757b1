//! Timing figures (not a correctness test; run by hand, release build, one process per figure):
//!
//! ```text
//! cargo test --release --test tests -- --ignored --nocapture model_bench::cold_query
//! cargo test --release --test tests -- --ignored --nocapture model_bench::throughput
//! ```
//!
//! cargo test --release --test tests -- --ignored --nocapture model_bench::ours_vs_naive_fp32
//! ```
//!
//! `RECOMMEND_BENCH_VARIANT` = f32 | q4 | q4-int8 picks the variant (installed into
//! `<model dir>-<variant>` unless it is the default).

use recommend::model::{self, Embedder, EmbedderOptions, InstallOptions, Role, Variant};
use std::path::PathBuf;
use std::time::Instant;

fn files() -> model::ModelFiles {
    let variant = std::env::var("RECOMMEND_BENCH_VARIANT")
        .ok()
        .and_then(|v| Variant::parse(&v))
        .unwrap_or(model::DEFAULT_VARIANT);
    files_of(variant)
}

fn files_of(variant: Variant) -> model::ModelFiles {
    let base = model::model_dir_from_env()
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("models"));
    let dir = if variant == model::DEFAULT_VARIANT {
        base
    } else {
        let d = base.join("variants").join(variant.name());
        std::fs::create_dir_all(&d).unwrap();
        // Reuse the default install's extracted members (they are verified again).
        for f in [model::files::WEIGHTS, model::files::ORT_LIB] {
            if !d.join(f).exists() && base.join(f).exists() {
                std::fs::copy(base.join(f), d.join(f)).unwrap();
            }
        }
        d
    };
    let opts = InstallOptions {
        variant,
        progress: false,
        ..Default::default()
    };
    let t = Instant::now();
    let f = model::ensure_installed_with(&dir, &opts).unwrap();
    eprintln!("ensure_installed({}): {:?}", variant.name(), t.elapsed());
    f
}

fn rss_peak_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| {
                l.split_whitespace()
                    .nth(1)
                    .map(|v| v.parse::<f64>().unwrap_or(0.0))
            })
        })
        .unwrap_or(0.0)
        / 1024.0
}

#[test]
#[ignore]
fn cold_query() {
    let files = files();
    let t = Instant::now();
    let emb = Embedder::load(&files, EmbedderOptions::default()).unwrap();
    let load = t.elapsed();
    let t1 = Instant::now();
    let v = emb.embed_one("网页智能体的强化学习", Role::Query).unwrap();
    let first = t1.elapsed();
    let t2 = Instant::now();
    for _ in 0..10 {
        emb.embed_one(
            "web agents trained with reinforcement learning",
            Role::Query,
        )
        .unwrap();
    }
    let warm = t2.elapsed() / 10;
    assert_eq!(v.len(), 384);
    let lt = emb.load_timings();
    eprintln!(
        "[{}] load {:?} (ort {:?}, tokenizer {:?} || session {:?}); first query {:?}; load+query {:?}; warm query {:?}; peak RSS {:.0} MiB",
        emb.model_id(),
        load,
        lt.ort_init,
        lt.tokenizer,
        lt.session,
        first,
        load + first,
        warm,
        rss_peak_mib()
    );
}

fn titles(n: usize) -> Vec<String> {
    let a = [
        "Scalable",
        "Efficient",
        "Robust",
        "Multilingual",
        "Sparse",
        "Contrastive",
        "Hierarchical",
        "Federated",
        "Self-Supervised",
        "Causal",
        "Diffusion-Based",
        "Retrieval-Augmented",
    ];
    let b = [
        "Transformers",
        "Graph Neural Networks",
        "Language Models",
        "Reinforcement Learning",
        "Vision Encoders",
        "Web Agents",
        "Dense Retrieval",
        "Speech Recognition",
        "Policy Optimization",
        "Mixture of Experts",
        "Tokenizers",
    ];
    let c = [
        "for Long Documents",
        "at Scale",
        "with Human Feedback",
        "in Low-Resource Settings",
        "via Preference Optimization",
        "under Distribution Shift",
        "for Code Generation",
        "without Labels",
        "on Edge Devices",
    ];
    (0..n)
        .map(|i| {
            format!(
                "{} {} {}",
                a[i % a.len()],
                b[(i / a.len()) % b.len()],
                c[(i / 7) % c.len()]
            )
        })
        .collect()
}

fn zh_paragraphs(n: usize) -> Vec<String> {
    let s = [
        "本文提出了一种新的强化学习框架，用于训练能够在真实网页环境中完成多步任务的智能体。",
        "我们设计了基于可验证奖励的训练目标，并结合组内相对优势估计来降低梯度方差。",
        "实验表明，该方法在多个基准测试上显著优于监督微调和已有的开源模型，",
        "在长文本理解、跨语言检索和代码生成任务中均取得了稳定的提升。",
        "此外，我们分析了模型规模、采样温度和上下文长度对最终性能的影响，",
        "并讨论了奖励欺骗、训练不稳定以及推理成本等实际部署中需要注意的问题。",
        "消融实验进一步验证了每个组件的贡献，代码和数据将公开发布以促进后续研究。",
    ];
    (0..n)
        .map(|i| {
            let mut p = String::new();
            for k in 0..(14 + i % 6) {
                p.push_str(s[(i + k) % s.len()]);
            }
            p
        })
        .collect()
}

/// English abstracts of ~250 model tokens (what `recommend index` embeds for a BibTeX or arXiv
/// list: title plus abstract), varied so no two are the same text.
fn en_abstracts(n: usize) -> Vec<String> {
    let s = [
        "Large language model agents increasingly act in interactive environments such as web browsers, code sandboxes and operating systems.",
        "We study how reinforcement learning with verifiable rewards can train such agents end to end over long multi-turn trajectories.",
        "Our method estimates advantages from groups of sampled rollouts, removing the need for a learned value function.",
        "To stabilise training we filter prompts whose rollouts all succeed or all fail and we clip importance ratios asymmetrically.",
        "We further introduce a curriculum that raises task difficulty as the success rate of the policy improves.",
        "Experiments on four benchmarks covering web navigation, tool use and software engineering show consistent gains over supervised fine-tuning.",
        "Ablations attribute most of the improvement to the reward design and to the dynamic sampling of training tasks.",
        "We release code, data and model checkpoints to support reproducible research on agentic reinforcement learning.",
    ];
    (0..n)
        .map(|i| {
            let mut p = format!("Paper {i}: ");
            for k in 0..(9 + i % 3) {
                p.push_str(s[(i + k) % s.len()]);
                p.push(' ');
            }
            p
        })
        .collect()
}

fn run(emb: &Embedder, name: &str, texts: &[String]) {
    let refs: Vec<&str> = texts.iter().map(|s| s.as_str()).collect();
    let toks: usize = refs
        .iter()
        .map(|t| emb.tokenize(t, Role::Passage).unwrap().len())
        .sum();
    let t = Instant::now();
    let v = emb.embed(&refs, Role::Passage).unwrap();
    let dt = t.elapsed().as_secs_f64();
    assert_eq!(v.len(), texts.len());
    eprintln!(
        "[{}] {name}: {} texts, mean {:.0} tokens: {:.2} s, {:.1} passages/s",
        emb.model_id(),
        texts.len(),
        toks as f64 / texts.len() as f64,
        dt,
        texts.len() as f64 / dt
    );
}

#[test]
#[ignore]
fn throughput() {
    let files = files();
    let batch = std::env::var("RECOMMEND_BENCH_BATCH")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(32);
    let emb = Embedder::load(
        &files,
        EmbedderOptions {
            batch_size: batch,
            max_batch_tokens: std::env::var("RECOMMEND_BENCH_MAX_TOKENS")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(EmbedderOptions::default().max_batch_tokens),
            threads: std::env::var("RECOMMEND_BENCH_THREADS")
                .ok()
                .and_then(|v| v.parse().ok()),
            ..Default::default()
        },
    )
    .unwrap();
    run(&emb, "short titles", &titles(400));
    run(&emb, "long zh paragraphs", &zh_paragraphs(40));
    eprintln!("peak RSS {:.0} MiB", rss_peak_mib());
}

fn one_by_one(emb: &Embedder, texts: &[String]) -> f64 {
    recommend::bench::speed::throughput_one_by_one(emb, texts).unwrap()
}

fn batched(emb: &Embedder, texts: &[String]) -> f64 {
    recommend::bench::speed::throughput(emb, texts).unwrap()
}

/// The issue's throughput comparison, in one process: ours (the default 4-bit variant, batched)
/// against the naive path (the fp32 conversion with the full tokenizer, one call per text, as a
/// plain fastembed loop runs), alternating rounds so machine drift hits both alike. Also the
/// fp32 model batched, to separate what batching gives from what the 4-bit graph gives, and
/// the cosine of the two variants' embeddings.
#[test]
#[ignore]
fn ours_vs_naive_fp32() {
    let mut options = EmbedderOptions::default();
    if let Some(t) = std::env::var("RECOMMEND_BENCH_MAX_TOKENS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        options.max_batch_tokens = t;
    }
    let ours = Embedder::load(&files(), options).unwrap();
    let naive = Embedder::load(
        &files_of(Variant::F32),
        EmbedderOptions {
            full_tokenizer: true,
            ..Default::default()
        },
    )
    .unwrap();
    let rounds = 3;
    for (name, texts) in [
        ("short titles", titles(200)),
        ("long zh paragraphs", zh_paragraphs(12)),
        ("en abstracts", en_abstracts(24)),
    ] {
        let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..rounds {
            a.push(batched(&ours, &texts));
            b.push(one_by_one(&naive, &texts));
            c.push(batched(&naive, &texts));
        }
        let med = |v: &mut Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        let (a, b, c) = (med(&mut a), med(&mut b), med(&mut c));
        eprintln!(
            "{name} ({} texts, median of {rounds} rounds): ours {a:.1}/s, naive fp32 one-by-one {b:.1}/s, \
             fp32 batched {c:.1}/s: ours = {:.2}x naive, {:.2}x fp32 batched",
            texts.len(),
            a / b,
            a / c
        );
        let refs: Vec<&str> = texts.iter().take(8).map(|s| s.as_str()).collect();
        let (va, vb) = (
            ours.embed(&refs, Role::Passage).unwrap(),
            naive.embed(&refs, Role::Passage).unwrap(),
        );
        let min_cos = va
            .iter()
            .zip(&vb)
            .map(|(x, y)| model::cosine(x, y))
            .fold(1.0f32, f32::min);
        eprintln!("{name}: min cosine ours vs fp32 over 8 texts {min_cos:.6}");
        assert!(min_cos >= 0.98);
    }
}
