//! Which files a corpus path stands for, and their fingerprint: what an index records to
//! recognise an unchanged corpus without parsing it.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::error::CorpusError;
use super::import::Format;

/// The files a corpus path stands for: the path itself, or a directory's corpus files
/// ([`Format::in_directory`]) in name order. Each must be a regular file (a FIFO or a device
/// would block or never end).
pub fn corpus_files(path: &Path) -> Result<Vec<PathBuf>, CorpusError> {
    let io = |error| CorpusError::Io {
        path: path.to_path_buf(),
        error,
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_dir() {
        crate::safe_fs::check_regular(path, crate::safe_fs::MAX_CORPUS_FILE).map_err(io)?;
        return Ok(vec![path.to_path_buf()]);
    }
    // A Zotero data directory stands for its database.
    let zotero = path.join(super::zotero::DATABASE_FILE);
    if zotero.is_file() {
        return Ok(vec![zotero]);
    }
    let mut v: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(io)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| read_in_directory(p))
        .collect();
    v.sort();
    for f in &v {
        crate::safe_fs::check_regular(f, crate::safe_fs::MAX_CORPUS_FILE).map_err(|error| {
            CorpusError::Io {
                path: f.clone(),
                error,
            }
        })?;
    }
    if v.is_empty() {
        return Err(CorpusError::Empty {
            path: path.to_path_buf(),
            expected: "at least one .jsonl, .bib, .ris, .csv, .tsv, .atom or .rss file, or an \
                       .xml Atom or RSS document, in the directory itself (subfolders are not \
                       read; an awesome-list .md or a .json list is named alone, a Zotero \
                       folder holds zotero.sqlite)",
            why: Vec::new(),
        });
    }
    Ok(v)
}

/// Whether a directory's file is read as part of the corpus: [`Format::in_directory`], or an
/// `.xml` file that is an Atom or RSS document ([`is_feed_document`]): a saved page of the arXiv
/// API is `.xml`, and a folder of them is a feed's candidates. Other XML in a corpus folder is
/// left alone (and named as not read).
fn read_in_directory(path: &Path) -> bool {
    let xml = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("xml"));
    Format::in_directory(path) || (xml && is_feed_document(path))
}

/// How much of an `.xml` file is looked at for its root element: past any declaration,
/// comments and stylesheet lines.
const SNIFF_BYTES: u64 = 4096;

/// Whether the regular file `path` opens as an Atom feed (`<feed`), an RSS 2.0 channel
/// (`<rss`) or an RSS 1.0 document (`<rdf:RDF` with the RSS 1.0 namespace; Zotero's RDF
/// export is `<rdf:RDF` too, without it), by the first element in its first [`SNIFF_BYTES`].
pub fn is_feed_document(path: &Path) -> bool {
    let Ok((f, _)) = crate::safe_fs::open_regular(path, crate::safe_fs::MAX_CORPUS_FILE) else {
        return false;
    };
    let mut head = Vec::new();
    if f.take(SNIFF_BYTES).read_to_end(&mut head).is_err() {
        return false;
    }
    let text = String::from_utf8_lossy(&head);
    // The first element: the first `<` not opening a declaration, comment or instruction.
    let root = text
        .match_indices('<')
        .map(|(i, _)| &text[i + 1..])
        .find(|rest| !rest.starts_with(['?', '!']));
    let Some(root) = root else { return false };
    let name = root
        .split(|c: char| c.is_whitespace() || c == '>' || c == '/')
        .next()
        .unwrap_or_default();
    match name {
        "feed" | "rss" => true,
        "rdf:RDF" => text.contains("purl.org/rss/1.0"),
        _ => name.ends_with(":feed"),
    }
}

/// What a directory corpus path holds and does not read (see [`corpus_files`]): its other
/// files and its subfolders (`name/`), in name order; hidden entries are left unnamed. Empty
/// for a file or a Zotero data folder.
pub fn unread_in(path: &Path) -> Vec<String> {
    if !path.is_dir() || path.join(super::zotero::DATABASE_FILE).is_file() {
        return Vec::new();
    }
    let Ok(entries) = std::fs::read_dir(path) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let dir = e.file_type().is_ok_and(|t| t.is_dir());
            if name.starts_with('.') || (!dir && read_in_directory(&e.path())) {
                return None;
            }
            Some(if dir { format!("{name}/") } else { name })
        })
        .collect();
    names.sort();
    names
}

/// A cheap fingerprint of the bytes of the files [`Corpus::load`] would read at `path`: their
/// names, lengths and CRC-32s. Equal fingerprints mean equal files (short of a deliberate
/// collision), so an index can skip parsing an unchanged corpus; a different fingerprint only
/// means "parse and compare [`super::content_hash`]" (reformatting changes the bytes, not the
/// content).
pub fn fingerprint(path: &Path) -> Result<String, CorpusError> {
    let mut parts = Vec::new();
    for file in corpus_files(path)? {
        let io = |error| CorpusError::Io {
            path: file.clone(),
            error,
        };
        let (f, _) =
            crate::safe_fs::open_regular(&file, crate::safe_fs::MAX_CORPUS_FILE).map_err(io)?;
        let (len, crc) = stream_crc(f).map_err(io)?;
        let name = file.file_name().map(|n| n.to_string_lossy().into_owned());
        parts.push(format!("{}:{len}:{crc:08x}", name.unwrap_or_default()));
    }
    Ok(parts.join(";"))
}

/// [`fingerprint`] of several corpus paths, one per line (for one path, its fingerprint).
pub fn fingerprint_all(paths: &[PathBuf]) -> Result<String, CorpusError> {
    let parts: Result<Vec<String>, CorpusError> = paths.iter().map(|p| fingerprint(p)).collect();
    Ok(parts?.join("\n"))
}

/// Length and CRC-32 of what `f` holds, read in blocks (never mapped: a file truncated while
/// it is read only ends the read early, where a mapping would die of SIGBUS). At most
/// [`crate::safe_fs::MAX_CORPUS_FILE`] + 1 bytes are read, so a file growing meanwhile cannot
/// keep it reading forever; it then fingerprints differently, and the content check runs.
fn stream_crc(f: std::fs::File) -> std::io::Result<(usize, u32)> {
    let mut reader = f.take(crate::safe_fs::MAX_CORPUS_FILE + 1);
    let mut hasher = crc32fast::Hasher::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut len = 0usize;
    loop {
        match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                hasher.update(&buf[..n]);
                len += n;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok((len, hasher.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprint_is_name_length_and_crc_of_the_whole_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("papers.jsonl");
        // Larger than one read block, so the streaming hash spans several.
        let bytes: Vec<u8> = (0..200_000u32).map(|i| b'a' + (i % 26) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let want = format!(
            "papers.jsonl:{}:{:08x}",
            bytes.len(),
            crc32fast::hash(&bytes)
        );
        assert_eq!(fingerprint(&path).unwrap(), want);
        std::fs::write(&path, &bytes[..1000]).unwrap();
        assert_ne!(fingerprint(&path).unwrap(), want);
    }

    /// A folder's `.xml` files are read when they are Atom or RSS documents (a saved arXiv API
    /// page), by their root element; other XML is named as not read.
    #[test]
    fn a_folders_xml_is_read_when_it_is_a_feed() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
        write(
            "api.xml",
            "<?xml version=\"1.0\"?>\n<!-- saved -->\n<feed xmlns=\"http://www.w3.org/2005/Atom\">",
        );
        write("news.XML", "<rss version=\"2.0\"><channel>");
        write(
            "rss1.xml",
            "<rdf:RDF xmlns:rdf=\"x\" xmlns=\"http://purl.org/rss/1.0/\">",
        );
        write("zotero.xml", "<rdf:RDF xmlns:rdf=\"x\"><bib:Article>");
        write("feedback.xml", "<feedback><item/></feedback>");
        write("pom.xml", "<project></project>");
        let read: Vec<String> = corpus_files(dir.path())
            .unwrap()
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(read, ["api.xml", "news.XML", "rss1.xml"]);
        assert_eq!(
            unread_in(dir.path()),
            ["feedback.xml", "pom.xml", "zotero.xml"]
        );
    }
}
