//! The embedder: token ids from the tokenizer, vectors from the ONNX Runtime encoder
//! ([`super::runtime`]), with e5 prefixes, length-sorted batching and a tokenizer built in
//! parallel with the session.

use super::fasttok::{Toks, VocabIndex};
use super::onnx::Variant;
use super::provision::{ModelFiles, ort_lib_override};
use super::runtime::{self, Encoder, SessionSource};
use super::{DIM, ModelError};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
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
    encoder: Encoder,
    /// The full tokenizer, once built; until then each call builds a reduced one.
    full: Option<Toks>,
}

/// A call with more texts than this builds the full tokenizer (once, ~1 s) instead of a reduced
/// one: a reduced tokenizer costs about a millisecond per query-sized text, so a server or a
/// batch of queries never needs the full one (nor its ~100 MB).
const REDUCED_BUDGET: usize = 512;

fn read(path: &Path) -> Result<Vec<u8>, ModelError> {
    std::fs::read(path).map_err(|e| ModelError::io(path, e))
}

/// The full tokenizer with truncation to `max_tokens` (the model's window, 512, unless
/// [`EmbedderOptions::max_tokens`] says less). Padding is the encoder's job.
fn full_toks(index: &VocabIndex, max_tokens: usize) -> Result<Toks, ModelError> {
    Ok(Toks::full(index.full()?).truncate_to(max_tokens))
}

/// Load `tokenizer.json` (used by tests to check the fast path against it).
pub fn load_tokenizer_json(path: &Path) -> Result<Tokenizer, ModelError> {
    let bytes = read(path)?;
    Tokenizer::from_bytes(&bytes)
        .map_err(|e| ModelError::Tokenizer(format!("{}: {e}", path.display())))
}

impl Embedder {
    /// Load the model. Builds the tokenizer on a second thread while ONNX Runtime creates the
    /// session (from the optimised `model.ort` when the install has one). Never panics on a
    /// missing or broken library: returns an error.
    pub fn load(files: &ModelFiles, options: EmbedderOptions) -> Result<Embedder, ModelError> {
        let t0 = Instant::now();
        let lib = options
            .ort_lib
            .clone()
            .or_else(ort_lib_override)
            .unwrap_or_else(|| files.ort_lib.clone());
        let env = runtime::environment(&lib)?;
        let ort_init = t0.elapsed();

        let weights = files.dir.join(super::files::WEIGHTS);
        let want_full = options.full_tokenizer;
        let max_tokens = options.max_tokens;
        let tok_thread = std::thread::spawn(move || {
            let t = Instant::now();
            let index = VocabIndex::load(&weights)?;
            let full = if want_full {
                Some(full_toks(&index, max_tokens)?)
            } else {
                None
            };
            Ok::<_, ModelError>((index, full, t.elapsed()))
        });

        let t1 = Instant::now();
        let threads = options.threads.unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        });
        // `<pad>` is id 1 in XLM-R; padded positions are masked out, so the id only has to be
        // a valid row.
        let session = Encoder::open(&env, &files.onnx, files.optimized.as_deref(), threads, 1);
        let session_time = t1.elapsed();
        let joined = tok_thread
            .join()
            .map_err(|_| ModelError::Tokenizer("tokenizer thread panicked".into()))?;
        let (encoder, source) = session?;
        let (index, full, tok_time) = joined?;
        Ok(Embedder {
            inner: Mutex::new(State { encoder, full }),
            index: Arc::new(index),
            variant: files.variant,
            options,
            timings: LoadTimings {
                ort_init,
                tokenizer: tok_time,
                session: session_time,
                total: t0.elapsed(),
                optimized: source == SessionSource::Optimized,
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

    /// Token ids of `text` with the role's prefix, including `<s>` and `</s>`, truncated to 512.
    pub fn tokenize(&self, text: &str, role: Role) -> Result<Vec<u32>, ModelError> {
        let input = format!("{}{}", role.prefix(), text);
        let st = self.lock()?;
        let mut ids = match &st.full {
            Some(full) => full.encode_batch(&[input.as_str()])?,
            None => self
                .index
                .reduced_for(&[input.as_str()])?
                .truncate_to(self.options.max_tokens)
                .encode_batch(&[input.as_str()])?,
        };
        ids.pop()
            .ok_or_else(|| ModelError::Tokenizer("no encoding returned".into()))
    }

    /// Build the full tokenizer now (otherwise built only for calls of more than 512 texts).
    pub fn prepare_full_tokenizer(&self) -> Result<(), ModelError> {
        let mut st = self.lock()?;
        if st.full.is_none() {
            st.full = Some(full_toks(&self.index, self.options.max_tokens)?);
        }
        Ok(())
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
        let mut st = self.lock()?;
        if st.full.is_none() && refs.len() > REDUCED_BUDGET {
            st.full = Some(full_toks(&self.index, self.options.max_tokens)?);
        }
        let ids = match &st.full {
            Some(full) => full.encode_batch(&refs)?,
            None => self
                .index
                .reduced_for(&refs)?
                .truncate_to(self.options.max_tokens)
                .encode_batch(&refs)?,
        };
        self.run_batches(&mut st.encoder, &ids, progress)
    }

    /// Run the encoder over `ids` in batches of similar lengths (sorted: little padding), each
    /// within [`EmbedderOptions::batch_size`] texts and [`EmbedderOptions::max_batch_tokens`]
    /// padded tokens. Vectors come back in input order.
    fn run_batches(
        &self,
        encoder: &mut Encoder,
        ids: &[Vec<u32>],
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<Vec<Vec<f32>>, ModelError> {
        let mut order: Vec<usize> = (0..ids.len()).collect();
        order.sort_by_key(|&i| ids[i].len());

        let mut out: Vec<Vec<f32>> = vec![Vec::new(); ids.len()];
        let batch_size = self.options.batch_size.max(1);
        let max_tokens = self.options.max_batch_tokens.max(1);
        let mut start = 0;
        while start < order.len() {
            // Sorted ascending: the last member of a batch is its longest.
            let mut end = start + 1;
            while end < order.len()
                && end - start < batch_size
                && (end - start + 1) * ids[order[end]].len() <= max_tokens
            {
                end += 1;
            }
            let batch: Vec<Vec<u32>> = order[start..end].iter().map(|&i| ids[i].clone()).collect();
            let vecs = encoder.embed(&batch)?;
            if vecs.len() != batch.len() {
                return Err(ModelError::Runtime(format!(
                    "model returned {} vectors for {} texts",
                    vecs.len(),
                    batch.len()
                )));
            }
            for (&i, v) in order[start..end].iter().zip(vecs) {
                out[i] = v;
            }
            start = end;
            progress(start, ids.len());
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
