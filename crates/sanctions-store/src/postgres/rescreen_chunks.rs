//! Full re-screens in claimed chunks on PostgreSQL (see [`crate::rescreen_chunks`]): a
//! chunk is claimed with `SELECT ... FOR UPDATE SKIP LOCKED` in a short transaction (two
//! instances asking at once take different chunks, neither waits), and committed under the
//! chunk's row lock only while its holder is still the one committing.

use std::collections::{BTreeSet, HashMap};

use jiff::Timestamp;
use postgres::{GenericClient, Row, Transaction};

use super::records::write_changes;
use super::watchlist::{apply_update, claim_alerts, insert_run};
use super::{big, col, db};
use crate::codec::ts_text;
use crate::model::RescreenRun;
use crate::rescreen_chunks::{
    ChunkClaim, ChunkCommit, ChunkDone, ChunkFavorite, ChunkLease, ChunkRunStart, ChunkRunState,
    EVERY_ACCOUNT, MAX_CHUNK, RescreenChunk, before, bounds, state_from, state_sql,
};
use crate::{FavoriteUpdate, StoreError, WATCHLIST_MARKER};

/// The advisory lock under which a run is opened (of two instances, one creates it).
const OPEN_LOCK: i64 = 0x5341_4e43_0003;

fn state(r: &Row) -> Result<ChunkRunState, StoreError> {
    let counts = [5, 6, 7, 8, 9, 10, 11].map(|i| col::<Option<i64>>(r, i));
    let [a, b, c, d, e, f, g] = counts;
    state_from(
        (col(r, 0)?, col(r, 1)?, col(r, 2)?),
        (col(r, 3)?, col(r, 4)?),
        [a?, b?, c?, d?, e?, f?, g?],
    )
}

/// The open run of `start.scope`, or a new one with its chunks.
pub(super) fn open(
    tx: &mut Transaction<'_>,
    start: &ChunkRunStart<'_>,
) -> Result<ChunkRunState, StoreError> {
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&OPEN_LOCK])
        .map_err(db)?;
    let open = tx
        .query_opt(
            "SELECT id FROM rescreen_chunk_runs WHERE scope = $1 AND finished_at IS NULL",
            &[&start.scope],
        )
        .map_err(db)?;
    let id: i64 = match open {
        Some(row) => col(&row, 0)?,
        None => create_run(tx, start)?,
    };
    run(tx, id, start.now)?
        .ok_or_else(|| StoreError::invalid("re-screen run", format!("run {id} vanished")))
}

fn create_run(tx: &mut Transaction<'_>, start: &ChunkRunStart<'_>) -> Result<i64, StoreError> {
    let scope = (start.scope != EVERY_ACCOUNT).then_some(start.scope);
    let offset = big(start.chunk_size.clamp(1, MAX_CHUNK) - 1);
    let ranges = bounds(|after| {
        let row = tx
            .query_opt(
                "SELECT id FROM favorites WHERE ($1::text IS NULL OR account_id = $1)
                     AND ($2::text IS NULL OR id > $2) ORDER BY id LIMIT 1 OFFSET $3",
                &[&scope, &after, &offset],
            )
            .map_err(db)?;
        row.map(|r| col(&r, 0)).transpose()
    })?;
    let row = tx
        .query_one(
            "INSERT INTO rescreen_chunk_runs (scope, reason, started_at, chunks)
             VALUES ($1, $2, $3, $4) RETURNING id",
            &[
                &start.scope,
                &start.reason,
                &ts_text(start.now),
                &big(ranges.len()),
            ],
        )
        .map_err(db)?;
    let id: i64 = col(&row, 0)?;
    for (seq, (after, last)) in ranges.iter().enumerate() {
        tx.execute(
            "INSERT INTO rescreen_chunks (run_id, seq, after_id, last_id) VALUES ($1, $2, $3, $4)",
            &[&id, &big(seq), after, last],
        )
        .map_err(db)?;
    }
    Ok(id)
}

/// Claims the first chunk not done and not held (or whose lease ran out), skipping the
/// chunks another transaction has locked (claiming or committing).
pub(super) fn claim(
    tx: &mut Transaction<'_>,
    lease: &ChunkLease<'_>,
) -> Result<ChunkClaim, StoreError> {
    let claimed = tx
        .query_opt(
            "WITH next AS (
                 SELECT run_id, seq FROM rescreen_chunks
                 WHERE run_id = $1 AND done_at IS NULL AND (holder IS NULL OR lease_until <= $3)
                 ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED)
             UPDATE rescreen_chunks c SET holder = $2, lease_until = $4, claims = c.claims + 1
             FROM next WHERE c.run_id = next.run_id AND c.seq = next.seq
             RETURNING c.seq, c.after_id, c.last_id,
                 (SELECT scope FROM rescreen_chunk_runs WHERE id = $1)",
            &[
                &lease.run_id,
                &lease.owner,
                &ts_text(lease.now),
                &ts_text(lease.until),
            ],
        )
        .map_err(db)?;
    if let Some(r) = claimed {
        return Ok(ChunkClaim::Claimed(RescreenChunk {
            run_id: lease.run_id,
            seq: col(&r, 0)?,
            after: col(&r, 1)?,
            last: col(&r, 2)?,
            scope: col(&r, 3)?,
        }));
    }
    let open = tx
        .query_one(
            "SELECT count(*) FROM rescreen_chunks WHERE run_id = $1 AND done_at IS NULL",
            &[&lease.run_id],
        )
        .map_err(db)?;
    Ok(match col::<i64>(&open, 0)? {
        0 => ChunkClaim::AllDone,
        _ => ChunkClaim::Held,
    })
}

/// Moves the lease of a chunk `owner` holds; false when it no longer does.
pub(super) fn renew(
    tx: &mut Transaction<'_>,
    chunk: &RescreenChunk,
    owner: &str,
    until: Timestamp,
) -> Result<bool, StoreError> {
    let n = tx
        .execute(
            "UPDATE rescreen_chunks SET lease_until = $4
             WHERE run_id = $1 AND seq = $2 AND holder = $3 AND done_at IS NULL",
            &[&chunk.run_id, &chunk.seq, &owner, &ts_text(until)],
        )
        .map_err(db)?;
    Ok(n == 1)
}

/// The favorites of a chunk with their current matches (one snapshot), in id order.
pub(super) fn favorites(
    tx: &mut Transaction<'_>,
    chunk: &RescreenChunk,
) -> Result<Vec<ChunkFavorite>, StoreError> {
    let scope = (chunk.scope != EVERY_ACCOUNT).then_some(chunk.scope.as_str());
    let rows = tx
        .query(
            &format!(
                "SELECT {} FROM favorites f
                 WHERE ($1::text IS NULL OR f.account_id = $1) AND ($2::text IS NULL OR f.id > $2)
                     AND ($3::text IS NULL OR f.id <= $3)
                 ORDER BY f.id",
                crate::favorites::WATCHED_COLUMNS
            ),
            &[&scope, &chunk.after, &chunk.last],
        )
        .map_err(db)?;
    let mut out = Vec::with_capacity(rows.len());
    for r in &rows {
        out.push(ChunkFavorite {
            favorite: super::watchlist::watched_name(r)?,
            matches: Vec::new(),
        });
    }
    let rows = tx
        .query(
            "SELECT m.favorite_id, m.entity_id, m.score FROM favorite_matches m
             JOIN favorites f ON f.id = m.favorite_id
             WHERE ($1::text IS NULL OR f.account_id = $1)
                 AND ($2::text IS NULL OR m.favorite_id > $2)
                 AND ($3::text IS NULL OR m.favorite_id <= $3)",
            &[&scope, &chunk.after, &chunk.last],
        )
        .map_err(db)?;
    let mut matches: HashMap<String, Vec<(String, u8)>> = HashMap::new();
    for r in &rows {
        let score: i64 = col(r, 2)?;
        matches
            .entry(col(r, 0)?)
            .or_default()
            .push((col(r, 1)?, u8::try_from(score).unwrap_or(u8::MAX)));
    }
    for f in &mut out {
        f.matches = matches.remove(&f.favorite.id).unwrap_or_default();
    }
    Ok(out)
}

/// Commits a screened chunk with marking it done, under the chunk's row lock, only while
/// `done.owner` holds it; the watchlist marker's row is locked before the favorites are
/// checked (as a compare-and-set run locks it first), so no run records a diff in between.
pub(super) fn commit(
    tx: &mut Transaction<'_>,
    done: &ChunkDone<'_>,
) -> Result<ChunkCommit, StoreError> {
    let chunk = done.chunk;
    let held = tx
        .query_opt(
            "SELECT 1 FROM rescreen_chunks WHERE run_id = $1 AND seq = $2 AND holder = $3
                 AND done_at IS NULL FOR UPDATE",
            &[&chunk.run_id, &chunk.seq, &done.owner],
        )
        .map_err(db)?;
    if held.is_none() {
        return Ok(ChunkCommit::Lost);
    }
    let mut recorded: Vec<String> = Vec::new();
    if !done.updates.is_empty() {
        tx.execute(
            "INSERT INTO service_state (key, value) VALUES ($1, 0) ON CONFLICT (key) DO NOTHING",
            &[&WATCHLIST_MARKER],
        )
        .map_err(db)?;
        let row = tx
            .query_one(
                "SELECT value FROM service_state WHERE key = $1 FOR UPDATE",
                &[&WATCHLIST_MARKER],
            )
            .map_err(db)?;
        let base: i64 = col(&row, 0)?;
        if !still_current(tx, done.updates)? {
            return Ok(ChunkCommit::Stale);
        }
        tx.execute(
            "UPDATE service_state SET value = value + 1 WHERE key = $1",
            &[&WATCHLIST_MARKER],
        )
        .map_err(db)?;
        let changes = claim_alerts(tx, done.changes, base)?;
        recorded = changes.alerts.iter().map(|a| a.id.clone()).collect();
        let at = ts_text(done.at);
        for u in done.updates {
            apply_update(tx, u, &at, None)?;
        }
        write_changes(tx, &changes)?;
    }
    tx.execute(
        "UPDATE rescreen_chunks SET done_at = $3, screened = $4, changed = $5, alerts = $6
         WHERE run_id = $1 AND seq = $2",
        &[
            &chunk.run_id,
            &chunk.seq,
            &ts_text(done.at),
            &big(done.screened),
            &big(done.updates.len()),
            &big(recorded.len()),
        ],
    )
    .map_err(db)?;
    Ok(ChunkCommit::Done(recorded))
}

/// Whether every favorite of `updates` still exists and matches what the chunk read.
fn still_current(tx: &mut Transaction<'_>, updates: &[FavoriteUpdate]) -> Result<bool, StoreError> {
    for u in updates {
        let row = tx
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM favorites WHERE id = $1),
                        coalesce(array_agg(m.entity_id), '{}')
                 FROM favorite_matches m WHERE m.favorite_id = $1",
                &[&u.favorite_id],
            )
            .map_err(db)?;
        let exists: bool = col(&row, 0)?;
        let now: Vec<String> = col(&row, 1)?;
        let now: BTreeSet<&str> = now.iter().map(String::as_str).collect();
        if !exists || now != before(u) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Finishes a run whose every chunk is done, once (see `Store::finish_rescreen_chunks`).
pub(super) fn finish(
    tx: &mut Transaction<'_>,
    run_id: i64,
    run: &RescreenRun,
    now: Timestamp,
) -> Result<Option<i64>, StoreError> {
    let row = tx
        .query_one(
            "SELECT count(*) FILTER (WHERE done_at IS NULL), coalesce(sum(screened), 0)::bigint,
                    coalesce(sum(changed), 0)::bigint, coalesce(sum(alerts), 0)::bigint
             FROM rescreen_chunks WHERE run_id = $1",
            &[&run_id],
        )
        .map_err(db)?;
    let [open, screened, changed, alerts] = [0, 1, 2, 3].map(|i| col::<i64>(&row, i));
    if open? > 0 {
        return Ok(None);
    }
    let finished = tx
        .execute(
            "UPDATE rescreen_chunk_runs SET finished_at = $2 WHERE id = $1 AND finished_at IS NULL",
            &[&run_id, &ts_text(now)],
        )
        .map_err(db)?;
    if finished == 0 {
        return Ok(None);
    }
    let count = |n: Result<i64, StoreError>| n.map(|n| u64::try_from(n).unwrap_or(0));
    let record = RescreenRun {
        screened: count(screened)?,
        changed: count(changed)?,
        alerts: count(alerts)?,
        ..run.clone()
    };
    let id = insert_run(tx, &record)?;
    tx.execute(
        "UPDATE rescreen_chunk_runs SET rescreen_run_id = $2 WHERE id = $1",
        &[&run_id, &id],
    )
    .map_err(db)?;
    Ok(Some(id))
}

/// A run and its progress at `now`.
pub(super) fn run(
    c: &mut impl GenericClient,
    run_id: i64,
    now: Timestamp,
) -> Result<Option<ChunkRunState>, StoreError> {
    let row = c
        .query_opt(
            &state_sql("$1", "WHERE r.id = $2"),
            &[&ts_text(now), &run_id],
        )
        .map_err(db)?;
    row.as_ref().map(state).transpose()
}

/// The runs not finished yet, oldest first.
pub(super) fn open_runs(
    c: &mut impl GenericClient,
    now: Timestamp,
    limit: usize,
) -> Result<Vec<ChunkRunState>, StoreError> {
    let sql = state_sql("$1", "WHERE r.finished_at IS NULL ORDER BY r.id LIMIT $2");
    let rows = c.query(&sql, &[&ts_text(now), &big(limit)]).map_err(db)?;
    rows.iter().map(state).collect()
}
