//! The eight sanctions lists: their codes and display names.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// One of the eight sanctions lists the product covers.
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
pub enum ListCode {
    OfacSdn,
    OfacCons,
    Eu,
    Un,
    UkHmt,
    CaSema,
    AuDfat,
    WorldBank,
}

impl ListCode {
    /// All lists, in the order of the interface specification's table.
    pub const ALL: [ListCode; 8] = [
        ListCode::OfacSdn,
        ListCode::OfacCons,
        ListCode::Eu,
        ListCode::Un,
        ListCode::UkHmt,
        ListCode::CaSema,
        ListCode::AuDfat,
        ListCode::WorldBank,
    ];

    /// The code used in entity ids, folders and the HTTP interface (`ofac_sdn`, ...).
    pub fn code(self) -> &'static str {
        match self {
            ListCode::OfacSdn => "ofac_sdn",
            ListCode::OfacCons => "ofac_cons",
            ListCode::Eu => "eu",
            ListCode::Un => "un",
            ListCode::UkHmt => "uk_hmt",
            ListCode::CaSema => "ca_sema",
            ListCode::AuDfat => "au_dfat",
            ListCode::WorldBank => "world_bank",
        }
    }

    /// The display name of the interface specification (`OFAC SDN`, ...).
    pub fn display_name(self) -> &'static str {
        match self {
            ListCode::OfacSdn => "OFAC SDN",
            ListCode::OfacCons => "OFAC Consolidated",
            ListCode::Eu => "EU Consolidated",
            ListCode::Un => "UN Security Council",
            ListCode::UkHmt => "UK HMT",
            ListCode::CaSema => "Canada SEMA",
            ListCode::AuDfat => "Australia DFAT",
            ListCode::WorldBank => "World Bank",
        }
    }

    /// The entity id `<code>:<source_id>` of one of this list's entries.
    pub fn entity_id(self, source_id: &str) -> String {
        format!("{}:{}", self.code(), source_id)
    }
}

impl fmt::Display for ListCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// A string that names none of the eight lists.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown list code {0:?} (expected one of: ofac_sdn, ofac_cons, eu, un, uk_hmt, ca_sema, au_dfat, world_bank)"
)]
pub struct UnknownListCode(pub String);

impl FromStr for ListCode {
    type Err = UnknownListCode;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wanted = s.trim().to_ascii_lowercase();
        ListCode::ALL
            .into_iter()
            .find(|code| code.code() == wanted)
            .ok_or_else(|| UnknownListCode(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for code in ListCode::ALL {
            assert_eq!(code.code().parse::<ListCode>(), Ok(code));
            let json = serde_json::to_string(&code).unwrap();
            assert_eq!(json, format!("\"{}\"", code.code()));
        }
        assert!("nope".parse::<ListCode>().is_err());
        assert_eq!(ListCode::OfacSdn.entity_id("306"), "ofac_sdn:306");
    }
}
