//! The history of listed entries: which updates added, changed or removed one, and the
//! record as it was after any update (earlier versions are kept in `entity_versions`).

use rusqlite::{OptionalExtension, params};

use super::{Store, StoreError};
use crate::model::{ChangeKind, Entity, EntityVersion};

/// An entry's changes, oldest first, with their updates' times.
const HISTORY: &str = "SELECT c.update_id, c.change, u.at FROM entity_changes c
     JOIN list_updates u ON u.id = c.update_id
     WHERE c.entity_id = ?1 ORDER BY c.update_id";

/// An entry's last change up to an update.
const LAST_CHANGE: &str =
    "SELECT change FROM entity_changes WHERE entity_id = ?1 AND update_id <= ?2
     ORDER BY update_id DESC LIMIT 1";

impl Store {
    /// The updates that added, changed or removed `entity_id`, oldest first.
    pub fn entity_history(&self, entity_id: &str) -> Result<Vec<EntityVersion>, StoreError> {
        let mut stmt = self.conn.prepare(HISTORY)?;
        let rows = stmt.query_map([entity_id], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (update_id, change, at) = row?;
            if let Some(change) = ChangeKind::parse(&change) {
                out.push(EntityVersion {
                    update_id,
                    change,
                    at,
                });
            }
        }
        Ok(out)
    }

    /// The entry as it stood right after update `update_id` of its list, or `None` when it
    /// was not listed then (not yet added, or removed).
    pub fn entity_at(&self, entity_id: &str, update_id: i64) -> Result<Option<Entity>, StoreError> {
        let last: Option<String> = self
            .conn
            .query_row(LAST_CHANGE, params![entity_id, update_id], |r| r.get(0))
            .optional()?;
        match last.as_deref().and_then(ChangeKind::parse) {
            None | Some(ChangeKind::Removed) => return Ok(None),
            Some(_) => {}
        }
        let kept: Option<String> = self
            .conn
            .query_row(
                "SELECT data FROM entity_versions WHERE entity_id = ?1 AND replaced_by > ?2
                 ORDER BY replaced_by LIMIT 1",
                params![entity_id, update_id],
                |r| r.get(0),
            )
            .optional()?;
        match kept {
            Some(json) => serde_json::from_str(&json)
                .map(Some)
                .map_err(|source| StoreError::unreadable(entity_id, source)),
            None => self.entity(entity_id),
        }
    }

    /// Every entry update `update_id` added, changed or removed, each as it stood right after
    /// that update (a removed one as it stood just before it), in one query: what a brief of
    /// the update describes. The same records as [`Store::entity_at`] per entry, without a
    /// round trip per entry (a first import adds tens of thousands).
    pub fn changed_entities(
        &self,
        update_id: i64,
    ) -> Result<Vec<(ChangeKind, Entity)>, StoreError> {
        // The kept version replaced first after the update (for a removal: the one the
        // removal replaced), else the current record.
        let mut stmt = self.conn.prepare(
            "SELECT c.entity_id, c.change, COALESCE(
                 (SELECT v.data FROM entity_versions v
                  WHERE v.entity_id = c.entity_id
                    AND v.replaced_by > ?1 - (c.change = 'removed')
                  ORDER BY v.replaced_by LIMIT 1),
                 e.data)
             FROM entity_changes c LEFT JOIN entities e ON e.entity_id = c.entity_id
             WHERE c.update_id = ?1 ORDER BY c.entity_id",
        )?;
        let rows = stmt.query_map([update_id], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<String>>(2)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (entity_id, change, json) = row?;
            if let (Some(change), Some(json)) = (ChangeKind::parse(&change), json) {
                out.push((change, super::entities::decode(entity_id, &json)?));
            }
        }
        Ok(out)
    }

    /// Whether an update with this id exists.
    pub fn update_exists(&self, update_id: i64) -> Result<bool, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT 1 FROM list_updates WHERE id = ?1",
                [update_id],
                |_| Ok(()),
            )
            .optional()?
            .is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An entry's changes are read by the index by entry: a scan of every change of every
    /// earlier update, per entry, made the weights' drift of an update take seconds.
    #[test]
    fn an_entrys_changes_are_read_by_the_entry() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open(&dir.path().join("s.db")).expect("store");
        let plans = [
            (HISTORY, store.query_plan(HISTORY, ["ofac_sdn:1"])),
            (
                LAST_CHANGE,
                store.query_plan(LAST_CHANGE, params!["ofac_sdn:1", 3]),
            ),
        ];
        for (sql, steps) in plans {
            let changes = steps.iter().find(|s| s.contains("entity_changes"));
            assert!(
                changes.is_some_and(|s| s.contains("entity_changes_by_entity")),
                "{sql}: {steps:?}"
            );
        }
    }
}
