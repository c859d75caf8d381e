//! Property tests of batch input parsing: rows written as CSV (quoted when they must be or at
//! random, with commas, quotes and line breaks inside, CR, LF or CRLF line ends) read back as
//! the same names and columns; and no input, however broken, panics. A fixed seed keeps
//! `cargo test` deterministic; `PROPTEST_RNG_SEED=N` and `PROPTEST_CASES=N` explore further.

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

use super::{InputOptions, parse_input};

fn config() -> Config {
    let mut config = Config::default();
    if std::env::var_os("PROPTEST_RNG_SEED").is_none() {
        config.rng_seed = RngSeed::Fixed(0xBA7C_4ED5);
    }
    config
}

/// A cell: arbitrary text (no NUL: a text file holds none, and NUL bytes are how UTF-16
/// without a BOM is told apart) with the characters CSV must quote well represented.
fn cell() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        2 => "[A-Za-z0-9 ]{1,8}",
        1 => prop::sample::select(&[",", "\"", "\r", "\n", "\r\n", " ", ";", "|", "\t", "'"][..])
            .prop_map(str::to_owned),
        1 => "[^\\x00\\x1A]{1,4}",
    ];
    prop::collection::vec(piece, 0..6).prop_map(|parts| parts.concat())
}

/// A name: a cell with something other than white space in it.
fn name() -> impl Strategy<Value = String> {
    cell().prop_filter("a name has something to read", |n| !n.trim().is_empty())
}

/// `value` as a CSV field: quoted (quotes doubled) when it must be or when `quote` says so.
fn field(value: &str, quote: bool) -> String {
    let must = value.contains([',', '"', '\r', '\n']);
    if must || quote {
        format!("\"{}\"", value.replace('"', "\"\""))
    } else {
        value.to_owned()
    }
}

/// The rows as a CSV file with a `name,country,note` header and `end` after each line (the
/// last one too, when `last_end`).
fn csv(rows: &[(String, String, String)], quotes: &[bool], end: &str, last_end: bool) -> String {
    let mut lines = vec!["name,country,note".to_owned()];
    for (i, (name, country, note)) in rows.iter().enumerate() {
        let q = |k: usize| quotes.get((i * 3 + k) % quotes.len().max(1)) == Some(&true);
        lines.push(format!(
            "{},{},{}",
            field(name, q(0)),
            field(country, q(1)),
            field(note, q(2))
        ));
    }
    let mut text = lines.join(end);
    if last_end {
        text.push_str(end);
    }
    text
}

fn rows() -> impl Strategy<Value = Vec<(String, String, String)>> {
    prop::collection::vec((name(), cell(), cell()), 1..12)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn csv_rows_read_back_as_written(
        rows in rows(),
        quotes in prop::collection::vec(any::<bool>(), 1..8),
        end in prop::sample::select(&["\n", "\r\n", "\r"][..]),
        last_end: bool,
    ) {
        let text = csv(&rows, &quotes, end, last_end);
        let batch = parse_input(text.as_bytes(), &InputOptions::default());
        let batch = batch.map_err(|e| TestCaseError::fail(format!("{e}: {text:?}")))?;
        prop_assert_eq!(&batch.header, &["name", "country", "note"]);
        prop_assert_eq!(&batch.roles, &[Some("name"), Some("country"), None]);
        prop_assert_eq!(batch.items.len(), rows.len(), "{:?}", text);
        let plain = rows.iter().all(|(n, c, o)| !format!("{n}{c}{o}").contains(['\r', '\n']));
        for (i, (item, (name, country, note))) in batch.items.iter().zip(&rows).enumerate() {
            prop_assert_eq!(&item.name, name, "{:?}", text);
            let trimmed = country.trim();
            prop_assert_eq!(item.country.as_deref(), (!trimmed.is_empty()).then_some(trimmed));
            prop_assert_eq!(&item.cells, &[name.trim(), trimmed, note.trim()]);
            // Each row on its own line (CR, LF and CRLF each end one), unless a cell holds a
            // line break.
            if plain {
                prop_assert_eq!(item.line, Some(i as u64 + 2), "{:?}", text);
            }
        }
    }

    /// One name per line, whatever ends the lines: each name read back on its line.
    #[test]
    fn one_name_per_line_reads_back_as_written(
        names in prop::collection::vec("[A-Za-z][A-Za-z .'-]{0,20}[a-z]", 1..12),
        end in prop::sample::select(&["\n", "\r\n", "\r"][..]),
    ) {
        let text = names.join(end);
        let batch = parse_input(text.as_bytes(), &InputOptions::default());
        let batch = batch.map_err(|e| TestCaseError::fail(format!("{e}: {text:?}")))?;
        let read: Vec<(&str, Option<u64>)> =
            batch.items.iter().map(|i| (i.name.as_str(), i.line)).collect();
        let written: Vec<(&str, Option<u64>)> = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), Some(i as u64 + 1)))
            .collect();
        prop_assert_eq!(read, written, "{:?}", text);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let _ = parse_input(&bytes, &InputOptions::default());
        let _ = parse_input(&bytes, &InputOptions { lines: true, ..InputOptions::default() });
        let column = InputOptions { column: Some("2".to_owned()), ..InputOptions::default() };
        let _ = parse_input(&bytes, &column);
    }

    /// Bytes made of what delimited text is made of, so that the parser's branches are reached
    /// more often than by uniform bytes.
    #[test]
    fn delimited_looking_bytes_never_panic(
        bytes in prop::collection::vec(
            prop::sample::select(&b"name,;|\t\"\r\n ab\xC3\xA9\xFF\x00\x1A[{"[..]),
            0..256,
        ),
    ) {
        let _ = parse_input(&bytes, &InputOptions::default());
        let named = InputOptions { column: Some("name".to_owned()), ..InputOptions::default() };
        let _ = parse_input(&bytes, &named);
    }
}
