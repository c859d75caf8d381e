//! A read-only multimap from 64-bit hashes to token ids, for the index's look-up tables
//! (phonetic keys, consonant skeletons, one-letter deletions).
//!
//! The pairs are kept sorted by hash, as before, with a table of where each run of hashes
//! sharing their top bits begins: a look-up reads one offset and a bucket of a pair or two,
//! where a binary search over the two million deletion pairs touched some twenty cache lines
//! (it was a tenth of a query's time).

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
}

/// A `HashMap` hashed with [`FnvHasher`].
pub(crate) type FastMap<K, V> =
    std::collections::HashMap<K, V, std::hash::BuildHasherDefault<FnvHasher>>;

/// Sorted `(hash, token id)` pairs with a bucket index over the hashes' top bits; stored as
/// its pairs alone (the bucket index is worked out again when read).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(into = "StoredTable", from = "StoredTable")]
pub(crate) struct HashTable {
    pairs: Vec<(u64, u32)>,
    /// `starts[b]` is the first pair whose hash's top bits are `b`; one more at the end.
    starts: Vec<u32>,
    /// 64 minus the number of top bits that pick a bucket.
    shift: u32,
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
        // About one bucket per pair: a bucket holds one pair on average.
        let bits = (usize::BITS - pairs.len().leading_zeros()).clamp(1, MAX_BITS);
        let shift = 64 - bits;
        let mut starts = vec![0u32; (1usize << bits) + 1];
        for &(h, _) in &pairs {
            starts[(h >> shift) as usize + 1] += 1;
        }
        for b in 1..starts.len() {
            starts[b] += starts[b - 1];
        }
        HashTable {
            pairs,
            starts,
            shift,
        }
    }

    /// The ids stored under `h`.
    pub fn get(&self, h: u64) -> impl Iterator<Item = u32> + '_ {
        let b = (h >> self.shift) as usize;
        let bucket = &self.pairs[self.starts[b] as usize..self.starts[b + 1] as usize];
        let start = bucket.partition_point(|(k, _)| *k < h);
        bucket[start..]
            .iter()
            .take_while(move |(k, _)| *k == h)
            .map(|(_, id)| *id)
    }
}

/// A [`HashTable`] as stored: its hashes and its ids, each as little-endian bytes (one
/// copy, where a serialised list of pairs costs a variable-length integer each).
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct StoredTable {
    #[serde(with = "serde_bytes")]
    hashes: Vec<u8>,
    #[serde(with = "serde_bytes")]
    ids: Vec<u8>,
}

impl From<HashTable> for StoredTable {
    fn from(table: HashTable) -> StoredTable {
        StoredTable {
            hashes: table.pairs.iter().flat_map(|p| p.0.to_le_bytes()).collect(),
            ids: table.pairs.iter().flat_map(|p| p.1.to_le_bytes()).collect(),
        }
    }
}

impl From<StoredTable> for HashTable {
    /// The table of the stored pairs; pairs out of order (a damaged file that kept its
    /// checksum) are sorted, so that look-ups stay correct for what it holds.
    fn from(stored: StoredTable) -> HashTable {
        let hashes = stored.hashes.chunks_exact(8);
        let ids = stored.ids.chunks_exact(4);
        let mut pairs: Vec<(u64, u32)> = hashes
            .zip(ids)
            .map(|(h, id)| {
                let h: [u8; 8] = h.try_into().unwrap_or_default();
                let id: [u8; 4] = id.try_into().unwrap_or_default();
                (u64::from_le_bytes(h), u32::from_le_bytes(id))
            })
            .collect();
        if !pairs.is_sorted() {
            pairs.sort_unstable();
        }
        HashTable::new(pairs)
    }
}

impl HashTable {
    /// The largest id stored, for checking a table read from a file.
    pub fn max_id(&self) -> Option<u32> {
        self.pairs.iter().map(|p| p.1).max()
    }
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
    }
}
