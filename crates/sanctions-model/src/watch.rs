//! The watchlist (favorites), its re-screen runs, and alerts: what monitoring stores.

use std::fmt;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::{EntityKind, ListCode};

/// A name on the watchlist, re-screened whenever a list changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Favorite {
    /// `fav_` + ULID.
    pub id: String,
    pub name: String,
    /// `individual` or `entity`, when the name is known to be one.
    #[serde(rename = "type")]
    #[schema(required = true)]
    pub kind: Option<EntityKind>,
    #[schema(required = true)]
    pub note: Option<String>,
    /// Date of birth, `YYYY-MM-DD` or `YYYY`: evidence for its re-screens.
    #[serde(default, rename = "date_of_birth")]
    #[schema(required = true)]
    pub dob: Option<String>,
    /// Country (ISO 3166-1 alpha-2): evidence for its re-screens.
    #[serde(default)]
    #[schema(required = true)]
    pub country: Option<String>,
    #[schema(value_type = String, format = DateTime)]
    #[serde(serialize_with = "crate::time::fixed")]
    pub created_at: Timestamp,
    #[schema(required = true, value_type = Option<String>, format = DateTime)]
    #[serde(serialize_with = "crate::time::fixed_option")]
    pub last_screened_at: Option<Timestamp>,
    pub last_match_count: u64,
    /// The last stored screening that changed this favorite's matches (a re-screen that
    /// finds nothing new is recorded compactly in its run, not as a screening).
    #[schema(required = true)]
    pub last_screening_id: Option<String>,
    /// The entries it matches now.
    #[serde(default)]
    pub matched_entity_ids: Vec<String>,
}

/// Why a new favorite or a whole watchlist import was screened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewFavorite {
    pub name: String,
    pub kind: Option<EntityKind>,
    pub note: Option<String>,
    /// The duplicate key: normalised name and type.
    pub norm: String,
}

/// A re-screen run of the watchlist: its compact audit record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RescreenRun {
    pub id: i64,
    #[serde(serialize_with = "crate::time::fixed")]
    pub at: Timestamp,
    /// `list update`, `schedule`, `manual`, `import`.
    pub reason: String,
    /// `full` or `incremental`.
    pub mode: String,
    pub list_versions: super::ListVersions,
    pub engine_version: String,
    pub actor: String,
    /// Favorites screened.
    pub screened: u64,
    /// Favorites whose set of matched entries changed.
    pub changed: u64,
    /// Alerts created.
    pub alerts: u64,
}

/// A favorite's matches after a re-screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FavoriteOutcome {
    pub favorite_id: String,
    /// (entity id, score), the complete new set.
    pub matches: Vec<(String, u8)>,
}

/// What an alert is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
pub enum AlertKind {
    /// A screening produced at least one match.
    #[serde(rename = "screening.match")]
    ScreeningMatch,
    /// A watchlist name gained a matched entry.
    #[serde(rename = "favorite.match")]
    FavoriteMatch,
    /// A list update changed something.
    #[serde(rename = "list.updated")]
    ListUpdated,
    /// A webhook endpoint was disabled (it answered 410 Gone, or failed for days).
    #[serde(rename = "webhook.disabled")]
    WebhookDisabled,
}

impl AlertKind {
    /// The word stored and shown (also the webhook event kind).
    pub fn as_str(self) -> &'static str {
        match self {
            AlertKind::ScreeningMatch => "screening.match",
            AlertKind::FavoriteMatch => "favorite.match",
            AlertKind::ListUpdated => "list.updated",
            AlertKind::WebhookDisabled => "webhook.disabled",
        }
    }

    /// Parses [`AlertKind::as_str`].
    pub fn parse(text: &str) -> Option<AlertKind> {
        match text.trim() {
            "screening.match" => Some(AlertKind::ScreeningMatch),
            "favorite.match" => Some(AlertKind::FavoriteMatch),
            "list.updated" => Some(AlertKind::ListUpdated),
            "webhook.disabled" => Some(AlertKind::WebhookDisabled),
            _ => None,
        }
    }
}

impl fmt::Display for AlertKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How urgent an alert is, from the best score that caused it.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Info,
    Low,
    Medium,
    High,
}

impl Severity {
    /// The severity of a best score: 95 and above high, 88 medium, below low.
    pub fn of_score(score: u8) -> Severity {
        match score {
            95.. => Severity::High,
            88..=94 => Severity::Medium,
            _ => Severity::Low,
        }
    }

    /// The word stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Low => "low",
            Severity::Medium => "medium",
            Severity::High => "high",
        }
    }

    /// Parses [`Severity::as_str`].
    pub fn parse(text: &str) -> Option<Severity> {
        match text {
            "info" => Some(Severity::Info),
            "low" => Some(Severity::Low),
            "medium" => Some(Severity::Medium),
            "high" => Some(Severity::High),
            _ => None,
        }
    }
}

/// Where an alert is in its handling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AlertStatus {
    Open,
    Acknowledged,
    Resolved,
}

impl AlertStatus {
    /// The word stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            AlertStatus::Open => "open",
            AlertStatus::Acknowledged => "acknowledged",
            AlertStatus::Resolved => "resolved",
        }
    }

    /// Parses [`AlertStatus::as_str`].
    pub fn parse(text: &str) -> Option<AlertStatus> {
        match text.trim() {
            "open" => Some(AlertStatus::Open),
            "acknowledged" => Some(AlertStatus::Acknowledged),
            "resolved" => Some(AlertStatus::Resolved),
            _ => None,
        }
    }

    /// Open may be acknowledged or resolved, acknowledged resolved; resolved is final.
    pub fn can_become(self, to: AlertStatus) -> bool {
        matches!(
            (self, to),
            (AlertStatus::Open, AlertStatus::Acknowledged)
                | (AlertStatus::Open, AlertStatus::Resolved)
                | (AlertStatus::Acknowledged, AlertStatus::Resolved)
        )
    }
}

impl fmt::Display for AlertStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An alert: something an analyst should look at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Alert {
    /// `alt_` + ULID.
    pub id: String,
    pub kind: AlertKind,
    pub severity: Severity,
    pub title: String,
    pub message: String,
    #[schema(value_type = String, format = DateTime)]
    #[serde(serialize_with = "crate::time::fixed")]
    pub created_at: Timestamp,
    pub status: AlertStatus,
    #[schema(required = true)]
    pub screening_id: Option<String>,
    #[schema(required = true)]
    pub favorite_id: Option<String>,
    #[schema(required = true)]
    pub list: Option<ListCode>,
    pub entity_ids: Vec<String>,
}

/// One status change of an alert, appended to its audit log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct AlertChange {
    pub alert_id: String,
    pub from: AlertStatus,
    pub to: AlertStatus,
    pub note: String,
    pub actor: String,
    #[schema(value_type = String, format = DateTime)]
    #[serde(serialize_with = "crate::time::fixed")]
    pub at: Timestamp,
}

/// Which alerts to list, newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AlertFilter {
    pub status: Option<AlertStatus>,
    pub kind: Option<AlertKind>,
    pub since: Option<Timestamp>,
    /// Only alerts older than this id (the cursor of the previous page).
    pub before: Option<String>,
    pub limit: usize,
}

/// An event for the webhook worker, written to the outbox with the change that caused it.
#[derive(Debug, Clone, PartialEq)]
pub struct OutboxEvent {
    /// `evt_` + ULID; stable across delivery attempts (the `webhook-id`).
    pub event_id: String,
    pub kind: String,
    pub created_at: Timestamp,
    pub payload: serde_json::Value,
}
