//! Small shared tools with no knowledge of papers: a fixed-seed random generator, vector
//! arithmetic and calendar dates.

pub mod date;
pub mod rng;
pub mod vector;

pub use rng::SplitMix64;

/// Writes one line to standard error and drops it if that fails. `eprintln!` panics when stderr
/// is a closed pipe (`recommend index ... 2>&1 | head -1` aborted with exit 101 before the index
/// was written); a note nobody can read is no reason to stop a run. The crate's and the
/// binary's `eprintln!` are this.
pub fn note(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut err = std::io::stderr().lock();
    let _ = err.write_fmt(args).and_then(|()| err.write_all(b"\n"));
}
