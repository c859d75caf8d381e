//! Tests of the UK parsers on hand-made fixtures and the real ConList.

use super::*;
use crate::model::{AliasQuality, DateSpec};
use crate::testutil::{entry_by_id, fixtures, parse_error, shared_data};

fn fixture(dir: &str) -> Result<ParsedList, SourceError> {
    parse_dir(&fixtures().join("uk_hmt").join(dir))
}

fn error_of(dir: &str) -> String {
    parse_error(fixture(dir), dir)
}

#[test]
fn conlist_csv_groups_rows_by_group_id() {
    let parsed = fixture("conlist_csv").unwrap();
    assert_eq!(parsed.published.as_deref(), Some("2025-04-14"));
    assert_eq!(parsed.entities.len(), 4);
    let haq = entry_by_id(&parsed, "15672");
    assert_eq!(haq.primary_name, "Mian Abdul HAQ");
    assert_eq!(haq.aliases[0].name, "Mian MITHOO");
    assert_eq!(haq.birth_dates, [DateSpec::Year { year: 1965 }]);
    assert_eq!(haq.nationalities, ["PK"]);
    assert_eq!(haq.listed_on.as_deref(), Some("2022-12-09"));
    assert_eq!(haq.name_parts.family.as_deref(), Some("HAQ"));
    assert_eq!(haq.attributes["date_uk_designated"], "2022-12-09");
    assert_eq!(
        haq.remarks.as_deref(),
        Some("(UK Sanctions List Ref):GHR0086. (Gender):Male")
    );
    let z = entry_by_id(&parsed, "15900");
    assert_eq!(z.nationalities, ["RU", "UA"]);
    let cyr = z.aliases.iter().find(|a| a.script.is_some()).unwrap();
    assert_eq!(cyr.name, "ЗАДАЧИН Андрей Андреевич");
    assert_eq!(cyr.lang.as_deref(), Some("Russian"));
    let weak = z
        .aliases
        .iter()
        .find(|a| a.name == "Andreï ZADACHINE")
        .unwrap();
    assert_eq!(weak.quality, AliasQuality::Weak);
    assert_eq!(weak.kind.as_deref(), Some("aka"));
    assert_eq!(z.identifiers[0].number, "123456789");
    let llc = entry_by_id(&parsed, "14001");
    assert_eq!(llc.kind, EntityKind::Entity);
    assert_eq!(llc.primary_name, "ОБЩЕСТВО ÉTOILE LLC");
    assert_eq!(llc.addresses[0].postal_code.as_deref(), Some("125009"));
    assert_eq!(entry_by_id(&parsed, "16001").kind, EntityKind::Vessel);
}

#[test]
fn fcdo_csv_groups_rows_by_unique_id() {
    let parsed = fixture("fcdo").unwrap();
    assert_eq!(parsed.entities.len(), 3);
    assert_eq!(parsed.published.as_deref(), Some("2025-08-11"));
    let iraq = entry_by_id(&parsed, "IRQ0112");
    assert_eq!(iraq.primary_name, "Ghazi Hammud AL-UBAIDI");
    assert!(iraq.aliases.iter().any(|a| a.name == "غازي حمود العبيدي"));
    let weak = iraq
        .aliases
        .iter()
        .find(|a| a.name == "Ghazi AL-UBAYDI")
        .unwrap();
    assert_eq!(weak.quality, AliasQuality::Weak);
    assert_eq!(iraq.attributes["ofsi_group_id"], "7795");
    assert_eq!(iraq.listed_on.as_deref(), Some("2004-07-02"));
    assert_eq!(iraq.birth_places, ["Baghdad, Iraq"]);
    assert_eq!(iraq.birth_dates, [DateSpec::Year { year: 1944 }]);
    let bank = entry_by_id(&parsed, "RUS0001");
    assert_eq!(bank.kind, EntityKind::Entity);
    assert_eq!(bank.countries, ["RU"]);
    assert_eq!(bank.source_url.as_deref(), Some(FCDO_CSV_URL));
    let ship = entry_by_id(&parsed, "RUS1400");
    assert_eq!(ship.kind, EntityKind::Vessel);
    assert_eq!(ship.attributes["imo_number"], "9123456");
}

#[test]
fn broken_files_name_file_and_position() {
    let truncated = error_of("broken_truncated");
    assert!(truncated.contains("ConList.csv, line 9"), "{truncated}");
    let header = error_of("broken_header");
    assert!(
        header.contains("ConList.csv") && header.contains("no header"),
        "{header}"
    );
    let xlsx = error_of("broken_xlsx");
    assert!(
        xlsx.contains("ConList.xlsx") && xlsx.contains("xlsx"),
        "{xlsx}"
    );
}

#[test]
fn real_conlist_counts_and_entries() {
    let data = shared_data();
    let parsed = parse_dir(&data.join("lists/uk_hmt")).unwrap();
    let e = &parsed.entities;
    let count = |k: EntityKind| e.iter().filter(|x| x.kind == k).count();
    let names: usize = e.iter().map(|x| x.all_names().count()).sum();
    assert_eq!(e.len(), 4688);
    assert_eq!(count(EntityKind::Individual), 3663);
    assert_eq!(count(EntityKind::Entity), 1010);
    assert_eq!(count(EntityKind::Vessel), 15);
    assert_eq!(names, 15966);
    assert_eq!(parsed.published.as_deref(), Some("2025-04-14"));
    let haq = entry_by_id(&parsed, "15672");
    assert_eq!(haq.primary_name, "Mian Abdul HAQ");
    assert!(haq.aliases.iter().any(|a| a.name == "Mian MITHU"));
    assert_eq!(haq.nationalities, ["PK"]);
    assert_eq!(haq.programs, ["Global Human Rights"]);
    assert!(e.iter().all(|x| !x.source_id.contains('.')));
}

/// Rows copied from the FCDO's real 8-column summary export
/// (`../shared/data/editions/uk_hmt/FCDO_SL_Mon_Aug 11 2025.ods`): one `Name` column and
/// `Type` instead of `Designation Type`.
#[test]
fn fcdo_summary_export_is_read_too() {
    let parsed = fixture("fcdo_summary").unwrap();
    assert_eq!(parsed.entities.len(), 5);
    let exchange = entry_by_id(&parsed, "AFG0001");
    assert_eq!(exchange.entity_id(), "uk_hmt:AFG0001");
    assert_eq!(
        exchange.primary_name,
        "HAJI KHAIRULLAH HAJI SATTAR MONEY EXCHANGE"
    );
    assert_eq!(exchange.kind, EntityKind::Entity);
    assert_eq!(exchange.listed_on.as_deref(), Some("2012-06-29"));
    let person = entry_by_id(&parsed, "AFG0006");
    assert_eq!(person.kind, EntityKind::Individual);
    assert!(parsed.entities.iter().any(|e| e.kind == EntityKind::Vessel));
}

#[test]
fn fcdo_xml_reads_every_designation() {
    let parsed = fixture("fcdo_xml").unwrap();
    assert_eq!(parsed.published.as_deref(), Some("2026-01-28"));
    assert_eq!(parsed.entities.len(), 3);
    assert_eq!(parsed.files[0].name, "UK-Sanctions-List.xml");

    let ghazi = entry_by_id(&parsed, "IRQ0112");
    assert_eq!(ghazi.kind, EntityKind::Individual);
    assert_eq!(ghazi.primary_name, "Ghazi Hammud AL-UBAIDI");
    assert_eq!(ghazi.name_parts.family.as_deref(), Some("AL-UBAIDI"));
    assert_eq!(ghazi.name_parts.given.as_deref(), Some("Ghazi"));
    let names: Vec<(&str, AliasQuality)> = ghazi
        .aliases
        .iter()
        .map(|a| (a.name.as_str(), a.quality))
        .collect();
    assert_eq!(
        names,
        [
            ("Ghazi AL-ADHARI", AliasQuality::Weak),
            ("Ghazi Hamud AL-OBAIDI", AliasQuality::Strong),
            ("غازي حمود العبيدي", AliasQuality::Unspecified),
        ]
    );
    assert_eq!(ghazi.aliases[2].script.as_deref(), Some("Arabic"));
    assert_eq!(
        ghazi.birth_dates,
        [DateSpec::Year { year: 1944 }, DateSpec::Year { year: 1945 }]
    );
    assert_eq!(ghazi.nationalities, ["IQ"]);
    assert_eq!(ghazi.birth_places, ["Baghdad, Iraq"]);
    assert_eq!(ghazi.listed_on.as_deref(), Some("2004-07-02"));
    assert_eq!(ghazi.programs, ["Iraq"]);
    assert_eq!(ghazi.identifiers.len(), 2);
    assert_eq!(ghazi.identifiers[0].number, "A1234567");
    assert_eq!(ghazi.identifiers[0].note.as_deref(), Some("Issued 2001"));
    assert_eq!(ghazi.attributes["gender"], "Male");
    assert_eq!(ghazi.attributes["position"], "Former Governor");
    assert_eq!(ghazi.attributes["sanctions_imposed"], "Asset freeze");
    assert_eq!(ghazi.attributes["last_updated"], "2025-10-15");
    assert_eq!(
        ghazi.addresses[0].full.as_deref(),
        Some("Al Wasit Street, Kut, Iraq")
    );

    let bank = entry_by_id(&parsed, "RUS0250");
    assert_eq!(bank.kind, EntityKind::Entity);
    assert_eq!(bank.primary_name, "JOINT STOCK COMPANY ROSSIYA BANK");
    assert!(bank.aliases.iter().any(|a| a.name == "АО \"АБ \"РОССИЯ\""));
    assert_eq!(bank.identifiers[0].number, "1027800000084");
    assert_eq!(bank.addresses[0].postal_code.as_deref(), Some("191124"));
    assert_eq!(bank.countries, ["RU"]);
    assert!(bank.remarks.as_deref().unwrap().starts_with("A bank"));

    let ship = entry_by_id(&parsed, "RUS1900");
    assert_eq!(ship.kind, EntityKind::Vessel);
    assert_eq!(ship.attributes["imo_number"], "9321172");
    assert_eq!(ship.attributes["flag"], "Panama");
    assert_eq!(ship.countries, ["PA"]);

    // An element the parser does not know is tolerated and noted, not a failure.
    assert!(
        parsed.notes.iter().any(|n| n.contains("FutureElement (1)")),
        "{:?}",
        parsed.notes
    );
}

#[test]
fn fcdo_xml_truncated_or_wrong_fails_with_the_line() {
    let e = error_of("broken_fcdo_xml_truncated");
    assert!(
        e.starts_with("UK-Sanctions-List.xml, line ") && e.contains("truncated"),
        "{e}"
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("UK-Sanctions-List.xml"),
        "<html><body>Service unavailable</body></html>",
    )
    .unwrap();
    let e = parse_error(parse_dir(dir.path()), "html");
    assert!(e.contains("expected root element <Designations>"), "{e}");
}

#[test]
fn a_stray_quote_in_a_conlist_csv_name_is_refused_with_its_line() {
    let path = fixtures().join("uk_hmt/conlist_csv/ConList.csv");
    let text = std::fs::read_to_string(path).unwrap();
    let damaged = text.replacen("MITHOO,", "MITHOO\",", 1);
    assert_ne!(damaged, text);
    let input = Input::from_bytes("ConList.csv", damaged.into_bytes());
    let e = parse_input(&input).unwrap_err().to_string();
    assert!(
        e.starts_with("ConList.csv, line 3: bad CSV: a double quote inside a field"),
        "{e}"
    );
}
