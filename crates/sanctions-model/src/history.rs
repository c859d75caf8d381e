//! One step of a listed entry's history.

use serde::{Deserialize, Serialize};

use super::ChangeKind;

/// One update that added, changed or removed an entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntityVersion {
    pub update_id: i64,
    pub change: ChangeKind,
    /// When the update committed, RFC 3339.
    pub at: String,
}
