//! `recommend bench` on the shipped index: every section present, and the shipped ranking ahead
//! of its own halves and of every baseline on the judged set and the seed sections.

use serde_json::Value;

use crate::support::{corpus_papers, ok_json, recommend, texts};

#[test]
fn bench_quick_json_has_every_section_and_hybrid_wins_related_work() {
    // The sections that embed (cross-lingual, titles-only) need the model: install it (a no-op
    // when present) rather than let a fresh clone skip them.
    recommend().args(["model", "install"]).assert().success();
    let r = ok_json(recommend().args([
        "bench",
        "--quick",
        "--format",
        "json",
        "--index",
        "index.bin",
    ]));
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
    // Linux reports the load average the timings ran under: the report must carry it.
    if cfg!(target_os = "linux") {
        assert!(r["machine"]["load_average"].is_number(), "{}", r["machine"]);
    }
    assert_eq!(
        r["corpus"]["papers"],
        corpus_papers(),
        "the shipped corpus, whole"
    );
    let figure = |list: &Value, system: &str, key: &str| -> f64 {
        list.as_array()
            .unwrap()
            .iter()
            .find(|x| x["mode"] == system || x["system"] == system)
            .unwrap_or_else(|| panic!("{system} missing in {list}"))[key]
            .as_f64()
            .unwrap()
    };
    let systems = [
        "dense",
        "lexical",
        "tfidf words",
        "tfidf char 2-4",
        "rrf dense+tfidf",
    ];
    let ours = figure(&r["related"], "ours (hybrid)", "precision_at_5");
    for s in systems {
        let other = figure(&r["related"], s, "precision_at_5");
        assert!(ours > other, "same-topic P@5: ours {ours} <= {s} {other}");
    }
    // The judged set ships with the repo and is found from the working directory.
    let judged = &r["judged"]["like"];
    let ours = figure(judged, "ours (hybrid)", "related_at_5");
    for s in systems {
        let other = figure(judged, s, "related_at_5");
        assert!(ours > other, "judged related@5: ours {ours} <= {s} {other}");
        // ... by more than the set's noise: the paired 95% interval over the 61 seeds stays
        // above 0 against every baseline (the nearest, lexical, +0.167 [+0.105, +0.233]).
        let margin = &judged
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["system"] == s)
            .unwrap()["ours_minus_this"];
        let (low, mean) = (
            margin["low"].as_f64().unwrap(),
            margin["mean"].as_f64().unwrap(),
        );
        assert!((mean - (ours - other)).abs() < 1e-9, "{s}: {margin}");
        assert!(
            low > 0.0,
            "judged related@5 vs {s}: interval {margin} reaches 0"
        );
        let (a, b) = (
            figure(judged, "ours (hybrid)", "absurd_at_5"),
            figure(judged, s, "absurd_at_5"),
        );
        assert!(a < b, "absurd@5: ours {a} >= {s} {b}");
    }
    // The target for related work (0.852 since `builds_on` links weigh by their
    // parent's specificity; 0.849 before).
    assert!(ours >= 0.85, "judged related@5 {ours} < 0.85");
    // Absurd = judged unrelated by the set's own explicit judgments (grade 0 is acceptable):
    // the target is 5%. 8.2% without facets (every fusion knob at one optimum); 3.6%
    // with each paper naming the research problem it attacks (curated `p-...` facets), against
    // 23% for the best baseline (BENCHMARKS.md, Quality on the shipped list).
    let absurd = figure(judged, "ours (hybrid)", "absurd_at_5");
    assert!(absurd <= 0.05, "judged absurd@5 {absurd} > 0.05");
    // Lists a user brings, rebuilt from the shipped one without its curated fields (no tags
    // or builds_on): titles and one-line notes (reciprocal neighbours carry it past TF-IDF),
    // and titles and abstracts (the English summaries; it lost to lexical alone, 0.620 vs
    // 0.652, while the lexical weight stayed at 0.3 whatever the text). Related work beats
    // every baseline on both.
    for (section, what) in [
        ("uncurated", "titles + highlights"),
        ("abstracts", "titles + abstracts"),
    ] {
        let list = &r[section]["judged"]["like"];
        assert!(list.is_array(), "{what} section missing: {}", r["notes"]);
        let ours = figure(list, "ours (hybrid)", "related_at_5");
        for s in systems {
            let other = figure(list, s, "related_at_5");
            assert!(ours > other, "{what} related@5: ours {ours} <= {s} {other}");
        }
    }
    // Search on the shipped list, each query language: the hit@5 >= 0.85 and MRR >=
    // 0.75, on all 86 queries (30 of them avoid the target's own words:
    // Chinese MRR 0.888, English 0.967, mixed 0.942).
    let search = |section: &Value, lang: &str| -> Value {
        section["search"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["system"] == "ours (hybrid)" && s["lang"] == lang)
            .unwrap_or_else(|| panic!("no {lang} search figures"))
            .clone()
    };
    for lang in ["zh", "en", "mixed"] {
        let o = search(&r["judged"], lang);
        assert!(o["queries"].as_u64().unwrap() >= 25, "{o}");
        assert!(o["hit_at_5"].as_f64().unwrap() >= 0.85, "{o}");
        assert!(o["mrr"].as_f64().unwrap() >= 0.75, "{o}");
    }
    // Titles + Chinese highlights: the glossary's English for notes written in Chinese lets
    // them meet English titles (related@5 0.489 -> 0.518, English search MRR 0.758 -> 0.887 on
    // the first 20 English queries; 0.732 on all 30, where lexical alone has 0.619 and dense
    // 0.603: BENCHMARKS.md, Imported lists). English search beats every baseline there.
    let unc = &r["uncurated"]["judged"];
    assert!(figure(&unc["like"], "ours (hybrid)", "related_at_5") >= 0.50);
    let en = search(unc, "en");
    let ours_en = en["mrr"].as_f64().unwrap();
    assert!(ours_en >= 0.70, "titles + highlights en: {en}");
    for other in unc["search"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["system"] != "ours (hybrid)" && s["lang"] == "en")
    {
        assert!(
            ours_en > other["mrr"].as_f64().unwrap(),
            "titles + highlights en: ours {en} vs {other}"
        );
    }
    let clusters = r["clusters"]["results"].as_array().unwrap();
    assert_eq!(clusters.len(), 3, "ours, tfidf k-means, dense k-means");
    let nmi = |c: &Value| c["nmi"].as_f64().unwrap();
    assert!(nmi(&clusters[0]) > nmi(&clusters[1]) && nmi(&clusters[0]) > nmi(&clusters[2]));
    assert!(
        clusters[0]["largest_over_median"].as_f64().unwrap() <= 2.5,
        "no catch-all"
    );
    // The topics issue's figures: NMI with the seed sections at the automatic k, and reading
    // paths whose steps are judged related, never a paper before what it builds on.
    assert!(nmi(&clusters[0]) >= 0.60, "NMI {}", nmi(&clusters[0]));
    let paths = &r["judged"]["paths"];
    assert!(
        paths["related_share"].as_f64().unwrap() >= 0.90,
        "judged path steps related: {paths}"
    );
    assert_eq!(paths["backwards_edges"], 0);
    // "A weak link for this list" marks the doubtful results: on the judged seeds, flagged
    // results are judged unrelated far more often than the rest (0.29 vs 0.02), and
    // the same holds on the titles + highlights and titles + abstracts forms of the list, which
    // measure their own strengths.
    // (0.26 vs 0.19 and 0.43 vs 0.07 on the reduced forms: with its sections as the list's own
    // tags the titles + highlights form has far fewer unrelated results, 41% -> 21% of its top 5,
    // and the flag separates less: bench/runs/2026-12-03-own-tags/.)
    for (what, judged, factor) in [
        ("shipped", &r["judged"], 3.0),
        ("titles + highlights", &r["uncurated"]["judged"], 1.3),
        ("titles + abstracts", &r["abstracts"]["judged"], 1.5),
    ] {
        let w = &judged["weak_links"];
        let f = |k: &str| w[k].as_f64().unwrap_or_else(|| panic!("{what}: {w}"));
        assert!(w["flagged"].as_u64().unwrap() >= 20, "{what}: {w}");
        assert!(
            f("flagged_unrelated") > factor * f("unflagged_unrelated")
                && f("flagged_related") < f("unflagged_related"),
            "{what}: {w}"
        );
    }
    // The held-out set (45 other seeds and 30 other queries of the same list, written blind and
    // never used to choose anything) is reported beside the development set, and the ranking
    // chosen on the development set holds its lead there: without facets, related@5 0.716
    // against 0.564 for lexical, the nearest ([+0.093, +0.209]); absurd@5 0.133 against 0.324;
    // flagged weak links judged unrelated 0.35 against 0.04 for the rest (BENCHMARKS.md,
    // Quality on the shipped list).
    // Both sets have a second reader (`<set>-reader2.jsonl`, the same seeds judged again,
    // blind, each with the reader's own top 5). The reader's top 5 is almost never unrelated
    // by the first reader's grades (1.0% and 1.8%: BENCHMARKS.md, Two readers): the figure a
    // ranking can be held to (ours 3.6% / 8.4%: BENCHMARKS.md, Quality on the shipped list). By
    // either reader's grades the ranking still beats every baseline.
    for (set, seeds) in [(&r["judged"], 61), (&r["heldout"], 45)] {
        let readers = &set["readers"];
        assert_eq!(readers["seeds"], seeds, "second reader missing: {readers}");
        let reader = readers["reader_top5"]["absurd_at_5"].as_f64().unwrap();
        let row = |system: &str| -> Value {
            readers["systems"]
                .as_array()
                .unwrap()
                .iter()
                .find(|x| x["system"] == system)
                .unwrap_or_else(|| panic!("{system} missing in {readers}"))
                .clone()
        };
        let ours = row("ours (hybrid)");
        assert!(reader <= 0.03, "the reader's own top 5: absurd@5 {reader}");
        assert!(
            reader < ours["first"]["absurd_at_5"].as_f64().unwrap(),
            "{readers}"
        );
        // The shared-grades row reads both readers: never more absurd than by either alone.
        let either = ours["either"]["absurd_at_5"].as_f64().unwrap();
        assert!(either <= ours["first"]["absurd_at_5"].as_f64().unwrap());
        assert!(either <= ours["second"]["absurd_at_5"].as_f64().unwrap());
        for s in systems {
            let (a, b) = (
                ours["either"]["related_at_5"].as_f64().unwrap(),
                row(s)["either"]["related_at_5"].as_f64().unwrap(),
            );
            assert!(a > b, "related@5 by either reader: ours {a} <= {s} {b}");
        }
    }
    let held = &r["heldout"];
    assert!(
        held["source"]
            .as_str()
            .is_some_and(|s| s.ends_with("judgments-heldout.jsonl")),
        "held-out set missing: {held}"
    );
    let ours = figure(&held["like"], "ours (hybrid)", "related_at_5");
    assert_eq!(held["like"][0]["seeds"], 45);
    for s in systems {
        let row = held["like"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["system"] == s)
            .unwrap();
        assert!(
            row["ours_minus_this"]["low"].as_f64().unwrap() > 0.0,
            "held-out related@5 vs {s}: ours {ours}, {row}"
        );
        assert!(
            figure(&held["like"], "ours (hybrid)", "absurd_at_5")
                < figure(&held["like"], s, "absurd_at_5"),
            "held-out absurd@5 vs {s}"
        );
    }
    let w = &held["weak_links"];
    assert!(
        w["flagged_unrelated"].as_f64().unwrap() > 3.0 * w["unflagged_unrelated"].as_f64().unwrap(),
        "held-out weak links: {w}"
    );
    assert_eq!(held["paths"]["backwards_edges"], 0);
    assert_eq!(
        held["search"].as_array().map(Vec::len),
        Some(18),
        "6 systems x 3 languages"
    );
    // Search calls queries from other fields (bench/offtopic-queries.txt) weak matches, and few
    // of the judged queries, which are about the list (51 of 58 and 6 of 86, each of the 6
    // answered at #1 all the same; on the held-out queries 3 of 30: BENCHMARKS.md, Search on
    // the shipped list). A list of titles and one-line notes has no reference of its own
    // papers (titles as queries would set the bar wrong there), only the one of queries about
    // other fields, which calls fewer of them weak (24 of 58, judged 1 of 86).
    let weak = |section: &Value| -> (f64, f64, u64) {
        let w = &section["weak_matches"];
        let share = |a: &str, b: &str| w[a].as_f64().unwrap() / w[b].as_f64().unwrap();
        (
            share("judged_flagged", "judged_queries"),
            share("offtopic_flagged", "offtopic_queries"),
            w["offtopic_queries"].as_u64().unwrap(),
        )
    };
    let (judged_alarms, detected, offtopic) = weak(&r["judged"]);
    assert!(offtopic >= 50, "bench/offtopic-queries.txt is read");
    assert!(
        judged_alarms <= 0.10,
        "judged queries called weak: {judged_alarms}"
    );
    assert!(
        detected >= 0.80,
        "queries from other fields called weak: {detected}"
    );
    // Short queries (a few words) come closer to any list than sentences: from other fields
    // they are measured against short ones too (59 of 60 called weak), and one about the list
    // whose words a paper holds is never weak (short queries about it answered at #1 and called
    // weak: 5 of 40; BENCHMARKS.md, Weak matches).
    let w = &r["judged"]["weak_matches"];
    let count = |k: &str| w[k].as_u64().unwrap();
    assert!(
        count("offtopic_short_queries") >= 60 && count("infield_short_queries") >= 40,
        "bench/offtopic-short-queries.txt and bench/judgments-short-queries.jsonl are read: {w}"
    );
    assert!(
        count("offtopic_short_flagged") * 10 >= count("offtopic_short_queries") * 9,
        "short queries from other fields called weak: {w}"
    );
    assert!(
        count("infield_short_flagged_answered") * 5 <= count("infield_short_queries"),
        "short queries about the list answered at #1, called weak: {w}"
    );
    let (abstracts_alarms, _, _) = weak(&r["abstracts"]["judged"]);
    assert!(
        abstracts_alarms <= 0.05,
        "titles + abstracts: {abstracts_alarms}"
    );
    let (titles_alarms, titles_detected, _) = weak(&r["uncurated"]["judged"]);
    assert!(
        titles_alarms <= 0.05 && titles_detected >= 0.33,
        "titles + notes: judged {titles_alarms}, other fields {titles_detected}"
    );
    // ... and on the list reduced to what a user's list holds, related work still beats both
    // TF-IDF baselines on the held-out seeds (titles + highlights 0.409 vs 0.320 and 0.342:
    // BENCHMARKS.md, Imported lists; titles + abstracts 0.631 vs 0.542 and 0.516).
    for section in ["uncurated", "abstracts"] {
        let like = &r[section]["heldout"]["like"];
        let ours = figure(like, "ours (hybrid)", "related_at_5");
        for s in ["tfidf words", "tfidf char 2-4"] {
            let other = figure(like, s, "related_at_5");
            assert!(
                ours > other,
                "{section} held-out related@5: ours {ours} <= {s} {other}"
            );
        }
    }
    assert!(r["speed"]["like"]["p50_ms"].as_f64().unwrap() > 0.0);
    assert!(r["speed"]["search"].is_null(), "--quick skips model speed");
    // Cross-lingual runs whenever the model is installed (it is, above).
    let c = r["crosslingual"]
        .as_object()
        .unwrap_or_else(|| panic!("cross-lingual missing: {}", r["notes"]));
    for dir in ["zh_to_en", "en_to_zh"] {
        let systems = texts(c[dir].as_array().unwrap(), "system");
        assert_eq!(
            systems,
            ["hybrid", "dense", "lexical", "tfidf", "tfidf-char-2-4"]
        );
        let mrr = |s: &str| figure(&c[dir], s, "mrr");
        assert!(mrr("hybrid") > mrr("tfidf") && mrr("hybrid") > mrr("tfidf-char-2-4"));
    }
    assert!(!r["notes"].as_array().unwrap().is_empty());
}

/// A second reader that names a paper the index does not have is a usage error that points at
/// its line, before anything is measured: it was written for this set, so it must not silently
/// turn into a missing figure.
#[test]
fn a_broken_second_reader_is_reported_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let set = dir.path().join("mine.jsonl");
    std::fs::copy(crate::support::root().join("bench/judgments.jsonl"), &set).unwrap();
    std::fs::write(
        dir.path().join("mine-reader2.jsonl"),
        "{\"task\":\"like\",\"seed\":\"dapo\",\"ranked\":[\"vapo\"],\"relevant\":{\"vapo\":2}}\n\
         {\"task\":\"like\",\"seed\":\"dapo\",\"ranked\":[\"no-such-paper\"],\"relevant\":{}}\n",
    )
    .unwrap();
    let out = recommend()
        .args(["bench", "--quick", "--index", "index.bin", "--judgments"])
        .arg(&set)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("mine-reader2.jsonl:2: unknown paper id \"no-such-paper\" in \"ranked\""),
        "{err}"
    );
    assert!(!err.contains("mine-reader2.jsonl:1"), "{err}");
}
