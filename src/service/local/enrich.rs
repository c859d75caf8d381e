//! What a screening answer carries besides the engine's matches, filled in by the service so
//! that every face (CLI, UI, server, remote client) shows the same: the `coverage` (every
//! requested list with its version, what was really searched) and the `group` of each match
//! (one person's or organisation's entries on several lists), `limit` counting groups.

use std::collections::HashMap;

use super::Loaded;
use crate::api::screening::{KindFilter, ScreenRequest, ScreenResult};
use crate::coverage::DEFAULT_MAX_AGE_DAYS;
use crate::engine;
use crate::model::{EntityKind, ListCode};
use crate::service::ServiceError;
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

/// Groups the matches of `result` (keeping the best `request.limit` groups) and sets its
/// coverage: the requested lists (all eight when none), each with its version and status.
pub(crate) fn finish(
    repo: &dyn Repository,
    loaded: &Loaded,
    request: &ScreenRequest,
    result: &mut ScreenResult,
) -> Result<(), ServiceError> {
    let mut entities = HashMap::new();
    for m in &result.results {
        if !entities.contains_key(&m.entity_id)
            && let Some(e) = repo.entity(&m.entity_id)?
        {
            entities.insert(m.entity_id.clone(), e);
        }
    }
    crate::grouping::assign(&mut result.results, &entities);
    let limit = u32::try_from(request.limit.unwrap_or(engine::DEFAULT_LIMIT)).unwrap_or(u32::MAX);
    result
        .results
        .retain(|m| m.group.is_some_and(|g| g <= limit));

    let requested = request.lists.clone().unwrap_or_default();
    let mut coverage = crate::coverage::build(
        &repo.lists()?,
        &requested,
        DEFAULT_MAX_AGE_DAYS,
        jiff::Timestamp::now(),
    );
    let searchable = crate::coverage::searchable(&coverage);
    let today = crate::model::today_utc();
    let searched = loaded.index.count_entries(|list, kind, ends| {
        searchable.contains(&list)
            && (request.include_ended || !crate::model::listing_ended(ends, &today))
            && match request.kind {
                None => true,
                Some(KindFilter::Individual) => kind == EntityKind::Individual,
                Some(KindFilter::Entity) => kind != EntityKind::Individual,
            }
    });
    coverage.entries_searched = searched as u64;
    result.coverage = Some(coverage);
    Ok(())
}
