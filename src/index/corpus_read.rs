//! How the corpus was read, beyond its paths: the options that decide which papers a build
//! holds (`--collection`, `--corpus-format`). They are stored in the index so that its
//! freshness check reads the corpus as the build did, and a rebuild command names them: a
//! Zotero library indexed with `--collection` and read whole would hold other papers, and the
//! index would be called stale after any edit to the library.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::layout::section;
use super::{FormatError, Index, IndexError};
use crate::corpus::{Format as CorpusFormat, LoadOptions};

/// The read options recorded at build ([`section::CORPUS_READ`]); the default (read each
/// file by its extension, a Zotero library whole) is stored as no section at all.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorpusRead {
    /// The Zotero collection the build kept (with its sub-collections).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collection: Option<String>,
    /// The format each recorded corpus path was read in, by its `--corpus-format` name, in the
    /// order of the recorded paths (`None`: by extension); empty when none was forced.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub formats: Vec<Option<String>>,
}

/// `--corpus-format` names and the formats they force, in the order `--help` lists them.
const FORMAT_NAMES: [(&str, CorpusFormat); 7] = [
    ("jsonl", CorpusFormat::Jsonl),
    ("json", CorpusFormat::Json),
    ("bib", CorpusFormat::Bibtex),
    ("ris", CorpusFormat::Ris),
    ("csv", CorpusFormat::Csv),
    ("tsv", CorpusFormat::Tsv),
    ("md", CorpusFormat::Markdown),
];

impl CorpusRead {
    /// What `options` record for the corpus `paths`: the collection, and the format forced
    /// on each path by its `--corpus-format` name (a format without one is not recorded).
    pub fn of(options: &LoadOptions, paths: &[PathBuf]) -> CorpusRead {
        let formats: Vec<Option<String>> = paths
            .iter()
            .map(|path| {
                let forced = options
                    .formats
                    .iter()
                    .find(|(p, _)| p == path)
                    .map(|(_, f)| *f)
                    .or(options.format)?;
                FORMAT_NAMES
                    .iter()
                    .find(|(_, g)| *g == forced)
                    .map(|(n, _)| n.to_string())
            })
            .collect();
        CorpusRead {
            collection: options.collection.clone(),
            formats: if formats.iter().all(Option::is_none) {
                Vec::new()
            } else {
                formats
            },
        }
    }

    /// The load options that read the corpus at `paths` (the recorded paths, resolved) as the
    /// build did.
    pub fn load_options(&self, paths: &[PathBuf]) -> LoadOptions {
        LoadOptions {
            formats: paths
                .iter()
                .zip(&self.formats)
                .filter_map(|(p, name)| Some((p.clone(), format_named(name.as_deref()?)?)))
                .collect(),
            collection: self.collection.clone(),
            ..LoadOptions::default()
        }
    }

    /// The options as command-line arguments, each with a leading space (empty by default),
    /// for a rebuild command in a message. A format forced on some paths only has no single
    /// flag: the command then names none, and the message's reader adds it.
    pub fn args(&self) -> String {
        let mut out = String::new();
        if let Some(c) = &self.collection {
            out.push_str(&format!(" --collection {}", shell_word(c)));
        }
        if let Some(Some(first)) = self.formats.first()
            && self.formats.iter().all(|f| f.as_ref() == Some(first))
        {
            out.push_str(&format!(" --corpus-format {first}"));
        }
        out
    }

    /// Decode a stored section; `None` bytes (no section) are the defaults.
    pub(super) fn decode(bytes: Option<&[u8]>) -> Result<CorpusRead, String> {
        let Some(bytes) = bytes else {
            return Ok(CorpusRead::default());
        };
        let read: CorpusRead = serde_json::from_slice(bytes)
            .map_err(|e| format!("the recorded read options do not decode ({e})"))?;
        if let Some(name) = read
            .formats
            .iter()
            .flatten()
            .find(|n| format_named(n).is_none())
        {
            return Err(format!(
                "the recorded corpus format {name:?} is not one this recommend reads"
            ));
        }
        Ok(read)
    }
}

/// The format of a `--corpus-format` name.
fn format_named(name: &str) -> Option<CorpusFormat> {
    FORMAT_NAMES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, f)| *f)
}

/// `s` as one shell word: as it is when it needs no quoting, else single-quoted.
fn shell_word(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_alphanumeric() || "-_./:@+,".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

impl Index {
    /// How the build read the corpus (see [`CorpusRead`]); checked to decode at open.
    pub fn corpus_read(&self) -> CorpusRead {
        let bytes = self
            .layout
            .corpus_read
            .as_ref()
            .map(|r| &self.storage.bytes()[r.clone()]);
        CorpusRead::decode(bytes).unwrap_or_default()
    }

    /// This index with `read` recorded (no section for the defaults, so that a build read
    /// the default way is byte-identical to one that records nothing).
    pub fn with_corpus_read(self, read: &CorpusRead) -> Result<Index, IndexError> {
        if *read == CorpusRead::default() {
            return match self.layout.corpus_read {
                Some(_) => self.rewrite(&[section::CORPUS_READ], &[], &[]),
                None => Ok(self),
            };
        }
        let json = serde_json::to_vec(read)
            .map_err(|e| IndexError::Format(FormatError::Encode(e.to_string())))?;
        self.rewrite(&[], &[section::CORPUS_READ.to_string()], &[&json])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_round_trip_through_the_record() {
        let paths = [PathBuf::from("a.txt"), PathBuf::from("b.bib")];
        let options = LoadOptions {
            format: Some(CorpusFormat::Markdown),
            collection: Some("Deep Learning".into()),
            ..LoadOptions::default()
        };
        let read = CorpusRead::of(&options, &paths);
        assert_eq!(
            read.formats,
            [Some("md".to_string()), Some("md".to_string())]
        );
        let json = serde_json::to_vec(&read).unwrap();
        let back = CorpusRead::decode(Some(&json)).unwrap();
        assert_eq!(back, read);
        let again = back.load_options(&paths);
        assert_eq!(
            again.formats,
            [
                (paths[0].clone(), CorpusFormat::Markdown),
                (paths[1].clone(), CorpusFormat::Markdown)
            ]
        );
        assert_eq!(again.collection.as_deref(), Some("Deep Learning"));
        assert_eq!(
            read.args(),
            " --collection 'Deep Learning' --corpus-format md"
        );
    }

    #[test]
    fn a_format_forced_on_one_path_stays_with_that_path() {
        let paths = [PathBuf::from("refs.txt"), PathBuf::from("more.json")];
        let options = LoadOptions {
            formats: vec![(paths[0].clone(), CorpusFormat::Ris)],
            ..LoadOptions::default()
        };
        let read = CorpusRead::of(&options, &paths);
        assert_eq!(read.formats, [Some("ris".to_string()), None]);
        let again = read.load_options(&paths);
        assert_eq!(again.formats, [(paths[0].clone(), CorpusFormat::Ris)]);
        assert_eq!(again.format, None);
        // No one flag says it: the rebuild command names none.
        assert_eq!(read.args(), "");
    }

    #[test]
    fn defaults_are_no_section_and_no_arguments() {
        assert_eq!(CorpusRead::decode(None).unwrap(), CorpusRead::default());
        let read = CorpusRead::of(&LoadOptions::default(), &[PathBuf::from("a.bib")]);
        assert_eq!(read, CorpusRead::default());
        assert_eq!(read.args(), "");
    }

    #[test]
    fn a_damaged_or_foreign_record_is_refused() {
        assert!(CorpusRead::decode(Some(b"{not json")).is_err());
        assert!(CorpusRead::decode(Some(br#"{"formats":["docx"]}"#)).is_err());
        assert!(CorpusRead::decode(Some(br#"{"shelf":"x"}"#)).is_err());
    }

    #[test]
    fn names_are_quoted_for_the_shell_only_when_needed() {
        assert_eq!(shell_word("ML"), "ML");
        assert_eq!(shell_word("Ann's list"), r"'Ann'\''s list'");
        assert_eq!(shell_word("读书会"), "读书会");
        assert_eq!(shell_word(""), "''");
    }
}
