//! `recommend bench` on the shipped index: every section present, and hybrid related work the
//! best of the engine's three modes.

use assert_cmd::Command;
use serde_json::Value;

#[test]
fn bench_quick_json_has_every_section_and_hybrid_wins_related_work() {
    let out = Command::cargo_bin("recommend")
        .unwrap()
        .args([
            "bench",
            "--quick",
            "--format",
            "json",
            "--index",
            "index.bin",
        ])
        .assert()
        .success();
    let r: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    for key in [
        "machine",
        "corpus",
        "related",
        "crosslingual",
        "clusters",
        "speed",
        "notes",
    ] {
        assert!(r.get(key).is_some(), "{key} missing: {r}");
    }
    assert!(r["machine"]["cores"].as_u64().unwrap() >= 1);
    // Linux reports the load average the timings ran under.
    if cfg!(target_os = "linux") {
        assert!(r["machine"]["load_average"].as_f64().unwrap() >= 0.0);
    }
    assert_eq!(r["corpus"]["papers"], 141);
    let p5 = |mode: &str| {
        r["related"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["mode"] == mode)
            .unwrap_or_else(|| panic!("{mode} missing"))["precision_at_5"]
            .as_f64()
            .unwrap()
    };
    let (h, d, l) = (p5("hybrid"), p5("dense"), p5("lexical"));
    assert!(h > d && h > l, "hybrid {h} dense {d} lexical {l}");
    assert!(p5("tfidf") > 0.0);
    let clusters = r["clusters"]["results"].as_array().unwrap();
    assert_eq!(clusters.len(), 2);
    assert!(clusters.iter().all(|c| c["nmi"].as_f64().unwrap() > 0.0));
    assert!(r["speed"]["like"]["p50_ms"].as_f64().unwrap() > 0.0);
    assert!(r["speed"]["search"].is_null(), "--quick skips model speed");
    // Cross-lingual runs whenever the model is installed (null otherwise, with a note).
    if let Some(c) = r["crosslingual"].as_object() {
        for dir in ["zh_to_en", "en_to_zh"] {
            let systems: Vec<&str> = c[dir]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x["system"].as_str().unwrap())
                .collect();
            assert_eq!(systems, ["hybrid", "dense", "lexical", "tfidf"]);
        }
    } else {
        assert!(!r["notes"].as_array().unwrap().is_empty());
    }
}
