//! Tests of the UK parsers on hand-made fixtures and the real ConList.

use super::*;
use crate::testutil::{fixtures, shared_data};

#[test]
fn real_conlist_counts() {
    let Some(data) = shared_data() else { return };
    let parsed = parse_dir(&data.join("lists/uk_hmt")).unwrap();
    let e = &parsed.entities;
    let count = |k: EntityKind| e.iter().filter(|x| x.kind == k).count();
    let names: usize = e.iter().map(|x| x.all_names().count()).sum();
    eprintln!(
        "{} {} {} {} names {names}",
        e.len(),
        count(EntityKind::Individual),
        count(EntityKind::Entity),
        count(EntityKind::Vessel)
    );
    let x = e.iter().find(|x| x.source_id == "15672").unwrap();
    eprintln!("{x:#?}");
    assert_eq!(e.len(), 4688);
    assert_eq!(parsed.published.as_deref(), Some("2025-04-14"));
    let _ = fixtures();
}
