//! What a screening was checked against: the `coverage` of every screening result.

use serde::{Deserialize, Serialize};

use crate::model::ListCode;

/// The lists a screening was asked to check, what each held, and what was really searched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Coverage {
    /// Every requested list (all eight when none were named), in the specification's order.
    pub lists: Vec<ListCoverage>,
    /// Requested lists with no data: nothing was checked against them.
    pub missing: Vec<ListCode>,
    /// Requested lists not updated within `max_age_days`: checked, but perhaps out of date.
    pub stale: Vec<ListCode>,
    /// The age (days since the last import or update) beyond which a list counts as stale.
    pub max_age_days: u32,
    /// Entries really searched: those of the requested lists with data, of the requested type.
    pub entries_searched: u64,
    /// True when no requested list is missing.
    pub complete: bool,
}

/// One requested list and the version of it that was checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ListCoverage {
    pub list_code: ListCode,
    pub list_name: String,
    /// `ok`, `stale` or `missing`.
    pub status: ListStatus,
    /// Entries on the list (all types).
    pub entities: u64,
    /// The id of the list's last update record (`sanctions lists updates CODE`); null if never.
    pub update_id: Option<i64>,
    /// The publication date of the imported files, `YYYY-MM-DD`, when they state one.
    pub published: Option<String>,
    /// When the list was last imported or checked, RFC 3339 UTC; null if never.
    #[schema(format = DateTime)]
    pub imported_at: Option<String>,
}

/// Whether a requested list could be checked, and how fresh it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ListStatus {
    Ok,
    Stale,
    Missing,
}
