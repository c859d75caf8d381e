//! Canada's Consolidated Special Economic Measures Act (SEMA) list XML.

use std::path::Path;

use super::{OfficialFile, ParsedList, SourceError};
use crate::model::ListCode;

/// The files `lists update` downloads.
pub const FILES: &[OfficialFile] = &[OfficialFile {
    file_name: "sema-lmes.xml",
    url: "https://www.international.gc.ca/world-monde/assets/office_docs/international_relations-relations_internationales/sanctions/sema-lmes.xml",
    optional: false,
}];

/// Parses the list from its folder.
pub fn parse_dir(dir: &Path) -> Result<ParsedList, SourceError> {
    Err(SourceError::parse(
        dir.display().to_string(),
        "",
        format!("the {} parser is not written yet", ListCode::CaSema),
    ))
}
