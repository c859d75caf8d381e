//! The World Bank's debarred firms and individuals, as its API serves them (JSON, `response.ZPROCSUPP`).

use std::path::Path;

use super::{OfficialFile, ParsedList, SourceError};
use crate::model::ListCode;

/// The files `lists update` downloads.
pub const FILES: &[OfficialFile] = &[OfficialFile {
    file_name: "SANCTIONED_FIRM.json",
    url: "https://apigwext.worldbank.org/dvsvc/v1.0/json/APPLICATION/ADOBE_EXPRNCE_MGR/FIRM/SANCTIONED_FIRM",
    optional: false,
}];

/// Parses the list from its folder.
pub fn parse_dir(dir: &Path) -> Result<ParsedList, SourceError> {
    Err(SourceError::parse(
        dir.display().to_string(),
        "",
        format!("the {} parser is not written yet", ListCode::WorldBank),
    ))
}
