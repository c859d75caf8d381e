//! Small text helpers the parsers share: line numbers for error positions, the script of a
//! non-Latin name, and joining optional parts.

use crate::model::clean_opt;

/// The 1-based line of byte `offset` in `bytes`.
pub fn line_at(bytes: &[u8], offset: u64) -> usize {
    let end = (offset as usize).min(bytes.len());
    bytes[..end].iter().filter(|b| **b == b'\n').count() + 1
}

/// The script of a name, from its first letter outside the Latin blocks (`Cyrillic`,
/// `Arabic`, `Han`, ...), or `None` for a Latin name or a script not listed here.
pub fn script_of(name: &str) -> Option<&'static str> {
    let letter = name
        .chars()
        .find(|c| c.is_alphabetic() && *c as u32 > 0x24F)?;
    Some(match letter as u32 {
        0x0400..=0x052F => "Cyrillic",
        0x0600..=0x06FF | 0x0750..=0x077F | 0xFB50..=0xFEFF => "Arabic",
        0x0370..=0x03FF => "Greek",
        0x0590..=0x05FF => "Hebrew",
        0x1100..=0x11FF | 0xAC00..=0xD7AF | 0x3130..=0x318F => "Hangul",
        0x3040..=0x30FF => "Japanese",
        0x4E00..=0x9FFF | 0x3400..=0x4DBF => "Han",
        0x0E00..=0x0E7F => "Thai",
        0x1000..=0x109F => "Myanmar",
        0x1780..=0x17FF => "Khmer",
        _ => return None,
    })
}

/// True when every letter of `name` is Latin (ASCII, Latin-1, Latin Extended), so that a
/// name can be shown to an analyst who reads Latin script.
pub fn is_latin(name: &str) -> bool {
    name.chars().filter(|c| c.is_alphabetic()).all(
        |c| matches!(c as u32, 0..=0x024F | 0x1E00..=0x1EFF | 0x2C60..=0x2C7F | 0xA720..=0xA7FF),
    )
}

/// `text` without a leading `prefix` compared case-insensitively (`prefix` written in
/// lowercase), sliced from `text` itself: a character's lowercase form may have another
/// byte length (the Kelvin sign `\u{212A}` is three bytes, its lowercase `k` one), so an
/// offset found in `text.to_lowercase()` must never index `text`.
pub fn strip_prefix_lowercase<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let mut rest = prefix;
    for (i, c) in text.char_indices() {
        if rest.is_empty() {
            return Some(&text[i..]);
        }
        for lower in c.to_lowercase() {
            rest = rest.strip_prefix(lower)?;
        }
    }
    rest.is_empty().then_some("")
}

/// The non-empty cleaned parts joined by ", ".
pub fn join_parts(parts: &[&str]) -> String {
    parts
        .iter()
        .filter_map(|p| clean_opt(p))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Comma parts with each part that `is_legal_form` (`Ltd.`, `ООО`) joined back to the part
/// before it: `Acme, Ltd., Beta` -> `Acme, Ltd.` and ` Beta`.
pub fn merge_legal_forms<'a>(
    parts: impl Iterator<Item = &'a str>,
    is_legal_form: impl Fn(&str) -> bool,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for part in parts {
        match out.last_mut() {
            Some(prev) if is_legal_form(part) => {
                prev.push(',');
                prev.push_str(part);
            }
            _ => out.push(part.to_owned()),
        }
    }
    out
}

/// Where a raw CSV record (its bytes, line ends included) breaks the quoting rules of
/// RFC 4180, which the csv crate lets through: a quote inside an unquoted field
/// (`SHINING PATH"`), or text after a field's closing quote (`"SHINING PATH" "`). Returns
/// the offset of the offending byte in `raw`, and what is wrong.
pub fn stray_quote(raw: &[u8]) -> Option<(usize, &'static str)> {
    #[derive(Clone, Copy)]
    enum State {
        FieldStart,
        Unquoted,
        Quoted,
        QuoteInQuoted,
    }
    let mut state = State::FieldStart;
    for (i, b) in raw.iter().enumerate() {
        let end = matches!(b, b',' | b'\r' | b'\n');
        state = match (state, b) {
            (State::Quoted, b'"') => State::QuoteInQuoted,
            (State::Quoted, _) => State::Quoted,
            (State::QuoteInQuoted, b'"') => State::Quoted,
            (State::FieldStart, b'"') => State::Quoted,
            (State::Unquoted, b'"') => {
                return Some((i, "a double quote inside a field that is not quoted"));
            }
            (State::QuoteInQuoted, _) if !end => {
                return Some((i, "text after the closing quote of a quoted field"));
            }
            (_, _) if end => State::FieldStart,
            (_, _) => State::Unquoted,
        };
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_stray_quotes() {
        assert_eq!(stray_quote(b"1,\"A, B\",\"say \"\"x\"\"\",-0- \r\n"), None);
        assert_eq!(stray_quote(b"1,\"multi\nline\",x\n"), None);
        assert_eq!(
            stray_quote(b"1,SHINING PATH\",x"),
            Some((14, "a double quote inside a field that is not quoted"))
        );
        assert_eq!(
            stray_quote(b"1,\"SHINING PATH\" \",x"),
            Some((16, "text after the closing quote of a quoted field"))
        );
    }

    #[test]
    fn scripts_lines_and_parts() {
        assert_eq!(script_of("Путин"), Some("Cyrillic"));
        assert_eq!(script_of("AL-UBAIDI غازي"), Some("Arabic"));
        assert_eq!(script_of("有限公司"), Some("Han"));
        assert_eq!(script_of("Müller"), None);
        assert!(is_latin("Müller-Łódź Nguyễn"));
        assert!(!is_latin("Мрежа Осама бин Ладен"));
        assert_eq!(line_at(b"a\nb\nc", 4), 3);
        assert_eq!(line_at(b"a\nb", 99), 2);
        assert_eq!(strip_prefix_lowercase("\u{212A}a Ltd", "ka"), Some(" Ltd"));
        assert_eq!(strip_prefix_lowercase("AKA: X", "aka"), Some(": X"));
        assert_eq!(strip_prefix_lowercase("AK", "aka"), None);
        assert_eq!(strip_prefix_lowercase("B", "a"), None);
        assert_eq!(
            join_parts(&["Kabul", " ", "Afghanistan"]),
            "Kabul, Afghanistan"
        );
    }
}
