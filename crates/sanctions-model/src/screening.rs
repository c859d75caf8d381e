//! A stored screening and the review decisions recorded about it: the audit record of who
//! screened what, when, against which list versions, and what was decided.

use std::collections::BTreeMap;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::{Decision, EntityKind, ListCode, ReviewStatus};

/// The list-update id of each list at the moment of a screening (absent: never imported).
pub type ListVersions = BTreeMap<ListCode, i64>;

/// Where a stored screening came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ScreeningOrigin {
    /// One name screened by a person or a program.
    Single,
    /// One name of a batch.
    Batch,
    /// A watchlist name screened when added or re-screened.
    Watchlist,
}

impl ScreeningOrigin {
    /// The word stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            ScreeningOrigin::Single => "single",
            ScreeningOrigin::Batch => "batch",
            ScreeningOrigin::Watchlist => "watchlist",
        }
    }

    /// Parses [`ScreeningOrigin::as_str`].
    pub fn parse(text: &str) -> Option<ScreeningOrigin> {
        match text {
            "single" => Some(ScreeningOrigin::Single),
            "batch" => Some(ScreeningOrigin::Batch),
            "watchlist" => Some(ScreeningOrigin::Watchlist),
            _ => None,
        }
    }
}

/// One matched entry of a stored screening: enough to review it and to derive statuses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchedEntity {
    pub entity_id: String,
    pub score: u8,
}

/// A screening as stored. `results` is the report exactly as it was shown (the wire form of
/// the matches with their explanations), frozen: the store keeps it as an opaque document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScreeningRecord {
    /// `scr_` + ULID: unique and sortable by time.
    pub id: String,
    pub query: String,
    /// The type filter of the request (`individual` or `entity`), if any.
    pub kind: Option<EntityKind>,
    pub threshold: u8,
    #[serde(serialize_with = "crate::time::fixed")]
    pub created_at: Timestamp,
    pub total_matches: u64,
    pub matched: Vec<MatchedEntity>,
    pub results: serde_json::Value,
    pub list_versions: ListVersions,
    pub engine_version: String,
    /// Who ran it: the OS user locally, the API key's label on a server.
    pub actor: String,
    pub origin: ScreeningOrigin,
    pub favorite_id: Option<String>,
    /// Derived from the decision log (cached for listing).
    pub status: ReviewStatus,
}

/// One entry of the review audit log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DecisionRecord {
    pub id: i64,
    pub screening_id: String,
    /// The matched entity decided on; `None` for a decision on the whole screening.
    #[schema(required = true)]
    pub entity_id: Option<String>,
    pub from: ReviewStatus,
    pub to: ReviewStatus,
    pub note: String,
    pub actor: String,
    #[schema(value_type = String, format = DateTime)]
    #[serde(serialize_with = "crate::time::fixed")]
    pub at: Timestamp,
    /// Four-eyes review: the decision proposed (on a proposal, `to` is `proposed`), or the
    /// one confirmed or rejected (on a second reviewer's entry, `from` is `proposed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposed: Option<Decision>,
    /// On a confirmation or rejection: the id of the proposal it settles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposal_id: Option<i64>,
}

/// Which stored screenings to list, newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScreeningFilter {
    pub since: Option<Timestamp>,
    pub until: Option<Timestamp>,
    pub status: Option<ReviewStatus>,
    /// Only screenings with an id below this one (the cursor of the previous page).
    pub before: Option<String>,
    pub limit: usize,
}
