//! One timestamp form on the wire: RFC 3339 in UTC with exactly six fractional digits
//! (`2026-11-22T23:59:01.123456Z`), the form the store keeps, so a resource's time reads the
//! same when it is created and when it is read back, and compares as text.

use jiff::Timestamp;
use serde::Serializer;

/// `2026-11-22T23:59:01.123456Z`: microseconds (truncated), always six digits.
pub fn text(ts: Timestamp) -> String {
    let micros = ts.as_microsecond();
    let whole = Timestamp::from_second(micros.div_euclid(1_000_000)).unwrap_or(ts);
    format!(
        "{}.{:06}Z",
        whole.strftime("%Y-%m-%dT%H:%M:%S"),
        micros.rem_euclid(1_000_000)
    )
}

/// `serialize_with` of a timestamp field.
pub fn fixed<S: Serializer>(ts: &Timestamp, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&text(*ts))
}

/// `serialize_with` of an optional timestamp field.
pub fn fixed_option<S: Serializer>(ts: &Option<Timestamp>, s: S) -> Result<S::Ok, S::Error> {
    match ts {
        Some(ts) => s.serialize_some(&text(*ts)),
        None => s.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn six_digits_whatever_the_precision() {
        let cases = [
            ("2026-11-22T23:59:01Z", "2026-11-22T23:59:01.000000Z"),
            ("2026-11-22T23:59:01.1Z", "2026-11-22T23:59:01.100000Z"),
            (
                "2026-11-22T23:59:01.123456789Z",
                "2026-11-22T23:59:01.123456Z",
            ),
            ("2026-11-23T01:59:01.5+02:00", "2026-11-22T23:59:01.500000Z"),
        ];
        for (given, wire) in cases {
            assert_eq!(text(given.parse().unwrap()), wire, "{given}");
        }
    }
}
