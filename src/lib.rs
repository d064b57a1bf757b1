//! recommend: offline semantic recommendations for research papers.
//!
//! Data flows one way, one module per step:
//! `corpus` (records) -> `model` (vectors) -> `index` (index.bin; `store`: the same in PostgreSQL)
//! -> `engine` (queries) -> `render`.
//! A [`session::Session`] holds an opened index and the model for the commands that query it.
//! The library never prints and never exits; `main.rs` owns the terminal and the exit codes.

/// Standard error's `eprintln!`, without its panic on a closed pipe ([`util::note`]).
macro_rules! eprintln {
    ($($arg:tt)*) => {
        $crate::util::note(format_args!($($arg)*))
    };
}

pub mod bench;
pub mod corpus;
pub mod engine;
pub mod feed;
pub mod index;
pub mod map;
pub mod model;
pub mod pipeline;
pub mod render;
pub mod safe_fs;
pub mod session;
pub mod store;
pub mod text;
pub mod util;
