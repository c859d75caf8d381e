//! Stored screenings and the review decision log (append-only, enforced by triggers).

use rusqlite::{OptionalExtension, Row, Transaction, params};

use super::codec::{
    Packed, from_json, from_packed_json, parse_ts, to_json, to_packed_json, ts_text, versions, word,
};
use super::{Store, StoreError};
use crate::model::{
    Alert, Decision, DecisionRecord, EntityKind, ListCode, ListVersions, MatchedEntity,
    OutboxEvent, ReviewStatus, ScreeningFilter, ScreeningOrigin, ScreeningRecord,
};

/// Everything one service operation writes, committed in ONE transaction: screenings, the
/// alerts they raise and the events for the webhook worker.
#[derive(Debug, Default)]
pub struct Changes {
    /// The account the changes belong to. `None` (the watchlist monitor): each screening,
    /// alert and event belongs to the account of its favorite (or screening); an alert of
    /// no one's (a list update) is copied into every account.
    pub account: Option<String>,
    pub screenings: Vec<ScreeningRecord>,
    pub alerts: Vec<Alert>,
    pub events: Vec<OutboxEvent>,
}

/// A decision to record.
#[derive(Debug, Clone)]
pub struct NewDecision {
    pub screening_id: String,
    pub entity_id: Option<String>,
    pub decision: Decision,
    pub note: String,
    pub actor: String,
    pub at: jiff::Timestamp,
}

const COLUMNS: &str = "id, query, kind, threshold, created_at, total_matches, results, \
    list_versions, engine_version, actor, origin, favorite_id, status";

impl Store {
    /// The list-update id each imported list is at now.
    pub fn list_versions(&self) -> Result<ListVersions, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT code, last_update FROM lists WHERE last_update IS NOT NULL")?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?;
        let mut out = ListVersions::new();
        for row in rows {
            let (code, id) = row?;
            if let Ok(list) = code.parse::<ListCode>() {
                out.insert(list, id);
            }
        }
        Ok(out)
    }

    /// Writes `changes` in one transaction.
    pub fn record(&mut self, changes: &Changes) -> Result<(), StoreError> {
        let tx = self.write()?;
        write_changes(&tx, changes)?;
        tx.commit().map_err(StoreError::from)
    }

    /// Writes the changes of several operations in ONE transaction (group commit): all of
    /// them are stored, or none.
    pub fn record_all(&mut self, all: &[Changes]) -> Result<(), StoreError> {
        let tx = self.write()?;
        for changes in all {
            write_changes(&tx, changes)?;
        }
        tx.commit().map_err(StoreError::from)
    }

    /// One stored screening.
    pub fn screening(
        &self,
        account: &str,
        id: &str,
    ) -> Result<Option<ScreeningRecord>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM screenings WHERE id = ?1 AND account_id = ?2");
        let row = self
            .conn
            .query_row(&sql, [id, account], raw_screening)
            .optional()?;
        row.map(|raw| self.finish_screening(raw)).transpose()
    }

    /// Stored screenings, newest first.
    pub fn screenings(
        &self,
        account: &str,
        filter: &ScreeningFilter,
    ) -> Result<Vec<ScreeningRecord>, StoreError> {
        let sql = format!(
            "SELECT {COLUMNS} FROM screenings
             WHERE account_id = ?6 AND (?1 IS NULL OR created_at >= ?1) AND (?2 IS NULL OR created_at < ?2)
               AND (?3 IS NULL OR status = ?3) AND (?4 IS NULL OR id < ?4)
             ORDER BY id DESC LIMIT ?5"
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map(
            params![
                filter.since.map(ts_text),
                filter.until.map(ts_text),
                filter.status.map(ReviewStatus::as_str),
                filter.before,
                filter.limit as i64,
                account
            ],
            raw_screening,
        )?;
        let raws: Vec<RawScreening> = rows.collect::<Result<_, _>>()?;
        raws.into_iter()
            .map(|raw| self.finish_screening(raw))
            .collect()
    }

    /// One page of an audit export: the screenings of `[since, until)` with an id above
    /// `after` (the last id of the previous page), oldest first, at most `limit`.
    pub fn screenings_after(
        &self,
        account: &str,
        period: (Option<jiff::Timestamp>, Option<jiff::Timestamp>),
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<ScreeningRecord>, StoreError> {
        let sql = format!(
            "SELECT {COLUMNS} FROM screenings
             WHERE account_id = ?1 AND (?2 IS NULL OR created_at >= ?2) AND (?3 IS NULL OR created_at < ?3)
               AND (?4 IS NULL OR id > ?4)
             ORDER BY id LIMIT ?5"
        );
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let rows = stmt.query_map(
            params![
                account,
                period.0.map(ts_text),
                period.1.map(ts_text),
                after,
                limit as i64
            ],
            raw_screening,
        )?;
        let raws: Vec<RawScreening> = rows.collect::<Result<_, _>>()?;
        raws.into_iter()
            .map(|raw| self.finish_screening(raw))
            .collect()
    }

    /// The decisions about one screening, oldest first.
    pub fn decisions(
        &self,
        account: &str,
        screening_id: &str,
    ) -> Result<Vec<DecisionRecord>, StoreError> {
        self.query_decisions(
            "SELECT id, screening_id, entity_id, from_status, to_status, note, actor, at
             FROM decisions WHERE screening_id = ?1 AND EXISTS (
                 SELECT 1 FROM screenings s WHERE s.id = ?1 AND s.account_id = ?2)
             ORDER BY id",
            params![screening_id, account],
        )
    }

    /// Every decision recorded in `[since, until)`, oldest first.
    pub fn decisions_between(
        &self,
        account: &str,
        since: Option<jiff::Timestamp>,
        until: Option<jiff::Timestamp>,
    ) -> Result<Vec<DecisionRecord>, StoreError> {
        self.query_decisions(
            "SELECT id, screening_id, entity_id, from_status, to_status, note, actor, at
             FROM decisions WHERE (?1 IS NULL OR at >= ?1) AND (?2 IS NULL OR at < ?2)
               AND screening_id IN (SELECT id FROM screenings WHERE account_id = ?3)
             ORDER BY id",
            params![since.map(ts_text), until.map(ts_text), account],
        )
    }

    /// Appends a decision if the transition is allowed, and updates the screening's derived
    /// status, in one transaction. Returns the decisions written (one) and the new status.
    pub fn decide(
        &mut self,
        account: &str,
        new: &NewDecision,
    ) -> Result<(DecisionRecord, ReviewStatus), StoreError> {
        let tx = self.write()?;
        let (matched, status): (String, String) = tx
            .query_row(
                "SELECT (SELECT json_group_array(entity_id) FROM screening_matches
                         WHERE screening_id = ?1), status
                 FROM screenings WHERE id = ?1 AND account_id = ?2",
                [new.screening_id.as_str(), account],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?
            .ok_or_else(|| StoreError::NotFound {
                what: "screening",
                id: new.screening_id.clone(),
            })?;
        let matched: Vec<String> = from_json(&matched, &new.screening_id)?;
        let current = word(&status, &new.screening_id, ReviewStatus::parse)?;
        if matched.is_empty() {
            return Err(StoreError::Refused(format!(
                "screening {} matched nothing ({current}): there is nothing to decide",
                new.screening_id
            )));
        }
        let log = decisions_in(&tx, &new.screening_id)?;
        let mut statuses = replay(&matched, &log);
        let entity_status = |statuses: &[(String, ReviewStatus)], entity: &str| {
            statuses
                .iter()
                .find(|(e, _)| e == entity)
                .map_or(ReviewStatus::PendingReview, |(_, s)| *s)
        };
        let from = match &new.entity_id {
            Some(entity) => {
                if !matched.iter().any(|m| m == entity) {
                    return Err(StoreError::Refused(format!(
                        "{entity} is not among the matches of screening {} (matched: {})",
                        new.screening_id,
                        matched.join(", ")
                    )));
                }
                entity_status(&statuses, entity)
            }
            None => current,
        };
        let refused = match &new.entity_id {
            Some(_) => !from.can_become(new.decision),
            // A whole-screening decision needs at least one match it can move.
            None => !statuses.iter().any(|(_, s)| s.can_become(new.decision)),
        };
        if refused {
            return Err(StoreError::Refused(format!(
                "cannot record {} on {}: it is {from}{}",
                new.decision,
                new.entity_id.as_deref().unwrap_or(&new.screening_id),
                match from {
                    ReviewStatus::Escalated => {
                        " (an escalation becomes false_positive or true_match)"
                    }
                    _ if new.entity_id.is_none() => " and no match of it is open for this decision",
                    _ => ", a final decision",
                }
            )));
        }
        let to = new.decision.status();
        tx.execute(
            "INSERT INTO decisions (screening_id, entity_id, from_status, to_status, note, actor, at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                new.screening_id,
                new.entity_id,
                from.as_str(),
                to.as_str(),
                new.note,
                new.actor,
                ts_text(new.at)
            ],
        )?;
        let id = tx.last_insert_rowid();
        apply(&mut statuses, new.entity_id.as_deref(), to);
        let aggregate = ReviewStatus::aggregate(statuses.iter().map(|(_, s)| *s));
        tx.execute(
            "UPDATE screenings SET status = ?2 WHERE id = ?1",
            params![new.screening_id, aggregate.as_str()],
        )?;
        tx.commit().map_err(StoreError::from)?;
        let record = DecisionRecord {
            id,
            screening_id: new.screening_id.clone(),
            entity_id: new.entity_id.clone(),
            from,
            to,
            note: new.note.clone(),
            actor: new.actor.clone(),
            at: new.at,
        };
        Ok((record, aggregate))
    }

    fn query_decisions<P: rusqlite::Params>(
        &self,
        sql: &str,
        params: P,
    ) -> Result<Vec<DecisionRecord>, StoreError> {
        let mut stmt = self.conn.prepare(sql)?;
        let rows = stmt.query_map(params, raw_decision)?;
        rows.map(|r| finish_decision(r?)).collect()
    }

    fn finish_screening(&self, raw: RawScreening) -> Result<ScreeningRecord, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT entity_id, score FROM screening_matches WHERE screening_id = ?1
             ORDER BY score DESC, entity_id",
        )?;
        let matched = stmt
            .query_map([&raw.id], |r| {
                Ok(MatchedEntity {
                    entity_id: r.get(0)?,
                    score: r.get(1)?,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        let id = raw.id.clone();
        Ok(ScreeningRecord {
            kind: raw
                .kind
                .map(|k| word(&k, &id, EntityKind::parse))
                .transpose()?,
            created_at: parse_ts(&raw.created_at, &id)?,
            results: from_packed_json(&raw.results, &id)?,
            list_versions: versions(&raw.list_versions, &id)?,
            origin: word(&raw.origin, &id, ScreeningOrigin::parse)?,
            status: word(&raw.status, &id, ReviewStatus::parse)?,
            id: raw.id,
            query: raw.query,
            threshold: raw.threshold,
            total_matches: raw.total_matches,
            matched,
            engine_version: raw.engine_version,
            actor: raw.actor,
            favorite_id: raw.favorite_id,
        })
    }
}

/// Writes screenings, alerts and events inside an open transaction.
pub(crate) fn write_changes(tx: &Transaction<'_>, changes: &Changes) -> Result<(), StoreError> {
    let account = changes.account.as_deref();
    for screening in &changes.screenings {
        insert_screening(tx, screening, account)?;
    }
    for alert in &changes.alerts {
        super::alerts::insert_alert(tx, alert, account)?;
    }
    for event in &changes.events {
        super::outbox::insert_event(tx, event, account)?;
    }
    Ok(())
}

/// Stores a screening in `account`, else in its favorite's account (a watchlist re-screen),
/// else in the default account.
fn insert_screening(
    tx: &Transaction<'_>,
    s: &ScreeningRecord,
    account: Option<&str>,
) -> Result<(), StoreError> {
    tx.prepare_cached(
        "INSERT INTO screenings (id, query, kind, threshold, created_at, total_matches, results,
             list_versions, engine_version, actor, origin, favorite_id, status, account_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,
                 coalesce(?14, (SELECT account_id FROM favorites WHERE id = ?12), 'acct_default'))",
    )?
    .execute(params![
        s.id,
        s.query,
        s.kind.map(EntityKind::as_str),
        s.threshold,
        ts_text(s.created_at),
        s.total_matches as i64,
        to_packed_json(&s.results, &s.id)?,
        to_json(&s.list_versions, &s.id)?,
        s.engine_version,
        s.actor,
        s.origin.as_str(),
        s.favorite_id,
        s.status.as_str(),
        account
    ])?;
    let mut stmt = tx.prepare_cached(
        "INSERT OR IGNORE INTO screening_matches (screening_id, entity_id, score) VALUES (?1, ?2, ?3)",
    )?;
    for m in &s.matched {
        stmt.execute(params![s.id, m.entity_id, m.score])?;
    }
    Ok(())
}

struct RawScreening {
    id: String,
    query: String,
    kind: Option<String>,
    threshold: u8,
    created_at: String,
    total_matches: u64,
    results: Packed,
    list_versions: String,
    engine_version: String,
    actor: String,
    origin: String,
    favorite_id: Option<String>,
    status: String,
}

fn raw_screening(r: &Row<'_>) -> rusqlite::Result<RawScreening> {
    Ok(RawScreening {
        id: r.get(0)?,
        query: r.get(1)?,
        kind: r.get(2)?,
        threshold: r.get(3)?,
        created_at: r.get(4)?,
        total_matches: r.get::<_, i64>(5)? as u64,
        results: r.get(6)?,
        list_versions: r.get(7)?,
        engine_version: r.get(8)?,
        actor: r.get(9)?,
        origin: r.get(10)?,
        favorite_id: r.get(11)?,
        status: r.get(12)?,
    })
}

type RawDecision = (
    i64,
    String,
    Option<String>,
    String,
    String,
    String,
    String,
    String,
);

fn raw_decision(r: &Row<'_>) -> rusqlite::Result<RawDecision> {
    Ok((
        r.get(0)?,
        r.get(1)?,
        r.get(2)?,
        r.get(3)?,
        r.get(4)?,
        r.get(5)?,
        r.get(6)?,
        r.get(7)?,
    ))
}

fn finish_decision(raw: RawDecision) -> Result<DecisionRecord, StoreError> {
    let (id, screening_id, entity_id, from, to, note, actor, at) = raw;
    let what = format!("decision {id}");
    Ok(DecisionRecord {
        id,
        screening_id,
        entity_id,
        from: word(&from, &what, ReviewStatus::parse)?,
        to: word(&to, &what, ReviewStatus::parse)?,
        note,
        actor,
        at: parse_ts(&at, &what)?,
    })
}

fn decisions_in(
    tx: &Transaction<'_>,
    screening_id: &str,
) -> Result<Vec<DecisionRecord>, StoreError> {
    let mut stmt = tx.prepare(
        "SELECT id, screening_id, entity_id, from_status, to_status, note, actor, at
         FROM decisions WHERE screening_id = ?1 ORDER BY id",
    )?;
    let rows = stmt.query_map([screening_id], raw_decision)?;
    rows.map(|r| finish_decision(r?)).collect()
}

/// Each matched entity's status after replaying the decision log in order.
pub(crate) fn replay(matched: &[String], log: &[DecisionRecord]) -> Vec<(String, ReviewStatus)> {
    let mut statuses: Vec<(String, ReviewStatus)> = matched
        .iter()
        .map(|e| (e.clone(), ReviewStatus::PendingReview))
        .collect();
    for decision in log {
        apply(&mut statuses, decision.entity_id.as_deref(), decision.to);
    }
    statuses
}

/// A decision on one entity sets it; one on the whole screening settles every entity still
/// open (a final decision on an entity stays).
fn apply(statuses: &mut [(String, ReviewStatus)], entity: Option<&str>, to: ReviewStatus) {
    for (e, status) in statuses.iter_mut() {
        match entity {
            Some(wanted) if wanted == e => *status = to,
            Some(_) => {}
            None if status.is_open() && *status != to => *status = to,
            None => {}
        }
    }
}
