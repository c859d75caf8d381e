//! Batch screening through the service: `POST /v1/screen/batch` (JSON or CSV).
//!
//! Bad rows refuse the whole batch: if any name is empty, longer than the engine accepts or
//! has a `type` other than `individual`/`entity`, nothing is screened or stored and the error
//! names every bad row (by its position, from 1). A batch is all-or-nothing so that a client
//! never has to reconcile a partial result, and no credit is used for a refused batch.

use serde::{Deserialize, Serialize};

use super::screening::{KindFilter, ScreenRequest};

/// The most names one call may carry.
pub const MAX_BATCH: usize = 500;

/// One name of a batch: a bare string, or `{ "name": ..., "type": ..., "date_of_birth":
/// ..., "country": ... }` (each but the name optional; the name's own type, date of birth
/// and country take the place of the options').
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum BatchName {
    Name(String),
    Typed {
        name: String,
        #[serde(rename = "type", default)]
        kind: Option<KindFilter>,
        /// This name's date of birth, as `date_of_birth` of `POST /v1/screen`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        date_of_birth: Option<String>,
        /// This name's country, as `country` of `POST /v1/screen`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        country: Option<String>,
    },
}

/// The object form of a [`BatchName`], read strictly: an unknown field is refused by name
/// (an untagged enum would only say that no variant matched).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TypedName {
    name: String,
    #[serde(rename = "type", default)]
    kind: Option<KindFilter>,
    #[serde(default)]
    date_of_birth: Option<String>,
    #[serde(default)]
    country: Option<String>,
}

impl<'de> Deserialize<'de> for BatchName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(BatchNameVisitor)
    }
}

struct BatchNameVisitor;

impl<'de> serde::de::Visitor<'de> for BatchNameVisitor {
    type Value = BatchName;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a name, or an object {\"name\": ..., \"type\": ..., \"date_of_birth\": ..., \"country\": ...}")
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<BatchName, E> {
        Ok(BatchName::Name(v.to_owned()))
    }

    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<BatchName, E> {
        Ok(BatchName::Name(v))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<BatchName, A::Error> {
        let typed = TypedName::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
        Ok(BatchName::Typed {
            name: typed.name,
            kind: typed.kind,
            date_of_birth: typed.date_of_birth,
            country: typed.country,
        })
    }
}

impl BatchName {
    /// A name with its own type, and no date of birth or country of its own.
    pub fn typed(name: String, kind: Option<KindFilter>) -> BatchName {
        BatchName::Typed {
            name,
            kind,
            date_of_birth: None,
            country: None,
        }
    }

    /// The name with its date of birth and country in the interface's documented forms
    /// ([`super::screening::dob_in_wire_form`], [`super::screening::country_in_wire_form`]).
    pub fn in_wire_form(self) -> BatchName {
        match self {
            BatchName::Typed {
                name,
                kind,
                date_of_birth,
                country,
            } => BatchName::Typed {
                name,
                kind,
                date_of_birth: super::screening::dob_in_wire_form(date_of_birth),
                country: super::screening::country_in_wire_form(country),
            },
            name => name,
        }
    }

    /// The name's own date of birth and country, if any.
    pub fn evidence(&self) -> (Option<&str>, Option<&str>) {
        match self {
            BatchName::Name(_) => (None, None),
            BatchName::Typed {
                date_of_birth,
                country,
                ..
            } => (date_of_birth.as_deref(), country.as_deref()),
        }
    }

    /// The name.
    pub fn name(&self) -> &str {
        match self {
            BatchName::Name(name) | BatchName::Typed { name, .. } => name,
        }
    }

    /// The row's own type, if any.
    pub fn kind(&self) -> Option<KindFilter> {
        match self {
            BatchName::Name(_) => None,
            BatchName::Typed { kind, .. } => *kind,
        }
    }
}

/// `POST /v1/screen/batch` as CSV, for the OpenAPI document: a text whose form
/// [`super::schema::csv_batch`] describes (the server reads it into a [`BatchRequest`]).
pub struct CsvBatch;

impl utoipa::PartialSchema for CsvBatch {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::RefOr::T(super::schema::csv_batch().into())
    }
}

impl utoipa::ToSchema for CsvBatch {}

/// `POST /v1/screen/batch` as JSON: `{"names": [...]}`, at most [`MAX_BATCH`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BatchRequest {
    #[schema(schema_with = super::schema::batch_names)]
    pub names: Vec<BatchName>,
    /// Options applied to every name (the name of the template is ignored).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<ScreenRequest>,
}

/// `data` of `POST /v1/screen/batch`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct BatchResponse {
    pub total: usize,
    /// One element per name, in the order sent.
    pub results: Vec<BatchResult>,
}

/// The outcome of one name of a batch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct BatchResult {
    pub name: String,
    /// Number of matches.
    pub matches: usize,
    /// The stored screening of this name (`GET /v1/screen/{id}` shows its matches).
    pub screening_id: String,
    /// The best score, when anything matched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(maximum = 100)]
    pub best_score: Option<u8>,
}
