//! Live fetching: a [`Client`] of the arXiv API that keeps arXiv's terms.

use std::collections::HashSet;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::{Entry, Feed, FeedError, MAX_DOCUMENT_BYTES, parse, parse_fetched};

/// The API's address when `RECOMMEND_ARXIV_URL` is unset.
pub const DEFAULT_BASE_URL: &str = "https://export.arxiv.org";
/// The environment variable that points the client elsewhere (a mirror, a test server).
pub const BASE_URL_ENV: &str = "RECOMMEND_ARXIV_URL";
/// Most entries one [`Client::fetch_recent`] gathers, however many days are asked for.
pub const MAX_FETCHED: usize = 5_000;
/// Ids one [`Client::fetch_ids`] request names: a URL of about 1.2 KB, well inside what
/// servers accept, and 100 requests for a 10,000-paper list.
pub const IDS_PER_REQUEST: usize = 100;

/// A request that cannot be right, whatever the network does: the CLI's exit 2.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UsageError {
    #[error(
        "{0:?} is not an arXiv category; give one like cs.LG, math.AG, hep-th or \
         astro-ph.CO (archive[.SUBJECT])"
    )]
    BadCategory(String),
    #[error("no category given; name at least one, like cs.LG")]
    NoCategory,
    #[error("the number of days must be at least 1")]
    NoDays,
    #[error(
        "{BASE_URL_ENV}={0:?} is not an http(s) address; give one like http://127.0.0.1:8080, \
         or unset it to ask arXiv ({DEFAULT_BASE_URL})"
    )]
    BadBaseUrl(String),
}

/// A request's address as messages show it: an `id_list` of many ids is cut to its first
/// two and their count, so an error over 100 ids is one line, not 1.2 KB.
pub(super) fn shown(url: &str) -> String {
    let Some((head, rest)) = url.split_once("id_list=") else {
        return url.to_string();
    };
    let (ids, tail) = rest.split_once('&').unwrap_or((rest, ""));
    let ids: Vec<&str> = ids.split(',').collect();
    if ids.len() <= 3 {
        return url.to_string();
    }
    let sep = if tail.is_empty() { "" } else { "&" };
    format!(
        "{head}id_list={},{},...({} ids){sep}{tail}",
        ids[0],
        ids[1],
        ids.len()
    )
}

/// Why a fetch failed. [`FetchError::Usage`] is the caller's mistake ([`FetchError::is_usage`]);
/// the others happened at run time.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error(transparent)]
    Usage(#[from] UsageError),
    #[error(
        "could not reach {host}{}: {reason}; check the network or use saved files",
        if DEFAULT_BASE_URL.ends_with(host.as_str()) {
            String::new()
        } else {
            format!(" (the address {BASE_URL_ENV} gives)")
        }
    )]
    Unreachable { host: String, reason: String },
    #[error(
        "{url} answered HTTP {status}{}; check the address ({BASE_URL_ENV}){}",
        detail.as_ref().map(|d| format!(" ({d})")).unwrap_or_default(),
        if url.contains("search_query=") { " and the categories" } else { "" }
    )]
    Status {
        status: u16,
        url: String,
        detail: Option<String>,
    },
    #[error(
        "{url} still failed after {attempts} attempts (last: {last}); arXiv may be down or \
         busy: try again later or use saved files"
    )]
    RetriesExhausted {
        url: String,
        attempts: u32,
        last: String,
    },
    #[error(
        "{url} asks to wait {seconds} s before another request; try again later or use saved \
         files"
    )]
    RateLimited { url: String, seconds: u64 },
    // The feed's error is part of the message, not a `source`: `{:#}` would print it twice.
    #[error("{url} answered with something other than an arXiv feed: {error}")]
    Feed { url: String, error: FeedError },
    #[error(
        "{url} took the request but sent no answer within {seconds} s; arXiv may be overloaded: \
         try again later or use saved files"
    )]
    Silent { url: String, seconds: f32 },
    #[error("reading the answer from {url} failed: {reason}; try again or use saved files")]
    Body { url: String, reason: String },
}

impl FetchError {
    /// The request itself was wrong (exit 2), not the network or arXiv (exit 1).
    pub fn is_usage(&self) -> bool {
        matches!(self, FetchError::Usage(_))
    }
}

/// `cs.LG`, `math.AG`, `hep-th`, `astro-ph.CO`, `cond-mat.stat-mech`: archive[.SUBJECT].
pub fn validate_category(c: &str) -> Result<(), UsageError> {
    fn words(s: &str, lowercase: bool) -> bool {
        !s.is_empty()
            && s.split('-').all(|w| {
                !w.is_empty()
                    && w.bytes().all(|b| b.is_ascii_alphabetic())
                    && (!lowercase || w.bytes().all(|b| b.is_ascii_lowercase()))
            })
    }
    let ok = match c.split_once('.') {
        Some((archive, subject)) => words(archive, true) && words(subject, false),
        None => words(c, true),
    };
    if ok && c.len() <= 40 {
        Ok(())
    } else {
        Err(UsageError::BadCategory(c.to_string()))
    }
}

/// How long a connected request waits for arXiv's answer to begin. A page of 200 entries is
/// usually sent within seconds; arXiv's own slowest answers stay well inside a minute.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(60);

/// The HTTP agent: statuses are answers, not errors (429 and 503 are retried); a connection is
/// given 10 s, an answer `answer` to begin, and the whole exchange, body included, twice that.
fn agent(answer: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_connect(Some(Duration::from_secs(10)))
        .timeout_recv_response(Some(answer))
        .timeout_global(Some(answer.saturating_mul(2)))
        .user_agent(format!(
            "recommend/{} (offline research-paper recommendations; reads new papers of \
             chosen categories, one request every few seconds)",
            env!("CARGO_PKG_VERSION")
        ))
        .build()
        .into()
}

/// A client of the arXiv API that keeps arXiv's terms: one request at a time, at least
/// [`Client::delay`] apart, a descriptive User-Agent, and backing off when told to.
pub struct Client {
    base: String,
    agent: ureq::Agent,
    /// What [`Client::answer_within`] set.
    answer_timeout: Duration,
    /// Least time between two requests (arXiv asks for 3 s).
    pub delay: Duration,
    /// The wait before the first retry; doubled for each later one. A `Retry-After` of more
    /// seconds wins, up to [`Client::max_retry_after`].
    pub backoff: Duration,
    /// A `Retry-After` longer than this stops the fetch ([`FetchError::RateLimited`]).
    pub max_retry_after: Duration,
    /// Attempts per request, the first included.
    pub attempts: u32,
    /// Results asked for per request.
    pub page_size: usize,
    /// Most entries gathered by one [`Client::fetch_recent`].
    pub max_entries: usize,
    /// Told of each wait before a retry, so a caller can say so: a wait a server asks for can
    /// last minutes, and in silence it looks like a hang.
    pub on_retry: Option<Box<dyn Fn(Retry) + Send + Sync>>,
    last_request: Mutex<Option<Instant>>,
    skipped: Mutex<Vec<FeedError>>,
}

/// A wait before retrying a request ([`Client::on_retry`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retry {
    /// The HTTP status that asked for it (429, 5xx).
    pub status: u16,
    pub wait: Duration,
    /// The attempt that follows the wait, and how many there are at most.
    pub attempt: u32,
    pub attempts: u32,
}

impl std::fmt::Display for Retry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "arXiv answered HTTP {}: waiting {} s before attempt {} of {}",
            self.status,
            self.wait.as_secs_f32().ceil(),
            self.attempt,
            self.attempts
        )
    }
}

impl Default for Client {
    fn default() -> Self {
        Self::new()
    }
}

impl Client {
    /// A client of `RECOMMEND_ARXIV_URL`, else of [`DEFAULT_BASE_URL`].
    pub fn new() -> Client {
        let base = std::env::var(BASE_URL_ENV)
            .ok()
            .map(|b| b.trim().to_string())
            .filter(|b| !b.is_empty())
            .unwrap_or_else(|| DEFAULT_BASE_URL.to_string());
        Client::with_base(&base)
    }

    /// A client of `base` (`https://export.arxiv.org`, `http://127.0.0.1:8080`).
    pub fn with_base(base: &str) -> Client {
        Client {
            base: base.trim_end_matches('/').to_string(),
            agent: agent(ANSWER_TIMEOUT),
            answer_timeout: ANSWER_TIMEOUT,
            delay: Duration::from_secs(3),
            backoff: Duration::from_secs(4),
            max_retry_after: Duration::from_secs(300),
            attempts: 4,
            page_size: 200,
            max_entries: MAX_FETCHED,
            on_retry: None,
            last_request: Mutex::new(None),
            skipped: Mutex::new(Vec::new()),
        }
    }

    /// The address requests go to.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// The same client, waiting at most `wait` for an answer to start once connected
    /// ([`FetchError::Silent`] after it).
    pub fn answer_within(mut self, wait: Duration) -> Client {
        self.agent = agent(wait);
        self.answer_timeout = wait;
        self
    }

    /// A base that is no http(s) address is the user's mistake, not the network's.
    fn check_base(&self) -> Result<(), UsageError> {
        let lower = self.base.to_ascii_lowercase();
        let host = ["http://", "https://"]
            .into_iter()
            .find_map(|scheme| lower.strip_prefix(scheme));
        match host {
            Some(h) if !h.is_empty() && !h.starts_with('/') && !h.contains(char::is_whitespace) => {
                Ok(())
            }
            _ => Err(UsageError::BadBaseUrl(self.base.clone())),
        }
    }

    /// The entries of arXiv's answers so far that could not be read and were left out
    /// ([`super::parse_fetched`]), each with its problem.
    pub fn skipped(&self) -> Vec<FeedError> {
        self.skipped.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// The papers of `categories` submitted in the last `days` days before `now` (newest
    /// first, each once), paging through the API until entries get older, the results run
    /// out, or [`Client::max_entries`] are gathered. Categories are checked before any request.
    pub fn fetch_recent(
        &self,
        categories: &[String],
        days: u32,
        now: SystemTime,
    ) -> Result<Vec<Entry>, FetchError> {
        self.check_base()?;
        if categories.is_empty() {
            return Err(UsageError::NoCategory.into());
        }
        for c in categories {
            validate_category(c)?;
        }
        if days == 0 {
            return Err(UsageError::NoDays.into());
        }
        let cutoff = day_before(now, days);
        let query = categories
            .iter()
            .map(|c| format!("cat:{c}"))
            .collect::<Vec<_>>()
            .join("+OR+");
        let page_size = self.page_size.max(1);
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        let mut start = 0usize;
        loop {
            let url = format!(
                "{}/api/query?search_query={query}&sortBy=submittedDate&sortOrder=descending\
                 &start={start}&max_results={page_size}",
                self.base
            );
            let feed = self.get_feed(&url)?;
            // Entries left out unread still took their places in the results.
            let n = feed.entries.len() + feed.skipped.len();
            let mut older = false;
            for e in feed.entries {
                if e.published.as_deref().is_some_and(|p| p < cutoff.as_str()) {
                    older = true;
                    continue;
                }
                if out.len() < self.max_entries && seen.insert(e.arxiv.clone()) {
                    out.push(e);
                }
            }
            start += n;
            let exhausted = feed.total_results.is_some_and(|t| start as u64 >= t);
            if n == 0 || older || exhausted || out.len() >= self.max_entries {
                return Ok(out);
            }
        }
    }

    /// The entries of `ids` (bare arXiv ids), asked [`IDS_PER_REQUEST`] at a time with the
    /// API's `id_list`; `done` hears each request's ids and answer before the next is sent,
    /// so a caller can keep what arrived even if a later request fails, and stop the rest
    /// (`ControlFlow::Break`: nothing more is sent). Ids arXiv does not know are absent from
    /// the answer; those it answered unreadably are in its [`Feed::skipped_ids`].
    pub fn fetch_ids(
        &self,
        ids: &[String],
        mut done: impl FnMut(&[String], Feed) -> std::ops::ControlFlow<()>,
    ) -> Result<(), FetchError> {
        self.check_base()?;
        for chunk in ids.chunks(IDS_PER_REQUEST) {
            let url = format!(
                "{}/api/query?id_list={}&start=0&max_results={}",
                self.base,
                chunk.join(","),
                chunk.len()
            );
            if done(chunk, self.get_feed(&url)?).is_break() {
                break;
            }
        }
        Ok(())
    }

    /// One page of the API, retried on 429 and 5xx.
    pub fn get_feed(&self, url: &str) -> Result<Feed, FetchError> {
        let attempts = self.attempts.max(1);
        let mut last = String::new();
        for attempt in 1..=attempts {
            self.pace();
            let result = self.agent.get(url).call();
            let mut resp = match result {
                Ok(r) => r,
                Err(e) => return Err(self.transport(url, e)),
            };
            let status = resp.status().as_u16();
            let retry_after = resp
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok());
            let body = resp
                .body_mut()
                .with_config()
                .limit(MAX_DOCUMENT_BYTES as u64)
                .read_to_string();
            match status {
                200..=299 => {
                    let body = body.map_err(|e| self.body_error(url, e))?;
                    let feed = parse_fetched(&body).map_err(|error| FetchError::Feed {
                        url: shown(url),
                        error,
                    })?;
                    if let Ok(mut s) = self.skipped.lock() {
                        s.extend(feed.skipped.iter().cloned());
                    }
                    return Ok(feed);
                }
                429 | 500 | 502 | 503 | 504 => {
                    last = format!("HTTP {status}");
                    if attempt == attempts {
                        break;
                    }
                    let mut wait = self.backoff.saturating_mul(1 << (attempt - 1).min(16));
                    if let Some(s) = retry_after {
                        let asked = Duration::from_secs(s);
                        if asked > self.max_retry_after {
                            return Err(FetchError::RateLimited {
                                url: shown(url),
                                seconds: s,
                            });
                        }
                        wait = wait.max(asked);
                    }
                    if let Some(tell) = &self.on_retry {
                        tell(Retry {
                            status,
                            wait,
                            attempt: attempt + 1,
                            attempts,
                        });
                    }
                    std::thread::sleep(wait);
                }
                _ => {
                    // A refused query comes back as 400 with an Atom error entry: say what it says.
                    let detail = body.ok().and_then(|b| match parse(&b) {
                        Err(FeedError::Api { message }) => Some(message),
                        _ => None,
                    });
                    return Err(FetchError::Status {
                        status,
                        url: shown(url),
                        detail,
                    });
                }
            }
        }
        Err(FetchError::RetriesExhausted {
            url: shown(url),
            attempts,
            last,
        })
    }

    /// Waits until [`Client::delay`] has passed since the last request, then notes this one.
    fn pace(&self) {
        let mut last = self.last_request.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(t) = *last {
            let since = t.elapsed();
            if since < self.delay {
                std::thread::sleep(self.delay - since);
            }
        }
        *last = Some(Instant::now());
    }

    pub(super) fn host(&self) -> String {
        let rest = self
            .base
            .split_once("://")
            .map_or(self.base.as_str(), |(_, r)| r);
        rest.split('/').next().unwrap_or(rest).to_string()
    }

    fn transport(&self, url: &str, e: ureq::Error) -> FetchError {
        match e {
            ureq::Error::BodyExceedsLimit(_) => self.body_error(url, e),
            ureq::Error::StatusCode(status) => FetchError::Status {
                status,
                url: shown(url),
                detail: None,
            },
            // Connected and asked, but no answer began: not a network the user can fix.
            ureq::Error::Timeout(ureq::Timeout::RecvResponse) => FetchError::Silent {
                url: shown(url),
                seconds: self.answer_timeout.as_secs_f32(),
            },
            other => FetchError::Unreachable {
                host: self.host(),
                reason: other.to_string(),
            },
        }
    }

    fn body_error(&self, url: &str, e: ureq::Error) -> FetchError {
        let reason = match e {
            ureq::Error::BodyExceedsLimit(_) => {
                format!("the answer is larger than the {MAX_DOCUMENT_BYTES} bytes a feed may be")
            }
            // ureq says "timeout: global": the answer began but did not end in time.
            ureq::Error::Timeout(_) => format!(
                "the answer began but did not finish within {:.0} s (a stalled or very slow \
                 server)",
                2.0 * self.answer_timeout.as_secs_f32()
            ),
            other => other.to_string(),
        };
        FetchError::Body {
            url: shown(url),
            reason,
        }
    }
}

/// `YYYY-MM-DD` of the day `days` before `now` (UTC).
pub(super) fn day_before(now: SystemTime, days: u32) -> String {
    let secs = now
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    civil(secs.div_euclid(86_400) - i64::from(days))
}

pub(super) use crate::util::date::civil;
