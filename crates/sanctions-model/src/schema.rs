//! `utoipa::ToSchema` of the domain types that appear inside the wire types of `sanctions-api`
//! (list codes, kinds, statuses, favorites, alerts, decision records, ...), written by hand
//! and kept apart from the types themselves. They live in this crate because Rust lets only
//! the crate of the type (or of the trait) implement a trait for it. The wire types derive
//! `ToSchema` and refer to these by name; the server's `openapi.rs` collects them into `components`.

use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{
    ArrayBuilder, ArrayItems, ObjectBuilder, OneOfBuilder, Schema, SchemaType, Type,
};
use utoipa::{PartialSchema, ToSchema};

use crate::{
    Address, Alert, AlertChange, AlertKind, AlertStatus, Alias, DateSpec, Decision, DecisionRecord,
    EntityKind, EntityVersion, Favorite, IdDocument, ListCode, NameParts, ReviewStatus,
    ScreeningOrigin, Severity, SourceFile,
};

/// `PartialSchema` from an expression and a `ToSchema` named after the type.
macro_rules! schema {
    ($t:ty, $body:expr) => {
        impl PartialSchema for $t {
            fn schema() -> RefOr<Schema> {
                RefOr::T($body)
            }
        }
        impl ToSchema for $t {}
    };
}

/// An object with these properties: name, schema, required.
fn object(description: &str, properties: Vec<(&str, Schema, bool)>) -> Schema {
    let mut b = ObjectBuilder::new()
        .schema_type(Type::Object)
        .description(Some(description));
    for (name, schema, required) in properties {
        b = b.property(name, schema);
        if required {
            b = b.required(name);
        }
    }
    b.into()
}

fn nullable_date_time() -> Schema {
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .format(Some(utoipa::openapi::schema::SchemaFormat::KnownFormat(
            utoipa::openapi::schema::KnownFormat::DateTime,
        )))
        .into()
}

fn strings() -> Schema {
    ArrayBuilder::new().items(items(string())).into()
}

/// One of `values` or null.
fn nullable_one_of(values: &[&str]) -> Schema {
    let mut all: Vec<serde_json::Value> = values.iter().map(|v| serde_json::json!(v)).collect();
    all.push(serde_json::Value::Null);
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .enum_values(Some(all))
        .into()
}

/// The entry kinds, from the model's own table.
fn kinds() -> [&'static str; 4] {
    EntityKind::ALL.map(EntityKind::as_str)
}

schema!(ListCode, list_code());
schema!(EntityKind, one_of(&kinds()));
schema!(ReviewStatus, review_status());
schema!(ScreeningOrigin, one_of(&["single", "batch", "watchlist"]));
schema!(
    Decision,
    one_of(&["false_positive", "true_match", "escalated"])
);
schema!(AlertStatus, alert_status());
schema!(AlertKind, alert_kind());
schema!(Severity, one_of(&["info", "low", "medium", "high"]));

schema!(
    Favorite,
    object(
        "A name on the watchlist.",
        vec![
            ("id", string(), true),
            ("name", string(), true),
            ("type", nullable_one_of(&kinds()), true),
            ("note", nullable_string(), true),
            ("created_at", date_time(), true),
            ("last_screened_at", nullable_date_time(), true),
            ("last_match_count", integer(), true),
            ("last_screening_id", nullable_string(), true),
            ("matched_entity_ids", strings(), false),
        ],
    )
);

schema!(
    Alert,
    object(
        "Something an analyst should look at.",
        vec![
            ("id", string(), true),
            ("kind", alert_kind(), true),
            ("severity", one_of(&["info", "low", "medium", "high"]), true),
            ("title", string(), true),
            ("message", string(), true),
            ("created_at", date_time(), true),
            ("status", alert_status(), true),
            ("screening_id", nullable_string(), true),
            ("favorite_id", nullable_string(), true),
            (
                "list",
                nullable_one_of(&ListCode::ALL.map(ListCode::code)),
                true
            ),
            ("entity_ids", strings(), true),
        ],
    )
);

schema!(
    AlertChange,
    object(
        "One status change of an alert.",
        vec![
            ("alert_id", string(), true),
            ("from", alert_status(), true),
            ("to", alert_status(), true),
            ("note", string(), true),
            ("actor", string(), true),
            ("at", date_time(), true),
        ],
    )
);

schema!(
    DecisionRecord,
    object(
        "One entry of the review audit log.",
        vec![
            ("id", integer(), true),
            ("screening_id", string(), true),
            ("entity_id", nullable_string(), true),
            ("from", review_status(), true),
            ("to", review_status(), true),
            ("note", string(), true),
            ("actor", string(), true),
            ("at", date_time(), true),
        ],
    )
);

schema!(
    SourceFile,
    object(
        "One file of an import.",
        vec![
            ("name", string(), true),
            ("sha256", string(), true),
            ("bytes", integer(), true),
        ],
    )
);

schema!(
    EntityVersion,
    object(
        "One update that added, changed or removed a listed entry.",
        vec![
            ("update_id", integer(), true),
            ("change", one_of(&["added", "removed", "changed"]), true),
            ("at", string(), true),
        ],
    )
);

schema!(
    Alias,
    object(
        "Another name of a listed entry.",
        vec![
            ("name", string(), true),
            ("kind", string(), false),
            ("quality", one_of(&["unspecified", "strong", "weak"]), false),
            ("script", string(), false),
            ("lang", string(), false),
        ],
    )
);

schema!(
    NameParts,
    object(
        "The parts of a person's name, where the list gives them.",
        ["title", "given", "middle", "patronymic", "family"]
            .into_iter()
            .map(|part| (part, string(), false))
            .collect(),
    )
);

schema!(
    Address,
    object(
        "A postal address, as structured as the list gives it.",
        ["street", "city", "region", "postal_code", "country", "full"]
            .into_iter()
            .map(|part| (part, string(), false))
            .collect(),
    )
);

schema!(
    IdDocument,
    object(
        "An identity or registration document.",
        vec![
            ("doc_type", string(), true),
            ("number", string(), true),
            ("country", string(), false),
            ("note", string(), false),
        ],
    )
);

/// One variant of [`DateSpec`]: `precision` and its fields, all required.
fn date_variant(precision: &str, fields: &[(&str, Schema)]) -> Schema {
    let mut properties = vec![("precision", one_of(&[precision]), true)];
    properties.extend(fields.iter().map(|(name, s)| (*name, s.clone(), true)));
    object("A listed date.", properties)
}

schema!(
    DateSpec,
    OneOfBuilder::new()
        .item(date_variant(
            "day",
            &[
                ("year", integer()),
                ("month", integer()),
                ("day", integer())
            ]
        ))
        .item(date_variant(
            "month",
            &[("year", integer()), ("month", integer())]
        ))
        .item(date_variant("year", &[("year", integer())]))
        .item(date_variant(
            "range",
            &[("from", string()), ("to", string())]
        ))
        .item(date_variant("text", &[("text", string())]))
        .description(Some("A date as precise as the list gives it."))
        .into()
);

// Schema parts shared with the server's OpenAPI document (`openapi_schemas.rs`).

pub fn items(schema: Schema) -> ArrayItems {
    ArrayItems::RefOrSchema(Box::new(RefOr::T(schema)))
}

pub fn string() -> Schema {
    ObjectBuilder::new().schema_type(Type::String).into()
}

pub fn integer() -> Schema {
    ObjectBuilder::new().schema_type(Type::Integer).into()
}

pub fn one_of(values: &[&str]) -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(values.iter().copied()))
        .into()
}

pub fn list_code() -> Schema {
    one_of(&crate::ListCode::ALL.map(crate::ListCode::code))
}

pub fn review_status() -> Schema {
    one_of(&[
        "no_match",
        "pending_review",
        "false_positive",
        "true_match",
        "escalated",
    ])
}

pub fn alert_kind() -> Schema {
    one_of(&[
        "screening.match",
        "favorite.match",
        "list.updated",
        "webhook.disabled",
    ])
}

pub fn alert_status() -> Schema {
    one_of(&["open", "acknowledged", "resolved"])
}

pub fn nullable_string() -> Schema {
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .into()
}

pub fn date_time() -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .format(Some(utoipa::openapi::schema::SchemaFormat::KnownFormat(
            utoipa::openapi::schema::KnownFormat::DateTime,
        )))
        .into()
}
