//! What a screening answer carries besides the engine's matches, filled in by the service so
//! that every face (CLI, UI, server, remote client) shows the same: the `coverage` (every
//! requested list with its version, what was really searched) and the `group` of each match
//! (one person's or organisation's entries on several lists), `limit` counting groups.
//!
//! What an answer needs besides the engine's matches is kept with the index it was screened
//! on ([`Answers`]): the lists' snapshot for the coverage, the matched entries' grouping facts and
//! the counts of entries searched, so that an answer reads nothing from the store once they are
//! known. All of it is dropped with the index when a list update lands.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::Loaded;
use crate::ServiceError;
use crate::api::coverage::Coverage;
use crate::api::screening::{KindFilter, ScreenRequest, ScreenResult};
use crate::coverage::DEFAULT_MAX_AGE_DAYS;
use crate::engine;
use crate::grouping::Facts;
use crate::model::{EntityKind, ListCode};
use crate::store::ListSummary;
use crate::store::Repository;

/// The engine request of `request`: asks for enough entries that `limit` can count people
/// and organisations, not their entries on several lists.
pub(crate) fn widened(request: &ScreenRequest) -> ScreenRequest {
    let limit = request.limit.unwrap_or(engine::DEFAULT_LIMIT);
    ScreenRequest {
        limit: Some((limit * ListCode::ALL.len()).min(engine::MAX_LIMIT)),
        ..request.clone()
    }
}

/// The most entries whose grouping facts are kept per index (the eight lists hold about
/// 31,000 entries); past it the cache starts again.
const MAX_CACHED_ENTITIES: usize = 40_000;

/// What the answers screened on one index share: read once, kept with the index.
#[derive(Default)]
pub(crate) struct Answers {
    /// The lists' counts and versions when the index was built: every answer's coverage.
    pub lists: Vec<ListSummary>,
    /// What grouping compares of each entry met so far (`None`: not in the store), worked
    /// out once from its record (not the record itself: it is several times larger).
    entities: Mutex<HashMap<String, Option<Arc<Facts>>>>,
    /// Entries searched, by (lists searched, include ended, kind filter, today).
    searched: Mutex<HashMap<SearchedKey, u64>>,
}

/// The lists searched (sorted), whether ended listings count, the kind filter (0 both, 1
/// individuals, 2 entities) and today's date (listings end by date).
type SearchedKey = (Vec<ListCode>, bool, u8, String);

impl Answers {
    pub(crate) fn new(lists: Vec<ListSummary>) -> Answers {
        Answers {
            lists,
            ..Answers::default()
        }
    }

    /// The grouping facts of `entity_id`, from the cache or else the store.
    fn facts(
        &self,
        repo: &dyn Repository,
        entity_id: &str,
    ) -> Result<Option<Arc<Facts>>, ServiceError> {
        if let Some(found) = lock(&self.entities).get(entity_id) {
            return Ok(found.clone());
        }
        let found = repo.entity(entity_id)?.map(|e| Arc::new(Facts::of(&e)));
        let mut cache = lock(&self.entities);
        if cache.len() >= MAX_CACHED_ENTITIES {
            cache.clear();
        }
        cache.insert(entity_id.to_owned(), found.clone());
        Ok(found)
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Groups the matches of `result` (keeping the best `request.limit` groups) and sets its
/// coverage, `coverage` ([`coverage`] of the same request: a batch works it out once for
/// its rows).
pub(crate) fn finish(
    repo: &dyn Repository,
    loaded: &Loaded,
    request: &ScreenRequest,
    result: &mut ScreenResult,
    coverage: Coverage,
) -> Result<(), ServiceError> {
    let mut entities = HashMap::new();
    for m in &result.results {
        if !entities.contains_key(&m.entity_id)
            && let Some(f) = loaded.answers.facts(repo, &m.entity_id)?
        {
            entities.insert(m.entity_id.clone(), f);
        }
    }
    crate::grouping::assign(&mut result.results, &entities);
    let limit = u32::try_from(request.limit.unwrap_or(engine::DEFAULT_LIMIT)).unwrap_or(u32::MAX);
    result
        .results
        .retain(|m| m.group.is_some_and(|g| g <= limit));
    result.coverage = Some(coverage);
    Ok(())
}

/// The coverage of an answer to `request`: the requested lists (all eight when none), each
/// with its version and status, from the lists' snapshot taken with the index (no store
/// read), and the entries really searched.
pub(crate) fn coverage(loaded: &Loaded, request: &ScreenRequest) -> Coverage {
    let answers = &loaded.answers;
    let requested = request.lists.clone().unwrap_or_default();
    let mut coverage = crate::coverage::build(
        &answers.lists,
        &requested,
        DEFAULT_MAX_AGE_DAYS,
        jiff::Timestamp::now(),
    );
    let mut searchable = crate::coverage::searchable(&coverage);
    searchable.sort();
    searchable.dedup();
    let kind = match request.kind {
        None => 0,
        Some(KindFilter::Individual) => 1,
        Some(KindFilter::Entity) => 2,
    };
    let key = (
        searchable,
        request.include_ended,
        kind,
        crate::model::today_utc(),
    );
    let known = lock(&answers.searched).get(&key).copied();
    coverage.entries_searched = match known {
        Some(n) => n,
        None => {
            let n = entries_searched(loaded, request, &key);
            lock(&answers.searched).insert(key, n);
            n
        }
    };
    coverage
}

/// The entries of the index that a screening of `request` searches.
fn entries_searched(loaded: &Loaded, request: &ScreenRequest, key: &SearchedKey) -> u64 {
    let (searchable, include_ended, _, today) = key;
    loaded.index.count_entries(|list, kind, ends| {
        searchable.contains(&list)
            && (*include_ended || !crate::model::listing_ended(ends, today))
            && match request.kind {
                None => true,
                Some(KindFilter::Individual) => kind == EntityKind::Individual,
                Some(KindFilter::Entity) => kind != EntityKind::Individual,
            }
    }) as u64
}
