//! The bytes of an index: a read-only memory map of the file, or an owned buffer (a freshly
//! built index, or a file system that cannot map).
//!
//! Both keep the bytes 8-byte aligned, so aligned sections can be viewed as `f32`/`u32`/`u64`
//! arrays in place (little-endian hosts only; [`Storage::open`] refuses others).

use std::path::Path;

use memmap2::Mmap;

use super::format::FormatError;

pub enum Storage {
    /// The file, mapped. `index.bin` is replaced by rename, never rewritten in place, so the
    /// mapped inode does not change under a reader.
    Mapped(Mmap),
    /// `len` bytes held in 8-byte words (for alignment).
    Owned(Vec<u64>, usize),
}

impl Storage {
    /// Map `path` read-only (falling back to reading it into memory).
    pub fn open(path: &Path) -> Result<Storage, FormatError> {
        if cfg!(target_endian = "big") {
            return Err(FormatError::Corrupt {
                path: path.display().to_string(),
                detail: "index files are little-endian and this machine is not".into(),
            });
        }
        let io = |error| FormatError::Io {
            path: path.display().to_string(),
            error,
        };
        // A regular file within the size limit only: a FIFO or a device would block or never end.
        let (file, len) =
            crate::safe_fs::open_regular(path, crate::safe_fs::MAX_INDEX_FILE).map_err(io)?;
        // SAFETY: `Mmap::map` is a read-only *shared* mapping (MAP_SHARED): writes to the file
        // by any process show through it, and truncation makes reads past the new end fault
        // (SIGBUS). We never write through it, and recommend only ever replaces an index by
        // rename (`write_atomic`), which leaves the mapped inode intact; a process rewriting or
        // truncating the file in place is outside what this guards against. Every section is
        // validated (lengths, alignment, checksum) before use.
        match unsafe { Mmap::map(&file) } {
            Ok(map) => Ok(Storage::Mapped(map)),
            Err(_) => {
                use std::io::Read;
                let mut bytes = Vec::with_capacity(len as usize);
                file.take(len).read_to_end(&mut bytes).map_err(io)?;
                Ok(Storage::from_bytes(&bytes))
            }
        }
    }

    /// Copy `bytes` into an aligned owned buffer.
    pub fn from_bytes(bytes: &[u8]) -> Storage {
        let mut words = vec![0u64; bytes.len().div_ceil(8)];
        bytemuck::cast_slice_mut::<u64, u8>(&mut words)[..bytes.len()].copy_from_slice(bytes);
        Storage::Owned(words, bytes.len())
    }

    pub fn bytes(&self) -> &[u8] {
        match self {
            Storage::Mapped(m) => m,
            Storage::Owned(words, len) => &bytemuck::cast_slice::<u64, u8>(words)[..*len],
        }
    }
}
