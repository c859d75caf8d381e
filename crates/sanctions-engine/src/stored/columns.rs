//! The entries, names and vocabulary stored column by column: each text field as one string
//! and where each text ends, each number field as one string of little-endian integers, and
//! each entry as its own postcard bytes. Reading checks every offset against its column (a
//! text must end on a character boundary, a name's tokens must lie in the token column) and
//! refuses what does not hold.

use std::borrow::Cow;

use compact_str::CompactString;
use serde::{Deserialize, Serialize};

use super::entities::Flat;
use super::{Entities, StoredError, StoredError::Inconsistent};
use crate::index::{Index, IndexedName, NameToken, NameTokens, VocabToken};
use crate::normalize::TokenKind;
use crate::similarity::Head;

pub(crate) use crate::table::Bytes;

/// Texts one after the other, and where each ends (little-endian `u32`s).
#[derive(Serialize, Deserialize)]
pub(crate) struct Texts<'a> {
    #[serde(borrow)]
    all: Cow<'a, str>,
    #[serde(borrow)]
    ends: Bytes<'a>,
}

/// The columns of the index's entries, names and vocabulary.
#[derive(Serialize, Deserialize)]
pub(crate) struct Columns<'a> {
    /// The entries' texts and numbers, and where each entry's end ([`Flat`]).
    #[serde(borrow)]
    entity_texts: Texts<'a>,
    #[serde(borrow)]
    entity_numbers: Bytes<'a>,
    #[serde(borrow)]
    entity_text_ends: Bytes<'a>,
    #[serde(borrow)]
    entity_number_ends: Bytes<'a>,
    #[serde(borrow)]
    vocab_text: Texts<'a>,
    #[serde(borrow)]
    vocab_key: Texts<'a>,
    #[serde(borrow)]
    vocab_folded: Texts<'a>,
    #[serde(borrow)]
    vocab_df: Bytes<'a>,
    /// The bits of each `f32`.
    #[serde(borrow)]
    vocab_idf: Bytes<'a>,
    /// One byte per token: [`PAIR_ONLY`], [`ABJAD`].
    #[serde(borrow)]
    vocab_flags: Bytes<'a>,
    #[serde(borrow)]
    name_entity: Bytes<'a>,
    #[serde(borrow)]
    name_text: Texts<'a>,
    #[serde(borrow)]
    name_compact: Texts<'a>,
    /// Every name's token ids and kinds, one name after the other, and where each name's end.
    #[serde(borrow)]
    name_token_ids: Bytes<'a>,
    #[serde(borrow)]
    name_token_kinds: Bytes<'a>,
    #[serde(borrow)]
    name_token_ends: Bytes<'a>,
    #[serde(borrow)]
    name_weight: Bytes<'a>,
    #[serde(borrow)]
    name_compounds: Bytes<'a>,
    #[serde(borrow)]
    name_shape: Bytes<'a>,
    /// One byte per name: [`WEAK`], [`ABJAD_JOINS`].
    #[serde(borrow)]
    name_flags: Bytes<'a>,
}

const PAIR_ONLY: u8 = 1;
const ABJAD: u8 = 2;
const WEAK: u8 = 1;
const ABJAD_JOINS: u8 = 2;

impl Columns<'_> {
    /// The columns of `index`.
    pub fn of(index: &Index) -> Result<Columns<'static>, StoredError> {
        let flat = Flat::of(index.entities.iter());
        let vocab = &index.vocab;
        let names = &index.names;
        let tokens = || names.iter().flat_map(|n| n.tokens.iter());
        let mut token_ends = Vec::with_capacity(names.len());
        let mut count = 0usize;
        for name in names {
            count += name.tokens.len();
            token_ends.push(offset(count)?);
        }
        let vocab_flags = vocab
            .iter()
            .map(|t| flag(t.pair_only, PAIR_ONLY) | flag(t.abjad, ABJAD));
        let name_flags = names
            .iter()
            .map(|n| flag(n.weak, WEAK) | flag(n.abjad_joins, ABJAD_JOINS));
        Ok(Columns {
            entity_texts: Texts {
                all: Cow::Owned(flat.texts),
                ends: owned(le_u32(flat.text_ends)),
            },
            entity_numbers: owned(le_u32(flat.numbers)),
            entity_text_ends: owned(le_u32(flat.entity_texts)),
            entity_number_ends: owned(le_u32(flat.entity_numbers)),
            vocab_text: texts(vocab.iter().map(|t| t.text.as_str()))?,
            vocab_key: texts(vocab.iter().map(|t| t.key.as_str()))?,
            vocab_folded: texts(vocab.iter().map(|t| t.folded.as_str()))?,
            vocab_df: owned(le_u32(vocab.iter().map(|t| t.df))),
            vocab_idf: owned(le_u32(vocab.iter().map(|t| t.idf.to_bits()))),
            vocab_flags: owned(vocab_flags.collect()),
            name_entity: owned(le_u32(names.iter().map(|n| n.entity))),
            name_text: texts(names.iter().map(|n| n.text.as_str()))?,
            name_compact: texts(names.iter().map(|n| n.compact.as_str()))?,
            name_token_ids: owned(le_u32(tokens().map(|t| t.id))),
            name_token_kinds: owned(tokens().map(|t| t.kind as u8).collect()),
            name_token_ends: owned(le_u32(token_ends)),
            name_weight: owned(le_u32(names.iter().map(|n| n.weight.to_bits()))),
            name_compounds: owned(le_u64(names.iter().map(|n| n.compounds))),
            name_shape: owned(le_u32(names.iter().map(|n| n.shape))),
            name_flags: owned(name_flags.collect()),
        })
    }
}

impl Columns<'_> {
    /// The entries, each checked to read as one.
    pub fn entities(&self) -> Result<Entities, StoredError> {
        let whole = |b: &Bytes| u32s(&b.0).ok_or(Inconsistent("entry numbers not whole"));
        Entities::read(Flat {
            texts: self.entity_texts.all.to_string(),
            text_ends: whole(&self.entity_texts.ends)?,
            numbers: whole(&self.entity_numbers)?,
            entity_texts: whole(&self.entity_text_ends)?,
            entity_numbers: whole(&self.entity_number_ends)?,
        })
    }

    /// The vocabulary, with its texts one after the other and where each ends (for
    /// [`crate::table::TokenIds`]).
    pub fn vocab(&self) -> Result<(Vec<VocabToken>, String, Vec<u32>), StoredError> {
        let n = self.vocab_flags.0.len();
        let mut text = TextColumn::new(&self.vocab_text, n)?;
        let mut key = TextColumn::new(&self.vocab_key, n)?;
        let mut folded = TextColumn::new(&self.vocab_folded, n)?;
        let df = column_u32(&self.vocab_df, n)?;
        let idf = column_u32(&self.vocab_idf, n)?;
        let mut vocab = Vec::with_capacity(n);
        for (id, &flags) in self.vocab_flags.0.iter().enumerate() {
            if flags & !(PAIR_ONLY | ABJAD) != 0 {
                return Err(Inconsistent("a token's flags are not known"));
            }
            vocab.push(VocabToken {
                text: text.next_text()?,
                key: key.next_text()?,
                folded: folded.next_text()?,
                df: df[id],
                idf: f32::from_bits(idf[id]),
                pair_only: flags & PAIR_ONLY != 0,
                abjad: flags & ABJAD != 0,
            });
        }
        Ok((vocab, text.all.to_owned(), text.ends))
    }

    /// The [`Head`] of each word of the vocabulary, read from its text column alone.
    pub fn vocab_heads(&self) -> Result<Vec<Head>, StoredError> {
        let n = self.vocab_flags.0.len();
        let mut text = TextColumn::new(&self.vocab_text, n)?;
        (0..n).map(|_| Ok(Head::of(text.next_str()?))).collect()
    }

    /// The names, their tokens of the words whose heads are `heads`.
    pub fn names(&self, heads: &[Head]) -> Result<Vec<IndexedName>, StoredError> {
        let n = self.name_flags.0.len();
        let mut text = TextColumn::new(&self.name_text, n)?;
        let mut compact = TextColumn::new(&self.name_compact, n)?;
        let entity = column_u32(&self.name_entity, n)?;
        let token_ends = column_u32(&self.name_token_ends, n)?;
        let weight = column_u32(&self.name_weight, n)?;
        let shape = column_u32(&self.name_shape, n)?;
        let compounds = u64s(&self.name_compounds.0).filter(|c| c.len() == n);
        let compounds = compounds.ok_or(Inconsistent("a name column's length differs"))?;
        let ids = u32s(&self.name_token_ids.0).ok_or(Inconsistent("token ids not whole"))?;
        let kinds = &self.name_token_kinds.0;
        let mut names = Vec::with_capacity(n);
        let mut start = 0usize;
        for (id, &flags) in self.name_flags.0.iter().enumerate() {
            if flags & !(WEAK | ABJAD_JOINS) != 0 {
                return Err(Inconsistent("a name's flags are not known"));
            }
            let end = token_ends[id] as usize;
            let tokens = name_tokens(ids.get(start..end), kinds.get(start..end), heads)?;
            start = end;
            names.push(IndexedName {
                entity: entity[id],
                text: text.next_text()?,
                weak: flags & WEAK != 0,
                tokens,
                compact: compact.next_text()?,
                weight: f32::from_bits(weight[id]),
                abjad_joins: flags & ABJAD_JOINS != 0,
                compounds: compounds[id],
                shape: shape[id],
            });
        }
        Ok(names)
    }
}

/// A name's tokens of its stored ids and kinds, which must be there and of one length, with
/// the `heads` of their words.
fn name_tokens(
    ids: Option<&[u32]>,
    kinds: Option<&[u8]>,
    heads: &[Head],
) -> Result<NameTokens, StoredError> {
    let (Some(ids), Some(kinds)) = (ids, kinds) else {
        return Err(Inconsistent("a name's tokens outside the token columns"));
    };
    let mut tokens = NameTokens::with_capacity(ids.len());
    for (&id, &kind) in ids.iter().zip(kinds) {
        let head = heads.get(id as usize);
        tokens.push(NameToken {
            id,
            kind: kind_of(kind)?,
            head: *head.ok_or(Inconsistent("a name's token outside the vocabulary"))?,
        });
    }
    Ok(tokens)
}

/// The kind of token stored as `byte` (`kind as u8`).
fn kind_of(byte: u8) -> Result<TokenKind, StoredError> {
    const KINDS: [TokenKind; 5] = [
        TokenKind::Word,
        TokenKind::Initial,
        TokenKind::Legal,
        TokenKind::Particle,
        TokenKind::Number,
    ];
    let kind = KINDS.get(byte as usize).copied();
    kind.filter(|k| *k as u8 == byte)
        .ok_or(Inconsistent("a token of no known kind"))
}

/// A text column being read, text after text: its texts (validated as UTF-8 once, as one
/// string) and where each ends.
struct TextColumn<'c> {
    all: &'c str,
    ends: Vec<u32>,
    /// The next text's index, and where it begins.
    next: usize,
    start: usize,
}

impl<'c> TextColumn<'c> {
    /// The column of `n` texts.
    fn new(texts: &'c Texts<'_>, n: usize) -> Result<TextColumn<'c>, StoredError> {
        Ok(TextColumn {
            all: &texts.all,
            ends: column_u32(&texts.ends, n)?,
            next: 0,
            start: 0,
        })
    }

    /// The next text: it must lie in the column and begin and end on character boundaries.
    fn next_text(&mut self) -> Result<CompactString, StoredError> {
        self.next_str().map(CompactString::new)
    }

    /// [`TextColumn::next_text`], borrowed from the column.
    fn next_str(&mut self) -> Result<&'c str, StoredError> {
        let end = self.ends.get(self.next).map(|&e| e as usize);
        let text = end.and_then(|end| self.all.get(self.start..end));
        let text = text.ok_or(Inconsistent("a text's offsets outside its column"))?;
        self.next += 1;
        self.start += text.len();
        Ok(text)
    }
}

/// `n` little-endian `u32`s, exactly.
fn column_u32(bytes: &Bytes, n: usize) -> Result<Vec<u32>, StoredError> {
    u32s(&bytes.0)
        .filter(|v| v.len() == n)
        .ok_or(Inconsistent("a column's length differs from its table's"))
}

/// The `u32`s of little-endian `bytes`, if they are whole.
pub(crate) fn u32s(bytes: &[u8]) -> Option<Vec<u32>> {
    let chunks = bytes.chunks_exact(4);
    chunks.remainder().is_empty().then(|| {
        let each = |c: &[u8]| u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        chunks.map(each).collect()
    })
}

/// The `u64`s of little-endian `bytes`, if they are whole.
fn u64s(bytes: &[u8]) -> Option<Vec<u64>> {
    let chunks = bytes.chunks_exact(8);
    chunks.remainder().is_empty().then(|| {
        let each = |c: &[u8]| u64::from_le_bytes(c.try_into().unwrap_or_default());
        chunks.map(each).collect()
    })
}

pub(crate) fn le_u32(values: impl IntoIterator<Item = u32>) -> Vec<u8> {
    values.into_iter().flat_map(u32::to_le_bytes).collect()
}

fn le_u64(values: impl IntoIterator<Item = u64>) -> Vec<u8> {
    values.into_iter().flat_map(u64::to_le_bytes).collect()
}

fn owned(bytes: Vec<u8>) -> Bytes<'static> {
    Bytes(Cow::Owned(bytes))
}

fn flag(set: bool, bit: u8) -> u8 {
    if set { bit } else { 0 }
}

/// A length as a stored offset.
fn offset(len: usize) -> Result<u32, StoredError> {
    u32::try_from(len).map_err(|_| Inconsistent("a column longer than 4 GiB"))
}

/// `texts` one after the other, and where each ends.
fn texts<'t>(texts: impl Iterator<Item = &'t str>) -> Result<Texts<'static>, StoredError> {
    let mut all = String::new();
    let mut ends = Vec::new();
    for text in texts {
        all.push_str(text);
        ends.push(offset(all.len())?);
    }
    Ok(Texts {
        all: Cow::Owned(all),
        ends: owned(le_u32(ends)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AliasQuality, DateSpec, EntityKind, EntityNames, ListCode};

    fn index() -> Index {
        let entry = |id: &str, kind, names: &[&str]| EntityNames {
            entity_id: format!("ofac_sdn:{id}"),
            list: ListCode::OfacSdn,
            kind,
            primary_name: names[0].to_owned(),
            country: Some("RU".into()),
            names: names
                .iter()
                .map(|n| (n.to_string(), AliasQuality::Weak))
                .collect(),
            listing_ends: Some("2030-01-01".into()),
            facts: crate::model::EntityFacts {
                birth_dates: vec![
                    DateSpec::Year { year: 1952 },
                    DateSpec::Day {
                        year: 1952,
                        month: 10,
                        day: 7,
                    },
                    DateSpec::Text {
                        text: "circa 1952".into(),
                    },
                    DateSpec::Month {
                        year: 1953,
                        month: 1,
                    },
                ],
                nationalities: vec!["RU".into()],
                countries: ["UA", "Cyprus", "by", "KZ", "AM"]
                    .map(String::from)
                    .to_vec(),
                listed_on: Some("2022-02-24".into()),
                ..Default::default()
            },
        };
        Index::build(&[
            entry(
                "1",
                EntityKind::Individual,
                &["PUTIN, Vladimir", "Путин Владимир"],
            ),
            entry("2", EntityKind::Entity, &["ALFA-BANK JSC (АО Альфа-Банк)"]),
        ])
    }

    #[test]
    fn reads_back_what_it_wrote() {
        let index = index();
        let bytes = index.to_bytes().unwrap();
        let read = Index::from_bytes(&bytes).unwrap();
        assert_eq!(read.to_bytes().unwrap(), bytes, "written again the same");
        assert_eq!(
            format!("{:?}", read.entities[1]),
            format!("{:?}", index.entities[1])
        );
        assert_eq!(read.entity_meta.len(), 2);
        // The facts held (country ties, dates of birth) read from the stored form, as the
        // built entries give them.
        assert_eq!(
            format!("{:?}", read.entity_meta),
            format!("{:?}", index.entity_meta)
        );
        assert_eq!(
            format!("{:?}", read.entity_filter),
            format!("{:?}", index.entity_filter)
        );
        assert_eq!(
            format!("{:?}", read.name_meta),
            format!("{:?}", index.name_meta)
        );
        assert_eq!(read.names.len(), index.names.len());
        // Each name's tokens with their words' heads, worked out from the vocabulary read.
        for (a, b) in read.names.iter().zip(&index.names) {
            assert_eq!(format!("{a:?}"), format!("{b:?}"));
        }
        for (a, b) in read.vocab.iter().zip(&index.vocab) {
            assert_eq!(format!("{a:?}"), format!("{b:?}"));
        }
        assert_eq!(read.token_ids.get("putin"), index.token_ids.get("putin"));
    }

    /// The heads of `index`'s words, as [`Columns::names`] takes them.
    fn heads(index: &Index) -> Vec<Head> {
        index.vocab.iter().map(|t| Head::of(&t.text)).collect()
    }

    fn refused<T: std::fmt::Debug>(read: Result<T, StoredError>) {
        assert!(
            matches!(read, Err(StoredError::Inconsistent(_))),
            "{read:?}"
        );
    }

    #[test]
    fn a_text_offset_out_of_its_column_or_inside_a_character_is_refused() {
        let index = index();
        let mut columns = Columns::of(&index).unwrap();
        let len = columns.vocab_text.all.len() as u32;
        let mut ends = u32s(&columns.vocab_text.ends.0).unwrap();
        *ends.last_mut().unwrap() = len + 1;
        columns.vocab_text.ends = owned(le_u32(ends));
        refused(columns.vocab());
        refused(columns.vocab_heads());

        let mut columns = Columns::of(&index).unwrap();
        let text = columns.name_text.all.to_string();
        let inside = inside_a_character(&text);
        let mut ends = u32s(&columns.name_text.ends.0).unwrap();
        ends[0] = inside as u32;
        columns.name_text.ends = owned(le_u32(ends));
        refused(columns.names(&heads(&index)));
    }

    #[test]
    fn tokens_outside_their_column_or_of_no_kind_are_refused() {
        let index = index();
        let mut columns = Columns::of(&index).unwrap();
        let mut ends = u32s(&columns.name_token_ends.0).unwrap();
        *ends.last_mut().unwrap() += 1;
        columns.name_token_ends = owned(le_u32(ends));
        refused(columns.names(&heads(&index)));

        let mut columns = Columns::of(&index).unwrap();
        columns.name_token_kinds.0.to_mut()[0] = 9;
        refused(columns.names(&heads(&index)));

        let mut columns = Columns::of(&index).unwrap();
        columns.vocab_flags.0.to_mut()[0] = 0x80;
        refused(columns.vocab());

        let mut columns = Columns::of(&index).unwrap();
        columns.name_shape.0.to_mut().pop();
        refused(columns.names(&heads(&index)));

        let columns = Columns::of(&index).unwrap();
        refused(columns.names(&[]));
    }

    type Field = for<'a> fn(&'a mut Columns<'static>) -> &'a mut Bytes<'static>;

    /// The first offset of `text` inside a character (the test index has such texts).
    fn inside_a_character(text: &str) -> usize {
        (1..text.len())
            .find(|&i| !text.is_char_boundary(i))
            .unwrap()
    }

    #[test]
    fn an_entry_whose_numbers_and_texts_disagree_is_refused() {
        let index = index();
        let change = |column: Field, at: usize, to| {
            let mut columns = Columns::of(&index).unwrap();
            let mut numbers = u32s(&column(&mut columns).0).unwrap();
            numbers[at] = to;
            *column(&mut columns) = owned(le_u32(numbers));
            refused(columns.entities());
        };
        let numbers: Field = |c| &mut c.entity_numbers;
        change(numbers, 0, 8); // a list of no known code
        change(numbers, 1, 4); // a kind of no known kind
        change(numbers, 2, 8); // an optional text of no known kind
        change(numbers, 3, 2); // one nationality more than its texts
        change(numbers, 7, 5); // a date of no known kind
        change(|c| &mut c.entity_number_ends, 0, 6); // a number short
        change(|c| &mut c.entity_text_ends, 0, 1_000); // texts beyond the column

        let mut columns = Columns::of(&index).unwrap();
        let text = columns.entity_texts.all.to_string();
        let inside = inside_a_character(&text);
        let mut ends = u32s(&columns.entity_texts.ends.0).unwrap();
        let at = ends.iter().position(|&e| e as usize > inside).unwrap();
        ends[at] = inside as u32;
        columns.entity_texts.ends = owned(le_u32(ends));
        refused(columns.entities());
    }

    /// Any byte changed or any cut is refused or reads as some index, never a panic, and
    /// every entry of what reads can be built.
    #[test]
    fn damaged_bytes_never_panic() {
        let bytes = index().to_bytes().unwrap();
        for at in 0..bytes.len() {
            for damaged in [flip(&bytes, at), bytes[..at].to_vec()] {
                if let Ok(read) = Index::from_bytes(&damaged) {
                    for e in 0..read.entities.len() {
                        let _ = &read.entities[e].facts;
                    }
                }
            }
        }
    }

    fn flip(bytes: &[u8], at: usize) -> Vec<u8> {
        let mut out = bytes.to_vec();
        out[at] ^= 0x5a;
        out
    }
}
