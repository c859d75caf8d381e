//! Alerts: `GET /v1/alerts` and the extension `POST /v1/alerts/{id}/status`.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

pub use crate::model::{Alert, AlertKind, AlertStatus, Severity};

/// Query parameters of `GET /v1/alerts`, newest first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AlertQuery {
    #[serde(default)]
    pub status: Option<AlertStatus>,
    #[serde(default)]
    pub kind: Option<AlertKind>,
    #[serde(default)]
    pub since: Option<Timestamp>,
    /// 1-500, default 50.
    #[serde(default)]
    pub limit: Option<usize>,
    #[serde(default)]
    pub cursor: Option<String>,
}

/// `POST /v1/alerts/{id}/status`: acknowledge or resolve, with a required note.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AlertStatusRequest {
    pub status: AlertStatus,
    pub note: String,
}
