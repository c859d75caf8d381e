//! Screenings, the review decision log, alerts and their log, and the outbox, on
//! PostgreSQL. The logs are only appended to: nothing here updates or deletes a decision, an
//! alert change or a screening's content (only its derived review status).

use postgres::{GenericClient, Row, Transaction};

use super::{big, col, count, db};
use crate::codec::{
    Packed, from_json, from_packed_json, parse_ts, to_json, to_packed_json, ts_text, versions, word,
};
use crate::model::{
    Alert, AlertChange, AlertFilter, AlertKind, AlertStatus, DecisionRecord, EntityKind, ListCode,
    MatchedEntity, OutboxEvent, ReviewStatus, ScreeningFilter, ScreeningOrigin, ScreeningRecord,
    Severity,
};
use crate::screenings::replay;
use crate::{Changes, DEFAULT_ACCOUNT, NewDecision, StoreError};

/// The kind of the event written with every new alert.
const ALERT_CREATED: &str = "alert.created";

/// Writes screenings, alerts and events in the caller's transaction.
pub(super) fn write_changes(tx: &mut Transaction<'_>, changes: &Changes) -> Result<(), StoreError> {
    let account = changes.account.as_deref();
    for screening in &changes.screenings {
        insert_screening(tx, screening, account)?;
    }
    for alert in &changes.alerts {
        insert_alert(tx, alert, account)?;
    }
    for event in &changes.events {
        if wanted(tx, &event.kind)? {
            write_event(tx, event, account)?;
        }
    }
    Ok(())
}

/// Stores a screening in `account`, else in its favorite's account, else the default one.
fn insert_screening(
    tx: &mut Transaction<'_>,
    s: &ScreeningRecord,
    account: Option<&str>,
) -> Result<(), StoreError> {
    tx.execute(
        "INSERT INTO screenings (id, query, kind, threshold, created_at, total_matches, results,
             list_versions, engine_version, actor, origin, favorite_id, status, account_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13,
                 coalesce($14::text, (SELECT account_id FROM favorites WHERE id = $12),
                          'acct_default'))",
        &[
            &s.id,
            &s.query,
            &s.kind.map(EntityKind::as_str),
            &i64::from(s.threshold),
            &ts_text(s.created_at),
            &big(s.total_matches),
            &to_packed_json(&s.results, &s.id)?,
            &to_json(&s.list_versions, &s.id)?,
            &s.engine_version,
            &s.actor,
            &s.origin.as_str(),
            &s.favorite_id,
            &s.status.as_str(),
            &account,
        ],
    )
    .map_err(db)?;
    for m in &s.matched {
        tx.execute(
            "INSERT INTO screening_matches (screening_id, entity_id, score) VALUES ($1, $2, $3)
             ON CONFLICT DO NOTHING",
            &[&s.id, &m.entity_id, &i64::from(m.score)],
        )
        .map_err(db)?;
    }
    Ok(())
}

/// Stores an alert in its owner's account (the given one, else its favorite's or
/// screening's), or a copy in every account when it belongs to no one (news about a list):
/// the default account's copy keeps the id.
pub(super) fn insert_alert(
    tx: &mut Transaction<'_>,
    a: &Alert,
    account: Option<&str>,
) -> Result<(), StoreError> {
    let row = tx
        .query_one(
            "SELECT coalesce($1::text, (SELECT account_id FROM favorites WHERE id = $2::text),
                             (SELECT account_id FROM screenings WHERE id = $3::text))",
            &[&account, &a.favorite_id, &a.screening_id],
        )
        .map_err(db)?;
    if let Some(owner) = col::<Option<String>>(&row, 0)? {
        return insert_owned_alert(tx, a, &owner);
    }
    let rows = tx
        .query("SELECT id FROM accounts ORDER BY id", &[])
        .map_err(db)?;
    for row in &rows {
        let owner: String = col(row, 0)?;
        let mut copy = a.clone();
        if owner != DEFAULT_ACCOUNT {
            copy.id = crate::new_id("alt_");
        }
        insert_owned_alert(tx, &copy, &owner)?;
    }
    Ok(())
}

fn insert_owned_alert(tx: &mut Transaction<'_>, a: &Alert, owner: &str) -> Result<(), StoreError> {
    tx.execute(
        "INSERT INTO alerts (id, kind, severity, title, message, created_at, status,
                             screening_id, favorite_id, list_code, entity_ids, account_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
        &[
            &a.id,
            &a.kind.as_str(),
            &a.severity.as_str(),
            &a.title,
            &a.message,
            &ts_text(a.created_at),
            &a.status.as_str(),
            &a.screening_id,
            &a.favorite_id,
            &a.list.map(ListCode::code),
            &to_json(&a.entity_ids, &a.id)?,
            &owner,
        ],
    )
    .map_err(db)?;
    if !wanted(tx, ALERT_CREATED)? {
        return Ok(());
    }
    let payload = serde_json::to_value(a).map_err(|source| StoreError::encode(&a.id, source))?;
    let event = OutboxEvent {
        event_id: format!("evt_{}", ulid::Ulid::new()),
        kind: ALERT_CREATED.to_owned(),
        created_at: a.created_at,
        payload,
    };
    write_event(tx, &event, Some(owner))
}

/// Whether a registered webhook (active or disabled) subscribes to events of `kind`: an
/// event nobody subscribes to is not written.
fn wanted(tx: &mut Transaction<'_>, kind: &str) -> Result<bool, StoreError> {
    let row = tx
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM webhooks WHERE events::jsonb @> jsonb_build_array($1::text))",
            &[&kind],
        )
        .map_err(db)?;
    col(&row, 0)
}

/// Writes `e` for `account`, else for the account of the favorite, screening or alert its
/// payload names; an event of no account is dropped, but `list.updated`.
pub(super) fn write_event(
    tx: &mut Transaction<'_>,
    e: &OutboxEvent,
    account: Option<&str>,
) -> Result<(), StoreError> {
    super::writing_events(tx)?;
    tx.execute(
        "INSERT INTO outbox (event_id, kind, created_at, payload, account_id)
         SELECT $1::text, $2::text, $3::text, $4::text, owner FROM (SELECT coalesce($5::text,
             (SELECT account_id FROM favorites WHERE id = $4::text::jsonb ->> 'favorite_id'),
             (SELECT account_id FROM screenings WHERE id = $4::text::jsonb ->> 'screening_id'),
             (SELECT account_id FROM alerts WHERE id = $4::text::jsonb ->> 'alert_id')) AS owner) o
         WHERE owner IS NOT NULL OR $2::text = 'list.updated'",
        &[
            &e.event_id,
            &e.kind,
            &ts_text(e.created_at),
            &to_json(&e.payload, &e.event_id)?,
            &account,
        ],
    )
    .map_err(db)?;
    Ok(())
}

const SCREENING_COLUMNS: &str = "id, query, kind, threshold, created_at, total_matches, \
    results, list_versions, engine_version, actor, origin, favorite_id, status";

/// One screening of `account`.
pub(super) fn screening(
    c: &mut impl GenericClient,
    account: &str,
    id: &str,
) -> Result<Option<ScreeningRecord>, StoreError> {
    let sql =
        format!("SELECT {SCREENING_COLUMNS} FROM screenings WHERE id = $1 AND account_id = $2");
    let row = c.query_opt(&sql, &[&id, &account]).map_err(db)?;
    row.map(|row| screening_from(c, &row)).transpose()
}

/// Screenings of `account`, newest first.
pub(super) fn screenings(
    c: &mut impl GenericClient,
    account: &str,
    f: &ScreeningFilter,
) -> Result<Vec<ScreeningRecord>, StoreError> {
    let sql = format!(
        "SELECT {SCREENING_COLUMNS} FROM screenings
         WHERE account_id = $6 AND ($1::text IS NULL OR created_at >= $1)
           AND ($2::text IS NULL OR created_at < $2) AND ($3::text IS NULL OR status = $3)
           AND ($4::text IS NULL OR id < $4)
         ORDER BY id DESC LIMIT $5"
    );
    let rows = c
        .query(
            &sql,
            &[
                &f.since.map(ts_text),
                &f.until.map(ts_text),
                &f.status.map(ReviewStatus::as_str),
                &f.before,
                &big(f.limit),
                &account,
            ],
        )
        .map_err(db)?;
    rows.iter().map(|row| screening_from(c, row)).collect()
}

/// One page of an audit export: the screenings of `account` in `[since, until)` with an id
/// above `after`, oldest first.
pub(super) fn screenings_after(
    c: &mut impl GenericClient,
    account: &str,
    period: (Option<jiff::Timestamp>, Option<jiff::Timestamp>),
    after: Option<&str>,
    limit: usize,
) -> Result<Vec<ScreeningRecord>, StoreError> {
    let sql = format!(
        "SELECT {SCREENING_COLUMNS} FROM screenings
         WHERE account_id = $1 AND ($2::text IS NULL OR created_at >= $2)
           AND ($3::text IS NULL OR created_at < $3) AND ($4::text IS NULL OR id > $4)
         ORDER BY id LIMIT $5"
    );
    let rows = c
        .query(
            &sql,
            &[
                &account,
                &period.0.map(ts_text),
                &period.1.map(ts_text),
                &after,
                &big(limit),
            ],
        )
        .map_err(db)?;
    rows.iter().map(|row| screening_from(c, row)).collect()
}

fn screening_from(c: &mut impl GenericClient, row: &Row) -> Result<ScreeningRecord, StoreError> {
    let id: String = col(row, 0)?;
    let matched = c
        .query(
            "SELECT entity_id, score FROM screening_matches WHERE screening_id = $1
             ORDER BY score DESC, entity_id",
            &[&id],
        )
        .map_err(db)?
        .iter()
        .map(|r| {
            Ok(MatchedEntity {
                entity_id: col(r, 0)?,
                score: u8::try_from(col::<i64>(r, 1)?).unwrap_or(u8::MAX),
            })
        })
        .collect::<Result<Vec<_>, StoreError>>()?;
    let kind: Option<String> = col(row, 2)?;
    Ok(ScreeningRecord {
        kind: kind.map(|k| word(&k, &id, EntityKind::parse)).transpose()?,
        query: col(row, 1)?,
        threshold: u8::try_from(col::<i64>(row, 3)?).unwrap_or(u8::MAX),
        created_at: parse_ts(&col::<String>(row, 4)?, &id)?,
        total_matches: count(col(row, 5)?),
        results: from_packed_json(&Packed::Compressed(col(row, 6)?), &id)?,
        list_versions: versions(&col::<String>(row, 7)?, &id)?,
        engine_version: col(row, 8)?,
        actor: col(row, 9)?,
        origin: word(&col::<String>(row, 10)?, &id, ScreeningOrigin::parse)?,
        favorite_id: col(row, 11)?,
        status: word(&col::<String>(row, 12)?, &id, ReviewStatus::parse)?,
        matched,
        id,
    })
}

const DECISION_COLUMNS: &str =
    "id, screening_id, entity_id, from_status, to_status, note, actor, at";

fn decision_from(row: &Row) -> Result<DecisionRecord, StoreError> {
    let id: i64 = col(row, 0)?;
    let what = format!("decision {id}");
    Ok(DecisionRecord {
        id,
        screening_id: col(row, 1)?,
        entity_id: col(row, 2)?,
        from: word(&col::<String>(row, 3)?, &what, ReviewStatus::parse)?,
        to: word(&col::<String>(row, 4)?, &what, ReviewStatus::parse)?,
        note: col(row, 5)?,
        actor: col(row, 6)?,
        at: parse_ts(&col::<String>(row, 7)?, &what)?,
    })
}

/// The decisions about one screening of `account`, oldest first.
pub(super) fn decisions(
    c: &mut impl GenericClient,
    account: &str,
    screening_id: &str,
) -> Result<Vec<DecisionRecord>, StoreError> {
    let sql = format!(
        "SELECT {DECISION_COLUMNS} FROM decisions WHERE screening_id = $1 AND EXISTS (
             SELECT 1 FROM screenings s WHERE s.id = $1 AND s.account_id = $2)
         ORDER BY id"
    );
    let rows = c.query(&sql, &[&screening_id, &account]).map_err(db)?;
    rows.iter().map(decision_from).collect()
}

/// The decisions of `account` recorded in `[since, until)`, oldest first.
pub(super) fn decisions_between(
    c: &mut impl GenericClient,
    account: &str,
    since: Option<jiff::Timestamp>,
    until: Option<jiff::Timestamp>,
) -> Result<Vec<DecisionRecord>, StoreError> {
    let sql = format!(
        "SELECT {DECISION_COLUMNS} FROM decisions
         WHERE ($1::text IS NULL OR at >= $1) AND ($2::text IS NULL OR at < $2)
           AND screening_id IN (SELECT id FROM screenings WHERE account_id = $3)
         ORDER BY id"
    );
    let rows = c
        .query(&sql, &[&since.map(ts_text), &until.map(ts_text), &account])
        .map_err(db)?;
    rows.iter().map(decision_from).collect()
}

/// Appends a decision if the transition is allowed and updates the screening's status; the
/// screening's row is locked first, so concurrent decisions on it apply one after another.
pub(super) fn decide(
    tx: &mut Transaction<'_>,
    account: &str,
    new: &NewDecision,
) -> Result<(DecisionRecord, ReviewStatus), StoreError> {
    let sid = new.screening_id.as_str();
    let row = tx
        .query_opt(
            "SELECT status FROM screenings WHERE id = $1 AND account_id = $2 FOR UPDATE",
            &[&sid, &account],
        )
        .map_err(db)?
        .ok_or_else(|| StoreError::NotFound {
            what: "screening",
            id: new.screening_id.clone(),
        })?;
    let current = word(&col::<String>(&row, 0)?, sid, ReviewStatus::parse)?;
    let matched: Vec<String> = tx
        .query(
            "SELECT entity_id FROM screening_matches WHERE screening_id = $1",
            &[&sid],
        )
        .map_err(db)?
        .iter()
        .map(|r| col(r, 0))
        .collect::<Result<_, _>>()?;
    if matched.is_empty() {
        return Err(StoreError::Refused(format!(
            "screening {sid} matched nothing ({current}): there is nothing to decide"
        )));
    }
    let sql =
        format!("SELECT {DECISION_COLUMNS} FROM decisions WHERE screening_id = $1 ORDER BY id");
    let mut log: Vec<DecisionRecord> = tx
        .query(&sql, &[&sid])
        .map_err(db)?
        .iter()
        .map(decision_from)
        .collect::<Result<_, _>>()?;
    let statuses = replay(&matched, &log);
    let from = decision_from_status(new, &matched, &statuses, current)?;
    let to = new.decision.status();
    let row = tx
        .query_one(
            "INSERT INTO decisions (screening_id, entity_id, from_status, to_status, note, actor, at)
             VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
            &[
                &sid,
                &new.entity_id,
                &from.as_str(),
                &to.as_str(),
                &new.note,
                &new.actor,
                &ts_text(new.at),
            ],
        )
        .map_err(db)?;
    let record = DecisionRecord {
        id: col(&row, 0)?,
        screening_id: new.screening_id.clone(),
        entity_id: new.entity_id.clone(),
        from,
        to,
        note: new.note.clone(),
        actor: new.actor.clone(),
        at: new.at,
    };
    log.push(record.clone());
    let aggregate = ReviewStatus::aggregate(replay(&matched, &log).iter().map(|(_, s)| *s));
    tx.execute(
        "UPDATE screenings SET status = $2 WHERE id = $1",
        &[&sid, &aggregate.as_str()],
    )
    .map_err(db)?;
    Ok((record, aggregate))
}

/// The status a decision moves from, or why it is refused.
fn decision_from_status(
    new: &NewDecision,
    matched: &[String],
    statuses: &[(String, ReviewStatus)],
    current: ReviewStatus,
) -> Result<ReviewStatus, StoreError> {
    let from = match &new.entity_id {
        Some(entity) if !matched.iter().any(|m| m == entity) => {
            return Err(StoreError::Refused(format!(
                "{entity} is not among the matches of screening {} (matched: {})",
                new.screening_id,
                matched.join(", ")
            )));
        }
        Some(entity) => statuses
            .iter()
            .find(|(e, _)| e == entity)
            .map_or(ReviewStatus::PendingReview, |(_, s)| *s),
        None => current,
    };
    let refused = match &new.entity_id {
        Some(_) => !from.can_become(new.decision),
        None => !statuses.iter().any(|(_, s)| s.can_become(new.decision)),
    };
    if !refused {
        return Ok(from);
    }
    Err(StoreError::Refused(format!(
        "cannot record {} on {}: it is {from}{}",
        new.decision,
        new.entity_id.as_deref().unwrap_or(&new.screening_id),
        match from {
            ReviewStatus::Escalated => " (an escalation becomes false_positive or true_match)",
            _ if new.entity_id.is_none() => " and no match of it is open for this decision",
            _ => ", a final decision",
        }
    )))
}

const ALERT_COLUMNS: &str = "id, kind, severity, title, message, created_at, status, \
    screening_id, favorite_id, list_code, entity_ids";

fn alert_from(row: &Row) -> Result<Alert, StoreError> {
    let id: String = col(row, 0)?;
    let list: Option<String> = col(row, 9)?;
    Ok(Alert {
        kind: word(&col::<String>(row, 1)?, &id, AlertKind::parse)?,
        severity: word(&col::<String>(row, 2)?, &id, Severity::parse)?,
        title: col(row, 3)?,
        message: col(row, 4)?,
        created_at: parse_ts(&col::<String>(row, 5)?, &id)?,
        status: word(&col::<String>(row, 6)?, &id, AlertStatus::parse)?,
        screening_id: col(row, 7)?,
        favorite_id: col(row, 8)?,
        list: list.and_then(|l| l.parse().ok()),
        entity_ids: from_json(&col::<String>(row, 10)?, &id)?,
        id,
    })
}

/// Alerts of `account`, newest first.
pub(super) fn alerts(
    c: &mut impl GenericClient,
    account: &str,
    f: &AlertFilter,
) -> Result<Vec<Alert>, StoreError> {
    let sql = format!(
        "SELECT {ALERT_COLUMNS} FROM alerts
         WHERE account_id = $6 AND ($1::text IS NULL OR status = $1)
           AND ($2::text IS NULL OR kind = $2) AND ($3::text IS NULL OR created_at >= $3)
           AND ($4::text IS NULL OR id < $4)
         ORDER BY id DESC LIMIT $5"
    );
    let rows = c
        .query(
            &sql,
            &[
                &f.status.map(AlertStatus::as_str),
                &f.kind.map(AlertKind::as_str),
                &f.since.map(ts_text),
                &f.before,
                &big(f.limit),
                &account,
            ],
        )
        .map_err(db)?;
    rows.iter().map(alert_from).collect()
}

/// One alert of `account`.
pub(super) fn alert(
    c: &mut impl GenericClient,
    account: &str,
    id: &str,
) -> Result<Option<Alert>, StoreError> {
    let sql = format!("SELECT {ALERT_COLUMNS} FROM alerts WHERE id = $1 AND account_id = $2");
    let row = c.query_opt(&sql, &[&id, &account]).map_err(db)?;
    row.as_ref().map(alert_from).transpose()
}

/// Moves an alert to `change.to` if allowed (its row locked), appending to its log.
pub(super) fn change_alert(
    tx: &mut Transaction<'_>,
    account: &str,
    change: &AlertChange,
) -> Result<Alert, StoreError> {
    let sql =
        format!("SELECT {ALERT_COLUMNS} FROM alerts WHERE id = $1 AND account_id = $2 FOR UPDATE");
    let alert = tx
        .query_opt(&sql, &[&change.alert_id, &account])
        .map_err(db)?
        .as_ref()
        .map(alert_from)
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
         VALUES ($1, $2, $3, $4, $5, $6)",
        &[
            &alert.id,
            &alert.status.as_str(),
            &change.to.as_str(),
            &change.note,
            &change.actor,
            &ts_text(change.at),
        ],
    )
    .map_err(db)?;
    tx.execute(
        "UPDATE alerts SET status = $2 WHERE id = $1",
        &[&alert.id, &change.to.as_str()],
    )
    .map_err(db)?;
    Ok(Alert {
        status: change.to,
        ..alert
    })
}

/// The alert status changes of `account` in `[since, until)`, oldest first.
pub(super) fn alert_changes(
    c: &mut impl GenericClient,
    account: &str,
    since: Option<jiff::Timestamp>,
    until: Option<jiff::Timestamp>,
) -> Result<Vec<AlertChange>, StoreError> {
    let rows = c
        .query(
            "SELECT alert_id, from_status, to_status, note, actor, at FROM alert_changes
             WHERE ($1::text IS NULL OR at >= $1) AND ($2::text IS NULL OR at < $2)
               AND alert_id IN (SELECT id FROM alerts WHERE account_id = $3)
             ORDER BY id",
            &[&since.map(ts_text), &until.map(ts_text), &account],
        )
        .map_err(db)?;
    rows.iter()
        .map(|row| {
            let alert_id: String = col(row, 0)?;
            Ok(AlertChange {
                from: word(&col::<String>(row, 1)?, &alert_id, AlertStatus::parse)?,
                to: word(&col::<String>(row, 2)?, &alert_id, AlertStatus::parse)?,
                note: col(row, 3)?,
                actor: col(row, 4)?,
                at: parse_ts(&col::<String>(row, 5)?, &alert_id)?,
                alert_id,
            })
        })
        .collect()
}
