//! A read started on a thread of its own as a command about to screen starts (`screen`,
//! `batch`, the UI), kept in a process-wide slot until the first load takes it or lets it
//! go: the index file ([`super::index_file::Early`]) and the names' check
//! ([`super::verify::Early`]). Each kind of read has one slot; what a load takes still has to
//! prove to be the store's current data.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::thread::JoinHandle;

/// One read ahead: of what `path` names, on its thread.
pub(super) struct ReadAhead<T> {
    path: PathBuf,
    reading: JoinHandle<T>,
}

/// The process's read ahead of one kind, if one was started and not yet taken.
pub(super) type Slot<T> = Mutex<Option<ReadAhead<T>>>;

impl<T: Send + 'static> ReadAhead<T> {
    /// Starts `read` of `path` on a thread named `name`, into `slot` (nothing when no thread
    /// can be started: the load then reads the usual way).
    pub(super) fn start(
        slot: &Slot<T>,
        path: PathBuf,
        name: &str,
        read: impl FnOnce() -> T + Send + 'static,
    ) {
        let reading = std::thread::Builder::new().name(name.into()).spawn(read);
        if let Ok(reading) = reading {
            *slot.lock().unwrap_or_else(|p| p.into_inner()) = Some(ReadAhead { path, reading });
        }
    }

    /// What was read ahead of `path` (the read is waited for); `None` when nothing was, it
    /// was of another path or its thread failed. The first load takes it or lets it go (a
    /// read of another file, such as the original of a database opened through a private
    /// copy, is then not kept for the life of the process).
    pub(super) fn take(slot: &Slot<T>, path: &Path) -> Option<T> {
        let early = slot.lock().unwrap_or_else(|p| p.into_inner()).take()?;
        if early.path != path {
            return None;
        }
        early.reading.join().ok()
    }
}
