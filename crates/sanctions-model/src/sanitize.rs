//! Terminal-safe text: what a list or an input says, made harmless before it reaches a terminal.
//!
//! Control characters (escape sequences, OSC titles, bells, backspaces), C1 controls and bidi
//! controls never reach the terminal raw: C0 controls become their visible Unicode "control
//! pictures" (`ESC` -> `␛`), a newline inside a field becomes `⏎`, C1 controls become `�`,
//! and bidi embedding, override and isolate controls are dropped. JSON output keeps the data
//! exact but escapes the bidi controls and line separators (`\u202e`), which JSON allows.

use std::borrow::Cow;

/// The symbol a line break inside a field is shown as.
pub const NEWLINE_SYMBOL: char = '⏎';

fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

fn needs_care(c: char) -> bool {
    c.is_control() || is_bidi_control(c) || matches!(c, '\u{2028}' | '\u{2029}')
}

/// One field on one line: every line break shown as [`NEWLINE_SYMBOL`].
pub fn field(text: &str) -> Cow<'_, str> {
    clean(text, false)
}

/// A message that may span lines (errors, hints): line breaks kept, everything else as
/// [`field`].
pub fn multiline(text: &str) -> Cow<'_, str> {
    clean(text, true)
}

fn clean(text: &str, keep_newlines: bool) -> Cow<'_, str> {
    if !text.chars().any(needs_care) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' if chars.peek() == Some(&'\n') => {} // CRLF: one break
            '\n' | '\r' | '\u{2028}' | '\u{2029}' if keep_newlines => out.push('\n'),
            '\n' | '\r' | '\u{2028}' | '\u{2029}' => out.push(NEWLINE_SYMBOL),
            '\t' => out.push(' '),
            c if is_bidi_control(c) => {}
            // C0 controls: the control picture of the same code (U+2400 + code).
            c if (c as u32) < 0x20 => out.push(char::from_u32(0x2400 + c as u32).unwrap_or('�')),
            '\u{7F}' => out.push('␡'),
            c if c.is_control() => out.push('�'),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// What [`json`] escapes: bidi controls, line separators, DEL and the C1 controls (which
/// serde_json writes raw, and some terminals obey: U+009B starts an escape sequence).
fn json_escaped(c: char) -> bool {
    is_bidi_control(c) || matches!(c, '\u{2028}' | '\u{2029}' | '\u{7F}'..='\u{9F}')
}

/// JSON text (as serde_json writes it) with bidi controls, line separators and C1 controls
/// escaped, so that printing it cannot reorder, split or steer what a terminal shows. The
/// JSON value is unchanged.
pub fn json(text: String) -> String {
    // Each of these characters is written with a first byte of 0xD8 (U+061C), 0xE2
    // (U+2000..U+2FFF) or 0xC2 (U+0080..U+00BF), or is 0x7F (DEL), in UTF-8: text without
    // any of these bytes has none, told without decoding.
    let bytes = text.as_bytes();
    if memchr::memchr3(0xD8, 0xE2, 0xC2, bytes).is_none() && memchr::memchr(0x7F, bytes).is_none() {
        return text;
    }
    if !text.chars().any(json_escaped) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if json_escaped(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neutralises_escape_sequences_and_controls() {
        assert_eq!(field("Acme\x1b[2J Ltd"), "Acme␛[2J Ltd");
        assert_eq!(field("\x1b]0;owned\x07x"), "␛]0;owned␇x");
        assert_eq!(field("a\r\nb\nc"), "a⏎b⏎c");
        assert_eq!(multiline("a\nb\x1b"), "a\nb␛");
        assert_eq!(field("evil\u{202E}txt.exe"), "eviltxt.exe");
        assert_eq!(field("x\u{9b}31m"), "x�31m");
        assert_eq!(field("Путин, Vladimir"), "Путин, Vladimir");
        assert!(matches!(field("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn json_stays_valid_and_exact() {
        let raw = serde_json::to_string("a\u{202E}b\x1b").unwrap();
        let safe = json(raw);
        assert!(
            !safe.contains('\u{202E}') && !safe.contains('\x1b'),
            "{safe}"
        );
        let back: String = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, "a\u{202E}b\x1b");
    }

    #[test]
    fn json_escapes_every_bidi_control_and_separator_wherever_it_stands() {
        let padding = "x".repeat(70);
        for c in [
            '\u{061C}', '\u{200E}', '\u{202A}', '\u{2066}', '\u{2069}', '\u{2028}', '\u{2029}',
            '\u{7F}', '\u{80}', '\u{9B}', '\u{9F}',
        ] {
            for at in [0, 63, 64, 65, 70] {
                let text = format!("{}{c}{}", &padding[..at], &padding[at..]);
                let safe = json(serde_json::to_string(&text).unwrap());
                assert!(!safe.contains(c), "U+{:04X} at {at}: {safe}", c as u32);
                assert_eq!(serde_json::from_str::<String>(&safe).unwrap(), text);
            }
        }
        // Arabic letters (also written from 0xD8) and other punctuation pass unchanged.
        let plain = serde_json::to_string("أسامة بن لادن \u{2013} Putin \u{a0}Müller").unwrap();
        assert_eq!(json(plain.clone()), plain);
    }
}
