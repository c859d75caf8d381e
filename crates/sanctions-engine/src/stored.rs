//! The index as bytes, for a persisted index (the service keeps it in the data folder, with
//! its key and checksum): [`Index::to_bytes`] and [`Index::from_bytes`], which refuses bytes
//! that do not read as an index or whose ids point outside it, so that no file can make a
//! screening index out of range.
//!
//! The encoding is postcard's (serde, compact, no schema in the file): a change of any stored
//! type changes [`FORMAT`], which is part of the persisted index's key, so that a file written
//! by another build is rebuilt, never misread.

use super::Index;

/// The layout of the stored index. Raise it with any change to the types of `index.rs`,
/// `table.rs` or this file that are stored (or to how the index is built: a file is keyed by
/// this and the program's version, so an index built by older rules is rebuilt).
pub const FORMAT: u32 = 4;

/// Why bytes are not an index.
#[derive(Debug, thiserror::Error)]
pub enum StoredError {
    #[error("the index does not decode: {0}")]
    Decode(#[from] postcard::Error),
    #[error("the index is inconsistent: {0}")]
    Inconsistent(&'static str),
}

impl Index {
    /// The index as bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>, StoredError> {
        Ok(postcard::to_allocvec(self)?)
    }

    /// The index stored in `bytes` by [`Index::to_bytes`], checked: every id it holds is in
    /// range.
    pub fn from_bytes(bytes: &[u8]) -> Result<Index, StoredError> {
        let mut index: Index = sized::reading(bytes.len(), || postcard::from_bytes(bytes))?;
        index.check()?;
        index.derive_arrays();
        let texts = index.vocab.iter().map(|t| t.text.as_str());
        index.token_ids.fill_texts(texts);
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
        let shape_of = |id: usize, n: &super::index::IndexedName| {
            let shape = n.shape as usize;
            shape == id || (shape < id && self.names[shape].shape as usize == shape)
        };
        if !self.names.iter().enumerate().all(|(id, n)| shape_of(id, n)) {
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

/// The index's large arrays (entries, names, vocabulary) read into one allocation each, of
/// the length the bytes give: serde's own reading allocates at most 1 MiB up front and
/// doubles from there, which copies each array several times into fresh memory (most of a
/// cold start's time went to the kernel zeroing pages). The length read is trusted only up
/// to the size of the bytes being read: no array is allocated larger than the file.
pub(crate) mod sized {
    use std::cell::Cell;
    use std::marker::PhantomData;

    use serde::de::{Deserialize, Deserializer, SeqAccess, Visitor};

    thread_local! {
        /// The size of the bytes being read on this thread (0: none, serde's own bound).
        static READING: Cell<usize> = const { Cell::new(0) };
    }

    /// Runs `read` with `bytes` as the bound of the arrays it reads.
    pub fn reading<T>(bytes: usize, read: impl FnOnce() -> T) -> T {
        let before = READING.replace(bytes);
        let read = read();
        READING.set(before);
        read
    }

    pub fn vec<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
    where
        D: Deserializer<'de>,
        T: Deserialize<'de>,
    {
        struct Elements<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for Elements<T> {
            type Value = Vec<T>;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a sequence")
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
                let serde_bound = (1 << 20) / size_of::<T>().max(1);
                let bound = (READING.get() / size_of::<T>().max(1)).max(serde_bound);
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(bound));
                while let Some(element) = seq.next_element()? {
                    out.push(element);
                }
                Ok(out)
            }
        }
        d.deserialize_seq(Elements(PhantomData))
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
