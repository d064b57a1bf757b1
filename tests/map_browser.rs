//! The HTML map in a real browser: headless Chromium loads the page from disk, draws every
//! point without script errors, and takes a non-trivial screenshot.
//!
//! Needs `/usr/bin/chromium` (Debian: `apt-get install -y chromium`; or set `CHROMIUM` to the
//! binary). Set `RECOMMEND_MAP_KEEP=<dir>` to keep the
//! page and screenshots there for a look.

use crate::support::map_fixture;

use recommend::map::{layout, render_html, render_svg};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::support::chromium;

/// Runs Chromium headless on `page` with a fresh profile, with `extra` arguments; returns stdout.
fn run_chromium(bin: &Path, page: &Path, extra: &[String]) -> String {
    let profile = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(bin);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
        "--window-size=1200,900",
    ])
    .arg(format!("--user-data-dir={}", profile.path().display()))
    .args(extra)
    .arg(format!("file://{}", page.display()));
    // Output goes to files, not pipes: a big DOM would fill a pipe and block the browser.
    let out_path = profile.path().join("stdout.txt");
    let err_path = profile.path().join("stderr.txt");
    let mut child = cmd
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .expect("start chromium");
    // Kill a hung browser after two minutes rather than hang the test suite.
    let start = std::time::Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("chromium did not finish within 120 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let status = child.wait().unwrap();
    let stdout = String::from_utf8_lossy(&std::fs::read(&out_path).unwrap()).into_owned();
    let stderr = String::from_utf8_lossy(&std::fs::read(&err_path).unwrap()).into_owned();
    assert!(status.success(), "chromium failed: {status}\n{stderr}");
    stdout
}

fn attr<'a>(dom: &'a str, name: &str) -> Option<&'a str> {
    let at = dom.find(&format!("{name}=\""))? + name.len() + 2;
    dom[at..].split('"').next()
}

fn out_dir() -> (Option<tempfile::TempDir>, PathBuf) {
    match std::env::var_os("RECOMMEND_MAP_KEEP") {
        Some(d) => {
            std::fs::create_dir_all(&d).unwrap();
            (None, PathBuf::from(d))
        }
        None => {
            let t = tempfile::tempdir().unwrap();
            let p = t.path().to_path_buf();
            (Some(t), p)
        }
    }
}

/// Checks the page in `file` draws `n` points without errors and screenshots it to `png`.
fn check_page(bin: &Path, file: &Path, n: usize, png: &Path) {
    let dom = run_chromium(
        bin,
        file,
        &["--virtual-time-budget=5000".into(), "--dump-dom".into()],
    );
    assert!(
        dom.contains("id=\"map-root\""),
        "no map root in the DOM:\n{}",
        &dom[..dom.len().min(2000)]
    );
    assert_eq!(attr(&dom, "data-points"), Some(n.to_string().as_str()));
    assert_eq!(
        attr(&dom, "data-errors"),
        Some("0"),
        "script errors on the page"
    );
    assert_eq!(
        attr(&dom, "data-rendered-points"),
        Some(n.to_string().as_str()),
        "points drawn"
    );
    // The legend was built by the script.
    assert!(dom.contains("legend-list\"><li"), "legend not built");

    run_chromium(
        bin,
        file,
        &[
            "--virtual-time-budget=5000".into(),
            format!("--screenshot={}", png.display()),
        ],
    );
    let bytes = std::fs::read(png).expect("screenshot written");
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    let width = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
    let height = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
    assert_eq!((width, height), (1200, 900));
    // A blank 1200x900 page compresses to a few KB; a drawn map is far bigger.
    assert!(
        bytes.len() > 30_000,
        "screenshot looks empty ({} bytes)",
        bytes.len()
    );
}

#[test]
fn html_map_renders_in_chromium() {
    let bin = chromium();
    let (_keep, dir) = out_dir();
    let (data, v) = map_fixture::sample(150, true);
    let xy = layout(v.view());
    let page = dir.join("map.html");
    std::fs::write(&page, render_html(&data, &xy)).unwrap();
    check_page(&bin, &page, 150, &dir.join("map.png"));
    // The static SVG, for a look at the same map.
    std::fs::write(dir.join("map.svg"), render_svg(&data, &xy)).unwrap();
}

#[test]
fn html_map_with_tricky_text_renders_in_chromium() {
    let bin = chromium();
    let (_keep, dir) = out_dir();
    let (data, v) = map_fixture::tricky(80);
    let xy = layout(v.view());
    let page = dir.join("tricky.html");
    std::fs::write(&page, render_html(&data, &xy)).unwrap();
    check_page(&bin, &page, 80, &dir.join("tricky.png"));
    // No injected script ran and the title survived as text.
    let dom = run_chromium(
        &bin,
        &page,
        &["--virtual-time-budget=3000".into(), "--dump-dom".into()],
    );
    assert!(!dom.contains("<script>alert(1)</script>"));
    assert!(dom.contains("map a &lt; b &amp;&amp; c &gt;"));
}

#[test]
fn large_html_map_renders_in_chromium() {
    let bin = chromium();
    let (_keep, dir) = out_dir();
    let (data, xy) = map_fixture::sample_with_coords(5000);
    let page = dir.join("large.html");
    std::fs::write(&page, render_html(&data, &xy)).unwrap();
    check_page(&bin, &page, 5000, &dir.join("large.png"));
}
