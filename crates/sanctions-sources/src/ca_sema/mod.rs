//! Canada's Consolidated Special Economic Measures Act (SEMA) list XML (`sema-lmes.xml`):
//! `<data-set><record>…`, one entity per record, keyed `Country/Schedule/Item`.

mod aliases;

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use quick_xml::Reader;
use quick_xml::events::Event;

use super::text::{line_at, script_of};
use super::{Input, OfficialFile, ParsedList, SourceError, read_single_file};
use crate::model::{Alias, DateSpec, Entity, EntityKind, IdDocument, ListCode, clean, to_iso2};

/// The files `lists update` downloads.
pub const FILES: &[OfficialFile] = &[OfficialFile {
    file_name: "sema-lmes.xml",
    url: "https://www.international.gc.ca/world-monde/assets/office_docs/international_relations-relations_internationales/sanctions/sema-lmes.xml",
    optional: false,
}];

/// Words of `TitleOrShip` that make a record without a person's name a vessel.
const SHIP_WORDS: &[&str] = &["tanker", "cargo", "vessel", "carrier", "ship"];

/// One `<record>`: its fields by element name, and where it starts.
#[derive(Debug, Default)]
struct Record {
    fields: BTreeMap<String, String>,
    /// Byte offset of `<record>` in the decoded text, and its 1-based rank.
    offset: u64,
    index: usize,
}

impl Record {
    fn get(&self, name: &str) -> String {
        self.fields.get(name).map(|v| clean(v)).unwrap_or_default()
    }
}

/// Parses the list from its folder.
pub fn parse_dir(dir: &Path) -> Result<ParsedList, SourceError> {
    parse_input(&read_single_file(ListCode::CaSema, dir)?)
}

/// Parses the XML held in `input`.
pub fn parse_input(input: &Input) -> Result<ParsedList, SourceError> {
    let mut parsed = ParsedList::new(ListCode::CaSema);
    parsed.files.push(input.source_file());
    let mut seen = HashSet::new();
    let mut duplicates = 0;
    let text = input.text()?;
    for record in read_records(&input.name, &text)? {
        let entity = entity_of(&record).map_err(|m| {
            let line = line_at(text.as_bytes(), record.offset);
            SourceError::parse(
                &input.name,
                format!("line {line} (<record> {})", record.index),
                m,
            )
        })?;
        if seen.insert(entity.source_id.clone()) {
            parsed.entities.push(entity);
        } else {
            duplicates += 1;
        }
    }
    if duplicates > 0 {
        parsed.notes.push(format!(
            "{}: {duplicates} records repeating a Country/Schedule/Item key skipped",
            input.name
        ));
    }
    Ok(parsed)
}

/// Streams the `<record>` elements of the file.
fn read_records(file: &str, text: &str) -> Result<Vec<Record>, SourceError> {
    let mut reader = Reader::from_str(text);
    let fail = |offset: u64, message: String| {
        SourceError::parse(
            file,
            format!("line {}", line_at(text.as_bytes(), offset)),
            message,
        )
    };
    let mut records = Vec::new();
    let mut path: Vec<String> = Vec::new();
    let mut record: Option<Record> = None;
    loop {
        let position = reader.buffer_position();
        let event = reader
            .read_event()
            .map_err(|e| fail(reader.error_position(), format!("malformed XML: {e}")))?;
        match event {
            Event::Start(start) => {
                let name = start.local_name().as_ref().to_owned();
                check_element(&path, &name).map_err(|m| fail(position, m))?;
                if path.len() == 1 {
                    record = Some(Record {
                        offset: position,
                        index: records.len() + 1,
                        ..Record::default()
                    });
                }
                path.push(name);
            }
            Event::Empty(start) => {
                let name = start.local_name().as_ref().to_owned();
                check_element(&path, &name).map_err(|m| fail(position, m))?;
            }
            Event::End(_) => {
                path.pop();
                if path.len() == 1
                    && let Some(done) = record.take()
                {
                    records.push(done);
                }
            }
            Event::Text(t) => append(&mut record, &path, &t.xml10_content()),
            Event::CData(t) => append(&mut record, &path, &t.xml10_content()),
            Event::GeneralRef(r) => {
                let resolved = match r.resolve_char_ref() {
                    Ok(Some(c)) => c.to_string(),
                    _ => {
                        let name = r.xml10_content();
                        quick_xml::escape::resolve_predefined_entity(&name)
                            .ok_or_else(|| fail(position, format!("unknown entity &{name};")))?
                            .to_owned()
                    }
                };
                append(&mut record, &path, &resolved);
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if let Some(open) = path.last() {
        return Err(fail(
            text.len() as u64,
            format!("the file ends inside <{open}>: truncated"),
        ));
    }
    if records.is_empty() {
        return Err(fail(
            0,
            "no <record> in <data-set>: not the SEMA list".into(),
        ));
    }
    Ok(records)
}

/// The root must be `<data-set>`, its children `<record>`.
fn check_element(path: &[String], name: &str) -> Result<(), String> {
    match path.len() {
        0 if name != "data-set" => Err(format!("root element <{name}>, expected <data-set>")),
        1 if name != "record" => Err(format!("<{name}> in <data-set>, expected <record>")),
        _ => Ok(()),
    }
}

/// Adds text to the current record's field (the element directly inside `<record>`).
fn append(record: &mut Option<Record>, path: &[String], text: &str) {
    if let (Some(record), Some(field)) = (record.as_mut(), path.get(2)) {
        record
            .fields
            .entry(field.clone())
            .or_default()
            .push_str(text);
    }
}

/// `Country/Schedule/Item` as ID_SCHEME.md defines it.
fn source_id(record: &Record) -> Result<String, String> {
    let country = record.get("Country");
    let english = country.split(" / ").next().unwrap_or_default().trim();
    let schedule: String = record
        .fields
        .get("Schedule")
        .map(|s| s.chars().filter(|c| !c.is_whitespace()).collect())
        .unwrap_or_default();
    let item = record.get("Item");
    if english.is_empty() || item.is_empty() {
        return Err("a record needs a Country and an Item (they make its identifier)".into());
    }
    Ok(format!("{english}/{schedule}/{item}"))
}

fn kind_of(record: &Record) -> EntityKind {
    if !record.get("LastName").is_empty() || !record.get("GivenName").is_empty() {
        return EntityKind::Individual;
    }
    let title = record.get("TitleOrShip").to_lowercase();
    if !record.get("ShipIMONumber").is_empty() || SHIP_WORDS.iter().any(|w| title.contains(w)) {
        EntityKind::Vessel
    } else {
        EntityKind::Entity
    }
}

fn entity_of(record: &Record) -> Result<Entity, String> {
    let kind = kind_of(record);
    let (given, last) = (record.get("GivenName"), record.get("LastName"));
    let (primary, french) = match kind {
        EntityKind::Individual => (clean(&format!("{given} {last}")), None),
        _ => split_bilingual(&record.get("EntityOrShip")),
    };
    if primary.is_empty() {
        return Err("a record without GivenName, LastName or EntityOrShip".into());
    }
    let mut entity = Entity::new(ListCode::CaSema, source_id(record)?, kind, primary);
    entity.source_url = Some(FILES[0].url.to_owned());
    if kind == EntityKind::Individual {
        entity.name_parts.given = (!given.is_empty()).then_some(given);
        entity.name_parts.family = (!last.is_empty()).then_some(last);
    }
    if let Some(french) = french {
        entity.push_alias(Alias {
            kind: Some("translation".to_owned()),
            lang: Some("fr".to_owned()),
            ..Alias::new(french)
        });
    }
    for name in aliases::split(record.fields.get("Aliases").map_or("", String::as_str)) {
        let script = script_of(&name).map(str::to_owned);
        entity.push_alias(Alias {
            kind: Some("aka".to_owned()),
            script,
            ..Alias::new(name)
        });
    }
    add_regime(&mut entity, record);
    add_details(&mut entity, record);
    Ok(entity)
}

/// `English name/Nom français` (38 entries name themselves in both languages): the English
/// name and the French one. Only one `/` outside parentheses splits, with words on both
/// sides, so `MEC Steel Mills (Hmaw Bi/Pyi/Ywama)` or `A/S` stay whole.
fn split_bilingual(name: &str) -> (String, Option<String>) {
    let mut depth = 0i32;
    let mut slashes = Vec::new();
    for (i, c) in name.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            '/' if depth == 0 => slashes.push(i),
            _ => {}
        }
    }
    if let [at] = slashes.as_slice() {
        let (english, french) = (clean(&name[..*at]), clean(&name[at + 1..]));
        let wordy = |s: &str| s.split(' ').filter(|w| w.chars().count() >= 2).count() >= 2;
        if wordy(&english) && wordy(&french) {
            return (english, Some(french));
        }
    }
    (name.to_owned(), None)
}

/// The Country label names the regime; its English part is a country for most of them.
fn add_regime(entity: &mut Entity, record: &Record) {
    let country = record.get("Country");
    let english = country
        .split(" / ")
        .next()
        .unwrap_or_default()
        .trim()
        .to_owned();
    if let Some(code) = to_iso2(&english) {
        entity.push_country(code);
    }
    entity.push_program(&english);
    entity.attributes.insert("regime".to_owned(), country);
    for (field, key) in [("Schedule", "schedule"), ("Item", "item")] {
        let value = record.get(field);
        if !value.is_empty() {
            entity.attributes.insert(key.to_owned(), value);
        }
    }
}

fn add_details(entity: &mut Entity, record: &Record) {
    let date = record.get("DateOfBirthOrShipBuildDate");
    let title = record.get("TitleOrShip");
    let imo = record.get("ShipIMONumber");
    match entity.kind {
        EntityKind::Individual => {
            entity.birth_dates.extend(DateSpec::parse_loose(&date));
            if !title.is_empty() {
                let english = title.split('/').next().unwrap_or_default().trim();
                entity.name_parts.title = Some(english.to_owned());
                entity.attributes.insert("title".to_owned(), title);
            }
        }
        _ => {
            set(entity, "build_date", date);
            set(entity, "vessel_type", title);
        }
    }
    if !imo.is_empty() {
        entity.identifiers.push(IdDocument {
            doc_type: "IMO number".to_owned(),
            number: imo.clone(),
            country: None,
            note: None,
        });
        entity.attributes.insert("imo_number".to_owned(), imo);
    }
    let listed = record.get("DateOfListing");
    if let Some(DateSpec::Day { .. }) = DateSpec::parse_loose(&listed) {
        entity.listed_on = DateSpec::parse_loose(&listed).map(|d| d.iso());
    }
    set(entity, "date_of_listing", listed);
    const KNOWN: &[&str] = &[
        "Country",
        "LastName",
        "GivenName",
        "EntityOrShip",
        "TitleOrShip",
        "ShipIMONumber",
        "DateOfBirthOrShipBuildDate",
        "Schedule",
        "Item",
        "DateOfListing",
        "Aliases",
    ];
    for (field, value) in record
        .fields
        .iter()
        .filter(|(f, _)| !KNOWN.contains(&f.as_str()))
    {
        set(entity, field, clean(value));
    }
}

/// Sets attribute `key` when `value` is not empty.
fn set(entity: &mut Entity, key: &str, value: String) {
    if !value.is_empty() {
        entity.attributes.insert(key.to_owned(), value);
    }
}

#[cfg(test)]
mod tests;
