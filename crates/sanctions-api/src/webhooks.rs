//! Wire types of `/v1/webhooks`: registration, update, the record, `test` and the attempt log.

use serde::{Deserialize, Serialize};

/// `POST /v1/webhooks`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WebhookCreate {
    /// An absolute http(s) URL.
    #[schema(schema_with = super::schema::absolute_url)]
    pub url: String,
    /// A non-empty subset of `screening.match`, `list.updated`, `favorite.match`, `alert.created`.
    #[schema(schema_with = super::schema::events)]
    pub events: Vec<String>,
    #[schema(max_length = 500)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// `PATCH /v1/webhooks/{id}`: only the fields given change. `active: true` re-enables a
/// disabled endpoint.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WebhookUpdate {
    #[schema(schema_with = super::schema::optional_url)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[schema(schema_with = super::schema::optional_events)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<Vec<String>>,
    #[schema(max_length = 500)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active: Option<bool>,
}

/// A webhook record. `secret` is present only in the answer to its creation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Webhook {
    pub id: String,
    pub url: String,
    pub events: Vec<String>,
    pub description: Option<String>,
    pub active: bool,
    /// Why the service disabled it (410 Gone, failing for days).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disabled_reason: Option<String>,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
    /// Deliveries still pending.
    pub pending: u64,
    /// The signing secret (`whsec_...`), shown once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
}

/// The answer of `POST /v1/webhooks/{id}/test`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct WebhookTestResult {
    pub delivered: bool,
    pub event_id: String,
    pub status_code: Option<u16>,
    pub latency_ms: u64,
    pub error: Option<String>,
}

/// One logged delivery attempt (`GET /v1/webhooks/{id}/deliveries`, an extension).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DeliveryAttempt {
    pub event_id: String,
    #[serde(rename = "type")]
    pub kind: String,
    /// 1 for the first attempt of the event (0 for a test).
    pub attempt: u32,
    #[schema(format = DateTime)]
    pub at: String,
    pub status_code: Option<u16>,
    pub latency_ms: u64,
    pub error: Option<String>,
    pub response: Option<String>,
}
