//! Small shared tools with no knowledge of papers: a fixed-seed random generator and vector
//! arithmetic.

pub mod rng;
pub mod vector;

pub use rng::SplitMix64;
