//! Tests of the OFAC parsers on hand-made fixtures and on the real shared files.

use super::*;
use crate::testutil::{entry_by_id, fixtures, shared_data};

fn kinds(parsed: &ParsedList) -> [usize; 4] {
    let count = |k| parsed.entities.iter().filter(|e| e.kind == k).count();
    [
        count(EntityKind::Individual),
        count(EntityKind::Entity),
        count(EntityKind::Vessel),
        count(EntityKind::Aircraft),
    ]
}

/// Entries with a weak alias (alt.csv's and the a.k.a.s written only in Remarks).
const WEAK_ENTRIES: usize = 2_108;

fn names(parsed: &ParsedList) -> usize {
    parsed.entities.iter().map(|e| 1 + e.aliases.len()).sum()
}

#[test]
fn real_sdn_counts_and_spot_checks() {
    let data = shared_data();
    let parsed = parse_sdn_dir(&data.join("lists/ofac_sdn")).unwrap();
    assert_eq!(parsed.entities.len(), 14_965);
    // 32,477 names in sdn.csv and alt.csv, plus the weak a.k.a.s written only in Remarks.
    assert_eq!(names(&parsed), 36_171);
    let weak_entries = parsed
        .entities
        .iter()
        .filter(|e| e.aliases.iter().any(|a| a.quality == AliasQuality::Weak))
        .count();
    assert_eq!(weak_entries, WEAK_ENTRIES);
    assert_eq!(kinds(&parsed), [6_854, 6_884, 851, 376]);
    println!("names {} notes {:?}", names(&parsed), parsed.notes);
    assert_eq!(parsed.files.len(), 4);
    let bnc = entry_by_id(&parsed, "306");
    assert_eq!(bnc.primary_name, "BANCO NACIONAL DE CUBA");
    let weak = bnc.aliases.iter().find(|a| a.name == "BNC").unwrap();
    assert_eq!(weak.quality, AliasQuality::Weak);
    assert_eq!(bnc.programs, ["CUBA"]);
    assert!(
        bnc.aliases
            .iter()
            .any(|a| a.name == "NATIONAL BANK OF CUBA")
    );
    assert!(bnc.countries.contains(&"CH".to_owned()));
    assert_eq!(bnc.source_url.as_deref(), Some(SDN_FILES[0].url));
    assert!(parsed.notes.iter().any(|n| n.starts_with("alt.csv: ")));
    let nasrallah = entry_by_id(&parsed, "2686");
    assert_eq!(nasrallah.primary_name, "NASRALLAH, Hasan");
    assert_eq!(nasrallah.name_parts.given.as_deref(), Some("Hasan"));
    assert_eq!(nasrallah.programs, ["SDGT", "SYRIA"]);
    assert_eq!(nasrallah.birth_dates.len(), 4);
    assert_eq!(nasrallah.birth_dates[0].iso(), "1960-08-31");
    assert_eq!(nasrallah.birth_places, ["Al Basuriyah, Lebanon"]);
    let passport = &nasrallah.identifiers[0];
    assert_eq!(
        (passport.number.as_str(), passport.country.as_deref()),
        ("042833", Some("LB"))
    );
    assert_eq!(
        nasrallah.attributes["title"],
        "Secretary General of Hizballah"
    );
}

#[test]
fn real_cons_counts() {
    let data = shared_data();
    let parsed = parse_cons_dir(&data.join("lists/ofac_cons")).unwrap();
    assert_eq!(parsed.entities.len(), 442);
    assert_eq!(kinds(&parsed), [79, 363, 0, 0]);
    assert_eq!(names(&parsed), 1_585);
    let e = entry_by_id(&parsed, "9639");
    assert_eq!(e.primary_name, "HANIYA, Ismail Abdul Salah");
    assert_eq!(e.name_parts.family.as_deref(), Some("HANIYA"));
    assert_eq!(e.birth_dates[0].iso(), "1962");
    assert_eq!(e.programs, ["NS-PLC"]);
}

#[test]
fn older_consistent_sdn_edition_parses() {
    let data = shared_data();
    let parsed = parse_sdn_dir(&data.join("editions/ofac_sdn/consistent_2023-12-28")).unwrap();
    assert_eq!(parsed.entities.len(), 13_821);
    println!("notes {:?}", parsed.notes);
}

fn fixture(name: &str) -> std::path::PathBuf {
    fixtures().join("ofac_sdn").join(name)
}

#[test]
fn good_fixture_reads_every_field() {
    let parsed = parse_sdn_dir(&fixture("good")).unwrap();
    assert_eq!(parsed.list, ListCode::OfacSdn);
    assert_eq!(kinds(&parsed), [1, 1, 1, 1]);
    assert_eq!(parsed.files.len(), 4);
    assert_eq!(parsed.published, None);
    assert_eq!(
        parsed.notes,
        [
            "add.csv: 1 rows for entries not in sdn.csv skipped",
            "alt.csv: 1 rows for entries not in sdn.csv skipped"
        ]
    );
    let p = entry_by_id(&parsed, "7001");
    assert_eq!(p.primary_name, "MÜLLER, José Andrés");
    assert_eq!(p.name_parts.family.as_deref(), Some("MÜLLER"));
    assert_eq!(p.name_parts.given.as_deref(), Some("José Andrés"));
    assert_eq!(p.programs, ["SDGT", "IRGC"]);
    let dates: Vec<String> = p.birth_dates.iter().map(|d| d.iso()).collect();
    assert_eq!(dates, ["1960-01-01", "1961"]);
    assert_eq!(p.birth_places, ["Tehran, Iran"]);
    assert_eq!(p.nationalities, ["IR", "IQ"]);
    assert_eq!(p.countries, ["IR"]);
    assert_eq!(p.identifiers.len(), 2);
    assert_eq!(p.identifiers[0].number, "A123");
    assert_eq!(p.identifiers[1].doc_type, "National ID No.");
    assert_eq!(p.attributes["gender"], "Male");
    let jose = p.aliases.iter().find(|a| a.name == "JOSE").unwrap();
    assert_eq!(jose.quality, crate::model::AliasQuality::Weak);
    assert_eq!(p.attributes["organization_established_date"], "2001");
    assert!(
        p.remarks
            .as_deref()
            .unwrap()
            .ends_with("Organization Established Date 2001.")
    );
    assert_eq!(p.addresses[0].full.as_deref(), Some("Tehran, Iran"));
    // The f.k.a. equal to the primary name is dropped; the weak ones (alt.csv's, and the
    // a.k.a. written only in Remarks) are marked.
    let aliases: Vec<(&str, &str, AliasQuality)> = p
        .aliases
        .iter()
        .map(|a| (a.name.as_str(), a.kind.as_deref().unwrap(), a.quality))
        .collect();
    assert_eq!(
        aliases,
        [
            ("MUELLER, Jose", "aka", AliasQuality::Strong),
            ("MULLER, J.", "aka", AliasQuality::Weak),
            ("JOSE", "aka", AliasQuality::Weak)
        ]
    );
    let vessel = entry_by_id(&parsed, "8002");
    assert_eq!(vessel.kind, EntityKind::Vessel);
    assert_eq!(vessel.attributes["call_sign"], "9BQX");
    assert_eq!(
        vessel.attributes["vessel_owner"],
        "NATIONAL IRANIAN TANKER CO."
    );
    assert_eq!(vessel.attributes["tonnage"], "150,000");
    assert_eq!(vessel.countries, ["PA"]);
    assert_eq!(vessel.identifiers[0].number, "IMO 9187629");
    assert_eq!(vessel.aliases[0].kind.as_deref(), Some("nka"));
    let entity = entry_by_id(&parsed, "306");
    assert_eq!(entity.kind, EntityKind::Entity);
    assert_eq!(entity.addresses[0].country.as_deref(), Some("CH"));
    assert_eq!(entity.name_parts, NameParts::default());
    assert_eq!(
        entry_by_id(&parsed, "8003").attributes["aircraft_model"],
        "Boeing 747"
    );
}

fn error_of(name: &str) -> String {
    parse_sdn_dir(&fixture(name)).unwrap_err().to_string()
}

#[test]
fn broken_fixtures_name_the_file_and_line() {
    let e = error_of("broken_ent_num");
    assert!(e.starts_with("sdn.csv, line 2: "), "{e}");
    assert!(e.contains("x12"), "{e}");
    let e = error_of("broken_columns");
    assert!(e.starts_with("alt.csv, line 1: 4 columns"), "{e}");
    let e = error_of("broken_html");
    assert!(e.starts_with("sdn.csv, line 1: "), "{e}");
}

#[test]
fn an_empty_main_file_or_missing_file_fails() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["sdn.csv", "add.csv", "alt.csv"] {
        std::fs::write(dir.path().join(name), b"\r\n\x1a").unwrap();
    }
    let e = parse_sdn_dir(dir.path()).unwrap_err().to_string();
    assert!(e.contains("sdn.csv") && e.contains("no entries"), "{e}");
    let e = parse_cons_dir(dir.path()).unwrap_err().to_string();
    assert!(e.contains("cons_prim.csv"), "{e}");
}
