pub mod paper;
pub use paper::{Kind, Paper};
