//! The lists whose stored names fail their import digest (see `store::integrity`): withheld
//! from the index and reported with no entries, so that coverage names them missing and a
//! screening refuses them as it refuses a list never imported, instead of answering "no
//! match" from a partial index.

use std::sync::Arc;

use crate::model::{EntityNames, ListCode};
use crate::store::{ListSummary, NameDamage, StoredNames};

use super::LocalService;
use crate::ServiceError;

/// The damage found at one list update, and the names read back then (the grouping of
/// matches compares them).
pub(super) struct Verification {
    /// The newest list update when the names were read.
    update_id: i64,
    damage: Vec<NameDamage>,
    names: Arc<StoredNames>,
}

/// The last verification, if any.
pub(super) type Verified = Option<Verification>;

impl LocalService {
    /// The damaged lists, verified once per list update (a read of every name, kept for the
    /// grouping of matches).
    pub(crate) fn damaged_lists(&self) -> Result<Vec<NameDamage>, ServiceError> {
        let repo = self.repo();
        let latest = repo.latest_update_id()?;
        if let Some(v) = self.verified().as_ref()
            && v.update_id == latest
        {
            return Ok(v.damage.clone());
        }
        let started = std::time::Instant::now();
        let read = repo.read_back_names()?;
        tracing::debug!(
            ms = started.elapsed().as_millis() as u64,
            "every list's names read back and verified"
        );
        self.remember(read.update_id, &read.damage, read.names);
        Ok(read.damage)
    }

    /// Keeps `damage` and `names` as the verification at update `latest`, and logs the damage.
    pub(super) fn remember(&self, latest: i64, damage: &[NameDamage], names: StoredNames) {
        for d in damage {
            tracing::error!(list = %d.list, expected = d.expected, found = d.found, "{}", d.message());
        }
        *self.verified() = Some(Verification {
            update_id: latest,
            damage: damage.to_vec(),
            names: Arc::new(names),
        });
    }

    /// The names read back at list update `update_id`, if the last verification was then.
    pub(super) fn names_at(&self, update_id: i64) -> Option<Arc<StoredNames>> {
        self.verified()
            .as_ref()
            .filter(|v| v.update_id == update_id)
            .map(|v| v.names.clone())
    }

    fn verified(&self) -> std::sync::MutexGuard<'_, Verified> {
        self.inner
            .verified
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The names of `entries` as read back, for [`LocalService::remember`] (taken before any is
/// withheld or dropped from the index: the grouping compares every stored name).
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
