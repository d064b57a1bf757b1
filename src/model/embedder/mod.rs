//! The embedder: the converted model run through fastembed's `TextEmbedding` (how a corpus is
//! embedded) or, for queries, in place over the memory-mapped `model.ort` ([`super::encoder`]:
//! a third of the session's start-up); with e5 prefixes, length-sorted batching and a tokenizer
//! built in parallel with the ONNX Runtime session.
//!
//! Either way a [`Runner`] holds the tokenizer, runs the model and mean-pools. A query runs
//! with a reduced tokenizer built for its own text
//! ([`super::fasttok`], ~50 ms on the loaded 2-core machine) instead of the 250k-piece one
//! (about a second, built on a spare thread once a process embeds a second time).
//!
//! Here: the options, the load and the batched embedding. The runtimes are in `runner`, the
//! tokenizer switching in `tokenizer`, token states in `token_states`.

mod runner;
mod token_states;
mod tokenizer;

pub use token_states::TokenStates;
pub use tokenizer::load_tokenizer_json;

use runner::{Runner, open_session};
use tokenizer::{configure, full_tokenizer};

use super::fasttok::VocabIndex;
use super::onnx::Variant;
use super::provision::{ModelFiles, ort_lib_override};
use super::runtime;
use super::{DIM, ModelError};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use tokenizers::Tokenizer;

/// How a text is used; e5 was trained with these prefixes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// A search query, or either side of a symmetric similarity: `"query: "`.
    Query,
    /// A document to be found: `"passage: "`.
    Passage,
    /// No prefix (the text already carries one).
    Raw,
}

impl Role {
    pub fn prefix(self) -> &'static str {
        match self {
            Role::Query => "query: ",
            Role::Passage => "passage: ",
            Role::Raw => "",
        }
    }
}

/// The identifier of the vectors a variant produces ([`Variant::model_id`]).
pub fn model_id(variant: Variant) -> &'static str {
    variant.model_id()
}

/// Options for [`Embedder::load`].
#[derive(Debug, Clone)]
pub struct EmbedderOptions {
    /// ONNX Runtime intra-op threads (default: number of cores).
    pub threads: Option<usize>,
    /// Texts per model call (default 32).
    pub batch_size: usize,
    /// Upper bound on padded tokens per model call (default 1024): long texts get smaller
    /// batches. Measured on 2 cores, ~370-token Chinese paragraphs: 5.2 passages/s at 1024,
    /// 4.2/s at 8192 (activations of big batches spill out of cache); titles are unaffected.
    pub max_batch_tokens: usize,
    /// ONNX Runtime library; default: `RECOMMEND_ORT_LIB`, `ORT_DYLIB_PATH`, else the installed one.
    pub ort_lib: Option<PathBuf>,
    /// Show a progress bar on stderr (when it is a terminal) for runs of more than one batch.
    pub progress: bool,
    /// Tokens per text the model sees, `<s>` and `</s>` included (default and maximum 512, the
    /// model's window); longer texts are cut. Vectors made with another value differ for long
    /// texts: not for an index whose model id does not say so (used to measure truncation).
    pub max_tokens: usize,
    /// Build the full 250k-piece tokenizer at load (in parallel with the session, ~1 s of CPU)
    /// instead of on demand. Useful before embedding thousands of texts; a query does not need it.
    pub full_tokenizer: bool,
    /// Let ONNX Runtime's idle worker threads spin for the next call (its default). Right for a
    /// resident process or a bulk run, where calls follow each other; a one-query process turns
    /// it off: the spinning threads only compete with the start-up work still running on the
    /// other threads (measured on 2 busy cores: cold `search` 0.87x the wall time without it).
    pub spin_threads: bool,
    /// The texts the first call will embed, when known before the load (a one-shot query):
    /// their reduced tokenizer (tens of ms) is then built beside the session instead of after
    /// it, on the way to the first result.
    pub first_texts: Vec<(String, Role)>,
    /// Run the model with our session over the memory-mapped `model.ort` (the default: what a
    /// query waits for, ~0.1 s to a session instead of ~0.3 s, [`super::encoder`]); `false`
    /// runs it through fastembed (from the bytes of `model.ort`, else `model.onnx`), as
    /// `recommend index` does for a corpus, where the load is a fraction of a second of minutes.
    /// Both give the same vectors (same graph, inputs and pooling; tested).
    pub in_place: bool,
}

impl Default for EmbedderOptions {
    fn default() -> Self {
        EmbedderOptions {
            threads: None,
            batch_size: 32,
            max_batch_tokens: 1024,
            ort_lib: None,
            progress: false,
            max_tokens: super::convert::MAX_LENGTH,
            full_tokenizer: false,
            spin_threads: true,
            first_texts: Vec::new(),
            in_place: true,
        }
    }
}

/// Where the load time went.
#[derive(Debug, Clone, Copy, Default)]
pub struct LoadTimings {
    pub ort_init: Duration,
    /// Reading the vocabulary and building the tokenizer index (in parallel with the session).
    pub tokenizer: Duration,
    /// Creating the ONNX Runtime session.
    pub session: Duration,
    pub total: Duration,
    /// Whether the session came from the optimised `model.ort` (else from `model.onnx`).
    pub optimized: bool,
}

/// A loaded embedding model. `embed` takes `&self`; calls are serialized internally.
pub struct Embedder {
    inner: Mutex<State>,
    index: Arc<VocabIndex>,
    variant: Variant,
    options: EmbedderOptions,
    timings: LoadTimings,
}

struct State {
    te: Runner,
    /// `te`'s tokenizer is the full tokenizer; until it is, each call builds a reduced one and
    /// `te` holds the placeholder between calls.
    full: bool,
    /// Texts embedded with per-call reduced tokenizers so far.
    reduced_texts: usize,
    /// The full tokenizer being built on a spare thread (see `embed_with_progress`).
    pending: Option<JoinHandle<Result<Tokenizer, ModelError>>>,
    /// A reduced tokenizer built at load for [`EmbedderOptions::first_texts`] (prefixed).
    prepared: Option<(Vec<String>, Tokenizer)>,
}

impl Embedder {
    /// Load the model. Builds the tokenizer on a second thread while the ONNX Runtime session
    /// is created (over the mapped `model.ort` when the install has one, else by fastembed). Never
    /// panics on a missing or broken library: returns an error.
    pub fn load(files: &ModelFiles, options: EmbedderOptions) -> Result<Embedder, ModelError> {
        let t0 = Instant::now();
        let lib = options
            .ort_lib
            .clone()
            .or_else(ort_lib_override)
            .unwrap_or_else(|| files.ort_lib.clone());
        // The tokenizer needs no ONNX Runtime: its thread starts first, beside loading the
        // library (~50 ms with its environment) and creating the session.
        let weights = files.dir.join(super::files::WEIGHTS);
        let want_full = options.full_tokenizer;
        let max_tokens = options.max_tokens;
        let first: Vec<String> = options
            .first_texts
            .iter()
            .map(|(t, role)| format!("{}{t}", role.prefix()))
            .collect();
        let tok_thread = std::thread::spawn(move || {
            let t = Instant::now();
            let index = VocabIndex::load(&weights)?;
            let full = if want_full {
                Some(full_tokenizer(&index, max_tokens)?)
            } else {
                None
            };
            let prepared = if full.is_none() && !first.is_empty() {
                let refs: Vec<&str> = first.iter().map(String::as_str).collect();
                let tok = configure(index.reduced_for(&refs)?, max_tokens);
                Some((first, tok))
            } else {
                None
            };
            Ok::<_, ModelError>((index, full, prepared, t.elapsed()))
        });

        let env = runtime::environment(&lib)?;
        let ort_init = t0.elapsed();

        let t1 = Instant::now();
        let threads = options.threads.unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        });
        let session = open_session(&env, files, threads, &options);
        let session_time = t1.elapsed();
        let joined = tok_thread
            .join()
            .map_err(|_| ModelError::Tokenizer("tokenizer thread panicked".into()))?;
        let (mut te, optimized) = session?;
        let (index, full, prepared, tok_time) = joined?;
        let has_full = full.is_some();
        if let Some(full) = full {
            *te.tokenizer_mut() = full;
        }
        Ok(Embedder {
            inner: Mutex::new(State {
                te,
                full: has_full,
                reduced_texts: 0,
                pending: None,
                prepared,
            }),
            index: Arc::new(index),
            variant: files.variant,
            options,
            timings: LoadTimings {
                ort_init,
                tokenizer: tok_time,
                session: session_time,
                total: t0.elapsed(),
                optimized,
            },
        })
    }

    /// Embedding dimension (384).
    pub fn dim(&self) -> usize {
        DIM
    }

    /// Identifier of the vectors this embedder produces.
    pub fn model_id(&self) -> &'static str {
        model_id(self.variant)
    }

    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// Where the load time went.
    pub fn load_timings(&self) -> LoadTimings {
        self.timings
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, State>, ModelError> {
        self.inner
            .lock()
            .map_err(|_| ModelError::Runtime("embedder poisoned by an earlier panic".into()))
    }

    /// Embed texts; one L2-normalized 384-d vector per text, in input order.
    pub fn embed(&self, texts: &[&str], role: Role) -> Result<Vec<Vec<f32>>, ModelError> {
        if self.options.progress && texts.len() > self.options.batch_size {
            let pb = indicatif::ProgressBar::with_draw_target(
                Some(texts.len() as u64),
                if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
                    indicatif::ProgressDrawTarget::stderr()
                } else {
                    indicatif::ProgressDrawTarget::hidden()
                },
            );
            if let Ok(s) = indicatif::ProgressStyle::with_template(
                "embedding [{elapsed}] [{bar:30}] {pos}/{len} ({per_sec}, {eta} left)",
            ) {
                pb.set_style(s.progress_chars("=> "));
            }
            let r =
                self.embed_with_progress(texts, role, &mut |done, _| pb.set_position(done as u64));
            pb.finish_and_clear();
            r
        } else {
            self.embed_with_progress(texts, role, &mut |_, _| {})
        }
    }

    /// [`embed`](Self::embed) with a callback `(texts done, total)` after each batch.
    pub fn embed_with_progress(
        &self,
        texts: &[&str],
        role: Role,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<Vec<Vec<f32>>, ModelError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let prefixed: Vec<String> = texts
            .iter()
            .map(|t| format!("{}{}", role.prefix(), t))
            .collect();
        let refs: Vec<&str> = prefixed.iter().map(|s| s.as_str()).collect();
        self.with_tokenizer_for(&refs, &mut |te| self.run_batches(te, &refs, progress))
    }

    /// Run the model over `texts` in batches of similar lengths (sorted: little padding), each
    /// within [`EmbedderOptions::batch_size`] texts and [`EmbedderOptions::max_batch_tokens`]
    /// padded tokens. Vectors come back in input order.
    fn run_batches(
        &self,
        te: &mut Runner,
        texts: &[&str],
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<Vec<Vec<f32>>, ModelError> {
        // Token counts (cheap next to the model) to sort by length and cut padding; one text
        // needs neither.
        let lens: Vec<usize> = if texts.len() == 1 {
            vec![1]
        } else {
            token_counts(te.tokenizer(), texts)?
        };
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        let mut done = 0;
        for members in length_batches(&lens, &self.options) {
            let batch: Vec<&str> = members.iter().map(|&i| texts[i]).collect();
            let vecs = te.embed(&batch)?;
            if vecs.len() != batch.len() {
                return Err(ModelError::Runtime(format!(
                    "model returned {} vectors for {} texts",
                    vecs.len(),
                    batch.len()
                )));
            }
            for (&i, v) in members.iter().zip(vecs) {
                if v.len() != DIM {
                    return Err(ModelError::Runtime(format!(
                        "model returned a {}-d vector, expected {DIM}",
                        v.len()
                    )));
                }
                out[i] = v;
            }
            done += members.len();
            progress(done, texts.len());
        }
        Ok(out)
    }

    /// Embed one text.
    pub fn embed_one(&self, text: &str, role: Role) -> Result<Vec<f32>, ModelError> {
        self.embed(&[text], role)?
            .pop()
            .ok_or_else(|| ModelError::Runtime("no vector returned".into()))
    }
}

/// How many real tokens (`<s>` and `</s>` included) each of `texts` has.
fn token_counts(tokenizer: &Tokenizer, texts: &[&str]) -> Result<Vec<usize>, ModelError> {
    Ok(tokenizer
        .encode_batch(texts.to_vec(), true)
        .map_err(|e| ModelError::Tokenizer(e.to_string()))?
        .iter()
        .map(|e| e.get_attention_mask().iter().filter(|&&m| m == 1).count())
        .collect())
}

/// The texts of token counts `lens`, sorted by length and cut into batches (little padding),
/// each within [`EmbedderOptions::batch_size`] texts and
/// [`EmbedderOptions::max_batch_tokens`] padded tokens: each batch as its texts' positions.
fn length_batches(lens: &[usize], options: &EmbedderOptions) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..lens.len()).collect();
    order.sort_by_key(|&i| lens[i]);
    let batch_size = options.batch_size.max(1);
    let max_tokens = options.max_batch_tokens.max(1);
    let mut batches = Vec::new();
    let mut start = 0;
    while start < order.len() {
        // Sorted ascending: the last member of a batch is its longest.
        let mut end = start + 1;
        while end < order.len()
            && end - start < batch_size
            && (end - start + 1) * lens[order[end]] <= max_tokens
        {
            end += 1;
        }
        batches.push(order[start..end].to_vec());
        start = end;
    }
    batches
}
