//! The Inbox's routes (`recommend serve --feed FILE...`): its page, `/api/feed` and
//! `POST /api/rate`. A server on an index file keeps its one reader's state beside the index, as
//! `recommend rate` does; a server on a store keeps each reader's own rows, the reader named by
//! the `user` parameter of every request (the store is shared, so there is no default reader).

use super::*;
use recommend::feed::home::{Files, Home};
use recommend::store::{FeedHome, Store};

pub(super) async fn inbox_page() -> Html<&'static str> {
    Html(INBOX)
}

/// The Inbox, or a 404 saying how to get one.
fn inbox_of(inbox: Option<&Inbox>) -> Result<&Inbox, ApiError> {
    inbox.ok_or_else(|| {
        ApiError(
            StatusCode::NOT_FOUND,
            json!({"error": "this server has no feed: start it with `recommend serve --feed FILE...`"}),
        )
    })
}

/// The parameters a request takes: `names`, and `user` on a store.
fn params(
    q: RawQuery,
    names: &[&'static str],
    store: Option<&Arc<Store>>,
) -> Result<Params, ApiError> {
    let mut names = names.to_vec();
    if store.is_some() {
        names.push("user");
    }
    Params::new(q, &names)
}

/// Where the request's reader's state is: beside the served index file, or with a store the
/// rows of the reader the `user` parameter names.
fn home_of(s: &Session, store: Option<&Arc<Store>>, p: &Params) -> Result<Box<dyn Home>, ApiError> {
    let index = s.searcher();
    let Some(store) = store else {
        return Ok(Box::new(Files::beside(
            s.index_path(),
            &index.meta.model_id,
            index.dim(),
        )));
    };
    let user = p.one("user")?.ok_or_else(|| {
        bad(
            "user",
            "give user=NAME: this server keeps one Inbox per reader of the store",
        )
    })?;
    recommend::store::feed::check_user(&user).map_err(|e| {
        // The name as given, cut: a 5,000-character one was echoed whole.
        let shown: String = user.chars().take(80).collect();
        bad(
            "user",
            format!("user={shown:?} is not a reader's name: {e}"),
        )
    })?;
    Ok(Box::new(FeedHome::new(
        Arc::clone(store),
        &user,
        &index.meta.model_id,
        index.dim(),
    )))
}

/// What the Inbox's answers read: its candidates, the served session, and the store that keeps
/// each reader's state (`None`: the state file beside the index).
pub(super) struct Reading<'a> {
    pub inbox: Option<&'a Inbox>,
    pub session: &'a Session,
    pub store: Option<&'a Arc<Store>>,
}

impl Reading<'_> {
    /// `/api/feed`.
    pub(super) fn feed(&self, q: RawQuery) -> Result<Value, ApiError> {
        let (s, store) = (self.session, self.store);
        let p = params(q, &["k", "interest", "all"], store)?;
        let inbox = inbox_of(self.inbox)?;
        let query = recommend::feed::inbox::InboxQuery {
            limit: p.number("k", 50, MAX_LIMIT)?,
            interest: p.one("interest")?.filter(|i| !i.trim().is_empty()),
            all: p.flag("all")?,
        };
        if let Some(name) = &query.interest
            && !inbox
                .interests()
                .iter()
                .any(|i| recommend::feed::candidates::mentions(i, name))
        {
            return Err(bad(
                "interest",
                format!(
                    "no interest of this library is called {name:?}; its interests: {}",
                    inbox.interests().join("; ")
                ),
            ));
        }
        let home = home_of(s, store, &p)?;
        let records = inbox
            .records(s.searcher(), home.as_ref(), &query)
            .map_err(|e| {
                ApiError(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    json!({"error": e.to_string()}),
                )
            })?;
        Ok(json!({"candidates": inbox.len(), "interests": inbox.interests(), "results": records}))
    }

    /// `POST /api/rate`.
    pub(super) fn rate(&self, q: RawQuery) -> Result<Value, ApiError> {
        let (s, store) = (self.session, self.store);
        let p = params(q, &["id", "verdict"], store)?;
        let inbox = inbox_of(self.inbox)?;
        let id = p
            .one("id")?
            .filter(|i| !i.trim().is_empty())
            .ok_or_else(|| bad("id", "give id=PAPER"))?;
        let verdict = match p.one("verdict")?.as_deref().map(str::trim) {
            Some("up") => Some(recommend::feed::state::Verdict::Up),
            Some("down") => Some(recommend::feed::state::Verdict::Down),
            Some("clear") => None,
            other => {
                return Err(bad(
                    "verdict",
                    format!(
                        "verdict must be one of up, down, clear, not {:?}",
                        other.unwrap_or("")
                    ),
                ));
            }
        };
        let home = home_of(s, store, &p)?;
        let title = inbox
            .rate(s.searcher(), home.as_ref(), &id, verdict)
            .map_err(|e| {
                let status = match &e {
                    RateError::Unknown { .. } | RateError::NoRating(_) => StatusCode::NOT_FOUND,
                    RateError::NotCached(_) => StatusCode::CONFLICT,
                    RateError::Ambiguous(_) => StatusCode::BAD_REQUEST,
                    RateError::State(_) => StatusCode::INTERNAL_SERVER_ERROR,
                };
                ApiError(status, json!({"error": e.to_string(), "parameter": "id"}))
            })?;
        Ok(json!({"id": id, "title": title, "verdict": p.one("verdict")?}))
    }
}

pub(super) async fn feed(State(state): State<Arc<AppState>>, q: RawQuery) -> Response {
    blocking(state, move |s| {
        Reading {
            inbox: s.inbox.as_ref(),
            session: &s.session,
            store: None,
        }
        .feed(q)
    })
    .await
}

pub(super) async fn rate(State(state): State<Arc<AppState>>, q: RawQuery) -> Response {
    blocking(state, move |s| {
        Reading {
            inbox: s.inbox.as_ref(),
            session: &s.session,
            store: None,
        }
        .rate(q)
    })
    .await
}
