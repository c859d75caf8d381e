//! The index's entries as stored: flattened into one column of texts and one of numbers
//! (`Flat`), checked whole when read (every text on character boundaries, every entry's
//! numbers of a known shape and its texts as many as they call for), and each entry built
//! only when first asked for: a screening reports a handful, and the request's filters read
//! the [`EntityMeta`] worked out when checking.
//!
//! An entry's numbers: its list and kind (their place in `ALL`), which optional texts it has
//! ([`COUNTRY`], [`LISTING_ENDS`], [`LISTED_ON`]), how many nationalities, countries,
//! programmes and dates of birth, then four per date (its kind, year, month, day). Its texts:
//! id, primary name, the optional ones present, nationalities, countries, programmes, and
//! each date's own (two for a range, one for a text).

use std::sync::OnceLock;

use super::StoredError::{self, Inconsistent};
use crate::facts::{CountryTies, DatesHeld, Held, date_numbers};
use crate::index::{EntityMeta, IndexedEntity};
use crate::model::{DateSpec, EntityFacts, EntityKind, ListCode};

const COUNTRY: u32 = 1;
const LISTING_ENDS: u32 = 2;
const LISTED_ON: u32 = 4;
/// The numbers before an entry's dates.
const HEAD: usize = 7;

/// The entries of an index: built (each one there from the start) or read (each built from
/// its stored form when first asked for).
#[derive(Debug, Default)]
pub(crate) struct Entities {
    /// Boxed, so that the cells of entries not yet built take a word or two each.
    cells: Vec<OnceLock<Box<IndexedEntity>>>,
    meta: Vec<EntityMeta>,
    /// The stored form of a read index's entries (empty for a built one).
    flat: Flat,
}

/// Entries flattened into texts and numbers.
#[derive(Debug, Default)]
pub(crate) struct Flat {
    /// Every text, one after the other, and where each ends.
    pub texts: String,
    pub text_ends: Vec<u32>,
    pub numbers: Vec<u32>,
    /// Per entry, where its texts (in `text_ends`) and its numbers end.
    pub entity_texts: Vec<u32>,
    pub entity_numbers: Vec<u32>,
}

impl Entities {
    /// Adds a built entry.
    pub fn push(&mut self, entity: IndexedEntity) {
        self.meta.push(EntityMeta {
            kind: entity.kind,
            list: entity.list,
            listing_ends: entity.listing_ends.as_deref().map(Box::from),
            facts: Held::of(&entity.facts),
        });
        self.cells.push(OnceLock::from(Box::new(entity)));
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// What the request's filters read of each entry.
    pub fn meta(&self) -> Vec<EntityMeta> {
        self.meta.clone()
    }

    /// Every entry, in order.
    pub fn iter(&self) -> impl Iterator<Item = &IndexedEntity> + '_ {
        (0..self.len()).map(|i| &self[i])
    }

    /// The entries stored as `flat`, checked.
    pub fn read(flat: Flat) -> Result<Entities, StoredError> {
        let n = flat.entity_texts.len();
        let texts_hold = ends_hold(&flat.text_ends, flat.texts.len())
            && flat
                .text_ends
                .iter()
                .all(|&e| flat.texts.is_char_boundary(e as usize));
        if !texts_hold
            || flat.entity_numbers.len() != n
            || !ends_hold(&flat.entity_texts, flat.text_ends.len())
            || !ends_hold(&flat.entity_numbers, flat.numbers.len())
        {
            return Err(Inconsistent("the entries' offsets do not hold"));
        }
        let meta = (0..n)
            .map(|i| flat.meta(i))
            .collect::<Option<Vec<_>>>()
            .ok_or(Inconsistent("an entry's numbers and texts do not match"))?;
        Ok(Entities {
            cells: (0..n).map(|_| OnceLock::new()).collect(),
            meta,
            flat,
        })
    }

    /// Entry `i` built from its stored form (checked when read, so that it builds; were it
    /// not to, an entry of no name is better than a panic).
    fn build(&self, i: usize) -> Box<IndexedEntity> {
        let built = self.flat.entity(i).unwrap_or_else(|| IndexedEntity {
            entity_id: String::new(),
            list: self.meta[i].list,
            kind: self.meta[i].kind,
            primary_name: String::new(),
            country: None,
            listing_ends: self.meta[i].listing_ends.as_deref().map(String::from),
            facts: EntityFacts::default(),
        });
        Box::new(built)
    }
}

impl std::ops::Index<usize> for Entities {
    type Output = IndexedEntity;

    fn index(&self, i: usize) -> &IndexedEntity {
        self.cells[i].get_or_init(|| self.build(i))
    }
}

/// Whether `ends` run from 0 up to `len` at most, without going back.
fn ends_hold(ends: &[u32], len: usize) -> bool {
    ends.is_sorted() && ends.last().is_none_or(|&e| e as usize <= len)
}

/// What an entry's numbers say: its list and kind, which optional texts it has, and how
/// many texts it has in all.
struct Shape {
    list: ListCode,
    kind: EntityKind,
    flags: u32,
    texts: usize,
}

/// The shape of an entry's `numbers`, if they are of one.
fn shape(numbers: &[u32]) -> Option<Shape> {
    let (head, dates) = numbers.split_first_chunk::<HEAD>()?;
    let [list, kind, flags, nationalities, countries, programs, count] = *head;
    let list = *ListCode::ALL.get(list as usize)?;
    let kind = *EntityKind::ALL.get(kind as usize)?;
    if flags & !(COUNTRY | LISTING_ENDS | LISTED_ON) != 0 {
        return None;
    }
    if dates.len() != (count as usize).checked_mul(4)? {
        return None;
    }
    let mut texts = 2 + flags.count_ones() as usize;
    texts += nationalities as usize + countries as usize + programs as usize;
    for date in dates.chunks_exact(4) {
        let small = date[2] <= u8::MAX.into() && date[3] <= u8::MAX.into();
        texts += match (date[0], small) {
            (0..=2, true) => 0,
            (3, _) => 2,
            (4, _) => 1,
            _ => return None,
        };
    }
    Some(Shape {
        list,
        kind,
        flags,
        texts,
    })
}

impl Flat {
    /// Entries flattened.
    pub fn of<'a>(entities: impl Iterator<Item = &'a IndexedEntity>) -> Flat {
        let mut flat = Flat::default();
        for entity in entities {
            flat.push(entity);
        }
        flat
    }

    fn push(&mut self, e: &IndexedEntity) {
        let f = &e.facts;
        let place = |found: Option<usize>| found.unwrap_or_default() as u32;
        let flags = [
            (e.country.is_some(), COUNTRY),
            (e.listing_ends.is_some(), LISTING_ENDS),
            (f.listed_on.is_some(), LISTED_ON),
        ];
        self.numbers.extend([
            place(ListCode::ALL.iter().position(|&l| l == e.list)),
            place(EntityKind::ALL.iter().position(|&k| k == e.kind)),
            flags.iter().filter(|f| f.0).map(|f| f.1).sum(),
            f.nationalities.len() as u32,
            f.countries.len() as u32,
            f.programs.len() as u32,
            f.birth_dates.len() as u32,
        ]);
        self.text(&e.entity_id);
        self.text(&e.primary_name);
        let optional = [&e.country, &e.listing_ends, &f.listed_on];
        optional.into_iter().flatten().for_each(|t| self.text(t));
        let lists = [&f.nationalities, &f.countries, &f.programs];
        lists.into_iter().flatten().for_each(|t| self.text(t));
        for date in &f.birth_dates {
            self.date(date);
        }
        self.entity_texts.push(self.text_ends.len() as u32);
        self.entity_numbers.push(self.numbers.len() as u32);
    }

    fn date(&mut self, date: &DateSpec) {
        match date {
            DateSpec::Range { from, to } => {
                self.text(from);
                self.text(to);
            }
            DateSpec::Text { text } => self.text(text),
            DateSpec::Day { .. } | DateSpec::Month { .. } | DateSpec::Year { .. } => {}
        }
        self.numbers.extend(date_numbers(date));
    }

    fn text(&mut self, text: &str) {
        self.texts.push_str(text);
        self.text_ends.push(self.texts.len() as u32);
    }

    /// Text `t`.
    fn text_at(&self, t: usize) -> Option<&str> {
        let start = t
            .checked_sub(1)
            .map_or(Some(0), |b| self.text_ends.get(b).copied());
        let end = *self.text_ends.get(t)?;
        self.texts.get(start? as usize..end as usize)
    }

    /// Entry `i`'s numbers and the index of its first text.
    fn entry(&self, i: usize) -> Option<(&[u32], usize)> {
        let before = |ends: &[u32]| i.checked_sub(1).map_or(Some(0), |b| ends.get(b).copied());
        let numbers = before(&self.entity_numbers)? as usize..*self.entity_numbers.get(i)? as usize;
        Some((
            self.numbers.get(numbers)?,
            before(&self.entity_texts)? as usize,
        ))
    }

    /// What the filters read of entry `i`, once its numbers and texts are checked to agree.
    fn meta(&self, i: usize) -> Option<EntityMeta> {
        let (numbers, first) = self.entry(i)?;
        let shape = shape(numbers)?;
        let end = *self.entity_texts.get(i)? as usize;
        if end.checked_sub(first)? != shape.texts {
            return None;
        }
        let at = first + 2 + usize::from(shape.flags & COUNTRY != 0);
        let listing_ends = if shape.flags & LISTING_ENDS != 0 {
            Some(Box::from(self.text_at(at)?))
        } else {
            None
        };
        // Its nationalities, then its countries ([`country_ties`]), after its optional texts.
        let ties = first + 2 + shape.flags.count_ones() as usize;
        let count = numbers[3] as usize + numbers[4] as usize;
        let mut read = true;
        let ties = CountryTies::of((ties..ties + count).map_while(|t| {
            let text = self.text_at(t);
            read &= text.is_some();
            text
        }));
        let mut dates = DatesHeld::default();
        numbers[HEAD..].chunks_exact(4).for_each(|d| dates.push(d));
        read.then_some(EntityMeta {
            kind: shape.kind,
            list: shape.list,
            listing_ends,
            facts: Held { ties, dates },
        })
    }

    /// Entry `i`, built.
    fn entity(&self, i: usize) -> Option<IndexedEntity> {
        let (numbers, first) = self.entry(i)?;
        let shape = shape(numbers)?;
        let mut texts = Texts {
            flat: self,
            next: first,
        };
        let entity_id = texts.next()?;
        let primary_name = texts.next()?;
        let country = texts.optional(shape.flags & COUNTRY != 0)?;
        let listing_ends = texts.optional(shape.flags & LISTING_ENDS != 0)?;
        let listed_on = texts.optional(shape.flags & LISTED_ON != 0)?;
        let [nationalities, countries, programs] = [3, 4, 5].map(|at| numbers[at] as usize);
        let nationalities = texts.list(nationalities)?;
        let countries = texts.list(countries)?;
        let programs = texts.list(programs)?;
        let dates = numbers[HEAD..].chunks_exact(4);
        let birth_dates = dates.map(|d| texts.date(d)).collect::<Option<_>>()?;
        Some(IndexedEntity {
            entity_id,
            list: shape.list,
            kind: shape.kind,
            primary_name,
            country,
            listing_ends,
            facts: EntityFacts {
                birth_dates,
                nationalities,
                countries,
                programs,
                listed_on,
            },
        })
    }
}

/// An entry's texts, read in order.
struct Texts<'f> {
    flat: &'f Flat,
    next: usize,
}

impl Texts<'_> {
    fn next(&mut self) -> Option<String> {
        let text = self.flat.text_at(self.next)?;
        self.next += 1;
        Some(text.to_owned())
    }

    /// The next text if `present` (`Some(None)` when not).
    fn optional(&mut self, present: bool) -> Option<Option<String>> {
        if present {
            self.next().map(Some)
        } else {
            Some(None)
        }
    }

    fn list(&mut self, n: usize) -> Option<Vec<String>> {
        (0..n).map(|_| self.next()).collect()
    }

    /// A date of its four numbers (and its texts).
    fn date(&mut self, numbers: &[u32]) -> Option<DateSpec> {
        let (year, month, day) = (numbers[1] as i32, numbers[2] as u8, numbers[3] as u8);
        Some(match numbers[0] {
            0 => DateSpec::Day { year, month, day },
            1 => DateSpec::Month { year, month },
            2 => DateSpec::Year { year },
            3 => DateSpec::Range {
                from: self.next()?,
                to: self.next()?,
            },
            4 => DateSpec::Text { text: self.next()? },
            _ => return None,
        })
    }
}
