//! Text batches: a delimited table (comma, semicolon, tab or pipe) with its name column found
//! by header or `--column`, or one name per line. A file with several columns is never read
//! line by line, and a header without a recognisable name column is refused with its columns.

use std::cell::RefCell;

use super::{BatchError, RawRow};

/// Header cells (compared lower-case, spaces and hyphens as `_`) that hold the name.
const NAME_COLUMNS: &[&str] = &[
    "name",
    "names",
    "full_name",
    "fullname",
    "customer_name",
    "customer",
    "client_name",
    "entity_name",
    "company_name",
    "company",
    "organisation_name",
    "organization_name",
    "person_name",
    "party_name",
    "legal_name",
    "account_name",
    "account_holder",
    "beneficiary_name",
    "beneficiary",
    "counterparty_name",
    "counterparty",
    "vendor_name",
    "supplier_name",
    "query",
];
/// Header cells that hold the row's id.
const QID_COLUMNS: &[&str] = &[
    "qid",
    "id",
    "customer_id",
    "client_id",
    "record_id",
    "reference",
    "ref",
];
/// Header cells that hold the row's type.
const TYPE_COLUMNS: &[&str] = &["type", "type_hint", "entity_type", "kind"];
/// Header cells that hold the row's date of birth.
const DOB_COLUMNS: &[&str] = &["dob", "date_of_birth", "birth_date", "birthdate"];
/// Header cells that hold the row's country.
const COUNTRY_COLUMNS: &[&str] = &["country", "nationality", "country_code"];
/// Other words a header is made of (a first line made of these is a header, not a name).
const OTHER_HEADER_WORDS: &[&str] = &[
    "country",
    "nationality",
    "dob",
    "date_of_birth",
    "birth_date",
    "birthdate",
    "address",
    "city",
    "email",
    "phone",
    "account",
    "notes",
    "note",
    "comment",
    "comments",
    "first_name",
    "last_name",
    "surname",
    "given_name",
    "date",
    "amount",
    "status",
];
const DELIMITERS: [u8; 4] = [b',', b';', b'\t', b'|'];
/// Lines looked at to find the delimiter.
const SAMPLE_LINES: usize = 50;

fn header_key(cell: &str) -> String {
    cell.trim()
        .trim_matches('"')
        .to_lowercase()
        .replace([' ', '-'], "_")
}

fn delimiter_name(d: u8) -> &'static str {
    match d {
        b',' => "comma",
        b';' => "semicolon",
        b'\t' => "tab",
        _ => "pipe",
    }
}

/// The cells of one line split at `delimiter` (quotes respected), as the `csv` crate reads
/// the line's first record (a leading byte order mark dropped by the parser); the line itself
/// when it holds none. The parser is made once per thread and delimiter and reset for each
/// line: making one builds its tables, which cost far more than splitting a short line.
fn cells(line: &str, delimiter: u8) -> Vec<String> {
    thread_local! {
        static SPLITTER: RefCell<Option<(u8, csv_core::Reader)>> = const { RefCell::new(None) };
    }
    SPLITTER.with(|splitter| {
        let mut splitter = splitter.borrow_mut();
        let reader = match &mut *splitter {
            Some((d, reader)) if *d == delimiter => reader,
            slot => {
                let made = csv_core::ReaderBuilder::new().delimiter(delimiter).build();
                &mut slot.insert((delimiter, made)).1
            }
        };
        reader.reset();
        first_record(reader, line).unwrap_or_else(|| vec![line.to_owned()])
    })
}

/// The fields of the first record of `text`, if it holds one.
fn first_record(reader: &mut csv_core::Reader, text: &str) -> Option<Vec<String>> {
    use csv_core::ReadRecordResult;
    let mut input = text.as_bytes();
    // Room for the most the parser can write: the fields are never longer than the text (quotes
    // only go), and there are at most one more of them than bytes.
    let mut out = vec![0u8; input.len()];
    let mut ends = vec![0usize; input.len() + 1];
    let (mut written, mut fields) = (0, 0);
    loop {
        let (result, read, wrote, ended) =
            reader.read_record(input, &mut out[written..], &mut ends[fields..]);
        input = &input[read..];
        written += wrote;
        fields += ended;
        match result {
            // Once all is read, an empty input tells the parser the text ended.
            ReadRecordResult::InputEmpty => {}
            ReadRecordResult::Record => break,
            ReadRecordResult::End if fields > 0 => break,
            ReadRecordResult::End
            | ReadRecordResult::OutputFull
            | ReadRecordResult::OutputEndsFull => return None,
        }
    }
    let mut start = 0;
    ends[..fields]
        .iter()
        .map(|&end| {
            let field = std::str::from_utf8(&out[start..end])
                .ok()
                .map(str::to_owned);
            start = end;
            field
        })
        .collect()
}

/// A header cell: lower-case words, snake_case, or a known header word.
fn header_like(cell: &str) -> bool {
    let cell = cell.trim();
    let key = header_key(cell);
    if key.is_empty() || key.len() > 40 {
        return false;
    }
    let known = NAME_COLUMNS.contains(&key.as_str())
        || QID_COLUMNS.contains(&key.as_str())
        || TYPE_COLUMNS.contains(&key.as_str())
        || OTHER_HEADER_WORDS.contains(&key.as_str());
    let identifier = cell
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | ' ' | '-' | '.' | '#'));
    known || (identifier && (cell.contains('_') || !cell.chars().any(|c| c.is_uppercase())))
}

/// Where the name is: a column number (0-based) or the whole line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Layout {
    Lines { header: bool },
    Table(Table),
}

/// A delimited table's layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    pub delimiter: u8,
    pub header: Option<Vec<String>>,
    pub name: usize,
    pub qid: Option<usize>,
    pub kind: Option<usize>,
    pub dob: Option<usize>,
    pub country: Option<usize>,
}

impl Layout {
    /// How the input was read, for the user.
    pub fn describe(&self) -> String {
        match self {
            Layout::Lines { .. } => "one name per line".to_owned(),
            Layout::Table(t) => format!(
                "{}-separated, name column {}",
                delimiter_name(t.delimiter),
                match &t.header {
                    Some(h) => format!("{:?}", h[t.name]),
                    None => (t.name + 1).to_string(),
                }
            ),
        }
    }
}

/// Decides the layout of `text` (see the module doc); `column` is `--column` (a header name
/// or a 1-based number); `lines` forces one name per line.
pub fn layout(text: &str, column: Option<&str>, lines: bool) -> Result<Layout, BatchError> {
    let sample: Vec<&str> = text_lines(text)
        .filter(|l| !l.trim().is_empty())
        .take(SAMPLE_LINES)
        .collect();
    let Some(first) = sample.first() else {
        return Ok(Layout::Lines { header: false });
    };
    if lines {
        return Ok(Layout::Lines { header: false });
    }
    let column_number = column.and_then(|c| c.trim().parse::<usize>().ok());
    if column_number == Some(0) {
        return Err(BatchError::Column("column numbers start at 1".to_owned()));
    }
    let wanted_key = column.map(header_key);
    // 1. A header naming the name column (or --column), with any delimiter.
    for d in DELIMITERS {
        let header = cells(first, d);
        if header.len() < 2 {
            continue;
        }
        let keys: Vec<String> = header.iter().map(|c| header_key(c)).collect();
        let name = match (&wanted_key, column_number) {
            (Some(w), None) => keys.iter().position(|k| k == w),
            (_, Some(n)) if header.iter().all(|c| header_like(c)) => Some(n - 1),
            (_, Some(_)) => None,
            (None, None) => NAME_COLUMNS
                .iter()
                .find_map(|w| keys.iter().position(|k| k == w)),
        };
        if let Some(name) = name {
            if name >= header.len() {
                return Err(BatchError::Column(format!(
                    "column {} does not exist: the header has {} columns ({})",
                    name + 1,
                    header.len(),
                    header.join(", ")
                )));
            }
            return Ok(Layout::Table(table(d, Some(header), name)));
        }
    }
    // 2. A delimiter every sampled line agrees on: a table without a usable header.
    let consistent = DELIMITERS
        .into_iter()
        .filter_map(|d| {
            let n = cells(first, d).len();
            (n >= 2 && sample.iter().all(|l| cells(l, d).len() == n)).then_some((d, n))
        })
        .max_by_key(|&(_, n)| n);
    let header_guess = DELIMITERS.into_iter().find_map(|d| {
        let h = cells(first, d);
        (h.len() >= 2 && h.iter().all(|c| header_like(c))).then_some(h)
    });
    if let Some(header) = header_guess {
        return Err(BatchError::Column(format!(
            "the first line looks like a header without a name column: {}; choose the column with --column NAME (or add a `name` column)",
            header.join(", ")
        )));
    }
    if let Some((d, n)) = consistent {
        return match column_number {
            Some(c) if c <= n => Ok(Layout::Table(table(d, None, c - 1))),
            Some(c) => Err(BatchError::Column(format!(
                "column {c} does not exist: the lines have {n} {}-separated fields",
                delimiter_name(d)
            ))),
            None => Err(BatchError::Column(format!(
                "every line has {n} {}-separated fields and there is no header naming the name column; add a header line (e.g. `name{}...`), pass --column N, or --lines if each whole line is one name",
                delimiter_name(d),
                d as char
            ))),
        };
    }
    if let Some(w) = column
        && column_number.is_none()
    {
        // A one-column file whose header is the column asked for.
        if header_key(first) == header_key(w) {
            return Ok(Layout::Lines { header: true });
        }
        return Err(BatchError::Column(format!(
            "no column {w:?}: the file has no header with that name"
        )));
    }
    let header = NAME_COLUMNS.contains(&header_key(first).as_str());
    Ok(Layout::Lines { header })
}

fn table(delimiter: u8, header: Option<Vec<String>>, name: usize) -> Table {
    let find = |wanted: &[&str]| {
        header.as_ref().and_then(|h| {
            wanted
                .iter()
                .find_map(|w| h.iter().position(|c| header_key(c) == *w))
        })
    };
    let qid = find(QID_COLUMNS).filter(|&c| c != name);
    let kind = find(TYPE_COLUMNS).filter(|&c| c != name);
    let dob = find(DOB_COLUMNS).filter(|&c| c != name);
    let country = find(COUNTRY_COLUMNS).filter(|&c| c != name);
    Table {
        delimiter,
        header,
        name,
        qid,
        kind,
        dob,
        country,
    }
}

/// The rows of `text` read with `layout`, each with its 1-based line in the file.
/// A table's header and what each of its columns is used as (`None`: read, not used).
pub fn columns(layout: &Layout) -> (Vec<String>, Vec<Option<&'static str>>) {
    let Layout::Table(t) = layout else {
        return (Vec::new(), Vec::new());
    };
    let Some(header) = &t.header else {
        return (Vec::new(), Vec::new());
    };
    let roles = (0..header.len())
        .map(|i| {
            [
                (Some(t.name), "name"),
                (t.qid, "qid"),
                (t.kind, "type"),
                (t.dob, "dob"),
                (t.country, "country"),
            ]
            .into_iter()
            .find(|(c, _)| *c == Some(i))
            .map(|(_, role)| role)
        })
        .collect();
    (header.clone(), roles)
}

pub fn rows(text: &str, layout: &Layout) -> Vec<RawRow> {
    match layout {
        Layout::Lines { header } => text_lines(text)
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .skip(usize::from(*header))
            .map(|(i, line)| RawRow {
                line: Some(i as u64 + 1),
                name: Some(unquote(line.trim()).into_owned()),
                ..RawRow::default()
            })
            .collect(),
        Layout::Table(t) => table_rows(text, t),
    }
}

/// Whether the byte at `i` ends a line: an LF, or a CR not followed by an LF (a CRLF ends at
/// its CR; classic Mac files end lines with a CR alone, as Excel's "CSV (Macintosh)" does).
fn is_line_end(bytes: &[u8], i: usize) -> bool {
    match bytes[i] {
        b'\n' => i == 0 || bytes[i - 1] != b'\r',
        b'\r' => true,
        _ => false,
    }
}

/// The lines of `text`, each ended by LF, CRLF or CR alone (`str::lines` knows only the first
/// two), without their ends; no line after a final line end.
fn text_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let current = rest?;
        match current.find(['\r', '\n']) {
            None => {
                rest = None;
                (!current.is_empty()).then_some(current)
            }
            Some(at) => {
                let end = if current[at..].starts_with("\r\n") {
                    2
                } else {
                    1
                };
                rest = Some(&current[at + end..]);
                Some(&current[..at])
            }
        }
    })
}

fn unquote(line: &str) -> std::borrow::Cow<'_, str> {
    match line.strip_prefix('"').and_then(|l| l.strip_suffix('"')) {
        Some(inner) if !inner.is_empty() => inner.replace("\"\"", "\"").into(),
        _ => line.into(),
    }
}

/// The row of one line of a streamed file (see [`super::stream`]): a quoted cell ends on
/// its line.
pub(super) fn line_row(text: &str, line: u64, layout: &Layout) -> RawRow {
    match layout {
        Layout::Lines { .. } => RawRow {
            line: Some(line),
            name: Some(unquote(text.trim()).into_owned()),
            ..RawRow::default()
        },
        Layout::Table(t) => {
            let cells: Vec<String> = cells(text, t.delimiter)
                .into_iter()
                .map(|c| c.trim().to_owned())
                .collect();
            let cell = |c: Option<usize>| {
                c.and_then(|c| cells.get(c))
                    .filter(|v| !v.is_empty())
                    .cloned()
            };
            let name = cells.get(t.name).cloned();
            let error = name.is_none().then(|| {
                format!(
                    "the row has {} field(s); the name is field {}",
                    cells.len(),
                    t.name + 1
                )
            });
            RawRow {
                line: Some(line),
                name,
                qid: cell(t.qid),
                kind: cell(t.kind),
                date_of_birth: cell(t.dob),
                country: cell(t.country),
                error,
                position: None,
                cells,
            }
        }
    }
}

fn table_rows(text: &str, t: &Table) -> Vec<RawRow> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .delimiter(t.delimiter)
        .flexible(true)
        .from_reader(text.as_bytes());
    // Lines from byte offsets (the csv crate's own line count skips blank lines): where each
    // line ends, at its LF, its CR or the CR of its CRLF.
    let bytes = text.as_bytes();
    let newlines: Vec<u64> = (0..bytes.len())
        .filter(|&i| is_line_end(bytes, i))
        .map(|i| i as u64)
        .collect();
    let line_at = |byte: u64| {
        // A record's position is where reading started: before any blank lines it skipped.
        let mut at = byte as usize;
        while at < bytes.len() && matches!(bytes[at], b'\n' | b'\r') {
            at += 1;
        }
        newlines.partition_point(|&n| n < at as u64) as u64 + 1
    };
    let mut out = Vec::new();
    let mut record = csv::StringRecord::new();
    let mut first = true;
    loop {
        let line_before = line_at(reader.position().byte());
        match reader.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                let line = e.position().map(|p| p.line()).unwrap_or(line_before.max(1));
                out.push(RawRow {
                    line: Some(line),
                    error: Some(format!("unreadable row: {e}")),
                    ..RawRow::default()
                });
                continue;
            }
        }
        let line = record
            .position()
            .map(|p| line_at(p.byte()))
            .unwrap_or(line_before);
        if record.iter().all(|c| c.trim().is_empty()) {
            continue;
        }
        if std::mem::take(&mut first) && t.header.is_some() {
            continue;
        }
        let cell = |c: Option<usize>| {
            c.and_then(|c| record.get(c))
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .map(str::to_owned)
        };
        let name = record.get(t.name).map(str::to_owned);
        let error = name.is_none().then(|| {
            format!(
                "the row has {} field(s); the name is field {}",
                record.len(),
                t.name + 1
            )
        });
        out.push(RawRow {
            line: Some(line),
            name,
            qid: cell(t.qid),
            kind: cell(t.kind),
            date_of_birth: cell(t.dob),
            country: cell(t.country),
            error,
            position: None,
            cells: record.iter().map(|c| c.trim().to_owned()).collect(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The line's cells as the `csv` crate reads its first record (what `cells` did by
    /// making a `csv::Reader` for every line).
    fn csv_crate_cells(line: &str, delimiter: u8) -> Vec<String> {
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .delimiter(delimiter)
            .flexible(true)
            .from_reader(line.as_bytes());
        match reader.records().next() {
            Some(Ok(record)) => record.iter().map(str::to_owned).collect(),
            _ => vec![line.to_owned()],
        }
    }

    proptest! {
        #[test]
        fn a_line_splits_as_the_csv_crate_reads_it(
            line in "(\\u{feff}){0,2}[a-zé\",;|\t \r\n\"]{0,24}",
            delimiter in prop::sample::select(vec![b',', b';', b'|', b'\t']),
        ) {
            // Twice: the thread's parser is reset between lines.
            prop_assert_eq!(cells(&line, delimiter), csv_crate_cells(&line, delimiter));
            prop_assert_eq!(cells(&line, delimiter), csv_crate_cells(&line, delimiter));
        }
    }

    #[test]
    fn quoted_cells_keep_their_delimiters_and_doubled_quotes() {
        assert_eq!(
            cells("C1,\"MORELININ, Marie \"\"Mia\"\"\",individual", b','),
            ["C1", "MORELININ, Marie \"Mia\"", "individual"]
        );
        assert_eq!(cells("", b','), [""]);
    }

    fn names(text: &str, column: Option<&str>) -> Result<Vec<(u64, String)>, BatchError> {
        let layout = layout(text, column, false)?;
        Ok(rows(text, &layout)
            .into_iter()
            .map(|r| (r.line.unwrap(), r.name.unwrap_or_default()))
            .collect())
    }

    #[test]
    fn finds_the_name_column_whatever_the_delimiter() {
        let expect = vec![(2, "Vladimir Putin".to_owned())];
        assert_eq!(
            names("full_name,country\nVladimir Putin,RU\n", None).unwrap(),
            expect
        );
        assert_eq!(
            names("Country\tName\nRU\tVladimir Putin\n", None).unwrap(),
            expect
        );
        assert_eq!(names("id;name\nc1;Vladimir Putin\n", None).unwrap(), expect);
        assert_eq!(
            names("ref|Customer Name\n1|Vladimir Putin\n", None).unwrap(),
            expect
        );
        assert_eq!(
            names("who,cc\nVladimir Putin,RU\n", Some("WHO")).unwrap(),
            expect
        );
        assert_eq!(
            names("Vladimir Putin,RU\n\nJohn Smith,GB\n", Some("1")).unwrap(),
            vec![
                (1, "Vladimir Putin".to_owned()),
                (3, "John Smith".to_owned())
            ]
        );
    }

    #[test]
    fn one_name_per_line_with_blank_lines_counted() {
        assert_eq!(
            names(
                "PUTIN, Vladimir\n\nBanco Nacional de Cuba\n\"SMITH, John\"\n",
                None
            )
            .unwrap(),
            vec![
                (1, "PUTIN, Vladimir".to_owned()),
                (3, "Banco Nacional de Cuba".to_owned()),
                (4, "SMITH, John".to_owned())
            ]
        );
        assert_eq!(
            names("name\nAcme\n", None).unwrap(),
            vec![(2, "Acme".to_owned())]
        );
    }

    #[test]
    fn a_cr_alone_ends_a_line_as_lf_and_crlf_do() {
        let two = vec![(1, "Acme".to_owned()), (3, "Beta Corp".to_owned())];
        for end in ["\n", "\r\n", "\r"] {
            let text = format!("Acme{end}{end}Beta Corp{end}");
            assert_eq!(names(&text, None).unwrap(), two, "{text:?}");
            let table = format!("name,country{end}Acme,RU{end}{end}Beta Corp,GB{end}");
            let read = names(&table, None).unwrap();
            assert_eq!(
                read,
                vec![(2, two[0].1.clone()), (4, two[1].1.clone())],
                "{table:?}"
            );
        }
    }

    #[test]
    fn refuses_what_it_cannot_read_safely() {
        let err = names("customer_id,country\n1,RU\n", None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("customer_id, country"), "{err}");
        let err = names("Vladimir Putin,RU\nJohn Smith,GB\n", None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("--column"), "{err}");
        assert!(names("name,country\nx,y\n", Some("nope")).is_err());
    }
}
