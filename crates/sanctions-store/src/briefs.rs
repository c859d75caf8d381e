//! Risk briefs: one per list update that changed something, one per feed item.
//!
//! A brief is unique by `(source, guid)`: a feed read twice, or a list update briefed by two
//! processes, stores it once.

use jiff::Timestamp;
use rusqlite::{OptionalExtension, Row, params};

use super::codec::{from_json, parse_ts, to_json, ts_text};
use super::{Store, StoreError};

/// A stored brief.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BriefRecord {
    pub id: String,
    /// `list_update` or the feed's name.
    pub source: String,
    /// Unique within the source: `update:<id>` or the feed item's guid.
    pub guid: String,
    pub title: String,
    pub summary: String,
    /// Markdown.
    pub body: String,
    pub url: Option<String>,
    pub published_at: Timestamp,
    pub lists: Vec<String>,
    pub countries: Vec<String>,
    pub entity_ids: Vec<String>,
    /// `low`, `medium` or `high`.
    pub severity: String,
    pub created_at: Timestamp,
}

/// Which briefs to list, latest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BriefFilter {
    pub list: Option<String>,
    pub country: Option<String>,
    pub source: Option<String>,
    pub since: Option<Timestamp>,
    /// Words that must all appear in the title, summary or body (case-insensitive).
    pub q: Option<String>,
    /// Only briefs after this one in the order (the cursor of the previous page).
    pub after: Option<String>,
    pub limit: usize,
}

const COLUMNS: &str = "id, source, guid, title, summary, body, url, published_at, lists, \
    countries, entity_ids, severity, created_at";

type Raw = ([String; 6], Option<String>, [String; 6]);

fn raw(r: &Row<'_>) -> rusqlite::Result<Raw> {
    Ok((
        [
            r.get(0)?,
            r.get(1)?,
            r.get(2)?,
            r.get(3)?,
            r.get(4)?,
            r.get(5)?,
        ],
        r.get(6)?,
        [
            r.get(7)?,
            r.get(8)?,
            r.get(9)?,
            r.get(10)?,
            r.get(11)?,
            r.get(12)?,
        ],
    ))
}

fn brief_from(raw: Raw) -> Result<BriefRecord, StoreError> {
    let (
        [id, source, guid, title, summary, body],
        url,
        [published, lists, countries, ids, severity, created],
    ) = raw;
    Ok(BriefRecord {
        published_at: parse_ts(&published, &id)?,
        lists: from_json(&lists, &id)?,
        countries: from_json(&countries, &id)?,
        entity_ids: from_json(&ids, &id)?,
        created_at: parse_ts(&created, &id)?,
        severity,
        url,
        id,
        source,
        guid,
        title,
        summary,
        body,
    })
}

impl Store {
    /// Stores briefs, skipping any whose `(source, guid)` is already stored; returns how many
    /// were new.
    pub fn insert_briefs(&mut self, briefs: &[BriefRecord]) -> Result<usize, StoreError> {
        let tx = self.write()?;
        let mut added = 0;
        for b in briefs {
            added += tx
                .prepare_cached(&format!(
                    "INSERT OR IGNORE INTO briefs ({COLUMNS})
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"
                ))?
                .execute(params![
                    b.id,
                    b.source,
                    b.guid,
                    b.title,
                    b.summary,
                    b.body,
                    b.url,
                    ts_text(b.published_at),
                    to_json(&b.lists, &b.id)?,
                    to_json(&b.countries, &b.id)?,
                    to_json(&b.entity_ids, &b.id)?,
                    b.severity,
                    ts_text(b.created_at)
                ])?;
        }
        tx.commit()?;
        Ok(added)
    }

    /// Briefs matching `filter`, latest first.
    pub fn briefs(&self, filter: &BriefFilter) -> Result<Vec<BriefRecord>, StoreError> {
        let mut sql = format!("SELECT {COLUMNS} FROM briefs b WHERE 1 = 1");
        let mut args: Vec<String> = Vec::new();
        let mut arg = |sql: &mut String, clause: &str, value: String| {
            args.push(value);
            sql.push_str(&clause.replace('?', &format!("?{}", args.len())));
        };
        if let Some(list) = &filter.list {
            arg(
                &mut sql,
                " AND EXISTS (SELECT 1 FROM json_each(b.lists) WHERE value = ?)",
                list.clone(),
            );
        }
        if let Some(country) = &filter.country {
            arg(
                &mut sql,
                " AND EXISTS (SELECT 1 FROM json_each(b.countries) WHERE value = ?)",
                country.to_uppercase(),
            );
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
            arg(
                &mut sql,
                " AND lower(b.title || ' ' || b.summary || ' ' || b.body) LIKE ? ESCAPE '\\'",
                format!("%{escaped}%"),
            );
        }
        if let Some(after) = &filter.after {
            arg(
                &mut sql,
                " AND (b.published_at, b.id) < (SELECT published_at, id FROM briefs WHERE id = ?)",
                after.clone(),
            );
        }
        sql.push_str(&format!(
            " ORDER BY b.published_at DESC, b.id DESC LIMIT {}",
            filter.limit
        ));
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map(rusqlite::params_from_iter(args.iter()), raw)?;
        rows.map(|r| brief_from(r?)).collect()
    }

    /// One brief.
    pub fn brief(&self, id: &str) -> Result<Option<BriefRecord>, StoreError> {
        let raw = self
            .conn
            .query_row(
                &format!("SELECT {COLUMNS} FROM briefs WHERE id = ?1"),
                [id],
                raw,
            )
            .optional()?;
        raw.map(brief_from).transpose()
    }

    /// Ids of successful list updates that changed something and have no brief yet, oldest
    /// first.
    pub fn updates_without_brief(&self, limit: usize) -> Result<Vec<(i64, String)>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT u.id, u.list_code FROM list_updates u
             WHERE u.failed IS NULL AND u.added + u.removed + u.changed > 0
               AND NOT EXISTS (SELECT 1 FROM briefs b
                               WHERE b.source = 'list_update' AND b.guid = 'update:' || u.id)
             ORDER BY u.id LIMIT ?1",
        )?;
        let rows = stmt.query_map([limit as i64], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Whether a brief from `source` with `guid` is stored (a job's done-marker: a process
    /// that wins a brief's job checks it, since another may have finished it meanwhile).
    pub fn brief_stored(&self, source: &str, guid: &str) -> Result<bool, StoreError> {
        Ok(self.conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM briefs WHERE source = ?1 AND guid = ?2)",
            [source, guid],
            |r| r.get(0),
        )?)
    }
}
