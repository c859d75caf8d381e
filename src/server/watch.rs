//! Handlers of the watchlist, alerts, webhooks and briefs: thin calls on the caller's
//! [`crate::service::Service`]. Creations answer 201.

use std::sync::Arc;

use axum::extract::State;
use serde::Deserialize;

use super::AppState;
use super::auth::Caller;
use super::body::{Id, JsonBody, Params};
use super::checks;
use super::limiter::Expensive;
use super::plans::Feature;
use super::reply::{Reply, created, ok};
use super::screen::LimitQuery;
use crate::api::alerts::{AlertQuery, AlertStatusRequest};
use crate::api::briefs::BriefQuery;
use crate::api::favorites::{FavoriteImport, FavoriteRequest};
use crate::api::webhooks::{WebhookCreate, WebhookUpdate};
use crate::model::Scope;

type AppState_ = State<Arc<AppState>>;

/// `cursor` and `limit` of `GET /favorites`.
#[derive(Debug, Deserialize)]
pub struct PageQuery {
    pub cursor: Option<String>,
    pub limit: Option<usize>,
}

/// `GET /favorites`.
pub async fn favorites(caller: Caller, Params(q): Params<PageQuery>) -> Reply {
    caller.scope(Scope::Watchlist)?;
    Ok(ok(caller.service.favorites(q.cursor, q.limit).await?))
}

/// `POST /favorites`: 201; one credit (the name is screened at once).
pub async fn add_favorite(
    State(state): AppState_,
    caller: Caller,
    JsonBody(request): JsonBody<FavoriteRequest>,
) -> Reply {
    caller.scope(Scope::Watchlist)?;
    let service = caller.service.clone();
    state
        .charge(
            &caller,
            1,
            async move { service.add_favorite(request).await },
        )
        .await
        .map(created)
}

/// `DELETE /favorites/{id}`.
pub async fn remove_favorite(caller: Caller, Id(id): Id) -> Reply {
    caller.scope(Scope::Watchlist)?;
    Ok(ok(caller.service.remove_favorite(&id).await?))
}

/// `POST /favorites/import`: a bulk screening (the batch feature), one credit per name.
pub async fn import_favorites(
    State(state): AppState_,
    caller: Caller,
    JsonBody(import): JsonBody<FavoriteImport>,
) -> Reply {
    caller.require(&state, Feature::Batch)?;
    caller.scope(Scope::Watchlist)?;
    let n = import.names.len() as u64;
    let service = caller.service.clone();
    state
        .charge(
            &caller,
            n,
            async move { service.import_favorites(import).await },
        )
        .await
        .map(ok)
}

/// `POST /favorites/rescreen`: the `watchlist` scope, and a few an hour per account.
pub async fn rescreen(State(state): AppState_, caller: Caller) -> Reply {
    caller.scope(Scope::Watchlist)?;
    state.expensive(&caller, Expensive::Rescreen)?;
    Ok(ok(caller.service.rescreen().await?))
}

/// `GET /alerts`.
pub async fn alerts(caller: Caller, Params(query): Params<AlertQuery>) -> Reply {
    caller.scope(Scope::Review)?;
    Ok(ok(caller.service.alerts(query).await?))
}

/// `POST /alerts/{id}/status`.
pub async fn alert_status(
    caller: Caller,
    Id(id): Id,
    JsonBody(request): JsonBody<AlertStatusRequest>,
) -> Reply {
    caller.scope(Scope::Review)?;
    Ok(ok(caller.service.set_alert_status(&id, request).await?))
}

/// `GET /webhooks`.
pub async fn webhooks(State(state): AppState_, caller: Caller) -> Reply {
    caller.require(&state, Feature::Webhooks)?;
    caller.scope(Scope::Webhooks)?;
    Ok(ok(caller.service.webhooks().await?))
}

/// `POST /webhooks`: 201.
pub async fn create_webhook(
    State(state): AppState_,
    caller: Caller,
    JsonBody(request): JsonBody<WebhookCreate>,
) -> Reply {
    caller.require(&state, Feature::Webhooks)?;
    caller.scope(Scope::Webhooks)?;
    Ok(created(caller.service.create_webhook(request).await?))
}

/// `GET /webhooks/{id}`.
pub async fn webhook(State(state): AppState_, caller: Caller, Id(id): Id) -> Reply {
    caller.require(&state, Feature::Webhooks)?;
    caller.scope(Scope::Webhooks)?;
    Ok(ok(caller.service.webhook(&id).await?))
}

/// `PATCH /webhooks/{id}`.
pub async fn update_webhook(
    State(state): AppState_,
    caller: Caller,
    Id(id): Id,
    JsonBody(request): JsonBody<WebhookUpdate>,
) -> Reply {
    caller.require(&state, Feature::Webhooks)?;
    caller.scope(Scope::Webhooks)?;
    Ok(ok(caller.service.update_webhook(&id, request).await?))
}

/// `DELETE /webhooks/{id}`.
pub async fn delete_webhook(State(state): AppState_, caller: Caller, Id(id): Id) -> Reply {
    caller.require(&state, Feature::Webhooks)?;
    caller.scope(Scope::Webhooks)?;
    Ok(ok(caller.service.delete_webhook(&id).await?))
}

/// `POST /webhooks/{id}/test`.
pub async fn test_webhook(State(state): AppState_, caller: Caller, Id(id): Id) -> Reply {
    caller.require(&state, Feature::Webhooks)?;
    caller.scope(Scope::Webhooks)?;
    Ok(ok(caller.service.test_webhook(&id).await?))
}

/// `GET /webhooks/{id}/deliveries`.
pub async fn deliveries(
    State(state): AppState_,
    caller: Caller,
    Id(id): Id,
    Params(q): Params<LimitQuery>,
) -> Reply {
    caller.require(&state, Feature::Webhooks)?;
    caller.scope(Scope::Webhooks)?;
    let limit = q.limit.unwrap_or(50);
    Ok(ok(caller.service.webhook_deliveries(&id, limit).await?))
}

/// `GET /briefs`.
pub async fn briefs(caller: Caller, Params(query): Params<BriefQuery>) -> Reply {
    checks::brief_since(query.since.as_deref())?;
    Ok(ok(caller.service.briefs(query).await?))
}

/// `GET /briefs/{id}`.
pub async fn brief(caller: Caller, Id(id): Id) -> Reply {
    Ok(ok(caller.service.brief(&id).await?))
}

/// `POST /briefs/refresh`: the `watchlist` scope, and a few an hour per account.
pub async fn refresh_briefs(State(state): AppState_, caller: Caller) -> Reply {
    caller.scope(Scope::Watchlist)?;
    state.expensive(&caller, Expensive::BriefsRefresh)?;
    Ok(ok(caller.service.refresh_briefs().await?))
}
