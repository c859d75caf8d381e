//! Bringing lists into the store: parse a folder of official files per list (in parallel),
//! then replace each list in its own transaction. One list failing never stops the others.
//!
//! The guards against a silent loss live here: every file is checked against the size cap
//! before it is read (or hashed), a parser that panics fails its own list only, an import that
//! would remove more of a list than `[import]` allows is refused unless `allow_shrink`, and
//! every failed import is recorded in the list's history with its files and reason. The
//! parsers add their own (`sources::decoding`: no silent change of encoding;
//! `sources::archive`: zip bounds before calamine), and the store records a digest of each
//! list's names for the index to verify (`store::integrity`).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use rayon::prelude::*;

use crate::config::ImportConfig;
use crate::model::ListCode;
use crate::model::UpdateRecord;
use crate::sources::{self, ParsedList};
use crate::store::StoreError;

pub use crate::store::ListSink;

/// How an import guards the stored lists.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportOptions {
    /// How much of a list one import may remove.
    pub shrink: ImportConfig,
    /// Accept an import that removes more than `shrink` allows (`--allow-shrink`).
    pub allow_shrink: bool,
    /// The largest file read, in bytes: the same cap as downloads (`fetch.max_bytes`).
    pub max_file_bytes: u64,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            shrink: ImportConfig::default(),
            allow_shrink: false,
            max_file_bytes: crate::config::FetchConfig::default().max_bytes,
        }
    }
}

impl ImportOptions {
    /// The options a configuration gives, with `allow_shrink` from the command line.
    pub fn from_config(config: &crate::config::Config, allow_shrink: bool) -> ImportOptions {
        ImportOptions {
            shrink: config.import.clone(),
            allow_shrink,
            max_file_bytes: config.fetch.max_bytes,
        }
    }
}

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

/// Imports every selected list found under `dir` (`dir/<code>/...`) with the default guards.
pub fn import_dir(
    store: &mut dyn ListSink,
    dir: &Path,
    selected: &[ListCode],
) -> Result<Vec<ListOutcome>, IngestError> {
    import_dir_with(store, dir, selected, &ImportOptions::default())
}

/// Imports every selected list found under `dir` (`dir/<code>/...`).
pub fn import_dir_with(
    store: &mut dyn ListSink,
    dir: &Path,
    selected: &[ListCode],
    options: &ImportOptions,
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
    let parsed = parse_lists_capped(dir, &present, options.max_file_bytes);
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
        let folder = dir.join(list.code());
        let outcome = finish(store, (list, &folder), result, &origin, options, None);
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

/// [`parse_lists`] behind the guards: files over `max_file_bytes` are refused unread and a
/// parser's panic fails its own list only.
pub fn parse_lists_capped(
    dir: &Path,
    lists: &[ListCode],
    max_file_bytes: u64,
) -> Vec<(ListCode, Result<ParsedList, String>)> {
    lists
        .par_iter()
        .map(|&list| {
            (
                list,
                parse_guarded(list, &dir.join(list.code()), max_file_bytes),
            )
        })
        .collect()
}

/// Parses one list's folder: sizes checked first, a panic caught and reported.
pub fn parse_guarded(
    list: ListCode,
    dir: &Path,
    max_file_bytes: u64,
) -> Result<ParsedList, String> {
    check_sizes(dir, max_file_bytes)?;
    caught(|| sources::parse_dir(list, dir).map_err(|e| e.to_string()))
}

/// Runs `parse`, turning a panic into an error: one broken parser fails its list only.
pub fn caught<T>(parse: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(parse)).unwrap_or_else(|panic| {
        let message = panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown cause".to_owned());
        tracing::error!(%message, "parser panicked");
        Err(format!(
            "the parser failed unexpectedly ({message}); this is a bug, please report it with the file"
        ))
    })
}

/// Refuses a folder holding a file larger than `max` bytes (the download size cap), before
/// anything reads it whole.
pub fn check_sizes(dir: &Path, max: u64) -> Result<(), String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(()); // the parser names the missing folder
    };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name().to_string_lossy().into_owned();
        let len = entry.metadata().map(|m| m.len()).unwrap_or(0);
        if !name.starts_with('.') && len > max {
            return Err(format!(
                "{name}: the file is {len} bytes, larger than the {max}-byte limit (fetch.max_bytes); not read"
            ));
        }
    }
    Ok(())
}

/// Stores one parse result, or records why it failed, and says what happened.
/// Stores one parsed list (an update's with the update id it started after) or records why
/// it failed.
fn finish(
    store: &mut dyn ListSink,
    (list, dir): (ListCode, &Path),
    result: Result<ParsedList, String>,
    origin: &str,
    options: &ImportOptions,
    since: Option<i64>,
) -> Outcome {
    let (outcome, files) = match result {
        Ok(parsed) => (
            store_checked(store, &parsed, origin, options, since),
            parsed.files,
        ),
        Err(e) => (Outcome::Failed(e), Vec::new()),
    };
    if let Outcome::Failed(reason) = &outcome {
        let files = if files.is_empty() {
            sources::input::identify_files(dir, options.max_file_bytes)
        } else {
            files
        };
        if let Err(e) = store.record_failed_import(list, origin, &files, reason) {
            tracing::error!(%list, error = %e, "cannot record the failed import");
        }
    }
    outcome
}

/// Stores one parsed list with the default guards (no large removal, no empty list).
pub fn store_parsed(store: &mut dyn ListSink, parsed: &ParsedList, origin: &str) -> Outcome {
    store_guarded(store, parsed, origin, &ImportOptions::default())
}

/// Stores one parsed list, refusing an empty one (an empty parse of a real list means a wrong
/// file, and would wipe the list) and, unless `allow_shrink`, one that would remove more than
/// the configured share of the list.
pub fn store_guarded(
    store: &mut dyn ListSink,
    parsed: &ParsedList,
    origin: &str,
    options: &ImportOptions,
) -> Outcome {
    store_checked(store, parsed, origin, options, None)
}

/// [`store_guarded`]; for an update that started after update `since`, `Unchanged` when
/// another process imported the same files meanwhile ([`ListSink::replace_list_once`]).
fn store_checked(
    store: &mut dyn ListSink,
    parsed: &ParsedList,
    origin: &str,
    options: &ImportOptions,
    since: Option<i64>,
) -> Outcome {
    if parsed.entities.is_empty() {
        let files: Vec<_> = parsed.files.iter().map(|f| f.name.as_str()).collect();
        return Outcome::Failed(format!(
            "{}: no entries found; the previous version is kept",
            files.join(", ")
        ));
    }
    let max_removed = |before: u64| {
        (!options.allow_shrink && before > 0).then(|| options.shrink.max_removed(before))
    };
    let stored = match since {
        Some(since) => store.replace_list_once(parsed, origin, &max_removed, since),
        None => store
            .replace_list_guarded(parsed, origin, &max_removed)
            .map(Some),
    };
    match stored {
        Ok(Some(record)) => Outcome::Imported(record),
        Ok(None) => Outcome::Unchanged,
        Err(e @ StoreError::WouldShrink { .. }) => Outcome::Failed(format!(
            "{e}; the previous version is kept. Check the files, or pass --allow-shrink if the list really shrank"
        )),
        Err(e) => Outcome::Failed(format!("{e}; the previous version is kept")),
    }
}

/// Downloads the selected lists from their publishers (or the configured mirror) into
/// `downloads/<code>/` and imports each one whose files changed. A list whose store copy is
/// empty is downloaded in full, whatever its saved validators say.
pub async fn update_lists(
    store: &mut (dyn ListSink + Send),
    fetcher: &crate::fetch::Fetcher,
    downloads: &Path,
    selected: &[ListCode],
) -> Vec<ListOutcome> {
    update_lists_with(
        store,
        fetcher,
        downloads,
        selected,
        &ImportOptions::default(),
    )
    .await
}

/// [`update_lists`] with the given guards.
pub async fn update_lists_with(
    store: &mut (dyn ListSink + Send),
    fetcher: &crate::fetch::Fetcher,
    downloads: &Path,
    selected: &[ListCode],
    options: &ImportOptions,
) -> Vec<ListOutcome> {
    let counts: std::collections::HashMap<ListCode, u64> = store
        .lists()
        .map(|lists| lists.into_iter().map(|l| (l.list, l.count)).collect())
        .unwrap_or_default();
    // An import by another process after this point, of the files downloaded here, is not
    // repeated (a shared store; see `ListSink::replace_list_once`).
    let since = store.latest_update().ok();
    let mut outcomes = Vec::new();
    for list in selection(selected) {
        let dir = downloads.join(list.code());
        let conditional = counts.get(&list).is_some_and(|c| *c > 0);
        let origin = format!("update {}", dir.display());
        let outcome = match fetcher.fetch_list(list, &dir, conditional).await {
            Err(e) => {
                let reason = e.to_string();
                if let Err(e) = store.record_failed_import(list, &origin, &[], &reason) {
                    tracing::error!(%list, error = %e, "cannot record the failed update");
                }
                Outcome::Failed(reason)
            }
            Ok(crate::fetch::Fetched::NotModified) => Outcome::Unchanged,
            Ok(crate::fetch::Fetched::Downloaded { validators }) => {
                let parsed = parse_guarded(list, &dir, options.max_file_bytes);
                let outcome = finish(store, (list, &dir), parsed, &origin, options, since);
                if let Outcome::Imported(_) | Outcome::Unchanged = outcome
                    && let Err(e) = validators.save(&dir)
                {
                    tracing::warn!(%list, error = %e, "cannot save download validators");
                }
                outcome
            }
        };
        outcomes.push(ListOutcome { list, outcome });
    }
    outcomes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panicking_parser_fails_its_list_only() {
        let result: Result<(), String> = caught(|| panic!("index out of bounds"));
        let message = result.unwrap_err();
        assert!(message.contains("index out of bounds"), "{message}");
        assert_eq!(caught(|| Ok::<_, String>(7)), Ok(7));
    }

    #[test]
    fn files_over_the_cap_are_refused_unread() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("sdn.csv"), vec![b'x'; 2_000]).unwrap();
        let e = check_sizes(dir.path(), 1_000).unwrap_err();
        assert!(e.starts_with("sdn.csv: the file is 2000 bytes"), "{e}");
        assert_eq!(check_sizes(dir.path(), 2_000), Ok(()));
    }
}
