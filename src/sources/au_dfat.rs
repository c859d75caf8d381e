//! Australia DFAT's consolidated list spreadsheet (xlsx).

use std::path::Path;

use super::{OfficialFile, ParsedList, SourceError};
use crate::model::ListCode;

/// The files `lists update` downloads.
pub const FILES: &[OfficialFile] = &[OfficialFile {
    file_name: "regulation8_consolidated.xlsx",
    url: "https://www.dfat.gov.au/sites/default/files/regulation8_consolidated.xlsx",
    optional: false,
}];

/// Parses the list from its folder.
pub fn parse_dir(dir: &Path) -> Result<ParsedList, SourceError> {
    Err(SourceError::parse(
        dir.display().to_string(),
        "",
        format!("the {} parser is not written yet", ListCode::AuDfat),
    ))
}
