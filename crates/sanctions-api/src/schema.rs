//! JSON Schemas of wire values whose bounds no Rust type states, for the OpenAPI document
//! that utoipa derives from these types (`#[schema(schema_with = ...)]` on a field,
//! `#[param(pattern = ...)]` on a query parameter): the forms the server's checks enforce
//! (`server::checks`), so that a generated request is one the server takes.

use utoipa::openapi::schema::{
    AdditionalProperties, Array, ArrayBuilder, Object, ObjectBuilder, OneOfBuilder, SchemaType,
    Type,
};
use utoipa::openapi::{Ref, RefOr};

use crate::model::{DATE_OF_BIRTH_YEARS, iso2_codes};

/// The event kinds a webhook may subscribe to (`webhooks::EVENT_KINDS` says the same; a
/// test of the server compares them).
pub const EVENT_KINDS: [&str; 4] = [
    "screening.match",
    "list.updated",
    "favorite.match",
    "alert.created",
];

/// The longest webhook URL taken (`webhooks::safety::MAX_URL_LEN`, compared by the same test).
pub const MAX_URL_LEN: usize = 2048;

/// A day `YYYY-MM-DD` of the years `year` matches (`leap` those of them that are leap years),
/// as a regular expression: the day exists in its month, 29 February only in a leap year.
/// Digits are `[0-9]`, not `\d`, which a fuzzer's regex engine may read as any script's.
fn day_pattern(year: &str, leap: &str) -> String {
    format!(
        "({year}-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])\
         |{year}-(0[13-9]|1[0-2])-(29|30)\
         |{year}-(0[13578]|1[02])-31\
         |{leap}-02-29)"
    )
}

/// `YYYY-MM-DD` or an RFC 3339 instant: what `checks::is_since` takes.
pub fn brief_since() -> Object {
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
        .description(Some("`YYYY-MM-DD` or RFC 3339 lower bound."))
        .build()
}

/// `YYYY`, `YYYY-MM` or `YYYY-MM-DD` with a year from 1850 to 2100 and a day the month has,
/// or null: what `checks::is_date_of_birth` takes.
pub fn date_of_birth() -> Object {
    debug_assert_eq!(
        (*DATE_OF_BIRTH_YEARS.start(), *DATE_OF_BIRTH_YEARS.end()),
        (1850, 2100)
    );
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
        .build()
}

/// The ids of a bulk alert change: 1 to 500 alert ids (`alt_` and a ULID), each once.
pub fn alert_ids() -> Array {
    let id = ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some("^alt_[0-7][0-9A-HJKMNP-TV-Z]{25}$"));
    ArrayBuilder::new()
        .items(id)
        .min_items(Some(1))
        .max_items(Some(500))
        .unique_items(true)
        .build()
}

/// An ISO 3166-1 alpha-2 code in capitals, or null: what `checks::is_country` takes.
pub fn country() -> Object {
    let mut codes: Vec<serde_json::Value> = iso2_codes().map(serde_json::Value::from).collect();
    codes.push(serde_json::Value::Null);
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .enum_values(Some(codes))
        .description(Some(
            "ISO 3166-1 alpha-2 code in capitals (`RU`); any other value is a 422.",
        ))
        .build()
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

fn url(kind: SchemaType) -> Object {
    ObjectBuilder::new()
        .schema_type(kind)
        .pattern(Some(ABSOLUTE_URL))
        .max_length(Some(MAX_URL_LEN))
        .build()
}

/// A webhook's target.
pub fn absolute_url() -> Object {
    url(Type::String.into())
}

/// A webhook's new target, or null (unchanged).
pub fn optional_url() -> Object {
    url(SchemaType::from_iter([Type::String, Type::Null]))
}

fn events_of(kind: SchemaType) -> ArrayBuilder {
    ArrayBuilder::new()
        .schema_type(kind)
        .items(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .enum_values(Some(EVENT_KINDS)),
        )
        .min_items(Some(1))
}

/// The events a webhook subscribes to: at least one.
pub fn events() -> ArrayBuilder {
    events_of(Type::Array.into())
}

/// New events of a webhook, or null (unchanged).
pub fn optional_events() -> ArrayBuilder {
    events_of(SchemaType::from_iter([Type::Array, Type::Null]))
}

/// The CSV form of a batch, as `server::body::csv_batch` reads it.
pub fn csv_batch() -> Object {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .min_length(Some(1))
        .pattern(Some(r"[^\s,]"))
        .description(Some(
            "UTF-8 CSV (RFC 4180 quoting), with or without a byte-order mark: one name per \
             row, at most 500. With a header row (a cell `name`, and optionally `type`, \
             `date_of_birth` (or `dob`) and `country`, in any order and case) the named \
             columns are read, a name's date of birth and country as in JSON; without one, the \
             first column is the name and the second, when present, its type. `type` is \
             `individual`, `entity` or empty; any other value refuses the batch (422 naming \
             the row). Blank \
             rows are skipped; a body with no name is a 400; every name is checked as in \
             JSON (1-500 characters, not blank).",
        ))
        .build()
}

/// The status an alert may be given: `acknowledged` or `resolved` (never `open` again).
pub fn alert_status_change() -> Object {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(["acknowledged", "resolved"]))
        .build()
}

/// A name to screen: 1 to 500 characters, not only blanks.
fn name() -> Object {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .min_length(Some(1))
        .max_length(Some(500))
        .pattern(Some(r"[^\s]"))
        .build()
}

/// The names of a batch: 1 to 500, each a name or `{"name": ..., "type": ...}`.
pub fn batch_names() -> Array {
    let typed = ObjectBuilder::new()
        .property("name", name())
        .required("name")
        .property(
            "type",
            OneOfBuilder::new()
                .item(ObjectBuilder::new().schema_type(Type::Null))
                .item(RefOr::Ref(Ref::from_schema_name("KindFilter"))),
        )
        .property("date_of_birth", date_of_birth())
        .property("country", country())
        .additional_properties(Some(AdditionalProperties::FreeForm(false)));
    ArrayBuilder::new()
        .items(OneOfBuilder::new().item(name()).item(typed))
        .min_items(Some(1))
        .max_items(Some(500))
        .description(Some(
            "Each a name, or `{\"name\": ..., \"type\": \"individual\" | \"entity\", \"date_of_birth\": ..., \"country\": ...}` (all but `name` optional): a name's own type, date of birth and country take the place of the options'.",
        ))
        .build()
}
