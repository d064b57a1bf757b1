//! The feed's ranking on the sizes its issue names: 1,000 candidates against a 5,000-paper
//! library of 70 interests (synthetic clustered 384-d vectors, `recommend::bench::synthetic`),
//! after embedding: what `recommend feed` spends between the vectors and the output. Criterion
//! times the lexical side as the feed computes it (`feed::lexical_similarities` over the
//! library's own lexical index, built beforehand as `index.bin` holds it: only the candidates
//! are analysed) and the library's scales (its own sampled papers through the same index and
//! scored against it, once per feed), beside the way the lexical side was first computed (a TF-IDF index over library and
//! candidates together, every candidate against every paper); then `feed::rank_with` with it,
//! without ratings, with a Rocchio profile of 10 ratings, with the linear model and with the
//! nearest rated neighbours (the default learner), and the
//! dense-only `feed::rank` as the ablation; the one-interest mean profile (the mean cosine
//! zotero-arxiv-daily ranks by) runs beside them as the yardstick.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use recommend::bench::synthetic;
use recommend::feed::{
    Feedback, Interest, Learner, Library, lexical_similarities, rank, rank_with,
};
use recommend::index::LexicalData;
use recommend::util::vector::dot;

const LIBRARY: usize = 5_000;
const CANDIDATES: usize = 1_000;
const INTERESTS: usize = 70;

fn bench(c: &mut Criterion) {
    let (papers, vectors) = synthetic::corpus(LIBRARY + CANDIDATES, 384, INTERESTS, 7);
    let (library, candidates) = vectors.split_at(LIBRARY);
    let (library_papers, candidate_papers) = papers.split_at(LIBRARY);
    let candidate_refs: Vec<_> = candidate_papers.iter().collect();
    let refs: Vec<&[f32]> = library.iter().map(Vec::as_slice).collect();
    let mut centroid = vec![0.0f32; 384];
    for v in library {
        centroid
            .iter_mut()
            .zip(v)
            .for_each(|(c, x)| *c += x / LIBRARY as f32);
    }
    let interests: Vec<Interest> = (0..INTERESTS)
        .map(|k| Interest {
            name: format!("interest {k}"),
            members: (k..LIBRARY).step_by(INTERESTS).collect(),
        })
        .collect();
    let library_index = LexicalData::build(library_papers);
    // The library's own lexical side, which sets the feed's scales (`Library::of_index`).
    let calibrated = |lib: Library| {
        let sample: Vec<_> = lib
            .calibration_papers()
            .iter()
            .map(|&i| &library_papers[i])
            .collect();
        let own = lexical_similarities(library_index.view(), &sample);
        lib.with_lexical(own)
    };
    let lib = calibrated(Library::new(&refs, &centroid, interests.clone()));
    let cands: Vec<Vec<f32>> = candidates.iter().map(|v| lib.center(v)).collect();
    let feedback = Feedback {
        up: cands[..5].to_vec(),
        down: cands[5..10].to_vec(),
        dropped: Vec::new(),
    };
    let mut g = c.benchmark_group("feed 1000 candidates x 5000 papers");
    g.sample_size(20);
    g.bench_function(
        "library: built, its scales from 256 of its papers (own index, scored against it)",
        |b| {
            b.iter(|| {
                black_box(calibrated(Library::new(
                    &refs,
                    &centroid,
                    interests.clone(),
                )))
            })
        },
    );
    g.bench_function(
        "lexical side: candidates through the library's index",
        |b| b.iter(|| black_box(lexical_similarities(library_index.view(), &candidate_refs))),
    );
    g.bench_function(
        "before: TF-IDF index over library + candidates, every pair",
        |b| {
            b.iter(|| {
                let mut all = library_papers.to_vec();
                all.extend(candidate_papers.iter().cloned());
                let data = LexicalData::build(&all);
                let view = data.view();
                let rows: Vec<Vec<f32>> = (LIBRARY..LIBRARY + CANDIDATES)
                    .map(|j| view.similar_to(j)[..LIBRARY].to_vec())
                    .collect();
                black_box(rows)
            })
        },
    );
    let lexical = lexical_similarities(library_index.view(), &candidate_refs);
    let ranked = |feedback: &Feedback, learner| {
        black_box(rank_with(&lib, &cands, Some(&lexical), feedback, learner))
    };
    g.bench_function("rank, no ratings", |b| {
        b.iter(|| ranked(&Feedback::default(), Learner::None))
    });
    g.bench_function("rank, Rocchio over 10 ratings", |b| {
        b.iter(|| ranked(&feedback, Learner::Rocchio))
    });
    g.bench_function("rank, linear model over 10 ratings", |b| {
        b.iter(|| ranked(&feedback, Learner::Linear))
    });
    g.bench_function(
        "rank, nearest rated neighbours over 10 ratings (default)",
        |b| b.iter(|| ranked(&feedback, Learner::Neighbours)),
    );
    g.bench_function("ablation: rank, dense only, no ratings", |b| {
        b.iter(|| black_box(rank(&lib, &cands, &Feedback::default(), Learner::None)))
    });
    let mean: Vec<f32> = {
        let mut m = vec![0.0f32; 384];
        for v in library {
            m.iter_mut()
                .zip(v)
                .for_each(|(a, x)| *a += x / LIBRARY as f32);
        }
        m
    };
    g.bench_function("baseline: mean cosine to the library", |b| {
        b.iter(|| {
            let mut s: Vec<(usize, f32)> = candidates
                .iter()
                .enumerate()
                .map(|(i, v)| (i, dot(&mean, v)))
                .collect();
            s.sort_by(|a, b| b.1.total_cmp(&a.1));
            black_box(s)
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
