//! The check at open ([`Store::check_at_open`](super::Store::check_at_open)) remembered per
//! state of the database's files, so that it runs once per change of them rather than at
//! every start of a command that screens.
//!
//! After the check passes, a marker beside the database (`sanctions.db-checked`, 0600) keeps
//! what identifies the files' state then: for the database file and a non-empty write-ahead
//! log, the device, inode, size and modification time to the nanosecond; for the database
//! its change time too, for the log its header (its checkpoint sequence and salts, which a
//! checkpoint that starts the log again changes). An open that finds the same state skips the
//! check; any write through the file system (by this program, SQLite's own tools or anything
//! else) moves the times, and a copied or restored file is another inode, so the check runs
//! again. The database's change time cannot be set back by a user (`touch` sets the
//! modification time only). The log's change time is left out: SQLite running as root gives
//! the log its database's owner at every open (`fchown`, even to the same owner), which moves
//! it without a write.
//!
//! The marker is written only for a state that held still during the check and is at least
//! [`SETTLED`] old: a write landing within the file system's timestamp granularity of the one
//! before could otherwise leave the same times (git's "racy" index entries). A data folder
//! that cannot be written keeps no marker and is checked at every open, as before.
//!
//! The names' verification against their import digests (see [`super::integrity`]) is
//! remembered the same way, in a marker of its own (`sanctions.db-names-checked`) that also
//! keeps the newest list update then: it is written when every list's names matched their
//! digests on files that held still through the read ([`names_checked`]), so that a start
//! on files unchanged since reads no name (a write, such as a stored screening, makes the
//! next start read them all again).
//!
//! What this leaves out is damage that no write makes, such as a failing disk changing bytes
//! in place. The screening index a process answers from is checked in full (its checksum) at
//! every read; `sanctions store check` reads and compares every name whatever the markers say.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// How long the files must have been left alone before their state is remembered.
pub(crate) const SETTLED: Duration = Duration::from_secs(1);

/// What the marker's first line says: the marker's kind and layout.
const HEADER: &str = "sanctions: quick_check(names) passed, v2";
/// The first line of the names' marker.
const NAMES_HEADER: &str = "sanctions: every list's names matched their digests, v2";

/// The length of a write-ahead log's header.
const WAL_HEADER: usize = 32;

/// One file's identity and times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    dev: u64,
    ino: u64,
    size: u64,
    modified: (i64, i64),
    changed: (i64, i64),
}

/// The state of a database's files: the database and its write-ahead log when that holds
/// anything (an empty or missing log holds nothing to read), with the log's header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Seen {
    db: Stamp,
    wal: Option<(Stamp, [u8; WAL_HEADER])>,
}

#[cfg(unix)]
fn stamp(path: &Path) -> Option<Stamp> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path).ok()?;
    Some(Stamp {
        dev: meta.dev(),
        ino: meta.ino(),
        size: meta.size(),
        modified: (meta.mtime(), meta.mtime_nsec()),
        changed: (meta.ctime(), meta.ctime_nsec()),
    })
}

/// Elsewhere than on Unix no state is remembered: the check runs at every open.
#[cfg(not(unix))]
fn stamp(_path: &Path) -> Option<Stamp> {
    None
}

/// The first bytes of the write-ahead log at `path` (`None`: fewer, or unreadable).
fn header(path: &Path) -> Option<[u8; WAL_HEADER]> {
    let mut head = [0; WAL_HEADER];
    std::io::Read::read_exact(&mut std::fs::File::open(path).ok()?, &mut head).ok()?;
    Some(head)
}

/// `db`'s path with `suffix` added to its file name (`sanctions.db` -> `sanctions.db-wal`).
fn beside(db: &Path, suffix: &str) -> PathBuf {
    let mut name = db.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    db.with_file_name(name)
}

/// The marker of the database at `db`.
pub(crate) fn marker_path(db: &Path) -> PathBuf {
    beside(db, "-checked")
}

impl Seen {
    /// The state of the database at `db` now (`None`: it cannot be told).
    pub(crate) fn now(db: &Path) -> Option<Seen> {
        let path = beside(db, "-wal");
        let wal = match stamp(&path) {
            Some(wal) if wal.size > 0 => Some((
                Stamp {
                    changed: (0, 0),
                    ..wal
                },
                header(&path)?,
            )),
            _ => None,
        };
        Some(Seen {
            db: stamp(db)?,
            wal,
        })
    }

    /// The marker's text for this state.
    fn text(&self) -> String {
        self.text_under(HEADER)
    }

    /// The marker's text for this state under `header`.
    fn text_under(&self, header: &str) -> String {
        let line = |s: &Stamp| {
            format!(
                "{} {} {} {}.{:09} {}.{:09}",
                s.dev, s.ino, s.size, s.modified.0, s.modified.1, s.changed.0, s.changed.1
            )
        };
        let wal = self.wal.as_ref().map_or_else(
            || "none".to_owned(),
            |(s, head)| format!("{} {}", line(s), hex::encode(head)),
        );
        format!("{header}\ndb {}\nwal {wal}\n", line(&self.db))
    }

    /// Whether every file was last changed at least [`SETTLED`] before `now`.
    fn settled(&self, now: SystemTime) -> bool {
        let Ok(since) = now.duration_since(SystemTime::UNIX_EPOCH) else {
            return false;
        };
        let latest = [Some(self.db), self.wal.map(|(s, _)| s)]
            .into_iter()
            .flatten()
            .flat_map(|s| [s.modified, s.changed])
            .max()
            .unwrap_or_default();
        let latest = Duration::new(
            u64::try_from(latest.0).unwrap_or(u64::MAX),
            u32::try_from(latest.1).unwrap_or(0),
        );
        since.checked_sub(latest).is_some_and(|age| age >= SETTLED)
    }
}

/// Whether the check at open passed on the database at `db` in the state `seen`.
pub(crate) fn passed_before(db: &Path, seen: &Seen) -> bool {
    std::fs::read_to_string(marker_path(db)).is_ok_and(|text| text == seen.text())
}

/// Remembers that the check passed on the database at `db` in the state `before` (seen
/// before the check started), when the files are still in that state and settled; else
/// writes nothing (a marker of an earlier state holds for no other). A marker that cannot
/// be written is left out (logged).
pub(crate) fn remember(db: &Path, before: &Seen) {
    remember_as(&marker_path(db), db, before, &before.text());
}

/// Writes `text` to `marker` when the files of `db` are still in the state `before` and it
/// is settled.
fn remember_as(marker: &Path, db: &Path, before: &Seen, text: &str) {
    let still = Seen::now(db).as_ref() == Some(before);
    if !still || !before.settled(SystemTime::now()) {
        return;
    }
    if let Err(e) = write(marker, text) {
        tracing::debug!(file = %marker.display(), "a passed check is not remembered: {e}");
    }
}

/// Forgets any state remembered for the database at `db` (the checks then run at the next
/// open).
pub(crate) fn forget(db: &Path) {
    let _ = std::fs::remove_file(marker_path(db));
    forget_names(db);
}

/// The names' marker of the database at `db`.
pub(crate) fn names_marker_path(db: &Path) -> PathBuf {
    beside(db, "-names-checked")
}

/// The names' marker's text for `update_id` in the state `seen`.
fn names_text(seen: &Seen, update_id: i64) -> String {
    format!("{}update {update_id}\n", seen.text_under(NAMES_HEADER))
}

/// The newest list update when every list's names of the database at `db` last matched
/// their digests, if the files are still as they were then (`None`: they must be read).
pub fn names_checked(db: &Path) -> Option<i64> {
    let text = std::fs::read_to_string(names_marker_path(db)).ok()?;
    let seen = Seen::now(db)?;
    let update = text.lines().last()?.strip_prefix("update ")?.parse().ok()?;
    (text == names_text(&seen, update)).then_some(update)
}

/// Remembers that every list's names of the database at `db` matched their digests at list
/// update `update_id`, read on the files in the state `before` (seen before the read), when
/// they are still in that state and settled.
pub(crate) fn remember_names(db: &Path, before: &Seen, update_id: i64) {
    remember_as(
        &names_marker_path(db),
        db,
        before,
        &names_text(before, update_id),
    );
}

/// Forgets the names' verification remembered for the database at `db`.
pub(crate) fn forget_names(db: &Path) {
    let _ = std::fs::remove_file(names_marker_path(db));
}

/// Writes `text` to `path` in one step (a private temporary file renamed over it).
fn write(path: &Path, text: &str) -> std::io::Result<()> {
    crate::files::replace_private(path, ".sanctions-checked-", text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settle(path: &Path) {
        let old = SystemTime::now() - Duration::from_secs(60);
        let file = std::fs::File::options().write(true).open(path).unwrap();
        file.set_modified(old).unwrap();
    }

    #[test]
    fn a_state_is_remembered_once_settled_and_forgotten_by_any_write() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("sanctions.db");
        std::fs::write(&db, b"one").unwrap();
        // Just written: its change time is now, so nothing is remembered.
        let fresh = Seen::now(&db).unwrap();
        remember(&db, &fresh);
        assert!(!marker_path(&db).exists());
        assert!(!passed_before(&db, &fresh));

        // The change time cannot be set back: a state is settled once it has aged.
        let aged = fresh.clone();
        let later = SystemTime::now() + SETTLED + Duration::from_millis(10);
        assert!(aged.settled(later));
        assert!(!aged.settled(SystemTime::now() - Duration::from_secs(5)));

        // A write of the same size moves the times: another state.
        settle(&db);
        let before = Seen::now(&db).unwrap();
        assert_ne!(
            before, fresh,
            "setting the modification time changes the state"
        );
        std::fs::write(&db, b"two").unwrap();
        let after = Seen::now(&db).unwrap();
        assert_ne!(before, after);
        assert_eq!(before.db.size, after.db.size);
    }

    #[test]
    fn the_marker_holds_for_its_state_only() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("sanctions.db");
        std::fs::write(&db, b"data").unwrap();
        let seen = Seen::now(&db).unwrap();
        write(&marker_path(&db), &seen.text()).unwrap();
        assert!(passed_before(&db, &seen));
        // A log with frames in it is part of the state; an empty one is not.
        let wal = beside(&db, "-wal");
        std::fs::write(&wal, b"").unwrap();
        assert!(passed_before(&db, &Seen::now(&db).unwrap()));
        std::fs::write(&wal, [7; 40]).unwrap();
        assert!(!passed_before(&db, &Seen::now(&db).unwrap()));
        // A log too short to hold a header cannot be told: nothing is remembered for it.
        std::fs::write(&wal, b"frames").unwrap();
        assert_eq!(Seen::now(&db), None);
        std::fs::remove_file(&wal).unwrap();
        // A copy is another file.
        let copy = dir.path().join("copy.db");
        std::fs::copy(&db, &copy).unwrap();
        std::fs::copy(marker_path(&db), marker_path(&copy)).unwrap();
        assert!(!passed_before(&copy, &Seen::now(&copy).unwrap()));
        // A damaged or foreign marker holds for nothing.
        std::fs::write(marker_path(&db), "db 1 2 3\n").unwrap();
        assert!(!passed_before(&db, &seen));
        forget(&db);
        assert!(!marker_path(&db).exists());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            write(&marker_path(&db), &seen.text()).unwrap();
            let mode = std::fs::metadata(marker_path(&db))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    /// Waits until the files of `db` have been left alone for [`SETTLED`].
    fn until_settled(db: &Path) {
        while !Seen::now(db).unwrap().settled(SystemTime::now()) {
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    #[test]
    fn an_open_remembers_a_passed_check_and_a_write_makes_the_next_open_check_again() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("sanctions.db");
        drop(crate::SqliteRepository::open(&db).unwrap());
        assert!(!marker_path(&db).exists(), "just written: not remembered");
        until_settled(&db);
        let repo = crate::SqliteRepository::open(&db).unwrap();
        assert_eq!(repo.open_problem(), None);
        let seen = Seen::now(&db).unwrap();
        assert!(
            passed_before(&db, &seen),
            "a settled, passed state is remembered"
        );
        drop(repo);
        // Any write, here through SQLite by another program, is another state.
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch("CREATE TABLE other (x); DROP TABLE other;")
            .unwrap();
        drop(conn);
        assert!(!passed_before(&db, &Seen::now(&db).unwrap()));
        let repo = crate::SqliteRepository::open(&db).unwrap();
        assert_eq!(repo.open_problem(), None);
    }

    #[test]
    fn the_names_match_is_remembered_with_its_update_for_its_state_only() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("sanctions.db");
        std::fs::write(&db, b"data").unwrap();
        let fresh = Seen::now(&db).unwrap();
        remember_names(&db, &fresh, 7);
        assert_eq!(names_checked(&db), None, "just written: not remembered");
        until_settled(&db);
        let seen = Seen::now(&db).unwrap();
        remember_names(&db, &seen, 7);
        assert_eq!(names_checked(&db), Some(7));
        // The quick check's marker is another: neither holds for the other.
        assert!(!passed_before(&db, &seen));
        // The update is what the marker says (a service compares it with the store's
        // newest); a marker with no update, or of another kind, holds for nothing.
        let text = std::fs::read_to_string(names_marker_path(&db)).unwrap();
        write(
            &names_marker_path(&db),
            &text.replace("update 7", "update 8"),
        )
        .unwrap();
        assert_eq!(names_checked(&db), Some(8));
        write(
            &names_marker_path(&db),
            &text.replace("update 7", "update x"),
        )
        .unwrap();
        assert_eq!(names_checked(&db), None);
        write(&names_marker_path(&db), &seen.text()).unwrap();
        assert_eq!(names_checked(&db), None);
        remember_names(&db, &seen, 7);
        assert_eq!(names_checked(&db), Some(7));
        // Any write is another state; forgetting the check at open forgets this too.
        std::fs::write(&db, b"date").unwrap();
        assert_eq!(names_checked(&db), None);
        until_settled(&db);
        remember_names(&db, &Seen::now(&db).unwrap(), 7);
        assert_eq!(names_checked(&db), Some(7));
        forget(&db);
        assert_eq!(names_checked(&db), None);
        assert!(!names_marker_path(&db).exists());
    }

    #[test]
    fn names_read_back_on_settled_files_are_remembered_until_a_write() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("sanctions.db");
        drop(crate::SqliteRepository::open(&db).unwrap());
        until_settled(&db);
        let read = crate::read_back_names_at(&db).unwrap();
        assert!(read.damage.is_empty());
        assert_eq!(names_checked(&db), Some(read.update_id));
        let repo = crate::SqliteRepository::open(&db).unwrap();
        assert_eq!(
            names_checked(&db),
            Some(read.update_id),
            "an open writes nothing"
        );
        drop(repo);
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch("CREATE TABLE other (x); DROP TABLE other;")
            .unwrap();
        drop(conn);
        assert_eq!(names_checked(&db), None, "a write by another program");
    }

    /// SQLite running as root gives the log its database's owner at every open, which moves
    /// the log's change time without a write: the same state. Its header or its length is
    /// another.
    #[cfg(unix)]
    #[test]
    fn the_logs_owner_given_again_is_the_same_state_its_header_is_not() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("sanctions.db");
        std::fs::write(&db, b"data").unwrap();
        let wal = beside(&db, "-wal");
        let mut frames = vec![1; 64];
        std::fs::write(&wal, &frames).unwrap();
        let before = Seen::now(&db).unwrap();
        let meta = std::fs::metadata(&wal).unwrap();
        let file = std::fs::File::open(&wal).unwrap();
        std::os::unix::fs::fchown(&file, Some(meta.uid()), Some(meta.gid())).unwrap();
        assert_eq!(
            Seen::now(&db).as_ref(),
            Some(&before),
            "the owner given again"
        );

        frames[20] = 2; // a salt, as a checkpoint that starts the log again writes it
        let modified = meta.modified().unwrap();
        std::fs::write(&wal, &frames).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&wal)
            .unwrap()
            .set_modified(modified)
            .unwrap();
        assert_ne!(Seen::now(&db).as_ref(), Some(&before), "another header");
    }
}
