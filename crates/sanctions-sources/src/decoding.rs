//! Text decoding that cannot silently change a name.
//!
//! A file is read in the encoding it declares (a byte-order mark, an XML declaration; JSON
//! and XML without a declaration are UTF-8 by their standards) or, with no declaration, as
//! UTF-8 when its bytes hold UTF-8 text. Bytes that are not valid in that encoding make the
//! file refused, naming the line and the byte offset: decoding the whole file as another
//! encoding instead would turn every non-ASCII name of the list into mojibake while the
//! import reports success. Only a file with no declaration and no UTF-8 sequence at all (a
//! legacy single-byte export) is read as Windows-1252, and the import report says so.

use encoding_rs::{Encoding, UTF_8, UTF_16BE, UTF_16LE, WINDOWS_1252};

use super::SourceError;

/// A decoded file and the encoding it was read in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    pub text: String,
    /// `UTF-8`, `UTF-16LE`, `windows-1252`, ... as the import report states it.
    pub encoding: &'static str,
}

/// How the encoding of a file was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Choice {
    /// A byte-order mark of this length.
    Bom(&'static Encoding, usize),
    /// Declared by the format (XML declaration, or the JSON and XML default).
    Declared(&'static Encoding),
    /// No declaration, and UTF-8 sequences in the bytes (or only ASCII).
    DetectedUtf8,
    /// No declaration and no UTF-8 sequence: a single-byte legacy file.
    Legacy,
}

/// The bytes of a file without the DOS end-of-file byte (0x1A) some publishers append.
fn content(bytes: &[u8]) -> &[u8] {
    bytes.strip_suffix(&[0x1A]).unwrap_or(bytes)
}

/// Decodes `bytes` of file `name` strictly, as the module documentation says.
pub fn decode(name: &str, bytes: &[u8]) -> Result<Decoded, SourceError> {
    let bytes = content(bytes);
    match choose(bytes) {
        Choice::Bom(encoding, bom) => strict(name, encoding, bytes, bom),
        Choice::Declared(encoding) => strict(name, encoding, bytes, 0),
        Choice::DetectedUtf8 => strict(name, UTF_8, bytes, 0),
        Choice::Legacy => Ok(Decoded {
            text: WINDOWS_1252
                .decode_without_bom_handling(bytes)
                .0
                .into_owned(),
            encoding: "windows-1252 (no UTF-8 sequence in the file)",
        }),
    }
}

/// The encoding [`decode`] reads `bytes` in, for the import report (whether or not they
/// decode without error). Zip containers (xlsx) hold XML in UTF-8.
pub fn encoding_of(bytes: &[u8]) -> &'static str {
    if bytes.starts_with(b"PK\x03\x04") {
        return "zip (XML inside, UTF-8)";
    }
    match choose(content(bytes)) {
        Choice::Bom(encoding, _) | Choice::Declared(encoding) => encoding.name(),
        Choice::DetectedUtf8 => "UTF-8",
        Choice::Legacy => "windows-1252 (no UTF-8 sequence in the file)",
    }
}

fn choose(bytes: &[u8]) -> Choice {
    if let Some((encoding, bom)) = Encoding::for_bom(bytes) {
        return Choice::Bom(encoding, bom);
    }
    if let Some(encoding) = declared(bytes) {
        return Choice::Declared(encoding);
    }
    if std::str::from_utf8(bytes).is_ok() || holds_utf8_sequences(bytes) {
        Choice::DetectedUtf8
    } else {
        Choice::Legacy
    }
}

/// The encoding an XML or JSON file declares: an XML declaration's `encoding`, else UTF-8
/// for a document starting with `<` or `{`/`[` (the standards' default).
fn declared(bytes: &[u8]) -> Option<&'static Encoding> {
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace())?;
    let head = &bytes[start..bytes.len().min(start + 256)];
    match head.first()? {
        b'{' | b'[' => Some(UTF_8),
        b'<' => Some(xml_declared(head).unwrap_or(UTF_8)),
        _ => None,
    }
}

/// The `encoding="..."` of an XML declaration at the start of `head`, when it names one
/// encoding_rs knows; UTF-16 labels mean UTF-8 here (a UTF-16 file has a BOM).
fn xml_declared(head: &[u8]) -> Option<&'static Encoding> {
    let decl = head.strip_prefix(b"<?xml")?;
    let end = decl.windows(2).position(|w| w == b"?>")?;
    let decl = &decl[..end];
    let at = decl.windows(8).position(|w| w == b"encoding")?;
    let rest = &decl[at + 8..];
    let quote_at = rest.iter().position(|b| *b == b'"' || *b == b'\'')?;
    let quote = rest[quote_at];
    let value = &rest[quote_at + 1..];
    let close = value.iter().position(|b| *b == quote)?;
    let encoding = Encoding::for_label(&value[..close])?;
    Some(if encoding == UTF_16LE || encoding == UTF_16BE {
        UTF_8
    } else {
        encoding
    })
}

/// True when some non-ASCII bytes of `bytes` form valid UTF-8 sequences: a file written in
/// UTF-8 (a few bad bytes in it are damage, not another encoding).
fn holds_utf8_sequences(bytes: &[u8]) -> bool {
    bytes.utf8_chunks().any(|chunk| !chunk.valid().is_ascii())
}

/// `bytes[skip..]` decoded as `encoding` without replacement, or the first bad byte named.
fn strict(
    name: &str,
    encoding: &'static Encoding,
    bytes: &[u8],
    skip: usize,
) -> Result<Decoded, SourceError> {
    let body = &bytes[skip..];
    if encoding == UTF_8 {
        return match std::str::from_utf8(body) {
            Ok(text) => Ok(Decoded {
                text: text.to_owned(),
                encoding: UTF_8.name(),
            }),
            Err(e) => Err(invalid(name, "UTF-8", bytes, skip + e.valid_up_to())),
        };
    }
    match encoding.decode_without_bom_handling_and_without_replacement(body) {
        Some(text) => Ok(Decoded {
            text: text.into_owned(),
            encoding: encoding.name(),
        }),
        None => Err(invalid(
            name,
            encoding.name(),
            bytes,
            skip + first_bad(encoding, body),
        )),
    }
}

/// The offset of the first byte `encoding` cannot decode in `body` (found by halving).
fn first_bad(encoding: &'static Encoding, body: &[u8]) -> usize {
    let (mut good, mut bad) = (0usize, body.len());
    while bad - good > 4 {
        let mid = good + (bad - good) / 2;
        let mid = mid - mid % 2; // whole UTF-16 units
        if encoding
            .decode_without_bom_handling_and_without_replacement(&body[..mid])
            .is_some()
        {
            good = mid;
        } else {
            bad = mid;
        }
    }
    good
}

/// The refusal of a file whose byte at `offset` is invalid in `encoding`.
fn invalid(name: &str, encoding: &str, bytes: &[u8], offset: usize) -> SourceError {
    let shown: Vec<String> = bytes[offset..bytes.len().min(offset + 4)]
        .iter()
        .map(|b| format!("0x{b:02X}"))
        .collect();
    SourceError::parse(
        name,
        format!(
            "line {} (byte offset {offset})",
            super::text::line_at(bytes, offset as u64)
        ),
        format!(
            "invalid {encoding} bytes ({}); the file is refused rather than read in another encoding, which would change its names. Download the file again",
            shown.join(" ")
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(bytes: &[u8]) -> String {
        decode("f.xml", bytes).unwrap_err().to_string()
    }

    #[test]
    fn reads_what_a_file_declares_or_holds() {
        let d = decode("f", b"\xEF\xBB\xBFJos\xC3\xA9").unwrap();
        assert_eq!((d.text.as_str(), d.encoding), ("José", "UTF-8"));
        let d = decode("f", b"\xFF\xFEA\x00\x14\x04").unwrap();
        assert_eq!((d.text.as_str(), d.encoding), ("AД", "UTF-16LE"));
        let latin = b"<?xml version='1.0' encoding='ISO-8859-1'?><a>Jos\xE9</a>";
        let d = decode("f", latin).unwrap();
        assert_eq!(
            d.text,
            "<?xml version='1.0' encoding='ISO-8859-1'?><a>José</a>"
        );
        assert_eq!(d.encoding, "windows-1252");
        let legacy = decode("f", b"1,\"M\xDCLLER\"\r\n\x1A").unwrap();
        assert_eq!(legacy.text, "1,\"MÜLLER\"\r\n");
        assert!(legacy.encoding.starts_with("windows-1252"));
        assert_eq!(encoding_of(b"PK\x03\x04rest"), "zip (XML inside, UTF-8)");
        assert_eq!(encoding_of(b"{\"a\":1}"), "UTF-8");
    }

    #[test]
    fn refuses_invalid_bytes_naming_line_and_offset() {
        // Declared UTF-8 (the XML default), one bad byte on line 2.
        let e = err(b"<a>\n<b>Jos\xE9</b></a>");
        assert!(
            e.starts_with("f.xml, line 2 (byte offset 10): invalid UTF-8 bytes (0xE9 0x3C"),
            "{e}"
        );
        // No declaration, but UTF-8 text elsewhere: the bad bytes are damage.
        let mut bytes = "Путин\nx".as_bytes().to_vec();
        bytes.push(0xFF);
        let e = err(&bytes);
        assert!(e.contains("line 2 (byte offset 12)"), "{e}");
        let e = err(b"{\"a\":\"\xC3\"}");
        assert!(e.contains("byte offset 6"), "{e}");
        // A UTF-16 file with a lone surrogate.
        let e = err(b"\xFF\xFEA\x00\x00\xD8B\x00");
        assert!(e.contains("invalid UTF-16LE bytes"), "{e}");
    }
}
