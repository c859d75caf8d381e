//! Paths to test data, for the crate's own unit tests.

use std::path::PathBuf;

/// `../shared/data` beside the crate, or `None` (after printing why) when it is absent, so
/// that tests on the real lists skip with a reason instead of failing.
pub fn shared_data() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
    if dir.is_dir() {
        Some(dir)
    } else {
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
