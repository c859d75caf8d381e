//! Match quality against the real lists: the development set (`../shared/eval/dev.csv`),
//! the cross-script and combined-changes sets built from the lists (`quality::sets`), the
//! typed-query cases of issue 8, and honest totals. Prints the tables the README shows and
//! holds regression floors a little under the figures reached.
//! `cargo test --test eval -- --nocapture` shows the tables.
#![allow(clippy::unwrap_used)]

use std::sync::OnceLock;

use sanctions_engine::{self as engine, DEFAULT_THRESHOLD, Index, Request};
use sanctions_eval::{self as quality, LabelledQuery, Report, sets};
use sanctions_model::EntityNames;

/// Floors: a little under what the engine reaches (see the README), so that a regression
/// fails the build.
const MIN_RECALL_AT_1: f64 = 0.96;
const MIN_RECALL_AT_10: f64 = 0.985;
const MIN_RECALL: f64 = 0.98;
const MAX_FALSE_POSITIVE_RATE: f64 = 0.01;
/// In every name-origin group of the negatives (`neg_person_arabic_latin`,
/// `neg_person_asian_latin`, ...): false alarms must not fall on some customers' names more
/// than on others' (issue 27): the goal of 1.5% is reached, every group at 1.0% or less
/// (Arabic names in Latin letters 0.8%, 1 of 120, since the lexicon refutes a skeleton pair;
/// `docs/quality.md`).
const MAX_GROUP_FALSE_POSITIVE_RATE: f64 = 0.015;
/// Recall at the default threshold of the `initial` category.
const MIN_INITIAL_RECALL: f64 = 0.95;
/// Cross-script, Arabic script against Latin listings, measure-only half (85.1% in full; a
/// quarter is sampled here: 89.2%).
const MIN_ARABIC_RECALL: f64 = 0.87;
/// The reverse, Latin names against Arabic-script listings, measure-only half (80.4% in full;
/// sampled: 83.6%).
const MIN_LATIN_TO_ARABIC_RECALL: f64 = 0.82;
/// Combined changes (two and three at once), measure-only half (97.0% in full; sampled).
const MIN_COMBINED_RECALL: f64 = 0.95;

struct Lists {
    entries: Vec<EntityNames>,
    index: Index,
}

/// The real lists, parsed and indexed once for every test of this file.
fn lists() -> &'static Lists {
    static LISTS: OnceLock<Lists> = OnceLock::new();
    LISTS.get_or_init(|| {
        let shared = sanctions_eval::shared_dir().join("data");
        let (entries, problems) = quality::names_from_dir(&shared.join("lists"));
        assert!(problems.is_empty(), "{problems:?}");
        let index = Index::build(&entries);
        Lists { entries, index }
    })
}

fn dev_queries() -> Vec<LabelledQuery> {
    let csv = sanctions_eval::shared_dir()
        .join("data")
        .join("../eval/dev.csv");
    let text = std::fs::read_to_string(&csv)
        .unwrap_or_else(|e| panic!("{}: {e} (the labelled development set)", csv.display()));
    quality::read_queries(&text).unwrap()
}

#[test]
fn quality_on_the_development_set_holds_its_floors() {
    let (lists, queries) = (lists(), dev_queries());
    assert_eq!(queries.len(), 3000);
    let outcomes = quality::run(&lists.index, &queries);
    let report = Report::new(&outcomes, DEFAULT_THRESHOLD);
    println!("{}", report.markdown());

    let p = &report.positives;
    assert!(
        p.recall_at_1 >= MIN_RECALL_AT_1,
        "recall@1 {}",
        p.recall_at_1
    );
    assert!(
        p.recall_at_10 >= MIN_RECALL_AT_10,
        "recall@10 {}",
        p.recall_at_10
    );
    assert!(p.recall >= MIN_RECALL, "recall {}", p.recall);
    let fpr = report.negatives.false_positive_rate;
    assert!(fpr <= MAX_FALSE_POSITIVE_RATE, "false positives {fpr}");
    let groups: Vec<(&String, f64)> = report
        .categories
        .iter()
        .filter(|(c, _)| c.starts_with("neg_"))
        .map(|(c, f)| (c, f.false_positive_rate))
        .collect();
    assert_eq!(
        groups.len(),
        10,
        "every name-origin group measured: {groups:?}"
    );
    for (group, rate) in groups {
        assert!(
            rate <= MAX_GROUP_FALSE_POSITIVE_RATE,
            "false positives of {group}: {rate}"
        );
    }
    let initial = report.categories["initial"].recall;
    assert!(initial >= MIN_INITIAL_RECALL, "initial {initial}");
}

/// Every fourth query of a set: debug builds are slow, and a quarter still catches a fall.
fn sample(queries: Vec<LabelledQuery>) -> Vec<LabelledQuery> {
    queries.into_iter().step_by(4).collect()
}

#[test]
fn names_across_scripts_and_combined_changes_hold_their_floors() {
    let (lists, queries) = (lists(), dev_queries());
    let cross = sets::cross_script(&lists.entries);
    holds_floor(
        &cross.forward,
        cross.forward_queries,
        "arabic->latin measure",
        MIN_ARABIC_RECALL,
    );
    holds_floor(
        &cross.reverse,
        cross.reverse_queries,
        "latin->arabic measure",
        MIN_LATIN_TO_ARABIC_RECALL,
    );

    let positives: Vec<LabelledQuery> = queries
        .into_iter()
        .filter(|q| !q.expected_entity_id.is_empty())
        .collect();
    let combined: Vec<LabelledQuery> = sets::combined(&lists.entries, &positives)
        .into_iter()
        .filter(|q| q.category.ends_with("measure"))
        .collect();
    let report = Report::new(
        &quality::run(&lists.index, &sample(combined)),
        DEFAULT_THRESHOLD,
    );
    println!("{}", report.markdown());
    assert!(
        report.positives.recall >= MIN_COMBINED_RECALL,
        "combined changes: {}",
        report.positives.recall
    );
}

/// The committed cross-script lexicon is exactly what the generator learns from the lists
/// (the tune half of the cross-script split): regenerate it with
/// `cargo run --release --example lexicon` after changing the lists or the generator.
#[test]
fn the_committed_lexicon_is_the_generated_one() {
    let lists = lists();
    let learned = sanctions_eval::lexicon::learn(&lists.entries);
    let committed = include_str!("../../sanctions-engine/src/lexicon.txt");
    assert!(
        learned == committed,
        "crates/sanctions-engine/src/lexicon.txt is stale: run `cargo run --release --example lexicon`"
    );
}

#[test]
fn typed_queries_find_the_listed_name_first() {
    let lists = lists();
    for (query, expect) in sets::TYPED_CASES {
        let result = engine::screen(&lists.index, &Request::new(*query)).unwrap();
        let first = result.hits.first();
        let name = first
            .map(|h| h.primary_name.to_uppercase())
            .unwrap_or_default();
        assert!(
            expect.split('|').any(|e| name.contains(e)),
            "{query}: first {first:?}"
        );
    }
}

#[test]
fn the_closer_name_ranks_first() {
    let lists = lists();
    let request = Request {
        threshold: Some(0),
        limit: Some(50),
        ..Request::new("Ahmed Hassan")
    };
    let hits = engine::screen(&lists.index, &request).unwrap().hits;
    let position = |name: &str| hits.iter().position(|h| h.primary_name == name);
    let ahmad = position("AHMAD, Hasan");
    assert!(ahmad.is_some(), "{hits:?}");
    if let Some(hameed) = position("HASSAN, Hameed ul") {
        assert!(ahmad < Some(hameed));
    }
}

#[test]
fn short_words_must_match_exactly() {
    let lists = lists();
    let result = engine::screen(&lists.index, &Request::new("Ali Khan")).unwrap();
    for hit in &result.hits {
        assert!(
            !hit.explanation
                .tokens
                .iter()
                .any(|t| t.query.as_deref() == Some("ali") && t.listed.as_deref() == Some("mali")),
            "{hit:?}"
        );
    }
}

#[test]
fn totals_count_every_entry_and_the_limit_is_reached() {
    let lists = lists();
    let request = |limit| Request {
        threshold: Some(50),
        limit: Some(limit),
        kind: Some(engine::KindFilter::Individual),
        ..Request::new("Mohammed")
    };
    let few = engine::screen(&lists.index, &request(10)).unwrap();
    let many = engine::screen(&lists.index, &request(engine::MAX_LIMIT)).unwrap();
    assert!(many.total > 100, "{}", many.total);
    assert_eq!(few.total, many.total);
    assert_eq!(few.hits.len(), 10);
    assert_eq!(many.hits.len(), many.total.min(engine::MAX_LIMIT));
    let mut ids: Vec<&str> = many.hits.iter().map(|h| h.entity_id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), many.hits.len(), "one hit per entry");
}

#[test]
fn a_date_of_birth_and_a_country_are_weighed_and_shown() {
    let lists = lists();
    let screen = |dob: &str, country: &str| {
        let request = Request {
            date_of_birth: Some(dob.to_owned()),
            country: Some(country.to_owned()),
            ..Request::new("Vladimir Putin")
        };
        engine::screen(&lists.index, &request)
            .unwrap()
            .hits
            .remove(0)
    };
    let agrees = screen("1952-10-07", "RU");
    let conflicts = screen("1990-01-01", "FR");
    assert!(agrees.primary_name.to_uppercase().contains("PUTIN"));
    assert!(agrees.score > conflicts.score, "{agrees:?} {conflicts:?}");
    assert!(
        conflicts.score >= DEFAULT_THRESHOLD,
        "an exact name stays above"
    );
    assert_eq!(agrees.explanation.evidence.len(), 2);
}

/// Screens the `category` queries of a cross-script set (a sample of them) against an index
/// of `records`, and asserts their recall at the default threshold reaches `floor`.
fn holds_floor(
    records: &[sanctions_model::EntityNames],
    queries: Vec<LabelledQuery>,
    category: &str,
    floor: f64,
) {
    let queries: Vec<LabelledQuery> = queries
        .into_iter()
        .filter(|q| q.category == category)
        .collect();
    let index = Index::build(records);
    let report = Report::new(&quality::run(&index, &sample(queries)), DEFAULT_THRESHOLD);
    println!("{}", report.markdown());
    assert!(
        report.positives.recall >= floor,
        "{category}: {}",
        report.positives.recall
    );
}
