//! The outbox: events for the webhook worker, written in the transaction of their cause
//! (`list.updated` too, by [`list_updated`] in the transaction that records the update: no
//! trigger writes an event since migration 9).
//!
//! An event is written only when some registered webhook, active or disabled, subscribes to
//! its kind: nothing else reads the outbox, and a webhook starts from the events after its
//! creation (`Store::insert_webhook` sets its cursor), so an event no webhook wants could
//! never be delivered. A disabled webhook keeps its subscription and catches up once
//! enabled again, as before. Without webhooks a matched screening writes no event: its two
//! events (`screening.match`, `alert.created`) were nearly half the bytes it wrote.

use rusqlite::{Transaction, params};

use super::codec::{parse_ts, to_json, ts_text};
use super::{Store, StoreError};
use crate::model::{OutboxEvent, UpdateRecord};

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

/// Whether a registered webhook (active or disabled) subscribes to events of `kind`.
pub(crate) fn wanted(tx: &Transaction<'_>, kind: &str) -> Result<bool, StoreError> {
    Ok(tx
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM webhooks w, json_each(w.events) j WHERE j.value = ?1)",
        )?
        .query_row([kind], |r| r.get(0))?)
}

/// Writes `e` when a webhook wants its kind ([`wanted`]).
pub(crate) fn insert_event(
    tx: &Transaction<'_>,
    e: &OutboxEvent,
    account: Option<&str>,
) -> Result<(), StoreError> {
    if !wanted(tx, &e.kind)? {
        return Ok(());
    }
    write_event(tx, e, account)
}

/// Writes `e`, its kind already known [`wanted`], for `account`, else for the account of the
/// favorite, screening or alert its payload names; an event that belongs to no account is
/// dropped, but `list.updated` (news about the shared lists, for every account).
pub(crate) fn write_event(
    tx: &Transaction<'_>,
    e: &OutboxEvent,
    account: Option<&str>,
) -> Result<(), StoreError> {
    tx.prepare_cached(
        "INSERT INTO outbox (event_id, kind, created_at, payload, account_id)
         SELECT ?1, ?2, ?3, ?4, owner FROM (SELECT coalesce(?5,
             (SELECT account_id FROM favorites WHERE id = json_extract(?4, '$.favorite_id')),
             (SELECT account_id FROM screenings WHERE id = json_extract(?4, '$.screening_id')),
             (SELECT account_id FROM alerts WHERE id = json_extract(?4, '$.alert_id'))) AS owner)
         WHERE owner IS NOT NULL OR ?2 = 'list.updated'",
    )?
    .execute(params![
        e.event_id,
        e.kind,
        ts_text(e.created_at),
        to_json(&e.payload, &e.event_id)?,
        account
    ])?;
    Ok(())
}

/// The `list.updated` event of update `id` (a successful import that changed something),
/// written when a webhook wants it.
pub(crate) fn list_updated(
    tx: &Transaction<'_>,
    record: &UpdateRecord,
    id: i64,
) -> Result<(), StoreError> {
    if record.failed.is_some() || record.added + record.removed + record.changed == 0 {
        return Ok(());
    }
    let event = OutboxEvent {
        event_id: format!("evt_{}", ulid::Ulid::new()),
        kind: "list.updated".to_owned(),
        created_at: parse_ts(&record.at, "list update")?,
        payload: serde_json::json!({
            "list": record.list.code(),
            "update_id": id,
            "added": record.added,
            "removed": record.removed,
            "changed": record.changed,
            "total": record.total,
        }),
    };
    insert_event(tx, &event, None)
}
