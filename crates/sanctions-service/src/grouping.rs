//! One person or organisation listed on several lists: matches grouped so that a result shows
//! them once, with every list. Entries group when they are on different lists, of the same
//! type, share a name (same words in any order, primary name or alias) and do not contradict
//! each other: people with dates of birth must share a birth year (people without must share
//! the primary name), organisations with countries must share one.
//!
//! What an entry brings to the grouping ([`Facts`]) is worked out once per entry and kept by
//! the caller (the service keeps it with its index), not per answer: from the entry as the
//! index holds it and its names as stored ([`Facts::new`]), or from its full record
//! ([`Facts::of`]); both give the same facts.

use crate::engine::normalize;
use crate::model::{DateSpec, Entity, EntityKind, ListCode};

/// What the grouping compares of one entry.
#[derive(Debug, PartialEq, Eq)]
pub struct Facts {
    list: ListCode,
    individual: bool,
    /// Every name (primary and aliases) as its words sorted; sorted, without repeats.
    names: Vec<String>,
    primary: String,
    /// Birth years; sorted, without repeats.
    years: Vec<i32>,
    /// Nationalities and countries; sorted, without repeats.
    countries: Vec<String>,
}

fn name_key(name: &str) -> String {
    let mut words = normalize::words(name);
    words.sort();
    words.join(" ")
}

/// The keys of `names` (sorted, without repeats) and of `primary`: each name written the
/// same way normalised once (an entry's names hold its primary name, and often repeat).
fn name_keys<'a>(primary: &str, names: impl Iterator<Item = &'a str>) -> (Vec<String>, String) {
    let written = set(names);
    let keys: Vec<String> = written.iter().map(|name| name_key(name)).collect();
    let primary = match written.binary_search(&primary) {
        Ok(at) => keys[at].clone(),
        Err(_) => name_key(primary),
    };
    (set(keys.into_iter()), primary)
}

/// `items` sorted, without repeats.
fn set<T: Ord>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut all: Vec<T> = items.collect();
    all.sort_unstable();
    all.dedup();
    all
}

/// Whether two sorted lists share no item.
fn disjoint<T: Ord>(a: &[T], b: &[T]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => return false,
        }
    }
    true
}

impl Facts {
    /// The facts of an entry of `list` and `kind` whose primary name is `primary` and whose
    /// names (primary and aliases) are `names`, born on `birth_dates`, of the countries
    /// `countries` (nationalities and others).
    pub fn new<'a>(
        list: ListCode,
        kind: EntityKind,
        primary: &str,
        names: impl Iterator<Item = &'a str>,
        birth_dates: &[DateSpec],
        countries: impl Iterator<Item = &'a String>,
    ) -> Facts {
        let (names, primary) = name_keys(primary, names);
        Facts {
            list,
            individual: kind == EntityKind::Individual,
            names,
            primary,
            years: set(birth_dates.iter().filter_map(DateSpec::year)),
            countries: set(countries.cloned()),
        }
    }

    /// The facts of an entry's full record.
    pub fn of(entity: &Entity) -> Facts {
        Facts::new(
            entity.list,
            entity.kind,
            &entity.primary_name,
            entity.all_names(),
            &entity.birth_dates,
            entity.nationalities.iter().chain(&entity.countries),
        )
    }
}

fn same(a: &Facts, b: &Facts) -> bool {
    if a.list == b.list || a.individual != b.individual || disjoint(&a.names, &b.names) {
        return false;
    }
    if a.individual {
        match (a.years.is_empty(), b.years.is_empty()) {
            (false, false) => !disjoint(&a.years, &b.years),
            _ => a.primary == b.primary,
        }
    } else {
        a.countries.is_empty() || b.countries.is_empty() || !disjoint(&a.countries, &b.countries)
    }
}

/// The group of each match, whose entry's facts are `all` in rank order (`None`: the entry
/// is unknown, and gets a group of its own): 1, 2, ... in rank order.
pub fn assign(all: &[Option<&Facts>]) -> Vec<u32> {
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
    let mut group_of = vec![0; all.len()];
    for (g, members) in groups.iter().enumerate() {
        for &i in members {
            group_of[i] = g as u32 + 1;
        }
    }
    group_of
}

#[cfg(test)]
mod tests {
    use super::*;

    fn person(list: ListCode, names: &[&str], born: &[i32]) -> Facts {
        let dates: Vec<DateSpec> = born.iter().map(|&year| DateSpec::Year { year }).collect();
        Facts::new(
            list,
            EntityKind::Individual,
            names[0],
            names.iter().copied(),
            &dates,
            std::iter::empty(),
        )
    }

    fn organisation(list: ListCode, names: &[&str], countries: &[&str]) -> Facts {
        let countries: Vec<String> = countries.iter().map(|c| (*c).to_owned()).collect();
        Facts::new(
            list,
            EntityKind::Entity,
            names[0],
            names.iter().copied(),
            &[],
            countries.iter(),
        )
    }

    #[test]
    fn one_person_on_several_lists_is_one_group() {
        let un = person(
            ListCode::Un,
            &["Ivan PETROV", "Ivan Petrov Sidorov"],
            &[1960],
        );
        let eu = person(ListCode::Eu, &["PETROV, Ivan"], &[1960, 1961]);
        let other_year = person(ListCode::OfacSdn, &["Ivan Petrov"], &[1975]);
        let same_list = person(ListCode::Un, &["Ivan Petrov"], &[1960]);
        let groups = assign(&[Some(&un), Some(&eu), Some(&other_year), Some(&same_list)]);
        assert_eq!(groups, [1, 1, 2, 3]);
    }

    /// What lets an answer whose matches are all of one list skip the facts (`enrich`).
    #[test]
    fn entries_of_one_list_are_each_a_group_in_rank_order() {
        let a = person(ListCode::Un, &["Ivan Petrov"], &[1960]);
        let b = person(ListCode::Un, &["Ivan Petrov"], &[1960]);
        let c = organisation(ListCode::Un, &["Ivan Petrov"], &[]);
        assert_eq!(assign(&[Some(&a), Some(&b), None, Some(&c)]), [1, 2, 3, 4]);
    }

    #[test]
    fn people_without_birth_dates_group_by_primary_name_only() {
        let un = person(ListCode::Un, &["Ivan Petrov", "Vanya"], &[]);
        let uk = person(ListCode::UkHmt, &["Petrov Ivan"], &[1960]);
        let eu = person(ListCode::Eu, &["Vanya", "Ivan Petrov"], &[]);
        assert_eq!(assign(&[Some(&un), Some(&uk)]), [1, 1]);
        assert_eq!(assign(&[Some(&un), Some(&eu)]), [1, 2]);
    }

    #[test]
    fn organisations_group_unless_their_countries_differ() {
        let a = organisation(ListCode::Un, &["Alfa Bank"], &["RU"]);
        let b = organisation(ListCode::Eu, &["BANK ALFA", "Alfa"], &["RU", "CY"]);
        let c = organisation(ListCode::OfacSdn, &["Alfa Bank"], &["KZ"]);
        let d = organisation(ListCode::UkHmt, &["Alfa Bank"], &[]);
        let person = person(ListCode::CaSema, &["Alfa Bank"], &[]);
        let groups = assign(&[Some(&a), Some(&b), Some(&c), Some(&d), Some(&person), None]);
        assert_eq!(groups, [1, 1, 2, 1, 3, 4]);
    }

    #[test]
    fn facts_of_a_record_are_its_names_years_and_countries() {
        let mut entity = Entity::new(ListCode::Un, "QDi.1", EntityKind::Individual, "Ivan PETROV");
        entity
            .aliases
            .push(crate::model::Alias::new("Petrov, Ivan"));
        entity.birth_dates = vec![DateSpec::Year { year: 1960 }];
        entity.nationalities = vec!["RU".to_owned()];
        entity.countries = vec!["RU".to_owned(), "BY".to_owned()];
        let facts = Facts::of(&entity);
        assert_eq!(facts.names, ["ivan petrov"]);
        assert_eq!(facts.primary, "ivan petrov");
        assert_eq!(facts.years, [1960]);
        assert_eq!(facts.countries, ["BY", "RU"]);
    }
}
