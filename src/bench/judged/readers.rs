//! Two readers of the same seeds: how far they agree, and every system judged by each.

use std::collections::HashMap;

use serde::Serialize;

use super::{Grades, Judged, SeedRankings, top5_shares};

/// Related@5 and absurd@5 of one top 5 (or their means over seeds).
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Top5 {
    pub related_at_5: f64,
    pub absurd_at_5: f64,
}

/// One system's top 5 judged by each reader, and by the two together.
#[derive(Debug, Clone, Serialize)]
pub struct ReaderRow {
    pub system: String,
    pub first: Top5,
    pub second: Top5,
    /// Related when either reader grades it related; absurd only when neither lists it.
    pub either: Top5,
}

/// How two readers of the same seeds agree ([`reader_agreement`]).
#[derive(Debug, Clone, Serialize)]
pub struct ReaderAgreement {
    pub source: String,
    /// Seeds both readers judged.
    pub seeds: usize,
    /// Of the papers the second reader grades related (>= 1), the share the first lists at
    /// any grade; and the converse.
    pub second_listed_by_first: f64,
    pub first_listed_by_second: f64,
    /// The second reader's own top 5 (`"ranked"`), scored by the first reader's grades: what
    /// a careful reader of the same records reaches on this set (`None` without picks).
    pub reader_top5: Option<Top5>,
    /// Every system of [`like_systems`], judged by each reader and by both.
    pub systems: Vec<ReaderRow>,
}

/// [`ReaderAgreement`] of `judged` and its second reader, from every system's `rankings` of
/// `judged`'s seeds; `None` without a second reader, or when the two share no seed.
pub fn reader_agreement(rankings: &SeedRankings, judged: &Judged) -> Option<ReaderAgreement> {
    let second = judged.second.as_deref()?;
    let theirs: HashMap<usize, &Grades> = second.like.iter().map(|(s, g)| (*s, g)).collect();
    // (position in `judged.like`, seed, first reader's grades, second reader's)
    let both: Vec<(usize, usize, &Grades, &Grades)> = judged
        .like
        .iter()
        .enumerate()
        .filter_map(|(k, (s, g))| theirs.get(s).map(|t| (k, *s, g, *t)))
        .collect();
    if both.is_empty() {
        return None;
    }
    let n = both.len() as f64;
    // Of the papers one reader grades related, the share the other lists at any grade.
    let listed_share = |second_relates: bool| {
        let (mut listed, mut all) = (0usize, 0usize);
        for &(_, _, first, second) in &both {
            let (related_by, listed_by) = if second_relates {
                (second, first)
            } else {
                (first, second)
            };
            for (p, &g) in related_by {
                if g >= 1 {
                    all += 1;
                    listed += usize::from(listed_by.contains_key(p));
                }
            }
        }
        listed as f64 / all.max(1) as f64
    };
    // Each shared seed's grades by either reader: the higher of the two.
    let either: Vec<Grades> = both
        .iter()
        .map(|&(_, _, first, second)| {
            let mut u = first.clone();
            for (&p, &g) in second {
                let e = u.entry(p).or_insert(g);
                *e = (*e).max(g);
            }
            u
        })
        .collect();
    let mean = |scores: &[(f64, f64)]| Top5 {
        related_at_5: scores.iter().map(|s| s.0).sum::<f64>() / n,
        absurd_at_5: scores.iter().map(|s| s.1).sum::<f64>() / n,
    };
    let systems = rankings
        .iter()
        .map(|(name, ranked_seeds)| {
            let (mut a, mut b, mut u) = (Vec::new(), Vec::new(), Vec::new());
            for (&(k, _, first, second), grades) in both.iter().zip(&either) {
                let ranked = &ranked_seeds[k];
                a.push(top5_shares(ranked, first));
                b.push(top5_shares(ranked, second));
                u.push(top5_shares(ranked, grades));
            }
            ReaderRow {
                system: name.to_string(),
                first: mean(&a),
                second: mean(&b),
                either: mean(&u),
            }
        })
        .collect();
    let picks: Vec<(f64, f64)> = both
        .iter()
        .filter_map(|(_, seed, first, _)| second.ranked.get(seed).map(|r| top5_shares(r, first)))
        .collect();
    Some(ReaderAgreement {
        source: second.source.display().to_string(),
        seeds: both.len(),
        second_listed_by_first: listed_share(true),
        first_listed_by_second: listed_share(false),
        reader_top5: (picks.len() == both.len()).then(|| mean(&picks)),
        systems,
    })
}

#[cfg(test)]
mod tests {
    use super::super::{load, rank_seeds};
    use super::*;
    use crate::index::{Index, Searcher};

    #[test]
    fn two_readers_are_compared_on_the_seeds_both_judged() {
        let papers: Vec<crate::corpus::Paper> = ["a", "b", "c", "d", "e", "f"]
            .iter()
            .map(|id| serde_json::from_str(&format!(r#"{{"id":"{id}","title":"{id} paper"}}"#)))
            .collect::<Result<_, _>>()
            .unwrap();
        let index = Searcher::new(
            Index::build(papers, "papers.jsonl", "m", &mut |t| {
                Ok((0..t.len()).map(|i| vec![1.0, i as f32 / 10.0]).collect())
            })
            .unwrap(),
        );
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            load(&path, &index).unwrap()
        };
        // The first reader relates b and c to a; the second b and d, and picks b then d. Seed
        // f is judged by the first reader only and does not count.
        let mut first = write(
            "set.jsonl",
            "{\"task\":\"like\",\"seed\":\"a\",\"relevant\":{\"b\":2,\"c\":1}}\n\
             {\"task\":\"like\",\"seed\":\"f\",\"relevant\":{\"e\":2}}\n",
        );
        assert!(
            reader_agreement(&rank_seeds(&index, &first), &first).is_none(),
            "no second reader"
        );
        let second = write(
            "set-reader2.jsonl",
            "{\"task\":\"like\",\"seed\":\"a\",\"ranked\":[\"b\",\"d\"],\
             \"relevant\":{\"b\":2,\"d\":1}}\n",
        );
        assert_eq!(second.ranked[&0], vec![1, 3]);
        first.second = Some(Box::new(second));
        let r = reader_agreement(&rank_seeds(&index, &first), &first).unwrap();
        assert_eq!(r.seeds, 1);
        // Each lists one of the other's two related papers.
        assert_eq!(
            (r.second_listed_by_first, r.first_listed_by_second),
            (0.5, 0.5)
        );
        // The second reader's picks by the first's grades: b related, d unlisted (absurd).
        let picks = r.reader_top5.unwrap();
        assert_eq!((picks.related_at_5, picks.absurd_at_5), (0.2, 0.2));
        // By either reader, a paper is related when one grades it so and absurd only when
        // neither lists it: never more absurd than by one reader alone.
        for row in &r.systems {
            assert!(row.either.absurd_at_5 <= row.first.absurd_at_5, "{row:?}");
            assert!(row.either.absurd_at_5 <= row.second.absurd_at_5, "{row:?}");
            assert!(row.either.related_at_5 >= row.first.related_at_5.max(row.second.related_at_5));
        }
        // Bad reader lines say where: a ranked id that is unknown, or on a search item.
        let bad = dir.path().join("bad.jsonl");
        std::fs::write(
            &bad,
            "{\"task\":\"like\",\"seed\":\"a\",\"ranked\":[\"a\"],\"relevant\":{}}\n\
             {\"task\":\"search\",\"lang\":\"en\",\"query\":\"q\",\"ranked\":[\"b\"],\"relevant\":{}}\n",
        )
        .unwrap();
        let e = load(&bad, &index).unwrap_err();
        assert!(
            e.contains("bad.jsonl:1: the seed \"a\" ranks itself"),
            "{e}"
        );
        assert!(
            e.contains("bad.jsonl:2: only a \"like\" item can have \"ranked\""),
            "{e}"
        );
    }
}
