//! Figures for an operator (`GET /metrics`) on PostgreSQL: the same totals as on SQLite, and
//! the size of the store's tables (with their indexes and TOAST) in its schema.

use super::connect::PostgresRepository;
use super::{col, count, db};
use crate::model::ListCode;
use crate::{OpsStats, StoreError};

impl PostgresRepository {
    /// The store's figures for `/metrics`.
    pub fn ops_stats(&self) -> Result<OpsStats, StoreError> {
        self.snapshot(|tx| {
            let mut total = |sql: &str| -> Result<u64, StoreError> {
                let row = tx.query_one(sql, &[]).map_err(db)?;
                Ok(count(col(&row, 0)?))
            };
            let screenings = total("SELECT count(*) FROM screenings")?;
            let outbox_backlog =
                total("SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'")?;
            let rescreen_runs = total("SELECT count(*) FROM rescreen_runs")?;
            let store_bytes = total(
                "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::BIGINT
                 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                 WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'm')",
            )?;
            let mut lists = Vec::with_capacity(ListCode::ALL.len());
            for list in ListCode::ALL {
                let row = tx
                    .query_opt(
                        "SELECT last_update, updated_at FROM lists WHERE code = $1",
                        &[&list.code()],
                    )
                    .map_err(db)?;
                let (update, at) = match row {
                    Some(row) => (col(&row, 0)?, col(&row, 1)?),
                    None => (None, None),
                };
                lists.push((list, update, at));
            }
            Ok(OpsStats {
                screenings,
                outbox_backlog,
                rescreen_runs,
                lists,
                store_bytes,
            })
        })
    }
}
