//! The OpenAPI 3.1 document of `/api/v1`, built with utoipa's builders from one table of
//! operations whose paths are the constants of `api::routes` (the router's own), served at
//! `GET /api/v1/openapi.json` without a key.
//!
//! Every operation lists each status it can answer with the envelope it carries, the bearer
//! scheme, its path and query parameters and the `X-RateLimit-*` headers. Request bodies of the
//! spec's operations have full schemas; the `data` of each success is the schema of the wire
//! type its handler answers with (`Data`, see `openapi_operation.rs`).

use utoipa::openapi::path::{HttpMethod, PathItem, PathsBuilder};
use utoipa::openapi::schema::Schema;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{ComponentsBuilder, InfoBuilder, OpenApi, OpenApiBuilder, ServerBuilder};

use super::openapi_operation::{Data, inline, merge, named, operation};
use super::openapi_schemas::*;
use crate::api::alerts::Alert;
use crate::api::batch::BatchResponse;
use crate::api::briefs::{Brief, RefreshReport};
use crate::api::entities::EntityDetail;
use crate::api::favorites::{Favorite, FavoritePage, ImportSummary, RescreenSummary};
use crate::api::lists::{ListInfo, UpdateInfo};
use crate::api::routes::{self, PREFIX};
use crate::api::screenings::{
    AuditExport, DecisionResponse, Page, ScreeningResponse, ScreeningSummary, StoredScreening,
};
use crate::api::webhooks::{DeliveryAttempt, Webhook, WebhookTestResult};
use crate::model::ApiKey;

/// What an operation takes in its body.
#[derive(Clone, Copy)]
pub(super) enum Body {
    None,
    /// A JSON object described by the schema named.
    Json(&'static str),
    /// `BatchRequest` JSON or CSV.
    JsonOrCsv,
}

/// One operation of the interface.
pub(super) struct Op {
    pub(super) method: HttpMethod,
    pub(super) path: &'static str,
    pub(super) id: &'static str,
    /// The schema of `data` in the success envelope.
    pub(super) data: Data,
    pub(super) summary: &'static str,
    /// Not in the spec's table: an extension of ours.
    pub(super) extension: bool,
    pub(super) created: bool,
    pub(super) body: Body,
    pub(super) query: &'static [Param],
}

/// A query parameter: name, schema, meaning.
pub(super) type Param = (&'static str, fn() -> Schema, &'static str);

const LIMIT: Param = ("limit", page_limit, "Most items returned (1-500).");
const LIMIT_100: Param = ("limit", brief_limit, "Most items returned (1-100).");
const UPDATES_LIMIT: Param = ("limit", updates_limit, "Most items returned (1-1000).");
const CURSOR: Param = ("cursor", string, "The `next_cursor` of the previous page.");
const FAV_CURSOR: Param = (
    "cursor",
    || cursor("fav"),
    "The `next_cursor` of the previous page.",
);
const SCR_CURSOR: Param = (
    "cursor",
    || cursor("scr"),
    "The `next_cursor` of the previous page.",
);
const ALT_CURSOR: Param = (
    "cursor",
    || cursor("alt"),
    "The `next_cursor` of the previous page.",
);
const SINCE: Param = ("since", date_time, "RFC 3339 UTC lower bound.");

/// Every operation the router serves under `PREFIX`, in the router's order.
const OPS: &[Op] = &[
    op(
        HttpMethod::Post,
        routes::SCREEN,
        "screen",
        named::<ScreeningResponse>,
        "Screen one name against all lists and store the screening.",
        false,
        false,
        Body::Json("ScreenRequest"),
        &[],
    ),
    op(
        HttpMethod::Post,
        routes::SCREEN_PREVIEW,
        "screenPreview",
        named::<ScreeningResponse>,
        "Screen one name without storing it (uses a credit).",
        true,
        false,
        Body::Json("ScreenRequest"),
        &[],
    ),
    op(
        HttpMethod::Post,
        routes::SCREEN_BATCH,
        "screenBatch",
        named::<BatchResponse>,
        "Screen up to 500 names, JSON or CSV (a `name` column, optional `type`).",
        false,
        false,
        Body::JsonOrCsv,
        &[],
    ),
    op(
        HttpMethod::Get,
        routes::SCREEN_ONE,
        "getScreening",
        named::<StoredScreening>,
        "A stored screening with its decisions.",
        false,
        false,
        Body::None,
        &[],
    ),
    op(
        HttpMethod::Get,
        routes::SCREENINGS,
        "listScreenings",
        inline::<Page<ScreeningSummary>, ScreeningSummary>,
        "Stored screenings, newest first.",
        true,
        false,
        Body::None,
        &[
            SINCE,
            ("status", review_status, "Review status."),
            LIMIT,
            SCR_CURSOR,
        ],
    ),
    op(
        HttpMethod::Post,
        routes::SCREENING_DECISIONS,
        "decide",
        named::<DecisionResponse>,
        "Record a review decision on a match.",
        true,
        false,
        Body::Json("DecisionRequest"),
        &[],
    ),
    op(
        HttpMethod::Get,
        routes::AUDIT,
        "audit",
        named::<AuditExport>,
        "Every screening and decision of a period.",
        true,
        false,
        Body::None,
        &[
            SINCE,
            (
                "until",
                date_time,
                "RFC 3339 UTC upper bound, excluded; not before `since`.",
            ),
            (
                "format",
                export_format,
                "`json` (the default: one document), or streamed a page at a time: \
                 `ndjson` (`application/x-ndjson`, one stored screening with its decisions \
                 per line, oldest first) or `csv` (`text/csv`). `Accept: \
                 application/x-ndjson` or `text/csv` choose the same without `format`.",
            ),
            (
                "cursor",
                || cursor("scr"),
                "Streamed forms only: start after this screening id (the last one received).",
            ),
        ],
    ),
    op(
        HttpMethod::Get,
        routes::KEYS,
        "accountKeys",
        inline::<Vec<ApiKey>, ApiKey>,
        "The keys of the caller's account: ids, prefixes, labels, scopes; never a secret.",
        true,
        false,
        Body::None,
        &[],
    ),
    op(
        HttpMethod::Get,
        routes::LISTS,
        "lists",
        inline::<Vec<ListInfo>, ListInfo>,
        "Metadata of the sanctions lists.",
        false,
        false,
        Body::None,
        &[],
    ),
    op(
        HttpMethod::Get,
        routes::LIST_UPDATES,
        "listUpdates",
        inline::<Vec<UpdateInfo>, UpdateInfo>,
        "Recent updates of one list.",
        false,
        false,
        Body::None,
        &[UPDATES_LIMIT],
    ),
    op(
        HttpMethod::Get,
        routes::ENTITY,
        "entity",
        named::<EntityDetail>,
        "One listed entry, now or as it was after an update.",
        true,
        false,
        Body::None,
        &[("at", update_id, "An update id.")],
    ),
    op(
        HttpMethod::Get,
        routes::FAVORITES,
        "favorites",
        named::<FavoritePage>,
        "The favorites watchlist.",
        false,
        false,
        Body::None,
        &[FAV_CURSOR, LIMIT],
    ),
    op(
        HttpMethod::Post,
        routes::FAVORITES,
        "addFavorite",
        named::<Favorite>,
        "Add a name to the favorites watchlist.",
        false,
        true,
        Body::Json("FavoriteRequest"),
        &[],
    ),
    op(
        HttpMethod::Delete,
        routes::FAVORITE,
        "removeFavorite",
        named::<Favorite>,
        "Remove a favorite.",
        false,
        false,
        Body::None,
        &[],
    ),
    op(
        HttpMethod::Post,
        routes::FAVORITES_IMPORT,
        "importFavorites",
        named::<ImportSummary>,
        "Add many names at once.",
        true,
        false,
        Body::Json("FavoriteImport"),
        &[],
    ),
    op(
        HttpMethod::Post,
        routes::FAVORITES_RESCREEN,
        "rescreenFavorites",
        named::<RescreenSummary>,
        "Re-screen the whole watchlist now.",
        true,
        false,
        Body::None,
        &[],
    ),
    op(
        HttpMethod::Get,
        routes::ALERTS,
        "alerts",
        inline::<Page<Alert>, Alert>,
        "Screening alerts and notifications.",
        false,
        false,
        Body::None,
        &[
            ("status", alert_status, "Alert status."),
            ("kind", alert_kind, "Alert kind."),
            SINCE,
            LIMIT,
            ALT_CURSOR,
        ],
    ),
    op(
        HttpMethod::Post,
        routes::ALERT_STATUS,
        "alertStatus",
        named::<Alert>,
        "Acknowledge or resolve an alert.",
        true,
        false,
        Body::Json("AlertStatusRequest"),
        &[],
    ),
    op(
        HttpMethod::Get,
        routes::WEBHOOKS,
        "webhooks",
        inline::<Vec<Webhook>, Webhook>,
        "Configured webhooks.",
        false,
        false,
        Body::None,
        &[],
    ),
    op(
        HttpMethod::Post,
        routes::WEBHOOKS,
        "createWebhook",
        named::<Webhook>,
        "Register a webhook.",
        false,
        true,
        Body::Json("WebhookCreate"),
        &[],
    ),
    op(
        HttpMethod::Get,
        routes::WEBHOOK,
        "webhook",
        named::<Webhook>,
        "One webhook.",
        true,
        false,
        Body::None,
        &[],
    ),
    op(
        HttpMethod::Patch,
        routes::WEBHOOK,
        "updateWebhook",
        named::<Webhook>,
        "Update a webhook.",
        false,
        false,
        Body::Json("WebhookUpdate"),
        &[],
    ),
    op(
        HttpMethod::Delete,
        routes::WEBHOOK,
        "deleteWebhook",
        named::<Webhook>,
        "Delete a webhook.",
        false,
        false,
        Body::None,
        &[],
    ),
    op(
        HttpMethod::Post,
        routes::WEBHOOK_TEST,
        "testWebhook",
        named::<WebhookTestResult>,
        "Send a signed `webhook.test` event now.",
        false,
        false,
        Body::None,
        &[],
    ),
    op(
        HttpMethod::Get,
        routes::WEBHOOK_DELIVERIES,
        "webhookDeliveries",
        inline::<Vec<DeliveryAttempt>, DeliveryAttempt>,
        "The delivery log, newest first.",
        true,
        false,
        Body::None,
        &[UPDATES_LIMIT],
    ),
    op(
        HttpMethod::Get,
        routes::BRIEFS,
        "briefs",
        inline::<Page<Brief>, Brief>,
        "Latest risk intelligence briefs.",
        false,
        false,
        Body::None,
        &[
            LIMIT_100,
            CURSOR,
            ("list", list_code, "A list code."),
            ("country", string, "ISO 3166-1 alpha-2."),
            (
                "since",
                brief_since,
                "`YYYY-MM-DD` or RFC 3339 lower bound.",
            ),
            ("q", string, "Words to find."),
        ],
    ),
    op(
        HttpMethod::Get,
        routes::BRIEF,
        "brief",
        named::<Brief>,
        "One risk brief.",
        false,
        false,
        Body::None,
        &[],
    ),
    op(
        HttpMethod::Post,
        routes::BRIEFS_REFRESH,
        "refreshBriefs",
        named::<RefreshReport>,
        "Brief new list updates and read the feeds now.",
        true,
        false,
        Body::None,
        &[],
    ),
];

#[allow(clippy::too_many_arguments)]
const fn op(
    method: HttpMethod,
    path: &'static str,
    id: &'static str,
    data: Data,
    summary: &'static str,
    extension: bool,
    created: bool,
    body: Body,
    query: &'static [Param],
) -> Op {
    Op {
        method,
        path,
        id,
        data,
        summary,
        extension,
        created,
        body,
        query,
    }
}

/// The `(method, path)` of every documented operation, path with the prefix: for tests.
pub fn operations() -> Vec<(String, String)> {
    OPS.iter()
        .map(|o| {
            (
                method_name(&o.method).to_owned(),
                format!("{PREFIX}{}", o.path),
            )
        })
        .collect()
}

/// The security scheme's description: accounts and scopes.
const ACCOUNTS_AND_SCOPES: &str = "A key made by `sanctions keys create --account NAME \
    [--plan PLAN] [--scopes LIST]`. Every key belongs to an account (a customer or a team, \
    created on first use): the plan, the requests per minute and the monthly credits are the \
    account's, shared by its keys. Stored screenings, decisions, alerts, favorites, webhooks \
    and their deliveries, and audit exports belong to an account and are invisible to every \
    other: another account's id answers 404 exactly as an id that does not exist, and lists \
    show only the caller's account. Lists, their history, entries and briefs are shared \
    reference data. A key carries scopes: `screen` (screen, read stored screenings), \
    `review` (decisions, alerts and their status), `watchlist` (favorites, their import and \
    re-screen, a briefs refresh), `webhooks`, `audit` (the export) and `admin` (the \
    account's keys); a new key gets what its plan allows, `admin` aside. A request outside \
    its key's scopes answers 403 naming the scope. A full re-screen, a briefs refresh and an \
    audit export are also limited to 6 an hour per account (429 with `Retry-After`).";

/// The whole document.
pub fn document() -> OpenApi {
    let mut paths = PathsBuilder::new().build();
    let mut data = Vec::new();
    for o in OPS {
        let full = format!("{PREFIX}{}", o.path);
        match paths.paths.get_mut(&full) {
            Some(item) => merge(item, o, &mut data),
            None => {
                paths.paths.insert(
                    full,
                    PathItem::new(o.method.clone(), operation(o, &mut data)),
                );
            }
        }
    }
    let mut components = ComponentsBuilder::new()
        .security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("sk_live_...")
                    .description(Some(ACCOUNTS_AND_SCOPES))
                    .build(),
            ),
        )
        .schema("Error", failure())
        .schema("ScreenRequest", screen_request())
        .schema("BatchRequest", batch_request())
        .schema("WebhookCreate", webhook_create())
        .schema("WebhookUpdate", webhook_update())
        .schema("FavoriteRequest", favorite_request())
        .schema("FavoriteImport", favorite_import())
        .schema("DecisionRequest", decision_request())
        .schema("AlertStatusRequest", alert_status_request());
    for (name, schema) in data {
        components = components.schema(name, schema);
    }
    let components = components.build();
    OpenApiBuilder::new()
        .info(
            InfoBuilder::new()
                .title("sanctions")
                .version(env!("CARGO_PKG_VERSION"))
                .description(Some(
                    "Sanctions screening and risk intelligence. Operations tagged `extensions` \
                     are ours, beyond the published interface.",
                ))
                .build(),
        )
        .servers(Some([ServerBuilder::new().url("/").build()]))
        .paths(paths)
        .components(Some(components))
        .build()
}
