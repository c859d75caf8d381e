//! Paths to test data, for the crate's own unit tests.

use std::path::PathBuf;

/// `../shared/data` beside the crate, or `None` (after printing why) when it is absent; with
/// the env var `CI` set, a missing folder fails the test instead, so
/// that tests on the real lists skip with a reason instead of failing.
pub fn shared_data() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
    if dir.is_dir() {
        Some(dir)
    } else {
        // CI must never pass green without the real files: there, a missing folder fails.
        assert!(
            std::env::var_os("CI").is_none_or(|v| v.is_empty()),
            "{} is absent and CI is set: the tests of the real list files cannot run",
            dir.display()
        );
        eprintln!(
            "skipped: {} is absent (the real list files live there)",
            dir.display()
        );
        None
    }
}

/// `tests/fixtures` of the crate: small hand-made files in the official formats.
pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// The entry of `parsed` whose list id is `source_id` (panics, naming it, when absent).
pub fn entry_by_id<'a>(
    parsed: &'a crate::sources::ParsedList,
    source_id: &str,
) -> &'a crate::model::Entity {
    let found = parsed.entities.iter().find(|e| e.source_id == source_id);
    found.unwrap_or_else(|| panic!("no entity {source_id}"))
}

/// The alias names of an entry, in order.
pub fn alias_names(entity: &crate::model::Entity) -> Vec<&str> {
    entity.aliases.iter().map(|a| a.name.as_str()).collect()
}

/// The message of a parse that must fail with a format error (not a missing file).
pub fn parse_error(
    result: Result<crate::sources::ParsedList, crate::sources::SourceError>,
    what: &str,
) -> String {
    match result {
        Err(e @ crate::sources::SourceError::Parse { .. }) => e.to_string(),
        other => panic!("{what}: expected a parse error, got {other:?}"),
    }
}
