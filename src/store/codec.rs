//! How domain values are written in SQLite columns: timestamps as fixed-width RFC 3339 UTC
//! text (so that text order is time order), lists of ids and list versions as JSON.

use jiff::Timestamp;

use super::StoreError;
use crate::model::ListVersions;

/// `2026-11-22T23:59:01.123456Z`: microseconds, always six digits.
pub(crate) fn ts_text(ts: Timestamp) -> String {
    let micros = ts.as_microsecond();
    let whole = Timestamp::from_second(micros.div_euclid(1_000_000)).unwrap_or(ts);
    format!(
        "{}.{:06}Z",
        whole.strftime("%Y-%m-%dT%H:%M:%S"),
        micros.rem_euclid(1_000_000)
    )
}

/// The current time as [`ts_text`].
pub(crate) fn now_text() -> String {
    ts_text(Timestamp::now())
}

/// Reads [`ts_text`] (or any RFC 3339 timestamp).
pub(crate) fn parse_ts(text: &str, what: &str) -> Result<Timestamp, StoreError> {
    text.parse().map_err(|_| StoreError::Invalid {
        entity_id: what.to_owned(),
        message: format!("bad timestamp {text:?}"),
    })
}

/// An optional timestamp column.
pub(crate) fn parse_ts_opt(
    text: Option<String>,
    what: &str,
) -> Result<Option<Timestamp>, StoreError> {
    text.map(|t| parse_ts(&t, what)).transpose()
}

/// A JSON column.
pub(crate) fn to_json<T: serde::Serialize>(value: &T, what: &str) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(|source| StoreError::Encode {
        entity_id: what.to_owned(),
        source,
    })
}

/// Reads a JSON column.
pub(crate) fn from_json<T: serde::de::DeserializeOwned>(
    text: &str,
    what: &str,
) -> Result<T, StoreError> {
    serde_json::from_str(text).map_err(|source| StoreError::Corrupt {
        entity_id: what.to_owned(),
        source,
    })
}

/// Reads a list-versions column.
pub(crate) fn versions(text: &str, what: &str) -> Result<ListVersions, StoreError> {
    from_json(text, what)
}

/// A stored word that must parse, or a clear corruption error.
pub(crate) fn word<T>(
    text: &str,
    what: &str,
    parse: impl Fn(&str) -> Option<T>,
) -> Result<T, StoreError> {
    parse(text).ok_or_else(|| StoreError::Invalid {
        entity_id: what.to_owned(),
        message: format!("unknown value {text:?}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_sort_as_text_and_round_trip() {
        let a: Timestamp = "2026-01-02T03:04:05.1Z".parse().unwrap();
        let b: Timestamp = "2026-01-02T03:04:05.02Z".parse().unwrap();
        assert_eq!(ts_text(a), "2026-01-02T03:04:05.100000Z");
        assert!(ts_text(b) < ts_text(a));
        assert_eq!(parse_ts(&ts_text(a), "x").unwrap(), a);
    }
}
