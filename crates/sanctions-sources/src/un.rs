//! The UN Security Council consolidated list XML (`consolidated.xml`): one [`Entity`] per
//! `<INDIVIDUAL>` / `<ENTITY>`, keyed by `<DATAID>`. Streams with the EU parser's record
//! reader ([`super::eu::node`]).

use crate::text::{join_parts, script_of};
use std::path::Path;

use super::eu::node::{self, Node};
use super::{Input, OfficialFile, ParsedList, SourceError, read_single_file};
use crate::model::{
    Address, Alias, AliasQuality, DateSpec, Entity, EntityKind, IdDocument, ListCode, clean,
    clean_opt, to_iso2,
};

/// The files `lists update` downloads.
pub const FILES: &[OfficialFile] = &[OfficialFile {
    file_name: "consolidated.xml",
    url: "https://scsanctions.un.org/resources/xml/en/consolidated.xml",
    optional: false,
}];

/// Parses the list from its folder.
pub fn parse_dir(dir: &Path) -> Result<ParsedList, SourceError> {
    parse_input(&read_single_file(ListCode::Un, dir)?)
}

/// Parses one consolidated.xml file.
pub fn parse_input(input: &Input) -> Result<ParsedList, SourceError> {
    let text = input.text()?;
    let mut entities: Vec<Entity> = Vec::new();
    let mut skipped_documents = 0usize;
    let (root, _) = node::read_records(
        &input.name,
        &text,
        "CONSOLIDATED_LIST",
        &["INDIVIDUAL", "ENTITY"],
        |record| {
            let entity = to_entity(&record, &mut skipped_documents).ok_or_else(|| {
                SourceError::parse(
                    &input.name,
                    format!("<{}> number {}", record.name, entities.len() + 1),
                    "record without <DATAID>",
                )
            })?;
            entities.push(entity);
            Ok(())
        },
    )?;
    let mut parsed = ParsedList::new(ListCode::Un);
    parsed.published = root.attr("dateGenerated").get(..10).map(str::to_owned);
    if skipped_documents > 0 {
        parsed.notes.push(format!(
            "{}: {skipped_documents} <INDIVIDUAL_DOCUMENT> without NUMBER skipped",
            input.name
        ));
    }
    parsed.entities = entities;
    parsed.files.push(input.source_file());
    Ok(parsed)
}

/// One record, or `None` when it has no DATAID.
fn to_entity(record: &Node, skipped_documents: &mut usize) -> Option<Entity> {
    let id = clean_opt(record.text_of("DATAID"))?;
    let individual = record.name == "INDIVIDUAL";
    let kind = if individual {
        EntityKind::Individual
    } else {
        EntityKind::Entity
    };
    let fields: &[&str] = if individual {
        &["FIRST_NAME", "SECOND_NAME", "THIRD_NAME", "FOURTH_NAME"]
    } else {
        &["FIRST_NAME"]
    };
    let parts: Vec<String> = fields
        .iter()
        .filter_map(|f| clean_opt(record.text_of(f)))
        .collect();
    let mut entity = Entity::new(ListCode::Un, id, kind, parts.join(" "));
    if individual {
        set_name_parts(&mut entity, &parts, record);
    }
    entity.push_program(record.text_of("UN_LIST_TYPE"));
    entity.listed_on = clean(record.text_of("LISTED_ON"))
        .get(..10)
        .map(str::to_owned);
    entity.remarks = clean_opt(record.text_of("COMMENTS1"));
    entity.source_url = Some(FILES[0].url.to_owned());
    add_attributes(&mut entity, record);
    for child in &record.children {
        match child.name.as_str() {
            "INDIVIDUAL_ALIAS" | "ENTITY_ALIAS" => entity.push_alias(alias(child)),
            "NATIONALITY" => {
                for value in child.all("VALUE") {
                    if let Some(iso) = to_iso2(&value.text) {
                        entity.push_nationality(iso);
                    }
                }
            }
            "INDIVIDUAL_ADDRESS" | "ENTITY_ADDRESS" => add_address(&mut entity, child),
            "INDIVIDUAL_DATE_OF_BIRTH" => add_birth_date(&mut entity, child),
            "INDIVIDUAL_PLACE_OF_BIRTH" => add_birth_place(&mut entity, child),
            "INDIVIDUAL_DOCUMENT" if !add_document(&mut entity, child) => {
                *skipped_documents += usize::from(!child.children.is_empty());
            }
            _ => {}
        }
    }
    if let Some(original) = clean_opt(record.text_of("NAME_ORIGINAL_SCRIPT")) {
        entity.push_alias(Alias {
            kind: Some("original_script".to_owned()),
            script: script_of(&original).map(str::to_owned),
            ..Alias::new(original)
        });
    }
    Some(entity)
}

/// UN names are FIRST (given) then SECOND..FOURTH, often a patronymic chain: we store
/// given = FIRST_NAME, family = the last of SECOND..FOURTH, middle = those in between.
fn set_name_parts(entity: &mut Entity, parts: &[String], record: &Node) {
    let given = clean_opt(record.text_of("FIRST_NAME"));
    let rest: &[String] = match &given {
        Some(_) => parts.get(1..).unwrap_or_default(),
        None => parts,
    };
    let parts_out = &mut entity.name_parts;
    parts_out.given = given;
    if let Some((family, middle)) = rest.split_last() {
        parts_out.family = Some(family.clone());
        parts_out.middle = (!middle.is_empty()).then(|| middle.join(" "));
    }
    parts_out.title = values(record, "TITLE");
}

/// The `<VALUE>`s of child `name`, cleaned and joined by "; ".
fn values(record: &Node, name: &str) -> Option<String> {
    let values: Vec<String> = record
        .all(name)
        .flat_map(|c| c.all("VALUE"))
        .filter_map(|v| clean_opt(&v.text))
        .collect();
    (!values.is_empty()).then(|| values.join("; "))
}

fn add_attributes(entity: &mut Entity, record: &Node) {
    for (key, field) in [
        ("reference_number", "REFERENCE_NUMBER"),
        ("gender", "GENDER"),
        ("sort_key", "SORT_KEY"),
    ] {
        if let Some(value) = clean_opt(record.text_of(field)) {
            entity.attributes.insert(key.to_owned(), value);
        }
    }
    for (key, field) in [
        ("designation", "DESIGNATION"),
        ("list_type", "LIST_TYPE"),
        ("last_updated", "LAST_DAY_UPDATED"),
    ] {
        if let Some(value) = values(record, field) {
            entity.attributes.insert(key.to_owned(), value);
        }
    }
}

/// QUALITY `Low` is weak, `Good` strong; `a.k.a.`/`f.k.a.` give the kind.
fn alias(node: &Node) -> Alias {
    let quality = clean(node.text_of("QUALITY"));
    let (kind, strength) = match quality.as_str() {
        "Low" => (Some("aka"), AliasQuality::Weak),
        "Good" => (Some("aka"), AliasQuality::Strong),
        "a.k.a." => (Some("aka"), AliasQuality::Unspecified),
        "f.k.a." => (Some("fka"), AliasQuality::Unspecified),
        _ => (None, AliasQuality::Unspecified),
    };
    Alias {
        kind: kind.map(str::to_owned),
        quality: strength,
        ..Alias::new(node.text_of("ALIAS_NAME"))
    }
}

fn add_address(entity: &mut Entity, node: &Node) {
    let country_text = clean(node.text_of("COUNTRY"));
    let iso = to_iso2(&country_text);
    let unresolved = if iso.is_none() {
        country_text.as_str()
    } else {
        ""
    };
    let full = join_parts(&[unresolved, node.text_of("NOTE")]);
    let address = Address {
        street: clean_opt(node.text_of("STREET")),
        city: clean_opt(node.text_of("CITY")),
        region: clean_opt(node.text_of("STATE_PROVINCE")),
        postal_code: clean_opt(node.text_of("ZIP_CODE")),
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

/// EXACT/APPROXIMATELY: DATE or YEAR; BETWEEN: FROM_YEAR..TO_YEAR; else the NOTE as text.
fn add_birth_date(entity: &mut Entity, node: &Node) {
    let (from, to) = (node.text_of("FROM_YEAR"), node.text_of("TO_YEAR"));
    let date = if !from.trim().is_empty() && !to.trim().is_empty() {
        DateSpec::parse_loose(&format!("{from} to {to}"))
    } else {
        [
            node.text_of("DATE"),
            node.text_of("YEAR"),
            node.text_of("NOTE"),
        ]
        .into_iter()
        .find_map(DateSpec::parse_loose)
    };
    if let Some(date) = date
        && !entity.birth_dates.contains(&date)
    {
        entity.birth_dates.push(date);
    }
}

fn add_birth_place(entity: &mut Entity, node: &Node) {
    let country = node.text_of("COUNTRY");
    let place = join_parts(&[
        node.text_of("CITY"),
        node.text_of("STATE_PROVINCE"),
        country,
        node.text_of("NOTE"),
    ]);
    if !place.is_empty() && !entity.birth_places.contains(&place) {
        entity.birth_places.push(place);
    }
    if let Some(iso) = to_iso2(country) {
        entity.push_country(iso);
    }
}

/// Adds the document; false when it has no number.
fn add_document(entity: &mut Entity, node: &Node) -> bool {
    let Some(number) = clean_opt(node.text_of("NUMBER")) else {
        return false;
    };
    let doc_type = join_parts(&[
        node.text_of("TYPE_OF_DOCUMENT"),
        node.text_of("TYPE_OF_DOCUMENT2"),
    ]);
    let issuer = [
        node.text_of("ISSUING_COUNTRY"),
        node.text_of("COUNTRY_OF_ISSUE"),
    ];
    let country = issuer.into_iter().find_map(to_iso2);
    let mut notes = vec![node.text_of("NOTE").to_owned()];
    notes.extend(
        issuer
            .iter()
            .filter(|c| to_iso2(c).is_none())
            .map(|c| c.to_string()),
    );
    for (label, field) in [("issued", "DATE_OF_ISSUE"), ("in", "CITY_OF_ISSUE")] {
        if let Some(value) = clean_opt(node.text_of(field)) {
            notes.push(format!("{label} {value}"));
        }
    }
    let note = join_parts(&notes.iter().map(String::as_str).collect::<Vec<_>>());
    entity.identifiers.push(IdDocument {
        doc_type,
        number,
        country: country.map(str::to_owned),
        note: (!note.is_empty()).then_some(note),
    });
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{fixtures, parse_error, shared_data};

    fn error_of(dir: &str) -> String {
        parse_error(parse_dir(&fixtures().join("un").join(dir)), dir)
    }

    #[test]
    fn reads_the_fixture() {
        let parsed = parse_dir(&fixtures().join("un/good")).unwrap();
        assert_eq!(parsed.published.as_deref(), Some("2026-02-27"));
        assert_eq!(parsed.entities.len(), 3);
        let saif = &parsed.entities[0];
        assert_eq!(saif.entity_id(), "un:113219");
        assert_eq!(saif.kind, EntityKind::Individual);
        assert_eq!(saif.primary_name, "MOHAMMED SALAHALDIN ABD EL HALIM ZIDANE");
        assert_eq!(saif.name_parts.given.as_deref(), Some("MOHAMMED"));
        assert_eq!(
            saif.name_parts.middle.as_deref(),
            Some("SALAHALDIN ABD EL HALIM")
        );
        assert_eq!(saif.name_parts.family.as_deref(), Some("ZIDANE"));
        assert_eq!(saif.name_parts.title.as_deref(), Some("Dr."));
        let names: Vec<_> = saif.aliases.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "Sayf-Al Adl",
                "Saif Al-'Adil",
                "Muhamad Ibrahim Makkawi",
                "محمد صلاح الدين عبدالحليم زيدان"
            ]
        );
        assert_eq!(saif.aliases[0].quality, AliasQuality::Strong);
        assert_eq!(saif.aliases[1].quality, AliasQuality::Weak);
        assert_eq!(saif.aliases[2].kind.as_deref(), Some("fka"));
        assert_eq!(saif.aliases[3].script.as_deref(), Some("Arabic"));
        let dates: Vec<_> = saif.birth_dates.iter().map(DateSpec::iso).collect();
        assert_eq!(dates, ["1963-04-11", "1960", "1958/1959"]);
        assert_eq!(saif.birth_places, ["Monufia Governate, Egypt"]);
        assert_eq!(saif.nationalities, ["EG"]);
        assert_eq!(saif.programs, ["Al-Qaida"]);
        assert_eq!(saif.listed_on.as_deref(), Some("2001-01-25"));
        assert_eq!(saif.identifiers[0].number, "1084010");
        assert_eq!(saif.identifiers[0].country.as_deref(), Some("EG"));
        assert!(saif.addresses.is_empty());
        assert_eq!(
            saif.remarks.as_deref(),
            Some("Responsible for Usama bin Laden\u{2019}s (deceased) security. Hair: Dark.")
        );
        let russian = &parsed.entities[1];
        assert_eq!(russian.primary_name, "Дмитрий Ёлкин");
        assert_eq!(russian.aliases[0].name, "José Müller");
        assert_eq!(russian.nationalities, ["RU"]);
        let qaida = &parsed.entities[2];
        assert_eq!(qaida.kind, EntityKind::Entity);
        assert_eq!(qaida.primary_name, "AL-QAIDA");
        assert_eq!(qaida.addresses[0].street.as_deref(), Some("1 Rue & Co"));
        assert_eq!(qaida.countries, ["AF"]);
    }

    #[test]
    fn broken_files_fail_with_file_and_line() {
        let truncated = error_of("broken_truncated");
        assert!(
            truncated.starts_with("consolidated.xml, line 38 (in <INDIVIDUAL> DATAID 113219)"),
            "{truncated}"
        );
        let unclosed = error_of("broken_unclosed");
        assert!(
            unclosed.contains("line 7") && unclosed.contains("before </CONSOLIDATED_LIST>"),
            "{unclosed}"
        );
        let empty = error_of("broken_not_xml");
        assert!(empty.contains("not XML"), "{empty}");
        let root = error_of("broken_root");
        assert!(
            root.contains("line 2")
                && root.contains("expected root element <CONSOLIDATED_LIST>, found <export>"),
            "{root}"
        );
    }

    #[test]
    fn reads_the_real_file() {
        let data = shared_data();
        let parsed = parse_dir(&data.join("lists/un")).unwrap();
        assert_eq!(parsed.published.as_deref(), Some("2026-02-27"));
        assert_eq!(parsed.entities.len(), 1_003);
        let people = parsed
            .entities
            .iter()
            .filter(|e| e.kind == EntityKind::Individual)
            .count();
        assert_eq!(people, 730);
        let names: usize = parsed.entities.iter().map(|e| e.all_names().count()).sum();
        assert_eq!(names, 4_121);
        let weak: usize = parsed
            .entities
            .iter()
            .flat_map(|e| &e.aliases)
            .filter(|a| a.quality == AliasQuality::Weak)
            .count();
        assert_eq!(weak, 615);
        let saif = parsed
            .entities
            .iter()
            .find(|e| e.source_id == "113219")
            .unwrap();
        assert_eq!(saif.primary_name, "MOHAMMED SALAHALDIN ABD EL HALIM ZIDANE");
        assert!(saif.aliases.iter().any(|a| a.name == "Seif al Adel"));
        assert_eq!(saif.nationalities, ["EG"]);
        assert_eq!(saif.programs, ["Al-Qaida"]);
        assert!(saif.birth_dates.contains(&DateSpec::Day {
            year: 1963,
            month: 4,
            day: 11
        }));
        let first = &parsed.entities[0];
        assert_eq!(first.entity_id(), "un:6907993");
        assert_eq!(first.primary_name, "ERIC BADEGE");
        assert_eq!(first.birth_dates, [DateSpec::Year { year: 1971 }]);
    }
}
