//! Where the store is, and the one constructor the service opens it with: a SQLite file in
//! the data folder (the default) or a PostgreSQL database (`[store] url`, `--database-url`,
//! `SANCTIONS_DATABASE_URL`). No face names the backend.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::postgres::PostgresRepository;
use super::sink::{ListSink, WriterSink};
use super::{KeyStore, OpsStats, Repository, SqliteRepository, StoreError};
use crate::model::ScreeningRecord;

/// A running watch of list changes ([`Backend::watch_lists`]); dropping it stops the watch.
pub type ListWatch = Box<dyn std::any::Any + Send>;

/// `[since, until)`, either end open.
pub type Period = (Option<jiff::Timestamp>, Option<jiff::Timestamp>);

/// The store interface the service holds: the repository, the key store, and what differs
/// between backends, said in terms that name none.
pub trait Backend: Repository + KeyStore + std::fmt::Debug {
    /// Where an import writes its parsed lists, each in one transaction of its own.
    fn list_sink(&self) -> Box<dyn ListSink + Send + '_>;
    /// The store's own file when it lives in a data folder (files derived from it, such as
    /// the persisted screening index, go beside it); `None` on a store shared by several
    /// processes.
    fn local_file(&self) -> Option<&Path> {
        None
    }
    /// Whether several processes share the store (their imports go through the store's own
    /// per-list lock, not a data folder's).
    fn is_shared(&self) -> bool {
        self.local_file().is_none()
    }
    /// What the check at open found wrong, if anything (then nothing derived from the store
    /// earlier, such as a persisted screening index, is trusted).
    fn open_problem(&self) -> Option<&str> {
        None
    }
    /// Starts the store's own background work for a process that writes all the time (the
    /// WAL checkpointer on SQLite); whether anything started.
    fn start_background(self: Arc<Self>) -> bool {
        false
    }
    /// Calls `on_change` whenever another process commits a list import, for as long as the
    /// returned watch is kept; `None` on a store that tells nothing.
    fn watch_lists(&self, _on_change: Box<dyn Fn() + Send>) -> Option<ListWatch> {
        None
    }
    /// Where the store is, for messages (a URL without its password).
    fn describe(&self) -> String;
    /// One page of an audit export: the screenings of `account` in `period` with an id above
    /// `after` (the last id of the previous page), oldest first, at most `limit`.
    fn screenings_after(
        &self,
        account: &str,
        period: Period,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<ScreeningRecord>, StoreError>;
    /// The store's figures for `/metrics`.
    fn ops_stats(&self) -> Result<OpsStats, StoreError>;
}

impl Backend for SqliteRepository {
    fn list_sink(&self) -> Box<dyn ListSink + Send + '_> {
        Box::new(WriterSink(self))
    }
    fn local_file(&self) -> Option<&Path> {
        Some(self.path())
    }
    fn open_problem(&self) -> Option<&str> {
        SqliteRepository::open_problem(self)
    }
    fn start_background(self: Arc<Self>) -> bool {
        self.start_checkpointer()
    }
    fn describe(&self) -> String {
        self.path().display().to_string()
    }
    fn screenings_after(
        &self,
        account: &str,
        period: Period,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<ScreeningRecord>, StoreError> {
        self.with_reader(|store| store.screenings_after(account, period, after, limit))
    }
    fn ops_stats(&self) -> Result<OpsStats, StoreError> {
        self.with_reader(|store| store.ops_stats())
    }
}

impl Backend for PostgresRepository {
    fn list_sink(&self) -> Box<dyn ListSink + Send + '_> {
        Box::new(self)
    }
    fn watch_lists(&self, on_change: Box<dyn Fn() + Send>) -> Option<ListWatch> {
        Some(Box::new(PostgresRepository::watch_lists(self, on_change)))
    }
    fn describe(&self) -> String {
        self.url().to_owned()
    }
    fn screenings_after(
        &self,
        account: &str,
        period: Period,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<ScreeningRecord>, StoreError> {
        PostgresRepository::screenings_after(self, account, period, after, limit)
    }
    fn ops_stats(&self) -> Result<OpsStats, StoreError> {
        PostgresRepository::ops_stats(self)
    }
}

/// Where the store is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreLocation {
    /// A SQLite file (`sanctions.db` in the data folder).
    Sqlite(PathBuf),
    /// A PostgreSQL database URL.
    Postgres(String),
}

impl StoreLocation {
    /// PostgreSQL when `url` is given (and not blank), else the SQLite file at `path`.
    pub fn choose(url: Option<&str>, path: PathBuf) -> StoreLocation {
        match url.map(str::trim).filter(|u| !u.is_empty()) {
            Some(url) => StoreLocation::Postgres(url.to_owned()),
            None => StoreLocation::Sqlite(path),
        }
    }
}

/// Opens (creating and migrating as needed) the store at `location`.
pub fn open(location: &StoreLocation) -> Result<Arc<dyn Backend>, StoreError> {
    Ok(match location {
        StoreLocation::Sqlite(path) => {
            Arc::new(SqliteRepository::open(path).map_err(|e| full_disk_or(e, path))?)
        }
        StoreLocation::Postgres(url) => Arc::new(PostgresRepository::open(url)?),
    })
}

/// An open of the SQLite file `path` that failed where its disk has no room left, as a full
/// disk: SQLite reports journal files it cannot set up there as a disk I/O error.
fn full_disk_or(error: StoreError, path: &Path) -> StoreError {
    let unclear = matches!(
        error,
        StoreError::Other { .. } | StoreError::Unavailable { .. }
    );
    if unclear && no_room(path) {
        StoreError::Full {
            source: Some(Box::new(error)),
        }
    } else {
        error
    }
}

/// Whether the file system holding `path`'s folder has less than 1 MiB left for this
/// process (too little for SQLite's journal files).
#[cfg(unix)]
fn no_room(path: &Path) -> bool {
    let folder = path.parent().filter(|p| !p.as_os_str().is_empty());
    rustix::fs::statvfs(folder.unwrap_or(Path::new(".")))
        .is_ok_and(|fs| fs.f_bavail.saturating_mul(fs.f_frsize) < 1 << 20)
}

#[cfg(not(unix))]
fn no_room(_path: &Path) -> bool {
    false
}

/// Opens an existing SQLite store read-only (a write-protected data folder): every read
/// works, every write fails.
pub fn open_read_only(path: &Path) -> Result<Arc<dyn Backend>, StoreError> {
    Ok(Arc::new(SqliteRepository::open_read_only(path)?))
}
