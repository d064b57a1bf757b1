//! Building an index users query: the one order of the build steps, behind [`Builder`].
//!
//! The order: the papers' passage vectors (those of unchanged texts taken from the previous
//! index, [`crate::index::build_incremental`]), the token states where token alignment or
//! token matching applies ([`engine::alignment::with_tokens`]), the ranking plan
//! ([`engine::plan::with_plan`]), each paper's related papers where the plan adds reciprocal
//! neighbours ([`engine::retrieve::with_like_neighbours`]), the link strengths
//! ([`engine::calibrated`]), and the search reference, which embeds some of the papers' own
//! text as queries ([`engine::reference::with_reference`]). Each later step reads what the
//! earlier ones stored, and the file's bytes follow the order in which they were stored, so
//! `recommend index`, `recommend add` and the benchmarks all build through this one function.
//!
//! Why a module of its own, above `index` and `engine`: the first step is storage (`index`), the
//! later ones are measurements the engine defines and queries read back (`engine`), and
//! `engine` imports `index`. A `Builder` inside `index` would have to import `engine` (a cycle)
//! or take the later steps as callbacks that every caller would pass alike (the repetition this
//! module exists to remove). Here it imports both and neither imports it.
//!
//! The model is loaded only when a step needs it ([`Model::Files`]): an unchanged list built
//! again keeps its vectors, token-derived data and search reference and needs no model at all.

use crate::corpus::Paper;
use crate::engine;
use crate::index::{CorpusSource, Index, IndexError, Reference, Reuse, Script, Searcher};
use crate::model::{Embedder, EmbedderOptions, ModelError, ModelFiles, Role, TokenStates};

/// Why a build failed.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error(transparent)]
    Model(#[from] ModelError),
}

/// The embedder a build uses: one already loaded, or the files to load it from when a step
/// first needs it (with that step's options).
pub enum Model<'a> {
    Loaded(&'a Embedder),
    Files(&'a ModelFiles),
}

/// A step of the build that reports progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Embedding passages (new or changed papers only).
    Embedding,
    /// Reading the token states of every paper.
    ReadingTokens,
}

/// What a build reports of its progress: a step starts over this many texts, has this many
/// done, ends. Steps do not overlap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    Start(Step, usize),
    At(usize),
    End,
}

/// Texts per embedding call: the embedder tokenizes (and pads) a whole call at once, so this
/// bounds the memory of a build (a 10k-paper call held ~0.7 GB of encodings).
pub const EMBED_CHUNK: usize = 256;

/// Texts per token-state call: the states of a call are held at once (about 0.24 MB a text).
pub const TOKEN_CHUNK: usize = 32;

/// Builds an index of papers in the one order of the steps (see the module comment).
pub struct Builder<'a> {
    model: Model<'a>,
    loaded: Option<Embedder>,
    progress: Box<dyn FnMut(Progress) + 'a>,
}

impl<'a> Builder<'a> {
    /// A builder with `model`, reporting no progress.
    pub fn new(model: Model<'a>) -> Self {
        Builder {
            model,
            loaded: None,
            progress: Box::new(|_| {}),
        }
    }

    /// Report progress to `progress` (the binary draws its bars from it).
    pub fn progress(mut self, progress: impl FnMut(Progress) + 'a) -> Self {
        self.progress = Box::new(progress);
        self
    }

    /// The id of the model the vectors come from.
    fn model_id(&self) -> &'static str {
        match self.model {
            Model::Loaded(e) => e.model_id(),
            Model::Files(f) => crate::model::model_id(f.variant),
        }
    }

    /// Load the embedder with `options` if no step loaded it before.
    fn load(&mut self, options: EmbedderOptions) -> Result<(), ModelError> {
        if let (Model::Files(files), None) = (&self.model, &self.loaded) {
            self.loaded = Some(Embedder::load(files, options)?);
        }
        Ok(())
    }

    /// Build the index of `papers`, read from `source`, taking from `previous` (when given) the
    /// vectors of unchanged texts and, when it holds the same papers and vectors, what the later
    /// steps derived from them (measuring it again would load the model only for that). The
    /// same papers and previous index give the same bytes.
    pub fn build(
        &mut self,
        papers: Vec<Paper>,
        source: impl Into<CorpusSource>,
        previous: Option<Index>,
    ) -> Result<(Index, Reuse), BuildError> {
        let model_id = self.model_id();
        let (index, reuse) = crate::index::build_incremental(
            papers,
            source,
            model_id,
            previous.as_ref(),
            &mut |texts| self.embed_passages(texts).map_err(|e| e.to_string()),
        )?;
        let unchanged = previous.as_ref().filter(|p| {
            reuse.embedded == 0
                && p.meta.model_id == index.meta.model_id
                && p.papers() == index.papers()
        });
        // Kept only from an index that has the references every build now measures.
        let kept_reference: Vec<(Reference, Script, Vec<f32>)> = unchanged
            .filter(|p| {
                [Reference::Unrelated, Reference::UnrelatedShort]
                    .iter()
                    .all(|&k| {
                        [Script::Latin, Script::Cjk]
                            .iter()
                            .any(|&s| p.match_reference(k, s).is_some())
                    })
            })
            .map(|p| {
                // In `with_reference`'s order, so that the file comes out byte-identical.
                [Script::Latin, Script::Cjk]
                    .into_iter()
                    .flat_map(|s| Reference::ALL.map(|k| (k, s)))
                    .filter_map(|(k, s)| p.match_reference(k, s).map(|c| (k, s, c.to_vec())))
                    .collect()
            })
            .unwrap_or_default();
        // What the token states give (alignment, search tokens) needs the model for every
        // paper: kept only when the previous index has all that applies (whole, unprojected
        // token states are measured again).
        let searcher = Searcher::new(index);
        let (align, search) = (
            engine::alignment::applies(&searcher),
            engine::alignment::search_applies(&searcher),
        );
        let index = searcher.into_index();
        let kept_tokens = unchanged
            .filter(|p| {
                (p.has_alignment() || !align)
                    && (p.search_tokens().is_some_and(|t| !t.basis.is_empty()) || !search)
            })
            .map(|p| (p.alignment_data(), p.search_tokens().map(|t| t.to_data())));
        drop(previous);
        let index = match kept_tokens {
            Some((alignment, search)) => {
                // In `with_tokens`' order, so that the file comes out byte-identical.
                let mut index = index;
                if let Some(tokens) = search {
                    index = index.with_search_tokens(&tokens)?;
                }
                if let Some(scores) = alignment {
                    index = index.with_alignment_data(&scores)?;
                }
                index
            }
            None => engine::alignment::with_tokens(index, &mut |texts: &[&str]| {
                self.passage_token_states(texts)
            })?,
        };
        let index = index.with_spelling()?;
        let index = engine::plan::with_plan(index)?;
        let index = engine::retrieve::with_like_neighbours(index)?;
        let mut index = engine::calibrated(index)?;
        if kept_reference.is_empty() {
            index = engine::reference::with_reference(index, &mut |texts: &[&str]| {
                self.load(EmbedderOptions::default())?;
                let e = loaded(&self.model, &self.loaded);
                e.embed(texts, Role::Query).map_err(BuildError::from)
            })?;
        } else {
            for (kind, script, cuts) in &kept_reference {
                index = index.with_match_reference(*kind, *script, cuts)?;
            }
        }
        Ok((index, reuse))
    }

    /// Passage vectors of `texts`, in input order, embedded in [`EMBED_CHUNK`]s of similar
    /// length (sorted by length first, so chunking costs no padding).
    fn embed_passages(&mut self, texts: &[String]) -> Result<Vec<Vec<f32>>, ModelError> {
        let options = EmbedderOptions {
            full_tokenizer: texts.len() > 512,
            // A corpus is embedded through fastembed; queries use the faster-starting in-place
            // session (the same vectors).
            in_place: false,
            ..EmbedderOptions::default()
        };
        self.load(options)?;
        let e = loaded(&self.model, &self.loaded);
        let progress = &mut self.progress;
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| texts[i].len());
        progress(Progress::Start(Step::Embedding, texts.len()));
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        for (k, chunk) in order.chunks(EMBED_CHUNK).enumerate() {
            let refs: Vec<&str> = chunk.iter().map(|&i| texts[i].as_str()).collect();
            let base = k * EMBED_CHUNK;
            let vecs = e.embed_with_progress(&refs, Role::Passage, &mut |done, _| {
                progress(Progress::At(base + done))
            })?;
            for (&i, v) in chunk.iter().zip(vecs) {
                out[i] = v;
            }
        }
        progress(Progress::End);
        Ok(out)
    }

    /// The token states of `texts` as passages, in input order, read in [`TOKEN_CHUNK`]s of
    /// similar length.
    fn passage_token_states(&mut self, texts: &[&str]) -> Result<Vec<TokenStates>, BuildError> {
        let options = EmbedderOptions {
            full_tokenizer: true,
            in_place: false,
            ..EmbedderOptions::default()
        };
        self.load(options)?;
        let e = loaded(&self.model, &self.loaded);
        (self.progress)(Progress::Start(Step::ReadingTokens, texts.len()));
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| texts[i].len());
        let mut out: Vec<Option<TokenStates>> = vec![None; texts.len()];
        for (k, chunk) in order.chunks(TOKEN_CHUNK).enumerate() {
            let refs: Vec<&str> = chunk.iter().map(|&i| texts[i]).collect();
            for (&i, t) in chunk.iter().zip(e.token_states(&refs, Role::Passage)?) {
                out[i] = Some(t);
            }
            (self.progress)(Progress::At(k * TOKEN_CHUNK + chunk.len()));
        }
        (self.progress)(Progress::End);
        let got = out.iter().flatten().count();
        out.into_iter()
            .map(|t| {
                t.ok_or(BuildError::Index(IndexError::Embedding {
                    got,
                    dim: crate::model::DIM,
                    expected: texts.len(),
                }))
            })
            .collect()
    }
}

/// The embedder of a build once [`Builder::load`] ran.
fn loaded<'b>(model: &'b Model<'_>, loaded: &'b Option<Embedder>) -> &'b Embedder {
    match model {
        Model::Loaded(e) => e,
        Model::Files(_) => loaded.as_ref().expect("loaded before use"),
    }
}
