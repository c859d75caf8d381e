//! The data folder's database as a whole: imports and updates of the lists (`lists import`,
//! `lists update`, each followed by the integrity check of what it wrote) under the data
//! folder's write lock ([`lock_data_dir`]), and `store check`. The faces name a database by its path; the
//! store stays behind this module. [`LocalService::refresh_lists`](crate::LocalService::refresh_lists)
//! runs an import or update as the CLI and the UI both do: lock, import, check, then the
//! watchlist re-screen, reporting each [`Progress`] step.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::fetch::Fetcher;
use crate::ingest::{self, ImportOptions, IngestError, ListOutcome};
use crate::model::ListCode;
use crate::store::{IntegrityReport, NameDamage, Store, StoreError};

/// Why an import did not run.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The database could not be opened (or created, or migrated).
    #[error("cannot open the database {path}")]
    Open {
        path: String,
        #[source]
        source: StoreError,
    },
    /// The import was refused as a whole (e.g. the folder does not exist).
    #[error(transparent)]
    Refused(#[from] IngestError),
    /// The data folder's write lock could not be taken.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// The store refused the import (a shared store), or the work was cut short.
    #[error(transparent)]
    Service(#[from] crate::ServiceError),
}

/// Why the data folder's write lock could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("cannot create the lock file {path}")]
    Create {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot lock {path}")]
    Lock {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

/// The data folder's write lock (`sanctions.lock`), held until dropped: one import, update
/// or restore of a data folder at a time, across processes.
#[derive(Debug)]
pub struct DataLock {
    _file: std::fs::File,
}

/// Takes the write lock of `data_dir`; when another process holds it, calls `on_wait` and
/// waits for it (blocking).
pub fn lock_data_dir(data_dir: &Path, on_wait: impl FnOnce()) -> Result<DataLock, LockError> {
    let path = data_dir.join("sanctions.lock");
    let shown = || path.display().to_string();
    let file = crate::files::private_options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|source| LockError::Create {
            path: shown(),
            source,
        })?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            on_wait();
            file.lock().map_err(|source| LockError::Lock {
                path: shown(),
                source,
            })?;
        }
        Err(std::fs::TryLockError::Error(source)) => {
            return Err(LockError::Lock {
                path: shown(),
                source,
            });
        }
    }
    Ok(DataLock { _file: file })
}

/// What [`LocalService::refresh_lists`](crate::LocalService::refresh_lists) does.
#[derive(Debug, Clone)]
pub enum Work {
    /// Import the official files under this folder (one folder per list code).
    Import(PathBuf),
    /// Download the lists into the data folder's `downloads/` and import what changed.
    Update(Fetcher),
}

impl Work {
    /// `lists import` or `lists update`.
    pub fn name(&self) -> &'static str {
        match self {
            Work::Import(_) => "lists import",
            Work::Update(_) => "lists update",
        }
    }
}

/// An import or update of a data folder's lists.
#[derive(Debug, Clone)]
pub struct ListsJob {
    /// The data folder: its database is written, its lock taken.
    pub data_dir: PathBuf,
    pub work: Work,
    /// The lists to import (all eight when empty).
    pub selected: Vec<ListCode>,
    pub options: ImportOptions,
}

/// The steps of an import or update, in order, as they start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// Another import or update holds the data folder's lock: waiting for it to finish.
    Waiting,
    /// Reading the official files and storing each list.
    Importing,
    /// Downloading the lists from the publishers (then storing those that changed).
    Downloading,
    /// The full integrity check of the database.
    Checking,
    /// The screening index of the new lists, then the watchlist re-screen.
    Monitoring,
}

/// What an import or update did, then what the watchlist re-screen found (or why it
/// failed: the lists are imported all the same).
#[derive(Debug)]
pub struct Refreshed {
    pub imported: Imported,
    pub watchlist: Result<crate::api::favorites::RescreenSummary, crate::ServiceError>,
}

/// Runs `job`'s import or update on its data folder's database, under the held lock
/// (blocking: call on the blocking pool; an update drives its downloads with the runtime's
/// handle).
pub(crate) fn run_job(
    job: &ListsJob,
    progress: &(dyn Fn(Progress) + Send + Sync),
) -> Result<Imported, ImportError> {
    let db = crate::config::database_path(&job.data_dir);
    let mut store = open_write(&db)?;
    let outcomes = match &job.work {
        Work::Import(dir) => {
            progress(Progress::Importing);
            ingest::import_dir_with(&mut store, dir, &job.selected, &job.options)?
        }
        Work::Update(fetcher) => {
            progress(Progress::Downloading);
            let downloads = job.data_dir.join("downloads");
            tokio::runtime::Handle::current().block_on(ingest::update_lists_with(
                &mut store,
                fetcher,
                &downloads,
                &job.selected,
                &job.options,
            ))
        }
    };
    progress(Progress::Checking);
    let damage = integrity_problems(&store);
    Ok(Imported { outcomes, damage })
}

/// What an import or an update did: one outcome per list, and the problems of the full
/// integrity check that follows it (`None` when the database is sound).
#[derive(Debug)]
pub struct Imported {
    pub outcomes: Vec<ListOutcome>,
    pub damage: Option<String>,
}

fn open_write(path: &Path) -> Result<Store, ImportError> {
    Store::open(path).map_err(|source| ImportError::Open {
        path: path.display().to_string(),
        source,
    })
}

/// Imports the selected lists found under `dir` (`dir/<code>/...`) into the database at
/// `path`, then checks its integrity.
pub fn import_dir(
    path: &Path,
    dir: &Path,
    selected: &[ListCode],
    options: &ImportOptions,
) -> Result<Imported, ImportError> {
    let mut store = open_write(path)?;
    let outcomes = ingest::import_dir_with(&mut store, dir, selected, options)?;
    let damage = integrity_problems(&store);
    Ok(Imported { outcomes, damage })
}

/// Downloads the selected lists into `downloads/<code>/` and imports each one whose files
/// changed into the database at `path`, then checks its integrity.
pub async fn update_lists(
    path: &Path,
    fetcher: &Fetcher,
    downloads: &Path,
    selected: &[ListCode],
    options: &ImportOptions,
) -> Result<Imported, ImportError> {
    let mut store = open_write(path)?;
    let outcomes =
        ingest::update_lists_with(&mut store, fetcher, downloads, selected, options).await;
    let damage = integrity_problems(&store);
    Ok(Imported { outcomes, damage })
}

/// The problems of the check after an import ([`Store::integrity_after_import`]), joined,
/// or `None` when the database is sound.
fn integrity_problems(store: &Store) -> Option<String> {
    let report = store.integrity_after_import();
    if let Ok(report) = &report {
        tracing::info!(
            check = report.check,
            millis = report.elapsed_ms,
            problems = report.problems.len(),
            "database checked after the import"
        );
    }
    match report {
        Ok(report) if report.ok() => None,
        Ok(report) => Some(report.problems.join("; ")),
        Err(e) => Some(e.to_string()),
    }
}

/// How a write-protected data folder's database is read (immutable, a private copy), when
/// it is.
pub fn access(path: &Path) -> Option<&'static str> {
    crate::store::readonly::access(path)
        .ok()
        .and_then(|a| a.describe())
}

/// The report of `store check` (its `--json` form).
#[derive(Debug, Serialize)]
pub struct CheckReport {
    pub database: String,
    /// How a write-protected folder was read, when it was (immutable, a private copy).
    pub access: Option<&'static str>,
    /// `integrity_check`'s verdict.
    pub integrity: IntegrityWire,
    pub lists: Vec<ListCheck>,
    pub ok: bool,
}

/// SQLite's verdict on the file's structure.
#[derive(Debug, Serialize)]
pub struct IntegrityWire {
    pub check: &'static str,
    pub ok: bool,
    pub problems: Vec<String>,
    pub elapsed_ms: u64,
}

/// One list's verdict: `ok`, `damaged`, `unverified` (imported before digests were kept)
/// or `empty` (never imported).
#[derive(Debug, Serialize)]
pub struct ListCheck {
    pub list_code: ListCode,
    pub status: &'static str,
    pub names_stored: Option<u64>,
    pub names_found: Option<u64>,
    /// For a damaged list: what is wrong and how to repair it.
    pub message: Option<String>,
}

/// Why `store check` could not run.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// The database could not be opened.
    #[error("cannot open the database {path}")]
    Open {
        path: String,
        #[source]
        source: StoreError,
    },
    /// A check failed to read the database.
    #[error(transparent)]
    Check(StoreError),
}

/// SQLite's full integrity check of the database at `path` and, per list, the names read
/// back against the count and checksum stored at import. The database is opened for
/// reading only (an older schema is migrated when the folder allows).
pub fn check(path: &Path) -> Result<CheckReport, CheckError> {
    let store = open_read(path).map_err(|source| CheckError::Open {
        path: path.display().to_string(),
        source,
    })?;
    let integrity = store.integrity(true).map_err(CheckError::Check)?;
    let lists = list_checks(&store).map_err(CheckError::Check)?;
    Ok(CheckReport {
        database: path.display().to_string(),
        access: access(path),
        ok: integrity.ok() && lists.iter().all(|l| l.status != "damaged"),
        integrity: wire(integrity),
        lists,
    })
}

/// The store for reading only: nothing is created or written, so a read-only data folder
/// works. An older schema is migrated if the folder allows (a newer program was installed).
fn open_read(path: &Path) -> Result<Store, StoreError> {
    match Store::open_read_only(path) {
        Err(StoreError::NeedsUpgrade { .. }) => Store::open(path),
        other => other,
    }
}

fn wire(report: IntegrityReport) -> IntegrityWire {
    IntegrityWire {
        check: report.check,
        ok: report.ok(),
        problems: report.problems,
        elapsed_ms: report.elapsed_ms,
    }
}

/// Each list's names against its digest.
fn list_checks(store: &Store) -> Result<Vec<ListCheck>, StoreError> {
    let stored = store.name_digests()?;
    let damage: Vec<NameDamage> = store.verify_names()?;
    let counts = store.lists()?;
    Ok(ListCode::ALL
        .iter()
        .map(|&list| {
            let digest = stored.get(&list);
            let hurt = damage.iter().find(|d| d.list == list);
            let has_data = counts.iter().any(|s| s.list == list && s.count > 0);
            let status = match (hurt, digest, has_data) {
                (Some(_), _, _) => "damaged",
                (None, Some(_), _) => "ok",
                (None, None, true) => "unverified",
                (None, None, false) => "empty",
            };
            ListCheck {
                list_code: list,
                status,
                names_stored: digest.map(|d| d.names),
                names_found: hurt.map_or(digest.map(|d| d.names), |d| Some(d.found)),
                message: hurt.map(NameDamage::message),
            }
        })
        .collect())
}
