//! Stored screenings and review decisions: `POST /v1/screen` (its `id`), `GET /v1/screen/{id}`,
//! and the extensions `GET /v1/screenings`, `POST /v1/screenings/{id}/decisions`,
//! `GET /v1/audit`; the CLI's `screen`, `screenings` and `audit export`.

use std::collections::BTreeMap;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, Schema, SchemaType, Type};
use utoipa::openapi::{Ref, RefOr};

use super::screening::{KindFilter, Match, ScreenResult};
use crate::model::{Alert, AlertChange, ListCode, ReviewStatus, ScreeningOrigin};

pub use crate::model::{Decision, DecisionRecord};

/// The answer to a screening through the service: the spec's result plus the id under which
/// it was stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ScreeningResponse {
    /// `scr_` + ULID.
    pub id: String,
    #[serde(flatten)]
    pub result: ScreenResult,
}

/// A stored screening with everything an auditor asks for: `GET /v1/screen/{id}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct StoredScreening {
    pub id: String,
    pub query: String,
    #[serde(rename = "type")]
    pub kind: Option<KindFilter>,
    #[schema(maximum = 100)]
    pub threshold: u8,
    #[schema(value_type = String, format = DateTime)]
    #[serde(serialize_with = "crate::time::fixed")]
    pub created_at: Timestamp,
    pub total_matches: u64,
    /// The matches exactly as they were reported.
    pub results: Vec<Match>,
    /// The list-update id of each list the screening ran against.
    pub list_versions: BTreeMap<ListCode, i64>,
    pub engine_version: String,
    /// The OS user locally; the API key's label on a server.
    pub created_by: String,
    pub origin: ScreeningOrigin,
    pub favorite_id: Option<String>,
    /// Derived from the decisions: `no_match`, `pending_review`, `false_positive`,
    /// `true_match` or `escalated`.
    pub status: ReviewStatus,
    /// The review audit log of this screening, oldest first.
    pub decisions: Vec<DecisionRecord>,
}

/// One row of `GET /v1/screenings`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ScreeningSummary {
    pub id: String,
    pub query: String,
    #[serde(rename = "type")]
    pub kind: Option<KindFilter>,
    #[schema(value_type = String, format = DateTime)]
    #[serde(serialize_with = "crate::time::fixed")]
    pub created_at: Timestamp,
    pub total_matches: u64,
    /// The best score, when anything matched.
    #[schema(maximum = 100)]
    pub best_score: Option<u8>,
    pub created_by: String,
    pub origin: ScreeningOrigin,
    pub status: ReviewStatus,
}

/// Query parameters of `GET /v1/screenings`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ScreeningQuery {
    /// Only screenings created at or after this instant (RFC 3339).
    #[param(value_type = Option<String>, format = DateTime)]
    #[serde(default)]
    pub since: Option<Timestamp>,
    /// Review status.
    #[serde(default)]
    pub status: Option<ReviewStatus>,
    /// Most items returned (1-500, default 50).
    #[param(minimum = 1, maximum = 500)]
    #[serde(default)]
    pub limit: Option<usize>,
    /// The `next_cursor` of the previous page.
    #[param(pattern = "^scr_[0-7][0-9A-HJKMNP-TV-Z]{25}$")]
    #[serde(default)]
    pub cursor: Option<String>,
}

/// One page of a listing, newest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Page<T> {
    pub items: Vec<T>,
    /// Pass as `cursor` for the next page; null on the last one.
    pub next_cursor: Option<String>,
}

/// The schema of a page of `item`s, with a reference to the item's own schema (utoipa's
/// derive on a generic type inlines its argument's whole schema: utoipa issue 1586).
fn page_of(item: &str) -> RefOr<Schema> {
    let nullable = SchemaType::from_iter([Type::String, Type::Null]);
    ObjectBuilder::new()
        .description(Some("One page of a listing, newest first."))
        .property(
            "items",
            ArrayBuilder::new().items(Ref::from_schema_name(item)),
        )
        .required("items")
        .property(
            "next_cursor",
            ObjectBuilder::new().schema_type(nullable).description(Some(
                "Pass as `cursor` for the next page; null on the last one.",
            )),
        )
        .into()
}

/// A named schema for the OpenAPI document of a page of one type (`Page<T>` itself is
/// generic, which the document's derive cannot refer to by name).
macro_rules! page_schema {
    ($($name:ident of $item:ty;)*) => {$(
        #[doc = concat!("The OpenAPI schema of a `Page<", stringify!($item), ">`.")]
        pub struct $name;

        impl utoipa::PartialSchema for $name {
            fn schema() -> RefOr<Schema> {
                page_of(&<$item as utoipa::ToSchema>::name())
            }
        }

        impl utoipa::ToSchema for $name {
            fn name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }

            fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
                let name = <$item as utoipa::ToSchema>::name().into_owned();
                schemas.push((name, <$item as utoipa::PartialSchema>::schema()));
                <$item as utoipa::ToSchema>::schemas(schemas);
            }
        }
    )*};
}

page_schema! {
    ScreeningSummaryPage of ScreeningSummary;
    AlertPage of Alert;
    BriefPage of super::briefs::Brief;
}

/// `POST /v1/screenings/{id}/decisions`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DecisionRequest {
    /// The matched entry decided on; absent for the whole screening.
    #[serde(default)]
    #[schema(max_length = 200)]
    pub entity_id: Option<String>,
    pub decision: Decision,
    /// Why: required, not blank.
    #[schema(min_length = 1, max_length = 2000, pattern = r"[^\s]")]
    pub note: String,
}

/// The answer to a decision: the log entry written and the screening's status after it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DecisionResponse {
    pub decision: DecisionRecord,
    pub status: ReviewStatus,
}

/// A second reviewer's word on a four-eyes proposal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The proposed decision is recorded.
    Confirm,
    /// The match returns to its status before the proposal.
    Reject,
}

/// `POST /v1/screenings/{id}/verdicts`: confirm or reject the proposals waiting on a
/// screening (or on one of its matches). Refused (422, `verdict`) when nothing waits or when
/// the caller proposed one of them: a second, different reviewer must give the verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct VerdictRequest {
    pub verdict: Verdict,
    /// The matched entry whose proposal is settled; absent for every proposal of the screening.
    #[serde(default)]
    #[schema(max_length = 200)]
    pub entity_id: Option<String>,
    /// Why: required, not blank.
    #[schema(min_length = 1, max_length = 2000, pattern = r"[^\s]")]
    pub note: String,
}

/// The answer to a verdict: the log entries written (one per match settled) and the
/// screening's status after them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct VerdictResponse {
    pub decisions: Vec<DecisionRecord>,
    pub status: ReviewStatus,
}

/// Query parameters of `GET /v1/audit` and `sanctions audit export`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AuditQuery {
    #[serde(default)]
    pub since: Option<Timestamp>,
    #[serde(default)]
    pub until: Option<Timestamp>,
}

/// Every screening and decision of a period, for an auditor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct AuditExport {
    #[schema(value_type = String, format = DateTime)]
    #[serde(serialize_with = "crate::time::fixed")]
    pub generated_at: Timestamp,
    #[schema(value_type = Option<String>, format = DateTime)]
    #[serde(serialize_with = "crate::time::fixed_option")]
    pub since: Option<Timestamp>,
    #[schema(value_type = Option<String>, format = DateTime)]
    #[serde(serialize_with = "crate::time::fixed_option")]
    pub until: Option<Timestamp>,
    /// Screenings created in the period, oldest first, each with its whole decision log.
    pub screenings: Vec<StoredScreening>,
    /// Decisions recorded in the period (also about older screenings), oldest first.
    pub decisions: Vec<DecisionRecord>,
    /// Alert status changes recorded in the period, oldest first.
    pub alert_changes: Vec<AlertChange>,
    /// Alerts raised in the period, oldest first.
    pub alerts: Vec<Alert>,
}
