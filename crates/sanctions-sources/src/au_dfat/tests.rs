use super::*;
use crate::model::DateSpec;
use crate::testutil::{alias_names, entry_by_id, fixtures, shared_data};

fn fixture(name: &str) -> Result<ParsedList, SourceError> {
    parse_dir(&fixtures().join("au_dfat").join(name))
}

fn isos(dates: &[DateSpec]) -> Vec<String> {
    dates.iter().map(DateSpec::iso).collect()
}

#[test]
fn reads_the_fixture() {
    let parsed = fixture("good").unwrap();
    let ids: Vec<&str> = parsed
        .entities
        .iter()
        .map(|e| e.source_id.as_str())
        .collect();
    assert_eq!(ids, ["2", "7993", "7994", "12"]);
    assert_eq!(parsed.published.as_deref(), Some("2024-11-11"));

    let akhund = entry_by_id(&parsed, "2");
    assert_eq!(akhund.kind, EntityKind::Individual);
    assert_eq!(akhund.primary_name, "MOHAMMAD HASSAN AKHUND");
    assert_eq!(
        alias_names(akhund),
        ["محمد حسن أخوند", "Mullah Mohammad Hassan"]
    );
    assert_eq!(akhund.aliases[0].kind.as_deref(), Some("original_script"));
    assert_eq!(akhund.aliases[0].script.as_deref(), Some("Arabic"));
    assert_eq!(akhund.aliases[1].kind.as_deref(), Some("aka"));
    assert_eq!(isos(&akhund.birth_dates), ["1955/1958", "1945/1950"]);
    assert_eq!(akhund.nationalities, ["AF"]);
    assert_eq!(akhund.countries, ["AF"]);
    assert!(akhund.addresses.is_empty());
    assert_eq!(akhund.programs, ["1988 (Taliban)"]);
    assert_eq!(akhund.listed_on.as_deref(), Some("2001-01-25"));
    assert_eq!(akhund.attributes["control_date"], "2014-12-15");

    let barkalla = entry_by_id(&parsed, "7993");
    assert_eq!(isos(&barkalla.birth_dates), ["1969-01-01"]);
    assert_eq!(barkalla.nationalities, ["SD"]);
    let osman = entry_by_id(&parsed, "7994");
    assert_eq!(isos(&osman.birth_dates), ["1969"]);
    assert_eq!(osman.nationalities, ["RU", "UA"]);
    assert_eq!(osman.addresses.len(), 2);
    assert_eq!(osman.addresses[1].full.as_deref(), Some("Kyiv, Ukraine"));

    let romashka = entry_by_id(&parsed, "12");
    assert_eq!(romashka.kind, EntityKind::Entity);
    assert_eq!(romashka.primary_name, "ООО «Ромашка»");
    assert_eq!(
        alias_names(romashka),
        ["Romashka LLC", "Romashka Müller GmbH"]
    );
    assert_eq!(romashka.aliases[1].kind.as_deref(), Some("fka"));
    assert_eq!(romashka.countries, ["RU"]);
    assert_eq!(romashka.listed_on, None);
}

#[test]
fn refuses_wrong_files() {
    for (dir, wanted) in [
        ("broken_not_zip", "not a readable xlsx workbook"),
        ("broken_truncated", "not a readable xlsx workbook"),
        ("broken_header", "row 1: no \"reference\" column"),
        // Found by tests/lists/fuzz.rs: a cell reference too long for calamine's column arithmetic
        // panicked in test builds (overflow checks are now off for calamine, as in release).
        // Its damaged local header is now refused by the zip bounds, before calamine.
        ("broken_cell_reference", "entry 0 is unreadable"),
    ] {
        let err = fixture(dir).unwrap_err().to_string();
        assert!(
            err.starts_with("regulation8_consolidated.xlsx"),
            "{dir}: {err}"
        );
        assert!(err.contains(wanted), "{dir}: {err}");
    }
}

#[test]
fn reads_the_real_file() {
    let data = shared_data();
    let parsed = parse_dir(&data.join("lists/au_dfat")).unwrap();
    let count = |k| parsed.entities.iter().filter(|e| e.kind == k).count();
    assert_eq!(parsed.entities.len(), 3062);
    assert_eq!(count(EntityKind::Individual), 2316);
    assert_eq!(count(EntityKind::Entity), 746);
    let names: usize = parsed.entities.iter().map(|e| e.all_names().count()).sum();
    assert_eq!(names, 9518);
    assert!(parsed.notes.is_empty(), "{:?}", parsed.notes);
    assert_eq!(parsed.published.as_deref(), Some("2024-11-11"));

    let akhund = entry_by_id(&parsed, "2");
    assert_eq!(akhund.primary_name, "MOHAMMAD HASSAN AKHUND");
    assert!(alias_names(akhund).contains(&"محمد حسن أخوند"));
    assert_eq!(akhund.nationalities, ["AF"]);
    assert_eq!(akhund.listed_on.as_deref(), Some("2001-01-25"));
    let kabir = entry_by_id(&parsed, "3");
    assert_eq!(kabir.primary_name, "Abdul Kabir Mohammad Jan");
    assert!(alias_names(kabir).contains(&"A. Kabir"));
    assert_eq!(isos(&kabir.birth_dates), ["1963"]);
    let barkalla = entry_by_id(&parsed, "7993");
    assert_eq!(barkalla.programs, ["1591 (Sudan)"]);
    assert_eq!(barkalla.birth_dates.len(), 1);
    assert!(parsed.entities.iter().all(|e| !e.source_id.contains('.')));
    let with_dob = parsed
        .entities
        .iter()
        .filter(|e| !e.birth_dates.is_empty())
        .count();
    assert!(with_dob > 1500, "{with_dob}");
}
