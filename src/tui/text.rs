//! Text from lists and inputs made safe for a terminal: control characters, escape sequences
//! and bidi controls removed, then truncated by display width (CJK and emoji count two).

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// True for characters that must never reach the terminal: C0/C1 controls (ESC starts
/// escape sequences), bidi overrides and isolates, and other invisible format characters.
fn forbidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}'
                | '\u{200B}'..='\u{200F}'
                | '\u{2028}'..='\u{202E}'
                | '\u{2060}'..='\u{2069}'
                | '\u{FEFF}'
        )
}

/// `text` on one line with every forbidden character removed (tabs and newlines become a
/// space, so words do not run together).
pub fn sanitize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '\t' | '\n' | '\r') {
            out.push(' ');
        } else if !forbidden(c) {
            out.push(c);
        }
    }
    out
}

/// The lines of pasted `text`: CR LF, a lone CR (tmux's and many terminals' paste) and a
/// lone LF all end a line.
pub fn split_lines(text: &str) -> Vec<&str> {
    text.split("\r\n")
        .flat_map(|l| l.split(['\r', '\n']))
        .collect()
}

/// The sanitised `text` cut to at most `width` terminal columns, ending in `…` when cut.
pub fn fit(text: &str, width: usize) -> String {
    let clean = sanitize(text);
    if clean.width() <= width {
        return clean;
    }
    if width == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in clean.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > width - 1 {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_bidi_controls_are_removed() {
        assert_eq!(sanitize("a\u{1b}[31mb\u{202E}c\u{9b}d"), "a[31mbcd");
        assert_eq!(sanitize("x\ny\tz"), "x y z");
    }

    #[test]
    fn cr_lf_and_crlf_all_end_a_line() {
        assert_eq!(split_lines("a\rb\nc\r\nd"), ["a", "b", "c", "d"]);
        assert_eq!(split_lines("a\r\n\r\nb"), ["a", "", "b"]);
        assert_eq!(split_lines("one"), ["one"]);
    }

    #[test]
    fn truncation_counts_display_columns() {
        assert_eq!(fit("普京普京", 5), "普京…");
        assert_eq!(fit("Путин", 5), "Путин");
        assert_eq!(fit("Vladimir", 4), "Vla…");
        assert_eq!(fit("abc", 0), "");
    }
}
