//! Batch screening: reading a batch of names in any of the accepted shapes (CSV with a `name`
//! column, one name per line, a JSON array of strings, `{"names": [...]}`) and screening them
//! on all cores, results in input order.

use rayon::prelude::*;

use crate::api::screening::{BatchLine, KindFilter, Qid, ScreenRequest};
use crate::engine::{self, Index};
use crate::service::mapping;

/// The largest batch input read, in bytes.
pub const MAX_INPUT_BYTES: usize = 64 * 1024 * 1024;

/// One name of a batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchItem {
    pub qid: Qid,
    pub name: String,
    /// The row's own `type`, overriding the batch's.
    pub kind: Option<KindFilter>,
    /// The row's `dob` and `country` columns.
    pub date_of_birth: Option<String>,
    pub country: Option<String>,
}

/// Why a batch input cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    #[error("the input is larger than {} MiB", MAX_INPUT_BYTES / 1024 / 1024)]
    TooLarge,
    #[error("the input is not UTF-8 text")]
    NotText,
    #[error("invalid JSON: {0} (expected an array of names or {{\"names\": [...]}})")]
    Json(#[from] serde_json::Error),
    #[error("CSV row {row}: {message}")]
    Csv { row: u64, message: String },
    #[error("CSV row {row}: type must be individual or entity, not {value:?}")]
    Type { row: u64, value: String },
}

/// Reads a batch: JSON when it starts with `[` or `{`, CSV when its first line has a `name`
/// (or `query`) column, else one name per line (blank lines skipped).
pub fn parse_input(bytes: &[u8]) -> Result<Vec<BatchItem>, BatchError> {
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(BatchError::TooLarge);
    }
    let text = std::str::from_utf8(bytes).map_err(|_| BatchError::NotText)?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let trimmed = text.trim_start();
    if trimmed.starts_with('[') || trimmed.starts_with('{') {
        return parse_json(trimmed);
    }
    let first_line = text.lines().next().unwrap_or_default();
    if let Some(columns) = csv_columns(first_line) {
        return parse_csv(text, columns);
    }
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .enumerate()
        .map(|(i, line)| BatchItem {
            qid: Qid::Row(i as u64 + 1),
            name: line.to_owned(),
            kind: None,
            date_of_birth: None,
            country: None,
        })
        .collect())
}

fn parse_json(text: &str) -> Result<Vec<BatchItem>, BatchError> {
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum Shape {
        Names(Vec<String>),
        Object { names: Vec<String> },
    }
    let names = match serde_json::from_str::<Shape>(text)? {
        Shape::Names(names) | Shape::Object { names } => names,
    };
    Ok(names
        .into_iter()
        .enumerate()
        .map(|(i, name)| BatchItem {
            qid: Qid::Row(i as u64 + 1),
            name,
            kind: None,
            date_of_birth: None,
            country: None,
        })
        .collect())
}

/// Positions of the name, type and qid columns when `header` is a CSV header naming them.
struct Columns {
    name: usize,
    kind: Option<usize>,
    qid: Option<usize>,
    dob: Option<usize>,
    country: Option<usize>,
}

fn csv_columns(header: &str) -> Option<Columns> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(header.as_bytes());
    let record = reader.records().next()?.ok()?;
    let find = |wanted: &[&str]| {
        wanted
            .iter()
            .find_map(|w| record.iter().position(|c| c.trim().eq_ignore_ascii_case(w)))
    };
    Some(Columns {
        name: find(&["name", "query"])?,
        kind: find(&["type", "type_hint"]),
        qid: find(&["qid", "id"]),
        dob: find(&["dob", "date_of_birth"]),
        country: find(&["country"]),
    })
}

fn parse_csv(text: &str, columns: Columns) -> Result<Vec<BatchItem>, BatchError> {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut items = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let row = i as u64 + 1;
        let record = record.map_err(|e| BatchError::Csv {
            row,
            message: e.to_string(),
        })?;
        let Some(name) = record.get(columns.name) else {
            return Err(BatchError::Csv {
                row,
                message: "the name column is missing".to_owned(),
            });
        };
        let kind = match columns.kind.and_then(|c| record.get(c)).map(str::trim) {
            None | Some("") => None,
            Some(v) if v.eq_ignore_ascii_case("individual") => Some(KindFilter::Individual),
            Some(v) if v.eq_ignore_ascii_case("entity") => Some(KindFilter::Entity),
            Some(v) => {
                return Err(BatchError::Type {
                    row,
                    value: v.to_owned(),
                });
            }
        };
        let qid = match columns.qid.and_then(|c| record.get(c)).map(str::trim) {
            Some(q) if !q.is_empty() => Qid::Text(q.to_owned()),
            _ => Qid::Row(row),
        };
        let cell = |c: Option<usize>| {
            c.and_then(|c| record.get(c))
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .map(str::to_owned)
        };
        items.push(BatchItem {
            qid,
            name: name.to_owned(),
            kind,
            date_of_birth: cell(columns.dob),
            country: cell(columns.country),
        });
    }
    Ok(items)
}

/// Screens every item on all cores with the options of `template` (its name is ignored), calling
/// `progress` after each. Results come back in input order.
pub fn screen_all(
    index: &Index,
    items: &[BatchItem],
    template: &ScreenRequest,
    progress: impl Fn() + Sync,
) -> Vec<BatchLine> {
    items
        .par_iter()
        .map(|item| {
            let request = ScreenRequest {
                name: item.name.clone(),
                kind: item.kind.or(template.kind),
                date_of_birth: item.date_of_birth.clone(),
                country: item.country.clone(),
                ..template.clone()
            };
            let line = match engine::screen(index, &mapping::request(&request)) {
                Ok(screening) => BatchLine {
                    qid: item.qid.clone(),
                    query: item.name.clone(),
                    total_matches: screening.total,
                    results: screening.hits.into_iter().map(mapping::match_of).collect(),
                    error: None,
                },
                Err(e) => BatchLine {
                    qid: item.qid.clone(),
                    query: item.name.clone(),
                    total_matches: 0,
                    results: Vec::new(),
                    error: Some(e.to_string()),
                },
            };
            progress();
            line
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(items: &[BatchItem]) -> Vec<&str> {
        items.iter().map(|i| i.name.as_str()).collect()
    }

    #[test]
    fn reads_every_shape() {
        let lines = parse_input(b"Vladimir Putin\n\n  Banco Nacional de Cuba \n").unwrap();
        assert_eq!(names(&lines), ["Vladimir Putin", "Banco Nacional de Cuba"]);
        assert_eq!(lines[1].qid, Qid::Row(2));

        let json = parse_input(br#"["A", "B"]"#).unwrap();
        assert_eq!(names(&json), ["A", "B"]);
        let object = parse_input(br#" {"names": ["C"]}"#).unwrap();
        assert_eq!(names(&object), ["C"]);

        let csv = parse_input(
            "\u{feff}qid,name,type\nq1,\"PUTIN, Vladimir\",individual\nq2,Acme,\n".as_bytes(),
        )
        .unwrap();
        assert_eq!(names(&csv), ["PUTIN, Vladimir", "Acme"]);
        assert_eq!(csv[0].qid, Qid::Text("q1".to_owned()));
        assert_eq!(csv[0].kind, Some(KindFilter::Individual));
        assert_eq!(csv[1].kind, None);
        let facts = parse_input(b"name,dob,country\nVladimir Putin,1952-10-07,RU\n").unwrap();
        assert_eq!(facts[0].date_of_birth.as_deref(), Some("1952-10-07"));
        assert_eq!(facts[0].country.as_deref(), Some("RU"));
    }

    #[test]
    fn bad_input_is_explained() {
        assert!(matches!(parse_input(b"[1, 2]"), Err(BatchError::Json(_))));
        assert!(matches!(
            parse_input(&[0xff, 0xfe, 0x00]),
            Err(BatchError::NotText)
        ));
        let bad_type = parse_input(b"name,type\nAcme,company\n");
        assert!(
            matches!(bad_type, Err(BatchError::Type { row: 1, .. })),
            "{bad_type:?}"
        );
    }
}
