//! The UN Security Council consolidated list XML.

use std::path::Path;

use super::{OfficialFile, ParsedList, SourceError};
use crate::model::ListCode;

/// The files `lists update` downloads.
pub const FILES: &[OfficialFile] = &[OfficialFile {
    file_name: "consolidated.xml",
    url: "https://scsanctions.un.org/resources/xml/en/consolidated.xml",
    optional: false,
}];

/// Parses the list from its folder.
pub fn parse_dir(dir: &Path) -> Result<ParsedList, SourceError> {
    Err(SourceError::parse(
        dir.display().to_string(),
        "",
        format!("the {} parser is not written yet", ListCode::Un),
    ))
}
