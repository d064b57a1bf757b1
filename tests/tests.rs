//! The integration tests: one crate (one compile, one link), a module per area, as the
//! binary's users meet them. Engine behaviour is tested in-process through the library;
//! modules that launch the binary check what only the binary shows (exit codes, formats,
//! files). Shared helpers live in `support/`.

mod support;

mod abstracts;
mod bench;
mod corpus;
mod engine;
mod feed;
mod fuzz_loaders;
mod graph;
mod import;
mod import_formats;
mod imported_lists;
mod imports;
mod map_browser;
mod map_html;
mod map_layout;
mod map_svg;
mod model_bench;
mod model_golden;
mod model_optimized;
mod plan;
mod reliability;
mod search;
mod serve;
mod serve_browser;
mod store;
mod topics_paths;
mod zotero_cli;
