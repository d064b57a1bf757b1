//! A session: one index opened for queries, and the model that embeds them.
//!
//! [`Session::open`] is the one place the policy of opening an index lives: a missing file is
//! an error naming the command that builds one, temp files left by a killed build are swept,
//! the file is validated ([`Index::load`]), and an index older than its corpus is refused when
//! the corpus is at hand (unchanged files are recognised by their fingerprint without being
//! parsed). The model is loaded on first use only ([`Session::embedder`]), so commands that
//! never embed (`--like`, lexical search, topics, paths, maps) never pay for it, and it is
//! checked once against the model id the index was built with.
//!
//! Queries go through [`QueryOptions`], validated once when built; every command and
//! `recommend serve` rank through [`Session::related`] and [`Session::search`], so a result is
//! the same whichever front end asked.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::thread::JoinHandle;

use crate::corpus::{Corpus, CorpusError, LoadOptions};
use crate::engine::{self, Filters, Hit, Mode, ResolveError};
use crate::index::{Index, IndexError};
use crate::model::{self, Embedder, EmbedderOptions, ModelError, Role};

/// Why a session could not open or answer. [`SessionError::is_input`] tells a mistake in what
/// was asked (exit code 2) from a failure to do it (exit code 1).
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error(
        "no index at {0}: build one with `recommend index --corpus PATH --out {0}`, or pass \
         --index PATH"
    )]
    NoIndex(String),
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error(transparent)]
    Corpus(#[from] CorpusError),
    /// Installing the model failed (not a damaged install: that error names its own repair).
    #[error("cannot install the model into {}", dir.display())]
    Install {
        dir: PathBuf,
        #[source]
        source: ModelError,
    },
    /// A damaged install (the error names its repair), or embedding failed.
    #[error(transparent)]
    Model(ModelError),
    #[error(
        "cannot load the model in {}: {message}; `recommend model status` checks every file, and \
         `recommend model install --force` repairs the install",
        dir.display()
    )]
    Load { dir: PathBuf, message: String },
    /// The model could not be loaded earlier in this session (the first error, as text).
    #[error("{0}")]
    Unavailable(String),
    #[error(
        "{index} was built with model {built}, but the installed model is {installed}; rebuild \
         it with `recommend index`"
    )]
    ModelMismatch {
        index: String,
        built: String,
        installed: String,
    },
    #[error(transparent)]
    Resolve(#[from] ResolveError),
    /// A mistake in the question: an empty query, a filter that matches nothing, ...
    #[error("{0}")]
    Input(String),
}

impl SessionError {
    /// A mistake in what was asked (bad options, unknown papers, an invalid corpus) rather than
    /// a failure to answer it.
    pub fn is_input(&self) -> bool {
        match self {
            SessionError::Input(_) | SessionError::Resolve(_) => true,
            SessionError::Corpus(c) => c.is_input(),
            _ => false,
        }
    }
}

/// The options of one ranking query (`--like`, `search`, and their HTTP endpoints), checked
/// when built. A new per-query switch (such as exact search without the HNSW graph) is one
/// more field here, passed on in [`Session::related`] and [`Session::search`]; front ends build
/// this with `..QueryOptions::default()` so they keep compiling.
#[derive(Debug, Clone)]
pub struct QueryOptions {
    /// Number of results, at least 1.
    pub top: usize,
    /// Which signals rank the results.
    pub mode: Mode,
    /// Which papers may be results.
    pub filters: Filters,
}

impl Default for QueryOptions {
    fn default() -> QueryOptions {
        QueryOptions {
            top: 10,
            mode: Mode::Hybrid,
            filters: Filters::default(),
        }
    }
}

impl QueryOptions {
    /// Check what can be checked without an index.
    pub fn validated(self) -> Result<QueryOptions, SessionError> {
        if self.top == 0 {
            return Err(SessionError::Input("-k/--top must be at least 1".into()));
        }
        Ok(self)
    }
}

/// A free-text query within the length limit of every query input
/// ([`engine::MAX_QUERY_CHARS`]) that holds at least one letter or digit: a query of only
/// punctuation or symbols ("!!!", "???") has nothing to match, and its embedding would rank
/// the list by noise.
pub fn check_query(text: &str) -> Result<(), SessionError> {
    engine::resolve::check_length(text)?;
    if text.trim().is_empty() {
        return Err(SessionError::Input(
            "empty query: give some words to search for".into(),
        ));
    }
    if !text.chars().any(char::is_alphanumeric) {
        return Err(SessionError::Input(format!(
            "the query {:?} has no words, only punctuation or symbols: give some words to \
             search for",
            text.trim()
        )));
    }
    Ok(())
}

/// Refuse a topic filter that matches none of `n` papers (almost always a typo), naming the
/// topics there are. `accepts(i)` says whether paper `i` matches, `topic_of(i)` names its topic.
pub fn check_topic(
    topic: &str,
    n: usize,
    accepts: impl Fn(usize) -> bool,
    topic_of: impl Fn(usize) -> String,
) -> Result<(), SessionError> {
    if (0..n).any(accepts) {
        return Ok(());
    }
    let mut topics: Vec<String> = (0..n).map(topic_of).collect();
    topics.sort();
    topics.dedup();
    Err(SessionError::Input(format!(
        "no paper has a topic matching {topic:?}; topics are: {}",
        topics.join(", ")
    )))
}

/// Install the model into `dir` if needed, and load it with `options`.
pub fn load_embedder(dir: &Path, options: EmbedderOptions) -> Result<Embedder, SessionError> {
    let files = model::ensure_installed(dir).map_err(|e| match e {
        // Already names the file and the repair.
        e @ ModelError::Damaged { .. } => SessionError::Model(e),
        source => SessionError::Install {
            dir: dir.to_path_buf(),
            source,
        },
    })?;
    Embedder::load(&files, options).map_err(|e| SessionError::Load {
        dir: dir.to_path_buf(),
        message: e.to_string(),
    })
}

/// An error with its causes, joined as `anyhow` prints them with `{:#}`.
fn chain_text(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

/// `a --corpus b`: several corpus paths as the `--corpus` arguments that name them.
pub fn corpus_args(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(" --corpus ")
}

/// Whether the model is ready, for health checks.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelState {
    /// Not loaded yet (nobody asked, or the first load is under way).
    Loading,
    Ready,
    /// Loading failed; the reason.
    Unavailable(String),
}

/// How the model is loaded: a server builds the full tokenizer with the session (in parallel,
/// ~1 s of CPU) rather than per-call reduced ones (tens of ms each, the p99 of search), and
/// lets ONNX Runtime's threads spin between calls that follow each other.
fn embedder_options(resident: bool) -> EmbedderOptions {
    EmbedderOptions {
        spin_threads: resident,
        full_tokenizer: resident,
        ..EmbedderOptions::default()
    }
}

/// An opened index and, once asked for, the model (see the module documentation).
pub struct Session {
    index_path: PathBuf,
    model_dir: PathBuf,
    index: Index,
    embedder: OnceLock<Result<Embedder, String>>,
    /// A model load started by [`Session::open_loading_model`], taken by the first
    /// [`Session::embedder`].
    preload: std::sync::Mutex<Option<JoinHandle<Result<Embedder, SessionError>>>>,
    /// A long-lived process (`serve`): the model is tuned for calls that follow each other.
    resident: bool,
}

impl Session {
    /// Open the index at `index_path` (see the module documentation for what is checked); the
    /// model, when needed, comes from `model_dir`.
    pub fn open(index_path: &Path, model_dir: PathBuf) -> Result<Session, SessionError> {
        if !index_path.exists() {
            return Err(SessionError::NoIndex(index_path.display().to_string()));
        }
        // Temp files left by a killed `index` run (SIGKILL, power cut) go now.
        crate::safe_fs::sweep_stale(
            index_path
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .unwrap_or(Path::new(".")),
        );
        let index = Index::load(index_path)?;
        check_fresh(&index)?;
        Ok(Session {
            index_path: index_path.to_path_buf(),
            model_dir,
            index,
            embedder: OnceLock::new(),
            preload: std::sync::Mutex::new(None),
            resident: false,
        })
    }

    /// [`Session::open`] for a command that will embed a query: the model starts loading on a
    /// spare thread before the index is opened, so that loading ONNX Runtime (~50 ms before
    /// the session is even created) overlaps opening and checking the index. Only a model
    /// already installed is preloaded: installing (a download) waits until the index is known
    /// to be usable.
    /// `queries` are the texts the command will search for: their tokenizer is prepared with
    /// the model.
    pub fn open_loading_model(
        index_path: &Path,
        model_dir: PathBuf,
        queries: &[String],
    ) -> Result<Session, SessionError> {
        let preload = model::is_installed(&model_dir).then(|| {
            let dir = model_dir.clone();
            let options = EmbedderOptions {
                first_texts: queries.iter().map(|q| (q.clone(), Role::Query)).collect(),
                ..embedder_options(false)
            };
            std::thread::spawn(move || load_embedder(&dir, options))
        });
        let session = Session::open(index_path, model_dir)?;
        *session.preload.lock().unwrap_or_else(|e| e.into_inner()) = preload;
        Ok(session)
    }

    pub fn index(&self) -> &Index {
        &self.index
    }

    /// `--exact`: answer every query by the exact scan, never the HNSW graph
    /// ([`Index::set_exact_scan`]); it applies to topics and paths too, not to one query.
    pub fn set_exact_scan(&mut self, exact: bool) {
        self.index.set_exact_scan(exact);
    }

    /// Mark the session as serving many queries in one process (see
    /// [`EmbedderOptions::spin_threads`]); call before the model is first needed.
    pub fn set_resident(&mut self, resident: bool) {
        self.resident = resident;
    }

    /// The index file, as given.
    pub fn index_path(&self) -> &Path {
        &self.index_path
    }

    /// The model, loaded (and installed if needed) on the first call and checked against the
    /// index; concurrent callers wait for that one load. A failure is kept: later calls answer
    /// it again without retrying.
    pub fn embedder(&self) -> Result<&Embedder, SessionError> {
        self.embedder
            .get_or_init(|| {
                let preload = self
                    .preload
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .take();
                let loaded = match preload {
                    Some(handle) if !self.resident => handle.join().unwrap_or_else(|_| {
                        Err(SessionError::Unavailable("the model load panicked".into()))
                    }),
                    _ => load_embedder(&self.model_dir, embedder_options(self.resident)),
                };
                let e = loaded.map_err(|e| chain_text(&e))?;
                self.check_model(&e).map_err(|e| chain_text(&e))?;
                Ok(e)
            })
            .as_ref()
            .map_err(|e| SessionError::Unavailable(e.clone()))
    }

    /// Whether the model is loaded, without loading it.
    pub fn model_state(&self) -> ModelState {
        match self.embedder.get() {
            None => ModelState::Loading,
            Some(Ok(_)) => ModelState::Ready,
            Some(Err(e)) => ModelState::Unavailable(e.clone()),
        }
    }

    /// The index must come from the model that embeds the queries.
    fn check_model(&self, e: &Embedder) -> Result<(), SessionError> {
        if e.model_id() != self.index.meta.model_id {
            return Err(SessionError::ModelMismatch {
                index: self.index_path.display().to_string(),
                built: self.index.meta.model_id.clone(),
                installed: e.model_id().to_string(),
            });
        }
        Ok(())
    }

    /// Refuse a topic filter that matches no paper of the index.
    pub fn check_filters(&self, f: &Filters) -> Result<(), SessionError> {
        let Some(t) = &f.topic else {
            return Ok(());
        };
        let probe = Filters {
            topic: Some(t.clone()),
            ..Filters::default()
        };
        let index = &self.index;
        check_topic(
            t,
            index.len(),
            |i| probe.accepts_at(index, i),
            |i| index.table().topic(i).into_owned(),
        )
    }

    /// Related work to resolved papers `seeds`, away from `negatives` (`--like`, `--unlike`);
    /// the filters are checked by the caller.
    pub fn related(
        &self,
        seeds: &[usize],
        negatives: &[usize],
        q: &QueryOptions,
    ) -> Result<Vec<Hit>, SessionError> {
        if let Some(s) = seeds.iter().find(|s| negatives.contains(s)) {
            return Err(SessionError::Input(format!(
                "{:?} is both liked and unliked",
                self.index.paper(*s).title
            )));
        }
        Ok(engine::related(
            &self.index,
            seeds,
            negatives,
            q.top,
            q.mode,
            &q.filters,
        ))
    }

    /// One free-text query; loads the model unless the mode is lexical. The filters are checked
    /// by the caller.
    pub fn search(&self, text: &str, q: &QueryOptions) -> Result<Vec<Hit>, SessionError> {
        check_query(text)?;
        let (qv, tokens) = match q.mode {
            Mode::Lexical => (None, None),
            // One run of the model gives the query's vector and, for an index that matches
            // tokens, its token states.
            Mode::Hybrid if self.index.search_tokens().is_some() => {
                let e = self.embedder()?;
                let (v, t) = e
                    .embed_query_with_tokens(text)
                    .map_err(SessionError::Model)?;
                (Some(v), Some(t))
            }
            _ => {
                let e = self.embedder()?;
                let mut v = e.embed(&[text], Role::Query).map_err(SessionError::Model)?;
                (Some(v.remove(0)), None)
            }
        };
        Ok(engine::search(
            &self.index,
            text,
            qv.as_deref(),
            tokens.as_ref(),
            q.top,
            q.mode,
            &q.filters,
        ))
    }
}

/// The freshness policy: when every recorded corpus file is at hand and one of them changed
/// since the build, the corpus is loaded and its papers compared with the index's; changed
/// bytes may still hold the same papers. A missing corpus (an index copied elsewhere) is not
/// checked.
fn check_fresh(index: &Index) -> Result<(), SessionError> {
    let corpora = index.recorded_corpora();
    index.check_terms(&corpus_args(&corpora))?;
    if corpora.iter().all(|p| p.exists()) && !index.fingerprints_match(&corpora) {
        let corpus = Corpus::load_with(&corpora, &LoadOptions::default())?;
        index.check_fresh(&corpus.papers, &corpus_args(&corpora))?;
    }
    Ok(())
}
