//! The watchlist: adding (screened at once), listing, removing and importing favorites.
//!
//! Duplicates are refused: a name whose normalised tokens and type equal an existing
//! favorite's is answered 422 naming it; an import skips and counts them.

use rayon::prelude::*;

use super::convert::{check_name, entity_kind, page_limit, paged};
use super::monitor::favorite_evidence_request;
use super::nearness::Near;
use super::review::check_id;
use super::screen::{best_match_message, run_near};
use super::{LocalService, new_id};
use crate::ServiceError;
use crate::api::favorites::{
    Favorite, FavoriteImport, FavoritePage, FavoriteRequest, ImportSummary,
};
use crate::engine::normalize;
use crate::model::{
    Alert, AlertKind, AlertStatus, EntityKind, OutboxEvent, ScreeningOrigin, ScreeningRecord,
    Severity,
};
use crate::store::{FavoriteInsert, StoreError};

/// Names screened and stored per transaction by an import.
const IMPORT_CHUNK: usize = 20_000;

/// The longest note kept on a favorite.
const MAX_NOTE_CHARS: usize = 2000;

/// The duplicate key of a name and type: its normalised tokens, sorted, and the type.
pub(crate) fn norm_key(name: &str, kind: Option<EntityKind>) -> String {
    let organisation = kind != Some(EntityKind::Individual);
    let mut tokens: Vec<String> = normalize::tokens(name, organisation)
        .into_iter()
        .map(|t| t.text)
        .collect();
    tokens.sort_unstable();
    format!(
        "{}|{}",
        tokens.join(" "),
        kind.map(EntityKind::as_str).unwrap_or("any")
    )
}

fn check_favorite(request: &FavoriteRequest) -> Result<(), ServiceError> {
    check_name("name", &request.name, request.kind)?;
    // Kept to weigh in every re-screen: refused here, not when one of them runs.
    crate::engine::check_facts(request.date_of_birth.as_deref(), request.country.as_deref())
        .map_err(super::enrich::engine_error)?;
    if request
        .note
        .as_ref()
        .is_some_and(|n| n.chars().count() > MAX_NOTE_CHARS)
    {
        return Err(ServiceError::validation(
            "note",
            format!("the note is longer than {MAX_NOTE_CHARS} characters"),
        ));
    }
    Ok(())
}

/// A favorite screened at once: the row to insert, its screening (when it matched), its
/// alert, and how near it came to the threshold.
type Prepared = (FavoriteInsert, Option<ScreeningRecord>, Option<Alert>, Near);

/// A favorite screened at once ([`Prepared`]).
fn prepare(
    this: &LocalService,
    loaded: &super::Loaded,
    request: &FavoriteRequest,
) -> Result<Prepared, ServiceError> {
    let kind = entity_kind(request.kind);
    let name = request.name.trim().to_owned();
    let id = new_id("fav_");
    let request_screen = favorite_evidence_request(
        &name,
        kind,
        request.date_of_birth.as_deref(),
        request.country.as_deref(),
    );
    let (record, result, near) = run_near(
        loaded,
        &request_screen,
        ScreeningOrigin::Watchlist,
        this.actor(),
        Some(&id),
    )?;
    let matches: Vec<(String, u8)> = record
        .matched
        .iter()
        .map(|m| (m.entity_id.clone(), m.score))
        .collect();
    let matched = !matches.is_empty();
    let favorite = Favorite {
        id: id.clone(),
        name: name.clone(),
        kind,
        note: request
            .note
            .as_ref()
            .map(|n| n.trim().to_owned())
            .filter(|n| !n.is_empty()),
        dob: request_screen.date_of_birth.clone(),
        country: request_screen.country.clone(),
        created_at: record.created_at,
        last_screened_at: Some(record.created_at),
        last_match_count: matches.len() as u64,
        last_screening_id: matched.then(|| record.id.clone()),
        matched_entity_ids: matches.iter().map(|(e, _)| e.clone()).collect(),
    };
    let alert = result.results.first().map(|best| Alert {
        id: new_id("alt_"),
        kind: AlertKind::FavoriteMatch,
        severity: Severity::of_score(best.score),
        title: format!(
            "watchlist name {name:?} matches {} entr{}",
            matches.len(),
            if matches.len() == 1 { "y" } else { "ies" }
        ),
        message: best_match_message(best),
        created_at: record.created_at,
        status: AlertStatus::Open,
        screening_id: Some(record.id.clone()),
        favorite_id: Some(id.clone()),
        list: None,
        entity_ids: matches.iter().map(|(e, _)| e.clone()).collect(),
    });
    let insert = FavoriteInsert {
        norm: norm_key(&name, kind),
        favorite,
        matches,
    };
    // A no-match screening of a new favorite is recorded on the favorite itself (compact).
    Ok((insert, matched.then_some(record), alert, near))
}

fn alert_event(alert: &Alert) -> OutboxEvent {
    OutboxEvent {
        event_id: new_id("evt_"),
        kind: alert.kind.as_str().to_owned(),
        created_at: alert.created_at,
        payload: serde_json::json!({
            "favorite_id": alert.favorite_id,
            "screening_id": alert.screening_id,
            "gained": alert.entity_ids,
            "lost": [],
            "alert_id": alert.id,
        }),
    }
}

impl LocalService {
    pub(crate) async fn add_favorite_local(
        &self,
        request: FavoriteRequest,
    ) -> Result<Favorite, ServiceError> {
        check_favorite(&request)?;
        self.blocking(move |this| {
            let loaded = this.ready()?;
            let (insert, screening, alert, near) = prepare(&this, &loaded, &request)?;
            let mut changes = this.changes();
            changes.screenings.extend(screening);
            if let Some(alert) = alert {
                changes.events.push(alert_event(&alert));
                changes.alerts.push(alert);
            }
            match this.repo().add_favorite(this.account(), &insert, &changes) {
                Ok(()) => {
                    let id = insert.favorite.id.clone();
                    this.keep_nearness(&loaded, vec![(id, near, None)])?;
                    Ok(insert.favorite)
                }
                Err(e @ StoreError::Duplicate { .. }) => {
                    Err(ServiceError::validation("name", e.to_string()))
                }
                Err(e) => Err(e.into()),
            }
        })
        .await
    }

    pub(crate) async fn favorites_local(
        &self,
        cursor: Option<String>,
        limit: Option<usize>,
    ) -> Result<FavoritePage, ServiceError> {
        let limit = page_limit(limit)?;
        if let Some(cursor) = &cursor {
            check_id("cursor", cursor, "fav_")?;
        }
        self.blocking(move |this| {
            let repo = this.repo();
            let favorites = repo.favorites(this.account(), cursor.as_deref(), limit + 1)?;
            let (items, next_cursor) = paged(favorites, limit, |f| &f.id, |f| f);
            Ok(FavoritePage {
                total: repo.favorite_count(Some(this.account()))?,
                next_cursor,
                items,
            })
        })
        .await
    }

    pub(crate) async fn favorite_local(&self, id: String) -> Result<Favorite, ServiceError> {
        check_id("id", &id, "fav_")?;
        self.blocking(move |this| {
            let found = this.repo().favorite(this.account(), &id)?;
            found.ok_or_else(|| ServiceError::not_found("favorite", &id))
        })
        .await
    }

    pub(crate) async fn remove_favorite_local(&self, id: String) -> Result<Favorite, ServiceError> {
        check_id("id", &id, "fav_")?;
        self.blocking(move |this| Ok(this.repo().remove_favorite(this.account(), &id)?))
            .await
    }

    pub(crate) async fn import_favorites_local(
        &self,
        import: FavoriteImport,
    ) -> Result<ImportSummary, ServiceError> {
        if import.names.is_empty() {
            return Err(ServiceError::validation(
                "names",
                "the import holds no name",
            ));
        }
        // Every row checked before any is imported, on every core; the first ten refused
        // are told why.
        let refused: Vec<usize> = import
            .names
            .par_iter()
            .enumerate()
            .filter(|(_, r)| check_favorite(r).is_err())
            .map(|(i, _)| i)
            .collect();
        let bad: Vec<String> = refused
            .iter()
            .take(10)
            .filter_map(|&i| {
                check_favorite(&import.names[i])
                    .err()
                    .map(|e| format!("row {}: {e}", i + 1))
            })
            .collect();
        if !bad.is_empty() {
            return Err(ServiceError::validation(
                "names",
                format!("bad rows (nothing was imported): {}", bad.join("; ")),
            ));
        }
        self.blocking(move |this| {
            let loaded = this.ready()?;
            let total = import.names.len();
            let (mut added, mut matched, mut alerts) = (0, 0, 0);
            // Chunks bound the memory of a million-name import; each is one transaction.
            for chunk in import.names.chunks(IMPORT_CHUNK) {
                let prepared: Vec<Prepared> = chunk
                    .par_iter()
                    .map(|request| prepare(&this, &loaded, request))
                    .collect::<Result<_, _>>()?;
                let mut items = Vec::with_capacity(prepared.len());
                let mut near = Vec::with_capacity(prepared.len());
                for (insert, screening, alert, n) in prepared {
                    near.push((insert.favorite.id.clone(), n, None));
                    let mut changes = this.changes();
                    changes.screenings.extend(screening);
                    if let Some(alert) = alert {
                        changes.events.push(alert_event(&alert));
                        changes.alerts.push(alert);
                    }
                    items.push((insert, changes));
                }
                let inserted = this.repo().import_favorites(this.account(), &items)?;
                added += inserted.len();
                let inserted: std::collections::HashSet<String> = inserted.into_iter().collect();
                near.retain(|(id, _, _)| inserted.contains(id));
                this.keep_nearness(&loaded, near)?;
                for (insert, changes) in &items {
                    if inserted.contains(&insert.favorite.id) {
                        matched += usize::from(!insert.matches.is_empty());
                        alerts += changes.alerts.len();
                    }
                }
            }
            Ok(ImportSummary {
                total,
                added,
                duplicates: total - added,
                matched,
                alerts,
            })
        })
        .await
    }
}
