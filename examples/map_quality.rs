//! How well a map keeps neighbours together: for a sample of papers, the share of each
//! paper's 10 nearest papers (exact cosine over the index's vectors) that are among its 10
//! nearest points on the map.
//!
//! ```text
//! target/release/recommend --index /tmp/syn/10k/index.bin map --out /tmp/m.html
//! cargo run --release --example map_quality -- /tmp/syn/10k/index.bin /tmp/m.html
//! ```
//!
//! Reads the points from the page's data (`"x":..,"y":..` in paper order, 4 decimals). A
//! random layout scores about 10/n; the exact neighbours as the layout's 10 nearest, 1.0.

use std::path::Path;

use anyhow::{Context, Result, bail};
use recommend::index::Index;

/// Neighbours compared per paper.
const K: usize = 10;
/// Papers sampled (evenly spaced).
const SAMPLE: usize = 1000;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [index, html] = args.as_slice() else {
        bail!("usage: map_quality INDEX MAP_HTML");
    };
    let index = Index::load(Path::new(index)).context("cannot load the index")?;
    let page = std::fs::read_to_string(html).context("cannot read the map")?;
    let xy = points(&page);
    let n = index.len();
    if xy.len() != n {
        bail!("{} points on the map, {n} papers in the index", xy.len());
    }
    let step = n.div_ceil(SAMPLE).max(1);
    let sample: Vec<usize> = (0..n).step_by(step).collect();
    let shares: Vec<f64> = sample
        .iter()
        .map(|&i| {
            let v = index.vector(i);
            let cos: Vec<(usize, f32)> = (0..n)
                .filter(|&j| j != i)
                .map(|j| (j, v.dot(&index.vector(j))))
                .collect();
            let near = top(cos, |a, b| b.1.total_cmp(&a.1));
            let d2: Vec<(usize, f32)> = (0..n)
                .filter(|&j| j != i)
                .map(|j| {
                    (
                        j,
                        (xy[i][0] - xy[j][0]).powi(2) + (xy[i][1] - xy[j][1]).powi(2),
                    )
                })
                .collect();
            let close = top(d2, |a, b| a.1.total_cmp(&b.1));
            near.iter().filter(|j| close.contains(j)).count() as f64 / K as f64
        })
        .collect();
    let mean = shares.iter().sum::<f64>() / shares.len() as f64;
    println!(
        "{} papers, {} sampled: share of the {K} nearest papers among the {K} nearest points: {mean:.4}",
        n,
        sample.len()
    );
    Ok(())
}

/// The first `K` indices of `v` in `order`.
fn top(
    mut v: Vec<(usize, f32)>,
    order: impl Fn(&(usize, f32), &(usize, f32)) -> std::cmp::Ordering,
) -> Vec<usize> {
    v.sort_by(|a, b| order(a, b).then(a.0.cmp(&b.0)));
    v.into_iter().take(K).map(|(j, _)| j).collect()
}

/// The `"x":X,"y":Y` pairs of the page, in order.
fn points(page: &str) -> Vec<[f32; 2]> {
    let mut out = Vec::new();
    let mut rest = page;
    while let Some(at) = rest.find("\"x\":") {
        rest = &rest[at + 4..];
        let x = number(rest);
        let Some(at) = rest.find("\"y\":") else { break };
        rest = &rest[at + 4..];
        let y = number(rest);
        if let (Some(x), Some(y)) = (x, y) {
            out.push([x, y]);
        }
    }
    out
}

fn number(s: &str) -> Option<f32> {
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == 'e'))
        .unwrap_or(s.len());
    s[..end].parse().ok()
}
