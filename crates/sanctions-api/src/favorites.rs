//! The watchlist: `GET/POST /v1/favorites`, `DELETE /v1/favorites/{id}`, and the extensions
//! `POST /v1/favorites/import` and `POST /v1/favorites/rescreen`.
//!
//! Duplicates are refused: a name whose normalised form and type are already on the
//! watchlist is answered 422 naming the existing favorite (an import skips and counts them).

use serde::{Deserialize, Serialize};

use super::screening::KindFilter;

pub use crate::model::{Favorite, RescreenRun};

/// `POST /v1/favorites`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct FavoriteRequest {
    #[schema(min_length = 1, max_length = 500, pattern = r"[^\s]")]
    pub name: String,
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<KindFilter>,
    /// A note kept with the name (at most 2,000 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 2000)]
    pub note: Option<String>,
    /// The customer's date of birth, `YYYY`, `YYYY-MM` or `YYYY-MM-DD`: evidence for every
    /// screening of this name, as in `POST /v1/screen`.
    #[schema(schema_with = super::schema::date_of_birth)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date_of_birth: Option<String>,
    /// The customer's country, ISO 3166-1 alpha-2 or a country's name: evidence as above.
    #[schema(schema_with = super::schema::country)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub country: Option<String>,
}

/// `POST /v1/favorites/import`: many names at once (no limit on count; the batch formats).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct FavoriteImport {
    #[schema(min_items = 1)]
    pub names: Vec<FavoriteRequest>,
}

impl FavoriteRequest {
    /// The request with its date of birth and country in the forms the interface documents,
    /// as the remote client sends them (see [`crate::screening::ScreenRequest::in_wire_form`]).
    pub fn in_wire_form(mut self) -> FavoriteRequest {
        self.date_of_birth = crate::screening::dob_in_wire_form(self.date_of_birth);
        self.country = crate::screening::country_in_wire_form(self.country);
        self
    }
}

/// What an import did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ImportSummary {
    /// Names read.
    pub total: usize,
    /// Favorites added.
    pub added: usize,
    /// Names skipped because they were already on the watchlist (or repeated in the input).
    pub duplicates: usize,
    /// Added favorites that match something now.
    pub matched: usize,
    /// Alerts created for them.
    pub alerts: usize,
}

/// What a re-screen of the watchlist did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RescreenSummary {
    /// The run's id (its compact audit record), or null when there was nothing to do.
    pub run_id: Option<i64>,
    /// `full` or `incremental`.
    pub mode: String,
    /// Favorites on the watchlist, all re-evaluated.
    pub favorites: u64,
    /// Favorites actually screened again (all of them in a full run).
    pub screened: u64,
    /// Favorites whose matched entries changed.
    pub changed: u64,
    /// Alerts created (one per favorite that gained an entry).
    pub alert_ids: Vec<String>,
    /// Milliseconds the run took.
    pub millis: u64,
}

/// One page of `GET /v1/favorites`, in creation order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct FavoritePage {
    pub items: Vec<Favorite>,
    pub total: u64,
    pub next_cursor: Option<String>,
}
