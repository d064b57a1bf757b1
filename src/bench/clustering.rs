//! Topic clusters against the corpus's topic labels: ours and the baselines at the same k.

use super::{BenchError, ClusterScore, Clusters, tfidf};
use crate::engine::topics;
use crate::index::Searcher;

/// Topic clusters against the labels: ours (graph communities, `k` topics or the automatic
/// number), then TF-IDF k-means and dense (e5) k-means at the same k; with the largest
/// cluster's size over the median size (a catch-all shows as a large ratio).
pub fn clusters(index: &Searcher, k: Option<usize>) -> Result<Option<Clusters>, BenchError> {
    let ours = crate::engine::communities::cluster(index, k)?;
    let Some(agree) = topics::agreement(&ours, index.papers()) else {
        return Ok(None);
    };
    let gold = topics::gold_labels(index.papers());
    let score = |method: &str, labels: &[usize]| -> ClusterScore {
        let (g, b): (Vec<usize>, Vec<usize>) = gold
            .iter()
            .zip(labels)
            .filter_map(|(g, b)| g.map(|g| (g, *b)))
            .unzip();
        ClusterScore {
            method: method.into(),
            k: agree.k,
            nmi: topics::nmi(&g, &b),
            ari: topics::ari(&g, &b),
            largest_over_median: size_ratio(labels),
        }
    };
    let mut ours_labels = vec![0usize; index.len()];
    for t in &ours {
        for id in &t.papers {
            if let Some(i) = index
                .table()
                .named(&crate::text::name_key(id))
                .into_iter()
                .find(|&i| index.table().id(i) == *id)
            {
                ours_labels[i] = t.id;
            }
        }
    }
    let dense = topics::kmeans_labels(index.vectors(), agree.k);
    let tfidf = tfidf::kmeans_baseline(index.papers(), agree.k);
    Ok(Some(Clusters {
        labels: agree.labels,
        papers: agree.papers,
        results: vec![
            score(
                if k.is_some() {
                    "ours (related-work graph, spectral, given k)"
                } else {
                    "ours (related-work graph, spectral, auto k)"
                },
                &ours_labels,
            ),
            score("tfidf k-means", &tfidf),
            score("dense e5 k-means", &dense),
        ],
    }))
}

/// Largest cluster size over the median cluster size.
pub fn size_ratio(labels: &[usize]) -> f64 {
    let k = labels.iter().max().map_or(0, |m| m + 1);
    let mut sizes = vec![0usize; k];
    for &l in labels {
        sizes[l] += 1;
    }
    sizes.retain(|&s| s > 0);
    sizes.sort_unstable();
    if sizes.is_empty() {
        return 0.0;
    }
    let mid = sizes.len() / 2;
    let median = if sizes.len() % 2 == 1 {
        sizes[mid] as f64
    } else {
        (sizes[mid - 1] + sizes[mid]) as f64 / 2.0
    };
    *sizes.last().expect("not empty") as f64 / median
}
