//! Replacing a list's entries in one transaction, and reading lists and their update records.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, Transaction, params};
use sha2::{Digest, Sha256};

use super::names::insert_names;
use super::{Store, StoreError};
use crate::model::ParsedList;
use crate::model::{ChangeKind, Entity, ListCode, SourceFile, UpdateRecord};

/// One list as the store holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListSummary {
    pub list: ListCode,
    pub count: u64,
    /// When the list was last imported, RFC 3339 UTC; `None` if never.
    pub updated_at: Option<String>,
    /// The publication date of the files last imported.
    pub published: Option<String>,
    /// The id of the list's last update record; `None` if never imported.
    pub last_update: Option<i64>,
}

/// One entity added, removed or changed by an update.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntityChange {
    pub entity_id: String,
    pub change: ChangeKind,
}

/// A stored entity's content digest: equal digests mean equal records.
fn digest(json: &str) -> Vec<u8> {
    Sha256::digest(json.as_bytes()).to_vec()
}

fn now_rfc3339() -> String {
    let now = jiff::Timestamp::now();
    jiff::Timestamp::from_second(now.as_second())
        .unwrap_or(now)
        .to_string()
}

impl Store {
    /// Replaces every entry of `parsed.list` with `parsed.entities` in ONE transaction and
    /// records the update (files, counts of added, removed and changed entries, new total).
    ///
    /// Entries are compared by `entity_id` and content; unchanged rows are not rewritten.
    /// On any error nothing is written and the previous version stays whole.
    pub fn replace_list(
        &mut self,
        parsed: &ParsedList,
        origin: &str,
    ) -> Result<UpdateRecord, StoreError> {
        self.replace_list_guarded(parsed, origin, |_| None)
    }

    /// [`Store::replace_list`], refused with [`StoreError::WouldShrink`] (nothing written)
    /// when it would remove more than `max_removed(entries before)` entries.
    pub fn replace_list_guarded(
        &mut self,
        parsed: &ParsedList,
        origin: &str,
        max_removed: impl Fn(u64) -> Option<u64>,
    ) -> Result<UpdateRecord, StoreError> {
        let tx = self.write()?;
        let record = replace_in(&tx, parsed, origin, max_removed)?;
        super::integrity::record_digest(&tx, parsed, record.id)?;
        tx.commit()?;
        tracing::info!(
            list = %parsed.list,
            added = record.added,
            removed = record.removed,
            changed = record.changed,
            total = record.total,
            "list replaced"
        );
        Ok(record)
    }

    /// Records an import of `list` that failed (`reason`), with the files refused, in the
    /// list's history; the list itself is untouched.
    pub fn record_failed_import(
        &mut self,
        list: ListCode,
        origin: &str,
        files: &[SourceFile],
        reason: &str,
    ) -> Result<UpdateRecord, StoreError> {
        let total: i64 = self.conn.query_row(
            "SELECT count(*) FROM entities WHERE list_code = ?1",
            [list.code()],
            |r| r.get(0),
        )?;
        let mut record = UpdateRecord {
            id: 0,
            list,
            at: now_rfc3339(),
            origin: origin.to_owned(),
            files: files.to_vec(),
            published: None,
            added: 0,
            removed: 0,
            changed: 0,
            total: total as u64,
            notes: Vec::new(),
            failed: Some(reason.to_owned()),
        };
        let tx = self.write()?;
        record.id = insert_update(&tx, &record)?;
        tx.commit()?;
        tracing::warn!(%list, reason, "failed import recorded");
        Ok(record)
    }

    /// The eight lists with their counts, in the specification's order.
    pub fn lists(&self) -> Result<Vec<ListSummary>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT entity_count, updated_at, published, last_update FROM lists WHERE code = ?1",
        )?;
        ListCode::ALL
            .into_iter()
            .map(|list| {
                let row = stmt
                    .query_row([list.code()], |r| {
                        Ok((r.get::<_, i64>(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
                    })
                    .optional()?;
                let (count, updated_at, published, last_update) =
                    row.unwrap_or((0, None, None, None));
                Ok(ListSummary {
                    list,
                    count: count as u64,
                    updated_at,
                    published,
                    last_update,
                })
            })
            .collect()
    }

    /// Total number of stored entities over all lists.
    pub fn entity_count(&self) -> Result<u64, StoreError> {
        let count: i64 = self
            .conn
            .query_row("SELECT count(*) FROM entities", [], |r| r.get(0))?;
        Ok(count as u64)
    }

    /// The update records of `list`, newest first, at most `limit`.
    pub fn updates(&self, list: ListCode, limit: usize) -> Result<Vec<UpdateRecord>, StoreError> {
        self.updates_where(
            "list_code = ?1 ORDER BY id DESC LIMIT ?2",
            params![list.code(), limit as i64],
        )
    }

    /// One update record by its id, of whichever list.
    pub fn update(&self, update_id: i64) -> Result<Option<UpdateRecord>, StoreError> {
        Ok(self
            .updates_where("id = ?1", params![update_id])?
            .into_iter()
            .next())
    }

    /// The update records `condition` (SQL after `WHERE`) selects.
    fn updates_where(
        &self,
        condition: &str,
        values: impl rusqlite::Params,
    ) -> Result<Vec<UpdateRecord>, StoreError> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT id, list_code, at, origin, files, published, added, removed, changed, total,
                    notes, failed
             FROM list_updates WHERE {condition}"
        ))?;
        let rows = stmt.query_map(values, |r| {
            Ok((
                (r.get::<_, i64>(0)?, r.get::<_, String>(1)?),
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, Option<String>>(5)?,
                [
                    r.get::<_, i64>(6)?,
                    r.get::<_, i64>(7)?,
                    r.get::<_, i64>(8)?,
                    r.get::<_, i64>(9)?,
                ],
                r.get::<_, String>(10)?,
                r.get::<_, Option<String>>(11)?,
            ))
        })?;
        let mut records = Vec::new();
        for row in rows {
            let ((id, code), at, origin, files, published, counts, notes, failed) = row?;
            let corrupt = |source| StoreError::unreadable(&format!("list update {id}"), source);
            let list = code.parse::<ListCode>().map_err(|_| {
                StoreError::invalid(
                    &format!("list update {id}"),
                    format!("unknown list code {code:?}"),
                )
            })?;
            records.push(UpdateRecord {
                id,
                list,
                at,
                origin,
                files: serde_json::from_str(&files).map_err(corrupt)?,
                published,
                added: counts[0] as u64,
                removed: counts[1] as u64,
                changed: counts[2] as u64,
                total: counts[3] as u64,
                notes: serde_json::from_str(&notes).map_err(corrupt)?,
                failed,
            });
        }
        Ok(records)
    }

    /// The entities an update added, removed or changed.
    pub fn changes(&self, update_id: i64) -> Result<Vec<EntityChange>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT entity_id, change FROM entity_changes WHERE update_id = ?1 ORDER BY entity_id",
        )?;
        let rows = stmt.query_map([update_id], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
        })?;
        let mut changes = Vec::new();
        for row in rows {
            let (entity_id, change) = row?;
            if let Some(change) = ChangeKind::parse(&change) {
                changes.push(EntityChange { entity_id, change });
            }
        }
        Ok(changes)
    }
}

fn replace_in(
    tx: &Transaction<'_>,
    parsed: &ParsedList,
    origin: &str,
    max_removed: impl Fn(u64) -> Option<u64>,
) -> Result<UpdateRecord, StoreError> {
    let list = parsed.list;
    let mut existing: HashMap<String, Vec<u8>> = HashMap::new();
    {
        let mut stmt =
            tx.prepare("SELECT entity_id, content_hash FROM entities WHERE list_code = ?1")?;
        let rows = stmt.query_map([list.code()], |r| Ok((r.get(0)?, r.get(1)?)))?;
        for row in rows {
            let (id, hash) = row?;
            existing.insert(id, hash);
        }
    }

    if let Some(max) = max_removed(existing.len() as u64) {
        let incoming: std::collections::HashSet<String> =
            parsed.entities.iter().map(Entity::entity_id).collect();
        let removed = existing.keys().filter(|id| !incoming.contains(*id)).count() as u64;
        if removed > max {
            return Err(StoreError::WouldShrink {
                list,
                removed,
                before: existing.len() as u64,
                after: incoming.len() as u64,
            });
        }
    }

    let mut changes: Vec<(String, ChangeKind)> = Vec::new();
    let mut seen = std::collections::HashSet::with_capacity(parsed.entities.len());
    for entity in &parsed.entities {
        let entity_id = entity.entity_id();
        if !seen.insert(entity_id.clone()) {
            // A parser hands each id once; a repeat would silently drop data.
            continue;
        }
        let json = serde_json::to_string(entity)
            .map_err(|source| StoreError::encode(&entity_id, source))?;
        let hash = digest(&json);
        match existing.get(&entity_id) {
            Some(old) if *old == hash => {}
            Some(_) => {
                retire_entity(tx, &entity_id)?;
                insert_entity(tx, entity, &entity_id, &json, &hash)?;
                changes.push((entity_id, ChangeKind::Changed));
            }
            None => {
                insert_entity(tx, entity, &entity_id, &json, &hash)?;
                changes.push((entity_id, ChangeKind::Added));
            }
        }
    }
    for entity_id in existing.keys() {
        if !seen.contains(entity_id) {
            retire_entity(tx, entity_id)?;
            changes.push((entity_id.clone(), ChangeKind::Removed));
        }
    }

    let count = |kind| changes.iter().filter(|(_, k)| *k == kind).count() as u64;
    let mut record = UpdateRecord {
        id: 0,
        list,
        at: now_rfc3339(),
        origin: origin.to_owned(),
        files: parsed.files.clone(),
        published: parsed.published.clone(),
        added: count(ChangeKind::Added),
        removed: count(ChangeKind::Removed),
        changed: count(ChangeKind::Changed),
        total: seen.len() as u64,
        notes: parsed.notes.clone(),
        failed: None,
    };
    record.id = insert_update(tx, &record)?;
    // The earlier versions kept above belong to this update.
    tx.prepare_cached(
        "UPDATE entity_versions SET replaced_by = ?1 WHERE replaced_by IS NULL AND list_code = ?2",
    )?
    .execute(params![record.id, list.code()])?;
    {
        let mut stmt = tx.prepare(
            "INSERT INTO entity_changes (update_id, entity_id, change) VALUES (?1, ?2, ?3)",
        )?;
        for (entity_id, change) in &changes {
            stmt.execute(params![record.id, entity_id, change.as_str()])?;
        }
    }
    tx.execute(
        "INSERT INTO lists (code, entity_count, updated_at, published, last_update)
         VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT(code) DO UPDATE SET entity_count = excluded.entity_count,
             updated_at = excluded.updated_at, published = excluded.published,
             last_update = excluded.last_update",
        params![
            list.code(),
            record.total as i64,
            record.at,
            record.published,
            record.id
        ],
    )?;
    Ok(record)
}

/// Deletes an entry that the update changes or removes, keeping its record first as an
/// earlier version (unclaimed until the update's record is written, in the same
/// transaction). Written here, not by a trigger: the history holds on any backend.
fn retire_entity(tx: &Transaction<'_>, entity_id: &str) -> Result<(), StoreError> {
    tx.prepare_cached(
        "INSERT INTO entity_versions (entity_id, list_code, replaced_by, content_hash, data)
         SELECT entity_id, list_code, NULL, content_hash, data FROM entities WHERE entity_id = ?1",
    )?
    .execute([entity_id])?;
    tx.prepare_cached("DELETE FROM entities WHERE entity_id = ?1")?
        .execute([entity_id])?;
    Ok(())
}

fn insert_entity(
    tx: &Transaction<'_>,
    entity: &Entity,
    entity_id: &str,
    json: &str,
    hash: &[u8],
) -> Result<(), StoreError> {
    tx.prepare_cached(
        "INSERT INTO entities (entity_id, list_code, source_id, kind, primary_name, country,
                               content_hash, data, listing_ends)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?
    .execute(params![
        entity_id,
        entity.list.code(),
        entity.source_id,
        entity.kind.as_str(),
        entity.primary_name,
        entity.country(),
        hash,
        json,
        entity.listing_ends
    ])?;
    insert_names(tx, entity, entity_id)
}

fn insert_update(tx: &Transaction<'_>, record: &UpdateRecord) -> Result<i64, StoreError> {
    let encode = |source| StoreError::encode(&format!("update of {}", record.list), source);
    let files: &[SourceFile] = &record.files;
    tx.execute(
        "INSERT INTO list_updates (list_code, at, origin, files, published, added, removed,
                                   changed, total, notes, failed)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        params![
            record.list.code(),
            record.at,
            record.origin,
            serde_json::to_string(files).map_err(encode)?,
            record.published,
            record.added as i64,
            record.removed as i64,
            record.changed as i64,
            record.total as i64,
            serde_json::to_string(&record.notes).map_err(encode)?,
            record.failed,
        ],
    )?;
    let id = tx.last_insert_rowid();
    super::outbox::list_updated(tx, record, id)?;
    Ok(id)
}
