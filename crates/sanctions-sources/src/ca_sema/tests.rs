use super::*;
use crate::testutil::{alias_names, entry_by_id, fixtures, shared_data};

fn fixture(name: &str) -> Result<ParsedList, SourceError> {
    parse_dir(&fixtures().join("ca_sema").join(name))
}

#[test]
fn reads_the_fixture() {
    let parsed = fixture("good").unwrap();
    let ids: Vec<&str> = parsed
        .entities
        .iter()
        .map(|e| e.source_id.as_str())
        .collect();
    assert_eq!(
        ids,
        [
            "Belarus/1,Part1/12",
            "Russia/1,Part2/457",
            "Russia/1.1/6",
            "Venezuela//109",
            "Justice for Victims of Corrupt Foreign Officials Regulations (JVCFOR)//74",
        ]
    );
    let kolya = entry_by_id(&parsed, "Belarus/1,Part1/12");
    assert_eq!(kolya.kind, EntityKind::Individual);
    assert_eq!(kolya.primary_name, "Mikalay Alyaksandravich Lukashenka");
    assert_eq!(kolya.name_parts.family.as_deref(), Some("Lukashenka"));
    assert_eq!(
        alias_names(kolya),
        [
            "Mikalay Lukashenka",
            "Kolya Lukashenko",
            "Мікалай Аляксандравіч Лукашэнка",
            "Николай Александрович Лукашенко"
        ]
    );
    assert_eq!(kolya.aliases[2].script.as_deref(), Some("Cyrillic"));
    assert_eq!(kolya.birth_dates[0].iso(), "2004-08-31");
    assert_eq!(kolya.countries, ["BY"]);
    assert_eq!(kolya.programs, ["Belarus"]);
    assert_eq!(kolya.listed_on.as_deref(), Some("2020-10-15"));

    let interros = entry_by_id(&parsed, "Russia/1,Part2/457");
    assert_eq!(interros.kind, EntityKind::Entity);
    assert_eq!(interros.primary_name, "Interros Invest & Co");
    assert_eq!(
        alias_names(interros),
        [
            "Интеррос Инвест, АО",
            "Международная Компания \"Интеррос Инвест\"",
            "GORT",
            "ORTAS"
        ]
    );
    let bodhi = entry_by_id(&parsed, "Russia/1.1/6");
    assert_eq!(bodhi.kind, EntityKind::Vessel);
    assert_eq!(bodhi.identifiers[0].number, "9144782");
    assert_eq!(bodhi.attributes["build_date"], "1997");
    assert_eq!(bodhi.attributes["vessel_type"], "Oil Tanker");
    let reverol = entry_by_id(&parsed, "Venezuela//109");
    assert_eq!(reverol.primary_name, "Néstor Luis Reverol Torres");
    assert_eq!(reverol.name_parts.title.as_deref(), Some("Major General"));
    assert_eq!(reverol.countries, ["VE"]);
    let mec = entry_by_id(
        &parsed,
        "Justice for Victims of Corrupt Foreign Officials Regulations (JVCFOR)//74",
    );
    assert!(mec.countries.is_empty());
    assert_eq!(
        mec.programs,
        ["Justice for Victims of Corrupt Foreign Officials Regulations (JVCFOR)"]
    );
}

#[test]
fn refuses_broken_files() {
    for (dir, wanted) in [
        (
            "broken_truncated",
            "sema-lmes.xml, line 25: malformed XML: syntax error",
        ),
        (
            "broken_truncated_record",
            "sema-lmes.xml, line 21: the file ends inside <record>",
        ),
        ("broken_malformed", "sema-lmes.xml, line 17: malformed XML"),
        (
            "broken_wrong_root",
            "sema-lmes.xml, line 2: root element <sdnList>",
        ),
    ] {
        let err = fixture(dir).unwrap_err().to_string();
        assert!(err.contains(wanted), "{dir}: {err}");
    }
    let no_item = "<data-set>\n<record><Country>Iran</Country><EntityOrShip>X Co</EntityOrShip></record>\n</data-set>";
    let err = parse_input(&Input::from_bytes(
        "sema-lmes.xml",
        no_item.as_bytes().to_vec(),
    ));
    let err = err.unwrap_err().to_string();
    assert!(
        err.contains("sema-lmes.xml, line 2 (<record> 1): a record needs"),
        "{err}"
    );
    let wrong = parse_input(&Input::from_bytes(
        "sema-lmes.xml",
        b"Country,Item\nRussia,1\n".to_vec(),
    ));
    assert!(wrong.unwrap_err().to_string().contains("no <record>"));
}

#[test]
fn reads_the_real_file() {
    let data = shared_data();
    let parsed = parse_dir(&data.join("lists/ca_sema")).unwrap();
    let count = |k| parsed.entities.iter().filter(|e| e.kind == k).count();
    assert_eq!(parsed.entities.len(), 4759);
    assert!(parsed.notes.is_empty(), "{:?}", parsed.notes);
    assert_eq!(count(EntityKind::Individual), 3334);
    assert_eq!(count(EntityKind::Entity), 1316);
    assert_eq!(count(EntityKind::Vessel), 109);
    let names: usize = parsed.entities.iter().map(|e| e.all_names().count()).sum();
    assert_eq!(names, 8445 + BILINGUAL);

    let atabekov = entry_by_id(&parsed, "Belarus/1,Part1/1");
    assert_eq!(atabekov.primary_name, "Khazalbek Bakhtibekovich Atabekov");
    assert_eq!(atabekov.listed_on.as_deref(), Some("2020-09-28"));
    let barsukov = entry_by_id(&parsed, "Belarus/1,Part1/3");
    assert_eq!(barsukov.birth_dates[0].iso(), "1965-04-29");
    let russia = entry_by_id(&parsed, "Russia/1,Part1/457");
    assert_eq!(russia.kind, EntityKind::Individual);
    assert_eq!(russia.countries, ["RU"]);
    let bodhi = parsed.entities.iter().find(|e| e.primary_name == "Bodhi");
    assert_eq!(bodhi.map(|e| e.kind), Some(EntityKind::Vessel));
    let myanmar = parsed
        .entities
        .iter()
        .filter(|e| e.source_id.starts_with("Myanmar (Burma)/"));
    assert_eq!(myanmar.clone().count(), 241);
    assert!(
        parsed
            .entities
            .iter()
            .any(|e| e.source_id == "Myanmar (Burma)/Part2/14")
    );
    assert!(
        parsed
            .entities
            .iter()
            .any(|e| e.source_id == "Venezuela//109")
    );
    let jvcfor = "Justice for Victims of Corrupt Foreign Officials Regulations (JVCFOR)//74";
    assert!(parsed.entities.iter().any(|e| e.source_id == jvcfor));

    // Bilingual names become two: the English primary and the French alias.
    let bilingual = parsed
        .entities
        .iter()
        .filter(|e| e.aliases.iter().any(|a| a.lang.as_deref() == Some("fr")))
        .count();
    assert_eq!(bilingual, BILINGUAL);
    let irgc = parsed
        .entities
        .iter()
        .find(|e| e.primary_name == "Islamic Revolutionary Guard Corps")
        .unwrap();
    assert!(
        alias_names(irgc).contains(&"Corps des Gardiens de la Révolution islamique"),
        "{:?}",
        irgc.aliases
    );
    assert!(
        parsed
            .entities
            .iter()
            .any(|e| e.primary_name == "MEC Steel Mills (Hmaw Bi/Pyi/Ywama)")
    );
}

/// Entries named `English/Français` (the 38 such names less `MEC Steel Mills (Hmaw Bi/Pyi/Ywama)`).
const BILINGUAL: usize = 37;
