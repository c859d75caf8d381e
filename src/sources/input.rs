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

    /// The file as text: UTF-8 (a BOM is dropped), UTF-16 with a BOM, else Windows-1252 when
    /// the bytes are not valid UTF-8. A trailing 0x1A (DOS end-of-file) byte is dropped.
    pub fn text(&self) -> String {
        decode_text(&self.bytes)
    }

    /// The 1-based line of a byte offset, for error messages.
    pub fn line_of(&self, offset: u64) -> usize {
        super::text::line_at(&self.bytes, offset)
    }
}

/// The identity (name, sha256, size) of every file in `dir`, in name order, read in
/// pieces: what a failed import records of the files it refused.
pub fn identify_files(dir: &Path) -> Vec<SourceFile> {
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
                name: path.file_name()?.to_string_lossy().into_owned(),
                sha256: hex::encode(hasher.finalize()),
                bytes,
            })
        })
        .collect()
}

/// Decodes bytes as described in [`Input::text`].
pub fn decode_text(bytes: &[u8]) -> String {
    let bytes = bytes.strip_suffix(&[0x1A]).unwrap_or(bytes);
    if let Some((encoding, bom_len)) = encoding_rs::Encoding::for_bom(bytes) {
        let (text, _) = encoding.decode_without_bom_handling(&bytes[bom_len..]);
        return text.into_owned();
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_owned(),
        Err(_) => encoding_rs::WINDOWS_1252
            .decode_without_bom_handling(bytes)
            .0
            .into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_utf8_bom_utf16_and_windows_1252() {
        assert_eq!(decode_text(b"\xEF\xBB\xBFJos\xC3\xA9"), "José");
        assert_eq!(decode_text(b"Jos\xC3\xA9\r\n\x1A"), "José\r\n");
        assert_eq!(decode_text(b"Jos\xE9 M\xFCller"), "José Müller");
        assert_eq!(decode_text(b"\xFF\xFEA\x00\x14\x04"), "AД");
        assert_eq!(decode_text("Путин".as_bytes()), "Путин");
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
