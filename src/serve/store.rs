//! `recommend serve --store URL`: the same answers, from a PostgreSQL store that other
//! processes read and `recommend push` updates meanwhile.
//!
//! The process holds no state of its own but caches: the published version's plan, as a
//! session ([`Snapshot`]), and the model. A listener thread keeps one connection that LISTENs
//! for the version a push publishes (and checks it is alive every [`PROBE`]), so a request
//! knows the published version and whether the store is up without a round trip of its own.
//! A newer version is loaded by the first request that sees it (the others keep answering from
//! the version they have until it is swapped in), so a push is seen without a restart and an
//! answer always comes from one whole version. While the store cannot be reached, requests
//! answer 503 with a JSON error naming it; the listener reconnects, and requests answer again
//! by themselves. Endpoints: `/`, `/map`, `/healthz`, `/api/like`, `/api/search`, `/api/path`,
//! `/api/topics`, `/api/papers/{id}`, with the parameters and records of the file-backed server;
//! with `--feed`, also the Inbox (`/inbox`, `/api/feed`, `POST /api/rate`), whose every request
//! names its reader (`user=NAME`): each reader's state is that reader's rows of the store.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex, RwLock, TryLockError};
use std::time::Duration;

use anyhow::Result;
use axum::extract::State;
use axum::http::StatusCode;
use axum::middleware;
use axum::response::{IntoResponse, Json, Response};
use axum::routing::get;
use serde_json::{Value, json};

use recommend::feed::home::Home;
use recommend::feed::inbox::Inbox;
use recommend::session::Session;
use recommend::store::query::identity;
use recommend::store::{FeedHome, Snapshot, Store, StoreError};

use super::params::RawQuery;
use super::{ApiError, answers, inbox_routes};

/// Connections per server process: one per blocking thread, and pgvector's beside them.
const CONNECTIONS: u32 = 16;

/// How often the listener checks its connection when no notification comes.
const PROBE: Duration = Duration::from_secs(1);
/// How long the listener waits before connecting again to a store that is down.
const RETRY: Duration = Duration::from_millis(300);
/// How long a server waits before loading a version again after it failed to load.
const RELOAD_BACKOFF: Duration = Duration::from_secs(10);
/// A store whose connection has not answered a probe for this long is not answering (frozen,
/// cut off without a reset): requests get a 503 at once instead of waiting on it.
const SILENT: Duration = Duration::from_secs(5);

struct Live {
    store: Arc<Store>,
    /// The version the store last published, as the listener heard it.
    published: AtomicI64,
    /// Its plan's SHA-256 ([`identity`]): with the number, what tells a reload is due.
    published_plan: Mutex<String>,
    /// The plan's SHA-256 of the loaded version.
    loaded_plan: Mutex<String>,
    /// No load is tried again before this, after one failed (a damaged plan was read again
    /// after every request: 14 full reads in 5 s under light load).
    retry_after: Mutex<Option<std::time::Instant>>,
    /// Why the listener cannot reach the store now; `None` while it can.
    down: Mutex<Option<String>>,
    /// When the listener's connection last answered (a probe or a notification).
    heard: Mutex<std::time::Instant>,
    /// The session of the loaded version.
    session: RwLock<Session>,
    /// The loaded version.
    version: AtomicI64,
    /// Held by the one thread that loads a newer version.
    reloading: Mutex<()>,
    /// Whether a load is under way (no second one is started).
    loading: AtomicBool,
    /// The default topics and the map of a version, computed once per version (minutes on a
    /// large list).
    topics: Mutex<Option<(i64, Result<Value, String>)>>,
    map: Mutex<Option<(i64, Result<String, String>)>>,
    /// The candidates of `--feed`, ranked against the version loaded at start.
    inbox: Option<Inbox>,
}

/// 503: the store cannot answer now.
fn unavailable(e: &dyn std::fmt::Display) -> ApiError {
    ApiError(
        StatusCode::SERVICE_UNAVAILABLE,
        json!({"error": format!("the store is unavailable: {e}"), "retry": true}),
    )
}

/// The listener: LISTEN for published versions on a connection of its own, probe it while
/// quiet, and on any failure mark the store down and connect again (see the module
/// documentation). Runs for the life of the process.
fn listen(live: &Live) {
    use postgres::fallible_iterator::FallibleIterator;
    loop {
        let connected = live.store.connect_one().and_then(|mut c| {
            c.batch_execute(&format!("LISTEN {}", recommend::store::schema::CHANNEL))
                .map_err(|e| live.store.error(&e, "listening for pushes"))?;
            Ok(c)
        });
        let mut client = match connected {
            Ok(c) => c,
            Err(e) => {
                live.set_down(Some(e.to_string()));
                std::thread::sleep(RETRY);
                continue;
            }
        };
        // Notifications sent before the LISTEN are missed: read the version after it. Each
        // probe reads it again, so a store dropped and made again, or restored from an older
        // backup (its numbers start again), is seen too: a probe found a server answering from
        // a removed store for 18 minutes.
        if !live.probe(&mut client) {
            std::thread::sleep(RETRY);
            continue;
        }
        loop {
            let next = client.notifications().timeout_iter(PROBE).next();
            match next {
                Ok(_) => {
                    if !live.probe(&mut client) {
                        break;
                    }
                }
                Err(e) => {
                    live.set_down(Some(
                        live.store.error(&e, "listening for pushes").to_string(),
                    ));
                    break;
                }
            }
        }
    }
}

impl Live {
    fn set_down(&self, why: Option<String>) {
        *self.down.lock().unwrap_or_else(|e| e.into_inner()) = why;
    }

    fn heard_now(&self) {
        *self.heard.lock().unwrap_or_else(|e| e.into_inner()) = std::time::Instant::now();
    }

    /// Read what the store publishes on the listener's connection: the store is up and its
    /// published version noted (true), or down, with why (false: connect again, unless only
    /// the schema is gone, which the next probe reads again).
    fn probe(&self, client: &mut postgres::Client) -> bool {
        match identity(client, self.store.target()) {
            Ok((version, plan)) => {
                self.published.store(version, Ordering::Release);
                *self
                    .published_plan
                    .lock()
                    .unwrap_or_else(|e| e.into_inner()) = plan;
                self.set_down(None);
                self.heard_now();
                true
            }
            Err(e @ StoreError::NoStore { .. }) => {
                self.set_down(Some(format!("the store was removed: {e}")));
                self.heard_now();
                !client.is_closed()
            }
            Err(e) => {
                self.set_down(Some(e.to_string()));
                false
            }
        }
    }

    /// Whether the published version is another than the loaded one (a newer one, or the same
    /// number of another store).
    fn behind(&self) -> bool {
        self.version.load(Ordering::Acquire) != self.published.load(Ordering::Acquire)
            || *self.loaded_plan.lock().unwrap_or_else(|e| e.into_inner())
                != *self
                    .published_plan
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
    }

    /// A 503 while the store is down; else the version at hand, with a newer published one
    /// loading in the background (requests never wait for a load, only for the swap).
    fn fresh(self: &Arc<Self>) -> Result<(), ApiError> {
        if let Some(why) = self.down.lock().unwrap_or_else(|e| e.into_inner()).clone() {
            return Err(unavailable(&format!("{} ({why})", self.store.target())));
        }
        let silent = self
            .heard
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .elapsed();
        if silent > SILENT {
            return Err(unavailable(&format!(
                "{} has not answered for {} s",
                self.store.target(),
                silent.as_secs()
            )));
        }
        let waiting = self
            .retry_after
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some_and(|t| std::time::Instant::now() < t);
        if self.behind()
            && !waiting
            && self
                .loading
                .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
        {
            let live = Arc::clone(self);
            std::thread::spawn(move || {
                live.reload();
                live.loading.store(false, Ordering::Release);
            });
        }
        Ok(())
    }

    /// The published version, read again at once when a pooled connection the server had
    /// closed (an administrator's `pg_terminate_backend`, a restart) failed the read: the pool
    /// drops each such connection as it fails, and holds at most [`CONNECTIONS`], so a push is
    /// not left waiting [`RELOAD_BACKOFF`] for a fault a new connection does not have.
    fn load(&self) -> Result<Snapshot, StoreError> {
        let mut tries = 0;
        loop {
            match Snapshot::load(&self.store) {
                Err(StoreError::Closed { .. }) if tries < CONNECTIONS => tries += 1,
                done => return done,
            }
        }
    }

    /// Load the published version and swap it in, unless another thread is doing it.
    fn reload(&self) {
        let _reloading = match self.reloading.try_lock() {
            Ok(guard) => guard,
            Err(TryLockError::WouldBlock) => return,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
        };
        if !self.behind() {
            return;
        }
        let snapshot = match self.load() {
            Ok(s) => s,
            Err(e) => {
                eprintln!(
                    "recommend serve: cannot load the new store version ({e}); trying again in \
                     {} s",
                    RELOAD_BACKOFF.as_secs()
                );
                *self.retry_after.lock().unwrap_or_else(|e| e.into_inner()) =
                    Some(std::time::Instant::now() + RELOAD_BACKOFF);
                return;
            }
        };
        let swapped = self
            .session
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .replace_index(snapshot.index);
        match swapped {
            Ok(()) => {
                eprintln!(
                    "recommend serve: store version {} loaded ({})",
                    snapshot.version,
                    self.store.target()
                );
                // What was loaded is what the store published when it was read.
                *self.loaded_plan.lock().unwrap_or_else(|e| e.into_inner()) =
                    snapshot.plan_sha256.clone();
                *self
                    .published_plan
                    .lock()
                    .unwrap_or_else(|e| e.into_inner()) = snapshot.plan_sha256.clone();
                self.published.store(snapshot.version, Ordering::Release);
                self.version.store(snapshot.version, Ordering::Release);
                *self.retry_after.lock().unwrap_or_else(|e| e.into_inner()) = None;
            }
            Err(e) => eprintln!("recommend serve: the new store version is refused: {e}"),
        }
    }

    fn reading<'a>(&'a self, session: &'a Session) -> inbox_routes::Reading<'a> {
        inbox_routes::Reading {
            inbox: self.inbox.as_ref(),
            session,
            store: Some(&self.store),
        }
    }

    fn session(&self) -> std::sync::RwLockReadGuard<'_, Session> {
        self.session.read().unwrap_or_else(|e| e.into_inner())
    }
}

/// Serve the store at `url` on `addr` until SIGINT or SIGTERM (see the module documentation).
/// The store must be reachable and hold a published version at start. With `inbox`, the Inbox's
/// candidates are made by it once, their vectors through the store's shared cache.
pub fn run_store<F>(
    url: &str,
    addr: SocketAddr,
    model_dir: PathBuf,
    exact: bool,
    inbox: Option<F>,
) -> Result<()>
where
    F: FnOnce(&Session, &dyn Home) -> Result<Inbox>,
{
    let store = Arc::new(Store::connect(url, CONNECTIONS)?);
    let snapshot = Snapshot::load(&store)?;
    let mut session = Session::from_index(
        snapshot.index,
        PathBuf::from(store.target().to_string()),
        model_dir,
    );
    session.set_resident(true);
    session.set_exact_scan(exact);
    let inbox = match inbox {
        None => None,
        Some(make) => {
            let index = session.searcher();
            // The vector cache is shared by every reader, so the reader named here is never read.
            let cache = FeedHome::new(
                Arc::clone(&store),
                "inbox",
                &index.meta.model_id,
                index.dim(),
            );
            Some(make(&session, &cache)?)
        }
    };
    let live = Arc::new(Live {
        inbox,
        store,
        session: RwLock::new(session),
        version: AtomicI64::new(snapshot.version),
        reloading: Mutex::new(()),
        loading: AtomicBool::new(false),
        published: AtomicI64::new(snapshot.version),
        published_plan: Mutex::new(snapshot.plan_sha256.clone()),
        loaded_plan: Mutex::new(snapshot.plan_sha256.clone()),
        retry_after: Mutex::new(None),
        down: Mutex::new(None),
        heard: Mutex::new(std::time::Instant::now()),
        topics: Mutex::new(None),
        map: Mutex::new(None),
    });
    let listener = Arc::clone(&live);
    std::thread::spawn(move || listen(&listener));
    let describe = format!(
        "{} papers, version {} of the store {}",
        live.session().searcher().len(),
        live.version.load(Ordering::Acquire),
        live.store.target()
    );
    let app = super::shared_routes::<Live>()
        .route("/healthz", get(healthz))
        .route("/api/topics", get(topics))
        .route("/map", get(map_page))
        .route("/inbox", get(inbox_routes::inbox_page))
        .route("/api/feed", get(inbox_feed))
        .route(
            "/api/rate",
            axum::routing::post(inbox_rate).fallback(super::only_post),
        )
        .method_not_allowed_fallback(super::only_get)
        .layer(middleware::from_fn(super::limits))
        .with_state(Arc::clone(&live));
    let loader = Arc::clone(&live);
    let warm = move || {
        loader
            .session()
            .embedder()
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    // The pool leaves two of the store's connections to the reloader and the listener.
    let blocking = (2 * cores).min(CONNECTIONS as usize - 2);
    super::listen_and_serve(addr, blocking, app, warm, describe)
}

/// How long a request on the store waits for its answer before it is a 503: far above a
/// query's milliseconds and a version's load (4.2 s at 300k papers, in the background), well
/// below a client's patience.
const ANSWER_WITHIN: Duration = Duration::from_secs(15);

impl super::Backend for Live {
    const ANSWER_WITHIN: Option<Duration> = Some(ANSWER_WITHIN);

    /// The session of the store's current version, loaded first when a newer one is published.
    fn with_session<T>(
        self: &Arc<Self>,
        f: impl FnOnce(&Session) -> Result<T, ApiError>,
    ) -> Result<T, ApiError> {
        self.fresh()?;
        f(&self.session())
    }
}

/// Run `f` on a blocking thread with the store's current version loaded, for handlers that
/// also use the per-version caches; a panic is a 500.
async fn blocking_live<F>(live: Arc<Live>, f: F) -> Response
where
    F: FnOnce(&Live) -> Result<Value, ApiError> + Send + 'static,
{
    super::blocking_within(live, Some(ANSWER_WITHIN), move |l| {
        l.fresh()?;
        f(l)
    })
    .await
}

async fn healthz(State(live): State<Arc<Live>>) -> Response {
    let answer = tokio::time::timeout(
        ANSWER_WITHIN,
        tokio::task::spawn_blocking(move || {
            let store = live.fresh();
            let s = live.session();
            let (model, detail) = answers::model_state(&s);
            let body = json!({
                "status": if store.is_ok() { "ok" } else { "store unavailable" },
                "store": live.store.target().to_string(),
                "version": live.version.load(Ordering::Acquire),
                "papers": s.searcher().len(),
                "model": model,
                "model_error": detail,
                "graph": s.searcher().uses_graph(),
            });
            match store {
                Ok(()) => Json(body).into_response(),
                Err(_) => (StatusCode::SERVICE_UNAVAILABLE, Json(body)).into_response(),
            }
        }),
    )
    .await;
    match answer {
        Ok(Ok(response)) => response,
        Ok(Err(_)) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
        Err(_) => super::not_answered(ANSWER_WITHIN),
    }
}

/// `f` of the loaded version (`s`, the session the caller holds), from `cache` when it was
/// computed for that version.
fn cached<T: Clone>(
    live: &Live,
    cache: &Mutex<Option<(i64, Result<T, String>)>>,
    s: &Session,
    f: impl FnOnce(&Session) -> Result<T, String>,
) -> Result<T, String> {
    let version = live.version.load(Ordering::Acquire);
    let mut c = cache.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((v, r)) = c.as_ref()
        && *v == version
    {
        return r.clone();
    }
    let r = f(s);
    *c = Some((version, r.clone()));
    r
}

async fn topics(State(live): State<Arc<Live>>, q: RawQuery) -> Response {
    blocking_live(live, move |l| {
        let s = l.session();
        answers::topics(&s, q, || cached(l, &l.topics, &s, answers::default_topics))
    })
    .await
}

async fn map_page(State(live): State<Arc<Live>>) -> Response {
    let answer = tokio::task::spawn_blocking(move || {
        live.fresh()?;
        cached(&live, &live.map, &live.session(), answers::map_html)
            .map_err(|e| ApiError(StatusCode::SERVICE_UNAVAILABLE, json!({"error": e})))
    })
    .await;
    match answer {
        Ok(Ok(html)) => axum::response::Html(html).into_response(),
        Ok(Err(e)) => e.into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

async fn inbox_feed(State(live): State<Arc<Live>>, q: RawQuery) -> Response {
    blocking_live(live, move |l| l.reading(&l.session()).feed(q)).await
}

async fn inbox_rate(State(live): State<Arc<Live>>, q: RawQuery) -> Response {
    blocking_live(live, move |l| l.reading(&l.session()).rate(q)).await
}
