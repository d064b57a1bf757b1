//! Small shared tools with no knowledge of papers: a fixed-seed random generator, vector
//! arithmetic and calendar dates.

pub mod date;
pub mod rng;
pub mod vector;

pub use rng::SplitMix64;
