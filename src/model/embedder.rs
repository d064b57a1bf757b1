//! The embedder: the converted model run through fastembed's `TextEmbedding` (how a corpus is
//! embedded) or, for queries, in place over the memory-mapped `model.ort` ([`super::encoder`]:
//! a third of the session's start-up); with e5 prefixes, length-sorted batching and a tokenizer
//! built in parallel with the ONNX Runtime session.
//!
//! Either way a [`Runner`] holds the tokenizer, runs the model and mean-pools. A query runs
//! with a reduced tokenizer built for its own text
//! ([`super::fasttok`], ~50 ms on the loaded 2-core machine) instead of the 250k-piece one
//! (about a second, built on a spare thread once a process embeds a second time).

use super::encoder::{Hidden, MappedEncoder};
use super::fasttok::VocabIndex;
use super::onnx::Variant;
use super::provision::{ModelFiles, ort_lib_override};
use super::runtime;
use super::{DIM, ModelError};
use fastembed::{
    InitOptionsUserDefined, OutputKey, Pooling, TextEmbedding, TokenizerFiles,
    UserDefinedEmbeddingModel,
};
use ort::environment::Environment;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer};

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

/// What runs the model: our session over the mapped `model.ort`, or fastembed's.
enum Runner {
    Mapped {
        encoder: MappedEncoder,
        tokenizer: Tokenizer,
    },
    Fastembed(TextEmbedding),
}

impl Runner {
    fn tokenizer(&self) -> &Tokenizer {
        match self {
            Runner::Mapped { tokenizer, .. } => tokenizer,
            Runner::Fastembed(te) => &te.tokenizer,
        }
    }

    fn tokenizer_mut(&mut self) -> &mut Tokenizer {
        match self {
            Runner::Mapped { tokenizer, .. } => tokenizer,
            Runner::Fastembed(te) => &mut te.tokenizer,
        }
    }

    /// One vector per text of `batch` (tokenized together, padded to the longest).
    fn embed(&mut self, batch: &[&str]) -> Result<Vec<Vec<f32>>, ModelError> {
        match self {
            Runner::Mapped { encoder, tokenizer } => encoder.embed(tokenizer, batch),
            Runner::Fastembed(te) => te.embed(batch, Some(batch.len())).map_err(fe_err),
        }
    }
}

impl Runner {
    /// The token ids, attention mask and `last_hidden_state` of `batch` (tokenized together,
    /// padded to the longest); `None` for an empty batch.
    fn hidden(&mut self, batch: &[&str]) -> Result<Option<Hidden>, ModelError> {
        match self {
            Runner::Mapped { encoder, tokenizer } => encoder.hidden(tokenizer, batch),
            Runner::Fastembed(te) => {
                if batch.is_empty() {
                    return Ok(None);
                }
                let encodings = te
                    .tokenizer
                    .encode_batch(batch.to_vec(), true)
                    .map_err(|e| ModelError::Tokenizer(e.to_string()))?;
                let len = encodings.first().map_or(0, |e| e.len());
                let flat: Vec<i64> = encodings
                    .iter()
                    .flat_map(|e| e.get_ids().iter().map(|&x| i64::from(x)))
                    .collect();
                let ids =
                    ndarray::Array2::from_shape_vec((batch.len(), len), flat).map_err(|_| {
                        ModelError::Tokenizer("texts of a batch were not padded".into())
                    })?;
                let out = te
                    .transform(batch, Some(batch.len()))
                    .map_err(fe_err)?
                    .into_raw();
                let [one] = &out[..] else {
                    return Err(ModelError::Runtime("expected one batch of outputs".into()));
                };
                let hidden = one
                    .select_output(&&[OutputKey::ByName("last_hidden_state")][..])
                    .map_err(fe_err)?
                    .into_dimensionality::<ndarray::Ix3>()
                    .map_err(|_| {
                        ModelError::Runtime(
                            "last_hidden_state is not [batch, sequence, hidden]".into(),
                        )
                    })?
                    .to_owned();
                let mask = one.attention_mask_array.clone();
                if hidden.dim().0 != ids.dim().0
                    || hidden.dim().1 != ids.dim().1
                    || mask.dim() != ids.dim()
                {
                    return Err(ModelError::Runtime(
                        "last_hidden_state does not match the batch".into(),
                    ));
                }
                Ok(Some((ids, mask, hidden)))
            }
        }
    }
}

/// The contextual vectors of one text's tokens, as the model's last layer gives them before
/// pooling: what token-level matching ([`crate::engine::alignment`]) compares. `<s>`, `</s>`
/// and padding are left out; the role's prefix tokens are kept (they occur in every text of a
/// list, which is how a caller weighing tokens by rarity gives them nothing).
#[derive(Debug, Clone, PartialEq)]
pub struct TokenStates {
    /// Token ids, one per row of `states`.
    pub ids: Vec<u32>,
    /// `ids.len()` rows of [`DIM`] values, row after row; not normalized.
    pub states: Vec<f32>,
}

/// The [`TokenStates`] of the first `texts` rows of a batch's model output.
fn token_rows(
    ids: &ndarray::Array2<i64>,
    mask: &ndarray::Array2<i64>,
    hidden: &ndarray::Array3<f32>,
    texts: usize,
) -> Result<Vec<TokenStates>, ModelError> {
    if hidden.dim().2 != DIM || hidden.dim().0 < texts {
        return Err(ModelError::Runtime(format!(
            "model returned {:?} token states for {texts} texts of {DIM} values",
            hidden.dim()
        )));
    }
    Ok((0..texts)
        .map(|row| {
            // Real tokens are the unmasked prefix of the row: `<s>` first, `</s>` last.
            let real = mask.row(row).iter().take_while(|&&m| m == 1).count();
            let keep = 1..real.saturating_sub(1).max(1);
            let mut t = TokenStates {
                ids: Vec::with_capacity(keep.len()),
                states: Vec::with_capacity(keep.len() * DIM),
            };
            for k in keep {
                t.ids.push(u32::try_from(ids[[row, k]]).unwrap_or(0));
                t.states
                    .extend(hidden.slice(ndarray::s![row, k, ..]).iter());
            }
            t
        })
        .collect())
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

/// After this many texts through per-call reduced tokenizers, build the full one at once.
const REDUCED_BUDGET: usize = 512;

/// Read a model file (tens of MB) into a buffer backed by transparent huge pages where the
/// kernel offers them: faulting the buffer in 4 KiB pages was ~10% of a cold `search`'s CPU,
/// on the path to the first result.
fn read(path: &Path) -> Result<Vec<u8>, ModelError> {
    use std::io::Read;
    let io = |e| ModelError::io(path, e);
    let mut file = std::fs::File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len() as usize;
    let mut buf: Vec<u8> = Vec::with_capacity(len + 1);
    advise_huge_pages(buf.as_mut_ptr(), buf.capacity());
    file.read_to_end(&mut buf).map_err(io)?;
    Ok(buf)
}

/// Ask for transparent huge pages over the whole 2 MiB pages inside `[ptr, ptr + len)`.
/// Advice only: the memory stays an ordinary allocation, and failure changes nothing.
fn advise_huge_pages(ptr: *mut u8, len: usize) {
    const HUGE: usize = 2 << 20;
    let start = (ptr as usize).next_multiple_of(HUGE);
    let end = (ptr as usize + len) & !(HUGE - 1);
    if end > start {
        // SAFETY: the range lies inside the caller's live allocation; MADV_HUGEPAGE changes
        // how the kernel backs it, never its contents or validity.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

/// Padding as fastembed configures it (pad to the longest in the batch); truncation to
/// `max_tokens` (the model's window, 512, is part of the tokenizer itself; a smaller
/// [`EmbedderOptions::max_tokens`] cuts further).
fn configure(mut tok: Tokenizer, max_tokens: usize) -> Tokenizer {
    let pad_id = tok.token_to_id("<pad>").unwrap_or(1);
    tok.with_padding(Some(PaddingParams {
        strategy: PaddingStrategy::BatchLongest,
        pad_id,
        pad_token: "<pad>".into(),
        ..Default::default()
    }));
    if max_tokens < super::convert::MAX_LENGTH {
        let _ = tok.with_truncation(Some(tokenizers::TruncationParams {
            max_length: max_tokens.max(2),
            ..Default::default()
        }));
    }
    tok
}

fn full_tokenizer(index: &VocabIndex, max_tokens: usize) -> Result<Tokenizer, ModelError> {
    Ok(configure(index.full()?, max_tokens))
}

/// Load `tokenizer.json` (used by tests to check the fast path against it).
pub fn load_tokenizer_json(path: &Path) -> Result<Tokenizer, ModelError> {
    let bytes = read(path)?;
    Tokenizer::from_bytes(&bytes)
        .map_err(|e| ModelError::Tokenizer(format!("{}: {e}", path.display())))
}

/// A trivial tokenizer that lets fastembed build its `TextEmbedding` at once; the real one
/// (full, or reduced per call) replaces it before any use.
fn placeholder_tokenizer() -> TokenizerFiles {
    TokenizerFiles {
        tokenizer_file: br#"{"version":"1.0","truncation":null,"padding":null,"added_tokens":[],
            "normalizer":null,"pre_tokenizer":{"type":"Whitespace"},"post_processor":null,
            "decoder":null,"model":{"type":"WordLevel","unk_token":"<unk>",
            "vocab":{"<s>":0,"<pad>":1,"</s>":2,"<unk>":3}}}"#
            .to_vec(),
        config_file: br#"{"pad_token_id":1}"#.to_vec(),
        special_tokens_map_file: b"{}".to_vec(),
        tokenizer_config_file: br#"{"model_max_length":512,"pad_token":"<pad>"}"#.to_vec(),
    }
}

fn fe_err(e: fastembed::Error) -> ModelError {
    ModelError::Runtime(e.to_string())
}

/// fastembed's `TextEmbedding` over `graph` (the bytes of `model.ort` or `model.onnx`: ONNX
/// Runtime recognises either format from memory). fastembed drops `graph` once the session
/// exists; ONNX Runtime keeps its own copy (no option to use the bytes in place is set).
fn text_embedding(
    env: &Environment,
    graph: Vec<u8>,
    threads: usize,
    spin_threads: bool,
) -> Result<TextEmbedding, ModelError> {
    let mut init = InitOptionsUserDefined::new()
        .with_environment(env.clone())
        .with_max_length(super::convert::MAX_LENGTH)
        .with_intra_threads(threads.max(1));
    if !spin_threads {
        init = init.with_session_config("session.intra_op.allow_spinning", "0");
    }
    let model =
        UserDefinedEmbeddingModel::new(graph, placeholder_tokenizer()).with_pooling(Pooling::Mean);
    TextEmbedding::try_new_from_user_defined(model, init).map_err(fe_err)
}

/// The session from the optimised graph when the install has a loadable one (an unreadable or
/// incompatible `model.ort` is not an error: the model still works), else from `model.onnx`.
/// `true` when it came from `model.ort`.
fn open_session(
    env: &Environment,
    files: &ModelFiles,
    threads: usize,
    options: &EmbedderOptions,
) -> Result<(Runner, bool), ModelError> {
    let spin = options.spin_threads;
    if options.in_place
        && let Some(path) = &files.optimized
        && let Ok(encoder) = MappedEncoder::open(env, path, threads, spin)
    {
        let tokenizer = Tokenizer::from_bytes(placeholder_tokenizer().tokenizer_file)
            .map_err(|e| ModelError::Tokenizer(e.to_string()))?;
        return Ok((Runner::Mapped { encoder, tokenizer }, true));
    }
    let open = |bytes| text_embedding(env, bytes, threads, spin);
    if let Some(path) = &files.optimized
        && let Ok(te) = read(path).and_then(open)
    {
        return Ok((Runner::Fastembed(te), true));
    }
    Ok((Runner::Fastembed(open(read(&files.onnx)?)?), false))
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

    /// Token ids of `text` with the role's prefix, including `<s>` and `</s>`, truncated to 512.
    pub fn tokenize(&self, text: &str, role: Role) -> Result<Vec<u32>, ModelError> {
        let input = format!("{}{}", role.prefix(), text);
        let st = self.lock()?;
        let enc = if st.full {
            st.te.tokenizer().encode(input.as_str(), true)
        } else {
            configure(
                self.index.reduced_for(&[input.as_str()])?,
                self.options.max_tokens,
            )
            .encode(input.as_str(), true)
        };
        Ok(enc
            .map_err(|e| ModelError::Tokenizer(e.to_string()))?
            .get_ids()
            .to_vec())
    }

    /// Build the full tokenizer now (otherwise built from the second call on, or at once for
    /// more than 512 texts).
    pub fn prepare_full_tokenizer(&self) -> Result<(), ModelError> {
        let mut st = self.lock()?;
        self.install_full(&mut st)
    }

    /// Make the full tokenizer `te.tokenizer`: the one being built on a spare thread if any,
    /// else built here.
    fn install_full(&self, st: &mut State) -> Result<(), ModelError> {
        if !st.full {
            *st.te.tokenizer_mut() = match st.pending.take() {
                Some(h) => h
                    .join()
                    .map_err(|_| ModelError::Tokenizer("tokenizer thread panicked".into()))??,
                None => full_tokenizer(&self.index, self.options.max_tokens)?,
            };
            st.full = true;
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
        self.with_tokenizer_for(&refs, &mut |te| self.run_batches(te, &refs, progress))
    }

    /// Run `run` with a tokenizer that covers `refs` (prefixed texts): the full one when it is
    /// built or due, else one reduced to these texts, swapped in for the call.
    fn with_tokenizer_for<T>(
        &self,
        refs: &[&str],
        run: &mut dyn FnMut(&mut Runner) -> Result<T, ModelError>,
    ) -> Result<T, ModelError> {
        let mut st = self.lock()?;
        if !st.full {
            // The model needs real token ids, so a reduced tokenizer keeps all 250k ids (most
            // of them empty pieces) and costs tens of ms per call; the full one costs ~1 s
            // once. A process that embeds a second time is likely to go on (a server, batch
            // queries): build the full one on a spare thread from then on and switch when it
            // is ready; a one-query process never pays for it. Large inputs build it at once.
            let ready = st.pending.as_ref().is_some_and(JoinHandle::is_finished);
            if ready || st.reduced_texts + refs.len() > REDUCED_BUDGET {
                self.install_full(&mut st)?;
            } else if st.pending.is_none() && st.reduced_texts > 0 {
                let index = Arc::clone(&self.index);
                let max_tokens = self.options.max_tokens;
                st.pending = Some(std::thread::spawn(move || {
                    full_tokenizer(&index, max_tokens)
                }));
            }
        }
        let saved = if st.full {
            None
        } else {
            st.reduced_texts += refs.len();
            // The tokenizer prepared at load covers every text it was built for, exactly.
            let reduced = match st.prepared.take() {
                Some((texts, tok)) if refs.iter().all(|r| texts.iter().any(|t| t == r)) => tok,
                _ => configure(self.index.reduced_for(refs)?, self.options.max_tokens),
            };
            Some(std::mem::replace(st.te.tokenizer_mut(), reduced))
        };
        let result = run(&mut st.te);
        if let Some(placeholder) = saved {
            *st.te.tokenizer_mut() = placeholder;
        }
        result
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
            te.tokenizer()
                .encode_batch(texts.to_vec(), true)
                .map_err(|e| ModelError::Tokenizer(e.to_string()))?
                .iter()
                .map(|e| e.get_attention_mask().iter().filter(|&&m| m == 1).count())
                .collect()
        };
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| lens[i]);

        let mut out: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        let batch_size = self.options.batch_size.max(1);
        let max_tokens = self.options.max_batch_tokens.max(1);
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
            let batch: Vec<&str> = order[start..end].iter().map(|&i| texts[i]).collect();
            let vecs = te.embed(&batch)?;
            if vecs.len() != batch.len() {
                return Err(ModelError::Runtime(format!(
                    "model returned {} vectors for {} texts",
                    vecs.len(),
                    batch.len()
                )));
            }
            for (&i, v) in order[start..end].iter().zip(vecs) {
                if v.len() != DIM {
                    return Err(ModelError::Runtime(format!(
                        "model returned a {}-d vector, expected {DIM}",
                        v.len()
                    )));
                }
                out[i] = v;
            }
            start = end;
            progress(start, texts.len());
        }
        Ok(out)
    }

    /// The token states ([`TokenStates`]) of each text with `role`'s prefix, in input order,
    /// in batches of similar lengths within [`EmbedderOptions::max_batch_tokens`]. The full
    /// tokenizer is built first if it is not yet (about a second): this serves builds, not
    /// one-shot queries.
    pub fn token_states(&self, texts: &[&str], role: Role) -> Result<Vec<TokenStates>, ModelError> {
        let prefixed: Vec<String> = texts
            .iter()
            .map(|t| format!("{}{}", role.prefix(), t))
            .collect();
        let mut st = self.lock()?;
        self.install_full(&mut st)?;
        let lens: Vec<usize> = st
            .te
            .tokenizer()
            .encode_batch(
                prefixed.iter().map(String::as_str).collect::<Vec<_>>(),
                true,
            )
            .map_err(|e| ModelError::Tokenizer(e.to_string()))?
            .iter()
            .map(|e| e.get_attention_mask().iter().filter(|&&m| m == 1).count())
            .collect();
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| lens[i]);
        let mut out: Vec<Option<TokenStates>> = vec![None; texts.len()];
        let max_tokens = self.options.max_batch_tokens.max(1);
        let mut start = 0;
        while start < order.len() {
            let mut end = start + 1;
            while end < order.len()
                && end - start < self.options.batch_size.max(1)
                && (end - start + 1) * lens[order[end]] <= max_tokens
            {
                end += 1;
            }
            let batch: Vec<&str> = order[start..end]
                .iter()
                .map(|&i| prefixed[i].as_str())
                .collect();
            let Some((ids, mask, hidden)) = st.te.hidden(&batch)? else {
                break;
            };
            let rows = token_rows(&ids, &mask, &hidden, end - start)?;
            for (&i, t) in order[start..end].iter().zip(rows) {
                out[i] = Some(t);
            }
            start = end;
        }
        out.into_iter()
            .map(|t| t.ok_or_else(|| ModelError::Runtime("no token states returned".into())))
            .collect()
    }

    /// One query's vector and its token states ([`TokenStates`]) from one run of the model,
    /// with the tokenizer a query gets (no full tokenizer built for it): the vector is the one
    /// [`Embedder::embed`] gives.
    pub fn embed_query_with_tokens(
        &self,
        text: &str,
    ) -> Result<(Vec<f32>, TokenStates), ModelError> {
        let prefixed = format!("{}{}", Role::Query.prefix(), text);
        let refs = [prefixed.as_str()];
        let (ids, mask, hidden) = self
            .with_tokenizer_for(&refs, &mut |te| te.hidden(&refs))?
            .ok_or_else(|| ModelError::Runtime("no output for the query".into()))?;
        let vector = super::encoder::mean_pool(&mask, &hidden)?
            .pop()
            .ok_or_else(|| ModelError::Runtime("no vector returned".into()))?;
        let mut states = token_rows(&ids, &mask, &hidden, 1)?;
        Ok((vector, states.remove(0)))
    }

    /// Embed one text.
    pub fn embed_one(&self, text: &str, role: Role) -> Result<Vec<f32>, ModelError> {
        self.embed(&[text], role)?
            .pop()
            .ok_or_else(|| ModelError::Runtime("no vector returned".into()))
    }
}
