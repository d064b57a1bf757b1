//! Quality and speed evaluation behind `recommend bench`.

pub mod quality;
