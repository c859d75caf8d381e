//! Paths to test data, for the crate's own unit tests.

use std::path::PathBuf;

/// `../shared/data` beside the repository, where the real list files are; a missing folder fails
/// the test with a message saying so.
pub fn shared_data() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data");
    assert!(
        dir.is_dir(),
        "{} is missing: the tests of the real list files need the eight official lists there \
         (see ../shared/data/SOURCES.md); they fail rather than pass without testing anything",
        dir.display()
    );
    dir
}

/// `tests/fixtures` of the repository: small hand-made files in the official formats.
pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

/// The entry of `parsed` whose list id is `source_id` (panics, naming it, when absent).
pub fn entry_by_id<'a>(parsed: &'a crate::ParsedList, source_id: &str) -> &'a crate::model::Entity {
    let found = parsed.entities.iter().find(|e| e.source_id == source_id);
    found.unwrap_or_else(|| panic!("no entity {source_id}"))
}

/// The alias names of an entry, in order.
pub fn alias_names(entity: &crate::model::Entity) -> Vec<&str> {
    entity.aliases.iter().map(|a| a.name.as_str()).collect()
}

/// The message of a parse that must fail with a format error (not a missing file).
pub fn parse_error(result: Result<crate::ParsedList, crate::SourceError>, what: &str) -> String {
    match result {
        Err(e @ crate::SourceError::Parse { .. }) => e.to_string(),
        other => panic!("{what}: expected a parse error, got {other:?}"),
    }
}
