//! Bringing lists into the store: parse a folder of official files per list (in parallel),
//! then replace each list in its own transaction. One list failing never stops the others.

use std::path::Path;

use rayon::prelude::*;

use crate::model::{ListCode, UpdateRecord};
use crate::sources::{self, ParsedList};
use crate::store::Store;

/// What happened to one list.
#[derive(Debug)]
pub enum Outcome {
    /// Parsed and stored (the record may show zero changes).
    Imported(UpdateRecord),
    /// The publisher's files had not changed since the last import; nothing was done.
    Unchanged,
    /// Not attempted, with the reason (e.g. no folder for it).
    Skipped(String),
    /// Attempted and failed; the list keeps its previous version.
    Failed(String),
}

/// One list's outcome.
#[derive(Debug)]
pub struct ListOutcome {
    pub list: ListCode,
    pub outcome: Outcome,
}

impl ListOutcome {
    /// True when the list failed.
    pub fn failed(&self) -> bool {
        matches!(self.outcome, Outcome::Failed(_))
    }
}

/// Why an import could not start at all.
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    #[error("{0} is not a folder")]
    NotADir(String),
    #[error(
        "{dir} holds no list folder (expected one or more of: {expected}); the layout is DIR/<list code>/<official files>"
    )]
    NoListFolders { dir: String, expected: String },
}

/// The lists to work on: `selected`, or all eight when it is empty.
pub fn selection(selected: &[ListCode]) -> Vec<ListCode> {
    if selected.is_empty() {
        ListCode::ALL.to_vec()
    } else {
        ListCode::ALL
            .into_iter()
            .filter(|l| selected.contains(l))
            .collect()
    }
}

/// Imports every selected list found under `dir` (`dir/<code>/...`).
pub fn import_dir(
    store: &mut Store,
    dir: &Path,
    selected: &[ListCode],
) -> Result<Vec<ListOutcome>, IngestError> {
    if !dir.is_dir() {
        return Err(IngestError::NotADir(dir.display().to_string()));
    }
    let lists = selection(selected);
    let present: Vec<ListCode> = lists
        .iter()
        .copied()
        .filter(|l| dir.join(l.code()).is_dir())
        .collect();
    if present.is_empty() {
        return Err(IngestError::NoListFolders {
            dir: dir.display().to_string(),
            expected: lists
                .iter()
                .map(|l| l.code())
                .collect::<Vec<_>>()
                .join(", "),
        });
    }
    let parsed = parse_lists(dir, &present);
    let origin = format!("import {}", dir.display());
    let mut outcomes: Vec<ListOutcome> = lists
        .iter()
        .filter(|l| !present.contains(l))
        .map(|&list| ListOutcome {
            list,
            outcome: Outcome::Skipped(format!("no folder {}", dir.join(list.code()).display())),
        })
        .collect();
    for (list, result) in parsed {
        let outcome = match result {
            Ok(parsed) => store_parsed(store, &parsed, &origin),
            Err(e) => Outcome::Failed(e.to_string()),
        };
        outcomes.push(ListOutcome { list, outcome });
    }
    outcomes.sort_by_key(|o| ListCode::ALL.iter().position(|l| *l == o.list));
    Ok(outcomes)
}

/// Parses each of `lists` from `dir/<code>/`, in parallel, without storing anything.
pub fn parse_lists(
    dir: &Path,
    lists: &[ListCode],
) -> Vec<(ListCode, Result<ParsedList, sources::SourceError>)> {
    lists
        .par_iter()
        .map(|&list| (list, sources::parse_dir(list, &dir.join(list.code()))))
        .collect()
}

/// Stores one parsed list, refusing an empty one (an empty parse of a real list means a wrong
/// file, and would wipe the list).
pub fn store_parsed(store: &mut Store, parsed: &ParsedList, origin: &str) -> Outcome {
    if parsed.entities.is_empty() {
        let files: Vec<_> = parsed.files.iter().map(|f| f.name.as_str()).collect();
        return Outcome::Failed(format!(
            "{}: no entries found; the previous version is kept",
            files.join(", ")
        ));
    }
    match store.replace_list(parsed, origin) {
        Ok(record) => Outcome::Imported(record),
        Err(e) => Outcome::Failed(format!("{e}; the previous version is kept")),
    }
}

/// Downloads the selected lists from their publishers (or the configured mirror) into
/// `downloads/<code>/` and imports each one whose files changed. A list whose store copy is
/// empty is downloaded in full, whatever its saved validators say.
pub async fn update_lists(
    store: &mut Store,
    fetcher: &crate::fetch::Fetcher,
    downloads: &Path,
    selected: &[ListCode],
) -> Vec<ListOutcome> {
    let counts: std::collections::HashMap<ListCode, u64> = store
        .lists()
        .map(|lists| lists.into_iter().map(|l| (l.list, l.count)).collect())
        .unwrap_or_default();
    let mut outcomes = Vec::new();
    for list in selection(selected) {
        let dir = downloads.join(list.code());
        let conditional = counts.get(&list).is_some_and(|c| *c > 0);
        let outcome = match fetcher.fetch_list(list, &dir, conditional).await {
            Err(e) => Outcome::Failed(e.to_string()),
            Ok(crate::fetch::Fetched::NotModified) => Outcome::Unchanged,
            Ok(crate::fetch::Fetched::Downloaded { validators }) => {
                let origin = format!("update {}", dir.display());
                match sources::parse_dir(list, &dir) {
                    Err(e) => Outcome::Failed(e.to_string()),
                    Ok(parsed) => {
                        let outcome = store_parsed(store, &parsed, &origin);
                        if let Outcome::Imported(_) = outcome
                            && let Err(e) = validators.save(&dir)
                        {
                            tracing::warn!(%list, error = %e, "cannot save download validators");
                        }
                        outcome
                    }
                }
            }
        };
        outcomes.push(ListOutcome { list, outcome });
    }
    outcomes
}
