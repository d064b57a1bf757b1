//! The `index.bin` container: a versioned, checksummed envelope around a bincode payload.
//!
//! Layout (little-endian):
//! `b"RECIDX\0\0"` | format version u32 | payload length u64 | payload | CRC-32 of all preceding
//! bytes u32 | `b"END!"`.
//!
//! Everything is validated (size, magic, version, length, checksum) before a single payload byte
//! is decoded, and decoding runs with a size limit and must consume the payload exactly: a
//! truncated, bit-flipped or hostile file yields an error, never a panic or a huge allocation.

use std::io::Write;
use std::path::Path;

use serde::{Serialize, de::DeserializeOwned};

pub const MAGIC: &[u8; 8] = b"RECIDX\0\0";
pub const FOOTER: &[u8; 4] = b"END!";
/// Bump whenever the payload's shape changes.
pub const FORMAT_VERSION: u32 = 1;
const HEADER_LEN: usize = 8 + 4 + 8;
const FOOTER_LEN: usize = 4 + 4;
/// Upper bound on decoded size, far above any real index (100k papers is ~200 MB).
const DECODE_LIMIT: usize = 4 << 30;

#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    #[error("cannot read index {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
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
    #[error("cannot write index {path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot encode the index: {0}")]
    Encode(String),
}

fn config() -> impl bincode::config::Config {
    bincode::config::standard().with_limit::<DECODE_LIMIT>()
}

/// Serialize `value` into the container format.
pub fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>, FormatError> {
    let payload = bincode::serde::encode_to_vec(value, config())
        .map_err(|e| FormatError::Encode(e.to_string()))?;
    let mut out = Vec::with_capacity(HEADER_LEN + payload.len() + FOOTER_LEN);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&payload);
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out.extend_from_slice(FOOTER);
    Ok(out)
}

/// Validate and decode container bytes read from `path` (the path only names errors).
pub fn decode<T: DeserializeOwned>(bytes: &[u8], path: &str) -> Result<T, FormatError> {
    let corrupt = |detail: String| FormatError::Corrupt {
        path: path.to_string(),
        detail,
    };
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        return Err(FormatError::NotAnIndex {
            path: path.to_string(),
        });
    }
    if bytes.len() < HEADER_LEN + FOOTER_LEN {
        return Err(corrupt(format!("only {} bytes", bytes.len())));
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if version != FORMAT_VERSION {
        return Err(FormatError::Version {
            path: path.to_string(),
            found: version,
            expected: FORMAT_VERSION,
        });
    }
    let declared = u64::from_le_bytes(bytes[12..20].try_into().expect("8 bytes"));
    let actual = (bytes.len() - HEADER_LEN - FOOTER_LEN) as u64;
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
    let computed = crc32fast::hash(&bytes[..body_end]);
    if stored != computed {
        return Err(corrupt(format!(
            "checksum mismatch: stored {stored:08x}, computed {computed:08x}"
        )));
    }
    let payload = &bytes[HEADER_LEN..body_end];
    let (value, used) = bincode::serde::decode_from_slice(payload, config())
        .map_err(|e| corrupt(format!("payload does not decode: {e}")))?;
    if used != payload.len() {
        return Err(corrupt(format!(
            "{} trailing payload bytes",
            payload.len() - used
        )));
    }
    Ok(value)
}

/// Write `bytes` to `path` atomically: a temp file in the same directory, fsync, rename. A crash
/// leaves either the old file or the new one, never a mix.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), FormatError> {
    let werr = |source| FormatError::Write {
        path: path.display().to_string(),
        source,
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir).map_err(werr)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".index-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(werr)?;
    tmp.write_all(bytes).map_err(werr)?;
    tmp.as_file().sync_all().map_err(werr)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // tempfile creates 0600; an index is ordinary shared data.
        let _ = tmp
            .as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644));
    }
    tmp.persist(path).map_err(|e| werr(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_every_corruption_is_an_error() {
        let value = (String::from("hello"), vec![1.5f32, 2.5]);
        let bytes = encode(&value).unwrap();
        let back: (String, Vec<f32>) = decode(&bytes, "x").unwrap();
        assert_eq!(back, value);
        for cut in 0..bytes.len() {
            assert!(
                decode::<(String, Vec<f32>)>(&bytes[..cut], "x").is_err(),
                "cut {cut}"
            );
        }
        for i in 0..bytes.len() {
            for bit in [0x01u8, 0x80] {
                let mut b = bytes.clone();
                b[i] ^= bit;
                assert!(decode::<(String, Vec<f32>)>(&b, "x").is_err(), "flip {i}");
            }
        }
    }

    #[test]
    fn other_version_is_named() {
        let mut bytes = encode(&1u8).unwrap();
        bytes[8] = 9;
        let err = decode::<u8>(&bytes, "idx").unwrap_err().to_string();
        assert!(err.contains("version 9"), "{err}");
        assert!(err.contains("recommend index"), "{err}");
    }
}
