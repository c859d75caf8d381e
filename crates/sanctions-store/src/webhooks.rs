//! Webhook subscriptions, their per-event deliveries and the log of delivery attempts.
//!
//! A webhook's `cursor` is the last outbox sequence number handed to it: [`Store::fan_out`]
//! turns newer outbox events of the kinds it wants into pending deliveries and moves the
//! cursor in the same transaction, so a process stopped at any moment neither loses nor
//! duplicates a delivery. Deliveries stay pending until an attempt succeeds or the retry
//! schedule is exhausted.

use jiff::Timestamp;
use rusqlite::{OptionalExtension, Row, Transaction, params};

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
             SELECT w.id, o.seq, 'pending', ?1 FROM webhooks w CROSS JOIN outbox o ON o.seq > w.cursor
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
    /// pending for an active webhook not in `claim.skip`, due, and unclaimed or with an
    /// expired lease, the earliest due first (webhook by webhook, the one with the earliest
    /// due delivery first). One write transaction, so two workers (in any processes) never
    /// hold the same delivery at once; a worker that dies loses its lease when it expires.
    pub fn claim_deliveries(
        &mut self,
        claim: &DeliveryClaim<'_>,
        limit: usize,
    ) -> Result<Vec<DueDelivery>, StoreError> {
        let tx = self.write()?;
        let mut claimed = Vec::new();
        for webhook_id in claimable_webhooks(&tx, claim.skip)? {
            let left = limit.saturating_sub(claimed.len());
            if left == 0 {
                break;
            }
            claimed.extend(claim_for(&tx, claim, &webhook_id, left)?);
        }
        let out = claimed_deliveries(&tx, claimed)?;
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

    /// Records what a worker did with the deliveries it claimed, in one transaction: each
    /// attempt logged and its outcome applied, each delivery released unattempted set due
    /// again. A delivery changes only while `owner` still holds its claim: a worker whose
    /// lease ran out and was taken over logs its attempt but leaves the delivery to the new
    /// holder. An outcome that disables a webhook still active stores its alert (with the
    /// `alert.created` event). Returns how many claims were no longer held.
    pub fn record_deliveries(
        &mut self,
        owner: &str,
        records: &[DeliveryRecord],
    ) -> Result<usize, StoreError> {
        let tx = self.write()?;
        let mut lost = 0;
        for record in records {
            let held = match record {
                DeliveryRecord::Attempted {
                    attempt,
                    seq,
                    outcome,
                    alert,
                } => record_attempted(&tx, owner, attempt, *seq, outcome, alert.as_deref())?,
                DeliveryRecord::Released {
                    webhook_id,
                    seq,
                    due,
                } => release(&tx, owner, webhook_id, *seq, *due)?,
            };
            lost += usize::from(!held);
        }
        tx.commit()?;
        Ok(lost)
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
    /// Webhooks not to claim for (those the worker is still busy with).
    pub skip: &'a [String],
}

/// What a worker did with one delivery it claimed ([`Store::record_deliveries`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeliveryRecord {
    /// An attempt was made: logged, and its outcome applied to the delivery (`seq`; none
    /// for a `test`, which has only the log). `alert` says that the outcome disabled the
    /// webhook.
    Attempted {
        attempt: AttemptRecord,
        seq: Option<i64>,
        outcome: DeliveryOutcome,
        alert: Option<Box<Alert>>,
    },
    /// Not attempted (the endpoint is failing, or the worker is stopping): the claim is
    /// freed and the delivery is due again at `due`, its attempts unchanged.
    Released {
        webhook_id: String,
        seq: i64,
        due: Timestamp,
    },
}

/// The active webhooks not in `skip` that have a pending delivery, the one with the
/// earliest due first.
fn claimable_webhooks(tx: &Transaction<'_>, skip: &[String]) -> Result<Vec<String>, StoreError> {
    let skip = serde_json::Value::from(skip.to_vec()).to_string();
    let ids = tx
        .prepare_cached(
            "SELECT w.id FROM webhooks w
             WHERE w.active = 1 AND w.id NOT IN (SELECT value FROM json_each(?1))
               AND EXISTS (SELECT 1 FROM webhook_deliveries d
                           INDEXED BY webhook_deliveries_pending
                           WHERE d.webhook_id = w.id AND d.status = 'pending')
             ORDER BY (SELECT min(next_attempt_at) FROM webhook_deliveries d
                       INDEXED BY webhook_deliveries_pending
                       WHERE d.webhook_id = w.id AND d.status = 'pending'), w.id",
        )?
        .query_map([skip], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    Ok(ids)
}

/// Claims up to `limit` due deliveries of one webhook, the earliest due first (through the
/// index of its pending deliveries by due time: the others' are never scanned).
fn claim_for(
    tx: &Transaction<'_>,
    claim: &DeliveryClaim<'_>,
    webhook_id: &str,
    limit: usize,
) -> Result<Vec<(String, i64, i64)>, StoreError> {
    let claimed = tx
        .prepare_cached(
            "UPDATE webhook_deliveries SET claimed_by = ?1, lease_until = ?2
             WHERE webhook_id = ?5 AND event_seq IN (
                 SELECT d.event_seq FROM webhook_deliveries d INDEXED BY webhook_deliveries_pending
                 WHERE d.webhook_id = ?5 AND d.status = 'pending' AND d.next_attempt_at <= ?3
                   AND (d.lease_until IS NULL OR d.lease_until <= ?3)
                 ORDER BY d.next_attempt_at, d.event_seq LIMIT ?4)
             RETURNING webhook_id, event_seq, attempts",
        )?
        .query_map(
            params![
                claim.owner,
                ts_text(claim.until),
                ts_text(claim.now),
                limit as i64,
                webhook_id
            ],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )?
        .collect::<Result<_, _>>()?;
    Ok(claimed)
}

/// Logs `attempt` and applies `outcome` to delivery `seq` if `owner` holds it; whether it
/// did (a test, with no delivery, always does).
fn record_attempted(
    tx: &Transaction<'_>,
    owner: &str,
    attempt: &AttemptRecord,
    seq: Option<i64>,
    outcome: &DeliveryOutcome,
    alert: Option<&Alert>,
) -> Result<bool, StoreError> {
    tx.prepare_cached(
        "INSERT INTO webhook_attempts (webhook_id, event_id, kind, attempt, at, status_code,
             latency_ms, error, response) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?
    .execute(params![
        attempt.webhook_id,
        attempt.event_id,
        attempt.kind,
        attempt.attempt,
        ts_text(attempt.at),
        attempt.status_code,
        attempt.latency_ms as i64,
        attempt.error,
        attempt.response
    ])?;
    let held = match seq {
        Some(seq) => apply_outcome(tx, owner, &attempt.webhook_id, seq, outcome)?,
        None => true,
    };
    if held && let DeliveryOutcome::Disable(reason) = outcome {
        disable(tx, attempt, reason, alert)?;
    }
    Ok(held)
}

/// The outcome of an attempt on a delivery `owner` holds; false when it holds it no more.
fn apply_outcome(
    tx: &Transaction<'_>,
    owner: &str,
    webhook_id: &str,
    seq: i64,
    outcome: &DeliveryOutcome,
) -> Result<bool, StoreError> {
    let (status, next) = match outcome {
        DeliveryOutcome::Delivered => ("delivered", None),
        DeliveryOutcome::Failed => ("failed", None),
        DeliveryOutcome::Retry(at) => ("pending", Some(ts_text(*at))),
        DeliveryOutcome::Disable(_) => ("pending", None),
    };
    let n = tx
        .prepare_cached(
            "UPDATE webhook_deliveries SET attempts = attempts + 1, status = ?4,
                 next_attempt_at = coalesce(?5, next_attempt_at),
                 claimed_by = NULL, lease_until = NULL
             WHERE webhook_id = ?1 AND event_seq = ?2 AND claimed_by = ?3
               AND status = 'pending'",
        )?
        .execute(params![webhook_id, seq, owner, status, next])?;
    Ok(n == 1)
}

/// Frees a claim `owner` holds without an attempt, due again at `due`.
fn release(
    tx: &Transaction<'_>,
    owner: &str,
    webhook_id: &str,
    seq: i64,
    due: Timestamp,
) -> Result<bool, StoreError> {
    let n = tx
        .prepare_cached(
            "UPDATE webhook_deliveries SET next_attempt_at = ?4, claimed_by = NULL,
                 lease_until = NULL
             WHERE webhook_id = ?1 AND event_seq = ?2 AND claimed_by = ?3
               AND status = 'pending'",
        )?
        .execute(params![webhook_id, seq, owner, ts_text(due)])?;
    Ok(n == 1)
}

/// Disables the webhook of `attempt`; only the attempt that disabled it stores `alert`
/// (two deliveries may fail together).
fn disable(
    tx: &Transaction<'_>,
    attempt: &AttemptRecord,
    reason: &str,
    alert: Option<&Alert>,
) -> Result<(), StoreError> {
    let disabled = tx.execute(
        "UPDATE webhooks SET active = 0, disabled_reason = ?2, updated_at = ?3
         WHERE id = ?1 AND active = 1",
        params![attempt.webhook_id, reason, ts_text(attempt.at)],
    )?;
    if disabled == 1
        && let Some(alert) = alert
    {
        let owner: String = tx.query_row(
            "SELECT account_id FROM webhooks WHERE id = ?1",
            [&attempt.webhook_id],
            |r| r.get(0),
        )?;
        super::alerts::insert_alert(tx, alert, Some(&owner))?;
    }
    Ok(())
}

/// The claimed (webhook id, seq, attempts) with their events and webhooks, read in the
/// claim's transaction (each webhook once).
fn claimed_deliveries(
    tx: &Transaction<'_>,
    claimed: Vec<(String, i64, i64)>,
) -> Result<Vec<DueDelivery>, StoreError> {
    let mut webhooks: std::collections::HashMap<String, WebhookRecord> = Default::default();
    let mut event =
        tx.prepare_cached("SELECT event_id, kind, created_at, payload FROM outbox WHERE seq = ?1")?;
    let mut out = Vec::with_capacity(claimed.len());
    for (webhook_id, seq, attempts) in claimed {
        if !webhooks.contains_key(&webhook_id) {
            let raw = tx
                .query_row(
                    &format!("SELECT {COLUMNS} FROM webhooks WHERE id = ?1"),
                    [&webhook_id],
                    webhook_row,
                )
                .optional()?;
            let Some(raw) = raw else { continue };
            webhooks.insert(webhook_id.clone(), webhook_from(raw)?);
        }
        let Some(webhook) = webhooks.get(&webhook_id) else {
            continue;
        };
        let row = event
            .query_row([seq], |r| {
                Ok((
                    webhook_id.clone(),
                    seq,
                    attempts,
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                ))
            })
            .optional()?;
        if let Some(row) = row {
            out.push(due_from(webhook.clone(), row)?);
        }
    }
    out.sort_by_key(|d| d.seq);
    Ok(out)
}

/// (webhook id, seq, attempts, event id, kind, created at, payload).
type DueRow = (String, i64, i64, String, String, String, String);

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
                  + (SELECT count(*) FROM webhooks w CROSS JOIN outbox o ON o.seq > w.cursor
                     WHERE w.active = 1 AND o.kind IN (SELECT value FROM json_each(w.events))
                       AND (o.account_id IS NULL OR o.account_id = w.account_id))",
            [],
            |r| r.get(0),
        )?;
        Ok(n.max(0) as u64)
    }
}
