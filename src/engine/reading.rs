//! Reading paths over an index: what to read around a paper, in an order that teaches.
//!
//! [`reading_path`] takes the paper's best related work (the `--like` ranking, so every step
//! is related to it for the same reasons `--like` gives), up to the first link too weak for
//! the list ([`PATH_STOP`]), and orders them foundations first: surveys, then papers others in the path build on, then the
//! rest, each group oldest first, and never a paper before one it builds on (a topological
//! order of `builds_on`). [`path_between`] walks from one paper to another over the
//! related-work graph (each paper linked to its closest papers by the fused score), so every
//! hop is a pair `--like` would relate, never a shared token like "R1".

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};

use super::explain;
use super::path::{PathError, Step};
use super::retrieve::{self, Filters, Mode};
use crate::corpus::Kind;
use crate::index::Searcher;

fn step(index: &Searcher, n: usize, i: usize, why: String) -> Step {
    let p = index.paper(i);
    Step {
        step: n,
        id: p.id.clone(),
        title: p.title.clone(),
        kind: p.kind,
        topic: if p.topic_en.trim().is_empty() {
            p.topic.clone()
        } else {
            p.topic_en.clone()
        },
        year: p.year,
        url: p.href(),
        why,
        note: None,
    }
}

/// A reading path ends at the first of `from`'s related papers whose link is weaker than all
/// but this share of the list's related-work links ([`Index::link_strengths`]): on the
/// judged sets a 2% cut kept the shipped list's path recall at 0.90 with 92.3% of the steps
/// related (0.92 and 91.8% with no cut, 0.89 and 92.8% at 5%, 0.70 and 96.0% at the 25% of
/// `explain::WEAK_LINK`), and cut the imported lists' recall by at most 0.01
/// (bench/runs/2026-12-04-paths/, docs/experiments.md).
pub const PATH_STOP: f32 = 0.02;

/// `n` papers to read around `from` (itself included), foundations first; shorter only when
/// the list has fewer related papers, and then the last step's `note` says why.
pub fn reading_path(index: &Searcher, from: usize, n: usize) -> Result<Vec<Step>, PathError> {
    if n == 0 {
        return Err(PathError::ZeroSteps);
    }
    if from >= index.len() {
        return Err(PathError::OutOfRange {
            index: from,
            len: index.len(),
        });
    }
    let related = retrieve::related(
        index,
        &[from],
        &[],
        n - 1,
        Mode::Hybrid,
        &Filters::default(),
    );
    // The `--like` ranking in its order, so every step is one `--like` gives, up to the first
    // result too weak for this list ([`PATH_STOP`]); the best match is kept regardless. Neither
    // the mutual-rank test nor the 25% weak-link cut this path used to drop results by is
    // applied: they raised the share of related steps by 1-10 points but cut path recall by
    // 0.1-0.3 on every judged list (docs/experiments.md); what `builds_on` relates is ordered
    // below, never added from outside the ranking (PPO, which most of the list builds on, is
    // background to an application paper, and adding parents lowered both figures).
    let mut chosen: Vec<usize> = vec![from];
    let mut why_of: Vec<(usize, String)> = Vec::new();
    let mut stopped: Option<usize> = None;
    for (rank, h) in related.into_iter().enumerate() {
        if rank > 0 && h.link_strength.is_some_and(|s| s < PATH_STOP) {
            stopped = Some(h.paper);
            break;
        }
        chosen.push(h.paper);
        why_of.push((h.paper, h.why));
    }
    let order = teaching_order(index, &chosen);
    let note = (chosen.len() < n).then(|| short_path_note(index, from, chosen.len(), n, stopped));
    let last = order.len();
    Ok(order
        .iter()
        .enumerate()
        .map(|(k, &i)| {
            let why = if i == from {
                "the paper you liked".to_string()
            } else if let Some((_, w)) = why_of.iter().find(|(p, _)| *p == i) {
                w.clone()
            } else {
                explain::relation(index, from, i).unwrap_or_default()
            };
            let mut s = step(index, k + 1, i, why);
            if k + 1 == last {
                s.note.clone_from(&note);
            }
            s
        })
        .collect())
}

/// Why a path of `got` steps stops short of the `n` asked for: the list is smaller, or
/// `stopped` is the next paper of the ranking, too weak a link.
fn short_path_note(
    index: &Searcher,
    from: usize,
    got: usize,
    n: usize,
    stopped: Option<usize>,
) -> String {
    let title = |i: usize| index.table().title(i).into_owned();
    match stopped {
        Some(next) => format!(
            "{got} of the {n} papers asked for: only {} papers of this list relate to {:?} \
             closely enough; the next best, {:?}, is among the weakest {:.0}% of this \
             list's related-work links",
            got - 1,
            title(from),
            title(next),
            PATH_STOP * 100.0
        ),
        None => format!(
            "{got} of the {n} papers asked for: the index holds {} papers",
            index.len()
        ),
    }
}

/// Foundations first: a topological order of `builds_on` among `papers`, choosing at each
/// point by (survey, built on by another path paper, year, position in `papers`).
fn teaching_order(index: &Searcher, papers: &[usize]) -> Vec<usize> {
    let relations = index.relations();
    let inside: HashSet<usize> = papers.iter().copied().collect();
    let is_foundation = |i: usize| relations.children[i].iter().any(|c| inside.contains(c));
    let key = |pos: usize| {
        let i = papers[pos];
        let p = index.paper(i);
        (
            u8::from(p.kind != Kind::Survey),
            u8::from(!is_foundation(i)),
            p.year.unwrap_or(u16::MAX),
            pos,
        )
    };
    let mut placed = vec![false; papers.len()];
    let mut out = Vec::with_capacity(papers.len());
    while out.len() < papers.len() {
        // Ready: every parent inside the path is placed (a cycle, impossible in a validated
        // corpus, would leave nothing ready: then take the best remaining).
        let ready: Vec<usize> = (0..papers.len())
            .filter(|&pos| !placed[pos])
            .filter(|&pos| {
                relations.parents[papers[pos]]
                    .iter()
                    .filter(|p| inside.contains(p))
                    .all(|p| out.contains(p))
            })
            .collect();
        let pool = if ready.is_empty() {
            (0..papers.len()).filter(|&pos| !placed[pos]).collect()
        } else {
            ready
        };
        let pos = *pool.iter().min_by_key(|&&pos| key(pos)).expect("not empty");
        placed[pos] = true;
        out.push(papers[pos]);
    }
    out
}

/// The shortest chain of related papers from `from` to `to` over the related-work graph
/// (hops count 1 each, plus a little for weaker links: ties go to the closer pairs).
pub fn path_between(index: &Searcher, from: usize, to: usize) -> Result<Vec<Step>, PathError> {
    let n = index.len();
    for i in [from, to] {
        if i >= n {
            return Err(PathError::OutOfRange { index: i, len: n });
        }
    }
    if from == to {
        return Err(PathError::SamePaper);
    }
    let Some(chain) = chain(index, from, to) else {
        return Err(PathError::Unreachable {
            from: index.table().id(from).into_owned(),
            to: index.table().id(to).into_owned(),
        });
    };
    // Numbered from 1, as a path without a destination is: the start is the first paper read.
    let mut steps = vec![step(index, 1, from, "start".into())];
    for (k, w) in chain.windows(2).enumerate() {
        let (p, c) = (w[0], w[1]);
        let mut parts: Vec<String> = [
            explain::relation(index, p, c),
            explain::shared_tags(index, p, c),
            explain::shared_terms(index, p, c),
        ]
        .into_iter()
        .flatten()
        .collect();
        if parts.is_empty() {
            parts.push("among each other's closest related work".into());
        }
        let mut why = format!("from the previous step: {}", parts.join("; "));
        if c == to {
            why = format!("the destination; {why}");
        }
        steps.push(step(index, k + 2, c, why));
    }
    Ok(steps)
}

/// The papers from `from` to `to` (both included) along the related-work graph, or `None`
/// when no chain links them.
fn chain(index: &Searcher, from: usize, to: usize) -> Option<Vec<usize>> {
    if index.uses_graph() {
        return chain_on_demand(index, from, to);
    }
    let n = index.len();
    let adj = super::communities::symmetric(&super::communities::neighbour_lists(index));
    // Dijkstra with integer costs: 1000 per hop + the neighbour's rank among the node's links.
    let mut dist = vec![u64::MAX; n];
    let mut prev = vec![usize::MAX; n];
    let mut heap = BinaryHeap::new();
    dist[from] = 0;
    heap.push(Reverse((0u64, from)));
    while let Some(Reverse((d, u))) = heap.pop() {
        if d > dist[u] || u == to {
            if u == to {
                break;
            }
            continue;
        }
        for (rank, &v) in adj[u].iter().enumerate() {
            let nd = d + 1000 + rank as u64;
            if nd < dist[v] {
                dist[v] = nd;
                prev[v] = u;
                heap.push(Reverse((nd, v)));
            }
        }
    }
    if dist[to] == u64::MAX {
        return None;
    }
    let mut chain = vec![to];
    while let Some(&last) = chain.last() {
        if last == from {
            break;
        }
        chain.push(prev[last]);
    }
    chain.reverse();
    Some(chain)
}

/// Most papers whose links [`chain_on_demand`] computes before it gives up.
const MAX_EXPANDED: usize = 20_000;

/// [`chain`] on a large index, where building every paper's links costs a query per paper:
/// a breadth-first search from both ends that computes the links of the papers it reaches
/// only (each hop is still a pair of papers one of which is among the other's closest), the
/// smaller frontier first, each frontier in paper order (deterministic).
fn chain_on_demand(index: &Searcher, from: usize, to: usize) -> Option<Vec<usize>> {
    use rayon::prelude::*;
    use std::collections::HashMap;
    let links = |frontier: &[usize]| -> Vec<Vec<usize>> {
        frontier
            .par_iter()
            .map(|&u| retrieve::neighbours(index, u, super::communities::NEIGHBOURS, true))
            .collect()
    };
    // Each side: paper -> the paper it was reached from (itself for the end).
    let mut seen: [HashMap<usize, usize>; 2] =
        [HashMap::from([(from, from)]), HashMap::from([(to, to)])];
    let mut frontier: [Vec<usize>; 2] = [vec![from], vec![to]];
    let mut expanded = 0usize;
    let meet = loop {
        let side = usize::from(frontier[1].len() < frontier[0].len());
        if frontier[side].is_empty() || expanded >= MAX_EXPANDED {
            return None;
        }
        expanded += frontier[side].len();
        let lists = links(&frontier[side]);
        let mut next = Vec::new();
        let mut found = None;
        for (&u, list) in frontier[side].iter().zip(&lists) {
            for &v in list {
                if seen[side].contains_key(&v) {
                    continue;
                }
                seen[side].insert(v, u);
                next.push(v);
                if found.is_none() && seen[1 - side].contains_key(&v) {
                    found = Some(v);
                }
            }
        }
        if let Some(v) = found {
            break v;
        }
        next.sort_unstable();
        frontier[side] = next;
    };
    let walk = |side: usize| {
        let mut out = vec![meet];
        let mut cur = meet;
        while let Some(&p) = seen[side].get(&cur).filter(|&&p| p != cur) {
            out.push(p);
            cur = p;
        }
        out
    };
    let mut chain = walk(0);
    chain.reverse();
    chain.extend(walk(1).into_iter().skip(1));
    Some(chain)
}
