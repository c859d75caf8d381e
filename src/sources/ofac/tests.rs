//! Tests of the OFAC parsers on hand-made fixtures and on the real shared files.

use super::*;
use crate::testutil::{fixtures, shared_data};

fn kinds(parsed: &ParsedList) -> [usize; 4] {
    let count = |k| parsed.entities.iter().filter(|e| e.kind == k).count();
    [
        count(EntityKind::Individual),
        count(EntityKind::Entity),
        count(EntityKind::Vessel),
        count(EntityKind::Aircraft),
    ]
}

fn names(parsed: &ParsedList) -> usize {
    parsed.entities.iter().map(|e| 1 + e.aliases.len()).sum()
}

fn find<'a>(parsed: &'a ParsedList, id: &str) -> &'a Entity {
    parsed
        .entities
        .iter()
        .find(|e| e.source_id == id)
        .unwrap_or_else(|| panic!("no entry {id}"))
}

#[test]
fn real_sdn_counts_and_spot_checks() {
    let Some(data) = shared_data() else { return };
    let parsed = parse_sdn_dir(&data.join("lists/ofac_sdn")).unwrap();
    assert_eq!(parsed.entities.len(), 14_965);
    assert_eq!(names(&parsed), 32_477);
    assert_eq!(kinds(&parsed), [6_854, 6_884, 851, 376]);
    println!("names {} notes {:?}", names(&parsed), parsed.notes);
    assert_eq!(parsed.files.len(), 4);
    let bnc = find(&parsed, "306");
    assert_eq!(bnc.primary_name, "BANCO NACIONAL DE CUBA");
    assert_eq!(bnc.programs, ["CUBA"]);
    assert!(
        bnc.aliases
            .iter()
            .any(|a| a.name == "NATIONAL BANK OF CUBA")
    );
    assert!(bnc.countries.contains(&"CH".to_owned()));
    assert_eq!(bnc.source_url.as_deref(), Some(SDN_FILES[0].url));
    assert!(parsed.notes.iter().any(|n| n.starts_with("alt.csv: ")));
}

#[test]
fn real_cons_counts() {
    let Some(data) = shared_data() else { return };
    let parsed = parse_cons_dir(&data.join("lists/ofac_cons")).unwrap();
    assert_eq!(parsed.entities.len(), 442);
    assert_eq!(kinds(&parsed), [79, 363, 0, 0]);
    assert_eq!(names(&parsed), 1_513);
    let e = find(&parsed, "9639");
    assert_eq!(e.primary_name, "HANIYA, Ismail Abdul Salah");
    assert_eq!(e.name_parts.family.as_deref(), Some("HANIYA"));
    assert_eq!(e.birth_dates[0].iso(), "1962");
    assert_eq!(e.programs, ["NS-PLC"]);
}

#[test]
fn older_consistent_sdn_edition_parses() {
    let Some(data) = shared_data() else { return };
    let parsed = parse_sdn_dir(&data.join("editions/ofac_sdn/consistent_2023-12-28")).unwrap();
    assert_eq!(parsed.entities.len(), 13_821);
    println!("notes {:?}", parsed.notes);
}
