use super::*;
use crate::model::AliasQuality;
use crate::testutil::{alias_names, entry_by_id, fixtures, shared_data};

fn fixture(name: &str) -> Result<ParsedList, SourceError> {
    parse_dir(&fixtures().join("world_bank").join(name))
}

#[test]
fn reads_the_fixture() {
    let parsed = fixture("good").unwrap();
    assert_eq!(parsed.entities.len(), 4);
    assert_eq!(parsed.published.as_deref(), Some("2026-02-21"));
    let person = entry_by_id(&parsed, "329186");
    assert_eq!(person.kind, EntityKind::Individual);
    assert_eq!(person.primary_name, "IYKE AMBROSE");
    assert_eq!(person.name_parts.title.as_deref(), Some("MR."));
    assert_eq!(person.listed_on.as_deref(), Some("2017-01-24"));
    assert_eq!(person.attributes["debarred_to"], "open-ended");
    assert_eq!(person.listing_ends, None);
    assert_eq!(person.attributes["footnotes"], "356");
    assert_eq!(person.countries, ["NG"]);
    assert_eq!(person.addresses[0].city.as_deref(), Some("LAGOS"));
    assert!(
        person
            .programs
            .contains(&"Consultant Guidelines, 1.22(a)(i)".to_owned())
    );

    let firm = entry_by_id(&parsed, "306872");
    assert_eq!(firm.kind, EntityKind::Entity);
    assert_eq!(
        alias_names(firm),
        [
            "Groupe Systèmes et Solutions D’entreprise",
            "ESS Group",
            "MetaFlow Inc."
        ]
    );
    assert_eq!(firm.aliases[2].kind.as_deref(), Some("nka"));
    assert_eq!(firm.aliases[0].quality, AliasQuality::Unspecified);
    assert_eq!(firm.identifiers[0].number, "1859937");
    assert_eq!(firm.attributes["debarred_to"], "2026-07-25");
    assert_eq!(firm.listing_ends.as_deref(), Some("2026-07-25"));
    assert!(firm.ended("2026-07-26") && !firm.ended("2026-07-25"));
    assert_eq!(firm.addresses[0].city.as_deref(), Some("Montréal"));

    let chinese = entry_by_id(&parsed, "321732");
    assert_eq!(alias_names(chinese), ["湖南建设集团有限公司"]);
    assert_eq!(chinese.aliases[0].script.as_deref(), Some("Han"));
    assert!(
        chinese
            .programs
            .contains(&"World Bank cross-debarment".to_owned())
    );

    let other = entry_by_id(&parsed, "191046");
    assert_eq!(other.kind, EntityKind::Entity);
    assert_eq!(other.primary_name, "MULTISTAR HOLDINGS LIMITED");
    assert_eq!(alias_names(other), ["MULTI-CON SYSTEMS PTE LTD."]);
    assert_eq!(other.countries, ["SG"]);
}

#[test]
fn refuses_wrong_files() {
    for (dir, wanted) in [
        ("broken_html", "SANCTIONED_FIRM.json, line 1 column 1"),
        ("broken_shape", "response.ZPROCSUPP"),
        ("broken_truncated", "SANCTIONED_FIRM.json, line 3 column"),
    ] {
        let err = fixture(dir).unwrap_err().to_string();
        assert!(err.contains(wanted), "{dir}: {err}");
        assert!(err.contains("SANCTIONED_FIRM.json"), "{dir}: {err}");
    }
    let missing = parse_dir(&fixtures().join("world_bank/none")).unwrap_err();
    assert!(missing.to_string().contains("SANCTIONED_FIRM.json"));
}

#[test]
fn reads_the_real_file() {
    let data = shared_data();
    let parsed = parse_dir(&data.join("lists/world_bank")).unwrap();
    let count = |k| parsed.entities.iter().filter(|e| e.kind == k).count();
    assert_eq!(parsed.entities.len(), 1370);
    assert_eq!(count(EntityKind::Individual), 268);
    assert_eq!(count(EntityKind::Entity), 1102);
    let names: usize = parsed.entities.iter().map(|e| e.all_names().count()).sum();
    // SOURCES.md says "about 1,430": every non-Latin ADD_SUPP_INFO (about 300 Chinese
    // names, many bare rather than parenthesised) is an alias here, per ID_SCHEME.md.
    assert_eq!(names, 1748);
    assert_eq!(parsed.published.as_deref(), Some("2026-02-21"));

    let ambrose = entry_by_id(&parsed, "329186");
    assert_eq!(ambrose.primary_name, "IYKE AMBROSE");
    assert_eq!(ambrose.countries, ["NG"]);
    let lee = entry_by_id(&parsed, "308516");
    assert_eq!(lee.primary_name, "PETER LEE");
    assert_eq!(alias_names(lee), ["LI YI"]);
    let schone = entry_by_id(&parsed, "187263");
    assert_eq!(schone.primary_name, "HANS PETER SCHÖNE");
    let compu = entry_by_id(&parsed, "306872");
    assert!(alias_names(compu).contains(&"MetaFlow Inc."));
    let tengwangge = entry_by_id(&parsed, "427075");
    assert!(alias_names(tengwangge).contains(&"滕王阁建工集团股份有限公司"));
    assert_eq!(entry_by_id(&parsed, "467510").primary_name, "JOKO SESWANTO");
    let handoko = entry_by_id(&parsed, "184278");
    assert_eq!(handoko.primary_name, "SATRIO BUDI HANDOKO");
    assert_eq!(alias_names(handoko), ["JOKO SESWANTO"]);
    let xinjiang = entry_by_id(&parsed, "798034");
    assert_eq!(
        xinjiang.primary_name,
        "XINJIANG JIAOTONG LOGISTICS CO., LTD."
    );
    assert!(alias_names(xinjiang).contains(&"XCCG LOGISTICS CO., LTD."));
    // Debarments with a real end date (686): none had ended on the file's date, and more
    // end every month after it.
    let ends = parsed.entities.iter().filter(|e| e.listing_ends.is_some());
    assert_eq!(ends.clone().count(), 686);
    assert_eq!(ends.clone().filter(|e| e.ended("2026-02-21")).count(), 0);
    assert_eq!(
        ends.filter(|e| e.ended("2026-11-22")).count(),
        ENDED_BY_2026_11_22
    );
    for e in &parsed.entities {
        assert!(!e.primary_name.contains('*'), "{}", e.primary_name);
        assert!(!e.primary_name.starts_with("MR. "), "{}", e.primary_name);
    }
}

/// The 161 World Bank debarments whose end date had passed on 22 November 2026.
const ENDED_BY_2026_11_22: usize = 161;

/// Found by the fuzz harness: a name holding a character whose lowercase form has another
/// byte length (the Kelvin sign) was sliced at an offset of its lowercase form and panicked.
#[test]
fn names_with_case_changing_letters_do_not_panic() {
    for name in [
        "A\u{212A}A ACME TRADING",
        "(f\u{212A}a ACME OLD; a.k.a. ACME GROUP)",
        "ACME LTD (a\u{212A}a ACME TRADING)",
        "\u{212A}nown as X",
        "ALSO KNOWN AS \u{212A}ELVIN",
        "\u{212A}\u{212A}\u{212A} formerly known as Y",
        "\u{0130}STANBUL LTD (also known as \u{0130}S)",
        "MR.\u{212A} ANE",
        "\u{212A}R. ANE",
    ] {
        let _ = names::split(name);
        let _ = names::classify(name);
        let _ = names::strip_title(name);
    }
    // The case that panicked: the Kelvin sign in a marker (`aKa`), sliced at the offset of
    // its lowercase form.
    assert!(matches!(
        names::classify("a\u{212A}a ACME TRADING"),
        names::Piece::Aliases(a) if a[0].name == "ACME TRADING"
    ));
    assert!(matches!(
        names::classify("Also \u{212A}nown As XY Ltd"),
        names::Piece::Aliases(a) if a[0].name == "XY Ltd"
    ));
    assert_eq!(
        names::strip_title("MR.\u{212A} X"),
        ("\u{212A} X".to_owned(), Some("MR.".to_owned()))
    );
}
