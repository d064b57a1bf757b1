//! arXiv abstracts for papers that have an arXiv id and no summary: the evidence a list of
//! bare titles already points to.
//!
//! Most reading lists are titles and links. On four judged lists, fetching their abstracts
//! lifted related@5 by +0.060 pooled, most on bare titles (0.382 -> 0.513; BENCHMARKS.md,
//! Imported lists), so `recommend index --abstracts` fetches them once from the arXiv API and
//! keeps them in a cache beside the index ([`cache_path`]); every later build, `add` and
//! freshness check applies the cache offline, so the index and its corpus keep agreeing.
//!
//! An abstract is used only when arXiv's title for the id matches the paper's own
//! ([`titles_match`]): lists carry wrong links (one imported list has five rows sharing one),
//! and a wrong abstract is worse than none. Fields the list already has are never replaced.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Paper;
use super::arxiv::{Client, Entry, FetchError};

/// What the cache file says it is, checked on reading.
const FORMAT: &str = "recommend arXiv abstracts";
/// The cache's layout version; another version is refused with what to do.
pub const VERSION: u32 = 1;
/// Largest cache file read (about 2 KB a paper: 50,000 papers).
const MAX_CACHE_BYTES: u64 = 100 * 1024 * 1024;

/// The cache of the index at `index`: `index.bin` -> `index.bin.abstracts.json`.
pub fn cache_path(index: &Path) -> PathBuf {
    let mut name = index.file_name().unwrap_or_default().to_os_string();
    name.push(".abstracts.json");
    index.with_file_name(name)
}

/// How many of `papers` are titles with an arXiv id and no summary, when they are most of a
/// list worth telling about `--abstracts` (at least 10, and a third of the list): the measured
/// gains were largest on such lists.
pub fn worth_fetching(papers: &[Paper]) -> Option<usize> {
    let bare = papers
        .iter()
        .filter(|p| p.summary.trim().is_empty() && p.arxiv.is_some())
        .count();
    (bare >= 10 && 3 * bare >= papers.len()).then_some(bare)
}

/// One paper as arXiv describes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Described {
    pub title: String,
    pub summary: String,
    /// `YYYY-MM-DD` of the first version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published: Option<String>,
}

#[derive(Debug, Serialize, Deserialize)]
struct File {
    format: String,
    version: u32,
    abstracts: BTreeMap<String, Described>,
    /// Ids arXiv answered without an entry: not asked again.
    #[serde(default)]
    unknown: Vec<String>,
}

/// Why the cache cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum AbstractsError {
    #[error("cannot read {path}: {reason}")]
    Read { path: String, reason: String },
    #[error(
        "{path} is not a cache of arXiv abstracts this version reads ({reason}); delete it and \
         run `recommend index --abstracts` again to fetch them anew"
    )]
    Format { path: String, reason: String },
    #[error("cannot write {path}: {reason}; the abstracts fetched so far are not kept")]
    Write { path: String, reason: String },
    #[error("{error}\n{}", kept_note(*kept, path))]
    Fetch {
        error: FetchError,
        kept: usize,
        path: String,
    },
}

/// What a failed fetch kept, and what to do next.
fn kept_note(kept: usize, path: &str) -> String {
    let kept = match kept {
        0 => "no abstract is kept yet".to_string(),
        n => format!("{n} abstract(s) are kept in {path}"),
    };
    format!("{kept}; run the same command again to fetch the rest, or build without --abstracts")
}

/// The abstracts fetched for one index, by bare arXiv id.
#[derive(Debug)]
pub struct AbstractCache {
    path: PathBuf,
    abstracts: BTreeMap<String, Described>,
    unknown: Vec<String>,
}

/// What [`AbstractCache::apply`] did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Applied {
    /// Papers given a summary.
    pub filled: usize,
    /// Papers whose arXiv title differs from theirs: (paper id, arXiv id, arXiv's title).
    pub mismatched: Vec<(String, String, String)>,
}

impl AbstractCache {
    /// The cache at `path`; empty when there is no file.
    pub fn open(path: &Path) -> Result<AbstractCache, AbstractsError> {
        let shown = || path.display().to_string();
        // Something else at the cache's path is the user's to move, as a foreign file is.
        if path.is_dir() {
            return Err(AbstractsError::Format {
                path: shown(),
                reason: "it is a folder".into(),
            });
        }
        let bytes = match crate::safe_fs::read_regular(path, MAX_CACHE_BYTES) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(AbstractCache {
                    path: path.to_path_buf(),
                    abstracts: BTreeMap::new(),
                    unknown: Vec::new(),
                });
            }
            Err(e) => {
                return Err(AbstractsError::Read {
                    path: shown(),
                    reason: e.to_string(),
                });
            }
        };
        let file: File = serde_json::from_slice(&bytes).map_err(|e| AbstractsError::Format {
            path: shown(),
            reason: e.to_string(),
        })?;
        if file.format != FORMAT || file.version != VERSION {
            return Err(AbstractsError::Format {
                path: shown(),
                reason: format!(
                    "it says {:?} version {}, this version reads {FORMAT:?} version {VERSION}",
                    file.format, file.version
                ),
            });
        }
        Ok(AbstractCache {
            path: path.to_path_buf(),
            abstracts: file.abstracts,
            unknown: file.unknown,
        })
    }

    /// Where the cache is kept.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Abstracts held.
    pub fn len(&self) -> usize {
        self.abstracts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.abstracts.is_empty()
    }

    /// The arXiv ids of `papers` without a summary that the cache has not asked arXiv for, each
    /// once, in the papers' order.
    pub fn missing(&self, papers: &[Paper]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for p in papers.iter().filter(|p| p.summary.trim().is_empty()) {
            if let Some(a) = p.arxiv.as_deref().filter(|a| super::paper::is_arxiv_id(a))
                && !self.abstracts.contains_key(a)
                && !self.unknown.iter().any(|u| u == a)
                && !out.iter().any(|o| o == a)
            {
                out.push(a.to_string());
            }
        }
        out
    }

    /// Fetch `ids` with `client`, saving the cache after each answered request, so that a
    /// failure keeps what arrived. Returns how many abstracts arrived.
    pub fn fetch(&mut self, ids: &[String], client: &Client) -> Result<usize, AbstractsError> {
        let mut arrived = 0usize;
        let mut save_error = None;
        let result = client.fetch_ids(ids, |asked, feed| {
            arrived += self.insert(asked, feed.entries, &feed.skipped_ids);
            match self.save() {
                Ok(()) => std::ops::ControlFlow::Continue(()),
                // A cache that cannot be written would make every later request wasted.
                Err(e) => {
                    save_error = Some(e);
                    std::ops::ControlFlow::Break(())
                }
            }
        });
        if let Some(e) = save_error {
            return Err(e);
        }
        result.map_err(|error| AbstractsError::Fetch {
            error,
            kept: self.abstracts.len(),
            path: self.path.display().to_string(),
        })?;
        Ok(arrived)
    }

    /// Keep `entries`, arXiv's answer for `asked`; an asked id the answer lacks is remembered
    /// as unknown, so a later run does not ask again. Only a page with some abstract in it
    /// says that: arXiv's API now and then answers a page with no entries, or entries without
    /// abstracts, for ids it knows, and taking such a page at its word would leave those papers
    /// undescribed for good. Their ids stay missing and are asked again by the next run, as do
    /// the ids of entries arXiv answered unreadably (`unread`). Returns the abstracts kept.
    fn insert(&mut self, asked: &[String], entries: Vec<Entry>, unread: &[String]) -> usize {
        let mut kept = 0;
        let mut answered: Vec<String> = unread.to_vec();
        for e in entries {
            if !asked.contains(&e.arxiv) {
                continue;
            }
            if e.summary.trim().is_empty() {
                answered.push(e.arxiv);
                continue;
            }
            let described = Described {
                title: e.title,
                summary: e.summary,
                published: e.published,
            };
            // An entry repeated in one answer is one abstract.
            if self.abstracts.insert(e.arxiv, described).is_none() {
                kept += 1;
            }
        }
        if kept == 0 {
            return 0;
        }
        for a in asked {
            if !self.abstracts.contains_key(a) && !self.unknown.contains(a) && !answered.contains(a)
            {
                self.unknown.push(a.clone());
            }
        }
        kept
    }

    /// Ids arXiv answered without an entry.
    pub fn unknown(&self) -> &[String] {
        &self.unknown
    }

    /// Write the cache atomically.
    pub fn save(&self) -> Result<(), AbstractsError> {
        let file = File {
            format: FORMAT.to_string(),
            version: VERSION,
            abstracts: self.abstracts.clone(),
            unknown: self.unknown.clone(),
        };
        let bytes = serde_json::to_vec_pretty(&file).map_err(|e| AbstractsError::Write {
            path: self.path.display().to_string(),
            reason: e.to_string(),
        })?;
        crate::safe_fs::write_atomic(&self.path, &bytes).map_err(|e| AbstractsError::Write {
            path: self.path.display().to_string(),
            reason: e.to_string(),
        })
    }

    /// Give each paper without a summary the cached abstract of its arXiv id, when the titles
    /// match, and its year when it has none.
    pub fn apply(&self, papers: &mut [Paper]) -> Applied {
        let mut applied = Applied::default();
        for p in papers.iter_mut().filter(|p| p.summary.trim().is_empty()) {
            let Some(a) = p.arxiv.clone() else { continue };
            // A cache edited by hand is held to the corpus's field limit, as any list is.
            let Some(d) = self
                .abstracts
                .get(&a)
                .filter(|d| d.summary.len() <= super::fields::MAX_FIELD_BYTES)
            else {
                continue;
            };
            if !titles_match(&p.title, &d.title)
                && !p.aliases.iter().any(|x| titles_match(x, &d.title))
            {
                applied
                    .mismatched
                    .push((p.id.clone(), a.clone(), d.title.clone()));
                continue;
            }
            p.summary = d.summary.clone();
            if p.year.is_none() {
                p.year = d
                    .published
                    .as_deref()
                    .and_then(|d| d.get(..4))
                    .and_then(|y| y.parse().ok());
            }
            applied.filled += 1;
        }
        applied
    }
}

/// Words too common in titles to say two titles are one paper's.
const COMMON: &[&str] = &[
    "a", "an", "the", "of", "for", "and", "in", "on", "to", "with", "via", "by", "from", "is",
    "are", "at", "as", "its", "into", "through", "towards", "toward", "using", "based",
];

fn title_words(t: &str) -> Vec<String> {
    t.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !COMMON.contains(w))
        .map(str::to_string)
        .collect()
}

/// Whether `ours` and arXiv's `theirs` title one paper. Either may be shortened to a method's
/// name ("WebAgent-R1" for its full title), so at least half of the shorter title's words must
/// be in the longer one, and what they share must be more than a fragment (4 characters): a
/// name like "R1" alone matches nothing.
pub fn titles_match(ours: &str, theirs: &str) -> bool {
    let (a, b) = (title_words(ours), title_words(theirs));
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if short.is_empty() {
        return false;
    }
    if short == long {
        return true;
    }
    if let [name] = short.as_slice()
        && (2..=8).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_lowercase())
        && long.len() >= name.len()
        && long[..name.len()]
            .iter()
            .zip(name.bytes())
            .all(|(w, b)| w.as_bytes()[0] == b)
    {
        // An acronym of the other title ("PPO" for "Proximal Policy Optimization Algorithms").
        return true;
    }
    let shared: Vec<&String> = short.iter().filter(|w| long.contains(w)).collect();
    let chars: usize = shared.iter().map(|w| w.chars().count()).sum();
    2 * shared.len() >= short.len() && chars >= 4
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paper(id: &str, title: &str, arxiv: Option<&str>) -> Paper {
        Paper::titled(id, title, arxiv)
    }

    fn cache(dir: &Path) -> AbstractCache {
        AbstractCache::open(&dir.join("i.bin.abstracts.json")).unwrap()
    }

    fn described(title: &str) -> Described {
        Described {
            title: title.into(),
            summary: format!("About {title}."),
            published: Some("2025-05-20".into()),
        }
    }

    #[test]
    fn a_short_name_matches_its_paper_and_a_wrong_link_does_not() {
        let full =
            "WebAgent-R1: Training Web Agents via End-to-End Multi-Turn Reinforcement Learning";
        assert!(titles_match("WebAgent-R1", full));
        assert!(titles_match(full, full));
        assert!(titles_match(
            "Search-R1: Training LLMs to Reason and Leverage Search Engines with RL",
            "Search-R1: Training LLMs to Reason and Leverage Search Engines with Reinforcement Learning"
        ));
        assert!(
            titles_match(full, "WebAgent-R1"),
            "either side may be the short name"
        );
        assert!(!titles_match("Search-R1", full), "shares only 'r1'");
        assert!(!titles_match(full, "Search-R1"));
        assert!(!titles_match("R1", full), "a fragment is not a name");
        assert!(titles_match(
            "PPO",
            "Proximal Policy Optimization Algorithms"
        ));
        assert!(titles_match(
            "DPO",
            "Direct Preference Optimization: Your Language Model is Secretly a Reward Model"
        ));
        assert!(!titles_match("PPO", "Direct Preference Optimization"));
        assert!(titles_match("GRPO", "grpo"), "the same name");
        assert!(!titles_match("", full));
        assert!(!titles_match("智能体强化学习", full));
    }

    #[test]
    fn cache_path_sits_beside_the_index() {
        assert_eq!(
            cache_path(Path::new("/x/library.bin")),
            PathBuf::from("/x/library.bin.abstracts.json")
        );
        assert_eq!(
            cache_path(Path::new("index.bin")),
            PathBuf::from("index.bin.abstracts.json")
        );
    }

    #[test]
    fn apply_fills_only_missing_summaries_with_matching_titles() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = cache(dir.path());
        c.abstracts.insert(
            "2505.15117".into(),
            described("WebAgent-R1: Training Web Agents"),
        );
        c.abstracts
            .insert("2503.09516".into(), described("Something Else Entirely"));
        let mut papers = vec![
            paper("a", "WebAgent-R1", Some("2505.15117")),
            paper("b", "Search-R1", Some("2503.09516")),
            paper("c", "No Link", None),
            Paper {
                summary: "The list's own summary.".into(),
                ..paper("d", "WebAgent-R1 again", Some("2505.15117"))
            },
        ];
        let applied = c.apply(&mut papers);
        assert_eq!(applied.filled, 1);
        assert_eq!(papers[0].summary, "About WebAgent-R1: Training Web Agents.");
        assert_eq!(papers[0].year, Some(2025));
        assert!(papers[1].summary.is_empty());
        assert_eq!(
            applied.mismatched,
            vec![(
                "b".to_string(),
                "2503.09516".to_string(),
                "Something Else Entirely".to_string()
            )]
        );
        assert_eq!(papers[3].summary, "The list's own summary.");
        // Missing: ids without a summary the cache has not asked for.
        let more = vec![
            paper("e", "New", Some("2601.00001")),
            paper("f", "Dup", Some("2601.00001")),
        ];
        assert_eq!(c.missing(&more), vec!["2601.00001".to_string()]);
        assert!(c.missing(&papers).is_empty(), "cached or summarised");
        // A summary past the field limit (a cache edited by hand) is not applied.
        let mut huge = described("Huge");
        huge.summary = "x".repeat(crate::corpus::fields::MAX_FIELD_BYTES + 1);
        c.abstracts.insert("2601.00002".into(), huge);
        let mut big = vec![paper("g", "Huge", Some("2601.00002"))];
        assert_eq!(c.apply(&mut big).filled, 0);
        assert!(big[0].summary.is_empty());
    }

    fn entry(arxiv: &str, summary: &str) -> Entry {
        Entry {
            line: 1,
            arxiv: arxiv.into(),
            version: Some(1),
            title: "T".into(),
            summary: summary.into(),
            authors: Vec::new(),
            published: None,
            updated: None,
            categories: Vec::new(),
            url: String::new(),
            doi: None,
            comment: None,
            announce_type: None,
        }
    }

    #[test]
    fn only_a_page_with_abstracts_marks_the_ids_it_lacks_unknown() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = cache(dir.path());
        let asked: Vec<String> = ["2505.15117", "2505.15118", "2401.99999", "2505.15119"]
            .map(String::from)
            .to_vec();
        let list: Vec<Paper> = asked
            .iter()
            .map(|a| paper(a, "T", Some(a.as_str())))
            .collect();
        // An empty page, or entries without abstracts: nothing is taken as unknown.
        assert_eq!(c.insert(&asked, Vec::new(), &[]), 0);
        assert_eq!(c.insert(&asked, vec![entry("2505.15117", " ")], &[]), 0);
        assert!(c.unknown().is_empty());
        assert_eq!(c.missing(&list), asked);
        // A page with an abstract: the id answered without one, or in an entry that could not
        // be read, is asked again; the absent one is unknown; an entry repeated in the page is
        // one abstract.
        let page = vec![
            entry("2505.15117", "About T."),
            entry("2505.15117", "About T."),
            entry("2505.15118", ""),
        ];
        assert_eq!(c.insert(&asked, page, &["2505.15119".to_string()]), 1);
        assert_eq!(c.unknown(), ["2401.99999".to_string()]);
        assert_eq!(
            c.missing(&list),
            vec!["2505.15118".to_string(), "2505.15119".to_string()]
        );
    }

    #[test]
    fn a_cache_that_cannot_be_saved_stops_the_fetch_after_its_first_request() {
        use std::io::{BufRead, BufReader, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let requests = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let seen = std::sync::Arc::clone(&requests);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut s) = stream else { continue };
                let mut reader = BufReader::new(s.try_clone().unwrap());
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                    line.clear();
                }
                seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let body = "<?xml version=\"1.0\"?><feed xmlns=\"http://www.w3.org/2005/Atom\">\
                    <entry><id>http://arxiv.org/abs/2505.00001v1</id><title>T</title>\
                    <summary>About T.</summary></entry></feed>";
                let _ = write!(
                    s,
                    "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        let mut client = Client::with_base(&base);
        client.delay = std::time::Duration::ZERO;
        let dir = tempfile::tempdir().unwrap();
        // The cache's folder becomes a file once it is open: its first save fails, whoever
        // runs the test.
        let folder = dir.path().join("gone");
        std::fs::create_dir(&folder).unwrap();
        let mut c = cache(&folder);
        std::fs::remove_dir(&folder).unwrap();
        std::fs::write(&folder, b"").unwrap();
        let ids: Vec<String> = (1..=250).map(|i| format!("2505.{i:05}")).collect();
        let e = c.fetch(&ids, &client).unwrap_err().to_string();
        assert!(e.contains("gone"), "{e}");
        assert_eq!(requests.load(std::sync::atomic::Ordering::SeqCst), 1);
    }

    #[test]
    fn the_cache_round_trips_and_a_foreign_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = cache(dir.path());
        assert!(c.is_empty());
        let asked = ["2505.15117".to_string(), "2401.99999".to_string()];
        assert_eq!(
            c.insert(&asked, vec![entry("2505.15117", "About T.")], &[]),
            1
        );
        c.save().unwrap();
        let again = cache(dir.path());
        assert_eq!(again.len(), 1);
        assert_eq!(again.unknown, vec!["2401.99999".to_string()]);
        assert!(
            again
                .missing(&[paper("x", "X", Some("2401.99999"))])
                .is_empty()
        );

        let path = dir.path().join("bad.json");
        std::fs::write(
            &path,
            b"{\"format\": \"something\", \"version\": 1, \"abstracts\": {}}",
        )
        .unwrap();
        let e = AbstractCache::open(&path).unwrap_err().to_string();
        assert!(e.contains("delete it") && e.contains("bad.json"), "{e}");
        std::fs::create_dir(dir.path().join("folder.json")).unwrap();
        assert!(matches!(
            AbstractCache::open(&dir.path().join("folder.json")),
            Err(AbstractsError::Format { .. })
        ));
        std::fs::write(&path, b"not json").unwrap();
        assert!(matches!(
            AbstractCache::open(&path),
            Err(AbstractsError::Format { .. })
        ));
    }
}
