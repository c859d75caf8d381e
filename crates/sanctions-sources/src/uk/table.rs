//! Reading the UK spreadsheets (xlsx via calamine, csv via the csv crate) into rows of text,
//! with the header row found by its column names and every row tagged with its position.

use std::collections::HashMap;
use std::io::Cursor;

use calamine::{Data, Reader, Xlsx};

use crate::model::clean;
use crate::{Input, SourceError};

/// A sheet as text: the lines before the header, the header and the data rows.
#[derive(Debug)]
pub struct Table {
    pub file: String,
    /// Cells of the rows above the header (publication date lines).
    pub preamble: Vec<Vec<String>>,
    pub columns: HashMap<String, usize>,
    /// (position for errors, cells)
    pub rows: Vec<(String, Vec<String>)>,
}

impl Table {
    /// The cell of `row` in column `name` (header names compared trimmed, case-insensitively).
    /// `name` may list alternatives separated by `|`: the first present column is read.
    pub fn get<'a>(&self, row: &'a [String], name: &str) -> &'a str {
        name.split('|')
            .find_map(|n| self.columns.get(&n.trim().to_ascii_lowercase()))
            .and_then(|i| row.get(*i))
            .map_or("", |s| s.as_str())
    }

    /// Whether the header has column `name`.
    pub fn has(&self, name: &str) -> bool {
        self.columns.contains_key(&name.to_ascii_lowercase())
    }
}

/// Raw rows of one file with the word used for positions ("row" or "line").
type RawRows = Vec<(usize, Vec<String>)>;

/// Reads an xlsx workbook's first sheet; `is_header` picks the header among the first rows.
pub fn read_xlsx(
    input: &Input,
    is_header: &dyn Fn(&[String]) -> bool,
) -> Result<Table, SourceError> {
    let err = |m: String| SourceError::parse(&input.name, "", m);
    crate::archive::check_zip(&input.name, &input.bytes, &crate::archive::XLSX_LIMITS)?;
    let mut book = Xlsx::new(Cursor::new(input.bytes.as_slice()))
        .map_err(|e| err(format!("not a readable xlsx workbook: {e}")))?;
    let range = book
        .worksheet_range_at(0)
        .ok_or_else(|| err("the workbook has no sheet".into()))?
        .map_err(|e| err(format!("cannot read the first sheet: {e}")))?;
    let first = range.start().map_or(0, |(r, _)| r as usize);
    let rows: RawRows = range
        .rows()
        .enumerate()
        .map(|(i, r)| (first + i + 1, r.iter().map(cell_text).collect()))
        .collect();
    split(input, rows, "row", is_header)
}

/// Reads a CSV file (UTF-8/UTF-16/Windows-1252); fields with a wrong count are errors.
pub fn read_csv(
    input: &Input,
    is_header: &dyn Fn(&[String]) -> bool,
) -> Result<Table, SourceError> {
    let text = input.text()?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    // The csv crate's line numbers skip newlines inside quoted fields, and a record's byte
    // position may point at the previous line's terminator: count lines from the bytes.
    let line_at = |byte: u64| {
        let bytes = text.as_bytes();
        let mut end = (byte as usize).min(bytes.len());
        while end < bytes.len() && matches!(bytes[end], b'\r' | b'\n') {
            end += 1;
        }
        bytes[..end].iter().filter(|b| **b == b'\n').count() + 1
    };
    let mut rows = RawRows::new();
    let mut record = csv::StringRecord::new();
    loop {
        let start = reader.position().byte();
        let read = reader.read_record(&mut record).map_err(|e| {
            let line = e.position().map_or(0, |p| line_at(p.byte()));
            SourceError::parse(&input.name, format!("line {line}"), format!("bad CSV: {e}"))
        })?;
        if !read {
            break;
        }
        let raw = text
            .as_bytes()
            .get(start as usize..reader.position().byte() as usize);
        if let Some((at, what)) = raw.and_then(crate::text::stray_quote) {
            let line = line_at(start + at as u64);
            return Err(SourceError::parse(
                &input.name,
                format!("line {line}"),
                format!("bad CSV: {what}; a quote in a field must be doubled, in a quoted field"),
            ));
        }
        let line = record.position().map_or(0, |p| line_at(p.byte()));
        rows.push((line, record.iter().map(str::to_owned).collect()));
    }
    split(input, rows, "line", is_header)
}

/// Finds the header among the first ten rows and checks every data row's width.
fn split(
    input: &Input,
    rows: RawRows,
    unit: &str,
    is_header: &dyn Fn(&[String]) -> bool,
) -> Result<Table, SourceError> {
    let Some(at) = rows.iter().take(10).position(|(_, r)| is_header(r)) else {
        return Err(SourceError::parse(
            &input.name,
            "",
            "no header row of a known UK sanctions list format in the first 10 rows",
        ));
    };
    let mut rows = rows.into_iter();
    let preamble = rows.by_ref().take(at).map(|(_, r)| r).collect();
    let Some((_, header)) = rows.next() else {
        return Err(SourceError::parse(&input.name, "", "no header row"));
    };
    let width = header
        .iter()
        .rposition(|h| !h.trim().is_empty())
        .map_or(0, |i| i + 1);
    let mut columns = HashMap::new();
    for (i, h) in header.iter().enumerate().take(width) {
        // "Last Updated" appears twice in some files: the first occurrence wins.
        columns.entry(clean(h).to_ascii_lowercase()).or_insert(i);
    }
    let mut data = Vec::new();
    for (n, row) in rows {
        if row.iter().all(|c| c.trim().is_empty()) {
            continue;
        }
        let used = row
            .iter()
            .rposition(|c| !c.trim().is_empty())
            .map_or(0, |i| i + 1);
        if unit == "line" && row.len() < width || used > width {
            return Err(SourceError::parse(
                &input.name,
                format!("{unit} {n}"),
                format!(
                    "expected {width} fields, found {} (truncated or malformed row)",
                    row.len()
                ),
            ));
        }
        data.push((format!("{unit} {n}"), row));
    }
    Ok(Table {
        file: input.name.clone(),
        preamble,
        columns,
        rows: data,
    })
}

/// A cell as text: integers without `.0`, dates as `YYYY-MM-DD`.
fn cell_text(cell: &Data) -> String {
    match cell {
        Data::Empty | Data::Error(_) => String::new(),
        Data::String(s) | Data::DateTimeIso(s) | Data::DurationIso(s) => s.clone(),
        Data::Int(i) => i.to_string(),
        Data::Bool(b) => b.to_string(),
        Data::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", *f as i64),
        Data::Float(f) => f.to_string(),
        Data::DateTime(d) => serial_date(d.as_f64()),
    }
}

/// An Excel serial day number as `YYYY-MM-DD` (1900 date system).
fn serial_date(serial: f64) -> String {
    let base = jiff::civil::date(1899, 12, 30);
    if !serial.is_finite() {
        return serial.to_string();
    }
    // `Span::days` panics out of its range: a cell far outside it is shown as its number.
    jiff::Span::new()
        .try_days(serial.floor() as i64)
        .and_then(|days| base.checked_add(days))
        .map_or_else(|_| serial.to_string(), |d| d.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_text_without_decimal_zero() {
        assert_eq!(cell_text(&Data::Float(15672.0)), "15672");
        assert_eq!(cell_text(&Data::Float(1.5)), "1.5");
        assert_eq!(serial_date(45761.0), "2025-04-14");
        for far in [1e10, -1e10, f64::MAX, f64::NAN] {
            assert_eq!(serial_date(far), far.to_string());
        }
    }
}
