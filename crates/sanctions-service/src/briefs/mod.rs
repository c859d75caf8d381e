//! Risk briefs: one per list update that changed something ([`update`]), one per item of
//! the RSS/Atom feeds named in `[briefs]` ([`feed`]).

pub mod feed;
pub mod update;

/// Longest title kept.
pub const MAX_TITLE: usize = 300;
/// Longest summary kept.
pub const MAX_SUMMARY: usize = 2_000;
/// Longest body kept.
pub const MAX_BODY: usize = 64 * 1024;

/// `text` cut to at most `max` characters, without control characters.
pub fn clip(text: &str, max: usize) -> String {
    let clean: String = text
        .chars()
        .map(|c| if c.is_control() && c != '\n' { ' ' } else { c })
        .collect();
    let clean = clean.trim();
    match clean.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &clean[..cut]),
        None => clean.to_owned(),
    }
}
