//! WAL checkpoints off the write path, for a process that writes all the time (the server).
//!
//! By default SQLite checkpoints inside a commit once the WAL passes 1,000 pages: the
//! committing connection copies the WAL into the database file and syncs it before its commit
//! returns, so every request waiting on that commit (a whole group, see the service's group
//! commit) waits for the checkpoint too. At 3,000 stored screenings a second that is a
//! checkpoint about every third of a second, and the stalls were the server's latency tail.
//!
//! [`SqliteRepository::start_checkpointer`] turns the writer's automatic checkpoints off and
//! starts a thread with its own connection that runs a PASSIVE checkpoint (it never blocks
//! the writer or the readers) every [`TICK`], copying what was committed meanwhile. Under a
//! steady stream of commits the WAL is never wholly copied at the moment a commit starts, so
//! it would never start again from the beginning: past [`RESTART_PAGES`] a RESTART
//! checkpoint (the writer waits while it copies the few pages the last PASSIVE one left)
//! makes the next commit do so. That is one short stall every RESTART_PAGES pages instead of
//! a whole checkpoint every 1,000 pages inside a commit. The writer's `journal_size_limit`
//! truncates a file that grew beyond [`WAL_LIMIT_BYTES`] when it starts again, and when the
//! store has been quiet for [`QUIET_TICKS`] a TRUNCATE checkpoint empties it. RESTART and TRUNCATE
//! wait at most [`QUIET_BUSY`] for a reader or the writer, and are tried again later.
//! Durability is unchanged: commits still sync the WAL (`synchronous=FULL`),
//! and a checkpoint only moves committed pages. When the thread stops (its connection
//! fails), the writer's automatic checkpoints are turned back on.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use super::{Store, StoreError, repo::SqliteRepository};

/// How often the checkpointer looks at the WAL.
pub const TICK: Duration = Duration::from_millis(100);
/// Ticks without a commit after which the store counts as quiet (a commit held up by a slow
/// sync under load is not quiet).
pub const QUIET_TICKS: u32 = 10;
/// WAL pages (4 KiB each) past which a RESTART checkpoint makes the next commit start the
/// WAL again from the beginning.
pub const RESTART_PAGES: i64 = 32 * 1024;
/// The WAL file's size (a little over RESTART_PAGES pages) beyond which the writer
/// truncates it when it starts it again.
pub const WAL_LIMIT_BYTES: i64 = 160 * 1024 * 1024;
/// How long a RESTART or TRUNCATE checkpoint waits for readers and the writer (the writer
/// waits for it meanwhile).
pub const QUIET_BUSY: Duration = Duration::from_millis(20);
/// SQLite's own threshold, restored when the checkpointer stops.
const AUTOCHECKPOINT_PAGES: i64 = 1000;

/// The outcome of one `PRAGMA wal_checkpoint`: whether it was blocked, the pages in the WAL
/// and how many of them are in the database file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CheckpointOutcome {
    pub(crate) busy: bool,
    pub(crate) wal_pages: i64,
    pub(crate) copied: i64,
}

impl Store {
    /// Runs `PRAGMA wal_checkpoint(MODE)`; `mode` is one of SQLite's own (PASSIVE, FULL,
    /// RESTART, TRUNCATE), never text from outside.
    pub(crate) fn checkpoint(&self, mode: &'static str) -> Result<CheckpointOutcome, StoreError> {
        let sql = format!("PRAGMA wal_checkpoint({mode})");
        Ok(self.conn.query_row(&sql, [], |row| {
            Ok(CheckpointOutcome {
                busy: row.get::<_, i64>(0)? != 0,
                wal_pages: row.get(1)?,
                copied: row.get(2)?,
            })
        })?)
    }

    /// Sets this connection's automatic checkpoint threshold (0: never).
    fn set_autocheckpoint(&self, pages: i64) -> Result<(), StoreError> {
        self.conn
            .pragma_update(None, "wal_autocheckpoint", pages)
            .map_err(StoreError::from)
    }
}

impl SqliteRepository {
    /// Moves WAL checkpoints from the writer's commits to a thread of their own (see the
    /// module). Returns `false`, leaving the automatic checkpoints on, when the thread or its
    /// connection cannot start, on a read-only repository, or when one already runs. The
    /// thread ends soon after the repository is dropped.
    pub fn start_checkpointer(self: &Arc<Self>) -> bool {
        if self.is_read_only() || self.checkpointer_started().swap(true, Ordering::SeqCst) {
            return false;
        }
        let started = match Store::open(self.path()) {
            Ok(store) => {
                let _ = store.conn.busy_timeout(QUIET_BUSY);
                let repo = Arc::downgrade(self);
                std::thread::Builder::new()
                    .name("sanctions-checkpoint".into())
                    .spawn(move || run(&store, &repo))
                    .map_err(|e| tracing::warn!("cannot start the checkpointer: {e}"))
                    .is_ok()
            }
            Err(e) => {
                tracing::warn!("cannot open the checkpointer's connection: {e}");
                false
            }
        };
        if !started {
            self.checkpointer_started().store(false, Ordering::SeqCst);
            return false;
        }
        let writer = self.writer();
        let off = writer.set_autocheckpoint(0).and_then(|()| {
            writer
                .conn
                .pragma_update(None, "journal_size_limit", WAL_LIMIT_BYTES)
                .map_err(StoreError::from)
        });
        if let Err(e) = off {
            tracing::warn!("cannot turn the writer's automatic checkpoints off: {e}");
        }
        true
    }
}

/// The checkpointer's loop, until the repository is gone or its connection fails.
fn run(store: &Store, repo: &Weak<SqliteRepository>) {
    let mut last_pages = 0;
    let mut quiet_ticks = 0;
    let mut truncated = true;
    loop {
        std::thread::sleep(TICK);
        let Some(repo) = repo.upgrade() else {
            return;
        };
        // Copies what was committed since the last tick (nothing to copy: it only reads).
        let started = Instant::now();
        let outcome = match store.checkpoint("PASSIVE") {
            Ok(outcome) => outcome,
            Err(e) => {
                stop(&repo, &e);
                return;
            }
        };
        let passive = started.elapsed();
        if outcome.wal_pages == last_pages {
            quiet_ticks += 1;
        } else {
            quiet_ticks = 0;
            truncated = false;
        }
        last_pages = outcome.wal_pages;
        // A store written to all the time never leaves the WAL wholly copied at the moment a
        // commit starts, so the WAL would never start again from the beginning: past
        // RESTART_PAGES a RESTART checkpoint (the writer waits while it copies the last few
        // pages) makes the next commit start it again. Quiet for QUIET_TICKS (a commit held
        // up by a slow sync does not count): TRUNCATE empties the file. Either gives up after QUIET_BUSY when a reader or the writer holds on,
        // and is tried again on a later tick.
        let mode = if outcome.wal_pages > RESTART_PAGES {
            "RESTART"
        } else if quiet_ticks >= QUIET_TICKS && !truncated && outcome.wal_pages > 0 {
            "TRUNCATE"
        } else {
            drop(repo);
            continue;
        };
        let started = Instant::now();
        match store.checkpoint(mode) {
            Ok(done) => {
                tracing::debug!(
                    mode,
                    busy = done.busy,
                    wal_pages = outcome.wal_pages,
                    copied = done.copied,
                    passive_ms = passive.as_secs_f64() * 1e3,
                    took_ms = started.elapsed().as_secs_f64() * 1e3,
                    "checkpoint"
                );
                if !done.busy {
                    truncated = mode == "TRUNCATE";
                    last_pages = 0;
                }
            }
            Err(e) if is_busy(&e) => {}
            Err(e) => {
                stop(&repo, &e);
                return;
            }
        }
        drop(repo);
    }
}

fn is_busy(error: &StoreError) -> bool {
    matches!(error, StoreError::Busy { .. })
}

/// The checkpointer failed: the writer checkpoints by itself again.
fn stop(repo: &SqliteRepository, error: &StoreError) {
    tracing::warn!("the checkpointer stopped ({error}); the writer checkpoints again");
    if let Err(e) = repo.writer().set_autocheckpoint(AUTOCHECKPOINT_PAGES) {
        tracing::warn!("cannot turn the writer's automatic checkpoints back on: {e}");
    }
    repo.checkpointer_started().store(false, Ordering::SeqCst);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checkpointer_keeps_the_wal_copied_while_the_writer_does_not_checkpoint() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.db");
        let repo = Arc::new(SqliteRepository::open(&path).unwrap());
        assert!(repo.start_checkpointer());
        assert!(
            !repo.start_checkpointer(),
            "one checkpointer per repository"
        );
        let auto: i64 = repo
            .writer()
            .conn
            .pragma_query_value(None, "wal_autocheckpoint", |r| r.get(0))
            .unwrap();
        assert_eq!(auto, 0);
        {
            let mut writer = repo.writer();
            let tx = writer.write().unwrap();
            tx.execute_batch(
                "CREATE TABLE t (x BLOB);
                 WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
                 INSERT INTO t SELECT randomblob(2000) FROM n;",
            )
            .unwrap();
            tx.commit().unwrap();
        }
        // Quiet afterwards: the checkpointer copies the WAL and then empties its file.
        let wal = dir.path().join("s.db-wal");
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0) > 0 {
            assert!(
                std::time::Instant::now() < deadline,
                "the WAL was never emptied"
            );
            std::thread::sleep(TICK);
        }
        let reader = Store::open(&path).unwrap();
        let rows: i64 = reader
            .conn
            .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .unwrap();
        assert_eq!(rows, 3000);
    }
}
