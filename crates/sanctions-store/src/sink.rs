//! [`ListSink`]: where an import writes its parsed lists, on every backend. The service's
//! `ingest` drives it; a caller gets one from [`crate::Backend::list_sink`] (or uses a
//! [`Store`] opened by path for the whole-database work of a data folder).

use super::postgres::PostgresRepository;
use super::{ListSummary, Repository, SqliteRepository, Store, StoreError};
use crate::model::{ListCode, ParsedList, SourceFile, UpdateRecord};

/// Where an import writes: a SQLite [`Store`] (or repository), or another backend of the
/// store, each replacing a list in one transaction.
pub trait ListSink {
    /// The lists with their counts.
    fn lists(&self) -> Result<Vec<ListSummary>, StoreError>;
    /// Replaces the list's entries, refused when it would remove more than
    /// `max_removed(entries before)`.
    fn replace_list_guarded(
        &mut self,
        parsed: &ParsedList,
        origin: &str,
        max_removed: &dyn Fn(u64) -> Option<u64>,
    ) -> Result<UpdateRecord, StoreError>;
    /// Records a failed import of `list` in its history (the list is untouched).
    fn record_failed_import(
        &mut self,
        list: ListCode,
        origin: &str,
        files: &[SourceFile],
        reason: &str,
    ) -> Result<UpdateRecord, StoreError>;
    /// The newest update id of any list, read before an update downloads (0: none).
    fn latest_update(&self) -> Result<i64, StoreError> {
        Ok(0)
    }
    /// [`ListSink::replace_list_guarded`] for an update that started after update `since`:
    /// a store shared by several processes writes nothing (`None`) when another one
    /// imported the same files meanwhile. A data folder's store is updated by one process
    /// at a time (its import lock), so it always imports.
    fn replace_list_once(
        &mut self,
        parsed: &ParsedList,
        origin: &str,
        max_removed: &dyn Fn(u64) -> Option<u64>,
        _since: i64,
    ) -> Result<Option<UpdateRecord>, StoreError> {
        self.replace_list_guarded(parsed, origin, max_removed)
            .map(Some)
    }
}

impl ListSink for Store {
    fn lists(&self) -> Result<Vec<ListSummary>, StoreError> {
        Store::lists(self)
    }
    fn replace_list_guarded(
        &mut self,
        parsed: &ParsedList,
        origin: &str,
        max_removed: &dyn Fn(u64) -> Option<u64>,
    ) -> Result<UpdateRecord, StoreError> {
        Store::replace_list_guarded(self, parsed, origin, max_removed)
    }
    fn record_failed_import(
        &mut self,
        list: ListCode,
        origin: &str,
        files: &[SourceFile],
        reason: &str,
    ) -> Result<UpdateRecord, StoreError> {
        Store::record_failed_import(self, list, origin, files, reason)
    }
}

/// A SQLite repository as a [`ListSink`]: each call takes the writer connection for its
/// own transaction, so screenings stored meanwhile wait for one list at most.
pub(crate) struct WriterSink<'a>(pub(crate) &'a SqliteRepository);

impl ListSink for WriterSink<'_> {
    fn lists(&self) -> Result<Vec<ListSummary>, StoreError> {
        Repository::lists(self.0)
    }
    fn replace_list_guarded(
        &mut self,
        parsed: &ParsedList,
        origin: &str,
        max_removed: &dyn Fn(u64) -> Option<u64>,
    ) -> Result<UpdateRecord, StoreError> {
        self.0
            .writer()
            .replace_list_guarded(parsed, origin, max_removed)
    }
    fn record_failed_import(
        &mut self,
        list: ListCode,
        origin: &str,
        files: &[SourceFile],
        reason: &str,
    ) -> Result<UpdateRecord, StoreError> {
        self.0
            .writer()
            .record_failed_import(list, origin, files, reason)
    }
}

impl ListSink for &PostgresRepository {
    fn lists(&self) -> Result<Vec<ListSummary>, StoreError> {
        Repository::lists(*self)
    }
    fn replace_list_guarded(
        &mut self,
        parsed: &ParsedList,
        origin: &str,
        max_removed: &dyn Fn(u64) -> Option<u64>,
    ) -> Result<UpdateRecord, StoreError> {
        PostgresRepository::replace_list_guarded(self, parsed, origin, max_removed)
    }
    fn record_failed_import(
        &mut self,
        list: ListCode,
        origin: &str,
        files: &[SourceFile],
        reason: &str,
    ) -> Result<UpdateRecord, StoreError> {
        PostgresRepository::record_failed_import(self, list, origin, files, reason)
    }
    fn latest_update(&self) -> Result<i64, StoreError> {
        Repository::latest_update_id(*self)
    }
    fn replace_list_once(
        &mut self,
        parsed: &ParsedList,
        origin: &str,
        max_removed: &dyn Fn(u64) -> Option<u64>,
        since: i64,
    ) -> Result<Option<UpdateRecord>, StoreError> {
        PostgresRepository::replace_list_once(self, parsed, origin, max_removed, since)
    }
}
