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
//! `recommend serve` answer through the session's methods ([`Session::like`],
//! [`Session::search`], [`Session::path`], [`Session::topics`], [`Session::resolve`]), so a
//! result, and the typed error of a refused question, is the same whichever front end asked.
//! A front end reads kind and mode values with [`parse_kind`] and [`parse_mode`], and hears of
//! a paper name taken as a guess through [`Session::set_on_guess`].

mod query_cache;
mod values;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::thread::JoinHandle;

use crate::corpus::{Corpus, CorpusError};
use crate::engine::path::{PathError, Step};
use crate::engine::topics::{Topic, TopicError};
use crate::engine::{self, Filters, Hit, Matched, Mode, ResolveError};
use crate::index::{CorpusRead, Index, IndexError, Searcher};
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
    /// The abstracts cache beside the index cannot be read for the freshness check.
    #[error(transparent)]
    Abstracts(#[from] crate::corpus::abstracts::AbstractsError),
    /// A reading path that cannot be made ([`Session::path`]).
    #[error(transparent)]
    Path(#[from] PathError),
    /// Topics that cannot be made ([`Session::topics`]).
    #[error(transparent)]
    Topics(#[from] TopicError),
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
            SessionError::Abstracts(e) => {
                matches!(e, crate::corpus::abstracts::AbstractsError::Format { .. })
            }
            SessionError::Path(e) => matches!(e, PathError::SamePaper | PathError::ZeroSteps),
            SessionError::Topics(e) => {
                matches!(e, TopicError::ZeroK | TopicError::TooManyTopics { .. })
            }
            _ => false,
        }
    }
}

pub use values::{
    Guess, QueryOptions, UnknownValue, check_query, check_topic, parse_kind, parse_mode,
};

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
pub fn chain_text(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

/// `--corpus a --corpus b`: the corpus paths as the arguments that name them (`--zotero` for a
/// Zotero library), then the options the build read them with, for a rebuild command in a
/// message.
pub fn corpus_args(paths: &[PathBuf], read: &CorpusRead) -> String {
    let named = paths
        .iter()
        .map(|p| {
            // A Zotero library is given as it was: `--zotero` (its folder or its database).
            let zotero = crate::corpus::Format::of_path(p) == Some(crate::corpus::Format::Zotero)
                || p.join("zotero.sqlite").is_file()
                || crate::corpus::zotero::is_database(p);
            let flag = if zotero { "--zotero" } else { "--corpus" };
            format!("{flag} {}", p.display())
        })
        .collect::<Vec<_>>()
        .join(" ");
    named + &read.args()
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

/// What a session tells of a guess ([`Session::set_on_guess`]).
type OnGuess = dyn Fn(&Guess) + Send + Sync;

/// An opened index and, once asked for, the model (see the module documentation).
pub struct Session {
    index_path: PathBuf,
    model_dir: PathBuf,
    index: Searcher,
    embedder: OnceLock<Result<Embedder, String>>,
    /// A model load started by [`Session::open_loading_model`], taken by the first
    /// [`Session::embedder`].
    preload: std::sync::Mutex<Option<JoinHandle<Result<Embedder, SessionError>>>>,
    /// A long-lived process (`serve`): the model is tuned for calls that follow each other.
    resident: bool,
    /// A long-lived process's recent query vectors ([`Session::set_resident`]).
    query_cache: Option<query_cache::QueryCache>,
    /// Told of every paper name resolved by a guess ([`Session::set_on_guess`]).
    on_guess: Option<Box<OnGuess>>,
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
        Ok(Session::from_index(
            index,
            index_path.to_path_buf(),
            model_dir,
        ))
    }

    /// A session over an index already in memory: the published version of a store
    /// ([`crate::store::Snapshot`]), named `label` (the store's target) in messages. The store
    /// checked the index when it was pushed; the model is checked against it as for a file.
    pub fn from_index(index: impl Into<Searcher>, label: PathBuf, model_dir: PathBuf) -> Session {
        Session {
            index_path: label,
            model_dir,
            index: index.into(),
            embedder: OnceLock::new(),
            preload: std::sync::Mutex::new(None),
            resident: false,
            query_cache: None,
            on_guess: None,
        }
    }

    /// Replace the index (a newer version of the store), keeping the model loaded; refused
    /// when the new index comes from another model than the loaded one.
    pub fn replace_index(&mut self, index: impl Into<Searcher>) -> Result<(), SessionError> {
        let index = index.into();
        if let Some(Ok(e)) = self.embedder.get()
            && e.model_id() != index.meta.model_id
        {
            return Err(SessionError::ModelMismatch {
                index: self.index_path.display().to_string(),
                built: index.meta.model_id.clone(),
                installed: e.model_id().to_string(),
            });
        }
        let exact = self.index.exact_scan();
        self.index = index;
        self.index.set_exact_scan(exact);
        Ok(())
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

    /// The opened index and its query-time state.
    pub fn searcher(&self) -> &Searcher {
        &self.index
    }

    /// `--exact`: answer every query by the exact scan, never the HNSW graph
    /// ([`Searcher::set_exact_scan`]); it applies to topics and paths too, not to one query.
    pub fn set_exact_scan(&mut self, exact: bool) {
        self.index.set_exact_scan(exact);
    }

    /// Mark the session as serving many queries in one process (see
    /// [`EmbedderOptions::spin_threads`]); call before the model is first needed.
    /// It also keeps its recent query vectors, so a query asked again skips the model.
    pub fn set_resident(&mut self, resident: bool) {
        self.resident = resident;
        self.query_cache = resident.then(query_cache::QueryCache::default);
    }

    /// Call `f` for every paper name this session resolves by a guess ([`Guess`]), when it is
    /// made (before the answer, or the error of a later name): the CLI prints it as a note on
    /// stderr. Without it, guesses are silent.
    pub fn set_on_guess(&mut self, f: impl Fn(&Guess) + Send + Sync + 'static) {
        self.on_guess = Some(Box::new(f));
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

    /// The paper `name` names (id, title, alias, arXiv id, DOI; [`engine::resolve_match`]); a
    /// containment or fuzzy match is told to the [`Session::set_on_guess`] callback.
    pub fn resolve(&self, name: &str) -> Result<usize, SessionError> {
        let r = engine::resolve_match(&self.index, name)?;
        if r.matched != Matched::Exact
            && let Some(f) = &self.on_guess
        {
            let p = self.index.paper(r.paper);
            f(&Guess {
                name: name.trim().to_string(),
                paper: r.paper,
                id: p.id.clone(),
                title: p.title.clone(),
                matched: r.matched,
            });
        }
        Ok(r.paper)
    }

    fn resolve_all(&self, names: &[String]) -> Result<Vec<usize>, SessionError> {
        names.iter().map(|n| self.resolve(n)).collect()
    }

    /// `--like`: related work to the papers named `likes`, away from those named `unlikes`.
    /// The filters are checked first, then the names resolved in order ([`Session::resolve`]).
    pub fn like(
        &self,
        likes: &[String],
        unlikes: &[String],
        q: &QueryOptions,
    ) -> Result<Vec<Hit>, SessionError> {
        self.check_filters(&q.filters)?;
        let seeds = self.resolve_all(likes)?;
        let negatives = self.resolve_all(unlikes)?;
        self.related(&seeds, &negatives, q)
    }

    /// `path`: a reading path from the paper named `start`, to the one named `to`, or of `n`
    /// papers. The same paper twice, or no step, is an input error; no chain between two
    /// papers is not ([`SessionError::is_input`]).
    pub fn path(&self, start: &str, to: Option<&str>, n: usize) -> Result<Vec<Step>, SessionError> {
        let index = &self.index;
        let from = self.resolve(start)?;
        Ok(match to {
            Some(to_name) => {
                let to = self.resolve(to_name)?;
                if to == from {
                    let p = index.paper(from);
                    return Err(SessionError::Input(format!(
                        "--like {start:?} and --to {to_name:?} are the same paper, {:?} [{}]; \
                         give two different papers, or leave out --to for a reading path from it",
                        p.title, p.id
                    )));
                }
                engine::reading::path_between(index, from, to)?
            }
            None => engine::reading::reading_path(index, from, n)?,
        })
    }

    /// `topics`: the topic clusters of the index, `k` of them or a number chosen from the data.
    /// A `k` of 0 or above the number of papers is an input error.
    pub fn topics(&self, k: Option<usize>) -> Result<Vec<Topic>, SessionError> {
        Ok(engine::communities::cluster(&self.index, k)?)
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
        let vectors = match q.mode {
            Mode::Lexical => None,
            mode => {
                // One run of the model gives the query's vector and, for an index that matches
                // tokens, its token states.
                let tokens = mode == Mode::Hybrid && self.index.search_tokens().is_some();
                let make = || -> Result<_, SessionError> {
                    let e = self.embedder()?;
                    if tokens {
                        let (v, t) = e
                            .embed_query_with_tokens(text)
                            .map_err(SessionError::Model)?;
                        Ok((v, Some(t)))
                    } else {
                        let mut v = e.embed(&[text], Role::Query).map_err(SessionError::Model)?;
                        Ok((v.remove(0), None))
                    }
                };
                Some(match &self.query_cache {
                    Some(cache) => cache.get_or_make(text, tokens, make)?,
                    None => std::sync::Arc::new(make()?),
                })
            }
        };
        Ok(engine::search(
            &self.index,
            text,
            vectors.as_ref().map(|v| v.0.as_slice()),
            vectors.as_ref().and_then(|v| v.1.as_ref()),
            q.top,
            q.mode,
            &q.filters,
        ))
    }
}

/// The freshness policy: when every recorded corpus file is at hand and one of them changed
/// since the build, the corpus is loaded and its papers compared with the index's; changed
/// bytes may still hold the same papers. A corpus missing whole (an index copied elsewhere) is
/// not checked; one missing in part (a file deleted beside the others) makes the index stale.
fn check_fresh(index: &Index) -> Result<(), SessionError> {
    let corpora = index.recorded_corpora();
    let read = index.corpus_read();
    let args = corpus_args(&corpora, &read);
    index.check_terms(&args)?;
    index.check_plan(&args)?;
    let (here, gone): (Vec<PathBuf>, Vec<PathBuf>) =
        corpora.iter().cloned().partition(|p| p.exists());
    if !here.is_empty() && !gone.is_empty() {
        return Err(IndexError::CorpusGone {
            index: index
                .file_path()
                .map_or("index".into(), |p| p.display().to_string()),
            gone: gone
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            rest: corpus_args(&here, &read),
        }
        .into());
    }
    if corpora.iter().all(|p| p.exists()) && !index.fingerprints_match(&corpora) {
        let mut corpus = Corpus::load_with(&corpora, &read.load_options(&corpora))?;
        // The build read the corpus through the abstracts cache beside the index: so does this,
        // and a cache it cannot read is named as the cause, not the corpus.
        if let Some(path) = index
            .file_path()
            .map(crate::corpus::abstracts::cache_path)
            .filter(|c| c.exists())
        {
            crate::corpus::abstracts::AbstractCache::open(&path)?.apply(&mut corpus.papers);
        }
        index.check_fresh(&corpus.papers, &args)?;
    }
    Ok(())
}
