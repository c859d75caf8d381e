//! The most a query can score against a few entries of the index (those a list update added
//! or changed), worked out from its tokens without scoring it: the watchlist's incremental
//! re-screen screens again only the favorites whose bound reaches the threshold.
//!
//! The bound is worked out for each changed name on its own, as the engine scores each
//! listed name on its own and keeps an entry's best: a favorite is selected only when its
//! bound against one changed name (plus the points its date of birth and country get from
//! that name's entry) reaches the threshold. It follows the scorer ([`super::score`]) step
//! by step:
//!
//! - A name's score is `query coverage ^ 1 * name coverage ^ 0.4` (at most the query
//!   coverage, since a coverage is at most 1), or the whole-name comparison's (at most 0.95),
//!   times 0.95 for a weak alias (at most 1).
//! - The query coverage against name `N` is `Σ pairs (covered query weight × similarity) /
//!   query total`. Each query token is covered by at most one pair, so the numerator is at
//!   most `Σ weight(t) × best_N(t)`, where `best_N(t)` is the highest similarity of any pair
//!   that can cover `t` against `N`: a single pair ([`QueryToken::similarity_to`], the
//!   engine's own, on every token of `N` it can be other than `None` for), two query words
//!   as one listed word or as two listed words with the break elsewhere, one query word as
//!   two listed words, a Latin word as listed abjad words. The query total counts each token
//!   at its weight when paired and at its unpaired weight (never more) otherwise, so it is
//!   at least `Σ unpaired weight(t)`.
//! - The whole-name comparison counts only strings of 8 letters or more at most a tenth
//!   apart; with `d ≤ len / 9` edits, one of `d + 1` pieces of the query's string, a letter
//!   apart, is in the listed string unchanged. The comparison itself
//!   ([`super::score::compact_similarity`]) is made only with the changed names' strings that
//!   hold such a piece.
//! - Date of birth and country add what [`facts::weigh`] gives them against the name's
//!   entry, exactly as the engine adds them; an entry the request's type filter refuses is
//!   never a hit.
//!
//! The work per favorite is small: each distinct token's similarities to the changed names
//! are worked out once per [`BoundCache`] (a list of (changed name, most it adds), sorted by
//! name), and a favorite adds up those lists; two adjacent words written as one are compared
//! only with the changed words of their first letter and about their joined length, and only
//! with those their distinct letters and pairs of adjacent letters leave within the edits the
//! similarity allows (two proofs that it cannot reach its minimum otherwise: [`apart`],
//! [`bigrams_apart`]); the same filters come before [`QueryToken`]'s `farther`.
//!
//! Queries the scorer reads otherwise (two readings of a name in two scripts, a name read
//! literally, words written in an abjad) and requests whose date of birth or country the
//! engine refuses are not bounded: [`ChangedEntries::most`] answers 100 for them, so they
//! are always screened again.

#[cfg(test)]
mod tests;

use std::collections::HashSet;
use std::sync::{Arc, RwLock};

use super::abjad_pairs;
use super::drift::WeightDrift;
use super::facts::{self, QueryFacts};
use super::index::{Index, IndexedName, hash};
use super::joins::joins_of;
use super::letters::{bigrams, edits_allowed, letters, within};
use super::lexicon;
use super::normalize::{self, TokenKind};
use super::query::{JOINED_SKELETON, MIN_JOINED_SKELETON, QueryToken, Reading};
use super::read_name::ReadName;
use super::score::compact_similarity;
use super::script;
use super::similarity::{
    JOINED_MIN, MIN_SIMILARITY, MatchKind, joined_similarity, joined_similarity_compared,
};
use super::table::FastMap;
use super::{KindFilter, Request};

/// The shortest string the whole-name comparison reads.
const COMPACT_MIN_LEN: usize = 8;
/// The pieces of a query's string looked for in the changed names' strings are at most this
/// long (a piece found whole is found by its start too).
const PIECE_MAX: usize = 8;
/// The shortest piece: a string of 9 letters has two pieces of 4 a letter apart.
const PIECE_MIN: usize = 4;
/// Relative room for f32 rounding between the early exit's sum of each token's most and the
/// per-name sums of [`ChangedEntries::coverage_bounds`].
const SUM_ROOM: f32 = 1e-5;
/// The most tokens of a query the bound reads (each token's most is kept in an array of this
/// length while its joins are looked up).
const MAX_TOKENS: usize = 64;
/// Room for float rounding between the bound's sums and the scorer's.
const ROUNDING: f32 = 0.002;

/// A listed token of a changed name: its id, its kind there, and the changed name (an index
/// into [`ChangedEntries::names`]).
type Listed = (u32, TokenKind, u32);

/// What a query token adds in a single pair with a listed token, and whether an initial
/// made the pair.
type Single = (f32, bool);

/// The tokens and strings of the names of some entries of one index (the changed ones), as
/// the bound reads them, each with the changed name it belongs to.
pub struct ChangedEntries {
    /// The entry (index of `Index::entities`) of each changed name.
    names: Vec<u32>,
    /// Each changed name's run of `ties`: its entry's countries ([`facts::country_ties`]),
    /// side by side here so that weighing a favorite's country against every name it meets
    /// reads no entry's facts.
    tie_runs: Vec<(u32, u32)>,
    ties: Vec<compact_str::CompactString>,
    /// Every listed token of the changed names (and the vocabulary's words that write two
    /// adjacent ones as one), with the kind it has there, sorted by id.
    tokens: Vec<Listed>,
    /// The changed names' tokens by text: a legal form meets only its own spelling.
    by_text: FastMap<String, Vec<Listed>>,
    /// The changed names' tokens by their first byte: an initial meets any word it begins,
    /// and a long word a word of about its length with its first letter.
    by_first: Vec<Vec<Listed>>,
    /// Each distinct listed word of `by_first[byte]`, with what [`QueryToken`]'s `farther`
    /// filters it by, side by side: the filter reads no vocabulary entry.
    words_by_first: Vec<Vec<WordRun>>,
    /// The changed tokens that are initials.
    initials: Vec<Listed>,
    /// What two query words written as one can meet: the changed names' words that are no
    /// legal form, and their adjacent words written as one; by first byte and length.
    join_targets: Targets,
    /// What one query word can meet as two listed words: adjacent words written as one.
    pair_targets: Targets,
    /// Latin spellings the lexicon gives for adjacent listed abjad words written as one.
    abjad_spellings: FastMap<&'static str, Vec<u32>>,
    /// The joined skeletons of those words, long enough to count.
    abjad_skeletons: FastMap<String, Vec<u32>>,
    /// The changed names' whole strings of [`COMPACT_MIN_LEN`] bytes or more, with their name.
    compacts: Vec<(String, u32)>,
    /// How the weights moved, when a selection asks whether a query reads a moved word
    /// ([`ChangedEntries::reading_drift`]): worked out once per distinct token, with its
    /// bound.
    drift: Option<WeightDrift>,
    /// Hash of every piece of [`PIECE_MIN`] to [`PIECE_MAX`] bytes of those strings -> the
    /// strings that hold it.
    pieces: FastMap<u64, Vec<u32>>,
}

/// What the bound keeps of one query token.
#[derive(Debug, Clone, Copy)]
struct TokenBound {
    weight: f32,
    unpaired: f32,
    /// The most this token adds to the query coverage's numerator against any changed name.
    best: f32,
    /// Whether it weighs as a word whose weight moved ([`WeightDrift::moves_token`]).
    moves: bool,
    /// `BoundCache::per_name[from..to]`: the most it adds against each changed name it can
    /// meet alone or as one word against two listed ones (its weight times the pair's
    /// similarity; a word met by an initial counts for no more than the initial), by name;
    /// `[to..light]`: the same for the names it meets only as an initial or by an initial
    /// (small, and many: added up only where they can matter), by name.
    from: u32,
    to: u32,
    light: u32,
    /// The most of those.
    light_most: f32,
}

/// Per-thread memory of the bound's work (each distinct token is looked at once) and its
/// scratch buffers (no allocation of its own per favorite once warm).
#[derive(Default)]
pub struct BoundCache {
    /// The token bounds every thread of one selection has worked out ([`SharedBounds`]):
    /// a token this cache meets first is copied from there when another thread has it.
    shared: Option<Arc<SharedBounds>>,
    /// A token's key ([`token_key`]) -> its index in `bounds`.
    tokens: FastMap<Box<str>, u32>,
    bounds: Vec<TokenBound>,
    per_name: Vec<(u32, f32)>,
    key: String,
    joined: String,
    /// The runs of [`JoinsMet::found`] of the query's pairs of adjacent words.
    join_runs: Vec<(u32, u32)>,
    query: Vec<u32>,
    /// (changed name, query token, most a join adds).
    met: Vec<(u32, u32, f32)>,
    /// The query coverage's numerator per changed name, and the names it is not 0 for.
    acc: Vec<f32>,
    touched: Vec<u32>,
    /// (changed name, most of the name's score).
    names: Vec<(u32, f32)>,
    found: Vec<(u32, f32, bool)>,
    holders: Vec<u32>,
    joins: JoinsMet,
    /// Whether the initials' lists are read through (`Some(true)`) or looked up per name
    /// (`Some(false)`) whatever their length: the tests' check that both sum alike.
    #[cfg(test)]
    initials_read_through: Option<bool>,
}

impl BoundCache {
    /// A cache that shares its token bounds with the other threads' caches over `shared`
    /// (the same [`ChangedEntries`] and index for all of them).
    pub fn sharing(shared: Arc<SharedBounds>) -> BoundCache {
        BoundCache {
            shared: Some(shared),
            ..BoundCache::default()
        }
    }

    /// Keeps `bound` with its lists of names (`singles`, then `lights`) under the current
    /// key: its index in `bounds`.
    fn keep(&mut self, bound: SharedBound<'_>) -> u32 {
        let from = self.per_name.len() as u32;
        self.per_name.extend_from_slice(bound.singles);
        let to = self.per_name.len() as u32;
        self.per_name.extend_from_slice(bound.lights);
        self.push_bound(TokenBound {
            from,
            to,
            light: self.per_name.len() as u32,
            ..bound.bound
        })
    }

    /// Keeps `bound`, whose lists `per_name` holds, under the current key: its index in
    /// `bounds`.
    fn push_bound(&mut self, bound: TokenBound) -> u32 {
        let at = self.bounds.len() as u32;
        self.bounds.push(bound);
        self.tokens.insert(self.key.as_str().into(), at);
        at
    }

    /// The bound at `at` with its lists, as [`BoundCache::keep`] takes it.
    fn kept(&self, at: u32) -> SharedBound<'_> {
        let bound = self.bounds[at as usize];
        let list = |from: u32, to: u32| &self.per_name[from as usize..to as usize];
        SharedBound {
            bound,
            singles: list(bound.from, bound.to),
            lights: list(bound.to, bound.light),
        }
    }
}

/// The token bounds of one selection's threads, each worked out by the first thread that
/// meets its token and copied by the others ([`BoundCache::sharing`]): a watchlist's
/// common words are in every thread's share, and a token's bound costs a search of the
/// changed names (some 100,000 instructions) where a copy costs its lists.
#[derive(Default)]
pub struct SharedBounds {
    /// A token's key -> its bound and its lists of names (singles, then lights, split at
    /// the `u32`).
    tokens: RwLock<FastMap<Box<str>, SharedEntry>>,
}

/// A bound as one cache kept it (its `from`, `to` and `light` are that cache's: a copy
/// sets its own), where its singles end in its lists, and its lists.
type SharedEntry = (TokenBound, u32, Box<[(u32, f32)]>);

/// A token's bound with its lists of names, borrowed.
struct SharedBound<'a> {
    bound: TokenBound,
    singles: &'a [(u32, f32)],
    lights: &'a [(u32, f32)],
}

impl SharedBounds {
    /// Copies the bound of `cache.key` into `cache` when a thread has worked it out: its
    /// index in `cache.bounds`.
    fn copy_into(&self, cache: &mut BoundCache) -> Option<u32> {
        let tokens = self.tokens.read().unwrap_or_else(|e| e.into_inner());
        let (bound, split, lists) = tokens.get(cache.key.as_str())?;
        let (singles, lights) = lists.split_at(*split as usize);
        Some(cache.keep(SharedBound {
            bound: *bound,
            singles,
            lights,
        }))
    }

    /// Offers the bound `cache` just worked out at `at` to the other threads.
    fn offer(&self, cache: &BoundCache, at: u32) {
        let kept = cache.kept(at);
        let lists: Box<[(u32, f32)]> = kept.singles.iter().chain(kept.lights).copied().collect();
        let entry = (kept.bound, kept.singles.len() as u32, lists);
        let mut tokens = self.tokens.write().unwrap_or_else(|e| e.into_inner());
        tokens.entry(cache.key.as_str().into()).or_insert(entry);
    }
}

/// Whether [`ChangedEntries::coverage_bounds`] reads a token's list of `len` names met by
/// initials through, rather than look up each of the `touched` names met otherwise in it.
fn reads_through(len: usize, touched: usize, _cache: &BoundCache) -> bool {
    #[cfg(test)]
    if let Some(forced) = _cache.initials_read_through {
        return forced;
    }
    let look_up = (usize::BITS - len.leading_zeros()) as usize;
    len <= touched.saturating_mul(look_up)
}

/// What two adjacent query words written as one meet among the join targets
/// ([`Targets::meeting`]), remembered per pair of tokens: a watchlist's given names and
/// surnames come together again and again, and each look-up reads hundreds of targets. A
/// pair is known by its two tokens' places in the cache's bounds ([`BoundCache::bounds`],
/// never emptied: a place names one token key, whose text is the word's), so that a pair met
/// before is found by two numbers, its text neither written out nor compared. Emptied when
/// it holds [`JOINS_KEPT`] pairs, so that its memory does not grow with the watchlist.
struct JoinsMet {
    /// The two tokens' places ([`join_key`]) -> the run of `found` of their texts joined.
    texts: FastMap<u64, (u32, u32)>,
    /// (changed name, similarity) as [`Targets::meeting`] gives them, each pair's a run.
    found: Vec<(u32, f32)>,
    /// How many pairs it keeps before it is emptied.
    kept: usize,
}

impl Default for JoinsMet {
    fn default() -> Self {
        JoinsMet {
            texts: FastMap::default(),
            found: Vec::new(),
            kept: JOINS_KEPT,
        }
    }
}

/// How many pairs a thread's [`JoinsMet`] keeps (some 70 MB at most, about 34 bytes a pair
/// with the table's room). A watchlist's distinct joins grow far slower than its names
/// (785,677 of 2,359,143 adjacent pairs at 1,000,000 generated customers, 3,378,192 of
/// 23,596,777 at 10,000,000), but a memory emptied every 131,072 texts read them again nearly
/// as often as they came: this one holds a thread's share of them up to some millions of
/// customers.
const JOINS_KEPT: usize = 1 << 21;

impl JoinsMet {
    /// Empties the memory when it holds [`JoinsMet::kept`] texts: asked before a query's
    /// joins, so that the runs of one query stay valid while it is bounded.
    fn make_room(&mut self) {
        if self.texts.len() >= self.kept {
            self.texts.clear();
            self.found.clear();
        }
    }

    /// What the pair `key` of texts `(first, second)` meets among `changed`'s join targets,
    /// in [`Targets::meeting`]'s order: its run of [`JoinsMet::found`]. The texts are written
    /// as one (into `whole`) only for a pair not met before.
    fn run(
        &mut self,
        changed: &ChangedEntries,
        (key, first, second): (u64, &str, &str),
        whole: &mut String,
    ) -> (u32, u32) {
        match self.texts.get(&key) {
            Some(&run) => run,
            None => {
                let from = self.found.len() as u32;
                let found = &mut self.found;
                whole.clear();
                whole.push_str(first);
                whole.push_str(second);
                changed
                    .join_targets
                    .meeting(whole, |n, s| found.push((n, s)));
                let run = (from, self.found.len() as u32);
                self.texts.insert(key, run);
                run
            }
        }
    }

    /// The changed names and similarities of `run`.
    fn found(&self, (from, to): (u32, u32)) -> &[(u32, f32)] {
        &self.found[from as usize..to as usize]
    }
}

/// The most a whole screening gives, for queries the bound does not read.
const UNBOUNDED: u8 = 100;

/// What a query can score against the changed names ([`ChangedEntries::reach_from`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// A word of the query weighs as a word whose weight moved: its scores against the
    /// entries the update left alone are not bounded by the drift either.
    MovedWord,
    /// The most it scores against a changed name, facts included (under the floor asked
    /// where no changed name reaches it; 100 where the bound does not read the query).
    Most(u8),
}

/// What [`ChangedEntries::name_bounds`] found.
enum NameBounds {
    /// The query's facts as the engine reads them; the names into `BoundCache::names`.
    Read(QueryFacts),
    /// A query or request the bound does not read.
    Unread,
    /// A token weighs as a moved word.
    Moved,
}

impl ChangedEntries {
    /// The names of the entries `entity_ids` of `index` (ids the index lacks are skipped:
    /// removed entries score nothing).
    pub fn new<'a>(index: &Index, entity_ids: impl IntoIterator<Item = &'a str>) -> Self {
        Self::moving(index, entity_ids, None)
    }

    /// The names of the entries `entity_ids` of `index`, and every name holding a word
    /// `drift` moved (`WeightDrift::moves_name`): the names whose scores the drift does not
    /// bound. (An entry's other names are bounded by it: a name holding no moved word scores
    /// within [`WeightDrift::points`] of before.)
    pub fn moving<'a>(
        index: &Index,
        entity_ids: impl IntoIterator<Item = &'a str>,
        drift: Option<&WeightDrift>,
    ) -> Self {
        let wanted: HashSet<&str> = entity_ids.into_iter().collect();
        let keep = |name: &IndexedName| {
            wanted.contains(index.entities[name.entity as usize].entity_id.as_str())
                || drift.is_some_and(|d| d.moves_name(name))
        };
        let mut changed = ChangedEntries {
            names: Vec::new(),
            tie_runs: Vec::new(),
            ties: Vec::new(),
            tokens: Vec::new(),
            by_text: FastMap::default(),
            by_first: vec![Vec::new(); 256],
            words_by_first: Vec::new(),
            initials: Vec::new(),
            join_targets: Targets::default(),
            pair_targets: Targets::default(),
            abjad_spellings: FastMap::default(),
            abjad_skeletons: FastMap::default(),
            compacts: Vec::new(),
            pieces: FastMap::default(),
            drift: None,
        };
        for name in &index.names {
            if keep(name) {
                changed.add_name(index, name);
            }
        }
        let order = |t: &Listed| (t.0, t.1 as u8, t.2);
        changed.tokens.sort_unstable_by_key(order);
        changed.tokens.dedup();
        for list in changed.by_text.values_mut().chain(&mut changed.by_first) {
            list.sort_unstable_by_key(order);
            list.dedup();
        }
        changed.words_by_first = changed
            .by_first
            .iter()
            .map(|list| WordRun::runs(index, list))
            .collect();
        changed.initials.sort_unstable_by_key(order);
        changed.initials.dedup();
        changed.join_targets.finish();
        changed.pair_targets.finish();
        for list in changed
            .abjad_spellings
            .values_mut()
            .chain(changed.abjad_skeletons.values_mut())
        {
            list.sort_unstable();
            list.dedup();
        }
        for holders in changed.pieces.values_mut() {
            holders.dedup();
        }
        changed
    }

    /// These entries with how the weights moved: [`ChangedEntries::reach_from`] then also
    /// tells a query that reads a moved word ([`WeightDrift::moves_query`]), from each
    /// distinct token's bound rather than by looking each word up again.
    pub fn reading_drift(mut self, drift: Option<WeightDrift>) -> Self {
        self.drift = drift;
        self
    }

    /// Whether no entry is changed (no query can reach one).
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// How many names the changed entries have.
    pub fn name_count(&self) -> usize {
        self.names.len()
    }

    fn add_name(&mut self, index: &Index, name: &IndexedName) {
        let at = self.names.len() as u32;
        self.names.push(name.entity);
        let from = self.ties.len() as u32;
        let facts = &index.entities[name.entity as usize].facts;
        self.ties
            .extend(facts::country_ties(facts).map(|c| c.as_str().into()));
        self.tie_runs.push((from, self.ties.len() as u32));
        let text = |li: usize| index.vocab[name.tokens[li].id as usize].text.as_str();
        for (li, t) in name.tokens.iter().enumerate() {
            let token = (t.id, t.kind, at);
            self.tokens.push(token);
            self.by_text
                .entry(text(li).to_owned())
                .or_default()
                .push(token);
            if let Some(&first) = text(li).as_bytes().first() {
                self.by_first[first as usize].push(token);
            }
            if t.kind == TokenKind::Initial {
                self.initials.push(token);
            }
            if t.kind != TokenKind::Legal {
                self.join_targets.push(text(li), at);
            }
        }
        for li in 0..name.tokens.len().saturating_sub(1) {
            let joined = format!("{}{}", text(li), text(li + 1));
            if let Some(id) = index.token_ids.get(joined.as_str()) {
                self.tokens.push((id, TokenKind::Word, at));
            }
            let legal = name.tokens[li].kind == TokenKind::Legal
                || name.tokens[li + 1].kind == TokenKind::Legal;
            self.join_targets.push(&joined, at);
            if !legal {
                self.pair_targets.push(&joined, at);
            }
        }
        if name.abjad_joins {
            self.add_abjad_joins(index, name, at);
        }
        if name.compact.len() >= COMPACT_MIN_LEN {
            let string = self.compacts.len() as u32;
            let bytes = name.compact.as_bytes();
            for start in 0..bytes.len() {
                for len in PIECE_MIN..=PIECE_MAX {
                    if let Some(piece) = bytes.get(start..start + len) {
                        let holders = self.pieces.entry(hash(piece)).or_default();
                        if holders.last() != Some(&string) {
                            holders.push(string);
                        }
                    }
                }
            }
            self.compacts.push((name.compact.to_string(), at));
        }
    }

    /// What a Latin query word can meet in the listed abjad words of `name` written as one
    /// (`abjad_pairs::latin_word_as_listed_abjad_words`).
    fn add_abjad_joins(&mut self, index: &Index, name: &IndexedName, at: u32) {
        let unit = |li: usize| abjad_pairs::listed_join_unit(index, name, li);
        for li in 0..name.tokens.len() {
            for (_, joined) in joins_of(unit, li) {
                for &spelling in lexicon::latin_spellings(&joined) {
                    self.abjad_spellings.entry(spelling).or_default().push(at);
                }
                let readings = script::joined_skeletons(&joined);
                if readings
                    .first()
                    .is_some_and(|s| s.len() >= MIN_JOINED_SKELETON)
                {
                    for reading in readings {
                        self.abjad_skeletons.entry(reading).or_default().push(at);
                    }
                }
            }
        }
    }

    /// The most `request` can score (0..=100, date of birth and country included) against
    /// any name of the changed entries, at or above the score [`super::screen`] gives it
    /// for any of them. 100 for a query the bound does not read (see the module's doc).
    pub fn most(&self, index: &Index, request: &Request, cache: &mut BoundCache) -> u8 {
        self.bound(index, request, 0, cache)
    }

    /// [`ChangedEntries::most`] where it is at least `floor`; under `floor` (not the most)
    /// where no changed name can reach `floor`. Names under `floor` are not worked out.
    /// With the weights' drift ([`ChangedEntries::reading_drift`]), [`Reach::MovedWord`]
    /// instead where the query reads a moved word (the drift does not bound its scores).
    /// `read` is `request`'s name read once ([`ReadName::of`]), as other checks of the same
    /// request read it.
    pub fn reach_from(
        &self,
        index: &Index,
        request: &Request,
        read: &ReadName,
        floor: u8,
        cache: &mut BoundCache,
    ) -> Reach {
        self.bound_from(index, (request, read), floor, false, cache)
    }

    /// Whether `request` can reach its threshold against a changed entry.
    pub fn reaches(&self, index: &Index, request: &Request, cache: &mut BoundCache) -> bool {
        let threshold = request.threshold.unwrap_or(super::DEFAULT_THRESHOLD);
        self.bound(index, request, threshold, cache) >= threshold
    }

    /// The most `request` scores against a changed name, facts included, where that reaches
    /// `threshold`; under `threshold` where no name can reach it (100 where it reads a moved
    /// word: not bounded).
    fn bound(&self, index: &Index, request: &Request, threshold: u8, cache: &mut BoundCache) -> u8 {
        let read = ReadName::of(request);
        match self.bound_from(index, (request, &read), threshold, true, cache) {
            Reach::Most(most) => most,
            Reach::MovedWord => UNBOUNDED,
        }
    }

    /// [`ChangedEntries::bound`], stopping at the first name that reaches `threshold` when
    /// `stop` (else the most of all).
    fn bound_from(
        &self,
        index: &Index,
        (request, read): (&Request, &ReadName),
        threshold: u8,
        stop: bool,
        cache: &mut BoundCache,
    ) -> Reach {
        if self.is_empty() {
            return self.moved_or(index, read, 0);
        }
        let facts = match self.name_bounds(index, request, read, threshold, cache) {
            NameBounds::Read(facts) => facts,
            NameBounds::Unread => return self.moved_or(index, read, UNBOUNDED),
            NameBounds::Moved => return Reach::MovedWord,
        };
        // A name bound far enough under the threshold stays under it, facts included.
        let below = |percent: u8| i16::from(percent) + i16::from(facts::MAX_POINTS);
        let mut most = 0u8;
        let mut names = std::mem::take(&mut cache.names);
        if threshold <= percent(0.0) + facts::MAX_POINTS as u8 {
            // Every changed name then counts, those the query meets nowhere too.
            names.extend((0..self.names.len() as u32).map(|n| (n, 0.0)));
        }
        for &(n, name) in &names {
            let percent = percent(name);
            if below(percent) < i16::from(threshold) {
                most = most.max(below(percent).clamp(0, 100) as u8);
                continue;
            }
            let entity = self.names[n as usize];
            let kind = index.entity_filter[entity as usize].kind;
            if request.kind.is_some_and(|k| !k.accepts(kind)) {
                continue;
            }
            let points = if facts.is_empty() {
                0
            } else {
                let (from, to) = self.tie_runs[n as usize];
                let ties = self.ties[from as usize..to as usize].iter();
                let listed = &index.entities[entity as usize].facts;
                facts::points(&facts, listed, ties.map(|t| t.as_str()))
            };
            most = most.max((i16::from(percent) + i16::from(points)).clamp(0, 100) as u8);
            if stop && most >= threshold && threshold > 0 {
                break;
            }
        }
        names.clear();
        cache.names = names;
        Reach::Most(most)
    }

    /// [`Reach::MovedWord`] where `read` reads a moved word (looked up word by word: a name
    /// the bound does not read), else `most`.
    fn moved_or(&self, index: &Index, read: &ReadName, most: u8) -> Reach {
        if self
            .drift
            .as_ref()
            .is_some_and(|d| d.moves_query(index, read))
        {
            Reach::MovedWord
        } else {
            Reach::Most(most)
        }
    }

    /// The most the name of `request` scores against each changed name it meets (0..=1), as
    /// [`super::screen_one`] reads it, into `cache.names` (by name, each once), for the names
    /// where that can reach `threshold` with the most the facts add; with the request's
    /// facts as the engine reads them. [`NameBounds::Unread`] where the bound does not read
    /// the query or the engine refuses the request; [`NameBounds::Moved`] where a token
    /// weighs as a moved word (with the weights' drift), before any name is worked out.
    fn name_bounds(
        &self,
        index: &Index,
        request: &Request,
        read: &ReadName,
        threshold: u8,
        cache: &mut BoundCache,
    ) -> NameBounds {
        cache.names.clear();
        if read.refused || read.several || read.literal {
            return NameBounds::Unread;
        }
        let Ok(mut facts) =
            facts::parse(request.date_of_birth.as_deref(), request.country.as_deref())
        else {
            return NameBounds::Unread;
        };
        facts.date_of_birth = facts.date_of_birth.or(read.typed.date_of_birth.clone());
        facts.country = facts.country.or(read.typed.country);
        let organisation = request.kind != Some(KindFilter::Individual);
        let tokens = &read.tokens;
        // Joins are tracked as bits of a word: a longer name is always screened again.
        if tokens.iter().any(|t| t.abjad) || tokens.len() > MAX_TOKENS {
            return NameBounds::Unread;
        }
        let mut query = std::mem::take(&mut cache.query);
        query.clear();
        query.extend(
            tokens
                .iter()
                .map(|t| self.token_bound(index, t, organisation, cache)),
        );
        if query.iter().any(|&q| cache.bounds[q as usize].moves) {
            cache.query = query;
            return NameBounds::Moved;
        }
        // The coverage can reach the threshold only when the facts' points leave room.
        let floor = (f32::from(threshold) - f32::from(facts::MAX_POINTS) - 0.5) / 100.0 - ROUNDING;
        self.coverage_bounds(&query, tokens, floor, cache);
        self.compact_bounds(&normalize::compact(tokens), floor, cache);
        cache.query = query;
        let names = &mut cache.names;
        names.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
        names.dedup_by_key(|n| n.0);
        NameBounds::Read(facts)
    }

    /// The query coverage's most against each changed name the query's tokens meet where it
    /// is at least `floor`, into `cache.names`.
    fn coverage_bounds(
        &self,
        query: &[u32],
        tokens: &[normalize::Token],
        floor: f32,
        cache: &mut BoundCache,
    ) {
        let bound = |i: usize| cache.bounds[query[i] as usize];
        let total: f32 = (0..query.len()).map(|i| bound(i).unpaired).sum();
        if total <= 0.0 {
            return;
        }
        // Joins: what each pair of adjacent words written as one meets (a run of the
        // memory), looked up only where a changed join target is of about its length. A
        // token's most is then its own or what a join it is in raises it to.
        let pairs = query.len().saturating_sub(1);
        cache.joins.make_room();
        let mut runs = std::mem::take(&mut cache.join_runs);
        runs.clear();
        let mut most_of = [0.0f32; MAX_TOKENS];
        for (i, most) in most_of.iter_mut().enumerate().take(query.len()) {
            *most = bound(i).best;
        }
        let mut joined_text = std::mem::take(&mut cache.joined);
        for i in 0..pairs {
            let (first, second) = (&tokens[i].text, &tokens[i + 1].text);
            let run = if self.joinable(first, second) {
                let pair = (join_key(query[i], query[i + 1]), &first[..], &second[..]);
                cache.joins.run(self, pair, &mut joined_text)
            } else {
                (0, 0)
            };
            let s = cache
                .joins
                .found(run)
                .iter()
                .map(|f| f.1)
                .fold(0.0, f32::max);
            most_of[i] = most_of[i].max(bound(i).weight * s);
            most_of[i + 1] = most_of[i + 1].max(bound(i + 1).weight * s);
            runs.push(run);
        }
        cache.joined = joined_text;
        // With room for the sums below, which add a join's part as the difference from the
        // token's own (a rounding apart from the part itself).
        let most: f32 = most_of[..query.len()].iter().sum::<f32>() * (1.0 + SUM_ROOM);
        if most / total < floor {
            cache.join_runs = runs;
            return;
        }
        // Each token's most per name, added up per name (`acc`, by name; `touched` lists
        // the names met, in the order met).
        let (mut acc, mut touched) = (
            std::mem::take(&mut cache.acc),
            std::mem::take(&mut cache.touched),
        );
        acc.resize(self.names.len(), 0.0);
        // Names met only by initials reach `floor` only where the initials' most can.
        let light_most: f32 = query
            .iter()
            .map(|&q| cache.bounds[q as usize].light_most)
            .sum();
        let all_light = light_most / total >= floor;
        for &q in query {
            let b = cache.bounds[q as usize];
            let to = if all_light { b.light } else { b.to };
            for &(n, m) in &cache.per_name[b.from as usize..to as usize] {
                if acc[n as usize] == 0.0 {
                    touched.push(n);
                }
                acc[n as usize] += m;
            }
        }
        // Joins raise each of their two tokens to the join's similarity times its weight,
        // where that is more than the token's own most against the name.
        let mut raised = std::mem::take(&mut cache.met);
        raised.clear();
        for (i, &run) in runs.iter().enumerate() {
            let (first, second) = (bound(i).weight, bound(i + 1).weight);
            for &(n, s) in cache.joins.found(run) {
                raised.push((n, i as u32, first * s));
                raised.push((n, i as u32 + 1, second * s));
            }
        }
        cache.join_runs = runs;
        raised.sort_unstable_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)).then(b.2.total_cmp(&a.2)));
        raised.dedup_by_key(|r| (r.0, r.1));
        let own = |n: u32, b: &TokenBound, per_name: &[(u32, f32)]| {
            let find = |from: u32, to: u32| {
                let list = &per_name[from as usize..to as usize];
                list.binary_search_by_key(&n, |f| f.0)
                    .ok()
                    .map(|at| list[at].1)
            };
            find(b.from, b.to).or_else(|| find(b.to, b.light))
        };
        for &(n, i, value) in &raised {
            let b = cache.bounds[query[i as usize] as usize];
            // Met as an initial only: added below with the other initials when not above.
            let mine = own(n, &b, &cache.per_name).unwrap_or(0.0);
            if value > mine {
                if acc[n as usize] == 0.0 {
                    touched.push(n);
                }
                acc[n as usize] += value - mine;
            }
        }
        cache.met = raised;
        if !all_light {
            // The initials of the names met otherwise, a token at a time (each name's sum
            // in query order, as ever): a list read through where that costs less than a
            // look-up per name met (a name is met when its sum is above 0: every part is).
            for &q in query {
                let b = cache.bounds[q as usize];
                let list = &cache.per_name[b.to as usize..b.light as usize];
                if reads_through(list.len(), touched.len(), cache) {
                    for &(n, m) in list {
                        if acc[n as usize] > 0.0 {
                            acc[n as usize] += m;
                        }
                    }
                    continue;
                }
                for &n in &touched {
                    if let Ok(at) = list.binary_search_by_key(&n, |f| f.0) {
                        acc[n as usize] += list[at].1;
                    }
                }
            }
        }
        for &n in &touched {
            let coverage = (acc[n as usize] / total).min(1.0);
            if coverage >= floor {
                cache.names.push((n, coverage));
            }
            acc[n as usize] = 0.0;
        }
        touched.clear();
        cache.acc = acc;
        cache.touched = touched;
    }

    /// Whether two query words written as one can meet a join target: one of about their
    /// joined length with their first letter.
    fn joinable(&self, first: &str, second: &str) -> bool {
        let Some(&byte) = first.as_bytes().first() else {
            return false;
        };
        self.join_targets
            .near(byte, first.len() + second.len())
            .next()
            .is_some()
    }

    /// One query token's bound, worked out once per cache: its index in `cache.bounds`.
    fn token_bound(
        &self,
        index: &Index,
        token: &normalize::Token,
        organisation: bool,
        cache: &mut BoundCache,
    ) -> u32 {
        token_key(&mut cache.key, token, organisation);
        if let Some(&at) = cache.tokens.get(cache.key.as_str()) {
            return at;
        }
        let shared = cache.shared.clone();
        if let Some(at) = shared.as_ref().and_then(|s| s.copy_into(cache)) {
            return at;
        }
        let at = self.token_bound_now(index, token, organisation, cache);
        if let Some(shared) = shared {
            shared.offer(cache, at);
        }
        at
    }

    /// [`ChangedEntries::token_bound`] of a token no cache holds: worked out, kept under
    /// `cache.key`.
    fn token_bound_now(
        &self,
        index: &Index,
        token: &normalize::Token,
        organisation: bool,
        cache: &mut BoundCache,
    ) -> u32 {
        let reading = Reading {
            organisation,
            exact: false,
            leading_title: false,
        };
        let q = QueryToken::of(index, token.clone(), reading);
        let found = &mut cache.found;
        found.clear();
        if q.kind != TokenKind::Legal {
            self.pair_targets.meeting(&q.text, |n, s| {
                found.push((n, q.weight * s, false));
            });
        }
        if q.kind == TokenKind::Word && q.written.is_empty() {
            self.latin_as_abjad(&q.text, |n, s| found.push((n, q.weight * s, false)));
        }
        self.best_singles(index, &q, found);
        // Each name once, at its most.
        found.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
        found.dedup_by_key(|f| f.0);
        let from = cache.per_name.len() as u32;
        let kept = |light: bool| found.iter().filter(move |f| f.1 > 0.0 && f.2 == light);
        cache.per_name.extend(kept(false).map(|f| (f.0, f.1)));
        let to = cache.per_name.len() as u32;
        cache.per_name.extend(kept(true).map(|f| (f.0, f.1)));
        let light = cache.per_name.len() as u32;
        let most = |range: std::ops::Range<u32>| {
            cache.per_name[range.start as usize..range.end as usize]
                .iter()
                .map(|f| f.1)
                .fold(0.0, f32::max)
        };
        let (best, light_most) = (most(from..light), most(to..light));
        let moves = self
            .drift
            .as_ref()
            .is_some_and(|d| d.moves_token(index, token));
        cache.push_bound(TokenBound {
            weight: q.weight,
            unpaired: q.unpaired_weight,
            best,
            moves,
            from,
            to,
            light,
            light_most,
        })
    }

    /// What `q` adds to the coverage's numerator in a single pair with each changed token,
    /// into `found` with the token's name: its weight (no more than the listed initial's
    /// where an initial meets it) times the engine's own similarity, on every changed token
    /// where that can be other than none.
    fn best_singles(&self, index: &Index, q: &QueryToken, found: &mut Vec<(u32, f32, bool)>) {
        let first = q.text.as_bytes().first().map_or(0, |&b| b as usize);
        // Each source is sorted by token: the same listed token in several names is one
        // run, its similarity worked out once.
        let mut visit = |listed: &mut dyn Iterator<Item = &Listed>| {
            let mut last: Option<((u32, TokenKind), Option<Single>)> = None;
            for &(id, kind, name) in listed {
                let value = match last {
                    Some((seen, value)) if seen == (id, kind) => value,
                    _ => {
                        let value = q.similarity_to(id, kind, index).map(|(similarity, how)| {
                            let initial = how == MatchKind::Initial;
                            let weight = if initial {
                                q.weight.min(index.token_weight(id, kind))
                            } else {
                                q.weight
                            };
                            (weight * similarity, initial)
                        });
                        last = Some(((id, kind), value));
                        value
                    }
                };
                if let Some((value, initial)) = value {
                    found.push((name, value, initial));
                }
            }
        };
        match q.kind {
            TokenKind::Legal => {
                for text in [&q.text, &q.raw] {
                    visit(&mut self.by_text.get(text.as_str()).into_iter().flatten());
                }
            }
            TokenKind::Initial => visit(&mut self.by_first[first].iter()),
            TokenKind::Word | TokenKind::Number | TokenKind::Particle => {
                for &(id, _, _) in &q.matches {
                    let from = self.tokens.partition_point(|t| t.0 < id);
                    visit(&mut self.tokens[from..].iter().take_while(|t| t.0 == id));
                }
                // `QueryToken::farther`: long words of about the same length, same first
                // letter, and close enough in letters for the similarity it asks for (the
                // words its look-up reached are above).
                if q.kind == TokenKind::Word && q.text.len() >= 6 {
                    let own = q
                        .text
                        .is_ascii()
                        .then(|| (letters(&q.text), bigrams(&q.text)));
                    let reached = |id: u32| q.matches.iter().any(|m| m.0 == id);
                    // Each listed word looked at once, its names after it.
                    for run in &self.words_by_first[first] {
                        let near = (run.len as usize).abs_diff(q.text.len()) <= 2
                            && !reached(run.id)
                            && own.is_none_or(|own| {
                                run.within_edits(own, q.text.len(), 1.0 - MIN_SIMILARITY)
                            });
                        if near {
                            visit(&mut self.by_first[first][run.names.clone()].iter());
                        }
                    }
                }
                visit(&mut self.initials.iter());
            }
        }
    }

    /// What a Latin word meets as adjacent listed abjad words written as one, by name.
    fn latin_as_abjad(&self, text: &str, mut found: impl FnMut(u32, f32)) {
        for &n in self.abjad_spellings.get(text).into_iter().flatten() {
            found(n, lexicon::LEXICON_SIMILARITY);
        }
        if !self.abjad_skeletons.is_empty() {
            for &n in self
                .abjad_skeletons
                .get(&script::skeleton(text))
                .into_iter()
                .flatten()
            {
                found(n, JOINED_SKELETON);
            }
        }
    }

    /// The whole-name comparison's most for the query's string `compact`, against the
    /// changed names' strings that hold one of its pieces (see the module's doc), into
    /// `cache.names`.
    fn compact_bounds(&self, compact: &str, floor: f32, cache: &mut BoundCache) {
        let len = compact.len();
        if len < COMPACT_MIN_LEN || self.pieces.is_empty() {
            return;
        }
        let names = &mut cache.names;
        if !compact.is_ascii() {
            for (listed, n) in &self.compacts {
                let similarity = compact_similarity(compact, listed);
                if similarity > 0.0 && similarity >= floor {
                    names.push((*n, similarity));
                }
            }
            return;
        }
        // At most `len / 9` edits: that many pieces and one more, a byte apart (an edit,
        // a transposition included, then breaks at most one piece).
        let edits = len / 9;
        let pieces = edits + 1;
        let piece = (len - edits) / pieces;
        let bytes = compact.as_bytes();
        let holders = &mut cache.holders;
        holders.clear();
        holders.extend(
            (0..pieces)
                .filter_map(|i| {
                    let start = i * (piece + 1);
                    bytes.get(start..start + piece.min(PIECE_MAX))
                })
                .filter_map(|p| self.pieces.get(&hash(p)))
                .flatten()
                .copied(),
        );
        holders.sort_unstable();
        holders.dedup();
        for &at in holders.iter() {
            let (listed, n) = &self.compacts[at as usize];
            let similarity = compact_similarity(compact, listed);
            if similarity > 0.0 && similarity >= floor {
                names.push((*n, similarity));
            }
        }
    }
}

/// A query token's key in [`BoundCache::tokens`], into `key`: what its bound depends on.
fn token_key(key: &mut String, token: &normalize::Token, organisation: bool) {
    key.clear();
    key.push(char::from(b'0' + token.kind as u8));
    key.push(if organisation { '1' } else { '0' });
    // A word written in another script meets no listed abjad words as a Latin word does.
    key.push(if token.written.is_empty() { '0' } else { '1' });
    key.push_str(&token.text);
    key.push('\u{0}');
    key.push_str(&token.raw);
}

/// The key of two adjacent query tokens in [`JoinsMet`]: their places in the cache's
/// bounds, mixed one-to-one (an odd multiplier, then a rotation) so that its low bits, which
/// [`FastMap`]'s hash keeps in the table's slot, depend on both places: the places side by
/// side put every pair with the same second word into one run of slots.
fn join_key(first: u32, second: u32) -> u64 {
    ((u64::from(first) << 32) | u64::from(second))
        .wrapping_mul(0x9e37_79b9_7f4a_7c15)
        .rotate_left(32)
}

/// The bound's percent of a name score, as the engine rounds it (with room for rounding).
fn percent(name: f32) -> u8 {
    ((name + ROUNDING).min(1.0) * 100.0).round() as u8
}

/// Strings [`joined_similarity`] compares a query's string with (changed words, adjacent
/// changed words written as one), by first byte and length: it compares only strings of the
/// same first letter at most 2 bytes apart in length.
#[derive(Default)]
struct Targets {
    by_start: FastMap<(u8, usize), Bucket>,
}

/// The targets of one first byte and length: each distinct text once with the names that
/// hold it (a word such as `mohammad` is in hundreds of changed names, and is compared once),
/// the ASCII ones' letters as parallel arrays (read in a tight loop), the texts side by side
/// in one string (a target its letters let through is read next to the others, not from an
/// allocation of its own somewhere in the heap).
#[derive(Default)]
struct Bucket {
    /// (text, name) as pushed; emptied by [`Targets::finish`].
    pushed: Vec<(Box<str>, u32)>,
    /// [`letters`] and [`bigrams`] of each ASCII target.
    letters: Vec<u64>,
    bigrams: Vec<u64>,
    ascii: Vec<Target>,
    /// Targets not in ASCII, always compared.
    other: Vec<Target>,
    /// The targets' names, each target's a run, sorted.
    names: Vec<u32>,
    /// The targets' texts, each target's a run.
    texts: String,
}

/// A distinct target: its run of [`Bucket::texts`] and of [`Bucket::names`].
struct Target {
    text: std::ops::Range<usize>,
    names: std::ops::Range<usize>,
}

impl Bucket {
    /// Groups the pushed (text, name) pairs by text, in text order, each text's names in
    /// order and once.
    fn finish(&mut self) {
        let mut pushed = std::mem::take(&mut self.pushed);
        pushed.sort_unstable();
        pushed.dedup();
        let mut pushed = pushed.into_iter().peekable();
        while let Some((text, name)) = pushed.next() {
            let from = self.names.len();
            self.names.push(name);
            while let Some((_, next)) = pushed.next_if(|(t, _)| *t == text) {
                self.names.push(next);
            }
            let names = from..self.names.len();
            let at = self.texts.len();
            self.texts.push_str(&text);
            let target = Target {
                text: at..self.texts.len(),
                names,
            };
            if text.is_ascii() {
                self.letters.push(letters(&text));
                self.bigrams.push(bigrams(&text));
                self.ascii.push(target);
            } else {
                self.other.push(target);
            }
        }
    }

    fn text(&self, target: &Target) -> &str {
        &self.texts[target.text.clone()]
    }
}

impl Targets {
    fn push(&mut self, text: &str, name: u32) {
        if let Some(&first) = text.as_bytes().first() {
            let bucket = self.by_start.entry((first, text.len())).or_default();
            bucket.pushed.push((text.into(), name));
        }
    }

    fn finish(&mut self) {
        self.by_start.values_mut().for_each(Bucket::finish);
    }

    /// The buckets of first byte `first` at most 2 bytes longer or shorter than `len`, with
    /// their length.
    fn near(&self, first: u8, len: usize) -> impl Iterator<Item = (usize, &Bucket)> {
        (len.saturating_sub(2)..=len + 2)
            .filter_map(move |l| self.by_start.get(&(first, l)).map(|b| (l, b)))
    }

    /// Every [`joined_similarity`] of `whole` and a target that meets it, with the target's
    /// names (in the order of (text, name)). A target more edits away than [`JOINED_MIN`]
    /// leaves (a fifth of the longer's length) by its letters or its pairs of adjacent
    /// letters ([`apart`], [`bigrams_apart`]) is not compared.
    fn meeting(&self, whole: &str, mut found: impl FnMut(u32, f32)) {
        let Some(&first) = whole.as_bytes().first() else {
            return;
        };
        let ascii = whole.is_ascii();
        let own = letters(whole);
        let pairs = bigrams(whole);
        for (len, bucket) in self.near(first, whole.len()) {
            let mut found_in = |target: &Target, s: Option<f32>| {
                if let Some(s) = s {
                    for &name in &bucket.names[target.names.clone()] {
                        found(name, s);
                    }
                }
            };
            let mut compare = |target: &Target| {
                found_in(target, joined_similarity(whole, bucket.text(target), ""));
            };
            bucket.other.iter().for_each(&mut compare);
            if !ascii {
                bucket.ascii.iter().for_each(&mut compare);
                continue;
            }
            let allowed = edits_allowed(whole.len().max(len), 1.0 - JOINED_MIN);
            let chunks = bucket.letters.chunks(64).zip(bucket.bigrams.chunks(64));
            for (chunk, (letters, bigrams)) in chunks.enumerate() {
                let mut near = near_mask((own, pairs), letters, bigrams, allowed);
                while near != 0 {
                    let target = &bucket.ascii[chunk * 64 + near.trailing_zeros() as usize];
                    // Same first byte, a length at most 2 apart (the bucket's), letters
                    // near enough (the mask): past every refusal, so compared.
                    let s = joined_similarity_compared(whole, bucket.text(target), "");
                    found_in(target, s);
                    near &= near - 1;
                }
            }
        }
    }
}

/// Which of (at most 64) targets, by their [`letters`] and [`bigrams`], can be `allowed`
/// edits from a string of letters and pairs `own` ([`apart`], [`bigrams_apart`]): a bit per
/// target. Compiled twice, for any x86-64 processor and for those that count a word's bits
/// in one instruction (`popcnt`, chosen when the program starts): the counts are most of
/// the work of this loop, which reads every target of a join's first letter and length.
#[multiversion::multiversion(targets("x86_64+popcnt"))]
fn near_mask(own: (u64, u64), letters: &[u64], bigrams: &[u64], allowed: u32) -> u64 {
    let mut near = 0u64;
    for (at, (&theirs, &their_pairs)) in letters.iter().zip(bigrams).take(64).enumerate() {
        if within(own, (theirs, their_pairs), allowed) {
            near |= 1 << at;
        }
    }
    near
}

/// A distinct listed word of a list sorted by token ([`ChangedEntries::by_first`]): its
/// length, and for an ASCII word its [`letters`] and [`bigrams`], with its run of the list.
struct WordRun {
    id: u32,
    len: u32,
    /// `None` for a word not in ASCII.
    letters: Option<(u64, u64)>,
    names: std::ops::Range<usize>,
}

impl WordRun {
    /// The runs of `list` (sorted by token), in its order.
    fn runs(index: &Index, list: &[Listed]) -> Vec<WordRun> {
        let mut runs: Vec<WordRun> = Vec::new();
        for (at, &(id, _, _)) in list.iter().enumerate() {
            match runs.last_mut() {
                Some(run) if run.id == id => run.names.end = at + 1,
                _ => runs.push(WordRun::new(id, &index.vocab[id as usize].text, at..at + 1)),
            }
        }
        runs
    }

    fn new(id: u32, text: &str, names: std::ops::Range<usize>) -> WordRun {
        WordRun {
            id,
            len: text.len() as u32,
            letters: text.is_ascii().then(|| (letters(text), bigrams(text))),
            names,
        }
    }

    /// Whether a query word (its [`letters`] and [`bigrams`] `own`, `len` bytes) can be at
    /// most `share` of the longer one's length edits from this word ([`apart`],
    /// [`bigrams_apart`]; a word not in ASCII may be).
    fn within_edits(&self, own: (u64, u64), len: usize, share: f32) -> bool {
        let allowed = edits_allowed(len.max(self.len as usize), share);
        self.letters
            .is_none_or(|theirs| within(own, theirs, allowed))
    }
}
