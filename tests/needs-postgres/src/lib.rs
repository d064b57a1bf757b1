//! `#[needs_postgres::test]` marks a test that needs a PostgreSQL server. Where PostgreSQL is
//! installed (see `build.rs`) it is a plain `#[test]`; where it cannot be, the test is compiled
//! as ignored with the reason "skipped: no PostgreSQL", so a run reports it skipped, never
//! passed, and never fails a machine the server does not install on.

use proc_macro::TokenStream;

/// What the test runner prints beside an ignored store test.
#[cfg(not(postgres_installed))]
const SKIPPED: &str = "skipped: no PostgreSQL (run scripts/setup.sh, or set RECOMMEND_PG_BIN)";

/// A test that needs PostgreSQL: `#[test]`, or `#[test] #[ignore = "skipped: no PostgreSQL"]`.
#[proc_macro_attribute]
pub fn test(attr: TokenStream, item: TokenStream) -> TokenStream {
    if !attr.is_empty() {
        return r##"compile_error!("#[needs_postgres::test] takes no arguments");"##
            .parse()
            .expect("a valid token stream");
    }
    #[cfg(postgres_installed)]
    let head = "#[test]".to_string();
    #[cfg(not(postgres_installed))]
    let head = format!("#[test] #[ignore = {SKIPPED:?}]");
    let mut out: TokenStream = head.parse().expect("a valid attribute");
    out.extend(item);
    out
}

/// `true` where the store tests run: a test compares it with what it finds at run time, so a
/// build that missed an install fails instead of skipping every store test.
#[proc_macro]
pub fn installed(_: TokenStream) -> TokenStream {
    let installed = cfg!(postgres_installed);
    installed.to_string().parse().expect("a literal")
}
