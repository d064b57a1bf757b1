//! What `recommend feed` prints: one record per result (`--format json`), tables and Markdown
//! grouped by interest, and the self-contained HTML digest.

use anyhow::Result;

use recommend::feed::Library;
use recommend::feed::records::FeedRecord;
use recommend::render::{self, Document, Format, col, wrap};

use super::{color_of, emit, format_of};
use crate::cli::{CommonArgs, FormatArg};

pub(super) fn render_feed(
    common: &CommonArgs,
    lib: &Library,
    records: &[FeedRecord],
    empty: &str,
) -> Result<()> {
    if common.format == Some(FormatArg::Html) {
        return emit(&html_digest(lib, records, &rate_command(common), empty));
    }
    let format = format_of(common, Format::Table);
    if matches!(format, Format::Json | Format::Jsonl) {
        let doc = flat(records);
        return emit(&render::renderer(format).render(&doc));
    }
    let color = color_of(common);
    if records.is_empty() {
        return emit(&format!("{empty}\n"));
    }
    let mut out = String::new();
    for (name, group) in groups(lib, records) {
        let heading = render::neutralize(&name);
        out.push_str(&if format == Format::Markdown {
            format!("## {heading}\n\n")
        } else {
            format!("{heading}\n")
        });
        let mut doc = Document::new(vec![
            col("#"),
            wrap("title"),
            col("score"),
            wrap("why"),
            col("id"),
            col("link"),
        ]);
        for r in &group {
            doc.push(
                vec![
                    r.rank.to_string(),
                    r.title.clone(),
                    format!("{:.3}", r.score),
                    r.why.clone(),
                    r.id.clone(),
                    r.url.clone().unwrap_or_default(),
                ],
                &serde_json::to_value(r).unwrap_or_default(),
            );
        }
        doc.link_title(1, 5);
        out.push_str(&render::renderer_with(format, color).render(&doc));
        out.push('\n');
    }
    // On stderr: a digest redirected to a file holds the papers alone.
    eprintln!("rate a paper: {} ID up|down", rate_command(common));
    emit(&out)
}

/// `recommend rate`, with the `--index` the feed read when it is not the default one, so the
/// command works as printed (quoted for a POSIX shell where the path needs it).
fn rate_command(common: &CommonArgs) -> String {
    let index = common.index.to_string_lossy();
    if common.index == std::path::Path::new("index.bin") {
        return "recommend rate".into();
    }
    let plain = index
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@".contains(c));
    if plain {
        format!("recommend --index {index} rate")
    } else {
        format!("recommend --index '{}' rate", index.replace('\'', "'\\''"))
    }
}

/// The heading of the last group: papers far from the library ([`FeedRecord::far`]).
const FAR_GROUP: &str = "Far from your library";

/// The records grouped under their interests, the interest holding the best result first (a
/// digest opens with the paper ranked first, not with the library's first interest), and the
/// papers far from the library in a last group of their own, after every other paper, as the
/// flat ranking lists them.
fn groups<'a>(lib: &Library, records: &'a [FeedRecord]) -> Vec<(String, Vec<&'a FeedRecord>)> {
    let mut out: Vec<(String, Vec<&FeedRecord>)> = Vec::new();
    for r in records.iter().filter(|r| !r.far) {
        match out.iter_mut().find(|(name, _)| *name == r.interest) {
            Some((_, group)) => group.push(r),
            None if lib.interests.iter().any(|i| i.name == r.interest) => {
                out.push((r.interest.clone(), vec![r]));
            }
            None => {}
        }
    }
    let far: Vec<&FeedRecord> = records.iter().filter(|r| r.far).collect();
    if !far.is_empty() {
        out.push((FAR_GROUP.to_string(), far));
    }
    out
}

fn flat(records: &[FeedRecord]) -> Document {
    let mut doc = Document::new(vec![col("rank"), col("id")]);
    for r in records {
        doc.push(
            vec![r.rank.to_string(), r.id.clone()],
            &serde_json::to_value(r).unwrap_or_default(),
        );
    }
    doc
}

/// A self-contained page (no scripts, no remote resources), grouped by interest, every piece of
/// data escaped and only http(s) addresses linked: a digest a cron job can mail.
/// The self-contained HTML digest; `empty` is what it says when no paper is left (the table's
/// words, without their parentheses).
fn html_digest(lib: &Library, records: &[FeedRecord], rate: &str, empty: &str) -> String {
    use recommend::map::escape_xml as esc;
    let mut body = String::new();
    for (name, group) in groups(lib, records) {
        body.push_str(&format!("<h2>{}</h2>\n<ol>\n", esc(&name)));
        for r in group {
            let title = match r
                .url
                .as_deref()
                .filter(|u| recommend::corpus::paper::is_http_url(u))
            {
                Some(u) => format!("<a href=\"{}\">{}</a>", esc(u), esc(&r.title)),
                None => esc(&r.title),
            };
            body.push_str(&format!(
                "<li value=\"{}\"><p class=\"t\">{title} <span class=\"s\">{:.3}</span></p>\
                 <p class=\"w\">{}</p><p class=\"r\"><code>{rate} {} up</code> · \
                 <code>{rate} {} down</code></p></li>\n",
                r.rank,
                r.score,
                esc(&r.why),
                esc(&r.id),
                esc(&r.id),
                rate = esc(rate),
            ));
        }
        body.push_str("</ol>\n");
    }
    if records.is_empty() {
        let said = empty.trim_start_matches('(').trim_end_matches(')');
        let mut said = said.chars();
        let first = said
            .next()
            .map(|c| c.to_uppercase().to_string())
            .unwrap_or_default();
        body.push_str(&format!("<p>{}.</p>\n", esc(&(first + said.as_str()))));
    }
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\">\
         <title>recommend: new papers for your library</title><style>\
         body{{font:15px/1.45 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem}}\
         h2{{border-bottom:1px solid #ccc}} .t{{font-weight:600;margin:.2rem 0}}\
         .s{{color:#777;font-weight:400}} .w{{margin:.1rem 0;color:#333}} .r{{color:#777;margin:.1rem 0 .8rem}}\
         </style></head><body>\n<h1>New papers for your library</h1>\n{body}</body></html>\n"
    )
}
