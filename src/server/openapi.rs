//! The OpenAPI 3.1 document of `/api/v1`, built with utoipa's builders from one table of
//! operations whose paths are the constants of `api::routes` (the router's own), served at
//! `GET /api/v1/openapi.json` without a key.
//!
//! Every operation lists each status it can answer with the envelope it carries, the bearer
//! scheme, its path and query parameters and the `X-RateLimit-*` headers. Request bodies of the
//! spec's operations have full schemas; the `data` of most answers is an object described in
//! words (not yet derived from the wire types).

use utoipa::openapi::content::ContentBuilder;
use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::path::{
    HttpMethod, OperationBuilder, ParameterBuilder, ParameterIn, PathItem, PathsBuilder,
};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::response::ResponseBuilder;
use utoipa::openapi::schema::{
    AdditionalProperties, ArrayBuilder, ArrayItems, ObjectBuilder, Schema, SchemaType, Type,
};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme};
use utoipa::openapi::{
    ComponentsBuilder, InfoBuilder, OpenApi, OpenApiBuilder, RefOr, Required, ServerBuilder,
};

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

fn method_name(method: &HttpMethod) -> &'static str {
    match method {
        HttpMethod::Get => "GET",
        HttpMethod::Post => "POST",
        HttpMethod::Put => "PUT",
        HttpMethod::Delete => "DELETE",
        HttpMethod::Patch => "PATCH",
        HttpMethod::Head => "HEAD",
        HttpMethod::Options => "OPTIONS",
        HttpMethod::Trace => "TRACE",
    }
}

fn items(schema: Schema) -> ArrayItems {
    ArrayItems::RefOrSchema(Box::new(RefOr::T(schema)))
}

/// An id handed out by the server: its prefix, `_`, a ULID.
fn cursor(prefix: &str) -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some(format!("^{prefix}_[0-7][0-9A-HJKMNP-TV-Z]{{25}}$")))
        .into()
}

fn updates_limit() -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::Integer)
        .minimum(Some(1))
        .maximum(Some(1000))
        .into()
}

fn string() -> Schema {
    ObjectBuilder::new().schema_type(Type::String).into()
}

fn integer() -> Schema {
    ObjectBuilder::new().schema_type(Type::Integer).into()
}

fn reference(name: &str) -> RefOr<Schema> {
    RefOr::Ref(utoipa::openapi::Ref::from_schema_name(name))
}

/// `{"success": true, "data": ...}`.
fn success() -> Schema {
    ObjectBuilder::new()
        .property("success", ObjectBuilder::new().schema_type(Type::Boolean))
        .required("success")
        .property(
            "data",
            ObjectBuilder::new()
                .schema_type(SchemaType::AnyValue)
                .description(Some("The payload.")),
        )
        .required("data")
        .into()
}

/// `{"success": false, "message": "..."}`.
fn failure() -> Schema {
    ObjectBuilder::new()
        .property("success", ObjectBuilder::new().schema_type(Type::Boolean))
        .required("success")
        .property("message", string())
        .required("message")
        .into()
}

/// A name to screen: 1 to 500 characters, not only blanks.
fn name() -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .min_length(Some(1))
        .max_length(Some(500))
        .pattern(Some(r"[^\s]"))
        .into()
}

fn one_of(values: &[&str]) -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(values.iter().copied()))
        .into()
}

fn list_code() -> Schema {
    one_of(&[
        "ofac_sdn",
        "ofac_cons",
        "eu",
        "un",
        "uk_hmt",
        "ca_sema",
        "au_dfat",
        "world_bank",
    ])
}

fn review_status() -> Schema {
    one_of(&[
        "no_match",
        "pending_review",
        "false_positive",
        "true_match",
        "escalated",
    ])
}

fn alert_kind() -> Schema {
    one_of(&[
        "screening.match",
        "favorite.match",
        "list.updated",
        "webhook.disabled",
    ])
}

fn alert_status() -> Schema {
    one_of(&["open", "acknowledged", "resolved"])
}

fn events() -> Schema {
    ArrayBuilder::new()
        .items(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .enum_values(Some(["screening.match", "list.updated"])),
        )
        .min_items(Some(1))
        .into()
}

fn page_limit() -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::Integer)
        .minimum(Some(1))
        .maximum(Some(500))
        .into()
}

fn brief_limit() -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::Integer)
        .minimum(Some(1))
        .maximum(Some(100))
        .into()
}

fn update_id() -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::Integer)
        .minimum(Some(1))
        .maximum(Some(i64::MAX))
        .into()
}

fn brief_since() -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some(r"^\d{4}-\d{2}-\d{2}"))
        .into()
}

fn nullable_string() -> Schema {
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .into()
}

/// `individual`, `entity`, or null (absent).
fn optional_kind() -> Schema {
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .enum_values(Some([
            serde_json::json!("individual"),
            serde_json::json!("entity"),
            serde_json::Value::Null,
        ]))
        .into()
}

fn date_time() -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .format(Some(utoipa::openapi::schema::SchemaFormat::KnownFormat(
            utoipa::openapi::schema::KnownFormat::DateTime,
        )))
        .into()
}

fn absolute_url() -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some("^https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?(/[!-~]*)?$"))
        .into()
}

fn favorite_request() -> Schema {
    ObjectBuilder::new()
        .property("name", name())
        .required("name")
        .property("type", optional_kind())
        .property("note", nullable_string())
        .into()
}

fn favorite_import() -> Schema {
    ObjectBuilder::new()
        .property(
            "names",
            ArrayBuilder::new()
                .items(items(favorite_request()))
                .min_items(Some(1)),
        )
        .required("names")
        .into()
}

fn decision_request() -> Schema {
    ObjectBuilder::new()
        .property("entity_id", nullable_string())
        .property(
            "decision",
            one_of(&["false_positive", "true_match", "escalated"]),
        )
        .required("decision")
        .property(
            "note",
            ObjectBuilder::new()
                .schema_type(Type::String)
                .min_length(Some(1))
                .max_length(Some(2000))
                .pattern(Some(r"[^\s]")),
        )
        .required("note")
        .into()
}

fn alert_status_request() -> Schema {
    ObjectBuilder::new()
        .property("status", alert_status())
        .required("status")
        .property("note", string())
        .required("note")
        .into()
}

fn webhook_update() -> Schema {
    ObjectBuilder::new()
        .property("url", absolute_url())
        .property("events", events())
        .property(
            "description",
            ObjectBuilder::new()
                .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
                .max_length(Some(500)),
        )
        .property("active", ObjectBuilder::new().schema_type(Type::Boolean))
        .additional_properties(Some(AdditionalProperties::FreeForm(false)))
        .into()
}

fn screen_request() -> Schema {
    ObjectBuilder::new()
        .property("name", name())
        .required("name")
        .property("type", optional_kind())
        .property(
            "threshold",
            ObjectBuilder::new()
                .schema_type(Type::Integer)
                .minimum(Some(0))
                .maximum(Some(100)),
        )
        .property(
            "limit",
            ObjectBuilder::new()
                .schema_type(Type::Integer)
                .minimum(Some(1))
                .maximum(Some(500)),
        )
        .property(
            "lists",
            ArrayBuilder::new()
                .items(items(list_code()))
                .min_items(Some(1)),
        )
        .property(
            "include_ended",
            ObjectBuilder::new().schema_type(Type::Boolean),
        )
        .property(
            "date_of_birth",
            ObjectBuilder::new()
                .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
                .pattern(Some(r"^\d{4}(-\d{2}(-\d{2})?)?$")),
        )
        .property("country", nullable_string())
        .into()
}

fn batch_request() -> Schema {
    ObjectBuilder::new()
        .property(
            "names",
            ArrayBuilder::new()
                .items(items(name()))
                .min_items(Some(1))
                .max_items(Some(500)),
        )
        .required("names")
        .into()
}

fn webhook_create() -> Schema {
    ObjectBuilder::new()
        .property("url", absolute_url())
        .required("url")
        .property("events", events())
        .required("events")
        .property(
            "description",
            ObjectBuilder::new()
                .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
                .max_length(Some(500)),
        )
        .additional_properties(Some(AdditionalProperties::FreeForm(false)))
        .into()
}

fn json_body(schema: &str) -> RefOr<Schema> {
    if schema == "Object" {
        ObjectBuilder::new().schema_type(Type::Object).into()
    } else {
        reference(schema)
    }
}

fn response(description: &str, schema: &str, rate_headers: bool) -> utoipa::openapi::Response {
    let mut r = ResponseBuilder::new().description(description).content(
        "application/json",
        ContentBuilder::new()
            .schema(Some(reference(schema)))
            .build(),
    );
    if rate_headers {
        for (name, meaning) in [
            (
                "X-RateLimit-Limit",
                "Requests allowed per minute on the key's plan.",
            ),
            (
                "X-RateLimit-Remaining",
                "Requests left in the current minute.",
            ),
            (
                "X-RateLimit-Reset",
                "Unix epoch seconds at which the window resets.",
            ),
        ] {
            r = r.header(
                name,
                HeaderBuilder::new()
                    .schema(integer())
                    .description(Some(meaning))
                    .build(),
            );
        }
    }
    r.build()
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
