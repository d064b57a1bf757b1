//! The query string of a request: checked against the names an endpoint takes, and read as
//! numbers, flags and choices with a 400 naming the parameter when malformed.

use axum::extract::Query;
use axum::extract::rejection::QueryRejection;

use super::{ApiError, MAX_K, bad};
use recommend::engine::Mode;
use recommend::session::{QueryOptions, Session, UnknownValue, parse_kind, parse_mode};

/// The query string of one request, checked against the names an endpoint takes.
pub(super) struct Params(Vec<(String, String)>);

pub(super) type RawQuery = Result<Query<Vec<(String, String)>>, QueryRejection>;

impl Params {
    pub(super) fn new(q: RawQuery, allowed: &[&str]) -> Result<Params, ApiError> {
        let Query(pairs) = q.map_err(|e| bad("", format!("malformed query string: {e}")))?;
        if let Some((name, _)) = pairs.iter().find(|(k, _)| !allowed.contains(&k.as_str())) {
            return Err(bad(
                name,
                format!(
                    "unknown parameter {name:?}; this endpoint takes {}",
                    allowed.join(", ")
                ),
            ));
        }
        // The query string is percent-decoded lossily: bytes that are not UTF-8 arrive as
        // U+FFFD, and a name or query made of them would be answered as something else
        // (a name with no letters or digits). Say what is wrong instead.
        if let Some((name, _)) = pairs.iter().find(|(_, v)| v.contains('\u{FFFD}')) {
            return Err(bad(
                name,
                format!("{name} is not valid UTF-8; percent-encode UTF-8 text"),
            ));
        }
        Ok(Params(pairs))
    }

    pub(super) fn all(&self, name: &str) -> Vec<String> {
        self.0
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .collect()
    }

    pub(super) fn one(&self, name: &str) -> Result<Option<String>, ApiError> {
        match &self.all(name)[..] {
            [] => Ok(None),
            [v] => Ok(Some(v.clone())),
            _ => Err(bad(name, format!("{name} is given more than once"))),
        }
    }

    pub(super) fn number(&self, name: &str, default: usize, max: usize) -> Result<usize, ApiError> {
        let Some(v) = self.one(name)? else {
            return Ok(default);
        };
        match v.trim().parse::<usize>() {
            Ok(n) if (1..=max).contains(&n) => Ok(n),
            _ => Err(bad(
                name,
                format!("{name} must be a whole number from 1 to {max}, not {v:?}"),
            )),
        }
    }

    pub(super) fn flag(&self, name: &str) -> Result<bool, ApiError> {
        match self.one(name)?.as_deref().map(str::trim) {
            None | Some("0" | "false" | "no") => Ok(false),
            Some("" | "1" | "true" | "yes") => Ok(true),
            Some(v) => Err(bad(
                name,
                format!("{name} must be true or false, not {v:?}"),
            )),
        }
    }

    /// A value of a closed set read by the library's `parse` (the CLI's spellings, any ASCII
    /// case): "NAME must be one of a, b, c, not \"VALUE\"" when it names none.
    pub(super) fn choice<T>(
        &self,
        name: &str,
        parse: fn(&str) -> Result<T, UnknownValue>,
    ) -> Result<Option<T>, ApiError> {
        let Some(v) = self.one(name)? else {
            return Ok(None);
        };
        parse(&v)
            .map(Some)
            .map_err(|e| bad(name, format!("{name} {e}")))
    }

    /// `k`, `mode`, `topic`, `kind`, `open_source`, as the CLI's flags.
    pub(super) fn query_options(&self, session: &Session) -> Result<QueryOptions, ApiError> {
        let q = QueryOptions {
            top: self.number("k", 10, MAX_K)?,
            mode: self.choice("mode", parse_mode)?.unwrap_or(Mode::Hybrid),
            filters: recommend::engine::Filters {
                topic: self.one("topic")?.filter(|t| !t.trim().is_empty()),
                kind: self.choice("kind", parse_kind)?,
                open_source: self.flag("open_source")?,
            },
        };
        session
            .check_filters(&q.filters)
            .map_err(|e| bad("topic", e))?;
        Ok(q)
    }
}

const QUERY_PARAMS: [&str; 5] = ["k", "mode", "topic", "kind", "open_source"];

pub(super) fn with_query_params(extra: &[&'static str]) -> Vec<&'static str> {
    extra.iter().copied().chain(QUERY_PARAMS).collect()
}
