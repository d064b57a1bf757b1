//! engine: queries over the corpus and its vectors.

pub mod path;
pub mod similarity;
pub mod topics;
