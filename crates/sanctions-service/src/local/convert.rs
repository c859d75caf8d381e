//! Stored records to wire types, and the checks every request goes through.

use crate::ServiceError;
use crate::api::screening::{KindFilter, Match, ScreenRequest};
use crate::api::screenings::{ScreeningSummary, StoredScreening};
use crate::engine;
use crate::model::{DecisionRecord, EntityKind, ScreeningRecord};

/// The wire type filter of a stored kind.
pub(crate) fn kind_filter(kind: Option<EntityKind>) -> Option<KindFilter> {
    kind.map(KindFilter::of)
}

/// The stored kind of a wire type filter.
pub(crate) fn entity_kind(kind: Option<KindFilter>) -> Option<EntityKind> {
    kind.map(|k| match k {
        KindFilter::Individual => EntityKind::Individual,
        KindFilter::Entity => EntityKind::Entity,
    })
}

/// A stored screening with its decision log, as the wire shows it.
pub(crate) fn stored(
    record: ScreeningRecord,
    decisions: Vec<DecisionRecord>,
) -> Result<StoredScreening, ServiceError> {
    let results: Vec<Match> = serde_json::from_value(record.results).map_err(|e| {
        ServiceError::Internal(format!("stored screening {} is unreadable: {e}", record.id))
    })?;
    Ok(StoredScreening {
        kind: kind_filter(record.kind),
        id: record.id,
        query: record.query,
        threshold: record.threshold,
        created_at: record.created_at,
        total_matches: record.total_matches,
        results,
        list_versions: record.list_versions,
        engine_version: record.engine_version,
        created_by: record.actor,
        origin: record.origin,
        favorite_id: record.favorite_id,
        status: record.status,
        decisions,
    })
}

/// One row of a listing.
pub(crate) fn summary(record: &ScreeningRecord) -> ScreeningSummary {
    ScreeningSummary {
        id: record.id.clone(),
        query: record.query.clone(),
        kind: kind_filter(record.kind),
        created_at: record.created_at,
        total_matches: record.total_matches,
        best_score: record.matched.iter().map(|m| m.score).max(),
        created_by: record.actor.clone(),
        origin: record.origin,
        status: record.status,
    }
}

/// Checks a name (of `kind`, when known) through the one check every face shares
/// ([`crate::query::screenable`]): not blank, not longer than the engine accepts,
/// something to screen once controls, titles, legal forms and particles are set aside.
pub(crate) fn check_name(
    field: &str,
    name: &str,
    kind: Option<KindFilter>,
) -> Result<(), ServiceError> {
    crate::query::screenable(name, kind).map_err(|e| ServiceError::validation(field, e))
}

/// Checks the options of a screening request.
pub(crate) fn check_request(request: &ScreenRequest) -> Result<(), ServiceError> {
    check_name("name", &request.name, request.kind)?;
    check_options(request)
}

/// Checks the options of a screening request, not its name (a batch's template).
pub(crate) fn check_options(request: &ScreenRequest) -> Result<(), ServiceError> {
    if let Some(threshold) = request.threshold
        && threshold > 100
    {
        return Err(ServiceError::validation(
            "threshold",
            format!("must be between 0 and 100, not {threshold}"),
        ));
    }
    if let Some(limit) = request.limit
        && (limit == 0 || limit > engine::MAX_LIMIT)
    {
        return Err(ServiceError::validation(
            "limit",
            format!("must be between 1 and {}, not {limit}", engine::MAX_LIMIT),
        ));
    }
    if request.lists.as_ref().is_some_and(Vec::is_empty) {
        return Err(ServiceError::validation("lists", "name at least one list"));
    }
    Ok(())
}

/// Checks a required note (decisions and alert changes): not blank, at most 2,000 characters.
pub(crate) fn check_note(note: &str) -> Result<String, ServiceError> {
    let note = note.trim();
    if note.is_empty() {
        return Err(ServiceError::validation(
            "note",
            "a note is required: say why (it goes into the audit log)",
        ));
    }
    if note.chars().count() > 2000 {
        return Err(ServiceError::validation(
            "note",
            "the note is longer than 2000 characters",
        ));
    }
    Ok(note.to_owned())
}

/// A page size: default 50, 1 to 500.
/// One page of `items` fetched with one more than `limit` (the extra one only says there is
/// more): the first `limit`, made wire with `wire`, and the next page's cursor, the id of the
/// last one kept, when there was more.
pub(crate) fn paged<T, W>(
    mut items: Vec<T>,
    limit: usize,
    id: impl Fn(&T) -> &str,
    wire: impl FnMut(T) -> W,
) -> (Vec<W>, Option<String>) {
    let more = items.len() > limit;
    items.truncate(limit);
    let next_cursor = if more {
        items.last().map(|item| id(item).to_owned())
    } else {
        None
    };
    (items.into_iter().map(wire).collect(), next_cursor)
}

pub(crate) fn page_limit(limit: Option<usize>) -> Result<usize, ServiceError> {
    match limit {
        None => Ok(50),
        Some(n @ 1..=500) => Ok(n),
        Some(n) => Err(ServiceError::validation(
            "limit",
            format!("must be between 1 and 500, not {n}"),
        )),
    }
}
