//! Screening results as text: one line per person or organisation (their entries on several
//! lists grouped), with what tells same-named people apart, and what was checked.

use std::io::Write;

use super::output::{safe, thousands};
use crate::api::coverage::{Coverage, ListStatus};
use crate::api::screening::{Match, ScreenResult};

/// Prints a screening result: matches grouped, then the coverage.
pub fn print_result(
    out: &mut impl Write,
    result: &ScreenResult,
    threshold: u8,
) -> std::io::Result<()> {
    let searched = result
        .coverage
        .as_ref()
        .map(|c| c.entries_searched)
        .unwrap_or_default();
    let lists_searched = result
        .coverage
        .as_ref()
        .map(|c| {
            c.lists
                .iter()
                .filter(|l| l.status != ListStatus::Missing)
                .count()
        })
        .unwrap_or_default();
    let of = format!(
        "{} entries of {} list{}",
        thousands(searched),
        lists_searched,
        if lists_searched == 1 { "" } else { "s" }
    );
    if result.results.is_empty() {
        writeln!(
            out,
            "No match for \"{}\" at score {threshold} or above (searched {of}).",
            safe(&result.query)
        )?;
    } else {
        let groups = result
            .results
            .iter()
            .filter_map(|m| m.group)
            .max()
            .unwrap_or(0);
        writeln!(
            out,
            "{} match{} for \"{}\" at score {threshold} or above (searched {of}); {} shown as {groups} {}:\n",
            result.total_matches,
            if result.total_matches == 1 { "" } else { "es" },
            safe(&result.query),
            result.results.len(),
            if groups == 1 {
                "person or organisation"
            } else {
                "people or organisations"
            },
        )?;
        let mut rank = 0;
        for (i, m) in result.results.iter().enumerate() {
            // The first (best) member of each group heads it.
            if result.results[..i].iter().any(|p| p.group == m.group) {
                continue;
            }
            rank += 1;
            let members: Vec<&Match> = result
                .results
                .iter()
                .filter(|o| o.group == m.group)
                .collect();
            print_group(out, rank, &members)?;
        }
    }
    if let Some(coverage) = &result.coverage {
        print_coverage(out, coverage)?;
    }
    Ok(())
}

fn print_group(out: &mut impl Write, rank: usize, members: &[&Match]) -> std::io::Result<()> {
    let best = members[0];
    writeln!(
        out,
        "{rank:>2}. {:>3}  {}  [{}]",
        best.score,
        safe(&best.name),
        best.kind.as_str(),
    )?;
    let mut born: Vec<String> = Vec::new();
    let mut nationality: Vec<String> = Vec::new();
    for m in members {
        for iso in &m.dates_of_birth {
            if !born.contains(iso) {
                born.push(iso.clone());
            }
        }
        for c in m.nationalities.iter().chain(m.country.iter()) {
            if !nationality.contains(c) {
                nationality.push(c.clone());
            }
        }
    }
    let mut facts = Vec::new();
    if !born.is_empty() {
        facts.push(format!("born {}", born.join(", ")));
    }
    if !nationality.is_empty() {
        let label = if best.kind == crate::model::EntityKind::Individual {
            "nationality"
        } else {
            "country"
        };
        facts.push(format!("{label} {}", nationality.join(", ")));
    }
    if !facts.is_empty() {
        writeln!(out, "         {}", safe(&facts.join("; ")))?;
    }
    for m in members {
        let programmes = m.programmes.join(", ");
        writeln!(
            out,
            "         {:>3}  {:<19} {}{}",
            m.score,
            safe(&m.list_name),
            safe(&m.entity_id),
            if programmes.is_empty() {
                String::new()
            } else {
                format!("  programmes: {}", safe(&programmes))
            }
        )?;
        if let Some(ended) = &m.ended_on {
            writeln!(
                out,
                "              listing ENDED on {} (shown because of --include-ended)",
                safe(ended)
            )?;
        }
        if m.matched_name != best.name {
            writeln!(out, "              matched: {}", safe(&m.matched_name))?;
        }
    }
    writeln!(out, "         why: {}", safe(&explain(best)))
}

/// `putin = putin, v ~ vladimir (initial 90), vladimirovich not in the query`.
pub fn explain(m: &Match) -> String {
    m.explanation
        .iter()
        .map(|t| match (&t.query_token, &t.listed_token) {
            (Some(q), Some(l)) if t.how == "exact" => format!("{q} = {l}"),
            (Some(q), Some(l)) => format!("{q} ~ {l} ({} {})", t.how, t.similarity),
            (Some(q), None) => format!("{q} not on the list"),
            (None, Some(l)) => format!("{l} not in the query"),
            (None, None) => String::new(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The lists checked, each with its version, and those not checked or stale.
pub fn print_coverage(out: &mut impl Write, coverage: &Coverage) -> std::io::Result<()> {
    writeln!(out, "\nChecked against:")?;
    for l in &coverage.lists {
        let version = match l.status {
            ListStatus::Missing => "NOT CHECKED: no data".to_owned(),
            status => format!(
                "update #{}, published {}, imported {}{}",
                l.update_id
                    .map(|i| i.to_string())
                    .unwrap_or_else(|| "-".into()),
                safe(l.published.as_deref().unwrap_or("-")),
                safe(l.imported_at.as_deref().unwrap_or("-")),
                if status == ListStatus::Stale {
                    format!("  STALE (older than {} days)", coverage.max_age_days)
                } else {
                    String::new()
                }
            ),
        };
        writeln!(
            out,
            "  {:<19} {:<10} {version}",
            l.list_name,
            l.list_code.code()
        )?;
    }
    Ok(())
}
