//! One person or organisation listed on several lists: matches grouped so that a result shows
//! them once, with every list. Entries group when they are on different lists, of the same
//! type, share a name (same words in any order, primary name or alias) and do not contradict
//! each other: people with dates of birth must share a birth year (people without must share
//! the primary name), organisations with countries must share one.
//!
//! What an entry brings to the grouping ([`Facts`]) is worked out once per entry and kept by
//! the caller (the service keeps it with its index), not per answer.

use std::collections::{BTreeSet, HashMap};

use crate::api::screening::Match;
use crate::engine::normalize;
use crate::model::{Entity, EntityKind, ListCode};

/// What the grouping compares of one entry.
#[derive(Debug)]
pub struct Facts {
    list: ListCode,
    individual: bool,
    /// Every name (primary and aliases) as its words sorted.
    names: BTreeSet<String>,
    primary: String,
    years: BTreeSet<i32>,
    /// Nationalities and countries.
    countries: BTreeSet<String>,
}

fn name_key(name: &str) -> String {
    let mut words = normalize::words(name);
    words.sort();
    words.join(" ")
}

impl Facts {
    pub fn of(entity: &Entity) -> Facts {
        Facts {
            list: entity.list,
            individual: entity.kind == EntityKind::Individual,
            names: entity.all_names().map(name_key).collect(),
            primary: name_key(&entity.primary_name),
            years: entity.birth_dates.iter().filter_map(|d| d.year()).collect(),
            countries: entity
                .nationalities
                .iter()
                .chain(&entity.countries)
                .cloned()
                .collect(),
        }
    }
}

fn same(a: &Facts, b: &Facts) -> bool {
    if a.list == b.list || a.individual != b.individual || a.names.is_disjoint(&b.names) {
        return false;
    }
    if a.individual {
        match (a.years.is_empty(), b.years.is_empty()) {
            (false, false) => !a.years.is_disjoint(&b.years),
            _ => a.primary == b.primary,
        }
    } else {
        a.countries.is_empty() || b.countries.is_empty() || !a.countries.is_disjoint(&b.countries)
    }
}

/// Sets `group` on every match (1, 2, ... in rank order; a match whose entry is unknown gets
/// a group of its own) and returns the number of groups.
pub fn assign<F: std::borrow::Borrow<Facts>>(
    matches: &mut [Match],
    entities: &HashMap<String, F>,
) -> u32 {
    let all: Vec<Option<&Facts>> = matches
        .iter()
        .map(|m| entities.get(&m.entity_id).map(|f| f.borrow()))
        .collect();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, f) in all.iter().enumerate() {
        let joined = f.and_then(|f| {
            groups.iter().position(|members| {
                members.iter().any(|&j| all[j].is_some_and(|g| same(f, g)))
                    && members
                        .iter()
                        .all(|&j| all[j].is_none_or(|g| g.list != f.list))
            })
        });
        match joined {
            Some(g) => groups[g].push(i),
            None => groups.push(vec![i]),
        }
    }
    for (g, members) in groups.iter().enumerate() {
        for &i in members {
            matches[i].group = Some(g as u32 + 1);
        }
    }
    groups.len() as u32
}
