//! Queries over an index: title resolution, related work, search, topics and reading paths.
//!
//! The engine never loads the model: callers that need a query embedding compute it and pass it
//! in, so `--like` runs on `index.bin` alone. It never prints: it returns values.

pub mod alignment;
pub mod communities;
pub mod explain;
pub mod fusion;
pub mod path;
pub mod plan;
pub mod reading;
pub mod reference;
pub mod resolve;
pub mod retrieve;
pub mod topics;

pub use resolve::{
    MAX_QUERY_CHARS, Matched, ResolveError, Resolved, query_lines, resolve, resolve_match,
};
pub use retrieve::{Filters, Hit, Mode, calibrated, related, search};
