//! The one error type of the [`super::Service`] trait, mapped onto the interface's statuses.

use crate::store::StoreError;

/// Why a service call failed. [`ServiceError::status`] is the HTTP status a server answers
/// with; the remote client maps statuses back onto these variants.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ServiceError {
    /// 404: the resource named in the path does not exist.
    #[error("{what} {id} not found")]
    NotFound { what: String, id: String },
    /// 400: malformed input or a missing required field.
    #[error("{0}")]
    Invalid(String),
    /// 422: a well-formed value that is not allowed, naming the field.
    #[error("{field}: {message}")]
    Validation { field: String, message: String },
    /// 401: missing or invalid credentials (remote only).
    #[error("{0}")]
    Unauthorized(String),
    /// 403: the plan does not allow it, or credits are exhausted.
    #[error("{0}")]
    Forbidden(String),
    /// 429: too many requests; `retry_after` seconds when known.
    #[error("{message}")]
    RateLimited {
        message: String,
        retry_after: Option<u64>,
    },
    /// 503: no data yet, or the server cannot be reached.
    #[error("{0}")]
    Unavailable(String),
    /// 503 with `Retry-After`: the store is busy (another process holds a lock) or cannot be
    /// reached for now; the same call may succeed after `retry_after` seconds.
    #[error("{message}")]
    Busy { message: String, retry_after: u64 },
    /// 500: a fault of the service itself (a corrupt store, a crashed worker).
    #[error("internal error: {0}")]
    Internal(String),
}

impl ServiceError {
    /// The HTTP status of this error.
    pub fn status(&self) -> u16 {
        match self {
            ServiceError::NotFound { .. } => 404,
            ServiceError::Invalid(_) => 400,
            ServiceError::Validation { .. } => 422,
            ServiceError::Unauthorized(_) => 401,
            ServiceError::Forbidden(_) => 403,
            ServiceError::RateLimited { .. } => 429,
            ServiceError::Unavailable(_) | ServiceError::Busy { .. } => 503,
            ServiceError::Internal(_) => 500,
        }
    }

    /// A 422 naming `field`.
    pub fn validation(field: &str, message: impl Into<String>) -> ServiceError {
        ServiceError::Validation {
            field: field.to_owned(),
            message: message.into(),
        }
    }

    /// A 404.
    pub fn not_found(what: &str, id: &str) -> ServiceError {
        ServiceError::NotFound {
            what: what.to_owned(),
            id: quoted(id),
        }
    }
}

/// Most characters of a caller's id (or cursor) a message quotes: every id the service makes
/// is far shorter, and a path or query of kilobytes is not sent back whole.
const QUOTED_CHARS: usize = 100;

/// `text` as a message quotes it: its first [`QUOTED_CHARS`] characters, then `…`.
pub(crate) fn quoted(text: &str) -> String {
    match text.char_indices().nth(QUOTED_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

impl From<StoreError> for ServiceError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::NotFound { what, id } => ServiceError::not_found(what, &id),
            StoreError::Refused(message) => ServiceError::validation("status", message),
            StoreError::Duplicate { .. } => ServiceError::validation("name", error.to_string()),
            StoreError::Busy { .. } | StoreError::Unavailable { .. } => ServiceError::Busy {
                retry_after: error.retry_after().unwrap_or(1),
                message: error.to_string(),
            },
            StoreError::WouldShrink { .. } => ServiceError::Invalid(error.to_string()),
            // Not the request's fault, nor a bug: the operator must free space (503).
            StoreError::Full { .. } => ServiceError::Unavailable(error.to_string()),
            // Conflicts the code did not refuse first (a constraint of the schema), damaged
            // data and the rest are faults of the service, not of the request.
            other => ServiceError::Internal(other.to_string()),
        }
    }
}

impl From<tokio::task::JoinError> for ServiceError {
    fn from(error: tokio::task::JoinError) -> Self {
        ServiceError::Internal(format!("a worker stopped: {error}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_quotes_a_long_id_cut_short() {
        let long = "ж".repeat(5_000);
        let message = ServiceError::not_found("webhook", &long).to_string();
        assert!(message.chars().count() < 150, "{message}");
        assert!(
            message.contains(&format!("{}…", "ж".repeat(100))),
            "{message}"
        );
        let short = ServiceError::not_found("screening", "scr_01J").to_string();
        assert!(short.contains("scr_01J") && !short.contains('…'), "{short}");
    }

    #[test]
    fn transient_store_errors_are_busy_with_a_wait_the_rest_keep_their_status() {
        let busy = ServiceError::from(StoreError::Busy {
            seconds: 10,
            source: None,
        });
        assert!(
            matches!(&busy, ServiceError::Busy { retry_after: 1, message } if message.contains("busy")),
            "{busy:?}"
        );
        assert_eq!(busy.status(), 503);
        let down = ServiceError::from(StoreError::Unavailable {
            message: "no connection to PostgreSQL".into(),
            source: None,
        });
        assert!(
            matches!(down, ServiceError::Busy { retry_after: 5, .. }),
            "{down:?}"
        );
        let damaged = ServiceError::from(StoreError::Integrity {
            what: "the database".into(),
            message: "malformed".into(),
            source: None,
        });
        assert_eq!(damaged.status(), 500);
        let missing = ServiceError::from(StoreError::NotFound {
            what: "favorite",
            id: "fav_1".into(),
        });
        assert_eq!(missing.status(), 404);
        let full = ServiceError::from(StoreError::Full { source: None });
        assert_eq!(full.status(), 503);
        assert!(
            full.to_string()
                .starts_with("the disk holding the database is full"),
            "not an internal error: {full}"
        );
    }
}
