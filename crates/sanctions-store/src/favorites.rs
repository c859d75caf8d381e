//! The watchlist: favorites, the entries each one matches now, what each re-screen changed,
//! and the compact record of every re-screen run.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, Row, params};

use super::codec::{now_text, parse_ts, parse_ts_opt, to_json, ts_text, versions, word};
use super::screenings::{Changes, write_changes};
use super::{Store, StoreError};
use crate::model::{EntityKind, Favorite, RescreenRun};

/// A favorite whose matched set a re-screen changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FavoriteUpdate {
    pub favorite_id: String,
    /// The complete new set: (entity id, score).
    pub matches: Vec<(String, u8)>,
    pub gained: Vec<String>,
    pub lost: Vec<String>,
    /// The stored screening recording the new set, if one was stored.
    pub screening_id: Option<String>,
}

/// The progress marker that counts the watchlist's committed changes (a re-screen, a
/// favorite added or removed): a re-screen commits only if it is still the value it read
/// before reading the favorites' matches, so two runs never record the same diff.
pub const WATCHLIST_MARKER: &str = "watchlist_version";

/// A progress marker moved by compare-and-set: only from the value a run read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MarkerMove<'a> {
    pub key: &'a str,
    pub from: i64,
    pub to: i64,
}

/// A new favorite with its duplicate key and first matches.
#[derive(Debug, Clone)]
pub struct FavoriteInsert {
    pub favorite: Favorite,
    pub norm: String,
    pub matches: Vec<(String, u8)>,
}

/// How near a favorite's last screening came to the threshold: the highest final score,
/// unrounded, of the entries that stayed below it (`near`) and the lowest of those at or
/// above it (`low`), each shifted by the cumulative weight drift of the index it was screened
/// on (the service's `near_drift` markers): `near - drift` and `low + drift`, so that adding
/// the drift of any later index bounds the score there. The service gives a
/// value far outside the scores for "none".
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Nearness {
    pub near: f64,
    pub low: f64,
}

/// A favorite as a re-screen reads it: its id, name and type, its date of birth and country
/// (the evidence each of its screenings weighs), and its kept [`Nearness`] (`None`: unknown).
#[derive(Debug, Clone, PartialEq)]
pub struct WatchedName {
    pub id: String,
    pub name: String,
    pub kind: Option<EntityKind>,
    pub dob: Option<String>,
    pub country: Option<String>,
    pub nearness: Option<Nearness>,
}

/// A favorite's kept [`Nearness`] from its two columns: known only when both are.
pub(crate) fn kept_nearness(near: Option<f64>, low: Option<f64>) -> Option<Nearness> {
    Some(Nearness {
        near: near?,
        low: low?,
    })
}

/// The columns [`watched_name`] reads, in its order.
pub(crate) const WATCHED_COLUMNS: &str =
    "f.id, f.name, f.kind, f.dob, f.country, f.near_score, f.low_score";

/// When the last re-screen run covering the watchlist of account `$1` was recorded: a run of
/// every account (a list update's, a scheduled one: recorded without a chunk run, or with
/// one of scope `$2`, [`crate::EVERY_ACCOUNT`]) or one of that account's own. Another
/// account's manual run covered none of its favorites, and says nothing of them. (`$1` and
/// `$2` are parameters to SQLite as to PostgreSQL.)
pub(crate) const LAST_RUN: &str = "SELECT max(r.at) FROM rescreen_runs r
     WHERE NOT EXISTS (SELECT 1 FROM rescreen_chunk_runs c
                       WHERE c.rescreen_run_id = r.id AND c.scope <> $1 AND c.scope <> $2)";

/// A favorite as a re-screen reads it, from a row of [`WATCHED_COLUMNS`].
pub(crate) fn watched_name(r: &rusqlite::Row<'_>) -> rusqlite::Result<WatchedName> {
    Ok(WatchedName {
        id: r.get(0)?,
        name: r.get(1)?,
        kind: r
            .get::<_, Option<String>>(2)?
            .as_deref()
            .and_then(EntityKind::parse),
        dob: r.get(3)?,
        country: r.get(4)?,
        nearness: kept_nearness(r.get(5)?, r.get(6)?),
    })
}

/// `rows` handed to `each` in chunks of at most `chunk` (the last shorter) as they are read;
/// the first error, of a row or of `each`, ends the read and is returned. `rows` is not
/// asked again once it has ended (PostgreSQL's rows answer "connection closed" then).
pub(crate) fn in_chunks<T>(
    rows: impl Iterator<Item = Result<T, StoreError>>,
    chunk: usize,
    each: &mut dyn FnMut(Vec<T>) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let mut rows = rows.fuse();
    loop {
        let part = rows
            .by_ref()
            .take(chunk.max(1))
            .collect::<Result<Vec<_>, _>>()?;
        if part.is_empty() {
            return Ok(());
        }
        each(part)?;
    }
}

const COLUMNS: &str = "f.id, f.name, f.kind, f.note, f.created_at, f.last_screened_at, \
    f.last_match_count, f.last_screening_id, f.dob, f.country";

impl Store {
    /// Adds one favorite (refused when its normalised name and type are already listed),
    /// with the screening that accompanies it, in one transaction.
    pub fn add_favorite(
        &mut self,
        account: &str,
        new: &FavoriteInsert,
        changes: &Changes,
    ) -> Result<(), StoreError> {
        let tx = self.write()?;
        let existing: Option<(String, String)> = tx
            .query_row(
                "SELECT id, name FROM favorites WHERE norm = ?1 AND account_id = ?2",
                [new.norm.as_str(), account],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        if let Some((existing_id, existing_name)) = existing {
            return Err(StoreError::Duplicate {
                existing_id,
                existing_name,
            });
        }
        insert_favorite(&tx, account, new)?;
        write_changes(&tx, changes)?;
        bump_watchlist(&tx)?;
        tx.commit().map_err(StoreError::from)
    }

    /// Adds many favorites in one transaction, each with its own screenings, alerts and
    /// events, skipping those whose key is already listed (in the store or earlier in `new`;
    /// their changes are dropped too). Returns the ids inserted, in input order.
    pub fn import_favorites(
        &mut self,
        account: &str,
        new: &[(FavoriteInsert, Changes)],
    ) -> Result<Vec<String>, StoreError> {
        let tx = self.write()?;
        let mut inserted = Vec::new();
        {
            let mut exists =
                tx.prepare_cached("SELECT 1 FROM favorites WHERE norm = ?1 AND account_id = ?2")?;
            for (item, changes) in new {
                if exists.exists([item.norm.as_str(), account])? {
                    continue;
                }
                insert_favorite(&tx, account, item)?;
                write_changes(&tx, changes)?;
                inserted.push(item.favorite.id.clone());
            }
        }
        bump_watchlist(&tx)?;
        tx.commit().map_err(StoreError::from)?;
        Ok(inserted)
    }

    /// Favorites in id (creation) order, after `after`, at most `limit`.
    pub fn favorites(
        &self,
        account: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<Favorite>, StoreError> {
        let last_run = self.last_run_at(account)?;
        // The page as a range of the index by (account, id): a condition `?1 IS NULL OR ...`
        // would make SQLite walk the account's favorites from the first.
        let after_id = if after.is_some() {
            "AND f.id > ?1"
        } else {
            "AND ?1 IS NULL"
        };
        let sql = format!(
            "SELECT {COLUMNS} FROM favorites f WHERE f.account_id = ?3 {after_id}
             ORDER BY f.id LIMIT ?2"
        );
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let rows = stmt.query_map(params![after, limit as i64, account], raw_favorite)?;
        let raws: Vec<RawFavorite> = rows.collect::<Result<_, _>>()?;
        raws.into_iter()
            .map(|raw| self.finish_favorite(raw, last_run.as_deref()))
            .collect()
    }

    /// One favorite.
    pub fn favorite(&self, account: &str, id: &str) -> Result<Option<Favorite>, StoreError> {
        let last_run = self.last_run_at(account)?;
        let sql =
            format!("SELECT {COLUMNS} FROM favorites f WHERE f.id = ?1 AND f.account_id = ?2");
        let raw = self
            .conn
            .query_row(&sql, [id, account], raw_favorite)
            .optional()?;
        raw.map(|raw| self.finish_favorite(raw, last_run.as_deref()))
            .transpose()
    }

    /// Removes a favorite and its current matches; its change log stays.
    pub fn remove_favorite(&mut self, account: &str, id: &str) -> Result<Favorite, StoreError> {
        let favorite = self
            .favorite(account, id)?
            .ok_or_else(|| StoreError::NotFound {
                what: "favorite",
                id: id.to_owned(),
            })?;
        let tx = self.write()?;
        tx.execute("DELETE FROM favorite_matches WHERE favorite_id = ?1", [id])?;
        tx.execute(
            "DELETE FROM favorites WHERE id = ?1 AND account_id = ?2",
            [id, account],
        )?;
        bump_watchlist(&tx)?;
        tx.commit().map_err(StoreError::from)?;
        Ok(favorite)
    }

    /// Number of favorites of `account` (`None`: of every account).
    pub fn favorite_count(&self, account: Option<&str>) -> Result<u64, StoreError> {
        let n: i64 = self.conn.query_row(
            "SELECT count(*) FROM favorites WHERE ?1 IS NULL OR account_id = ?1",
            [account],
            |r| r.get(0),
        )?;
        Ok(n as u64)
    }

    /// Every favorite of `account` (`None`: of every account) as a re-screen reads it
    /// ([`WatchedName`]), in the table's order, in one read of it, handed to `each` in
    /// chunks of at most `chunk` as they are read.
    pub fn favorite_names_each(
        &self,
        account: Option<&str>,
        chunk: usize,
        each: &mut dyn FnMut(Vec<WatchedName>) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT {WATCHED_COLUMNS} FROM favorites f WHERE ?1 IS NULL OR f.account_id = ?1"
        ))?;
        let rows = stmt.query_map([account], watched_name)?;
        in_chunks(rows.map(|r| r.map_err(StoreError::from)), chunk, each)
    }

    /// Sets the [`Nearness`] of each favorite named (`None`: unknown), in one transaction;
    /// a favorite removed meanwhile is skipped.
    pub fn set_nearness(&mut self, rows: &[(String, Option<Nearness>)]) -> Result<(), StoreError> {
        let tx = self.write()?;
        {
            let mut set = tx.prepare_cached(
                "UPDATE favorites SET near_score = ?2, low_score = ?3 WHERE id = ?1",
            )?;
            for (id, near) in rows {
                set.execute(params![id, near.map(|n| n.near), near.map(|n| n.low)])?;
            }
        }
        tx.commit().map_err(StoreError::from)
    }

    /// The entries every favorite matches now (favorites matching nothing are absent).
    pub fn favorite_matches(&self) -> Result<HashMap<String, Vec<(String, u8)>>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT favorite_id, entity_id, score FROM favorite_matches")?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, u8>(2)?,
            ))
        })?;
        let mut out: HashMap<String, Vec<(String, u8)>> = HashMap::new();
        for row in rows {
            let (favorite, entity, score) = row?;
            out.entry(favorite).or_default().push((entity, score));
        }
        Ok(out)
    }

    /// The matches a favorite gained and lost, oldest first: (entity id, change, when).
    pub fn favorite_changes(&self, id: &str) -> Result<Vec<(String, String, String)>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT entity_id, change, at FROM favorite_changes WHERE favorite_id = ?1 ORDER BY id",
        )?;
        let rows = stmt.query_map([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Records a re-screen run: the run, every favorite whose matches changed, the
    /// screenings, alerts and events it produced, and the progress markers it moves, in ONE
    /// transaction. Each marker moves by compare-and-set: when one is no longer at `from`
    /// (another process recorded a run first), nothing is written and the answer is `None`.
    /// A `favorite.match` alert is recorded once per (favorite, entity, watchlist version
    /// read): a second guard, in a unique key, against recording the same diff twice.
    /// Returns the run's id.
    pub fn record_rescreen(
        &mut self,
        run: &RescreenRun,
        updates: &[FavoriteUpdate],
        changes: &Changes,
        markers: &[MarkerMove<'_>],
    ) -> Result<Option<i64>, StoreError> {
        let tx = self.write()?;
        for m in markers {
            if !compare_and_set(&tx, m)? {
                return Ok(None);
            }
        }
        let base = markers
            .iter()
            .find(|m| m.key == WATCHLIST_MARKER)
            .map_or(0, |m| m.from);
        let changes = claim_alerts(&tx, changes, base)?;
        let run_id = insert_run(&tx, run)?;
        apply_updates(&tx, updates, &ts_text(run.at), Some(run_id))?;
        write_changes(&tx, &changes)?;
        tx.commit().map_err(StoreError::from)?;
        Ok(Some(run_id))
    }

    /// The re-screen runs, newest first.
    pub fn rescreen_runs(&self, limit: usize) -> Result<Vec<RescreenRun>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT id, at, reason, mode, list_versions, engine_version, actor, screened, changed,
                    alerts FROM rescreen_runs ORDER BY id DESC LIMIT ?1",
        )?;
        let rows = stmt.query_map([limit as i64], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                [
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, String>(5)?,
                    r.get::<_, String>(6)?,
                ],
                [
                    r.get::<_, i64>(7)?,
                    r.get::<_, i64>(8)?,
                    r.get::<_, i64>(9)?,
                ],
            ))
        })?;
        rows.map(|row| {
            let (id, [at, reason, mode, list_versions, engine_version, actor], [s, c, a]) = row?;
            let what = format!("rescreen run {id}");
            Ok(RescreenRun {
                id,
                at: parse_ts(&at, &what)?,
                reason,
                mode,
                list_versions: versions(&list_versions, &what)?,
                engine_version,
                actor,
                screened: s as u64,
                changed: c as u64,
                alerts: a as u64,
            })
        })
        .collect()
    }

    /// A progress marker of background work.
    pub fn marker(&self, key: &str) -> Result<Option<i64>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT value FROM service_state WHERE key = ?1",
                [key],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// The newest list update's id (0 when nothing was imported).
    pub fn latest_update_id(&self) -> Result<i64, StoreError> {
        Ok(self
            .conn
            .prepare_cached("SELECT coalesce(max(id), 0) FROM list_updates")?
            .query_row([], |r| r.get(0))?)
    }

    /// When the last re-screen run that covered `account`'s watchlist was recorded
    /// ([`LAST_RUN`]).
    fn last_run_at(&self, account: &str) -> Result<Option<String>, StoreError> {
        let mut stmt = self.conn.prepare_cached(LAST_RUN)?;
        let every = crate::EVERY_ACCOUNT;
        Ok(stmt.query_row([account, every], |r| r.get(0))?)
    }

    fn finish_favorite(
        &self,
        raw: RawFavorite,
        last_run: Option<&str>,
    ) -> Result<Favorite, StoreError> {
        let id = raw.id.clone();
        let mut stmt = self.conn.prepare_cached(
            "SELECT entity_id FROM favorite_matches WHERE favorite_id = ?1 ORDER BY score DESC, entity_id",
        )?;
        let matched: Vec<String> = stmt
            .query_map([&id], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        // A run covering the account answers for its whole watchlist, so it screened this
        // one too (an incremental run leaves alone only favorites whose answer it proved
        // unchanged).
        let screened = match (raw.last_screened_at, last_run) {
            (Some(own), Some(run)) if run > own.as_str() && run >= raw.created_at.as_str() => {
                Some(run.to_owned())
            }
            (own, _) => own,
        };
        Ok(Favorite {
            kind: raw
                .kind
                .map(|k| word(&k, &id, EntityKind::parse))
                .transpose()?,
            created_at: parse_ts(&raw.created_at, &id)?,
            last_screened_at: parse_ts_opt(screened, &id)?,
            id: raw.id,
            name: raw.name,
            note: raw.note,
            dob: raw.dob,
            country: raw.country,
            last_match_count: raw.last_match_count,
            last_screening_id: raw.last_screening_id,
            matched_entity_ids: matched,
        })
    }
}

/// Appends a run's compact record; returns its id.
pub(crate) fn insert_run(
    tx: &rusqlite::Transaction<'_>,
    run: &RescreenRun,
) -> Result<i64, StoreError> {
    tx.execute(
        "INSERT INTO rescreen_runs (at, reason, mode, list_versions, engine_version, actor,
                                    screened, changed, alerts)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![
            ts_text(run.at),
            run.reason,
            run.mode,
            to_json(&run.list_versions, "rescreen run")?,
            run.engine_version,
            run.actor,
            run.screened as i64,
            run.changed as i64,
            run.alerts as i64
        ],
    )?;
    Ok(tx.last_insert_rowid())
}

/// Writes each favorite's new matched set, its change log (naming `run_id`, when the run's
/// record exists yet) and its last-screened fields, inside an open transaction.
pub(crate) fn apply_updates(
    tx: &rusqlite::Transaction<'_>,
    updates: &[FavoriteUpdate],
    at: &str,
    run_id: Option<i64>,
) -> Result<(), StoreError> {
    let mut clear = tx.prepare_cached("DELETE FROM favorite_matches WHERE favorite_id = ?1")?;
    let mut add = tx.prepare_cached(
        "INSERT INTO favorite_matches (favorite_id, entity_id, score) VALUES (?1, ?2, ?3)",
    )?;
    let mut log = tx.prepare_cached(
        "INSERT INTO favorite_changes (favorite_id, entity_id, change, at, run_id, screening_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    let mut favorite = tx.prepare_cached(
        "UPDATE favorites SET last_screened_at = ?2, last_match_count = ?3,
             last_screening_id = coalesce(?4, last_screening_id),
             last_run_id = coalesce(?5, last_run_id)
         WHERE id = ?1",
    )?;
    for u in updates {
        clear.execute([&u.favorite_id])?;
        for (entity, score) in &u.matches {
            add.execute(params![u.favorite_id, entity, score])?;
        }
        for (entities, change) in [(&u.gained, "gained"), (&u.lost, "lost")] {
            for entity in entities {
                log.execute(params![
                    u.favorite_id,
                    entity,
                    change,
                    at,
                    run_id,
                    u.screening_id
                ])?;
            }
        }
        favorite.execute(params![
            u.favorite_id,
            at,
            u.matches.len() as i64,
            u.screening_id,
            run_id
        ])?;
    }
    Ok(())
}

/// Moves a marker from `m.from` to `m.to` if it is at `m.from` (absent counts as 0), under
/// the write lock of `tx`. False when another writer moved it first.
fn compare_and_set(tx: &rusqlite::Transaction<'_>, m: &MarkerMove<'_>) -> Result<bool, StoreError> {
    let current: i64 = tx.query_row(
        "SELECT coalesce((SELECT value FROM service_state WHERE key = ?1), 0)",
        [m.key],
        |r| r.get(0),
    )?;
    if current != m.from {
        return Ok(false);
    }
    tx.execute(
        "INSERT INTO service_state (key, value) VALUES (?1, ?2)
         ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        params![m.key, m.to],
    )?;
    Ok(true)
}

/// Counts a change of the watchlist (see [`WATCHLIST_MARKER`]).
pub(crate) fn bump_watchlist(tx: &rusqlite::Transaction<'_>) -> Result<(), StoreError> {
    tx.execute(
        "INSERT INTO service_state (key, value) VALUES (?1, 1)
         ON CONFLICT(key) DO UPDATE SET value = value + 1",
        [WATCHLIST_MARKER],
    )?;
    Ok(())
}

/// `changes` without the `favorite.match` alerts (and their events) whose every
/// (favorite, entity) was already alerted from watchlist version `base`; the identities of
/// the others are recorded (idempotent inserts on a unique key).
pub(crate) fn claim_alerts(
    tx: &rusqlite::Transaction<'_>,
    changes: &Changes,
    base: i64,
) -> Result<Changes, StoreError> {
    let mut claim = tx.prepare_cached(
        "INSERT INTO favorite_alert_keys (favorite_id, entity_id, base, alert_id, account_id)
         VALUES (?1, ?2, ?3, ?4, coalesce((SELECT account_id FROM favorites WHERE id = ?1),
                                           'acct_default'))
         ON CONFLICT (favorite_id, entity_id, base) DO NOTHING",
    )?;
    let mut out = Changes {
        account: changes.account.clone(),
        screenings: changes.screenings.clone(),
        alerts: Vec::with_capacity(changes.alerts.len()),
        events: Vec::with_capacity(changes.events.len()),
    };
    let mut dropped = std::collections::HashSet::new();
    for alert in &changes.alerts {
        let Some(favorite) = alert
            .favorite_id
            .as_deref()
            .filter(|_| alert.kind == crate::model::AlertKind::FavoriteMatch)
        else {
            out.alerts.push(alert.clone());
            continue;
        };
        let mut fresh = 0;
        for entity in &alert.entity_ids {
            fresh += claim.execute(params![favorite, entity, base, alert.id])?;
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

fn insert_favorite(
    tx: &rusqlite::Transaction<'_>,
    account: &str,
    new: &FavoriteInsert,
) -> Result<(), StoreError> {
    let f = &new.favorite;
    tx.prepare_cached(
        "INSERT INTO favorites (id, name, norm, kind, note, created_at, last_screened_at,
                                last_match_count, last_screening_id, account_id, dob, country)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    )?
    .execute(params![
        f.id,
        f.name,
        new.norm,
        f.kind.map(EntityKind::as_str),
        f.note,
        ts_text(f.created_at),
        f.last_screened_at.map(ts_text).unwrap_or_else(now_text),
        new.matches.len() as i64,
        f.last_screening_id,
        account,
        f.dob,
        f.country
    ])?;
    let mut add = tx.prepare_cached(
        "INSERT OR IGNORE INTO favorite_matches (favorite_id, entity_id, score) VALUES (?1, ?2, ?3)",
    )?;
    for (entity, score) in &new.matches {
        add.execute(params![f.id, entity, score])?;
    }
    Ok(())
}

struct RawFavorite {
    id: String,
    name: String,
    kind: Option<String>,
    note: Option<String>,
    created_at: String,
    last_screened_at: Option<String>,
    last_match_count: u64,
    last_screening_id: Option<String>,
    dob: Option<String>,
    country: Option<String>,
}

fn raw_favorite(r: &Row<'_>) -> rusqlite::Result<RawFavorite> {
    Ok(RawFavorite {
        id: r.get(0)?,
        name: r.get(1)?,
        kind: r.get(2)?,
        note: r.get(3)?,
        created_at: r.get(4)?,
        last_screened_at: r.get(5)?,
        last_match_count: r.get::<_, i64>(6)? as u64,
        last_screening_id: r.get(7)?,
        dob: r.get(8)?,
        country: r.get(9)?,
    })
}
