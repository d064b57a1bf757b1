//! Offline: does the peakedness of a query's cosines (best minus mean, over the std) tell
//! off-topic queries from judged ones on lists of titles and notes?
use recommend::index::{Index, Searcher};
use recommend::model::{self, Embedder, EmbedderOptions, Role};
use std::path::Path;

fn stats(sims: &[f32], skip: Option<usize>) -> (f32, f32) {
    let v: Vec<f32> = sims.iter().enumerate().filter(|(i, _)| Some(*i) != skip).map(|(_, s)| *s).collect();
    let n = v.len() as f32;
    let mean = v.iter().sum::<f32>() / n;
    let sd = (v.iter().map(|x| (x - mean).powi(2)).sum::<f32>() / n).sqrt();
    let best = v.iter().cloned().fold(f32::MIN, f32::max);
    (best, (best - mean) / sd)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let index = Searcher::new(Index::load(Path::new(&args[1])).unwrap());
    let files = model::ensure_installed(&model::default_model_dir()).unwrap();
    let e = Embedder::load(&files, EmbedderOptions::default()).unwrap();
    // reference: each paper's title as a query, against the others
    for i in 0..index.len() {
        let p = index.paper(i);
        let v = e.embed_one(&p.title, Role::Query).unwrap();
        let (b, z) = stats(&index.similarities(&v), Some(i));
        println!("ref\t{b:.4}\t{z:.3}\t{}", p.title.replace('\t', " "));
    }
    for f in &args[2..] {
        for line in std::fs::read_to_string(f).unwrap().lines() {
            let (kind, q) = line.split_once('\t').unwrap();
            let v = e.embed_one(q, Role::Query).unwrap();
            let (b, z) = stats(&index.similarities(&v), None);
            println!("{kind}\t{b:.4}\t{z:.3}\t{q}");
        }
    }
}
