//! The module import graph of `src/`, at the grain of top-level modules (`app`, `cli`, `serve`,
//! `session`, `engine`, ...): the binary's modules (`mod` in `src/main.rs`) import each other in
//! one direction only, and the library's (`mod` in `src/lib.rs`) never import the binary's.
//!
//! The graph is read from the source text: comments, strings and character literals are
//! dropped, then every path that starts with `crate::`, `super::`, `self::` or (in the binary)
//! `recommend::` is an edge from the file's top-level module to the one the path names,
//! `use` groups (`crate::{a, b::c}`) and inline modules (`mod tests { use super::*; }`)
//! included. Paths written without one of those prefixes (inside a module, `foo::bar` names a
//! child or an extern crate) are not edges.
//!
//! Beside the graph, the size of each file: no file of `src/` holds more than [`MAX_LINES`]
//! lines before its tests, so that every file stays one responsibility a reader can take in.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Modules of the binary that must form no cycle; each is checked to exist, so that the test
/// cannot pass by reading nothing.
const FRONT: [&str; 3] = ["app", "cli", "serve"];

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Path, // `::`
    Punct(char),
}

/// The tokens of `src` that matter here, with comments, strings and char literals removed.
fn tokens(src: &str) -> Vec<Tok> {
    let c: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        let next = c.get(i + 1).copied();
        if ch == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && next == Some('*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if ch == 'r'
            && matches!(next, Some('"' | '#'))
            && (i == 0 || !is_ident(c[i - 1]))
            && raw_string_end(&c, i).is_some()
        {
            i = raw_string_end(&c, i).unwrap_or(c.len());
        } else if ch == '"' {
            i += 1;
            while i < c.len() && c[i] != '"' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if ch == '\'' {
            // A char literal ('x', '\n', '\u{..}') or a lifetime ('a).
            if next == Some('\\') {
                i += 3; // the quote, the backslash and the escaped character
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if c.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
            }
        } else if ch == ':' && next == Some(':') {
            out.push(Tok::Path);
            i += 2;
        } else if is_ident(ch) {
            let start = i;
            while i < c.len() && is_ident(c[i]) {
                i += 1;
            }
            out.push(Tok::Ident(c[start..i].iter().collect()));
        } else {
            if !ch.is_whitespace() {
                out.push(Tok::Punct(ch));
            }
            i += 1;
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Where the raw string (`r"..."`, `r#"..."#`) starting at `i` ends, if one starts there.
fn raw_string_end(c: &[char], i: usize) -> Option<usize> {
    let mut j = i + 1;
    let mut hashes = 0;
    while c.get(j) == Some(&'#') {
        hashes += 1;
        j += 1;
    }
    if c.get(j) != Some(&'"') {
        return None;
    }
    j += 1;
    while j < c.len() {
        if c[j] == '"' && (1..=hashes).all(|h| c.get(j + h) == Some(&'#')) {
            return Some(j + 1 + hashes);
        }
        j += 1;
    }
    Some(c.len())
}

/// The names of the first segments of each item of the `{...}` group at `toks[at]`.
fn group_heads(toks: &[Tok], at: usize) -> Vec<String> {
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut item_start = true;
    for t in &toks[at..] {
        match t {
            Tok::Punct('{') => {
                depth += 1;
                if depth == 1 {
                    item_start = true;
                }
            }
            Tok::Punct('}') => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            Tok::Punct(',') if depth == 1 => item_start = true,
            Tok::Ident(name) if depth == 1 && item_start => {
                heads.push(name.clone());
                item_start = false;
            }
            _ => {
                if depth == 1 {
                    item_start = false;
                }
            }
        }
    }
    heads
}

/// The top-level modules the file at module path `file_mod` refers to (its own included).
fn referenced(src: &str, file_mod: &[String], binary: bool) -> BTreeSet<String> {
    let toks = tokens(src);
    let mut refs = BTreeSet::new();
    // Inline modules open at a brace depth: (name, depth inside it).
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0;
    let mut i = 0;
    while i < toks.len() {
        match &toks[i] {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth -= 1;
            }
            Tok::Ident(kw) if kw == "mod" => {
                if let (Some(Tok::Ident(name)), Some(Tok::Punct('{'))) =
                    (toks.get(i + 1), toks.get(i + 2))
                {
                    inline.push((name.clone(), depth + 1));
                }
            }
            Tok::Ident(head)
                if toks.get(i + 1) == Some(&Tok::Path) && (i == 0 || toks[i - 1] != Tok::Path) =>
            {
                let mut here: Vec<String> = file_mod.to_vec();
                here.extend(inline.iter().map(|(n, _)| n.clone()));
                let mut j = i;
                let base: Option<Vec<String>> = match head.as_str() {
                    "crate" => Some(Vec::new()),
                    "recommend" if binary => Some(Vec::new()),
                    "self" => Some(here.clone()),
                    "super" => {
                        let mut b = here.clone();
                        while toks.get(j) == Some(&Tok::Ident("super".into()))
                            && toks.get(j + 1) == Some(&Tok::Path)
                        {
                            b.pop();
                            j += 2;
                        }
                        j -= 2;
                        Some(b)
                    }
                    _ => None,
                };
                if let Some(base) = base {
                    j += 2; // past the last prefix and its `::`
                    if let Some(top) = base.first() {
                        refs.insert(top.clone());
                    } else {
                        match toks.get(j) {
                            Some(Tok::Ident(name)) => {
                                refs.insert(name.clone());
                            }
                            Some(Tok::Punct('{')) => refs.extend(group_heads(&toks, j)),
                            _ => {}
                        }
                    }
                    i = j;
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    refs
}

/// The modules a crate root declares (`mod x;`, `pub mod x;`).
fn declared(root: &Path) -> BTreeSet<String> {
    let src = std::fs::read_to_string(root).unwrap();
    let toks = tokens(&src);
    toks.windows(3)
        .filter_map(|w| match w {
            [Tok::Ident(kw), Tok::Ident(name), Tok::Punct(';')] if kw == "mod" => {
                Some(name.clone())
            }
            _ => None,
        })
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// A file's module path from `src/`: `app/query.rs` -> [app, query], `serve/mod.rs` -> [serve],
/// `lib.rs` and `main.rs` -> [] (a crate root).
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|l| l == "mod")
        || parts.len() == 1 && ["lib", "main"].contains(&parts[0].as_str())
    {
        parts.pop();
    }
    parts
}

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The import graph of `src/` between the modules `lib` and `bin` declare.
fn graph(src: &Path, lib: &BTreeSet<String>, bin: &BTreeSet<String>) -> Graph {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let known: BTreeSet<&String> = lib.iter().chain(bin).collect();
    let mut g = Graph::new();
    for file in files {
        let path = module_path(src, &file);
        let Some(top) = path.first().filter(|t| known.contains(t)) else {
            continue;
        };
        let text = std::fs::read_to_string(&file).unwrap();
        let edges = g.entry(top.clone()).or_default();
        for r in referenced(&text, &path, bin.contains(top)) {
            if &r != top && known.contains(&r) {
                edges.insert(r);
            }
        }
    }
    g
}

fn show(g: &Graph) -> String {
    g.iter()
        .map(|(m, to)| {
            format!(
                "  {m} -> {}",
                to.iter().cloned().collect::<Vec<_>>().join(", ")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A cycle among `within`, as the modules along it, if there is one.
fn find_cycle(g: &Graph, within: &BTreeSet<String>) -> Option<Vec<String>> {
    fn visit(
        m: &String,
        g: &Graph,
        within: &BTreeSet<String>,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = stack.iter().position(|s| s == m) {
            let mut cycle = stack[at..].to_vec();
            cycle.push(m.clone());
            return Some(cycle);
        }
        if !done.insert(m.clone()) {
            return None;
        }
        stack.push(m.clone());
        for next in g
            .get(m)
            .into_iter()
            .flatten()
            .filter(|n| within.contains(*n))
        {
            if let Some(c) = visit(next, g, within, stack, done) {
                return Some(c);
            }
        }
        stack.pop();
        None
    }
    let mut done = BTreeSet::new();
    within
        .iter()
        .find_map(|m| visit(m, g, within, &mut Vec::new(), &mut done))
}

/// The crate as the import tests read it: the modules `src/lib.rs` and `src/main.rs` declare,
/// the import graph between them, and that graph as text for failure messages.
struct Crate {
    lib: BTreeSet<String>,
    bin: BTreeSet<String>,
    g: Graph,
    shown: String,
}

impl Crate {
    fn read() -> Crate {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let lib = declared(&src.join("lib.rs"));
        let bin = declared(&src.join("main.rs"));
        let g = graph(&src, &lib, &bin);
        let shown = show(&g);
        Crate { lib, bin, g, shown }
    }

    /// Requires each of `modules` among `declared`, the modules `file` declares, and `from` to
    /// import both of `to` (imports any reading of the code finds), so that a test cannot pass
    /// by reading nothing.
    fn check_read(
        &self,
        (file, declared): (&str, &BTreeSet<String>),
        modules: &[&str],
        from: &str,
        to: [&str; 2],
    ) {
        let shown = &self.shown;
        for m in modules {
            assert!(
                declared.contains(*m),
                "{file} declares no `mod {m};`:\n{shown}"
            );
        }
        assert!(
            self.g
                .get(from)
                .is_some_and(|edges| to.iter().all(|t| edges.contains(*t))),
            "the graph misses {from} -> {}; the reader is broken:\n{shown}",
            to.join(", ")
        );
    }
}

#[test]
fn the_front_layer_imports_one_way_and_the_library_never_imports_it() {
    let c = Crate::read();
    // The CLI's code imports its arguments and the library.
    c.check_read(("src/main.rs", &c.bin), &FRONT, "app", ["cli", "session"]);
    let Crate { lib, bin, g, shown } = &c;
    let mut problems = Vec::new();
    if let Some(cycle) = find_cycle(g, bin) {
        problems.push(format!(
            "the binary's modules import each other in a cycle: {}",
            cycle.join(" -> ")
        ));
    }
    for m in lib {
        for to in g.get(m).into_iter().flatten() {
            if bin.contains(to) {
                problems.push(format!("the library module {m} imports the binary's {to}"));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{}\nthe graph:\n{shown}",
        problems.join("\n")
    );
}

/// Library modules of the index build that must form no cycle: `pipeline` orders the steps
/// of `index` (storage) and `engine` (measurements), and neither of those imports it.
const BUILD: [&str; 4] = ["pipeline", "engine", "index", "model"];

#[test]
fn the_build_pipeline_sits_above_index_and_engine() {
    let c = Crate::read();
    c.check_read(
        ("src/lib.rs", &c.lib),
        &BUILD,
        "pipeline",
        ["index", "engine"],
    );
    let within: BTreeSet<String> = BUILD.iter().map(|m| m.to_string()).collect();
    if let Some(cycle) = find_cycle(&c.g, &within) {
        panic!(
            "the build's modules import each other in a cycle: {}",
            cycle.join(" -> ")
        );
    }
}

#[test]
fn the_reader_finds_paths_in_groups_and_relative_to_the_module_and_skips_text() {
    let at = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let src = r##"
        //! crate::docs is not an import
        use crate::{cli::{A, B}, serve};
        use super::engine; // a child of app: app itself
        fn f() { let s = "crate::text"; let c = '"'; let r = r#"crate::map"#; crate::index::x(); }
        /* crate::corpus */
        mod tests { use super::super::model; }
        fn g<'a>(x: &'a str) { let q = '\''; recommend::feed::y(); }
    "##;
    assert_eq!(
        referenced(src, &at(&["app", "query"]), true),
        ["app", "cli", "feed", "index", "serve"]
            .map(String::from)
            .into(),
    );
    // At the top of a module, `super::x` is the top-level module `x`.
    assert_eq!(
        referenced("use super::{session, index::Index};", &at(&["app"]), true),
        ["index", "session"].map(String::from).into(),
    );
    let mut g = Graph::new();
    g.entry("app".into()).or_default().insert("serve".into());
    g.entry("serve".into()).or_default().insert("app".into());
    let within = ["app", "serve"].map(String::from).into();
    assert!(find_cycle(&g, &within).is_some());
}

/// The most lines a file of `src/` may hold before its first `#[cfg(test)]`.
const MAX_LINES: usize = 600;

/// The lines of `src` before its first line that opens with `#[cfg(test)]` (all of them
/// without one), as `awk '/^#\[cfg\(test\)\]/{exit} {c++} END{print c+0}'` counts them.
fn non_test_lines(src: &str) -> usize {
    src.lines()
        .take_while(|l| !l.starts_with("#[cfg(test)]"))
        .count()
}

/// Whether the file whose module is `name` is declared (`mod name;`) only in the test part
/// of its parent `parent` (`#[cfg(test)] mod tests;`): then all of it is test code.
fn declared_for_tests(parent: &str, name: &str) -> bool {
    let declares = |part: &str| {
        part.lines().any(|l| {
            let l = l.trim();
            l == format!("mod {name};") || l == format!("pub mod {name};")
        })
    };
    let cut: usize = parent
        .lines()
        .take(non_test_lines(parent))
        .map(|l| l.len() + 1)
        .sum();
    let (code, tests) = parent.split_at(cut.min(parent.len()));
    !declares(code) && declares(tests)
}

/// The file that declares the module of `file`: `a/b.rs` and `a/b/mod.rs` are declared in
/// `a/mod.rs` or `a.rs`, top-level modules in `lib.rs` or `main.rs` (whichever declares it).
fn parent_of(src: &Path, file: &Path) -> Vec<PathBuf> {
    let path = module_path(src, file);
    let Some((_, dir)) = path.split_last() else {
        return Vec::new();
    };
    if dir.is_empty() {
        return vec![src.join("lib.rs"), src.join("main.rs")];
    }
    let dir: PathBuf = dir.iter().collect();
    vec![
        src.join(&dir).join("mod.rs"),
        src.join(dir).with_extension("rs"),
    ]
}

/// Each file of `src/` (as `dir/file.rs` from `src/`) with its lines before its tests, test-only
/// files left out.
fn sizes(src: &Path) -> BTreeMap<String, usize> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut out = BTreeMap::new();
    for file in files {
        let name = module_path(src, &file).last().cloned().unwrap_or_default();
        let for_tests = parent_of(src, &file).iter().any(|p| {
            std::fs::read_to_string(p).is_ok_and(|parent| declared_for_tests(&parent, &name))
        });
        if !for_tests {
            let text = std::fs::read_to_string(&file).unwrap();
            let rel = file
                .strip_prefix(src)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            out.insert(rel, non_test_lines(&text));
        }
    }
    out
}

/// The files of `sizes` over [`MAX_LINES`], as `file: count` lines.
fn oversized(sizes: &BTreeMap<String, usize>) -> Vec<String> {
    sizes
        .iter()
        .filter(|&(_, &lines)| lines > MAX_LINES)
        .map(|(file, lines)| {
            format!("src/{file}: {lines} lines before its tests, over {MAX_LINES}")
        })
        .collect()
}

#[test]
fn no_file_of_src_holds_more_than_600_lines_before_its_tests() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let sizes = sizes(&src);
    // The walk found the crate: a check that read nothing would pass.
    assert!(
        sizes.contains_key("lib.rs") && sizes.len() > 50,
        "read {} files of src/",
        sizes.len()
    );
    let problems = oversized(&sizes);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_size_check_counts_up_to_the_tests_and_skips_test_only_files() {
    assert_eq!(non_test_lines("a\nb\nc\n#[cfg(test)]\nmod tests {}\n"), 3);
    assert_eq!(non_test_lines("a\nb\n"), 2);
    // Indented (an inner `#[cfg(test)]` item) is code, as awk's `^` reads it.
    assert_eq!(non_test_lines("a\n    #[cfg(test)]\n    fn f() {}\n"), 3);
    let parent = "mod chunks;\n#[cfg(test)]\nmod tests;\n";
    assert!(declared_for_tests(parent, "tests"));
    assert!(!declared_for_tests(parent, "chunks"));
    // One file over the limit is named with its count; one at the limit is not.
    let sizes: BTreeMap<String, usize> = [
        ("lib.rs".to_string(), 20),
        ("engine/big.rs".to_string(), 601),
        ("engine/full.rs".to_string(), 600),
    ]
    .into();
    assert_eq!(
        oversized(&sizes),
        ["src/engine/big.rs: 601 lines before its tests, over 600"]
    );
}
