//! `recommend feed` and `recommend rate` through the real binary, the real model and a copy of
//! the shipped index: candidates from an imported public list and from arXiv feeds on disk and
//! over HTTP, papers already in the library skipped and counted, the second run embedding
//! nothing and showing nothing twice, ratings that stick, digests, and bad input.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::server::Server;
use crate::support::{recommend, root, with_model};

/// A copy of the shipped index in a fresh folder (the feed writes its state beside it).
fn library() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("library.bin");
    std::fs::copy(root().join("index.bin"), &index).unwrap();
    (dir, index)
}

fn run(index: &Path, args: &[&str]) -> (i32, String, String) {
    run_against(index, args, None)
}

/// The binary on `index`, with the arXiv API at `arxiv` (none: the variable unset).
fn run_against(index: &Path, args: &[&str], arxiv: Option<&str>) -> (i32, String, String) {
    let mut cmd = recommend();
    with_model(&mut cmd);
    match arxiv {
        Some(url) => cmd.env("RECOMMEND_ARXIV_URL", url),
        None => cmd.env_remove("RECOMMEND_ARXIV_URL"),
    };
    let out = cmd
        .arg("--index")
        .arg(index)
        .args(args)
        .timeout(std::time::Duration::from_secs(300))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(stdout: &str) -> Vec<Value> {
    serde_json::from_str::<Value>(stdout)
        .unwrap_or_else(|e| panic!("{e}: {stdout}"))
        .as_array()
        .unwrap()
        .clone()
}

/// `feed` over [`candidates`] again, papers shown before included, as JSON rows.
fn feed_again(index: &Path, extra: &[&str]) -> Vec<Value> {
    let c = candidates();
    let mut args = vec!["feed", c.as_str(), "--all", "-f", "json"];
    args.extend(extra);
    let (code, out, err) = run(index, &args);
    assert_eq!(code, 0, "{err}");
    json(&out)
}

/// Atomic writes leave no temporary file behind, whatever failed.
fn no_temp_files_in(dir: &Path) {
    let leftovers: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".recommend."))
        .collect();
    assert!(leftovers.is_empty(), "temp files left: {leftovers:?}");
}

fn candidates() -> String {
    root()
        .join("bench/corpora/abstracts/awesome-rl-ai-agents.jsonl")
        .display()
        .to_string()
}

#[test]
fn a_feed_ranks_new_papers_by_interest_and_never_shows_one_twice() {
    let (dir, index) = library();
    let shipped: Vec<Value> =
        serde_json::from_str(&run(&index, &["list", "-f", "json"]).1).unwrap();
    let library_arxiv: Vec<&str> = shipped.iter().filter_map(|p| p["arxiv"].as_str()).collect();
    let library_ids: Vec<&str> = shipped.iter().filter_map(|p| p["id"].as_str()).collect();
    let topics: Vec<&str> = shipped.iter().filter_map(|p| p["topic"].as_str()).collect();

    let (code, out, err) = run(&index, &["feed", &candidates(), "-n", "10", "-f", "json"]);
    assert_eq!(code, 0, "{err}");
    let first = json(&out);
    assert_eq!(first.len(), 10, "{out}");
    // Papers the list shares with the library are skipped, and said so.
    assert!(err.contains("already in the library"), "{err}");
    for (k, r) in first.iter().enumerate() {
        assert_eq!(r["rank"], k + 1);
        for key in ["id", "title", "score", "interest", "near", "why", "url"] {
            assert!(r.get(key).is_some(), "{key} missing: {r}");
        }
        assert!(
            !library_arxiv.contains(&r["arxiv"].as_str().unwrap_or("-")),
            "{r}"
        );
        // A section, with its English name after " · " where the list gives one.
        let interest = r["interest"].as_str().unwrap();
        assert!(
            topics
                .iter()
                .any(|t| interest == *t || interest.starts_with(&format!("{t} · "))),
            "{r}"
        );
        let near = r["near"].as_array().unwrap();
        assert!((1..=3).contains(&near.len()), "{r}");
        assert!(
            near.iter()
                .all(|n| library_ids.contains(&n.as_str().unwrap())),
            "{r}"
        );
    }
    let scores: Vec<f64> = first.iter().map(|r| r["score"].as_f64().unwrap()).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");

    // The second run embeds nothing and shows none of the first run's papers.
    let (code, out, err) = run(&index, &["feed", &candidates(), "-n", "10", "-f", "json"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("(0 embedded"), "{err}");
    let second = json(&out);
    let ids = |rows: &[Value]| -> Vec<String> {
        rows.iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(ids(&second).iter().all(|id| !ids(&first).contains(id)));
    // --all shows them again, in the first run's order.
    let (_, out, _) = run(
        &index,
        &["feed", &candidates(), "-n", "10", "-f", "json", "--all"],
    );
    assert_eq!(ids(&json(&out)), ids(&first));

    // Filters: an interest, a word, a score floor.
    let interest = first[0]["interest"].as_str().unwrap();
    let (code, out, err) = run(
        &index,
        &[
            "feed",
            &candidates(),
            "--all",
            "-f",
            "json",
            "--interest",
            interest,
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(json(&out).iter().all(|r| r["interest"] == interest));
    for r in feed_again(&index, &["--exclude", "agent", "-n", "50"]) {
        let title = r["title"].as_str().unwrap().to_lowercase();
        assert!(!title.contains("agent"), "{r}");
    }
    // What a filter left out stays in the vector cache: the next run embeds nothing.
    let (code, _, err) = run(&index, &["feed", &candidates(), "--all", "-f", "json"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("(0 embedded") && !err.contains("embedded as searches"),
        "{err}"
    );
    // A score is the paper's own, not its batch's: alone, the fifth paper scores what it scored
    // among the others, so one --min-score means the same on every day.
    let fifth = &first[4];
    let line = std::fs::read_to_string(candidates())
        .unwrap()
        .lines()
        .find(|l| serde_json::from_str::<Value>(l).unwrap()["title"] == fifth["title"])
        .unwrap_or_else(|| panic!("{fifth}"))
        .to_string();
    let one = dir.path().join("one.jsonl");
    std::fs::write(&one, line + "\n").unwrap();
    let (code, out, err) = run(
        &index,
        &["feed", one.to_str().unwrap(), "--all", "-f", "json"],
    );
    assert_eq!(code, 0, "{err}");
    let alone = json(&out);
    assert_eq!(alone.len(), 1, "{out}");
    let (a, b) = (alone[0]["score"].as_f64().unwrap(), scores[4]);
    assert!((a - b).abs() < 1e-4, "alone {a}, among the others {b}");
    assert_eq!(alone[0]["interest"], fifth["interest"]);
    let floor = scores[4];
    let above = feed_again(&index, &["--min-score", &floor.to_string()]);
    assert!(above.iter().all(|r| r["score"].as_f64().unwrap() >= floor));
    // A negative floor is a number, not an option; what a floor leaves out is counted.
    let (code, _, err) = run(
        &index,
        &[
            "feed",
            &candidates(),
            "--all",
            "--min-score",
            "-1",
            "-n",
            "5",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let (_, _, err) = run(
        &index,
        &[
            "feed",
            &candidates(),
            "--all",
            "--min-score",
            &floor.to_string(),
        ],
    );
    assert!(err.contains("below --min-score"), "{err}");
    // A floor nothing reaches: the table says the filters left nothing, not that nothing is new.
    let (code, out, _) = run(
        &index,
        &["feed", &candidates(), "--all", "--min-score", "100"],
    );
    assert_eq!(code, 0);
    assert!(out.contains("no new paper passes the filters"), "{out}");
    let (code, html, _) = run(
        &index,
        &[
            "feed",
            &candidates(),
            "--all",
            "--min-score",
            "100",
            "-f",
            "html",
        ],
    );
    assert_eq!(code, 0);
    assert!(
        html.contains("<p>No new paper passes the filters: stderr counts what each left out.</p>"),
        "{html}"
    );
    let (code, _, err) = run(
        &index,
        &["feed", &candidates(), "--interest", "no such interest"],
    );
    assert_eq!(code, 2, "{err}");
    // An empty word would filter everything or nothing: a usage error, not an empty feed.
    for flag in ["--include", "--exclude", "--interest"] {
        let (code, out, err) = run(&index, &["feed", &candidates(), flag, " "]);
        assert_eq!(code, 2, "{flag}: {err}");
        assert!(err.contains(flag) && out.is_empty(), "{flag}: {err}");
    }
}

#[test]
fn ratings_stick_and_move_later_feeds() {
    let (dir, index) = library();
    let (_, out, _) = run(&index, &["feed", &candidates(), "-n", "30", "-f", "json"]);
    let rows = json(&out);
    let position = |rows: &[Value], id: &str| rows.iter().position(|r| r["id"] == id);
    // Rate up the lowest of the 30 and down the highest: both move.
    let low = rows[29]["id"].as_str().unwrap().to_string();
    let high = rows[0]["id"].as_str().unwrap().to_string();
    let (code, _, err) = run(&index, &["rate", &low, "up"]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = run(&index, &["rate", &high, "down"]);
    assert_eq!(code, 0, "{err}");
    let state_file = dir.path().join("library.feed.json");
    let state: Value = serde_json::from_slice(&std::fs::read(&state_file).unwrap()).unwrap();
    assert_eq!(state["ratings"][&low]["verdict"], "up");
    assert_eq!(state["ratings"][&high]["verdict"], "down");
    let (_, out, _) = run(
        &index,
        &["feed", &candidates(), "-n", "200", "-f", "json", "--all"],
    );
    let after = json(&out);
    assert!(
        position(&after, &low).unwrap() < 29,
        "rated up stays at the bottom"
    );
    assert!(
        position(&after, &high).unwrap() > 0,
        "rated down stays at the top"
    );
    // Without --all, rated papers are not shown again.
    let (_, out, _) = run(&index, &["feed", &candidates(), "-n", "200", "-f", "json"]);
    assert!(position(&json(&out), &low).is_none());

    // An unknown id: exit 2 with suggestions; nothing written.
    let before = std::fs::read(&state_file).unwrap();
    let near_miss = format!("{}x", &rows[1]["title"].as_str().unwrap());
    let (code, _, err) = run(&index, &["rate", &near_miss, "up"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("shown in a feed") || err.contains("did you mean"),
        "{err}"
    );
    assert_eq!(std::fs::read(&state_file).unwrap(), before);
    // A state file that does not parse is refused, named, and kept as it is.
    std::fs::write(&state_file, b"{\"version\": 1, \"ratings\": {").unwrap();
    let (code, _, err) = run(&index, &["feed", &candidates()]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("library.feed.json") && !err.contains("panicked"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(&state_file).unwrap(),
        b"{\"version\": 1, \"ratings\": {"
    );
    no_temp_files_in(dir.path());
}

/// One odd record of a day's candidates (a `javascript:` link, a title another paper has) is
/// left out with a warning at its line; the others are still ranked.
#[test]
fn an_odd_candidate_is_left_out_and_the_rest_ranked() {
    let (dir, index) = library();
    let list = dir.path().join("odd.jsonl");
    std::fs::write(
        &list,
        "{\"title\":\"Web Agents Trained with Online RL\",\"summary\":\"A web agent trained with GRPO.\",\"arxiv\":\"2512.00001\"}\n\
         {\"title\":\"Search Agents with RL\",\"summary\":\"Search calls and reasoning.\",\"url\":\"javascript:alert(1)\"}\n\
         {\"title\":\"Web Agents Trained with Online RL\",\"summary\":\"Another of that name.\",\"arxiv\":\"2512.00002\"}\n\
         {\"title\":\"Tool Use by Reinforcement\",\"summary\":\"Tools and RL.\"}\n",
    )
    .unwrap();
    let (code, out, err) = run(&index, &["feed", list.to_str().unwrap(), "-f", "json"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("left out 2 record(s) with a problem")
            && err.contains("odd.jsonl:2: ")
            && err.contains("odd.jsonl:3: "),
        "{err}"
    );
    let rows = json(&out);
    let mut ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
    ids.sort_unstable();
    assert_eq!(ids, ["2512.00001", "tool-use-by-reinforcement"], "{out}");
    // A saved arXiv page with an entry that has no title: that entry is left out, as the
    // entries of arXiv's own answers are (`index` still refuses the file).
    let page = std::fs::read_to_string(root().join("tests/fixtures/arxiv/api-page2.atom")).unwrap();
    let untitled = page
        .replacen("<title>Tokenizer Drift", "<summary>Tokenizer Drift", 1)
        .replacen("  to Do About It</title>", "  to Do About It</summary>", 1);
    let atom = dir.path().join("untitled.atom");
    std::fs::write(
        &atom,
        format!(
            "{}{}",
            &page[..page.find("<entry>").unwrap()],
            &untitled[untitled.find("<entry>").unwrap()..]
        )
        .replace("</feed>", &page[page.find("<entry>").unwrap()..]),
    )
    .unwrap();
    let (code, out, err) = run(&index, &["feed", atom.to_str().unwrap(), "-f", "json"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("untitled.atom: left out: the entry at line"),
        "{err}"
    );
    assert_eq!(json(&out).len(), 1, "{out}");
    let (code, _, err) = run(&index, &["list", "--corpus", atom.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    // Nothing readable at all is still an error, naming the problems.
    std::fs::write(&list, "{\"title\":\"A\",\"url\":\"javascript:x\"}\n").unwrap();
    let (code, _, err) = run(&index, &["feed", list.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("odd.jsonl:1: "), "{err}");
}

/// Library papers rated down leave the evidence: the candidate they brought to the top falls
/// (they stayed the nearest "kept" papers to it, so the pull of a down, only where it is closer
/// than any library paper, was nil). A rating is cleared by the names it was given under, not
/// only by the key the state file stores it under.
#[test]
fn library_papers_rated_down_stop_bringing_their_likes_up_and_clear_by_name() {
    let (dir, index) = library();
    let (_, out, _) = run(&index, &["feed", &candidates(), "-n", "30", "-f", "json"]);
    let rows = json(&out);
    let top = rows[0]["id"].as_str().unwrap().to_string();
    let near: Vec<String> = rows[0]["near"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect();
    assert!(!near.is_empty(), "{}", rows[0]);
    for id in &near {
        let (code, _, err) = run(&index, &["rate", id, "down"]);
        assert_eq!(code, 0, "{err}");
    }
    let position = |rows: &[Value]| rows.iter().position(|r| r["id"] == top.as_str()).unwrap();
    let after = feed_again(&index, &["-n", "500"]);
    assert!(position(&after) > 0, "{top} stays first: {:?}", &after[..3]);
    // Cleared by the library id given to `rate` (the state keys it by its arXiv id).
    for id in &near {
        let (code, _, err) = run(&index, &["rate", id, "clear"]);
        assert_eq!(code, 0, "{id}: {err}");
    }
    let state: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("library.feed.json")).unwrap())
            .unwrap();
    assert_eq!(state["ratings"], serde_json::json!({}), "{state}");
    assert_eq!(position(&feed_again(&index, &["-n", "500"])), 0);
    // A name several library papers answer to is said to be ambiguous, not unknown.
    let (code, _, err) = run(&index, &["rate", "Search", "up"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("\"Search\" matches") && !err.contains("neither"),
        "{err}"
    );
    // A candidate named as `arXiv:ID` is the one its bare id names.
    assert!(
        rows[0]["arxiv"] == top.as_str(),
        "the first candidate has an arXiv id: {}",
        rows[0]
    );
    let (code, _, err) = run(&index, &["rate", &format!("arXiv:{top}"), "up"]);
    assert_eq!(code, 0, "{err}");
    let state: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("library.feed.json")).unwrap())
            .unwrap();
    assert_eq!(state["ratings"][&top]["verdict"], "up", "{state}");
}

/// Ratings given at once by several processes (two terminals, a script, the server beside the
/// CLI) are all kept: each save merges into the state kept at that moment, under a lock.
#[test]
fn ratings_given_at_the_same_time_are_all_kept() {
    let (dir, index) = library();
    let (code, out, err) = run(&index, &["list", "-f", "jsonl"]);
    assert_eq!(code, 0, "{err}");
    let ids: Vec<String> = out
        .lines()
        .take(10)
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    std::thread::scope(|s| {
        for (k, id) in ids.iter().enumerate() {
            let index = &index;
            s.spawn(move || {
                let verdict = if k % 2 == 0 { "up" } else { "down" };
                let (code, _, err) = run(index, &["rate", id, verdict]);
                assert_eq!(code, 0, "{err}");
            });
        }
    });
    let state: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("library.feed.json")).unwrap())
            .unwrap();
    // Ratings are kept by the paper's key (its arXiv id, else its title): one per paper rated.
    let kept: Vec<&String> = state["ratings"].as_object().unwrap().keys().collect();
    assert_eq!(
        kept.len(),
        ids.len(),
        "ratings lost: kept {kept:?} of {ids:?}"
    );
}

/// Files beside the index that cannot be written never cost the feed asked for: without its
/// vector cache the feed is printed with a note (exit 0); without its state it is printed and
/// the run fails saying it will show again (exit 1). Either way nothing is left behind.
#[test]
fn a_feed_whose_files_cannot_be_written_is_still_printed() {
    let (dir, index) = library();
    std::fs::create_dir(dir.path().join("library.feed-vectors.bin")).unwrap();
    let (code, out, err) = run(&index, &["feed", &candidates(), "-n", "3", "-f", "json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(json(&out).len(), 3);
    assert!(err.contains("vector cache was not saved"), "{err}");
    let lock = dir.path().join("library.feed.lock");
    std::fs::remove_file(&lock).unwrap();
    std::fs::create_dir(&lock).unwrap();
    let (code, out, err) = run(&index, &["feed", &candidates(), "-n", "3", "-f", "json"]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(json(&out).len(), 3);
    assert!(
        err.contains("not remembered as shown") && !err.contains("panicked"),
        "{err}"
    );
    // The papers shown before, shown again: nothing new to remember, so nothing fails.
    let (code, out, err) = run(
        &index,
        &["feed", &candidates(), "-n", "3", "-f", "json", "--all"],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(json(&out).len(), 3);
    no_temp_files_in(dir.path());
}

/// What a rating promises about the papers around it: after a paper is rated down, a paper
/// nearly the same as it (its abstract under another title) falls in the next feed; after one is
/// rated up, its near twin rises; with `--learner none` neither twin moves, so the move is the
/// ratings' doing.
#[test]
fn a_rating_moves_the_papers_near_it() {
    let (dir, index) = library();
    let (_, out, _) = run(&index, &["feed", &candidates(), "-n", "30", "-f", "json"]);
    let rows = json(&out);
    let (high, low) = (
        rows[0]["id"].as_str().unwrap(),
        rows[29]["id"].as_str().unwrap(),
    );
    // The same list with a near twin of the first and of the thirtieth paper.
    let text = std::fs::read_to_string(candidates()).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut twins = Vec::new();
    for id in [high, low] {
        let line = text
            .lines()
            .find(|l| {
                // The feed names a candidate by its arXiv id when it has one.
                let r: Value = serde_json::from_str(l).unwrap();
                r["arxiv"] == id || r["id"] == id
            })
            .unwrap();
        let mut twin: Value = serde_json::from_str(line).unwrap();
        // A title of its own (one holding the other's would make the two one paper).
        let opening: Vec<&str> = twin["summary"]
            .as_str()
            .unwrap()
            .split(' ')
            .take(8)
            .collect();
        let title = format!("{} (a companion study)", opening.join(" "));
        twin["id"] = format!("{id}-twin").into();
        twin["title"] = title.clone().into();
        twins.push(title);
        for key in ["arxiv", "link", "url"] {
            twin.as_object_mut().unwrap().remove(key);
        }
        lines.push(twin.to_string());
    }
    let list = dir.path().join("with-twins.jsonl");
    std::fs::write(&list, lines.join("\n")).unwrap();
    let list = list.display().to_string();
    let positions = |extra: &[&str]| {
        let mut args = vec!["feed", list.as_str(), "-n", "500", "-f", "json", "--all"];
        args.extend(extra);
        let (code, out, err) = run(&index, &args);
        assert_eq!(code, 0, "{err}");
        let rows = json(&out);
        let at = |title: &str| rows.iter().position(|r| r["title"] == title).unwrap();
        (at(&twins[0]), at(&twins[1]))
    };
    let (high_twin, low_twin) = positions(&[]);
    assert!(
        high_twin < 5 && low_twin > high_twin,
        "{high_twin} {low_twin}"
    );
    for (id, verdict) in [(high, "down"), (low, "up")] {
        let (code, _, err) = run(&index, &["rate", id, verdict]);
        assert_eq!(code, 0, "{err}");
    }
    let (high_after, low_after) = positions(&[]);
    assert!(
        high_after > high_twin + 5,
        "the twin of the paper rated down falls: {high_twin} -> {high_after}"
    );
    assert!(
        low_after + 5 < low_twin,
        "the twin of the paper rated up rises: {low_twin} -> {low_after}"
    );
    assert_eq!(positions(&["--learner", "none"]), (high_twin, low_twin));
}

#[test]
fn arxiv_feeds_on_disk_and_over_http_and_digests() {
    let (_dir, index) = library();
    let fixtures = root().join("tests/fixtures/arxiv");
    let page = fixtures.join("api-page1.atom");
    let (code, out, err) = run(
        &index,
        &["feed", page.to_str().unwrap(), "-f", "json", "--all"],
    );
    assert_eq!(code, 0, "{err}");
    let rows = json(&out);
    assert_eq!(rows.len(), 2, "{out}");
    assert!(
        rows.iter()
            .all(|r| r["date"].as_str().is_some_and(|d| d.len() == 10))
    );
    // --since on the entries' own dates.
    let (_, out, _) = run(
        &index,
        &[
            "feed",
            page.to_str().unwrap(),
            "-f",
            "json",
            "--all",
            "--since",
            "2100-01-01",
        ],
    );
    assert!(json(&out).is_empty());
    // A spreadsheet's or a JSON list's own dates: --since compares the day, not the year.
    let dated = tempfile::tempdir().unwrap();
    let csv = dated.path().join("week.csv");
    std::fs::write(
        &csv,
        "title,abstract,date\n\
         Diffusion Policies for Long-Horizon Web Navigation,Web agents plan with diffusion.,2025-03-18\n\
         Curriculum Rewards for Tool-Using Agents,Rewards grow with the task.,2025-01-02\n",
    )
    .unwrap();
    let jsonl = dated.path().join("more.jsonl");
    std::fs::write(
        &jsonl,
        "{\"title\": \"Verifier-Guided Search for Software Agents\", \"published\": \"2025-03-20T08:00:00Z\"}\n\
         {\"title\": \"Agent Memory as a Key-Value Cache\", \"published\": \"2025-02-27\"}\n",
    )
    .unwrap();
    let (code, out, err) = run(
        &index,
        &[
            "feed",
            csv.to_str().unwrap(),
            jsonl.to_str().unwrap(),
            "-f",
            "json",
            "--all",
            "--since",
            "2025-03-01",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let mut kept: Vec<(String, String)> = json(&out)
        .iter()
        .map(|r| {
            (
                r["title"].as_str().unwrap().to_string(),
                r["date"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    kept.sort();
    assert_eq!(
        kept,
        [
            (
                "Diffusion Policies for Long-Horizon Web Navigation".to_string(),
                "2025-03-18".to_string()
            ),
            (
                "Verifier-Guided Search for Software Agents".to_string(),
                "2025-03-20".to_string()
            ),
        ],
        "{err}"
    );
    // A folder of saved API pages as `.xml`: each page that is Atom is read, other XML is named
    // as not read.
    let folder = tempfile::tempdir().unwrap();
    std::fs::copy(&page, folder.path().join("cs.LG-page1.xml")).unwrap();
    std::fs::write(folder.path().join("pom.xml"), "<project/>").unwrap();
    let (code, out, err) = run(
        &index,
        &[
            "feed",
            folder.path().to_str().unwrap(),
            "-f",
            "json",
            "--all",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(json(&out).len(), 2, "{out}");
    assert!(err.contains("not read: pom.xml"), "{err}");
    // Broken, empty and HTML feeds: exit 2, the file named, no panic.
    for name in ["truncated.atom", "empty.atom"] {
        let f = fixtures.join(name);
        let (code, _, err) = run(&index, &["feed", f.to_str().unwrap()]);
        assert_eq!(code, 2, "{name}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        if name == "truncated.atom" {
            assert!(err.contains(name), "{err}");
        }
    }
    // The digest: self-contained, grouped, escaped.
    let (code, html, err) = run(
        &index,
        &["feed", page.to_str().unwrap(), "--all", "-f", "html"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        html.starts_with("<!doctype html>") && html.contains("<h2>"),
        "{html}"
    );
    // The rating command as printed works: it names the index the feed read.
    assert!(
        !html.contains("<script")
            && html.contains(&format!("recommend --index {} rate ", index.display())),
        "{html}"
    );
    let (code, _, _) = run(&index, &["list", "-f", "html"]);
    assert_eq!(code, 2, "--format html is for the feed only");

    // --arxiv against a local server answering in the API's format, two pages.
    let (code, _, err) = run(&index, &["feed", "--arxiv", "cs.LG", "--days", "3650"]);
    assert_eq!(code, 2, "--days is at most 30: {err}");
    let pages = [
        std::fs::read(&page).unwrap(),
        std::fs::read(fixtures.join("api-page2.atom")).unwrap(),
    ];
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let server = std::thread::spawn(move || {
        let mut requests = Vec::new();
        for body in pages {
            let (mut s, _) = listener.accept().unwrap();
            let mut buf = [0u8; 4096];
            let n = s.read(&mut buf).unwrap();
            requests.push(String::from_utf8_lossy(&buf[..n]).into_owned());
            write!(
                s,
                "HTTP/1.1 200 OK\r\ncontent-type: application/atom+xml\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                body.len()
            )
            .unwrap();
            s.write_all(&body).unwrap();
        }
        requests
    });
    let out = cmd_arxiv(&index, &format!("http://{addr}"));
    let requests = server.join().unwrap();
    assert!(
        requests[0].contains("cat:cs.LG") || requests[0].contains("cat%3Acs.LG"),
        "{requests:?}"
    );
    assert_eq!(out.0, 0, "{}", out.2);
    assert_eq!(json(&out.1).len(), 3, "{}", out.1);
    // Nothing listening: a clear runtime error, exit 1.
    let closed = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let out = cmd_arxiv(&index, &format!("http://{closed}"));
    assert_eq!(out.0, 1, "{}", out.2);
    assert!(
        out.2.contains("could not reach") && !out.2.contains("panicked"),
        "{}",
        out.2
    );
    // A quiet day (arXiv answers a feed of no entries) is an answer, not an error.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let quiet = std::thread::spawn(move || {
        let body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\" \
             xmlns:opensearch=\"http://a9.com/-/spec/opensearch/1.1/\"><title>ArXiv Query</title>\
             <id>http://arxiv.org/api/q</id><updated>2026-12-07T00:00:00-05:00</updated>\
             <opensearch:totalResults>0</opensearch:totalResults>\
             <opensearch:startIndex>0</opensearch:startIndex></feed>\n";
        let (mut s, _) = listener.accept().unwrap();
        let mut buf = [0u8; 4096];
        let _ = s.read(&mut buf).unwrap();
        write!(
            s,
            "HTTP/1.1 200 OK\r\ncontent-type: application/atom+xml\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
    });
    let out = cmd_arxiv(&index, &format!("http://{addr}"));
    quiet.join().unwrap();
    assert_eq!(out.0, 0, "{}", out.2);
    assert!(
        out.2.contains("arXiv lists no paper of cs.LG, cs.CL"),
        "{}",
        out.2
    );
    // In the format asked for: a JSON reader gets an empty list, not a sentence.
    assert_eq!(out.1.trim(), "[]", "{}", out.1);
    // A bad category is a usage error before any request.
    let (code, _, err) = run(&index, &["feed", "--arxiv", "not a category"]);
    assert_eq!(code, 2, "{err}");
}

fn cmd_arxiv(index: &Path, base: &str) -> (i32, String, String) {
    let args = [
        "feed",
        "--arxiv",
        "cs.LG,cs.CL",
        "--days",
        "30",
        "-f",
        "json",
        "--all",
    ];
    run_against(index, &args, Some(base))
}

/// A new paper from another field is marked far from the library, first in its `why`, in every
/// format, and comes after the papers the library is about. Its title is embedded once: the
/// next run reads it from the vector cache.
#[test]
fn a_paper_far_from_the_library_is_marked_far() {
    let (dir, index) = library();
    let csv = dir.path().join("day.csv");
    std::fs::write(
        &csv,
        "title,abstract\n\
         A Survey of Exoplanet Atmospheres,We review transit spectroscopy of exoplanet atmospheres.\n\
         Exoplanet Catalogue: Hot Jupiter Atmospheres,A catalogue of hot Jupiters.\n\
         Web Agents Trained with Multi-Turn Reinforcement Learning,We train browser agents end to end with RL.\n",
    )
    .unwrap();
    let (code, out, err) = run(&index, &["feed", csv.to_str().unwrap(), "-f", "json"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("as searches of the library"), "{err}");
    let rows = json(&out);
    // Every paper the library is about comes first.
    let marked: Vec<bool> = rows.iter().map(|r| r["far"] == true).collect();
    assert!(marked.contains(&true) && marked.contains(&false), "{out}");
    assert!(marked.windows(2).all(|w| w[0] <= w[1]), "{out}");
    let far = |title: &str| {
        rows.iter()
            .find(|r| r["title"].as_str().unwrap().starts_with(title))
            .unwrap_or_else(|| panic!("{title}: {out}"))
            .clone()
    };
    let exo = far("A Survey of Exoplanet");
    assert_eq!(exo["far"], true, "{exo}");
    // A paper without an arXiv id or DOI is shown by the slug a library paper would get.
    assert_eq!(exo["id"], "a-survey-of-exoplanet-atmospheres");
    assert!(
        exo["why"]
            .as_str()
            .unwrap()
            .starts_with("far from your library"),
        "{exo}"
    );
    // Its nearest library papers are named as the nearest, not as close.
    assert!(!exo["why"].as_str().unwrap().contains("close to"), "{exo}");
    let agents = far("Web Agents Trained");
    assert!(agents.get("far").is_none(), "{agents}");
    assert!(!agents["why"].as_str().unwrap().contains("far from"));
    let (code, md, err) = run(
        &index,
        &["feed", csv.to_str().unwrap(), "--all", "-f", "markdown"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(md.contains("far from your library"), "{md}");
    // Grouped formats list far papers in a last group of their own.
    let far_group = md.find("## Far from your library").expect(&md);
    assert!(md.rfind("## ") == Some(far_group), "{md}");
    assert!(md.find("Exoplanet").unwrap() > far_group, "{md}");
    assert!(md.find("Web Agents Trained").unwrap() < far_group, "{md}");
    assert!(!err.contains("embedding"), "the cache holds both: {err}");
    // A table cuts ids short: the start of a shown title rates it, and clears it, when no
    // library paper has that name and one shown title alone holds it.
    for verdict in ["down", "clear"] {
        let (code, _, err) = run(&index, &["rate", "Exoplanet Atmos", verdict]);
        assert_eq!(code, 0, "{err}");
        assert!(err.contains("A Survey of Exoplanet Atmospheres"), "{err}");
    }
    let (code, _, err) = run(&index, &["rate", "Exo", "down"]);
    assert_eq!(code, 2, "too short to name a paper: {err}");
    // Part of two shown titles names neither: it is ambiguous, and both are listed.
    let (code, _, err) = run(&index, &["rate", "Exoplanet", "down"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("\"Exoplanet\" matches 2 papers a feed showed")
            && err.contains("Exoplanet Catalogue")
            && !err.contains("neither"),
        "{err}"
    );
    // The id shown rates it, and clears it.
    for verdict in ["up", "clear"] {
        let (code, _, err) = run(
            &index,
            &["rate", "a-survey-of-exoplanet-atmospheres", verdict],
        );
        assert_eq!(code, 0, "{err}");
    }
    // Rated up, it is the reader's: no longer far, the other exoplanet paper still is.
    let id = "a-survey-of-exoplanet-atmospheres";
    let (code, _, err) = run(&index, &["rate", id, "up"]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = run(
        &index,
        &["feed", csv.to_str().unwrap(), "--all", "-f", "json"],
    );
    assert_eq!(code, 0, "{err}");
    let rows = json(&out);
    let row = |title: &str| {
        rows.iter()
            .find(|r| r["title"].as_str().unwrap().starts_with(title))
            .unwrap_or_else(|| panic!("{title}: {out}"))
            .clone()
    };
    assert!(row("A Survey of Exoplanet").get("far").is_none(), "{out}");
    assert_eq!(row("Exoplanet Catalogue")["far"], true, "{out}");
}

/// The server's Inbox: the candidates of `--feed` ranked (`/api/feed`), rated with
/// `POST /api/rate` into the same state file `recommend rate` writes, a rated paper gone from
/// the next answer; errors as JSON; the page itself.
#[test]
fn the_inbox_serves_the_feed_and_takes_ratings() {
    let (dir, index) = library();
    let c = candidates();
    let s = Server::start_with(&index, &["--feed", c.as_str()]);
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let get = |target: &str| -> (u16, Value) {
        let mut r = agent.get(&format!("{}{target}", s.base)).call().unwrap();
        let body = r.body_mut().read_to_string().unwrap();
        (
            r.status().as_u16(),
            serde_json::from_str(&body).unwrap_or(Value::String(body)),
        )
    };
    let post = |target: &str| -> (u16, Value) {
        let mut r = agent
            .post(&format!("{}{target}", s.base))
            .send_empty()
            .unwrap();
        let body = r.body_mut().read_to_string().unwrap();
        (r.status().as_u16(), serde_json::from_str(&body).unwrap())
    };
    let (code, page) = get("/inbox");
    assert_eq!(code, 200);
    assert!(page.as_str().unwrap().contains("/api/rate"), "{page}");
    let (code, feed) = get("/api/feed?k=10");
    assert_eq!(code, 200, "{feed}");
    let results = feed["results"].as_array().unwrap();
    assert_eq!(results.len(), 10);
    // Papers of the field, ranked first: none is far from the library.
    assert!(results.iter().all(|r| r.get("far").is_none()), "{feed}");
    let first = results[0]["id"].as_str().unwrap().to_string();
    let (code, body) = post(&format!("/api/rate?id={first}&verdict=down"));
    assert_eq!(code, 200, "{body}");
    let state: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("library.feed.json")).unwrap())
            .unwrap();
    assert_eq!(state["ratings"][&first]["verdict"], "down");
    let (_, again) = get("/api/feed?k=10");
    assert!(
        again["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["id"] != first.as_str())
    );
    // Part of a title on the page names its paper, as `recommend rate` reads part of a shown
    // title.
    let second = results[1..]
        .iter()
        .find(|r| r["title"].as_str().unwrap().split_whitespace().count() >= 3)
        .expect("a result whose title has three words");
    let title = second["title"].as_str().unwrap();
    let part: String = title
        .split_whitespace()
        .skip(1)
        .collect::<Vec<_>>()
        .join(" ");
    let query: String = part
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    let (code, body) = post(&format!("/api/rate?id={query}&verdict=up"));
    assert_eq!(code, 200, "{part}: {body}");
    let state: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("library.feed.json")).unwrap())
            .unwrap();
    let rated = second["id"].as_str().unwrap();
    assert_eq!(state["ratings"][rated]["verdict"], "up", "{part}: {state}");
    // Bad input: JSON errors with the parameter.
    let (code, body) = post("/api/rate?id=no%20such%20paper%20at%20all&verdict=up");
    assert_eq!(code, 404, "{body}");
    assert_eq!(body["parameter"], "id");
    let (code, body) = post(&format!("/api/rate?id={first}&verdict=sideways"));
    assert_eq!(code, 400, "{body}");
    assert_eq!(body["parameter"], "verdict");
    let (code, body) = get("/api/feed?interest=no%20such%20interest");
    assert_eq!(code, 400, "{body}");
    assert_eq!(body["parameter"], "interest");
    // Rating takes POST alone; a wrong method or a malformed body length is a JSON error too.
    let mut r = agent
        .get(&format!("{}/api/rate?id={first}&verdict=up", s.base))
        .call()
        .unwrap();
    assert_eq!(r.status().as_u16(), 405);
    assert_eq!(r.headers()["allow"], "POST");
    let body: Value = serde_json::from_str(&r.body_mut().read_to_string().unwrap()).unwrap();
    assert!(body["error"].as_str().unwrap().contains("POST"), "{body}");
    // The Inbox's own GET routes answer a wrong method in JSON too, as the shared ones do.
    let mut r = agent
        .post(&format!("{}/api/feed", s.base))
        .send_empty()
        .unwrap();
    assert_eq!(r.status().as_u16(), 405);
    let body: Value = serde_json::from_str(&r.body_mut().read_to_string().unwrap()).unwrap();
    assert!(body["error"].as_str().unwrap().contains("GET"), "{body}");
    for length in ["abc", "-1", "3\r\nContent-Length: 4"] {
        let (code, body) = s.raw_response(
            format!(
                "POST /api/rate?id=x&verdict=up HTTP/1.1\r\nHost: x\r\nContent-Length: {length}\r\n\r\n"
            )
            .as_bytes(),
        );
        assert_eq!(code, 400, "{body}");
        assert!(
            body["error"].as_str().unwrap().contains("Content-Length"),
            "{body}"
        );
    }
    // Without --feed there is no Inbox, and the server says how to get one.
    let plain = Server::start(&index);
    let mut r = agent
        .get(&format!("{}/api/feed", plain.base))
        .call()
        .unwrap();
    assert_eq!(r.status().as_u16(), 404);
    assert!(r.body_mut().read_to_string().unwrap().contains("--feed"));
}

/// A paper shown by its title alone is the same paper when a later listing gives its arXiv id,
/// and the other way round: not shown again.
#[test]
fn a_paper_shown_by_title_is_not_shown_again_under_its_arxiv_id() {
    let (dir, index) = library();
    let title = "Curriculum Web Agents Trained Online with Multi-Turn Reinforcement Learning";
    let plain = dir.path().join("plain.csv");
    std::fs::write(
        &plain,
        format!("title,abstract\n{title},We train browser agents with RL.\n"),
    )
    .unwrap();
    let (code, out, err) = run(&index, &["feed", plain.to_str().unwrap(), "-f", "json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(json(&out).len(), 1, "{out}");
    let with_id = dir.path().join("with-id.csv");
    std::fs::write(
        &with_id,
        format!("title,abstract,arxiv\n{title},We train browser agents with RL.,2611.00001\n"),
    )
    .unwrap();
    let (code, out, err) = run(&index, &["feed", with_id.to_str().unwrap(), "-f", "json"]);
    assert_eq!(code, 0, "{err}");
    assert!(json(&out).is_empty(), "{out}");
    assert!(err.contains("1 shown or rated before"), "{err}");
    // `--all` shows it again, and it stays remembered under the key it was shown by.
    let (code, out, err) = run(
        &index,
        &["feed", with_id.to_str().unwrap(), "--all", "-f", "json"],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(json(&out).len(), 1, "{out}");
}

/// A candidate file whose only entry is left out says why it holds no paper: the reason would
/// otherwise be lost with the warning that carries it.
#[test]
fn a_candidate_file_of_one_entry_left_out_says_why_it_holds_no_paper() {
    let (dir, index) = library();
    let title = "x".repeat(150_000);
    let atom = dir.path().join("huge.atom");
    std::fs::write(
        &atom,
        format!(
            "<?xml version=\"1.0\"?><feed xmlns=\"http://www.w3.org/2005/Atom\"><entry>\
             <id>http://arxiv.org/abs/2501.00001v1</id><title>{title}</title><summary>s</summary>\
             </entry></feed>"
        ),
    )
    .unwrap();
    let (code, out, err) = run(&index, &["feed", atom.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("no papers found"), "{err}");
    assert!(err.contains("a title of 150000 bytes"), "{err}");
}
