//! API keys of `sanctions serve` and the plans they are on.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

/// A key's plan: what it may do and how much (the limits themselves live in the server's
/// configuration, with the spec's figures as defaults).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Plan {
    Free,
    Pro,
    Business,
}

impl Plan {
    /// The plan's name as written in the store, the CLI and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Plan::Free => "free",
            Plan::Pro => "pro",
            Plan::Business => "business",
        }
    }

    /// The plan's display name (`Free`, `Pro`, `Business`).
    pub fn title(self) -> &'static str {
        match self {
            Plan::Free => "Free",
            Plan::Pro => "Pro",
            Plan::Business => "Business",
        }
    }
}

impl std::fmt::Display for Plan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Plan {
    type Err = String;
    fn from_str(text: &str) -> Result<Plan, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "free" => Ok(Plan::Free),
            "pro" => Ok(Plan::Pro),
            "business" => Ok(Plan::Business),
            other => Err(format!(
                "unknown plan {other:?}: expected free, pro or business"
            )),
        }
    }
}

/// A stored API key, without its secret (the store keeps only its SHA-256).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiKey {
    /// `key_` + ULID: what `keys revoke` takes.
    pub id: String,
    /// The key's first characters (`sk_live_AbC123`), to recognise it in a list.
    pub prefix: String,
    pub label: Option<String>,
    pub plan: Plan,
    #[serde(serialize_with = "crate::api::time::fixed")]
    pub created_at: Timestamp,
    /// Set once revoked; a revoked key is refused at once.
    #[serde(serialize_with = "crate::api::time::fixed_option")]
    pub revoked_at: Option<Timestamp>,
}

impl ApiKey {
    /// Who screenings made with this key are recorded as: its label, else its id.
    pub fn actor(&self) -> String {
        match &self.label {
            Some(label) if !label.trim().is_empty() => format!("api:{label}"),
            _ => format!("api:{}", self.id),
        }
    }
}

/// A key to store: its public parts and the hex SHA-256 of the secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewApiKey {
    pub key: ApiKey,
    pub hash: String,
}
