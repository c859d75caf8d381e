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
mod jobs;
mod keys;
mod listen;
mod lists;
mod ops;
mod records;
mod repo;
mod rescreen_chunks;
mod schema;
mod watchlist;
mod webhooks;

pub use connect::{PostgresRepository, name_connections, redacted};
pub use copy::{CopyReport, copy_from_sqlite, copy_to_sqlite, known_version};
pub use listen::ListChanges;

use postgres::{Row, Transaction};

use super::StoreError;

/// A PostgreSQL error as a backend-neutral store error, the driver's error kept as the
/// source: a serialization failure, a deadlock or a lock timeout is [`StoreError::Busy`]
/// (try again), a unique or foreign-key violation a [`StoreError::Conflict`], a lost or
/// refused connection (or a server shutting down) [`StoreError::Unavailable`], data damage
/// [`StoreError::Integrity`], the server's full disk [`StoreError::Full`]; everything else
/// [`StoreError::Other`] with the server's message (and its detail) in the text.
pub(crate) fn db(error: postgres::Error) -> StoreError {
    let kind = kind_of(&error);
    let message = message_of(&error);
    let cause: super::BoxError = Box::new(error);
    match kind {
        Kind::Busy => StoreError::Busy {
            seconds: 0,
            source: Some(cause),
        },
        Kind::Conflict => StoreError::Conflict {
            message,
            source: Some(cause),
        },
        Kind::Unavailable => StoreError::Unavailable {
            message,
            source: Some(cause),
        },
        Kind::Full => StoreError::Full {
            source: Some(cause),
        },
        Kind::Integrity => StoreError::Integrity {
            what: "the database".into(),
            message,
            source: Some(cause),
        },
        Kind::Other => StoreError::Other {
            context: message,
            source: cause,
        },
    }
}

/// What a PostgreSQL error means to a caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Busy,
    Conflict,
    Unavailable,
    Integrity,
    Full,
    Other,
}

fn kind_of(error: &postgres::Error) -> Kind {
    match error.code() {
        Some(code) => kind_of_state(code),
        // No SQLSTATE: the connection (closed, refused, I/O, TLS) unless the error is a
        // conversion of a value this side.
        None if error.is_closed() || has_io_cause(error) => Kind::Unavailable,
        None if error.to_string().starts_with("error connecting") => Kind::Unavailable,
        None => Kind::Other,
    }
}

/// The kind of a server error by its SQLSTATE.
fn kind_of_state(code: &postgres::error::SqlState) -> Kind {
    use postgres::error::SqlState;
    let busy = [
        SqlState::T_R_SERIALIZATION_FAILURE,
        SqlState::T_R_DEADLOCK_DETECTED,
        SqlState::LOCK_NOT_AVAILABLE,
        SqlState::QUERY_CANCELED,
    ];
    let unavailable = [
        SqlState::ADMIN_SHUTDOWN,
        SqlState::CRASH_SHUTDOWN,
        SqlState::CANNOT_CONNECT_NOW,
        SqlState::TOO_MANY_CONNECTIONS,
    ];
    let conflict = [
        SqlState::UNIQUE_VIOLATION,
        SqlState::FOREIGN_KEY_VIOLATION,
        SqlState::EXCLUSION_VIOLATION,
    ];
    let integrity = [SqlState::DATA_CORRUPTED, SqlState::INDEX_CORRUPTED];
    let class = code.code().get(..2).unwrap_or_default();
    if busy.contains(code) {
        Kind::Busy
    } else if unavailable.contains(code) || class == "08" {
        Kind::Unavailable
    } else if conflict.contains(code) {
        Kind::Conflict
    } else if integrity.contains(code) {
        Kind::Integrity
    } else if *code == SqlState::DISK_FULL {
        Kind::Full
    } else {
        Kind::Other
    }
}

fn has_io_cause(error: &postgres::Error) -> bool {
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if cause.is::<std::io::Error>() {
            return true;
        }
        source = cause.source();
    }
    false
}

/// `PostgreSQL: ` and the server's message with its detail, or the error's chain.
fn message_of(error: &postgres::Error) -> String {
    let Some(server) = error.as_db_error() else {
        return format!("PostgreSQL: {}", chain(error));
    };
    let detail = server
        .detail()
        .map(|d| format!(" ({d})"))
        .unwrap_or_default();
    format!("PostgreSQL: {}{detail}", server.message())
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

#[cfg(test)]
mod tests {
    use super::{Kind, kind_of_state};
    use postgres::error::SqlState;

    #[test]
    fn sqlstates_map_to_what_they_mean_to_a_caller() {
        for (state, kind) in [
            (SqlState::T_R_SERIALIZATION_FAILURE, Kind::Busy),
            (SqlState::LOCK_NOT_AVAILABLE, Kind::Busy),
            (SqlState::ADMIN_SHUTDOWN, Kind::Unavailable),
            (SqlState::CONNECTION_FAILURE, Kind::Unavailable),
            (SqlState::UNIQUE_VIOLATION, Kind::Conflict),
            (SqlState::DATA_CORRUPTED, Kind::Integrity),
            (SqlState::DISK_FULL, Kind::Full),
            (SqlState::SYNTAX_ERROR, Kind::Other),
        ] {
            assert_eq!(kind_of_state(&state), kind, "{}", state.code());
        }
    }
}
