//! The OFAC parsers on hand-made fixtures and on the real files.

use super::*;
use crate::model::{AliasQuality, DateSpec};
use crate::testutil::{fixtures, shared_data};

fn fixture(name: &str) -> Result<ParsedList, SourceError> {
    parse_sdn_dir(&fixtures().join("ofac_sdn").join(name))
}

#[test]
fn reads_every_quirk_of_the_format() {
    let parsed = fixture("good").unwrap();
    assert_eq!(parsed.entities.len(), 3);
    assert_eq!(parsed.files.len(), 4);
    let bank = &parsed.entities[0];
    assert_eq!(bank.entity_id(), "ofac_sdn:306");
    assert_eq!(bank.kind, EntityKind::Entity);
    assert_eq!(bank.programs, ["CUBA"]);
    assert_eq!(bank.aliases[0].name, "NATIONAL BANK OF CUBA");
    assert_eq!(bank.aliases[0].kind.as_deref(), Some("aka"));
    // The remark's a.k.a. is OFAC's weak alias.
    assert_eq!(bank.aliases[1].name, "BNC");
    assert_eq!(bank.aliases[1].quality, AliasQuality::Weak);
    assert_eq!(bank.countries, ["CH"]);

    let person = &parsed.entities[1];
    // Windows-1252 bytes decoded, not mangled.
    assert_eq!(person.primary_name, "MÜLLER, José Antonio");
    assert_eq!(person.kind, EntityKind::Individual);
    assert_eq!(person.name_parts.family.as_deref(), Some("MÜLLER"));
    assert_eq!(person.name_parts.given.as_deref(), Some("José"));
    assert_eq!(person.name_parts.middle.as_deref(), Some("Antonio"));
    assert_eq!(person.programs, ["SDGT", "IRGC"]);
    assert_eq!(person.birth_dates.len(), 2);
    assert!(matches!(person.birth_dates[0], DateSpec::Day { .. }));
    assert_eq!(person.nationalities, ["IR"]);
    assert_eq!(person.identifiers[0].number, "A123");
    assert_eq!(person.aliases[1].kind.as_deref(), Some("fka"));
    // The comments file continues the cut remark mid-word.
    assert!(
        person
            .remarks
            .as_deref()
            .unwrap()
            .ends_with("Additional Sanctions Information - Subject to Secondary Sanctions.")
    );

    let vessel = &parsed.entities[2];
    assert_eq!(vessel.kind, EntityKind::Vessel);
    assert_eq!(vessel.attributes["call_sign"], "9BCD4");
    assert_eq!(vessel.attributes["tonnage"], "150,000");
    assert_eq!(vessel.countries, ["PA"]);

    // Rows for an entry missing from sdn.csv are skipped and counted.
    assert_eq!(parsed.notes.len(), 2, "{:?}", parsed.notes);
    assert!(parsed.notes[0].contains("alt.csv: 1 rows"));
}

#[test]
fn broken_files_name_the_file_and_line() {
    let err = fixture("broken_ent_num").unwrap_err().to_string();
    assert!(err.contains("sdn.csv, line 2"), "{err}");
    assert!(err.contains("X12"), "{err}");
    let err = fixture("broken_columns").unwrap_err().to_string();
    assert!(err.contains("sdn.csv, line 2"), "{err}");
    assert!(err.contains("expected 12"), "{err}");
    let err = fixture("broken_html").unwrap_err().to_string();
    assert!(err.contains("sdn.csv, line 1"), "{err}");
    assert!(err.contains("not OFAC"), "{err}");
    let err = parse_sdn_dir(&fixtures().join("ofac_sdn/missing")).unwrap_err();
    assert!(matches!(err, SourceError::Missing { .. }), "{err}");
}

fn count_kinds(parsed: &ParsedList) -> [usize; 4] {
    let mut counts = [0; 4];
    for e in &parsed.entities {
        counts[match e.kind {
            EntityKind::Individual => 0,
            EntityKind::Entity => 1,
            EntityKind::Vessel => 2,
            EntityKind::Aircraft => 3,
        }] += 1;
    }
    counts
}

/// Primary names plus alt.csv aliases (the remarks' weak a.k.a.s are counted apart).
fn strong_names(parsed: &ParsedList) -> usize {
    parsed
        .entities
        .iter()
        .map(|e| {
            1 + e
                .aliases
                .iter()
                .filter(|a| a.quality != AliasQuality::Weak)
                .count()
        })
        .sum()
}

#[test]
fn reads_the_real_sdn_list_completely() {
    let Some(shared) = shared_data() else { return };
    let parsed = parse_sdn_dir(&shared.join("lists/ofac_sdn")).unwrap();
    assert_eq!(parsed.entities.len(), 14_965);
    assert_eq!(count_kinds(&parsed), [6_854, 6_884, 851, 376]);
    assert_eq!(strong_names(&parsed), 32_477);
    let cuba = parsed
        .entities
        .iter()
        .find(|e| e.source_id == "306")
        .unwrap();
    assert_eq!(cuba.primary_name, "BANCO NACIONAL DE CUBA");
    assert!(
        cuba.aliases
            .iter()
            .any(|a| a.name == "NATIONAL BANK OF CUBA")
    );
    // The alias and address rows of entries not in this sdn.csv edition are reported.
    assert!(
        parsed.notes.iter().any(|n| n.starts_with("alt.csv")),
        "{:?}",
        parsed.notes
    );
    let with_dob = parsed
        .entities
        .iter()
        .filter(|e| !e.birth_dates.is_empty())
        .count();
    assert!(with_dob > 5_000, "{with_dob}");
}

#[test]
fn reads_the_real_consolidated_list_and_an_older_sdn_edition() {
    let Some(shared) = shared_data() else { return };
    let cons = parse_cons_dir(&shared.join("lists/ofac_cons")).unwrap();
    assert_eq!(cons.entities.len(), 442);
    assert_eq!(count_kinds(&cons)[0], 79);
    assert_eq!(strong_names(&cons), 1_513);
    let old = parse_sdn_dir(&shared.join("editions/ofac_sdn/consistent_2023-12-28")).unwrap();
    assert_eq!(old.files.len(), 3, "no comments file in that edition");
    assert!(old.entities.len() > 13_000);
}
