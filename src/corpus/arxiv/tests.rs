use super::fetch::{civil, day_before, shown};
use super::rss::strip_title_suffix;
use super::xml::{iso_day, rfc822_day, split_version};
use super::*;
use crate::corpus::fields::{MAX_FIELD_BYTES, Origin, Outcome, map_record};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/arxiv/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// 2026-12-03T12:00:00Z.
fn now() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(20_790 * 86_400 + 12 * 3_600)
}

#[test]
fn atom_page_of_the_classic_layout() {
    let feed = parse(&fixture("api-page1.atom")).unwrap();
    assert_eq!(feed.format, FeedFormat::Atom);
    assert_eq!(feed.total_results, Some(3));
    assert_eq!(feed.entries.len(), 2);
    let e = &feed.entries[0];
    assert_eq!(e.arxiv, "2612.01234");
    assert_eq!(e.version, Some(2));
    assert_eq!(
        e.title,
        "Sparse Retrieval Heads: Locating Where Long-Context Models Look Things Up"
    );
    assert!(
        e.summary
            .starts_with("Language models that read long inputs")
    );
    assert!(e.summary.ends_with("40% lower decoding cost."));
    assert!(!e.summary.contains('\n') && !e.summary.contains("  "));
    assert_eq!(
        e.authors,
        ["Maren Okafor", "Tomasz Lindqvist", "Priya Raman"]
    );
    assert_eq!(e.published.as_deref(), Some("2026-12-02"));
    assert_eq!(e.updated.as_deref(), Some("2026-12-02"));
    assert_eq!(e.categories, ["cs.CL", "cs.LG"]);
    assert_eq!(e.url, "http://arxiv.org/abs/2612.01234v2");
    assert_eq!(e.doi.as_deref(), Some("10.48550/arXiv.2612.01234"));
    assert_eq!(
        e.comment.as_deref(),
        Some("14 pages, 6 figures; v2 adds results on two more model families")
    );
    let e = &feed.entries[1];
    assert_eq!((e.arxiv.as_str(), e.version), ("2612.00987", Some(1)));
    assert_eq!(e.categories, ["cs.LG", "stat.ML"]);
    assert_eq!(e.doi, None);
    assert_eq!(e.comment, None);
}

#[test]
fn atom_page_of_the_current_layout() {
    let feed = parse(&fixture("api-page2.atom")).unwrap();
    assert_eq!(feed.total_results, Some(3));
    let [e] = feed.entries.as_slice() else {
        panic!("one entry expected: {:?}", feed.entries)
    };
    assert_eq!(e.arxiv, "2611.30412");
    assert_eq!(
        e.title,
        "Tokenizer Drift: How Vocabulary Updates Break Cached Embeddings & What to Do About It"
    );
    // The primary category comes first even when listed last.
    assert_eq!(e.categories, ["cs.IR", "cs.CL"]);
    assert_eq!(e.authors, ["Élodie Marchand", "Kwame Asante"]);
    assert_eq!(e.url, "https://arxiv.org/abs/2611.30412v1");
    assert_eq!(e.published.as_deref(), Some("2026-11-30"));
}

#[test]
fn atom_listing_of_the_rss_service() {
    let text = r#"<?xml version='1.0' encoding='UTF-8'?>
<feed xmlns:arxiv="http://arxiv.org/schemas/atom" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns="http://www.w3.org/2005/Atom" xml:lang="en-us">
  <id>http://rss.arxiv.org/atom/cs.LG</id>
  <title>cs.LG updates on arXiv.org</title>
  <updated>2026-12-03T05:00:12.000000+00:00</updated>
  <link href="http://rss.arxiv.org/atom/cs.LG" rel="self" type="application/atom+xml"/>
  <subtitle>cs.LG updates on the arXiv.org e-print archive.</subtitle>
  <entry>
<id>oai:arXiv.org:2612.00987v1</id>
<title>Calibrated Early Exit for Graph Neural Networks on Streaming Data</title>
<updated>2026-12-03T00:00:00-05:00</updated>
<link href="https://arxiv.org/abs/2612.00987" rel="alternate" type="text/html"/>
<summary>arXiv:2612.00987v1 Announce Type: new 
Abstract: Graph neural networks applied to event streams spend the same compute on every node.</summary>
<category term="cs.LG" scheme="http://arxiv.org/schemas/atom"/>
<published>2026-12-03T00:00:00-05:00</published>
<arxiv:announce_type>new</arxiv:announce_type>
<dc:rights>http://creativecommons.org/licenses/by/4.0/</dc:rights>
<dc:creator>Jun-seo Park, Ana Beatriz Queiroz</dc:creator>
  </entry>
</feed>"#;
    let [e]: [Entry; 1] = parse_feed(text).unwrap().try_into().unwrap();
    assert_eq!((e.arxiv.as_str(), e.version), ("2612.00987", Some(1)));
    assert_eq!(
        e.summary,
        "Graph neural networks applied to event streams spend the same compute on every node."
    );
    assert_eq!(e.authors, ["Jun-seo Park", "Ana Beatriz Queiroz"]);
    assert_eq!(e.announce_type.as_deref(), Some("new"));
    assert_eq!(e.published.as_deref(), Some("2026-12-03"));
}

#[test]
fn rss_listing() {
    let feed = parse(&fixture("listing.rss")).unwrap();
    assert_eq!(feed.format, FeedFormat::Rss);
    assert_eq!(feed.total_results, None);
    assert_eq!(feed.entries.len(), 3);
    let e = &feed.entries[0];
    assert_eq!((e.arxiv.as_str(), e.version), ("2612.00987", Some(1)));
    assert_eq!(
        e.title,
        "Calibrated Early Exit for Graph Neural Networks on Streaming Data"
    );
    assert!(
        e.summary.starts_with("Graph neural networks applied"),
        "{}",
        e.summary
    );
    assert!(!e.summary.contains("Announce Type"));
    assert_eq!(e.authors, ["Jun-seo Park", "Ana Beatriz Queiroz"]);
    assert_eq!(e.categories, ["cs.LG", "stat.ML"]);
    assert_eq!(e.published.as_deref(), Some("2026-12-03"));
    assert_eq!(e.url, "https://arxiv.org/abs/2612.00987");
    assert_eq!(e.announce_type.as_deref(), Some("new"));
    assert_eq!(feed.entries[1].announce_type.as_deref(), Some("cross"));
    let e = &feed.entries[2];
    assert_eq!((e.arxiv.as_str(), e.version), ("2605.11873", Some(3)));
    assert_eq!(e.announce_type.as_deref(), Some("replace"));
    assert_eq!(e.authors.len(), 3);
    assert_eq!(e.doi.as_deref(), Some("10.1145/3701234.3705678"));
}

#[test]
fn old_rss_titles_lose_their_id_suffix() {
    assert_eq!(
        strip_title_suffix("A Study of Things. (arXiv:2301.00001v1 [cs.LG])"),
        "A Study of Things"
    );
    assert_eq!(
        strip_title_suffix("Plain (with parens)"),
        "Plain (with parens)"
    );
}

#[test]
fn records_map_onto_papers_without_ignored_keys() {
    for name in ["api-page1.atom", "listing.rss"] {
        for e in parse_feed(&fixture(name)).unwrap() {
            let Outcome::Paper(m) = map_record(&e.to_record(), Origin::Json) else {
                panic!("{name}: {} did not map", e.arxiv)
            };
            assert!(m.ignored.is_empty(), "{:?}", m.ignored);
            assert!(!m.derived_id);
            let p = &m.paper;
            assert_eq!(p.id, e.arxiv);
            assert_eq!(p.arxiv.as_deref(), Some(e.arxiv.as_str()));
            assert_eq!(p.title, e.title);
            assert_eq!(p.summary, e.summary);
            assert_eq!(p.year, Some(2026));
            assert_eq!(p.authors, Some(e.authors.join(", ")));
            assert_eq!(p.doi, e.doi);
            assert_eq!(p.url.as_deref(), Some(e.url.as_str()));
            for c in &e.categories {
                assert!(p.keywords.contains(c), "{c} not in {:?}", p.keywords);
            }
        }
    }
}

#[test]
fn truncated_document_names_where_it_ends() {
    let err = parse_feed(&fixture("truncated.atom")).unwrap_err();
    let msg = err.to_string();
    match &err {
        FeedError::Truncated { line, .. } | FeedError::Malformed { line, .. } => {
            assert!(*line >= 30, "{msg}")
        }
        other => panic!("{other:?}"),
    }
    assert!(msg.contains("line 3"), "{msg}");
    // Cut between two elements, too.
    let text = fixture("api-page1.atom");
    let cut = &text[..text.find("  <entry>").unwrap()];
    let err = parse_feed(cut).unwrap_err();
    assert!(
        matches!(err, FeedError::Truncated { line: 10, .. }),
        "{err}"
    );
}

#[test]
fn malformed_xml_has_line_and_column() {
    let text =
        fixture("api-page1.atom").replace("</title>\n    <summary>", "</titel>\n    <summary>");
    let err = parse_feed(&text).unwrap_err();
    let FeedError::Malformed { line, col, .. } = &err else {
        panic!("{err:?}")
    };
    // roxmltree places a mismatched close tag at its element's start.
    assert_eq!(*line, 15);
    assert!(*col > 1);
    assert!(err.to_string().contains("line 15, column"), "{err}");
    assert!(err.to_string().contains("titel"), "{err}");
}

#[test]
fn html_page_is_named_as_such() {
    let err = parse_feed(&fixture("error.html")).unwrap_err();
    assert_eq!(
        err,
        FeedError::Html {
            title: Some("503 Service Unavailable | arXiv e-print repository".into())
        }
    );
    assert!(err.to_string().contains("HTML page"), "{err}");
    // Well-formed XHTML too.
    let err = parse_feed("<?xml version=\"1.0\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><head><title>Oops</title></head><body/></html>").unwrap_err();
    assert_eq!(
        err,
        FeedError::Html {
            title: Some("Oops".into())
        }
    );
}

#[test]
fn other_documents_are_neither_atom_nor_rss() {
    let err = parse_feed("<svg xmlns=\"http://www.w3.org/2000/svg\"/>").unwrap_err();
    assert!(matches!(err, FeedError::NotAFeed { .. }), "{err:?}");
    assert!(err.to_string().contains("<svg>"), "{err}");
    let err = parse_feed("Rate exceeded.").unwrap_err();
    assert!(err.to_string().contains("Rate exceeded."), "{err}");
    let err = parse_feed("<feed><entry/></feed>").unwrap_err();
    assert!(err.to_string().contains("no namespace"), "{err}");
    assert!(matches!(parse_feed("  "), Err(FeedError::NotAFeed { .. })));
    let err = parse_feed("<rss version=\"2.0\"></rss>").unwrap_err();
    assert!(err.to_string().contains("without a <channel>"), "{err}");
}

#[test]
fn zero_entries_is_ok_and_empty() {
    let feed = parse(&fixture("empty.atom")).unwrap();
    assert!(feed.entries.is_empty());
    assert_eq!(feed.total_results, Some(0));
    let rss =
        "<rss version=\"2.0\"><channel><title>cs.LG updates on arXiv.org</title></channel></rss>";
    assert_eq!(parse_feed(rss).unwrap(), vec![]);
}

#[test]
fn entry_without_title_or_id_is_named_by_line() {
    let text = fixture("api-page1.atom").replace(
        "    <title>Calibrated Early Exit for Graph Neural Networks on Streaming Data</title>\n",
        "",
    );
    let err = parse_feed(&text).unwrap_err();
    assert_eq!(
        err,
        FeedError::Missing {
            line: 41,
            field: "<title>"
        }
    );
    assert!(err.to_string().contains("line 41"), "{err}");
    let text =
        fixture("api-page1.atom").replace("    <id>http://arxiv.org/abs/2612.00987v1</id>\n", "");
    assert!(matches!(
        parse_feed(&text),
        Err(FeedError::Missing {
            line: 41,
            field: "<id>"
        })
    ));
    let text = fixture("api-page1.atom").replace(
        "http://arxiv.org/abs/2612.00987v1</id>",
        "urn:uuid:1234</id>",
    );
    assert!(matches!(
        parse_feed(&text),
        Err(FeedError::BadId { line: 41, .. })
    ));
    let rss = fixture("listing.rss").replace(
        "      <title>Calibrated Early Exit for Graph Neural Networks on Streaming Data</title>\n",
        "",
    );
    assert!(matches!(
        parse_feed(&rss),
        Err(FeedError::Missing {
            line: 17,
            field: "<title>"
        })
    ));
}

#[test]
fn api_error_entry_is_reported() {
    let text = r#"<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title type="html">ArXiv Query: search_query=&amp;id_list=1234.12345v&amp;start=0&amp;max_results=10</title>
  <id>http://arxiv.org/api/ad7WzOz5Zy0cFMRLhV0cZl3AR1k</id>
  <opensearch:totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">1</opensearch:totalResults>
  <entry>
<id>http://arxiv.org/api/errors#incorrect_id_format_for_1234.12345v</id>
<title>Error</title>
<summary>incorrect id format for 1234.12345v</summary>
<updated>2026-12-03T00:00:00-05:00</updated>
<link href="http://arxiv.org/api/errors#incorrect_id_format_for_1234.12345v" rel="alternate" type="text/html"/>
<author>
  <name>arXiv api core</name>
</author>
  </entry>
</feed>"#;
    assert_eq!(
        parse_feed(text).unwrap_err(),
        FeedError::Api {
            message: "incorrect id format for 1234.12345v".into()
        }
    );
}

#[test]
fn bounds_are_kept() {
    // A feed of `depth` nested elements.
    let nested = |depth: usize| {
        format!(
            "<feed xmlns=\"{ATOM_NS}\">{}{}</feed>",
            "<x>".repeat(depth),
            "</x>".repeat(depth)
        )
    };
    assert!(matches!(
        parse_feed(&nested(200)),
        Err(FeedError::TooDeep { line: 1 })
    ));
    // Far deeper than any stack: refused, not a crash.
    assert!(matches!(
        parse_feed(&nested(200_000)),
        Err(FeedError::TooDeep { .. })
    ));
    let long = "word ".repeat(MAX_FIELD_BYTES / 5 + 1);
    let text = fixture("api-page2.atom").replace("Retrieval systems often", &long);
    assert!(matches!(
        parse_feed(&text),
        Err(FeedError::FieldTooLong {
            line: 10,
            field: "summary",
            ..
        })
    ));
    let huge = " ".repeat(MAX_DOCUMENT_BYTES + 1);
    assert!(matches!(parse_feed(&huge), Err(FeedError::TooLarge { .. })));
}

#[test]
fn dates_and_ids() {
    assert_eq!(civil(0), "1970-01-01");
    assert_eq!(civil(11_016), "2000-02-29");
    assert_eq!(civil(20_790), "2026-12-03");
    assert_eq!(day_before(now(), 7), "2026-11-26");
    assert_eq!(
        rfc822_day("Wed, 19 Mar 2025 00:00:00 -0400").as_deref(),
        Some("2025-03-19")
    );
    assert_eq!(rfc822_day("not a date"), None);
    assert_eq!(
        iso_day("2025-03-18T17:59:59Z").as_deref(),
        Some("2025-03-18")
    );
    assert_eq!(iso_day("March 2025"), None);
    assert_eq!(
        split_version("http://arxiv.org/abs/2503.14476v2"),
        Some(("2503.14476".into(), Some(2)))
    );
    assert_eq!(
        split_version("http://arxiv.org/abs/hep-th/9901001v1"),
        Some(("hep-th/9901001".into(), Some(1)))
    );
    assert_eq!(
        split_version("2503.14476"),
        Some(("2503.14476".into(), None))
    );
}

#[test]
fn categories_are_checked_before_any_request() {
    for good in [
        "cs.LG",
        "math.AG",
        "hep-th",
        "astro-ph.CO",
        "cond-mat.stat-mech",
        "stat.ML",
        "q-bio.NC",
    ] {
        assert_eq!(validate_category(good), Ok(()), "{good}");
    }
    for bad in [
        "",
        "cs.",
        ".LG",
        "CS.LG",
        "cs LG",
        "cs.LG+OR+x",
        "cs.LG&start=9",
        "cs.L1",
        "cs..LG",
        "-cs",
    ] {
        assert!(validate_category(bad).is_err(), "{bad:?}");
    }
    // A closed port: a request would fail as unreachable, not as a usage error.
    let client = Client::with_base(&closed_port_base());
    for cats in [vec!["cs.LG".to_string(), "cs LG".to_string()], vec![]] {
        let err = client.fetch_recent(&cats, 3, now()).unwrap_err();
        assert!(err.is_usage(), "{err}");
    }
    let err = client
        .fetch_recent(&["cs.LG".into()], 0, now())
        .unwrap_err();
    assert!(err.is_usage(), "{err}");
}

// --- a local HTTP server answering canned responses -------------------------------------

struct Canned {
    status: u16,
    headers: Vec<(&'static str, String)>,
    body: String,
}

fn ok(body: String) -> Canned {
    Canned {
        status: 200,
        headers: vec![("Content-Type", "application/atom+xml; charset=utf-8".into())],
        body,
    }
}

fn status(status: u16, headers: Vec<(&'static str, String)>) -> Canned {
    Canned {
        status,
        headers,
        body: format!("status {status}"),
    }
}

/// Serves `responses` in order, one a connection, then stops; gives the base URL and the
/// requests seen (request line and User-Agent).
/// The API fixture's two pages, as the API answers them one after the other.
fn both_pages() -> Vec<Canned> {
    vec![ok(fixture("api-page1.atom")), ok(fixture("api-page2.atom"))]
}

fn serve(responses: Vec<Canned>) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    listener.set_nonblocking(true).unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    std::thread::spawn(move || {
        let deadline = Instant::now() + Duration::from_secs(20);
        for r in responses {
            let mut stream = loop {
                match listener.accept() {
                    Ok((s, _)) => break s,
                    Err(_) if Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(2))
                    }
                    Err(_) => return,
                }
            };
            stream.set_nonblocking(false).unwrap();
            stream
                .set_read_timeout(Some(Duration::from_secs(5)))
                .unwrap();
            let mut head = Vec::new();
            let mut buf = [0u8; 1024];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                match stream.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => head.extend_from_slice(&buf[..n]),
                }
            }
            let head = String::from_utf8_lossy(&head).to_string();
            let line = head.lines().next().unwrap_or("").to_string();
            let agent = head
                .lines()
                .find_map(|l| {
                    l.split_once(':')
                        .filter(|(k, _)| k.eq_ignore_ascii_case("user-agent"))
                        .map(|(_, v)| v.trim().to_string())
                })
                .unwrap_or_default();
            log.lock().unwrap().push(format!("{line}\n{agent}"));
            let mut out = format!(
                "HTTP/1.1 {} Canned\r\nContent-Length: {}\r\nConnection: close\r\n",
                r.status,
                r.body.len()
            );
            for (k, v) in &r.headers {
                out.push_str(&format!("{k}: {v}\r\n"));
            }
            out.push_str("\r\n");
            out.push_str(&r.body);
            let _ = stream.write_all(out.as_bytes());
            let _ = stream.flush();
        }
    });
    (base, seen)
}

fn closed_port_base() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    base
}

fn quick(base: &str) -> Client {
    let mut c = Client::with_base(base);
    c.delay = Duration::from_millis(1);
    c.backoff = Duration::from_millis(1);
    c.page_size = 2;
    c
}

fn cats() -> Vec<String> {
    vec!["cs.LG".into(), "cs.CL".into()]
}

#[test]
fn pages_until_the_results_run_out() {
    let (base, seen) = serve(both_pages());
    let entries = quick(&base).fetch_recent(&cats(), 7, now()).unwrap();
    let ids: Vec<_> = entries.iter().map(|e| e.arxiv.as_str()).collect();
    assert_eq!(ids, ["2612.01234", "2612.00987", "2611.30412"]);
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert!(
        seen[0].starts_with(
            "GET /api/query?search_query=cat:cs.LG+OR+cat:cs.CL&sortBy=submittedDate\
             &sortOrder=descending&start=0&max_results=2 HTTP/1.1"
        ),
        "{}",
        seen[0]
    );
    assert!(seen[1].contains("&start=2&max_results=2 "), "{}", seen[1]);
    assert!(seen[0].contains("\nrecommend/"), "{}", seen[0]);
}

#[test]
fn paging_stops_at_older_entries() {
    // Page 1 ends with a paper of 2026-12-01; one day back from 2026-12-03 is 2026-12-02.
    let (base, seen) = serve(both_pages());
    let entries = quick(&base).fetch_recent(&cats(), 1, now()).unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].arxiv, "2612.01234");
    assert_eq!(seen.lock().unwrap().len(), 1);
}

#[test]
fn the_cap_stops_paging() {
    let (base, seen) = serve(both_pages());
    let mut client = quick(&base);
    client.max_entries = 2;
    assert_eq!(client.fetch_recent(&cats(), 7, now()).unwrap().len(), 2);
    assert_eq!(seen.lock().unwrap().len(), 1);
}

#[test]
fn empty_answer_is_no_entries() {
    let (base, _) = serve(vec![ok(fixture("empty.atom"))]);
    assert_eq!(
        quick(&base).fetch_recent(&cats(), 7, now()).unwrap(),
        vec![]
    );
}

#[test]
fn a_503_is_retried() {
    let (base, seen) = serve(
        std::iter::once(status(503, vec![]))
            .chain(both_pages())
            .collect(),
    );
    let mut client = quick(&base);
    let told = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = std::sync::Arc::clone(&told);
    client.on_retry = Some(Box::new(move |r| log.lock().unwrap().push(r)));
    let entries = client.fetch_recent(&cats(), 7, now()).unwrap();
    assert_eq!(entries.len(), 3);
    // The wait was told before it began, as a caller prints it.
    let told = told.lock().unwrap();
    assert_eq!(told.len(), 1, "{told:?}");
    assert_eq!(
        (told[0].status, told[0].attempt, told[0].attempts),
        (503, 2, 4)
    );
    assert!(
        told[0]
            .to_string()
            .starts_with("arXiv answered HTTP 503: waiting"),
        "{}",
        told[0]
    );
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 3);
    // The retry asks for the same page again.
    assert_eq!(seen[0], seen[1]);
}

#[test]
fn a_429_waits_as_told() {
    let (base, seen) = serve(
        std::iter::once(status(429, vec![("Retry-After", "1".into())]))
            .chain(both_pages())
            .collect(),
    );
    let t = Instant::now();
    let entries = quick(&base).fetch_recent(&cats(), 7, now()).unwrap();
    assert!(t.elapsed() >= Duration::from_secs(1), "{:?}", t.elapsed());
    assert_eq!(entries.len(), 3);
    assert_eq!(seen.lock().unwrap().len(), 3);
}

#[test]
fn a_long_retry_after_stops() {
    let (base, _) = serve(vec![status(429, vec![("Retry-After", "3600".into())])]);
    let err = quick(&base).fetch_recent(&cats(), 7, now()).unwrap_err();
    assert!(
        matches!(err, FetchError::RateLimited { seconds: 3600, .. }),
        "{err}"
    );
    assert!(!err.is_usage());
}

#[test]
fn a_permanent_500_gives_up_naming_the_url() {
    let (base, seen) = serve((0..4).map(|_| status(500, vec![])).collect());
    let err = quick(&base).fetch_recent(&cats(), 7, now()).unwrap_err();
    let msg = err.to_string();
    assert!(
        matches!(&err, FetchError::RetriesExhausted { attempts: 4, last, .. } if last == "HTTP 500"),
        "{msg}"
    );
    assert!(
        msg.contains(&format!("{base}/api/query?search_query=cat:cs.LG")),
        "{msg}"
    );
    assert_eq!(seen.lock().unwrap().len(), 4);
}

#[test]
fn a_client_error_is_not_retried() {
    let body = r#"<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>http://arxiv.org/api/errors#bad_query</id><title>Error</title><summary>malformed query</summary></entry></feed>"#;
    let (base, seen) = serve(vec![Canned {
        status: 400,
        headers: vec![],
        body: body.into(),
    }]);
    let err = quick(&base).fetch_recent(&cats(), 7, now()).unwrap_err();
    assert!(
        matches!(&err, FetchError::Status { status: 400, detail: Some(d), .. } if d == "malformed query"),
        "{err}"
    );
    assert!(err.to_string().contains(&base), "{err}");
    assert_eq!(seen.lock().unwrap().len(), 1);
}

#[test]
fn an_html_answer_is_named() {
    let (base, _) = serve(vec![Canned {
        status: 200,
        headers: vec![("Content-Type", "text/html".into())],
        body: fixture("error.html"),
    }]);
    let err = quick(&base).fetch_recent(&cats(), 7, now()).unwrap_err();
    assert!(
        matches!(
            &err,
            FetchError::Feed {
                error: FeedError::Html { .. },
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("HTML page"), "{err}");
}

#[test]
fn a_refused_connection_is_offline() {
    let base = closed_port_base();
    let err = quick(&base).fetch_recent(&cats(), 7, now()).unwrap_err();
    let host = base.trim_start_matches("http://");
    assert!(
        matches!(&err, FetchError::Unreachable { host: h, .. } if h == host),
        "{err}"
    );
    let msg = err.to_string();
    assert!(
        msg.starts_with(&format!(
            "could not reach {host} (the address RECOMMEND_ARXIV_URL gives): "
        )),
        "{msg}"
    );
    assert!(
        msg.ends_with("check the network or use saved files"),
        "{msg}"
    );
    assert!(!err.is_usage());
}

#[test]
fn https_goes_through_tls() {
    // A plain-text server on an https address: the TLS handshake is tried, and fails on
    // the answer (rustls: "received corrupt message"), not for want of TLS support.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("https://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        if let Ok((mut s, _)) = listener.accept() {
            let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
        }
    });
    let err = quick(&base).fetch_recent(&cats(), 7, now()).unwrap_err();
    let FetchError::Unreachable { reason, .. } = &err else {
        panic!("{err:?}")
    };
    assert!(!reason.contains("TLS required"), "{reason}");
    assert!(reason.contains("corrupt message"), "{reason}");
}

#[test]
fn requests_are_paced() {
    let (base, _) = serve(both_pages());
    let mut client = quick(&base);
    client.delay = Duration::from_millis(300);
    let t = Instant::now();
    client.fetch_recent(&cats(), 7, now()).unwrap();
    assert!(
        t.elapsed() >= Duration::from_millis(300),
        "{:?}",
        t.elapsed()
    );
}

#[test]
fn base_url_defaults_and_trims() {
    assert_eq!(
        Client::with_base("http://127.0.0.1:9/").base(),
        "http://127.0.0.1:9"
    );
    let c = Client::with_base(DEFAULT_BASE_URL);
    assert_eq!(c.delay, Duration::from_secs(3));
    assert_eq!(c.attempts, 4);
    assert_eq!(c.max_entries, MAX_FETCHED);
    assert_eq!(c.host(), "export.arxiv.org");
}

#[test]
fn one_unreadable_entry_fails_a_file_but_not_a_fetched_page() {
    // A page whose second entry has no title (a bad-input probe saw one such entry fail its
    // whole 100-id request on every rerun).
    let page = fixture("api-page1.atom");
    let good = parse(&page).unwrap().entries.len();
    let second = page
        .match_indices("<entry>")
        .nth(1)
        .map(|(i, _)| i)
        .unwrap();
    let title = second + page[second..].find("<title>").unwrap();
    let end = title + page[title..].find("</title>").unwrap() + "</title>".len();
    let broken = format!("{}{}", &page[..title], &page[end..]);
    let line = page[..second].matches('\n').count() as u32 + 1;

    let err = parse(&broken).unwrap_err();
    assert!(
        matches!(err, FeedError::Missing { line: l, field: "<title>" } if l == line),
        "{err:?}"
    );
    let feed = parse_fetched(&broken).unwrap();
    assert_eq!(feed.entries.len(), good - 1);
    assert_eq!(feed.skipped.len(), 1);
    // The left-out entry's id is still known: arXiv answered for it, so it is not "unknown".
    let whole = parse(&page).unwrap();
    assert!(
        !feed
            .entries
            .iter()
            .any(|e| e.arxiv == whole.entries[1].arxiv)
    );
    assert_eq!(feed.skipped_ids, vec![whole.entries[1].arxiv.clone()]);

    let page2 = fixture("api-page2.atom");
    let more = parse(&page2).unwrap().entries.len();
    let (base, _) = serve(vec![ok(broken), ok(page2)]);
    let client = quick(&base);
    let entries = client.fetch_recent(&cats(), 7, now()).unwrap();
    assert_eq!(entries.len(), good - 1 + more);
    let skipped = client.skipped();
    assert_eq!(skipped.len(), 1);
    assert!(skipped[0].to_string().contains("<title>"), "{}", skipped[0]);
}

#[test]
fn a_request_for_many_ids_is_shown_in_one_line() {
    let ids: Vec<String> = (1..=100).map(|i| format!("2505.{i:05}")).collect();
    let url = format!(
        "http://h/api/query?id_list={}&start=0&max_results=100",
        ids.join(",")
    );
    assert_eq!(
        shown(&url),
        "http://h/api/query?id_list=2505.00001,2505.00002,...(100 ids)&start=0&max_results=100"
    );
    let few = "http://h/api/query?id_list=2505.00001,2505.00002&start=0";
    assert_eq!(shown(few), few);
    let search = "http://h/api/query?search_query=cat:cs.LG&start=0";
    assert_eq!(shown(search), search);
}

#[test]
fn a_server_that_takes_the_request_and_never_answers_is_named_as_such() {
    // It accepts the connection and reads the request, then sends nothing (a bad-input probe
    // saw this reported as "could not reach ... check the network" after a minute).
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        if let Ok((stream, _)) = listener.accept() {
            let mut line = String::new();
            let _ = std::io::BufRead::read_line(&mut std::io::BufReader::new(&stream), &mut line);
            std::thread::sleep(Duration::from_secs(5));
        }
    });
    let client = quick(&base).answer_within(Duration::from_millis(300));
    let err = client.fetch_recent(&cats(), 7, now()).unwrap_err();
    assert!(matches!(err, FetchError::Silent { .. }), "{err:?}");
    let message = err.to_string();
    assert!(
        message.contains("took the request but sent no answer within 0.3 s"),
        "{message}"
    );
    assert!(!message.contains("check the network"), "{message}");
    assert!(!err.is_usage());
}

#[test]
fn one_id_is_one_paper_whatever_its_titles() {
    // Pages saved together repeat entries, and a title revised between versions made two
    // papers of one id: the whole file was refused as holding a duplicate id.
    let page = fixture("api-page1.atom");
    let start = page.find("<entry>").unwrap();
    let end = page.find("</entry>").unwrap() + "</entry>".len();
    let first = &page[start..end];
    let whole = parse(&page).unwrap();
    let id = &whole.entries[0].arxiv;
    let version = whole.entries[0].version.unwrap_or(1);
    let revised = first
        .replacen(
            &format!("{id}v{version}</id>"),
            &format!("{id}v{}</id>", version + 1),
            1,
        )
        .replacen("<title>", "<title>Revised: ", 1);
    let doubled = format!("{}{revised}\n{}", &page[..end], &page[end..]);
    let feed = parse(&doubled).unwrap();
    let (kept, repeats) = one_per_id(feed.entries);
    assert_eq!(kept.len(), whole.entries.len());
    assert!(kept[0].title.starts_with("Revised: "), "{}", kept[0].title);
    assert_eq!(kept[0].line, whole.entries[0].line);
    assert_eq!(repeats.len(), 1);
    // Read as a corpus file: one paper, the repeat merged with a warning.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("week.atom");
    std::fs::write(&path, &doubled).unwrap();
    let corpus = crate::corpus::Corpus::load(&path).unwrap();
    assert_eq!(corpus.papers.len(), whole.entries.len());
    assert!(
        corpus
            .warnings
            .iter()
            .any(|w| w.contains("merged 1 repeated"))
    );
}
