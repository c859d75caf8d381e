//! Screening requests and results: `POST /v1/screen` and the CLI's `screen --json`.

use serde::{Deserialize, Serialize};

use super::coverage::Coverage;
use crate::model::{DateSpec, EntityKind, ListCode, to_iso2};

/// The two types of the interface: the `type` filter of a request and the `type` of a match
/// (vessels and aircraft are entities there; a match's `kind` tells them apart).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum KindFilter {
    Individual,
    Entity,
}

impl KindFilter {
    /// The interface type of a listed entry's kind.
    pub fn of(kind: EntityKind) -> KindFilter {
        match kind {
            EntityKind::Individual => KindFilter::Individual,
            EntityKind::Entity | EntityKind::Vessel | EntityKind::Aircraft => KindFilter::Entity,
        }
    }
}

/// A request to screen one name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ScreenRequest {
    #[schema(min_length = 1, max_length = 500, pattern = r"[^\s]")]
    pub name: String,
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<KindFilter>,
    /// Lowest score reported (0-100); the engine's default when absent. A whole number
    /// written as a float (`80.0`) is read as the integer.
    #[schema(maximum = 100)]
    #[serde(
        default,
        deserialize_with = "super::integral::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub threshold: Option<u8>,
    /// Most people or organisations reported: every entry of the best `limit` groups (one
    /// person's entries on several lists count once). A whole float is read as the integer.
    #[schema(minimum = 1, maximum = 500)]
    #[serde(
        default,
        deserialize_with = "super::integral::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub limit: Option<usize>,
    /// Only these lists; all when absent.
    #[schema(min_items = 1)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lists: Option<Vec<ListCode>>,
    /// Report entries whose listing has ended too (e.g. a past World Bank debarment).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub include_ended: bool,
    /// `YYYY`, `YYYY-MM` or `YYYY-MM-DD`.
    #[schema(schema_with = super::schema::date_of_birth)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date_of_birth: Option<String>,
    /// ISO 3166-1 alpha-2, or a country's name.
    #[schema(schema_with = super::schema::country)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub country: Option<String>,
}

impl ScreenRequest {
    /// A request for `name` with every option at the engine's default.
    pub fn new(name: impl Into<String>) -> ScreenRequest {
        ScreenRequest {
            name: name.into(),
            kind: None,
            threshold: None,
            limit: None,
            lists: None,
            include_ended: false,
            date_of_birth: None,
            country: None,
        }
    }

    /// The request with its date of birth and country in the one form the interface takes
    /// (`YYYY[-MM[-DD]]` and an alpha-2 code), when the looser forms the local service reads
    /// (`07.10.1952`, `Russia`) resolve to one; blank ones dropped. What the remote client
    /// sends, so that the CLI and the terminal UI take the same input against a server.
    pub fn in_wire_form(mut self) -> ScreenRequest {
        self.date_of_birth = dob_in_wire_form(self.date_of_birth);
        self.country = country_in_wire_form(self.country);
        self
    }
}

/// A date of birth as the interface documents it (`07.10.1952` becomes `1952-10-07`); blank
/// is none, and what cannot be read is left for the server to refuse by name.
pub fn dob_in_wire_form(dob: Option<String>) -> Option<String> {
    dob.filter(|d| !d.trim().is_empty())
        .map(|d| match DateSpec::parse_loose(&d) {
            Some(
                spec @ (DateSpec::Day { .. } | DateSpec::Month { .. } | DateSpec::Year { .. }),
            ) => spec.iso(),
            _ => d,
        })
}

/// A country as the interface documents it (`Russia` becomes `RU`); blank is none.
pub fn country_in_wire_form(country: Option<String>) -> Option<String> {
    country
        .filter(|c| !c.trim().is_empty())
        .map(|c| to_iso2(&c).map_or(c, str::to_owned))
}

/// The result of screening one name: `data` of `POST /v1/screen`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ScreenResult {
    pub query: String,
    pub total_matches: usize,
    pub results: Vec<Match>,
    /// What the name was checked against: set by every face (CLI, server), not the engine.
    #[serde(default)]
    pub coverage: Option<Coverage>,
}

/// One listed entry that matched, with the reason it matched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Match {
    pub entity_id: String,
    /// The entry's primary name.
    pub name: String,
    /// The primary name or alias that matched best.
    pub matched_name: String,
    pub list_code: ListCode,
    /// Display name of the list (the spec's `list`).
    #[serde(rename = "list")]
    pub list_name: String,
    /// 0-100.
    #[schema(maximum = 100)]
    pub score: u8,
    /// `individual` or `entity`.
    #[serde(rename = "type")]
    pub entity_type: KindFilter,
    /// The finer kind: `individual`, `entity`, `vessel` or `aircraft`.
    pub kind: EntityKind,
    /// ISO 3166-1 alpha-2, or null.
    pub country: Option<String>,
    /// Which query token met which listed token, and how similar they were; then the date
    /// of birth and country weighed, when the request gave them (`how`: `date_of_birth` or
    /// `country`; `similarity`: 100 agrees, 50 close, 0 conflicts or unknown).
    pub explanation: Vec<TokenMatch>,
    /// Matches of one group are entries of several lists for the same person or
    /// organisation (same names, same dates of birth): numbered from 1 in rank order.
    #[serde(default)]
    pub group: Option<u32>,
    /// The last day of a listing that has ended (reported only with `include_ended`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_on: Option<String>,
    /// The listed dates of birth (`YYYY[-MM[-DD]]`, a range as `FROM/TO`).
    #[serde(default)]
    pub dates_of_birth: Vec<String>,
    /// ISO 3166-1 alpha-2.
    #[serde(default)]
    pub nationalities: Vec<String>,
    #[serde(default)]
    pub programmes: Vec<String>,
    /// When the entry was listed, as the list gives it.
    #[serde(default)]
    pub listed_on: Option<String>,
}

/// One step of a match's explanation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct TokenMatch {
    /// The query's token (normalised), or null for a listed token with no partner.
    pub query_token: Option<String>,
    /// The listed name's token (normalised), or null for a query token with no partner.
    pub listed_token: Option<String>,
    /// 0-100.
    #[schema(maximum = 100)]
    pub similarity: u8,
    /// How the two met: `exact`, `fuzzy`, `phonetic`, `initial`, `unmatched`, ...
    pub how: String,
}

/// One line of `sanctions batch --json`: the result of one input row, in input order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchLine {
    /// The row's `qid` (or `id`) column; else its line in the file (text, CSV) or its
    /// position in the array (JSON), as a string.
    pub qid: String,
    /// The row's 1-based line in the file (text and CSV input; blank lines counted).
    pub line: Option<u64>,
    /// The row's 1-based position in the array (JSON input).
    pub position: Option<u64>,
    pub query: String,
    /// The type screened: the row's own `type` narrowing the batch's `--type`; null for both.
    #[serde(rename = "type")]
    pub kind: Option<KindFilter>,
    pub total_matches: usize,
    pub results: Vec<Match>,
    /// Why this row was not screened, when it was not.
    pub error: Option<String>,
    /// What the row was checked against.
    pub coverage: Option<Coverage>,
    /// The stored screening of this row (`batch --store`, or any batch through a server).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screening_id: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wire_form_resolves_loose_dates_and_country_names() {
        let mut request = ScreenRequest::new("Vladimir Putin");
        request.date_of_birth = Some("07.10.1952".into());
        request.country = Some("Russia".into());
        let wire = request.in_wire_form();
        assert_eq!(wire.date_of_birth.as_deref(), Some("1952-10-07"));
        assert_eq!(wire.country.as_deref(), Some("RU"));
        let mut request = ScreenRequest::new("x");
        request.date_of_birth = Some(" ".into());
        request.country = Some("Atlantis".into());
        let wire = request.in_wire_form();
        assert_eq!(wire.date_of_birth, None);
        // Left as typed: the server refuses it naming the field.
        assert_eq!(wire.country.as_deref(), Some("Atlantis"));
    }
}
