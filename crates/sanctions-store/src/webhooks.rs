//! Webhook subscriptions, their per-event deliveries and the log of delivery attempts.
//!
//! A webhook's `cursor` is the last outbox sequence number handed to it: [`Store::fan_out`]
//! turns newer outbox events of the kinds it wants into pending deliveries and moves the
//! cursor in the same transaction, so a process stopped at any moment neither loses nor
//! duplicates a delivery. Deliveries stay pending until an attempt succeeds or the retry
//! schedule is exhausted.

use jiff::Timestamp;
use rusqlite::{OptionalExtension, Row, params};

use super::codec::{from_json, parse_ts, to_json, ts_text};
use super::{Store, StoreError};
use crate::model::{Alert, OutboxEvent};

/// Most webhooks one account may register.
pub const MAX_WEBHOOKS: usize = 20;

/// A registered webhook. `secret` is the signing secret (`whsec_...`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookRecord {
    pub id: String,
    pub url: String,
    pub events: Vec<String>,
    pub description: Option<String>,
    pub secret: String,
    pub active: bool,
    pub disabled_reason: Option<String>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// A delivery whose next attempt is due.
#[derive(Debug, Clone)]
pub struct DueDelivery {
    pub webhook: WebhookRecord,
    pub seq: i64,
    /// Attempts made so far.
    pub attempts: u32,
    pub event: OutboxEvent,
}

/// One logged delivery attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttemptRecord {
    pub webhook_id: String,
    pub event_id: String,
    pub kind: String,
    /// 1 for the first attempt of this event to this webhook (0 for a `test`).
    pub attempt: u32,
    pub at: Timestamp,
    pub status_code: Option<u16>,
    pub latency_ms: u64,
    pub error: Option<String>,
    /// The start of the response body, for diagnosis.
    pub response: Option<String>,
}

/// What an attempt means for its delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeliveryOutcome {
    Delivered,
    /// Try again at this time.
    Retry(Timestamp),
    /// The schedule is exhausted: give up on this event.
    Failed,
    /// The endpoint asked to be forgotten (410) or keeps failing: disable the webhook.
    Disable(String),
}

const COLUMNS: &str =
    "id, url, events, description, secret, active, disabled_reason, created_at, updated_at";

fn webhook_row(r: &Row<'_>) -> rusqlite::Result<[Option<String>; 9]> {
    Ok([
        r.get(0)?,
        r.get(1)?,
        r.get(2)?,
        r.get(3)?,
        r.get(4)?,
        r.get::<_, i64>(5).map(|a| Some(a.to_string()))?,
        r.get(6)?,
        r.get(7)?,
        r.get(8)?,
    ])
}

fn webhook_from(raw: [Option<String>; 9]) -> Result<WebhookRecord, StoreError> {
    let [
        id,
        url,
        events,
        description,
        secret,
        active,
        disabled_reason,
        created,
        updated,
    ] = raw;
    let id = id.unwrap_or_default();
    Ok(WebhookRecord {
        url: url.unwrap_or_default(),
        events: from_json(events.as_deref().unwrap_or("[]"), &id)?,
        description,
        secret: secret.unwrap_or_default(),
        active: active.as_deref() == Some("1"),
        disabled_reason,
        created_at: parse_ts(created.as_deref().unwrap_or_default(), &id)?,
        updated_at: parse_ts(updated.as_deref().unwrap_or_default(), &id)?,
        id,
    })
}

impl Store {
    /// Registers a webhook; it receives the events written from now on. Refused beyond
    /// [`MAX_WEBHOOKS`].
    pub fn insert_webhook(&mut self, account: &str, w: &WebhookRecord) -> Result<(), StoreError> {
        let tx = self.write()?;
        let count: i64 = tx.query_row(
            "SELECT count(*) FROM webhooks WHERE account_id = ?1",
            [account],
            |r| r.get(0),
        )?;
        if count as usize >= MAX_WEBHOOKS {
            return Err(StoreError::Refused(format!(
                "at most {MAX_WEBHOOKS} webhooks may be registered; delete one first"
            )));
        }
        tx.execute(
            &format!(
                "INSERT INTO webhooks ({COLUMNS}, account_id, cursor)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10,
                         (SELECT coalesce(max(seq), 0) FROM outbox))"
            ),
            params![
                w.id,
                w.url,
                to_json(&w.events, &w.id)?,
                w.description,
                w.secret,
                w.active,
                w.disabled_reason,
                ts_text(w.created_at),
                ts_text(w.updated_at),
                account
            ],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Every webhook of `account`, oldest first.
    pub fn webhooks(&self, account: &str) -> Result<Vec<WebhookRecord>, StoreError> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT {COLUMNS} FROM webhooks WHERE account_id = ?1 ORDER BY created_at, id"
        ))?;
        let rows = stmt.query_map([account], webhook_row)?;
        rows.map(|r| webhook_from(r?)).collect()
    }

    /// One webhook.
    pub fn webhook(&self, account: &str, id: &str) -> Result<Option<WebhookRecord>, StoreError> {
        let raw = self
            .conn
            .query_row(
                &format!("SELECT {COLUMNS} FROM webhooks WHERE id = ?1 AND account_id = ?2"),
                [id, account],
                webhook_row,
            )
            .optional()?;
        raw.map(webhook_from).transpose()
    }

    /// One webhook, whoever's it is (the delivery worker, which serves every account).
    fn webhook_of_any_account(&self, id: &str) -> Result<Option<WebhookRecord>, StoreError> {
        let raw = self
            .conn
            .query_row(
                &format!("SELECT {COLUMNS} FROM webhooks WHERE id = ?1"),
                [id],
                webhook_row,
            )
            .optional()?;
        raw.map(webhook_from).transpose()
    }

    /// Saves a changed webhook (url, events, description, active, disabled reason).
    pub fn update_webhook(&mut self, account: &str, w: &WebhookRecord) -> Result<(), StoreError> {
        let tx = self.write()?;
        let n = tx.execute(
            "UPDATE webhooks SET url = ?2, events = ?3, description = ?4, active = ?5,
                 disabled_reason = ?6, updated_at = ?7 WHERE id = ?1 AND account_id = ?8",
            params![
                w.id,
                w.url,
                to_json(&w.events, &w.id)?,
                w.description,
                w.active,
                w.disabled_reason,
                ts_text(w.updated_at),
                account
            ],
        )?;
        if n == 0 {
            return Err(not_found(&w.id));
        }
        tx.commit()?;
        Ok(())
    }

    /// Deletes a webhook and its pending deliveries (its attempt log is kept).
    pub fn delete_webhook(&mut self, account: &str, id: &str) -> Result<(), StoreError> {
        let tx = self.write()?;
        if tx.execute(
            "DELETE FROM webhooks WHERE id = ?1 AND account_id = ?2",
            [id, account],
        )? == 0
        {
            return Err(not_found(id));
        }
        tx.commit()?;
        Ok(())
    }

    /// Hands the outbox events newer than each active webhook's cursor, of the kinds it
    /// wants, to it as pending deliveries due `now`. Returns how many were created.
    pub fn fan_out(&mut self, now: Timestamp) -> Result<usize, StoreError> {
        let tx = self.write()?;
        let created = tx.execute(
            "INSERT OR IGNORE INTO webhook_deliveries (webhook_id, event_seq, status, next_attempt_at)
             SELECT w.id, o.seq, 'pending', ?1 FROM webhooks w JOIN outbox o ON o.seq > w.cursor
             WHERE w.active = 1 AND o.kind IN (SELECT value FROM json_each(w.events))
               AND (o.account_id IS NULL OR o.account_id = w.account_id)",
            [ts_text(now)],
        )?;
        tx.execute(
            "UPDATE webhooks SET cursor = (SELECT coalesce(max(seq), 0) FROM outbox)
             WHERE active = 1",
            [],
        )?;
        tx.commit()?;
        Ok(created)
    }

    /// Claims up to `limit` due deliveries for `claim.owner` until `claim.until`: those
    /// pending for an active webhook, due, and unclaimed or with an expired lease. One
    /// UPDATE in one write transaction, so two workers (in any processes) never hold the
    /// same delivery at once; a worker that dies loses its lease when it expires.
    pub fn claim_deliveries(
        &mut self,
        claim: &DeliveryClaim<'_>,
        limit: usize,
    ) -> Result<Vec<DueDelivery>, StoreError> {
        let tx = self.write()?;
        let (now, until) = (ts_text(claim.now), ts_text(claim.until));
        tx.execute(
            "UPDATE webhook_deliveries SET claimed_by = ?1, lease_until = ?2
             WHERE (webhook_id, event_seq) IN (
                 SELECT d.webhook_id, d.event_seq FROM webhook_deliveries d
                 JOIN webhooks w ON w.id = d.webhook_id
                 WHERE d.status = 'pending' AND w.active = 1 AND d.next_attempt_at <= ?3
                   AND (d.lease_until IS NULL OR d.lease_until <= ?3)
                 ORDER BY d.event_seq LIMIT ?4)",
            params![claim.owner, until, now, limit as i64],
        )?;
        let due = {
            let mut stmt = tx.prepare(
                "SELECT d.webhook_id, d.event_seq, d.attempts, o.event_id, o.kind, o.created_at,
                        o.payload
                 FROM webhook_deliveries d JOIN outbox o ON o.seq = d.event_seq
                 WHERE d.status = 'pending' AND d.claimed_by = ?1 AND d.lease_until = ?2
                 ORDER BY d.event_seq",
            )?;
            let rows = stmt.query_map(params![claim.owner, until], due_row)?;
            let rows: Vec<DueRow> = rows.collect::<Result<_, _>>()?;
            rows
        };
        let mut out = Vec::with_capacity(due.len());
        for row in due {
            let webhook = tx
                .query_row(
                    &format!("SELECT {COLUMNS} FROM webhooks WHERE id = ?1"),
                    [&row.0],
                    webhook_row,
                )
                .optional()?;
            if let Some(webhook) = webhook {
                out.push(due_from(webhook_from(webhook)?, row)?);
            }
        }
        tx.commit()?;
        Ok(out)
    }

    /// Pending deliveries due at `now`, oldest event first, at most `limit`.
    pub fn due_deliveries(
        &self,
        now: Timestamp,
        limit: usize,
    ) -> Result<Vec<DueDelivery>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT d.webhook_id, d.event_seq, d.attempts, o.event_id, o.kind, o.created_at, o.payload
             FROM webhook_deliveries d JOIN outbox o ON o.seq = d.event_seq
             JOIN webhooks w ON w.id = d.webhook_id
             WHERE d.status = 'pending' AND w.active = 1 AND d.next_attempt_at <= ?1
             ORDER BY d.event_seq LIMIT ?2",
        )?;
        let rows = stmt.query_map(params![ts_text(now), limit as i64], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, i64>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, String>(5)?,
                r.get::<_, String>(6)?,
            ))
        })?;
        let mut due = Vec::new();
        for row in rows {
            let (webhook_id, seq, attempts, event_id, kind, created_at, payload) = row?;
            let Some(webhook) = self.webhook_of_any_account(&webhook_id)? else {
                continue;
            };
            due.push(DueDelivery {
                webhook,
                seq,
                attempts: attempts.max(0) as u32,
                event: OutboxEvent {
                    created_at: parse_ts(&created_at, &event_id)?,
                    payload: from_json(&payload, &event_id)?,
                    event_id,
                    kind,
                },
            });
        }
        Ok(due)
    }

    /// Logs an attempt and applies its outcome to the delivery (`seq`, or none for a test),
    /// in one transaction. An outcome that disables a webhook still active stores `alert`
    /// (saying so) with its `alert.created` event in the same transaction.
    pub fn record_attempt(
        &mut self,
        attempt: &AttemptRecord,
        seq: Option<i64>,
        outcome: &DeliveryOutcome,
        alert: Option<&Alert>,
    ) -> Result<(), StoreError> {
        let tx = self.write()?;
        tx.execute(
            "INSERT INTO webhook_attempts (webhook_id, event_id, kind, attempt, at, status_code,
                 latency_ms, error, response) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                attempt.webhook_id,
                attempt.event_id,
                attempt.kind,
                attempt.attempt,
                ts_text(attempt.at),
                attempt.status_code,
                attempt.latency_ms as i64,
                attempt.error,
                attempt.response
            ],
        )?;
        if let Some(seq) = seq {
            let key = params![attempt.webhook_id, seq];
            let set = |sql: &str| {
                tx.execute(
                    &format!(
                        "UPDATE webhook_deliveries SET attempts = attempts + 1, {sql},
                             claimed_by = NULL, lease_until = NULL
                         WHERE webhook_id = ?1 AND event_seq = ?2"
                    ),
                    key,
                )
            };
            match outcome {
                DeliveryOutcome::Delivered => set("status = 'delivered'")?,
                DeliveryOutcome::Failed => set("status = 'failed'")?,
                DeliveryOutcome::Retry(at) => {
                    set(&format!("next_attempt_at = '{}'", ts_text(*at)))?
                }
                DeliveryOutcome::Disable(_) => set("next_attempt_at = next_attempt_at")?,
            };
        }
        if let DeliveryOutcome::Disable(reason) = outcome {
            let disabled = tx.execute(
                "UPDATE webhooks SET active = 0, disabled_reason = ?2, updated_at = ?3
                 WHERE id = ?1 AND active = 1",
                params![attempt.webhook_id, reason, ts_text(attempt.at)],
            )?;
            // Only the attempt that disabled it alerts (two deliveries may fail together).
            if disabled == 1
                && let Some(alert) = alert
            {
                let owner: String = tx.query_row(
                    "SELECT account_id FROM webhooks WHERE id = ?1",
                    [&attempt.webhook_id],
                    |r| r.get(0),
                )?;
                super::alerts::insert_alert(&tx, alert, Some(&owner))?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// The attempt log of one webhook, newest first, at most `limit`.
    pub fn webhook_attempts(
        &self,
        account: &str,
        webhook_id: &str,
        limit: usize,
    ) -> Result<Vec<AttemptRecord>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT webhook_id, event_id, kind, attempt, at, status_code, latency_ms, error, response
             FROM webhook_attempts WHERE webhook_id = ?1 AND EXISTS (
                 SELECT 1 FROM webhooks w WHERE w.id = ?1 AND w.account_id = ?3)
             ORDER BY id DESC LIMIT ?2",
        )?;
        let rows = stmt.query_map(params![webhook_id, limit as i64, account], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, i64>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, Option<i64>>(5)?,
                r.get::<_, i64>(6)?,
                r.get::<_, Option<String>>(7)?,
                r.get::<_, Option<String>>(8)?,
            ))
        })?;
        rows.map(|row| {
            let (webhook_id, event_id, kind, attempt, at, status, latency, error, response) = row?;
            Ok(AttemptRecord {
                at: parse_ts(&at, &event_id)?,
                webhook_id,
                event_id,
                kind,
                attempt: attempt.max(0) as u32,
                status_code: status.and_then(|s| u16::try_from(s).ok()),
                latency_ms: latency.max(0) as u64,
                error,
                response,
            })
        })
        .collect()
    }

    /// Deliveries of one webhook still pending.
    pub fn pending_deliveries(&self, webhook_id: &str) -> Result<u64, StoreError> {
        let n: i64 = self.conn.query_row(
            "SELECT count(*) FROM webhook_deliveries WHERE webhook_id = ?1 AND status = 'pending'",
            [webhook_id],
            |r| r.get(0),
        )?;
        Ok(n.max(0) as u64)
    }
}

impl Store {
    /// Extends the leases `owner` still holds to `until` (a worker's heartbeat while its
    /// batch runs). Returns how many it holds.
    pub fn renew_claims(&mut self, owner: &str, until: Timestamp) -> Result<usize, StoreError> {
        let tx = self.write()?;
        let n = tx.execute(
            "UPDATE webhook_deliveries SET lease_until = ?2
             WHERE claimed_by = ?1 AND status = 'pending' AND lease_until IS NOT NULL",
            params![owner, ts_text(until)],
        )?;
        tx.commit()?;
        Ok(n)
    }
}

/// Who claims deliveries, and until when the claim holds.
#[derive(Debug, Clone, Copy)]
pub struct DeliveryClaim<'a> {
    /// The worker: unique per process and worker.
    pub owner: &'a str,
    pub now: Timestamp,
    /// The lease's end: longer than an attempt can take.
    pub until: Timestamp,
}

/// (webhook id, seq, attempts, event id, kind, created at, payload).
type DueRow = (String, i64, i64, String, String, String, String);

fn due_row(r: &Row<'_>) -> rusqlite::Result<DueRow> {
    Ok((
        r.get(0)?,
        r.get(1)?,
        r.get(2)?,
        r.get(3)?,
        r.get(4)?,
        r.get(5)?,
        r.get(6)?,
    ))
}

fn due_from(webhook: WebhookRecord, row: DueRow) -> Result<DueDelivery, StoreError> {
    let (_, seq, attempts, event_id, kind, created_at, payload) = row;
    Ok(DueDelivery {
        webhook,
        seq,
        attempts: attempts.max(0) as u32,
        event: OutboxEvent {
            created_at: parse_ts(&created_at, &event_id)?,
            payload: from_json(&payload, &event_id)?,
            event_id,
            kind,
        },
    })
}

fn not_found(id: &str) -> StoreError {
    StoreError::NotFound {
        what: "webhook",
        id: id.to_owned(),
    }
}

impl Store {
    /// When the webhook last accepted an event, or when it was created if never.
    pub fn webhook_last_success(&self, webhook_id: &str) -> Result<Option<Timestamp>, StoreError> {
        let at: Option<String> = self.conn.query_row(
            "SELECT coalesce(
                 (SELECT max(at) FROM webhook_attempts
                  WHERE webhook_id = ?1 AND status_code BETWEEN 200 AND 299),
                 (SELECT created_at FROM webhooks WHERE id = ?1))",
            [webhook_id],
            |r| r.get(0),
        )?;
        at.map(|t| parse_ts(&t, webhook_id)).transpose()
    }
}

impl Store {
    /// Deliveries pending for any active webhook, plus outbox events not yet handed out.
    pub fn pending_total(&self) -> Result<u64, StoreError> {
        let n: i64 = self.conn.query_row(
            "SELECT (SELECT count(*) FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
                     WHERE d.status = 'pending' AND w.active = 1)
                  + (SELECT count(*) FROM webhooks w JOIN outbox o ON o.seq > w.cursor
                     WHERE w.active = 1 AND o.kind IN (SELECT value FROM json_each(w.events))
                       AND (o.account_id IS NULL OR o.account_id = w.account_id))",
            [],
            |r| r.get(0),
        )?;
        Ok(n.max(0) as u64)
    }
}
