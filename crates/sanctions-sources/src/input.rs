//! Reading a source file: its bytes, their sha256, and text decoding that never mangles names.

use std::path::Path;

use sha2::{Digest, Sha256};

use super::{SourceError, SourceFile};

/// The largest source file we read (the biggest official file is about 25 MB).
pub const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;

/// One file read from disk, with its identity for the update record.
#[derive(Debug, Clone)]
pub struct Input {
    /// File name (no folder), as reported in errors and update records.
    pub name: String,
    pub bytes: Vec<u8>,
    pub sha256: String,
}

impl Input {
    /// Reads a whole file, refusing ones larger than [`MAX_FILE_BYTES`].
    pub fn read(path: &Path) -> Result<Input, SourceError> {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        let io = |source| SourceError::Io {
            path: path.display().to_string(),
            source,
        };
        let len = std::fs::metadata(path).map_err(io)?.len();
        if len > MAX_FILE_BYTES {
            return Err(SourceError::parse(
                &name,
                "",
                format!("file is {len} bytes, larger than the {MAX_FILE_BYTES}-byte limit"),
            ));
        }
        let bytes = std::fs::read(path).map_err(io)?;
        Ok(Input::from_bytes(name, bytes))
    }

    /// Wraps bytes already in memory (tests, downloads).
    pub fn from_bytes(name: impl Into<String>, bytes: Vec<u8>) -> Input {
        let sha256 = hex::encode(Sha256::digest(&bytes));
        Input {
            name: name.into(),
            bytes,
            sha256,
        }
    }

    /// The file's identity for the update record.
    pub fn source_file(&self) -> SourceFile {
        SourceFile {
            name: self.name.clone(),
            sha256: self.sha256.clone(),
            bytes: self.bytes.len() as u64,
        }
    }

    /// The file as text, decoded as [`decode`] says; refused (naming the file, the line and
    /// the byte offset) rather than decoded as another encoding when the bytes are not what
    /// the file declares.
    pub fn text(&self) -> Result<String, SourceError> {
        decode(&self.name, &self.bytes).map(|d| d.text)
    }

    /// The 1-based line of a byte offset, for error messages.
    pub fn line_of(&self, offset: u64) -> usize {
        super::text::line_at(&self.bytes, offset)
    }
}

/// The identity (name, sha256, size) of every file in `dir`, in name order, read in
/// pieces: what a failed import records of the files it refused. A file larger than
/// `max_bytes` is not read at all (its size comes from its metadata, so a huge or sparse
/// file costs nothing): it is recorded with an empty sha256.
pub fn identify_files(dir: &Path, max_bytes: u64) -> Vec<SourceFile> {
    use std::io::Read;
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<_> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| !n.to_string_lossy().starts_with('.'))
        })
        .collect();
    paths.sort();
    paths
        .into_iter()
        .filter_map(|path| {
            let name = path.file_name()?.to_string_lossy().into_owned();
            let size = std::fs::metadata(&path).ok()?.len();
            if size > max_bytes {
                return Some(SourceFile {
                    name,
                    sha256: String::new(),
                    bytes: size,
                });
            }
            let mut file = std::fs::File::open(&path).ok()?;
            let mut hasher = Sha256::new();
            let mut buffer = vec![0u8; 1 << 16];
            let mut bytes = 0u64;
            loop {
                let n = file.read(&mut buffer).ok()?;
                if n == 0 {
                    break;
                }
                hasher.update(&buffer[..n]);
                bytes += n as u64;
            }
            Some(SourceFile {
                name,
                sha256: hex::encode(hasher.finalize()),
                bytes,
            })
        })
        .collect()
}

/// Decodes bytes as described in [`decode`], for callers without a file name (tests,
/// benchmarks): text that cannot be decoded strictly comes back with U+FFFD in place of
/// each bad byte, never as another encoding.
pub fn decode_text(bytes: &[u8]) -> String {
    match decode("", bytes) {
        Ok(decoded) => decoded.text,
        Err(_) => {
            String::from_utf8_lossy(bytes.strip_suffix(&[0x1A]).unwrap_or(bytes)).into_owned()
        }
    }
}

pub use super::decoding::{Decoded, decode, encoding_of};
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_utf8_bom_utf16_and_windows_1252() {
        assert_eq!(decode_text(b"\xEF\xBB\xBFJos\xC3\xA9"), "José");
        assert_eq!(decode_text(b"Jos\xC3\xA9\r\n\x1A"), "José\r\n");
        // No UTF-8 sequence anywhere: a legacy single-byte file.
        assert_eq!(decode_text(b"Jos\xE9 M\xFCller"), "José Müller");
        assert_eq!(decode_text(b"\xFF\xFEA\x00\x14\x04"), "AД");
        assert_eq!(decode_text("Путин".as_bytes()), "Путин");
    }

    #[test]
    fn files_over_the_limit_are_not_hashed() {
        let dir = tempfile::tempdir().unwrap();
        let big = std::fs::File::create(dir.path().join("sdn.csv")).unwrap();
        big.set_len(2 << 30).unwrap(); // sparse: nothing written
        std::fs::write(dir.path().join("add.csv"), b"x").unwrap();
        let files = identify_files(dir.path(), 1 << 20);
        assert_eq!(files.len(), 2);
        assert_eq!(
            (files[1].name.as_str(), files[1].bytes),
            ("sdn.csv", 2 << 30)
        );
        assert_eq!(files[1].sha256, "");
        assert_eq!(files[0].sha256.len(), 64);
    }

    #[test]
    fn reports_lines_and_hashes() {
        let input = Input::from_bytes("x.csv", b"a\nb\nc".to_vec());
        assert_eq!(input.line_of(0), 1);
        assert_eq!(input.line_of(4), 3);
        assert_eq!(
            input.sha256,
            "ea7fb08b7a2dc4619ffb7c7bb38d95a2047935fa165d71b12efd3852a2e6d0cc"
        );
    }
}
