//! Handlers of screening, review, lists and entries: each one a thin call on the caller's
//! [`crate::service::Service`], with credits taken first where names are screened.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::HeaderMap;
use axum::response::IntoResponse;
use serde::Deserialize;

use super::AppState;
use super::auth::Caller;
use super::body::{Id, JsonBody, Params, content_type, csv_batch, parse_json, read_body};
use super::checks;
use super::export::{self, AuditParams, Format};
use super::limiter::Expensive;
use super::plans::Feature;
use super::reply::{ApiError, Reply, ok, ok_cached};
use crate::api::batch::{BatchRequest, MAX_BATCH};
use crate::api::lists::UpdateInfo;
use crate::api::screening::ScreenRequest;
use crate::api::screenings::{AuditQuery, DecisionRequest, ScreeningQuery, VerdictRequest};
use crate::model::{ListCode, Scope};
#[allow(unused_imports)] // the types and texts of the OpenAPI document (`#[utoipa::path]`)
use {
    super::openapi_texts::*,
    crate::api::batch::{BatchResponse, CsvBatch},
    crate::api::entities::EntityDetail,
    crate::api::envelope::Failure,
    crate::api::lists::ListInfo,
    crate::api::routes::{self, PREFIX},
    crate::api::screenings::{
        AuditExport, DecisionResponse, ScreeningResponse, ScreeningSummaryPage, StoredScreening,
        VerdictResponse,
    },
};

type AppState_ = State<Arc<AppState>>;

/// `POST /screen`: one credit.
#[utoipa::path(
    post,
    path = routes::SCREEN,
    context_path = PREFIX,
    operation_id = "screen",
    tag = INTERFACE,
    summary = "Screen one name against all lists and store the screening.",
    description = NEEDS_SCREEN,
    request_body = ScreenRequest,
    responses(
        (status = 200, description = "Success.", body = ScreeningResponse),
        (status = 403, description = FORBIDDEN_SCREEN, body = Failure),
        (status = 422, description = SCREEN_422, body = Failure)
    )
)]
pub async fn screen(
    State(state): AppState_,
    caller: Caller,
    JsonBody(request): JsonBody<ScreenRequest>,
) -> Reply {
    one_name(&state, &caller, request, false).await
}

/// `POST /screen/preview`: one credit, nothing stored.
#[utoipa::path(
    post,
    path = routes::SCREEN_PREVIEW,
    context_path = PREFIX,
    operation_id = "screenPreview",
    tag = EXTENSIONS,
    summary = "Screen one name without storing it (uses a credit).",
    description = NEEDS_SCREEN,
    request_body = ScreenRequest,
    responses(
        (status = 200, description = "Success.", body = ScreeningResponse),
        (status = 403, description = FORBIDDEN_SCREEN, body = Failure),
        (status = 422, description = SCREEN_422, body = Failure)
    )
)]
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
#[utoipa::path(
    post,
    path = routes::SCREEN_BATCH,
    context_path = PREFIX,
    operation_id = "screenBatch",
    tag = INTERFACE,
    summary = "Screen up to 500 names, JSON or CSV (a `name` column, optional `type`).",
    description = NEEDS_SCREEN,
    request_body(content((BatchRequest = "application/json"), (CsvBatch = "text/csv"))),
    responses(
        (status = 200, description = "Success.", body = BatchResponse),
        (status = 403, description = FORBIDDEN_SCREEN, body = Failure),
        (status = 422, description = "A well-formed value that is not allowed, naming the field: more than 500 names, a blank or over-long name (`names[i]`, or the CSV row), a CSV `type` other than `individual` or `entity`.", body = Failure)
    )
)]
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
    checks::batch_names(&batch.names)?;
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
        .charge(
            &caller,
            n,
            async move { screen_batch(&service, &batch).await },
        )
        .await
        .map(ok)
}

/// A checked batch through the one batch orchestration, as `sanctions batch --store` runs
/// it: every name stored as a screening, answered in the order sent.
async fn screen_batch(
    service: &std::sync::Arc<dyn crate::service::Service>,
    request: &BatchRequest,
) -> Result<crate::api::batch::BatchResponse, crate::service::ServiceError> {
    let items = crate::batch::request_items(request);
    let template = crate::batch::request_template(request);
    let checked = crate::batch::unchecked();
    let plan = crate::batch::Plan {
        template: &template,
        checked: &checked,
        mode: crate::batch::Mode::Store,
    };
    let screened = crate::batch::screen_items(service, &items, &plan, &|_| {}).await?;
    Ok(screened.response())
}

/// `GET /screen/{id}`.
#[utoipa::path(
    get,
    path = routes::SCREEN_ONE,
    context_path = PREFIX,
    operation_id = "getScreening",
    tag = INTERFACE,
    summary = "A stored screening with its decisions.",
    description = NEEDS_SCREEN,
    params(("id" = String, Path, description = "The screening's id (`scr_...`).")),
    responses(
        (status = 200, description = "Success.", body = StoredScreening),
        (status = 403, description = FORBIDDEN_SCREEN, body = Failure)
    )
)]
pub async fn screening(caller: Caller, Id(id): Id) -> Reply {
    caller.scope(Scope::Screen)?;
    Ok(ok(caller.service.screening(&id).await?))
}

/// `GET /screenings/{id}`: [`screening`] beside the list and the decisions.
#[utoipa::path(
    get,
    path = routes::SCREENING,
    context_path = PREFIX,
    operation_id = "getStoredScreening",
    tag = EXTENSIONS,
    summary = "A stored screening with its decisions (the same as `GET /screen/{id}`).",
    description = NEEDS_SCREEN,
    params(("id" = String, Path, description = "The screening's id (`scr_...`).")),
    responses(
        (status = 200, description = "Success.", body = StoredScreening),
        (status = 403, description = FORBIDDEN_SCREEN, body = Failure)
    )
)]
pub async fn stored_screening(caller: Caller, id: Id) -> Reply {
    screening(caller, id).await
}

/// `GET /screenings`.
#[utoipa::path(
    get,
    path = routes::SCREENINGS,
    context_path = PREFIX,
    operation_id = "listScreenings",
    tag = EXTENSIONS,
    summary = "Stored screenings, newest first.",
    description = NEEDS_SCREEN,
    params(ScreeningQuery),
    responses(
        (status = 200, description = "Success.", body = ScreeningSummaryPage),
        (status = 403, description = FORBIDDEN_SCREEN, body = Failure)
    )
)]
pub async fn screenings(caller: Caller, Params(query): Params<ScreeningQuery>) -> Reply {
    caller.scope(Scope::Screen)?;
    Ok(ok(caller.service.screenings(query).await?))
}

/// `POST /screenings/{id}/decisions`.
#[utoipa::path(
    post,
    path = routes::SCREENING_DECISIONS,
    context_path = PREFIX,
    operation_id = "decide",
    tag = EXTENSIONS,
    summary = "Record a review decision on a match.",
    description = NEEDS_REVIEW,
    params(("id" = String, Path, description = "The screening's id (`scr_...`).")),
    request_body = DecisionRequest,
    responses(
        (status = 200, description = "Success.", body = DecisionResponse),
        (status = 403, description = FORBIDDEN_REVIEW, body = Failure),
        (status = 422, description = "A well-formed value that is not allowed, naming the field; or the decision does not apply to the screening as it stands (`decision`): it matched nothing, `entity_id` is not one of its matches, or the match's status cannot become this decision.", body = Failure)
    )
)]
pub async fn decide(
    caller: Caller,
    Id(id): Id,
    JsonBody(request): JsonBody<DecisionRequest>,
) -> Reply {
    caller.scope(Scope::Review)?;
    Ok(ok(caller.service.decide(&id, request).await?))
}

/// `POST /screenings/{id}/verdicts`.
#[utoipa::path(
    post,
    path = routes::SCREENING_VERDICTS,
    context_path = PREFIX,
    operation_id = "verdict",
    tag = EXTENSIONS,
    summary = "Confirm or reject four-eyes proposals (second reviewer).",
    description = "Needs the `review` scope. With `[review] four_eyes = true` on the server, a `true_match` or `false_positive` decision is recorded as a proposal (the match's status becomes `proposed`; list them with `GET /screenings?status=proposed`) until a second reviewer, a key with another label, confirms it (the proposed decision is recorded) or rejects it (the match returns to its status before the proposal). The audit log keeps the proposal and the verdict, each with its reviewer, time and note.",
    params(("id" = String, Path, description = "The screening's id (`scr_...`).")),
    request_body = VerdictRequest,
    responses(
        (status = 200, description = "Success: the entries written, one per match settled.", body = VerdictResponse),
        (status = 403, description = FORBIDDEN_REVIEW, body = Failure),
        (status = 422, description = "A well-formed value that is not allowed, naming the field; or the verdict does not apply (`verdict`): no proposal waits on the screening (or on `entity_id`), or the caller's key label proposed one of them (a second, different reviewer must give the verdict).", body = Failure)
    )
)]
pub async fn verdict(
    caller: Caller,
    Id(id): Id,
    JsonBody(request): JsonBody<VerdictRequest>,
) -> Reply {
    caller.scope(Scope::Review)?;
    Ok(ok(caller.service.verdict(&id, request).await?))
}

/// `GET /audit`: the `audit` scope, and a few exports an hour per account; the JSON
/// document, or NDJSON or CSV streamed a page at a time ([`export`]).
#[utoipa::path(
    get,
    path = routes::AUDIT,
    context_path = PREFIX,
    operation_id = "audit",
    tag = EXTENSIONS,
    summary = "Every screening and decision of a period.",
    description = NEEDS_AUDIT,
    params(AuditParams),
    responses(
        (status = 200, description = "Success: the JSON document, or (`format`, or `Accept`) the screenings streamed oldest first as NDJSON (one `StoredScreening` per line) or CSV (the columns of `sanctions audit export --format csv`).", content((AuditExport = "application/json"), (String = "application/x-ndjson"), (String = "text/csv"))),
        (status = 403, description = FORBIDDEN_AUDIT, body = Failure),
        (status = 429, description = TOO_MANY_EXPENSIVE, body = Failure),
        (status = 422, description = "`until` before `since` (equal bounds are an empty period), a period of more than 1,000,000 screenings for the JSON document (`since`), or a `cursor` without a streamed `format`.", body = Failure)
    )
)]
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
    state.expensive(&caller, Expensive::AuditExport).await?;
    if format == Format::Json {
        return Ok(ok(caller.service.audit(query).await?));
    }
    export::stream(caller.service.clone(), query, params.cursor, format).await
}

/// `GET /lists`: with an `ETag` (revalidated on every use: a list may change at any import).
#[utoipa::path(
    get,
    path = routes::LISTS,
    context_path = PREFIX,
    operation_id = "lists",
    tag = INTERFACE,
    summary = "Metadata of the sanctions lists.",
    responses(
        (status = 200, description = "Success, with an `ETag` (weak) and `Cache-Control: private, no-cache`.", body = Vec<ListInfo>, headers(("ETag" = String, description = "A weak tag of the answer's content: send it back as `If-None-Match`."), ("Cache-Control" = String, description = "`private, no-cache`: revalidate on every use."))),
        (status = 304, description = NOT_MODIFIED)
    )
)]
pub async fn lists(caller: Caller, headers: HeaderMap) -> Reply {
    let lists = caller.service.lists().await?;
    Ok(ok_cached(&headers, lists, "private, no-cache"))
}

/// `limit` of the listings that take only that.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct LimitQuery {
    /// Most items returned (1-1000).
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<usize>,
}

/// `GET /lists/{list}/updates`: an unknown list code is a 404.
#[utoipa::path(
    get,
    path = routes::LIST_UPDATES,
    context_path = PREFIX,
    operation_id = "listUpdates",
    tag = INTERFACE,
    summary = "Recent updates of one list.",
    params(("list" = ListCode, Path, description = "A list code (the same in capitals is taken too)."), LimitQuery),
    responses(
        (status = 200, description = "Success, with an `ETag` (weak) and `Cache-Control: private, no-cache`.", body = Vec<UpdateInfo>, headers(("ETag" = String, description = "A weak tag of the answer's content: send it back as `If-None-Match`."), ("Cache-Control" = String, description = "`private, no-cache`: revalidate on every use."))),
        (status = 304, description = NOT_MODIFIED)
    )
)]
pub async fn list_updates(
    caller: Caller,
    headers: HeaderMap,
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
    let updates = caller.service.list_updates(list, limit).await?;
    let updates: Vec<UpdateInfo> = updates.into_iter().map(public_update).collect();
    Ok(ok_cached(&headers, updates, "private, no-cache"))
}

/// An update record as a client sees it: no path of the server's. `origin` becomes `import`
/// or `download` and the files' names (`import: sdn.csv, add.csv`); the folder is replaced
/// by `<folder>` wherever a note or the failure names it.
pub fn public_update(mut update: UpdateInfo) -> UpdateInfo {
    let (verb, folder) = update
        .origin
        .split_once(' ')
        .map_or((update.origin.as_str(), ""), |(v, f)| (v, f.trim()));
    let verb = match verb {
        "import" => "import",
        _ => "download",
    };
    let names: Vec<&str> = update.files.iter().map(|f| file_name(&f.name)).collect();
    let origin = if names.is_empty() {
        verb.to_owned()
    } else {
        format!("{verb}: {}", names.join(", "))
    };
    if !folder.is_empty() {
        let hide = |text: &str| text.replace(folder, "<folder>");
        update.notes = update.notes.iter().map(|n| hide(n)).collect();
        update.failed = update.failed.as_deref().map(hide);
    }
    update.origin = origin;
    update
}

/// The last component of a file's name (a name recorded with a folder keeps only its own).
fn file_name(name: &str) -> &str {
    name.rsplit(['/', '\\']).next().unwrap_or(name)
}

/// `at` of `GET /entities/{id}`.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct AtQuery {
    /// An update id.
    #[param(minimum = 1)]
    pub at: Option<i64>,
}

/// `GET /entities/{id}`.
#[utoipa::path(
    get,
    path = routes::ENTITY,
    context_path = PREFIX,
    operation_id = "entity",
    tag = EXTENSIONS,
    summary = "One listed entry, now or as it was after an update.",
    params(("id" = String, Path, description = "The entry's id (`ofac_sdn:306`)."), AtQuery),
    responses(
        (status = 200, description = "Success.", body = EntityDetail)
    )
)]
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ListCode, SourceFile};

    fn update(origin: &str, failed: Option<&str>) -> UpdateInfo {
        UpdateInfo {
            update_id: 1,
            list_code: ListCode::Un,
            list_name: "UN".into(),
            at: "2026-01-01T00:00:00Z".into(),
            origin: origin.into(),
            files: vec![SourceFile {
                name: "lists/consolidated.xml".into(),
                sha256: String::new(),
                bytes: 1,
            }],
            published: None,
            added: 0,
            removed: 0,
            changed: 0,
            total: 0,
            notes: vec!["skipped 1 row of /srv/secret/un".into()],
            failed: failed.map(str::to_owned),
        }
    }

    #[test]
    fn update_origins_show_no_server_path() {
        let shown = public_update(update("import /srv/secret/un", None));
        assert_eq!(shown.origin, "import: consolidated.xml");
        assert_eq!(shown.notes, vec!["skipped 1 row of <folder>".to_owned()]);
        let shown = public_update(update(
            "update /srv/secret/un",
            Some("cannot read /srv/secret/un/x.xml"),
        ));
        assert_eq!(shown.origin, "download: consolidated.xml");
        assert_eq!(shown.failed.as_deref(), Some("cannot read <folder>/x.xml"));
        let text = serde_json::to_string(&shown).unwrap();
        assert!(!text.contains("/srv"), "{text}");
    }
}
