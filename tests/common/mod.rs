//! Helpers shared by the integration tests.
#![allow(dead_code, clippy::unwrap_used)]

pub mod server;

use std::path::PathBuf;

/// `../shared/data` beside the crate, or `None` (after printing why) when it is absent.
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
