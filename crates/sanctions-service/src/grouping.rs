//! One person or organisation listed on several lists: matches grouped so that a result shows
//! them once, with every list. Entries group when they are on different lists, of the same
//! type, share a name (same words in any order, primary name or alias) and do not contradict
//! each other: people with dates of birth must share a birth year (people without must share
//! the primary name), organisations with countries must share one.

use std::collections::{BTreeSet, HashMap};

use crate::api::screening::Match;
use crate::engine::normalize;
use crate::model::{Entity, EntityKind};

struct Facts<'a> {
    entity: &'a Entity,
    names: BTreeSet<String>,
    primary: String,
    years: BTreeSet<i32>,
}

fn name_key(name: &str) -> String {
    let mut words = normalize::words(name);
    words.sort();
    words.join(" ")
}

fn facts(entity: &Entity) -> Facts<'_> {
    Facts {
        entity,
        names: entity.all_names().map(name_key).collect(),
        primary: name_key(&entity.primary_name),
        years: entity.birth_dates.iter().filter_map(|d| d.year()).collect(),
    }
}

fn same(a: &Facts, b: &Facts) -> bool {
    let (ea, eb) = (a.entity, b.entity);
    if ea.list == eb.list
        || (ea.kind == EntityKind::Individual) != (eb.kind == EntityKind::Individual)
    {
        return false;
    }
    if a.names.is_disjoint(&b.names) {
        return false;
    }
    if ea.kind == EntityKind::Individual {
        match (a.years.is_empty(), b.years.is_empty()) {
            (false, false) => !a.years.is_disjoint(&b.years),
            _ => a.primary == b.primary,
        }
    } else {
        let ca: BTreeSet<&String> = ea.nationalities.iter().chain(&ea.countries).collect();
        let cb: BTreeSet<&String> = eb.nationalities.iter().chain(&eb.countries).collect();
        ca.is_empty() || cb.is_empty() || !ca.is_disjoint(&cb)
    }
}

/// Sets `group` on every match (1, 2, ... in rank order; a match whose entry is unknown gets
/// a group of its own) and returns the number of groups.
pub fn assign<E: std::borrow::Borrow<Entity>>(
    matches: &mut [Match],
    entities: &HashMap<String, E>,
) -> u32 {
    let all: Vec<Option<Facts>> = matches
        .iter()
        .map(|m| entities.get(&m.entity_id).map(|e| facts(e.borrow())))
        .collect();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, f) in all.iter().enumerate() {
        let joined = f.as_ref().and_then(|f| {
            groups.iter().position(|members| {
                members
                    .iter()
                    .any(|&j| all[j].as_ref().is_some_and(|g| same(f, g)))
                    && members.iter().all(|&j| {
                        all[j]
                            .as_ref()
                            .is_none_or(|g| g.entity.list != f.entity.list)
                    })
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
