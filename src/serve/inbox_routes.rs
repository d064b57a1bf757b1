//! The Inbox's routes (`recommend serve --feed FILE...`): its page, `/api/feed` and
//! `POST /api/rate`, over the same state file as `recommend rate`.

use super::*;
use recommend::feed::home::Files;

pub(super) async fn inbox_page() -> Html<&'static str> {
    Html(INBOX)
}

/// The Inbox, or a 404 saying how to get one.
fn inbox_of(s: &AppState) -> Result<&Inbox, ApiError> {
    s.inbox.as_ref().ok_or_else(|| {
        ApiError(
            StatusCode::NOT_FOUND,
            json!({"error": "this server has no feed: start it with `recommend serve --feed FILE...`"}),
        )
    })
}

pub(super) async fn feed(State(state): State<Arc<AppState>>, q: RawQuery) -> Response {
    blocking(state, move |s| {
        let p = Params::new(q, &["k", "interest", "all"])?;
        let inbox = inbox_of(s)?;
        let query = recommend::feed::inbox::InboxQuery {
            limit: p.number("k", 50, MAX_LIMIT)?,
            interest: p.one("interest")?.filter(|i| !i.trim().is_empty()),
            all: p.flag("all")?,
        };
        let records = inbox.records(s.index(), &home_of(s), &query).map_err(|e| {
            ApiError(
                StatusCode::INTERNAL_SERVER_ERROR,
                json!({"error": e.to_string()}),
            )
        })?;
        Ok(json!({"candidates": inbox.len(), "interests": inbox.interests(), "results": records}))
    })
    .await
}

pub(super) async fn rate(State(state): State<Arc<AppState>>, q: RawQuery) -> Response {
    blocking(state, move |s| {
        let p = Params::new(q, &["id", "verdict"])?;
        let inbox = inbox_of(s)?;
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
        let title = inbox
            .rate(s.index(), &home_of(s), &id, verdict)
            .map_err(|e| {
                let status = match &e {
                    RateError::Unknown { .. } | RateError::NoRating(_) => StatusCode::NOT_FOUND,
                    RateError::NotCached(_) => StatusCode::CONFLICT,
                    RateError::State(_) => StatusCode::INTERNAL_SERVER_ERROR,
                };
                ApiError(status, json!({"error": e.to_string(), "parameter": "id"}))
            })?;
        Ok(json!({"id": id, "title": title, "verdict": p.one("verdict")?}))
    })
    .await
}

/// The reader's state beside the served index file (`serve --feed` is refused with `--store`).
fn home_of(s: &AppState) -> Files {
    let index = s.index();
    Files::beside(s.session.index_path(), &index.meta.model_id, index.dim())
}
