//! Where the store is, and the one constructor the service opens it with: a SQLite file in
//! the data folder (the default) or a PostgreSQL database (`[store] url`, `--database-url`,
//! `SANCTIONS_DATABASE_URL`). No face names the backend.

use std::path::PathBuf;
use std::sync::Arc;

use super::postgres::PostgresRepository;
use super::{KeyStore, OpsStats, Repository, SqliteRepository, StoreError};
use crate::model::ScreeningRecord;

/// `[since, until)`, either end open.
pub type Period = (Option<jiff::Timestamp>, Option<jiff::Timestamp>);

/// The store interface the service holds: the repository, the key store, and what differs
/// between backends.
pub trait Backend: Repository + KeyStore + std::fmt::Debug {
    /// The SQLite repository, for the work that needs its single file (imports through
    /// the writer, checkpoints, the audit export's pages); `None` on another backend.
    fn sqlite(&self) -> Option<&SqliteRepository> {
        None
    }
    /// The PostgreSQL repository (list-change listener); `None` on another backend.
    fn postgres(&self) -> Option<&PostgresRepository> {
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
    fn sqlite(&self) -> Option<&SqliteRepository> {
        Some(self)
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
    fn postgres(&self) -> Option<&PostgresRepository> {
        Some(self)
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
        StoreLocation::Sqlite(path) => Arc::new(SqliteRepository::open(path)?),
        StoreLocation::Postgres(url) => Arc::new(PostgresRepository::open(url)?),
    })
}
