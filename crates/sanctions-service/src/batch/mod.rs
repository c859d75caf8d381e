//! Batch screening: reading a batch of names and screening them on all cores, results in
//! input order.
//!
//! Inputs ([`parse_input`]): bytes decoded as the list files are ([`decode`]: UTF-8, UTF-16,
//! Windows-1252); JSON when the text starts with `[` or `{` ([`json`]); else a delimited table
//! whose name column is found by header or `--column`, or one name per line ([`table`]).
//! Whatever cannot be read is refused with the reason, or, for one row, reported on that row
//! (with its file line) while the rest of the batch still runs.

mod decode;
mod json;
#[cfg(test)]
mod properties;
mod run;
pub mod stream;
mod table;

use std::collections::BTreeMap;

use crate::api::favorites::FavoriteRequest;
use crate::api::screening::{BatchLine, KindFilter};
use rayon::prelude::*;

pub use run::{
    Mode, Plan, Screened, merged, request_items, request_template, row_request, screen_items,
    unchecked,
};
pub use table::Layout;

/// The largest batch input read, in bytes.
pub const MAX_INPUT_BYTES: usize = 64 * 1024 * 1024;
/// The most rows a batch may hold.
pub const MAX_ROWS: usize = 1_000_000;

/// One row of a batch as read, before checking.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawRow {
    /// 1-based line in the file (text input).
    pub line: Option<u64>,
    /// 1-based position in the array (JSON input).
    pub position: Option<u64>,
    pub name: Option<String>,
    pub qid: Option<String>,
    /// The row's own type, as written.
    pub kind: Option<String>,
    /// The row's `dob` and `country` cells, as written.
    pub date_of_birth: Option<String>,
    pub country: Option<String>,
    pub error: Option<String>,
    /// Every cell of the row as read (delimited tables; empty otherwise), so that callers can
    /// carry the input's other columns through to their output.
    pub cells: Vec<String>,
}

/// One name of a batch, ready to screen (or, with `error`, to report as not screened).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchItem {
    /// The row's `qid` (or `id`) column, else its line (text) or position (JSON).
    pub qid: String,
    pub line: Option<u64>,
    pub position: Option<u64>,
    pub name: String,
    /// The type screened: the row's own type narrowing the batch's `--type`.
    pub kind: Option<KindFilter>,
    /// The row's date of birth and country, weighed as evidence.
    pub date_of_birth: Option<String>,
    pub country: Option<String>,
    /// Why this row is not screened.
    pub error: Option<String>,
    /// Whether `name` passed the one name check ([`check_name`], with `kind`) when the row
    /// was read, so that the service need not check it again; `false`: the service checks it.
    pub name_checked: bool,
    /// Every cell of the row as read (see [`Batch::header`]).
    pub cells: Vec<String>,
}

impl BatchItem {
    /// The name a watchlist import adds for this row: its name, type, date of birth and
    /// country (the evidence every re-screen weighs, as `batch` weighs it); else why the row
    /// is refused, with its place ([`BatchItem::place`]): its own error, or a date of birth or
    /// country the engine cannot read.
    pub fn favorite(self) -> Result<FavoriteRequest, (String, String)> {
        if let Some(error) = &self.error {
            return Err((self.place(), error.clone()));
        }
        crate::engine::check_facts(self.date_of_birth.as_deref(), self.country.as_deref())
            .map_err(|e| (self.place(), e.to_string()))?;
        Ok(FavoriteRequest {
            name: self.name,
            kind: self.kind,
            note: None,
            date_of_birth: self.date_of_birth,
            country: self.country,
        })
    }

    /// `line 4` or `element 4`, for messages.
    pub fn place(&self) -> String {
        match (self.line, self.position) {
            (Some(l), _) => format!("line {l}"),
            (None, Some(p)) => format!("element {p}"),
            (None, None) => format!("qid {}", self.qid),
        }
    }
}

/// A batch read from its bytes.
#[derive(Debug)]
pub struct Batch {
    pub items: Vec<BatchItem>,
    /// How the input was read (`UTF-8, comma-separated, name column "full_name"`).
    pub description: String,
    /// Qids used by more than one row, with the rows' places.
    pub duplicates: Vec<(String, Vec<String>)>,
    /// A delimited table's header (empty without one), and what each column was used as
    /// (`name`, `qid`, `type`, `dob`, `country`; `None`: read but not used).
    pub header: Vec<String>,
    pub roles: Vec<Option<&'static str>>,
}

impl Batch {
    /// The first row refused, for faces that take a batch whole or not at all.
    pub fn first_refused(&self) -> Option<&BatchItem> {
        self.items.iter().find(|i| i.error.is_some())
    }
}

/// How to read a batch: `--column`, `--lines` and `--type`.
#[derive(Debug, Clone, Default)]
pub struct InputOptions {
    pub column: Option<String>,
    pub lines: bool,
    pub kind: Option<KindFilter>,
}

/// Why a batch input cannot be read at all.
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    #[error("the input is larger than {} MiB", MAX_INPUT_BYTES / 1024 / 1024)]
    TooLarge,
    #[error("the input has more than {MAX_ROWS} rows")]
    TooManyRows,
    #[error("invalid JSON at {position}: {message}")]
    Json { position: String, message: String },
    #[error("{0}")]
    Column(String),
    #[error("cannot read the input: {0}")]
    Read(String),
}

/// Reads a batch (see the module doc).
pub fn parse_input(bytes: &[u8], options: &InputOptions) -> Result<Batch, BatchError> {
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(BatchError::TooLarge);
    }
    let decoded = decode::decode(bytes);
    let trimmed = decoded.text.trim_start();
    let mut columns = (Vec::new(), Vec::new());
    let (rows, description) =
        if !options.lines && (trimmed.starts_with('[') || trimmed.starts_with('{')) {
            (json::rows(trimmed)?, "JSON".to_owned())
        } else {
            let layout = table::layout(&decoded.text, options.column.as_deref(), options.lines)?;
            columns = table::columns(&layout);
            (table::rows(&decoded.text, &layout), layout.describe())
        };
    if rows.len() > MAX_ROWS {
        return Err(BatchError::TooManyRows);
    }
    // Each row's check normalises its name: on every core.
    let mut items: Vec<BatchItem> = rows
        .into_par_iter()
        .map(|row| item(row, options.kind))
        .collect();
    for item in &mut items {
        if let Some(line) = item.line
            && item.error.is_none()
            && let Some((_, why)) = decoded.bad_lines.iter().find(|(l, _)| *l == line)
        {
            item.error = Some(why.clone());
        }
    }
    let mut by_qid: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for item in &items {
        by_qid.entry(&item.qid).or_default().push(item.place());
    }
    let duplicates = by_qid
        .into_iter()
        .filter(|(_, places)| places.len() > 1)
        .map(|(qid, places)| (qid.to_owned(), places))
        .collect();
    Ok(Batch {
        items,
        description: format!("{}, {description}", decoded.encoding),
        duplicates,
        header: columns.0,
        roles: columns.1,
    })
}

fn item(row: RawRow, batch_kind: Option<KindFilter>) -> BatchItem {
    let qid = row.qid.clone().unwrap_or_else(|| {
        row.line
            .or(row.position)
            .map(|n| n.to_string())
            .unwrap_or_default()
    });
    let kind = match row.kind.as_deref().map(parse_kind) {
        None => Ok(batch_kind),
        Some(Err(e)) => Err(e),
        Some(Ok(own)) => narrow(batch_kind, own),
    };
    let (kind, kind_error) = match kind {
        Ok(kind) => (kind, None),
        Err(e) => (batch_kind, Some(e)),
    };
    let name = row.name.unwrap_or_default();
    let error = row
        .error
        .or(kind_error)
        .or_else(|| check_name(&name, kind).err());
    // No earlier error: the name was checked, and passed.
    let name_checked = error.is_none();
    BatchItem {
        qid,
        line: row.line,
        position: row.position,
        name,
        kind,
        date_of_birth: row.date_of_birth,
        country: row.country,
        error,
        name_checked,
        cells: row.cells,
    }
}

fn parse_kind(text: &str) -> Result<KindFilter, String> {
    match text.trim().to_lowercase().as_str() {
        "individual" | "person" => Ok(KindFilter::Individual),
        "entity" | "organisation" | "organization" | "company" | "vessel" | "aircraft" => {
            Ok(KindFilter::Entity)
        }
        _ => Err(format!(
            "type must be individual or entity, not {:?}",
            text.trim()
        )),
    }
}

/// A row's own type narrows the batch's `--type`, never widens it.
pub fn narrow(batch: Option<KindFilter>, own: KindFilter) -> Result<Option<KindFilter>, String> {
    match batch {
        Some(b) if b != own => Err(format!(
            "the row's type {} contradicts --type {}: a row's type narrows --type, it cannot widen it",
            kind_word(own),
            kind_word(b)
        )),
        _ => Ok(Some(own)),
    }
}

fn kind_word(kind: KindFilter) -> &'static str {
    match kind {
        KindFilter::Individual => "individual",
        KindFilter::Entity => "entity",
    }
}

/// Refuses a name that cannot be screened: the service's one check
/// ([`crate::query::screenable`]), so the CLI, a batch and the server agree.
pub fn check_name(name: &str, kind: Option<KindFilter>) -> Result<(), String> {
    crate::query::screenable(name, kind)
}

/// The output line of `item` before it is screened: no match yet, and its error when it
/// cannot be screened.
pub fn unscreened_line(item: &BatchItem) -> BatchLine {
    BatchLine {
        qid: item.qid.clone(),
        line: item.line,
        position: item.position,
        query: item.name.clone(),
        kind: item.kind,
        total_matches: 0,
        results: Vec::new(),
        error: item.error.clone(),
        coverage: None,
        screening_id: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(bytes: &[u8]) -> Batch {
        parse_input(bytes, &InputOptions::default()).unwrap()
    }

    #[test]
    fn reads_every_shape_with_string_qids() {
        let lines = read(b"Vladimir Putin\n\n  Banco Nacional de Cuba \n");
        assert_eq!(lines.items[1].name, "Banco Nacional de Cuba");
        assert_eq!(lines.items[1].qid, "3");
        let json = read(br#"["A Person", "B Person"]"#);
        assert_eq!(json.items[1].qid, "2");
        let csv =
            read("\u{feff}qid,name,type\nq1,\"PUTIN, Vladimir\",individual\nq1,Acme,\n".as_bytes());
        assert_eq!(csv.items[0].name, "PUTIN, Vladimir");
        assert_eq!(csv.items[0].kind, Some(KindFilter::Individual));
        assert_eq!(
            csv.duplicates,
            vec![(
                "q1".to_owned(),
                vec!["line 2".to_owned(), "line 3".to_owned()]
            )]
        );
    }

    #[test]
    fn row_problems_stay_on_their_row() {
        let batch = read(b"name,type\nAcme Trading,company\nBeta,alien\nMr\n,\n");
        let errors: Vec<Option<&str>> = batch.items.iter().map(|i| i.error.as_deref()).collect();
        assert_eq!(errors[0], None);
        assert!(errors[1].unwrap().contains("alien"));
        assert!(errors[2].unwrap().contains("nothing to screen"));
        assert_eq!(batch.items.len(), 3, "the blank row is skipped");
        // Only a row whose name passed the check is marked so: the service skips its check.
        let checked: Vec<bool> = batch.items.iter().map(|i| i.name_checked).collect();
        assert_eq!(checked, [true, false, false]);
        let narrowed = parse_input(
            b"name,type\nAcme,entity\nBob Jones,individual\n",
            &InputOptions {
                kind: Some(KindFilter::Entity),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(narrowed.items[0].kind, Some(KindFilter::Entity));
        assert!(
            narrowed.items[1]
                .error
                .as_deref()
                .unwrap()
                .contains("narrows")
        );
    }

    #[test]
    fn names_that_normalise_to_nothing_are_refused() {
        for empty in ["Mr", ".", "LLC", "al", "  "] {
            assert!(check_name(empty, None).is_err(), "{empty}");
        }
        assert!(check_name("Vladimir Putin", None).is_ok());
        assert!(check_name("Al Qaida", None).is_ok());
    }
}
