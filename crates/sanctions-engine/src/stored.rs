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
//! little-endian integers (`table`); the look-up tables (the deletion table alone is some
//! two million pairs) are read in place, their integers left in the file's bytes
//! ([`Index::from_file`]), where copying them out cost a cold start its largest share of
//! fresh memory. The whole is postcard's (no schema in the file): a
//! change of any stored type changes [`FORMAT`], which is part of the persisted index's
//! key, so that a file written by another build is rebuilt, never misread.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

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

/// The index as stored: its columns, then its tables as `table` stores them (the look-up
/// tables' hashes and ids as two strings of bytes each, read in place: [`HashTable::stored`]).
type Stored<'a> = (
    columns::Columns<'a>,
    TokenIds,
    Postings,
    [(columns::Bytes<'a>, columns::Bytes<'a>); 5],
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
    /// range. Its look-up tables keep a copy of `bytes` ([`Index::from_file`] reads them in
    /// the caller's own).
    pub fn from_bytes(bytes: &[u8]) -> Result<Index, StoredError> {
        Index::from_file(Arc::new(bytes.to_vec()), 0..bytes.len())
    }

    /// [`Index::from_bytes`] of the bytes at `body` of `file` (an index file's, read whole),
    /// whose look-up tables stay where they are in `file` rather than being copied out.
    pub fn from_file(file: Arc<Vec<u8>>, body: Range<usize>) -> Result<Index, StoredError> {
        let bytes = file.get(body).ok_or(StoredError::Inconsistent(
            "the index's bytes lie outside its file",
        ))?;
        let (columns, token_ids, postings, tables, by_text): Stored = postcard::from_bytes(bytes)?;
        // The vocabulary and the entries on a thread of their own, beside the names and the
        // look-up tables: a cold start waits for the slower half, not for both.
        let words = || Ok::<_, StoredError>((columns.vocab()?, columns.entities()?));
        let (words, index) = crate::threads::beside("index-words", words, || {
            names_and_tables(&file, &columns, tables, &by_text)
        });
        let ((vocab, texts, ends), entities) = words?;
        let mut index = index?;
        index.entities = entities;
        index.vocab = vocab;
        index.token_ids = TokenIds::with_arena(token_ids.into_table(), texts, ends);
        index.postings = postings;
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

/// The look-up table of `hashes` and `ids`, read in place in `file`.
fn table_in(
    file: &Arc<Vec<u8>>,
    hashes: &columns::Bytes,
    ids: &columns::Bytes,
) -> Result<HashTable, StoredError> {
    place(hashes, file)
        .zip(place(ids, file))
        .and_then(|(hashes, ids)| HashTable::stored(file, hashes, ids))
        .ok_or(StoredError::Inconsistent(
            "a look-up table's hashes and ids are not as many whole integers",
        ))
}

/// An index of the names and look-up tables of `columns`, `tables` and `by_text` alone (the
/// rest of [`Index::from_file`]'s work).
fn names_and_tables(
    file: &Arc<Vec<u8>>,
    columns: &columns::Columns,
    tables: [(columns::Bytes, columns::Bytes); 5],
    by_text: &columns::Bytes,
) -> Result<Index, StoredError> {
    let mut index = Index::default();
    index.names = columns.names(&columns.vocab_heads()?)?;
    let [
        by_key,
        by_skeleton,
        by_skeleton_abjad,
        by_deletion,
        by_folded,
    ] = tables.map(|(hashes, ids)| table_in(file, &hashes, &ids));
    index.by_key = by_key?;
    index.by_skeleton = by_skeleton?;
    index.by_skeleton_abjad = by_skeleton_abjad?;
    index.by_deletion = by_deletion?;
    index.by_folded = by_folded?;
    index.by_text = columns::u32s(&by_text.0).ok_or(StoredError::Inconsistent(
        "the text order is not whole integers",
    ))?;
    Ok(index)
}

/// Where the string of bytes `part`, borrowed from `file` as it was read, lies in it.
fn place(part: &columns::Bytes, file: &[u8]) -> Option<Range<usize>> {
    let Cow::Borrowed(part) = &part.0 else {
        return None;
    };
    let start = (part.as_ptr() as usize).checked_sub(file.as_ptr() as usize)?;
    let end = start.checked_add(part.len())?;
    (end <= file.len()).then_some(start..end)
}
