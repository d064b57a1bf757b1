//! The ranking plan as `index.bin` stores it, and the neighbour lists reciprocity reads.
//!
//! The engine derives the plan once per build (`engine::plan::derive`) and stores it here as a
//! JSON section ([`Index::with_plan`]); every query, `bench` and `recommend show --plan` read
//! this stored copy ([`Index::plan`]), so what a build printed is what its rankings run. Only
//! the data lives in `index`: the rules that derive it are the engine's, which `index` does not
//! import.
//!
//! Versioning: the section carries [`PLAN_VERSION`] of its own rather than a bump of
//! [`super::format::FORMAT_VERSION`]. The plan is derived data: an index without it, or with an
//! older one, still opens for `recommend index` to reuse its vectors (a rebuild then embeds
//! nothing), and `Session::open` refuses it for queries with that rebuild command
//! ([`Index::check_plan`], the path of the word-analysis revision). A container version bump
//! would refuse the file everywhere, the rebuild included, and re-embed every paper.

use serde::{Deserialize, Serialize};

use super::layout::section;
use super::{Index, IndexError};

/// What a list holds that decides its plan.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Profile {
    pub papers: usize,
    /// Papers carrying a tag of the curated vocabulary (`src/corpus/tags.txt`).
    pub curated_tagged: usize,
    /// Papers with at least one `builds_on` link.
    pub linked: usize,
    /// Papers carrying one of the list's own tags that weighs anything (keywords, categories,
    /// collections, sections shared by 2 to half of the list).
    pub own_tagged: usize,
    /// Whether the median paper is described in 30 words or more (abstracts, long notes).
    pub described: bool,
    /// Whether under half the papers have any text beyond their names.
    pub bare_titles: bool,
    /// Share of papers whose text has Chinese (CJK) characters.
    pub cjk_share: f32,
    /// Papers whose notes are in Chinese, and in English
    /// (`index::evidence::described_in_chinese`); mixed notes and bare titles count in neither.
    pub described_chinese: usize,
    pub described_english: usize,
    /// Papers described at length (20+ words), and bare titles
    /// (`index::evidence::described_at_length`); a one-line note counts in neither.
    pub described_at_length: usize,
    pub bare: usize,
    /// Whether queries take candidates from the stored HNSW graph (2,000 papers or more;
    /// `--exact` turns the graph off at query time and changes nothing else).
    pub graph: bool,
}

impl Profile {
    /// The profile as the printed plan's first line.
    fn line(&self) -> String {
        format!(
            "plan for {} papers: {} with curated tags, {} with builds_on links, {} with own tags \
             shared by 2 to half the list; {}; {:.0}% with Chinese text; notes wholly in \
             Chinese / English: {} / {}; described at length / bare titles: {} / {}\n",
            self.papers,
            self.curated_tagged,
            self.linked,
            self.own_tagged,
            self.text_kind(),
            100.0 * self.cjk_share,
            self.described_chinese,
            self.described_english,
            self.described_at_length,
            self.bare,
        )
    }

    /// How the list describes its papers, in the words the printed plan uses.
    fn text_kind(&self) -> &'static str {
        if self.bare_titles {
            "bare titles"
        } else if self.described {
            "described (median 30+ words)"
        } else {
            "short notes"
        }
    }

    /// Whether the list has curated evidence: curated tags or `builds_on` links.
    pub fn curated(&self) -> bool {
        self.curated_tagged > 0 || self.linked > 0
    }
}

/// The weights of related work's fused signals (`engine::retrieve`); zero means off.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RelatedWeights {
    pub dense: f32,
    /// The lexical weight's floor; with `lexical_follows_share` the weight is the larger of
    /// the floor and the square of the share of the list the seed shares a specific term with.
    pub lexical: f32,
    pub lexical_follows_share: bool,
    pub tags: f32,
    pub own_tags: f32,
    pub spelling: f32,
    pub alignment: f32,
    /// Whether reciprocal neighbours are added after the fusion.
    pub reciprocal: bool,
}

/// One line of the printed plan.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SignalLine {
    pub ranking: String,
    pub signal: String,
    /// The weight as a number or a rule ("0.3, or share² when larger"); "off" when it does not
    /// apply.
    pub weight: String,
    /// Which papers it is computed for ("every paper", "graph candidates", "each paper's 10
    /// nearest").
    pub scope: String,
    /// How it is approximated and when it is computed ("exact", "computed at build").
    pub approximation: String,
    /// Why it is on or off for this list.
    pub why: String,
}

/// A list's ranking plan.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Plan {
    pub profile: Profile,
    pub related: RelatedWeights,
    /// Every signal with its weight, scope, approximation and why, related work then search.
    pub signals: Vec<SignalLine>,
    /// Which candidates a query scores and over which papers each signal is standardized.
    pub scope: String,
    /// On a list described partly in Chinese and partly in English, the unit direction
    /// between the two groups' mean vectors, removed from the dense similarity of related work
    /// (`index::evidence::language_axis`); `None` on a list in one language.
    pub language_axis: Option<Vec<f32>>,
    /// On a list of both papers described at length and bare titles, the unit direction
    /// between the two groups' mean vectors, removed from related work's dense similarity as
    /// well (`index::evidence::shape_axis`); `None` on a list of one kind.
    pub shape_axis: Option<Vec<f32>>,
}

impl Plan {
    /// The plan in three lines, as a build prints it: the profile, then each ranking's active
    /// signals with their weights and the names of those that are off. The signals' scopes
    /// and reasons (15 lines of up to 200 characters) are for `recommend show --plan`.
    pub fn summary(&self) -> String {
        let mut out = self.profile.line();
        for (ranking, label) in [("related", "related work"), ("search", "search")] {
            let short = |s: &SignalLine| s.signal.split(" (").next().unwrap_or("").to_string();
            let lines = || self.signals.iter().filter(|s| s.ranking == ranking);
            let on: Vec<String> = lines()
                .filter(|s| s.weight != "off")
                .map(|s| format!("{} {}", short(s), s.weight))
                .collect();
            let off: Vec<String> = lines().filter(|s| s.weight == "off").map(short).collect();
            out.push_str(&format!("  {label}: {}", on.join(" · ")));
            if !off.is_empty() {
                out.push_str(&format!("; off: {}", off.join(", ")));
            }
            out.push('\n');
        }
        out.push_str("  (each signal's scope and why: recommend show --plan)\n");
        out
    }

    /// The plan as text: the profile in a line, the scope, then one line per signal.
    pub fn describe(&self) -> String {
        let mut out = format!("{}{}\n", self.profile.line(), self.scope);
        for s in &self.signals {
            out.push_str(&format!(
                "  {:<8} {:<36} {:<44} {}; {}; {}\n",
                s.ranking, s.signal, s.weight, s.scope, s.approximation, s.why
            ));
        }
        out
    }
}

/// The stored plan's revision: bump it when the plan's shape or the rules that derive it
/// (`engine::plan`, `engine::fusion`) change, so that an index keeps no outdated plan.
pub const PLAN_VERSION: u32 = 3;

/// The section's JSON: the revision first, so that another revision is told apart before its
/// plan is decoded.
#[derive(Serialize, Deserialize)]
struct Section<P> {
    version: u32,
    plan: P,
}

/// How many related papers [`Index::like_neighbours`] holds per paper (the reciprocity check's
/// `fusion::LIKE_RECIPROCAL_K`, which the engine asserts equal).
pub const NEIGHBOURS_PER_PAPER: usize = 10;

impl Index {
    /// The ranking plan stored at build ([`Index::with_plan`]); `None` for an index still being
    /// built, or built by a library caller without `pipeline::Builder`.
    pub fn plan(&self) -> Option<&Plan> {
        self.plan.as_ref().ok()
    }

    /// Whether the index stores a plan of this recommend's [`PLAN_VERSION`]; otherwise the
    /// error names the command that rebuilds it (`corpus_name` as in [`Index::check_terms`]),
    /// which reuses the vectors.
    pub fn check_plan(&self, corpus_name: &str) -> Result<(), IndexError> {
        match &self.plan {
            Ok(_) => Ok(()),
            Err(found) => Err(IndexError::OldPlan {
                index: self
                    .path
                    .as_ref()
                    .map_or("index".into(), |p| p.display().to_string()),
                corpus: corpus_name.to_string(),
                found: *found,
                current: PLAN_VERSION,
            }),
        }
    }

    /// This index with `plan` stored as one more section (replacing a stored one).
    pub fn with_plan(self, plan: &Plan) -> Result<Index, IndexError> {
        let json = serde_json::to_vec(&Section {
            version: PLAN_VERSION,
            plan,
        })
        .map_err(|e| IndexError::Format(super::FormatError::Encode(e.to_string())))?;
        self.rewrite(&[], &[section::PLAN.to_string()], &[&json])
    }

    /// Paper `i`'s [`NEIGHBOURS_PER_PAPER`] most related papers by the fused related-work
    /// score, best first, as stored at build ([`Index::with_like_neighbours`]); `None` for an
    /// index built without them (lists with curated evidence, which do not use reciprocity).
    pub fn like_neighbours(&self, i: usize) -> Option<&[u32]> {
        let r = self.layout.like_neighbours.as_ref()?;
        let all: &[u32] = self.slice(r);
        all.get(i * NEIGHBOURS_PER_PAPER..(i + 1) * NEIGHBOURS_PER_PAPER)
    }

    /// This index with every paper's related papers (`n x` [`NEIGHBOURS_PER_PAPER`], a list
    /// shorter than that padded with the paper itself) stored as one more section.
    pub fn with_like_neighbours(self, lists: &[u32]) -> Result<Index, IndexError> {
        self.rewrite(
            &[],
            &[section::LIKE_NEIGHBOURS.to_string()],
            &[bytemuck::cast_slice(lists)],
        )
    }
}

/// The stored plan of section bytes (`None`: no section): the plan, or the revision found
/// when it is not [`PLAN_VERSION`] (0 without a plan). A section of this revision that does
/// not decode is an error, the detail of [`IndexError::Inconsistent`].
pub(super) fn decode(bytes: Option<&[u8]>) -> Result<Result<Plan, u32>, String> {
    let Some(bytes) = bytes else {
        return Ok(Err(0));
    };
    let bad = |e: serde_json::Error| format!("the stored plan does not decode: {e}");
    let head: Section<serde::de::IgnoredAny> = serde_json::from_slice(bytes).map_err(bad)?;
    if head.version != PLAN_VERSION {
        return Ok(Err(head.version));
    }
    let section: Section<Plan> = serde_json::from_slice(bytes).map_err(bad)?;
    Ok(Ok(section.plan))
}

/// Whether `bytes` hold `n x` [`NEIGHBOURS_PER_PAPER`] paper positions below `n`.
pub(super) fn valid_neighbours(bytes: &[u8], n: usize) -> bool {
    bytemuck::try_cast_slice::<u8, u32>(bytes)
        .is_ok_and(|v| v.len() == n * NEIGHBOURS_PER_PAPER && v.iter().all(|&i| (i as usize) < n))
}
