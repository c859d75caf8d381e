//! The FCDO UK Sanctions List in its XML publication (`UK-Sanctions-List.xml`), the most
//! stable of its forms: root `<Designations>` with `<DateGenerated>`, one `<Designation>` per
//! entry holding its names (`Names/Name` with `Name1`..`Name6`, `NameType`, `AliasStrength`),
//! non-Latin names, regime, addresses and the individual, entity or ship details.
//!
//! Elements this parser does not know are tolerated: counted in the notes and logged, never
//! a failure, so that a field the FCDO adds does not stop the UK list from importing.

use std::collections::BTreeMap;

use super::build::{add_document, iso_day};
use crate::eu::node::{self, Node};
use crate::model::{
    Address, Alias, AliasQuality, DateSpec, Entity, EntityKind, ListCode, NameParts, clean,
    clean_opt, to_iso2,
};
use crate::text::script_of;
use crate::{Input, ParsedList, SourceError};

/// The address of the XML publication.
pub const URL: &str = "https://sanctionslist.fcdo.gov.uk/docs/UK-Sanctions-List.xml";

/// The children of `<Designation>` this parser reads; any other is noted as unknown.
const KNOWN: &[&str] = &[
    "LastUpdated",
    "DateDesignated",
    "UniqueID",
    "OFSIGroupID",
    "UNReferenceNumber",
    "Names",
    "NonLatinNames",
    "RegimeName",
    "IndividualEntityShip",
    "DesignationSource",
    "SanctionsImposed",
    "SanctionsImposedIndicators",
    "OtherInformation",
    "UKStatementofReasons",
    "Addresses",
    "PhoneNumbers",
    "EmailAddresses",
    "WebAddresses",
    "IndividualDetails",
    "EntityDetails",
    "ShipDetails",
];

/// True when `bytes` look like the FCDO XML (rather than one of the UK tables).
pub fn is_xml(bytes: &[u8]) -> bool {
    let start = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    start.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'<')
}

/// Parses the XML held in `input`.
pub fn parse_input(input: &Input) -> Result<ParsedList, SourceError> {
    let text = input.text()?;
    let mut parsed = ParsedList::new(ListCode::UkHmt);
    let mut unknown: BTreeMap<String, usize> = BTreeMap::new();
    let mut seen = std::collections::HashSet::new();
    let mut duplicates = 0usize;
    node::read_records(
        &input.name,
        &text,
        "Designations",
        &["Designation", "DateGenerated"],
        |record| {
            if record.name == "DateGenerated" {
                parsed.published = published(&record.text);
                return Ok(());
            }
            let entity = designation(&record, &mut unknown)
                .map_err(|message| SourceError::parse(&input.name, "<Designation>", message))?;
            if seen.insert(entity.source_id.clone()) {
                parsed.entities.push(entity);
            } else {
                duplicates += 1;
            }
            Ok(())
        },
    )?;
    parsed.files.push(input.source_file());
    if duplicates > 0 {
        parsed.notes.push(format!(
            "{}: {duplicates} <Designation> elements repeating a UniqueID skipped",
            input.name
        ));
    }
    if !unknown.is_empty() {
        let list: Vec<String> = unknown.iter().map(|(n, c)| format!("{n} ({c})")).collect();
        tracing::info!(file = %input.name, unknown = %list.join(", "), "unknown FCDO elements ignored");
        parsed.notes.push(format!(
            "{}: elements not read (new in the format?): {}",
            input.name,
            list.join(", ")
        ));
    }
    if parsed.entities.is_empty() {
        return Err(SourceError::parse(
            &input.name,
            "",
            "no <Designation> in <Designations>: not the UK Sanctions List",
        ));
    }
    Ok(parsed)
}

/// `2026-01-28T09:00:00` or `28/01/2026` as `YYYY-MM-DD`.
fn published(text: &str) -> Option<String> {
    let text = clean(text);
    match text.get(..10) {
        Some(day) if day.as_bytes().get(4) == Some(&b'-') => iso_day(day),
        _ => iso_day(text.split(' ').next().unwrap_or_default()),
    }
}

/// One `<Designation>` as an entity.
fn designation(d: &Node, unknown: &mut BTreeMap<String, usize>) -> Result<Entity, String> {
    let id = clean(d.text_of("UniqueID"));
    if id.is_empty() {
        return Err("a <Designation> without <UniqueID>".into());
    }
    for child in &d.children {
        if !KNOWN.contains(&child.name.as_str()) {
            *unknown.entry(child.name.clone()).or_default() += 1;
        }
    }
    let kind = match clean(d.text_of("IndividualEntityShip"))
        .to_ascii_lowercase()
        .as_str()
    {
        "individual" => EntityKind::Individual,
        "ship" => EntityKind::Vessel,
        _ => EntityKind::Entity,
    };
    let names: Vec<&Node> = all(d, &["Names", "Name"]).collect();
    let primary_at = names
        .iter()
        .position(|n| clean(n.text_of("NameType")).eq_ignore_ascii_case("Primary Name"))
        .unwrap_or(0);
    let primary = names.get(primary_at).copied();
    let primary_name = primary.map(full_name).unwrap_or_default();
    if primary_name.is_empty() {
        return Err(format!("UniqueID {id}: no name"));
    }
    let mut e = Entity::new(ListCode::UkHmt, id, kind, primary_name);
    e.source_url = Some(URL.to_owned());
    if kind == EntityKind::Individual
        && let Some(name) = primary
    {
        e.name_parts = name_parts(name);
    }
    for (i, name) in names.iter().enumerate() {
        if i == primary_at {
            continue;
        }
        let quality = match clean(name.text_of("AliasStrength"))
            .to_ascii_lowercase()
            .as_str()
        {
            "" => AliasQuality::Unspecified,
            s if s.starts_with("low") || s.starts_with("weak") => AliasQuality::Weak,
            _ => AliasQuality::Strong,
        };
        e.push_alias(Alias {
            kind: clean_opt(&name.text_of("NameType").to_ascii_lowercase()),
            quality,
            ..Alias::new(full_name(name))
        });
    }
    for name in all(d, &["NonLatinNames", "NonLatinName"]) {
        let text = clean(name.text_of("NameNonLatinScript"));
        let script = clean_opt(name.text_of("NonLatinScriptType"))
            .or_else(|| script_of(&text).map(str::to_owned));
        e.push_alias(Alias {
            kind: Some("original_script".to_owned()),
            script,
            lang: clean_opt(name.text_of("NonLatinScriptLanguage")),
            ..Alias::new(text)
        });
    }
    for regime in d.all("RegimeName") {
        e.push_program(&regime.text);
    }
    e.listed_on = iso_day(d.text_of("DateDesignated"));
    for (element, key) in [
        ("LastUpdated", "last_updated"),
        ("OFSIGroupID", "ofsi_group_id"),
        ("UNReferenceNumber", "un_reference"),
        ("DesignationSource", "designation_source"),
        ("SanctionsImposed", "sanctions_imposed"),
    ] {
        if let Some(value) = clean_opt(d.text_of(element)) {
            let value = if key == "last_updated" {
                iso_day(&value).unwrap_or(value)
            } else {
                value
            };
            e.attributes.insert(key.to_owned(), value);
        }
    }
    let remarks: Vec<String> = ["OtherInformation", "UKStatementofReasons"]
        .iter()
        .filter_map(|n| clean_opt(d.text_of(n)))
        .collect();
    e.remarks = (!remarks.is_empty()).then(|| remarks.join(" "));
    for address in all(d, &["Addresses", "Address"]) {
        add_address(&mut e, address);
    }
    for individual in all(d, &["IndividualDetails", "Individual"]) {
        add_individual(&mut e, individual);
    }
    for entity in all(d, &["EntityDetails", "Entity"]) {
        for number in all(
            entity,
            &["BusinessRegistrationNumbers", "BusinessRegistrationNumber"],
        ) {
            add_document(&mut e, "Business registration number", &number.text, "");
        }
        if let Some(kind) = clean_opt(&texts(entity, &["TypeOfEntities", "TypeOfEntity"])) {
            e.attributes.insert("entity_type".to_owned(), kind);
        }
    }
    for ship in all(d, &["ShipDetails", "Ship"]) {
        for imo in all(ship, &["IMONumbers", "IMONumber"]) {
            add_document(&mut e, "IMO number", &imo.text, "");
            if let Some(imo) = clean_opt(&imo.text) {
                e.attributes.entry("imo_number".to_owned()).or_insert(imo);
            }
        }
        let flag = texts(
            ship,
            &["CurrentBelievedFlagOfShips", "CurrentBelievedFlagOfShip"],
        );
        if let Some(flag) = clean_opt(&flag) {
            if let Some(iso) = to_iso2(&flag) {
                e.push_country(iso);
            }
            e.attributes.insert("flag".to_owned(), flag);
        }
        if let Some(ty) = clean_opt(&texts(ship, &["TypeOfShips", "TypeOfShip"])) {
            e.attributes.insert("ship_type".to_owned(), ty);
        }
    }
    Ok(e)
}

/// The descendants of `node` reached by following the element names of `path`.
fn all<'a>(node: &'a Node, path: &'a [&'a str]) -> Box<dyn Iterator<Item = &'a Node> + 'a> {
    match path {
        [] => Box::new(std::iter::once(node)),
        [first, rest @ ..] => Box::new(node.all(first).flat_map(move |c| all(c, rest))),
    }
}

/// The texts found at `path`, joined by "; ".
fn texts(node: &Node, path: &[&str]) -> String {
    all(node, path)
        .filter_map(|n| clean_opt(&n.text))
        .collect::<Vec<_>>()
        .join("; ")
}

/// `Name1 .. Name5 Name6`: given and other names, then the family (or whole) name.
fn full_name(name: &Node) -> String {
    let parts: Vec<&str> = ["Name1", "Name2", "Name3", "Name4", "Name5", "Name6"]
        .iter()
        .map(|p| name.text_of(p))
        .collect();
    clean(&parts.join(" "))
}

fn name_parts(name: &Node) -> NameParts {
    let middle = clean(
        &["Name2", "Name3", "Name4", "Name5"]
            .iter()
            .map(|p| name.text_of(p))
            .collect::<Vec<_>>()
            .join(" "),
    );
    NameParts {
        title: clean_opt(name.text_of("Title")),
        given: clean_opt(name.text_of("Name1")),
        middle: (!middle.is_empty()).then_some(middle),
        patronymic: None,
        family: clean_opt(name.text_of("Name6")),
    }
}

fn add_address(e: &mut Entity, a: &Node) {
    let lines: Vec<String> = (1..=6)
        .filter_map(|i| clean_opt(a.text_of(&format!("AddressLine{i}"))))
        .collect();
    let postal_code = clean_opt(a.text_of("AddressPostalCode"));
    let country_text = clean(a.text_of("AddressCountry"));
    let country = to_iso2(&country_text).map(str::to_owned);
    let mut full = lines.clone();
    full.extend(postal_code.clone());
    full.extend(clean_opt(&country_text));
    if full.is_empty() {
        return;
    }
    if let Some(iso) = &country {
        e.push_country(iso);
    }
    let address = Address {
        street: (!lines.is_empty()).then(|| lines.join(", ")),
        postal_code,
        country,
        full: Some(full.join(", ")),
        ..Address::default()
    };
    if !e.addresses.contains(&address) {
        e.addresses.push(address);
    }
}

fn add_individual(e: &mut Entity, i: &Node) {
    for dob in all(i, &["DOBs", "DOB"]) {
        // Unknown parts are written as letters: `dd/mm/1944`.
        let text = dob.text.replace("dd", "00").replace("mm", "00");
        if let Some(date) = DateSpec::parse_loose(&text)
            && !e.birth_dates.contains(&date)
        {
            e.birth_dates.push(date);
        }
    }
    for n in all(i, &["Nationalities", "Nationality"]) {
        if let Some(iso) = to_iso2(&clean(&n.text)) {
            e.push_nationality(iso);
        }
    }
    for (path, key) in [
        (["Genders", "Gender"], "gender"),
        (["Positions", "Position"], "position"),
    ] {
        if let Some(value) = clean_opt(&texts(i, &path)) {
            e.attributes.insert(key.to_owned(), value);
        }
    }
    for place in all(i, &["BirthDetails", "Location"]) {
        let country = clean(place.text_of("CountryOfBirth"));
        let text = [clean(place.text_of("TownOfBirth")), country.clone()]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(", ");
        if let Some(iso) = to_iso2(&country) {
            e.push_country(iso);
        }
        if !text.is_empty() && !e.birth_places.contains(&text) {
            e.birth_places.push(text);
        }
    }
    for p in all(i, &["PassportDetails", "Passport"]) {
        add_document(
            e,
            "Passport",
            p.text_of("PassportNumber"),
            p.text_of("PassportAdditionalInformation"),
        );
    }
    for n in all(i, &["NationalIdentifierDetails", "NationalIdentifier"]) {
        add_document(
            e,
            "National ID",
            n.text_of("NationalIdentifierNumber"),
            n.text_of("NationalIdentifierAdditionalInformation"),
        );
    }
}
