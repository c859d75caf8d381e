//! Alerts and their status log (append-only, enforced by triggers).

use rusqlite::{OptionalExtension, Row, Transaction, params};

use super::codec::{from_json, parse_ts, to_json, ts_text, word};
use super::{Store, StoreError};
use crate::model::{
    Alert, AlertChange, AlertFilter, AlertKind, AlertStatus, ListCode, OutboxEvent, Severity,
};

const COLUMNS: &str = "id, kind, severity, title, message, created_at, status, screening_id, \
    favorite_id, list_code, entity_ids";

impl Store {
    /// Alerts, newest first.
    pub fn alerts(&self, account: &str, filter: &AlertFilter) -> Result<Vec<Alert>, StoreError> {
        let sql = format!(
            "SELECT {COLUMNS} FROM alerts
             WHERE account_id = ?6 AND (?1 IS NULL OR status = ?1) AND (?2 IS NULL OR kind = ?2)
               AND (?3 IS NULL OR created_at >= ?3) AND (?4 IS NULL OR id < ?4)
             ORDER BY id DESC LIMIT ?5"
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map(
            params![
                filter.status.map(AlertStatus::as_str),
                filter.kind.map(AlertKind::as_str),
                filter.since.map(ts_text),
                filter.before,
                filter.limit as i64,
                account
            ],
            raw_alert,
        )?;
        rows.map(|r| finish_alert(r?)).collect()
    }

    /// One alert.
    pub fn alert(&self, account: &str, id: &str) -> Result<Option<Alert>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM alerts WHERE id = ?1 AND account_id = ?2");
        let raw = self
            .conn
            .query_row(&sql, [id, account], raw_alert)
            .optional()?;
        raw.map(finish_alert).transpose()
    }

    /// Moves an alert to `change.to` if allowed, appending the change to its log.
    pub fn change_alert(
        &mut self,
        account: &str,
        change: &AlertChange,
    ) -> Result<Alert, StoreError> {
        let tx = self.write()?;
        let sql = format!("SELECT {COLUMNS} FROM alerts WHERE id = ?1 AND account_id = ?2");
        let alert = tx
            .query_row(&sql, [change.alert_id.as_str(), account], raw_alert)
            .optional()?
            .map(finish_alert)
            .transpose()?
            .ok_or_else(|| StoreError::NotFound {
                what: "alert",
                id: change.alert_id.clone(),
            })?;
        if !alert.status.can_become(change.to) {
            return Err(StoreError::Refused(format!(
                "alert {} is {}: it cannot become {}",
                alert.id, alert.status, change.to
            )));
        }
        tx.execute(
            "INSERT INTO alert_changes (alert_id, from_status, to_status, note, actor, at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                alert.id,
                alert.status.as_str(),
                change.to.as_str(),
                change.note,
                change.actor,
                ts_text(change.at)
            ],
        )?;
        tx.execute(
            "UPDATE alerts SET status = ?2 WHERE id = ?1",
            params![alert.id, change.to.as_str()],
        )?;
        tx.commit().map_err(StoreError::from)?;
        Ok(Alert {
            status: change.to,
            ..alert
        })
    }

    /// Every alert status change in `[since, until)`, oldest first.
    pub fn alert_changes(
        &self,
        account: &str,
        since: Option<jiff::Timestamp>,
        until: Option<jiff::Timestamp>,
    ) -> Result<Vec<AlertChange>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT alert_id, from_status, to_status, note, actor, at FROM alert_changes
             WHERE (?1 IS NULL OR at >= ?1) AND (?2 IS NULL OR at < ?2)
               AND alert_id IN (SELECT id FROM alerts WHERE account_id = ?3)
             ORDER BY id",
        )?;
        let params = params![since.map(ts_text), until.map(ts_text), account];
        let rows = stmt.query_map(params, |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, String>(5)?,
            ))
        })?;
        rows.map(|row| {
            let (alert_id, from, to, note, actor, at) = row?;
            Ok(AlertChange {
                from: word(&from, &alert_id, AlertStatus::parse)?,
                to: word(&to, &alert_id, AlertStatus::parse)?,
                at: parse_ts(&at, &alert_id)?,
                alert_id,
                note,
                actor,
            })
        })
        .collect()
    }
}

/// Stores an alert and, in the same transaction, its `alert.created` event for the webhook
/// worker (the payload is the alert itself) when a webhook wants it.
///
/// The alert belongs to `account`, else to its favorite's or screening's account; an alert
/// of no account (a list update, news for everyone) is copied into every account: the
/// default account's copy keeps the alert's id, every other copy gets an id of its own.
pub(crate) fn insert_alert(
    tx: &Transaction<'_>,
    a: &Alert,
    account: Option<&str>,
) -> Result<(), StoreError> {
    let owner: Option<String> = tx
        .prepare_cached(
            "SELECT coalesce(?1, (SELECT account_id FROM favorites WHERE id = ?2),
                             (SELECT account_id FROM screenings WHERE id = ?3))",
        )?
        .query_row(params![account, a.favorite_id, a.screening_id], |r| {
            r.get(0)
        })?;
    if let Some(owner) = owner {
        return insert_owned_alert(tx, a, &owner);
    }
    let accounts: Vec<String> = tx
        .prepare_cached("SELECT id FROM accounts ORDER BY id")?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for owner in accounts {
        let mut copy = a.clone();
        if owner != super::DEFAULT_ACCOUNT {
            copy.id = crate::new_id("alt_");
        }
        insert_owned_alert(tx, &copy, &owner)?;
    }
    Ok(())
}

fn insert_owned_alert(tx: &Transaction<'_>, a: &Alert, owner: &str) -> Result<(), StoreError> {
    tx.prepare_cached(
        "INSERT INTO alerts (id, kind, severity, title, message, created_at, status,
                             screening_id, favorite_id, list_code, entity_ids, account_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    )?
    .execute(params![
        a.id,
        a.kind.as_str(),
        a.severity.as_str(),
        a.title,
        a.message,
        ts_text(a.created_at),
        a.status.as_str(),
        a.screening_id,
        a.favorite_id,
        a.list.map(ListCode::code),
        to_json(&a.entity_ids, &a.id)?,
        owner
    ])?;
    // Checked before the payload is built: most alerts have no webhook waiting for them.
    if !super::outbox::wanted(tx, ALERT_CREATED)? {
        return Ok(());
    }
    super::outbox::write_event(
        tx,
        &OutboxEvent {
            event_id: format!("evt_{}", ulid::Ulid::new()),
            kind: ALERT_CREATED.to_owned(),
            created_at: a.created_at,
            payload: serde_json::to_value(a).map_err(|source| StoreError::encode(&a.id, source))?,
        },
        Some(owner),
    )
}

/// The kind of the event written with every new alert.
pub const ALERT_CREATED: &str = "alert.created";

type RawAlert = [Option<String>; 11];

fn raw_alert(r: &Row<'_>) -> rusqlite::Result<RawAlert> {
    let mut out: RawAlert = Default::default();
    for (i, slot) in out.iter_mut().enumerate() {
        *slot = r.get(i)?;
    }
    Ok(out)
}

fn finish_alert(raw: RawAlert) -> Result<Alert, StoreError> {
    let [
        id,
        kind,
        severity,
        title,
        message,
        created_at,
        status,
        screening_id,
        favorite_id,
        list,
        entity_ids,
    ] = raw;
    let id = id.unwrap_or_default();
    let text = |v: Option<String>| v.unwrap_or_default();
    Ok(Alert {
        kind: word(&text(kind), &id, AlertKind::parse)?,
        severity: word(&text(severity), &id, Severity::parse)?,
        title: text(title),
        message: text(message),
        created_at: parse_ts(&text(created_at), &id)?,
        status: word(&text(status), &id, AlertStatus::parse)?,
        screening_id,
        favorite_id,
        list: list.and_then(|l| l.parse().ok()),
        entity_ids: from_json(&text(entity_ids), &id)?,
        id,
    })
}
