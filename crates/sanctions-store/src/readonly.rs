//! Opening a database in a write-protected folder whatever journal files it holds.
//!
//! SQLite reads a WAL database through its `-shm` index, which a reader must be able to
//! write. A folder copied from a database in use holds `-wal` and `-shm` files this process
//! cannot write, and a plain read-only open then fails on some reads ("attempt to write a
//! readonly database"). So, when a journal file exists that this process cannot write:
//! - an absent or empty `-wal` holds nothing the main file lacks: the file is opened
//!   immutable (SQLite reads the main file only, with no locking);
//! - a `-wal` with content may hold committed transactions, which an immutable open would
//!   ignore (and the main file may be mid-checkpoint): the main file and its `-wal` are
//!   copied into a private temporary folder, once per process, and read there, where SQLite
//!   recovers the `-wal` as after a crash.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// How a read-only open reaches the database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    /// A plain read-only open (falling back to immutable when SQLite cannot set up its
    /// shared-memory file in the folder).
    Direct,
    /// Immutable: the folder is write-protected and its `-wal` is absent or empty.
    Immutable,
    /// Read from a private copy of the main file and its `-wal`, at this path.
    PrivateCopy(PathBuf),
}

impl Access {
    /// How the database is read, for the output of `lists` and `store check`; `None` for
    /// a plain open.
    pub fn describe(&self) -> Option<&'static str> {
        match self {
            Access::Direct => None,
            Access::Immutable => Some(
                "write-protected folder with journal files: opened read-only and immutable (its -wal is empty)",
            ),
            Access::PrivateCopy(_) => Some(
                "write-protected folder whose -wal holds changes: read from a private copy with the -wal applied",
            ),
        }
    }
}

/// `path` with `suffix` appended to its file name (`sanctions.db-wal`).
fn journal(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    path.with_file_name(name)
}

/// True when `path` exists and this process may not write it. Asked with `access(2)`,
/// never by opening the file: closing any descriptor of a file drops the POSIX locks this
/// process's SQLite connections hold on it.
#[cfg(unix)]
fn locked_away(path: &Path) -> bool {
    path.exists() && rustix::fs::access(path, rustix::fs::Access::WRITE_OK).is_err()
}

#[cfg(not(unix))]
fn locked_away(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.permissions().readonly())
}

/// True when this process may not write the database `path`, its journal files or its
/// folder: the case a read-only open is for (a full disk, a lock held elsewhere or damage
/// is not, and is reported as what it is).
pub fn write_protected(path: &Path) -> bool {
    let mut paths = vec![
        path.to_owned(),
        journal(path, "-wal"),
        journal(path, "-shm"),
    ];
    paths.extend(
        path.parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map(Path::to_path_buf),
    );
    paths.iter().any(|p| locked_away(p))
}

/// How a read-only open of `path` should reach it (see the module documentation).
pub fn access(path: &Path) -> std::io::Result<Access> {
    let (wal, shm) = (journal(path, "-wal"), journal(path, "-shm"));
    if !locked_away(&wal) && !locked_away(&shm) {
        return Ok(Access::Direct);
    }
    let wal_bytes = std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0);
    if wal_bytes == 0 {
        return Ok(Access::Immutable);
    }
    Ok(Access::PrivateCopy(private_copy(path, &wal)?))
}

/// The private copies made by this process, by original path (kept until it exits).
static COPIES: Mutex<Option<HashMap<PathBuf, Arc<tempfile::TempDir>>>> = Mutex::new(None);

/// A private copy of the database `path` and its `-wal`, made once per process.
fn private_copy(path: &Path, wal: &Path) -> std::io::Result<PathBuf> {
    let mut copies = COPIES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let copies = copies.get_or_insert_with(HashMap::new);
    let name = path.file_name().unwrap_or_default();
    if let Some(dir) = copies.get(path) {
        return Ok(dir.path().join(name));
    }
    let dir = tempfile::Builder::new().prefix("sanctions-ro-").tempdir()?;
    let copy = dir.path().join(name);
    std::fs::copy(path, &copy)?;
    std::fs::copy(wal, journal(&copy, "-wal"))?;
    tracing::warn!(
        database = %path.display(),
        copy = %copy.display(),
        "write-protected folder whose -wal holds changes: reading a private copy"
    );
    copies.insert(path.to_path_buf(), Arc::new(dir));
    Ok(copy)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writable_journals_are_opened_directly() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("sanctions.db");
        std::fs::write(&db, b"").unwrap();
        assert_eq!(access(&db).unwrap(), Access::Direct);
        std::fs::write(journal(&db, "-wal"), b"x").unwrap();
        assert_eq!(access(&db).unwrap(), Access::Direct);
        assert_eq!(Access::Direct.describe(), None);
    }
}
