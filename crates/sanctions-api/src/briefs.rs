//! Wire types of `/v1/briefs`: a risk brief, the listing's query, and a refresh report.

use serde::{Deserialize, Serialize};

/// One risk brief.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Brief {
    pub id: String,
    pub title: String,
    pub summary: String,
    /// Markdown.
    pub body: String,
    /// `list_update` or the feed's name.
    pub source: String,
    pub url: Option<String>,
    #[schema(format = DateTime)]
    pub published_at: String,
    pub lists: Vec<String>,
    pub countries: Vec<String>,
    pub entity_ids: Vec<String>,
    /// `low`, `medium` or `high`.
    pub severity: String,
}

/// `GET /v1/briefs` query parameters.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct BriefQuery {
    /// Most items returned (1-100, default 20).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<usize>,
    /// The `next_cursor` of the previous page.
    #[param(pattern = "^brf_[0-7][0-9A-HJKMNP-TV-Z]{25}$")]
    pub cursor: Option<String>,
    /// A list code, e.g. `ofac_sdn`.
    #[param(value_type = Option<crate::model::ListCode>)]
    pub list: Option<String>,
    /// ISO 3166-1 alpha-2.
    #[param(min_length = 2, max_length = 2, pattern = "^[A-Za-z]{2}$")]
    pub country: Option<String>,
    /// `YYYY-MM-DD` or an RFC 3339 instant.
    #[param(schema_with = super::schema::brief_since)]
    pub since: Option<String>,
    /// Words that must all appear (at most 200 characters).
    #[param(max_length = 200)]
    pub q: Option<String>,
}

/// One feed's outcome in a refresh.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct FeedReport {
    pub name: String,
    pub items: usize,
    pub new: usize,
    pub error: Option<String>,
}

/// `POST /v1/briefs/refresh` (extension).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RefreshReport {
    /// Briefs made from list updates.
    pub list_updates: usize,
    pub feeds: Vec<FeedReport>,
}
