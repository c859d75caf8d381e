//! The persisted screening index: the index built from the store, kept in the data folder
//! beside the database (`sanctions.index` beside `sanctions.db`), so that a process starts
//! screening without rebuilding it (a second or two with the eight lists).
//!
//! The file is `MAGIC`, the CRC-32 of all that follows, the length of the key, the key (the
//! index's layout [`engine::INDEX_FORMAT`], the program's version and commit, whether weak
//! aliases are indexed, the newest list update and every list's version), the length of the
//! entries' names as stored and those names (what the grouping of matches compares:
//! [`StoredNames::to_bytes`]), and the index's bytes ([`engine::Index::to_bytes`]). It is
//! used only when its checksum holds, its key is
//! the store's now and the database passed its check at open; anything else (missing,
//! stale, truncated, corrupted, another build's) is rebuilt from the store and written
//! again. It is written to a private temp file in the same folder and renamed over the old
//! one, so that a reader sees the old file or the new one, never half of one.

use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::read_ahead::{ReadAhead, Slot};
use crate::engine::{self, Index};
use crate::model::ListVersions;
use crate::store::StoredNames;

/// The first bytes of the file, and its layout (`sanctions-index\n` before the names were
/// kept in it).
const MAGIC: &[u8; 16] = b"sanctions-idx-2\n";
/// A larger file is not read (the eight lists give about 60 MB).
const MAX_FILE_BYTES: u64 = 1 << 30;

/// What an index was built from: a file whose key differs from the store's is stale.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Key {
    format: u32,
    program: String,
    weak_aliases: bool,
    latest_update: i64,
    versions: ListVersions,
}

impl Key {
    /// The key of an index built by this program, at list update `latest_update` with the
    /// lists at `versions`.
    pub fn new(weak_aliases: bool, latest_update: i64, versions: ListVersions) -> Key {
        Key {
            format: engine::INDEX_FORMAT,
            program: format!(
                "{} {}",
                super::ENGINE_VERSION,
                option_env!("SANCTIONS_COMMIT").unwrap_or("unknown")
            ),
            weak_aliases,
            latest_update,
            versions,
        }
    }
}

/// Why a persisted index was not used.
#[derive(Debug, thiserror::Error)]
pub enum IndexFileError {
    #[error("no index file")]
    Missing,
    #[error("cannot read the index file: {0}")]
    Io(#[from] std::io::Error),
    #[error("the index file is larger than {MAX_FILE_BYTES} bytes")]
    TooLarge,
    #[error("the index file is not one (no header): truncated or another file")]
    NotAnIndex,
    #[error("the index file fails its checksum: truncated or corrupted")]
    Checksum,
    #[error("the index file's key does not decode: {0}")]
    Key(postcard::Error),
    #[error("the index file is stale (built from other list versions or by another build)")]
    Stale,
    #[error("the index file's index is unusable: {0}")]
    Index(#[from] engine::StoredError),
    #[error("the index file's names are unusable")]
    Names,
}

/// What an index file holds besides its key.
pub type Kept = (Index, StoredNames);

/// Where the index of the database at `db` is kept.
pub fn path_for(db: &Path) -> PathBuf {
    db.with_extension("index")
}

/// The index and names kept at `path`, if its checksum holds and its key is `key`.
pub fn read(path: &Path, key: &Key) -> Result<Kept, IndexFileError> {
    let bytes = Arc::new(read_bounded(path)?);
    let parts = Parts::of(&bytes)?;
    if parts.key != *key {
        return Err(parts.or_damaged(IndexFileError::Stale));
    }
    kept_in(&bytes, &parts)
}

/// The index and names kept at `path` with the key they were written under, whatever that
/// key is: read ahead of the store ([`Early`]), to be used only once the key proves to be
/// the store's.
fn read_with_key(path: &Path) -> Result<(Key, Kept), IndexFileError> {
    let bytes = Arc::new(read_bounded(path)?);
    let parts = Parts::of(&bytes)?;
    let kept = kept_in(&bytes, &parts)?;
    Ok((parts.key, kept))
}

/// The index and the entries' names of `parts` (of `file`), once the file's checksum holds.
///
/// The checksum and the names are worked out on a thread of their own beside the index's
/// decoding, which reads any bytes safely (a damaged file that kept its checksum is refused
/// by it too): a cold start waits for the longer of the two, not for all three. The
/// checksum's verdict comes first, then the names', then the index's.
fn kept_in(file: &Arc<Vec<u8>>, parts: &Parts) -> Result<Kept, IndexFileError> {
    let beside = || (parts.sound(), StoredNames::from_bytes(parts.names));
    let ((sound, names), index) =
        engine::threads::beside("index-check", beside, || index_in(file, parts.body_len));
    if !sound {
        return Err(IndexFileError::Checksum);
    }
    let names = names.ok_or(IndexFileError::Names)?;
    Ok((index?, names))
}

/// The index stored in the last `len` bytes of `file` (its body, after the header), which
/// keeps its look-up tables where they are in `file` ([`Index::from_file`]).
fn index_in(file: &Arc<Vec<u8>>, len: usize) -> Result<Index, IndexFileError> {
    let body = file.len().saturating_sub(len)..file.len();
    Ok(Index::from_file(Arc::clone(file), body)?)
}

/// An index file being read on a thread of its own while the process opens and checks its
/// store: a command about to screen (`screen`, `batch`, the UI) starts it first
/// ([`Early::start`]), so that decoding the index, the longest step of a cold start,
/// overlaps the store's open and its check. The read counts only when it is of the file the
/// service loads and its key is the store's, asked once the store is open and passed its
/// check ([`Early::take`]); anything else is read again the usual way.
pub struct Early;

/// The process's index read ahead.
static EARLY: Slot<Result<(Key, Kept), IndexFileError>> = Slot::new(None);

impl Early {
    /// Starts reading the index file kept beside the database at `db` (nothing when no
    /// thread can be started: the index is then read the usual way).
    pub fn start(db: &Path) {
        let path = path_for(db);
        let file = path.clone();
        ReadAhead::start(&EARLY, path, "index-read-ahead", move || {
            let read = read_with_key(&file);
            tracing::debug!(read = read.is_ok(), "index file read ahead");
            read
        });
    }

    /// The index read ahead from `path`, when its key is `key` (the read is waited for);
    /// `None` when none was read from `path` or it is not of `key`. The first load takes the
    /// read ahead or lets it go ([`ReadAhead::take`]).
    pub(super) fn take(path: &Path, key: &Key) -> Option<Kept> {
        match ReadAhead::take(&EARLY, path)? {
            Ok((found, kept)) if found == *key => Some(kept),
            _ => None,
        }
    }
}

/// The file's bytes, at most [`MAX_FILE_BYTES`], read in two halves at once: most of a
/// read is the kernel's copy into pages it first clears, which then takes both cores (a
/// file replaced meanwhile is another inode: this one keeps its size; one cut short is an
/// error, and the index is rebuilt).
fn read_bounded(path: &Path) -> Result<Vec<u8>, IndexFileError> {
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(IndexFileError::Missing),
        Err(e) => return Err(e.into()),
    };
    let size = file.metadata()?.len();
    if size > MAX_FILE_BYTES {
        return Err(IndexFileError::TooLarge);
    }
    let mut bytes = vec![0u8; size as usize];
    let half = bytes.len() / 2;
    let (first, second) = bytes.split_at_mut(half);
    let read_at = |part: &mut [u8], at: usize| file.read_exact_at(part, at as u64);
    // Behind a lock only so that the read of it can run here if no thread can be started.
    let second = std::sync::Mutex::new(second);
    let read_second = || {
        let mut second = second
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        read_at(&mut second, half)
    };
    let (read_second, read_first) =
        engine::threads::beside("index-read-half", read_second, || read_at(first, 0));
    read_first.and(read_second)?;
    Ok(bytes)
}

/// A file's parts, read from its header: its checksum is compared apart ([`Parts::sound`]).
struct Parts<'a> {
    /// The checksum the file holds.
    crc: u32,
    /// What the checksum covers: all after it.
    checked: &'a [u8],
    key: Key,
    /// The entries' names' bytes.
    names: &'a [u8],
    /// The length of the index's bytes, the file's last.
    body_len: usize,
}

impl<'a> Parts<'a> {
    /// The parts of a file's `bytes`. A header that does not read is refused as no index,
    /// or as damaged when the checksum fails too.
    fn of(bytes: &'a [u8]) -> Result<Parts<'a>, IndexFileError> {
        let rest = bytes
            .strip_prefix(MAGIC.as_slice())
            .ok_or(IndexFileError::NotAnIndex)?;
        let (crc, checked) = take_u32(rest).ok_or(IndexFileError::NotAnIndex)?;
        let (key, names, body) = Parts::header(checked).map_err(|e| or_damaged(checked, crc, e))?;
        Ok(Parts {
            crc,
            checked,
            key,
            names,
            body_len: body.len(),
        })
    }

    /// The key, the names' bytes and the index's bytes of what the checksum covers.
    fn header(checked: &[u8]) -> Result<(Key, &[u8], &[u8]), IndexFileError> {
        let (key_len, rest) = take_u32(checked).ok_or(IndexFileError::NotAnIndex)?;
        let key_len = key_len as usize;
        if key_len > rest.len() {
            return Err(IndexFileError::NotAnIndex);
        }
        let (key, rest) = rest.split_at(key_len);
        let key = postcard::from_bytes(key).map_err(IndexFileError::Key)?;
        let (names_len, rest) = take_u32(rest).ok_or(IndexFileError::NotAnIndex)?;
        let names_len = names_len as usize;
        if names_len > rest.len() {
            return Err(IndexFileError::NotAnIndex);
        }
        let (names, body) = rest.split_at(names_len);
        Ok((key, names, body))
    }

    /// Whether the file's checksum holds.
    fn sound(&self) -> bool {
        crc32fast::hash(self.checked) == self.crc
    }

    /// `e`, or [`IndexFileError::Checksum`] when the file's checksum fails.
    fn or_damaged(&self, e: IndexFileError) -> IndexFileError {
        or_damaged(self.checked, self.crc, e)
    }
}

/// `e`, or [`IndexFileError::Checksum`] when `checked` does not have the checksum `crc`.
fn or_damaged(checked: &[u8], crc: u32, e: IndexFileError) -> IndexFileError {
    if crc32fast::hash(checked) == crc {
        e
    } else {
        IndexFileError::Checksum
    }
}

fn take_u32(bytes: &[u8]) -> Option<(u32, &[u8])> {
    let (head, rest) = bytes.split_first_chunk::<4>()?;
    Some((u32::from_le_bytes(*head), rest))
}

/// The file's bytes of `index` and `names` under `key`.
pub fn encode(index: &Index, names: &StoredNames, key: &Key) -> Result<Vec<u8>, IndexFileError> {
    let key = postcard::to_allocvec(key).map_err(IndexFileError::Key)?;
    let names = names.to_bytes();
    let body = index.to_bytes()?;
    let length = |part: &[u8]| u32::try_from(part.len()).map_err(|_| IndexFileError::TooLarge);
    let (key_len, names_len) = (length(&key)?, length(&names)?);
    let mut checked = Vec::with_capacity(8 + key.len() + names.len() + body.len());
    checked.extend_from_slice(&key_len.to_le_bytes());
    checked.extend_from_slice(&key);
    checked.extend_from_slice(&names_len.to_le_bytes());
    checked.extend_from_slice(&names);
    checked.extend_from_slice(&body);
    let mut out = Vec::with_capacity(MAGIC.len() + 4 + checked.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&crc32fast::hash(&checked).to_le_bytes());
    out.extend_from_slice(&checked);
    Ok(out)
}

/// Writes `index` and `names` under `key` to `path`: to a private temp file in the same
/// folder, then renamed over the old file.
pub fn write(
    path: &Path,
    index: &Index,
    names: &StoredNames,
    key: &Key,
) -> Result<(), IndexFileError> {
    let bytes = encode(index, names, key)?;
    crate::store::files::replace_private(path, ".sanctions-index-", &bytes)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AliasQuality, EntityKind, EntityNames, ListCode};

    fn index() -> Index {
        let names = ["PUTIN, Vladimir Vladimirovich", "Vladimir Putin"];
        Index::build(&[EntityNames {
            entity_id: "ofac_sdn:1".into(),
            list: ListCode::OfacSdn,
            kind: EntityKind::Individual,
            primary_name: names[0].into(),
            country: None,
            names: names
                .iter()
                .map(|n| (n.to_string(), AliasQuality::Strong))
                .collect(),
            listing_ends: None,
            facts: Default::default(),
        }])
    }

    fn names() -> StoredNames {
        let mut names = StoredNames::default();
        for name in ["PUTIN, Vladimir Vladimirovich", "Vladimir Putin"] {
            names.push(ListCode::OfacSdn, "ofac_sdn:1", name);
        }
        names.finish()
    }

    fn key(update: i64) -> Key {
        Key::new(
            true,
            update,
            ListVersions::from([(ListCode::OfacSdn, update)]),
        )
    }

    #[test]
    fn every_damaged_byte_and_every_truncation_is_refused() {
        // The file's parts once its checksum holds.
        let split = |bytes: &[u8]| {
            Parts::of(bytes).and_then(|p| match p.sound() {
                true => Ok(p.key),
                false => Err(IndexFileError::Checksum),
            })
        };
        let bytes = encode(&index(), &names(), &key(3)).unwrap();
        assert!(split(&bytes).is_ok());
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sanctions.index");
        for at in (0..bytes.len()).step_by(7) {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x20;
            assert!(split(&damaged).is_err(), "byte {at} changed");
            assert!(split(&bytes[..at]).is_err(), "cut at {at}");
            // Read whole, its index decoded beside the checksum: refused all the same.
            std::fs::write(&path, &damaged).unwrap();
            assert!(read(&path, &key(3)).is_err(), "read, byte {at} changed");
        }
    }

    #[test]
    fn another_key_is_stale() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sanctions.index");
        write(&path, &index(), &names(), &key(3)).unwrap();
        let (_, kept) = read(&path, &key(3)).unwrap();
        assert_eq!(kept, names(), "the names as written");
        assert!(matches!(read(&path, &key(4)), Err(IndexFileError::Stale)));
        let other_weak = Key::new(false, 3, key(3).versions);
        assert!(matches!(
            read(&path, &other_weak),
            Err(IndexFileError::Stale)
        ));
        let missing = dir.path().join("none.index");
        assert!(matches!(
            read(&missing, &key(3)),
            Err(IndexFileError::Missing)
        ));
    }

    /// A file under the right checksum whose names are not whole (written by another
    /// program, or damaged before its checksum was taken) is refused, not read past.
    #[test]
    fn names_that_are_not_whole_are_refused_under_a_good_checksum() {
        let whole = names().to_bytes();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sanctions.index");
        let key_bytes = postcard::to_allocvec(&key(3)).unwrap();
        for cut in [1, whole.len() / 2, whole.len() - 1] {
            let mut checked = Vec::new();
            checked.extend_from_slice(&(key_bytes.len() as u32).to_le_bytes());
            checked.extend_from_slice(&key_bytes);
            checked.extend_from_slice(&(cut as u32).to_le_bytes());
            checked.extend_from_slice(&whole[..cut]);
            checked.extend_from_slice(&index().to_bytes().unwrap());
            let mut file = MAGIC.to_vec();
            file.extend_from_slice(&crc32fast::hash(&checked).to_le_bytes());
            file.extend_from_slice(&checked);
            std::fs::write(&path, file).unwrap();
            assert!(
                matches!(read(&path, &key(3)), Err(IndexFileError::Names)),
                "names cut at {cut}"
            );
        }
    }

    /// A file of the layout before the names were kept is no index: it is rebuilt.
    #[test]
    fn a_file_of_the_earlier_layout_is_no_index() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sanctions.index");
        let mut bytes = encode(&index(), &names(), &key(3)).unwrap();
        bytes[..MAGIC.len()].copy_from_slice(b"sanctions-index\n");
        std::fs::write(&path, bytes).unwrap();
        assert!(matches!(
            read(&path, &key(3)),
            Err(IndexFileError::NotAnIndex)
        ));
    }

    #[test]
    fn an_empty_or_short_file_is_no_index() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sanctions.index");
        for len in [0, 3, MAGIC.len() + 2] {
            std::fs::write(&path, &MAGIC.repeat(2)[..len]).unwrap();
            assert!(matches!(
                read(&path, &key(3)),
                Err(IndexFileError::NotAnIndex)
            ));
        }
    }

    /// The only test that starts a read ahead (the slot is the process's).
    #[test]
    fn a_read_ahead_counts_only_for_its_file_and_its_key() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("sanctions.db");
        let path = path_for(&db);
        write(&path, &index(), &names(), &key(3)).unwrap();
        let bytes = |index: &Index| index.to_bytes().unwrap();

        Early::start(&db);
        let other = dir.path().join("other.index");
        assert!(Early::take(&other, &key(3)).is_none(), "another file");
        assert!(
            Early::take(&path, &key(3)).is_none(),
            "let go by the first load"
        );

        Early::start(&db);
        let (read, kept) = Early::take(&path, &key(3)).expect("the read ahead");
        assert_eq!(bytes(&read), bytes(&index()), "the index as written");
        assert_eq!(kept, names());
        assert!(Early::take(&path, &key(3)).is_none(), "taken once");

        Early::start(&db);
        assert!(Early::take(&path, &key(4)).is_none(), "stale");
        Early::start(&dir.path().join("none.db"));
        assert!(Early::take(&path_for(&dir.path().join("none.db")), &key(3)).is_none());

        let mut damaged = std::fs::read(&path).unwrap();
        let last = damaged.len() - 1;
        damaged[last] ^= 0x20;
        std::fs::write(&path, damaged).unwrap();
        Early::start(&db);
        assert!(Early::take(&path, &key(3)).is_none(), "damaged");
    }
}
