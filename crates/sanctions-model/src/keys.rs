//! API keys of `sanctions serve` and the plans they are on.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

/// A key's plan: what it may do and how much (the limits themselves live in the server's
/// configuration, with the spec's figures as defaults).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
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

/// What a key may do. A request outside its key's scopes is refused (403 naming the scope).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// Screen names (single, preview, batch) and read the account's stored screenings.
    Screen,
    /// Record review decisions, read alerts and change their status.
    Review,
    /// The watchlist: favorites, their import and re-screen.
    Watchlist,
    /// Webhooks and their delivery logs.
    Webhooks,
    /// The audit export.
    Audit,
    /// The account's keys.
    Admin,
}

impl Scope {
    /// Every scope, in display order.
    pub const ALL: [Scope; 6] = [
        Scope::Screen,
        Scope::Review,
        Scope::Watchlist,
        Scope::Webhooks,
        Scope::Audit,
        Scope::Admin,
    ];

    /// The scope's name, as written in the store, the CLI and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Screen => "screen",
            Scope::Review => "review",
            Scope::Watchlist => "watchlist",
            Scope::Webhooks => "webhooks",
            Scope::Audit => "audit",
            Scope::Admin => "admin",
        }
    }

    /// The scopes a new key on `plan` gets by default: what the plan allows, `admin` aside
    /// (webhooks need the Business plan).
    pub fn defaults(plan: Plan) -> Vec<Scope> {
        let mut scopes = vec![Scope::Screen, Scope::Review, Scope::Watchlist];
        if plan == Plan::Business {
            scopes.push(Scope::Webhooks);
        }
        scopes.push(Scope::Audit);
        scopes
    }

    /// Scopes from their names separated by spaces or commas (the store's and the CLI's
    /// form); an unknown name is an error naming it.
    pub fn parse_list(text: &str) -> Result<Vec<Scope>, String> {
        let mut out: Vec<Scope> = Vec::new();
        for word in text.split([' ', ',']).filter(|w| !w.trim().is_empty()) {
            let scope = word.parse::<Scope>()?;
            if !out.contains(&scope) {
                out.push(scope);
            }
        }
        out.sort();
        Ok(out)
    }

    /// Scopes as the store keeps them: names separated by spaces.
    pub fn join(scopes: &[Scope]) -> String {
        scopes
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

impl std::fmt::Display for Scope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Scope {
    type Err = String;
    fn from_str(text: &str) -> Result<Scope, String> {
        let text = text.trim().to_ascii_lowercase();
        Scope::ALL
            .into_iter()
            .find(|s| s.as_str() == text)
            .ok_or_else(|| {
                format!(
                    "unknown scope {text:?}: expected screen, review, watchlist, webhooks, \
                     audit or admin"
                )
            })
    }
}

/// An account: a customer or a team. Its keys share its plan, its limits, its monthly
/// credits and its data, which no other account sees.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Account {
    /// `acct_` + ULID (`acct_default` for the local user and data older than accounts).
    pub id: String,
    /// Unique; what `--account` names.
    pub name: String,
    pub plan: Plan,
    pub created_at: Timestamp,
}

/// A stored API key, without its secret (the store keeps only its SHA-256).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ApiKey {
    /// `key_` + ULID: what `keys revoke` takes.
    pub id: String,
    /// The key's first characters (`sk_live_AbC123`), to recognise it in a list.
    pub prefix: String,
    pub label: Option<String>,
    /// The plan of the key's account.
    pub plan: Plan,
    #[schema(value_type = String, format = DateTime)]
    #[serde(serialize_with = "crate::time::fixed")]
    pub created_at: Timestamp,
    /// Set once revoked; a revoked key is refused at once.
    #[schema(value_type = Option<String>, format = DateTime)]
    #[serde(serialize_with = "crate::time::fixed_option")]
    pub revoked_at: Option<Timestamp>,
    /// The id of the account the key belongs to.
    #[serde(default)]
    pub account_id: String,
    /// The account's name.
    #[serde(default)]
    pub account: String,
    /// What the key may do.
    #[serde(default)]
    pub scopes: Vec<Scope>,
}

impl ApiKey {
    /// Who screenings made with this key are recorded as: its label and its id (labels are
    /// unique among an account's active keys, ids everywhere), else its id.
    pub fn actor(&self) -> String {
        match &self.label {
            Some(label) if !label.trim().is_empty() => format!("api:{label} ({})", self.id),
            _ => format!("api:{}", self.id),
        }
    }

    /// Whether the key carries `scope`.
    pub fn has(&self, scope: Scope) -> bool {
        self.scopes.contains(&scope)
    }
}

/// A key to store: its public parts and the hex SHA-256 of the secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewApiKey {
    pub key: ApiKey,
    pub hash: String,
}
