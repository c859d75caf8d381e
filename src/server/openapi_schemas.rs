//! The building blocks of the OpenAPI document (`openapi.rs`): JSON schemas of envelopes,
//! request bodies and parameters with the bounds the handlers enforce, and responses.

use utoipa::openapi::RefOr;
use utoipa::openapi::content::ContentBuilder;
use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::path::HttpMethod;
use utoipa::openapi::response::ResponseBuilder;
use utoipa::openapi::schema::{
    AdditionalProperties, ArrayBuilder, ArrayItems, ObjectBuilder, Schema, SchemaType, Type,
};

pub(super) fn items(schema: Schema) -> ArrayItems {
    ArrayItems::RefOrSchema(Box::new(RefOr::T(schema)))
}

/// An id handed out by the server: its prefix, `_`, a ULID.
pub(super) fn cursor(prefix: &str) -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some(format!("^{prefix}_[0-7][0-9A-HJKMNP-TV-Z]{{25}}$")))
        .into()
}

pub(super) fn updates_limit() -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::Integer)
        .minimum(Some(1))
        .maximum(Some(1000))
        .into()
}

pub(super) fn string() -> Schema {
    ObjectBuilder::new().schema_type(Type::String).into()
}

pub(super) fn integer() -> Schema {
    ObjectBuilder::new().schema_type(Type::Integer).into()
}

pub(super) fn reference(name: &str) -> RefOr<Schema> {
    RefOr::Ref(utoipa::openapi::Ref::from_schema_name(name))
}

/// `{"success": true, "data": ...}` with `data` as given.
pub(super) fn success(data: RefOr<Schema>) -> Schema {
    ObjectBuilder::new()
        .property(
            "success",
            ObjectBuilder::new()
                .schema_type(Type::Boolean)
                .enum_values(Some([true])),
        )
        .required("success")
        .property("data", data)
        .required("data")
        .into()
}

/// `{"success": false, "message": "..."}`.
pub(super) fn failure() -> Schema {
    ObjectBuilder::new()
        .property("success", ObjectBuilder::new().schema_type(Type::Boolean))
        .required("success")
        .property("message", string())
        .required("message")
        .into()
}

/// A name to screen: 1 to 500 characters, not only blanks.
pub(super) fn name() -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .min_length(Some(1))
        .max_length(Some(500))
        .pattern(Some(r"[^\s]"))
        .into()
}

pub(super) fn one_of(values: &[&str]) -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(values.iter().copied()))
        .into()
}

pub(super) fn list_code() -> Schema {
    one_of(&crate::model::ListCode::ALL.map(crate::model::ListCode::code))
}

pub(super) fn review_status() -> Schema {
    one_of(&[
        "no_match",
        "pending_review",
        "false_positive",
        "true_match",
        "escalated",
    ])
}

pub(super) fn alert_kind() -> Schema {
    one_of(&[
        "screening.match",
        "favorite.match",
        "list.updated",
        "webhook.disabled",
    ])
}

pub(super) fn alert_status() -> Schema {
    one_of(&["open", "acknowledged", "resolved"])
}

pub(super) fn events() -> Schema {
    ArrayBuilder::new()
        .items(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .enum_values(Some(["screening.match", "list.updated"])),
        )
        .min_items(Some(1))
        .into()
}

pub(super) fn page_limit() -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::Integer)
        .minimum(Some(1))
        .maximum(Some(500))
        .into()
}

pub(super) fn brief_limit() -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::Integer)
        .minimum(Some(1))
        .maximum(Some(100))
        .into()
}

pub(super) fn update_id() -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::Integer)
        .minimum(Some(1))
        .maximum(Some(i64::MAX))
        .into()
}

pub(super) fn brief_since() -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some(r"^\d{4}-\d{2}-\d{2}"))
        .into()
}

pub(super) fn nullable_string() -> Schema {
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .into()
}

/// `individual`, `entity`, or null (absent).
pub(super) fn optional_kind() -> Schema {
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .enum_values(Some([
            serde_json::json!("individual"),
            serde_json::json!("entity"),
            serde_json::Value::Null,
        ]))
        .into()
}

pub(super) fn date_time() -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .format(Some(utoipa::openapi::schema::SchemaFormat::KnownFormat(
            utoipa::openapi::schema::KnownFormat::DateTime,
        )))
        .into()
}

pub(super) fn absolute_url() -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some("^https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?(/[!-~]*)?$"))
        .into()
}

pub(super) fn favorite_request() -> Schema {
    ObjectBuilder::new()
        .property("name", name())
        .required("name")
        .property("type", optional_kind())
        .property("note", nullable_string())
        .into()
}

pub(super) fn favorite_import() -> Schema {
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

pub(super) fn decision_request() -> Schema {
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

pub(super) fn alert_status_request() -> Schema {
    ObjectBuilder::new()
        .property("status", alert_status())
        .required("status")
        .property("note", string())
        .required("note")
        .into()
}

pub(super) fn webhook_update() -> Schema {
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

pub(super) fn screen_request() -> Schema {
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

pub(super) fn batch_request() -> Schema {
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

pub(super) fn webhook_create() -> Schema {
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

pub(super) fn json_body(schema: &str) -> RefOr<Schema> {
    if schema == "Object" {
        ObjectBuilder::new().schema_type(Type::Object).into()
    } else {
        reference(schema)
    }
}

pub(super) fn method_name(method: &HttpMethod) -> &'static str {
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

pub(super) fn response(
    description: &str,
    schema: RefOr<Schema>,
    rate_headers: bool,
) -> utoipa::openapi::Response {
    let mut r = ResponseBuilder::new().description(description).content(
        "application/json",
        ContentBuilder::new().schema(Some(schema)).build(),
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
