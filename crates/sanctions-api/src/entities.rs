//! One listed entry, now or as it was: `GET /v1/entities/{id}[?at=UPDATE_ID]`, `sanctions show`.

use serde::{Deserialize, Serialize};

use super::lists::EntityRecord;

pub use crate::model::EntityVersion;

/// An entry with its history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct EntityDetail {
    #[serde(flatten)]
    pub record: EntityRecord,
    /// The list update it is shown at; null for the current version.
    pub at_update: Option<i64>,
    /// Every update that added, changed or removed it, oldest first.
    pub history: Vec<EntityVersion>,
}
