//! `recommend serve`: one process holds the index and the model and answers over HTTP.
//!
//! Every answer comes from the library calls the CLI commands make (`Session::like`,
//! `Session::search`, `Session::path`, `Session::topics`, `map::draw`), so a result here is the
//! result `--format json` prints for the same question, and ranking changes reach both at once;
//! the status of a refused question comes from its typed error ([`SessionError::is_input`]).
//! This module knows the library only: it parses its own parameters (kinds and modes with
//! [`recommend::session::parse_kind`] and [`recommend::session::parse_mode`]), and `app`
//! calls [`run`] with an opened session. Results are the CLI's records, plus the paper's links (`url`, `arxiv`, `code`)
//! and `summary` for the page.
//!
//! Contract for clients:
//! - Only GET, but for `POST /api/rate?id=&verdict=up|down|clear` (the Inbox's buttons; needs
//!   `--feed`). Parameters are query-string pairs; an unknown or repeated (where single) name, a
//!   malformed value or an out-of-range `k`/`n`/`limit` is a 400 with
//!   `{"error": "...", "parameter": "name"}`.
//! - A paper that resolves to nothing is a 404 with `{"error", "parameter", "query",
//!   "suggestions": [{"id","title"}]}`; an ambiguous name a 400 with `candidates`.
//! - Request targets longer than [`MAX_URI_BYTES`] get 414, a request head over
//!   [`guard::MAX_HEAD`] 431, a body announced over [`MAX_BODY_BYTES`] 413; bodies are never
//!   read. Every error, these included, is JSON with `error`.
//! - Work runs on blocking threads; a failure inside one is a 500 with a JSON error, never a dead
//!   server.
//!
//! The model loads on a background thread at start-up (the port answers at once);
//! `/healthz` says whether it is `loading`, `ready` or `unavailable` (with the reason), and a
//! dense or hybrid search waits for it. `--mode lexical` and everything else never need it.

use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};

use anyhow::Result;
use axum::Router;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path as UrlPath, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Json, Response};
use axum::routing::get;
use serde::Serialize;
use serde_json::{Value, json};

use recommend::engine::{Hit, ResolveError};
use recommend::feed::inbox::Inbox;
use recommend::feed::rating::RateError;
use recommend::index::Searcher;
use recommend::model::Embedder;
use recommend::render::records::{ResultRecord, result_records};
use recommend::session::{Session, SessionError, chain_text};

/// Largest `k` a request may ask for.
pub const MAX_K: usize = 100;
/// Largest reading path (`n`).
pub const MAX_PATH_STEPS: usize = 50;
/// Largest page of `/api/papers`.
pub const MAX_LIMIT: usize = 1000;
/// Longest request target (path and query string) accepted, in bytes.
pub const MAX_URI_BYTES: usize = 8 * 1024;
/// Largest index the `/map` page is drawn for: the map computes neighbours of every paper.
pub const MAP_MAX_PAPERS: usize = 10_000;

mod answers;
mod guard;
mod lifecycle;
use lifecycle::listen_and_serve;
mod inbox_routes;
use inbox_routes::{feed, inbox_page, rate};
mod params;
mod store;

pub use store::run_store;

/// Largest request body announced (`content-length`) before the request is refused with 413:
/// no endpoint reads a body.
pub const MAX_BODY_BYTES: u64 = 64 * 1024;

use params::{Params, RawQuery};

const PAGE: &str = include_str!("page.html");
const INBOX: &str = include_str!("inbox.html");

struct AppState {
    session: Session,
    /// The candidates of `--feed`, when the server was given some.
    inbox: Option<Inbox>,
    topics: OnceLock<Result<Value, String>>,
    map: OnceLock<Result<String, String>>,
}

impl AppState {
    /// The model, loaded once (by the start-up thread, or by the first caller to get here).
    fn embedder(&self) -> Result<&Embedder, String> {
        self.session.embedder().map_err(|e| e.to_string())
    }

    fn searcher(&self) -> &Searcher {
        self.session.searcher()
    }
}

/// What a server answers from: the session of its index file, or that of the store's loaded
/// version (`store::Live`). The answers themselves are one set of functions (`answers`).
trait Backend: Send + Sync + 'static {
    /// How long a request waits for its answer before it is a 503 (`None`: as long as it takes,
    /// the engine's own work). A store that stopped answering mid-query would otherwise hold
    /// the request for the whole outage (a probe: 40 s for a 40 s freeze).
    const ANSWER_WITHIN: Option<std::time::Duration> = None;

    /// `f` of the session to answer from, or why none can answer now (a store that is down
    /// answers 503).
    fn with_session<T>(
        self: &Arc<Self>,
        f: impl FnOnce(&Session) -> Result<T, ApiError>,
    ) -> Result<T, ApiError>;
}

impl Backend for AppState {
    fn with_session<T>(
        self: &Arc<Self>,
        f: impl FnOnce(&Session) -> Result<T, ApiError>,
    ) -> Result<T, ApiError> {
        f(&self.session)
    }
}

/// Serve the opened `session` on `addr` until SIGINT or SIGTERM; with `inbox`, also the Inbox
/// page and its API (`/inbox`, `/api/feed`, `POST /api/rate`).
pub fn run(mut session: Session, addr: SocketAddr, inbox: Option<Inbox>) -> Result<()> {
    session.set_resident(true);
    let state = Arc::new(AppState {
        inbox,
        session,
        topics: OnceLock::new(),
        map: OnceLock::new(),
    });
    let describe = format!(
        "{} papers from {}",
        state.searcher().len(),
        state.session.index_path().display()
    );
    let loader = Arc::clone(&state);
    let warm = move || loader.embedder().map(|_| ());
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    listen_and_serve(addr, 2 * cores, router(state), warm, describe)
}

/// The routes both servers answer alike, whatever they answer from.
fn shared_routes<B: Backend>() -> Router<Arc<B>> {
    Router::new()
        .route("/", get(page))
        .route("/api/like", get(like::<B>))
        .route("/api/search", get(search::<B>))
        .route("/api/path", get(path::<B>))
        .route("/api/papers", get(papers::<B>))
        // `{*id}`: a DOI id (`10.1038/nature14236`) keeps its `/`, as `--like` takes it.
        .route("/api/papers/{*id}", get(paper::<B>))
        .fallback(not_found)
        .method_not_allowed_fallback(only_get)
}

fn router(state: Arc<AppState>) -> Router {
    shared_routes::<AppState>()
        .route("/map", get(map_page))
        .route("/healthz", get(healthz))
        .route("/api/topics", get(topics))
        .route("/inbox", get(inbox_page))
        .route("/api/feed", get(feed))
        .route("/api/rate", axum::routing::post(rate).fallback(only_post))
        // Again for the routes added here: the shared routes' call covers only its own.
        .method_not_allowed_fallback(only_get)
        .layer(middleware::from_fn(limits))
        .with_state(state)
}

// ---------------------------------------------------------------- errors

/// An error answer: a status and a JSON body with at least `error`.
pub(super) struct ApiError(StatusCode, Value);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, Json(self.1)).into_response()
    }
}

pub(super) fn bad(parameter: &str, error: impl std::fmt::Display) -> ApiError {
    ApiError(
        StatusCode::BAD_REQUEST,
        json!({"error": error.to_string(), "parameter": parameter}),
    )
}

fn pairs(v: &[(String, String)]) -> Vec<Value> {
    v.iter()
        .map(|(id, title)| json!({"id": id, "title": title}))
        .collect()
}

/// Map an error of the session to an answer: a paper name that resolves to nothing is a 404, a
/// mistake in the question a 400, a failure to answer a 500. `parameter` names the parameter a
/// paper name came from.
fn api_error(e: SessionError, parameter: &dyn Fn(&str) -> &'static str) -> ApiError {
    let msg = chain_text(&e);
    if let SessionError::Resolve(r) = &e {
        return match r {
            ResolveError::Unknown { query, suggestions } => ApiError(
                StatusCode::NOT_FOUND,
                json!({"error": msg, "parameter": parameter(query), "query": query,
                       "suggestions": pairs(suggestions)}),
            ),
            ResolveError::Ambiguous { query, candidates } => ApiError(
                StatusCode::BAD_REQUEST,
                json!({"error": msg, "parameter": parameter(query), "query": query,
                       "candidates": pairs(candidates)}),
            ),
            ResolveError::Empty | ResolveError::TooLong { .. } => ApiError(
                StatusCode::BAD_REQUEST,
                json!({"error": msg, "parameter": parameter("")}),
            ),
        };
    }
    if e.is_input() {
        ApiError(StatusCode::BAD_REQUEST, json!({"error": msg}))
    } else {
        ApiError(StatusCode::INTERNAL_SERVER_ERROR, json!({"error": msg}))
    }
}

/// Run `f` on a blocking thread (the engine is CPU work); a panic becomes a 500.
async fn blocking<S, F>(state: Arc<S>, f: F) -> Response
where
    S: Send + Sync + 'static,
    F: FnOnce(&Arc<S>) -> Result<Value, ApiError> + Send + 'static,
{
    blocking_within(state, None, f).await
}

/// [`blocking`], answered 503 when `within` passes first (the thread finishes on its own).
async fn blocking_within<S, F>(state: Arc<S>, within: Option<std::time::Duration>, f: F) -> Response
where
    S: Send + Sync + 'static,
    F: FnOnce(&Arc<S>) -> Result<Value, ApiError> + Send + 'static,
{
    let task = tokio::task::spawn_blocking(move || f(&state));
    let joined = match within {
        Some(limit) => match tokio::time::timeout(limit, task).await {
            Ok(joined) => joined,
            Err(_) => return not_answered(limit),
        },
        None => task.await,
    };
    match joined {
        Ok(Ok(v)) => Json(v).into_response(),
        Ok(Err(e)) => e.into_response(),
        Err(_) => ApiError(
            StatusCode::INTERNAL_SERVER_ERROR,
            json!({"error": "internal error while answering; see the server's log"}),
        )
        .into_response(),
    }
}

/// The 503 of a request whose store did not answer within `limit`.
fn not_answered(limit: std::time::Duration) -> Response {
    ApiError(
        StatusCode::SERVICE_UNAVAILABLE,
        json!({
            "error": format!(
                "the store did not answer within {} s (stopped, overloaded or cut off); \
                 try again shortly",
                limit.as_secs()
            ),
            "retry": true
        }),
    )
    .into_response()
}

async fn limits(req: Request, next: Next) -> Response {
    let len = req.uri().path_and_query().map_or(0, |p| p.as_str().len());
    if len > MAX_URI_BYTES {
        return ApiError(
            StatusCode::URI_TOO_LONG,
            json!({"error": format!("request target of {len} bytes is too long (at most {MAX_URI_BYTES})")}),
        )
        .into_response();
    }
    // A `%` not followed by two hex digits is decoded leniently (kept as typed), so a query or
    // a paper name would be answered as something the client did not mean: say so instead.
    if let Some((parameter, bad)) = req.uri().query().and_then(malformed_escape) {
        return ApiError(
            StatusCode::BAD_REQUEST,
            json!({"error": format!("malformed percent-escape {bad:?} in {parameter}; write % as %25 and encode UTF-8 text as %XX bytes"), "parameter": parameter}),
        )
        .into_response();
    }
    let body = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if let Some(len) = body.filter(|&len| len > MAX_BODY_BYTES) {
        return ApiError(
            StatusCode::PAYLOAD_TOO_LARGE,
            json!({"error": format!("request body of {len} bytes is too large (at most {MAX_BODY_BYTES}: requests carry their parameters in the URL)")}),
        )
        .into_response();
    }
    let mut res = next.run(req).await;
    res.headers_mut().insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    res
}

/// The first `%` of `query` not followed by two hex digits: the parameter it is in and the
/// escape as written (up to three characters).
fn malformed_escape(query: &str) -> Option<(String, String)> {
    query.split('&').find_map(|pair| {
        let b = pair.as_bytes();
        let at = (0..b.len()).find(|&i| {
            b[i] == b'%'
                && !(b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                    && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
        })?;
        let name = pair.split('=').next().unwrap_or("");
        Some((name.to_string(), pair[at..].chars().take(3).collect()))
    })
}

async fn not_found(req: Request) -> Response {
    ApiError(
        StatusCode::NOT_FOUND,
        json!({"error": format!("no such endpoint: {}; see `recommend serve --help`", req.uri().path())}),
    )
    .into_response()
}

/// `/api/rate` changes state, so it takes POST alone.
async fn only_post() -> Response {
    let mut res = ApiError(
        StatusCode::METHOD_NOT_ALLOWED,
        json!({"error": "this endpoint takes POST (it records a rating)"}),
    )
    .into_response();
    res.headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("POST"));
    res
}

async fn only_get() -> Response {
    ApiError(
        StatusCode::METHOD_NOT_ALLOWED,
        json!({"error": "only GET is served"}),
    )
    .into_response()
}

// ---------------------------------------------------------------- records

/// A result as the CLI's `--format json` prints it, plus the paper's links and summary.
#[derive(Serialize)]
struct ApiRecord<'a> {
    #[serde(flatten)]
    record: ResultRecord<'a>,
    #[serde(skip_serializing_if = "String::is_empty")]
    summary: String,
}

fn results(index: &Searcher, hits: &[Hit]) -> Value {
    let out: Vec<ApiRecord> = result_records(index, hits)
        .into_iter()
        .zip(hits)
        .map(|(record, h)| {
            let p = index.paper(h.paper);
            ApiRecord {
                record,
                summary: p.summary.clone(),
            }
        })
        .collect();
    serde_json::to_value(out).unwrap_or(Value::Null)
}

// ---------------------------------------------------------------- handlers

async fn page() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; \
                 connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
            ),
        ],
        PAGE,
    )
        .into_response()
}

async fn map_page(State(state): State<Arc<AppState>>) -> Response {
    let r = tokio::task::spawn_blocking(move || {
        state
            .map
            .get_or_init(|| answers::map_html(&state.session))
            .clone()
    })
    .await;
    match r {
        Ok(Ok(html)) => Html(html).into_response(),
        Ok(Err(e)) => {
            ApiError(StatusCode::SERVICE_UNAVAILABLE, json!({"error": e})).into_response()
        }
        Err(_) => ApiError(
            StatusCode::INTERNAL_SERVER_ERROR,
            json!({"error": "internal error while drawing the map"}),
        )
        .into_response(),
    }
}

async fn healthz(State(state): State<Arc<AppState>>) -> Json<Value> {
    let (model, detail) = answers::model_state(&state.session);
    Json(json!({
        "status": "ok",
        "papers": state.searcher().len(),
        "index": state.session.index_path().display().to_string(),
        "model": model,
        "model_error": detail,
        "graph": state.searcher().uses_graph(),
        "version": env!("CARGO_PKG_VERSION"),
    }))
}

async fn like<B: Backend>(State(b): State<Arc<B>>, q: RawQuery) -> Response {
    blocking_within(b, B::ANSWER_WITHIN, move |b| {
        b.with_session(|s| answers::like(s, q))
    })
    .await
}

async fn search<B: Backend>(State(b): State<Arc<B>>, q: RawQuery) -> Response {
    blocking_within(b, B::ANSWER_WITHIN, move |b| {
        b.with_session(|s| answers::search(s, q))
    })
    .await
}

async fn path<B: Backend>(State(b): State<Arc<B>>, q: RawQuery) -> Response {
    blocking_within(b, B::ANSWER_WITHIN, move |b| {
        b.with_session(|s| answers::path(s, q))
    })
    .await
}

async fn topics(State(state): State<Arc<AppState>>, q: RawQuery) -> Response {
    blocking(state, move |s| {
        answers::topics(&s.session, q, || {
            s.topics
                .get_or_init(|| answers::default_topics(&s.session))
                .clone()
        })
    })
    .await
}

async fn papers<B: Backend>(State(b): State<Arc<B>>, q: RawQuery) -> Response {
    blocking_within(b, B::ANSWER_WITHIN, move |b| {
        b.with_session(|s| answers::papers(s, q))
    })
    .await
}

async fn paper<B: Backend>(
    State(b): State<Arc<B>>,
    id: Result<UrlPath<String>, PathRejection>,
) -> Response {
    blocking_within(b, B::ANSWER_WITHIN, move |b| {
        b.with_session(|s| answers::paper(s, id))
    })
    .await
}
