//! The feed: papers that are not in a library, ranked by how well they serve it.
//!
//! A library holds several interests (its sections, collections or topics), so a candidate is
//! scored against each interest on its own and keeps the best: the mean of one profile would sit
//! between the interests and favour papers that serve none of them well. Against one interest a
//! candidate scores the mean of its three closest papers there (centred cosine of the passage
//! vectors, as `--like` compares papers: every paper of one field is close to every other in raw
//! e5 space), plus, beside it, the mean of its three highest TF-IDF cosines there (the engine's
//! own analyzer, [`lexical_similarities`]) rescaled to the dense scores' spread: a new paper
//! that names the interest's methods is closer than its embedding alone says. On the time split
//! (BENCHMARKS.md, The feed) the lexical side lifts precision@10 on every list: 0.500 -> 0.507,
//! 0.527 -> 0.573, 0.500 -> 0.640. Ratings the reader gave are evidence on top: by
//! default the closeness to the nearest paper rated up, and a pull down only where a paper rated
//! down is closer than anything kept or liked ([`Learner::Neighbours`]); or a profile of the
//! papers rated up minus those rated down ([`Learner::Rocchio`]), or a linear model over the
//! same signals fitted to the ratings ([`Learner::Linear`], arxiv-sanity's idea over this
//! engine's signals).
//!
//! Like the engine, this module never loads the model and never prints: callers hand it
//! vectors, and the time-split benchmark (`bench::feed`) runs the very same [`rank`].

mod calibration;
pub mod candidates;
pub mod home;
pub mod inbox;
mod learners;
mod nearest;
pub mod rating;
pub mod records;
pub mod state;

use serde::Serialize;

use crate::corpus::Paper;
use crate::index::Lexical;
use crate::util::vector::dot;
use learners::{Linear, Neighbours};
pub use learners::{NEIGHBOUR_DOWN, NEIGHBOUR_UP};
use nearest::{Nearest, PerInterest, per_interest};

/// Papers of an interest a candidate is compared with: the mean of its closest this many.
pub const NEAREST: usize = 3;

/// One interest of a library: a name and the library papers (row positions) it holds.
#[derive(Debug, Clone, Serialize)]
pub struct Interest {
    pub name: String,
    pub members: Vec<usize>,
}

/// The library as the feed reads it: each paper's vector centred on the field's centroid and
/// normalized, and the interests.
#[derive(Debug, Clone)]
pub struct Library {
    /// One row per paper (papers x dim): the candidates' cosines with every paper are one
    /// matrix product (1,000 candidates x 5,000 papers: benches/feed.rs).
    rows: ndarray::Array2<f32>,
    centroid: Vec<f32>,
    pub interests: Vec<Interest>,
    /// Every (paper, interest) membership, by paper: a candidate's scores are read in the
    /// order they lie in memory, not interest by interest (in `per_interest`: 43% of
    /// `rank_with`'s time when it read them by interest, benches/feed.rs).
    memberships: Vec<(usize, usize)>,
    /// The papers whose own scores set the feed's scales ([`calibration`]), ascending.
    sample: Vec<usize>,
    /// Their lexical similarities with every library paper (sample x papers), once given
    /// ([`Library::with_lexical`]): without them the lexical side is not used.
    own_lexical: Option<ndarray::Array2<f32>>,
    /// The lexical side's `(scale, offset)` ([`calibration::lexical_scale`]).
    lexical_scale: (f32, f32),
    /// The library the scales are read from, when not this one ([`Library::within`]).
    whole: Option<std::sync::Arc<Library>>,
}

/// `v - centroid`, normalized (zero when `v` is the centroid).
fn centred(v: &[f32], centroid: &[f32]) -> Vec<f32> {
    let mut out: Vec<f32> = v.iter().zip(centroid).map(|(a, c)| a - c).collect();
    let n = dot(&out, &out).sqrt();
    if n > 1e-12 {
        out.iter_mut().for_each(|x| *x /= n);
    }
    out
}

impl Library {
    /// A library of `vectors` (one per paper, all of one model), centred on `centroid` (the
    /// field's mean vector: the whole index's, so that a library of one topic keeps it), with
    /// `interests` over the rows. Interests without members are dropped.
    pub fn new(vectors: &[&[f32]], centroid: &[f32], interests: Vec<Interest>) -> Library {
        let dim = centroid.len();
        let mut rows = ndarray::Array2::<f32>::zeros((vectors.len(), dim));
        for (mut row, v) in rows.rows_mut().into_iter().zip(vectors) {
            let c = centred(v, centroid);
            if c.len() == dim {
                row.assign(&ndarray::ArrayView1::from(&c[..]));
            }
        }
        let interests = interests
            .into_iter()
            .map(|mut i| {
                i.members.retain(|&m| m < vectors.len());
                i
            })
            .filter(|i| !i.members.is_empty())
            .collect::<Vec<Interest>>();
        let mut memberships: Vec<(usize, usize)> = interests
            .iter()
            .enumerate()
            .flat_map(|(k, i)| i.members.iter().map(move |&m| (m, k)))
            .collect();
        memberships.sort_unstable();
        Library {
            sample: calibration::sample(rows.nrows()),
            rows,
            centroid: centroid.to_vec(),
            interests,
            memberships,
            own_lexical: None,
            lexical_scale: (0.0, 0.0),
            whole: None,
        }
    }

    /// The library papers whose own scores set the feed's scales: all of them, or an even
    /// sample of [`calibration::SAMPLE`] (row positions, ascending).
    pub fn calibration_papers(&self) -> &[usize] {
        &self.sample
    }

    /// This library with a lexical side: `own` holds the TF-IDF cosines of its
    /// [`Self::calibration_papers`] with every library paper (sample x papers, as
    /// [`lexical_similarities`] gives them), which put the candidates' lexical scores on an
    /// absolute scale. A matrix of another shape is ignored.
    pub fn with_lexical(mut self, own: ndarray::Array2<f32>) -> Library {
        if own.dim() == (self.sample.len(), self.len()) {
            self.own_lexical = Some(own.as_standard_layout().into_owned());
            let none = Feedback::default();
            let (own, _) = calibration::own(&self, true, &|_| Vec::new(), &none);
            self.lexical_scale = calibration::lexical_scale(&own);
        }
        self
    }

    /// The lexical side's `(scale, offset)`: a candidate's lexical score `l` adds
    /// `scale * (l - offset)` to its dense one.
    pub fn lexical_scale(&self) -> (f32, f32) {
        self.measured().lexical_scale
    }

    /// The library whose papers set the scales: the whole this one is part of, else itself.
    fn measured(&self) -> &Library {
        self.whole.as_deref().unwrap_or(self)
    }

    /// This library as part of `whole` (a reader's few sections of a larger index): every scale
    /// is read from the whole, as `recommend feed` reads it from the whole `index.bin`; 3 to 17
    /// papers give a lexical scale anywhere from 1.1 to 15 (`bench/runs/2026-12-07-feed-absolute-scores/`).
    pub fn within(mut self, whole: std::sync::Arc<Library>) -> Library {
        self.whole = Some(whole);
        self
    }

    /// The whole index as a library: its papers, centred on their own mean, with its interests
    /// ([`candidates::interests`]) and its lexical side (the index's own lexical data).
    pub fn of_index(index: &crate::index::Searcher) -> Library {
        let n = index.len().max(1) as f32;
        let mut centroid = vec![0.0f32; index.dim()];
        for i in 0..index.len() {
            for (c, x) in centroid.iter_mut().zip(index.vector(i).iter()) {
                *c += x / n;
            }
        }
        let vectors: Vec<Vec<f32>> = (0..index.len()).map(|i| index.vector(i).to_vec()).collect();
        let refs: Vec<&[f32]> = vectors.iter().map(Vec::as_slice).collect();
        let library = Library::new(&refs, &centroid, candidates::interests(index));
        let papers: Vec<&Paper> = library.sample.iter().map(|&i| &index.papers()[i]).collect();
        let own = lexical_similarities(index.lexical(), &papers);
        library.with_lexical(own)
    }

    /// The library's papers.
    pub fn len(&self) -> usize {
        self.rows.nrows()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.nrows() == 0
    }

    /// A candidate's vector as the library compares it.
    pub fn center(&self, v: &[f32]) -> Vec<f32> {
        centred(v, &self.centroid)
    }
}

/// The lexical side of [`rank_with`]: each candidate's TF-IDF cosine with each paper of
/// `library` (the library's own lexical index, `index.bin`: candidates x papers). Only the
/// candidates are analysed, by the engine's analyzer and with the library's document
/// frequencies ([`Lexical::vector_of`]), and each is scored through the postings of its own
/// terms: 1,000 candidates against 5,000 papers in 45 ms, where re-indexing library and
/// candidates together takes 431 ms (benches/feed.rs, BENCHMARKS.md, The feed). A library too
/// small to weigh a field's words by (a reader's 5-17 papers on average on the time split)
/// makes the side noise: precision@10 fell below the dense-only ranking on two lists there.
pub fn lexical_similarities(library: Lexical<'_>, candidates: &[&Paper]) -> ndarray::Array2<f32> {
    let n = library.len();
    let mut m = ndarray::Array2::<f32>::zeros((candidates.len(), n));
    if let Some(all) = m.as_slice_mut()
        && n > 0
    {
        // Rows are independent, so they are computed on every core.
        use rayon::prelude::*;
        all.par_chunks_mut(n)
            .zip(candidates.par_iter())
            .for_each(|(row, p)| library.similar_to_paper(p, row));
    }
    m
}

/// How ratings change the ranking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Learner {
    /// Ratings are ignored.
    None,
    /// A profile: the mean of the papers rated up minus the mean of those rated down (Rocchio);
    /// its cosine is added to the score.
    Rocchio,
    /// A logistic model over (interest score, closest up, closest down), fitted to the ratings.
    Linear,
    /// Seeds: a paper rated up joins the interest it serves best as one more library paper; a
    /// paper rated down pulls the candidates close to it down, as `--unlike` does.
    Seeds,
    /// Nearest rated neighbours: a candidate rises with its closeness to the nearest paper rated
    /// up, and falls only where a paper rated down is closer to it than any library paper or
    /// paper rated up ([`NEIGHBOUR_UP`], [`NEIGHBOUR_DOWN`]). A reader rates down what the feed
    /// put on top, papers that sit beside the library: plain closeness to them also pulls down
    /// the relevant papers around them (on the time split, up 0.5 and down 0.5 standard
    /// deviations: 0.284 over 56 readers; up alone 0.291; BENCHMARKS.md, The feed).
    Neighbours,
}

impl Learner {
    /// What `recommend feed` and the Inbox use unless told otherwise: on the time split (BENCHMARKS.md,
    /// The feed) the one whose gain over no ratings is largest, without costing any list.
    pub const DEFAULT: Learner = Learner::Neighbours;
}

/// What the reader said: centred vectors of papers rated up and down.
#[derive(Debug, Clone, Default)]
pub struct Feedback {
    pub up: Vec<Vec<f32>>,
    pub down: Vec<Vec<f32>>,
    /// Library papers rated down, ascending: they leave their interests. Else a paper rated
    /// down stays the nearest library paper to everything like it, and the pull of
    /// [`Learner::Neighbours`] (only where a down is closer than any library paper) is nil.
    pub dropped: Vec<usize>,
}

impl Feedback {
    /// The ratings of `state` as evidence against `library`, the library of `index`
    /// ([`Library::of_index`]); a rating keyed as a library paper is keyed
    /// ([`candidates::key`]) names that paper.
    pub fn of(index: &crate::index::Searcher, library: &Library, state: &state::State) -> Feedback {
        let mut feedback = Feedback::default();
        let rated_down: std::collections::HashSet<&str> = state
            .ratings
            .iter()
            .filter(|(_, r)| r.verdict == state::Verdict::Down)
            .map(|(k, _)| k.as_str())
            .collect();
        for r in state.ratings.values() {
            let v = library.center(&r.vector);
            match r.verdict {
                state::Verdict::Up => feedback.up.push(v),
                state::Verdict::Down => feedback.down.push(v),
            }
        }
        if !rated_down.is_empty() {
            feedback.dropped = (0..index.len())
                .filter(|&i| rated_down.contains(candidates::key(&index.papers()[i]).as_str()))
                .collect();
        }
        feedback
    }

    pub fn is_empty(&self) -> bool {
        self.up.is_empty() && self.down.is_empty()
    }
}

/// One candidate's standing.
#[derive(Debug, Clone, Serialize)]
pub struct Scored {
    /// Position in the candidates given to [`rank`].
    pub candidate: usize,
    pub score: f32,
    /// The interest served best (an index into [`Library::interests`]).
    pub interest: usize,
    /// The library papers of that interest closest to the candidate, closest first.
    pub near: Vec<(usize, f32)>,
    /// The interest score (dense and lexical) before the ratings' profile or pull; with
    /// [`Learner::Seeds`] the papers rated up count among the interest's papers in it.
    pub base: f32,
}

/// The signals one candidate has: its best interest, that interest's score and nearest papers,
/// and its closeness to the rated papers.
struct Signals {
    interest: usize,
    base: f32,
    near: Vec<(usize, f32)>,
    up: f32,
    down: f32,
}

fn closest(rows: &[Vec<f32>], v: &[f32]) -> f32 {
    rows.iter().map(|r| dot(r, v)).fold(0.0f32, f32::max)
}

/// Picks each candidate's best interest: the dense score plus, with a lexical side, the lexical
/// one as `scale * (lexical - offset)` ([`calibration::lexical_scale`]: in units of the dense
/// scores' spread over the library's own papers), as the engine fuses its signals on one scale.
fn choose(
    all: Vec<PerInterest>,
    (scale, offset): (f32, f32),
    feedback: &Feedback,
    cands: &[Vec<f32>],
) -> Vec<Signals> {
    all.into_iter()
        .zip(cands)
        .map(|(p, v)| {
            let mut best: Option<(usize, f32)> = None;
            for (k, d) in p.dense.iter().enumerate() {
                let l = p.lexical.get(k).map_or(0.0, |l| scale * (l - offset));
                let s = d.score() + l;
                if best.is_none_or(|b| s > b.1) {
                    best = Some((k, s));
                }
            }
            let (interest, base) = best.unwrap_or((0, 0.0));
            let near = p
                .dense
                .get(interest)
                .map(Nearest::papers)
                .unwrap_or_default();
            Signals {
                interest,
                base,
                near,
                up: closest(&feedback.up, v),
                down: closest(&feedback.down, v),
            }
        })
        .collect()
}

/// The signals of a candidate whose cosines with the library's papers are `sims` (dense only).
fn signals(library: &Library, v: &[f32], sims: &[f32], feedback: &Feedback) -> Signals {
    let p = per_interest(library, (sims, &[]), &[], &[]);
    choose(
        vec![p],
        (0.0, 0.0),
        feedback,
        std::slice::from_ref(&v.to_vec()),
    )
    .pop()
    .unwrap_or(Signals {
        interest: 0,
        base: 0.0,
        near: Vec::new(),
        up: 0.0,
        down: 0.0,
    })
}

/// Candidates per matrix product: a block's cosines with 5,000 papers hold 5 MB.
const BLOCK: usize = 256;

/// Cosines of `block` (centred candidate vectors) with every library paper (block x papers).
fn similarities(library: &Library, block: &[Vec<f32>]) -> ndarray::Array2<f32> {
    let dim = library.rows.ncols();
    let mut m = ndarray::Array2::<f32>::zeros((block.len(), dim));
    for (mut row, v) in m.rows_mut().into_iter().zip(block) {
        if v.len() == dim {
            row.assign(&ndarray::ArrayView1::from(&v[..]));
        }
    }
    m.dot(&library.rows.t())
}

/// Weight of the Rocchio profile's cosine beside the interest score.
const ROCCHIO_WEIGHT: f32 = 0.5;

/// How much the closest paper rated down pulls a candidate down ([`Learner::Seeds`]), as the
/// engine weighs `--unlike`.
const UNLIKE_WEIGHT: f32 = 0.7;

/// Weight of the lexical score, in units of the dense scores' spread.
const LEXICAL_WEIGHT: f32 = 1.0;

/// The candidates (centred vectors, [`Library::center`]) ranked best first, ties by position,
/// on the dense signal alone.
pub fn rank(
    library: &Library,
    candidates: &[Vec<f32>],
    feedback: &Feedback,
    learner: Learner,
) -> Vec<Scored> {
    rank_with(library, candidates, None, feedback, learner)
}

/// [`rank`] with a lexical side: `lexical` holds each candidate's TF-IDF cosine with each
/// library paper (candidates x papers), fused with the dense score per interest.
pub fn rank_with(
    library: &Library,
    candidates: &[Vec<f32>],
    lexical: Option<&ndarray::Array2<f32>>,
    feedback: &Feedback,
    learner: Learner,
) -> Vec<Scored> {
    use rayon::prelude::*;
    // Rows are read as slices: a matrix in another layout (a column selection) is copied once.
    let lexical = lexical
        .filter(|l| l.nrows() == candidates.len() && l.ncols() == library.len())
        .map(|l| l.as_standard_layout());
    let seeding = learner == Learner::Seeds && !feedback.up.is_empty();
    // Each paper rated up joins the interest it serves best.
    let up_interest: Vec<usize> = if seeding {
        let sims = similarities(library, &feedback.up);
        feedback
            .up
            .iter()
            .zip(sims.rows())
            .map(|(u, s)| {
                signals(
                    library,
                    u,
                    s.as_slice().unwrap_or(&[]),
                    &Feedback::default(),
                )
                .interest
            })
            .collect()
    } else {
        Vec::new()
    };
    let measured = library.measured().own_lexical.is_some();
    let lexical = lexical.filter(|_| measured);
    // The papers rated up that serve each interest, as cosines with `v` (empty without seeds).
    let seeds_of = |v: &[f32]| -> Vec<Vec<f32>> {
        let mut seeds = Vec::new();
        if !up_interest.is_empty() {
            seeds = vec![Vec::new(); library.interests.len()];
            for (u, &k) in feedback.up.iter().zip(&up_interest) {
                seeds[k].push(dot(u, v));
            }
        }
        seeds
    };
    let per: Vec<PerInterest> = candidates
        .par_chunks(BLOCK)
        .enumerate()
        .flat_map_iter(|(b, block)| {
            let sims = similarities(library, block);
            block
                .iter()
                .zip(sims.rows())
                .enumerate()
                .map(|(j, (v, s))| {
                    let c = b * BLOCK + j;
                    let lex = lexical
                        .as_ref()
                        .and_then(|l| l.row(c).to_slice())
                        .unwrap_or(&[]);
                    per_interest(
                        library,
                        (s.as_slice().unwrap_or(&[]), lex),
                        &seeds_of(v),
                        &feedback.dropped,
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect();
    // Every scale is read from the library's own papers, never from the candidates: a paper
    // scores the same alone as among a day's listing, so `--min-score` is one threshold.
    let scale = if lexical.is_some() {
        library.lexical_scale()
    } else {
        (0.0, 0.0)
    };
    let all = choose(per, scale, feedback, candidates);
    let learner = if feedback.is_empty() {
        Learner::None
    } else {
        learner
    };
    let profile: Vec<f32> = match learner {
        Learner::Rocchio => {
            let mut p = vec![0.0f32; candidates.first().map_or(0, Vec::len)];
            for (rows, sign) in [(&feedback.up, 1.0f32), (&feedback.down, -1.0f32)] {
                for r in rows.iter() {
                    for (a, x) in p.iter_mut().zip(r) {
                        *a += sign * x / rows.len() as f32;
                    }
                }
            }
            let n = dot(&p, &p).sqrt().max(1e-12);
            p.iter().map(|x| x / n).collect()
        }
        _ => Vec::new(),
    };
    let linear = (learner == Learner::Linear).then(|| {
        let mut examples = Vec::new();
        for (rows, y) in [(&feedback.up, 1.0f32), (&feedback.down, 0.0f32)] {
            for r in rows.iter() {
                // A rated paper's own closeness to the ratings leaves itself out.
                let mut without = feedback.clone();
                let own = if y > 0.5 {
                    &mut without.up
                } else {
                    &mut without.down
                };
                if let Some(at) = own.iter().position(|x| x == r) {
                    own.remove(at);
                }
                let sims = similarities(library, std::slice::from_ref(r));
                let s = signals(library, r, sims.row(0).as_slice().unwrap_or(&[]), &without);
                examples.push(([s.base, s.up, s.down], y));
            }
        }
        Linear::fit(&examples)
    });
    // The spreads the rated neighbours weigh their evidence by: the library's own papers
    // scored as candidates, with the same ratings.
    let neighbours = (learner == Learner::Neighbours).then(|| {
        let (own, own_rows) = match &library.whole {
            None => calibration::own(library, lexical.is_some(), &seeds_of, feedback),
            // The whole's papers, with none of them left out and no seeds: both name this
            // library's rows and interests.
            Some(whole) => {
                let ratings = Feedback {
                    up: feedback.up.clone(),
                    down: feedback.down.clone(),
                    dropped: Vec::new(),
                };
                calibration::own(whole, lexical.is_some(), &|_| Vec::new(), &ratings)
            }
        };
        Neighbours::of(&choose(own, scale, feedback, &own_rows), feedback)
    });
    let mut out: Vec<Scored> = all
        .into_iter()
        .enumerate()
        .map(|(i, s)| {
            let score = match learner {
                Learner::None => s.base,
                Learner::Rocchio => s.base + ROCCHIO_WEIGHT * dot(&profile, &candidates[i]),
                Learner::Seeds => s.base - UNLIKE_WEIGHT * s.down.max(0.0),
                Learner::Neighbours => neighbours.as_ref().map_or(s.base, |n| n.score(&s)),
                Learner::Linear => linear
                    .as_ref()
                    .map_or(s.base, |m| m.value(&[s.base, s.up, s.down])),
            };
            Scored {
                candidate: i,
                score,
                interest: s.interest,
                near: s.near,
                base: s.base,
            }
        })
        .collect();
    out.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(a.candidate.cmp(&b.candidate))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(v: &[f32]) -> Vec<f32> {
        let n = dot(v, v).sqrt();
        v.iter().map(|x| x / n).collect()
    }

    #[test]
    fn each_interest_is_served_on_its_own_and_ratings_move_the_order() {
        // Two interests along the first two axes; a candidate between them serves neither well.
        let papers = [
            unit(&[1.0, 0.1, 0.0, 0.0]),
            unit(&[1.0, -0.1, 0.0, 0.0]),
            unit(&[0.0, 1.0, 0.1, 0.0]),
            unit(&[0.0, 1.0, -0.1, 0.0]),
        ];
        let refs: Vec<&[f32]> = papers.iter().map(Vec::as_slice).collect();
        let interests = vec![
            Interest {
                name: "a".into(),
                members: vec![0, 1],
            },
            Interest {
                name: "b".into(),
                members: vec![2, 3],
            },
        ];
        let lib = Library::new(&refs, &[0.0; 4], interests);
        let cands: Vec<Vec<f32>> = [
            unit(&[1.0, 1.0, 0.0, 0.0]),
            unit(&[0.0, 1.0, 0.0, 0.05]),
            unit(&[0.0, 0.0, 0.0, 1.0]),
        ]
        .iter()
        .map(|v| lib.center(v))
        .collect();
        let ranked = rank(&lib, &cands, &Feedback::default(), Learner::Rocchio);
        assert_eq!(ranked[0].candidate, 1, "{ranked:?}");
        assert_eq!(ranked[0].interest, 1);
        assert_eq!(ranked[0].near.len(), 2);
        assert_eq!(ranked[2].candidate, 2, "unrelated last");
        // An "up" near the first candidate and a "down" near the second bring the first up.
        let feedback = Feedback {
            up: vec![lib.center(&unit(&[1.0, 0.9, 0.0, 0.1]))],
            down: vec![lib.center(&unit(&[0.0, 1.0, 0.1, 0.1]))],
            dropped: Vec::new(),
        };
        let ranked = rank(&lib, &cands, &feedback, Learner::Rocchio);
        assert_eq!(ranked[0].candidate, 0, "{ranked:?}");
        // Two ratings are too few for the linear model to be sure of much (it learns that the
        // paper rated down was the closer to the library), but the unrelated one stays last.
        let ranked = rank(&lib, &cands, &feedback, Learner::Linear);
        assert_eq!(ranked[2].candidate, 2, "{ranked:?}");
    }

    #[test]
    fn the_lexical_side_is_the_tfidf_cosine_with_the_librarys_own_weights() {
        use crate::index::LexicalData;
        use crate::index::lexical::{MAX_DF, MAX_DF_MIN_DOCS, paper_terms};
        let words = [
            "reward",
            "web",
            "geometry",
            "robot",
            "grasping",
            "curriculum",
            "math",
            "search",
            "planning",
            "memory",
            "tool",
            "retrieval",
        ];
        let paper = |title: String| Paper {
            title,
            ..Paper::default()
        };
        // 24 papers: "agents" (8) and "study" (16) are over the cap of 30%.
        let library: Vec<Paper> = (0..24)
            .map(|i| {
                let last = if i % 3 == 0 { "agents" } else { "study" };
                paper(format!(
                    "{} {} {last}",
                    words[i % 12],
                    words[(i * 5 + 3) % 12]
                ))
            })
            .collect();
        let candidates = [
            paper("web agents: reward, reward and the zebra".into()),
            library[4].clone(),
            paper("quokka".into()),
            paper("planning memory math".into()),
        ];
        let refs: Vec<&Paper> = candidates.iter().collect();
        let data = LexicalData::build(&library);
        let lex = lexical_similarities(data.view(), &refs);
        assert_eq!(lex.dim(), (4, 24));

        // Brute force: every term vector by hand, with the library's document frequencies.
        let docs: Vec<Vec<(String, f32)>> = library.iter().map(paper_terms).collect();
        let n = library.len();
        let df = |t: &str| {
            docs.iter()
                .filter(|d| d.iter().any(|(x, _)| x == t))
                .count()
        };
        let vector = |terms: Vec<(String, f32)>| -> Vec<(String, f32)> {
            let mut v: Vec<(String, f32)> = terms
                .into_iter()
                .filter(|(t, _)| {
                    let df = df(t);
                    df > 0 && !(n >= MAX_DF_MIN_DOCS && df as f32 > MAX_DF * n as f32)
                })
                .map(|(t, tf)| {
                    let idf = ((1.0 + n as f32) / (1.0 + df(&t) as f32)).ln() + 1.0;
                    (t, (1.0 + tf.ln()) * idf)
                })
                .collect();
            let norm = v.iter().map(|x| x.1 * x.1).sum::<f32>().sqrt();
            v.iter_mut().for_each(|x| x.1 /= norm.max(1e-12));
            v
        };
        let cosine = |a: &[(String, f32)], b: &[(String, f32)]| -> f32 {
            a.iter()
                .map(|(t, w)| w * b.iter().find(|x| &x.0 == t).map_or(0.0, |x| x.1))
                .sum()
        };
        let library_vectors: Vec<_> = docs.iter().cloned().map(vector).collect();
        for (c, p) in candidates.iter().enumerate() {
            let v = vector(paper_terms(p));
            for (d, l) in library_vectors.iter().enumerate() {
                let want = cosine(&v, l);
                assert!(
                    (lex[[c, d]] - want).abs() < 1e-5,
                    "{c} x {d}: {} != {want}",
                    lex[[c, d]]
                );
            }
        }
        // The words the library never saw weigh nothing: the first candidate is as close to
        // "web reward" papers as its known words make it, and "quokka" to nothing.
        assert!(lex.row(0).iter().any(|&x| x > 0.5), "{:?}", lex.row(0));
        assert!(lex.row(2).iter().all(|&x| x == 0.0));
        // A library paper offered again is its own closest paper, at cosine 1.
        assert!((lex[[1, 4]] - 1.0).abs() < 1e-5);
        // Each candidate's best member per interest feeds the ranking: the fused order follows.
        let interests = vec![Interest {
            name: "all".into(),
            members: (0..24).collect(),
        }];
        let flat: Vec<Vec<f32>> = (0..24).map(|_| vec![1.0, 0.0]).collect();
        let rows: Vec<&[f32]> = flat.iter().map(Vec::as_slice).collect();
        let own_papers: Vec<&Paper> = library.iter().collect();
        let own = lexical_similarities(data.view(), &own_papers);
        let lib = Library::new(&rows, &[0.0, 1.0], interests).with_lexical(own);
        let same: Vec<Vec<f32>> = (0..4).map(|_| lib.center(&[1.0, 0.0])).collect();
        let ranked = rank_with(&lib, &same, Some(&lex), &Feedback::default(), Learner::None);
        assert_eq!(ranked.last().map(|s| s.candidate), Some(2), "{ranked:?}");
    }

    #[test]
    fn the_lexical_side_breaks_what_the_dense_one_cannot_tell_apart() {
        let papers = [unit(&[1.0, 0.1, 0.0]), unit(&[0.0, 1.0, 0.1])];
        let refs: Vec<&[f32]> = papers.iter().map(Vec::as_slice).collect();
        let interests = vec![
            Interest {
                name: "a".into(),
                members: vec![0],
            },
            Interest {
                name: "b".into(),
                members: vec![1],
            },
        ];
        let own = ndarray::arr2(&[[1.0, 0.2], [0.2, 1.0]]);
        let lib = Library::new(&refs, &[0.0; 3], interests.clone()).with_lexical(own.clone());
        // Without its own lexical similarities a library has no lexical scale: the side is unused.
        let bare = Library::new(&refs, &[0.0; 3], interests);
        // Three candidates equally close (dense) to both interests; the last shares words
        // with the second paper.
        let same = lib.center(&unit(&[1.0, 1.0, 0.0]));
        let cands = vec![same.clone(), same.clone(), same];
        let lexical = ndarray::arr2(&[[0.0, 0.0], [0.1, 0.0], [0.0, 0.6]]);
        let dense = rank(&lib, &cands, &Feedback::default(), Learner::None);
        assert_eq!(dense[0].candidate, 0, "ties by position: {dense:?}");
        let fused_with = |lex: &ndarray::Array2<f32>| {
            rank_with(&lib, &cands, Some(lex), &Feedback::default(), Learner::None)
        };
        let fused = fused_with(&lexical);
        assert_eq!(fused[0].candidate, 2, "{fused:?}");
        assert_eq!(fused[0].interest, 1, "the interest whose words it shares");
        assert_eq!(fused[2].candidate, 0, "no shared words, last");
        // The same matrix in column-major order (as a column selection makes) reads the same.
        let columns = lexical.t().as_standard_layout().into_owned();
        let columns = columns.reversed_axes();
        assert!(!columns.is_standard_layout());
        let order = |r: &[Scored]| r.iter().map(|s| s.candidate).collect::<Vec<_>>();
        assert_eq!(order(&fused_with(&columns)), order(&fused));
        // A lexical matrix of the wrong shape is ignored rather than misread.
        let r = fused_with(&ndarray::Array2::<f32>::ones((2, 2)));
        assert_eq!(r[0].candidate, 0);
        let unscaled = rank_with(
            &bare,
            &cands,
            Some(&lexical),
            &Feedback::default(),
            Learner::None,
        );
        assert_eq!(order(&unscaled), order(&dense));
        // So is an own matrix of the wrong shape.
        let wrong = Library::new(&refs, &[0.0; 3], Vec::new())
            .with_lexical(own.slice(ndarray::s![..1, ..]).to_owned());
        assert_eq!(wrong.lexical_scale(), (0.0, 0.0));
    }

    /// A paper's score depends on the library and the ratings, never on the other candidates:
    /// alone or among others, with the lexical side and every learner, it is the same.
    #[test]
    fn a_score_does_not_depend_on_the_other_candidates() {
        let papers: Vec<Vec<f32>> = (0..12)
            .map(|i| {
                let t = i as f32 * 0.5;
                unit(&[t.cos(), t.sin(), 0.3 * (i % 3) as f32, 0.1 * (i % 4) as f32])
            })
            .collect();
        let refs: Vec<&[f32]> = papers.iter().map(Vec::as_slice).collect();
        let interests = vec![
            Interest {
                name: "a".into(),
                members: (0..6).collect(),
            },
            Interest {
                name: "b".into(),
                members: (6..12).collect(),
            },
        ];
        // Lexical cosines of the papers with each other, from words they share.
        let words = |i: usize| [i % 3, 3 + i % 4, 7 + i / 6];
        let cosine =
            |a: [usize; 3], b: [usize; 3]| a.iter().filter(|w| b.contains(w)).count() as f32 / 3.0;
        let own = ndarray::Array2::from_shape_fn((12, 12), |(i, j)| cosine(words(i), words(j)));
        let lib = Library::new(&refs, &[0.0; 4], interests).with_lexical(own);
        assert_eq!(lib.calibration_papers().len(), 12);
        let cands: Vec<Vec<f32>> = (0..9)
            .map(|i| {
                let t = i as f32 * 0.7 + 0.2;
                lib.center(&unit(&[t.cos(), t.sin(), 0.2, 0.05 * i as f32]))
            })
            .collect();
        let lexical = ndarray::Array2::from_shape_fn((9, 12), |(c, j)| {
            cosine([c % 3, 3 + c % 4, 7 + c % 2], words(j))
        });
        let feedback = Feedback {
            up: vec![cands[1].clone(), cands[4].clone()],
            down: vec![cands[7].clone()],
            dropped: vec![3],
        };
        for learner in [
            Learner::None,
            Learner::Rocchio,
            Learner::Linear,
            Learner::Seeds,
            Learner::Neighbours,
        ] {
            let together = rank_with(&lib, &cands, Some(&lexical), &feedback, learner);
            for s in &together {
                let c = s.candidate;
                let one = lexical.slice(ndarray::s![c..c + 1, ..]).to_owned();
                let alone = rank_with(&lib, &cands[c..=c], Some(&one), &feedback, learner);
                assert!(
                    (alone[0].score - s.score).abs() < 1e-5,
                    "{learner:?}, candidate {c}: {} alone, {} among the others",
                    alone[0].score,
                    s.score
                );
                assert_eq!(alone[0].interest, s.interest);
            }
        }
    }
}
