//! List metadata and entries: `GET /v1/lists`, `GET /v1/lists/{list}/updates`, `sanctions show`.

use serde::{Deserialize, Serialize};

use crate::model::{Entity, ListCode};

pub use crate::model::UpdateRecord;

/// One element of `data` of `GET /v1/lists` and of `sanctions lists --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListInfo {
    pub code: ListCode,
    /// Display name.
    pub name: String,
    /// Entities on the list.
    pub count: u64,
    /// When the list was last imported, RFC 3339 UTC; null if never.
    pub updated_at: Option<String>,
    /// The publication date of the imported files, `YYYY-MM-DD`, when they state one.
    pub published: Option<String>,
}

/// One listed entry with every field: `sanctions show --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntityRecord {
    pub entity_id: String,
    /// Display name of the list.
    pub list_name: String,
    #[serde(flatten)]
    pub entity: Entity,
}

impl From<Entity> for EntityRecord {
    fn from(entity: Entity) -> Self {
        EntityRecord {
            entity_id: entity.entity_id(),
            list_name: entity.list.display_name().to_owned(),
            entity,
        }
    }
}
