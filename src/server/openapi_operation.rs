//! One operation of the OpenAPI document (`openapi.rs`): its parameters, request body, and
//! every response with its envelope, the success envelope's `data` being the schema derived
//! from the wire type the handler answers with (`utoipa::ToSchema` on `src/api`).

use utoipa::ToSchema;
use utoipa::openapi::content::ContentBuilder;
use utoipa::openapi::path::{
    HttpMethod, OperationBuilder, ParameterBuilder, ParameterIn, PathItem,
};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::schema::Schema;
use utoipa::openapi::security::SecurityRequirement;
use utoipa::openapi::{RefOr, Required};

use super::openapi::{Body, Op};
use super::openapi_schemas::*;

/// Named schemas an operation refers to, collected into `components`.
pub(super) type Schemas = Vec<(String, RefOr<Schema>)>;

/// The schema of an operation's `data`, pushing the named schemas it refers to.
pub(super) type Data = fn(&mut Schemas) -> RefOr<Schema>;

/// `data` is a reference to `T`'s own component.
pub(super) fn named<T: ToSchema>(schemas: &mut Schemas) -> RefOr<Schema> {
    T::schemas(schemas);
    schemas.push((T::name().into_owned(), T::schema()));
    reference(&T::name())
}

/// `data` is `T`'s schema inline (an array or a page of named `Item`s, which utoipa refers to
/// without collecting).
pub(super) fn inline<T: ToSchema, Item: ToSchema>(schemas: &mut Schemas) -> RefOr<Schema> {
    named::<Item>(schemas);
    T::schemas(schemas);
    T::schema()
}

pub(super) fn operation(o: &Op, schemas: &mut Schemas) -> utoipa::openapi::path::Operation {
    let mut b = OperationBuilder::new()
        .operation_id(Some(o.id))
        .summary(Some(o.summary))
        .tag(if o.extension {
            "extensions"
        } else {
            "interface"
        })
        .security(SecurityRequirement::new("bearer", Vec::<String>::new()));
    if let Some(scope) = scope_of(o.id) {
        b = b.description(Some(format!(
            "Needs the `{scope}` scope; reads and changes only the key's account's data."
        )));
    }
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
    // The JSON body's schema, and whether CSV is accepted too (the batch).
    let body = match o.body {
        Body::None => None,
        Body::Json(schema) => Some((json_body(schema), false)),
        Body::JsonOrCsv => Some((reference("BatchRequest"), true)),
    };
    if let Some((schema, csv)) = body {
        let mut body = RequestBodyBuilder::new()
            .required(Some(Required::True))
            .content(
                "application/json",
                ContentBuilder::new().schema(Some(schema)).build(),
            );
        if csv {
            body = body.content(
                "text/csv",
                ContentBuilder::new().schema(Some(csv_body())).build(),
            );
        }
        b = b.request_body(Some(body.build()));
    }
    let ok = if o.created { "201" } else { "200" };
    b = b.response(
        ok,
        response(
            if o.created { "Created." } else { "Success." },
            RefOr::T(success((o.data)(schemas))),
            true,
        ),
    );
    let mut errors: Vec<(&str, String)> = vec![
        (
            "401",
            "Missing, malformed, unknown or revoked key (with `WWW-Authenticate: Bearer`).".into(),
        ),
        ("403", forbidden(o.id)),
        (
            "404",
            "Unknown id or list code; an id of another account's object is answered exactly \
             as an unknown one."
                .into(),
        ),
        ("405", "Method not allowed on this path.".into()),
        ("429", too_many(o.id).into()),
        (
            "503",
            "The index is not built yet, or the request took too long.".into(),
        ),
    ];
    if !matches!(o.body, Body::None) || !o.query.is_empty() {
        errors.push((
            "400",
            "Malformed body or parameter, missing field or wrong JSON type.".into(),
        ));
        errors.push(("422", unprocessable(o.id).into()));
    }
    if !matches!(o.body, Body::None) {
        errors.push(("413", "Body over the size limit.".into()));
    }
    for (status, meaning) in errors {
        b = b.response(
            status,
            response(&meaning, reference("Error"), status != "401"),
        );
    }
    b.build()
}

/// The scope a key needs for an operation (`None`: shared reference data, any key).
pub(super) fn scope_of(id: &str) -> Option<&'static str> {
    Some(match id {
        "screen" | "screenPreview" | "screenBatch" | "getScreening" | "listScreenings" => "screen",
        "decide" | "alerts" | "alertStatus" => "review",
        "favorites" | "addFavorite" | "removeFavorite" | "importFavorites"
        | "rescreenFavorites" | "refreshBriefs" => "watchlist",
        "webhooks" | "createWebhook" | "webhook" | "updateWebhook" | "deleteWebhook"
        | "testWebhook" | "webhookDeliveries" => "webhooks",
        "audit" => "audit",
        "accountKeys" => "admin",
        _ => return None,
    })
}

/// What a 403 of an operation means.
fn forbidden(id: &str) -> String {
    let plan = "the account's plan does not allow the operation, or its month's credits are \
                used up";
    match scope_of(id) {
        Some(scope) => format!(
            "The key lacks the `{scope}` scope (the message names it: `this key lacks the \
             `{scope}` scope`), or {plan}."
        ),
        None => format!("The {plan}."),
    }
}

/// What a 429 of an operation means.
fn too_many(id: &str) -> &'static str {
    match id {
        "rescreenFavorites" | "refreshBriefs" | "audit" => {
            "Over the plan's requests per minute, or over this operation's own limit per \
             account per hour (6); with `Retry-After`."
        }
        _ => "Over the plan's requests per minute (with `Retry-After`).",
    }
}

/// What a 422 of an operation means: a value the document allows but the service refuses
/// beyond what a schema can say (the stored state, two fields together), named here.
fn unprocessable(id: &str) -> &'static str {
    match id {
        "screen" | "screenPreview" => {
            "A well-formed value that is not allowed, naming the field: a blank or over-long \
             `name`, a `threshold` over 100, a `limit` out of 1-500, a `date_of_birth` whose \
             day the month lacks."
        }
        "screenBatch" => {
            "A well-formed value that is not allowed, naming the field: more than 500 names, \
             a blank or over-long name (`names[i]`, or the CSV row), a CSV `type` other than \
             `individual` or `entity`."
        }
        "addFavorite" => {
            "A well-formed value that is not allowed, naming the field; or the name, with its \
             type, is already on the watchlist (`name`, naming the favorite it duplicates)."
        }
        "createWebhook" => {
            "A well-formed value that is not allowed, naming the field (a target the server \
             refuses, e.g. a private address, is `url`); or 20 webhooks are registered \
             already (`webhooks`)."
        }
        "updateWebhook" => {
            "A well-formed value that is not allowed, naming the field (a target the server \
             refuses, e.g. a private address, is `url`)."
        }
        "decide" => {
            "A well-formed value that is not allowed, naming the field; or the decision does \
             not apply to the screening as it stands (`decision`): it matched nothing, \
             `entity_id` is not one of its matches, or the match's status cannot become \
             this decision."
        }
        "alertStatus" => {
            "A well-formed value that is not allowed, naming the field; or the alert cannot \
             take this status (`status`): `open` again, or a resolved alert."
        }
        "audit" => {
            "`until` before `since` (equal bounds are an empty period), or a period of more \
             than 1,000,000 screenings (`since`)."
        }
        _ => "A well-formed value that is not allowed, naming the field.",
    }
}

pub(super) fn merge(item: &mut PathItem, o: &Op, schemas: &mut Schemas) {
    let op = Some(operation(o, schemas));
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
