//! The names table: written with each entry, read back for the screening index without
//! decoding whole records.

use rusqlite::{Transaction, params};

use super::{Store, StoreError};
use crate::model::{AliasQuality, Entity, EntityKind, EntityNames, ListCode};

impl Store {
    /// Every entry's names, grouped per entry in stored order (primary name first).
    pub fn entity_names(&self) -> Result<Vec<EntityNames>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT e.entity_id, e.list_code, e.kind, e.primary_name, e.country,
                    n.name, n.quality, e.listing_ends,
                    json_object('birth_dates', json_extract(e.data, '$.birth_dates'),
                                'nationalities', json_extract(e.data, '$.nationalities'),
                                'countries', json_extract(e.data, '$.countries'),
                                'programs', json_extract(e.data, '$.programs'),
                                'listed_on', json_extract(e.data, '$.listed_on'))
             FROM entities e JOIN names n ON n.entity_id = e.entity_id
             ORDER BY e.entity_id, n.position",
        )?;
        let mut rows = stmt.query([])?;
        let mut out: Vec<EntityNames> = Vec::new();
        while let Some(row) = rows.next()? {
            let entity_id: String = row.get(0)?;
            let name: String = row.get(5)?;
            let quality = match row.get_ref(6)?.as_str().unwrap_or_default() {
                "weak" => AliasQuality::Weak,
                "strong" => AliasQuality::Strong,
                _ => AliasQuality::Unspecified,
            };
            if let Some(last) = out.last_mut().filter(|e| e.entity_id == entity_id) {
                last.names.push((name, quality));
                continue;
            }
            let corrupt = |what: &str| StoreError::invalid(&entity_id, what.to_owned());
            let list: ListCode = row
                .get_ref(1)?
                .as_str()
                .unwrap_or_default()
                .parse()
                .map_err(|_| corrupt("unknown list code"))?;
            let kind = EntityKind::parse(row.get_ref(2)?.as_str().unwrap_or_default())
                .ok_or_else(|| corrupt("unknown kind"))?;
            out.push(EntityNames {
                entity_id: entity_id.clone(),
                list,
                kind,
                primary_name: row.get(3)?,
                country: row.get(4)?,
                names: vec![(name, quality)],
                listing_ends: row.get(7)?,
                facts: serde_json::from_str(row.get_ref(8)?.as_str().unwrap_or("{}"))
                    .map_err(|e| corrupt(&format!("unreadable facts: {e}")))?,
            });
        }
        Ok(out)
    }
}

/// Writes the names of `entity` (the primary name at position 0, then the aliases).
pub(super) fn insert_names(
    tx: &Transaction<'_>,
    entity: &Entity,
    entity_id: &str,
) -> Result<(), StoreError> {
    let mut names = tx.prepare_cached(
        "INSERT INTO names (entity_id, position, name, kind, quality, script, lang)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    names.execute(params![
        entity_id,
        0,
        entity.primary_name,
        "primary",
        "strong",
        Option::<String>::None,
        Option::<String>::None
    ])?;
    for (position, alias) in entity.aliases.iter().enumerate() {
        let quality = serde_json::to_value(alias.quality)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_else(|| "unspecified".to_owned());
        names.execute(params![
            entity_id,
            position as i64 + 1,
            alias.name,
            alias.kind,
            quality,
            alias.script,
            alias.lang
        ])?;
    }
    Ok(())
}
