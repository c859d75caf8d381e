//! The names of one entry with just enough about it to report a match: what the screening
//! index is built from.

use super::{AliasQuality, DateSpec, Entity, EntityKind, ListCode};

/// One entry's names and the fields a screening result shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntityNames {
    pub entity_id: String,
    pub list: ListCode,
    pub kind: EntityKind,
    pub primary_name: String,
    /// ISO 3166-1 alpha-2 of the entry's main country, when known.
    pub country: Option<String>,
    /// The primary name first, then every alias, with the list's quality flag.
    pub names: Vec<(String, AliasQuality)>,
    /// The last day of the listing (`YYYY-MM-DD`) where the list gives one: an entry whose
    /// listing has ended is not reported unless the request asks for ended listings.
    pub listing_ends: Option<String>,
    /// What tells two same-named people apart.
    pub facts: EntityFacts,
}

/// The facts besides the name that a screening weighs and shows: dates of birth,
/// nationalities, other countries, programmes, listing date.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(default)]
pub struct EntityFacts {
    pub birth_dates: Vec<DateSpec>,
    /// ISO 3166-1 alpha-2: nationality or citizenship.
    pub nationalities: Vec<String>,
    /// ISO 3166-1 alpha-2: registration, address and other countries.
    pub countries: Vec<String>,
    pub programs: Vec<String>,
    pub listed_on: Option<String>,
}

impl EntityNames {
    /// The names of a full record.
    pub fn of(entity: &Entity) -> EntityNames {
        let mut names = vec![(entity.primary_name.clone(), AliasQuality::Strong)];
        names.extend(entity.aliases.iter().map(|a| (a.name.clone(), a.quality)));
        EntityNames {
            entity_id: entity.entity_id(),
            list: entity.list,
            kind: entity.kind,
            primary_name: entity.primary_name.clone(),
            country: entity.country().map(str::to_owned),
            names,
            listing_ends: entity.listing_ends.clone(),
            facts: EntityFacts {
                birth_dates: entity.birth_dates.clone(),
                nationalities: entity.nationalities.clone(),
                countries: entity.countries.clone(),
                programs: entity.programs.clone(),
                listed_on: entity.listed_on.clone(),
            },
        }
    }

    /// Drops the weak ("low quality") aliases, for users who follow OFAC's guidance not to
    /// screen them (`[screening] weak_aliases = false`).
    pub fn drop_weak_aliases(&mut self) {
        self.names
            .retain(|(_, quality)| *quality != AliasQuality::Weak);
    }
}
