//! The CSV form of an audit export: one row per screening (with its list versions) followed
//! by one row per decision about it, under [`HEADER`]. Used by `GET /v1/audit?format=csv`.

use super::screening::KindFilter;
use super::screenings::{DecisionRecord, StoredScreening};

/// The header row.
pub const HEADER: [&str; 16] = [
    "record",
    "id",
    "at",
    "by",
    "query",
    "type",
    "threshold",
    "total_matches",
    "matched_entities",
    "list_versions",
    "engine_version",
    "status",
    "entity_id",
    "from",
    "to",
    "note",
];

/// The row of a screening, then the rows of its decisions, oldest first.
pub fn rows(s: &StoredScreening) -> Vec<[String; 16]> {
    let mut rows = Vec::with_capacity(1 + s.decisions.len());
    rows.push(screening_row(s));
    rows.extend(s.decisions.iter().map(decision_row));
    rows
}

/// The row of a screening (its list versions and matched entries space-separated).
pub fn screening_row(s: &StoredScreening) -> [String; 16] {
    let versions: Vec<String> = s
        .list_versions
        .iter()
        .map(|(l, u)| format!("{l}@{u}"))
        .collect();
    let matched: Vec<&str> = s.results.iter().map(|m| m.entity_id.as_str()).collect();
    let kind = match s.kind {
        Some(KindFilter::Individual) => "individual",
        Some(_) => "entity",
        None => "",
    };
    [
        "screening".into(),
        s.id.clone(),
        s.created_at.to_string(),
        s.created_by.clone(),
        s.query.clone(),
        kind.into(),
        s.threshold.to_string(),
        s.total_matches.to_string(),
        matched.join(" "),
        versions.join(" "),
        s.engine_version.clone(),
        s.status.as_str().into(),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
    ]
}

/// The row of a decision about a screening.
pub fn decision_row(d: &DecisionRecord) -> [String; 16] {
    let mut row: [String; 16] = Default::default();
    row[0] = "decision".into();
    row[1] = d.screening_id.clone();
    row[2] = d.at.to_string();
    row[3] = d.actor.clone();
    row[12] = d.entity_id.clone().unwrap_or_default();
    row[13] = d.from.as_str().into();
    row[14] = d.to.as_str().into();
    row[15] = d.note.clone();
    row
}
