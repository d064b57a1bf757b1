//! The sections stored after the build: link strengths, the search reference, the alignment
//! scores, the pooled spelling of a large list of bare titles and the passages' token states.
//! The engine measures them on a built index, so each comes as a rewrite of the index bytes
//! with one more section; their readers live here too.

use std::borrow::Cow;

use super::format;
use super::storage::Storage;
use super::{Index, IndexError, IndexMeta, Reference, Script, layout};

/// The passages' token states of a list, as search reads them from `index.bin`
/// ([`Index::search_tokens`]): centred on `mean`, projected on `basis` when there is one, and
/// normalized, stored as f16.
#[derive(Debug, Clone, Copy)]
pub struct SearchTokens<'a> {
    /// Rows of [`SearchTokens::width`] f16 values (as bits).
    pub states: &'a [u16],
    /// Paper `i`'s rows are `offsets[i]..offsets[i + 1]`.
    pub offsets: &'a [u32],
    /// The list's token ids, ascending, and in how many papers each occurs.
    pub vocab: &'a [u32],
    pub df: &'a [u32],
    /// The list's mean token state (before centring), to centre a query's tokens alike.
    pub mean: &'a [f32],
    /// Orthonormal rows of `dim` values that the centred states were projected on (the
    /// list's principal directions), to project a query's tokens alike; empty in indexes
    /// that store the states whole (older builds).
    pub basis: &'a [f32],
}

impl SearchTokens<'_> {
    /// How many values a stored row has: the basis's rows, or the model's dimension.
    pub fn width(&self) -> usize {
        width(self.mean.len(), self.basis.len())
    }

    /// An owned copy, to store in another index.
    pub fn to_data(&self) -> SearchTokenData {
        SearchTokenData {
            states: self.states.to_vec(),
            offsets: self.offsets.to_vec(),
            vocab: self.vocab.to_vec(),
            df: self.df.to_vec(),
            mean: self.mean.to_vec(),
            basis: self.basis.to_vec(),
        }
    }
}

/// A stored token row's width: the number of basis rows of `dim` values, or `dim` without a
/// basis.
pub(super) fn width(dim: usize, basis: usize) -> usize {
    if basis == 0 { dim } else { basis / dim.max(1) }
}

/// [`SearchTokens`] to store ([`Index::with_search_tokens`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SearchTokenData {
    pub states: Vec<u16>,
    pub offsets: Vec<u32>,
    pub vocab: Vec<u32>,
    pub df: Vec<u32>,
    pub mean: Vec<f32>,
    pub basis: Vec<f32>,
}

impl SearchTokenData {
    /// These tokens as search reads them.
    pub fn view(&self) -> SearchTokens<'_> {
        SearchTokens {
            states: &self.states,
            offsets: &self.offsets,
            vocab: &self.vocab,
            df: &self.df,
            mean: &self.mean,
            basis: &self.basis,
        }
    }
}

/// Pair scores measured over each paper's candidate pool (token alignment, spelling on a large
/// list): paper `i`'s partners are `partners[offsets[i]..offsets[i + 1]]` (ascending), with
/// their scores in `values`.
#[derive(Debug, Clone, Copy)]
pub struct PooledScores<'a> {
    pub offsets: &'a [u32],
    pub partners: &'a [u32],
    pub values: &'a [f32],
}

impl<'a> PooledScores<'a> {
    /// Paper `i`'s partners and their scores.
    pub fn row(&self, i: usize) -> impl Iterator<Item = (u32, f32)> + 'a {
        let (a, b) = (self.offsets[i] as usize, self.offsets[i + 1] as usize);
        self.partners[a..b]
            .iter()
            .copied()
            .zip(self.values[a..b].iter().copied())
    }

    /// Paper `i`'s score with every paper (`n` values): its partners' scores, zero elsewhere.
    pub fn dense_row(&self, i: usize, n: usize) -> Vec<f32> {
        let mut row = vec![0.0f32; n];
        for (p, v) in self.row(i) {
            row[p as usize] = v;
        }
        row
    }

    /// An owned copy.
    pub fn to_data(&self) -> PooledScoresData {
        PooledScoresData {
            offsets: self.offsets.to_vec(),
            partners: self.partners.to_vec(),
            values: self.values.to_vec(),
        }
    }
}

/// [`PooledScores`], owned.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PooledScoresData {
    pub offsets: Vec<u32>,
    pub partners: Vec<u32>,
    pub values: Vec<f32>,
}

/// How many of its closest spellings a paper keeps on a list too large to build its spelling at
/// query time, as token alignment keeps 50 by each of its two pools.
pub const SPELLING_POOL: usize = 50;

/// Alignment scores as stored: every pair (`n x n`), or each paper's candidate pool.
#[derive(Debug, Clone, PartialEq)]
pub enum AlignmentData {
    Every(Vec<f32>),
    Pooled(PooledScoresData),
}

impl Index {
    /// How strong this list's related-work links run: the fused scores at the percentiles 0,
    /// 1, ..., 100 of its papers' top-5 results, as [`Index::with_link_strengths`] stored them
    /// (`None` in an index built without). A score's place among them says whether a result
    /// is a weak link for this list, whatever its seed: the fused score is a sum of z-scores
    /// over one seed's candidates, and a seed with few related papers still gets five.
    pub fn link_strengths(&self) -> Option<&[f32]> {
        self.layout.link_strengths.as_ref().map(|r| self.slice(r))
    }

    /// This index with `cuts` ([`layout::LINK_STRENGTH_CUTS`] ascending scores, see
    /// [`Index::link_strengths`]) stored as one more section; every other section is copied.
    /// The engine computes them from the built index, which is why they come after the build.
    pub fn with_link_strengths(self, cuts: &[f32]) -> Result<Index, IndexError> {
        self.with_section(layout::section::LINK_STRENGTHS, cuts)
    }

    /// A search reference of this list in `script` ([`Reference`]): e5 cosines at the
    /// percentiles 0, 1, ..., 100, as [`Index::with_match_reference`] stored them; `None` when
    /// the index has none of that kind for that script (built without; no paper has text in
    /// it; a list of titles has no [`Reference::Neighbours`]). A search whose best cosine falls
    /// low among them is about something else (`engine::reference`). Cosines differ by script
    /// (a Chinese query sits 0.05 higher against anything), hence one reference per script.
    pub fn match_reference(&self, kind: Reference, script: Script) -> Option<&[f32]> {
        self.layout.match_reference[kind as usize][script as usize]
            .as_ref()
            .map(|r| self.slice(r))
    }

    /// This index with `cuts` stored as its [`Index::match_reference`] of `kind` for `script`.
    pub fn with_match_reference(
        self,
        kind: Reference,
        script: Script,
        cuts: &[f32],
    ) -> Result<Index, IndexError> {
        self.with_section(
            layout::section::MATCH_REFERENCE[kind as usize][script as usize],
            cuts,
        )
    }

    /// Every pair's token alignment score (`engine::alignment`), row after row, `n x n`, as
    /// [`Index::with_alignment`] stored them; `None` for a list it was not measured for.
    pub fn alignment(&self) -> Option<&[f32]> {
        self.layout.alignment.as_ref().map(|r| self.slice(r))
    }

    /// Paper `i`'s alignment score with every paper (`n` values): its row of
    /// [`Index::alignment`], or, on a list aligned over candidate pools
    /// ([`Index::pooled_alignment`]), its partners' scores and zero elsewhere; `None` for a list
    /// it was not measured for.
    pub fn alignment_row(&self, i: usize) -> Option<Cow<'_, [f32]>> {
        let n = self.len();
        if let Some(a) = self.alignment() {
            return a.get(i * n..(i + 1) * n).map(Cow::Borrowed);
        }
        let pooled = self.pooled_alignment()?;
        Some(Cow::Owned(pooled.dense_row(i, n)))
    }

    /// Whether the list has alignment scores of either form.
    pub fn has_alignment(&self) -> bool {
        self.layout.alignment.is_some() || self.layout.alignment_pooled.is_some()
    }

    /// The alignment scores measured over each paper's candidate pool, as
    /// [`Index::with_pooled_alignment`] stored them; `None` for a list without.
    pub fn pooled_alignment(&self) -> Option<PooledScores<'_>> {
        let [o, p, v] = self.layout.alignment_pooled.as_ref()?;
        Some(PooledScores {
            offsets: self.slice(o),
            partners: self.slice(p),
            values: self.slice(v),
        })
    }

    /// The alignment scores in the form they are stored, owned (to keep them in a rebuilt index).
    pub fn alignment_data(&self) -> Option<AlignmentData> {
        match (self.alignment(), self.pooled_alignment()) {
            (Some(every), _) => Some(AlignmentData::Every(every.to_vec())),
            (None, Some(p)) => Some(AlignmentData::Pooled(p.to_data())),
            (None, None) => None,
        }
    }

    /// This index with `scores` (`n x n`, see [`Index::alignment`]) stored as one more section.
    pub fn with_alignment(self, scores: &[f32]) -> Result<Index, IndexError> {
        self.with_section(layout::section::ALIGNMENT, scores)
    }

    /// This index with `scores` stored in their form ([`AlignmentData`]), without the other form.
    pub fn with_alignment_data(self, scores: &AlignmentData) -> Result<Index, IndexError> {
        let pooled = layout::section::ALIGNMENT_POOLED;
        match scores {
            AlignmentData::Every(v) => self.rewrite(&pooled, &[], &[])?.with_alignment(v),
            AlignmentData::Pooled(p) => self.rewrite(
                &[layout::section::ALIGNMENT],
                &pooled.map(str::to_string),
                &[
                    bytemuck::cast_slice(&p.offsets),
                    bytemuck::cast_slice(&p.partners),
                    bytemuck::cast_slice(&p.values),
                ],
            ),
        }
    }

    /// The spelling cosines of a list of bare titles over each paper's closest spellings, as
    /// [`Index::with_pooled_spelling`] stored them; `None` for a list without (every list
    /// small enough to build its spelling on first use, and every described list).
    pub fn pooled_spelling(&self) -> Option<PooledScores<'_>> {
        let [o, p, v] = self.layout.spelling_pooled.as_ref()?;
        Some(PooledScores {
            offsets: self.slice(o),
            partners: self.slice(p),
            values: self.slice(v),
        })
    }

    /// This index with its pooled spelling ([`Index::pooled_spelling`]) measured and stored
    /// when it is a list of bare titles of at least [`super::GRAPH_MIN_PAPERS`] papers (each
    /// paper's [`SPELLING_POOL`] closest spellings), and without one otherwise: the smaller
    /// lists build their spelling at query time, exactly.
    pub fn with_spelling(self) -> Result<Index, IndexError> {
        let table = self.table();
        let pooled = (self.len() >= super::GRAPH_MIN_PAPERS
            && super::evidence::Spelling::is_for(&table))
        .then(|| {
            super::evidence::Spelling::new(
                (0..self.len()).map(|i| super::passage_text(&table.get(i))),
            )
            .pooled(SPELLING_POOL)
        });
        self.with_pooled_spelling(pooled.as_ref())
    }

    /// This index with `scores` stored as its [`Index::pooled_spelling`], or without one when
    /// `scores` is `None`.
    pub fn with_pooled_spelling(
        self,
        scores: Option<&PooledScoresData>,
    ) -> Result<Index, IndexError> {
        let names = layout::section::SPELLING_POOLED;
        match scores {
            None => self.rewrite(&names, &[], &[]),
            Some(p) => self.rewrite(
                &[],
                &names.map(str::to_string),
                &[
                    bytemuck::cast_slice(&p.offsets),
                    bytemuck::cast_slice(&p.partners),
                    bytemuck::cast_slice(&p.values),
                ],
            ),
        }
    }

    /// The passages' token states for search (`engine::alignment::query_match`), as
    /// [`Index::with_search_tokens`] stored them; `None` for a list without.
    pub fn search_tokens(&self) -> Option<SearchTokens<'_>> {
        let r = self.layout.search_tokens.as_ref()?;
        let bytes = self.storage.bytes();
        let cast = |k: usize| &bytes[r.parts[k].clone()];
        Some(SearchTokens {
            states: bytemuck::cast_slice(cast(0)),
            offsets: bytemuck::cast_slice(cast(1)),
            vocab: bytemuck::cast_slice(cast(2)),
            df: bytemuck::cast_slice(cast(3)),
            mean: bytemuck::cast_slice(cast(4)),
            basis: r
                .basis
                .as_ref()
                .map_or(&[][..], |b| bytemuck::cast_slice(&bytes[b.clone()])),
        })
    }

    /// This index with `tokens` stored as its [`Index::search_tokens`]: in the projected
    /// sections ([`layout::section::SEARCH_TOKENS_PROJECTED`]) when they have a basis, else in
    /// the whole-state ones; either way without the other kind.
    pub fn with_search_tokens(self, tokens: &SearchTokenData) -> Result<Index, IndexError> {
        let mut sections: Vec<&[u8]> = vec![
            bytemuck::cast_slice(&tokens.states),
            bytemuck::cast_slice(&tokens.offsets),
            bytemuck::cast_slice(&tokens.vocab),
            bytemuck::cast_slice(&tokens.df),
            bytemuck::cast_slice(&tokens.mean),
        ];
        let (projected, whole) = (
            &layout::section::SEARCH_TOKENS_PROJECTED[..],
            &layout::section::SEARCH_TOKENS[..],
        );
        let (names, other) = if tokens.basis.is_empty() {
            (whole, projected)
        } else {
            sections.push(bytemuck::cast_slice(&tokens.basis));
            (projected, whole)
        };
        let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        self.rewrite(other, &names, &sections)
    }

    /// This index with `values` stored as section `name` (replacing one of that name).
    fn with_section(self, name: &str, values: &[f32]) -> Result<Index, IndexError> {
        self.rewrite(&[], &[name.to_string()], &[bytemuck::cast_slice(values)])
    }

    /// This index without the sections named in `remove`, and with each of `names` stored
    /// with its bytes (replacing sections of those names); every other section is copied.
    pub(super) fn rewrite(
        self,
        remove: &[&str],
        names: &[String],
        values: &[&[u8]],
    ) -> Result<Index, IndexError> {
        let bytes = {
            let bytes = self.storage.bytes();
            let container: format::Container<IndexMeta> = format::open(bytes, "index")?;
            let mut sections: Vec<(&str, &[u8])> = container
                .sections
                .iter()
                .filter(|e| !names.contains(&e.name) && !remove.contains(&e.name.as_str()))
                .map(|e| {
                    let start = e.offset as usize;
                    (e.name.as_str(), &bytes[start..start + e.len as usize])
                })
                .collect();
            sections.extend(names.iter().map(String::as_str).zip(values.iter().copied()));
            format::encode(&self.meta, &sections)?
        };
        let index = Index::open(Storage::from_bytes(&bytes), self.path.clone())?;
        if let Some(papers) = self.papers.into_inner() {
            let _ = index.papers.set(papers);
        }
        Ok(index)
    }
}
