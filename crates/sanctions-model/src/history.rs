//! One step of a listed entry's history.

use serde::{Deserialize, Serialize};

use super::ChangeKind;

/// One update that added, changed or removed an entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct EntityVersion {
    pub update_id: i64,
    pub change: ChangeKind,
    /// When the update committed, RFC 3339.
    #[schema(format = DateTime)]
    pub at: String,
}
