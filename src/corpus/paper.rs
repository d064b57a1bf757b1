//! The paper record: the one unit of data every later step works on.

use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// What sort of work a paper is. The seeds advise reading 综述 (surveys) first, then
/// 方法 (methods), then 系统 (systems); reading paths follow that order.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Survey,
    #[default]
    Method,
    System,
    Benchmark,
    Dataset,
    Model,
}

impl Kind {
    pub const ALL: [Kind; 6] = [
        Kind::Survey,
        Kind::Method,
        Kind::System,
        Kind::Benchmark,
        Kind::Dataset,
        Kind::Model,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Survey => "survey",
            Kind::Method => "method",
            Kind::System => "system",
            Kind::Benchmark => "benchmark",
            Kind::Dataset => "dataset",
            Kind::Model => "model",
        }
    }

    /// Position in the seeds' recommended reading order (survey -> method -> system); resources
    /// a method is evaluated on (benchmarks, datasets) and released models sit between.
    pub fn reading_stage(self) -> u8 {
        match self {
            Kind::Survey => 0,
            Kind::Benchmark | Kind::Dataset => 1,
            Kind::Method => 2,
            Kind::Model => 3,
            Kind::System => 4,
        }
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One paper. The JSONL corpus format is this struct, one object per line; only `title` is
/// required, and other spellings of the keys are accepted (`abstract`, `authors`, `date`, ...:
/// see [`super::fields`] and `corpus/README.md`). Build one in code with
/// `Paper { id, title, ..Paper::default() }`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Paper {
    /// Unique and stable, as found in the wild: a slug, an arXiv id (`arXiv:2503.14476`,
    /// `2401.12345v2`), a DOI, a citation key; any text without control characters. Looked up
    /// exactly.
    pub id: String,
    /// The English title (or the name the paper is known by).
    pub title: String,
    /// Short names and the parts of "A / B" names; each resolves to this paper.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// The description (Chinese in the seed corpus).
    #[serde(default)]
    pub highlight: String,
    /// What the paper does, in 2-4 English sentences: domain, method, setting, result.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub summary: String,
    /// The seed's original highlight, kept when `highlight` was rewritten because the seed gave
    /// only section boilerplate or a wrong description (nothing from the seeds is lost).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub seed_highlight: String,
    /// The section the paper is filed under (Chinese in the seed corpus).
    #[serde(default)]
    pub topic: String,
    /// An English rendering of `topic`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub topic_en: String,
    /// Other sections the paper is filed under: a list that names it twice (or two lists that
    /// both hold it) gives one record, under its first section, with the others here. Topic
    /// filters match them; the topics evaluation uses `topic` alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also_topics: Vec<String>,
    #[serde(default)]
    pub kind: Kind,
    #[serde(default)]
    pub open_source: bool,
    /// Where the paper lives: "arXiv", "GitHub", "OpenReview", a blog, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
    /// Which source documents name the paper.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<String>,
    /// One of the six agent capabilities of seed 002, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capability: Option<String>,
    /// One of the four research directions of seed 003, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<String>,
    /// arXiv identifier without version or prefix (`2505.16421`), where verified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arxiv: Option<String>,
    /// Year of first publication.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub year: Option<u16>,
    /// The paper's canonical page (http or https).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The official code repository (http or https).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// First author + "et al.", or the author list as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authors: Option<String>,
    /// Controlled-vocabulary tags (domain, method family, artefact; `corpus/README.md`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Ids of corpus papers this paper extends, fixes or mainly compares against.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub builds_on: Vec<String>,
    /// The DOI without prefix (`10.1145/3292500.3330701`), where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doi: Option<String>,
    /// The user's own words for the paper (keywords, arXiv categories, tags outside the
    /// controlled vocabulary), free text; `tags` stay the curated vocabulary.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keywords: Vec<String>,
}

impl Paper {
    /// The keys a name resolves by ([`crate::text::name_key`]): of the title, the name before
    /// its colon (of one to four words), each alias and the id, empty ones left out.
    pub fn name_keys(&self) -> Vec<String> {
        // The name before a title's colon ("Reflexion" of "Reflexion: Language Agents with
        // ...") is what a reader types, misspelt too: a user's list has no aliases to carry it.
        let named = self
            .title
            .split_once(':')
            .map(|(name, _)| name)
            .filter(|name| (1..=4).contains(&name.split_whitespace().count()));
        std::iter::once(crate::text::name_key(&self.title))
            .chain(named.map(crate::text::name_key))
            .chain(self.aliases.iter().map(|a| crate::text::name_key(a)))
            .chain(std::iter::once(crate::text::name_key(&self.id)))
            .filter(|k| !k.is_empty())
            .collect()
    }

    /// A paper of tests: an id, a title and maybe an arXiv id, nothing else.
    #[cfg(test)]
    pub(crate) fn titled(id: &str, title: &str, arxiv: Option<&str>) -> Paper {
        Paper {
            id: id.into(),
            title: title.into(),
            arxiv: arxiv.map(String::from),
            ..Paper::default()
        }
    }

    /// Where a reader opens the paper: `url`, else the arXiv page, else the DOI's, else an
    /// address in `link`.
    pub fn href(&self) -> Option<String> {
        if let Some(u) = &self.url {
            return Some(u.clone());
        }
        if let Some(a) = &self.arxiv {
            return Some(format!("https://arxiv.org/abs/{a}"));
        }
        if let Some(d) = &self.doi {
            return Some(format!("https://doi.org/{d}")).filter(|u| is_http_url(u));
        }
        self.link.as_ref().filter(|l| is_http_url(l)).cloned()
    }
}

/// An absolute http(s) URL with a host and no whitespace or control characters: the only
/// kind of address that may reach a link in Markdown, HTML or a terminal.
pub fn is_http_url(s: &str) -> bool {
    let rest = s
        .strip_prefix("https://")
        .or_else(|| s.strip_prefix("http://"));
    match rest {
        Some(r) => {
            let host = r.split(['/', '?', '#']).next().unwrap_or("");
            !host.is_empty()
                && !s.chars().any(|c| c.is_whitespace() || c.is_control())
                && !s.contains(['"', '<', '>', '`'])
        }
        None => false,
    }
}

/// A modern (`2505.16421`) or old-style (`cs/0112017`) arXiv identifier, without version.
pub fn is_arxiv_id(s: &str) -> bool {
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    if let Some((yymm, num)) = s.split_once('.') {
        return yymm.len() == 4 && digits(yymm) && (4..=5).contains(&num.len()) && digits(num);
    }
    if let Some((arch, num)) = s.split_once('/') {
        return !arch.is_empty()
            && arch
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b == b'-' || b == b'.')
            && num.len() == 7
            && digits(num);
    }
    false
}

/// The controlled tag vocabulary (`corpus/README.md` documents it): one tag per line with its
/// English and Chinese names, `#` starts a group comment.
pub fn tag_vocabulary() -> impl Iterator<Item = &'static str> {
    tag_names().map(|(t, _, _)| t)
}

/// (tag, English name, Chinese name) for every tag of the vocabulary.
pub fn tag_names() -> impl Iterator<Item = (&'static str, &'static str, &'static str)> {
    tag_lines().iter().map(|&(_, tag, en, zh)| (tag, en, zh))
}

/// The (English, Chinese) names of `tag`, when it is in the vocabulary.
pub fn tag_name(tag: &str) -> Option<(&'static str, &'static str)> {
    tag_names()
        .find(|&(t, _, _)| t == tag)
        .map(|(_, en, zh)| (en, zh))
}

/// The vocabulary's group of research-problem facets (`# problem: ...` in `tags.txt`): the
/// problem a paper attacks, at the grain where papers sharing one are each other's related
/// work. Two papers sharing one is the evidence a reader looks for first, so explanations
/// name it.
const PROBLEM_GROUP: &str = "problem";

/// The English name of `tag` when it is a research-problem facet ([`PROBLEM_GROUP`]).
pub fn problem_name(tag: &str) -> Option<&'static str> {
    tag_lines()
        .iter()
        .find(|&&(group, t, _, _)| group == PROBLEM_GROUP && t == tag)
        .map(|&(_, _, en, _)| en)
}

/// One line of the vocabulary: (group, tag, English name, Chinese name).
type TagLine = (&'static str, &'static str, &'static str, &'static str);

/// Every tag of the vocabulary, the group being the name of the `# name: ...` heading above it
/// ("domain", "method family", "artefact", "problem"). Parsed once: explanations look tags up
/// for every result.
fn tag_lines() -> &'static [TagLine] {
    static LINES: OnceLock<Vec<TagLine>> = OnceLock::new();
    LINES.get_or_init(|| {
        let mut group = "";
        let mut lines = Vec::new();
        for l in include_str!("tags.txt").lines().map(str::trim) {
            if l.is_empty() {
                continue;
            }
            if let Some(comment) = l.strip_prefix('#') {
                // A group heading is "# name: what it holds"; a comment without a colon is none.
                if let Some((name, _)) = comment.split_once(':') {
                    group = name.trim();
                }
                continue;
            }
            let mut f = l.split('\t');
            let tag = f.next().unwrap_or("").trim();
            let en = f.next().unwrap_or(tag).trim();
            let zh = f.next().unwrap_or(en).trim();
            lines.push((group, tag, en, zh));
        }
        lines
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problem_facets_are_told_apart_from_the_other_tag_groups() {
        assert_eq!(
            problem_name("p-tool-integrated-reasoning"),
            Some("Tool-integrated reasoning")
        );
        // A domain, a method family and an artefact tag are no problem facet.
        for tag in ["tool-use", "grpo-family", "survey"] {
            assert!(tag_vocabulary().any(|t| t == tag), "{tag}");
            assert_eq!(problem_name(tag), None, "{tag}");
        }
        assert_eq!(problem_name("p-no-such-problem"), None);
    }
}
