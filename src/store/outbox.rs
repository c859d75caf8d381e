//! The outbox: events for the webhook worker, written in the transaction of their cause.
//! (`list.updated` events are written by a trigger on `list_updates`; see the schema.)

use rusqlite::{Transaction, params};

use super::codec::{parse_ts, to_json, ts_text};
use super::{Store, StoreError};
use crate::model::OutboxEvent;

impl Store {
    /// Events with a sequence number above `after`, oldest first, at most `limit`, with
    /// their sequence numbers.
    pub fn events_after(
        &self,
        after: i64,
        limit: usize,
    ) -> Result<Vec<(i64, OutboxEvent)>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT seq, event_id, kind, created_at, payload FROM outbox
             WHERE seq > ?1 ORDER BY seq LIMIT ?2",
        )?;
        let rows = stmt.query_map(params![after, limit as i64], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
            ))
        })?;
        rows.map(|row| {
            let (seq, event_id, kind, created_at, payload) = row?;
            Ok((
                seq,
                OutboxEvent {
                    created_at: parse_ts(&created_at, &event_id)?,
                    payload: super::codec::from_json(&payload, &event_id)?,
                    event_id,
                    kind,
                },
            ))
        })
        .collect()
    }
}

pub(crate) fn insert_event(tx: &Transaction<'_>, e: &OutboxEvent) -> Result<(), StoreError> {
    tx.prepare_cached(
        "INSERT INTO outbox (event_id, kind, created_at, payload) VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![
        e.event_id,
        e.kind,
        ts_text(e.created_at),
        to_json(&e.payload, &e.event_id)?
    ])?;
    Ok(())
}
