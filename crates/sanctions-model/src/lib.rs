//! Domain types shared by every layer: lists, sanctioned entities and their parts.
//!
//! Nothing here depends on another module of the crate; parsers produce these
//! records, the store keeps them, the engine indexes them.

mod parsed;
pub mod sanitize;
pub mod time;

mod country;
mod entity;
mod history;
mod keys;
mod list;
mod names;
mod review;
mod review_log;
mod screening;
mod update;
mod watch;

pub use country::{country_name, country_names, iso2_codes, to_iso2};
pub use entity::{
    Address, Alias, AliasQuality, DATE_OF_BIRTH_YEARS, DateSpec, Entity, EntityKind, IdDocument,
    NameParts, listing_ended, today_utc,
};
pub use history::EntityVersion;
pub use keys::{Account, ApiKey, NewApiKey, Plan, Scope};
pub use list::{ListCode, UnknownListCode};
pub use names::{EntityFacts, EntityNames};
pub use parsed::ParsedList;
pub use review::{Decision, ReviewAction, ReviewStatus};
pub use review_log::{EntityReview, LogEntry, Pending, plan, replay};
pub use screening::{
    DecisionRecord, ListVersions, MatchedEntity, ScreeningFilter, ScreeningOrigin, ScreeningRecord,
};
pub use update::{ChangeKind, SourceFile, UpdateRecord};
pub use watch::{
    Alert, AlertChange, AlertFilter, AlertKind, AlertStatus, Favorite, FavoriteOutcome,
    NewFavorite, OutboxEvent, RescreenRun, Severity,
};

/// Collapses every run of whitespace (including no-break spaces and newlines) to one
/// space, drops zero-width spaces and trims: the `clean()` of the entity-id scheme.
pub fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    for ch in text.chars() {
        if ch == '\u{200B}' || ch == '\u{FEFF}' {
            continue;
        }
        if ch.is_whitespace() {
            pending_space = !out.is_empty();
            continue;
        }
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        out.push(ch);
    }
    out
}

/// `clean(text)`, or `None` when nothing is left.
pub fn clean_opt(text: &str) -> Option<String> {
    let cleaned = clean(text);
    (!cleaned.is_empty()).then_some(cleaned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_collapses_whitespace_and_drops_zero_width() {
        assert_eq!(clean("  a\u{00A0}\u{00A0}b\n\tc\u{200B}d  "), "a b cd");
        assert_eq!(clean(""), "");
        assert_eq!(clean_opt(" \n "), None);
        assert_eq!(clean_opt(" x "), Some("x".to_owned()));
    }
}
