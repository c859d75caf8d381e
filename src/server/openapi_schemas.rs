//! The building blocks of the OpenAPI document (`openapi.rs`): JSON schemas of envelopes,
//! request bodies and parameters with the bounds the handlers enforce, and responses.

pub(super) use crate::model::schema::{
    alert_kind, alert_status, date_time, integer, items, list_code, nullable_string, one_of,
    review_status, string,
};
use utoipa::openapi::RefOr;
use utoipa::openapi::content::ContentBuilder;
use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::path::HttpMethod;
use utoipa::openapi::response::ResponseBuilder;
use utoipa::openapi::schema::{
    AdditionalProperties, ArrayBuilder, ObjectBuilder, Schema, SchemaType, Type,
};

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

pub(super) fn export_format() -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(["json", "ndjson", "csv"]))
        .into()
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

pub(super) fn events() -> Schema {
    events_array().into()
}

fn events_array() -> ArrayBuilder {
    ArrayBuilder::new()
        .items(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .enum_values(Some(crate::webhooks::EVENT_KINDS)),
        )
        .min_items(Some(1))
}

/// Null, or the type given (JSON Schema's `type: [T, "null"]`): an optional field of a
/// request that serde reads as absent when it is `null`.
fn or_null(t: Type) -> SchemaType {
    SchemaType::from_iter([t, Type::Null])
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

/// A day `YYYY-MM-DD` of the years `year` matches (`leap` those of them that are leap years),
/// as a regular expression: the day exists in its month, 29 February only in a leap year.
fn day_pattern(year: &str, leap: &str) -> String {
    format!(
        "({year}-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])\
         |{year}-(0[13-9]|1[0-2])-(29|30)\
         |{year}-(0[13578]|1[02])-31\
         |{leap}-02-29)"
    )
}

/// `YYYY-MM-DD` or an RFC 3339 instant: what `checks::is_since` takes. Digits are `[0-9]`,
/// not `\d`, which a fuzzer's regex engine may read as any script's digits.
pub(super) fn brief_since() -> Schema {
    let day = day_pattern(
        "[0-9]{4}",
        "([0-9]{2}(0[48]|[2468][048]|[13579][26])|([02468][048]|[13579][26])00)",
    );
    ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some(format!(
            "^{day}(T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{{1,9}})?\
             (Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9]))?$"
        )))
        .into()
}

/// `YYYY`, `YYYY-MM` or `YYYY-MM-DD` with a year from 1850 to 2100 and a day the month has:
/// what `checks::is_date_of_birth` takes.
pub(super) fn date_of_birth() -> Schema {
    let year = "(18[5-9][0-9]|19[0-9]{2}|20[0-9]{2}|2100)";
    let day = day_pattern(
        year,
        "(18(5[26]|[68][048]|[79][26])|19([02468][48]|[13579][26]|[2468]0)\
         |20([02468][048]|[13579][26]))",
    );
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .pattern(Some(format!("^({year}(-(0[1-9]|1[0-2]))?|{day})$")))
        .description(Some(
            "`YYYY`, `YYYY-MM` or `YYYY-MM-DD`, a year from 1850 to 2100 (422 otherwise).",
        ))
        .into()
}

/// An ISO 3166-1 alpha-2 code in capitals, or null: what `checks::is_country` takes.
pub(super) fn country() -> Schema {
    let mut codes: Vec<serde_json::Value> = crate::model::iso2_codes()
        .map(serde_json::Value::from)
        .collect();
    codes.push(serde_json::Value::Null);
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .enum_values(Some(codes))
        .description(Some(
            "ISO 3166-1 alpha-2 code in capitals (`RU`); any other value is a 422.",
        ))
        .into()
}

/// A required review note: not blank, at most 2000 characters.
pub(super) fn note() -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .min_length(Some(1))
        .max_length(Some(2000))
        .pattern(Some(r"[^\s]"))
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

/// An absolute http(s) URL as `webhooks::safety::parse_url` takes it: a host name whose last
/// label starts with a letter (one ending in digits would be read as an IPv4 address) or a
/// dotted IPv4 address, a port of 0-65535, then printable ASCII.
const ABSOLUTE_URL: &str = concat!(
    "^https?://",
    "(([A-Za-z0-9-]+\\.)*[A-Za-z][A-Za-z0-9-]*",
    "|((25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\\.){3}(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9]))",
    "(:0*([0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?",
    "([/?#][!-~]*)?$"
);

pub(super) fn absolute_url() -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some(ABSOLUTE_URL))
        .max_length(Some(crate::webhooks::safety::MAX_URL_LEN))
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
        .property("note", note())
        .required("note")
        .into()
}

pub(super) fn alert_status_request() -> Schema {
    ObjectBuilder::new()
        .property("status", alert_status())
        .required("status")
        .property("note", note())
        .required("note")
        .into()
}

/// Every field optional; absent or null leaves it as it is.
pub(super) fn webhook_update() -> Schema {
    ObjectBuilder::new()
        .property(
            "url",
            ObjectBuilder::new()
                .schema_type(or_null(Type::String))
                .pattern(Some(ABSOLUTE_URL))
                .max_length(Some(crate::webhooks::safety::MAX_URL_LEN)),
        )
        .property("events", events_array().schema_type(or_null(Type::Array)))
        .property(
            "description",
            ObjectBuilder::new()
                .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
                .max_length(Some(500)),
        )
        .property(
            "active",
            ObjectBuilder::new().schema_type(or_null(Type::Boolean)),
        )
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
                .schema_type(or_null(Type::Integer))
                .minimum(Some(0))
                .maximum(Some(100))
                .description(Some("Lowest score reported; null or absent: the default.")),
        )
        .property(
            "limit",
            ObjectBuilder::new()
                .schema_type(or_null(Type::Integer))
                .minimum(Some(1))
                .maximum(Some(500))
                .description(Some(
                    "Most people or organisations reported; null or absent: the default.",
                )),
        )
        .property(
            "lists",
            ArrayBuilder::new()
                .schema_type(or_null(Type::Array))
                .items(items(list_code()))
                .min_items(Some(1))
                .description(Some("Only these lists; null or absent: all.")),
        )
        .property(
            "include_ended",
            ObjectBuilder::new().schema_type(Type::Boolean),
        )
        .property("date_of_birth", date_of_birth())
        .property("country", country())
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

/// The CSV form of a batch, as `body::csv_batch` reads it.
pub(super) fn csv_body() -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .min_length(Some(1))
        .pattern(Some(r"[^\s,]"))
        .description(Some(
            "UTF-8 CSV (RFC 4180 quoting), with or without a byte-order mark: one name per \
             row, at most 500. With a header row (a cell `name`, and optionally `type`, in \
             any order and case) the named columns are read; without one, the first column is \
             the name and the second, when present, its type. `type` is `individual`, \
             `entity` or empty; any other value refuses the batch (422 naming the row). Blank \
             rows are skipped; a body with no name is a 400; every name is checked as in \
             JSON (1-500 characters, not blank).",
        ))
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
