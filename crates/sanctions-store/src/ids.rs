//! Ids of stored objects.

use std::sync::Mutex;

/// A new id: `prefix` + ULID (unique, sortable by creation time).
/// Ids made by one process are strictly increasing, even within a millisecond.
pub fn new_id(prefix: &str) -> String {
    static GENERATOR: Mutex<ulid::Generator> = Mutex::new(ulid::Generator::new());
    let ulid = GENERATOR
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .generate()
        .unwrap_or_else(|_| ulid::Ulid::new());
    format!("{prefix}{ulid}")
}
