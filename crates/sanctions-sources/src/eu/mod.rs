//! The EU Financial Sanctions Files (FSF) XML 1.1 export (`xmlFullSanctionsList_1_1.xml`):
//! one [`Entity`] per distinct `sanctionEntity/@logicalId`. Also owns [`node`], the streaming
//! record reader the UN parser shares.

pub(crate) mod node;

use crate::text::{is_latin, join_parts};
use std::collections::HashMap;
use std::path::Path;

use node::Node;

use super::{Input, OfficialFile, ParsedList, SourceError, find_by_extension, find_file};
use crate::model::to_iso2;
use crate::model::{
    Address, Alias, AliasQuality, DateSpec, Entity, EntityKind, IdDocument, ListCode, clean,
    clean_opt,
};

/// The files `lists update` downloads.
pub const FILES: &[OfficialFile] = &[OfficialFile {
    file_name: "xmlFullSanctionsList_1_1.xml",
    url: "https://webgate.ec.europa.eu/fsd/fsf/public/files/xmlFullSanctionsList_1_1/content?token=dG9rZW4tMjAxNw",
    optional: false,
}];

/// Parses the list from its folder: the official file name, else the first `.xml` file (the
/// publisher's downloads carry dated names such as `..._fsf_xml_1_1_2022-03-18.xml`).
pub fn parse_dir(dir: &Path) -> Result<ParsedList, SourceError> {
    let path = find_file(dir, &[FILES[0].file_name])
        .or_else(|| find_by_extension(dir, &[".xml"]))
        .ok_or_else(|| SourceError::Missing {
            list: ListCode::Eu,
            dir: dir.display().to_string(),
            expected: format!("{} or another .xml file", FILES[0].file_name),
        })?;
    parse_input(&Input::read(&path)?)
}

/// Parses one FSF XML 1.1 file.
pub fn parse_input(input: &Input) -> Result<ParsedList, SourceError> {
    let text = input.text()?;
    let mut entities: Vec<Entity> = Vec::new();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    let (root, count) = node::read_records(
        &input.name,
        &text,
        "export",
        &["sanctionEntity"],
        |record| {
            let id = clean(record.attr("logicalId"));
            if id.is_empty() {
                return Err(SourceError::parse(
                    &input.name,
                    "",
                    "a <sanctionEntity> has no logicalId",
                ));
            }
            match by_id.get(&id) {
                Some(&i) => merge(&mut entities[i], &record),
                None => {
                    by_id.insert(id.clone(), entities.len());
                    entities.push(new_entity(id, &record));
                }
            }
            Ok(())
        },
    )?;
    let mut parsed = ParsedList::new(ListCode::Eu);
    parsed.published = root.attr("generationDate").get(..10).map(str::to_owned);
    if count > entities.len() {
        parsed.notes.push(format!(
            "{}: {count} <sanctionEntity> elements merged into {} entities by logicalId",
            input.name,
            entities.len()
        ));
    }
    parsed.entities = entities;
    parsed.files.push(input.source_file());
    Ok(parsed)
}

/// The entity of the first `<sanctionEntity>` of a logicalId.
fn new_entity(id: String, record: &Node) -> Entity {
    let kind = match record.child("subjectType").map(|s| s.attr("code")) {
        Some("person") => EntityKind::Individual,
        _ => EntityKind::Entity,
    };
    // The first name in Latin script is shown (some entries list a Bulgarian or Russian
    // name first); the others stay aliases.
    let first = record
        .children
        .iter()
        .filter(|c| c.name == "nameAlias")
        .find(|a| {
            let name = alias_name(a);
            !name.is_empty() && is_latin(&name)
        })
        .or_else(|| record.child("nameAlias"));
    let primary = first.map(alias_name).unwrap_or_default();
    let mut entity = Entity::new(ListCode::Eu, id, kind, primary);
    if let Some(alias) = first {
        entity.name_parts.given = clean_opt(alias.attr("firstName"));
        entity.name_parts.middle = clean_opt(alias.attr("middleName"));
        entity.name_parts.family = clean_opt(alias.attr("lastName"));
        entity.name_parts.title = clean_opt(alias.attr("title"));
    }
    entity.source_url = Some(FILES[0].url.to_owned());
    for key in ["euReferenceNumber", "unitedNationId", "designationDetails"] {
        if let Some(value) = clean_opt(record.attr(key)) {
            entity.attributes.insert(key.to_owned(), value);
        }
    }
    entity.listed_on = clean_opt(record.attr("designationDate"));
    merge(&mut entity, record);
    entity
}

/// Adds one `<sanctionEntity>`'s names and facts to `entity`, in document order.
fn merge(entity: &mut Entity, record: &Node) {
    for child in &record.children {
        match child.name.as_str() {
            "nameAlias" => add_name(entity, child),
            "regulation" => add_regulation(entity, child),
            "citizenship" => {
                if let Some(iso) = country(child) {
                    entity.push_nationality(iso);
                }
            }
            "birthdate" => add_birth(entity, child),
            "identification" => add_identification(entity, child),
            "address" => add_address(entity, child),
            "remark" => add_remark(entity, &child.text),
            _ => {}
        }
    }
}

/// `wholeName`, or first + middle + last when it is empty.
fn alias_name(alias: &Node) -> String {
    match clean(alias.attr("wholeName")) {
        whole if !whole.is_empty() => whole,
        _ => clean(&format!(
            "{} {} {}",
            alias.attr("firstName"),
            alias.attr("middleName"),
            alias.attr("lastName")
        )),
    }
}

fn add_name(entity: &mut Entity, alias: &Node) {
    let name = alias_name(alias);
    if entity.primary_name.is_empty() {
        entity.primary_name = name.clone();
    }
    entity.push_alias(Alias {
        name,
        kind: None,
        quality: match alias.attr("strong") {
            "false" => AliasQuality::Weak,
            _ => AliasQuality::Strong,
        },
        script: None,
        lang: clean_opt(alias.attr("nameLanguage")),
    });
    for key in ["function", "gender"] {
        if let Some(value) = clean_opt(alias.attr(key)) {
            append_attribute(entity, key, &value);
        }
    }
}

/// Adds `value` to the `key` attribute, `; `-separated, unless already there.
fn append_attribute(entity: &mut Entity, key: &str, value: &str) {
    let slot = entity.attributes.entry(key.to_owned()).or_default();
    if !slot.split("; ").any(|v| v == value) {
        if !slot.is_empty() {
            slot.push_str("; ");
        }
        slot.push_str(value);
    }
}

fn add_regulation(entity: &mut Entity, regulation: &Node) {
    entity.push_program(regulation.attr("programme"));
    if entity.listed_on.is_none() {
        // No designationDate: the first regulation's publication is the listing date.
        entity.listed_on = clean_opt(regulation.attr("publicationDate"));
    }
    if let Some(url) = clean_opt(regulation.text_of("publicationUrl")) {
        append_attribute(entity, "regulation_url", &url);
    }
}

/// The ISO2 code of `countryIso2Code` ("00" means unknown).
fn country(node: &Node) -> Option<&'static str> {
    match node.attr("countryIso2Code").trim() {
        "" | "00" => None,
        code => to_iso2(code),
    }
}

fn add_birth(entity: &mut Entity, birth: &Node) {
    if let Some(date) = birth_date(birth)
        && !entity.birth_dates.contains(&date)
    {
        entity.birth_dates.push(date);
    }
    let country_text = match country(birth) {
        Some(_) => birth.attr("countryDescription"),
        None => "",
    };
    let parts = [
        birth.attr("city"),
        birth.attr("place"),
        birth.attr("region"),
        country_text,
    ];
    let place = join_parts(&parts);
    if !place.is_empty() && !entity.birth_places.contains(&place) {
        entity.birth_places.push(place);
    }
    if let Some(iso) = country(birth) {
        entity.push_country(iso);
    }
}

/// `birthdate`, else day/month/year, else the year range; `circa="true"` keeps the year.
fn birth_date(birth: &Node) -> Option<DateSpec> {
    let full = birth.attr("birthdate");
    if !full.trim().is_empty() {
        return DateSpec::parse_loose(full);
    }
    let (from, to) = (birth.attr("yearRangeFrom"), birth.attr("yearRangeTo"));
    if !from.trim().is_empty() && !to.trim().is_empty() {
        return DateSpec::parse_loose(&format!("{from} to {to}"));
    }
    let year = birth.attr("year").trim();
    if year.is_empty() {
        return None;
    }
    let month = birth.attr("monthOfYear").trim();
    if month.is_empty() {
        return DateSpec::parse_loose(year);
    }
    DateSpec::parse_loose(&format!("{year}-{month:0>2}"))
}

fn add_identification(entity: &mut Entity, id: &Node) {
    let Some(number) = clean_opt(id.attr("number")) else {
        return;
    };
    let doc_type = clean_opt(id.attr("identificationTypeDescription"))
        .unwrap_or_else(|| clean(id.attr("identificationTypeCode")));
    let mut notes: Vec<String> = [
        "issuedBy",
        "issueDate",
        "validFrom",
        "validTo",
        "nameOnDocument",
    ]
    .iter()
    .filter_map(|k| clean_opt(id.attr(k)).map(|v| format!("{k} {v}")))
    .collect();
    for flag in [
        "diplomatic",
        "knownExpired",
        "knownFalse",
        "reportedLost",
        "revokedByIssuer",
    ] {
        if id.attr(flag) == "true" {
            notes.push(flag.to_owned());
        }
    }
    notes.extend(id.all("remark").filter_map(|r| clean_opt(&r.text)));
    entity.identifiers.push(IdDocument {
        doc_type,
        number,
        country: country(id).map(str::to_owned),
        note: (!notes.is_empty()).then(|| notes.join("; ")),
    });
}

fn add_address(entity: &mut Entity, address: &Node) {
    let iso = country(address);
    let street = join_parts(&[address.attr("street"), address.attr("poBox")]);
    let full = join_parts(&[address.attr("place"), &text_remarks(address)]);
    let address = Address {
        street: (!street.is_empty()).then_some(street),
        city: clean_opt(address.attr("city")),
        region: clean_opt(address.attr("region")),
        postal_code: clean_opt(address.attr("zipCode")),
        country: iso.map(str::to_owned),
        full: (!full.is_empty()).then_some(full),
    };
    if let Some(iso) = iso {
        entity.push_country(iso);
    }
    if address != Address::default() && !entity.addresses.contains(&address) {
        entity.addresses.push(address);
    }
}

fn text_remarks(node: &Node) -> String {
    let remarks: Vec<String> = node.all("remark").map(|r| clean(&r.text)).collect();
    join_parts(&remarks.iter().map(String::as_str).collect::<Vec<_>>())
}

fn add_remark(entity: &mut Entity, text: &str) {
    let Some(text) = clean_opt(text) else {
        return;
    };
    match &mut entity.remarks {
        Some(r) if r.split('\n').any(|line| line == text) => {}
        Some(r) => {
            r.push('\n');
            r.push_str(&text);
        }
        None => entity.remarks = Some(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{fixtures, parse_error, shared_data};

    fn error_of(dir: &str) -> String {
        parse_error(parse_dir(&fixtures().join("eu").join(dir)), dir)
    }

    #[test]
    fn reads_the_fixture_and_merges_repeated_logical_ids() {
        let parsed = parse_dir(&fixtures().join("eu/good")).unwrap();
        assert_eq!(parsed.published.as_deref(), Some("2022-03-18"));
        assert_eq!(parsed.entities.len(), 3);
        let saddam = &parsed.entities[0];
        assert_eq!(saddam.entity_id(), "eu:13");
        assert_eq!(saddam.kind, EntityKind::Individual);
        assert_eq!(saddam.primary_name, "Saddam Hussein Al-Tikriti");
        let names: Vec<_> = saddam.aliases.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["Abu Ali", "صدام حسين", "Saddam Hussain"]);
        assert_eq!(saddam.aliases[0].quality, AliasQuality::Weak);
        assert_eq!(saddam.aliases[1].lang.as_deref(), Some("AR"));
        assert_eq!(saddam.programs, ["IRQ", "TERR"]);
        assert_eq!(saddam.nationalities, ["IQ"]);
        assert_eq!(saddam.listed_on.as_deref(), Some("2003-07-07"));
        let dates: Vec<_> = saddam.birth_dates.iter().map(DateSpec::iso).collect();
        assert_eq!(dates, ["1937-04-28", "1938", "1939-05", "1935/1940"]);
        assert_eq!(saddam.birth_places[0], "al-Awja, near Tikrit, IRAQ");
        assert_eq!(saddam.birth_places[1], "Baghdad");
        assert_eq!(saddam.remarks.as_deref(), Some("UNSC RESOLUTION 1483"));
        assert_eq!(
            saddam.name_parts.family.as_deref(),
            Some("Hussein Al-Tikriti")
        );

        let aksyonov = &parsed.entities[1];
        assert_eq!(aksyonov.primary_name, "Sergey Valeryevich Aksyonov");
        assert_eq!(aksyonov.aliases[0].name, "Сергей Валерьевич Аксёнов");
        assert_eq!(aksyonov.name_parts.middle.as_deref(), Some("Valeryevich"));
        assert_eq!(aksyonov.name_parts.title.as_deref(), Some("Mr"));
        assert_eq!(aksyonov.attributes["function"], "Prime Minister & \"Head\"");
        assert_eq!(aksyonov.listed_on.as_deref(), Some("2014-03-17"));
        assert_eq!(aksyonov.identifiers[0].number, "4514 123456");
        assert_eq!(aksyonov.identifiers[0].country.as_deref(), Some("RU"));

        let company = &parsed.entities[2];
        assert_eq!(company.kind, EntityKind::Entity);
        assert_eq!(company.primary_name, "Société Générale d'Équipement");
        assert_eq!(company.addresses[0].city.as_deref(), Some("Tehran"));
        assert_eq!(company.countries, ["IR"]);
    }

    #[test]
    fn broken_files_fail_with_file_and_line() {
        let truncated = error_of("broken_truncated");
        assert!(
            truncated.starts_with(
                "xmlFullSanctionsList_1_1.xml, line 16 (in <sanctionEntity logicalId=\"13\">)"
            ),
            "{truncated}"
        );
        assert!(truncated.contains("logicalId=\"13\""), "{truncated}");
        let not_xml = error_of("broken_not_xml");
        assert!(not_xml.contains("not XML"), "{not_xml}");
        let html = error_of("broken_root");
        assert!(
            html.contains("line 2")
                && html.contains("expected root element <export>, found <html>"),
            "{html}"
        );
    }

    #[test]
    fn reads_the_real_partial_file() {
        let data = shared_data();
        let parsed = parse_dir(&data.join("lists/eu")).unwrap();
        assert_eq!(parsed.published.as_deref(), Some("2022-03-18"));
        assert_eq!(parsed.entities.len(), 1_024);
        let people = parsed
            .entities
            .iter()
            .filter(|e| e.kind == EntityKind::Individual)
            .count();
        assert_eq!(people, 696);
        let names: usize = parsed.entities.iter().map(|e| e.all_names().count()).sum();
        assert_eq!(names, 4_751);
        let saddam = parsed
            .entities
            .iter()
            .find(|e| e.source_id == "13")
            .unwrap();
        assert_eq!(saddam.primary_name, "Saddam Hussein Al-Tikriti");
        assert!(saddam.aliases.iter().any(|a| a.name == "Abu Ali"));
        assert_eq!(saddam.nationalities, ["IQ"]);
        assert!(saddam.birth_dates.contains(&DateSpec::Day {
            year: 1937,
            month: 4,
            day: 28
        }));
        assert!(saddam.programs.contains(&"IRQ".to_owned()));

        // Every entry with a name in Latin script is shown under one (24 were shown under a
        // Bulgarian or Russian name, e.g. Al-Qaida as "Мрежа Осама бин Ладен").
        let unreadable: Vec<&str> = parsed
            .entities
            .iter()
            .filter(|e| !is_latin(&e.primary_name) && e.all_names().any(is_latin))
            .map(|e| e.primary_name.as_str())
            .collect();
        assert!(unreadable.is_empty(), "{unreadable:?}");
        let al_qaida = parsed
            .entities
            .iter()
            .find(|e| e.aliases.iter().any(|a| a.name == "Мрежа Осама бин Ладен"))
            .unwrap();
        assert!(
            is_latin(&al_qaida.primary_name),
            "{}",
            al_qaida.primary_name
        );
    }

    #[test]
    fn the_real_truncated_file_fails_naming_file_line_and_entity() {
        let data = shared_data();
        let path = data.join("bad/eu/PARTIAL_TRUNCATED_fsf_xml_1_1_generated_2022-03-18.xml");
        let err = parse_input(&Input::read(&path).unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("PARTIAL_TRUNCATED_fsf_xml_1_1_generated_2022-03-18.xml, line 28198"),
            "{err}"
        );
        assert!(err.contains("logicalId=\"6974\""), "{err}");
    }
}
