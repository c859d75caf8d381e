//! The immutable in-memory index: every listed name, normalised into tokens, with a vocabulary
//! of distinct tokens and three ways into it: the token itself, its phonetic key, and its
//! one-letter deletions (which find tokens one or two typos away without scanning).

use rayon::prelude::*;

use super::normalize::{self, Token, TokenKind};
use super::prefetch::prefetch;
use super::script::skeletons;
use super::similarity::{Head, folded_key, phonetic_key};
pub(crate) use super::stored::Entities;
pub(crate) use super::table::hash;
use super::table::{FNV_OFFSET, FastMap, HashTable, Postings, TokenIds, fnv_step};
use crate::model::{AliasQuality, EntityKind, EntityNames, ListCode};
use compact_str::CompactString;

/// What a match reports about its entry.
#[derive(Debug, Clone)]
pub(crate) struct IndexedEntity {
    pub entity_id: String,
    pub list: ListCode,
    pub kind: EntityKind,
    pub primary_name: String,
    pub country: Option<String>,
    /// The last day of the listing, where the list gives one.
    pub listing_ends: Option<String>,
    pub facts: crate::model::EntityFacts,
}

/// What the request's filters read of an entry.
#[derive(Debug, Clone)]
pub(crate) struct EntityMeta {
    pub kind: EntityKind,
    pub list: ListCode,
    pub listing_ends: Option<Box<str>>,
    /// Its country ties and dates of birth, for the facts' points of every entry a
    /// screening scores.
    pub facts: super::facts::Held,
}

/// What the request's filters read of an entry ([`Index::entity_filter`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct EntityFilter {
    pub kind: EntityKind,
    pub list: ListCode,
    /// Its listing has a last day (which [`EntityMeta::listing_ends`] gives).
    pub ends: bool,
}

impl EntityFilter {
    fn of(meta: &EntityMeta) -> EntityFilter {
        EntityFilter {
            kind: meta.kind,
            list: meta.list,
            ends: meta.listing_ends.is_some(),
        }
    }
}

/// One listed name (a primary name, an alias, or an alias without its parenthetical part).
///
/// Its texts are [`CompactString`]s (short ones held inline, without an allocation of their
/// own), so that reading a persisted index allocates little per name (`stored`).
#[derive(Debug, Clone)]
pub(crate) struct IndexedName {
    pub entity: u32,
    /// The name as the list publishes it.
    pub text: CompactString,
    pub weak: bool,
    /// Its tokens, the first [`NameTokens`]' few inline: read with the name, without a
    /// second look-up elsewhere in memory.
    pub tokens: NameTokens,
    pub compact: CompactString,
    /// Sum of the tokens' weights.
    pub weight: f32,
    /// Holds adjacent abjad words the lists may romanise as one (`normalize::abjad_joins`):
    /// only such names are compared with a Latin query word as a compound.
    pub abjad_joins: bool,
    /// Bit `i` (for `i < 64`): words `i` and `i + 1` are a listed compound given name
    /// ([`Index::is_compound`]), worked out once here for the scorer's `half_of_compound`.
    pub compounds: u64,
    /// The first name of the index with this name's [`Shape`]
    /// (its own id when it is the first): names of one shape score alike for every query,
    /// so a screening scores each shape once ([`Index::mark_shapes`]).
    pub shape: u32,
}

/// What the candidate stage and the scorer's look-up of shapes read of a name
/// ([`Index::name_meta`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct NameMeta {
    pub entity: u32,
    pub weight: f32,
    pub shape: u32,
    /// Its entry's [`EntityFilter`], held here so that the candidate stage filters a name
    /// without a second read elsewhere in memory (16 bytes a name, four to a cache line).
    pub filter: EntityFilter,
}

impl NameMeta {
    fn of(name: &IndexedName, filters: &[EntityFilter]) -> NameMeta {
        NameMeta {
            entity: name.entity,
            weight: name.weight,
            shape: name.shape,
            filter: filters[name.entity as usize],
        }
    }
}

/// A name's tokens: most names have four or fewer, held inline.
pub(crate) type NameTokens = smallvec::SmallVec<[NameToken; 4]>;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct NameToken {
    pub id: u32,
    pub kind: TokenKind,
    /// Its word's length and first byte (the word is `vocab[id]`).
    pub head: Head,
}

impl NameToken {
    pub(crate) fn new(id: u32, kind: TokenKind, text: &str) -> NameToken {
        NameToken {
            id,
            kind,
            head: Head::of(text),
        }
    }
}

/// What of a listed name its score depends on: its tokens (which give its whole string,
/// weight and compounds), whether it is a weak alias and whether it holds abjad words the
/// lists may romanise as one. Names of one shape score alike for every query.
#[derive(PartialEq, Eq, Hash)]
struct Shape<'a> {
    tokens: &'a [NameToken],
    weak: bool,
    abjad_joins: bool,
}

impl<'a> Shape<'a> {
    fn of(name: &'a IndexedName) -> Shape<'a> {
        Shape {
            tokens: &name.tokens,
            weak: name.weak,
            abjad_joins: name.abjad_joins,
        }
    }
}

/// One distinct token of the lists (its texts held inline: [`IndexedName`]).
#[derive(Debug, Clone)]
pub(crate) struct VocabToken {
    pub text: CompactString,
    pub key: CompactString,
    /// Its [`folded_key`]: variants spelt alike, vowels kept.
    pub folded: CompactString,
    /// How many names contain it.
    pub df: u32,
    /// Its weight as a word (see [`Index::weight_for_df`]), computed once.
    pub idf: f32,
    /// Only ever seen as two adjacent words written as one (`alfa bank` filed as `alfabank`):
    /// found by exact look-up, left out of the typo and phonetic tables.
    pub pair_only: bool,
    /// Seen written in an abjad (Arabic, Hebrew): a Latin query meets it by skeleton.
    pub abjad: bool,
}

/// Whether a token of `kind` weighs by how many names hold it ([`Index::weight_for_df`]): a
/// word or a number; a legal form, particle or initial weighs the same whatever the lists
/// hold, so a list update moves none of them.
pub(crate) fn weighs_by_frequency(kind: TokenKind) -> bool {
    matches!(kind, TokenKind::Word | TokenKind::Number)
}

/// The weight of a word held by `df` of `names` names (0 for a word the lists lack, which
/// weighs as a word of one name): `ln(1 + names / df)`, at least 1.
pub(crate) fn word_weight(names: usize, df: u32) -> f32 {
    let n = names.max(1) as f32;
    (1.0 + n / df.max(1) as f32).ln().max(1.0)
}

/// The names of some entries and, per token text, (names holding it that are not a split
/// reading, names holding it): what those entries add to an index's document frequencies.
pub(crate) struct NameCounts {
    pub names: usize,
    pub tokens: FastMap<String, (u32, u32)>,
}

/// The screening index. Built once, shared read-only, replaced whole after an import.
///
/// It is stored (`stored`: the persisted index) as what it is built from and its tables,
/// column by column; what is derived from the rest in a linear pass (the per-name arrays)
/// is left out and worked out again when read.
#[derive(Debug, Default)]
pub struct Index {
    /// The entries, each read from its stored bytes when first reported ([`Entities`]).
    pub(crate) entities: Entities,
    pub(crate) names: Vec<IndexedName>,
    /// Each name's entry, weight and shape, side by side for the candidate stage, which
    /// visits thousands of names per query, and for the scorer's look-up of a shape already
    /// scored: neither needs anything else of a name.
    pub(crate) name_meta: Vec<NameMeta>,
    /// Each entry's kind, list and last day of listing, for the request's filters, which
    /// the candidate stage applies to every name that passes its floor.
    pub(crate) entity_meta: Vec<EntityMeta>,
    /// Each entry's kind, list and whether its listing has a last day: what the request's
    /// filters read of every name past the candidate floor, in an array that stays in cache
    /// ([`Index::entity_meta`] holds the rest).
    pub(crate) entity_filter: Vec<EntityFilter>,
    /// This index among all built or read by the process (0 for an empty default one): what
    /// per-thread memories of look-ups in it are keyed by ([`Index::generation`]).
    generation: u64,
    pub(crate) vocab: Vec<VocabToken>,
    /// The vocabulary's ids by text.
    pub(crate) token_ids: TokenIds,
    /// For each token id, the names containing it (ascending, no repeats).
    pub(crate) postings: Postings,
    /// (hash of a phonetic key, token id).
    pub(crate) by_key: HashTable,
    /// (hash of a token's consonant skeleton, token id), sorted: every word, for queries
    /// written in an abjad.
    pub(crate) by_skeleton: HashTable,
    /// The same for the words written in an abjad only, for Latin queries.
    pub(crate) by_skeleton_abjad: HashTable,
    /// (hash of a token, or of it with one letter deleted, token id), sorted: a query
    /// token or one of its deletions found here is at most two edits from the listed token.
    pub(crate) by_deletion: HashTable,
    /// (hash of a word's [`folded_key`], or of it with one letter deleted, token id): a query
    /// word or one of its deletions found here is one edit of the folded form from the
    /// listed word (a typo on top of a romanisation variant). Words of [`MIN_FOLDED_WORD`]
    /// letters or more, not written in an abjad.
    pub(crate) by_folded: HashTable,
    /// Every token id, sorted by the token's text: the words that begin with a prefix.
    pub(crate) by_text: Vec<u32>,
}

/// What the build grows name by name, made into the index's arrays at the end
/// ([`Index::finish`]).
#[derive(Default)]
struct Growing {
    token_ids: FastMap<String, u32>,
    postings: Vec<Vec<u32>>,
}

/// The least length of a token whose deletions are indexed.
pub(crate) const MIN_DELETION_LEN: usize = 4;
/// The least length of a word filed under its folded form: shorter words have no typo to
/// spare on top of a variant (see [`super::similarity::folded_similarity`]).
pub(crate) const MIN_FOLDED_WORD: usize = 4;

impl Index {
    /// How each token of name `name_id` was written, for explanations: the word as the list
    /// writes it where it is not in Latin letters, else empty. Worked out again from the
    /// name's text (only for the few names reported; the index keeps no copy), and all
    /// empty when that text gives other tokens than the index holds.
    pub(crate) fn written_tokens(&self, name_id: u32) -> Vec<String> {
        let Some(name) = self.names.get(name_id as usize) else {
            return Vec::new();
        };
        if name.text.is_ascii() {
            return Vec::new();
        }
        let organisation = self.entities[name.entity as usize].kind != EntityKind::Individual;
        let indexed: Vec<&str> = name
            .tokens
            .iter()
            .map(|t| self.vocab[t.id as usize].text.as_str())
            .collect();
        variants(&name.text)
            .iter()
            .map(|(variant, _)| normalize::tokens(variant, organisation))
            .find(|tokens| {
                tokens
                    .iter()
                    .map(|t| t.text.as_str())
                    .eq(indexed.iter().copied())
            })
            .map(|tokens| tokens.into_iter().map(|t| t.written).collect())
            .unwrap_or_default()
    }

    /// Builds the index from every entry's names.
    pub fn build(entries: &[EntityNames]) -> Index {
        let normalised: Vec<Vec<Normalised>> = entries.par_iter().map(normalise_entry).collect();
        let mut index = Index::default();
        let mut growing = Growing::default();
        // Which names are a listed name read with a joined word split (`split`), by name id.
        let mut readings: Vec<bool> = Vec::new();
        for (entry, names) in entries.iter().zip(normalised) {
            let entity = index.entities.len() as u32;
            index.entities.push(IndexedEntity {
                entity_id: entry.entity_id.clone(),
                list: entry.list,
                kind: entry.kind,
                primary_name: entry.primary_name.clone(),
                country: entry.country.clone(),
                listing_ends: entry.listing_ends.clone(),
                facts: entry.facts.clone(),
            });
            for (text, weak, tokens, reading) in names {
                readings.push(reading);
                index.add_name(&mut growing, entity, text, weak, &tokens);
            }
        }
        index.finish(growing, &readings);
        index
    }

    fn add_name(
        &mut self,
        growing: &mut Growing,
        entity: u32,
        text: String,
        weak: bool,
        tokens: &[Token],
    ) {
        let name_id = self.names.len() as u32;
        let mut name_tokens = NameTokens::with_capacity(tokens.len());
        for token in tokens {
            let id = self.token_id(growing, &token.text);
            self.vocab[id as usize].pair_only = false;
            self.vocab[id as usize].abjad |= token.abjad;
            let postings = &mut growing.postings[id as usize];
            if postings.last() != Some(&name_id) {
                postings.push(name_id);
            }
            name_tokens.push(NameToken::new(id, token.kind, &token.text));
        }
        // Every pair of adjacent words is filed under the joined form too, at any length
        // (`Alfa-Bank` under `alfabank`), for look-up only: the name's tokens stay as
        // published. Legal forms and numbers are never joined.
        for pair in tokens.windows(2) {
            let word = |t: &Token| t.kind != TokenKind::Legal && t.kind != TokenKind::Number;
            if word(&pair[0]) && word(&pair[1]) {
                let joined = format!("{}{}", pair[0].text, pair[1].text);
                let new = !growing.token_ids.contains_key(&joined);
                let id = self.token_id(growing, &joined);
                // Pairs often written as one word (a particle or a short word: `al qaida`,
                // `jong un`) stay in the typo tables as before.
                if new && !normalize::joinable(&pair[0], &pair[1]) {
                    self.vocab[id as usize].pair_only = true;
                }
                let postings = &mut growing.postings[id as usize];
                if postings.last() != Some(&name_id) {
                    postings.push(name_id);
                }
            }
        }
        self.names.push(IndexedName {
            entity,
            text: text.into(),
            weak,
            compact: normalize::compact(tokens).into(),
            tokens: name_tokens,
            weight: 0.0,
            abjad_joins: (0..tokens.len()).any(|i| !normalize::abjad_joins(tokens, i).is_empty()),
            compounds: 0,
            shape: 0,
        });
    }

    /// The id of `text` in the vocabulary, adding it if new.
    fn token_id(&mut self, growing: &mut Growing, text: &str) -> u32 {
        if let Some(&id) = growing.token_ids.get(text) {
            return id;
        }
        let id = self.vocab.len() as u32;
        self.vocab.push(VocabToken {
            text: text.into(),
            key: phonetic_key(text).into(),
            folded: folded_key(text).into(),
            df: 0,
            idf: 0.0,
            pair_only: false,
            abjad: false,
        });
        growing.postings.push(Vec::new());
        growing.token_ids.insert(text.to_owned(), id);
        id
    }

    /// The postings and the vocabulary's map as the index keeps them, document frequencies,
    /// name weights and the look-up tables.
    fn finish(&mut self, growing: Growing, readings: &[bool]) {
        self.postings = Postings::from_lists(&growing.postings);
        drop(growing.postings);
        self.token_ids = TokenIds::new(self.vocab.iter().map(|t| t.text.as_str()));
        self.count_frequencies(readings);
        self.weigh_names();
        self.mark_compounds();
        self.mark_shapes();
        self.derive_arrays();
        self.by_key = self.key_table();
        let (by_skeleton, by_skeleton_abjad) = self.skeleton_tables();
        self.by_skeleton = by_skeleton;
        self.by_skeleton_abjad = by_skeleton_abjad;
        self.by_deletion = self.deletion_table();
        self.by_folded = self.folded_table();
        self.by_text = (0..self.vocab.len() as u32).collect();
        let vocab = &self.vocab;
        self.by_text
            .par_sort_unstable_by(|&a, &b| vocab[a as usize].text.cmp(&vocab[b as usize].text));
    }

    /// Each token's document frequency and weight as a word.
    fn count_frequencies(&mut self, readings: &[bool]) {
        for (id, postings) in self.postings.iter().enumerate() {
            // A listed name read with a joined word split is that name again: it makes none of
            // its words commoner (a word only such readings hold counts once).
            let counted = postings
                .iter()
                .filter(|&&n| !readings.get(n as usize).copied().unwrap_or(false))
                .count();
            self.vocab[id].df = counted.max(postings.len().min(1)) as u32;
        }
        for id in 0..self.vocab.len() {
            self.vocab[id].idf = self.weight_for_df(self.vocab[id].df, TokenKind::Word);
        }
    }

    /// Each name's [`IndexedName::compounds`], once the vocabulary is whole.
    fn mark_compounds(&mut self) {
        let marks: Vec<u64> = self
            .names
            .par_iter()
            .map(|name| {
                let pairs = name.tokens.windows(2).take(64).enumerate();
                pairs
                    .filter(|(_, pair)| self.is_compound(pair[0].id, pair[1].id))
                    .fold(0u64, |marks, (i, _)| marks | 1 << i)
            })
            .collect();
        for (name, marks) in self.names.iter_mut().zip(marks) {
            name.compounds = marks;
        }
    }

    /// Each name's [`IndexedName::shape`]: the first name of the same shape.
    fn mark_shapes(&mut self) {
        let mut first: FastMap<Shape, u32> =
            FastMap::with_capacity_and_hasher(self.names.len(), Default::default());
        let shapes: Vec<u32> = (0..self.names.len() as u32)
            .map(|id| {
                let shape = Shape::of(&self.names[id as usize]);
                *first.entry(shape).or_insert(id)
            })
            .collect();
        for (name, shape) in self.names.iter_mut().zip(shapes) {
            name.shape = shape;
        }
    }

    /// Whether listed words `first` and `second`, side by side, are a compound given name:
    /// both of two syllables or more and the lists also write them as one word (not only as
    /// a pair's look-up form). The one-syllable words of Korean, Chinese or Burmese names
    /// (`Kyong Hui`, `Chol Hak`, `Saw Myint`) are written apart and together alike, and one of
    /// them alone is still the name.
    pub(crate) fn is_compound(&self, first: u32, second: u32) -> bool {
        let (a, b) = (
            &self.vocab[first as usize].text,
            &self.vocab[second as usize].text,
        );
        syllables(a) >= 2
            && syllables(b) >= 2
            && self
                .joined_id(a, b)
                .is_some_and(|id| !self.vocab[id as usize].pair_only)
    }

    /// The vocabulary's id of `first` and `second` written as one word, joined on the stack
    /// when they fit.
    pub(crate) fn joined_id(&self, first: &str, second: &str) -> Option<u32> {
        let len = first.len() + second.len();
        let mut buf = [0u8; 64];
        if len > buf.len() {
            return self.token_ids.get(format!("{first}{second}").as_str());
        }
        buf[..first.len()].copy_from_slice(first.as_bytes());
        buf[first.len()..len].copy_from_slice(second.as_bytes());
        let joined = std::str::from_utf8(&buf[..len]).ok()?;
        self.token_ids.get(joined)
    }

    /// Each name's weight: the sum of its tokens'.
    fn weigh_names(&mut self) {
        let weights: Vec<f32> = self
            .names
            .iter()
            .map(|n| {
                n.tokens
                    .iter()
                    .map(|t| self.token_weight(t.id, t.kind))
                    .sum()
            })
            .collect();
        for (name, weight) in self.names.iter_mut().zip(weights) {
            name.weight = weight;
        }
    }

    /// (hash of a phonetic key, token id) of every token with a key, pairs aside.
    fn key_table(&self) -> HashTable {
        let mut by_key: Vec<(u64, u32)> = self
            .vocab
            .iter()
            .enumerate()
            .filter(|(_, t)| t.key.len() >= 2 && !t.pair_only)
            .map(|(id, t)| (hash(t.key.as_bytes()), id as u32))
            .collect();
        by_key.sort_unstable();
        HashTable::new(by_key)
    }

    /// (hash of a consonant skeleton, token id): of every word, and of the words written in
    /// an abjad only.
    fn skeleton_tables(&self) -> (HashTable, HashTable) {
        let mut by_skeleton: Vec<(u64, u32)> = self
            .vocab
            .iter()
            .enumerate()
            .filter(|(_, t)| !t.pair_only)
            .flat_map(|(id, t)| {
                // A word written in an abjad under each of its readings.
                skeletons(&t.text, t.abjad)
                    .into_iter()
                    .filter(|s| s.len() >= 2)
                    .map(move |s| (hash(s.as_bytes()), id as u32))
            })
            .collect();
        by_skeleton.sort_unstable();
        by_skeleton.dedup();
        let by_skeleton_abjad: Vec<(u64, u32)> = by_skeleton
            .iter()
            .filter(|(_, id)| self.vocab[*id as usize].abjad)
            .copied()
            .collect();
        (
            HashTable::new(by_skeleton),
            HashTable::new(by_skeleton_abjad),
        )
    }

    /// (hash of a token or of it with one letter deleted, token id).
    fn deletion_table(&self) -> HashTable {
        let mut by_deletion: Vec<(u64, u32)> = self
            .vocab
            .par_iter()
            .enumerate()
            .filter(|(_, t)| t.text.len() + 1 >= MIN_DELETION_LEN && !t.pair_only)
            .flat_map_iter(|(id, t)| {
                let whole = std::iter::once(hash(t.text.as_bytes()));
                let deleted = (t.text.len() >= MIN_DELETION_LEN).then(|| deletions(&t.text));
                whole
                    .chain(deleted.into_iter().flatten())
                    .map(move |h| (h, id as u32))
            })
            .collect();
        by_deletion.par_sort_unstable();
        by_deletion.dedup();
        HashTable::new(by_deletion)
    }

    /// (hash of a word's folded form or of it with one letter deleted, token id).
    fn folded_table(&self) -> HashTable {
        let mut by_folded: Vec<(u64, u32)> = self
            .vocab
            .par_iter()
            .enumerate()
            .filter(|(_, t)| t.text.len() >= MIN_FOLDED_WORD && !t.pair_only && !t.abjad)
            .flat_map_iter(|(id, t)| {
                std::iter::once(hash(t.folded.as_bytes()))
                    .chain(deletions(&t.folded))
                    .map(move |h| (h, id as u32))
            })
            .collect();
        by_folded.par_sort_unstable();
        by_folded.dedup();
        HashTable::new(by_folded)
    }

    /// The per-name and per-entry arrays of the candidate stage, from the names and entries.
    pub(crate) fn derive_arrays(&mut self) {
        static GENERATIONS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        self.generation = GENERATIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.entity_meta = self.entities.meta();
        self.entity_filter = self.entity_meta.iter().map(EntityFilter::of).collect();
        let filters = &self.entity_filter;
        self.name_meta = self
            .names
            .iter()
            .map(|name| NameMeta::of(name, filters))
            .collect();
    }

    /// Asks for what scoring listed names reads first of each (its tokens, its compact
    /// string, its words' texts), for all of `names` before any is scored; see
    /// [`Index::ask_memory_for_words`].
    pub(crate) fn ask_memory_for_names(&self, names: &[u32]) {
        for &name_id in names {
            // A name spans two or three lines of the cache: each field scoring reads.
            let name = &self.names[name_id as usize];
            prefetch(&name.tokens);
            prefetch(&name.compact);
            prefetch(&name.weight);
            prefetch(&name.weak);
            prefetch(&name.abjad_joins);
            prefetch(&name.compounds);
        }
        for &name_id in names {
            self.ask_memory_for_words(self.names[name_id as usize].tokens.iter().map(|t| t.id));
        }
    }

    /// Asks for the text of each listed word of `ids`, all of them before any is compared.
    /// Most are elsewhere in memory, in no cache: asked together, they arrive together
    /// instead of one after the other, each while the processor waits ([`prefetch`]).
    pub(crate) fn ask_memory_for_words(&self, ids: impl IntoIterator<Item = u32>) {
        for id in ids {
            prefetch(&self.vocab[id as usize].text);
        }
    }

    /// Asks for the [`NameMeta`] of `name` ([`prefetch`]): asked for as each candidate
    /// passes, they arrive while the candidate stage goes on.
    pub(crate) fn ask_memory_for_meta(&self, name: u32) {
        if let Some(meta) = self.name_meta.get(name as usize) {
            prefetch(meta);
        }
    }

    /// Which index this is among those of the process: a new number for each index built or
    /// read (derived arrays are worked out once per index), 0 for an empty default one.
    pub(crate) fn generation(&self) -> u64 {
        self.generation
    }

    /// The first listed word (in text order) that begins with `prefix` and that `fits`,
    /// among the first [`PREFIX_SCAN`] that begin with it.
    pub(crate) fn word_with_prefix(
        &self,
        prefix: &str,
        fits: impl Fn(&str) -> bool,
    ) -> Option<u32> {
        let start = self
            .by_text
            .partition_point(|&id| self.vocab[id as usize].text.as_str() < prefix);
        self.by_text[start..]
            .iter()
            .take(PREFIX_SCAN)
            .take_while(|&&id| self.vocab[id as usize].text.starts_with(prefix))
            .find(|&&id| fits(&self.vocab[id as usize].text))
            .copied()
    }

    /// Number of entries indexed.
    pub fn entity_count(&self) -> usize {
        self.entities.len()
    }

    /// Number of entries that pass `keep`: what a screening with that filter searches (the
    /// denominator of a "no match"). `keep` is given each entry's list, kind and the last day
    /// of its listing, if any.
    pub fn count_entries(
        &self,
        keep: impl Fn(ListCode, EntityKind, Option<&str>) -> bool,
    ) -> usize {
        self.entity_meta
            .iter()
            .filter(|e| keep(e.list, e.kind, e.listing_ends.as_deref()))
            .count()
    }

    /// Number of names indexed (aliases and variants included).
    pub fn name_count(&self) -> usize {
        self.names.len()
    }

    /// How much a token weighs: rare words a lot, common ones little, legal forms and
    /// initials least.
    pub(crate) fn token_weight(&self, id: u32, kind: TokenKind) -> f32 {
        match self.vocab.get(id as usize) {
            Some(token) if weighs_by_frequency(kind) => token.idf,
            _ => self.weight_for_df(0, kind),
        }
    }

    /// The weight of a token of `kind` that occurs in `df` names (0 for a token the lists
    /// lack): a word's or a number's by how rare it is ([`weighs_by_frequency`]), the others'
    /// constant.
    pub(crate) fn weight_for_df(&self, df: u32, kind: TokenKind) -> f32 {
        match kind {
            TokenKind::Legal | TokenKind::Particle => LEGAL_WEIGHT,
            TokenKind::Initial => INITIAL_WEIGHT,
            TokenKind::Word | TokenKind::Number => word_weight(self.names.len(), df),
        }
    }

    /// Token `id`'s document frequency and the number of names holding it (a listed name's
    /// split reading included: [`NameCounts`]).
    pub(crate) fn token_counts(&self, id: usize) -> (u32, u32) {
        (self.vocab[id].df, self.postings[id].len() as u32)
    }

    /// What `entries` alone add to the names and to each token's counts, counted as
    /// [`Index::build`] counts them (their split readings apart).
    pub(crate) fn name_counts(entries: &[EntityNames]) -> NameCounts {
        let mut index = Index::default();
        let mut growing = Growing::default();
        let mut readings: Vec<bool> = Vec::new();
        for names in entries.iter().map(normalise_entry) {
            for (text, weak, tokens, reading) in names {
                readings.push(reading);
                index.add_name(&mut growing, 0, text, weak, &tokens);
            }
        }
        let tokens = growing
            .postings
            .iter()
            .zip(&index.vocab)
            .map(|(postings, token)| {
                let counted = postings
                    .iter()
                    .filter(|&&n| !readings.get(n as usize).copied().unwrap_or(false))
                    .count() as u32;
                (token.text.to_string(), (counted, postings.len() as u32))
            })
            .collect();
        NameCounts {
            names: index.names.len(),
            tokens,
        }
    }

    /// Token ids whose phonetic key is `key`.
    pub(crate) fn tokens_with_key(&self, key: &str) -> impl Iterator<Item = u32> + '_ {
        self.by_key.get(hash(key.as_bytes()))
    }

    /// Token ids whose consonant skeleton is `skeleton`: any word's, or only the words
    /// written in an abjad.
    pub(crate) fn tokens_with_skeleton(
        &self,
        skeleton: &str,
        abjad_only: bool,
    ) -> impl Iterator<Item = u32> + '_ {
        let table = if abjad_only {
            &self.by_skeleton_abjad
        } else {
            &self.by_skeleton
        };
        table.get(hash(skeleton.as_bytes()))
    }

    /// Token ids that, whole or with one letter deleted, hash to one of `hs`, appended to
    /// `out`.
    pub(crate) fn tokens_with_deletions(&self, hs: &[u64], out: &mut Vec<u32>) {
        self.by_deletion.get_all(hs, out);
    }

    /// Token ids whose folded form, whole or with one letter deleted, hashes to one of
    /// `hs`, appended to `out`.
    pub(crate) fn tokens_with_foldeds(&self, hs: &[u64], out: &mut Vec<u32>) {
        self.by_folded.get_all(hs, out);
    }
}

/// How many words beginning with one prefix [`Index::word_with_prefix`] looks at: bounds
/// the work for a short, common prefix.
const PREFIX_SCAN: usize = 256;

/// The syllables of a word: vowels that follow a consonant, and a vowel it begins with.
fn syllables(text: &str) -> usize {
    let is_vowel = |c: u8| matches!(c, b'a' | b'e' | b'i' | b'o' | b'u');
    let bytes = text.as_bytes();
    bytes
        .windows(2)
        .filter(|w| !is_vowel(w[0]) && is_vowel(w[1]))
        .count()
        + usize::from(bytes.first().is_some_and(|&c| is_vowel(c)))
}

/// Weight of a legal form or a particle: weak evidence.
const LEGAL_WEIGHT: f32 = 0.5;
/// Weight of an initial.
const INITIAL_WEIGHT: f32 = 1.0;

/// A listed name as the index files it: the name as published, whether it is a weak alias,
/// its tokens, and whether it is a reading with a joined word split (`split`).
type Normalised = (String, bool, Vec<Token>, bool);

/// The names of one entry to index: each name and its variants (`variants`) normalised,
/// a variant with the same words as one already kept left out.
fn normalise_entry(entry: &EntityNames) -> Vec<Normalised> {
    let organisation = entry.kind != EntityKind::Individual;
    let mut seen: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for (name, quality) in &entry.names {
        for (variant, reading) in variants(name) {
            let tokens = normalize::tokens(&variant, organisation);
            let mut key: Vec<&str> = tokens.iter().map(|t| t.text.as_str()).collect();
            key.sort_unstable();
            let key = key.join(" ");
            if tokens.is_empty() || seen.contains(&key) {
                continue;
            }
            seen.push(key);
            out.push((
                name.clone(),
                *quality == AliasQuality::Weak,
                tokens,
                reading,
            ));
        }
    }
    out
}

/// The name itself, its reading with a joined word split when it holds one, and, when it has
/// a parenthetical part, the name without it (`ISLAMIC REVOLUTIONARY GUARD CORPS (IRGC)`);
/// each with whether it is the split reading.
fn variants(name: &str) -> Vec<(String, bool)> {
    let mut out = vec![(name.to_owned(), false)];
    // A word written in Arabic script that the Latin names write as two (`محمدتقی` /
    // `Mohammad Taghi`): the name read with it split too (`split::compound_reading`).
    out.extend(super::split::compound_reading(name).map(|r| (r, true)));
    if name.contains('(') {
        let mut depth = 0usize;
        let stripped: String = name
            .chars()
            .filter(|&c| {
                match c {
                    '(' => depth += 1,
                    ')' => {
                        depth = depth.saturating_sub(1);
                        return false;
                    }
                    _ => {}
                }
                depth == 0
            })
            .collect();
        if stripped.chars().any(char::is_alphanumeric) {
            out.push((stripped, false));
        }
    }
    out
}

/// Hashes of `token` with each one of its letters deleted.
pub(crate) fn deletions(token: &str) -> impl Iterator<Item = u64> + '_ {
    let bytes = token.as_bytes();
    (0..bytes.len()).map(move |skip| {
        let mut h = FNV_OFFSET;
        for (i, &b) in bytes.iter().enumerate() {
            if i != skip {
                h = fnv_step(h, b);
            }
        }
        h
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn entry(id: &str, kind: EntityKind, names: &[&str]) -> EntityNames {
        EntityNames {
            entity_id: format!("ofac_sdn:{id}"),
            list: ListCode::OfacSdn,
            kind,
            primary_name: names[0].to_owned(),
            country: None,
            names: names
                .iter()
                .map(|n| (n.to_string(), AliasQuality::Unspecified))
                .collect(),
            listing_ends: None,
            facts: Default::default(),
        }
    }

    #[test]
    fn builds_vocabulary_postings_and_variants() {
        let index = Index::build(&[
            entry(
                "1",
                EntityKind::Individual,
                &["PUTIN, Vladimir", "Vladimir Putin"],
            ),
            entry(
                "2",
                EntityKind::Entity,
                &["ISLAMIC REVOLUTIONARY GUARD CORPS (IRGC)"],
            ),
        ]);
        assert_eq!(index.entity_count(), 2);
        // "Vladimir Putin" is "PUTIN, Vladimir" reordered: indexed once. The IRGC name is
        // indexed with and without its parenthetical part.
        assert_eq!(index.name_count(), 3);
        let putin = index.token_ids.get("putin").unwrap();
        assert_eq!(index.vocab[putin as usize].df, 1);
        assert!(index.token_ids.contains_key("irgc"));
        // The deletion table finds "putin" from "ptin".
        let mut found = Vec::new();
        index.tokens_with_deletions(&[hash(b"xyzzy"), hash(b"ptin")], &mut found);
        assert!(found.contains(&putin));
        assert!(index.tokens_with_key("ptn").any(|id| id == putin));
    }

    #[test]
    fn rare_tokens_weigh_more() {
        let index = Index::build(&[
            entry("1", EntityKind::Individual, &["Mohammed Nasrallah"]),
            entry("2", EntityKind::Individual, &["Mohammed Ali"]),
            entry("3", EntityKind::Individual, &["Mohammed Hassan"]),
        ]);
        let id = |text: &str| index.token_ids.get(text).unwrap();
        let common = index.token_weight(id("mohammed"), TokenKind::Word);
        let rare = index.token_weight(id("nasrallah"), TokenKind::Word);
        assert!(rare > common);
        assert!(index.weight_for_df(0, TokenKind::Word) >= rare);
    }
}
