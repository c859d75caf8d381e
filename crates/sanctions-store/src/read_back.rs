//! Every entry's names in one buffer ([`StoredNames`]): what the grouping of matches compares,
//! kept by the service with its screening index (and in the index file), so that an answer
//! needs no read of an entry's record; and the verification of every list's names against
//! their import digests with the newest list update ([`Store::read_back_names`]), remembered
//! per state of the database's files ([`read_back_names_at`]).

use std::collections::BTreeMap;
use std::path::Path;

use crate::checked;
use crate::integrity::{Digests, NameDamage, NameDigest, compare, read_digests};
use crate::model::ListCode;
use crate::{Store, StoreError};

/// Every entry's names in the order read (entry id, then position: the primary name first),
/// in one buffer.
#[derive(Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StoredNames {
    /// Each entry: its id, its list, and the end of its names in `ends`.
    entries: Vec<Entry>,
    /// The end of each name in `text`.
    ends: Vec<usize>,
    text: String,
    /// The entries' positions in `entries` by id, when they were not read in id order
    /// (empty: `entries` is in id order).
    by_id: Vec<usize>,
}

#[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct Entry {
    entity_id: Box<str>,
    list: ListCode,
    names_end: usize,
}

impl StoredNames {
    /// Adds the next name read: of the last entry when it has the same id, else of a new one.
    pub fn push(&mut self, list: ListCode, entity_id: &str, name: &str) {
        self.text.push_str(name);
        self.ends.push(self.text.len());
        match self.entries.last_mut() {
            Some(last) if *last.entity_id == *entity_id && last.list == list => {
                last.names_end = self.ends.len();
            }
            _ => self.entries.push(Entry {
                entity_id: entity_id.into(),
                list,
                names_end: self.ends.len(),
            }),
        }
    }

    /// Makes look-ups by id possible whatever order the names were read in (a database
    /// collation other than byte order).
    pub fn finish(mut self) -> StoredNames {
        let in_order = self
            .entries
            .windows(2)
            .all(|pair| pair[0].entity_id < pair[1].entity_id);
        if !in_order {
            let mut by_id: Vec<usize> = (0..self.entries.len()).collect();
            by_id.sort_by(|&a, &b| self.entries[a].entity_id.cmp(&self.entries[b].entity_id));
            self.by_id = by_id;
        }
        self
    }

    /// These names as bytes, for a file ([`StoredNames::from_bytes`] reads them back).
    pub fn to_bytes(&self) -> Vec<u8> {
        // Only an I/O writer can fail; a vector cannot.
        postcard::to_allocvec(self).unwrap_or_default()
    }

    /// The names written by [`StoredNames::to_bytes`]; `None` when `bytes` are not such names
    /// (whole, every end within the text and in order).
    pub fn from_bytes(bytes: &[u8]) -> Option<StoredNames> {
        let names: StoredNames = postcard::from_bytes(bytes).ok()?;
        names.is_whole().then_some(names)
    }

    /// Whether every end lies within what it ends and in order, so that no look-up can
    /// reach outside them.
    fn is_whole(&self) -> bool {
        in_order(self.ends.iter().copied(), self.text.len())
            && self.ends.iter().all(|&end| self.text.is_char_boundary(end))
            && in_order(self.entries.iter().map(|e| e.names_end), self.ends.len())
            && (self.by_id.is_empty()
                || (self.by_id.len() == self.entries.len()
                    && self.by_id.iter().all(|&i| i < self.entries.len())))
    }

    /// Number of entries read.
    pub fn entity_count(&self) -> usize {
        self.entries.len()
    }

    /// The names of `entity_id` as stored (primary name first), or `None` when none was read.
    pub fn names_of(&self, entity_id: &str) -> Option<impl Iterator<Item = &str> + '_> {
        self.names_near(usize::MAX, entity_id)
    }

    /// [`StoredNames::names_of`], the entry looked for first at `hint` (its position in a
    /// screening index built from the same names: most often the same), then by its id.
    pub fn names_near(
        &self,
        hint: usize,
        entity_id: &str,
    ) -> Option<impl Iterator<Item = &str> + '_> {
        let at = match self.entries.get(hint) {
            Some(e) if *e.entity_id == *entity_id => hint,
            _ => self.position(entity_id)?,
        };
        let first = match at {
            0 => 0,
            _ => self.entries[at - 1].names_end,
        };
        let ends = &self.ends[first..self.entries[at].names_end];
        let mut start = match first {
            0 => 0,
            _ => self.ends[first - 1],
        };
        Some(ends.iter().map(move |&end| {
            let name = self.text.get(start..end).unwrap_or_default();
            start = end;
            name
        }))
    }

    fn position(&self, entity_id: &str) -> Option<usize> {
        if self.by_id.is_empty() {
            return self
                .entries
                .binary_search_by(|e| (*e.entity_id).cmp(entity_id))
                .ok();
        }
        let found = self
            .by_id
            .binary_search_by(|&i| (*self.entries[i].entity_id).cmp(entity_id))
            .ok()?;
        Some(self.by_id[found])
    }

    /// The digests of these names per list, as the verification computes them.
    pub fn digests(&self) -> BTreeMap<ListCode, NameDigest> {
        let mut digests = Digests::default();
        let mut first = 0;
        for entry in &self.entries {
            let mut start = match first {
                0 => 0,
                _ => self.ends[first - 1],
            };
            for &end in &self.ends[first..entry.names_end] {
                digests.add(
                    entry.list,
                    &entry.entity_id,
                    self.text.get(start..end).unwrap_or_default(),
                );
                start = end;
            }
            first = entry.names_end;
        }
        digests.finish()
    }
}

/// Whether `ends` never go back and none is past `last`.
fn in_order(mut ends: impl Iterator<Item = usize>, last: usize) -> bool {
    let mut at = 0;
    ends.all(|end| {
        let fine = at <= end && end <= last;
        at = end;
        fine
    })
}

/// What the verification of every list's names found, with the store's newest list update
/// as of the same read.
#[derive(Debug)]
pub struct NamesReadBack {
    /// The newest list update when the names were read.
    pub update_id: i64,
    /// The lists whose names differ from those stored at import.
    pub damage: Vec<NameDamage>,
}

impl Store {
    /// [`Store::verify_names`] with the newest list update: the update, the digests stored at
    /// import and the names read in one transaction, so that they describe the same lists.
    pub fn read_back_names(&self) -> Result<NamesReadBack, StoreError> {
        let tx = self.conn.unchecked_transaction()?;
        let update_id = self.latest_update_id()?;
        let stored = self.name_digests()?;
        let found = read_digests(&tx, None)?;
        tx.commit()?;
        Ok(NamesReadBack {
            update_id,
            damage: compare(&stored, &found),
        })
    }
}

/// [`Store::read_back_names`] of the database at `path`, on a connection of its own; when
/// every name matches its digest on files that held still through the read, that is
/// remembered beside them ([`checked::names_checked`]).
pub fn read_back_names_at(path: &Path) -> Result<NamesReadBack, StoreError> {
    remembering(path, || Store::open_read_only(path)?.read_back_names())
}

/// The names read back by `read` from the database at `path`, their verification
/// remembered when it found nothing and the files held still, forgotten otherwise.
pub(crate) fn remembering(
    path: &Path,
    read: impl FnOnce() -> Result<NamesReadBack, StoreError>,
) -> Result<NamesReadBack, StoreError> {
    let before = checked::Seen::now(path);
    let read = read()?;
    match &before {
        Some(before) if read.damage.is_empty() => {
            checked::remember_names(path, before, read.update_id);
        }
        _ => checked::forget_names(path),
    }
    Ok(read)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::integrity::digests_of;
    use crate::integrity::tests::entry;
    use crate::model::EntityNames;

    fn stored(entries: &[EntityNames]) -> StoredNames {
        let mut names = StoredNames::default();
        for e in entries {
            for (name, _) in &e.names {
                names.push(e.list, &e.entity_id, name);
            }
        }
        names.finish()
    }

    #[test]
    fn names_read_back_give_each_entry_its_names_and_the_same_digests() {
        let entries = [
            entry(ListCode::Eu, "eu:1", &["C"]),
            entry(ListCode::Un, "un:1", &["A", "", "B b"]),
            entry(ListCode::Un, "un:2", &["D"]),
        ];
        let names = stored(&entries);
        assert_eq!(names.entity_count(), 3);
        assert_eq!(names.digests(), digests_of(&entries));
        let un1: Vec<&str> = names.names_of("un:1").unwrap().collect();
        assert_eq!(un1, ["A", "", "B b"]);
        assert_eq!(names.names_of("un:2").unwrap().collect::<Vec<_>>(), ["D"]);
        assert_eq!(names.names_of("eu:1").unwrap().collect::<Vec<_>>(), ["C"]);
        assert!(names.names_of("un:3").is_none());
        assert!(names.names_of("").is_none());
    }

    #[test]
    fn names_read_in_another_order_are_still_found_by_id() {
        let entries = [
            entry(ListCode::Un, "un:2", &["D", "E"]),
            entry(ListCode::Eu, "eu:1", &["C"]),
            entry(ListCode::Un, "un:10", &["F"]),
        ];
        let names = stored(&entries);
        assert_eq!(names.digests(), digests_of(&entries));
        for e in &entries {
            let found: Vec<&str> = names.names_of(&e.entity_id).unwrap().collect();
            let expected: Vec<&str> = e.names.iter().map(|(n, _)| n.as_str()).collect();
            assert_eq!(found, expected, "{}", e.entity_id);
        }
        assert!(names.names_of("un:1").is_none());
    }

    #[test]
    fn a_position_hint_finds_the_entry_there_else_by_id() {
        let entries = [
            entry(ListCode::Eu, "eu:1", &["C"]),
            entry(ListCode::Un, "un:1", &["A", "B"]),
        ];
        let names = stored(&entries);
        let near = |hint, id| names.names_near(hint, id).map(Iterator::collect::<Vec<_>>);
        assert_eq!(near(1, "un:1"), Some(vec!["A", "B"]));
        assert_eq!(near(0, "un:1"), Some(vec!["A", "B"]));
        assert_eq!(near(7, "eu:1"), Some(vec!["C"]));
        assert_eq!(near(0, "un:2"), None);
    }

    #[test]
    fn names_as_bytes_read_back_alike_and_damaged_bytes_are_refused_or_whole() {
        let entries = [
            entry(ListCode::Un, "un:2", &["Dé", "E"]),
            entry(ListCode::Eu, "eu:1", &["C"]),
            entry(ListCode::Un, "un:10", &["F", "", "Ĝ h"]),
        ];
        let names = stored(&entries);
        let bytes = names.to_bytes();
        assert_eq!(StoredNames::from_bytes(&bytes), Some(names));
        // Whatever a byte becomes, the names read are refused or can be looked up whole.
        for at in 0..bytes.len() {
            for flip in [0x01, 0x20, 0x80] {
                let mut damaged = bytes.clone();
                damaged[at] ^= flip;
                if let Some(read) = StoredNames::from_bytes(&damaged) {
                    for e in &entries {
                        let _ = read.names_of(&e.entity_id).map(Iterator::count);
                        let _ = read.names_near(1, &e.entity_id).map(Iterator::count);
                    }
                    let _ = read.digests();
                }
            }
            assert_eq!(StoredNames::from_bytes(&bytes[..at]), None, "cut at {at}");
        }
    }
}
