//! Match quality on the labelled development set (`../shared/eval/dev.csv`) against the real
//! lists: prints the table the README shows and holds regression floors a little under the
//! figures reached. `cargo test --test eval -- --nocapture` shows the table.
#![allow(clippy::unwrap_used)]

mod common;

use sanctions::engine::DEFAULT_THRESHOLD;
use sanctions::quality::{self, Report};

/// Floors: a little under what the engine reaches (see the README), so that a regression
/// fails the build.
const MIN_RECALL_AT_1: f64 = 0.96;
const MIN_RECALL_AT_10: f64 = 0.985;
const MIN_RECALL: f64 = 0.97;
const MAX_FALSE_POSITIVE_RATE: f64 = 0.015;

#[test]
fn quality_on_the_development_set_holds_its_floors() {
    let Some(shared) = common::shared_data() else {
        return;
    };
    let csv = shared.join("../eval/dev.csv");
    let Ok(text) = std::fs::read_to_string(&csv) else {
        eprintln!("skipped: {} is absent", csv.display());
        return;
    };
    let queries = quality::read_queries(&text).unwrap();
    assert_eq!(queries.len(), 3000);
    let (index, problems) = quality::index_from_dir(&shared.join("lists"));
    assert!(problems.is_empty(), "{problems:?}");

    let outcomes = quality::run(&index, &queries);
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
}
