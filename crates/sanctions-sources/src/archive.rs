//! Bounds on zip containers (xlsx) checked before a parser touches them, so that a bomb is
//! refused with a clear message instead of exhausting memory and aborting the whole run.
//!
//! The central directory is read first: the entry count, each entry's declared size, the
//! total and the compression ratio are checked against [`ZipLimits`]. Each entry is then
//! inflated into nothing, reading at most its declared size plus one byte, so a header
//! that understates its size is caught too. Last, the `uniqueCount` an xlsx declares for its
//! shared strings (calamine reserves that many strings up front) must fit the entry's size.

use std::io::{Cursor, Read};

use super::SourceError;

/// The bounds a zip container must keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZipLimits {
    pub max_entries: usize,
    /// The largest uncompressed entry.
    pub max_entry_bytes: u64,
    /// The largest total of the uncompressed entries.
    pub max_total_bytes: u64,
    /// The highest ratio of uncompressed to compressed size of an entry over 1 MiB (the
    /// official spreadsheets stay under 50; deflate allows about 1,000).
    pub max_ratio: u64,
}

/// The bounds of the official spreadsheets (the largest, the UK's, unpacks to 17 MB in 7
/// entries, at ratios under 10).
pub const XLSX_LIMITS: ZipLimits = ZipLimits {
    max_entries: 1_000,
    max_entry_bytes: 256 * 1024 * 1024,
    max_total_bytes: 512 * 1024 * 1024,
    max_ratio: 100,
};

/// Entries smaller than this are not held to the ratio (tiny files compress very well).
const RATIO_FLOOR: u64 = 1024 * 1024;

/// The fewest bytes one shared string takes in `sharedStrings.xml` (`<si/>`).
const MIN_SHARED_STRING_BYTES: u64 = 5;

/// Checks the zip container `bytes` of file `name` against `limits`, before it is parsed.
pub fn check_zip(name: &str, bytes: &[u8], limits: &ZipLimits) -> Result<(), SourceError> {
    let refuse = |message: String| {
        SourceError::parse(
            name,
            "",
            format!("{message}; the file is refused unread (a damaged file or a zip bomb)"),
        )
    };
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| refuse(format!("not a readable xlsx workbook (zip container): {e}")))?;
    if zip.len() > limits.max_entries {
        return Err(refuse(format!(
            "{} entries in the zip container, more than the {} allowed",
            zip.len(),
            limits.max_entries
        )));
    }
    let mut total = 0u64;
    for index in 0..zip.len() {
        let declared = check_declared(&mut zip, index, limits, &mut total).map_err(refuse)?;
        let (entry_name, actual) = inflate_bounded(&mut zip, index, declared).map_err(refuse)?;
        if entry_name.eq_ignore_ascii_case("xl/sharedStrings.xml") {
            check_unique_count(&mut zip, index, actual).map_err(refuse)?;
        }
        if entry_name.starts_with("xl/worksheets/") {
            check_sheet_area(&mut zip, index).map_err(refuse)?;
        }
    }
    Ok(())
}

/// Checks entry `index`'s declared sizes; returns its declared uncompressed size.
fn check_declared(
    zip: &mut zip::ZipArchive<Cursor<&[u8]>>,
    index: usize,
    limits: &ZipLimits,
    total: &mut u64,
) -> Result<u64, String> {
    let entry = zip
        .by_index_raw(index)
        .map_err(|e| format!("entry {index} is unreadable: {e}"))?;
    let (name, size, packed) = (
        crate::sanitize::field(&entry_name(&entry)).into_owned(),
        entry.size(),
        entry.compressed_size(),
    );
    if size > limits.max_entry_bytes {
        return Err(format!(
            "entry {name} unpacks to {size} bytes, more than the {}-byte limit",
            limits.max_entry_bytes
        ));
    }
    *total = total.saturating_add(size);
    if *total > limits.max_total_bytes {
        return Err(format!(
            "the entries unpack to more than {} bytes in all",
            limits.max_total_bytes
        ));
    }
    if size > RATIO_FLOOR && size / packed.max(1) > limits.max_ratio {
        return Err(format!(
            "entry {name} unpacks {packed} bytes to {size}, a ratio over {}",
            limits.max_ratio
        ));
    }
    Ok(size)
}

/// An entry's name as text (a name that is not valid text reads as `?`).
fn entry_name(entry: &zip::read::ZipFile<'_, Cursor<&[u8]>>) -> String {
    entry
        .name()
        .map_or_else(|_| "?".to_owned(), |n| n.into_owned())
}

/// Inflates entry `index` into nothing, reading at most `declared` + 1 bytes; refuses an
/// entry that holds more than it declares. Returns its name and its real size.
fn inflate_bounded(
    zip: &mut zip::ZipArchive<Cursor<&[u8]>>,
    index: usize,
    declared: u64,
) -> Result<(String, u64), String> {
    let mut entry = zip
        .by_index(index)
        .map_err(|e| format!("entry {index} is unreadable: {e}"))?;
    let name = entry_name(&entry);
    let shown = crate::sanitize::field(&name).into_owned();
    let actual = std::io::copy(&mut (&mut entry).take(declared + 1), &mut std::io::sink())
        .map_err(|e| format!("entry {shown} does not unpack: {e}"))?;
    if actual > declared {
        return Err(format!(
            "entry {shown} holds more than the {declared} bytes its header declares"
        ));
    }
    Ok((name, actual))
}

/// Refuses a `sharedStrings.xml` whose `uniqueCount` could not fit in its `size` bytes.
fn check_unique_count(
    zip: &mut zip::ZipArchive<Cursor<&[u8]>>,
    index: usize,
    size: u64,
) -> Result<(), String> {
    let mut head = Vec::new();
    zip.by_index(index)
        .map_err(|e| format!("entry {index} is unreadable: {e}"))?
        .take(4096)
        .read_to_end(&mut head)
        .map_err(|e| format!("xl/sharedStrings.xml does not unpack: {e}"))?;
    let Some(count) = attribute_number(&head, b"uniqueCount=") else {
        return Ok(());
    };
    if count.saturating_mul(MIN_SHARED_STRING_BYTES) > size {
        return Err(format!(
            "xl/sharedStrings.xml declares {count} strings, more than its {size} bytes can hold"
        ));
    }
    Ok(())
}

/// The most cells a sheet's used area may span: calamine allocates the whole rectangle
/// from the first to the last cell (the DFAT sheet spans 255 columns by about 9,600 rows).
const MAX_SHEET_CELLS: u64 = 16_000_000;

/// Refuses a worksheet whose cell references span a rectangle larger than
/// [`MAX_SHEET_CELLS`] (two cells at `A1` and `XFD1048576` would make calamine allocate
/// 17 billion cells). The entry was already bounded by [`inflate_bounded`].
fn check_sheet_area(zip: &mut zip::ZipArchive<Cursor<&[u8]>>, index: usize) -> Result<(), String> {
    let mut xml = Vec::new();
    zip.by_index(index)
        .map_err(|e| format!("entry {index} is unreadable: {e}"))?
        .read_to_end(&mut xml)
        .map_err(|e| format!("a worksheet does not unpack: {e}"))?;
    let (mut rows, mut cols) = ((u64::MAX, 0u64), (u64::MAX, 0u64));
    for at in memchr_all(&xml, b"<c r=\"") {
        let Some((col, row)) = cell_ref(&xml[at + 6..]) else {
            continue;
        };
        rows = (rows.0.min(row), rows.1.max(row));
        cols = (cols.0.min(col), cols.1.max(col));
    }
    if rows.0 > rows.1 {
        return Ok(());
    }
    let area = (rows.1 - rows.0 + 1).saturating_mul(cols.1 - cols.0 + 1);
    if area > MAX_SHEET_CELLS {
        return Err(format!(
            "a worksheet's cells span {area} cells (rows {}-{}), more than the {MAX_SHEET_CELLS} allowed",
            rows.0, rows.1
        ));
    }
    Ok(())
}

/// The offsets of every occurrence of `needle` in `haystack`.
fn memchr_all<'a>(haystack: &'a [u8], needle: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
    haystack
        .windows(needle.len())
        .enumerate()
        .filter(move |(_, w)| *w == needle)
        .map(|(i, _)| i)
}

/// The (column, row) of a cell reference such as `AB12"`, 1-based; `None` if malformed.
fn cell_ref(bytes: &[u8]) -> Option<(u64, u64)> {
    let letters = bytes.iter().take_while(|b| b.is_ascii_uppercase()).count();
    if letters == 0 || letters > 3 {
        return None;
    }
    let col = bytes[..letters]
        .iter()
        .fold(0u64, |n, b| n * 26 + u64::from(b - b'A' + 1));
    let digits = &bytes[letters..];
    let len = digits.iter().take_while(|b| b.is_ascii_digit()).count();
    if len == 0 || len > 10 {
        return None;
    }
    let row = digits[..len]
        .iter()
        .fold(0u64, |n, b| n * 10 + u64::from(b - b'0'));
    Some((col, row))
}

/// The number in `name"N"` (or `name'N'`) in `bytes`; `u64::MAX` when it overflows.
fn attribute_number(bytes: &[u8], name: &[u8]) -> Option<u64> {
    let at = bytes.windows(name.len()).position(|w| w == name)?;
    let value = bytes.get(at + name.len() + 1..)?;
    let digits: Vec<u8> = value
        .iter()
        .copied()
        .take_while(u8::is_ascii_digit)
        .collect();
    if digits.is_empty() {
        return None;
    }
    Some(
        digits
            .iter()
            .try_fold(0u64, |n, d| {
                n.checked_mul(10)?.checked_add(u64::from(d - b'0'))
            })
            .unwrap_or(u64::MAX),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A zip of `entries` (name, content), deflated.
    pub(crate) fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .large_file(true);
        for (name, content) in entries {
            out.start_file(*name, options).unwrap();
            out.write_all(content).unwrap();
        }
        out.finish().unwrap().into_inner()
    }

    #[test]
    fn refuses_bombs_and_lying_counts() {
        let ok = zip_of(&[("a.xml", b"<a/>")]);
        assert!(check_zip("x.xlsx", &ok, &XLSX_LIMITS).is_ok());
        let bomb = zip_of(&[("xl/sharedStrings.xml", &vec![b' '; 8 * 1024 * 1024])]);
        let e = check_zip("x.xlsx", &bomb, &XLSX_LIMITS)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("x.xlsx: entry xl/sharedStrings.xml unpacks"),
            "{e}"
        );
        assert!(e.contains("a ratio over 100"), "{e}");
        let small = ZipLimits {
            max_entries: 1,
            ..XLSX_LIMITS
        };
        let two = zip_of(&[("a", b"1"), ("b", b"2")]);
        let e = check_zip("x.xlsx", &two, &small).unwrap_err().to_string();
        assert!(e.contains("2 entries"), "{e}");
        let reserve = br#"<sst uniqueCount="4000000000"><si><t>a</t></si></sst>"#;
        let lying = zip_of(&[("xl/sharedStrings.xml", reserve)]);
        let e = check_zip("x.xlsx", &lying, &XLSX_LIMITS)
            .unwrap_err()
            .to_string();
        assert!(e.contains("declares 4000000000 strings"), "{e}");
        let sheet = br#"<sheetData><row><c r="A1"/><c r="XFD1048576"/></row></sheetData>"#;
        let wide = zip_of(&[("xl/worksheets/sheet1.xml", sheet)]);
        let e = check_zip("x.xlsx", &wide, &XLSX_LIMITS)
            .unwrap_err()
            .to_string();
        assert!(e.contains("span 17179869184 cells"), "{e}");
        let e = check_zip("x.xlsx", b"PK\x03\x04junk", &XLSX_LIMITS).unwrap_err();
        assert!(
            e.to_string().contains("not a readable xlsx workbook"),
            "{e}"
        );
    }
}
