//! The endpoints' answers, over a [`Session`]: parameters in, a JSON value or an [`ApiError`]
//! out. Both routers call these (the file-backed one in `mod.rs`, the store-backed one in
//! `store.rs`), so an endpoint parses and answers alike whichever holds the session; the routers
//! keep only what differs: where the session comes from and how per-version results are cached.

use axum::extract::Path as UrlPath;
use axum::extract::rejection::PathRejection;
use axum::http::StatusCode;
use serde_json::{Value, json};

use recommend::corpus::Paper;
use recommend::engine::Mode;
use recommend::session::{ModelState, Session, check_query, parse_kind};

use super::params::{Params, RawQuery, with_query_params};
use super::{ApiError, MAP_MAX_PAPERS, MAX_K, MAX_LIMIT, MAX_PATH_STEPS, api_error, bad, results};

/// The parameter that gave the name `query` a question could not resolve: `other` when one of
/// its `values` is that name, else `main`.
fn named_by(
    query: &str,
    (other, values): (&'static str, &[String]),
    main: &'static str,
) -> &'static str {
    if values.iter().any(|v| v.trim() == query) {
        other
    } else {
        main
    }
}

/// `/api/like?title=...&unlike=...` and the shared query options.
pub(super) fn like(s: &Session, q: RawQuery) -> Result<Value, ApiError> {
    let p = Params::new(q, &with_query_params(&["title", "unlike"]))?;
    let likes = p.all("title");
    let unlikes = p.all("unlike");
    if likes.is_empty() {
        return Err(bad(
            "title",
            "give at least one title=PAPER (id, title or alias)",
        ));
    }
    let args = p.query_options(s)?;
    let hits = s
        .like(&likes, &unlikes, &args)
        .map_err(|e| api_error(e, &|query| named_by(query, ("unlike", &unlikes), "title")))?;
    Ok(results(s.searcher(), &hits))
}

/// `/api/search?q=...`; a dense or hybrid search without the model is a 503 that names
/// `mode=lexical`, which needs none.
pub(super) fn search(s: &Session, q: RawQuery) -> Result<Value, ApiError> {
    let p = Params::new(q, &with_query_params(&["q"]))?;
    let text = p
        .one("q")?
        .ok_or_else(|| bad("q", "give the query as q=TEXT"))?;
    check_query(&text).map_err(|e| bad("q", e))?;
    let args = p.query_options(s)?;
    if args.mode != Mode::Lexical {
        s.embedder().map_err(|e| {
            ApiError(
                StatusCode::SERVICE_UNAVAILABLE,
                json!({"error": format!("{e}; mode=lexical works without the model"),
                       "parameter": "mode"}),
            )
        })?;
    }
    let hits = s.search(&text, &args).map_err(|e| api_error(e, &|_| "q"))?;
    Ok(results(s.searcher(), &hits))
}

/// `/api/path?like=...&to=...&n=...`.
pub(super) fn path(s: &Session, q: RawQuery) -> Result<Value, ApiError> {
    let p = Params::new(q, &["like", "to", "n"])?;
    let like = p
        .one("like")?
        .ok_or_else(|| bad("like", "give the starting paper as like=PAPER"))?;
    let to = p.one("to")?;
    let n = p.number("n", 8, MAX_PATH_STEPS)?;
    // The same paper at both ends is said in the API's terms (the session's message names the
    // command line's flags).
    if let Some(end) = to.as_deref()
        && let (Ok(a), Ok(b)) = (s.resolve(&like), s.resolve(end))
        && a == b
    {
        return Err(bad(
            "to",
            format!(
                "like={like:?} and to={end:?} name the same paper [{}]; give two different \
                 papers, or no `to` for a reading path from it",
                s.searcher().papers()[a].id
            ),
        ));
    }
    let steps = s
        .path(&like, to.as_deref(), n)
        .map_err(|e| api_error(e, &|query| named_by(query, ("to", to.as_slice()), "like")))?;
    serde_json::to_value(steps).map_err(|e| bad("", e))
}

/// `/api/papers/{id}`: the whole record of one paper (id, title, alias, arXiv id or DOI).
pub(super) fn paper(
    s: &Session,
    id: Result<UrlPath<String>, PathRejection>,
) -> Result<Value, ApiError> {
    let UrlPath(id) = id.map_err(|e| bad("id", format!("malformed paper id: {e}")))?;
    let i = recommend::engine::resolve(s.searcher(), &id)
        .map_err(|e| api_error(e.into(), &|_| "id"))?;
    serde_json::to_value(s.searcher().paper(i).into_owned()).map_err(|e| bad("", e))
}

/// `/api/topics[?k=N]`: `k` clusters when asked for, else the index's default topics, which
/// `default` gives from the router's cache (computed once: minutes on a large list).
pub(super) fn topics(
    s: &Session,
    q: RawQuery,
    default: impl FnOnce() -> Result<Value, String>,
) -> Result<Value, ApiError> {
    let p = Params::new(q, &["k"])?;
    if p.one("k")?.is_some() {
        let k = p.number("k", 1, MAX_K)?;
        let t = s.topics(Some(k)).map_err(|e| {
            let mut err = api_error(e, &|_| "k");
            err.1["parameter"] = json!("k");
            err
        })?;
        return serde_json::to_value(t).map_err(|e| bad("", e));
    }
    default().map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, json!({"error": e})))
}

/// The default topics of `s`, as the cache of a router keeps them.
pub(super) fn default_topics(s: &Session) -> Result<Value, String> {
    s.topics(None)
        .map_err(|e| recommend::session::chain_text(&e))
        .and_then(|t| serde_json::to_value(t).map_err(|e| e.to_string()))
}

/// The `/map` page of `s`, as the cache of a router keeps it; refused above
/// [`MAP_MAX_PAPERS`], since the map computes the neighbours of every paper.
pub(super) fn map_html(s: &Session) -> Result<String, String> {
    let len = s.searcher().len();
    if len > MAP_MAX_PAPERS {
        return Err(format!(
            "the map is drawn for indexes of up to {MAP_MAX_PAPERS} papers; this one has {len}"
        ));
    }
    recommend::map::draw(s.searcher(), None, false).map_err(|e| format!("{e:#}"))
}

/// The model's state as `/healthz` reports it: `loading`, `ready` or `unavailable` (with why).
pub(super) fn model_state(s: &Session) -> (&'static str, Option<String>) {
    match s.model_state() {
        ModelState::Loading => ("loading", None),
        ModelState::Ready => ("ready", None),
        ModelState::Unavailable(e) => ("unavailable", Some(e)),
    }
}

/// `/api/papers`: the papers, a page at a time, narrowed by `topic` and `kind`.
pub(super) fn papers(s: &Session, q: RawQuery) -> Result<Value, ApiError> {
    let p = Params::new(q, &["topic", "kind", "offset", "limit"])?;
    let filters = recommend::engine::Filters {
        topic: p.one("topic")?.filter(|t| !t.trim().is_empty()),
        kind: p.choice("kind", parse_kind)?,
        open_source: false,
    };
    let offset = match p.one("offset")? {
        None => 0,
        Some(v) => v.trim().parse::<usize>().map_err(|_| {
            bad(
                "offset",
                format!("offset must be a whole number, not {v:?}"),
            )
        })?,
    };
    let limit = p.number("limit", 100, MAX_LIMIT)?;
    let matching: Vec<usize> = (0..s.searcher().len())
        .filter(|&i| filters.accepts_at(s.searcher(), i))
        .collect();
    let page: Vec<Paper> = matching
        .iter()
        .skip(offset)
        .take(limit)
        .map(|&i| s.searcher().paper(i).into_owned())
        .collect();
    Ok(json!({"total": matching.len(), "offset": offset, "limit": limit, "papers": page}))
}
