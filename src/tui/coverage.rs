//! Coverage in sight: what a screening was checked against, in one line for the Screen tab
//! and a short warning for the status bar. Missing and stale lists come from the same
//! [`crate::coverage::build`] as the CLI's; the age of each list is counted both from its
//! publication date (what the publisher's file says) and from its import.

use crate::api::coverage::{Coverage, ListCoverage, ListStatus};
use crate::api::lists::ListInfo;
use crate::service::ListSummary;

/// The coverage of a screening of every list now, from the lists the status bar knows.
pub fn of_lists(lists: &[ListInfo], now: jiff::Timestamp) -> Coverage {
    let summaries: Vec<ListSummary> = lists
        .iter()
        .map(|i| ListSummary {
            list: i.list_code,
            count: i.count,
            updated_at: i.updated_at.clone(),
            published: i.published.clone(),
            last_update: i.update_id,
        })
        .collect();
    let mut coverage =
        crate::coverage::build(&summaries, &[], crate::coverage::DEFAULT_MAX_AGE_DAYS, now);
    coverage.entries_searched = coverage
        .lists
        .iter()
        .filter(|l| l.status != ListStatus::Missing)
        .map(|l| l.entities)
        .sum();
    coverage
}

/// Whole days from `date` (`YYYY-MM-DD`, or the start of an RFC 3339 time) to `now`.
pub fn age_days(date: &str, now: jiff::Timestamp) -> Option<i64> {
    let day: jiff::civil::Date = date.get(..10)?.parse().ok()?;
    let today = now.to_zoned(jiff::tz::TimeZone::UTC).date();
    let span = day.until(today).ok()?;
    Some(i64::from(span.get_days()))
}

/// Whether the list's file was published longer ago than `max_age_days` (stale by
/// publication, even when just imported).
fn old_publication(l: &ListCoverage, max_age_days: u32, now: jiff::Timestamp) -> Option<i64> {
    let days = age_days(l.published.as_deref()?, now)?;
    (days > i64::from(max_age_days)).then_some(days)
}

/// The problems of `coverage`, one short phrase each: missing lists, lists stale by import
/// and lists whose files are old by publication date.
pub fn problems(coverage: &Coverage, now: jiff::Timestamp) -> Vec<String> {
    let mut out = Vec::new();
    for l in &coverage.lists {
        let code = l.list_code.code();
        let imported = l.imported_at.as_deref().and_then(|t| age_days(t, now));
        match l.status {
            ListStatus::Missing => out.push(format!("{code} MISSING (not checked)")),
            ListStatus::Stale => out.push(format!(
                "{code} STALE (imported {} d ago)",
                imported.map_or("?".to_owned(), |d| d.to_string())
            )),
            ListStatus::Ok => {}
        }
        if l.status != ListStatus::Missing
            && let Some(days) = old_publication(l, coverage.max_age_days, now)
        {
            out.push(format!("{code} OLD (published {days} d ago)"));
        }
    }
    out
}

/// `searched 52,340 entries of 8 lists` (the CLI's words).
pub fn searched(coverage: &Coverage) -> String {
    let lists = coverage
        .lists
        .iter()
        .filter(|l| l.status != ListStatus::Missing)
        .count();
    format!(
        "searched {} entries of {lists} list{}",
        thousands(coverage.entries_searched),
        if lists == 1 { "" } else { "s" }
    )
}

/// One line for the Screen tab: what was searched, then every problem; and whether it warns.
pub fn line(coverage: &Coverage, now: jiff::Timestamp) -> (String, bool) {
    let problems = problems(coverage, now);
    let mut text = searched(coverage);
    if problems.is_empty() {
        text.push_str(" · every list present and fresh");
    } else {
        text = format!("⚠ {} · {text}", problems.join(" · "));
    }
    (text, !problems.is_empty())
}

/// The status bar's warning: how many lists are missing, stale or old, if any.
pub fn status_warning(lists: &[ListInfo], now: jiff::Timestamp) -> Option<String> {
    if lists.is_empty() || lists.iter().all(|l| l.count == 0) {
        return None; // said already as NO DATA
    }
    let coverage = of_lists(lists, now);
    let old = coverage
        .lists
        .iter()
        .filter(|l| l.status != ListStatus::Missing)
        .filter(|l| old_publication(l, coverage.max_age_days, now).is_some())
        .count();
    let mut parts = Vec::new();
    for (n, word) in [
        (coverage.missing.len(), "MISSING"),
        (coverage.stale.len(), "STALE"),
        (old, "OLD"),
    ] {
        if n > 0 {
            parts.push(format!("{n} {word}"));
        }
    }
    (!parts.is_empty()).then(|| format!("lists: {}", parts.join(" ")))
}

fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ListCode;

    fn info(code: ListCode, count: u64, imported: &str, published: Option<&str>) -> ListInfo {
        ListInfo {
            list_code: code,
            list_name: code.display_name().to_owned(),
            count,
            updated_at: Some(imported.to_owned()),
            published: published.map(str::to_owned),
            update_id: Some(1),
        }
    }

    #[test]
    fn age_is_counted_from_publication_and_from_import() {
        let now: jiff::Timestamp = "2026-11-25T12:00:00Z".parse().unwrap();
        let lists = [
            info(
                ListCode::OfacSdn,
                10,
                "2026-11-25T10:00:00Z",
                Some("2026-11-24"),
            ),
            info(ListCode::Eu, 20, "2026-11-25T10:00:00Z", Some("2022-03-01")),
            info(ListCode::UkHmt, 30, "2026-10-01T10:00:00Z", None),
            info(ListCode::Un, 0, "2026-11-25T10:00:00Z", None),
        ];
        let coverage = of_lists(&lists, now);
        let problems = problems(&coverage, now);
        assert_eq!(
            problems,
            [
                "eu OLD (published 1730 d ago)",
                "uk_hmt STALE (imported 55 d ago)",
                "un MISSING (not checked)"
            ],
            "{coverage:?}"
        );
        assert_eq!(searched(&coverage), "searched 60 entries of 3 lists");
        assert_eq!(
            status_warning(&lists, now).as_deref(),
            Some("lists: 1 MISSING 1 STALE 1 OLD")
        );
    }
}
