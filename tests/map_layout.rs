//! The layout at corpus sizes: determinism, range, neighbourhoods, and (with
//! `cargo test --release --test tests -- --ignored --nocapture map_layout::`) timing.

use crate::support::map_fixture;

use map_fixture::clustered_vectors;
use recommend::map::layout;
use std::time::Instant;

fn check(n: usize) -> f64 {
    let (v, group) = clustered_vectors(n, 9, 384, 3);
    let t = Instant::now();
    let xy = layout(v.view());
    let secs = t.elapsed().as_secs_f64();
    assert_eq!(xy.len(), n);
    assert!(
        xy.iter()
            .all(|p| p.iter().all(|c| c.is_finite() && (0.0..=1.0).contains(c)))
    );
    // Most points' nearest neighbour in the picture is from the same group.
    let d = |a: [f32; 2], b: [f32; 2]| (a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2);
    let step = (n / 300).max(1);
    let sampled: Vec<usize> = (0..n).step_by(step).collect();
    let same = sampled
        .iter()
        .filter(|&&i| {
            let j = (0..n)
                .filter(|&j| j != i)
                .min_by(|&a, &b| d(xy[i], xy[a]).total_cmp(&d(xy[i], xy[b])))
                .unwrap();
            group[i] == group[j]
        })
        .count();
    assert!(
        same * 10 >= sampled.len() * 9,
        "{same}/{} same-group nearest neighbours",
        sampled.len()
    );
    secs
}

#[test]
fn corpus_sized_layout() {
    check(150);
}

#[test]
#[ignore = "timing; run in release"]
fn layout_timing() {
    for n in [150, 1000, 5000] {
        let secs = check(n);
        println!("layout of {n} x 384: {:.3} s", secs);
    }
    // Same bytes twice at scale.
    let (v, _) = clustered_vectors(2000, 9, 384, 3);
    assert_eq!(layout(v.view()), layout(v.view()));
}
