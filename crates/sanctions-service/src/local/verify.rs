//! The lists whose stored names fail their import digest (see `store::integrity`): withheld
//! from the index and reported with no entries, so that coverage names them missing and a
//! screening refuses them as it refuses a list never imported, instead of answering "no
//! match" from a partial index.

use crate::model::{EntityNames, ListCode};
use crate::store::{ListSummary, NameDamage, Repository};

use super::LocalService;
use crate::ServiceError;

/// The damage found at one list update: (the newest update id then, the damaged lists).
pub(super) type Verified = Option<(i64, Vec<NameDamage>)>;

impl LocalService {
    /// The damaged lists, verified once per list update (a read of every name).
    pub(crate) fn damaged_lists(&self) -> Result<Vec<NameDamage>, ServiceError> {
        let repo = self.repo();
        let latest = repo.latest_update_id()?;
        if let Some((at, damage)) = self.verified().as_ref()
            && *at == latest
        {
            return Ok(damage.clone());
        }
        let damage = repo.verify_names()?;
        self.remember(latest, &damage);
        Ok(damage)
    }

    /// Keeps `damage` as the verification at update `latest`, and logs it.
    pub(super) fn remember(&self, latest: i64, damage: &[NameDamage]) {
        for d in damage {
            tracing::error!(list = %d.list, expected = d.expected, found = d.found, "{}", d.message());
        }
        *self.verified() = Some((latest, damage.to_vec()));
    }

    fn verified(&self) -> std::sync::MutexGuard<'_, Verified> {
        self.inner
            .verified
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
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
