//! The OpenAPI 3.1 document of `/api/v1`, served at `GET /api/v1/openapi.json` without a key,
//! derived by utoipa: each handler's `#[utoipa::path]` (in `screen.rs`, `watch.rs`,
//! `admin.rs`) gives its method, path (a constant of `api::routes`, the router's own),
//! parameters, body and the responses particular to it; the wire types of `src/api` and the
//! domain types they carry derive their schemas (`ToSchema`, `IntoParams`). [`Conventions`]
//! adds what every operation shares: the success envelope around what a handler declares,
//! the bearer scheme, the refusals any request may meet and the `X-RateLimit-*` headers.

use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::path::{Operation, ParameterIn};
use utoipa::openapi::response::ResponseBuilder;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme};
use utoipa::openapi::{ContentBuilder, OpenApi as Document, Ref, RefOr, Response};
use utoipa::{Modify, OpenApi};

use super::{admin, screen, watch};
use crate::api::envelope::succeeded;

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

#[derive(OpenApi)]
#[openapi(
    info(
        title = "sanctions",
        description = "Sanctions screening and risk intelligence. Operations tagged \
            `extensions` are ours, beyond the published interface. A browser client on an \
            origin the server's `[server] cors_origins` allows gets CORS headers and its \
            preflight `OPTIONS` answered (204, no key needed); without that setting there is \
            no CORS and `OPTIONS` is a 405."
    ),
    servers((url = "/")),
    paths(
        screen::screen,
        screen::preview,
        screen::batch,
        screen::screening,
        screen::screenings,
        screen::stored_screening,
        screen::decide,
        screen::verdict,
        screen::audit,
        admin::keys,
        screen::lists,
        screen::list_updates,
        screen::entity,
        watch::favorites,
        watch::add_favorite,
        watch::favorite,
        watch::remove_favorite,
        watch::import_favorites,
        watch::rescreen,
        watch::alerts,
        watch::alert,
        watch::alert_status,
        watch::alerts_status,
        watch::webhooks,
        watch::create_webhook,
        watch::webhook,
        watch::update_webhook,
        watch::delete_webhook,
        watch::test_webhook,
        watch::deliveries,
        watch::briefs,
        watch::brief,
        watch::refresh_briefs,
    ),
    components(schemas(crate::api::envelope::Failure)),
    modifiers(&Conventions)
)]
struct Api;

/// The whole document.
pub fn document() -> Document {
    Api::openapi()
}

/// The `(method, path)` of every documented operation, path with the prefix: for tests.
pub fn operations() -> Vec<(String, String)> {
    let document = document();
    let mut all = Vec::new();
    for (path, item) in &document.paths.paths {
        for (method, _) in operations_of(item) {
            all.push((method.to_owned(), path.clone()));
        }
    }
    all
}

/// The operations of a path, with their methods in capitals.
fn operations_of(item: &utoipa::openapi::PathItem) -> Vec<(&'static str, &Operation)> {
    [
        ("GET", &item.get),
        ("POST", &item.post),
        ("PUT", &item.put),
        ("PATCH", &item.patch),
        ("DELETE", &item.delete),
    ]
    .into_iter()
    .filter_map(|(method, op)| op.as_ref().map(|op| (method, op)))
    .collect()
}

/// What every operation shares, added to what its handler declares.
struct Conventions;

impl Modify for Conventions {
    fn modify(&self, document: &mut Document) {
        let components = document.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("sk_live_...")
                    .description(Some(ACCOUNTS_AND_SCOPES))
                    .build(),
            ),
        );
        for item in document.paths.paths.values_mut() {
            for op in [
                &mut item.get,
                &mut item.post,
                &mut item.put,
                &mut item.patch,
                &mut item.delete,
            ]
            .into_iter()
            .flatten()
            {
                shared(op);
            }
        }
    }
}

/// The bearer requirement, the refusals any request may meet, and the rate-limit headers
/// on every answer but the 401 (given before the key is known).
fn shared(op: &mut Operation) {
    op.security = Some(vec![SecurityRequirement::new(
        "bearer",
        Vec::<String>::new(),
    )]);
    let takes_query = op
        .parameters
        .iter()
        .flatten()
        .any(|p| p.parameter_in == ParameterIn::Query);
    let takes_body = op.request_body.is_some();
    let mut refusals = vec![
        (
            "401",
            "Missing, malformed, unknown or revoked key (with `WWW-Authenticate: Bearer`).",
        ),
        (
            "403",
            "The account's plan does not allow the operation, or its month's credits are used \
             up.",
        ),
        (
            "404",
            "Unknown id or list code; an id of another account's object is answered exactly \
             as an unknown one.",
        ),
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
    if takes_body || takes_query {
        refusals.push((
            "400",
            "Malformed body or parameter, missing field or wrong JSON type.",
        ));
        refusals.push((
            "422",
            "A well-formed value that is not allowed, naming the field.",
        ));
    }
    if takes_body {
        refusals.push(("413", "Body over the size limit."));
    }
    let responses = &mut op.responses.responses;
    for (status, meaning) in refusals {
        responses
            .entry(status.to_owned())
            .or_insert_with(|| RefOr::T(refusal(meaning)));
    }
    for (status, response) in responses.iter_mut() {
        let RefOr::T(response) = response else {
            continue;
        };
        if status.starts_with('2') {
            in_envelope(response);
        }
        if status != "401" {
            add_rate_headers(response);
        }
    }
}

/// A success's JSON in the envelope: `{"success": true, "data": ...}`, `data` being what the
/// handler declared (the schema of the type it answers with).
fn in_envelope(response: &mut Response) {
    if let Some(json) = response.content.get_mut("application/json")
        && let Some(data) = json.schema.take()
    {
        json.schema = Some(RefOr::T(succeeded(data)));
    }
}

/// A refusal: the failure envelope.
fn refusal(meaning: &str) -> Response {
    ResponseBuilder::new()
        .description(meaning)
        .content(
            "application/json",
            ContentBuilder::new()
                .schema(Some(Ref::from_schema_name("Error")))
                .build(),
        )
        .build()
}

fn add_rate_headers(response: &mut Response) {
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
        response.headers.insert(
            name.to_owned(),
            HeaderBuilder::new()
                .schema(
                    utoipa::openapi::schema::ObjectBuilder::new()
                        .schema_type(utoipa::openapi::schema::Type::Integer),
                )
                .description(Some(meaning))
                .build(),
        );
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_documented_webhook_bounds_are_the_server_s() {
        assert_eq!(
            crate::api::schema::EVENT_KINDS,
            crate::webhooks::EVENT_KINDS
        );
        assert_eq!(
            crate::api::schema::MAX_URL_LEN,
            crate::webhooks::safety::MAX_URL_LEN
        );
    }
}
