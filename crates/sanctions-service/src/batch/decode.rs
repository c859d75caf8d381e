//! Batch input bytes to text: UTF-8 (with or without BOM), UTF-16 (with a BOM, or detected by
//! its zero bytes), else Windows-1252 as the list files are read. Lines holding bytes that
//! are invalid in the encoding are remembered, so that their rows are reported, not guessed.

use std::collections::BTreeSet;

/// Decoded text and the (1-based) lines that held invalid bytes.
#[derive(Debug)]
pub struct Decoded {
    pub text: String,
    /// `UTF-8`, `UTF-16LE`, `UTF-16BE` or `windows-1252`.
    pub encoding: &'static str,
    /// Line -> what was wrong on it.
    pub bad_lines: BTreeSet<(u64, String)>,
}

/// Bytes Windows-1252 leaves undefined.
const UNDEFINED_1252: [u8; 5] = [0x81, 0x8D, 0x8F, 0x90, 0x9D];

pub fn decode(bytes: &[u8]) -> Decoded {
    let bytes = bytes.strip_suffix(&[0x1A]).unwrap_or(bytes);
    if let Some((encoding, bom_len)) = encoding_rs::Encoding::for_bom(bytes) {
        return with_encoding(encoding, &bytes[bom_len..]);
    }
    if let Some(encoding) = utf16_without_bom(bytes) {
        return with_encoding(encoding, bytes);
    }
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Decoded {
            text: text.to_owned(),
            encoding: "UTF-8",
            bad_lines: BTreeSet::new(),
        };
    }
    // Not valid UTF-8: UTF-8 with broken bytes if it holds any valid multi-byte sequence,
    // else Windows-1252 (a legacy export).
    let utf8_evidence = bytes.utf8_chunks().any(|chunk| !chunk.valid().is_ascii());
    let mut bad_lines = BTreeSet::new();
    let mut text = String::with_capacity(bytes.len() + 16);
    let encoding = if utf8_evidence {
        "UTF-8"
    } else {
        "windows-1252"
    };
    for (i, line) in bytes.split_inclusive(|&b| b == b'\n').enumerate() {
        let number = i as u64 + 1;
        if utf8_evidence {
            match std::str::from_utf8(line) {
                Ok(ok) => text.push_str(ok),
                Err(e) => {
                    let byte = line[e.valid_up_to()];
                    bad_lines.insert((number, format!("invalid UTF-8 byte 0x{byte:02X}")));
                    text.push_str(&String::from_utf8_lossy(line));
                }
            }
        } else {
            if let Some(byte) = line.iter().find(|b| UNDEFINED_1252.contains(b)) {
                bad_lines.insert((
                    number,
                    format!("byte 0x{byte:02X} is neither UTF-8 nor Windows-1252 text"),
                ));
            }
            text.push_str(
                &encoding_rs::WINDOWS_1252
                    .decode_without_bom_handling(line)
                    .0,
            );
        }
    }
    Decoded {
        text,
        encoding,
        bad_lines,
    }
}

fn with_encoding(encoding: &'static encoding_rs::Encoding, bytes: &[u8]) -> Decoded {
    let (text, had_errors) = encoding.decode_without_bom_handling(bytes);
    let text = text.into_owned();
    let mut bad_lines = BTreeSet::new();
    if had_errors {
        for (i, line) in text.lines().enumerate() {
            if line.contains('\u{FFFD}') {
                bad_lines.insert((i as u64 + 1, format!("invalid {} text", encoding.name())));
            }
        }
    }
    Decoded {
        text,
        encoding: encoding.name(),
        bad_lines,
    }
}

/// UTF-16 without a BOM: text holds no NUL bytes, UTF-16 holds one in every ASCII character;
/// the side they fall on tells little-endian (odd offsets) from big-endian (even).
fn utf16_without_bom(bytes: &[u8]) -> Option<&'static encoding_rs::Encoding> {
    if bytes.len() < 2 || !bytes.len().is_multiple_of(2) {
        return None;
    }
    let sample = &bytes[..bytes.len().min(64 * 1024)];
    let zeros_at = |parity: usize| {
        sample
            .iter()
            .skip(parity)
            .step_by(2)
            .filter(|&&b| b == 0)
            .count()
    };
    let (even, odd) = (zeros_at(0), zeros_at(1));
    if odd > 0 && even == 0 {
        Some(encoding_rs::UTF_16LE)
    } else if even > 0 && odd == 0 {
        Some(encoding_rs::UTF_16BE)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16le(text: &str, bom: bool) -> Vec<u8> {
        let mut out = if bom { vec![0xFF, 0xFE] } else { vec![] };
        for unit in text.encode_utf16() {
            out.extend_from_slice(&unit.to_le_bytes());
        }
        out
    }

    #[test]
    fn reads_every_encoding() {
        assert_eq!(decode(b"\xEF\xBB\xBFJos\xC3\xA9").text, "José");
        let cp = decode(b"name\nJos\xE9 M\xFCller\n");
        assert_eq!(
            (cp.text.as_str(), cp.encoding),
            ("name\nJosé Müller\n", "windows-1252")
        );
        assert_eq!(
            decode(&utf16le("name\nПутин\n", true)).text,
            "name\nПутин\n"
        );
        assert_eq!(
            decode(&utf16le("name\nPutin\n", false)).text,
            "name\nPutin\n"
        );
        let mut be = vec![0xFE, 0xFF];
        for unit in "Putin".encode_utf16() {
            be.extend_from_slice(&unit.to_be_bytes());
        }
        assert_eq!(decode(&be).text, "Putin");
    }

    #[test]
    fn names_the_lines_with_invalid_bytes() {
        let broken = decode("José\nbad \u{0}".replace('\u{0}', "").as_bytes());
        assert!(broken.bad_lines.is_empty());
        let broken = decode(b"Jos\xC3\xA9\nbad \xE9 byte\nok\n");
        assert_eq!(broken.encoding, "UTF-8");
        assert_eq!(
            broken.bad_lines.iter().map(|(l, _)| *l).collect::<Vec<_>>(),
            [2]
        );
        let undefined = decode(b"ok\nx\x81y\n");
        assert_eq!(undefined.bad_lines.iter().next().unwrap().0, 2);
    }
}
