//! Date of birth and country: what a request says besides the name, read from its fields or
//! from the name itself (`PUTIN VLADIMIR 07.10.1952`, `Vladimir Putin (Russia)`), weighed
//! against what the list says about an entry, each effect shown as [`Evidence`].
//!
//! A listed fact that agrees adds a little, one that clearly conflicts takes away more (a
//! same-named different person is the false alarm these facts exist to silence), an absent
//! one changes nothing. The largest total penalty, [`MAX_PENALTY`], keeps an exact full-name
//! match (100) above the default threshold on its own.

use super::result::{Evidence, Fact, Verdict};
use super::{DEFAULT_THRESHOLD, ScreenError};
use crate::model::{DateSpec, EntityFacts, to_iso2};

/// Points for a date of birth that agrees (same year, and month and day where both give
/// them). Small: agreement confirms a name match, it cannot make one.
const DOB_AGREES: i8 = 3;
/// A year one apart (a listed approximate year, a date read differently): neutral.
const DOB_CLOSE: i8 = 0;
/// A clear conflict (years two or more apart, or same year and a different day): enough to
/// take a name that scores in the low 80s, a namesake, under the default threshold of 78.
const DOB_CONFLICTS: i8 = -8;
/// A country that agrees with the entry's nationality or other countries.
const COUNTRY_AGREES: i8 = 2;
/// A country the entry has no tie to. Weaker than a date: people move and lists give few.
const COUNTRY_CONFLICTS: i8 = -4;
/// The most the facts add: a date of birth and a country that both agree.
pub(crate) const MAX_POINTS: i8 = DOB_AGREES + COUNTRY_AGREES;
/// Never more than this, so that an exact full-name match (100) stays above the threshold.
pub const MAX_PENALTY: i8 = 100 - DEFAULT_THRESHOLD as i8 - 1;

/// The facts of a request, parsed.
#[derive(Debug, Clone, Default)]
pub(crate) struct QueryFacts {
    pub date_of_birth: Option<DateSpec>,
    pub country: Option<&'static str>,
}

impl QueryFacts {
    pub fn is_empty(&self) -> bool {
        self.date_of_birth.is_none() && self.country.is_none()
    }
}

/// Reads a request's `date_of_birth` (`YYYY`, `YYYY-MM` or `YYYY-MM-DD`) and `country`
/// (ISO 3166-1 alpha-2, or a country name the model's table knows).
pub(crate) fn parse(dob: Option<&str>, country: Option<&str>) -> Result<QueryFacts, ScreenError> {
    let date_of_birth = match dob.map(str::trim).filter(|d| !d.is_empty()) {
        None => None,
        Some(d) => Some(parse_date(d).ok_or_else(|| ScreenError::DateOfBirth(d.to_owned()))?),
    };
    let country = match country.map(str::trim).filter(|c| !c.is_empty()) {
        None => None,
        Some(c) => Some(to_iso2(c).ok_or_else(|| ScreenError::Country(c.to_owned()))?),
    };
    Ok(QueryFacts {
        date_of_birth,
        country,
    })
}

fn parse_date(text: &str) -> Option<DateSpec> {
    match DateSpec::parse_loose(text)? {
        d @ (DateSpec::Day { .. } | DateSpec::Month { .. } | DateSpec::Year { .. }) => d
            .year()
            .filter(|y| crate::model::DATE_OF_BIRTH_YEARS.contains(y))
            .map(|_| d),
        _ => None,
    }
}

/// Splits the dates and the country in parentheses off a typed name: a date of birth (a year
/// 1900-2029 alone, a full date such as `07.10.1952`, `1952-10-07` or `(07/10/1952)`, a date
/// in words such as `7 October 1952` or `Oct. 7, 1952`, each with a `born`, `b.` or `DOB`
/// before it) when the name keeps at least two other words, and a parenthesised part that is
/// a country's name. Returns the name left, and what was found.
///
/// A name with no bracket and no ASCII digit holds neither (every date read here has a year
/// of ASCII digits, every country a bracket): it is returned whole without being read, as
/// [`extract_read`] would return it (a favorite's name is asked this at every list update).
pub(crate) fn extract(name: &str) -> (String, QueryFacts) {
    if !name.bytes().any(|b| b == b'(' || b.is_ascii_digit()) {
        return (name.to_owned(), QueryFacts::default());
    }
    extract_read(name)
}

/// [`extract`], the name read through.
fn extract_read(name: &str) -> (String, QueryFacts) {
    let mut facts = QueryFacts::default();
    let mut rest = String::with_capacity(name.len());
    let mut chars = name.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '('
            && let Some(end) = name[i..].find(')')
        {
            let inner = &name[i + 1..i + end];
            if facts.country.is_none()
                && let Some(iso) = to_iso2(inner)
            {
                facts.country = Some(iso);
                while chars.peek().is_some_and(|(j, _)| *j <= i + end) {
                    chars.next();
                }
                continue;
            }
        }
        rest.push(c);
    }
    let words: Vec<&str> = rest.split_whitespace().collect();
    let dates = typed_dates(&words);
    let names = words.len() - dates.iter().map(|(_, len, _)| len).sum::<usize>();
    if names >= 2 && names < words.len() {
        facts.date_of_birth = dates.first().map(|(_, _, d)| d.clone());
        let mut kept = Vec::with_capacity(names);
        let mut i = 0;
        while i < words.len() {
            match dates.iter().find(|(at, _, _)| *at == i) {
                Some((_, len, _)) => i += len,
                None => {
                    kept.push(words[i]);
                    i += 1;
                }
            }
        }
        rest = kept.join(" ");
    }
    (rest, facts)
}

/// The dates of birth typed among `words`: (first word, how many words, the date), in order.
fn typed_dates(words: &[&str]) -> Vec<(usize, usize, DateSpec)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let Some((len, date)) = (1..=3)
            .rev()
            .find_map(|len| date_at(&words[i..], len).map(|d| (len, d)))
        else {
            i += 1;
            continue;
        };
        // A marker just before it (`born`, `b.`, `DOB:`) goes with it.
        let marked = i > 0
            && out.last().is_none_or(|(at, l, _)| at + l < i)
            && matches!(
                bare(words[i - 1])
                    .trim_end_matches('.')
                    .to_ascii_lowercase()
                    .as_str(),
                "born" | "b" | "dob" | "d.o.b"
            );
        let at = if marked { i - 1 } else { i };
        out.push((at, len + i - at, date));
        i += len;
    }
    out
}

/// The word stripped of the brackets and punctuation typed around a date.
fn bare(word: &str) -> &str {
    word.trim_matches(|c: char| matches!(c, ',' | ';' | ':' | '(' | ')' | '[' | ']'))
}

/// A date of birth in the first `len` words of `words`: one word of digits and separators
/// (a year alone, or day, month and year), or two or three words with a month's name and a
/// year (`7 October 1952`, `October 7, 1952`, `Oct 1952`).
fn date_at(words: &[&str], len: usize) -> Option<DateSpec> {
    let parts: Vec<&str> = words.get(..len)?.iter().map(|w| bare(w)).collect();
    let plausible = |d: DateSpec| {
        d.year()
            .is_some_and(|y| (1900..2030).contains(&y))
            .then_some(d)
    };
    if let [w] = parts.as_slice() {
        let digits = w.bytes().filter(u8::is_ascii_digit).count();
        let date_like = w
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'/'));
        return ((digits == 4 || digits >= 6) && date_like)
            .then(|| parse_date(w))
            .flatten()
            .and_then(plausible);
    }
    let year = parts.last()?;
    if year.len() != 4 || !year.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let month_first = |p: &[&str]| -> Option<String> {
        match p {
            [month, day, year] => Some(format!("{day} {month} {year}")),
            _ => None,
        }
    };
    let text = parts.join(" ").replace('.', "");
    let read = |t: &str| match parse_date(t)? {
        d @ (DateSpec::Day { .. } | DateSpec::Month { .. }) => Some(d),
        _ => None,
    };
    read(&text)
        .or_else(|| month_first(&parts).and_then(|t| read(&t.replace('.', ""))))
        .and_then(plausible)
}

/// The evidence of `query`'s facts against an entry's, and the points they add up to
/// ([`points`] without the evidence).
pub(crate) fn weigh(query: &QueryFacts, listed: &EntityFacts) -> (Vec<Evidence>, i8) {
    let mut out = Vec::new();
    if let Some(dob) = &query.date_of_birth {
        let (verdict, listed_text, points) = match best_date(dob, listed) {
            Some((v, l)) => (v, Some(l.iso()), dob_points(v)),
            None => (Verdict::Unknown, None, 0),
        };
        out.push(Evidence {
            fact: Fact::DateOfBirth,
            query: dob.iso(),
            listed: listed_text,
            verdict,
            points,
        });
    }
    if let Some(country) = query.country {
        let (verdict, points) = country_verdict(country, listed);
        let mut ties = country_ties(listed);
        let shown = ties
            .clone()
            .find(|c| c.eq_ignore_ascii_case(country))
            .or_else(|| ties.next())
            .cloned();
        out.push(Evidence {
            fact: Fact::Country,
            query: country.to_owned(),
            listed: shown,
            verdict,
            points,
        });
    }
    let total: i32 = out.iter().map(|e| i32::from(e.points)).sum();
    (out, capped(total))
}

/// The points [`weigh`] gives `query`'s facts against an entry's, without writing the
/// evidence out (the incremental re-screen's bound asks this of every changed name a
/// favorite meets), with the entry's country ties ([`country_ties`]) given apart: the bound
/// keeps the changed entries' side by side. `listed` is read only for its dates of birth,
/// when the query has one.
pub(crate) fn points<'a>(
    query: &QueryFacts,
    listed: &EntityFacts,
    ties: impl Iterator<Item = &'a str>,
) -> i8 {
    let dob = query
        .date_of_birth
        .as_ref()
        .and_then(|dob| best_date(dob, listed))
        .map_or(0, |(v, _)| dob_points(v));
    let country = query
        .country
        .map_or(0, |country| verdict_among(country, ties).1);
    capped(i32::from(dob) + i32::from(country))
}

/// [`points`] against the entry's own ties ([`country_ties`]: what [`weigh`] adds up to,
/// without writing the evidence out: a screening weighs every entry it scores and reports a
/// few), for the entry whose facts as held beside its kind are `held` and whose facts
/// `listed` gives: each verdict told from `held` where it tells it, the entry's facts read
/// only where it does not (a screening weighs up to a thousand entries, each of whose facts
/// lies somewhere else in memory, and an index read from its file builds an entry when
/// first read).
pub(crate) fn points_by<'a>(
    query: &QueryFacts,
    held: &Held,
    listed: impl Fn() -> &'a EntityFacts,
) -> i8 {
    let dob = query.date_of_birth.as_ref().map_or(0, |dob| {
        let verdict = held
            .dates
            .best(dob)
            .unwrap_or_else(|| best_date(dob, listed()).map(|(v, _)| v));
        verdict.map_or(0, dob_points)
    });
    let country = query.country.map_or(0, |country| {
        held.ties
            .points(country)
            .unwrap_or_else(|| verdict_among(country, country_ties(listed()).map(String::as_str)).1)
    });
    capped(i32::from(dob) + i32::from(country))
}

/// An entry's facts as the verdicts read them, held beside its kind and list
/// ([`crate::index::EntityMeta`]): its country ties and dates of birth.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Held {
    pub ties: CountryTies,
    pub dates: DatesHeld,
}

impl Held {
    /// The facts of a built entry.
    pub(crate) fn of(facts: &EntityFacts) -> Held {
        let mut dates = DatesHeld::default();
        for date in &facts.birth_dates {
            dates.push(&date_numbers(date));
        }
        Held {
            ties: CountryTies::of(country_ties(facts).map(String::as_str)),
            dates,
        }
    }
}

/// How many dates of birth [`DatesHeld`] holds.
const DATES_HELD: usize = 3;

/// An entry's dates of birth as [`best_date`] reads them: up to [`DATES_HELD`] days, months
/// and years (kinds 0, 1, 2 of the stored form, as (kind, year, month, day)); a text no date
/// is read from never compares, so it is left out. `more`: a range (whose texts are read) or
/// more dates than it holds: the entry's own are read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct DatesHeld {
    more: bool,
    len: u8,
    dates: [(u8, i32, u8, u8); DATES_HELD],
}

/// A date's four numbers in the stored index ([`DatesHeld::push`] reads them back): its kind
/// (0 a day, 1 a month, 2 a year, 3 a range, 4 a text: the last two's texts are stored
/// beside), year, month and day.
pub(crate) fn date_numbers(date: &DateSpec) -> [u32; 4] {
    match date {
        DateSpec::Day { year, month, day } => [0, *year as u32, (*month).into(), (*day).into()],
        DateSpec::Month { year, month } => [1, *year as u32, (*month).into(), 0],
        DateSpec::Year { year } => [2, *year as u32, 0, 0],
        DateSpec::Range { .. } => [3, 0, 0, 0],
        DateSpec::Text { .. } => [4, 0, 0, 0],
    }
}

impl DatesHeld {
    /// Adds a date of its stored numbers ([`date_numbers`]).
    pub(crate) fn push(&mut self, numbers: &[u32]) {
        let &[kind, year, month, day] = numbers else {
            self.more = true;
            return;
        };
        match kind {
            0..=2 => match self.dates.get_mut(usize::from(self.len)) {
                Some(slot) => {
                    *slot = (kind as u8, year as i32, month as u8, day as u8);
                    self.len += 1;
                }
                None => self.more = true,
            },
            4 => {}
            _ => self.more = true,
        }
    }

    /// The best verdict of `dob` against these dates ([`best_date`]), or `None` where the
    /// entry's own must be read.
    fn best(&self, dob: &DateSpec) -> Option<Option<Verdict>> {
        if self.more {
            return None;
        }
        let date = |&(kind, year, month, day): &(u8, i32, u8, u8)| match kind {
            0 => DateSpec::Day { year, month, day },
            1 => DateSpec::Month { year, month },
            _ => DateSpec::Year { year },
        };
        let dates = self.dates[..usize::from(self.len)].iter().map(date);
        Some(
            dates
                .filter_map(|listed| compare_dates(dob, &listed))
                .max_by_key(|v| rank(*v)),
        )
    }
}

/// How many two-byte ties [`CountryTies`] holds.
const TIES_HELD: usize = 4;

/// An entry's country ties ([`country_ties`]) as the country's verdict reads them: whether
/// it has any, and up to [`TIES_HELD`] of those two bytes long, each byte in lower case (a
/// query's country agrees with a tie equal to it in ASCII letters of either case, and is two
/// bytes long: a tie of another length never agrees).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct CountryTies {
    any: bool,
    /// More two-byte ties than it holds: the entry's own are read.
    more: bool,
    len: u8,
    codes: [u16; TIES_HELD],
}

impl CountryTies {
    pub(crate) fn of<'a>(ties: impl Iterator<Item = &'a str>) -> CountryTies {
        let mut held = CountryTies::default();
        for tie in ties {
            held.any = true;
            let Some(code) = two_bytes(tie) else {
                continue;
            };
            match held.codes.get_mut(usize::from(held.len)) {
                Some(slot) => {
                    *slot = code;
                    held.len += 1;
                }
                None => held.more = true,
            }
        }
        held
    }

    /// The points of `country` against these ties ([`verdict_among`]), or `None` where the
    /// entry's own must be read.
    fn points(&self, country: &str) -> Option<i8> {
        let code = two_bytes(country)?;
        if !self.any {
            Some(0)
        } else if self.codes[..usize::from(self.len)].contains(&code) {
            Some(COUNTRY_AGREES)
        } else {
            (!self.more).then_some(COUNTRY_CONFLICTS)
        }
    }
}

/// A text of two bytes as one number, each byte in lower case.
fn two_bytes(text: &str) -> Option<u16> {
    match text.as_bytes() {
        &[a, b] => Some(u16::from_be_bytes([
            a.to_ascii_lowercase(),
            b.to_ascii_lowercase(),
        ])),
        _ => None,
    }
}

/// The facts' total, no lower than [`MAX_PENALTY`] allows.
fn capped(total: i32) -> i8 {
    total.max(-i32::from(MAX_PENALTY)) as i8
}

/// The listed date of birth that agrees best with `dob`, with its verdict.
fn best_date<'a>(dob: &DateSpec, listed: &'a EntityFacts) -> Option<(Verdict, &'a DateSpec)> {
    listed
        .birth_dates
        .iter()
        .filter_map(|l| compare_dates(dob, l).map(|v| (v, l)))
        .max_by_key(|(v, _)| rank(*v))
}

/// A date of birth's points by its verdict.
fn dob_points(verdict: Verdict) -> i8 {
    match verdict {
        Verdict::Agrees => DOB_AGREES,
        Verdict::Close => DOB_CLOSE,
        _ => DOB_CONFLICTS,
    }
}

/// The countries an entry is tied to: its nationalities, then its other countries.
pub(crate) fn country_ties(listed: &EntityFacts) -> impl Iterator<Item = &String> + Clone {
    listed.nationalities.iter().chain(&listed.countries)
}

/// A country's verdict and points against an entry's ties: unknown where it has none.
fn country_verdict(country: &str, listed: &EntityFacts) -> (Verdict, i8) {
    verdict_among(country, country_ties(listed).map(String::as_str))
}

/// A country's verdict and points against `ties`: unknown where there are none.
fn verdict_among<'a>(country: &str, ties: impl Iterator<Item = &'a str>) -> (Verdict, i8) {
    let mut ties = ties.peekable();
    if ties.peek().is_none() {
        (Verdict::Unknown, 0)
    } else if ties.any(|c| c.eq_ignore_ascii_case(country)) {
        (Verdict::Agrees, COUNTRY_AGREES)
    } else {
        (Verdict::Conflicts, COUNTRY_CONFLICTS)
    }
}

fn rank(v: Verdict) -> u8 {
    match v {
        Verdict::Agrees => 3,
        Verdict::Close => 2,
        Verdict::Conflicts => 1,
        Verdict::Unknown => 0,
    }
}

/// A listed date against the query's: `None` when the list's date cannot be read.
fn compare_dates(query: &DateSpec, listed: &DateSpec) -> Option<Verdict> {
    let parts = |d: &DateSpec| match d {
        DateSpec::Day { year, month, day } => Some((*year, Some(*month), Some(*day))),
        DateSpec::Month { year, month } => Some((*year, Some(*month), None)),
        DateSpec::Year { year } => Some((*year, None, None)),
        _ => None,
    };
    let q = parts(query)?;
    if let DateSpec::Range { from, to } = listed {
        let (from, to) = (parse_date(from)?, parse_date(to)?);
        let (lo, hi) = (from.year()?, to.year()?);
        return Some(if (lo..=hi).contains(&q.0) {
            Verdict::Agrees
        } else if (lo.saturating_sub(1)..=hi.saturating_add(1)).contains(&q.0) {
            Verdict::Close
        } else {
            Verdict::Conflicts
        });
    }
    let l = parts(listed)?;
    let differ = |a: Option<u8>, b: Option<u8>| matches!((a, b), (Some(a), Some(b)) if a != b);
    Some(match q.0.abs_diff(l.0) {
        0 if differ(q.1, l.1) || differ(q.2, l.2) => Verdict::Close,
        0 => Verdict::Agrees,
        1 => Verdict::Close,
        _ => Verdict::Conflicts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_countries_are_read_off_a_typed_name() {
        let (name, f) = extract("PUTIN VLADIMIR VLADIMIROVICH 07.10.1952");
        assert_eq!(name, "PUTIN VLADIMIR VLADIMIROVICH");
        assert_eq!(
            f.date_of_birth.map(|d| d.iso()).as_deref(),
            Some("1952-10-07")
        );
        let (name, f) = extract("Vladimir Putin (Russia)");
        assert_eq!(name.trim(), "Vladimir Putin");
        assert_eq!(f.country, Some("RU"));
        let (name, f) = extract("Vladimir Putin 1952");
        assert_eq!(name, "Vladimir Putin");
        assert_eq!(f.date_of_birth, Some(DateSpec::Year { year: 1952 }));
        // A number that is part of a name stays.
        assert_eq!(extract("Arctic LNG 2").0, "Arctic LNG 2");
        assert_eq!(extract("Vessel 1984").0, "Vessel 1984");
        // Dates in brackets, in words, and after a marker, before or after the name.
        for typed in [
            "Vladimir Putin 07.10.1952",
            "Vladimir Putin (07/10/1952)",
            "Vladimir Putin, born 7 October 1952",
            "Vladimir Putin b. Oct. 7, 1952",
            "DOB 1952-10-07 Vladimir Putin",
            "Vladimir Putin [7 Oct 1952]",
        ] {
            let (name, f) = extract(typed);
            assert_eq!(name.trim_matches([' ', ',']), "Vladimir Putin", "{typed}");
            assert_eq!(
                f.date_of_birth.map(|d| d.iso()).as_deref(),
                Some("1952-10-07"),
                "{typed}"
            );
        }
        let (name, f) = extract("Putin Vladimir October 1952");
        assert_eq!(name, "Putin Vladimir");
        assert_eq!(f.date_of_birth.map(|d| d.iso()).as_deref(), Some("1952-10"));
    }

    proptest::proptest! {
        /// A name without a bracket or an ASCII digit is left whole, as reading it through
        /// leaves it: words, month names, markers, other scripts' digits and brackets.
        #[test]
        fn a_name_without_digits_or_brackets_is_left_as_reading_it_leaves_it(
            words in proptest::collection::vec(
                "(born|b\\.|DOB|October|Oct\\.|[A-Za-z]{1,8}|[\\u{0660}-\\u{0669}]{4}|[,.;:\\[\\]/-]|\\PC{1,6})",
                0..6,
            ),
        ) {
            let name = words.join(" ");
            proptest::prop_assume!(!name.bytes().any(|b| b == b'(' || b.is_ascii_digit()));
            let (fast, facts) = extract(&name);
            let (read, read_facts) = extract_read(&name);
            proptest::prop_assert_eq!(fast, read);
            proptest::prop_assert_eq!(facts.date_of_birth, read_facts.date_of_birth);
            proptest::prop_assert_eq!(facts.country, read_facts.country);
        }
    }

    #[test]
    fn facts_agree_conflict_or_say_nothing() {
        let listed = EntityFacts {
            birth_dates: vec![DateSpec::Day {
                year: 1952,
                month: 10,
                day: 7,
            }],
            nationalities: vec!["RU".to_owned()],
            ..EntityFacts::default()
        };
        let q = parse(Some("1952"), Some("Russia")).unwrap();
        assert_eq!(weigh(&q, &listed).1, DOB_AGREES + COUNTRY_AGREES);
        let q = parse(Some("1953-01-01"), None).unwrap();
        assert_eq!(weigh(&q, &listed).0[0].verdict, Verdict::Close);
        let q = parse(Some("1970-01-01"), Some("FR")).unwrap();
        assert_eq!(weigh(&q, &listed).1, DOB_CONFLICTS + COUNTRY_CONFLICTS);
        let q = parse(Some("1970"), None).unwrap();
        assert_eq!(weigh(&q, &EntityFacts::default()).1, 0);
        assert!(parse(Some("yesterday"), None).is_err());
        assert!(parse(None, Some("Atlantis")).is_err());
    }

    /// Every pairing of query facts (none, agreeing, close, conflicting, both) with listed
    /// facts (none, one date, a range, several dates, countries only): [`points`] gives
    /// what [`weigh`] adds up.
    #[test]
    fn points_are_what_the_evidence_adds_up_to() {
        let day = |year, month, day| DateSpec::Day { year, month, day };
        let listed = [
            EntityFacts::default(),
            EntityFacts {
                birth_dates: vec![day(1952, 10, 7)],
                nationalities: vec!["RU".to_owned()],
                ..EntityFacts::default()
            },
            EntityFacts {
                birth_dates: vec![
                    DateSpec::Range {
                        from: "1960".to_owned(),
                        to: "1965".to_owned(),
                    },
                    DateSpec::Year { year: 1971 },
                ],
                countries: vec!["IR".to_owned(), "ru".to_owned()],
                ..EntityFacts::default()
            },
            EntityFacts {
                countries: vec!["SY".to_owned()],
                ..EntityFacts::default()
            },
            // More two-letter ties than `CountryTies` holds, the agreeing one last; a tie
            // that is not a code.
            EntityFacts {
                nationalities: vec!["SY".to_owned(), "Russia".to_owned(), "IQ".to_owned()],
                countries: ["LB", "JO", "fr", "TR"].map(str::to_owned).to_vec(),
                ..EntityFacts::default()
            },
            EntityFacts {
                nationalities: vec!["Russia".to_owned()],
                ..EntityFacts::default()
            },
            // More dates than `DatesHeld` holds, the closest last; a text and a month.
            EntityFacts {
                birth_dates: vec![
                    DateSpec::Text {
                        text: "circa 1952".to_owned(),
                    },
                    DateSpec::Year { year: 1940 },
                    DateSpec::Month {
                        year: 1961,
                        month: 3,
                    },
                    day(1975, 1, 1),
                    DateSpec::Year { year: 1952 },
                ],
                ..EntityFacts::default()
            },
            EntityFacts {
                birth_dates: vec![
                    DateSpec::Text {
                        text: "1952".to_owned(),
                    },
                    DateSpec::Month {
                        year: 1962,
                        month: 7,
                    },
                ],
                ..EntityFacts::default()
            },
        ];
        let dates = [
            None,
            Some("1952"),
            Some("1953-01-01"),
            Some("1962"),
            Some("1990-05-05"),
        ];
        let countries = [None, Some("RU"), Some("FR"), Some("Iran")];
        for (listed, dob, country) in listed
            .iter()
            .flat_map(|l| dates.iter().map(move |d| (l, *d)))
            .flat_map(|(l, d)| countries.iter().map(move |c| (l, d, *c)))
        {
            let q = parse(dob, country).unwrap();
            let why = format!("{dob:?} {country:?} {listed:?}");
            let ties = country_ties(listed).map(String::as_str);
            assert_eq!(points(&q, listed, ties), weigh(&q, listed).1, "{why}");
            let held = Held::of(listed);
            assert_eq!(
                points_by(&q, &held, || listed),
                weigh(&q, listed).1,
                "{why}"
            );
        }
    }
}
