//! [`LocalService`]: the [`super::Service`] run in-process on the store (any backend, held
//! as `Arc<dyn store::Backend>`) and the in-memory engine index.
//!
//! Blocking work (the store, the engine) runs on tokio's blocking pool (`spawn_blocking`), never
//! on the async threads; a batch is screened on all cores (rayon). The index is rebuilt when
//! the store holds a newer list update than the one it was built from (an import by this
//! process or another), and swapped in whole: screenings in flight finish on the old one.

mod alerts;
mod background;
mod briefs;
mod convert;
mod enrich;
mod imports;
pub mod index_file;
mod jobs;
mod monitor;
mod nearness;
mod read_ahead;
mod rescreen_run;
mod review;
mod screen;
mod screen_commit;
mod service_impl;
mod verify;
mod watchlist;
mod webhooks;

use std::path::Path;
use std::sync::{Arc, Mutex};

use arc_swap::ArcSwap;

use super::ServiceError;
use crate::engine::Index;
use crate::model::ListVersions;
use crate::store::{Backend, DEFAULT_ACCOUNT, Repository, StoreLocation};

pub use background::Background;
pub use monitor::RescreenMode;
pub use webhooks::Extensions;

/// The version written on every stored screening: the program and its engine.
pub const ENGINE_VERSION: &str = concat!("sanctions ", env!("CARGO_PKG_VERSION"));

/// The engine index and the list versions it was built from.
pub(crate) struct Loaded {
    pub index: Index,
    /// The newest list-update id in the store when the index was built.
    pub latest_update: i64,
    pub versions: ListVersions,
    /// What answers screened on this index share (the lists' snapshot for the coverage,
    /// entry records, counts), replaced with the index when a list update lands.
    pub answers: enrich::Answers,
}

struct Inner {
    repo: Arc<dyn Backend>,
    loaded: ArcSwap<Loaded>,
    /// Held while the index is rebuilt, so that two callers do not build it twice.
    reload: Mutex<()>,
    /// Held while the watchlist is re-screened (one run at a time per process).
    monitor: tokio::sync::Mutex<()>,
    /// Webhook and brief settings, and whether this process is a server.
    extensions: std::sync::RwLock<Extensions>,
    /// The last read of each feed by this process.
    feeds: Mutex<Vec<crate::api::briefs::FeedReport>>,
    /// Whether the index holds the lists' weak aliases (`[screening] weak_aliases`).
    weak_aliases: std::sync::atomic::AtomicBool,
    /// The group-commit writer of stored screenings, started on first use (`None`: it
    /// could not start, and screenings are stored one transaction each).
    committer: std::sync::OnceLock<Option<std::sync::mpsc::Sender<screen_commit::Job>>>,
    /// The lists whose stored names failed verification, at a list update.
    verified: Mutex<verify::Verified>,
    /// This service's name as the holder of claimed jobs (process id and a fresh id).
    job_owner: String,
}

/// The in-process service. Cheap to clone; clones share the store and the index.
#[derive(Clone)]
pub struct LocalService {
    inner: Arc<Inner>,
    actor: Arc<str>,
    /// The account every stored object read or written belongs to (the local single-user
    /// mode: [`DEFAULT_ACCOUNT`]).
    account: Arc<str>,
}

impl std::fmt::Debug for LocalService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalService")
            .field("store", &self.inner.repo.describe())
            .field("actor", &self.actor)
            .field("account", &self.account)
            .finish()
    }
}

impl LocalService {
    /// Opens (creating and migrating as needed) the store at `path`. The engine index is
    /// built on first need (a second or two with all eight lists), so commands that only
    /// read the store start at once. `actor` is who stored screenings and decisions are
    /// recorded as.
    pub fn open(path: &Path, actor: &str) -> Result<LocalService, ServiceError> {
        LocalService::open_at(&StoreLocation::Sqlite(path.to_owned()), actor)
    }

    /// Opens (creating and migrating as needed) the store at `location`: a SQLite file or
    /// a PostgreSQL database shared by several servers.
    pub fn open_at(location: &StoreLocation, actor: &str) -> Result<LocalService, ServiceError> {
        Ok(LocalService::with_repository(
            crate::store::open(location)?,
            actor,
        ))
    }

    /// The service over an existing database opened read-only (a write-protected data
    /// folder): every read works, every write (a stored screening, a decision) fails.
    pub fn open_read_only(path: &Path, actor: &str) -> Result<LocalService, ServiceError> {
        Ok(LocalService::with_repository(
            crate::store::open_read_only(path)?,
            actor,
        ))
    }

    /// Whether this process may not write the database `path` or its folder, the case
    /// [`LocalService::open_read_only`] is for.
    pub fn write_protected(path: &Path) -> bool {
        crate::store::readonly::write_protected(path)
    }

    fn with_repository(repo: Arc<dyn Backend>, actor: &str) -> LocalService {
        let loaded = Loaded {
            index: Index::default(),
            latest_update: -1,
            versions: ListVersions::new(),
            answers: enrich::Answers::default(),
        };
        LocalService {
            inner: Arc::new(Inner {
                repo,
                loaded: ArcSwap::from_pointee(loaded),
                reload: Mutex::new(()),
                monitor: tokio::sync::Mutex::new(()),
                extensions: std::sync::RwLock::new(Extensions::default()),
                feeds: Mutex::new(Vec::new()),
                weak_aliases: std::sync::atomic::AtomicBool::new(true),
                committer: std::sync::OnceLock::new(),
                verified: Mutex::new(None),
                job_owner: format!("{}-{}", std::process::id(), new_id("job_")),
            }),
            actor: Arc::from(actor),
            account: Arc::from(DEFAULT_ACCOUNT),
        }
    }

    /// The same service acting for someone else (a server passes the API key's label).
    pub fn with_actor(&self, actor: &str) -> LocalService {
        LocalService {
            inner: self.inner.clone(),
            actor: Arc::from(actor),
            account: self.account.clone(),
        }
    }

    /// The same service bound to `account`, acting as `actor`: every stored screening,
    /// decision, alert, favorite and webhook it reads or writes is that account's (the
    /// store filters every read by it in SQL), and another account's id is not found.
    pub fn for_account(&self, account: &str, actor: &str) -> LocalService {
        LocalService {
            inner: self.inner.clone(),
            actor: Arc::from(actor),
            account: Arc::from(account),
        }
    }

    /// The account this service is bound to.
    pub fn account(&self) -> &str {
        &self.account
    }

    /// Nothing to write yet, for this service's account.
    pub(crate) fn changes(&self) -> crate::store::Changes {
        crate::store::Changes {
            account: Some(self.account_id()),
            ..crate::store::Changes::default()
        }
    }

    /// An owned copy of the account, for blocking closures.
    pub(crate) fn account_id(&self) -> String {
        self.account.to_string()
    }

    /// Whether the screening index holds the lists' weak aliases (`[screening]
    /// weak_aliases`, default on); a change rebuilds the index at the next screening.
    pub fn set_weak_aliases(&self, on: bool) {
        use std::sync::atomic::Ordering;
        if self.inner.weak_aliases.swap(on, Ordering::SeqCst) != on {
            self.inner.loaded.store(std::sync::Arc::new(Loaded {
                index: Index::default(),
                latest_update: -1,
                versions: ListVersions::new(),
                answers: enrich::Answers::default(),
            }));
        }
    }

    /// Who this service records as the actor.
    pub fn actor(&self) -> &str {
        &self.actor
    }

    /// The OS user running the program, the local actor: `USER`, then `LOGNAME` (then
    /// `USERNAME`, Windows), then the account of this process's user id (root in a container
    /// or a cron job often has none of these set): its name in the system's account database
    /// (the `whoami` crate), else `unknown`.
    pub fn os_user() -> String {
        ["USER", "LOGNAME", "USERNAME"]
            .iter()
            .find_map(|v| std::env::var(v).ok().and_then(|u| clean_user(&u)))
            .or_else(account_user)
            .unwrap_or_else(|| "unknown".to_owned())
    }

    /// The store.
    pub fn repository(&self) -> &dyn Backend {
        &*self.inner.repo
    }

    /// On a shared store, rebuilds the index as soon as another process commits a list
    /// import (told by the store), rather than at the next screening; `None` on a store that
    /// tells nothing. The listener stops when the returned guard is dropped.
    pub fn watch_lists(&self) -> Option<crate::store::ListWatch> {
        let this = self.clone();
        self.inner.repo.watch_lists(Box::new(move || {
            if let Err(e) = this.current() {
                tracing::warn!(error = %e, "index rebuild after a list change failed");
            }
        }))
    }

    /// The list versions the screening index in use was built from (empty before the
    /// first build).
    pub fn index_versions(&self) -> ListVersions {
        self.inner.loaded.load().versions.clone()
    }

    /// The store's list versions now (one small read): newer than [`Self::index_versions`]
    /// after an import until the index is rebuilt (`serve`'s `/readyz` compares the two).
    pub fn store_versions(&self) -> Result<ListVersions, ServiceError> {
        Ok(self.inner.repo.list_versions()?)
    }

    /// The store's keys and accounts (the server's authentication, `keys`, `accounts`).
    pub fn key_store(&self) -> Arc<dyn crate::store::KeyStore> {
        self.inner.repo.clone()
    }

    /// This service's name as the holder of claimed jobs.
    pub(crate) fn job_owner(&self) -> &str {
        &self.inner.job_owner
    }

    pub(crate) fn repo(&self) -> Arc<dyn Backend> {
        self.inner.repo.clone()
    }

    /// The current index, rebuilt first if the store has a newer list update (blocking).
    pub(crate) fn current(&self) -> Result<Arc<Loaded>, ServiceError> {
        let loaded = self.inner.loaded.load_full();
        let latest = self.inner.repo.latest_update_id()?;
        if latest == loaded.latest_update {
            return Ok(loaded);
        }
        let _guard = self
            .inner
            .reload
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let again = self.inner.loaded.load_full();
        if again.latest_update == latest {
            return Ok(again);
        }
        let weak = self
            .inner
            .weak_aliases
            .load(std::sync::atomic::Ordering::SeqCst);
        // The index file sits beside a data folder's store; on a shared store it is rebuilt.
        let repo = self.inner.repo.as_ref();
        let file = repo.local_file().map(index_file::path_for);
        let kept = match &file {
            Some(file) => persisted(repo, file, weak)?,
            None => None,
        };
        let loaded = match kept {
            Some(loaded) => loaded,
            None => {
                let (loaded, damage) = load(repo, weak)?;
                self.remember(loaded.latest_update, &damage);
                if let Some(file) = file.filter(|_| damage.is_empty()) {
                    persist(&file, &loaded, weak);
                }
                loaded
            }
        };
        let fresh = Arc::new(loaded);
        self.inner.loaded.store(fresh.clone());
        Ok(fresh)
    }

    /// Brings the screening index up to date with the store now (read from its file, or
    /// built and written to it): after a list import, so that the next process to screen
    /// reads it at once instead of building it.
    pub async fn prepare_index(&self) -> Result<(), ServiceError> {
        self.blocking(|this| this.current().map(|_| ())).await
    }

    /// The current index if it is up to date and holds entries (one cheap store read), so
    /// that a caller can screen on it at once; `None` when it must be (re)built first or no
    /// list is imported (then [`LocalService::ready`] on the blocking pool says which).
    pub(crate) fn fresh(&self) -> Result<Option<Arc<Loaded>>, ServiceError> {
        let loaded = self.inner.loaded.load_full();
        let latest = self.inner.repo.latest_update_id()?;
        Ok((latest == loaded.latest_update && loaded.index.entity_count() > 0).then_some(loaded))
    }

    /// The current index, which must hold some entries.
    pub(crate) fn ready(&self) -> Result<Arc<Loaded>, ServiceError> {
        let loaded = self.current()?;
        if loaded.index.entity_count() == 0 {
            return Err(ServiceError::Unavailable(NO_DATA.to_owned()));
        }
        Ok(loaded)
    }

    /// Starts the store's background work for a process that writes all the time (the
    /// server): on a data folder's store its WAL checkpoints move off the commits to a
    /// thread of their own (see `store::checkpoint`). Returns whether anything started.
    pub fn start_checkpointer(&self) -> bool {
        self.inner.repo.clone().start_background()
    }

    /// Builds the screening index if the store has a newer list update (blocking): a face
    /// warms the service up with it before the first screening.
    pub fn warm_up(&self) -> Result<(), ServiceError> {
        self.current().map(|_| ())
    }

    /// Waits (off the async threads) until the index is built and holds entries; the error
    /// says why not (no list imported, a store failure).
    pub async fn wait_ready(&self) -> Result<(), ServiceError> {
        self.blocking(|s| s.ready().map(|_| ())).await
    }

    /// The store's figures for `/metrics` (totals, list versions, the store's size), on
    /// either backend.
    pub fn ops_stats(&self) -> Result<crate::store::OpsStats, ServiceError> {
        Ok(self.repo().ops_stats()?)
    }

    /// Runs blocking work off the async threads.
    pub(crate) async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(LocalService) -> Result<T, ServiceError> + Send + 'static,
    ) -> Result<T, ServiceError> {
        let this = self.clone();
        tokio::task::spawn_blocking(move || work(this)).await?
    }
}

/// A user name fit to record: trimmed, without control characters, at most 100 characters.
fn clean_user(name: &str) -> Option<String> {
    let name: String = name
        .trim()
        .chars()
        .filter(|c| !c.is_control())
        .take(100)
        .collect();
    (!name.is_empty()).then_some(name)
}

/// The name of this process's effective user id, from the system's account database
/// (`getpwuid_r` through `whoami`, so NSS sources such as LDAP count too).
fn account_user() -> Option<String> {
    whoami::username().ok().and_then(|name| clean_user(&name))
}

/// Starts reading ahead, each on a thread of its own, what a command about to screen needs of
/// the data folder's database at `db` while it opens and checks the store: the screening
/// index from its file ([`index_file::Early`]) and the names' verification
/// ([`verify::Early`]). Each is used only if it proves to be the store's current one.
pub fn read_ahead(db: &Path) {
    index_file::Early::start(db);
    verify::Early::start(db);
}

/// What to do when no list has been imported.
pub const NO_DATA: &str = "no list has been imported yet: run `sanctions lists import DIR` \
    (offline) or `sanctions lists update` (download from the publishers)";

/// Builds the index from the store, withholding the lists whose names fail verification
/// (returned with it); the names read are kept with it for the grouping.
fn load(
    repo: &dyn Repository,
    weak_aliases: bool,
) -> Result<(Loaded, Vec<crate::store::NameDamage>), ServiceError> {
    // The update id first: an import landing meanwhile makes the index look stale, never fresh.
    let latest_update = repo.latest_update_id()?;
    let versions = repo.list_versions()?;
    let mut lists = repo.lists()?;
    let mut names = repo.entity_names()?;
    let stored = verify::stored_names(&names);
    let found = stored.digests();
    let damage = crate::store::integrity::compare(&repo.name_digests()?, &found);
    verify::withhold(&damage, &mut names, &mut lists);
    if !weak_aliases {
        names
            .iter_mut()
            .for_each(crate::model::EntityNames::drop_weak_aliases);
    }
    let started = std::time::Instant::now();
    let index = Index::build(&names);
    tracing::info!(
        entities = index.entity_count(),
        ms = started.elapsed().as_millis() as u64,
        "screening index built"
    );
    let answers = enrich::Answers::new(lists, index.entity_count(), Some(stored));
    let loaded = Loaded {
        index,
        latest_update,
        versions,
        answers,
    };
    Ok((loaded, damage))
}

/// The persisted index ([`index_file`]) when it is the store's current one and the database
/// passed its check at open; `None` when it must be built.
fn persisted(
    repo: &dyn Backend,
    path: &Path,
    weak_aliases: bool,
) -> Result<Option<Loaded>, ServiceError> {
    if repo.open_problem().is_some() {
        return Ok(None);
    }
    let started = std::time::Instant::now();
    // The update id first: an import landing meanwhile makes the index look stale, never fresh.
    let latest_update = repo.latest_update_id()?;
    let versions = repo.list_versions()?;
    let key = index_file::Key::new(weak_aliases, latest_update, versions.clone());
    let read = match index_file::Early::take(path, &key) {
        Some(index) => Ok(index),
        None => index_file::read(path, &key),
    };
    let (index, names) = match read {
        Ok(read) => read,
        Err(index_file::IndexFileError::Missing) => return Ok(None),
        Err(e) => {
            tracing::info!(file = %path.display(), "{e}: the screening index is rebuilt");
            return Ok(None);
        }
    };
    tracing::info!(
        entities = index.entity_count(),
        ms = started.elapsed().as_millis() as u64,
        "screening index read from its file"
    );
    let answers = enrich::Answers::new(repo.lists()?, index.entity_count(), Some(names));
    Ok(Some(Loaded {
        index,
        latest_update,
        versions,
        answers,
    }))
}

/// Keeps `loaded`'s index in its file for the next process (a failure, such as a
/// write-protected data folder, is logged: the index is then built again next time). A store
/// opened read-only still writes it: the file is derived data beside the database.
fn persist(path: &Path, loaded: &Loaded, weak_aliases: bool) {
    if loaded.index.entity_count() == 0 {
        return;
    }
    let key = index_file::Key::new(weak_aliases, loaded.latest_update, loaded.versions.clone());
    let Some(names) = loaded.answers.read_back() else {
        return;
    };
    let started = std::time::Instant::now();
    match index_file::write(path, &loaded.index, names, &key) {
        Ok(()) => tracing::info!(
            file = %path.display(),
            ms = started.elapsed().as_millis() as u64,
            "screening index written"
        ),
        Err(e) => tracing::warn!(file = %path.display(), "cannot keep the screening index: {e}"),
    }
}

pub use crate::store::new_id;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_account_is_the_one_id_names() {
        // Without USER or LOGNAME the actor is the account of the process's uid, as `id -un`
        // says on this machine.
        let id = std::process::Command::new("id")
            .arg("-un")
            .output()
            .unwrap();
        let expected = String::from_utf8_lossy(&id.stdout).trim().to_owned();
        assert_eq!(account_user().as_deref(), Some(expected.as_str()));
        assert_eq!(clean_user("  ana\u{1b}[31m \n").as_deref(), Some("ana[31m"));
        assert_eq!(clean_user(" \t "), None);
    }
}
