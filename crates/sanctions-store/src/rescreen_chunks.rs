//! Full re-screens in claimed chunks (issue 25): a run per scope (one account's watchlist, or
//! every account's) split into key ranges of the favorites table, each claimed by one
//! process with a lease, screened, and committed together with marking it done, only while
//! the process still holds it. Any process joins an open run; a process that dies stops
//! renewing, and its chunk is claimed again once the lease has run out. The run is finished
//! (its compact record in `rescreen_runs`) once, by the process that sees every chunk done.
//!
//! The types are shared by both backends; this file holds the SQLite side (the claim under
//! the database's one writer, `BEGIN IMMEDIATE`).

use std::collections::{BTreeSet, HashMap};

use jiff::Timestamp;
use rusqlite::{OptionalExtension, Row, params};

use super::codec::{parse_ts, parse_ts_opt, ts_text};
use super::favorites::{apply_updates, bump_watchlist, claim_alerts, insert_run};
use super::screenings::{Changes, write_changes};
use super::{FavoriteUpdate, Store, StoreError, WATCHLIST_MARKER};
use crate::model::RescreenRun;

/// The scope of a run over every account's watchlist.
pub const EVERY_ACCOUNT: &str = "*";

/// Most favorites in one chunk (a larger setting is lowered to it).
pub const MAX_CHUNK: usize = 200_000;

/// A run to open (or join, when one of its scope is open).
#[derive(Debug, Clone, Copy)]
pub struct ChunkRunStart<'a> {
    /// An account id, or [`EVERY_ACCOUNT`].
    pub scope: &'a str,
    pub reason: &'a str,
    pub now: Timestamp,
    /// Favorites per chunk (1 to [`MAX_CHUNK`]).
    pub chunk_size: usize,
}

/// A chunk claim: `owner` asking for a chunk of run `run_id` at `now`, to hold until `until`.
#[derive(Debug, Clone, Copy)]
pub struct ChunkLease<'a> {
    pub run_id: i64,
    pub owner: &'a str,
    pub now: Timestamp,
    pub until: Timestamp,
}

/// One chunk: the favorites of `scope` with `after < id <= last` (None: unbounded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RescreenChunk {
    pub run_id: i64,
    pub seq: i64,
    pub scope: String,
    pub after: Option<String>,
    pub last: Option<String>,
}

/// What asking for a chunk gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChunkClaim {
    /// This owner holds the chunk now.
    Claimed(RescreenChunk),
    /// Every chunk not done is held by a live lease (of other processes).
    Held,
    /// Every chunk is done (the run may still need finishing).
    AllDone,
}

/// A favorite of a chunk, as a re-screen needs it: the favorite (with its nearness as kept)
/// and the entries it matches now, (entity id, score).
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkFavorite {
    pub favorite: crate::WatchedName,
    pub matches: Vec<(String, u8)>,
}

/// A screened chunk to commit.
#[derive(Debug, Clone, Copy)]
pub struct ChunkDone<'a> {
    pub chunk: &'a RescreenChunk,
    pub owner: &'a str,
    pub at: Timestamp,
    pub screened: u64,
    /// The favorites whose matched set changed.
    pub updates: &'a [FavoriteUpdate],
    /// Their screenings, alerts and events.
    pub changes: &'a Changes,
}

/// What committing a chunk gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChunkCommit {
    /// Recorded, and the chunk marked done; the ids of the alerts recorded (an alert whose
    /// every entity was already alerted from the same watchlist version is left out).
    Done(Vec<String>),
    /// This owner no longer holds the chunk (its lease was taken over, or it is done):
    /// nothing written.
    Lost,
    /// A favorite changed (re-screened by another run, or removed) since the chunk was
    /// read: nothing written; read and screen the chunk again.
    Stale,
}

/// A run and its progress.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkRunState {
    pub id: i64,
    pub scope: String,
    pub reason: String,
    pub started_at: Timestamp,
    pub finished_at: Option<Timestamp>,
    pub chunks: u64,
    /// Chunks done.
    pub done: u64,
    /// Chunks not done and held by a lease that has not run out.
    pub held: u64,
    pub screened: u64,
    pub changed: u64,
    pub alerts: u64,
    /// Its record in `rescreen_runs`, once finished.
    pub rescreen_run_id: Option<i64>,
}

/// The SQL of a run's state, shared by both backends: `now` is the placeholder of the time
/// leases are compared with, `tail` what follows (the run's filter and order).
pub(crate) fn state_sql(now: &str, tail: &str) -> String {
    let sum = |c: &str| {
        format!(
            "(SELECT CAST(coalesce(sum({c}), 0) AS BIGINT) FROM rescreen_chunks c WHERE c.run_id = r.id)"
        )
    };
    format!(
        "SELECT r.id, r.scope, r.reason, r.started_at, r.finished_at, r.chunks, r.rescreen_run_id,
             (SELECT count(*) FROM rescreen_chunks c WHERE c.run_id = r.id
                  AND c.done_at IS NOT NULL),
             (SELECT count(*) FROM rescreen_chunks c WHERE c.run_id = r.id
                  AND c.done_at IS NULL AND c.lease_until > {now}),
             {}, {}, {}
         FROM rescreen_chunk_runs r {tail}",
        sum("screened"),
        sum("changed"),
        sum("alerts")
    )
}

/// A chunk's key range: after (exclusive), last (inclusive); None: unbounded.
pub(crate) type Range = (Option<String>, Option<String>);

/// The upper bounds of the chunks of `scope`'s favorites, `size` each, read by keyset (one
/// bound at a time, never the whole watchlist); the last chunk is unbounded (None), so a
/// favorite added while the run goes is screened by it.
pub(crate) fn bounds(
    mut next: impl FnMut(Option<&str>) -> Result<Option<String>, StoreError>,
) -> Result<Vec<Range>, StoreError> {
    let mut out = Vec::new();
    let mut after: Option<String> = None;
    while let Some(last) = next(after.as_deref())? {
        out.push((after.clone(), Some(last.clone())));
        after = Some(last);
    }
    out.push((after, None));
    Ok(out)
}

/// The entity ids a favorite matched before the update (its new set, less what it gained,
/// with what it lost).
pub(crate) fn before(update: &FavoriteUpdate) -> BTreeSet<&str> {
    let mut set: BTreeSet<&str> = update.matches.iter().map(|(e, _)| e.as_str()).collect();
    for gained in &update.gained {
        set.remove(gained.as_str());
    }
    set.extend(update.lost.iter().map(String::as_str));
    set
}

/// The state of a run from the columns of [`state_sql`].
pub(crate) fn state_from(
    (id, scope, reason): (i64, String, String),
    (started, finished): (String, Option<String>),
    [chunks, run_id, done, held, screened, changed, alerts]: [Option<i64>; 7],
) -> Result<ChunkRunState, StoreError> {
    let what = format!("re-screen run {id}");
    let n = |v: Option<i64>| u64::try_from(v.unwrap_or(0)).unwrap_or(0);
    Ok(ChunkRunState {
        id,
        scope,
        reason,
        started_at: parse_ts(&started, &what)?,
        finished_at: parse_ts_opt(finished, &what)?,
        chunks: n(chunks),
        done: n(done),
        held: n(held),
        screened: n(screened),
        changed: n(changed),
        alerts: n(alerts),
        rescreen_run_id: run_id,
    })
}

/// A run's row as read: id, (scope, reason), (started, finished), its counts.
type StateRow = (i64, [String; 2], [Option<String>; 2], [Option<i64>; 7]);

fn state_row(r: &Row<'_>) -> rusqlite::Result<StateRow> {
    Ok((
        r.get(0)?,
        [r.get(1)?, r.get(2)?],
        [r.get(3)?, r.get(4)?],
        [
            r.get(5)?,
            r.get(6)?,
            r.get(7)?,
            r.get(8)?,
            r.get(9)?,
            r.get(10)?,
            r.get(11)?,
        ],
    ))
}

impl Store {
    /// The open run of `start.scope`, or a new one with its chunks (in one transaction: of
    /// two processes opening at once, one creates it and the other joins it).
    pub fn open_rescreen_chunks(
        &mut self,
        start: &ChunkRunStart<'_>,
    ) -> Result<ChunkRunState, StoreError> {
        let tx = self.write()?;
        let open: Option<i64> = tx
            .query_row(
                "SELECT id FROM rescreen_chunk_runs WHERE scope = ?1 AND finished_at IS NULL",
                [start.scope],
                |r| r.get(0),
            )
            .optional()?;
        let id = match open {
            Some(id) => id,
            None => create_run(&tx, start)?,
        };
        tx.commit()?;
        self.rescreen_chunk_run(id, start.now)?
            .ok_or_else(|| StoreError::invalid("re-screen run", format!("run {id} vanished")))
    }

    /// Claims the first chunk of `lease.run_id` not done and not held (or whose lease ran
    /// out) for `lease.owner`.
    pub fn claim_rescreen_chunk(
        &mut self,
        lease: &ChunkLease<'_>,
    ) -> Result<ChunkClaim, StoreError> {
        let tx = self.write()?;
        let claimed = tx
            .query_row(
                "UPDATE rescreen_chunks SET holder = ?2, lease_until = ?4, claims = claims + 1
                 WHERE run_id = ?1 AND seq = (
                     SELECT seq FROM rescreen_chunks WHERE run_id = ?1 AND done_at IS NULL
                         AND (holder IS NULL OR lease_until <= ?3) ORDER BY seq LIMIT 1)
                 RETURNING seq, after_id, last_id,
                     (SELECT scope FROM rescreen_chunk_runs WHERE id = ?1)",
                params![
                    lease.run_id,
                    lease.owner,
                    ts_text(lease.now),
                    ts_text(lease.until)
                ],
                |r| {
                    Ok(RescreenChunk {
                        run_id: lease.run_id,
                        seq: r.get(0)?,
                        after: r.get(1)?,
                        last: r.get(2)?,
                        scope: r.get(3)?,
                    })
                },
            )
            .optional()?;
        let answer = match claimed {
            Some(chunk) => ChunkClaim::Claimed(chunk),
            None => {
                let open: i64 = tx.query_row(
                    "SELECT count(*) FROM rescreen_chunks WHERE run_id = ?1 AND done_at IS NULL",
                    [lease.run_id],
                    |r| r.get(0),
                )?;
                if open == 0 {
                    ChunkClaim::AllDone
                } else {
                    ChunkClaim::Held
                }
            }
        };
        tx.commit()?;
        Ok(answer)
    }

    /// Moves the lease of a chunk `owner` holds to `until` (a time at or before now gives
    /// it up); false when `owner` no longer holds it.
    pub fn renew_rescreen_chunk(
        &mut self,
        chunk: &RescreenChunk,
        owner: &str,
        until: Timestamp,
    ) -> Result<bool, StoreError> {
        let tx = self.write()?;
        let n = tx.execute(
            "UPDATE rescreen_chunks SET lease_until = ?4
             WHERE run_id = ?1 AND seq = ?2 AND holder = ?3 AND done_at IS NULL",
            params![chunk.run_id, chunk.seq, owner, ts_text(until)],
        )?;
        tx.commit()?;
        Ok(n == 1)
    }

    /// The favorites of a chunk with their current matches, in id order.
    pub fn rescreen_chunk_favorites(
        &self,
        chunk: &RescreenChunk,
    ) -> Result<Vec<ChunkFavorite>, StoreError> {
        let scope = (chunk.scope != EVERY_ACCOUNT).then_some(chunk.scope.as_str());
        let bounds = (chunk.after.as_deref(), chunk.last.as_deref());
        let (filter, values) = chunk_filter("f.account_id", "f.id", scope, bounds);
        let range = rusqlite::params_from_iter(values.iter());
        let mut stmt = self.conn.prepare_cached(&favorites_query(&filter))?;
        let mut out: Vec<ChunkFavorite> = stmt
            .query_map(range, |r| {
                Ok(ChunkFavorite {
                    favorite: crate::favorites::watched_name(r)?,
                    matches: Vec::new(),
                })
            })?
            .collect::<Result<_, _>>()?;
        let (filter, values) = chunk_filter("f.account_id", "m.favorite_id", scope, bounds);
        let mut stmt = self.conn.prepare_cached(&matches_query(&filter))?;
        let mut matches: HashMap<String, Vec<(String, u8)>> = HashMap::new();
        let rows = stmt.query_map(rusqlite::params_from_iter(values.iter()), |r| {
            Ok((r.get::<_, String>(0)?, (r.get(1)?, r.get(2)?)))
        })?;
        for row in rows {
            let (favorite, hit) = row?;
            matches.entry(favorite).or_default().push(hit);
        }
        for f in &mut out {
            f.matches = matches.remove(&f.favorite.id).unwrap_or_default();
        }
        Ok(out)
    }

    /// Commits a screened chunk: its favorites' new matches, screenings, alerts and events
    /// together with marking it done, in one transaction, only while `done.owner` holds it
    /// and only if every changed favorite still has the matches the chunk read.
    pub fn commit_rescreen_chunk(
        &mut self,
        done: &ChunkDone<'_>,
    ) -> Result<ChunkCommit, StoreError> {
        let tx = self.write()?;
        let chunk = done.chunk;
        let held: bool = tx.query_row(
            "SELECT EXISTS (SELECT 1 FROM rescreen_chunks WHERE run_id = ?1 AND seq = ?2
                 AND holder = ?3 AND done_at IS NULL)",
            params![chunk.run_id, chunk.seq, done.owner],
            |r| r.get(0),
        )?;
        if !held {
            return Ok(ChunkCommit::Lost);
        }
        if !still_current(&tx, done.updates)? {
            return Ok(ChunkCommit::Stale);
        }
        let mut recorded: Vec<String> = Vec::new();
        if !done.updates.is_empty() {
            let base: i64 = tx.query_row(
                "SELECT coalesce((SELECT value FROM service_state WHERE key = ?1), 0)",
                [WATCHLIST_MARKER],
                |r| r.get(0),
            )?;
            bump_watchlist(&tx)?;
            let changes = claim_alerts(&tx, done.changes, base)?;
            recorded = changes.alerts.iter().map(|a| a.id.clone()).collect();
            apply_updates(&tx, done.updates, &ts_text(done.at), None)?;
            write_changes(&tx, &changes)?;
        }
        tx.execute(
            "UPDATE rescreen_chunks SET done_at = ?3, screened = ?4, changed = ?5, alerts = ?6
             WHERE run_id = ?1 AND seq = ?2",
            params![
                chunk.run_id,
                chunk.seq,
                ts_text(done.at),
                done.screened as i64,
                done.updates.len() as i64,
                recorded.len() as i64
            ],
        )?;
        tx.commit()?;
        Ok(ChunkCommit::Done(recorded))
    }

    /// Finishes run `run_id` when every chunk is done and nobody finished it yet: its
    /// compact record (`run` with the chunks' summed counts) in `rescreen_runs`. Returns the
    /// record's id when this call finished it.
    pub fn finish_rescreen_chunks(
        &mut self,
        run_id: i64,
        run: &RescreenRun,
        now: Timestamp,
    ) -> Result<Option<i64>, StoreError> {
        let tx = self.write()?;
        let (open, screened, changed, alerts): (i64, i64, i64, i64) = tx.query_row(
            "SELECT count(*) FILTER (WHERE done_at IS NULL), coalesce(sum(screened), 0),
                    coalesce(sum(changed), 0), coalesce(sum(alerts), 0)
             FROM rescreen_chunks WHERE run_id = ?1",
            [run_id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )?;
        if open > 0 {
            return Ok(None);
        }
        let finished = tx.execute(
            "UPDATE rescreen_chunk_runs SET finished_at = ?2 WHERE id = ?1 AND finished_at IS NULL",
            params![run_id, ts_text(now)],
        )?;
        if finished == 0 {
            return Ok(None);
        }
        let record = RescreenRun {
            screened: screened as u64,
            changed: changed as u64,
            alerts: alerts as u64,
            ..run.clone()
        };
        let id = insert_run(&tx, &record)?;
        tx.execute(
            "UPDATE rescreen_chunk_runs SET rescreen_run_id = ?2 WHERE id = ?1",
            params![run_id, id],
        )?;
        tx.commit()?;
        Ok(Some(id))
    }

    /// A run and its progress at `now`.
    pub fn rescreen_chunk_run(
        &self,
        run_id: i64,
        now: Timestamp,
    ) -> Result<Option<ChunkRunState>, StoreError> {
        let sql = state_sql("?1", "WHERE r.id = ?2");
        let row = self
            .conn
            .query_row(&sql, params![ts_text(now), run_id], state_row)
            .optional()?;
        row.map(|(id, [scope, reason], [started, finished], counts)| {
            let started = started.unwrap_or_default();
            state_from((id, scope, reason), (started, finished), counts)
        })
        .transpose()
    }

    /// The runs not finished yet, oldest first (at most `limit`).
    pub fn open_rescreen_chunk_runs(
        &self,
        now: Timestamp,
        limit: usize,
    ) -> Result<Vec<ChunkRunState>, StoreError> {
        let sql = state_sql("?1", "WHERE r.finished_at IS NULL ORDER BY r.id LIMIT ?2");
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map(params![ts_text(now), limit as i64], state_row)?;
        rows.map(|row| {
            let (id, [scope, reason], [started, finished], counts) = row?;
            state_from(
                (id, scope, reason),
                (started.unwrap_or_default(), finished),
                counts,
            )
        })
        .collect()
    }
}

/// Creates a run of `start.scope` with its chunks; returns its id.
fn create_run(
    tx: &rusqlite::Transaction<'_>,
    start: &ChunkRunStart<'_>,
) -> Result<i64, StoreError> {
    let scope = (start.scope != EVERY_ACCOUNT).then_some(start.scope);
    let offset = start.chunk_size.clamp(1, MAX_CHUNK) as i64 - 1;
    let ranges = bounds(|after| {
        let (filter, values) = chunk_filter("account_id", "id", scope, (after, None));
        let mut next = tx.prepare_cached(&bound_query(&filter, offset))?;
        Ok(next
            .query_row(rusqlite::params_from_iter(values.iter()), |r| r.get(0))
            .optional()?)
    })?;
    // The last bounded chunk may end at the last favorite: the unbounded one after it is
    // then empty, and still screens what is added meanwhile.
    tx.execute(
        "INSERT INTO rescreen_chunk_runs (scope, reason, started_at, chunks) VALUES (?1, ?2, ?3, ?4)",
        params![start.scope, start.reason, ts_text(start.now), ranges.len() as i64],
    )?;
    let id = tx.last_insert_rowid();
    let mut insert = tx.prepare_cached(
        "INSERT INTO rescreen_chunks (run_id, seq, after_id, last_id) VALUES (?1, ?2, ?3, ?4)",
    )?;
    for (seq, (after, last)) in ranges.iter().enumerate() {
        insert.execute(params![id, seq as i64, after, last])?;
    }
    Ok(id)
}

/// The query of a chunk's favorites in id order (`filter`: [`chunk_filter`] on `f.id`).
fn favorites_query(filter: &str) -> String {
    let columns = crate::favorites::WATCHED_COLUMNS;
    format!("SELECT {columns} FROM favorites f {filter} ORDER BY f.id")
}

/// The query of a chunk's favorites' matches (`filter`: [`chunk_filter`] on
/// `m.favorite_id`).
fn matches_query(filter: &str) -> String {
    format!(
        "SELECT m.favorite_id, m.entity_id, m.score FROM favorite_matches m
         JOIN favorites f ON f.id = m.favorite_id {filter}"
    )
}

/// The query of the last id of the chunk that starts after `filter`'s bound, `offset + 1`
/// favorites on: read from the index of an account's favorites by id alone.
fn bound_query(filter: &str, offset: i64) -> String {
    format!("SELECT id FROM favorites {filter} ORDER BY id LIMIT 1 OFFSET {offset}")
}

/// The `WHERE` clause of a chunk's favorites naming only the conditions that apply (SQLite
/// does not use the id index through `?2 IS NULL OR id > ?2`), and its values in order.
fn chunk_filter<'a>(
    account_col: &str,
    id_col: &str,
    scope: Option<&'a str>,
    (after, last): (Option<&'a str>, Option<&'a str>),
) -> (String, Vec<&'a str>) {
    let mut conditions = Vec::new();
    let mut values = Vec::new();
    for (value, condition) in [
        (scope, format!("{account_col} = ?")),
        (after, format!("{id_col} > ?")),
        (last, format!("{id_col} <= ?")),
    ] {
        if let Some(value) = value {
            conditions.push(condition);
            values.push(value);
        }
    }
    match conditions.is_empty() {
        true => (String::new(), values),
        false => (format!("WHERE {}", conditions.join(" AND ")), values),
    }
}

/// Whether every favorite of `updates` still exists and matches what the chunk read.
fn still_current(
    tx: &rusqlite::Transaction<'_>,
    updates: &[FavoriteUpdate],
) -> Result<bool, StoreError> {
    let mut exists = tx.prepare_cached("SELECT EXISTS (SELECT 1 FROM favorites WHERE id = ?1)")?;
    let mut matches =
        tx.prepare_cached("SELECT entity_id FROM favorite_matches WHERE favorite_id = ?1")?;
    for u in updates {
        if !exists.query_row([&u.favorite_id], |r| r.get::<_, bool>(0))? {
            return Ok(false);
        }
        let now: BTreeSet<String> = matches
            .query_map([&u.favorite_id], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        let read = before(u);
        if now.len() != read.len() || now.iter().any(|e| !read.contains(e.as_str())) {
            return Ok(false);
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The steps of `sql`'s query plan with `values`.
    fn plan(store: &Store, sql: &str, values: &[&str]) -> Vec<String> {
        store.query_plan(sql, rusqlite::params_from_iter(values.iter()))
    }

    /// A run's chunk bounds and a chunk's favorites and matches, for one account or every
    /// one, are read by a range of an index by id: the bounds from the index alone, and
    /// never every favorite of the account (which made a run's reads grow with the square of
    /// the watchlist).
    #[test]
    fn chunks_are_read_by_a_range_of_ids() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open(&dir.path().join("s.db")).expect("store");
        let ranges = [
            (Some("acct_a"), None, None),
            (Some("acct_a"), Some("fav_1"), Some("fav_5")),
            (None, Some("fav_1"), Some("fav_5")),
        ];
        for (scope, after, last) in ranges {
            let (filter, values) = chunk_filter("account_id", "id", scope, (after, None));
            let bound = plan(&store, &bound_query(&filter, 9), &values);
            assert!(
                bound.iter().all(|step| step.contains("COVERING INDEX")),
                "{scope:?} {after:?}: {bound:?}"
            );
            let (filter, values) = chunk_filter("f.account_id", "f.id", scope, (after, last));
            let (m_filter, m_values) =
                chunk_filter("f.account_id", "m.favorite_id", scope, (after, last));
            let reads = [
                plan(&store, &favorites_query(&filter), &values),
                plan(&store, &matches_query(&m_filter), &m_values),
            ];
            for steps in reads {
                let ranged = |step: &String| {
                    !step.contains("TEMP B-TREE")
                        && (scope.is_none()
                            || step.contains("favorites_by_account")
                            || step.contains("PRIMARY KEY"))
                };
                assert!(steps.iter().all(ranged), "{scope:?} {after:?}: {steps:?}");
            }
        }
    }
}
