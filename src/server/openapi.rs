//! The OpenAPI 3.1 document of `/api/v1`, built with utoipa's builders from one table of
//! operations whose paths are the constants of `api::routes` (the router's own), served at
//! `GET /api/v1/openapi.json` without a key.
//!
//! Every operation lists each status it can answer with the envelope it carries, the bearer
//! scheme, its path and query parameters and the `X-RateLimit-*` headers. Request bodies of the
//! spec's operations have full schemas; the `data` of most answers is an object described in
//! words (not yet derived from the wire types).

use utoipa::openapi::content::ContentBuilder;
use utoipa::openapi::path::{
    HttpMethod, OperationBuilder, ParameterBuilder, ParameterIn, PathItem, PathsBuilder,
};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::schema::Schema;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme};
use utoipa::openapi::{
    ComponentsBuilder, InfoBuilder, OpenApi, OpenApiBuilder, Required, ServerBuilder,
};

use super::openapi_schemas::*;
use crate::api::routes::{self, PREFIX};

/// What an operation takes in its body.
#[derive(Clone, Copy)]
enum Body {
    None,
    /// A JSON object described by the schema named.
    Json(&'static str),
    /// `BatchRequest` JSON or CSV.
    JsonOrCsv,
}

/// One operation of the interface.
struct Op {
    method: HttpMethod,
    path: &'static str,
    id: &'static str,
    summary: &'static str,
    /// Not in the spec's table: an extension of ours.
    extension: bool,
    created: bool,
    body: Body,
    query: &'static [Param],
}

/// A query parameter: name, schema, meaning.
type Param = (&'static str, fn() -> Schema, &'static str);

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
        "Every screening and decision of a period.",
        true,
        false,
        Body::None,
        &[SINCE, ("until", date_time, "RFC 3339 UTC upper bound.")],
    ),
    op(
        HttpMethod::Get,
        routes::LISTS,
        "lists",
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

fn operation(o: &Op) -> utoipa::openapi::path::Operation {
    let mut b = OperationBuilder::new()
        .operation_id(Some(o.id))
        .summary(Some(o.summary))
        .tag(if o.extension {
            "extensions"
        } else {
            "interface"
        })
        .security(SecurityRequirement::new("bearer", Vec::<String>::new()));
    if let Some(open) = o.path.find('{') {
        let name = &o.path[open + 1..o.path[open..].find('}').map_or(o.path.len(), |i| open + i)];
        b = b.parameter(
            ParameterBuilder::new()
                .name(name)
                .parameter_in(ParameterIn::Path)
                .required(Required::True)
                .schema(Some(if name == "list" {
                    list_code()
                } else {
                    string()
                })),
        );
    }
    for (name, schema, meaning) in o.query {
        b = b.parameter(
            ParameterBuilder::new()
                .name(*name)
                .parameter_in(ParameterIn::Query)
                .required(Required::False)
                .description(Some(*meaning))
                .schema(Some(schema())),
        );
    }
    match o.body {
        Body::None => {}
        Body::Json(schema) => {
            b = b.request_body(Some(
                RequestBodyBuilder::new()
                    .required(Some(Required::True))
                    .content(
                        "application/json",
                        ContentBuilder::new()
                            .schema(Some(json_body(schema)))
                            .build(),
                    )
                    .build(),
            ))
        }
        Body::JsonOrCsv => {
            b = b.request_body(Some(
                RequestBodyBuilder::new()
                    .required(Some(Required::True))
                    .content(
                        "application/json",
                        ContentBuilder::new()
                            .schema(Some(reference("BatchRequest")))
                            .build(),
                    )
                    .content(
                        "text/csv",
                        ContentBuilder::new().schema(Some(string())).build(),
                    )
                    .build(),
            ))
        }
    }
    let ok = if o.created { "201" } else { "200" };
    b = b.response(
        ok,
        response(
            if o.created { "Created." } else { "Success." },
            "Success",
            true,
        ),
    );
    let mut errors = vec![
        (
            "401",
            "Missing, malformed, unknown or revoked key (with `WWW-Authenticate: Bearer`).",
        ),
        (
            "403",
            "The plan does not allow the operation, or the month's credits are used up.",
        ),
        ("404", "Unknown id or list code."),
        ("405", "Method not allowed on this path."),
        (
            "429",
            "Over the plan's requests per minute (with `Retry-After`).",
        ),
        (
            "503",
            "The index is not built yet, or the request took too long.",
        ),
    ];
    if !matches!(o.body, Body::None) || !o.query.is_empty() {
        errors.push((
            "400",
            "Malformed body or parameter, missing field or wrong JSON type.",
        ));
        errors.push((
            "422",
            "A well-formed value that is not allowed, naming the field.",
        ));
    }
    if !matches!(o.body, Body::None) {
        errors.push(("413", "Body over the size limit."));
    }
    for (status, meaning) in errors {
        b = b.response(status, response(meaning, "Error", status != "401"));
    }
    b.build()
}

/// The whole document.
pub fn document() -> OpenApi {
    let mut paths = PathsBuilder::new().build();
    for o in OPS {
        let full = format!("{PREFIX}{}", o.path);
        match paths.paths.get_mut(&full) {
            Some(item) => merge(item, o),
            None => {
                paths
                    .paths
                    .insert(full, PathItem::new(o.method.clone(), operation(o)));
            }
        }
    }
    let components = ComponentsBuilder::new()
        .security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("sk_live_...")
                    .description(Some("A key made by `sanctions keys create --plan PLAN`."))
                    .build(),
            ),
        )
        .schema("Success", success())
        .schema("Error", failure())
        .schema("ScreenRequest", screen_request())
        .schema("BatchRequest", batch_request())
        .schema("WebhookCreate", webhook_create())
        .schema("WebhookUpdate", webhook_update())
        .schema("FavoriteRequest", favorite_request())
        .schema("FavoriteImport", favorite_import())
        .schema("DecisionRequest", decision_request())
        .schema("AlertStatusRequest", alert_status_request())
        .build();
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

fn merge(item: &mut PathItem, o: &Op) {
    let op = Some(operation(o));
    match o.method {
        HttpMethod::Get => item.get = op,
        HttpMethod::Post => item.post = op,
        HttpMethod::Put => item.put = op,
        HttpMethod::Delete => item.delete = op,
        HttpMethod::Patch => item.patch = op,
        HttpMethod::Head => item.head = op,
        HttpMethod::Options => item.options = op,
        HttpMethod::Trace => item.trace = op,
    }
}
