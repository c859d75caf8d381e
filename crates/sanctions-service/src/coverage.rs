//! Coverage of a screening, computed from the store's list summaries (not by the engine):
//! which requested lists hold data, which version of each, which are missing or stale.
//! Shared by every face that screens (CLI now, the service later).

use crate::api::coverage::{Coverage, ListCoverage, ListStatus};
use crate::model::ListCode;
use crate::store::ListSummary;

/// Default age, in days since the last import or update, beyond which a list is stale.
/// The publishers update their lists more often than weekly, so a list not refreshed for a
/// week may lack recent designations.
pub const DEFAULT_MAX_AGE_DAYS: u32 = 7;

/// The coverage of a screening of `requested` (all eight when empty) given the store's
/// `summaries`, at time `now`. `entries_searched` is filled in by the caller, which knows the
/// type filter (see [`crate::engine::Index::count_entries`]).
pub fn build(
    summaries: &[ListSummary],
    requested: &[ListCode],
    max_age_days: u32,
    now: jiff::Timestamp,
) -> Coverage {
    let wanted = |l: ListCode| requested.is_empty() || requested.contains(&l);
    let max_age = jiff::SignedDuration::from_hours(i64::from(max_age_days) * 24);
    let lists: Vec<ListCoverage> = summaries
        .iter()
        .filter(|s| wanted(s.list))
        .map(|s| {
            let imported: Option<jiff::Timestamp> =
                s.updated_at.as_deref().and_then(|t| t.parse().ok());
            let status = if s.count == 0 {
                ListStatus::Missing
            } else if imported.is_none_or(|at| now.duration_since(at) > max_age) {
                ListStatus::Stale
            } else {
                ListStatus::Ok
            };
            ListCoverage {
                list_code: s.list,
                list_name: s.list.display_name().to_owned(),
                status,
                entities: s.count,
                update_id: s.last_update,
                published: s.published.clone(),
                imported_at: s.updated_at.clone(),
            }
        })
        .collect();
    let with = |status| {
        lists
            .iter()
            .filter(|l| l.status == status)
            .map(|l| l.list_code)
            .collect::<Vec<_>>()
    };
    let missing = with(ListStatus::Missing);
    let stale = with(ListStatus::Stale);
    Coverage {
        complete: missing.is_empty(),
        missing,
        stale,
        max_age_days,
        entries_searched: 0,
        lists,
    }
}

/// The lists of `coverage` that hold data (the ones worth searching).
pub fn searchable(coverage: &Coverage) -> Vec<ListCode> {
    coverage
        .lists
        .iter()
        .filter(|l| l.status != ListStatus::Missing)
        .map(|l| l.list_code)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(list: ListCode, count: u64, at: Option<&str>) -> ListSummary {
        ListSummary {
            list,
            count,
            updated_at: at.map(str::to_owned),
            published: None,
            last_update: at.map(|_| 3),
        }
    }

    #[test]
    fn names_missing_and_stale_lists() {
        let now: jiff::Timestamp = "2026-11-22T12:00:00Z".parse().unwrap();
        let summaries = [
            summary(ListCode::Un, 1003, Some("2026-11-21T12:00:00Z")),
            summary(ListCode::Eu, 1024, Some("2026-11-01T12:00:00Z")),
            summary(ListCode::OfacSdn, 0, None),
        ];
        let all = build(&summaries, &[], 7, now);
        assert_eq!(all.missing, [ListCode::OfacSdn]);
        assert_eq!(all.stale, [ListCode::Eu]);
        assert!(!all.complete);
        assert_eq!(all.lists[0].update_id, Some(3));
        let un = build(&summaries, &[ListCode::Un], 7, now);
        assert!(un.complete && un.stale.is_empty());
        assert_eq!(searchable(&all), [ListCode::Un, ListCode::Eu]);
    }
}
