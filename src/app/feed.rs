//! `recommend feed` (new papers ranked against the library) and `recommend rate` (a verdict
//! later feeds learn from). The ranking is `recommend::feed`; this module gathers candidates
//! (files or the arXiv API), embeds what the cache lacks, keeps the state file and renders.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::Result;

use recommend::corpus::arxiv;
use recommend::corpus::{Corpus, Format as CorpusFormat, LoadOptions};
use recommend::feed::candidates::{self, Candidate};
use recommend::feed::home::{Files, Home};
use recommend::feed::state::{self, Cache, Shown, Verdict};
use recommend::feed::{Feedback, Library, Scored, lexical_similarities, rank_with};
use recommend::index::passage_text;
use recommend::model::Role;
use recommend::util::date::today;

pub(crate) use super::feed_options::FeedOptions;
use super::feed_output::render_feed;
use super::{open_session, usage};
use crate::cli::{CommonArgs, VerdictArg};
use recommend::feed::rating;
use recommend::feed::records::{FeedRecord, record};

/// Where the reader's state is kept: the files beside `--index`, or with `--store` the rows of
/// `user` (else `$RECOMMEND_USER`, else `$USER`) in the store.
fn home_of(
    common: &CommonArgs,
    session: &recommend::session::Session,
    user: Option<&str>,
) -> Result<Box<dyn Home>> {
    let index = session.searcher();
    let Some(url) = &common.store else {
        if user.is_some() {
            return Err(usage(
                "--user names a reader of a shared --store; an index file keeps one reader's \
                 state beside it",
            ));
        }
        return Ok(Box::new(Files::beside(
            session.index_path(),
            &index.meta.model_id,
            index.dim(),
        )));
    };
    let user = match user {
        Some(u) => u.to_string(),
        None => ["RECOMMEND_USER", "USER", "LOGNAME"]
            .iter()
            .find_map(|v| std::env::var(v).ok().filter(|u| !u.trim().is_empty()))
            .ok_or_else(|| usage("with --store, say whose feed it is: --user NAME"))?,
    };
    recommend::store::feed::check_user(&user).map_err(usage)?;
    let store = std::sync::Arc::new(recommend::store::Store::connect(url, 1)?);
    Ok(Box::new(recommend::store::FeedHome::new(
        store,
        &user,
        &index.meta.model_id,
        index.dim(),
    )))
}

/// Candidates from files: any corpus format; each keeps its publication date where the file
/// gives one finer than the year (an arXiv feed's entries, a `date` column).
fn from_files(paths: &[PathBuf]) -> Result<(Vec<Candidate>, usize)> {
    let corpus = Corpus::load_skipping(paths, &LoadOptions::default())?;
    let merged = corpus.merged;
    // A week of listings repeats papers across files: the first warnings say what was merged
    // or left out, the rest are counted.
    const SHOWN: usize = 5;
    for w in corpus.warnings.iter().take(SHOWN) {
        eprintln!("warning: {w}");
    }
    if corpus.warnings.len() > SHOWN {
        eprintln!(
            "note: {} more warning(s) reading the candidates; `recommend list` with the same \
             files as --corpus prints them all",
            corpus.warnings.len() - SHOWN
        );
    }
    for n in &corpus.notes {
        eprintln!("note: {n}");
    }
    let mut dates: BTreeMap<String, String> = BTreeMap::new();
    // Origins are per paper: each feed file is read once (once per paper made 1,000 entries
    // take 26 s).
    let mut files: Vec<&PathBuf> = corpus.origins.iter().map(|(f, _)| f).collect();
    files.sort();
    files.dedup();
    for file in files {
        if CorpusFormat::of_path(file) == Some(CorpusFormat::Feed)
            && let Ok(bytes) =
                recommend::safe_fs::read_regular(file, arxiv::MAX_DOCUMENT_BYTES as u64)
            && let Ok(feed) = arxiv::parse(&String::from_utf8_lossy(&bytes))
        {
            for e in feed.entries {
                if let Some(d) = e.published {
                    dates.insert(e.arxiv, d);
                }
            }
        }
    }
    let candidates = corpus
        .papers
        .into_iter()
        .zip(&corpus.origins)
        .map(|(p, origin)| {
            let date = p
                .arxiv
                .as_ref()
                .and_then(|a| dates.get(a))
                .or_else(|| corpus.dates.get(origin))
                .cloned();
            Candidate::new(p, date)
        })
        .collect();
    Ok((candidates, merged))
}

/// Candidates from the arXiv API.
fn from_arxiv(categories: &[String], days: u32) -> Result<Vec<Candidate>> {
    let client = super::arxiv_client();
    eprintln!(
        "fetching the last {days} day(s) of {} from {} (one request every {} s)",
        categories.join(", "),
        client.base(),
        client.delay.as_secs()
    );
    let entries = client
        .fetch_recent(categories, days, std::time::SystemTime::now())
        .map_err(|e| {
            if e.is_usage() {
                usage(e.to_string())
            } else {
                anyhow::Error::new(e)
            }
        })?;
    super::note_skipped(&client);
    let mut out = Vec::new();
    for e in entries {
        if let recommend::corpus::fields::Outcome::Paper(m) = recommend::corpus::fields::map_record(
            &e.to_record(),
            recommend::corpus::fields::Origin::Json,
        ) {
            out.push(Candidate::new(m.paper, e.published.clone()));
        }
    }
    Ok(out)
}

/// The vector cache's key of `text` embedded as `role`: a passage by its text, a query (a
/// candidate's title, [`far_marks`]) apart from the same text as a passage.
fn cache_key(text: &str, role: Role) -> String {
    match role {
        Role::Passage => state::text_key(text),
        Role::Query => state::text_key(&format!("query: {text}")),
        Role::Raw => state::text_key(&format!("raw: {text}")),
    }
}

/// Vectors of each batch of texts as its role, from the vector cache of `home` where it has
/// them (read once for all batches), the rest embedded; with the cache, which holds them all
/// for the caller to save.
fn vectors(
    session: &recommend::session::Session,
    home: &dyn Home,
    batches: &[(&[String], Role)],
) -> Result<(Vec<Batch>, Cache)> {
    let keys: Vec<Vec<String>> = batches
        .iter()
        .map(|(texts, role)| texts.iter().map(|t| cache_key(t, *role)).collect())
        .collect();
    let (mut cache, why_not) = home.vectors(&keys.concat());
    if let Some(why) = why_not {
        eprintln!("note: the vector cache was not used ({why})");
    }
    let mut out = Vec::new();
    for ((texts, role), keys) in batches.iter().zip(&keys) {
        let missing: Vec<usize> = (0..texts.len())
            .filter(|&i| !cache.vectors.contains_key(&keys[i]))
            .collect();
        if !missing.is_empty() {
            let embedder = session.embedder()?;
            match role {
                Role::Query => eprintln!(
                    "embedding {} new title(s) as searches of the library",
                    missing.len()
                ),
                _ => eprintln!("embedding {} new candidate(s)", missing.len()),
            }
            for chunk in missing.chunks(64) {
                let refs: Vec<&str> = chunk.iter().map(|&i| texts[i].as_str()).collect();
                let vs = embedder.embed(&refs, *role)?;
                for (&i, v) in chunk.iter().zip(vs) {
                    cache.vectors.insert(keys[i].clone(), v);
                }
            }
        }
        let vectors = keys
            .iter()
            .map(|k| cache.vectors.get(k).cloned().unwrap_or_default())
            .collect();
        out.push((vectors, missing.len()));
    }
    Ok((out, cache))
}

/// One batch's vectors, in its texts' order, and how many of them were embedded (not cached).
type Batch = (Vec<Vec<f32>>, usize);

/// What the feed embeds of its candidates, through the vector cache.
struct Embedded {
    /// Each candidate's passage text and vector (what ranks).
    texts: Vec<String>,
    vectors: Vec<Vec<f32>>,
    /// Each candidate's search text ([`candidates::searched_as`], what tells it far).
    titles: Vec<String>,
    cache: Cache,
    /// Passages and titles embedded, not read from the cache.
    passages_embedded: usize,
    titles_embedded: usize,
}

/// The candidates' passage vectors, and each marked far from the library or not
/// ([`candidates::mark_far`]) by its search text embedded as a query.
fn embed_candidates(
    session: &recommend::session::Session,
    home: &dyn Home,
    candidates: &mut [Candidate],
) -> Result<Embedded> {
    let texts: Vec<String> = candidates.iter().map(|c| passage_text(&c.paper)).collect();
    let titles: Vec<String> = candidates
        .iter()
        .map(|c| candidates::searched_as(&c.paper))
        .collect();
    let (mut out, cache) = vectors(
        session,
        home,
        &[(&texts, Role::Passage), (&titles, Role::Query)],
    )?;
    let (title_vectors, titles_embedded) = out.pop().unwrap_or_default();
    let (vectors, passages_embedded) = out.pop().unwrap_or_default();
    candidates::mark_far(session.searcher(), candidates, &title_vectors);
    Ok(Embedded {
        texts,
        vectors,
        titles,
        cache,
        passages_embedded,
        titles_embedded,
    })
}

pub(crate) fn feed(common: &CommonArgs, o: &FeedOptions) -> Result<()> {
    let session = open_session(common)?;
    let index = session.searcher();
    let (mut gathered, merged) = if o.args.candidates.is_empty() {
        (Vec::new(), 0)
    } else {
        from_files(&o.args.candidates)?
    };
    if !o.args.arxiv.is_empty() {
        let fetched = from_arxiv(&o.args.arxiv, o.args.days)?;
        if fetched.is_empty() && gathered.is_empty() {
            // A quiet day (or a category arXiv does not list) is an answer, not a failure.
            eprintln!(
                "arXiv lists no paper of {} from the last {} day(s) (check the category's name \
                 if that is unexpected: cs.LG, cs.CL, stat.ML, ...)",
                o.args.arxiv.join(", "),
                o.args.days
            );
            // In the format asked for: `[]` for JSON, a page for HTML (a cron job's digest).
            let lib = Library::of_index(index);
            return render_feed(common, &lib, &[], "(no new papers for this library)");
        }
        gathered.extend(fetched);
    }
    let offered = gathered.len() + merged;
    if gathered.is_empty() {
        return Err(usage("the candidates hold no papers (an empty feed page?)"));
    }
    let (fresh, mut skipped) = candidates::new_papers(index.papers(), gathered);
    skipped.repeated += merged;
    let home = home_of(common, &session, o.args.user.as_deref())?;
    let mut state = home.state()?;
    let mut seen_before = 0;
    let mut filtered = 0;
    let known = candidates::Known::of(&state);
    let mut kept: Vec<Candidate> = fresh
        .into_iter()
        .filter(|c| {
            if known.key_of(c).is_some() {
                seen_before += 1;
                if !o.args.all {
                    return false;
                }
            }
            let text = format!("{} {}", c.paper.title, c.paper.summary);
            let pass = o
                .args
                .since
                .as_deref()
                .is_none_or(|s| candidates::on_or_after(c.date.as_deref(), s))
                && (o.args.include.is_empty()
                    || o.args
                        .include
                        .iter()
                        .any(|w| candidates::mentions(&text, w)))
                && !o
                    .args
                    .exclude
                    .iter()
                    .any(|w| candidates::mentions(&text, w));
            if !pass {
                filtered += 1;
            }
            pass
        })
        .collect();
    // A library of titles ranks this list's new papers worse than one of abstracts
    // (bench/runs/2026-12-06-abstracts: precision@10 0.34 -> 0.50 on a list of bare titles).
    if let Some(bare) = recommend::corpus::abstracts::worth_fetching(index.papers()) {
        eprintln!(
            "note: {bare} of the library's {} papers are titles with an arXiv id and no summary; \
             `recommend index --abstracts` describes them and ranks this feed better",
            index.len()
        );
    }
    let Embedded {
        texts,
        vectors: vecs,
        titles,
        cache,
        passages_embedded: embedded,
        titles_embedded,
    } = embed_candidates(&session, &*home, &mut kept)?;
    let up = candidates::Known::rated_up(&state);
    for c in &mut kept {
        c.far = candidates::still_far(c, &up);
    }
    let lib = Library::of_index(index);
    if let Some(name) = &o.args.interest
        && !lib
            .interests
            .iter()
            .any(|i| candidates::mentions(&i.name, name))
    {
        let names: Vec<&str> = lib.interests.iter().map(|i| i.name.as_str()).collect();
        return Err(usage(format!(
            "no interest of this library is called {name:?}; its interests: {}",
            names.join("; ")
        )));
    }
    let centred: Vec<Vec<f32>> = vecs.iter().map(|v| lib.center(v)).collect();
    let feedback = Feedback::of(index, &lib, &state);
    let papers: Vec<&recommend::corpus::Paper> = kept.iter().map(|c| &c.paper).collect();
    let lexical = lexical_similarities(index.lexical(), &papers);
    let mut below = 0;
    let mut elsewhere = 0;
    let mut ranked = rank_with(&lib, &centred, Some(&lexical), &feedback, o.learner);
    candidates::far_last(&mut ranked, |i| kept[i].far);
    let ranked: Vec<Scored> = ranked
        .into_iter()
        .filter(|s| {
            let pass = o.args.min_score.is_none_or(|m| s.score >= m);
            below += usize::from(!pass);
            pass
        })
        .filter(|s| {
            let pass = o
                .args
                .interest
                .as_deref()
                .is_none_or(|n| candidates::mentions(&lib.interests[s.interest].name, n));
            elsewhere += usize::from(!pass);
            pass
        })
        .collect();
    let beyond = ranked.len().saturating_sub(o.args.limit);
    let ranked: Vec<Scored> = ranked.into_iter().take(o.args.limit).collect();
    let mut cut = Vec::new();
    if below > 0 {
        cut.push(format!("{below} below --min-score"));
    }
    if elsewhere > 0 {
        cut.push(format!("{elsewhere} serving other interests"));
    }
    if beyond > 0 {
        cut.push(format!("{beyond} beyond -k {}", o.args.limit));
    }
    let cut = if cut.is_empty() {
        String::new()
    } else {
        format!(" ({})", cut.join(", "))
    };
    eprintln!(
        "{offered} candidate(s): {} already in the library, {} repeated, {seen_before} shown or \
         rated before{}, {filtered} filtered out; {} ranked ({embedded} embedded, {} from the \
         cache{}), {} shown{cut}",
        skipped.in_library,
        skipped.repeated,
        if o.args.all {
            " (shown again: --all)"
        } else {
            ""
        },
        kept.len(),
        kept.len() - embedded,
        if titles_embedded > 0 {
            format!("; {titles_embedded} title(s) embedded as searches")
        } else {
            String::new()
        },
        ranked.len()
    );
    let date = today();
    let records: Vec<FeedRecord> = ranked
        .iter()
        .enumerate()
        .map(|(r, s)| record(index, &lib, &kept[s.candidate], s, r + 1))
        .collect();
    let mut newly_shown = 0;
    for s in &ranked {
        let c = &kept[s.candidate];
        if known.key_of(c).is_none() {
            newly_shown += 1;
            state.shown.insert(
                c.key.clone(),
                Shown {
                    title: c.paper.title.clone(),
                    text: state::text_key(&texts[s.candidate]),
                    date: date.clone(),
                },
            );
        }
    }

    // The cache keeps this run's vectors and every shown paper's (so it can be rated).
    let wanted: std::collections::HashSet<String> = state
        .shown
        .values()
        .map(|s| s.text.clone())
        .chain(texts.iter().map(|t| state::text_key(t)))
        .chain(titles.iter().map(|t| cache_key(t, Role::Query)))
        // A shown paper's title too, so that a listing read again (`--all`) embeds nothing.
        .chain(
            state
                .shown
                .values()
                .map(|s| cache_key(&s.title, Role::Query)),
        )
        .collect();
    if let Err(e) = home.save_vectors(&cache, &wanted) {
        eprintln!("note: the vector cache was not saved ({e}); the next run embeds again");
    }
    // Printed first: a state that cannot be written then costs the reader a repeat next time,
    // never this feed.
    // An empty feed says whether the filters left nothing, or nothing was new.
    let empty = if below + elsewhere > 0 {
        "(no new paper passes the filters: stderr counts what each left out)"
    } else {
        "(no new papers for this library)"
    };
    render_feed(common, &lib, &records, empty)?;
    // Nothing new to remember (an empty feed, or every paper shown before): the state is not
    // written, so a folder that cannot be written costs nothing (it made every such run exit 1).
    if newly_shown == 0 {
        return Ok(());
    }
    home.save_state(&mut state).map_err(|e| {
        anyhow::anyhow!("{e}; the feed above is not remembered as shown, and shows again")
    })
}

/// The candidates of `recommend serve --feed FILE...`: new to the library, embedded once
/// through the vector cache of `home` (the files beside the index, or the store's shared one).
pub(crate) fn inbox(
    session: &recommend::session::Session,
    paths: &[PathBuf],
    home: &dyn Home,
) -> Result<recommend::feed::inbox::Inbox> {
    let index = session.searcher();
    let (gathered, merged) = from_files(paths)?;
    let offered = gathered.len() + merged;
    let (fresh, mut skipped) = candidates::new_papers(index.papers(), gathered);
    skipped.repeated += merged;
    let mut fresh = fresh;
    let e = embed_candidates(session, home, &mut fresh)?;
    let (vecs, cache) = (e.vectors, e.cache);
    let embedded = e.passages_embedded + e.titles_embedded;
    if embedded > 0 {
        let keep = cache.vectors.keys().cloned().collect();
        if let Err(e) = home.save_vectors(&cache, &keep) {
            eprintln!("note: the vector cache was not saved ({e}); the next start embeds again");
        }
    }
    eprintln!(
        "inbox: {offered} candidate(s): {} already in the library, {} repeated; {} new \
         ({embedded} embedded)",
        skipped.in_library,
        skipped.repeated,
        fresh.len(),
    );
    Ok(recommend::feed::inbox::Inbox::new(index, fresh, vecs))
}

/// `recommend rate ID up|down|clear`.
pub(crate) fn rate(
    common: &CommonArgs,
    id: &str,
    verdict: VerdictArg,
    user: Option<&str>,
) -> Result<()> {
    let session = open_session(common)?;
    let home = home_of(common, &session, user)?;
    let verdict = match verdict {
        VerdictArg::Up => Some(Verdict::Up),
        VerdictArg::Down => Some(Verdict::Down),
        VerdictArg::Clear => None,
    };
    let none = |_: &str| None;
    let title =
        rating::rate(session.searcher(), home.as_ref(), id, verdict, &none).map_err(|e| {
            if e.is_input() {
                usage(e.to_string())
            } else {
                anyhow::Error::new(e)
            }
        })?;
    match verdict {
        None => eprintln!("cleared the rating of {title:?}"),
        Some(Verdict::Up) => {
            eprintln!("rated {title:?} up: later feeds rank papers like it higher")
        }
        Some(Verdict::Down) => {
            eprintln!("rated {title:?} down: later feeds rank papers like it lower")
        }
    }
    Ok(())
}
