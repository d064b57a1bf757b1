//! The `index.bin` container: a versioned, checksummed envelope around a small bincode header
//! and raw, aligned sections.
//!
//! Layout (little-endian):
//! `b"RECIDX\0\0"` | format version u32 | payload length u64 | payload | CRC-32 of all
//! preceding bytes u32 | `b"END!"`, where the payload is
//! header length u64 | header (bincode: the section table and the caller's metadata) | zero
//! padding | sections, each starting at a file offset that is a multiple of [`ALIGN`].
//!
//! Sections hold plain arrays (f32 vectors, u32/u64 offsets, UTF-8 text), so a reader maps the
//! file and views them in place instead of decoding them: loading a 100k-paper index costs about
//! what it takes to checksum it. Everything is validated (size, magic, version, length,
//! checksum, then the header and that every section lies inside the payload, aligned and
//! disjoint) before a section is used; the header decodes with a size limit and must be consumed
//! exactly. A truncated, bit-flipped or hostile file yields an error, never a panic or a huge
//! allocation.

use std::ops::Range;
use std::path::Path;

use serde::{Deserialize, Serialize, de::DeserializeOwned};

pub const MAGIC: &[u8; 8] = b"RECIDX\0\0";
pub const FOOTER: &[u8; 4] = b"END!";
/// Bump whenever the layout or the header's shape changes.
pub const FORMAT_VERSION: u32 = 3;
/// Sections start at file offsets that are multiples of this (a cache line; enough for any
/// element type).
pub const ALIGN: usize = 64;
const PREFIX_LEN: usize = 8 + 4 + 8;
const FOOTER_LEN: usize = 4 + 4;
/// Upper bound on the decoded header (the section table and small metadata).
const HEADER_LIMIT: usize = 16 << 20;

/// Where a named section lies in the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SectionEntry {
    pub name: String,
    /// Byte offset from the start of the file.
    pub offset: u64,
    pub len: u64,
}

#[derive(Serialize, Deserialize)]
struct Header<M> {
    sections: Vec<SectionEntry>,
    meta: M,
}

#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    // The OS error is part of the message, not a `source`: `{:#}` would print it twice.
    #[error("cannot read index {path}: {error}")]
    Io { path: String, error: std::io::Error },
    #[error("{path} is not a recommend index (bad magic bytes); rebuild it with `recommend index`")]
    NotAnIndex { path: String },
    #[error("{path} is truncated or corrupt ({detail}); rebuild it with `recommend index`")]
    Corrupt { path: String, detail: String },
    #[error(
        "{path} uses index format version {found}, this recommend reads version {expected}; \
         rebuild it with `recommend index`"
    )]
    Version {
        path: String,
        found: u32,
        expected: u32,
    },
    #[error("cannot write index {path}: {error}")]
    Write { path: String, error: std::io::Error },
    #[error("cannot encode the index: {0}")]
    Encode(String),
}

fn config() -> impl bincode::config::Config {
    bincode::config::standard().with_limit::<HEADER_LIMIT>()
}

fn align(n: usize) -> usize {
    n.div_ceil(ALIGN) * ALIGN
}

/// Serialize `meta` and the named `sections` into the container format.
pub fn encode<M: Serialize>(meta: &M, sections: &[(&str, &[u8])]) -> Result<Vec<u8>, FormatError> {
    // Section offsets depend on the header's length, which depends on the offsets' varint
    // sizes: lay out with a guess, then again until the header length settles (twice at most
    // in practice).
    let mut header_len = 0usize;
    for _ in 0..8 {
        let mut at = align(PREFIX_LEN + 8 + header_len);
        let table: Vec<SectionEntry> = sections
            .iter()
            .map(|(name, bytes)| {
                let e = SectionEntry {
                    name: name.to_string(),
                    offset: at as u64,
                    len: bytes.len() as u64,
                };
                at = align(at + bytes.len());
                e
            })
            .collect();
        let header = bincode::serde::encode_to_vec(
            Header {
                sections: table.clone(),
                meta,
            },
            config(),
        )
        .map_err(|e| FormatError::Encode(e.to_string()))?;
        if header.len() != header_len {
            header_len = header.len();
            continue;
        }
        let payload_end = table.last().map_or(PREFIX_LEN + 8 + header.len(), |e| {
            (e.offset + e.len) as usize
        });
        let mut out = Vec::with_capacity(payload_end + FOOTER_LEN);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&((payload_end - PREFIX_LEN) as u64).to_le_bytes());
        out.extend_from_slice(&(header.len() as u64).to_le_bytes());
        out.extend_from_slice(&header);
        for (e, (_, bytes)) in table.iter().zip(sections) {
            out.resize(e.offset as usize, 0);
            out.extend_from_slice(bytes);
        }
        let crc = crc32fast::hash(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out.extend_from_slice(FOOTER);
        return Ok(out);
    }
    Err(FormatError::Encode(
        "the header length does not settle".into(),
    ))
}

/// CRC-32 of `bytes`, computed over 8 MiB blocks on all cores and combined (the checksum is the
/// largest part of opening a big index: it reads every byte).
fn parallel_crc(bytes: &[u8]) -> u32 {
    use rayon::prelude::*;
    const BLOCK: usize = 8 << 20;
    if bytes.len() <= BLOCK {
        return crc32fast::hash(bytes);
    }
    let parts: Vec<crc32fast::Hasher> = bytes
        .par_chunks(BLOCK)
        .map(|c| {
            let mut h = crc32fast::Hasher::new();
            h.update(c);
            h
        })
        .collect();
    let mut total = crc32fast::Hasher::new();
    for p in &parts {
        total.combine(p);
    }
    total.finalize()
}

/// A validated container: the caller's metadata and where each section lies.
#[derive(Debug, Clone)]
pub struct Container<M> {
    pub meta: M,
    pub sections: Vec<SectionEntry>,
}

impl<M> Container<M> {
    /// The byte range of section `name` in the file.
    pub fn range(&self, name: &str) -> Option<Range<usize>> {
        self.sections
            .iter()
            .find(|e| e.name == name)
            .map(|e| e.offset as usize..(e.offset + e.len) as usize)
    }
}

/// Validate container bytes read from `path` (the path only names errors) and decode the header.
/// Sections are checked to lie inside the payload, aligned and in order, but not decoded.
pub fn open<M: DeserializeOwned>(bytes: &[u8], path: &str) -> Result<Container<M>, FormatError> {
    let corrupt = |detail: String| FormatError::Corrupt {
        path: path.to_string(),
        detail,
    };
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        return Err(FormatError::NotAnIndex {
            path: path.to_string(),
        });
    }
    if bytes.len() < PREFIX_LEN + 8 + FOOTER_LEN {
        return Err(corrupt(format!("only {} bytes", bytes.len())));
    }
    let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if version != FORMAT_VERSION {
        return Err(FormatError::Version {
            path: path.to_string(),
            found: version,
            expected: FORMAT_VERSION,
        });
    }
    let declared = u64_at(12);
    let actual = (bytes.len() - PREFIX_LEN - FOOTER_LEN) as u64;
    if declared != actual {
        return Err(corrupt(format!(
            "header announces {declared} payload bytes, file holds {actual}"
        )));
    }
    let body_end = bytes.len() - FOOTER_LEN;
    if &bytes[body_end + 4..] != FOOTER {
        return Err(corrupt("missing end marker".into()));
    }
    let stored = u32::from_le_bytes(bytes[body_end..body_end + 4].try_into().expect("4 bytes"));
    let computed = parallel_crc(&bytes[..body_end]);
    if stored != computed {
        return Err(corrupt(format!(
            "checksum mismatch: stored {stored:08x}, computed {computed:08x}"
        )));
    }
    let header_len = u64_at(PREFIX_LEN);
    let header_start = PREFIX_LEN + 8;
    if header_len > (body_end - header_start) as u64 {
        return Err(corrupt(format!(
            "header of {header_len} bytes overruns the file"
        )));
    }
    let header_bytes = &bytes[header_start..header_start + header_len as usize];
    let (header, used): (Header<M>, usize) =
        bincode::serde::decode_from_slice(header_bytes, config())
            .map_err(|e| corrupt(format!("header does not decode: {e}")))?;
    if used != header_bytes.len() {
        return Err(corrupt(format!(
            "{} trailing header bytes",
            header_bytes.len() - used
        )));
    }
    let mut next = (header_start + header_bytes.len()) as u64;
    for e in &header.sections {
        let end = e.offset.checked_add(e.len);
        if e.offset < next
            || e.offset % ALIGN as u64 != 0
            || end.is_none_or(|x| x > body_end as u64)
        {
            return Err(corrupt(format!(
                "section {} lies outside the payload",
                e.name
            )));
        }
        next = e.offset + e.len;
    }
    Ok(Container {
        meta: header.meta,
        sections: header.sections,
    })
}

/// Write `bytes` to `path` atomically ([`crate::safe_fs::write_atomic`]): a crash leaves either
/// the old file or the new one, never a mix, and an interruption leaves no temp file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), FormatError> {
    crate::safe_fs::write_atomic(path, bytes).map_err(|error| FormatError::Write {
        path: path.display().to_string(),
        error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<u8> {
        let floats: Vec<u8> = [1.5f32, 2.5].iter().flat_map(|x| x.to_le_bytes()).collect();
        encode(
            &String::from("hello"),
            &[("floats", &floats), ("text", b"abc")],
        )
        .unwrap()
    }

    #[test]
    fn round_trip_and_every_corruption_is_an_error() {
        let bytes = sample();
        let c: Container<String> = open(&bytes, "x").unwrap();
        assert_eq!(c.meta, "hello");
        let f = c.range("floats").unwrap();
        assert_eq!(f.start % ALIGN, 0);
        assert_eq!(
            &bytes[f],
            &[1.5f32.to_le_bytes(), 2.5f32.to_le_bytes()].concat()[..]
        );
        assert_eq!(&bytes[c.range("text").unwrap()], b"abc");
        assert!(c.range("missing").is_none());
        for cut in 0..bytes.len() {
            assert!(open::<String>(&bytes[..cut], "x").is_err(), "cut {cut}");
        }
        for i in 0..bytes.len() {
            for bit in [0x01u8, 0x80] {
                let mut b = bytes.clone();
                b[i] ^= bit;
                assert!(open::<String>(&b, "x").is_err(), "flip {i}");
            }
        }
    }

    #[test]
    fn a_section_table_pointing_outside_is_rejected_even_with_a_valid_checksum() {
        // Forge a header whose section runs past the end, then fix up the checksum.
        let header = bincode::serde::encode_to_vec(
            Header {
                sections: vec![SectionEntry {
                    name: "x".into(),
                    offset: 64,
                    len: 1 << 40,
                }],
                meta: 0u8,
            },
            config(),
        )
        .unwrap();
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&((8 + header.len()) as u64).to_le_bytes());
        out.extend_from_slice(&(header.len() as u64).to_le_bytes());
        out.extend_from_slice(&header);
        let crc = crc32fast::hash(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out.extend_from_slice(FOOTER);
        let err = open::<u8>(&out, "f").unwrap_err().to_string();
        assert!(err.contains("outside the payload"), "{err}");
    }

    #[test]
    fn the_parallel_checksum_is_the_plain_one() {
        let bytes: Vec<u8> = (0..(20u32 << 20))
            .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
            .collect();
        assert_eq!(parallel_crc(&bytes), crc32fast::hash(&bytes));
        assert_eq!(parallel_crc(&bytes[..100]), crc32fast::hash(&bytes[..100]));
    }

    #[test]
    fn other_version_is_named() {
        let mut bytes = sample();
        bytes[8] = 9;
        let err = open::<String>(&bytes, "idx").unwrap_err().to_string();
        assert!(err.contains("version 9"), "{err}");
        assert!(err.contains("recommend index"), "{err}");
    }
}
