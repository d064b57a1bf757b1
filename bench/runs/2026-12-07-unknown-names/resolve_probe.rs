use recommend::engine::resolve::resolve_with_keys;
use std::time::Instant;
fn main() {
    let (papers, _) = recommend::bench::synthetic::corpus(100_000, 4, 316, 42);
    let keys: Vec<Vec<String>> = papers.iter().map(|p| p.name_keys()).collect();
    for q in [
        "deep research agent with tool calls",
        "Serch-R1 retrival",
        "syn-9999999",
    ] {
        let _ = resolve_with_keys(&papers, Some(&keys), q);
        let t = Instant::now();
        for _ in 0..10 {
            let _ = resolve_with_keys(&papers, Some(&keys), q);
        }
        println!("{q}: {:?}", t.elapsed() / 10);
    }
}
