//! Lists on PostgreSQL: the import of a list (one transaction under the list's advisory
//! lock), its history, and the entries and names read back for the screening index.

use std::collections::{BTreeMap, HashMap, HashSet};

use postgres::binary_copy::BinaryCopyInWriter;
use postgres::fallible_iterator::FallibleIterator;
use postgres::types::{ToSql, Type};
use postgres::{GenericClient, Row, Transaction};
use sha2::{Digest, Sha256};

use super::{big, col, count, db};
use crate::integrity::{NameDamage, NameDigest, compare, digests_of};
use crate::model::ParsedList;
use crate::model::{
    AliasQuality, ChangeKind, Entity, EntityFacts, EntityKind, EntityNames, EntityVersion,
    ListCode, ListVersions, SourceFile, UpdateRecord,
};
use crate::{EntityChange, ListSummary, NamesReadBack, StoreError};

/// The advisory lock of list imports: one key per list, so two instances importing the
/// same list wait for each other (and the second finds nothing left to change).
fn import_lock(list: ListCode) -> i64 {
    0x5341_4e43_1000 + ListCode::ALL.iter().position(|l| *l == list).unwrap_or(0) as i64
}

/// The eight lists with their counts, in the specification's order.
pub(super) fn lists(c: &mut impl GenericClient) -> Result<Vec<ListSummary>, StoreError> {
    let rows = c
        .query(
            "SELECT code, entity_count, updated_at, published, last_update FROM lists",
            &[],
        )
        .map_err(db)?;
    let mut found = HashMap::new();
    for row in &rows {
        found.insert(col::<String>(row, 0)?, row);
    }
    ListCode::ALL
        .into_iter()
        .map(|list| {
            let Some(row) = found.get(list.code()) else {
                return Ok(ListSummary {
                    list,
                    count: 0,
                    updated_at: None,
                    published: None,
                    last_update: None,
                });
            };
            Ok(ListSummary {
                list,
                count: count(col(row, 1)?),
                updated_at: col(row, 2)?,
                published: col(row, 3)?,
                last_update: col(row, 4)?,
            })
        })
        .collect()
}

const UPDATE_COLUMNS: &str = "id, list_code, at, origin, files, published, added, removed, \
    changed, total, notes, failed";

/// The update records of `list`, newest first.
pub(super) fn updates(
    c: &mut impl GenericClient,
    list: ListCode,
    limit: usize,
) -> Result<Vec<UpdateRecord>, StoreError> {
    let sql = format!(
        "SELECT {UPDATE_COLUMNS} FROM list_updates WHERE list_code = $1 ORDER BY id DESC LIMIT $2"
    );
    let rows = c.query(&sql, &[&list.code(), &big(limit)]).map_err(db)?;
    rows.iter().map(update_from).collect()
}

/// One update record by id.
pub(super) fn update(
    c: &mut impl GenericClient,
    id: i64,
) -> Result<Option<UpdateRecord>, StoreError> {
    let sql = format!("SELECT {UPDATE_COLUMNS} FROM list_updates WHERE id = $1");
    let row = c.query_opt(&sql, &[&id]).map_err(db)?;
    row.as_ref().map(update_from).transpose()
}

fn update_from(row: &Row) -> Result<UpdateRecord, StoreError> {
    let id: i64 = col(row, 0)?;
    let what = format!("list update {id}");
    let code: String = col(row, 1)?;
    let list = code
        .parse::<ListCode>()
        .map_err(|_| StoreError::invalid(&what, format!("unknown list code {code:?}")))?;
    let files: String = col(row, 4)?;
    let notes: String = col(row, 10)?;
    Ok(UpdateRecord {
        id,
        list,
        at: col(row, 2)?,
        origin: col(row, 3)?,
        files: crate::codec::from_json(&files, &what)?,
        published: col(row, 5)?,
        added: count(col(row, 6)?),
        removed: count(col(row, 7)?),
        changed: count(col(row, 8)?),
        total: count(col(row, 9)?),
        notes: crate::codec::from_json(&notes, &what)?,
        failed: col(row, 11)?,
    })
}

/// The entries an update added, removed or changed.
pub(super) fn changes(
    c: &mut impl GenericClient,
    update_id: i64,
) -> Result<Vec<EntityChange>, StoreError> {
    let rows = c
        .query(
            "SELECT entity_id, change FROM entity_changes WHERE update_id = $1 ORDER BY entity_id",
            &[&update_id],
        )
        .map_err(db)?;
    let mut out = Vec::new();
    for row in &rows {
        if let Some(change) = ChangeKind::parse(&col::<String>(row, 1)?) {
            out.push(EntityChange {
                entity_id: col(row, 0)?,
                change,
            });
        }
    }
    Ok(out)
}

/// The update each imported list is at.
pub(super) fn list_versions(c: &mut impl GenericClient) -> Result<ListVersions, StoreError> {
    let rows = c
        .query(
            "SELECT code, last_update FROM lists WHERE last_update IS NOT NULL",
            &[],
        )
        .map_err(db)?;
    let mut out = ListVersions::new();
    for row in &rows {
        if let Ok(list) = col::<String>(row, 0)?.parse::<ListCode>() {
            out.insert(list, col(row, 1)?);
        }
    }
    Ok(out)
}

/// The newest update's id (0: none).
pub(super) fn latest_update_id(c: &mut impl GenericClient) -> Result<i64, StoreError> {
    let row = c
        .query_one("SELECT coalesce(max(id), 0)::BIGINT FROM list_updates", &[])
        .map_err(db)?;
    col(&row, 0)
}

/// Every entry's names in (entry id, position) order, with the facts of its record.
pub(super) fn entity_names(c: &mut impl GenericClient) -> Result<Vec<EntityNames>, StoreError> {
    let mut out = entries_without_names(c)?;
    let mut at: HashMap<String, usize> = HashMap::with_capacity(out.len());
    for (i, entry) in out.iter().enumerate() {
        at.insert(entry.entity_id.clone(), i);
    }
    let params: [&(dyn postgres::types::ToSql + Sync); 0] = [];
    let mut rows = c
        .query_raw(
            "SELECT entity_id, name, quality FROM names ORDER BY entity_id, position",
            params,
        )
        .map_err(db)?;
    while let Some(row) = rows.next().map_err(db)? {
        let id: String = col(&row, 0)?;
        let quality = match col::<String>(&row, 2)?.as_str() {
            "weak" => AliasQuality::Weak,
            "strong" => AliasQuality::Strong,
            _ => AliasQuality::Unspecified,
        };
        if let Some(&i) = at.get(&id) {
            out[i].names.push((col(&row, 1)?, quality));
        }
    }
    out.retain(|e| !e.names.is_empty());
    Ok(out)
}

/// Every entry, by id, with its facts and no names yet.
fn entries_without_names(c: &mut impl GenericClient) -> Result<Vec<EntityNames>, StoreError> {
    let params: [&(dyn postgres::types::ToSql + Sync); 0] = [];
    let mut rows = c
        .query_raw(
            "SELECT entity_id, list_code, kind, primary_name, country, listing_ends, data
             FROM entities ORDER BY entity_id",
            params,
        )
        .map_err(db)?;
    let mut out = Vec::new();
    while let Some(row) = rows.next().map_err(db)? {
        let entity_id: String = col(&row, 0)?;
        let corrupt = |what: String| StoreError::invalid(&entity_id, what);
        let list: ListCode = col::<String>(&row, 1)?
            .parse()
            .map_err(|_| corrupt("unknown list code".into()))?;
        let kind = EntityKind::parse(&col::<String>(&row, 2)?)
            .ok_or_else(|| corrupt("unknown kind".into()))?;
        let facts: EntityFacts = serde_json::from_str(&col::<String>(&row, 6)?)
            .map_err(|e| corrupt(format!("unreadable facts: {e}")))?;
        out.push(EntityNames {
            entity_id: entity_id.clone(),
            list,
            kind,
            primary_name: col(&row, 3)?,
            country: col(&row, 4)?,
            names: Vec::new(),
            listing_ends: col(&row, 5)?,
            facts,
        });
    }
    Ok(out)
}

/// The name digests recorded at import.
pub(super) fn name_digests(
    c: &mut impl GenericClient,
) -> Result<BTreeMap<ListCode, NameDigest>, StoreError> {
    let rows = c
        .query("SELECT list_code, names, checksum FROM name_digests", &[])
        .map_err(db)?;
    let mut out = BTreeMap::new();
    for row in &rows {
        if let Ok(list) = col::<String>(row, 0)?.parse() {
            let names = count(col(row, 1)?);
            out.insert(
                list,
                NameDigest {
                    names,
                    checksum: col(row, 2)?,
                },
            );
        }
    }
    Ok(out)
}

/// The lists whose names read back differ from those recorded at import.
pub(super) fn verify_names(c: &mut impl GenericClient) -> Result<Vec<NameDamage>, StoreError> {
    let stored = name_digests(c)?;
    let found = digests_of(&entity_names(c)?);
    Ok(compare(&stored, &found))
}

/// [`verify_names`] with the newest list update (in the caller's snapshot).
pub(super) fn read_back_names(c: &mut impl GenericClient) -> Result<NamesReadBack, StoreError> {
    let update_id = latest_update_id(c)?;
    Ok(NamesReadBack {
        update_id,
        damage: verify_names(c)?,
    })
}

/// One entry, or `None`.
pub(super) fn entity(c: &mut impl GenericClient, id: &str) -> Result<Option<Entity>, StoreError> {
    let row = c
        .query_opt("SELECT data FROM entities WHERE entity_id = $1", &[&id])
        .map_err(db)?;
    row.map(|row| decode(id, &col::<String>(&row, 0)?))
        .transpose()
}

fn decode(entity_id: &str, json: &str) -> Result<Entity, StoreError> {
    serde_json::from_str(json).map_err(|source| StoreError::unreadable(entity_id, source))
}

/// The entry as it stood right after update `update_id`.
pub(super) fn entity_at(
    c: &mut impl GenericClient,
    id: &str,
    update_id: i64,
) -> Result<Option<Entity>, StoreError> {
    let last = c
        .query_opt(
            "SELECT change FROM entity_changes WHERE entity_id = $1 AND update_id <= $2
             ORDER BY update_id DESC LIMIT 1",
            &[&id, &update_id],
        )
        .map_err(db)?;
    let last = last.map(|r| col::<String>(&r, 0)).transpose()?;
    match last.as_deref().and_then(ChangeKind::parse) {
        None | Some(ChangeKind::Removed) => return Ok(None),
        Some(_) => {}
    }
    let kept = c
        .query_opt(
            "SELECT data FROM entity_versions WHERE entity_id = $1 AND replaced_by > $2
             ORDER BY replaced_by LIMIT 1",
            &[&id, &update_id],
        )
        .map_err(db)?;
    match kept {
        Some(row) => decode(id, &col::<String>(&row, 0)?).map(Some),
        None => entity(c, id),
    }
}

/// Every entry an update changed, as it stood right after it (a removed one as before).
pub(super) fn changed_entities(
    c: &mut impl GenericClient,
    update_id: i64,
) -> Result<Vec<(ChangeKind, Entity)>, StoreError> {
    let rows = c
        .query(
            "SELECT c.entity_id, c.change, COALESCE(
                 (SELECT v.data FROM entity_versions v
                  WHERE v.entity_id = c.entity_id
                    AND v.replaced_by > $1::BIGINT - (CASE WHEN c.change = 'removed' THEN 1 ELSE 0 END)
                  ORDER BY v.replaced_by LIMIT 1),
                 e.data)
             FROM entity_changes c LEFT JOIN entities e ON e.entity_id = c.entity_id
             WHERE c.update_id = $1 ORDER BY c.entity_id",
            &[&update_id],
        )
        .map_err(db)?;
    let mut out = Vec::new();
    for row in &rows {
        let id: String = col(row, 0)?;
        let change = ChangeKind::parse(&col::<String>(row, 1)?);
        if let (Some(change), Some(json)) = (change, col::<Option<String>>(row, 2)?) {
            out.push((change, decode(&id, &json)?));
        }
    }
    Ok(out)
}

/// The updates that added, changed or removed an entry, oldest first.
pub(super) fn entity_history(
    c: &mut impl GenericClient,
    id: &str,
) -> Result<Vec<EntityVersion>, StoreError> {
    let rows = c
        .query(
            "SELECT c.update_id, c.change, u.at FROM entity_changes c
             JOIN list_updates u ON u.id = c.update_id
             WHERE c.entity_id = $1 ORDER BY c.update_id",
            &[&id],
        )
        .map_err(db)?;
    let mut out = Vec::new();
    for row in &rows {
        if let Some(change) = ChangeKind::parse(&col::<String>(row, 1)?) {
            out.push(EntityVersion {
                update_id: col(row, 0)?,
                change,
                at: col(row, 2)?,
            });
        }
    }
    Ok(out)
}

/// Whether an update exists.
pub(super) fn update_exists(c: &mut impl GenericClient, id: i64) -> Result<bool, StoreError> {
    Ok(
        c.query_opt("SELECT 1 FROM list_updates WHERE id = $1", &[&id])
            .map_err(db)?
            .is_some(),
    )
}

/// One entry of an import, encoded once.
struct Incoming<'a> {
    entity: &'a Entity,
    id: String,
    json: String,
    hash: Vec<u8>,
}

/// Takes `list`'s import lock until the caller's transaction ends.
pub(super) fn lock_list(tx: &mut Transaction<'_>, list: ListCode) -> Result<(), StoreError> {
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&import_lock(list)])
        .map_err(db)?;
    Ok(())
}

/// Whether `list`'s last update is newer than update `since` and was made from the same
/// files (names and SHA-256) as `files`: another process imported this publication while
/// the caller was downloading it.
pub(super) fn imported_since(
    c: &mut impl GenericClient,
    list: ListCode,
    since: i64,
    files: &[SourceFile],
) -> Result<bool, StoreError> {
    let row = c
        .query_opt(
            "SELECT u.files FROM lists l JOIN list_updates u ON u.id = l.last_update
             WHERE l.code = $1 AND l.last_update > $2 AND u.failed IS NULL",
            &[&list.code(), &since],
        )
        .map_err(db)?;
    let Some(row) = row else {
        return Ok(false);
    };
    let stored: Vec<SourceFile> =
        crate::codec::from_json(&col::<String>(&row, 0)?, &format!("update of {list}"))?;
    Ok(file_digests(&stored) == file_digests(files))
}

/// The (name, SHA-256) of each file, sorted.
fn file_digests(files: &[SourceFile]) -> Vec<(&str, &str)> {
    let mut digests: Vec<(&str, &str)> = files
        .iter()
        .map(|f| (f.name.as_str(), f.sha256.as_str()))
        .collect();
    digests.sort_unstable();
    digests
}

/// Replaces every entry of `parsed.list` in the caller's transaction, under the list's
/// advisory lock: the earlier versions of changed and removed entries are kept, the
/// update recorded with its changes, its `list.updated` event written, and the names'
/// digest recorded.
pub(super) fn replace_list(
    tx: &mut Transaction<'_>,
    parsed: &ParsedList,
    origin: &str,
    max_removed: &dyn Fn(u64) -> Option<u64>,
) -> Result<UpdateRecord, StoreError> {
    let list = parsed.list;
    lock_list(tx, list)?;
    let existing = stored_hashes(tx, list)?;
    let incoming = encode_all(parsed)?;
    refuse_shrink(list, &existing, &incoming, max_removed)?;
    let mut changes: Vec<(&Incoming<'_>, ChangeKind)> = Vec::new();
    for item in &incoming {
        match existing.get(&item.id) {
            Some(old) if *old == item.hash => {}
            Some(_) => changes.push((item, ChangeKind::Changed)),
            None => changes.push((item, ChangeKind::Added)),
        }
    }
    let seen: HashSet<&str> = incoming.iter().map(|i| i.id.as_str()).collect();
    let removed: Vec<&String> = existing
        .keys()
        .filter(|id| !seen.contains(id.as_str()))
        .collect();
    let tally = |kind| changes.iter().filter(|(_, k)| *k == kind).count() as u64;
    let mut record = UpdateRecord {
        id: 0,
        list,
        at: now_seconds(),
        origin: origin.to_owned(),
        files: parsed.files.clone(),
        published: parsed.published.clone(),
        added: tally(ChangeKind::Added),
        removed: removed.len() as u64,
        changed: tally(ChangeKind::Changed),
        total: incoming.len() as u64,
        notes: parsed.notes.clone(),
        failed: None,
    };
    record.id = insert_update(tx, &record)?;
    let replaced: Vec<&str> = changes
        .iter()
        .filter(|(_, k)| *k == ChangeKind::Changed)
        .map(|(i, _)| i.id.as_str())
        .chain(removed.iter().map(|id| id.as_str()))
        .collect();
    keep_and_delete(tx, &replaced, record.id)?;
    let written: Vec<&Incoming<'_>> = changes.iter().map(|(i, _)| *i).collect();
    copy_entities(tx, &written)?;
    copy_names(tx, &written)?;
    let log = changes
        .iter()
        .map(|(i, k)| (i.id.as_str(), *k))
        .chain(removed.iter().map(|id| (id.as_str(), ChangeKind::Removed)));
    copy_changes(tx, record.id, log)?;
    set_list(tx, &record)?;
    list_updated_event(tx, &record)?;
    // Delivered to every listening instance when (and only if) the import commits.
    tx.execute(
        "SELECT pg_notify($1, $2)",
        &[&super::listen::LIST_CHANNEL, &record.id.to_string()],
    )
    .map_err(db)?;
    record_digest(tx, parsed, &incoming, record.id)?;
    tracing::info!(%list, added = record.added, removed = record.removed,
        changed = record.changed, total = record.total, "list replaced (PostgreSQL)");
    Ok(record)
}

/// Refuses an import that would remove more than `max_removed(entries before)` entries.
fn refuse_shrink(
    list: ListCode,
    existing: &HashMap<String, Vec<u8>>,
    incoming: &[Incoming<'_>],
    max_removed: &dyn Fn(u64) -> Option<u64>,
) -> Result<(), StoreError> {
    let Some(max) = max_removed(existing.len() as u64) else {
        return Ok(());
    };
    let kept: HashSet<&str> = incoming.iter().map(|i| i.id.as_str()).collect();
    let removed = existing
        .keys()
        .filter(|id| !kept.contains(id.as_str()))
        .count() as u64;
    if removed <= max {
        return Ok(());
    }
    Err(StoreError::WouldShrink {
        list,
        removed,
        before: existing.len() as u64,
        after: incoming.len() as u64,
    })
}

/// Records a failed import of `list` (the list untouched) in its history.
pub(super) fn record_failed_import(
    tx: &mut Transaction<'_>,
    list: ListCode,
    origin: &str,
    files: &[SourceFile],
    reason: &str,
) -> Result<UpdateRecord, StoreError> {
    let row = tx
        .query_one(
            "SELECT count(*) FROM entities WHERE list_code = $1",
            &[&list.code()],
        )
        .map_err(db)?;
    let mut record = UpdateRecord {
        id: 0,
        list,
        at: now_seconds(),
        origin: origin.to_owned(),
        files: files.to_vec(),
        published: None,
        added: 0,
        removed: 0,
        changed: 0,
        total: count(col(&row, 0)?),
        notes: Vec::new(),
        failed: Some(reason.to_owned()),
    };
    record.id = insert_update(tx, &record)?;
    tracing::warn!(%list, reason, "failed import recorded");
    Ok(record)
}

fn stored_hashes(
    tx: &mut Transaction<'_>,
    list: ListCode,
) -> Result<HashMap<String, Vec<u8>>, StoreError> {
    let rows = tx
        .query(
            "SELECT entity_id, content_hash FROM entities WHERE list_code = $1",
            &[&list.code()],
        )
        .map_err(db)?;
    rows.iter().map(|r| Ok((col(r, 0)?, col(r, 1)?))).collect()
}

/// Each entry once (the first of a repeated id), encoded with its content digest.
fn encode_all(parsed: &ParsedList) -> Result<Vec<Incoming<'_>>, StoreError> {
    let mut seen = HashSet::with_capacity(parsed.entities.len());
    let mut out = Vec::with_capacity(parsed.entities.len());
    for entity in &parsed.entities {
        let id = entity.entity_id();
        if !seen.insert(id.clone()) {
            continue;
        }
        let json = crate::codec::to_json(entity, &id)?;
        let hash = Sha256::digest(json.as_bytes()).to_vec();
        out.push(Incoming {
            entity,
            id,
            json,
            hash,
        });
    }
    Ok(out)
}

fn now_seconds() -> String {
    let now = jiff::Timestamp::now();
    jiff::Timestamp::from_second(now.as_second())
        .unwrap_or(now)
        .to_string()
}

/// Keeps the stored records of `ids` as earlier versions replaced by `update_id`, then
/// deletes them (their names go with them).
fn keep_and_delete(
    tx: &mut Transaction<'_>,
    ids: &[&str],
    update_id: i64,
) -> Result<(), StoreError> {
    if ids.is_empty() {
        return Ok(());
    }
    tx.execute(
        "INSERT INTO entity_versions (entity_id, list_code, replaced_by, content_hash, data)
         SELECT entity_id, list_code, $2, content_hash, data FROM entities
         WHERE entity_id = ANY($1)",
        &[&ids, &update_id],
    )
    .map_err(db)?;
    tx.execute("DELETE FROM entities WHERE entity_id = ANY($1)", &[&ids])
        .map_err(db)?;
    Ok(())
}

/// Rows written by binary COPY: one round trip for a whole list.
fn copy_rows<'r>(
    tx: &mut Transaction<'_>,
    sql: &str,
    types: &[Type],
    rows: impl Iterator<Item = Vec<&'r (dyn ToSql + Sync)>>,
) -> Result<(), StoreError> {
    let sink = tx.copy_in(sql).map_err(db)?;
    let mut writer = BinaryCopyInWriter::new(sink, types);
    for row in rows {
        writer.write(&row).map_err(db)?;
    }
    writer.finish().map_err(db)?;
    Ok(())
}

/// The entries added or changed, with their records.
fn copy_entities(tx: &mut Transaction<'_>, items: &[&Incoming<'_>]) -> Result<(), StoreError> {
    struct Row<'a> {
        item: &'a Incoming<'a>,
        list: &'static str,
        kind: &'static str,
        country: Option<&'a str>,
    }
    let rows: Vec<Row<'_>> = items
        .iter()
        .map(|item| Row {
            item,
            list: item.entity.list.code(),
            kind: item.entity.kind.as_str(),
            country: item.entity.country(),
        })
        .collect();
    let text = Type::TEXT;
    copy_rows(
        tx,
        "COPY entities (entity_id, list_code, source_id, kind, primary_name, country,
                        content_hash, data, listing_ends) FROM STDIN BINARY",
        &[
            text.clone(),
            text.clone(),
            text.clone(),
            text.clone(),
            text.clone(),
            text.clone(),
            Type::BYTEA,
            text.clone(),
            text,
        ],
        rows.iter().map(|r| {
            let e = r.item.entity;
            let row: Vec<&(dyn ToSql + Sync)> = vec![
                &r.item.id,
                &r.list,
                &e.source_id,
                &r.kind,
                &e.primary_name,
                &r.country,
                &r.item.hash,
                &r.item.json,
                &e.listing_ends,
            ];
            row
        }),
    )
}

/// One row of `names`: the primary name at position 0, then the aliases.
struct NameRow<'a> {
    entity_id: &'a str,
    position: i64,
    name: &'a str,
    kind: Option<&'a str>,
    quality: String,
    script: Option<&'a str>,
    lang: Option<&'a str>,
}

fn name_rows<'a>(item: &'a Incoming<'a>) -> impl Iterator<Item = NameRow<'a>> {
    let e = item.entity;
    let primary = NameRow {
        entity_id: &item.id,
        position: 0,
        name: &e.primary_name,
        kind: Some("primary"),
        quality: "strong".to_owned(),
        script: None,
        lang: None,
    };
    let aliases = e.aliases.iter().enumerate().map(move |(i, alias)| NameRow {
        entity_id: &item.id,
        position: big(i + 1),
        name: &alias.name,
        kind: alias.kind.as_deref(),
        quality: serde_json::to_value(alias.quality)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_else(|| "unspecified".to_owned()),
        script: alias.script.as_deref(),
        lang: alias.lang.as_deref(),
    });
    std::iter::once(primary).chain(aliases)
}

fn copy_names(tx: &mut Transaction<'_>, items: &[&Incoming<'_>]) -> Result<(), StoreError> {
    let rows: Vec<NameRow<'_>> = items.iter().flat_map(|i| name_rows(i)).collect();
    let text = Type::TEXT;
    copy_rows(
        tx,
        "COPY names (entity_id, position, name, kind, quality, script, lang) FROM STDIN BINARY",
        &[
            text.clone(),
            Type::INT8,
            text.clone(),
            text.clone(),
            text.clone(),
            text.clone(),
            text,
        ],
        rows.iter().map(|r| {
            let row: Vec<&(dyn ToSql + Sync)> = vec![
                &r.entity_id,
                &r.position,
                &r.name,
                &r.kind,
                &r.quality,
                &r.script,
                &r.lang,
            ];
            row
        }),
    )
}

fn copy_changes<'a>(
    tx: &mut Transaction<'_>,
    update_id: i64,
    changes: impl Iterator<Item = (&'a str, ChangeKind)>,
) -> Result<(), StoreError> {
    let rows: Vec<(&str, &'static str)> = changes.map(|(id, k)| (id, k.as_str())).collect();
    copy_rows(
        tx,
        "COPY entity_changes (update_id, entity_id, change) FROM STDIN BINARY",
        &[Type::INT8, Type::TEXT, Type::TEXT],
        rows.iter().map(|(id, change)| {
            let row: Vec<&(dyn ToSql + Sync)> = vec![&update_id, id, change];
            row
        }),
    )
}

fn insert_update(tx: &mut Transaction<'_>, record: &UpdateRecord) -> Result<i64, StoreError> {
    let what = format!("update of {}", record.list);
    let files: &[SourceFile] = &record.files;
    let row = tx
        .query_one(
            "INSERT INTO list_updates (list_code, at, origin, files, published, added, removed,
                                       changed, total, notes, failed)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id",
            &[
                &record.list.code(),
                &record.at,
                &record.origin,
                &crate::codec::to_json(&files, &what)?,
                &record.published,
                &big(record.added),
                &big(record.removed),
                &big(record.changed),
                &big(record.total),
                &crate::codec::to_json(&record.notes, &what)?,
                &record.failed,
            ],
        )
        .map_err(db)?;
    col(&row, 0)
}

fn set_list(tx: &mut Transaction<'_>, record: &UpdateRecord) -> Result<(), StoreError> {
    tx.execute(
        "INSERT INTO lists (code, entity_count, updated_at, published, last_update)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (code) DO UPDATE SET entity_count = excluded.entity_count,
             updated_at = excluded.updated_at, published = excluded.published,
             last_update = excluded.last_update",
        &[
            &record.list.code(),
            &big(record.total),
            &record.at,
            &record.published,
            &record.id,
        ],
    )
    .map_err(db)?;
    Ok(())
}

/// The `list.updated` event of an update that changed something, in its transaction (news
/// about the shared lists: it belongs to no account).
fn list_updated_event(tx: &mut Transaction<'_>, record: &UpdateRecord) -> Result<(), StoreError> {
    if record.added + record.removed + record.changed == 0 {
        return Ok(());
    }
    let payload = serde_json::json!({
        "list": record.list.code(),
        "update_id": record.id,
        "added": record.added,
        "removed": record.removed,
        "changed": record.changed,
        "total": record.total,
    });
    let event_id = format!("evt_{:032x}", ulid::Ulid::new().0);
    super::writing_events(tx)?;
    tx.execute(
        "INSERT INTO outbox (event_id, kind, created_at, payload, account_id)
         VALUES ($1, 'list.updated', $2, $3, NULL)",
        &[&event_id, &record.at, &payload.to_string()],
    )
    .map_err(db)?;
    Ok(())
}

/// Records the digest of the names this import stores (each entry's primary name and
/// aliases, in entry-id order).
fn record_digest(
    tx: &mut Transaction<'_>,
    parsed: &ParsedList,
    incoming: &[Incoming<'_>],
    update_id: i64,
) -> Result<(), StoreError> {
    let mut entries: Vec<EntityNames> =
        incoming.iter().map(|i| EntityNames::of(i.entity)).collect();
    entries.sort_by(|a, b| a.entity_id.cmp(&b.entity_id));
    let digest = digests_of(&entries)
        .remove(&parsed.list)
        .unwrap_or(NameDigest {
            names: 0,
            checksum: hex::encode(Sha256::digest(b"")),
        });
    tx.execute(
        "INSERT INTO name_digests (list_code, update_id, names, checksum)
         VALUES ($1, $2, $3, $4)
         ON CONFLICT (list_code) DO UPDATE SET update_id = excluded.update_id,
             names = excluded.names, checksum = excluded.checksum",
        &[
            &parsed.list.code(),
            &update_id,
            &big(digest.names),
            &digest.checksum,
        ],
    )
    .map_err(db)?;
    Ok(())
}
