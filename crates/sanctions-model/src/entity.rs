//! One sanctioned entry as a list publishes it, and the parts it is made of.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::ListCode;

/// What kind of subject an entry designates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum EntityKind {
    Individual,
    Entity,
    Vessel,
    Aircraft,
}

impl EntityKind {
    /// Every kind, in the order the wire documents them.
    pub const ALL: [EntityKind; 4] = [
        EntityKind::Individual,
        EntityKind::Entity,
        EntityKind::Vessel,
        EntityKind::Aircraft,
    ];

    /// The lowercase word used on the wire and in the store.
    pub fn as_str(self) -> &'static str {
        match self {
            EntityKind::Individual => "individual",
            EntityKind::Entity => "entity",
            EntityKind::Vessel => "vessel",
            EntityKind::Aircraft => "aircraft",
        }
    }

    /// Parses the word written by [`EntityKind::as_str`].
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "individual" => Some(EntityKind::Individual),
            "entity" => Some(EntityKind::Entity),
            "vessel" => Some(EntityKind::Vessel),
            "aircraft" => Some(EntityKind::Aircraft),
            _ => None,
        }
    }
}

impl fmt::Display for EntityKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How much a list trusts an alias (OFAC's strong/weak a.k.a., UN's quality, EU's `strong`).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum AliasQuality {
    /// The list gives no quality for this alias.
    #[default]
    Unspecified,
    Strong,
    Weak,
}

/// Another name of an entry: an a.k.a., former name, spelling variant or original script.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Alias {
    /// The name exactly as published (after whitespace cleaning).
    pub name: String,
    /// The list's word for the alias kind, lowercase: `aka`, `fka`, `nka`, `original_script`, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default)]
    pub quality: AliasQuality,
    /// Script of the name where the list gives it (e.g. `Cyrillic`, `Arabic`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<String>,
    /// Language of the name where the list gives it (e.g. `ru`, `EN`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
}

impl Alias {
    /// An alias with only a name.
    pub fn new(name: impl Into<String>) -> Self {
        Alias {
            name: name.into(),
            ..Alias::default()
        }
    }
}

/// The parts of a person's name, where a list publishes them separately.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct NameParts {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub given: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub middle: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patronymic: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<String>,
}

impl NameParts {
    /// True when no part is set.
    pub fn is_empty(&self) -> bool {
        self.title.is_none()
            && self.given.is_none()
            && self.middle.is_none()
            && self.patronymic.is_none()
            && self.family.is_none()
    }
}

/// A date as precise as the list gives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "precision", rename_all = "snake_case")]
pub enum DateSpec {
    /// A full date.
    Day { year: i32, month: u8, day: u8 },
    /// Month and year only.
    Month { year: i32, month: u8 },
    /// Year only.
    Year { year: i32 },
    /// A range between two (possibly partial) dates, both inclusive, written `YYYY[-MM[-DD]]`.
    Range { from: String, to: String },
    /// Text the list gives that is no date we can read ("circa 1958", "unknown").
    Text { text: String },
}

/// The years a date of birth given with a query may have (the engine weighs it, the server
/// accepts it): a living person's, with room for the lists' oldest entries; a year outside
/// is taken as a typing error, not as evidence.
pub const DATE_OF_BIRTH_YEARS: std::ops::RangeInclusive<i32> = 1850..=2100;

impl DateSpec {
    /// Reads the date notations the lists use: `YYYY-MM-DD`, `DD/MM/YYYY`, `DD-MM-YYYY`,
    /// `DD.MM.YYYY`, `DD Mon YYYY`, `Mon YYYY`, `YYYY`, `YYYY to YYYY` / `YYYY-YYYY`, with
    /// zero day or month meaning unknown (`00/00/1960`). Anything else is kept as text.
    pub fn parse_loose(text: &str) -> Option<DateSpec> {
        let text = super::clean(text);
        if text.is_empty() {
            return None;
        }
        let lower = text.to_ascii_lowercase();
        for sep in [" to ", " - ", " and ", "–"] {
            if let Some((a, b)) = lower.split_once(sep)
                && let Some(range) = range_of(a, b)
            {
                return Some(range);
            }
        }
        if let Some((a, b)) = lower.split_once('-')
            && a.trim().len() == 4
            && b.trim().len() == 4
            && let Some(range) = range_of(a, b)
        {
            return Some(range);
        }
        Some(parse_single(&lower).unwrap_or(DateSpec::Text { text }))
    }

    /// The date written `YYYY[-MM[-DD]]`, a range as `FROM/TO`, text as given.
    pub fn iso(&self) -> String {
        match self {
            DateSpec::Day { year, month, day } => format!("{year:04}-{month:02}-{day:02}"),
            DateSpec::Month { year, month } => format!("{year:04}-{month:02}"),
            DateSpec::Year { year } => format!("{year:04}"),
            DateSpec::Range { from, to } => format!("{from}/{to}"),
            DateSpec::Text { text } => text.clone(),
        }
    }

    /// The year (the first year of a range), when known.
    pub fn year(&self) -> Option<i32> {
        match self {
            DateSpec::Day { year, .. } | DateSpec::Month { year, .. } | DateSpec::Year { year } => {
                Some(*year)
            }
            DateSpec::Range { from, .. } => from.get(..4).and_then(|y| y.parse().ok()),
            DateSpec::Text { .. } => None,
        }
    }
}

impl fmt::Display for DateSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.iso())
    }
}

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

fn month_from_word(word: &str) -> Option<u8> {
    let word = word.trim_end_matches('.');
    if word.len() < 3 {
        return None;
    }
    let prefix = word.get(..3)?;
    MONTHS
        .iter()
        .position(|m| *m == prefix)
        .map(|i| (i + 1) as u8)
}

fn valid_year(year: i32) -> bool {
    (1000..=2999).contains(&year)
}

/// Builds the most precise spec from year, month and day where zero means unknown.
fn from_parts(year: i32, month: u8, day: u8) -> Option<DateSpec> {
    if !valid_year(year) || month > 12 || day > 31 {
        return None;
    }
    Some(match (month, day) {
        (0, _) => DateSpec::Year { year },
        (m, 0) => DateSpec::Month { year, month: m },
        (m, d) => DateSpec::Day {
            year,
            month: m,
            day: d,
        },
    })
}

fn range_of(from: &str, to: &str) -> Option<DateSpec> {
    let (from, to) = (parse_single(from.trim())?, parse_single(to.trim())?);
    Some(DateSpec::Range {
        from: from.iso(),
        to: to.iso(),
    })
}

fn parse_single(text: &str) -> Option<DateSpec> {
    let text = text
        .trim()
        .trim_start_matches("circa ")
        .trim_start_matches("approximately ")
        .trim_start_matches("approx. ")
        .trim_start_matches("ca. ")
        .trim();
    let numeric: Vec<&str> = text.split(['-', '/', '.']).collect();
    if numeric
        .iter()
        .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
    {
        // A part too long for a date (`2020-99999999999999999999-01`) is no date: no part
        // may overflow, and the shape below is checked on the parts' lengths.
        if numeric.iter().any(|p| p.len() > 4) {
            return None;
        }
        let nums: Vec<i32> = numeric.iter().filter_map(|p| p.parse().ok()).collect();
        let part = |i: usize| nums.get(i).copied().unwrap_or(-1);
        let small = |i: usize| u8::try_from(part(i)).ok();
        return match (numeric.len(), numeric.first().map(|p| p.len())) {
            (1, Some(4)) => from_parts(part(0), 0, 0),
            (3, Some(4)) => from_parts(part(0), small(1)?, small(2)?),
            (3, _) if numeric[2].len() == 4 => from_parts(part(2), small(1)?, small(0)?),
            (2, Some(4)) => from_parts(part(0), small(1)?, 0),
            (2, _) if numeric[1].len() == 4 => from_parts(part(1), small(0)?, 0),
            _ => None,
        };
    }
    let words: Vec<&str> = text.split([' ', ',']).filter(|w| !w.is_empty()).collect();
    match words.as_slice() {
        [day, month, year] => {
            let month = month_from_word(month)?;
            from_parts(year.parse().ok()?, month, day.parse().ok()?)
        }
        [month, year] => from_parts(year.parse().ok()?, month_from_word(month)?, 0),
        _ => None,
    }
}

/// A postal address, as structured as the list gives it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Address {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub street: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub city: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub postal_code: Option<String>,
    /// ISO 3166-1 alpha-2, uppercase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub country: Option<String>,
    /// The address as one line, when the list gives it only that way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full: Option<String>,
}

/// An identity or registration document (passport, national id, IMO number, tax id...).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct IdDocument {
    /// The list's name for the document type, e.g. `Passport`, `National ID No.`.
    pub doc_type: String,
    pub number: String,
    /// Issuing country, ISO 3166-1 alpha-2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub country: Option<String>,
    /// Anything else the list says of it (issue date, "expires ...").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// One sanctioned entry of one list, with every field the list publishes that we keep.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entity {
    pub list: ListCode,
    /// The list's own stable identifier (see `ID_SCHEME.md`).
    pub source_id: String,
    pub kind: EntityKind,
    pub primary_name: String,
    /// Every other name; never repeats the primary name, no exact duplicates.
    #[serde(default)]
    pub aliases: Vec<Alias>,
    /// The primary name's parts, where the list gives them.
    #[serde(default, skip_serializing_if = "NameParts::is_empty")]
    pub name_parts: NameParts,
    #[serde(default)]
    pub birth_dates: Vec<DateSpec>,
    #[serde(default)]
    pub birth_places: Vec<String>,
    /// Nationalities and citizenships, ISO 3166-1 alpha-2.
    #[serde(default)]
    pub nationalities: Vec<String>,
    /// Every other country the entry is tied to (addresses, registration), ISO alpha-2.
    #[serde(default)]
    pub countries: Vec<String>,
    #[serde(default)]
    pub addresses: Vec<Address>,
    #[serde(default)]
    pub identifiers: Vec<IdDocument>,
    /// Sanctions programmes or regimes (`SDGT`, `RUSSIA-EO14024`, `Russia`, ...).
    #[serde(default)]
    pub programs: Vec<String>,
    /// The date the entry was listed, `YYYY-MM-DD`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listed_on: Option<String>,
    /// The last day of the listing, `YYYY-MM-DD`, where the list gives one (a World Bank
    /// debarment's end): once it is past, the listing has ended (see [`Entity::ended`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listing_ends: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remarks: Option<String>,
    /// The official file the entry was read from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_url: Option<String>,
    /// List-specific facts that have no field of their own (call sign, debarment end, ...).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub attributes: BTreeMap<String, String>,
}

impl Entity {
    /// A new entry with only its identity and primary name set.
    pub fn new(
        list: ListCode,
        source_id: impl Into<String>,
        kind: EntityKind,
        primary_name: impl Into<String>,
    ) -> Self {
        Entity {
            list,
            source_id: source_id.into(),
            kind,
            primary_name: primary_name.into(),
            aliases: Vec::new(),
            name_parts: NameParts::default(),
            birth_dates: Vec::new(),
            birth_places: Vec::new(),
            nationalities: Vec::new(),
            countries: Vec::new(),
            addresses: Vec::new(),
            identifiers: Vec::new(),
            programs: Vec::new(),
            listed_on: None,
            listing_ends: None,
            remarks: None,
            source_url: None,
            attributes: BTreeMap::new(),
        }
    }

    /// True when the listing ended before `today` (`YYYY-MM-DD`).
    pub fn ended(&self, today: &str) -> bool {
        listing_ended(self.listing_ends.as_deref(), today)
    }

    /// `<list_code>:<source_id>`.
    pub fn entity_id(&self) -> String {
        self.list.entity_id(&self.source_id)
    }

    /// The one country shown with a match: the first nationality, else the first other country.
    pub fn country(&self) -> Option<&str> {
        self.nationalities
            .first()
            .or_else(|| self.countries.first())
            .map(String::as_str)
    }

    /// Adds an alias unless it is empty, equals the primary name or is already there.
    pub fn push_alias(&mut self, alias: Alias) {
        let name = super::clean(&alias.name);
        if name.is_empty()
            || name == self.primary_name
            || self.aliases.iter().any(|a| a.name == name)
        {
            return;
        }
        self.aliases.push(Alias { name, ..alias });
    }

    /// Adds an ISO alpha-2 code to `nationalities` unless present.
    pub fn push_nationality(&mut self, iso2: &str) {
        push_unique(&mut self.nationalities, iso2);
    }

    /// Adds an ISO alpha-2 code to `countries` unless present.
    pub fn push_country(&mut self, iso2: &str) {
        push_unique(&mut self.countries, iso2);
    }

    /// Adds a programme unless present.
    pub fn push_program(&mut self, program: &str) {
        let program = super::clean(program);
        if !program.is_empty() {
            push_unique(&mut self.programs, &program);
        }
    }

    /// Every name of the entry, the primary first.
    pub fn all_names(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.primary_name.as_str())
            .chain(self.aliases.iter().map(|a| a.name.as_str()))
    }
}

/// True when a listing whose last day is `ends` (`YYYY-MM-DD`) has ended before `today`.
pub fn listing_ended(ends: Option<&str>, today: &str) -> bool {
    ends.is_some_and(|ends| ends.len() == 10 && ends < today)
}

/// Today's date in UTC, `YYYY-MM-DD`: what [`listing_ended`] compares with.
pub fn today_utc() -> String {
    jiff::Timestamp::now()
        .to_zoned(jiff::tz::TimeZone::UTC)
        .date()
        .to_string()
}

fn push_unique(values: &mut Vec<String>, value: &str) {
    if !value.is_empty() && !values.iter().any(|v| v == value) {
        values.push(value.to_owned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_lists_date_notations() {
        let day = |y, m, d| DateSpec::Day {
            year: y,
            month: m,
            day: d,
        };
        assert_eq!(DateSpec::parse_loose("1952-10-07"), Some(day(1952, 10, 7)));
        assert_eq!(DateSpec::parse_loose("07/10/1952"), Some(day(1952, 10, 7)));
        assert_eq!(DateSpec::parse_loose("07 Oct 1952"), Some(day(1952, 10, 7)));
        assert_eq!(
            DateSpec::parse_loose("Oct 1952"),
            Some(DateSpec::Month {
                year: 1952,
                month: 10
            })
        );
        assert_eq!(
            DateSpec::parse_loose("00/00/1960"),
            Some(DateSpec::Year { year: 1960 })
        );
        assert_eq!(
            DateSpec::parse_loose("circa 1958"),
            Some(DateSpec::Year { year: 1958 })
        );
        assert_eq!(
            DateSpec::parse_loose("1958 to 1960"),
            Some(DateSpec::Range {
                from: "1958".into(),
                to: "1960".into()
            })
        );
        assert_eq!(
            DateSpec::parse_loose("1958-1960"),
            Some(DateSpec::Range {
                from: "1958".into(),
                to: "1960".into()
            })
        );
        assert_eq!(
            DateSpec::parse_loose("unknown"),
            Some(DateSpec::Text {
                text: "unknown".into()
            })
        );
        assert_eq!(DateSpec::parse_loose("  "), None);
    }

    /// Found by the fuzz harness (`tests/lists/fuzz.rs`): a part too long for an integer panicked
    /// on an index out of bounds.
    #[test]
    fn out_of_range_dates_are_text_not_a_panic() {
        for text in [
            "2020-99999999999999999999-01",
            "99999999999999999999",
            "01/300/1999",
            "1999-01-300",
            "-1/-1/2000",
            "2000 to 99999999999999999999",
            "01 Jan 99999999999999999999",
        ] {
            let parsed = DateSpec::parse_loose(text);
            assert!(
                matches!(parsed, Some(DateSpec::Text { .. })),
                "{text}: {parsed:?}"
            );
        }
    }

    #[test]
    fn aliases_are_deduplicated_and_never_repeat_the_primary() {
        let mut e = Entity::new(ListCode::Un, "1", EntityKind::Individual, "A B");
        e.push_alias(Alias::new("A B"));
        e.push_alias(Alias::new(" C  D "));
        e.push_alias(Alias::new("C D"));
        e.push_alias(Alias::new(""));
        assert_eq!(e.aliases.len(), 1);
        assert_eq!(e.aliases[0].name, "C D");
        assert_eq!(e.all_names().collect::<Vec<_>>(), ["A B", "C D"]);
    }
}
