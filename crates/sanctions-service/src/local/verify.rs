//! The lists whose stored names fail their import digest (see `store::integrity`): withheld
//! from the index and reported with no entries, so that coverage names them missing and a
//! screening refuses them as it refuses a list never imported, instead of answering "no
//! match" from a partial index.

use std::path::Path;

use crate::model::{EntityNames, ListCode};
use crate::store::{ListSummary, NameDamage, NamesReadBack, StoreError, StoredNames};

use super::LocalService;
use super::read_ahead::{ReadAhead, Slot};
use crate::ServiceError;

/// The damage found at one list update.
pub(super) struct Verification {
    /// The newest list update when the names were read.
    update_id: i64,
    damage: Vec<NameDamage>,
}

/// The last verification, if any.
pub(super) type Verified = Option<Verification>;

impl LocalService {
    /// The damaged lists, verified once per list update: a read of every name, unless they
    /// all matched their digests on the database's files as they are now (remembered beside
    /// them: [`crate::store::names_checked`]).
    pub(crate) fn damaged_lists(&self) -> Result<Vec<NameDamage>, ServiceError> {
        let repo = self.repo();
        let latest = repo.latest_update_id()?;
        if let Some(v) = self.verified().as_ref()
            && v.update_id == latest
        {
            return Ok(v.damage.clone());
        }
        let db = repo.local_file();
        if db.and_then(crate::store::names_checked) == Some(latest) {
            tracing::debug!("every list's names matched their digests on the files as they are");
            self.remember(latest, &[]);
            return Ok(Vec::new());
        }
        let started = std::time::Instant::now();
        let read = match db.and_then(|db| Early::take(db, latest)) {
            Some(read) => read,
            None => repo.read_back_names()?,
        };
        tracing::debug!(
            ms = started.elapsed().as_millis() as u64,
            "every list's names read back and verified"
        );
        self.remember(read.update_id, &read.damage);
        Ok(read.damage)
    }

    /// Keeps `damage` as the verification at update `latest`, and logs it.
    pub(super) fn remember(&self, latest: i64, damage: &[NameDamage]) {
        for d in damage {
            tracing::error!(list = %d.list, expected = d.expected, found = d.found, "{}", d.message());
        }
        *self.verified() = Some(Verification {
            update_id: latest,
            damage: damage.to_vec(),
        });
    }

    fn verified(&self) -> std::sync::MutexGuard<'_, Verified> {
        self.inner
            .verified
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The names' verification read on a thread of its own while the process opens and checks
/// its store ([`Early::start`], beside the index file's read ahead): on a cold start whose
/// database changed since its names last matched their digests, it is the longest step
/// after the store's check, which it would otherwise follow. It counts only for the database
/// it was read from and while that database's newest list update is the one it read
/// ([`Early::take`]); anything else is read again the usual way.
pub struct Early;

/// The process's names' check read ahead.
static EARLY: Slot<Result<NamesReadBack, StoreError>> = Slot::new(None);

impl Early {
    /// Starts reading back and checking the names of the database at `db` on a connection of
    /// its own, unless they matched their digests on its files as they are now (nothing
    /// either when no thread can be started: the names are then read the usual way).
    pub fn start(db: &Path) {
        if crate::store::names_checked(db).is_some() {
            return;
        }
        let path = db.to_path_buf();
        ReadAhead::start(&EARLY, path.clone(), "names-read-ahead", move || {
            crate::store::read_back_names_at(&path)
        });
    }

    /// The names read ahead from `db`, when its newest list update was `latest` (the read is
    /// waited for); `None` when none was read from `db`, the read failed, or a list update
    /// landed since. The first check takes the read ahead or lets it go.
    fn take(db: &Path, latest: i64) -> Option<NamesReadBack> {
        match ReadAhead::take(&EARLY, db)? {
            Ok(read) if read.update_id == latest => Some(read),
            _ => None,
        }
    }
}

/// The names of `entries` as stored, kept with the index built from them (taken before any
/// is withheld or dropped from the index: the grouping compares every stored name).
pub(super) fn stored_names(entries: &[EntityNames]) -> StoredNames {
    let mut names = StoredNames::default();
    for entry in entries {
        for (name, _) in &entry.names {
            names.push(entry.list, &entry.entity_id, name);
        }
    }
    names.finish()
}

/// Removes the damaged lists' entries from `names` and empties their summaries.
pub(super) fn withhold(
    damage: &[NameDamage],
    names: &mut Vec<EntityNames>,
    lists: &mut [ListSummary],
) {
    let damaged = |list: ListCode| damage.iter().any(|d| d.list == list);
    names.retain(|e| !damaged(e.list));
    lists
        .iter_mut()
        .filter(|l| damaged(l.list))
        .for_each(|l| l.count = 0);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    /// Forgets that the names of `db` matched, so that a read ahead starts.
    fn forget_the_match(db: &Path) {
        let _ = std::fs::remove_file(db.with_file_name("sanctions.db-names-checked"));
    }

    /// The only test that starts a verification read ahead (the slot is the process's).
    #[test]
    fn a_verification_read_ahead_counts_only_for_its_database_and_its_update() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("sanctions.db");
        let mut store = Store::open(&db).unwrap();
        let lists = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/lists");
        assert!(
            lists.is_dir(),
            "the real lists are missing: {}",
            lists.display()
        );
        crate::ingest::import_dir(&mut store, &lists, &[ListCode::Un]).unwrap();
        let now = store.read_back_names().unwrap();
        assert!(now.damage.is_empty());
        assert!(
            store.entity_names().unwrap().len() > 500,
            "the UN list is imported"
        );

        forget_the_match(&db);
        Early::start(&db);
        let other = dir.path().join("other.db");
        assert!(
            Early::take(&other, now.update_id).is_none(),
            "another database"
        );
        assert!(
            Early::take(&db, now.update_id).is_none(),
            "let go by the first verification"
        );

        forget_the_match(&db);
        Early::start(&db);
        let read = Early::take(&db, now.update_id).expect("the read ahead");
        assert_eq!(read.update_id, now.update_id);
        assert!(read.damage.is_empty());
        assert!(Early::take(&db, now.update_id).is_none(), "taken once");

        forget_the_match(&db);
        Early::start(&db);
        assert!(
            Early::take(&db, now.update_id + 1).is_none(),
            "a list update landed since"
        );
        let none = dir.path().join("none.db");
        Early::start(&none);
        assert!(Early::take(&none, now.update_id).is_none(), "no database");
        assert!(!none.exists(), "a read ahead creates nothing");
    }
}
