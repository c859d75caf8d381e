//! Webhooks on PostgreSQL: subscriptions, deliveries claimed with `FOR UPDATE SKIP LOCKED`
//! and a lease, the attempt log; and risk briefs.
//!
//! A webhook's `cursor` is the last outbox sequence number handed to it. Sequence numbers
//! are taken when a row is inserted but become visible when its transaction commits, so a
//! cursor moved past a number still in flight would skip that event for good. Every
//! transaction that writes an event therefore holds the outbox lock shared, and the
//! fan-out takes it exclusively: it runs when no event is in flight, and the largest
//! number it sees is final.

use jiff::Timestamp;
use postgres::{GenericClient, Row, Transaction};

use super::records::insert_alert;
use super::{OUTBOX_LOCK, big, col, count, db};
use crate::codec::{from_json, parse_ts, to_json, ts_text};
use crate::model::{Alert, OutboxEvent};
use crate::{
    AttemptRecord, BriefFilter, BriefRecord, DeliveryClaim, DeliveryOutcome, DeliveryRecord,
    DueDelivery, MAX_WEBHOOKS, StoreError, WebhookRecord,
};

const COLUMNS: &str =
    "id, url, events, description, secret, active, disabled_reason, created_at, updated_at";

fn webhook_from(row: &Row, at: usize) -> Result<WebhookRecord, StoreError> {
    let id: String = col(row, at)?;
    Ok(WebhookRecord {
        url: col(row, at + 1)?,
        events: from_json(&col::<String>(row, at + 2)?, &id)?,
        description: col(row, at + 3)?,
        secret: col(row, at + 4)?,
        active: col(row, at + 5)?,
        disabled_reason: col(row, at + 6)?,
        created_at: parse_ts(&col::<String>(row, at + 7)?, &id)?,
        updated_at: parse_ts(&col::<String>(row, at + 8)?, &id)?,
        id,
    })
}

fn not_found(id: &str) -> StoreError {
    StoreError::NotFound {
        what: "webhook",
        id: id.to_owned(),
    }
}

/// Registers a webhook (refused beyond [`MAX_WEBHOOKS`] in the account); it receives the
/// events written from now on.
pub(super) fn insert_webhook(
    tx: &mut Transaction<'_>,
    account: &str,
    w: &WebhookRecord,
) -> Result<(), StoreError> {
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&OUTBOX_LOCK])
        .map_err(db)?;
    let row = tx
        .query_one(
            "SELECT count(*) FROM webhooks WHERE account_id = $1",
            &[&account],
        )
        .map_err(db)?;
    if count(col(&row, 0)?) as usize >= MAX_WEBHOOKS {
        return Err(StoreError::Refused(format!(
            "at most {MAX_WEBHOOKS} webhooks may be registered; delete one first"
        )));
    }
    tx.execute(
        &format!(
            "INSERT INTO webhooks ({COLUMNS}, account_id, cursor)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10,
                     (SELECT coalesce(max(seq), 0) FROM outbox))"
        ),
        &[
            &w.id,
            &w.url,
            &to_json(&w.events, &w.id)?,
            &w.description,
            &w.secret,
            &w.active,
            &w.disabled_reason,
            &ts_text(w.created_at),
            &ts_text(w.updated_at),
            &account,
        ],
    )
    .map_err(db)?;
    Ok(())
}

/// The webhooks of `account`, oldest first.
pub(super) fn webhooks(
    c: &mut impl GenericClient,
    account: &str,
) -> Result<Vec<WebhookRecord>, StoreError> {
    let sql =
        format!("SELECT {COLUMNS} FROM webhooks WHERE account_id = $1 ORDER BY created_at, id");
    let rows = c.query(&sql, &[&account]).map_err(db)?;
    rows.iter().map(|r| webhook_from(r, 0)).collect()
}

/// One webhook of `account`.
pub(super) fn webhook(
    c: &mut impl GenericClient,
    account: &str,
    id: &str,
) -> Result<Option<WebhookRecord>, StoreError> {
    let sql = format!("SELECT {COLUMNS} FROM webhooks WHERE id = $1 AND account_id = $2");
    let row = c.query_opt(&sql, &[&id, &account]).map_err(db)?;
    row.map(|r| webhook_from(&r, 0)).transpose()
}

/// Saves a changed webhook of `account`.
pub(super) fn update_webhook(
    tx: &mut Transaction<'_>,
    account: &str,
    w: &WebhookRecord,
) -> Result<(), StoreError> {
    let n = tx
        .execute(
            "UPDATE webhooks SET url = $2, events = $3, description = $4, active = $5,
                 disabled_reason = $6, updated_at = $7 WHERE id = $1 AND account_id = $8",
            &[
                &w.id,
                &w.url,
                &to_json(&w.events, &w.id)?,
                &w.description,
                &w.active,
                &w.disabled_reason,
                &ts_text(w.updated_at),
                &account,
            ],
        )
        .map_err(db)?;
    if n == 0 {
        return Err(not_found(&w.id));
    }
    Ok(())
}

/// Deletes a webhook of `account` and its deliveries (its attempt log is kept).
pub(super) fn delete_webhook(
    tx: &mut Transaction<'_>,
    account: &str,
    id: &str,
) -> Result<(), StoreError> {
    let n = tx
        .execute(
            "DELETE FROM webhooks WHERE id = $1 AND account_id = $2",
            &[&id, &account],
        )
        .map_err(db)?;
    if n == 0 {
        return Err(not_found(id));
    }
    Ok(())
}

/// Pending deliveries of one webhook.
pub(super) fn pending_deliveries(
    c: &mut impl GenericClient,
    webhook_id: &str,
) -> Result<u64, StoreError> {
    let row = c
        .query_one(
            "SELECT count(*) FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'pending'",
            &[&webhook_id],
        )
        .map_err(db)?;
    Ok(count(col(&row, 0)?))
}

/// The condition that outbox event `o` is for webhook `w`.
const FOR_WEBHOOK: &str = "o.seq > w.cursor AND w.active
    AND w.events::jsonb @> jsonb_build_array(o.kind)
    AND (o.account_id IS NULL OR o.account_id = w.account_id)";

/// Pending deliveries of active webhooks plus events not yet handed out.
pub(super) fn pending_total(c: &mut impl GenericClient) -> Result<u64, StoreError> {
    let sql = format!(
        "SELECT (SELECT count(*) FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
                 WHERE d.status = 'pending' AND w.active)
              + (SELECT count(*) FROM webhooks w JOIN outbox o ON {FOR_WEBHOOK})"
    );
    let row = c.query_one(&sql, &[]).map_err(db)?;
    Ok(count(col::<i64>(&row, 0)?))
}

/// Hands new outbox events to the active webhooks that want them, under the outbox lock
/// (see the module's documentation). Returns how many deliveries were created.
pub(super) fn fan_out(tx: &mut Transaction<'_>, now: Timestamp) -> Result<usize, StoreError> {
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&OUTBOX_LOCK])
        .map_err(db)?;
    let sql = format!(
        "INSERT INTO webhook_deliveries (webhook_id, event_seq, status, next_attempt_at)
         SELECT w.id, o.seq, 'pending', $1 FROM webhooks w JOIN outbox o ON {FOR_WEBHOOK}
         ON CONFLICT DO NOTHING"
    );
    let created = tx.execute(&sql, &[&ts_text(now)]).map_err(db)?;
    tx.execute(
        "UPDATE webhooks SET cursor = (SELECT coalesce(max(seq), 0) FROM outbox) WHERE active",
        &[],
    )
    .map_err(db)?;
    Ok(created as usize)
}

const DUE_COLUMNS: &str = "d.event_seq, d.attempts, o.event_id, o.kind, o.created_at, o.payload";

fn due_from(row: &Row) -> Result<DueDelivery, StoreError> {
    let event_id: String = col(row, 2)?;
    Ok(DueDelivery {
        seq: col(row, 0)?,
        attempts: u32::try_from(col::<i64>(row, 1)?).unwrap_or(0),
        event: OutboxEvent {
            kind: col(row, 3)?,
            created_at: parse_ts(&col::<String>(row, 4)?, &event_id)?,
            payload: from_json(&col::<String>(row, 5)?, &event_id)?,
            event_id,
        },
        webhook: webhook_from(row, 6)?,
    })
}

/// Due deliveries (not claimed), oldest event first.
pub(super) fn due_deliveries(
    c: &mut impl GenericClient,
    now: Timestamp,
    limit: usize,
) -> Result<Vec<DueDelivery>, StoreError> {
    let sql = format!(
        "SELECT {DUE_COLUMNS}, {webhook} FROM webhook_deliveries d
         JOIN outbox o ON o.seq = d.event_seq JOIN webhooks w ON w.id = d.webhook_id
         WHERE d.status = 'pending' AND w.active AND d.next_attempt_at <= $1
         ORDER BY d.event_seq LIMIT $2",
        webhook = prefixed("w")
    );
    let rows = c.query(&sql, &[&ts_text(now), &big(limit)]).map_err(db)?;
    rows.iter().map(due_from).collect()
}

/// The webhook columns with a table prefix.
fn prefixed(table: &str) -> String {
    COLUMNS
        .split(", ")
        .map(|c| format!("{table}.{c}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Claims up to `limit` due deliveries for `claim.owner` until `claim.until`: rows another
/// worker is claiming right now are skipped (`SKIP LOCKED`), rows another holds a live
/// lease on are not due, so no delivery is held by two workers at once.
pub(super) fn claim_deliveries(
    tx: &mut Transaction<'_>,
    claim: &DeliveryClaim<'_>,
    limit: usize,
) -> Result<Vec<DueDelivery>, StoreError> {
    let (now, until) = (ts_text(claim.now), ts_text(claim.until));
    tx.execute(
        "WITH due AS (
             SELECT d.webhook_id, d.event_seq FROM webhook_deliveries d
             JOIN webhooks w ON w.id = d.webhook_id
             WHERE d.status = 'pending' AND w.active AND d.next_attempt_at <= $3
               AND (d.lease_until IS NULL OR d.lease_until <= $3)
               AND NOT (d.webhook_id = ANY($5))
             ORDER BY d.event_seq LIMIT $4
             FOR UPDATE OF d SKIP LOCKED)
         UPDATE webhook_deliveries x SET claimed_by = $1, lease_until = $2 FROM due
         WHERE x.webhook_id = due.webhook_id AND x.event_seq = due.event_seq",
        &[&claim.owner, &until, &now, &big(limit), &claim.skip],
    )
    .map_err(db)?;
    let sql = format!(
        "SELECT {DUE_COLUMNS}, {webhook} FROM webhook_deliveries d
         JOIN outbox o ON o.seq = d.event_seq JOIN webhooks w ON w.id = d.webhook_id
         WHERE d.status = 'pending' AND d.claimed_by = $1 AND d.lease_until = $2
         ORDER BY d.event_seq",
        webhook = prefixed("w")
    );
    let rows = tx.query(&sql, &[&claim.owner, &until]).map_err(db)?;
    rows.iter().map(due_from).collect()
}

/// Extends the leases `owner` holds; returns how many.
pub(super) fn renew_claims(
    tx: &mut Transaction<'_>,
    owner: &str,
    until: Timestamp,
) -> Result<usize, StoreError> {
    let n = tx
        .execute(
            "UPDATE webhook_deliveries SET lease_until = $2
             WHERE claimed_by = $1 AND status = 'pending' AND lease_until IS NOT NULL",
            &[&owner, &ts_text(until)],
        )
        .map_err(db)?;
    Ok(n as usize)
}

/// Records a worker's attempts and releases, each only while `owner` holds its claim;
/// returns the claims lost (another worker took them after the lease ran out).
pub(super) fn record_deliveries(
    tx: &mut Transaction<'_>,
    owner: &str,
    records: &[DeliveryRecord],
) -> Result<usize, StoreError> {
    let mut lost = 0;
    for record in records {
        let held = match record {
            DeliveryRecord::Attempted {
                attempt,
                seq,
                outcome,
                alert,
            } => record_attempted(tx, owner, attempt, *seq, outcome, alert.as_deref())?,
            DeliveryRecord::Released {
                webhook_id,
                seq,
                due,
            } => release(tx, owner, webhook_id, *seq, *due)?,
        };
        lost += usize::from(!held);
    }
    Ok(lost)
}

/// Logs an attempt and applies its outcome while `owner` holds the claim.
fn record_attempted(
    tx: &mut Transaction<'_>,
    owner: &str,
    attempt: &AttemptRecord,
    seq: Option<i64>,
    outcome: &DeliveryOutcome,
    alert: Option<&Alert>,
) -> Result<bool, StoreError> {
    tx.execute(
        "INSERT INTO webhook_attempts (webhook_id, event_id, kind, attempt, at, status_code,
             latency_ms, error, response) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        &[
            &attempt.webhook_id,
            &attempt.event_id,
            &attempt.kind,
            &i64::from(attempt.attempt),
            &ts_text(attempt.at),
            &attempt.status_code.map(i64::from),
            &big(attempt.latency_ms),
            &attempt.error,
            &attempt.response,
        ],
    )
    .map_err(db)?;
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
    tx: &mut Transaction<'_>,
    owner: &str,
    webhook_id: &str,
    seq: i64,
    outcome: &DeliveryOutcome,
) -> Result<bool, StoreError> {
    let (status, next): (&str, Option<String>) = match outcome {
        DeliveryOutcome::Delivered => ("delivered", None),
        DeliveryOutcome::Failed => ("failed", None),
        DeliveryOutcome::Retry(at) => ("pending", Some(ts_text(*at))),
        DeliveryOutcome::Disable(_) => ("pending", None),
    };
    let n = tx
        .execute(
            "UPDATE webhook_deliveries SET attempts = attempts + 1, status = $4,
                 next_attempt_at = coalesce($5::text, next_attempt_at),
                 claimed_by = NULL, lease_until = NULL
             WHERE webhook_id = $1 AND event_seq = $2 AND claimed_by = $3
               AND status = 'pending'",
            &[&webhook_id, &seq, &owner, &status, &next],
        )
        .map_err(db)?;
    Ok(n == 1)
}

/// Frees a claim `owner` holds without an attempt, due again at `due`.
fn release(
    tx: &mut Transaction<'_>,
    owner: &str,
    webhook_id: &str,
    seq: i64,
    due: Timestamp,
) -> Result<bool, StoreError> {
    let n = tx
        .execute(
            "UPDATE webhook_deliveries SET next_attempt_at = $4, claimed_by = NULL,
                 lease_until = NULL
             WHERE webhook_id = $1 AND event_seq = $2 AND claimed_by = $3
               AND status = 'pending'",
            &[&webhook_id, &seq, &owner, &ts_text(due)],
        )
        .map_err(db)?;
    Ok(n == 1)
}

/// Disables a webhook still active; only the attempt that disabled it stores `alert`.
fn disable(
    tx: &mut Transaction<'_>,
    attempt: &AttemptRecord,
    reason: &str,
    alert: Option<&Alert>,
) -> Result<(), StoreError> {
    let row = tx
        .query_opt(
            "UPDATE webhooks SET active = FALSE, disabled_reason = $2, updated_at = $3
             WHERE id = $1 AND active RETURNING account_id",
            &[&attempt.webhook_id, &reason, &ts_text(attempt.at)],
        )
        .map_err(db)?;
    if let (Some(row), Some(alert)) = (row, alert) {
        let owner: String = col(&row, 0)?;
        insert_alert(tx, alert, Some(&owner))?;
    }
    Ok(())
}

/// The attempt log of one webhook of `account`, newest first.
pub(super) fn webhook_attempts(
    c: &mut impl GenericClient,
    account: &str,
    webhook_id: &str,
    limit: usize,
) -> Result<Vec<AttemptRecord>, StoreError> {
    let rows = c
        .query(
            "SELECT webhook_id, event_id, kind, attempt, at, status_code, latency_ms, error,
                    response
             FROM webhook_attempts WHERE webhook_id = $1 AND EXISTS (
                 SELECT 1 FROM webhooks w WHERE w.id = $1 AND w.account_id = $3)
             ORDER BY id DESC LIMIT $2",
            &[&webhook_id, &big(limit), &account],
        )
        .map_err(db)?;
    rows.iter()
        .map(|r| {
            let event_id: String = col(r, 1)?;
            let status: Option<i64> = col(r, 5)?;
            Ok(AttemptRecord {
                webhook_id: col(r, 0)?,
                kind: col(r, 2)?,
                attempt: u32::try_from(col::<i64>(r, 3)?).unwrap_or(0),
                at: parse_ts(&col::<String>(r, 4)?, &event_id)?,
                status_code: status.and_then(|s| u16::try_from(s).ok()),
                latency_ms: count(col(r, 6)?),
                error: col(r, 7)?,
                response: col(r, 8)?,
                event_id,
            })
        })
        .collect()
}

/// When the webhook last accepted an event, or when it was created if never.
pub(super) fn webhook_last_success(
    c: &mut impl GenericClient,
    webhook_id: &str,
) -> Result<Option<Timestamp>, StoreError> {
    let row = c
        .query_one(
            "SELECT coalesce(
                 (SELECT max(at) FROM webhook_attempts
                  WHERE webhook_id = $1 AND status_code BETWEEN 200 AND 299),
                 (SELECT created_at FROM webhooks WHERE id = $1))",
            &[&webhook_id],
        )
        .map_err(db)?;
    let at: Option<String> = col(&row, 0)?;
    at.map(|t| parse_ts(&t, webhook_id)).transpose()
}

const BRIEF_COLUMNS: &str = "id, source, guid, title, summary, body, url, published_at, lists, \
    countries, entity_ids, severity, created_at";

fn brief_from(r: &Row) -> Result<BriefRecord, StoreError> {
    let id: String = col(r, 0)?;
    Ok(BriefRecord {
        source: col(r, 1)?,
        guid: col(r, 2)?,
        title: col(r, 3)?,
        summary: col(r, 4)?,
        body: col(r, 5)?,
        url: col(r, 6)?,
        published_at: parse_ts(&col::<String>(r, 7)?, &id)?,
        lists: from_json(&col::<String>(r, 8)?, &id)?,
        countries: from_json(&col::<String>(r, 9)?, &id)?,
        entity_ids: from_json(&col::<String>(r, 10)?, &id)?,
        severity: col(r, 11)?,
        created_at: parse_ts(&col::<String>(r, 12)?, &id)?,
        id,
    })
}

/// Stores the briefs not yet stored (by source and guid); returns how many were new.
pub(super) fn insert_briefs(
    tx: &mut Transaction<'_>,
    briefs: &[BriefRecord],
) -> Result<usize, StoreError> {
    let sql = format!(
        "INSERT INTO briefs ({BRIEF_COLUMNS})
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT DO NOTHING"
    );
    let mut added = 0;
    for b in briefs {
        added += tx
            .execute(
                &sql,
                &[
                    &b.id,
                    &b.source,
                    &b.guid,
                    &b.title,
                    &b.summary,
                    &b.body,
                    &b.url,
                    &ts_text(b.published_at),
                    &to_json(&b.lists, &b.id)?,
                    &to_json(&b.countries, &b.id)?,
                    &to_json(&b.entity_ids, &b.id)?,
                    &b.severity,
                    &ts_text(b.created_at),
                ],
            )
            .map_err(db)?;
    }
    Ok(added as usize)
}

/// Briefs matching `filter`, latest first.
pub(super) fn briefs(
    c: &mut impl GenericClient,
    filter: &BriefFilter,
) -> Result<Vec<BriefRecord>, StoreError> {
    let mut sql = format!("SELECT {BRIEF_COLUMNS} FROM briefs b WHERE TRUE");
    let mut args: Vec<String> = Vec::new();
    let mut arg = |sql: &mut String, clause: &str, value: String| {
        args.push(value);
        sql.push_str(&clause.replace('?', &format!("${}::text", args.len())));
    };
    if let Some(list) = &filter.list {
        let clause = " AND b.lists::jsonb @> jsonb_build_array(?)";
        arg(&mut sql, clause, list.clone());
    }
    if let Some(country) = &filter.country {
        let clause = " AND b.countries::jsonb @> jsonb_build_array(?)";
        arg(&mut sql, clause, country.to_uppercase());
    }
    if let Some(source) = &filter.source {
        arg(&mut sql, " AND b.source = ?", source.clone());
    }
    if let Some(since) = filter.since {
        arg(&mut sql, " AND b.published_at >= ?", ts_text(since));
    }
    for word in filter.q.iter().flat_map(|q| q.split_whitespace()).take(8) {
        let escaped = word
            .to_lowercase()
            .replace('\\', "\\\\")
            .replace('%', "\\%")
            .replace('_', "\\_");
        let clause = " AND lower(b.title || ' ' || b.summary || ' ' || b.body) LIKE ? ESCAPE '\\'";
        arg(&mut sql, clause, format!("%{escaped}%"));
    }
    if let Some(after) = &filter.after {
        let clause =
            " AND (b.published_at, b.id) < (SELECT published_at, id FROM briefs WHERE id = ?)";
        arg(&mut sql, clause, after.clone());
    }
    sql.push_str(&format!(
        " ORDER BY b.published_at DESC, b.id DESC LIMIT {}",
        filter.limit
    ));
    let params: Vec<&(dyn postgres::types::ToSql + Sync)> = args
        .iter()
        .map(|a| a as &(dyn postgres::types::ToSql + Sync))
        .collect();
    let rows = c.query(&sql, &params).map_err(db)?;
    rows.iter().map(brief_from).collect()
}

/// One brief.
pub(super) fn brief(
    c: &mut impl GenericClient,
    id: &str,
) -> Result<Option<BriefRecord>, StoreError> {
    let sql = format!("SELECT {BRIEF_COLUMNS} FROM briefs WHERE id = $1");
    let row = c.query_opt(&sql, &[&id]).map_err(db)?;
    row.as_ref().map(brief_from).transpose()
}

/// Successful list updates that changed something and have no brief yet, oldest first.
pub(super) fn updates_without_brief(
    c: &mut impl GenericClient,
    limit: usize,
) -> Result<Vec<(i64, String)>, StoreError> {
    let rows = c
        .query(
            "SELECT u.id, u.list_code FROM list_updates u
             WHERE u.failed IS NULL AND u.added + u.removed + u.changed > 0
               AND NOT EXISTS (SELECT 1 FROM briefs b
                               WHERE b.source = 'list_update' AND b.guid = 'update:' || u.id)
             ORDER BY u.id LIMIT $1",
            &[&big(limit)],
        )
        .map_err(db)?;
    rows.iter().map(|r| Ok((col(r, 0)?, col(r, 1)?))).collect()
}
