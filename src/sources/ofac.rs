//! OFAC's SDN and Consolidated (non-SDN) lists in their CSV publication: `sdn.csv`, `add.csv`, `alt.csv`, `sdn_comments.csv` and the `cons_*` counterparts.

use std::path::Path;

use super::{OfficialFile, ParsedList, SourceError};
use crate::model::ListCode;

/// The SDN list files.
pub const SDN_FILES: &[OfficialFile] = &[
    OfficialFile {
        file_name: "sdn.csv",
        url: "https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/SDN.CSV",
        optional: false,
    },
    OfficialFile {
        file_name: "add.csv",
        url: "https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/ADD.CSV",
        optional: false,
    },
    OfficialFile {
        file_name: "alt.csv",
        url: "https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/ALT.CSV",
        optional: false,
    },
    OfficialFile {
        file_name: "sdn_comments.csv",
        url: "https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/SDN_COMMENTS.CSV",
        optional: true,
    },
];

/// The Consolidated (non-SDN) list files.
pub const CONS_FILES: &[OfficialFile] = &[
    OfficialFile {
        file_name: "cons_prim.csv",
        url: "https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/CONS_PRIM.CSV",
        optional: false,
    },
    OfficialFile {
        file_name: "cons_add.csv",
        url: "https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/CONS_ADD.CSV",
        optional: false,
    },
    OfficialFile {
        file_name: "cons_alt.csv",
        url: "https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/CONS_ALT.CSV",
        optional: false,
    },
    OfficialFile {
        file_name: "cons_comments.csv",
        url: "https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/CONS_COMMENTS.CSV",
        optional: true,
    },
];

/// Parses the SDN list from its folder.
pub fn parse_sdn_dir(dir: &Path) -> Result<ParsedList, SourceError> {
    Err(not_yet(ListCode::OfacSdn, dir))
}

/// Parses the Consolidated list from its folder.
pub fn parse_cons_dir(dir: &Path) -> Result<ParsedList, SourceError> {
    Err(not_yet(ListCode::OfacCons, dir))
}

fn not_yet(list: ListCode, dir: &Path) -> SourceError {
    SourceError::parse(
        dir.display().to_string(),
        "",
        format!("the {list} parser is not written yet"),
    )
}
