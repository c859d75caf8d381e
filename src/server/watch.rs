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
use crate::api::alerts::{AlertBulkRequest, AlertQuery, AlertStatusRequest};
use crate::api::briefs::BriefQuery;
use crate::api::favorites::{FavoriteImport, FavoriteRequest};
use crate::api::webhooks::{WebhookCreate, WebhookUpdate};
use crate::model::Scope;
#[allow(unused_imports)] // the types and texts of the OpenAPI document (`#[utoipa::path]`)
use {
    super::openapi_texts::*,
    crate::api::alerts::Alert,
    crate::api::briefs::{Brief, RefreshReport},
    crate::api::envelope::Failure,
    crate::api::favorites::{Favorite, FavoritePage, ImportSummary, RescreenSummary},
    crate::api::routes::{self, PREFIX},
    crate::api::screenings::{AlertPage, BriefPage},
    crate::api::webhooks::{DeliveryAttempt, Webhook, WebhookTestResult},
};

type AppState_ = State<Arc<AppState>>;

/// `cursor` and `limit` of `GET /favorites`.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct PageQuery {
    /// The `next_cursor` of the previous page.
    #[param(pattern = "^fav_[0-7][0-9A-HJKMNP-TV-Z]{25}$")]
    pub cursor: Option<String>,
    /// Most items returned (1-500).
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<usize>,
}

/// `GET /favorites`.
#[utoipa::path(
    get,
    path = routes::FAVORITES,
    context_path = PREFIX,
    operation_id = "favorites",
    tag = INTERFACE,
    summary = "The favorites watchlist.",
    description = NEEDS_WATCHLIST,
    params(PageQuery),
    responses(
        (status = 200, description = "Success.", body = FavoritePage),
        (status = 403, description = FORBIDDEN_WATCHLIST, body = Failure)
    )
)]
pub async fn favorites(caller: Caller, Params(q): Params<PageQuery>) -> Reply {
    caller.scope(Scope::Watchlist)?;
    Ok(ok(caller.service.favorites(q.cursor, q.limit).await?))
}

/// `POST /favorites`: 201; one credit (the name is screened at once).
#[utoipa::path(
    post,
    path = routes::FAVORITES,
    context_path = PREFIX,
    operation_id = "addFavorite",
    tag = INTERFACE,
    summary = "Add a name to the favorites watchlist.",
    description = NEEDS_WATCHLIST,
    request_body = FavoriteRequest,
    responses(
        (status = 201, description = "Created.", body = Favorite),
        (status = 403, description = FORBIDDEN_WATCHLIST, body = Failure),
        (status = 422, description = "A well-formed value that is not allowed, naming the field; or the name, with its type, is already on the watchlist (`name`, naming the favorite it duplicates).", body = Failure)
    )
)]
pub async fn add_favorite(
    State(state): AppState_,
    caller: Caller,
    JsonBody(request): JsonBody<FavoriteRequest>,
) -> Reply {
    caller.scope(Scope::Watchlist)?;
    super::checks::favorites([&request], false)?;
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

/// `GET /favorites/{id}`.
#[utoipa::path(
    get,
    path = routes::FAVORITE,
    context_path = PREFIX,
    operation_id = "favorite",
    tag = EXTENSIONS,
    summary = "One name of the watchlist.",
    description = NEEDS_WATCHLIST,
    params(("id" = String, Path, description = "The favorite's id (`fav_...`).")),
    responses(
        (status = 200, description = "Success.", body = Favorite),
        (status = 403, description = FORBIDDEN_WATCHLIST, body = Failure)
    )
)]
pub async fn favorite(caller: Caller, Id(id): Id) -> Reply {
    caller.scope(Scope::Watchlist)?;
    Ok(ok(caller.service.favorite(&id).await?))
}

/// `DELETE /favorites/{id}`.
#[utoipa::path(
    delete,
    path = routes::FAVORITE,
    context_path = PREFIX,
    operation_id = "removeFavorite",
    tag = INTERFACE,
    summary = "Remove a favorite.",
    description = NEEDS_WATCHLIST,
    params(("id" = String, Path, description = "The favorite's id (`fav_...`).")),
    responses(
        (status = 200, description = "Success.", body = Favorite),
        (status = 403, description = FORBIDDEN_WATCHLIST, body = Failure)
    )
)]
pub async fn remove_favorite(caller: Caller, Id(id): Id) -> Reply {
    caller.scope(Scope::Watchlist)?;
    Ok(ok(caller.service.remove_favorite(&id).await?))
}

/// `POST /favorites/import`: a bulk screening (the batch feature), one credit per name.
#[utoipa::path(
    post,
    path = routes::FAVORITES_IMPORT,
    context_path = PREFIX,
    operation_id = "importFavorites",
    tag = EXTENSIONS,
    summary = "Add many names at once.",
    description = NEEDS_WATCHLIST,
    request_body = FavoriteImport,
    responses(
        (status = 200, description = "Success.", body = ImportSummary),
        (status = 403, description = FORBIDDEN_WATCHLIST, body = Failure)
    )
)]
pub async fn import_favorites(
    State(state): AppState_,
    caller: Caller,
    JsonBody(import): JsonBody<FavoriteImport>,
) -> Reply {
    caller.require(&state, Feature::Batch)?;
    caller.scope(Scope::Watchlist)?;
    super::checks::favorites(&import.names, true)?;
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
#[utoipa::path(
    post,
    path = routes::FAVORITES_RESCREEN,
    context_path = PREFIX,
    operation_id = "rescreenFavorites",
    tag = EXTENSIONS,
    summary = "Re-screen the whole watchlist now.",
    description = NEEDS_WATCHLIST,
    responses(
        (status = 200, description = "Success.", body = RescreenSummary),
        (status = 403, description = FORBIDDEN_WATCHLIST, body = Failure),
        (status = 429, description = TOO_MANY_EXPENSIVE, body = Failure)
    )
)]
pub async fn rescreen(State(state): AppState_, caller: Caller) -> Reply {
    caller.scope(Scope::Watchlist)?;
    state.expensive(&caller, Expensive::Rescreen).await?;
    Ok(ok(caller.service.rescreen().await?))
}

/// `GET /alerts`.
#[utoipa::path(
    get,
    path = routes::ALERTS,
    context_path = PREFIX,
    operation_id = "alerts",
    tag = INTERFACE,
    summary = "Screening alerts and notifications.",
    description = NEEDS_REVIEW,
    params(AlertQuery),
    responses(
        (status = 200, description = "Success.", body = AlertPage),
        (status = 403, description = FORBIDDEN_REVIEW, body = Failure)
    )
)]
pub async fn alerts(caller: Caller, Params(query): Params<AlertQuery>) -> Reply {
    caller.scope(Scope::Review)?;
    Ok(ok(caller.service.alerts(query).await?))
}

/// `GET /alerts/{id}`.
#[utoipa::path(
    get,
    path = routes::ALERT,
    context_path = PREFIX,
    operation_id = "alert",
    tag = EXTENSIONS,
    summary = "One alert.",
    description = NEEDS_REVIEW,
    params(("id" = String, Path, description = "The alert's id (`alt_...`).")),
    responses(
        (status = 200, description = "Success.", body = Alert),
        (status = 403, description = FORBIDDEN_REVIEW, body = Failure)
    )
)]
pub async fn alert(caller: Caller, Id(id): Id) -> Reply {
    caller.scope(Scope::Review)?;
    Ok(ok(caller.service.alert(&id).await?))
}

/// `POST /alerts/{id}/status`.
#[utoipa::path(
    post,
    path = routes::ALERT_STATUS,
    context_path = PREFIX,
    operation_id = "alertStatus",
    tag = EXTENSIONS,
    summary = "Acknowledge or resolve an alert.",
    description = NEEDS_REVIEW,
    params(("id" = String, Path, description = "The alert's id (`alt_...`).")),
    request_body = AlertStatusRequest,
    responses(
        (status = 200, description = "Success.", body = Alert),
        (status = 403, description = FORBIDDEN_REVIEW, body = Failure),
        (status = 422, description = "A well-formed value that is not allowed, naming the field; or the alert cannot take this status (`status`): `open` again, or a resolved alert.", body = Failure)
    )
)]
pub async fn alert_status(
    caller: Caller,
    Id(id): Id,
    JsonBody(request): JsonBody<AlertStatusRequest>,
) -> Reply {
    caller.scope(Scope::Review)?;
    Ok(ok(caller.service.set_alert_status(&id, request).await?))
}

/// `POST /alerts/bulk`.
#[utoipa::path(
    post,
    path = routes::ALERTS_BULK,
    context_path = PREFIX,
    operation_id = "alertsStatus",
    tag = EXTENSIONS,
    summary = "Acknowledge or resolve several alerts with one note, in one transaction.",
    description = NEEDS_REVIEW,
    request_body = AlertBulkRequest,
    responses(
        (status = 200, description = "Success: the alerts changed, in the order asked.", body = Vec<Alert>),
        (status = 403, description = FORBIDDEN_REVIEW, body = Failure),
        (status = 404, description = "An alert of the list is not the account's: nothing changed.", body = Failure),
        (status = 422, description = "A well-formed value that is not allowed, naming the field (`ids`: none, more than 500, one twice or not an alert id); or an alert cannot take this status (`status`): nothing changed.", body = Failure)
    )
)]
pub async fn alerts_status(caller: Caller, JsonBody(request): JsonBody<AlertBulkRequest>) -> Reply {
    caller.scope(Scope::Review)?;
    Ok(ok(caller.service.set_alerts_status(request).await?))
}

/// `GET /webhooks`.
#[utoipa::path(
    get,
    path = routes::WEBHOOKS,
    context_path = PREFIX,
    operation_id = "webhooks",
    tag = INTERFACE,
    summary = "Configured webhooks.",
    description = NEEDS_WEBHOOKS,
    responses(
        (status = 200, description = "Success.", body = Vec<Webhook>),
        (status = 403, description = FORBIDDEN_WEBHOOKS, body = Failure)
    )
)]
pub async fn webhooks(State(state): AppState_, caller: Caller) -> Reply {
    caller.require(&state, Feature::Webhooks)?;
    caller.scope(Scope::Webhooks)?;
    Ok(ok(caller.service.webhooks().await?))
}

/// `POST /webhooks`: 201.
#[utoipa::path(
    post,
    path = routes::WEBHOOKS,
    context_path = PREFIX,
    operation_id = "createWebhook",
    tag = INTERFACE,
    summary = "Register a webhook.",
    description = NEEDS_WEBHOOKS,
    request_body = WebhookCreate,
    responses(
        (status = 201, description = "Created.", body = Webhook),
        (status = 403, description = FORBIDDEN_WEBHOOKS, body = Failure),
        (status = 422, description = "A well-formed value that is not allowed, naming the field (a target the server refuses, e.g. a private address, is `url`); or 20 webhooks are registered already (`webhooks`).", body = Failure)
    )
)]
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
#[utoipa::path(
    get,
    path = routes::WEBHOOK,
    context_path = PREFIX,
    operation_id = "webhook",
    tag = EXTENSIONS,
    summary = "One webhook.",
    description = NEEDS_WEBHOOKS,
    params(("id" = String, Path, description = "The webhook's id.")),
    responses(
        (status = 200, description = "Success.", body = Webhook),
        (status = 403, description = FORBIDDEN_WEBHOOKS, body = Failure)
    )
)]
pub async fn webhook(State(state): AppState_, caller: Caller, Id(id): Id) -> Reply {
    caller.require(&state, Feature::Webhooks)?;
    caller.scope(Scope::Webhooks)?;
    Ok(ok(caller.service.webhook(&id).await?))
}

/// `PATCH /webhooks/{id}`.
#[utoipa::path(
    patch,
    path = routes::WEBHOOK,
    context_path = PREFIX,
    operation_id = "updateWebhook",
    tag = INTERFACE,
    summary = "Update a webhook.",
    description = NEEDS_WEBHOOKS,
    params(("id" = String, Path, description = "The webhook's id.")),
    request_body = WebhookUpdate,
    responses(
        (status = 200, description = "Success.", body = Webhook),
        (status = 403, description = FORBIDDEN_WEBHOOKS, body = Failure),
        (status = 422, description = "A well-formed value that is not allowed, naming the field (a target the server refuses, e.g. a private address, is `url`).", body = Failure)
    )
)]
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
#[utoipa::path(
    delete,
    path = routes::WEBHOOK,
    context_path = PREFIX,
    operation_id = "deleteWebhook",
    tag = INTERFACE,
    summary = "Delete a webhook.",
    description = NEEDS_WEBHOOKS,
    params(("id" = String, Path, description = "The webhook's id.")),
    responses(
        (status = 200, description = "Success.", body = Webhook),
        (status = 403, description = FORBIDDEN_WEBHOOKS, body = Failure)
    )
)]
pub async fn delete_webhook(State(state): AppState_, caller: Caller, Id(id): Id) -> Reply {
    caller.require(&state, Feature::Webhooks)?;
    caller.scope(Scope::Webhooks)?;
    Ok(ok(caller.service.delete_webhook(&id).await?))
}

/// `POST /webhooks/{id}/test`.
#[utoipa::path(
    post,
    path = routes::WEBHOOK_TEST,
    context_path = PREFIX,
    operation_id = "testWebhook",
    tag = INTERFACE,
    summary = "Send a signed `webhook.test` event now.",
    description = NEEDS_WEBHOOKS,
    params(("id" = String, Path, description = "The webhook's id.")),
    responses(
        (status = 200, description = "Success.", body = WebhookTestResult),
        (status = 403, description = FORBIDDEN_WEBHOOKS, body = Failure)
    )
)]
pub async fn test_webhook(State(state): AppState_, caller: Caller, Id(id): Id) -> Reply {
    caller.require(&state, Feature::Webhooks)?;
    caller.scope(Scope::Webhooks)?;
    Ok(ok(caller.service.test_webhook(&id).await?))
}

/// `GET /webhooks/{id}/deliveries`.
#[utoipa::path(
    get,
    path = routes::WEBHOOK_DELIVERIES,
    context_path = PREFIX,
    operation_id = "webhookDeliveries",
    tag = EXTENSIONS,
    summary = "The delivery log, newest first.",
    description = NEEDS_WEBHOOKS,
    params(("id" = String, Path, description = "The webhook's id."), LimitQuery),
    responses(
        (status = 200, description = "Success.", body = Vec<DeliveryAttempt>),
        (status = 403, description = FORBIDDEN_WEBHOOKS, body = Failure)
    )
)]
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
#[utoipa::path(
    get,
    path = routes::BRIEFS,
    context_path = PREFIX,
    operation_id = "briefs",
    tag = INTERFACE,
    summary = "Latest risk intelligence briefs.",
    params(BriefQuery),
    responses(
        (status = 200, description = "Success.", body = BriefPage)
    )
)]
pub async fn briefs(caller: Caller, Params(query): Params<BriefQuery>) -> Reply {
    checks::brief_since(query.since.as_deref())?;
    Ok(ok(caller.service.briefs(query).await?))
}

/// `GET /briefs/{id}`.
#[utoipa::path(
    get,
    path = routes::BRIEF,
    context_path = PREFIX,
    operation_id = "brief",
    tag = INTERFACE,
    summary = "One risk brief.",
    params(("id" = String, Path, description = "The brief's id.")),
    responses(
        (status = 200, description = "Success.", body = Brief)
    )
)]
pub async fn brief(caller: Caller, Id(id): Id) -> Reply {
    Ok(ok(caller.service.brief(&id).await?))
}

/// `POST /briefs/refresh`: the `watchlist` scope, and a few an hour per account.
#[utoipa::path(
    post,
    path = routes::BRIEFS_REFRESH,
    context_path = PREFIX,
    operation_id = "refreshBriefs",
    tag = EXTENSIONS,
    summary = "Brief new list updates and read the feeds now.",
    description = NEEDS_WATCHLIST,
    responses(
        (status = 200, description = "Success.", body = RefreshReport),
        (status = 403, description = FORBIDDEN_WATCHLIST, body = Failure),
        (status = 429, description = TOO_MANY_EXPENSIVE, body = Failure)
    )
)]
pub async fn refresh_briefs(State(state): AppState_, caller: Caller) -> Reply {
    caller.scope(Scope::Watchlist)?;
    state.expensive(&caller, Expensive::BriefsRefresh).await?;
    Ok(ok(caller.service.refresh_briefs().await?))
}
