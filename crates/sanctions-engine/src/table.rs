//! A read-only multimap from 64-bit hashes to token ids, for the index's look-up tables
//! (phonetic keys, consonant skeletons, one-letter deletions).
//!
//! The pairs are kept sorted by hash, as before, with a table of where each run of hashes
//! sharing their top bits begins: a look-up reads one offset and a bucket of a pair or two,
//! where a binary search over the two million deletion pairs touched some twenty cache lines
//! (it was a tenth of a query's time).

use std::borrow::Cow;
use std::marker::PhantomData;
use std::ops::Range;
use std::sync::Arc;

use super::prefetch::prefetch;

/// FNV-1a as a [`std::hash::Hasher`], for the engine's hash maps keyed by short texts
/// (the vocabulary) and by ids (a screening's best name per entry): their keys come from
/// the lists and the engine, not from an adversary choosing collisions, and SipHash, the
/// standard one, cost a visible share of a query for keys of a few bytes.
pub(crate) struct FnvHasher(u64);

impl Default for FnvHasher {
    fn default() -> FnvHasher {
        FnvHasher(0xcbf2_9ce4_8422_2325)
    }
}

impl std::hash::Hasher for FnvHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    // Integers (ids, lengths, an enum's discriminant) in one step each, as FxHash mixes a
    // word, instead of a multiplication per byte: a name's shape (`index::Shape`, a slice of
    // id and kind pairs) took eight dependent multiplications per token. Texts keep FNV-1a
    // (`str` hashes as bytes and one `u8`), so the maps keyed by text, whose order the index
    // build follows, are unchanged.
    fn write_u32(&mut self, i: u32) {
        self.mix(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.mix(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.mix(i as u64);
    }
}

impl FnvHasher {
    fn mix(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

/// A `HashMap` hashed with [`FnvHasher`].
pub(crate) type FastMap<K, V> =
    std::collections::HashMap<K, V, std::hash::BuildHasherDefault<FnvHasher>>;

/// A `HashSet` hashed with [`FnvHasher`].
pub(crate) type FastSet<K> = std::collections::HashSet<K, std::hash::BuildHasherDefault<FnvHasher>>;

/// Sorted `(hash, token id)` pairs, kept as a hash array and an id array side by side, with
/// a bucket index over the hashes' top bits; stored as its two arrays alone (the bucket
/// index is worked out again when read).
///
/// The arrays are little-endian bytes ([`Ints`]): a table read from an index file keeps them
/// where they are in the file's bytes rather than copying them out. The deletion table alone
/// is some two million pairs (24 MB), and a fresh megabyte of memory costs a cold start
/// about as much as reading it (the kernel zeroes every new page).
#[derive(Debug, Clone)]
pub(crate) struct HashTable {
    hashes: Ints<u64>,
    ids: Ints<u32>,
    /// `starts[b]` is the first pair whose hash's top bits are `b`; one more at the end.
    starts: Vec<u32>,
    /// 64 minus the number of top bits that pick a bucket.
    shift: u32,
    /// The largest id stored (for checking a table read from a file).
    max_id: Option<u32>,
}

impl Default for HashTable {
    fn default() -> HashTable {
        HashTable::new(Vec::new())
    }
}

/// At most 2^24 buckets (64 MiB of offsets, reached only beyond eight million pairs; the
/// lists give about two million): bounds the memory whatever the lists hold.
const MAX_BITS: u32 = 24;

impl HashTable {
    /// The table of `pairs`, which must be sorted (by hash, then id).
    pub fn new(pairs: Vec<(u64, u32)>) -> HashTable {
        debug_assert!(pairs.is_sorted());
        let hashes = Ints::of(pairs.iter().map(|p| p.0));
        let ids = Ints::of(pairs.iter().map(|p| p.1));
        HashTable::counted(hashes, ids).0
    }

    /// The table of `hashes` and their `ids` (of equal length), with whether they are sorted
    /// by hash then id (a table is correct only when they are): its bucket starts and
    /// largest id worked out in the one pass that checks the order.
    fn counted(hashes: Ints<u64>, ids: Ints<u32>) -> (HashTable, bool) {
        let (bits, shift) = bucket_bits(hashes.len());
        let mut starts = vec![0u32; (1usize << bits) + 1];
        let (mut sorted, mut previous, mut max_id) = (true, (0u64, 0u32), 0u32);
        for (h, id) in hashes.iter().zip(ids.iter()) {
            sorted &= previous <= (h, id);
            previous = (h, id);
            max_id = max_id.max(id);
            starts[(h >> shift) as usize + 1] += 1;
        }
        for b in 1..starts.len() {
            starts[b] += starts[b - 1];
        }
        let max_id = (!ids.is_empty()).then_some(max_id);
        let table = HashTable {
            hashes,
            ids,
            starts,
            shift,
            max_id,
        };
        (table, sorted)
    }

    /// The table of the stored arrays, `hashes` and `ids` of `bytes` (an index file's, read
    /// in place); pairs out of order (a damaged file that kept its checksum) are sorted
    /// into arrays of their own, so that look-ups stay correct for what it holds. `None`
    /// when the arrays are not whole integers, or not as many hashes as ids.
    pub(crate) fn stored(
        bytes: &Arc<Vec<u8>>,
        hashes: Range<usize>,
        ids: Range<usize>,
    ) -> Option<HashTable> {
        let (hashes, ids) = (Ints::within(bytes, hashes)?, Ints::within(bytes, ids)?);
        if hashes.len() != ids.len() {
            return None;
        }
        let (table, sorted) = HashTable::counted(hashes, ids);
        if sorted {
            return Some(table);
        }
        let mut pairs: Vec<(u64, u32)> = table.hashes.iter().zip(table.ids.iter()).collect();
        pairs.sort_unstable();
        Some(HashTable::new(pairs))
    }

    /// The ids stored under `h`.
    pub fn get(&self, h: u64) -> impl Iterator<Item = u32> + '_ {
        self.range(h).map(|i| self.ids.get(i))
    }

    /// The ids stored under each of `hs`, appended to `out`: those of [`HashTable::get`] of
    /// each in turn, with every hash's bucket read before any bucket is searched and every
    /// bucket searched before any id is read. Most of these reads are of memory in no cache;
    /// reads that do not wait on one another overlap, instead of each waiting for the last
    /// (a word's look-up asks the deletion table a dozen hashes or more).
    pub fn get_all(&self, hs: &[u64], out: &mut Vec<u32>) {
        const AT_ONCE: usize = 32;
        for hs in hs.chunks(AT_ONCE) {
            let mut buckets = [(0usize, 0usize); AT_ONCE];
            for (bucket, &h) in buckets.iter_mut().zip(hs) {
                let b = (h >> self.shift) as usize;
                *bucket = (self.starts[b] as usize, self.starts[b + 1] as usize);
            }
            let mut ranges = [(0usize, 0usize); AT_ONCE];
            for ((range, &(from, to)), &h) in ranges.iter_mut().zip(&buckets).zip(hs) {
                let found = self.within(h, from, to);
                *range = (found.start, found.end);
            }
            for &(start, end) in &ranges[..hs.len()] {
                out.extend((start..end).map(|i| self.ids.get(i)));
            }
        }
    }

    /// Where the pairs of hash `h` are: in its bucket (about one pair), those from the first
    /// at or above `h` while equal to it.
    fn range(&self, h: u64) -> std::ops::Range<usize> {
        let b = (h >> self.shift) as usize;
        self.within(h, self.starts[b] as usize, self.starts[b + 1] as usize)
    }

    /// The pairs of hash `h` among those of its bucket, `from..to`.
    fn within(&self, h: u64, from: usize, to: usize) -> std::ops::Range<usize> {
        let start = (from..to).find(|&i| self.hashes.get(i) >= h).unwrap_or(to);
        let end = (start..to).find(|&i| self.hashes.get(i) != h).unwrap_or(to);
        start..end
    }

    /// The largest id stored, for checking a table read from a file.
    pub fn max_id(&self) -> Option<u32> {
        self.max_id
    }
}

/// The number of top bits that pick a bucket of a table of `pairs` pairs, and the shift
/// that takes them: about one bucket per pair (a bucket holds one pair on average).
fn bucket_bits(pairs: usize) -> (u32, u32) {
    let bits = (usize::BITS - pairs.leading_zeros()).clamp(1, MAX_BITS);
    (bits, 64 - bits)
}

/// A [`HashTable`] is stored as its hashes and its ids, each as one string of little-endian
/// bytes (one copy, where a serialised list of pairs costs a variable-length integer each):
/// the bytes it holds, as they are.
impl serde::Serialize for HashTable {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeTuple as _;
        let mut t = s.serialize_tuple(2)?;
        t.serialize_element(&Bytes(Cow::Borrowed(self.hashes.bytes())))?;
        t.serialize_element(&Bytes(Cow::Borrowed(self.ids.bytes())))?;
        t.end()
    }
}

/// Read back from other bytes than an index file's own (the vocabulary's table): its two
/// arrays copied into bytes of its own, then read as an index file's are
/// ([`HashTable::stored`]).
impl<'de> serde::Deserialize<'de> for HashTable {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<HashTable, D::Error> {
        let (hashes, ids): (Bytes<'de>, Bytes<'de>) = serde::Deserialize::deserialize(d)?;
        let middle = hashes.0.len();
        let bytes = Arc::new([&*hashes.0, &*ids.0].concat());
        HashTable::stored(&bytes, 0..middle, middle..bytes.len()).ok_or_else(|| {
            serde::de::Error::custom(
                "a look-up table's hashes and ids are not as many whole integers",
            )
        })
    }
}

/// A string of bytes, stored as one (borrowed from the file's bytes when read).
pub(crate) struct Bytes<'a>(pub Cow<'a, [u8]>);

impl serde::Serialize for Bytes<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

impl<'de: 'a, 'a> serde::Deserialize<'de> for Bytes<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Bytes<'a>, D::Error> {
        <&'de [u8]>::deserialize(d).map(|b| Bytes(Cow::Borrowed(b)))
    }
}

/// Little-endian integers of type `T` in a range of shared bytes: an index file's (read in
/// place) or their own (a table built).
#[derive(Debug, Clone)]
pub(crate) struct Ints<T> {
    bytes: Arc<Vec<u8>>,
    range: Range<usize>,
    of: PhantomData<T>,
}

impl<T: LeInt> Ints<T> {
    /// `values` as bytes of their own.
    fn of(values: impl Iterator<Item = T>) -> Ints<T> {
        let mut bytes = Vec::with_capacity(values.size_hint().0 * T::SIZE);
        values.for_each(|v| v.put(&mut bytes));
        let range = 0..bytes.len();
        Ints {
            bytes: Arc::new(bytes),
            range,
            of: PhantomData,
        }
    }

    /// The integers at `range` of `bytes`, if it lies within them and holds whole integers.
    fn within(bytes: &Arc<Vec<u8>>, range: Range<usize>) -> Option<Ints<T>> {
        (range.end <= bytes.len() && range.len().is_multiple_of(T::SIZE)).then(|| Ints {
            bytes: Arc::clone(bytes),
            range,
            of: PhantomData,
        })
    }

    fn len(&self) -> usize {
        self.range.len() / T::SIZE
    }

    fn is_empty(&self) -> bool {
        self.range.is_empty()
    }

    /// The `i`th integer (`i` below [`Ints::len`]).
    fn get(&self, i: usize) -> T {
        let at = self.range.start + i * T::SIZE;
        T::take(&self.bytes[at..at + T::SIZE])
    }

    fn iter(&self) -> impl Iterator<Item = T> + '_ {
        self.bytes().chunks_exact(T::SIZE).map(T::take)
    }

    fn bytes(&self) -> &[u8] {
        &self.bytes[self.range.clone()]
    }
}

/// For each token id, the names holding it (ascending, no repeats): one array of every
/// list, one after the other, and where each begins (compressed sparse rows), so that the
/// index is a few large allocations rather than one per token. `postings[id]` is a slice.
#[derive(Debug, Clone, Default)]
pub(crate) struct Postings {
    /// `starts[id]..starts[id + 1]` is the range of `names` of token `id`.
    starts: Vec<u32>,
    names: Vec<u32>,
}

impl Postings {
    /// The postings of `lists`, one per token id.
    pub fn from_lists(lists: &[Vec<u32>]) -> Postings {
        let mut starts = Vec::with_capacity(lists.len() + 1);
        starts.push(0u32);
        let mut names = Vec::with_capacity(lists.iter().map(Vec::len).sum());
        for list in lists {
            names.extend_from_slice(list);
            starts.push(names.len() as u32);
        }
        Postings { starts, names }
    }

    /// Number of tokens.
    pub fn len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// Every list, in token order.
    pub fn iter(&self) -> impl Iterator<Item = &[u32]> + '_ {
        (0..self.len()).map(|id| &self[id])
    }

    /// Asks for where list `id` begins ([`prefetch`]; nothing for an id past the lists).
    pub fn ask_start(&self, id: usize) {
        if let Some(start) = self.starts.get(id) {
            prefetch(start);
        }
    }

    /// Asks for the first names of list `id` ([`prefetch`]), its start read.
    pub fn ask_head(&self, id: usize) {
        if let Some(&start) = self.starts.get(id)
            && let Some(first) = self.names.get(start as usize)
        {
            prefetch(first);
        }
    }

    /// Every name of every list, for checking postings read from a file.
    pub fn all_names(&self) -> &[u32] {
        &self.names
    }

    /// Whether the offsets run from 0 to the end without going back (checked when read).
    fn offsets_hold(&self) -> bool {
        self.starts.first() == Some(&0)
            && self
                .starts
                .last()
                .is_some_and(|&e| e as usize == self.names.len())
            && self.starts.is_sorted()
    }
}

impl std::ops::Index<usize> for Postings {
    type Output = [u32];

    fn index(&self, id: usize) -> &[u32] {
        &self.names[self.starts[id] as usize..self.starts[id + 1] as usize]
    }
}

impl serde::Serialize for Postings {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeTuple as _;
        let mut t = s.serialize_tuple(2)?;
        t.serialize_element(&LeBytes(&self.starts))?;
        t.serialize_element(&LeBytes(&self.names))?;
        t.end()
    }
}

impl<'de> serde::Deserialize<'de> for Postings {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Postings, D::Error> {
        let (starts, names): (LeVec<u32>, LeVec<u32>) = serde::Deserialize::deserialize(d)?;
        let postings = Postings {
            starts: starts.0,
            names: names.0,
        };
        if !postings.offsets_hold() {
            return Err(serde::de::Error::custom(
                "the postings' offsets do not hold",
            ));
        }
        Ok(postings)
    }
}

/// The vocabulary's ids by text: a table of the texts' hashes and a copy of the texts in one
/// buffer, to compare a text found under its hash with the one looked up. Stored as its
/// table; the buffer is filled from the vocabulary when read.
#[derive(Debug, Clone, Default)]
pub(crate) struct TokenIds {
    table: HashTable,
    /// Every token's text, by id, one after the other.
    texts: String,
    /// `ends[id]` is where token `id`'s text ends in `texts`.
    ends: Vec<u32>,
}

impl TokenIds {
    /// The ids of `texts`, given in id order.
    pub fn new<'a>(texts: impl Iterator<Item = &'a str> + Clone) -> TokenIds {
        let mut pairs: Vec<(u64, u32)> = texts
            .clone()
            .enumerate()
            .map(|(id, text)| (hash(text.as_bytes()), id as u32))
            .collect();
        pairs.sort_unstable();
        TokenIds::with_texts(HashTable::new(pairs), texts)
    }

    /// `table` with its texts, given in id order.
    pub fn with_texts<'a>(table: HashTable, texts: impl Iterator<Item = &'a str>) -> TokenIds {
        let mut buffer = String::new();
        let ends = texts
            .map(|text| {
                buffer.push_str(text);
                buffer.len() as u32
            })
            .collect();
        TokenIds {
            table,
            texts: buffer,
            ends,
        }
    }

    /// The id of the token `text`.
    pub fn get<Q: AsRef<str> + ?Sized>(&self, text: &Q) -> Option<u32> {
        let text = text.as_ref();
        self.table
            .get(hash(text.as_bytes()))
            .find(|&id| self.text(id) == Some(text))
    }

    /// Whether `text` is a token.
    pub fn contains_key<Q: AsRef<str> + ?Sized>(&self, text: &Q) -> bool {
        self.get(text).is_some()
    }

    /// The text of token `id`.
    fn text(&self, id: u32) -> Option<&str> {
        let end = *self.ends.get(id as usize)? as usize;
        let start = match id.checked_sub(1) {
            Some(before) => self.ends[before as usize] as usize,
            None => 0,
        };
        self.texts.get(start..end)
    }

    /// `table` with the vocabulary's texts one after the other, `ends[id]` where token
    /// `id`'s ends (after reading the table from a file, which holds no texts): a text whose
    /// offsets do not hold is found for no id.
    pub fn with_arena(table: HashTable, texts: String, ends: Vec<u32>) -> TokenIds {
        TokenIds { table, texts, ends }
    }

    /// The table of hashes alone.
    pub fn into_table(self) -> HashTable {
        self.table
    }

    /// The table of hashes, as stored.
    pub fn table(&self) -> &HashTable {
        &self.table
    }
}

/// Stored as its table alone: the texts are the vocabulary's ([`TokenIds::with_arena`]).
impl serde::Serialize for TokenIds {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.table.serialize(s)
    }
}

impl<'de> serde::Deserialize<'de> for TokenIds {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<TokenIds, D::Error> {
        Ok(TokenIds {
            table: HashTable::deserialize(d)?,
            ..TokenIds::default()
        })
    }
}

/// Integers written as one string of little-endian bytes.
struct LeBytes<'a, T>(&'a [T]);

/// Integers read from one string of little-endian bytes.
struct LeVec<T>(Vec<T>);

/// A fixed-size integer as little-endian bytes.
pub(crate) trait LeInt: Copy {
    const SIZE: usize;
    fn put(self, out: &mut Vec<u8>);
    fn take(bytes: &[u8]) -> Self;
}

impl LeInt for u32 {
    const SIZE: usize = 4;
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn take(bytes: &[u8]) -> u32 {
        u32::from_le_bytes(bytes.try_into().unwrap_or_default())
    }
}

impl LeInt for u64 {
    const SIZE: usize = 8;
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn take(bytes: &[u8]) -> u64 {
        u64::from_le_bytes(bytes.try_into().unwrap_or_default())
    }
}

impl<T: LeInt> serde::Serialize for LeBytes<'_, T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut bytes = Vec::with_capacity(self.0.len() * T::SIZE);
        for &v in self.0 {
            v.put(&mut bytes);
        }
        s.serialize_bytes(&bytes)
    }
}

impl<'de, T: LeInt> serde::Deserialize<'de> for LeVec<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<LeVec<T>, D::Error> {
        d.deserialize_bytes(LeVisitor(std::marker::PhantomData))
    }
}

struct LeVisitor<T>(std::marker::PhantomData<T>);

impl<T: LeInt> serde::de::Visitor<'_> for LeVisitor<T> {
    type Value = LeVec<T>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "little-endian integers of {} bytes", T::SIZE)
    }

    fn visit_bytes<E: serde::de::Error>(self, bytes: &[u8]) -> Result<LeVec<T>, E> {
        if !bytes.len().is_multiple_of(T::SIZE) {
            return Err(E::custom("an array's bytes are not whole integers"));
        }
        Ok(LeVec(bytes.chunks_exact(T::SIZE).map(T::take).collect()))
    }
}

pub(crate) const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

pub(crate) fn fnv_step(h: u64, b: u8) -> u64 {
    (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
}

/// FNV-1a: small, fast, and stable across runs.
pub(crate) fn hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(FNV_OFFSET, |h, &b| fnv_step(h, b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_id_under_its_hash() {
        let mut pairs: Vec<(u64, u32)> = (0..1000u32)
            .map(|i| (u64::from(i % 300).wrapping_mul(0x9e37_79b9_7f4a_7c15), i))
            .collect();
        pairs.push((u64::MAX, 7));
        pairs.push((0, 9));
        pairs.sort_unstable();
        let table = HashTable::new(pairs.clone());
        for &(h, _) in &pairs {
            let want: Vec<u32> = pairs.iter().filter(|p| p.0 == h).map(|p| p.1).collect();
            assert_eq!(table.get(h).collect::<Vec<_>>(), want);
        }
        assert_eq!(table.get(12345).count(), 0);
        assert_eq!(HashTable::default().get(42).count(), 0);
        let bytes = postcard::to_allocvec(&table).unwrap();
        let read: HashTable = postcard::from_bytes(&bytes).unwrap();
        for &(h, _) in &pairs {
            assert!(read.get(h).eq(table.get(h)));
        }
        assert_eq!(
            read.starts, table.starts,
            "the offsets of a sorted table read back"
        );
        // Read in place from a file's bytes (here the two arrays one after the other, with
        // a byte before them): the same look-ups, the same offsets.
        let file = |hashes: &[u64], ids: &[u32]| {
            let mut bytes = vec![7u8];
            hashes.iter().for_each(|h| h.put(&mut bytes));
            let middle = bytes.len();
            ids.iter().for_each(|id| id.put(&mut bytes));
            (Arc::new(bytes), 1..middle, middle)
        };
        let (hashes, ids): (Vec<u64>, Vec<u32>) = pairs.iter().copied().unzip();
        let (bytes, at, middle) = file(&hashes, &ids);
        let in_place = HashTable::stored(&bytes, at.clone(), middle..bytes.len()).unwrap();
        assert_eq!(in_place.starts, table.starts);
        assert!(
            Arc::ptr_eq(&in_place.hashes.bytes, &bytes),
            "read in place, not copied"
        );
        for &(h, _) in &pairs {
            assert!(in_place.get(h).eq(table.get(h)));
        }
        // Not whole integers, past the end, or fewer ids than hashes: refused.
        assert!(HashTable::stored(&bytes, 1..middle - 1, middle..bytes.len()).is_none());
        assert!(HashTable::stored(&bytes, at.clone(), middle..bytes.len() + 4).is_none());
        assert!(HashTable::stored(&bytes, at, middle..bytes.len() - 4).is_none());
        // Stored out of order: sorted again, so that every id is still found.
        let (mut hashes, mut ids) = (hashes, ids);
        hashes.swap(3, 900);
        ids.swap(3, 900);
        let (bytes, at, middle) = file(&hashes, &ids);
        let unsorted = HashTable::stored(&bytes, at, middle..bytes.len()).unwrap();
        assert_eq!(unsorted.starts, table.starts);
        // The largest id, counted in the pass that checks the order, whichever way read.
        let largest = ids.iter().max().copied();
        assert!(largest.is_some());
        assert_eq!(table.max_id(), largest);
        assert_eq!(in_place.max_id(), largest);
        assert_eq!(unsorted.max_id(), largest);
        assert_eq!(HashTable::new(Vec::new()).max_id(), None);
        for &(h, _) in &pairs {
            assert!(unsorted.get(h).eq(table.get(h)));
        }
    }

    proptest::proptest! {
        /// Many hashes asked at once (more than one round of them) find what each asked
        /// alone finds, in the same order.
        #[test]
        fn hashes_asked_at_once_find_what_each_finds(
            pairs in proptest::collection::vec((0u64..64, 0u32..50), 0..300),
            asked in proptest::collection::vec(0u64..80, 0..70),
        ) {
            let spread = |h: u64| h.wrapping_mul(0x9e37_79b9_7f4a_7c15);
            let mut pairs: Vec<(u64, u32)> = pairs.into_iter().map(|(h, id)| (spread(h), id)).collect();
            pairs.sort_unstable();
            let table = HashTable::new(pairs);
            let asked: Vec<u64> = asked.into_iter().map(spread).collect();
            let one_by_one: Vec<u32> = asked.iter().flat_map(|&h| table.get(h)).collect();
            let mut at_once = Vec::new();
            table.get_all(&asked, &mut at_once);
            proptest::prop_assert_eq!(at_once, one_by_one);
        }
    }

    #[test]
    fn postings_read_back_and_refuse_broken_offsets() {
        let lists = vec![vec![0, 3, 9], vec![], vec![2]];
        let postings = Postings::from_lists(&lists);
        let bytes = postcard::to_allocvec(&postings).unwrap();
        let read: Postings = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(read.len(), 3);
        assert!(read.iter().eq(lists.iter().map(Vec::as_slice)));
        let broken = Postings {
            starts: vec![0, 3, 1, 4],
            names: vec![0, 3, 9, 2],
        };
        let bytes = postcard::to_allocvec(&broken).unwrap();
        assert!(postcard::from_bytes::<Postings>(&bytes).is_err());
    }

    #[test]
    fn token_ids_find_each_text_and_nothing_else() {
        let texts = ["putin", "vladimir", "", "kim", "jong"];
        let ids = TokenIds::new(texts.iter().copied());
        for (id, text) in texts.iter().enumerate() {
            assert_eq!(ids.get(*text), Some(id as u32));
        }
        assert!(!ids.contains_key("putn"));
        let bytes = postcard::to_allocvec(&ids).unwrap();
        let read: TokenIds = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(read.get("kim"), None, "no texts until they are filled");
        let read = TokenIds::with_arena(read.into_table(), ids.texts.clone(), ids.ends.clone());
        assert_eq!(read.get("kim"), Some(3));
    }
}
