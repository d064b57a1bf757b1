//! Where each array of `index.bin` lives: the section names, their byte ranges ([`Layout`]),
//! and the checks that make every later view of them infallible.
//!
//! Building writes the sections in this order ([`encode`]); opening finds each one, checks that
//! its size fits its element type and that every vector value is finite ([`Layout::locate`]).
//! Errors are the detail of an [`IndexError::Inconsistent`](super::IndexError), as text.

use std::ops::Range;

use bytemuck::Pod;

use super::IndexMeta;
use super::format::{self, FormatError};
use super::graph::{self, GraphData};
use super::lexical::LexicalData;
use super::papers::{self, EXTRA_COLUMNS, PaperColumns, TEXT_COLUMNS};

/// Section names of `index.bin`.
pub(super) mod section {
    pub const VECTORS: &str = "vectors";
    pub const KIND: &str = "papers.kind";
    pub const OPEN_SOURCE: &str = "papers.open_source";
    pub const NAMES: &str = "names";
    pub const NAMES_OFFSETS: &str = "names.offsets";
    pub const NAME_PAPERS: &str = "names.papers";
    /// How strong related-work links run in this list ([`super::super::Index::link_strengths`]):
    /// optional, absent in indexes built before it existed.
    pub const LINK_STRENGTHS: &str = "links.strengths";
    /// The search references by [`super::super::Reference`] and script
    /// ([`super::super::Index::match_reference`]): how close this list's papers come to each
    /// other, and how close queries from unrelated fields come to them; optional, like the
    /// link strengths.
    pub const MATCH_REFERENCE: [[&str; 2]; 3] = [
        ["search.reference.latin", "search.reference.cjk"],
        ["search.unrelated.latin", "search.unrelated.cjk"],
        ["search.unrelated_short.latin", "search.unrelated_short.cjk"],
    ];
    /// Every pair's token alignment score ([`super::super::Index::alignment`]): optional, on
    /// the lists the engine measures it for.
    pub const ALIGNMENT: &str = "like.alignment";
    /// The same for a list too large for every pair: each paper's aligned partners
    /// ([`super::super::Index::alignment_row`]), as row offsets (`n + 1` u32), partner positions
    /// (u32, ascending within a row) and scores (f32); optional, all three or none.
    pub const ALIGNMENT_POOLED: [&str; 3] = [
        "like.alignment.offsets",
        "like.alignment.partners",
        "like.alignment.values",
    ];
    /// The spelling cosines of a list of bare titles too large to build its spelling on first
    /// use ([`super::super::Index::pooled_spelling`]): each paper's closest spellings, in the
    /// pooled alignment's three-part form; optional, all three or none.
    pub const SPELLING_POOLED: [&str; 3] = [
        "like.spelling.offsets",
        "like.spelling.partners",
        "like.spelling.values",
    ];
    /// The ranking plan derived at build (JSON, [`super::super::plan::Plan`]): every build of
    /// this format stores it; absent only while a build is under way.
    pub const PLAN: &str = "plan";
    /// How the build read the corpus (JSON, [`super::super::corpus_read::CorpusRead`]);
    /// optional, absent for the default reading.
    pub const CORPUS_READ: &str = "corpus.read";
    /// Each paper's most related papers, `n x` [`super::super::plan::NEIGHBOURS_PER_PAPER`]
    /// u32 (reciprocity, `engine::retrieve`): optional, on lists whose plan uses them.
    pub const LIKE_NEIGHBOURS: &str = "like.neighbours";
    /// The passages' token states for search ([`super::super::Index::search_tokens`]): f16
    /// rows, each paper's first row, the list's token ids and document frequencies, the mean
    /// token; optional, all five or none.
    pub const SEARCH_TOKENS: [&str; 5] = [
        "search.tokens.states",
        "search.tokens.offsets",
        "search.tokens.vocab",
        "search.tokens.df",
        "search.tokens.mean",
    ];
    /// The same, with the states projected on the list's principal directions (the sixth
    /// section, `k x dim` f32) and `k` wide: what current builds write. Its own names,
    /// so that a binary that knows only [`SEARCH_TOKENS`] reads the index as one without
    /// token states instead of rejecting rows of an unexpected width.
    pub const SEARCH_TOKENS_PROJECTED: [&str; 6] = [
        "search.ptokens.states",
        "search.ptokens.offsets",
        "search.ptokens.vocab",
        "search.ptokens.df",
        "search.ptokens.mean",
        "search.ptokens.basis",
    ];
    pub const LEXICAL: [&str; 10] = [
        "lexical.vocab",
        "lexical.vocab_offsets",
        "lexical.posting_offsets",
        "lexical.posting_docs",
        "lexical.posting_tf",
        "lexical.posting_weights",
        "lexical.doc_offsets",
        "lexical.doc_terms",
        "lexical.doc_weights",
        "lexical.doc_len",
    ];
}

/// Byte ranges of the sections, validated once at load so that views never fail.
#[derive(Debug, Clone)]
pub(super) struct Layout {
    pub(super) vectors: Range<usize>,
    pub(super) text: [(Range<usize>, Range<usize>); papers::COLUMNS],
    pub(super) extra: [Option<(Range<usize>, Range<usize>)>; papers::EXTRAS],
    pub(super) kind: Range<usize>,
    pub(super) open_source: Range<usize>,
    pub(super) names: (Range<usize>, Range<usize>),
    pub(super) name_papers: Range<usize>,
    pub(super) lexical: [Range<usize>; 10],
    /// The HNSW graph's sections ([`graph::SECTIONS`]); absent in indexes built before the
    /// graph was stored (those answer every query with the exact scan).
    pub(super) graph: Option<[Range<usize>; 5]>,
    /// [`section::LINK_STRENGTHS`]: [`LINK_STRENGTH_CUTS`] finite, non-decreasing scores.
    pub(super) link_strengths: Option<Range<usize>>,
    /// [`section::MATCH_REFERENCE`], by [`super::Reference`] and [`super::Script`]:
    /// [`LINK_STRENGTH_CUTS`] finite, non-decreasing cosines each.
    pub(super) match_reference: [[Option<Range<usize>>; 2]; 3],
    /// [`section::ALIGNMENT`]: `n x n` finite scores in [0, 1].
    pub(super) alignment: Option<Range<usize>>,
    /// [`section::ALIGNMENT_POOLED`]: offsets, partners and scores, checked by
    /// [`check_pooled`].
    pub(super) alignment_pooled: Option<[Range<usize>; 3]>,
    /// [`section::SPELLING_POOLED`], checked as the pooled alignment is.
    pub(super) spelling_pooled: Option<[Range<usize>; 3]>,
    /// [`section::PLAN`]: JSON that decodes as a plan (checked in `open`).
    pub(super) plan: Option<Range<usize>>,
    /// [`section::CORPUS_READ`]: JSON that decodes as the read options (checked in `open`).
    pub(super) corpus_read: Option<Range<usize>>,
    /// [`section::LIKE_NEIGHBOURS`]: `n x 10` paper positions below `n`.
    pub(super) like_neighbours: Option<Range<usize>>,
    /// [`section::SEARCH_TOKENS_PROJECTED`], else [`section::SEARCH_TOKENS`], checked by
    /// [`check_search_tokens`].
    pub(super) search_tokens: Option<SearchTokenRanges>,
}

/// Where the search token sections are: states, offsets, vocabulary, document frequencies,
/// mean, and the basis of projected states.
#[derive(Debug, Clone)]
pub(super) struct SearchTokenRanges {
    pub(super) parts: [Range<usize>; 5],
    pub(super) basis: Option<Range<usize>>,
}

/// Scores at the percentiles 0, 1, ..., 100 of a list's related-work links (and cosines at
/// the same percentiles for the search reference).
pub const LINK_STRENGTH_CUTS: usize = 101;

/// Whether `bytes` hold [`LINK_STRENGTH_CUTS`] finite, non-decreasing `f32`s.
fn valid_cuts(bytes: &[u8]) -> bool {
    bytemuck::try_cast_slice::<u8, f32>(bytes).is_ok_and(|c| {
        c.len() == LINK_STRENGTH_CUTS
            && c.iter().all(|x| x.is_finite())
            && c.windows(2).all(|w| w[0] <= w[1])
    })
}

fn le_bytes<T: Pod>(v: &[T]) -> &[u8] {
    bytemuck::cast_slice(v)
}

/// The bytes of `index.bin`: `meta` and every array, as named sections in the order above.
pub(super) fn encode(
    meta: &IndexMeta,
    vectors: &[f32],
    cols: &PaperColumns,
    lex: &LexicalData,
    graph: &GraphData,
    link_strengths: Option<&[f32]>,
) -> Result<Vec<u8>, FormatError> {
    let names: Vec<String> = TEXT_COLUMNS
        .iter()
        .chain(&EXTRA_COLUMNS)
        .flat_map(|c| [format!("papers.{c}"), format!("papers.{c}.offsets")])
        .collect();
    let mut sections: Vec<(&str, &[u8])> = vec![(section::VECTORS, le_bytes(vectors))];
    for (k, col) in cols.text.iter().chain(&cols.extra).enumerate() {
        sections.push((&names[2 * k], &col.text));
        sections.push((&names[2 * k + 1], le_bytes(&col.offsets)));
    }
    sections.extend([
        (section::KIND, &cols.kind[..]),
        (section::OPEN_SOURCE, &cols.open_source[..]),
        (section::NAMES, &cols.names.text[..]),
        (section::NAMES_OFFSETS, le_bytes(&cols.names.offsets)),
        (section::NAME_PAPERS, le_bytes(&cols.name_papers)),
    ]);
    let lexical: [&[u8]; 10] = [
        &lex.vocab,
        le_bytes(&lex.vocab_offsets),
        le_bytes(&lex.posting_offsets),
        le_bytes(&lex.posting_docs),
        le_bytes(&lex.posting_tf),
        le_bytes(&lex.posting_weights),
        le_bytes(&lex.doc_offsets),
        le_bytes(&lex.doc_terms),
        le_bytes(&lex.doc_weights),
        le_bytes(&lex.doc_len),
    ];
    sections.extend(section::LEXICAL.iter().copied().zip(lexical));
    let graph_bytes: [&[u8]; 5] = [
        &graph.levels,
        le_bytes(&graph.slots),
        le_bytes(&graph.offsets),
        le_bytes(&graph.neighbours),
        le_bytes(&graph.entry),
    ];
    sections.extend(graph::SECTIONS.iter().copied().zip(graph_bytes));
    if let Some(cuts) = link_strengths {
        sections.push((section::LINK_STRENGTHS, le_bytes(cuts)));
    }
    format::encode(meta, &sections)
}

/// A section viewed as `T`s: whole elements, aligned (the container aligns sections).
fn count<T: Pod>(bytes: &[u8], r: &Range<usize>) -> Option<usize> {
    bytemuck::try_cast_slice::<u8, T>(&bytes[r.clone()])
        .ok()
        .map(<[T]>::len)
}

impl Layout {
    /// Find every section of `container` (over `bytes`) for `n` papers of `dim` values, and
    /// check what views rely on: vectors of the right shape and finite, every section sized to
    /// its element type, the per-paper fields covering `n` papers.
    pub(super) fn locate(
        container: &format::Container<IndexMeta>,
        bytes: &[u8],
        n: usize,
        dim: usize,
    ) -> Result<Layout, String> {
        let range = |s: &str| -> Result<Range<usize>, String> {
            container
                .range(s)
                .ok_or_else(|| format!("section {s} is missing"))
        };
        let vectors = range(section::VECTORS)?;
        if dim == 0 || count::<f32>(bytes, &vectors) != Some(n.saturating_mul(dim)) {
            return Err(format!(
                "vectors section does not hold {n} vectors of dimension {dim}"
            ));
        }
        check_finite(&bytes[vectors.clone()], dim)?;
        let mut text: Vec<(Range<usize>, Range<usize>)> = Vec::new();
        for c in TEXT_COLUMNS {
            text.push((
                range(&format!("papers.{c}"))?,
                range(&format!("papers.{c}.offsets"))?,
            ));
        }
        let text: [(Range<usize>, Range<usize>); papers::COLUMNS] =
            text.try_into().expect("one range pair per column");
        let extra = EXTRA_COLUMNS.map(|c| {
            Some((
                container.range(&format!("papers.{c}"))?,
                container.range(&format!("papers.{c}.offsets"))?,
            ))
        });
        let layout = Layout {
            vectors,
            text,
            extra,
            kind: range(section::KIND)?,
            open_source: range(section::OPEN_SOURCE)?,
            names: (range(section::NAMES)?, range(section::NAMES_OFFSETS)?),
            name_papers: range(section::NAME_PAPERS)?,
            lexical: {
                let mut v = Vec::new();
                for s in section::LEXICAL {
                    v.push(range(s)?);
                }
                v.try_into().expect("ten lexical sections")
            },
            graph: match graph::SECTIONS.map(|s| container.range(s)) {
                [Some(a), Some(b), Some(c), Some(d), Some(e)] => Some([a, b, c, d, e]),
                [None, None, None, None, None] => None,
                _ => return Err("the HNSW graph sections are incomplete".into()),
            },
            link_strengths: container.range(section::LINK_STRENGTHS),
            match_reference: section::MATCH_REFERENCE.map(|r| r.map(|s| container.range(s))),
            alignment: container.range(section::ALIGNMENT),
            alignment_pooled: match section::ALIGNMENT_POOLED.map(|s| container.range(s)) {
                [Some(o), Some(p), Some(v)] => Some([o, p, v]),
                [None, None, None] => None,
                _ => return Err("the pooled alignment sections are incomplete".into()),
            },
            spelling_pooled: match section::SPELLING_POOLED.map(|s| container.range(s)) {
                [Some(o), Some(p), Some(v)] => Some([o, p, v]),
                [None, None, None] => None,
                _ => return Err("the pooled spelling sections are incomplete".into()),
            },
            plan: container.range(section::PLAN),
            corpus_read: container.range(section::CORPUS_READ),
            like_neighbours: container.range(section::LIKE_NEIGHBOURS),
            search_tokens: {
                let projected = section::SEARCH_TOKENS_PROJECTED.map(|s| container.range(s));
                let whole = section::SEARCH_TOKENS.map(|s| container.range(s));
                match (projected, whole) {
                    ([Some(a), Some(b), Some(c), Some(d), Some(e), Some(f)], _) => {
                        Some(SearchTokenRanges {
                            parts: [a, b, c, d, e],
                            basis: Some(f),
                        })
                    }
                    (
                        [None, None, None, None, None, None],
                        [Some(a), Some(b), Some(c), Some(d), Some(e)],
                    ) => Some(SearchTokenRanges {
                        parts: [a, b, c, d, e],
                        basis: None,
                    }),
                    ([None, None, None, None, None, None], [None, None, None, None, None]) => None,
                    _ => return Err("the search token sections are incomplete".into()),
                }
            },
        };
        layout.check_element_sizes(bytes)?;
        if let Some(r) = &layout.search_tokens {
            check_search_tokens(bytes, r, n, dim)?;
        }
        if let Some(r) = &layout.alignment {
            let ok = bytemuck::try_cast_slice::<u8, f32>(&bytes[r.clone()]).is_ok_and(|a| {
                a.len() == n * n && a.iter().all(|x| x.is_finite() && (0.0..=1.0).contains(x))
            });
            if !ok {
                return Err(format!(
                    "the alignment scores are not {n} x {n} finite values in [0, 1]"
                ));
            }
        }
        if let Some(r) = &layout.alignment_pooled {
            check_pooled(bytes, r, n, "alignment")?;
        }
        if let Some(r) = &layout.spelling_pooled {
            check_pooled(bytes, r, n, "spelling")?;
        }
        if let Some(r) = &layout.like_neighbours
            && !super::plan::valid_neighbours(&bytes[r.clone()], n)
        {
            return Err(format!(
                "the related-paper lists are not {n} x 10 papers of the index"
            ));
        }
        if layout.kind.len() != n || layout.open_source.len() != n {
            return Err(format!("paper fields do not cover {n} papers"));
        }
        Ok(layout)
    }

    /// Views panic on misaligned or ragged sections and index by offsets: check both once.
    fn check_element_sizes(&self, bytes: &[u8]) -> Result<(), String> {
        let words = |r: &Range<usize>| count::<u64>(bytes, r).is_some();
        let quads = |r: &Range<usize>| count::<u32>(bytes, r).is_some();
        if !self.text.iter().all(|(_, o)| words(o))
            || !self.extra.iter().flatten().all(|(_, o)| words(o))
            || !words(&self.names.1)
            || !quads(&self.name_papers)
            || ![1, 2, 6].iter().all(|&i| words(&self.lexical[i]))
            || ![3, 4, 5, 7, 8, 9].iter().all(|&i| quads(&self.lexical[i]))
        {
            return Err("a section has a size that does not fit its type".into());
        }
        if let Some(g) = &self.graph
            && !(words(&g[1]) && words(&g[2]) && quads(&g[3]) && quads(&g[4]))
        {
            return Err("an HNSW graph section has a size that does not fit its type".into());
        }
        let cuts = [("link strengths", &self.link_strengths)]
            .into_iter()
            .chain(
                self.match_reference
                    .iter()
                    .flatten()
                    .map(|r| ("search reference", r)),
            );
        for (what, r) in cuts {
            if let Some(r) = r
                && !valid_cuts(&bytes[r.clone()])
            {
                return Err(format!(
                    "the {what} are not {LINK_STRENGTH_CUTS} finite, ascending values"
                ));
            }
        }
        Ok(())
    }
}

/// Pooled pair scores (the `what` of [`section::ALIGNMENT_POOLED`] or
/// [`section::SPELLING_POOLED`]): `n + 1` ascending row offsets from 0 to the number of
/// entries, partner positions below `n` and strictly ascending within a row, and as many finite
/// scores in [0, 1].
fn check_pooled(bytes: &[u8], r: &[Range<usize>; 3], n: usize, what: &str) -> Result<(), String> {
    let bad = || Err(format!("the pooled {what} of {n} papers is inconsistent"));
    let (Ok(offsets), Ok(partners), Ok(values)) = (
        bytemuck::try_cast_slice::<u8, u32>(&bytes[r[0].clone()]),
        bytemuck::try_cast_slice::<u8, u32>(&bytes[r[1].clone()]),
        bytemuck::try_cast_slice::<u8, f32>(&bytes[r[2].clone()]),
    ) else {
        return bad();
    };
    let ends_right = offsets.first() == Some(&0)
        && offsets.len() == n + 1
        && offsets.last().map(|&e| e as usize) == Some(partners.len())
        && values.len() == partners.len();
    if !ends_right || offsets.windows(2).any(|w| w[0] > w[1]) {
        return bad();
    }
    let rows_ok = offsets.windows(2).all(|w| {
        let row = &partners[w[0] as usize..w[1] as usize];
        row.iter().all(|&p| (p as usize) < n) && row.windows(2).all(|p| p[0] < p[1])
    });
    if !rows_ok
        || !values
            .iter()
            .all(|x| x.is_finite() && (0.0..=1.0).contains(x))
    {
        return bad();
    }
    Ok(())
}

/// The search token sections: `n + 1` ascending row offsets ending at the number of rows,
/// `rows x width` finite f16 values, strictly ascending token ids with one document frequency
/// each (at most `n`), `dim` finite mean values, and for projected states 1 to `dim` rows of
/// `dim` finite basis values (`width` of them; `dim` without a basis).
fn check_search_tokens(
    bytes: &[u8],
    r: &SearchTokenRanges,
    n: usize,
    dim: usize,
) -> Result<(), String> {
    let bad = || Err("the search token sections are inconsistent".to_string());
    let p = &r.parts;
    let basis = match &r.basis {
        Some(b) => bytemuck::try_cast_slice::<u8, f32>(&bytes[b.clone()]).ok(),
        None => Some(&[][..]),
    };
    let (Ok(states), Ok(offsets), Ok(vocab), Ok(df), Ok(mean), Some(basis)) = (
        bytemuck::try_cast_slice::<u8, u16>(&bytes[p[0].clone()]),
        bytemuck::try_cast_slice::<u8, u32>(&bytes[p[1].clone()]),
        bytemuck::try_cast_slice::<u8, u32>(&bytes[p[2].clone()]),
        bytemuck::try_cast_slice::<u8, u32>(&bytes[p[3].clone()]),
        bytemuck::try_cast_slice::<u8, f32>(&bytes[p[4].clone()]),
        basis,
    ) else {
        return bad();
    };
    let projected = r.basis.is_some();
    let basis_ok = !projected
        || (!basis.is_empty()
            && basis.len() % dim.max(1) == 0
            && basis.len() <= dim * dim
            && basis.iter().all(|x| x.is_finite()));
    if !basis_ok {
        return bad();
    }
    let width = super::width(dim, basis.len());
    let rows = offsets.last().copied().unwrap_or(0) as usize;
    let ok = offsets.len() == n + 1
        && offsets.first() == Some(&0)
        && offsets.windows(2).all(|w| w[0] <= w[1])
        && states.len() == rows * width
        // f16: an exponent of all ones is an infinity or a NaN.
        && states.iter().all(|&h| h & 0x7c00 != 0x7c00)
        && vocab.windows(2).all(|w| w[0] < w[1])
        && df.len() == vocab.len()
        && df.iter().all(|&d| d as usize <= n)
        && mean.len() == dim
        && mean.iter().all(|x| x.is_finite());
    if ok { Ok(()) } else { bad() }
}

/// The checksum only proves the bytes are the ones written: a forged file with a recomputed
/// checksum may hold NaN or infinity, which would turn every score into NaN. A value is not
/// finite when its exponent bits are all ones; the branch-free fold vectorizes (a 100k index:
/// ~0.3x the rest of the load, see the report of issue 12).
fn check_finite(vectors: &[u8], dim: usize) -> Result<(), String> {
    use rayon::prelude::*;
    const EXP: u32 = 0x7f80_0000;
    const CHUNK: usize = 1 << 16;
    let bits: &[u32] = bytemuck::cast_slice(vectors);
    let bad_chunk = bits
        .par_chunks(CHUNK)
        .position_any(|c| c.iter().fold(0u32, |a, &b| a | u32::from(b & EXP == EXP)) != 0);
    match bad_chunk {
        Some(c) => {
            let at = c * CHUNK
                + bits[c * CHUNK..]
                    .iter()
                    .position(|&b| b & EXP == EXP)
                    .unwrap_or(0);
            Err(format!("vector {} holds NaN or infinity", at / dim.max(1)))
        }
        None => Ok(()),
    }
}
