//! Commands that look at the whole index: `topics`, `path`, `map`.

use std::path::Path;

use anyhow::{Context, Result};

use recommend::render::{Document, col, wrap};

use super::{open_session, show, usage};
use crate::cli::CommonArgs;

pub(super) fn topics(common: &CommonArgs, k: Option<usize>, evaluate: bool) -> Result<()> {
    let session = open_session(common)?;
    let index = session.searcher();
    let clusters = session.topics(k)?;
    let mut doc = Document::new(vec![
        col("#"),
        wrap("label"),
        col("size"),
        wrap("central"),
        wrap("keywords"),
    ]);
    for t in &clusters {
        let central = index
            .papers()
            .iter()
            .find(|p| p.id == t.central)
            .map_or(t.central.clone(), |p| p.title.clone());
        doc.push(
            vec![
                t.id.to_string(),
                t.label.clone(),
                t.papers.len().to_string(),
                central,
                t.keywords.join(", "),
            ],
            t,
        );
    }
    show(common, &doc)?;
    if evaluate {
        let Some(c) = recommend::bench::clusters(index, k)? else {
            return Err(usage("the corpus has no topic labels to evaluate against"));
        };
        eprintln!(
            "agreement with the corpus topics ({} labels, {} papers):",
            c.labels, c.papers
        );
        for r in &c.results {
            eprintln!(
                "  {}: k={} NMI {:.3} ARI {:.3} largest/median {:.2}",
                r.method, r.k, r.nmi, r.ari, r.largest_over_median
            );
        }
    }
    Ok(())
}

pub(super) fn path(common: &CommonArgs, like: &str, to: Option<&str>, n: usize) -> Result<()> {
    let session = open_session(common)?;
    let steps = session.path(like, to, n)?;
    // A path shorter than asked for says why (the last step's note, `engine::reading`), and
    // where the rest of the related work is.
    if let Some(note) = steps.last().and_then(|s| s.note.as_deref()) {
        let papers = session.searcher().len();
        if n > papers {
            eprintln!("note: the index holds {papers} papers, fewer than the {n} asked for");
        }
        // Why it stopped where it did, whatever was asked: the list's related work ran out.
        eprintln!("note: {note}; `recommend --like {like:?}` lists more");
    }
    let mut doc = Document::new(vec![
        col("step"),
        wrap("title"),
        col("year"),
        col("kind"),
        col("topic"),
        wrap("why"),
        col("link"),
    ]);
    for s in &steps {
        doc.push(
            vec![
                s.step.to_string(),
                s.title.clone(),
                s.year.map(|y| y.to_string()).unwrap_or_default(),
                s.kind.to_string(),
                s.topic.clone(),
                s.why.clone(),
                s.url.clone().unwrap_or_default(),
            ],
            s,
        );
    }
    doc.link_title(1, 6);
    show(common, &doc)
}

/// Whether `out` names an SVG (else HTML); any other extension is refused.
fn map_is_svg(out: &Path) -> Result<bool> {
    match out
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("svg") => Ok(true),
        Some("html" | "htm") => Ok(false),
        _ => Err(usage(format!(
            "{}: the map is written as .html or .svg",
            out.display()
        ))),
    }
}

/// Whether `path` holds a map this command wrote (the page's `map-root` element, the SVG's
/// point count, both near its start), so replacing it loses nothing.
fn holds_a_map(path: &Path) -> bool {
    use std::io::Read;
    let mut head = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(64 << 10).read_to_end(&mut head))
        .is_ok()
        && {
            let head = String::from_utf8_lossy(&head);
            head.contains("<div id=\"map-root\"") || head.contains("\" data-points=\"")
        }
}

pub(super) fn map(common: &CommonArgs, out: &Path, like: Option<&str>, force: bool) -> Result<()> {
    let svg = map_is_svg(out)?;
    // Refuse an unwritable --out before the minutes of layout work.
    let target = recommend::safe_fs::final_target(out)
        .map_err(|e| usage(format!("cannot write {}: {e}", out.display())))?;
    if target.is_dir() {
        return Err(usage(format!(
            "cannot write {}: it is a directory; give a file name such as map.html",
            out.display()
        )));
    }
    if target.exists() && !force && !holds_a_map(&target) {
        return Err(usage(format!(
            "{} exists and is not a map: give another --out, or --force to replace it",
            out.display()
        )));
    }
    let session = open_session(common)?;
    let index = session.searcher();
    let focus = like.map(|l| session.resolve(l)).transpose()?;
    let text = recommend::map::draw(index, focus, svg)?;
    recommend::safe_fs::write_atomic(out, text.as_bytes())
        .with_context(|| format!("cannot write {}", out.display()))?;
    eprintln!("wrote {} ({} papers)", out.display(), index.len());
    Ok(())
}
