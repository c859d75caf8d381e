//! The SQLite store: lists, entities, names, update records and entity changes.
//!
//! All SQL of the program lives under this module, so that another backend (PostgreSQL for
//! several servers, see the roadmap) can replace it without touching callers. The database is
//! in WAL mode: a reader sees a list either wholly before or wholly after an import.

use sanctions_model as model;

pub mod files;
mod ids;

pub use ids::new_id;

mod alerts;
mod briefs;
mod checked;
mod checkpoint;
mod codec;
mod entities;
mod error;
mod favorites;
mod history;
pub mod integrity;
mod jobs;
mod keys;
mod lists;
mod location;
mod names;
mod ops;
mod outbox;
pub mod postgres;
mod read_back;
pub mod readonly;
mod repo;
pub mod rescreen_chunks;
mod schema;
mod screenings;
mod sink;
mod sqlite_error;
mod webhooks;

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

pub use briefs::{BriefFilter, BriefRecord};
pub use error::{BoxError, StoreError};
pub use favorites::{
    FavoriteInsert, FavoriteUpdate, MarkerMove, Nearness, WATCHLIST_MARKER, WatchedName,
};
pub use integrity::{IntegrityReport, NameDamage, NameDigest};
pub use jobs::JobClaim;
pub use keys::KeyStore;
pub use location::{Backend, ListWatch, Period, StoreLocation, open, open_read_only};
pub use sink::ListSink;

/// The account of the local single-user mode, and of every row stored before accounts
/// existed (migration 6).
pub const DEFAULT_ACCOUNT: &str = "acct_default";
pub use checked::names_checked;
pub use lists::{EntityChange, ListSummary};
pub use ops::OpsStats;
pub use read_back::{NamesReadBack, StoredNames, read_back_names_at};
pub use repo::{Repository, SqliteRepository};
pub use rescreen_chunks::{
    ChunkClaim, ChunkCommit, ChunkDone, ChunkFavorite, ChunkLease, ChunkRunStart, ChunkRunState,
    EVERY_ACCOUNT, RescreenChunk,
};
pub use screenings::{Changes, NewDecision};
pub use webhooks::{
    AttemptRecord, DeliveryClaim, DeliveryOutcome, DeliveryRecord, DueDelivery, MAX_WEBHOOKS,
    WebhookRecord,
};

/// How long a write waits for another writer (another process, or an import) to finish.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// An open database.
pub struct Store {
    conn: Connection,
}

#[cfg(test)]
impl Store {
    /// The steps of `sql`'s query plan with `params`, a line each: what the tests of which
    /// index a query reads look at.
    pub(crate) fn query_plan(&self, sql: &str, params: impl rusqlite::Params) -> Vec<String> {
        self.conn
            .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
            .expect("plan")
            .query_map(params, |r| r.get(3))
            .expect("plan rows")
            .collect::<Result<_, _>>()
            .expect("plan read")
    }
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("path", &self.conn.path())
            .finish()
    }
}

impl Store {
    /// Opens the database at `path`, creating it and applying pending migrations.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        // 0600 whatever the umask; SQLite gives its journal files the database's mode. A
        // path that cannot be created here is left for SQLite to report.
        let _ = crate::files::create_private_file(path);
        let conn = Connection::open(path)?;
        // SQLite quietly opens a file it may not write read-only; a caller asking to write
        // must hear it (and fall back to `open_read_only`) rather than fail at its first write.
        if conn.is_readonly(rusqlite::MAIN_DB)? {
            return Err(StoreError::Refused(format!(
                "the database {} is write-protected",
                path.display()
            )));
        }
        conn.busy_timeout(BUSY_TIMEOUT)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        // FULL: every commit (a screening, a decision, an alert) is on disk before it returns.
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        let mut store = Store { conn };
        store.migrate()?;
        Ok(store)
    }

    /// Opens an existing database for reading only: nothing is created or written, so a
    /// read-only data folder serves the commands that only read. When SQLite cannot set up
    /// its shared-memory file beside the database (a read-only folder in WAL mode), the file
    /// is opened as immutable.
    pub fn open_read_only(path: &Path) -> Result<Store, StoreError> {
        match readonly::access(path) {
            Ok(readonly::Access::Direct) => Store::open_read_only_at(path),
            Ok(readonly::Access::Immutable) => {
                let uri = format!("file:{}?immutable=1", uri_path(path));
                let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
                    | OpenFlags::SQLITE_OPEN_URI
                    | OpenFlags::SQLITE_OPEN_NO_MUTEX;
                let store = Store {
                    conn: Connection::open_with_flags(uri, flags)?,
                };
                store.check_version()?;
                Ok(store)
            }
            Ok(readonly::Access::PrivateCopy(copy)) => Store::open_read_only_at(&copy),
            Err(e) => Err(StoreError::Refused(format!(
                "cannot copy the database {} to read it past its write-protected journal files: {e}",
                path.display()
            ))),
        }
    }

    /// [`Store::open_read_only`] of a file whose journal files this process may write (or
    /// that has none).
    fn open_read_only_at(path: &Path) -> Result<Store, StoreError> {
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let usable = |conn: Connection| -> Result<Store, StoreError> {
            conn.busy_timeout(Duration::from_secs(10))?;
            let store = Store { conn };
            store.schema_version()?; // the first read: fails here if the file cannot be read
            Ok(store)
        };
        let store = match Connection::open_with_flags(path, flags).map_err(StoreError::from) {
            Ok(conn) => usable(conn),
            Err(e) => Err(e),
        };
        let store = match store {
            Ok(store) => store,
            Err(_) => {
                let uri = format!("file:{}?immutable=1", uri_path(path));
                usable(Connection::open_with_flags(uri, flags)?)?
            }
        };
        store.check_version()?;
        Ok(store)
    }

    /// Refuses a database of another schema version than this program's.
    fn check_version(&self) -> Result<(), StoreError> {
        let known = schema::MIGRATIONS.len() as i64;
        let found = self.schema_version()?;
        if found > known {
            return Err(StoreError::TooNew { found, known });
        }
        if found < known {
            return Err(StoreError::NeedsUpgrade { found, known });
        }
        Ok(())
    }

    /// A private in-memory database (tests, benchmarks).
    pub fn open_in_memory() -> Result<Store, StoreError> {
        let conn = Connection::open_in_memory()?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        let mut store = Store { conn };
        store.migrate()?;
        Ok(store)
    }

    /// The schema version this database is at.
    pub fn schema_version(&self) -> Result<i64, StoreError> {
        Ok(self
            .conn
            .pragma_query_value(None, "user_version", |row| row.get(0))?)
    }

    /// Starts a write transaction that takes the write lock at once (waiting up to
    /// [`BUSY_TIMEOUT`] for another writer), so that it never fails half-way on a lock.
    pub(crate) fn write(&mut self) -> Result<rusqlite::Transaction<'_>, StoreError> {
        Ok(self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?)
    }

    fn migrate(&mut self) -> Result<(), StoreError> {
        let known = schema::MIGRATIONS.len() as i64;
        let found = self.schema_version()?;
        if found > known {
            return Err(StoreError::TooNew { found, known });
        }
        for (index, sql) in schema::MIGRATIONS.iter().enumerate().skip(found as usize) {
            let tx = self
                .conn
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            // Another process may have migrated while this one waited for the lock.
            let now: i64 = tx.pragma_query_value(None, "user_version", |row| row.get(0))?;
            if now > index as i64 {
                continue;
            }
            tx.execute_batch(sql)?;
            tx.pragma_update(None, "user_version", index as i64 + 1)?;
            if index >= 2 {
                // The log starts with migration 3; earlier ones are recorded when it is made.
                for version in 1..=index as i64 + 1 {
                    tx.execute(
                        "INSERT OR IGNORE INTO schema_migrations (version, applied_at) VALUES (?1, ?2)",
                        rusqlite::params![version, codec::now_text()],
                    )?;
                }
            }
            tx.commit()?;
            tracing::info!(version = index + 1, "applied schema migration");
        }
        Ok(())
    }
}

/// `path` escaped for an SQLite URI (`%`, `?` and `#` would end or change it).
fn uri_path(path: &Path) -> String {
    let mut out = String::new();
    for c in path.to_string_lossy().chars() {
        match c {
            '%' | '?' | '#' => out.push_str(&format!("%{:02X}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests;
