//! The engine end to end on a small hand-made index.

use super::*;
use crate::model::{AliasQuality, EntityKind, EntityNames, ListCode};

fn entry(id: &str, kind: EntityKind, names: &[&str]) -> EntityNames {
    EntityNames {
        entity_id: format!("ofac_sdn:{id}"),
        list: ListCode::OfacSdn,
        kind,
        primary_name: names[0].to_owned(),
        country: Some("RU".to_owned()),
        names: names
            .iter()
            .map(|n| (n.to_string(), AliasQuality::Unspecified))
            .collect(),
        listing_ends: None,
        facts: Default::default(),
    }
}

fn index() -> Index {
    use EntityKind::{Entity, Individual};
    Index::build(&[
        entry(
            "1",
            Individual,
            &["PUTIN, Vladimir Vladimirovich", "Владимир Путин"],
        ),
        entry("2", Individual, &["BIN LADIN, Usama", "BIN LADEN, Osama"]),
        entry(
            "3",
            Entity,
            &["BANCO NACIONAL DE CUBA", "NATIONAL BANK OF CUBA"],
        ),
        entry("4", Entity, &["AL QA'IDA", "THE BASE"]),
        entry("5", Individual, &["NASRALLAH, Hassan"]),
        entry("6", Individual, &["HASSAN, Mohammed Ali"]),
        entry("7", Entity, &["ROMASHKA LIMITED LIABILITY COMPANY"]),
        entry("8", Individual, &["KIM, Jong Un"]),
        entry("9", Individual, &["SMITH, Adam Joseph"]),
    ])
}

fn top(index: &Index, name: &str) -> Option<(String, u8)> {
    let request = Request {
        threshold: Some(0),
        ..Request::new(name)
    };
    let result = screen(index, &request).ok()?;
    result.hits.first().map(|m| (m.entity_id.clone(), m.score))
}

fn assert_hit(index: &Index, name: &str, id: &str) {
    let (found, score) = top(index, name).unwrap_or_default();
    assert_eq!(found, format!("ofac_sdn:{id}"), "{name}");
    assert!(score >= DEFAULT_THRESHOLD, "{name}: {score}");
}

fn assert_quiet(index: &Index, name: &str) {
    if let Some((found, score)) = top(index, name) {
        assert!(
            score < DEFAULT_THRESHOLD,
            "{name} raised {found} at {score}"
        );
    }
}

/// Each query finds its expected entry first, at the threshold or above.
fn assert_first_at_threshold(index: &Index, cases: &[(&str, &str)]) {
    for (query, expected) in cases {
        let (found, score) = top(index, query).unwrap_or_default();
        assert_eq!(found, *expected, "{query}");
        assert!(score >= DEFAULT_THRESHOLD, "{query}: {score}");
    }
}

#[test]
fn finds_variants_of_listed_names() {
    let index = index();
    for (name, id) in [
        ("Vladimir Putin", "1"),
        ("PUTIN, Vladimir Vladimirovich", "1"),
        ("V. Putin", "1"),
        ("Владимир Путин", "1"),
        ("Vladimir Putn", "1"),
        ("Usama bin Ladin", "2"),
        ("Osama bin Laden", "2"),
        ("banco nacional de cuba", "3"),
        ("Al Qaida", "4"),
        ("Alqaida", "4"),
        ("al-Qa'ida", "4"),
        ("Hassan Nasrallah", "5"),
        ("Romashka LLC", "5x"),
    ] {
        if id == "5x" {
            assert_hit(&index, name, "7");
        } else {
            assert_hit(&index, name, id);
        }
    }
    assert_hit(&index, "OOO Romashka", "7");
    assert_hit(&index, "Kim Jongun", "8");
}

#[test]
fn stays_quiet_for_other_people() {
    let index = index();
    assert_quiet(&index, "Mohammed Nasrallah Khan");
    assert_quiet(&index, "John Smith");
    assert_quiet(&index, "Vladimir Ivanov");
    assert_quiet(&index, "Banco Popular de Venezuela");
}

#[test]
fn explains_each_token() {
    let index = index();
    let mut request = Request {
        kind: Some(KindFilter::Individual),
        limit: Some(1),
        ..Request::new("Vladimir Putin")
    };
    let result = screen(&index, &request).unwrap();
    let m = &result.hits[0];
    assert_eq!(m.primary_name, "PUTIN, Vladimir Vladimirovich");
    assert_eq!(m.matched_name, "Владимир Путин");
    assert_eq!(m.kind, EntityKind::Individual);
    assert_eq!(m.country.as_deref(), Some("RU"));
    let putin = m
        .explanation
        .tokens
        .iter()
        .find(|t| t.query.as_deref() == Some("putin"))
        .unwrap();
    // The listed Cyrillic word as the list writes it.
    assert_eq!(putin.listed.as_deref(), Some("Путин"));
    assert_eq!(putin.kind, MatchKind::Exact);
    request.name = "V Putin".to_owned();
    request.threshold = Some(0);
    let result = screen(&index, &request).unwrap();
    let how: Vec<_> = result.hits[0]
        .explanation
        .tokens
        .iter()
        .map(|t| (t.query.as_deref(), t.listed.as_deref(), t.kind))
        .collect();
    assert!(
        how.contains(&(Some("v"), Some("Владимир"), MatchKind::Initial)),
        "{how:?}"
    );
    request.name = "Nasrallah Khan".to_owned();
    let result = screen(&index, &request).unwrap();
    let how: Vec<_> = result.hits[0]
        .explanation
        .tokens
        .iter()
        .map(|t| (t.query.as_deref(), t.listed.as_deref(), t.kind))
        .collect();
    assert!(
        how.contains(&(Some("khan"), None, MatchKind::Unmatched)),
        "{how:?}"
    );
    assert!(
        how.contains(&(None, Some("hassan"), MatchKind::Unmatched)),
        "{how:?}"
    );
}

#[test]
fn filters_and_bounds() {
    let index = index();
    let mut request = Request {
        kind: Some(KindFilter::Individual),
        ..Request::new("Banco Nacional de Cuba")
    };
    assert!(screen(&index, &request).unwrap().hits.is_empty());
    request.kind = None;
    request.lists = Some(vec![ListCode::Un]);
    assert!(screen(&index, &request).unwrap().hits.is_empty());
    request.lists = None;
    request.limit = Some(0);
    assert_eq!(screen(&index, &request), Err(ScreenError::Limit(0)));
    request.limit = None;
    request.threshold = Some(101);
    assert_eq!(screen(&index, &request), Err(ScreenError::Threshold(101)));
    request.threshold = None;
    request.name = "  ".to_owned();
    assert_eq!(screen(&index, &request), Err(ScreenError::EmptyName));
}

#[test]
fn a_new_index_is_swapped_in() {
    let screener = Screener::new(Index::default());
    let request = Request::new("Vladimir Putin");
    assert_eq!(screener.screen(&request).unwrap().total, 0);
    let old = screener.index();
    screener.replace(index());
    assert_eq!(screener.screen(&request).unwrap().total, 1);
    assert_eq!(old.entity_count(), 0);
}

#[test]
fn abjad_words_written_apart_meet_a_latin_compound() {
    let index = Index::build(&[
        entry("1", EntityKind::Individual, &["NEMATULLAH, Mawlawi"]),
        entry("2", EntityKind::Individual, &["NEMAT, Ali"]),
    ]);
    // Two words in Arabic script, the listed name one Latin word of their joined skeleton.
    let query = Query::new(&index, "نعمت الله", false);
    assert_eq!(query.abjad_joins.len(), 1, "{:?}", query.abjad_joins);
    let (found, score) = top(&index, "نعمت الله").unwrap_or_default();
    assert_eq!(found, "ofac_sdn:1");
    assert!(score >= 70, "{score}");
    // Latin words are never joined by skeleton.
    let latin = Query::new(&index, "Nemat Ullah", false);
    assert!(latin.abjad_joins.is_empty());
}

#[test]
fn abjad_compounds_meet_latin_ones_across_the_article() {
    let index = Index::build(&[
        entry("1", EntityKind::Individual, &["SHAMSUDDIN, Mawlawi"]),
        entry("2", EntityKind::Individual, &["ABDURRAHMAN, Hamid"]),
        entry("3", EntityKind::Individual, &["SALAHALDIN, Ahmad"]),
    ]);
    // The article assimilated (`ud`, `ur`) or written (`al`), `عبد` joined too (`Mawlawi` is
    // a title; the others' given names are written in the query).
    for (query, expected) in [
        ("شمس الدين", "ofac_sdn:1"),
        ("حامد عبد الرحمن", "ofac_sdn:2"),
        ("احمد صلاح الدين", "ofac_sdn:3"),
    ] {
        let (found, score) = top(&index, query).unwrap_or_default();
        assert_eq!(found, expected, "{query}");
        assert!(score >= 70, "{query}: {score}");
    }
}

#[test]
fn explanations_show_words_not_in_latin_letters_as_written() {
    let index = index();
    let request = Request {
        limit: Some(1),
        ..Request::new("أسامة بن لادن")
    };
    let result = screen(&index, &request).unwrap();
    assert_eq!(result.hits[0].entity_id, "ofac_sdn:2");
    let how: Vec<_> = result.hits[0]
        .explanation
        .tokens
        .iter()
        .map(|t| (t.query.as_deref(), t.listed.as_deref()))
        .collect();
    // The analyst's own words beside the listed ones, not their skeletons (`smh`, `ldn`).
    assert!(how.contains(&(Some("أسامة"), Some("osama"))), "{how:?}");
    assert!(how.contains(&(Some("لادن"), Some("laden"))), "{how:?}");
    // A listed name not in Latin letters: its words as the list writes them.
    let result = screen(&index, &Request::new("Vladimir Putin")).unwrap();
    let listed: Vec<_> = result.hits[0]
        .explanation
        .tokens
        .iter()
        .filter_map(|t| t.listed.as_deref())
        .collect();
    assert_eq!(result.hits[0].matched_name, "Владимир Путин");
    assert_eq!(listed, ["Владимир", "Путин"]);
    // Latin and Cyrillic words: Latin ones as compared, Cyrillic as written.
    let result = screen(&index, &Request::new("Владимир Putin")).unwrap();
    let shown: Vec<_> = result.hits[0]
        .explanation
        .tokens
        .iter()
        .filter_map(|t| t.query.as_deref())
        .collect();
    assert_eq!(shown, ["Владимир", "putin"]);
}

#[test]
fn a_latin_compound_meets_abjad_words_written_apart() {
    let index = Index::build(&[
        entry("1", EntityKind::Individual, &["هدايت الله حقاني"]),
        entry("2", EntityKind::Individual, &["نور الدين بن علي الدريسي"]),
        entry("3", EntityKind::Individual, &["NUR, Ali"]),
    ]);
    // Joined skeletons (`htl`, `nrtn`), the article of the compound left to it rather than
    // paired with the `al` of another word. (The entry must be a candidate through another
    // word: a compound alone does not look up listed abjad pairs.)
    let (found, score) = top(&index, "Hidayatullah Haqqani").unwrap_or_default();
    assert_eq!(found, "ofac_sdn:1");
    assert!(score >= DEFAULT_THRESHOLD, "{score}");
    let (found, score) = top(&index, "Noureddine Ben Ali Al-Drissi").unwrap_or_default();
    assert_eq!(found, "ofac_sdn:2");
    assert!(score >= DEFAULT_THRESHOLD, "{score}");
}

#[test]
fn the_joins_kept_per_thread_are_the_index_screened_ones() {
    // The same name ids in two indexes, the abjad compound only in the second: what the
    // thread kept of the first index's names must not answer for the second's.
    let plain = Index::build(&[
        entry("1", EntityKind::Individual, &["هدايت حقاني"]),
        entry("3", EntityKind::Individual, &["NUR, Ali"]),
    ]);
    let (_, before) = top(&plain, "Hidayatullah Haqqani").unwrap_or_default();
    assert!(before < DEFAULT_THRESHOLD, "{before}");
    let compound = Index::build(&[
        entry("1", EntityKind::Individual, &["هدايت الله حقاني"]),
        entry("3", EntityKind::Individual, &["NUR, Ali"]),
    ]);
    let (found, score) = top(&compound, "Hidayatullah Haqqani").unwrap_or_default();
    assert_eq!(found, "ofac_sdn:1");
    assert!(score >= DEFAULT_THRESHOLD, "{score}");
    let (_, again) = top(&plain, "Hidayatullah Haqqani").unwrap_or_default();
    assert_eq!(again, before);
}

#[test]
fn a_name_in_two_scripts_is_screened_as_two_names() {
    let index = index();
    // The Latin name with its Arabic-script form in parentheses, or one after the other:
    // the Latin name alone meets the entry exactly.
    for name in [
        "Hassan Nasrallah (حسن نصر الله)",
        "(Hassan Nasrallah) حسن نصر الله",
        "Hassan Nasrallah حسن نصر الله",
    ] {
        let request = Request {
            threshold: Some(0),
            limit: Some(3),
            ..Request::new(name)
        };
        let result = screen(&index, &request).unwrap();
        assert_eq!(result.hits[0].entity_id, "ofac_sdn:5", "{name}");
        assert_eq!(result.hits[0].score, 100, "{name}");
        assert!(result.hits.len() <= 3);
        let mut entities: Vec<u32> = result.hits.iter().map(|h| h.entity).collect();
        entities.dedup();
        assert_eq!(entities.len(), result.hits.len(), "one hit per entry");
        assert!(result.total >= result.hits.len());
    }
}

#[test]
fn titles_written_in_arabic_script_cost_little() {
    let index = index();
    let (id, plain) = top(&index, "حسن نصرالله").unwrap_or_default();
    assert_eq!(id, "ofac_sdn:5");
    // An honorific is dropped like its Latin spelling (`Sheikh`), with its article.
    assert_eq!(top(&index, "الشيخ حسن نصرالله"), Some((id.clone(), plain)));
    // A leading `سید` stays a word (Latin names keep `Seyed`) but weighs as a particle
    // when it meets nothing.
    let (titled_id, titled) = top(&index, "سید حسن نصرالله").unwrap_or_default();
    assert_eq!(titled_id, id);
    assert!(plain - titled <= 10, "{plain} vs {titled}");
}

#[test]
fn abjad_letters_read_as_the_latin_names_spell_them() {
    let index = Index::build(&[
        entry("1", EntityKind::Individual, &["AFIF, Ghassan Aziz"]),
        entry("2", EntityKind::Individual, &["HANAFI, Nazirullah"]),
        entry("3", EntityKind::Individual, &["OULD MOHAMED, Hamada"]),
        entry("4", EntityKind::Individual, &["BIN MARWAN, Bilal"]),
        entry("5", EntityKind::Individual, &["BILL, Marwan"]),
    ]);
    // A letter repeated across a long vowel (`عفيف`, `عزيز`), alef maksura for a final ya
    // (`حنفى`), `ولد` as the particle `ould`, alef as a vowel (`بلال` is not Bill).
    assert_first_at_threshold(
        &index,
        &[
            ("غسان عزيز عفيف", "ofac_sdn:1"),
            ("نذیر الله حنفى", "ofac_sdn:2"),
            ("حماده ولد محمد", "ofac_sdn:3"),
            ("بلال بن مروان", "ofac_sdn:4"),
        ],
    );
}

#[test]
fn regional_spellings_and_the_article_joined_meet_arabic_script() {
    let index = Index::build(&[
        entry("1", EntityKind::Individual, &["RAGAB, Gamal Abdel"]),
        entry("2", EntityKind::Individual, &["AKKACHA, Djamel"]),
        entry("3", EntityKind::Individual, &["ELHASSAN, Hamza"]),
    ]);
    // Egyptian `g` for jim, French `ch` for shin and `dj` for jim, the article written onto
    // its word in the Latin name.
    assert_first_at_threshold(
        &index,
        &[
            ("جمال رجب", "ofac_sdn:1"),
            ("جمال عكاشة", "ofac_sdn:2"),
            ("حمزة الحسن", "ofac_sdn:3"),
        ],
    );
    // Two words joined are not read the regional ways: `ایوب بشیر` is not `Boucher`.
    let boucher = Index::build(&[entry("1", EntityKind::Individual, &["ایوب بشیر"])]);
    assert_quiet(&boucher, "Boucher SARL");
}

#[test]
fn joins_and_single_words_are_aligned_both_ways() {
    let index = Index::build(&[
        entry("1", EntityKind::Individual, &["HAMDULLAH ALLAH NOOR"]),
        entry("2", EntityKind::Individual, &["AHMAD ZIA AGHA"]),
        entry(
            "3",
            EntityKind::Individual,
            &["BOGDANOV, Vladimir Mikhaylovich"],
        ),
    ]);
    // A compound before the closer single pair that would take one of its words, and single
    // words before a compound that would take both.
    assert_first_at_threshold(
        &index,
        &[
            ("حمد الله الله نور", "ofac_sdn:1"),
            ("احمد ضیا آغا", "ofac_sdn:2"),
        ],
    );
    // Two words against two are never taken first: a surname that meets nothing stays
    // unpaired.
    assert_quiet(&index, "Vladimir Mikhailovich ZHDANOV");
}

#[test]
fn a_surname_that_is_also_a_particle_or_a_title_is_screened_exactly() {
    use EntityKind::Individual;
    let index = Index::build(&[
        entry("1", Individual, &["DAS, Vikram"]),
        entry("2", Individual, &["KING, Pat D."]),
        entry("3", Individual, &["DASILVA, Victor"]),
        entry("4", Individual, &["VAN DEN BERG, Anna"]),
    ]);
    assert_hit(&index, "DAS, V.", "1");
    assert_hit(&index, "V. Das", "1");
    assert_hit(&index, "Pat D. King", "2");
    // Exact words only: `das` never meets `dasilva` or `van den berg`.
    let request = Request {
        threshold: Some(0),
        limit: Some(10),
        ..Request::new("DAS, V.")
    };
    let hits = screen(&index, &request).unwrap().hits;
    assert!(hits.iter().all(|h| h.entity_id == "ofac_sdn:1"), "{hits:?}");
    // Punctuation or a title alone is still nothing to screen.
    for name in [".", "Mr", "Dr. A."] {
        assert!(!has_something_to_screen(name, true), "{name}");
    }
}

#[test]
fn names_of_one_shape_share_the_first_ones_id_and_a_wrong_mark_is_refused() {
    use EntityKind::Individual;
    let build = || {
        Index::build(&[
            entry("1", Individual, &["KIM, Jong Un"]),
            entry("2", Individual, &["KIM Jong Un"]),
            entry("3", Individual, &["KIM, Jong Il"]),
        ])
    };
    let index = build();
    let texts: Vec<&str> = index.names.iter().map(|n| n.text.as_str()).collect();
    let id_of = |text: &str| texts.iter().position(|t| *t == text).expect(text);
    let first = id_of("KIM, Jong Un");
    assert_eq!(index.names[first].shape as usize, first);
    // The same name on another entry: one shape, marked with the first's id.
    let same = &index.names[id_of("KIM Jong Un")];
    assert_eq!(same.tokens, index.names[first].tokens);
    assert_eq!(same.shape as usize, first);
    let other = id_of("KIM, Jong Il");
    assert_eq!(index.names[other].shape as usize, other);
    assert!(Index::from_bytes(&index.to_bytes().unwrap()).is_ok());

    // A mark pointing at a later name, or at a name that is not the first of its shape.
    let mut later = build();
    later.names[first].shape = other as u32;
    let mut not_first = build();
    not_first.names[other].shape = id_of("KIM Jong Un") as u32;
    for wrong in [later, not_first] {
        let refused = Index::from_bytes(&wrong.to_bytes().unwrap());
        assert!(
            matches!(refused, Err(stored::StoredError::Inconsistent(_))),
            "{refused:?}"
        );
    }
}
