//! Australia DFAT's consolidated list spreadsheet (`regulation8_consolidated.xlsx`): one row
//! per name, grouped by the leading digits of `Reference` (`12`, `12a`, `12b` -> entity `12`).

mod fields;

use crate::text::script_of;
use std::io::Cursor;
use std::path::Path;

use calamine::{Data, Reader, Xlsx};

use super::{Input, OfficialFile, ParsedList, SourceError, read_single_file};
use crate::model::{Address, Alias, Entity, EntityKind, ListCode, clean, to_iso2};

/// The files `lists update` downloads.
pub const FILES: &[OfficialFile] = &[OfficialFile {
    file_name: "regulation8_consolidated.xlsx",
    url: "https://www.dfat.gov.au/sites/default/files/regulation8_consolidated.xlsx",
    optional: false,
}];

/// The columns read, by their header text.
#[derive(Debug, Clone, Copy)]
enum Col {
    Reference,
    Name,
    Type,
    NameType,
    Dob,
    Pob,
    Citizenship,
    Address,
    Info,
    Listing,
    Committees,
    ControlDate,
}

const HEADERS: [(Col, &str); 12] = [
    (Col::Reference, "reference"),
    (Col::Name, "name of individual or entity"),
    (Col::Type, "type"),
    (Col::NameType, "name type"),
    (Col::Dob, "date of birth"),
    (Col::Pob, "place of birth"),
    (Col::Citizenship, "citizenship"),
    (Col::Address, "address"),
    (Col::Info, "additional information"),
    (Col::Listing, "listing information"),
    (Col::Committees, "committees"),
    (Col::ControlDate, "control date"),
];

/// One data row with its 1-based sheet row number.
struct Row<'a> {
    number: usize,
    cells: &'a [Data],
    columns: &'a [usize; 12],
}

impl Row<'_> {
    fn cell(&self, col: Col) -> &Data {
        self.cells
            .get(self.columns[col as usize])
            .unwrap_or(&Data::Empty)
    }

    fn text(&self, col: Col) -> String {
        fields::cell_text(self.cell(col))
    }
}

/// Parses the list from its folder.
pub fn parse_dir(dir: &Path) -> Result<ParsedList, SourceError> {
    parse_input(&read_single_file(ListCode::AuDfat, dir)?)
}

/// Parses the workbook held in `input`.
pub fn parse_input(input: &Input) -> Result<ParsedList, SourceError> {
    let fail = |pos: String, msg: String| SourceError::parse(&input.name, pos, msg);
    super::archive::check_zip(&input.name, &input.bytes, &super::archive::XLSX_LIMITS)?;
    let mut book: Xlsx<_> = Xlsx::new(Cursor::new(input.bytes.as_slice()))
        .map_err(|e| fail(String::new(), format!("not a readable xlsx workbook: {e}")))?;
    let sheet = book
        .sheet_names()
        .first()
        .cloned()
        .ok_or_else(|| fail(String::new(), "the workbook has no sheet".into()))?;
    let range = book.worksheet_range(&sheet).map_err(|e| {
        fail(
            format!("sheet {sheet}"),
            format!("cannot read the sheet: {e}"),
        )
    })?;
    let first_row = range.start().map_or(0, |(r, _)| r as usize) + 1;
    let mut rows = range.rows();
    let header = rows
        .next()
        .ok_or_else(|| fail(String::new(), "the sheet is empty".into()))?;
    let columns = header_columns(header).map_err(|m| fail(format!("row {first_row}"), m))?;
    let data: Vec<Row> = rows
        .enumerate()
        .map(|(i, cells)| Row {
            number: first_row + 1 + i,
            cells,
            columns: &columns,
        })
        .collect();
    let mut parsed = ParsedList::new(ListCode::AuDfat);
    parsed.files.push(input.source_file());
    let groups = group_rows(&data).map_err(|(row, m)| fail(format!("row {row}"), m))?;
    for group in &groups {
        let (entity, note) = entity_of(group);
        parsed
            .notes
            .extend(note.map(|n| format!("{}: {n}", input.name)));
        parsed.entities.push(entity);
    }
    if parsed.entities.is_empty() {
        return Err(fail(String::new(), "no rows under the header".into()));
    }
    parsed.published = data
        .iter()
        .filter_map(|r| fields::date_cell(r.cell(Col::ControlDate)))
        .filter(|d| d.len() == 10)
        .max();
    Ok(parsed)
}

/// The index of each wanted column, found by its header text.
fn header_columns(header: &[Data]) -> Result<[usize; 12], String> {
    let names: Vec<String> = header
        .iter()
        .map(|c| fields::cell_text(c).to_lowercase())
        .collect();
    let mut columns = [0; 12];
    for (col, wanted) in HEADERS {
        columns[col as usize] = names
            .iter()
            .position(|n| n == wanted)
            .ok_or_else(|| format!("no \"{wanted}\" column in the header: not the DFAT list"))?;
    }
    Ok(columns)
}

/// Groups rows by the leading digits of Reference, in file order; blank rows are skipped.
fn group_rows<'a>(rows: &'a [Row<'a>]) -> Result<Vec<Vec<&'a Row<'a>>>, (usize, String)> {
    let mut groups: Vec<(String, Vec<&Row>)> = Vec::new();
    let mut index = std::collections::HashMap::new();
    for row in rows {
        let reference = row.text(Col::Reference);
        if reference.is_empty() {
            if row.cells.iter().all(|c| fields::cell_text(c).is_empty()) {
                continue;
            }
            return Err((row.number, "a row with names but no Reference".into()));
        }
        let key: String = reference.chars().take_while(char::is_ascii_digit).collect();
        if key.is_empty() {
            return Err((
                row.number,
                format!("Reference \"{reference}\" does not start with a number"),
            ));
        }
        let slot = *index.entry(key.clone()).or_insert_with(|| {
            groups.push((key, Vec::new()));
            groups.len() - 1
        });
        groups[slot].1.push(row);
    }
    Ok(groups.into_iter().map(|(_, rows)| rows).collect())
}

fn is_primary(row: &Row) -> bool {
    row.text(Col::NameType).to_lowercase() == "primary name"
}

/// The entity of one group, and a note when the group has no Primary Name row.
fn entity_of(group: &[&Row]) -> (Entity, Option<String>) {
    let primary_row = group.iter().find(|r| is_primary(r));
    let note = primary_row.is_none().then(|| {
        format!(
            "row {}: group without a Primary Name row, its first row used",
            group[0].number
        )
    });
    let primary = primary_row.unwrap_or(&group[0]);
    let kind = if primary
        .text(Col::Type)
        .to_lowercase()
        .contains("individual")
    {
        EntityKind::Individual
    } else {
        EntityKind::Entity
    };
    let mut entity = Entity::new(
        ListCode::AuDfat,
        primary.text(Col::Reference),
        kind,
        primary.text(Col::Name),
    );
    entity.source_url = Some(FILES[0].url.to_owned());
    for row in group.iter().filter(|r| !std::ptr::eq(**r, *primary)) {
        entity.push_alias(alias_of(row));
    }
    for row in std::iter::once(primary).chain(group.iter()) {
        add_details(&mut entity, row);
    }
    (entity, note)
}

fn alias_of(row: &Row) -> Alias {
    let name = row.text(Col::Name);
    let kind = match row.text(Col::NameType).to_lowercase().as_str() {
        "" => None,
        "aka" => Some("aka".to_owned()),
        "formerly known as" => Some("fka".to_owned()),
        other => Some(other.replace(' ', "_")),
    };
    let script =
        (kind.as_deref() == Some("original_script")).then(|| script_of(&name).map(str::to_owned));
    Alias {
        kind,
        script: script.flatten(),
        ..Alias::new(name)
    }
}

/// Dates and places of birth, citizenships, addresses, programmes and listing facts of a row
/// (the primary row first; other rows of a group normally repeat them).
fn add_details(entity: &mut Entity, row: &Row) {
    for date in fields::birth_dates(row.cell(Col::Dob)) {
        if !entity.birth_dates.contains(&date) {
            entity.birth_dates.push(date);
        }
    }
    for place in fields::lettered(&row.text(Col::Pob))
        .into_iter()
        .filter(|p| !fields::is_none(p))
    {
        if let Some(code) = to_iso2(&place) {
            entity.push_country(code);
        }
        if !entity.birth_places.contains(&place) {
            entity.birth_places.push(place);
        }
    }
    for citizenship in fields::citizenships(&row.text(Col::Citizenship)) {
        match fields::country_code(&citizenship) {
            Some(code) => entity.push_nationality(code),
            None => set_once(entity, "citizenship", citizenship),
        }
    }
    for line in fields::lettered(&row.text(Col::Address))
        .into_iter()
        .filter(|a| !fields::is_none(a))
    {
        let country = to_iso2(&line).map(str::to_owned);
        if let Some(code) = &country {
            entity.push_country(code);
        }
        let address = Address {
            full: Some(line),
            country,
            ..Address::default()
        };
        if !entity.addresses.contains(&address) {
            entity.addresses.push(address);
        }
    }
    let committees = row.text(Col::Committees);
    if !committees.is_empty() {
        entity.push_program(&committees);
    }
    let info = row.text(Col::Info);
    if entity.remarks.is_none() && !fields::is_none(&info) {
        entity.remarks = Some(info);
    }
    let listing = row.text(Col::Listing);
    if entity.listed_on.is_none() {
        entity.listed_on = fields::first_date(&listing);
    }
    set_once(entity, "listing_information", listing);
    set_once(entity, "type", row.text(Col::Type));
    set_once(
        entity,
        "control_date",
        fields::date_cell(row.cell(Col::ControlDate)).unwrap_or_default(),
    );
}

/// Sets attribute `key` unless it is set or `value` is empty.
fn set_once(entity: &mut Entity, key: &str, value: String) {
    let value = clean(&value);
    if !value.is_empty() && !fields::is_none(&value) {
        entity.attributes.entry(key.to_owned()).or_insert(value);
    }
}

#[cfg(test)]
mod tests;
