//! Handlers of screening, review, lists and entries: each one a thin call on the caller's
//! [`crate::service::Service`], with credits taken first where names are screened.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::response::IntoResponse;
use serde::Deserialize;

use super::AppState;
use super::auth::Caller;
use super::body::{Id, JsonBody, Params, content_type, csv_batch, parse_json, read_body};
use super::checks;
use super::export::{self, AuditParams, Format};
use super::limiter::Expensive;
use super::plans::Feature;
use super::reply::{ApiError, Reply, ok};
use crate::api::batch::{BatchRequest, MAX_BATCH};
use crate::api::screening::ScreenRequest;
use crate::api::screenings::{AuditQuery, DecisionRequest, ScreeningQuery};
use crate::model::{ListCode, Scope};

type AppState_ = State<Arc<AppState>>;

/// `POST /screen`: one credit.
pub async fn screen(
    State(state): AppState_,
    caller: Caller,
    JsonBody(request): JsonBody<ScreenRequest>,
) -> Reply {
    one_name(&state, &caller, request, false).await
}

/// `POST /screen/preview`: one credit, nothing stored.
pub async fn preview(
    State(state): AppState_,
    caller: Caller,
    JsonBody(request): JsonBody<ScreenRequest>,
) -> Reply {
    one_name(&state, &caller, request, true).await
}

/// One name screened for one credit: stored, or only previewed.
async fn one_name(
    state: &AppState,
    caller: &Caller,
    request: ScreenRequest,
    preview: bool,
) -> Reply {
    caller.scope(Scope::Screen)?;
    checks::screen_request(&request)?;
    let service = caller.service.clone();
    state
        .charge(caller, 1, async move {
            if preview {
                service.preview(request).await
            } else {
                service.screen(request).await
            }
        })
        .await
        .map(ok)
}

/// `POST /screen/batch`, JSON or CSV: one credit per name, all taken before any screening.
pub async fn batch(State(state): AppState_, caller: Caller, request: Request) -> Reply {
    caller.require(&state, Feature::Batch)?;
    caller.scope(Scope::Screen)?;
    let kind = content_type(request.headers()).unwrap_or_else(|| "application/json".into());
    let bytes = read_body(request, &()).await?;
    let batch: BatchRequest = match kind.to_ascii_lowercase().as_str() {
        "text/csv" => csv_batch(&bytes)?,
        "application/json" => parse_json(&bytes)?,
        other => {
            return Err(ApiError::bad_request(format!(
                "unsupported Content-Type {other:?}: send application/json ({{\"names\": [...]}}) or text/csv (a name column)"
            )));
        }
    };
    if let Some(options) = &batch.options {
        checks::screen_request(options)?;
    }
    if batch.names.len() > MAX_BATCH {
        return Err(ApiError::invalid(
            "names",
            format!(
                "{} names sent; a batch holds at most {MAX_BATCH}",
                batch.names.len()
            ),
        ));
    }
    if batch.names.is_empty() {
        return Err(ApiError::invalid("names", "at least one name is required"));
    }
    let n = batch.names.len() as u64;
    let service = caller.service.clone();
    state
        .charge(&caller, n, async move { service.screen_batch(batch).await })
        .await
        .map(ok)
}

/// `GET /screen/{id}`.
pub async fn screening(caller: Caller, Id(id): Id) -> Reply {
    caller.scope(Scope::Screen)?;
    Ok(ok(caller.service.screening(&id).await?))
}

/// `GET /screenings`.
pub async fn screenings(caller: Caller, Params(query): Params<ScreeningQuery>) -> Reply {
    caller.scope(Scope::Screen)?;
    Ok(ok(caller.service.screenings(query).await?))
}

/// `POST /screenings/{id}/decisions`.
pub async fn decide(
    caller: Caller,
    Id(id): Id,
    JsonBody(request): JsonBody<DecisionRequest>,
) -> Reply {
    caller.scope(Scope::Review)?;
    Ok(ok(caller.service.decide(&id, request).await?))
}

/// `GET /audit`: the `audit` scope, and a few exports an hour per account; the JSON
/// document, or NDJSON or CSV streamed a page at a time ([`export`]).
pub async fn audit(
    State(state): AppState_,
    caller: Caller,
    headers: axum::http::HeaderMap,
    Params(params): Params<AuditParams>,
) -> Reply {
    caller.scope(Scope::Audit)?;
    let format = Format::negotiate(params.format, &headers);
    let query = AuditQuery {
        since: params.since,
        until: params.until,
    };
    if format == Format::Json && params.cursor.is_some() {
        return Err(ApiError::new(
            axum::http::StatusCode::UNPROCESSABLE_ENTITY,
            "cursor: only the streamed forms (format=ndjson or csv) are paged",
        ));
    }
    state.expensive(&caller, Expensive::AuditExport)?;
    if format == Format::Json {
        return Ok(ok(caller.service.audit(query).await?));
    }
    export::stream(caller.service.clone(), query, params.cursor, format).await
}

/// `GET /lists`.
pub async fn lists(caller: Caller) -> Reply {
    Ok(ok(caller.service.lists().await?))
}

/// `limit` of the listings that take only that.
#[derive(Debug, Deserialize)]
pub struct LimitQuery {
    pub limit: Option<usize>,
}

/// `GET /lists/{list}/updates`: an unknown list code is a 404.
pub async fn list_updates(
    caller: Caller,
    Id(code): Id,
    Params(query): Params<LimitQuery>,
) -> Reply {
    let list: ListCode = code.parse().map_err(|_| {
        ApiError::new(
            axum::http::StatusCode::NOT_FOUND,
            format!(
                "list {code:?} not found: the list codes are ofac_sdn, ofac_cons, eu, un, uk_hmt, ca_sema, au_dfat, world_bank"
            ),
        )
    })?;
    let limit = query.limit.unwrap_or(100);
    Ok(ok(caller.service.list_updates(list, limit).await?))
}

/// `at` of `GET /entities/{id}`.
#[derive(Debug, Deserialize)]
pub struct AtQuery {
    pub at: Option<i64>,
}

/// `GET /entities/{id}`.
pub async fn entity(caller: Caller, Id(id): Id, Params(query): Params<AtQuery>) -> Reply {
    Ok(ok(caller.service.entity(&id, query.at).await?))
}

/// JSON 404 for an unknown path.
pub async fn not_found(uri: axum::http::Uri) -> axum::response::Response {
    ApiError::new(
        axum::http::StatusCode::NOT_FOUND,
        format!("no such endpoint: {}", uri.path()),
    )
    .into_response()
}

/// JSON 405 for a known path asked with a method it does not take.
pub async fn method_not_allowed(
    method: axum::http::Method,
    uri: axum::http::Uri,
) -> axum::response::Response {
    ApiError::new(
        axum::http::StatusCode::METHOD_NOT_ALLOWED,
        format!("{} does not accept {method}", uri.path()),
    )
    .into_response()
}
