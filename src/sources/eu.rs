//! The EU Financial Sanctions Files (FSF) XML 1.1 export.

use std::path::Path;

use super::{OfficialFile, ParsedList, SourceError};
use crate::model::ListCode;

/// The files `lists update` downloads.
pub const FILES: &[OfficialFile] = &[OfficialFile {
    file_name: "xmlFullSanctionsList_1_1.xml",
    url: "https://webgate.ec.europa.eu/fsd/fsf/public/files/xmlFullSanctionsList_1_1/content?token=dG9rZW4tMjAxNw",
    optional: false,
}];

/// Parses the list from its folder.
pub fn parse_dir(dir: &Path) -> Result<ParsedList, SourceError> {
    Err(SourceError::parse(
        dir.display().to_string(),
        "",
        format!("the {} parser is not written yet", ListCode::Eu),
    ))
}
