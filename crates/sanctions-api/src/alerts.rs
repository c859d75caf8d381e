//! Alerts: `GET /v1/alerts` and the extension `POST /v1/alerts/{id}/status`.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

pub use crate::model::{Alert, AlertKind, AlertStatus, Severity};

/// Query parameters of `GET /v1/alerts`, newest first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct AlertQuery {
    /// Alert status.
    #[serde(default)]
    pub status: Option<AlertStatus>,
    /// Alert kind.
    #[serde(default)]
    pub kind: Option<AlertKind>,
    /// RFC 3339 UTC lower bound.
    #[param(value_type = Option<String>, format = DateTime)]
    #[serde(default)]
    pub since: Option<Timestamp>,
    /// Most items returned (1-500, default 50).
    #[param(minimum = 1, maximum = 500)]
    #[serde(default)]
    pub limit: Option<usize>,
    /// The `next_cursor` of the previous page.
    #[param(pattern = "^alt_[0-7][0-9A-HJKMNP-TV-Z]{25}$")]
    #[serde(default)]
    pub cursor: Option<String>,
}

/// `POST /v1/alerts/bulk`: acknowledge or resolve several alerts with one note, in one
/// transaction (all of them, or none when one is missing or cannot take the status).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AlertBulkRequest {
    /// The alerts (`alt_...`), 1 to 500, each once.
    #[schema(schema_with = super::schema::alert_ids)]
    pub ids: Vec<String>,
    /// `acknowledged` or `resolved` (an alert is never reopened).
    #[schema(schema_with = super::schema::alert_status_change)]
    pub status: AlertStatus,
    #[schema(min_length = 1, max_length = 2000, pattern = r"[^\s]")]
    pub note: String,
}

/// `POST /v1/alerts/{id}/status`: acknowledge or resolve, with a required note.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AlertStatusRequest {
    /// `acknowledged` or `resolved` (an alert is never reopened).
    #[schema(schema_with = super::schema::alert_status_change)]
    pub status: AlertStatus,
    #[schema(min_length = 1, max_length = 2000, pattern = r"[^\s]")]
    pub note: String,
}
