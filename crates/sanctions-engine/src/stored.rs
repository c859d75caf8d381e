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
//! vector and an allocation per field per element. The entries are stored flattened into
//! texts and numbers, checked when read without building them, and built only when first
//! reported ([`Entities`]). The look-up tables and the postings are arrays of
//! little-endian integers (`table`). The whole is postcard's (no schema in the file): a
//! change of any stored type changes [`FORMAT`], which is part of the persisted index's
//! key, so that a file written by another build is rebuilt, never misread.

use std::borrow::Cow;

use super::Index;
use super::table::{HashTable, Postings, TokenIds};

mod columns;
mod entities;

pub(crate) use entities::Entities;

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
        let tables = self.look_up_tables();
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
        index.names = columns.names(&vocab)?;
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

    /// The look-up tables by key, skeleton, deletion and folded form, in the order they are
    /// stored ([`Index::from_bytes`] reads them back in this order).
    fn look_up_tables(&self) -> [&HashTable; 5] {
        [
            &self.by_key,
            &self.by_skeleton,
            &self.by_skeleton_abjad,
            &self.by_deletion,
            &self.by_folded,
        ]
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
        let mut tables = self
            .look_up_tables()
            .into_iter()
            .chain([self.token_ids.table()]);
        if !tables.all(|t| t.max_id().is_none_or(token_in)) {
            return inconsistent("a look-up table entry outside the vocabulary");
        }
        if self.by_text.len() != vocab || !self.by_text.iter().all(|&id| token_in(id)) {
            return inconsistent("the text order is not of the vocabulary");
        }
        Ok(())
    }
}
