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
use std::sync::atomic::AtomicBool;
use std::sync::{Mutex, MutexGuard};

use jiff::Timestamp;

use super::briefs::{BriefFilter, BriefRecord};
use super::checked;
use super::favorites::{FavoriteInsert, FavoriteUpdate, MarkerMove, Nearness, WatchedName};
use super::jobs::JobClaim;
use super::rescreen_chunks::{
    ChunkClaim, ChunkCommit, ChunkDone, ChunkFavorite, ChunkLease, ChunkRunStart, ChunkRunState,
    RescreenChunk,
};
use super::screenings::{Changes, NewDecision};
use super::webhooks::{AttemptRecord, DeliveryClaim, DeliveryRecord, DueDelivery, WebhookRecord};
use super::{EntityChange, ListSummary, Store, StoreError};
use crate::model::ParsedList;
use crate::model::{
    Alert, AlertChange, AlertFilter, ChangeKind, DecisionRecord, Entity, EntityNames,
    EntityVersion, Favorite, ListCode, ListVersions, RescreenRun, ReviewStatus, ScreeningFilter,
    ScreeningRecord, UpdateRecord,
};

/// Every store operation the service uses. All writes of one call are one transaction.
pub trait Repository: Send + Sync {
    // Lists and entries.
    fn lists(&self) -> Result<Vec<ListSummary>, StoreError>;
    fn updates(&self, list: ListCode, limit: usize) -> Result<Vec<UpdateRecord>, StoreError>;
    /// One update record by its id (of any list); `None` when there is none.
    fn update(&self, update_id: i64) -> Result<Option<UpdateRecord>, StoreError>;
    fn changes(&self, update_id: i64) -> Result<Vec<EntityChange>, StoreError>;
    fn list_versions(&self) -> Result<ListVersions, StoreError>;
    fn latest_update_id(&self) -> Result<i64, StoreError>;
    fn entity_names(&self) -> Result<Vec<EntityNames>, StoreError>;
    /// Per list, the count and checksum of the names stored at import.
    fn name_digests(
        &self,
    ) -> Result<std::collections::BTreeMap<ListCode, super::NameDigest>, StoreError>;
    /// The lists whose names read back now differ from those stored at import.
    fn verify_names(&self) -> Result<Vec<super::NameDamage>, StoreError>;
    /// [`Repository::verify_names`], keeping the names read back (for the grouping of
    /// matches), with the newest list update as of the same read.
    fn read_back_names(&self) -> Result<super::NamesReadBack, StoreError>;
    fn entity(&self, entity_id: &str) -> Result<Option<Entity>, StoreError>;
    fn entity_at(&self, entity_id: &str, update_id: i64) -> Result<Option<Entity>, StoreError>;
    fn changed_entities(&self, update_id: i64) -> Result<Vec<(ChangeKind, Entity)>, StoreError>;
    fn entity_history(&self, entity_id: &str) -> Result<Vec<EntityVersion>, StoreError>;
    fn update_exists(&self, update_id: i64) -> Result<bool, StoreError>;
    fn replace_list(&self, parsed: &ParsedList, origin: &str) -> Result<UpdateRecord, StoreError>;

    // Screenings and review.
    fn record(&self, changes: &Changes) -> Result<(), StoreError>;
    /// Writes the changes of several operations (screenings with their alerts and webhook
    /// events) in ONE transaction, all or none: the group commit of concurrent screenings.
    fn record_all(&self, all: &[Changes]) -> Result<(), StoreError>;
    fn screening(&self, account: &str, id: &str) -> Result<Option<ScreeningRecord>, StoreError>;
    fn screenings(
        &self,
        account: &str,
        filter: &ScreeningFilter,
    ) -> Result<Vec<ScreeningRecord>, StoreError>;
    fn decisions(
        &self,
        account: &str,
        screening_id: &str,
    ) -> Result<Vec<DecisionRecord>, StoreError>;
    fn decisions_between(
        &self,
        account: &str,
        since: Option<jiff::Timestamp>,
        until: Option<jiff::Timestamp>,
    ) -> Result<Vec<DecisionRecord>, StoreError>;
    fn decide(
        &self,
        account: &str,
        decision: &NewDecision,
    ) -> Result<(Vec<DecisionRecord>, ReviewStatus), StoreError>;

    // Alerts.
    fn alerts(&self, account: &str, filter: &AlertFilter) -> Result<Vec<Alert>, StoreError>;
    fn alert(&self, account: &str, id: &str) -> Result<Option<Alert>, StoreError>;
    fn change_alert(&self, account: &str, change: &AlertChange) -> Result<Alert, StoreError>;
    /// Every change in one transaction: all applied, or none (a missing alert, a status
    /// that cannot follow).
    fn change_alerts(
        &self,
        account: &str,
        changes: &[AlertChange],
    ) -> Result<Vec<Alert>, StoreError>;
    fn alert_changes(
        &self,
        account: &str,
        since: Option<jiff::Timestamp>,
        until: Option<jiff::Timestamp>,
    ) -> Result<Vec<AlertChange>, StoreError>;

    // Watchlist.
    fn add_favorite(
        &self,
        account: &str,
        new: &FavoriteInsert,
        changes: &Changes,
    ) -> Result<(), StoreError>;
    fn import_favorites(
        &self,
        account: &str,
        new: &[(FavoriteInsert, Changes)],
    ) -> Result<Vec<String>, StoreError>;
    fn favorites(
        &self,
        account: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<Favorite>, StoreError>;
    fn favorite(&self, account: &str, id: &str) -> Result<Option<Favorite>, StoreError>;
    fn remove_favorite(&self, account: &str, id: &str) -> Result<Favorite, StoreError>;
    /// Favorites of `account`, or of every account (`None`: the monitor).
    fn favorite_count(&self, account: Option<&str>) -> Result<u64, StoreError>;
    /// Every favorite of `account` (`None`: of every account) as a re-screen reads it, in
    /// no set order (the table's: ordered by id, SQLite read 8,086,411 rows in 3.5-4.3 s
    /// through the id's index instead of 1.4 s).
    fn favorite_names(&self, account: Option<&str>) -> Result<Vec<WatchedName>, StoreError> {
        let mut all = Vec::new();
        self.favorite_names_each(account, NAMES_CHUNK, &mut |chunk| {
            all.extend(chunk);
            Ok(())
        })?;
        Ok(all)
    }
    /// [`Repository::favorite_names`] handed to `each` in chunks of at most `chunk` names
    /// as they are read, in one statement (one snapshot), so that a caller can work on a
    /// chunk while the next is read and need not hold them all; the first error `each`
    /// returns ends the read and is returned.
    fn favorite_names_each(
        &self,
        account: Option<&str>,
        chunk: usize,
        each: &mut dyn FnMut(Vec<WatchedName>) -> Result<(), StoreError>,
    ) -> Result<(), StoreError>;
    /// Sets each named favorite's [`Nearness`] (`None`: unknown), in one transaction.
    fn set_nearness(&self, rows: &[(String, Option<Nearness>)]) -> Result<(), StoreError>;
    fn favorite_matches(&self) -> Result<HashMap<String, Vec<(String, u8)>>, StoreError>;
    fn favorite_changes(&self, id: &str) -> Result<Vec<(String, String, String)>, StoreError>;
    fn record_rescreen(
        &self,
        run: &RescreenRun,
        updates: &[FavoriteUpdate],
        changes: &Changes,
        markers: &[MarkerMove<'_>],
    ) -> Result<Option<i64>, StoreError>;
    fn rescreen_runs(&self, limit: usize) -> Result<Vec<RescreenRun>, StoreError>;
    fn marker(&self, key: &str) -> Result<Option<i64>, StoreError>;

    // Webhooks: subscriptions, the deliveries of outbox events, the attempt log.
    /// Registers a webhook (refused beyond [`super::MAX_WEBHOOKS`]).
    fn insert_webhook(&self, account: &str, webhook: &WebhookRecord) -> Result<(), StoreError>;
    fn webhooks(&self, account: &str) -> Result<Vec<WebhookRecord>, StoreError>;
    fn webhook(&self, account: &str, id: &str) -> Result<Option<WebhookRecord>, StoreError>;
    fn update_webhook(&self, account: &str, webhook: &WebhookRecord) -> Result<(), StoreError>;
    fn delete_webhook(&self, account: &str, id: &str) -> Result<(), StoreError>;
    /// Deliveries of one webhook still pending.
    fn pending_deliveries(&self, webhook_id: &str) -> Result<u64, StoreError>;
    /// Deliveries pending for any active webhook, plus events not yet handed out.
    fn pending_total(&self) -> Result<u64, StoreError>;
    /// Turns new outbox events into pending deliveries; returns how many.
    fn fan_out(&self, now: Timestamp) -> Result<usize, StoreError>;
    fn due_deliveries(&self, now: Timestamp, limit: usize) -> Result<Vec<DueDelivery>, StoreError>;
    /// Claims due deliveries with a lease (see [`Store::claim_deliveries`]).
    fn claim_deliveries(
        &self,
        claim: &DeliveryClaim<'_>,
        limit: usize,
    ) -> Result<Vec<DueDelivery>, StoreError>;
    /// Extends the leases `owner` holds (see [`Store::renew_claims`]).
    fn renew_claims(&self, owner: &str, until: Timestamp) -> Result<usize, StoreError>;
    /// Records a worker's attempts and releases in one transaction, each only while
    /// `owner` holds its claim (see [`Store::record_deliveries`]); returns the claims lost.
    fn record_deliveries(
        &self,
        owner: &str,
        records: &[DeliveryRecord],
    ) -> Result<usize, StoreError>;
    fn webhook_attempts(
        &self,
        account: &str,
        webhook_id: &str,
        limit: usize,
    ) -> Result<Vec<AttemptRecord>, StoreError>;
    fn webhook_last_success(&self, webhook_id: &str) -> Result<Option<Timestamp>, StoreError>;

    // Risk briefs.
    /// Stores briefs not yet stored (by source and guid); returns how many were new.
    fn insert_briefs(&self, briefs: &[BriefRecord]) -> Result<usize, StoreError>;
    fn briefs(&self, filter: &BriefFilter) -> Result<Vec<BriefRecord>, StoreError>;
    fn brief(&self, id: &str) -> Result<Option<BriefRecord>, StoreError>;
    /// Successful list updates that changed something and have no brief yet.
    fn updates_without_brief(&self, limit: usize) -> Result<Vec<(i64, String)>, StoreError>;
    /// Whether a brief from `source` with `guid` is stored.
    fn brief_stored(&self, source: &str, guid: &str) -> Result<bool, StoreError>;

    // Claimed jobs (see [`JobClaim`]).
    /// Takes a job nobody holds (or whose lease ended), or renews one the owner holds;
    /// returns whether the owner holds it now.
    fn claim_job(&self, claim: &JobClaim<'_>) -> Result<bool, StoreError>;
    /// Gives a job up if `owner` holds it; returns whether it did.
    fn release_job(&self, job: &str, owner: &str) -> Result<bool, StoreError>;

    // Full re-screens in claimed chunks (see [`crate::rescreen_chunks`]).
    /// The open run of a scope, or a new one with its chunks.
    fn open_rescreen_chunks(&self, start: &ChunkRunStart<'_>) -> Result<ChunkRunState, StoreError>;
    /// Claims the next chunk not done and not held (or whose lease ran out).
    fn claim_rescreen_chunk(&self, lease: &ChunkLease<'_>) -> Result<ChunkClaim, StoreError>;
    /// Moves the lease of a chunk `owner` holds (to now or before: gives it up); false when
    /// `owner` no longer holds it.
    fn renew_rescreen_chunk(
        &self,
        chunk: &RescreenChunk,
        owner: &str,
        until: Timestamp,
    ) -> Result<bool, StoreError>;
    /// The favorites of a chunk with their current matches, in id order.
    fn rescreen_chunk_favorites(
        &self,
        chunk: &RescreenChunk,
    ) -> Result<Vec<ChunkFavorite>, StoreError>;
    /// Commits a screened chunk with marking it done, only while its owner holds it.
    fn commit_rescreen_chunk(&self, done: &ChunkDone<'_>) -> Result<ChunkCommit, StoreError>;
    /// Finishes a run whose every chunk is done, once: its record's id when this call did.
    fn finish_rescreen_chunks(
        &self,
        run_id: i64,
        run: &RescreenRun,
        now: Timestamp,
    ) -> Result<Option<i64>, StoreError>;
    /// A run and its progress.
    fn rescreen_chunk_run(
        &self,
        run_id: i64,
        now: Timestamp,
    ) -> Result<Option<ChunkRunState>, StoreError>;
    /// The runs not finished, oldest first.
    fn open_rescreen_chunk_runs(
        &self,
        now: Timestamp,
        limit: usize,
    ) -> Result<Vec<ChunkRunState>, StoreError>;
}

/// The SQLite repository: one writer, a pool of readers, on one database file.
#[derive(Debug)]
pub struct SqliteRepository {
    path: PathBuf,
    writer: Mutex<Store>,
    readers: Mutex<Vec<Store>>,
    /// Opened with [`SqliteRepository::open_read_only`]: every connection only reads.
    read_only: bool,
    /// A checkpointer thread runs (see [`super::checkpoint`]).
    checkpointer: AtomicBool,
    /// What the check at open found wrong, if anything.
    open_problem: Option<String>,
}

/// Favorites per chunk of [`Repository::favorite_names`]'s read.
const NAMES_CHUNK: usize = 65_536;

/// Most idle reader connections kept (a server under load reads on many blocking threads at
/// once; a reader dropped beyond this is closed, and opening one costs a schema read).
const MAX_IDLE_READERS: usize = 64;

/// [`Store::check_at_open`] of the database at `path`, unless it passed on the files as they
/// are now ([`checked`]); remembered when it passes.
fn checked_at_open(store: &Store, path: &Path) -> Option<String> {
    let seen = checked::Seen::now(path);
    if seen
        .as_ref()
        .is_some_and(|seen| checked::passed_before(path, seen))
    {
        tracing::debug!("quick check of the names table passed on the files as they are");
        return None;
    }
    let problem = store.check_at_open();
    match (&problem, seen) {
        (None, Some(seen)) => checked::remember(path, &seen),
        _ => checked::forget(path),
    }
    problem
}

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
        let open_problem = checked_at_open(&writer, path);
        Ok(SqliteRepository {
            path: path.to_path_buf(),
            writer: Mutex::new(writer),
            readers: Mutex::new(Vec::new()),
            read_only: false,
            checkpointer: AtomicBool::new(false),
            open_problem,
        })
    }

    /// Opens an existing, up-to-date database for reading only (a write-protected data
    /// folder): nothing is created or migrated, and every write fails with a store error.
    pub fn open_read_only(path: &Path) -> Result<SqliteRepository, StoreError> {
        let writer = Store::open_read_only(path)?;
        let open_problem = checked_at_open(&writer, path);
        Ok(SqliteRepository {
            path: path.to_path_buf(),
            writer: Mutex::new(writer),
            readers: Mutex::new(Vec::new()),
            read_only: true,
            checkpointer: AtomicBool::new(false),
            open_problem,
        })
    }

    /// Whether this repository was opened read-only.
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// Whether a checkpointer thread runs.
    pub(crate) fn checkpointer_started(&self) -> &AtomicBool {
        &self.checkpointer
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What the check at open found wrong with the database, if anything (then nothing
    /// derived from it earlier, such as a persisted screening index, should be trusted).
    pub fn open_problem(&self) -> Option<&str> {
        self.open_problem.as_deref()
    }

    /// The writer connection, for work that needs the whole store (imports).
    pub fn writer(&self) -> MutexGuard<'_, Store> {
        self.writer
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Runs `read` on a pooled reader connection.
    pub(crate) fn with_reader<T>(
        &self,
        read: impl FnOnce(&Store) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let reader = self.reader()?;
        read(&reader)
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
    fn update(&self, update_id: i64) -> Result<Option<UpdateRecord>, StoreError> {
        self.reader()?.update(update_id)
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
    fn name_digests(
        &self,
    ) -> Result<std::collections::BTreeMap<ListCode, super::NameDigest>, StoreError> {
        self.reader()?.name_digests()
    }
    fn verify_names(&self) -> Result<Vec<super::NameDamage>, StoreError> {
        self.reader()?.verify_names()
    }
    fn read_back_names(&self) -> Result<super::NamesReadBack, StoreError> {
        crate::read_back::remembering(&self.path, || self.reader()?.read_back_names())
    }
    fn entity(&self, entity_id: &str) -> Result<Option<Entity>, StoreError> {
        self.reader()?.entity(entity_id)
    }
    fn entity_at(&self, entity_id: &str, update_id: i64) -> Result<Option<Entity>, StoreError> {
        self.reader()?.entity_at(entity_id, update_id)
    }
    fn changed_entities(&self, update_id: i64) -> Result<Vec<(ChangeKind, Entity)>, StoreError> {
        self.reader()?.changed_entities(update_id)
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
    fn record_all(&self, all: &[Changes]) -> Result<(), StoreError> {
        self.writer().record_all(all)
    }
    fn screening(&self, account: &str, id: &str) -> Result<Option<ScreeningRecord>, StoreError> {
        self.reader()?.screening(account, id)
    }
    fn screenings(
        &self,
        account: &str,
        filter: &ScreeningFilter,
    ) -> Result<Vec<ScreeningRecord>, StoreError> {
        self.reader()?.screenings(account, filter)
    }
    fn decisions(
        &self,
        account: &str,
        screening_id: &str,
    ) -> Result<Vec<DecisionRecord>, StoreError> {
        self.reader()?.decisions(account, screening_id)
    }
    fn decisions_between(
        &self,
        account: &str,
        since: Option<jiff::Timestamp>,
        until: Option<jiff::Timestamp>,
    ) -> Result<Vec<DecisionRecord>, StoreError> {
        self.reader()?.decisions_between(account, since, until)
    }
    fn decide(
        &self,
        account: &str,
        decision: &NewDecision,
    ) -> Result<(Vec<DecisionRecord>, ReviewStatus), StoreError> {
        self.writer().decide(account, decision)
    }
    fn alerts(&self, account: &str, filter: &AlertFilter) -> Result<Vec<Alert>, StoreError> {
        self.reader()?.alerts(account, filter)
    }
    fn alert(&self, account: &str, id: &str) -> Result<Option<Alert>, StoreError> {
        self.reader()?.alert(account, id)
    }
    fn change_alert(&self, account: &str, change: &AlertChange) -> Result<Alert, StoreError> {
        self.writer().change_alert(account, change)
    }
    fn change_alerts(
        &self,
        account: &str,
        changes: &[AlertChange],
    ) -> Result<Vec<Alert>, StoreError> {
        self.writer().change_alerts(account, changes)
    }
    fn alert_changes(
        &self,
        account: &str,
        since: Option<jiff::Timestamp>,
        until: Option<jiff::Timestamp>,
    ) -> Result<Vec<AlertChange>, StoreError> {
        self.reader()?.alert_changes(account, since, until)
    }
    fn add_favorite(
        &self,
        account: &str,
        new: &FavoriteInsert,
        changes: &Changes,
    ) -> Result<(), StoreError> {
        self.writer().add_favorite(account, new, changes)
    }
    fn import_favorites(
        &self,
        account: &str,
        new: &[(FavoriteInsert, Changes)],
    ) -> Result<Vec<String>, StoreError> {
        self.writer().import_favorites(account, new)
    }
    fn favorites(
        &self,
        account: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<Favorite>, StoreError> {
        self.reader()?.favorites(account, after, limit)
    }
    fn favorite(&self, account: &str, id: &str) -> Result<Option<Favorite>, StoreError> {
        self.reader()?.favorite(account, id)
    }
    fn remove_favorite(&self, account: &str, id: &str) -> Result<Favorite, StoreError> {
        self.writer().remove_favorite(account, id)
    }
    fn favorite_count(&self, account: Option<&str>) -> Result<u64, StoreError> {
        self.reader()?.favorite_count(account)
    }
    fn favorite_names_each(
        &self,
        account: Option<&str>,
        chunk: usize,
        each: &mut dyn FnMut(Vec<WatchedName>) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.reader()?.favorite_names_each(account, chunk, each)
    }
    fn set_nearness(&self, rows: &[(String, Option<Nearness>)]) -> Result<(), StoreError> {
        self.writer().set_nearness(rows)
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
        markers: &[MarkerMove<'_>],
    ) -> Result<Option<i64>, StoreError> {
        self.writer()
            .record_rescreen(run, updates, changes, markers)
    }
    fn rescreen_runs(&self, limit: usize) -> Result<Vec<RescreenRun>, StoreError> {
        self.reader()?.rescreen_runs(limit)
    }
    fn marker(&self, key: &str) -> Result<Option<i64>, StoreError> {
        self.reader()?.marker(key)
    }
    fn insert_webhook(&self, account: &str, webhook: &WebhookRecord) -> Result<(), StoreError> {
        self.writer().insert_webhook(account, webhook)
    }
    fn webhooks(&self, account: &str) -> Result<Vec<WebhookRecord>, StoreError> {
        self.reader()?.webhooks(account)
    }
    fn webhook(&self, account: &str, id: &str) -> Result<Option<WebhookRecord>, StoreError> {
        self.reader()?.webhook(account, id)
    }
    fn update_webhook(&self, account: &str, webhook: &WebhookRecord) -> Result<(), StoreError> {
        self.writer().update_webhook(account, webhook)
    }
    fn delete_webhook(&self, account: &str, id: &str) -> Result<(), StoreError> {
        self.writer().delete_webhook(account, id)
    }
    fn pending_deliveries(&self, webhook_id: &str) -> Result<u64, StoreError> {
        self.reader()?.pending_deliveries(webhook_id)
    }
    fn pending_total(&self) -> Result<u64, StoreError> {
        self.reader()?.pending_total()
    }
    fn fan_out(&self, now: Timestamp) -> Result<usize, StoreError> {
        self.writer().fan_out(now)
    }
    fn due_deliveries(&self, now: Timestamp, limit: usize) -> Result<Vec<DueDelivery>, StoreError> {
        self.reader()?.due_deliveries(now, limit)
    }
    fn claim_deliveries(
        &self,
        claim: &DeliveryClaim<'_>,
        limit: usize,
    ) -> Result<Vec<DueDelivery>, StoreError> {
        self.writer().claim_deliveries(claim, limit)
    }
    fn renew_claims(&self, owner: &str, until: Timestamp) -> Result<usize, StoreError> {
        self.writer().renew_claims(owner, until)
    }
    fn record_deliveries(
        &self,
        owner: &str,
        records: &[DeliveryRecord],
    ) -> Result<usize, StoreError> {
        self.writer().record_deliveries(owner, records)
    }
    fn webhook_attempts(
        &self,
        account: &str,
        webhook_id: &str,
        limit: usize,
    ) -> Result<Vec<AttemptRecord>, StoreError> {
        self.reader()?.webhook_attempts(account, webhook_id, limit)
    }
    fn webhook_last_success(&self, webhook_id: &str) -> Result<Option<Timestamp>, StoreError> {
        self.reader()?.webhook_last_success(webhook_id)
    }
    fn insert_briefs(&self, briefs: &[BriefRecord]) -> Result<usize, StoreError> {
        self.writer().insert_briefs(briefs)
    }
    fn briefs(&self, filter: &BriefFilter) -> Result<Vec<BriefRecord>, StoreError> {
        self.reader()?.briefs(filter)
    }
    fn brief(&self, id: &str) -> Result<Option<BriefRecord>, StoreError> {
        self.reader()?.brief(id)
    }
    fn updates_without_brief(&self, limit: usize) -> Result<Vec<(i64, String)>, StoreError> {
        self.reader()?.updates_without_brief(limit)
    }
    fn brief_stored(&self, source: &str, guid: &str) -> Result<bool, StoreError> {
        self.reader()?.brief_stored(source, guid)
    }
    fn claim_job(&self, claim: &JobClaim<'_>) -> Result<bool, StoreError> {
        self.writer().claim_job(claim)
    }
    fn release_job(&self, job: &str, owner: &str) -> Result<bool, StoreError> {
        self.writer().release_job(job, owner)
    }
    fn open_rescreen_chunks(&self, start: &ChunkRunStart<'_>) -> Result<ChunkRunState, StoreError> {
        self.writer().open_rescreen_chunks(start)
    }
    fn claim_rescreen_chunk(&self, lease: &ChunkLease<'_>) -> Result<ChunkClaim, StoreError> {
        self.writer().claim_rescreen_chunk(lease)
    }
    fn renew_rescreen_chunk(
        &self,
        chunk: &RescreenChunk,
        owner: &str,
        until: Timestamp,
    ) -> Result<bool, StoreError> {
        self.writer().renew_rescreen_chunk(chunk, owner, until)
    }
    fn rescreen_chunk_favorites(
        &self,
        chunk: &RescreenChunk,
    ) -> Result<Vec<ChunkFavorite>, StoreError> {
        self.with_reader(|r| r.rescreen_chunk_favorites(chunk))
    }
    fn commit_rescreen_chunk(&self, done: &ChunkDone<'_>) -> Result<ChunkCommit, StoreError> {
        self.writer().commit_rescreen_chunk(done)
    }
    fn finish_rescreen_chunks(
        &self,
        run_id: i64,
        run: &RescreenRun,
        now: Timestamp,
    ) -> Result<Option<i64>, StoreError> {
        self.writer().finish_rescreen_chunks(run_id, run, now)
    }
    fn rescreen_chunk_run(
        &self,
        run_id: i64,
        now: Timestamp,
    ) -> Result<Option<ChunkRunState>, StoreError> {
        self.reader()?.rescreen_chunk_run(run_id, now)
    }
    fn open_rescreen_chunk_runs(
        &self,
        now: Timestamp,
        limit: usize,
    ) -> Result<Vec<ChunkRunState>, StoreError> {
        self.reader()?.open_rescreen_chunk_runs(now, limit)
    }
}
