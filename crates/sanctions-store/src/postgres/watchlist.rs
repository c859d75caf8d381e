//! The watchlist on PostgreSQL: favorites, their matches and change log, re-screen runs
//! recorded by compare-and-set of the progress markers (two instances never record the same
//! diff), and the markers themselves.

use std::collections::HashMap;

use postgres::fallible_iterator::FallibleIterator;
use postgres::{GenericClient, Row, Transaction};

use super::records::write_changes;
use super::{big, col, count, db};
use crate::codec::{now_text, parse_ts, parse_ts_opt, to_json, ts_text, versions, word};
use crate::model::{AlertKind, EntityKind, Favorite, RescreenRun};
use crate::{Changes, FavoriteInsert, FavoriteUpdate, MarkerMove, StoreError, WATCHLIST_MARKER};

/// Adds one favorite (refused when its name and type are already listed in the account).
pub(super) fn add_favorite(
    tx: &mut Transaction<'_>,
    account: &str,
    new: &FavoriteInsert,
    changes: &Changes,
) -> Result<(), StoreError> {
    let existing = tx
        .query_opt(
            "SELECT id, name FROM favorites WHERE norm = $1 AND account_id = $2",
            &[&new.norm, &account],
        )
        .map_err(db)?;
    if let Some(row) = existing {
        return Err(StoreError::Duplicate {
            existing_id: col(&row, 0)?,
            existing_name: col(&row, 1)?,
        });
    }
    insert_favorite(tx, account, new)?;
    write_changes(tx, changes)?;
    bump_watchlist(tx)
}

/// Adds many favorites, skipping those already listed (in the store or earlier in `new`);
/// returns the ids inserted, in input order. The rows go in by binary COPY into a temporary
/// table and one `INSERT ... ON CONFLICT DO NOTHING` (a few round trips for a whole chunk,
/// where a statement per row made an import of millions of names take hours); only the
/// favorites that match something write their matches, screenings and alerts one by one.
pub(super) fn import_favorites(
    tx: &mut Transaction<'_>,
    account: &str,
    new: &[(FavoriteInsert, Changes)],
) -> Result<Vec<String>, StoreError> {
    tx.batch_execute(
        "CREATE TEMP TABLE favorite_import (
             ord BIGINT, id TEXT COLLATE \"C\", name TEXT COLLATE \"C\",
             norm TEXT COLLATE \"C\", kind TEXT COLLATE \"C\", note TEXT COLLATE \"C\",
             created_at TEXT COLLATE \"C\", last_screened_at TEXT COLLATE \"C\",
             last_match_count BIGINT, last_screening_id TEXT COLLATE \"C\",
             dob TEXT COLLATE \"C\", country TEXT COLLATE \"C\"
         ) ON COMMIT DROP",
    )
    .map_err(db)?;
    copy_import(tx, new)?;
    let rows = tx
        .query(
            "INSERT INTO favorites (id, name, norm, kind, note, created_at, last_screened_at,
                                    last_match_count, last_screening_id, account_id, dob,
                                    country)
             SELECT id, name, norm, kind, note, created_at, last_screened_at,
                    last_match_count, last_screening_id, $1, dob, country
             FROM (SELECT DISTINCT ON (norm) * FROM favorite_import ORDER BY norm, ord) AS first
             ORDER BY ord
             ON CONFLICT (account_id, norm) DO NOTHING
             RETURNING id",
            &[&account],
        )
        .map_err(db)?;
    let added: std::collections::HashSet<String> =
        rows.iter().map(|r| col(r, 0)).collect::<Result<_, _>>()?;
    let mut inserted = Vec::with_capacity(added.len());
    for (item, changes) in new {
        if !added.contains(&item.favorite.id) {
            continue;
        }
        insert_matches(tx, item)?;
        write_changes(tx, changes)?;
        inserted.push(item.favorite.id.clone());
    }
    bump_watchlist(tx)?;
    Ok(inserted)
}

/// The chunk's favorites into `favorite_import`, by binary COPY.
fn copy_import(
    tx: &mut Transaction<'_>,
    new: &[(FavoriteInsert, Changes)],
) -> Result<(), StoreError> {
    use postgres::binary_copy::BinaryCopyInWriter;
    use postgres::types::Type;
    let sink = tx
        .copy_in(
            "COPY favorite_import (ord, id, name, norm, kind, note, created_at,
                                   last_screened_at, last_match_count, last_screening_id,
                                   dob, country)
             FROM STDIN BINARY",
        )
        .map_err(db)?;
    let t = Type::TEXT;
    let types = [
        Type::INT8,
        t.clone(),
        t.clone(),
        t.clone(),
        t.clone(),
        t.clone(),
        t.clone(),
        t.clone(),
        Type::INT8,
        t.clone(),
        t.clone(),
        t,
    ];
    let mut writer = BinaryCopyInWriter::new(sink, &types);
    for (ord, (item, _)) in new.iter().enumerate() {
        let f = &item.favorite;
        writer
            .write(&[
                &big(ord),
                &f.id,
                &f.name,
                &item.norm,
                &f.kind.map(EntityKind::as_str),
                &f.note,
                &ts_text(f.created_at),
                &f.last_screened_at.map(ts_text).unwrap_or_else(now_text),
                &big(item.matches.len()),
                &f.last_screening_id,
                &f.dob,
                &f.country,
            ])
            .map_err(db)?;
    }
    writer.finish().map_err(db)?;
    Ok(())
}

fn insert_favorite(
    tx: &mut Transaction<'_>,
    account: &str,
    new: &FavoriteInsert,
) -> Result<(), StoreError> {
    let f = &new.favorite;
    tx.execute(
        "INSERT INTO favorites (id, name, norm, kind, note, created_at, last_screened_at,
                                last_match_count, last_screening_id, account_id, dob, country)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
        &[
            &f.id,
            &f.name,
            &new.norm,
            &f.kind.map(EntityKind::as_str),
            &f.note,
            &ts_text(f.created_at),
            &f.last_screened_at.map(ts_text).unwrap_or_else(now_text),
            &big(new.matches.len()),
            &f.last_screening_id,
            &account,
            &f.dob,
            &f.country,
        ],
    )
    .map_err(db)?;
    insert_matches(tx, new)
}

fn insert_matches(tx: &mut Transaction<'_>, new: &FavoriteInsert) -> Result<(), StoreError> {
    let f = &new.favorite;
    for (entity, score) in &new.matches {
        tx.execute(
            "INSERT INTO favorite_matches (favorite_id, entity_id, score) VALUES ($1, $2, $3)
             ON CONFLICT DO NOTHING",
            &[&f.id, entity, &i64::from(*score)],
        )
        .map_err(db)?;
    }
    Ok(())
}

const COLUMNS: &str = "id, name, kind, note, created_at, last_screened_at, last_match_count, \
    last_screening_id, dob, country";

/// Favorites of `account` in id order, after `after`, at most `limit`.
pub(super) fn favorites(
    c: &mut impl GenericClient,
    account: &str,
    after: Option<&str>,
    limit: usize,
) -> Result<Vec<Favorite>, StoreError> {
    let last_run = last_run_at(c, account)?;
    let sql = format!(
        "SELECT {COLUMNS} FROM favorites WHERE account_id = $3 AND ($1::text IS NULL OR id > $1)
         ORDER BY id LIMIT $2"
    );
    let rows = c
        .query(&sql, &[&after, &big(limit), &account])
        .map_err(db)?;
    rows.iter()
        .map(|row| favorite_from(c, row, last_run.as_deref()))
        .collect()
}

/// One favorite of `account`.
pub(super) fn favorite(
    c: &mut impl GenericClient,
    account: &str,
    id: &str,
) -> Result<Option<Favorite>, StoreError> {
    let last_run = last_run_at(c, account)?;
    let sql = format!("SELECT {COLUMNS} FROM favorites WHERE id = $1 AND account_id = $2");
    let row = c.query_opt(&sql, &[&id, &account]).map_err(db)?;
    row.map(|row| favorite_from(c, &row, last_run.as_deref()))
        .transpose()
}

/// When the last re-screen run covering `account`'s watchlist was recorded
/// ([`crate::favorites::LAST_RUN`]).
fn last_run_at(c: &mut impl GenericClient, account: &str) -> Result<Option<String>, StoreError> {
    let row = c
        .query_one(
            crate::favorites::LAST_RUN,
            &[&account, &crate::EVERY_ACCOUNT],
        )
        .map_err(db)?;
    col(&row, 0)
}

fn favorite_from(
    c: &mut impl GenericClient,
    row: &Row,
    last_run: Option<&str>,
) -> Result<Favorite, StoreError> {
    let id: String = col(row, 0)?;
    let matched: Vec<String> = c
        .query(
            "SELECT entity_id FROM favorite_matches WHERE favorite_id = $1
             ORDER BY score DESC, entity_id",
            &[&id],
        )
        .map_err(db)?
        .iter()
        .map(|r| col(r, 0))
        .collect::<Result<_, _>>()?;
    let created: String = col(row, 4)?;
    let own: Option<String> = col(row, 5)?;
    // A run covering the account answers for its whole watchlist (see the SQLite store's).
    let screened = match (own, last_run) {
        (Some(own), Some(run)) if run > own.as_str() && run >= created.as_str() => {
            Some(run.to_owned())
        }
        (own, _) => own,
    };
    let kind: Option<String> = col(row, 2)?;
    Ok(Favorite {
        kind: kind.map(|k| word(&k, &id, EntityKind::parse)).transpose()?,
        created_at: parse_ts(&created, &id)?,
        last_screened_at: parse_ts_opt(screened, &id)?,
        name: col(row, 1)?,
        note: col(row, 3)?,
        last_match_count: count(col(row, 6)?),
        last_screening_id: col(row, 7)?,
        dob: col(row, 8)?,
        country: col(row, 9)?,
        matched_entity_ids: matched,
        id,
    })
}

/// Removes a favorite of `account` and its current matches (its change log stays).
pub(super) fn remove_favorite(
    tx: &mut Transaction<'_>,
    account: &str,
    id: &str,
) -> Result<Favorite, StoreError> {
    let found = favorite(tx, account, id)?.ok_or_else(|| StoreError::NotFound {
        what: "favorite",
        id: id.to_owned(),
    })?;
    tx.execute(
        "DELETE FROM favorite_matches WHERE favorite_id = $1",
        &[&id],
    )
    .map_err(db)?;
    tx.execute(
        "DELETE FROM favorites WHERE id = $1 AND account_id = $2",
        &[&id, &account],
    )
    .map_err(db)?;
    bump_watchlist(tx)?;
    Ok(found)
}

/// Favorites of `account` (`None`: of every account).
pub(super) fn favorite_count(
    c: &mut impl GenericClient,
    account: Option<&str>,
) -> Result<u64, StoreError> {
    let row = c
        .query_one(
            "SELECT count(*) FROM favorites WHERE $1::text IS NULL OR account_id = $1",
            &[&account],
        )
        .map_err(db)?;
    Ok(count(col(&row, 0)?))
}

/// Every favorite as a re-screen reads it (`crate::WatchedName`), in the table's order,
/// streamed to `each` in chunks of at most `chunk`.
pub(super) fn favorite_names_each(
    c: &mut impl GenericClient,
    account: Option<&str>,
    chunk: usize,
    each: &mut dyn FnMut(Vec<crate::WatchedName>) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let sql = format!(
        "SELECT {} FROM favorites f WHERE $1::text IS NULL OR f.account_id = $1",
        crate::favorites::WATCHED_COLUMNS
    );
    let rows = c.query_raw(sql.as_str(), [account]).map_err(db)?;
    let rows = rows
        .iterator()
        .map(|row| row.map_err(db).and_then(|row| watched_name(&row)));
    crate::favorites::in_chunks(rows, chunk, each)
}

/// A favorite as a re-screen reads it, from a row of `favorites::WATCHED_COLUMNS`.
pub(super) fn watched_name(r: &postgres::Row) -> Result<crate::WatchedName, StoreError> {
    let kind: Option<String> = col(r, 2)?;
    Ok(crate::WatchedName {
        id: col(r, 0)?,
        name: col(r, 1)?,
        kind: kind.as_deref().and_then(EntityKind::parse),
        dob: col(r, 3)?,
        country: col(r, 4)?,
        nearness: crate::favorites::kept_nearness(col(r, 5)?, col(r, 6)?),
    })
}

/// The entries every favorite matches now.
pub(super) fn favorite_matches(
    c: &mut impl GenericClient,
) -> Result<HashMap<String, Vec<(String, u8)>>, StoreError> {
    let rows = c
        .query(
            "SELECT favorite_id, entity_id, score FROM favorite_matches",
            &[],
        )
        .map_err(db)?;
    let mut out: HashMap<String, Vec<(String, u8)>> = HashMap::new();
    for r in &rows {
        let score = u8::try_from(col::<i64>(r, 2)?).unwrap_or(u8::MAX);
        out.entry(col(r, 0)?).or_default().push((col(r, 1)?, score));
    }
    Ok(out)
}

/// A favorite's gained and lost matches, oldest first.
pub(super) fn favorite_changes(
    c: &mut impl GenericClient,
    id: &str,
) -> Result<Vec<(String, String, String)>, StoreError> {
    let rows = c
        .query(
            "SELECT entity_id, change, at FROM favorite_changes WHERE favorite_id = $1 ORDER BY id",
            &[&id],
        )
        .map_err(db)?;
    rows.iter()
        .map(|r| Ok((col(r, 0)?, col(r, 1)?, col(r, 2)?)))
        .collect()
}

/// Records a re-screen run if every marker is still where the run read it (compare-and-set
/// on row locks: of two instances, the second finds the marker moved and writes nothing).
pub(super) fn record_rescreen(
    tx: &mut Transaction<'_>,
    run: &RescreenRun,
    updates: &[FavoriteUpdate],
    changes: &Changes,
    markers: &[MarkerMove<'_>],
) -> Result<Option<i64>, StoreError> {
    for m in markers {
        if !compare_and_set(tx, m)? {
            return Ok(None);
        }
    }
    let base = markers
        .iter()
        .find(|m| m.key == WATCHLIST_MARKER)
        .map_or(0, |m| m.from);
    let changes = claim_alerts(tx, changes, base)?;
    let run_id = insert_run(tx, run)?;
    let at = ts_text(run.at);
    for u in updates {
        apply_update(tx, u, &at, Some(run_id))?;
    }
    write_changes(tx, &changes)?;
    Ok(Some(run_id))
}

pub(super) fn insert_run(tx: &mut Transaction<'_>, run: &RescreenRun) -> Result<i64, StoreError> {
    let row = tx
        .query_one(
            "INSERT INTO rescreen_runs (at, reason, mode, list_versions, engine_version, actor,
                                        screened, changed, alerts)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id",
            &[
                &ts_text(run.at),
                &run.reason,
                &run.mode,
                &to_json(&run.list_versions, "rescreen run")?,
                &run.engine_version,
                &run.actor,
                &big(run.screened),
                &big(run.changed),
                &big(run.alerts),
            ],
        )
        .map_err(db)?;
    col(&row, 0)
}

/// A favorite's new matched set, its change log (naming `run_id` when the run's record
/// exists yet) and its last-screened fields.
pub(super) fn apply_update(
    tx: &mut Transaction<'_>,
    u: &FavoriteUpdate,
    at: &str,
    run_id: Option<i64>,
) -> Result<(), StoreError> {
    tx.execute(
        "DELETE FROM favorite_matches WHERE favorite_id = $1",
        &[&u.favorite_id],
    )
    .map_err(db)?;
    for (entity, score) in &u.matches {
        tx.execute(
            "INSERT INTO favorite_matches (favorite_id, entity_id, score) VALUES ($1, $2, $3)",
            &[&u.favorite_id, entity, &i64::from(*score)],
        )
        .map_err(db)?;
    }
    for (entities, change) in [(&u.gained, "gained"), (&u.lost, "lost")] {
        for entity in entities {
            tx.execute(
                "INSERT INTO favorite_changes (favorite_id, entity_id, change, at, run_id,
                                               screening_id)
                 VALUES ($1, $2, $3, $4, $5, $6)",
                &[
                    &u.favorite_id,
                    entity,
                    &change,
                    &at,
                    &run_id,
                    &u.screening_id,
                ],
            )
            .map_err(db)?;
        }
    }
    tx.execute(
        "UPDATE favorites SET last_screened_at = $2, last_match_count = $3,
             last_screening_id = coalesce($4, last_screening_id),
             last_run_id = coalesce($5, last_run_id)
         WHERE id = $1",
        &[
            &u.favorite_id,
            &at,
            &big(u.matches.len()),
            &u.screening_id,
            &run_id,
        ],
    )
    .map_err(db)?;
    Ok(())
}

/// Moves a marker from `m.from` to `m.to` if it is at `m.from` (absent counts as 0). The
/// UPDATE waits for a concurrent writer's row lock and then re-reads the row, so of two
/// runs that read the same value only the first moves it.
fn compare_and_set(tx: &mut Transaction<'_>, m: &MarkerMove<'_>) -> Result<bool, StoreError> {
    let moved = tx
        .execute(
            "UPDATE service_state SET value = $3 WHERE key = $1 AND value = $2",
            &[&m.key, &m.from, &m.to],
        )
        .map_err(db)?;
    if moved == 1 {
        return Ok(true);
    }
    if m.from != 0 {
        return Ok(false);
    }
    let created = tx
        .execute(
            "INSERT INTO service_state (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING",
            &[&m.key, &m.to],
        )
        .map_err(db)?;
    Ok(created == 1)
}

/// Counts a change of the watchlist (see [`WATCHLIST_MARKER`]).
fn bump_watchlist(tx: &mut Transaction<'_>) -> Result<(), StoreError> {
    tx.execute(
        "INSERT INTO service_state (key, value) VALUES ($1, 1)
         ON CONFLICT (key) DO UPDATE SET value = service_state.value + 1",
        &[&WATCHLIST_MARKER],
    )
    .map_err(db)?;
    Ok(())
}

/// `changes` without the `favorite.match` alerts (and their events) already recorded for
/// every (favorite, entity) from watchlist version `base`.
pub(super) fn claim_alerts(
    tx: &mut Transaction<'_>,
    changes: &Changes,
    base: i64,
) -> Result<Changes, StoreError> {
    let mut out = Changes {
        account: changes.account.clone(),
        screenings: changes.screenings.clone(),
        alerts: Vec::with_capacity(changes.alerts.len()),
        events: Vec::new(),
    };
    let mut dropped = std::collections::HashSet::new();
    for alert in &changes.alerts {
        let Some(favorite) = alert
            .favorite_id
            .as_deref()
            .filter(|_| alert.kind == AlertKind::FavoriteMatch)
        else {
            out.alerts.push(alert.clone());
            continue;
        };
        let mut fresh = 0;
        for entity in &alert.entity_ids {
            fresh += tx
                .execute(
                    "INSERT INTO favorite_alert_keys (favorite_id, entity_id, base, alert_id,
                                                      account_id)
                     VALUES ($1, $2, $3, $4, coalesce(
                         (SELECT account_id FROM favorites WHERE id = $1), 'acct_default'))
                     ON CONFLICT (favorite_id, entity_id, base) DO NOTHING",
                    &[&favorite, entity, &base, &alert.id],
                )
                .map_err(db)?;
        }
        if fresh > 0 || alert.entity_ids.is_empty() {
            out.alerts.push(alert.clone());
        } else {
            dropped.insert(alert.id.as_str());
        }
    }
    out.events = changes
        .events
        .iter()
        .filter(|e| {
            e.payload
                .get("alert_id")
                .and_then(|v| v.as_str())
                .is_none_or(|id| !dropped.contains(id))
        })
        .cloned()
        .collect();
    Ok(out)
}

/// The re-screen runs, newest first.
pub(super) fn rescreen_runs(
    c: &mut impl GenericClient,
    limit: usize,
) -> Result<Vec<RescreenRun>, StoreError> {
    let rows = c
        .query(
            "SELECT id, at, reason, mode, list_versions, engine_version, actor, screened,
                    changed, alerts FROM rescreen_runs ORDER BY id DESC LIMIT $1",
            &[&big(limit)],
        )
        .map_err(db)?;
    rows.iter()
        .map(|r| {
            let id: i64 = col(r, 0)?;
            let what = format!("rescreen run {id}");
            Ok(RescreenRun {
                id,
                at: parse_ts(&col::<String>(r, 1)?, &what)?,
                reason: col(r, 2)?,
                mode: col(r, 3)?,
                list_versions: versions(&col::<String>(r, 4)?, &what)?,
                engine_version: col(r, 5)?,
                actor: col(r, 6)?,
                screened: count(col(r, 7)?),
                changed: count(col(r, 8)?),
                alerts: count(col(r, 9)?),
            })
        })
        .collect()
}

/// A progress marker of background work.
pub(super) fn marker(c: &mut impl GenericClient, key: &str) -> Result<Option<i64>, StoreError> {
    let row = c
        .query_opt("SELECT value FROM service_state WHERE key = $1", &[&key])
        .map_err(db)?;
    row.map(|r| col(&r, 0)).transpose()
}

/// Rows of nearness set by one statement each.
const NEARNESS_BATCH: usize = 10_000;

/// Sets each named favorite's nearness (`None`: unknown), a batch of rows per statement.
pub(super) fn set_nearness(
    tx: &mut Transaction<'_>,
    rows: &[(String, Option<crate::Nearness>)],
) -> Result<(), StoreError> {
    for batch in rows.chunks(NEARNESS_BATCH) {
        let ids: Vec<&str> = batch.iter().map(|(id, _)| id.as_str()).collect();
        let near: Vec<Option<f64>> = batch.iter().map(|(_, n)| n.map(|n| n.near)).collect();
        let low: Vec<Option<f64>> = batch.iter().map(|(_, n)| n.map(|n| n.low)).collect();
        tx.execute(
            "UPDATE favorites f SET near_score = v.near, low_score = v.low
             FROM unnest($1::text[], $2::float8[], $3::float8[]) AS v(id, near, low)
             WHERE f.id = v.id",
            &[&ids, &near, &low],
        )
        .map_err(db)?;
    }
    Ok(())
}
