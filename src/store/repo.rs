//! The repository interface the service layer talks to, and its SQLite implementation.
//!
//! [`Repository`] names every store operation in domain types only, so that a PostgreSQL
//! backend (several servers sharing one database, see the roadmap) can implement it without
//! touching the service. Its methods block: callers on an async runtime run them with
//! `spawn_blocking`.
//!
//! [`SqliteRepository`] keeps one writer connection (SQLite allows one writer at a time;
//! every write is an IMMEDIATE transaction, so a busy database waits up to
//! [`super::BUSY_TIMEOUT`] and then fails with [`StoreError::Busy`]) and a pool of reader
//! connections, so reads run in parallel with each other and with an import (WAL mode).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use super::favorites::{FavoriteInsert, FavoriteUpdate};
use super::screenings::{Changes, NewDecision};
use super::{EntityChange, ListSummary, Store, StoreError};
use crate::model::{
    Alert, AlertChange, AlertFilter, DecisionRecord, Entity, EntityKind, EntityNames,
    EntityVersion, Favorite, ListCode, ListVersions, RescreenRun, ReviewStatus, ScreeningFilter,
    ScreeningRecord, UpdateRecord,
};
use crate::sources::ParsedList;

/// Every store operation the service uses. All writes of one call are one transaction.
pub trait Repository: Send + Sync {
    // Lists and entries.
    fn lists(&self) -> Result<Vec<ListSummary>, StoreError>;
    fn updates(&self, list: ListCode, limit: usize) -> Result<Vec<UpdateRecord>, StoreError>;
    fn changes(&self, update_id: i64) -> Result<Vec<EntityChange>, StoreError>;
    fn list_versions(&self) -> Result<ListVersions, StoreError>;
    fn latest_update_id(&self) -> Result<i64, StoreError>;
    fn entity_names(&self) -> Result<Vec<EntityNames>, StoreError>;
    fn entity(&self, entity_id: &str) -> Result<Option<Entity>, StoreError>;
    fn entity_at(&self, entity_id: &str, update_id: i64) -> Result<Option<Entity>, StoreError>;
    fn entity_history(&self, entity_id: &str) -> Result<Vec<EntityVersion>, StoreError>;
    fn update_exists(&self, update_id: i64) -> Result<bool, StoreError>;
    fn replace_list(&self, parsed: &ParsedList, origin: &str) -> Result<UpdateRecord, StoreError>;

    // Screenings and review.
    fn record(&self, changes: &Changes) -> Result<(), StoreError>;
    fn screening(&self, id: &str) -> Result<Option<ScreeningRecord>, StoreError>;
    fn screenings(&self, filter: &ScreeningFilter) -> Result<Vec<ScreeningRecord>, StoreError>;
    fn decisions(&self, screening_id: &str) -> Result<Vec<DecisionRecord>, StoreError>;
    fn decisions_between(
        &self,
        since: Option<jiff::Timestamp>,
        until: Option<jiff::Timestamp>,
    ) -> Result<Vec<DecisionRecord>, StoreError>;
    fn decide(&self, decision: &NewDecision) -> Result<(DecisionRecord, ReviewStatus), StoreError>;

    // Alerts.
    fn alerts(&self, filter: &AlertFilter) -> Result<Vec<Alert>, StoreError>;
    fn alert(&self, id: &str) -> Result<Option<Alert>, StoreError>;
    fn change_alert(&self, change: &AlertChange) -> Result<Alert, StoreError>;
    fn alert_changes(
        &self,
        since: Option<jiff::Timestamp>,
        until: Option<jiff::Timestamp>,
    ) -> Result<Vec<AlertChange>, StoreError>;

    // Watchlist.
    fn add_favorite(&self, new: &FavoriteInsert, changes: &Changes) -> Result<(), StoreError>;
    fn import_favorites(
        &self,
        new: &[(FavoriteInsert, Changes)],
    ) -> Result<Vec<String>, StoreError>;
    fn favorites(&self, after: Option<&str>, limit: usize) -> Result<Vec<Favorite>, StoreError>;
    fn favorite(&self, id: &str) -> Result<Option<Favorite>, StoreError>;
    fn remove_favorite(&self, id: &str) -> Result<Favorite, StoreError>;
    fn favorite_count(&self) -> Result<u64, StoreError>;
    #[allow(clippy::type_complexity)]
    fn favorite_names(&self) -> Result<Vec<(String, String, Option<EntityKind>)>, StoreError>;
    fn favorite_matches(&self) -> Result<HashMap<String, Vec<(String, u8)>>, StoreError>;
    fn favorite_changes(&self, id: &str) -> Result<Vec<(String, String, String)>, StoreError>;
    fn record_rescreen(
        &self,
        run: &RescreenRun,
        updates: &[FavoriteUpdate],
        changes: &Changes,
        marker: Option<(&str, i64)>,
    ) -> Result<i64, StoreError>;
    fn rescreen_runs(&self, limit: usize) -> Result<Vec<RescreenRun>, StoreError>;
    fn marker(&self, key: &str) -> Result<Option<i64>, StoreError>;
}

/// The SQLite repository: one writer, a pool of readers, on one database file.
#[derive(Debug)]
pub struct SqliteRepository {
    path: PathBuf,
    writer: Mutex<Store>,
    readers: Mutex<Vec<Store>>,
    /// Opened with [`SqliteRepository::open_read_only`]: every connection only reads.
    read_only: bool,
}

/// Most idle reader connections kept.
const MAX_IDLE_READERS: usize = 8;

/// A reader borrowed from the pool, returned when dropped.
struct Reader<'a> {
    repo: &'a SqliteRepository,
    store: Option<Store>,
}

impl std::ops::Deref for Reader<'_> {
    type Target = Store;
    fn deref(&self) -> &Store {
        // Set at creation, taken only in drop.
        self.store
            .as_ref()
            .unwrap_or_else(|| unreachable!("reader used after drop"))
    }
}

impl Drop for Reader<'_> {
    fn drop(&mut self) {
        if let (Some(store), Ok(mut pool)) = (self.store.take(), self.repo.readers.lock())
            && pool.len() < MAX_IDLE_READERS
        {
            pool.push(store);
        }
    }
}

impl SqliteRepository {
    /// Opens (creating and migrating as needed) the database at `path`.
    pub fn open(path: &Path) -> Result<SqliteRepository, StoreError> {
        let writer = Store::open(path)?;
        Ok(SqliteRepository {
            path: path.to_path_buf(),
            writer: Mutex::new(writer),
            readers: Mutex::new(Vec::new()),
            read_only: false,
        })
    }

    /// Opens an existing, up-to-date database for reading only (a write-protected data
    /// folder): nothing is created or migrated, and every write fails with a store error.
    pub fn open_read_only(path: &Path) -> Result<SqliteRepository, StoreError> {
        let writer = Store::open_read_only(path)?;
        Ok(SqliteRepository {
            path: path.to_path_buf(),
            writer: Mutex::new(writer),
            readers: Mutex::new(Vec::new()),
            read_only: true,
        })
    }

    /// Whether this repository was opened read-only.
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The writer connection, for work that needs the whole store (imports).
    pub fn writer(&self) -> MutexGuard<'_, Store> {
        self.writer
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn reader(&self) -> Result<Reader<'_>, StoreError> {
        let pooled = self
            .readers
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .pop();
        let store = match pooled {
            Some(store) => store,
            None if self.read_only => Store::open_read_only(&self.path)?,
            None => Store::open(&self.path)?,
        };
        Ok(Reader {
            repo: self,
            store: Some(store),
        })
    }
}

impl Repository for SqliteRepository {
    fn lists(&self) -> Result<Vec<ListSummary>, StoreError> {
        self.reader()?.lists()
    }
    fn updates(&self, list: ListCode, limit: usize) -> Result<Vec<UpdateRecord>, StoreError> {
        self.reader()?.updates(list, limit)
    }
    fn changes(&self, update_id: i64) -> Result<Vec<EntityChange>, StoreError> {
        self.reader()?.changes(update_id)
    }
    fn list_versions(&self) -> Result<ListVersions, StoreError> {
        self.reader()?.list_versions()
    }
    fn latest_update_id(&self) -> Result<i64, StoreError> {
        self.reader()?.latest_update_id()
    }
    fn entity_names(&self) -> Result<Vec<EntityNames>, StoreError> {
        self.reader()?.entity_names()
    }
    fn entity(&self, entity_id: &str) -> Result<Option<Entity>, StoreError> {
        self.reader()?.entity(entity_id)
    }
    fn entity_at(&self, entity_id: &str, update_id: i64) -> Result<Option<Entity>, StoreError> {
        self.reader()?.entity_at(entity_id, update_id)
    }
    fn entity_history(&self, entity_id: &str) -> Result<Vec<EntityVersion>, StoreError> {
        self.reader()?.entity_history(entity_id)
    }
    fn update_exists(&self, update_id: i64) -> Result<bool, StoreError> {
        self.reader()?.update_exists(update_id)
    }
    fn replace_list(&self, parsed: &ParsedList, origin: &str) -> Result<UpdateRecord, StoreError> {
        self.writer().replace_list(parsed, origin)
    }
    fn record(&self, changes: &Changes) -> Result<(), StoreError> {
        self.writer().record(changes)
    }
    fn screening(&self, id: &str) -> Result<Option<ScreeningRecord>, StoreError> {
        self.reader()?.screening(id)
    }
    fn screenings(&self, filter: &ScreeningFilter) -> Result<Vec<ScreeningRecord>, StoreError> {
        self.reader()?.screenings(filter)
    }
    fn decisions(&self, screening_id: &str) -> Result<Vec<DecisionRecord>, StoreError> {
        self.reader()?.decisions(screening_id)
    }
    fn decisions_between(
        &self,
        since: Option<jiff::Timestamp>,
        until: Option<jiff::Timestamp>,
    ) -> Result<Vec<DecisionRecord>, StoreError> {
        self.reader()?.decisions_between(since, until)
    }
    fn decide(&self, decision: &NewDecision) -> Result<(DecisionRecord, ReviewStatus), StoreError> {
        self.writer().decide(decision)
    }
    fn alerts(&self, filter: &AlertFilter) -> Result<Vec<Alert>, StoreError> {
        self.reader()?.alerts(filter)
    }
    fn alert(&self, id: &str) -> Result<Option<Alert>, StoreError> {
        self.reader()?.alert(id)
    }
    fn change_alert(&self, change: &AlertChange) -> Result<Alert, StoreError> {
        self.writer().change_alert(change)
    }
    fn alert_changes(
        &self,
        since: Option<jiff::Timestamp>,
        until: Option<jiff::Timestamp>,
    ) -> Result<Vec<AlertChange>, StoreError> {
        self.reader()?.alert_changes(since, until)
    }
    fn add_favorite(&self, new: &FavoriteInsert, changes: &Changes) -> Result<(), StoreError> {
        self.writer().add_favorite(new, changes)
    }
    fn import_favorites(
        &self,
        new: &[(FavoriteInsert, Changes)],
    ) -> Result<Vec<String>, StoreError> {
        self.writer().import_favorites(new)
    }
    fn favorites(&self, after: Option<&str>, limit: usize) -> Result<Vec<Favorite>, StoreError> {
        self.reader()?.favorites(after, limit)
    }
    fn favorite(&self, id: &str) -> Result<Option<Favorite>, StoreError> {
        self.reader()?.favorite(id)
    }
    fn remove_favorite(&self, id: &str) -> Result<Favorite, StoreError> {
        self.writer().remove_favorite(id)
    }
    fn favorite_count(&self) -> Result<u64, StoreError> {
        self.reader()?.favorite_count()
    }
    fn favorite_names(&self) -> Result<Vec<(String, String, Option<EntityKind>)>, StoreError> {
        self.reader()?.favorite_names()
    }
    fn favorite_matches(&self) -> Result<HashMap<String, Vec<(String, u8)>>, StoreError> {
        self.reader()?.favorite_matches()
    }
    fn favorite_changes(&self, id: &str) -> Result<Vec<(String, String, String)>, StoreError> {
        self.reader()?.favorite_changes(id)
    }
    fn record_rescreen(
        &self,
        run: &RescreenRun,
        updates: &[FavoriteUpdate],
        changes: &Changes,
        marker: Option<(&str, i64)>,
    ) -> Result<i64, StoreError> {
        self.writer().record_rescreen(run, updates, changes, marker)
    }
    fn rescreen_runs(&self, limit: usize) -> Result<Vec<RescreenRun>, StoreError> {
        self.reader()?.rescreen_runs(limit)
    }
    fn marker(&self, key: &str) -> Result<Option<i64>, StoreError> {
        self.reader()?.marker(key)
    }
}
