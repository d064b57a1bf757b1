//! The optimised graph `model.ort` (written at install, mapped at load): a missing, damaged or
//! unlisted one is written again by the next check, a broken one never stops the model from
//! loading, and the vectors are the same either way.
//!
//! Works on a copy of the installed model (`RECOMMEND_MODEL_DIR`, else `models/`; installed
//! first if needed): large members are hard-linked, which is safe because model files are only
//! ever replaced by rename, never written in place.

use recommend::model::{self, Embedder, EmbedderOptions, ModelFiles, Role, files};
use std::fs;
use std::path::{Path, PathBuf};

fn installed() -> ModelFiles {
    let dir = model::model_dir_from_env()
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("models"));
    model::ensure_installed(&dir).expect("install")
}

/// A copy of the install in a temporary folder, with or without its `model.ort`.
fn copy_install(from: &Path, with_optimized: bool) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        let meta = e.metadata().unwrap();
        if !meta.is_file() || name.starts_with('.') {
            continue;
        }
        if name == files::OPTIMIZED && !with_optimized {
            continue;
        }
        let dest = tmp.path().join(&name);
        if meta.len() > 1 << 20 {
            if fs::hard_link(e.path(), &dest).is_err() {
                fs::copy(e.path(), &dest).unwrap();
            }
        } else {
            fs::copy(e.path(), &dest).unwrap();
        }
    }
    tmp
}

fn manifest_lists_optimized(dir: &Path) -> bool {
    let m: serde_json::Value =
        serde_json::from_slice(&fs::read(dir.join(files::MANIFEST)).unwrap()).unwrap();
    m["files"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["name"] == files::OPTIMIZED)
}

fn embed(files: &ModelFiles) -> (Vec<f32>, bool) {
    let e = Embedder::load(files, EmbedderOptions::default()).expect("load");
    let v = e.embed_one("网页智能体的强化学习", Role::Query).unwrap();
    (v, e.load_timings().optimized)
}

#[test]
fn optimized_graph_is_written_verified_and_optional() {
    let reference = installed();
    let (want, _) = embed(&ModelFiles {
        optimized: None,
        ..reference.clone()
    });

    // Missing (an install from before the optimised graph, or a deleted file): written again,
    // listed in the manifest, loaded, same vectors.
    let tmp = copy_install(&reference.dir, false);
    let dir = tmp.path();
    let files = model::ensure_installed(dir).expect("check");
    let ort = dir.join(files::OPTIMIZED);
    assert_eq!(files.optimized.as_deref(), Some(ort.as_path()));
    assert!(ort.is_file());
    assert!(manifest_lists_optimized(dir));
    let (got, optimized) = embed(&files);
    assert!(optimized, "the session should come from model.ort");
    assert!(model::cosine(&got, &want) > 0.99999);
    assert!(model::status(dir).installed);

    // Damaged (same size, other bytes): status says which file, but the model stays usable
    // and the next check writes it again.
    let good = fs::read(&ort).unwrap();
    let mut bad = good.clone();
    for b in bad.iter_mut().skip(1000).step_by(4096) {
        *b ^= 0x5a;
    }
    fs::remove_file(&ort).unwrap();
    fs::write(&ort, &bad).unwrap();
    let st = model::status(dir);
    assert!(st.installed, "{:?}", st.problem);
    assert!(st.files.iter().any(|f| f.name == files::OPTIMIZED && !f.ok));
    let files = model::ensure_installed(dir).expect("check");
    assert!(files.optimized.is_some());
    assert_ne!(fs::read(&ort).unwrap(), bad, "not regenerated");
    // ONNX Runtime's output is not byte-for-byte reproducible: the manifest records the new
    // file, and every byte of it verifies.
    let st = model::status_with(dir, model::Verify::Full);
    assert!(
        st.files.iter().all(|f| f.ok),
        "{:?}",
        st.files.iter().filter(|f| !f.ok).collect::<Vec<_>>()
    );

    // A file ONNX Runtime cannot load, handed over directly: the load falls back to model.onnx.
    let junk = dir.join("junk.ort");
    fs::write(&junk, b"not an ORT model").unwrap();
    let (got, optimized) = embed(&ModelFiles {
        optimized: Some(junk),
        ..files.clone()
    });
    assert!(!optimized);
    assert!(model::cosine(&got, &want) > 0.99999);

    // No temporary file is left behind.
    let left: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("optimize"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// A batch of texts of different lengths (padded together) gets the same vectors from the
/// session over the mapped `model.ort` (queries) as from fastembed's (corpora), each the same as
/// when embedded alone.
#[test]
fn the_mapped_session_and_fastembed_agree_on_padded_batches() {
    let reference = installed();
    let mapped = Embedder::load(&reference, EmbedderOptions::default()).expect("load");
    assert!(
        mapped.load_timings().optimized,
        "model.ort should load in place"
    );
    // fastembed over the same model.ort, as `recommend index` embeds a corpus.
    let fastembed = Embedder::load(
        &reference,
        EmbedderOptions {
            in_place: false,
            ..EmbedderOptions::default()
        },
    )
    .expect("load");
    assert!(fastembed.load_timings().optimized);
    let texts = [
        "GRPO",
        "网页智能体的强化学习：在真实浏览器环境中用多轮在线强化学习训练智能体完成任务",
        "Process reward models score every step of a mathematical solution.",
    ];
    let a = mapped.embed(&texts, Role::Passage).unwrap();
    let b = fastembed.embed(&texts, Role::Passage).unwrap();
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        assert_eq!(x.len(), 384);
        assert!(model::cosine(x, y) > 0.99999, "text {i}");
        let alone = mapped.embed_one(texts[i], Role::Passage).unwrap();
        assert!(model::cosine(x, &alone) > 0.99999, "text {i} alone");
    }
}
