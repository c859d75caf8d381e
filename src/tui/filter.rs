//! The words of the `/` filter ([`matches`]) and the clipboard's escape sequence ([`osc52`]):
//! a leaf under the pages; [`super::tables`] applies the filter to each tab's rows and finds
//! the `y` copy target.

/// Whether `text` holds every word of `words` (case-insensitive).
pub fn matches(words: &str, text: &str) -> bool {
    let text = text.to_lowercase();
    words
        .split_whitespace()
        .all(|w| text.contains(&w.to_lowercase()))
}

/// The OSC 52 sequence that puts `text` on the terminal's clipboard (works over SSH and in
/// tmux with `set-clipboard on`); bounded to 100 kB.
pub fn osc52(text: &str) -> String {
    use base64::Engine;
    let bytes = text.as_bytes();
    let bytes = &bytes[..bytes.len().min(100_000)];
    let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
    format!("\u{1b}]52;c;{encoded}\u{7}")
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_word_must_appear() {
        assert!(super::matches("putin vlad", "Vladimir PUTIN"));
        assert!(!super::matches("putin boris", "Vladimir Putin"));
        assert!(super::matches("", "anything"));
    }

    #[test]
    fn osc52_wraps_base64() {
        assert_eq!(super::osc52("hi"), "\u{1b}]52;c;aGk=\u{7}");
    }
}
