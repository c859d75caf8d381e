//! Reading stored entities back as [`Entity`] records.

use rusqlite::OptionalExtension;

use super::{Store, StoreError};
use crate::model::{Entity, ListCode};

pub(super) fn decode(entity_id: String, json: &str) -> Result<Entity, StoreError> {
    serde_json::from_str(json).map_err(|source| StoreError::unreadable(&entity_id, source))
}

impl Store {
    /// One entry by its `entity_id`, or `None`.
    pub fn entity(&self, entity_id: &str) -> Result<Option<Entity>, StoreError> {
        let json: Option<String> = self
            .conn
            .query_row(
                "SELECT data FROM entities WHERE entity_id = ?1",
                [entity_id],
                |r| r.get(0),
            )
            .optional()?;
        json.map(|json| decode(entity_id.to_owned(), &json))
            .transpose()
    }

    /// Every stored entry of every list, for building the screening index.
    pub fn entities(&self) -> Result<Vec<Entity>, StoreError> {
        self.query_entities("SELECT entity_id, data FROM entities", [])
    }

    /// Every stored entry of one list.
    pub fn entities_of(&self, list: ListCode) -> Result<Vec<Entity>, StoreError> {
        self.query_entities(
            "SELECT entity_id, data FROM entities WHERE list_code = ?1",
            [list.code()],
        )
    }

    fn query_entities<P: rusqlite::Params>(
        &self,
        sql: &str,
        params: P,
    ) -> Result<Vec<Entity>, StoreError> {
        let mut stmt = self.conn.prepare(sql)?;
        let rows = stmt.query_map(params, |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
        })?;
        let mut entities = Vec::new();
        for row in rows {
            let (entity_id, json) = row?;
            entities.push(decode(entity_id, &json)?);
        }
        Ok(entities)
    }
}
