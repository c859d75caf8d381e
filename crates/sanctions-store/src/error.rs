//! The store's one error type, the same on every backend.
//!
//! A backend maps its driver's errors into these kinds at its edge (SQLite in
//! [`crate::sqlite_error`], PostgreSQL in `postgres::db`), so that callers tell a busy
//! database from a refused write or damaged data without naming a driver. The driver's error
//! is kept as the boxed source, so the cause chain is not lost.

use crate::model::ListCode;

/// Any error kept as the cause of a store error.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Why a store operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The row the caller named does not exist.
    #[error("{what} {id} not found")]
    NotFound { what: &'static str, id: String },
    /// The write conflicts with what is stored (a unique or foreign-key constraint).
    #[error("{message}")]
    Conflict {
        message: String,
        #[source]
        source: Option<BoxError>,
    },
    /// A conflict naming the favorite already on the watchlist.
    #[error("already on the watchlist as {existing_id} ({existing_name:?})")]
    Duplicate {
        existing_id: String,
        existing_name: String,
    },
    /// Another process holds what this operation needs (a lock, a serialization conflict,
    /// a deadlock): the same call may succeed when tried again.
    #[error(
        "the database is busy: another sanctions process kept it locked{}; try again when it has finished",
        for_seconds(*seconds)
    )]
    Busy {
        /// How long this call waited before giving up (0: it did not wait).
        seconds: u64,
        #[source]
        source: Option<BoxError>,
    },
    /// The database cannot be reached (connection refused or lost, no free connection).
    #[error("the database is unavailable: {message}; try again later")]
    Unavailable {
        message: String,
        #[source]
        source: Option<BoxError>,
    },
    /// Stored data is damaged: a corrupt database file, an unreadable or invalid record.
    #[error("{what} is damaged: {message}")]
    Integrity {
        /// What is damaged (`stored record X`, `the database`).
        what: String,
        message: String,
        #[source]
        source: Option<BoxError>,
    },
    #[error(
        "the database was written by a newer version of sanctions (schema {found}, this program knows {known})"
    )]
    TooNew { found: i64, known: i64 },
    #[error(
        "the database is at schema {found} and needs upgrading to {known}, which a read-only open cannot do; run `sanctions lists import` or `lists update` once with write access"
    )]
    NeedsUpgrade { found: i64, known: i64 },
    #[error(
        "the files would remove {removed} of the {before} entries of {list} ({after} left), more than an import may remove without --allow-shrink ([import] max_shrink_percent, min_shrink_entries): the files may be truncated or incomplete"
    )]
    WouldShrink {
        list: ListCode,
        removed: u64,
        before: u64,
        after: u64,
    },
    /// The disk holding the database is full (SQLite's `SQLITE_FULL`, PostgreSQL's
    /// `disk_full`): the operation wrote nothing.
    #[error(
        "the disk holding the database is full: nothing was written; free space on it, then try again"
    )]
    Full {
        #[source]
        source: Option<BoxError>,
    },
    /// A business rule refused the operation (the message says which).
    #[error("{0}")]
    Refused(String),
    /// Anything else, with its cause.
    #[error("{context}: {source}")]
    Other {
        context: String,
        #[source]
        source: BoxError,
    },
}

fn for_seconds(seconds: u64) -> String {
    match seconds {
        0 => String::new(),
        n => format!(" for {n} s"),
    }
}

impl StoreError {
    /// A stored record that cannot be read back (`source`: why).
    pub(crate) fn unreadable(what: &str, source: impl Into<BoxError>) -> StoreError {
        let source = source.into();
        StoreError::Integrity {
            what: format!("stored record {what}"),
            message: format!("unreadable: {source}"),
            source: Some(source),
        }
    }

    /// A stored record holding a value that is not allowed.
    pub(crate) fn invalid(what: &str, message: impl Into<String>) -> StoreError {
        StoreError::Integrity {
            what: format!("stored record {what}"),
            message: message.into(),
            source: None,
        }
    }

    /// A value that cannot be encoded for storage.
    pub(crate) fn encode(what: &str, source: impl Into<BoxError>) -> StoreError {
        StoreError::Other {
            context: format!("cannot encode record {what}"),
            source: source.into(),
        }
    }

    /// Whether the same call may succeed when tried again (busy or unavailable).
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            StoreError::Busy { .. } | StoreError::Unavailable { .. }
        )
    }

    /// Seconds a caller should wait before trying again, for a transient error.
    pub fn retry_after(&self) -> Option<u64> {
        match self {
            StoreError::Busy { .. } => Some(1),
            StoreError::Unavailable { .. } => Some(5),
            _ => None,
        }
    }
}
