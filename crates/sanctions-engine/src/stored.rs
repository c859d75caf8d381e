//! The index as bytes, for a persisted index (the service keeps it in the data folder, with
//! its key and checksum): [`Index::to_bytes`] and [`Index::from_bytes`], which refuses bytes
//! that do not read as an index or whose ids point outside it, so that no file can make a
//! screening index out of range.
//!
//! The index is stored column by column (`columns`): each text field of the vocabulary and
//! of the names as one string with where each text ends, each number field as one string of
//! little-endian integers, so that reading it validates UTF-8 once per column and allocates
//! almost nothing per element (the texts are [`compact_str::CompactString`]s, held inline
//! when short); a process starting cold spent most of its loading time in a string, a
//! vector and an allocation per field per element. The entries are stored each as its own
//! postcard bytes, checked when read without building them, and built only when first
//! reported ([`Entities`]). The look-up tables and the postings are arrays of
//! little-endian integers (`table`). The whole is postcard's (no schema in the file): a
//! change of any stored type changes [`FORMAT`], which is part of the persisted index's
//! key, so that a file written by another build is rebuilt, never misread.

use std::borrow::Cow;
use std::sync::OnceLock;

use super::Index;
use super::index::{EntityMeta, IndexedEntity};
use super::table::{HashTable, Postings, TokenIds};

mod columns;

/// The layout of the stored index. Raise it with any change to the types of `index.rs`,
/// `table.rs` or this file that are stored (or to how the index is built: a file is keyed by
/// this and the program's version, so an index built by older rules is rebuilt).
pub const FORMAT: u32 = 5;

/// Why bytes are not an index.
#[derive(Debug, thiserror::Error)]
pub enum StoredError {
    #[error("the index does not decode: {0}")]
    Decode(#[from] postcard::Error),
    #[error("the index is inconsistent: {0}")]
    Inconsistent(&'static str),
}

/// The index as stored: its columns, then its tables as `table` stores them.
type Stored<'a> = (
    columns::Columns<'a>,
    TokenIds,
    Postings,
    [HashTable; 5],
    columns::Bytes<'a>,
);

impl Index {
    /// The index as bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>, StoredError> {
        let columns = columns::Columns::of(self)?;
        let by_text = columns::le_u32(self.by_text.iter().copied());
        let tables = [
            &self.by_key,
            &self.by_skeleton,
            &self.by_skeleton_abjad,
            &self.by_deletion,
            &self.by_folded,
        ];
        let stored = (
            &columns,
            &self.token_ids,
            &self.postings,
            tables,
            columns::Bytes(Cow::Owned(by_text)),
        );
        Ok(postcard::to_allocvec(&stored)?)
    }

    /// The index stored in `bytes` by [`Index::to_bytes`], checked: every id it holds is in
    /// range.
    pub fn from_bytes(bytes: &[u8]) -> Result<Index, StoredError> {
        let (columns, token_ids, postings, tables, by_text): Stored = postcard::from_bytes(bytes)?;
        let (vocab, texts, ends) = columns.vocab()?;
        let mut index = Index::default();
        index.entities = columns.entities()?;
        index.names = columns.names()?;
        index.vocab = vocab;
        index.token_ids = TokenIds::with_arena(token_ids.into_table(), texts, ends);
        index.postings = postings;
        [
            index.by_key,
            index.by_skeleton,
            index.by_skeleton_abjad,
            index.by_deletion,
            index.by_folded,
        ] = tables;
        index.by_text = columns::u32s(&by_text.0).ok_or(StoredError::Inconsistent(
            "the text order is not whole integers",
        ))?;
        index.check()?;
        index.derive_arrays();
        Ok(index)
    }

    /// Every id of the index points inside it.
    fn check(&self) -> Result<(), StoredError> {
        let inconsistent = |what| Err(StoredError::Inconsistent(what));
        let (names, vocab) = (self.names.len(), self.vocab.len());
        if self.postings.len() != vocab {
            return inconsistent("postings and vocabulary differ in length");
        }
        let entities = self.entities.len();
        if self.names.iter().any(|n| n.entity as usize >= entities) {
            return inconsistent("a name of no entry");
        }
        // A name's shape is the first name of that shape: itself, or an earlier one that is
        // its own.
        let first_of_shape = |id: usize, shape: usize| {
            shape == id || (shape < id && self.names[shape].shape as usize == shape)
        };
        if !(self.names.iter().enumerate()).all(|(id, n)| first_of_shape(id, n.shape as usize)) {
            return inconsistent("a name's shape is not a first name of its shape");
        }
        let token_in = |id: u32| (id as usize) < vocab;
        if !self
            .names
            .iter()
            .all(|n| n.tokens.iter().all(|t| token_in(t.id)))
        {
            return inconsistent("a name token outside the vocabulary");
        }
        if !self
            .postings
            .all_names()
            .iter()
            .all(|&n| (n as usize) < names)
        {
            return inconsistent("a posting outside the names");
        }
        let tables = [
            &self.by_key,
            &self.by_skeleton,
            &self.by_skeleton_abjad,
            &self.by_deletion,
            &self.by_folded,
            self.token_ids.table(),
        ];
        if !tables.iter().all(|t| t.max_id().is_none_or(token_in)) {
            return inconsistent("a look-up table entry outside the vocabulary");
        }
        if self.by_text.len() != vocab || !self.by_text.iter().all(|&id| token_in(id)) {
            return inconsistent("the text order is not of the vocabulary");
        }
        Ok(())
    }
}

/// The index's entries. Those of an index read from a file are kept as their stored bytes
/// (checked to decode when read) and each built when first asked for: a screening reports a
/// handful, and the request's filters read the [`EntityMeta`] worked out when checking.
#[derive(Debug, Default)]
pub(crate) struct Entities {
    cells: Vec<OnceLock<IndexedEntity>>,
    meta: Vec<EntityMeta>,
    /// Each entry's postcard bytes, one after the other (empty for a built index).
    bytes: Vec<u8>,
    /// `ends[i]` is where entry `i`'s bytes end in `bytes`.
    ends: Vec<u32>,
}

impl Entities {
    /// Adds a built entry.
    pub fn push(&mut self, entity: IndexedEntity) {
        self.meta.push(EntityMeta {
            kind: entity.kind,
            list: entity.list,
            listing_ends: entity.listing_ends.as_deref().map(Box::from),
        });
        self.cells.push(OnceLock::from(entity));
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

    /// The entries stored in `bytes`, each ending where `ends` says: each one's bytes must
    /// read as an entry, wholly.
    fn read(bytes: &[u8], ends: Vec<u32>) -> Result<Entities, StoredError> {
        let mut meta = Vec::with_capacity(ends.len());
        let mut start = 0usize;
        for &end in &ends {
            let one = bytes
                .get(start..end as usize)
                .ok_or(StoredError::Inconsistent(
                    "an entry's bytes outside the entries",
                ))?;
            meta.push(columns::check_entity(one)?);
            start = end as usize;
        }
        if start != bytes.len() {
            return Err(StoredError::Inconsistent("bytes after the last entry"));
        }
        Ok(Entities {
            cells: (0..ends.len()).map(|_| OnceLock::new()).collect(),
            meta,
            bytes: bytes.to_vec(),
            ends,
        })
    }

    /// Entry `i` built from its stored bytes (checked when read, so that they decode; were
    /// they not to, an entry of no name is better than a panic).
    fn decode(&self, i: usize) -> IndexedEntity {
        let start = i.checked_sub(1).map_or(0, |b| self.ends[b] as usize);
        let one = self.bytes.get(start..self.ends[i] as usize);
        let decoded = one.and_then(|one| postcard::from_bytes(one).ok());
        decoded.unwrap_or_else(|| IndexedEntity {
            entity_id: String::new(),
            list: self.meta[i].list,
            kind: self.meta[i].kind,
            primary_name: String::new(),
            country: None,
            listing_ends: self.meta[i].listing_ends.as_deref().map(String::from),
            facts: Default::default(),
        })
    }
}

impl std::ops::Index<usize> for Entities {
    type Output = IndexedEntity;

    fn index(&self, i: usize) -> &IndexedEntity {
        self.cells[i].get_or_init(|| self.decode(i))
    }
}

/// The facts of an entry as stored: the model's dates are tagged by a field
/// (`"precision"`), which a format without a schema cannot read back, so they are stored
/// as a plain enum.
pub(crate) mod facts {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use crate::model::{DateSpec, EntityFacts};

    #[derive(Serialize, Deserialize)]
    enum Date {
        Day(i32, u8, u8),
        Month(i32, u8),
        Year(i32),
        Range(String, String),
        Text(String),
    }

    #[derive(Serialize, Deserialize)]
    struct Facts {
        birth_dates: Vec<Date>,
        nationalities: Vec<String>,
        countries: Vec<String>,
        programs: Vec<String>,
        listed_on: Option<String>,
    }

    pub fn serialize<S: Serializer>(facts: &EntityFacts, s: S) -> Result<S::Ok, S::Error> {
        let dates = facts.birth_dates.iter().map(|d| match d.clone() {
            DateSpec::Day { year, month, day } => Date::Day(year, month, day),
            DateSpec::Month { year, month } => Date::Month(year, month),
            DateSpec::Year { year } => Date::Year(year),
            DateSpec::Range { from, to } => Date::Range(from, to),
            DateSpec::Text { text } => Date::Text(text),
        });
        Facts {
            birth_dates: dates.collect(),
            nationalities: facts.nationalities.clone(),
            countries: facts.countries.clone(),
            programs: facts.programs.clone(),
            listed_on: facts.listed_on.clone(),
        }
        .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<EntityFacts, D::Error> {
        let facts = Facts::deserialize(d)?;
        let dates = facts.birth_dates.into_iter().map(|d| match d {
            Date::Day(year, month, day) => DateSpec::Day { year, month, day },
            Date::Month(year, month) => DateSpec::Month { year, month },
            Date::Year(year) => DateSpec::Year { year },
            Date::Range(from, to) => DateSpec::Range { from, to },
            Date::Text(text) => DateSpec::Text { text },
        });
        Ok(EntityFacts {
            birth_dates: dates.collect(),
            nationalities: facts.nationalities,
            countries: facts.countries,
            programs: facts.programs,
            listed_on: facts.listed_on,
        })
    }
}
