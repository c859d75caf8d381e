//! SQLite's errors mapped into the backend-neutral [`StoreError`] at the backend's edge: a
//! lock timeout is busy, a constraint a conflict, a damaged file an integrity error, no room
//! left on the disk [`StoreError::Full`], a file that cannot be opened unavailable; the
//! driver's error stays as the source.

use rusqlite::ErrorCode;

use super::{BUSY_TIMEOUT, BoxError, StoreError};

impl From<rusqlite::Error> for StoreError {
    fn from(error: rusqlite::Error) -> StoreError {
        let message = error.to_string();
        let code = error.sqlite_error_code();
        let cause: BoxError = Box::new(error);
        match code {
            Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => StoreError::Busy {
                seconds: BUSY_TIMEOUT.as_secs(),
                source: Some(cause),
            },
            Some(ErrorCode::ConstraintViolation) => StoreError::Conflict {
                message,
                source: Some(cause),
            },
            Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase) => StoreError::Integrity {
                what: "the database".into(),
                message,
                source: Some(cause),
            },
            Some(ErrorCode::DiskFull) => StoreError::Full {
                source: Some(cause),
            },
            Some(ErrorCode::CannotOpen) => StoreError::Unavailable {
                message,
                source: Some(cause),
            },
            _ => StoreError::Other {
                context: "database error".into(),
                source: cause,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(code: std::ffi::c_int) -> StoreError {
        rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(code), None).into()
    }

    #[test]
    fn sqlite_codes_map_to_neutral_kinds_keeping_the_cause() {
        use rusqlite::ffi;
        assert!(matches!(
            failure(ffi::SQLITE_BUSY),
            StoreError::Busy {
                seconds: 10,
                source: Some(_)
            }
        ));
        assert!(matches!(
            failure(ffi::SQLITE_LOCKED),
            StoreError::Busy { .. }
        ));
        assert!(matches!(
            failure(ffi::SQLITE_CONSTRAINT_UNIQUE),
            StoreError::Conflict { .. }
        ));
        assert!(matches!(
            failure(ffi::SQLITE_CORRUPT),
            StoreError::Integrity { .. }
        ));
        assert!(matches!(
            failure(ffi::SQLITE_NOTADB),
            StoreError::Integrity { .. }
        ));
        assert!(matches!(
            failure(ffi::SQLITE_CANTOPEN),
            StoreError::Unavailable { .. }
        ));
        let full = failure(ffi::SQLITE_FULL);
        assert!(
            matches!(full, StoreError::Full { source: Some(_) }),
            "{full:?}"
        );
        assert!(
            full.to_string()
                .contains("disk holding the database is full")
        );
        let other = failure(ffi::SQLITE_IOERR);
        assert!(matches!(other, StoreError::Other { .. }), "{other:?}");
        let cause = std::error::Error::source(&other).map(|s| s.to_string());
        assert!(cause.is_some_and(|c| c.contains("I/O")), "{other:?}");
        let no_rows: StoreError = rusqlite::Error::QueryReturnedNoRows.into();
        assert!(matches!(no_rows, StoreError::Other { .. }));
        assert!(failure(ffi::SQLITE_BUSY).is_transient());
        assert!(!failure(ffi::SQLITE_CONSTRAINT_UNIQUE).is_transient());
    }
}
