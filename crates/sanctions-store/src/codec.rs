//! How domain values are written in SQLite columns: timestamps as fixed-width RFC 3339 UTC
//! text (so that text order is time order), lists of ids and list versions as JSON, and a
//! screening's results as compressed JSON (see [`to_packed_json`]).

use jiff::Timestamp;

use super::StoreError;
use crate::model::ListVersions;

/// `2026-11-22T23:59:01.123456Z`: microseconds, always six digits (the wire's form too).
pub(crate) fn ts_text(ts: Timestamp) -> String {
    crate::model::time::text(ts)
}

/// The current time as [`ts_text`].
pub(crate) fn now_text() -> String {
    ts_text(Timestamp::now())
}

/// Reads [`ts_text`] (or any RFC 3339 timestamp).
pub(crate) fn parse_ts(text: &str, what: &str) -> Result<Timestamp, StoreError> {
    text.parse()
        .map_err(|_| StoreError::invalid(what, format!("bad timestamp {text:?}")))
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
    serde_json::to_string(value).map_err(|source| StoreError::encode(what, source))
}

/// Reads a JSON column.
pub(crate) fn from_json<T: serde::de::DeserializeOwned>(
    text: &str,
    what: &str,
) -> Result<T, StoreError> {
    serde_json::from_str(text).map_err(|source| StoreError::unreadable(what, source))
}

/// The most a packed column may inflate to when read (a screening's results hold at most
/// the engine's maximum limit of matches, a few hundred KiB at worst): a damaged or forged
/// blob is refused as invalid rather than inflated without bound.
const MAX_PACKED_JSON: usize = 16 * 1024 * 1024;

/// The first byte of a packed column: its format (LZ4 block, then the JSON's length as four
/// bytes little-endian, then the block), so that another format can follow without
/// guessing.
const PACKED_LZ4: u8 = 1;

/// A large JSON column (a screening's results) as a BLOB of LZ4-compressed JSON: the results
/// are most of what a screening writes (some 2 KB of JSON for a name with ten matches,
/// explanations included), they are written for every screening and read back rarely, and
/// JSON of repeated field names compresses about threefold. Fewer bytes per screening mean
/// less WAL to sync on every commit and less for the checkpointer to copy (see
/// `store::checkpoint`). LZ4 rather than deflate: measured on a 2.2 KB result (release,
/// mimalloc, loaded machine), LZ4 took 2.3 µs for 682 bytes, deflate level 1 21-27 µs for
/// 558 bytes; at thousands of screenings a second the server's CPU is worth more than the
/// last hundred bytes.
pub(crate) fn to_packed_json<T: serde::Serialize>(
    value: &T,
    what: &str,
) -> Result<Vec<u8>, StoreError> {
    let json = serde_json::to_vec(value).map_err(|source| StoreError::encode(what, source))?;
    // The block with its length first, behind the format byte.
    let block = lz4_flex::block::compress_prepend_size(&json);
    let mut packed = Vec::with_capacity(1 + block.len());
    packed.push(PACKED_LZ4);
    packed.extend_from_slice(&block);
    Ok(packed)
}

/// Reads a column written by [`to_packed_json`], or plain JSON text (rows stored before
/// results were packed, which stay as they were).
pub(crate) fn from_packed_json<T: serde::de::DeserializeOwned>(
    stored: &Packed,
    what: &str,
) -> Result<T, StoreError> {
    let bytes = match stored {
        Packed::Text(text) => return from_json(text, what),
        Packed::Compressed(bytes) => bytes,
    };
    let invalid = |message: String| StoreError::invalid(what, message);
    let block = match bytes.split_first() {
        Some((&PACKED_LZ4, block)) => block,
        Some((format, _)) => return Err(invalid(format!("unknown packed format {format}"))),
        None => return Err(invalid("empty packed results".into())),
    };
    let (size, compressed) = lz4_flex::block::uncompressed_size(block)
        .map_err(|e| invalid(format!("cannot read the stored results: {e}")))?;
    if size > MAX_PACKED_JSON {
        return Err(invalid(format!(
            "the stored results would take {size} bytes, more than {MAX_PACKED_JSON}"
        )));
    }
    let json = lz4_flex::block::decompress(compressed, size)
        .map_err(|e| invalid(format!("cannot read the stored results: {e}")))?;
    serde_json::from_slice(&json).map_err(|source| StoreError::unreadable(what, source))
}

/// A packed JSON column as read: text (older rows) or compressed bytes.
#[derive(Debug)]
pub(crate) enum Packed {
    Text(String),
    Compressed(Vec<u8>),
}

impl rusqlite::types::FromSql for Packed {
    fn column_result(value: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
        match value {
            rusqlite::types::ValueRef::Blob(bytes) => Ok(Packed::Compressed(bytes.to_vec())),
            other => other.as_str().map(|text| Packed::Text(text.to_owned())),
        }
    }
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
    parse(text).ok_or_else(|| StoreError::invalid(what, format!("unknown value {text:?}")))
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

    #[test]
    fn packed_json_round_trips_reads_old_text_and_refuses_damage() {
        let one = serde_json::json!({"name": "PUTIN, Vladimir", "score": 100});
        let value = serde_json::Value::Array(vec![one; 20]);
        let packed = to_packed_json(&value, "s1").unwrap();
        let text = to_json(&value, "s1").unwrap();
        assert!(
            packed.len() * 4 < text.len(),
            "{} vs {}",
            packed.len(),
            text.len()
        );
        let back: serde_json::Value = from_packed_json(&Packed::Compressed(packed), "s1").unwrap();
        assert_eq!(back, value);
        let old: serde_json::Value = from_packed_json(&Packed::Text(text), "s1").unwrap();
        assert_eq!(old, value);
        let mut damaged = vec![PACKED_LZ4];
        damaged.extend_from_slice(&10u32.to_le_bytes());
        damaged.extend_from_slice(&[0xff; 6]);
        let damaged = from_packed_json::<serde_json::Value>(&Packed::Compressed(damaged), "s1");
        assert!(
            matches!(damaged, Err(StoreError::Integrity { .. })),
            "{damaged:?}"
        );
    }

    #[test]
    fn a_packed_bomb_is_refused_not_inflated_without_bound() {
        // A forged length prefix: 4 GiB of JSON claimed.
        let mut bomb = vec![PACKED_LZ4];
        bomb.extend_from_slice(&u32::MAX.to_le_bytes());
        bomb.extend_from_slice(&[0x1f, b' ', 0, 0]);
        let read = from_packed_json::<serde_json::Value>(&Packed::Compressed(bomb), "s1");
        let Err(StoreError::Integrity { message, .. }) = read else {
            panic!("{read:?}")
        };
        assert!(message.contains("more than"), "{message}");
        let unknown = from_packed_json::<serde_json::Value>(&Packed::Compressed(vec![9, 0]), "s1");
        assert!(
            matches!(unknown, Err(StoreError::Integrity { .. })),
            "{unknown:?}"
        );
    }

    mod properties {
        //! Encode then decode gives back the value, for arbitrary values (proptest).

        use proptest::prelude::*;
        use serde_json::Value;

        use super::super::*;
        use crate::model::ListCode;

        /// Any JSON value without floats (serde_json reads a float back to within one ULP
        /// only), up to four levels deep.
        fn json() -> impl Strategy<Value = Value> {
            let leaf = prop_oneof![
                Just(Value::Null),
                any::<bool>().prop_map(Value::Bool),
                any::<i64>().prop_map(Value::from),
                any::<u64>().prop_map(Value::from),
                any::<String>().prop_map(Value::String),
            ];
            leaf.prop_recursive(4, 64, 8, |inner| {
                prop_oneof![
                    prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
                    prop::collection::btree_map(any::<String>(), inner, 0..8)
                        .prop_map(|m| Value::Object(m.into_iter().collect())),
                ]
            })
        }

        /// Any instant of years 1 to 9999 (the fixed-width text's range), to the microsecond.
        fn instant() -> impl Strategy<Value = Timestamp> {
            let first = -62_135_596_800_i64; // 0001-01-01T00:00:00Z
            let last = 253_402_300_799_i64; // 9999-12-31T23:59:59Z
            (first..=last, 0..1_000_000_i64).prop_map(|(s, us)| {
                Timestamp::from_microsecond(s * 1_000_000 + us).unwrap_or(Timestamp::UNIX_EPOCH)
            })
        }

        fn list_versions() -> impl Strategy<Value = ListVersions> {
            let code = prop::sample::select(ListCode::ALL.to_vec());
            prop::collection::btree_map(code, any::<i64>(), 0..ListCode::ALL.len())
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(256))]

            #[test]
            fn timestamps_round_trip_and_sort_as_text(a in instant(), b in instant()) {
                prop_assert_eq!(parse_ts(&ts_text(a), "t")?, a);
                prop_assert_eq!(ts_text(a).len(), 27);
                prop_assert_eq!(ts_text(a).cmp(&ts_text(b)), a.cmp(&b));
                let opt = parse_ts_opt(Some(ts_text(b)), "t")?;
                prop_assert_eq!(opt, Some(b));
            }

            #[test]
            fn json_columns_round_trip(value in json()) {
                let text = to_json(&value, "v")?;
                prop_assert_eq!(&from_json::<Value>(&text, "v")?, &value);
            }

            #[test]
            fn packed_columns_round_trip_and_read_their_text_form(value in json()) {
                let packed = to_packed_json(&value, "v")?;
                let back: Value = from_packed_json(&Packed::Compressed(packed), "v")?;
                prop_assert_eq!(&back, &value);
                let text = Packed::Text(to_json(&value, "v")?);
                prop_assert_eq!(&from_packed_json::<Value>(&text, "v")?, &value);
            }

            #[test]
            fn list_versions_and_id_lists_round_trip(
                map in list_versions(),
                ids in prop::collection::vec(any::<String>(), 0..20),
            ) {
                prop_assert_eq!(versions(&to_json(&map, "v")?, "v")?, map);
                prop_assert_eq!(from_json::<Vec<String>>(&to_json(&ids, "v")?, "v")?, ids);
            }

            #[test]
            fn any_stored_bytes_decode_or_fail_cleanly(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
                // Damaged or forged bytes: an error, never a panic or an unbounded inflation.
                let read = from_packed_json::<Value>(&Packed::Compressed(bytes), "v");
                if let Err(e) = read {
                    prop_assert!(matches!(e, StoreError::Integrity { .. }), "{e:?}");
                }
            }
        }
    }
}
