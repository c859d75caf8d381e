//! The PostgreSQL backend of the store: several `sanctions serve` instances on one database.
//!
//! [`PostgresRepository`] implements [`super::Repository`] and [`super::KeyStore`] with the
//! blocking `postgres` client (the synchronous facade over `tokio-postgres`) and an `r2d2`
//! pool, because the store interface blocks: async callers already run its methods with
//! `spawn_blocking`, where the facade's own `block_on` is allowed (it is not on a tokio
//! worker thread). Values are stored as the SQLite backend stores them (timestamps as
//! fixed-width RFC 3339 text, lists as JSON text, a screening's results packed), so both
//! backends share `store::codec` and a copy between them is a row-for-row copy.
//!
//! Business rules live in this code, not in triggers: the audit logs are only ever appended
//! to (no statement here updates or deletes them), the `list.updated` event and the earlier
//! versions of changed entries are written by [`lists`] in the import's transaction, and
//! list imports run under a transaction-scoped advisory lock so that two instances never
//! import the same list at once.

mod connect;
mod copy;
mod keys;
mod listen;
mod lists;
mod ops;
mod records;
mod repo;
mod schema;
mod watchlist;
mod webhooks;

pub use connect::{PostgresRepository, name_connections, redacted};
pub use copy::{CopyReport, copy_from_sqlite, copy_to_sqlite, known_version};
pub use listen::ListChanges;

use postgres::{Row, Transaction};

use super::StoreError;

/// A PostgreSQL error as a store error: a lock or serialization conflict is
/// [`StoreError::Busy`] (try again), a unique violation is a refusal naming the constraint,
/// everything else keeps the server's message (and its detail) in the text.
pub(crate) fn db(error: postgres::Error) -> StoreError {
    use postgres::error::SqlState;
    let Some(server) = error.as_db_error() else {
        return StoreError::Refused(format!("PostgreSQL: {}", chain(&error)));
    };
    let code = server.code();
    if *code == SqlState::T_R_SERIALIZATION_FAILURE
        || *code == SqlState::T_R_DEADLOCK_DETECTED
        || *code == SqlState::LOCK_NOT_AVAILABLE
        || *code == SqlState::QUERY_CANCELED
    {
        return StoreError::Busy {
            seconds: super::BUSY_TIMEOUT.as_secs(),
        };
    }
    let detail = server
        .detail()
        .map(|d| format!(" ({d})"))
        .unwrap_or_default();
    StoreError::Refused(format!("PostgreSQL: {}{detail}", server.message()))
}

/// An error's message followed by its causes.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// An unsigned count as the BIGINT PostgreSQL stores.
fn big(n: impl TryInto<i64>) -> i64 {
    n.try_into().unwrap_or(i64::MAX)
}

/// A stored BIGINT count back as unsigned (a negative one, impossible here, reads as 0).
fn count(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

/// A column of `row`, or a store error naming it (never a panic on a type mismatch).
fn col<'a, T: postgres::types::FromSql<'a>>(row: &'a Row, index: usize) -> Result<T, StoreError> {
    row.try_get(index).map_err(db)
}

/// The advisory lock between event writers (shared) and the fan-out (exclusive).
const OUTBOX_LOCK: i64 = 0x5341_4e43_0002;

/// Holds the outbox lock shared until the transaction ends (before writing an event).
fn writing_events(tx: &mut Transaction<'_>) -> Result<(), StoreError> {
    tx.execute("SELECT pg_advisory_xact_lock_shared($1)", &[&OUTBOX_LOCK])
        .map_err(db)?;
    Ok(())
}
