//! The UK lists: OFSI's consolidated list (ConList, 2022 format, xlsx or csv) and the FCDO UK Sanctions List, the only UK source since 28 January 2026.

use std::path::Path;

use super::{OfficialFile, ParsedList, SourceError};
use crate::model::ListCode;

/// The files `lists update` downloads.
pub const FILES: &[OfficialFile] = &[OfficialFile {
    file_name: "UK-Sanctions-List.csv",
    url: "https://sanctionslist.fcdo.gov.uk/docs/UK-Sanctions-List.csv",
    optional: false,
}];

/// Parses the list from its folder.
pub fn parse_dir(dir: &Path) -> Result<ParsedList, SourceError> {
    Err(SourceError::parse(
        dir.display().to_string(),
        "",
        format!("the {} parser is not written yet", ListCode::UkHmt),
    ))
}
