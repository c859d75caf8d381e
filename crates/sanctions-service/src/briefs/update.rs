//! The brief of one list update: which entries were added, removed or changed, with their
//! names, programmes and countries.

use std::collections::BTreeSet;

use jiff::Timestamp;

use super::{MAX_BODY, clip};
use crate::model::{Entity, UpdateRecord};
use crate::store::BriefRecord;

/// Entries named one by one in the body per kind of change; the rest are counted.
const NAMED: usize = 200;

/// The brief of `update`, given the entries it added, removed and changed (as they stood
/// after the update, or just before it for removed ones).
pub fn brief(
    id: String,
    update: &UpdateRecord,
    added: &[Entity],
    removed: &[Entity],
    changed: &[Entity],
) -> BriefRecord {
    let list = update.list.display_name();
    let plural = |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut parts = Vec::new();
    if update.added > 0 {
        parts.push(plural(update.added, "addition", "additions"));
    }
    if update.removed > 0 {
        parts.push(plural(update.removed, "removal", "removals"));
    }
    if update.changed > 0 {
        parts.push(plural(update.changed, "change", "changes"));
    }
    let title = format!("{list}: {}", parts.join(", "));
    let sample: Vec<String> = added
        .iter()
        .take(3)
        .map(|e| e.primary_name.clone())
        .collect();
    let summary = format!(
        "{title} ({} entries now{}).{}",
        update.total,
        update
            .published
            .as_deref()
            .map(|p| format!(", published {p}"))
            .unwrap_or_default(),
        if sample.is_empty() {
            String::new()
        } else {
            format!(" Added: {}.", sample.join("; "))
        }
    );
    let mut body = format!("# {title}\n\n{summary}\n");
    for (heading, entries) in [("Added", added), ("Removed", removed), ("Changed", changed)] {
        if entries.is_empty() {
            continue;
        }
        body.push_str(&format!("\n## {heading} ({})\n\n", entries.len()));
        for e in entries.iter().take(NAMED) {
            body.push_str(&format!(
                "- {} (`{}`){}{}\n",
                clip(&e.primary_name, 200),
                e.entity_id(),
                if e.programs.is_empty() {
                    String::new()
                } else {
                    format!(", programmes {}", clip(&e.programs.join(", "), 200))
                },
                if e.countries.is_empty() {
                    String::new()
                } else {
                    format!(", countries {}", e.countries.join(", "))
                },
            ));
        }
        if entries.len() > NAMED {
            body.push_str(&format!("- … and {} more\n", entries.len() - NAMED));
        }
    }
    let all = || added.iter().chain(removed).chain(changed);
    let countries: BTreeSet<String> = all().flat_map(|e| e.countries.iter().cloned()).collect();
    let severity = if update.added + update.removed >= 10 || update.removed > 0 {
        "high"
    } else if update.added > 0 {
        "medium"
    } else {
        "low"
    };
    BriefRecord {
        id,
        source: "list_update".to_owned(),
        guid: format!("update:{}", update.id),
        title,
        summary: clip(&summary, super::MAX_SUMMARY),
        body: clip(&body, MAX_BODY),
        url: None,
        published_at: update.at.parse().unwrap_or_else(|_| Timestamp::now()),
        lists: vec![update.list.to_string()],
        countries: countries.into_iter().take(100).collect(),
        entity_ids: all().map(Entity::entity_id).take(5000).collect(),
        severity: severity.to_owned(),
        created_at: Timestamp::now(),
    }
}
