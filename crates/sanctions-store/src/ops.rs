//! Figures for an operator (`GET /metrics`): totals over every account, never their rows.

use rusqlite::OptionalExtension;

use super::{Store, StoreError};
use crate::model::ListCode;

/// What `/metrics` reports from the store.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OpsStats {
    /// Screenings stored, all accounts.
    pub screenings: u64,
    /// Webhook deliveries waiting to be made (pending).
    pub outbox_backlog: u64,
    /// Watchlist re-screen runs recorded.
    pub rescreen_runs: u64,
    /// Per list: its last update id and when it was imported (RFC 3339), if ever.
    pub lists: Vec<(ListCode, Option<i64>, Option<String>)>,
    /// Bytes the store takes: the SQLite file and its WAL; on PostgreSQL, the tables of its
    /// schema with their indexes.
    pub store_bytes: u64,
}

impl Store {
    /// The store's figures for `/metrics`.
    pub fn ops_stats(&self) -> Result<OpsStats, StoreError> {
        let count = |sql: &str| -> Result<u64, StoreError> {
            let n: i64 = self.conn.query_row(sql, [], |r| r.get(0))?;
            Ok(n.max(0) as u64)
        };
        let mut stmt = self
            .conn
            .prepare_cached("SELECT last_update, updated_at FROM lists WHERE code = ?1")?;
        let mut lists = Vec::with_capacity(ListCode::ALL.len());
        for list in ListCode::ALL {
            let row: Option<(Option<i64>, Option<String>)> = stmt
                .query_row([list.code()], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()?;
            let (update, at) = row.unwrap_or((None, None));
            lists.push((list, update, at));
        }
        Ok(OpsStats {
            screenings: count("SELECT count(*) FROM screenings")?,
            outbox_backlog: count(
                "SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'",
            )?,
            rescreen_runs: count("SELECT count(*) FROM rescreen_runs")?,
            lists,
            store_bytes: self.file_bytes(),
        })
    }

    /// The sizes of the database file and its WAL (0 in memory).
    fn file_bytes(&self) -> u64 {
        let Some(path) = self.conn.path().filter(|p| !p.is_empty()) else {
            return 0;
        };
        [path.to_owned(), format!("{path}-wal")]
            .iter()
            .filter_map(|p| std::fs::metadata(p).ok())
            .map(|m| m.len())
            .sum()
    }
}
