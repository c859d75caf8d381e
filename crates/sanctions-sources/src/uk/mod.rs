//! The UK list from its formats: the FCDO UK Sanctions List, the only UK source since 28
//! January 2026, as XML (`UK-Sanctions-List.xml`, what `lists update` downloads; see [`xml`])
//! or csv (one row per name grouped by `Unique ID`), and OFSI's former consolidated list
//! (ConList, 2022 format, xlsx or csv, one row per name grouped by `Group ID`). A table's
//! format is chosen by its header row, not the file name.

mod build;
mod table;
pub mod xml;

use std::path::Path;

use build::Layout;
use table::Table;

use super::{Input, OfficialFile, ParsedList, SourceError, find_by_extension, find_file};
use crate::model::{EntityKind, ListCode, NameParts, clean, clean_opt};

const FCDO_CSV_URL: &str = "https://sanctionslist.fcdo.gov.uk/docs/UK-Sanctions-List.csv";
const CONLIST_URL: &str =
    "https://ofsistorage.blob.core.windows.net/publishlive/2022format/ConList.xlsx";

/// The files `lists update` downloads.
pub const FILES: &[OfficialFile] = &[OfficialFile {
    file_name: "UK-Sanctions-List.xml",
    url: xml::URL,
    optional: false,
}];

/// File names looked for, in order; any other .xml/.csv/.xlsx is tried after them.
const NAMES: &[&str] = &[
    "UK-Sanctions-List.xml",
    "UK-Sanctions-List.csv",
    "ConList.xlsx",
    "ConList.csv",
];

const CONLIST: Layout = Layout {
    id: "Group ID",
    kind: "Group Type",
    name_type: "Alias Type",
    quality: "Alias Quality",
    regime: "Regime",
    listed_on: "Listed On",
    dob: "DOB",
    nationality: "Nationality",
    town_of_birth: "Town of Birth",
    country_of_birth: "Country of Birth",
    passport: "Passport Number",
    passport_details: "Passport Details",
    national_id: "National Identification Number",
    national_id_details: "National Identification Details",
    position: "Position",
    addresses: &[
        "Address 1",
        "Address 2",
        "Address 3",
        "Address 4",
        "Address 5",
        "Address 6",
    ],
    postcode: "Post/Zip Code",
    country: "Country",
    remarks: &["Other Information"],
    attributes: &[
        ("UK Sanctions List Date Designated", "date_uk_designated"),
        ("IMO number", "imo_number"),
        ("Current owners", "current_owners"),
        ("Flag of ship", "flag"),
        ("Type of ship", "ship_type"),
    ],
    url: CONLIST_URL,
};

const FCDO: Layout = Layout {
    id: "Unique ID",
    // The FCDO's summary export (editions/uk_hmt) names it `Type`.
    kind: "Designation Type|Type",
    name_type: "Name type",
    quality: "Alias strength",
    regime: "Regime Name",
    listed_on: "Date Designated",
    dob: "D.O.B",
    nationality: "Nationality(/ies)",
    town_of_birth: "Town of birth",
    country_of_birth: "Country of birth",
    passport: "Passport number",
    passport_details: "Passport additional information",
    national_id: "National Identifier number",
    national_id_details: "National Identifier additional information",
    position: "Position",
    addresses: &[
        "Address Line 1",
        "Address Line 2",
        "Address Line 3",
        "Address Line 4",
        "Address Line 5",
        "Address Line 6",
    ],
    postcode: "Address Postal Code",
    country: "Address Country",
    remarks: &["Other Information", "UK Statement of Reasons"],
    attributes: &[
        ("OFSI Group ID", "ofsi_group_id"),
        ("UN Reference Number", "un_reference"),
        ("Gender", "gender"),
        ("IMO number", "imo_number"),
        ("Type of entity", "entity_type"),
        ("Sanctions Imposed", "sanctions_imposed"),
        ("Designation source", "designation_source"),
        ("Current believed flag of ship", "flag"),
        ("Type of ship", "ship_type"),
    ],
    url: FCDO_CSV_URL,
};

/// Parses the list from its folder.
pub fn parse_dir(dir: &Path) -> Result<ParsedList, SourceError> {
    let path = find_file(dir, NAMES)
        .or_else(|| find_by_extension(dir, &[".xml", ".csv", ".xlsx"]))
        .ok_or_else(|| SourceError::Missing {
            list: ListCode::UkHmt,
            dir: dir.display().to_string(),
            expected: NAMES.join(", "),
        })?;
    let input = Input::read(&path)?;
    parse_input(&input)
}

/// Parses one file of any of the formats.
pub fn parse_input(input: &Input) -> Result<ParsedList, SourceError> {
    let lower = input.name.to_ascii_lowercase();
    if lower.ends_with(".xml") || (!lower.ends_with(".xlsx") && xml::is_xml(&input.bytes)) {
        return xml::parse_input(input);
    }
    let table = if input.name.to_ascii_lowercase().ends_with(".xlsx") {
        table::read_xlsx(input, &is_header)?
    } else {
        table::read_csv(input, &is_header)?
    };
    let layout = if table.has(FCDO.id) { &FCDO } else { &CONLIST };
    let mut parsed = ParsedList::new(ListCode::UkHmt);
    parsed.entities = build::entities(&table, layout)?;
    parsed.files.push(input.source_file());
    parsed.published = published(&table);
    if parsed.entities.is_empty() {
        return Err(SourceError::parse(
            &input.name,
            "",
            "the file lists no entries",
        ));
    }
    Ok(parsed)
}

/// The header row of a ConList (`Group ID`) or FCDO (`Unique ID`) file.
fn is_header(row: &[String]) -> bool {
    let has = |name: &str| row.iter().any(|c| clean(c).eq_ignore_ascii_case(name));
    // The FCDO's summary export has one `Name` column instead of Name 1..6.
    (has("Name 6") || has("Name")) && (has(CONLIST.id) || has(FCDO.id))
}

/// The date of the line above the header ("Last Updated,14/04/2025" or "Report Date: ...").
fn published(table: &Table) -> Option<String> {
    table.preamble.iter().flatten().find_map(|cell| {
        let value = cell.rsplit_once(':').map_or(cell.as_str(), |(_, v)| v);
        // "11-Aug-2025" is read as "11 Aug 2025".
        build::iso_day(value).or_else(|| build::iso_day(&value.replace('-', " ")))
    })
}

/// Title, given (Name 1), middle (Names 2-5) and family (Name 6) names of a person.
fn name_parts(table: &Table, row: &[String], kind: EntityKind) -> NameParts {
    if kind != EntityKind::Individual {
        return NameParts::default();
    }
    let middle: Vec<String> = ["Name 2", "Name 3", "Name 4", "Name 5"]
        .iter()
        .filter_map(|c| clean_opt(table.get(row, c)))
        .collect();
    NameParts {
        title: clean_opt(table.get(row, "Title")),
        given: clean_opt(table.get(row, "Name 1")),
        middle: (!middle.is_empty()).then(|| middle.join(" ")),
        patronymic: None,
        family: clean_opt(table.get(row, "Name 6")),
    }
}

#[cfg(test)]
mod tests;
