//! The most a query can score against a few entries of the index (those a list update added
//! or changed), worked out from its tokens without scoring it: the watchlist's incremental
//! re-screen screens again only the favorites whose bound reaches the threshold.
//!
//! The bound follows the scorer ([`super::score`]) step by step:
//!
//! - A name's score is `query coverage ^ 1 * name coverage ^ 0.4` (at most the query
//!   coverage, since a coverage is at most 1), or the whole-name comparison's (at most 0.95),
//!   times 0.95 for a weak alias (at most 1).
//! - The query coverage is `Σ pairs (covered query weight × similarity) / query total`. Each
//!   query token is covered by at most one pair, so the numerator is at most `Σ weight(t) ×
//!   best(t)`, where `best(t)` is the highest similarity of any pair that can cover `t` against
//!   any changed name: a single pair ([`QueryToken::similarity_to`], the engine's own, on
//!   every changed token it can be other than `None` for), two query words as one listed word
//!   or as two listed words with the break elsewhere, one query word as two listed words, a
//!   Latin word as listed abjad words. The query total counts each token at its weight
//!   when paired and at its unpaired weight (never more) otherwise, so it is at least
//!   `Σ unpaired weight(t)`.
//! - The whole-name comparison counts only strings of 8 letters or more at most a tenth
//!   apart; with `d ≤ len / 9` edits, one of `d + 1` pieces of the query's string, a letter
//!   apart, is in the listed string unchanged. The comparison itself
//!   ([`super::score::compact_similarity`]) is made only with the changed names' strings that
//!   hold such a piece.
//! - Date of birth and country add at most [`facts::MAX_POINTS`].
//!
//! Queries the scorer reads otherwise (two readings of a name in two scripts, a name read
//! literally, words written in an abjad) are not bounded: [`ChangedEntries::most`] answers
//! 100 for them, so they are always screened again.

#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet};

use super::abjad_pairs;
use super::facts;
use super::index::{Index, IndexedName, hash};
use super::joins::joins_of;
use super::lexicon;
use super::literal;
use super::normalize::{self, TokenKind};
use super::query::{JOINED_SKELETON, MIN_JOINED_SKELETON, QueryToken, Reading};
use super::score::compact_similarity;
use super::script;
use super::similarity::{MatchKind, joined_similarity};
use super::{KindFilter, MAX_NAME_CHARS, Request, alternatives};

/// The shortest string the whole-name comparison reads.
const COMPACT_MIN_LEN: usize = 8;
/// The pieces of a query's string looked for in the changed names' strings are at most this
/// long (a piece found whole is found by its start too).
const PIECE_MAX: usize = 8;
/// The shortest piece: a string of 9 letters has two pieces of 4 a letter apart.
const PIECE_MIN: usize = 4;
/// Room for float rounding between the bound's sums and the scorer's.
const ROUNDING: f32 = 0.002;

/// The tokens and strings of the names of some entries of one index (the changed ones), as
/// the bound reads them.
pub struct ChangedEntries {
    /// Every listed token of the changed names (and the vocabulary's words that write two
    /// adjacent ones as one), with the kind it has there, sorted by id.
    tokens: Vec<(u32, TokenKind)>,
    /// The changed names' tokens by text: a legal form meets only its own spelling.
    by_text: HashMap<String, Vec<(u32, TokenKind)>>,
    /// The changed names' tokens by their first byte: an initial meets any word it begins,
    /// and a long word a word of about its length with its first letter.
    by_first: Vec<Vec<(u32, TokenKind)>>,
    /// The changed tokens that are initials.
    initials: Vec<(u32, TokenKind)>,
    /// What two query words written as one can meet: the changed names' words that are no
    /// legal form, and their adjacent words written as one; by first byte.
    join_targets: Vec<Vec<String>>,
    /// What one query word can meet as two listed words: adjacent words written as one.
    pair_targets: Vec<Vec<String>>,
    /// Latin spellings the lexicon gives for adjacent listed abjad words written as one.
    abjad_spellings: HashSet<&'static str>,
    /// The joined skeletons of those words, long enough to count.
    abjad_skeletons: HashSet<String>,
    /// The changed names' whole strings of [`COMPACT_MIN_LEN`] bytes or more.
    compacts: Vec<String>,
    /// Hash of every piece of [`PIECE_MIN`] to [`PIECE_MAX`] bytes of those strings -> the
    /// strings that hold it.
    pieces: HashMap<u64, Vec<u32>>,
}

/// What the bound keeps of one query token.
#[derive(Debug, Clone, Copy)]
struct TokenBound {
    weight: f32,
    unpaired: f32,
    /// The most this token adds to the query coverage's numerator alone or as one word
    /// against two listed ones: its weight times the pair's similarity (a word met by an
    /// initial counts for no more than the initial).
    matched: f32,
}

/// Per-thread memory of the bound's work: each distinct token and each two words written as
/// one are looked at once.
#[derive(Default)]
pub struct BoundCache {
    tokens: HashMap<(TokenKind, bool, String, String), TokenBound>,
    joins: HashMap<String, f32>,
}

/// The most a whole screening gives, for queries the bound does not read.
const UNBOUNDED: u8 = 100;

impl ChangedEntries {
    /// The names of the entries `entity_ids` of `index` (ids the index lacks are skipped:
    /// removed entries score nothing).
    pub fn new<'a>(index: &Index, entity_ids: impl IntoIterator<Item = &'a str>) -> Self {
        let wanted: HashSet<&str> = entity_ids.into_iter().collect();
        let names: Vec<&IndexedName> = index
            .names
            .iter()
            .filter(|n| wanted.contains(index.entities[n.entity as usize].entity_id.as_str()))
            .collect();
        let mut changed = ChangedEntries {
            tokens: Vec::new(),
            by_text: HashMap::new(),
            by_first: vec![Vec::new(); 256],
            initials: Vec::new(),
            join_targets: vec![Vec::new(); 256],
            pair_targets: vec![Vec::new(); 256],
            abjad_spellings: HashSet::new(),
            abjad_skeletons: HashSet::new(),
            compacts: Vec::new(),
            pieces: HashMap::new(),
        };
        for name in names {
            changed.add_name(index, name);
        }
        changed.tokens.sort_unstable_by_key(|t| (t.0, t.1 as u8));
        changed.tokens.dedup();
        for list in changed.by_text.values_mut().chain(&mut changed.by_first) {
            list.sort_unstable_by_key(|t| (t.0, t.1 as u8));
            list.dedup();
        }
        changed.initials.sort_unstable_by_key(|t| (t.0, t.1 as u8));
        changed.initials.dedup();
        for list in changed
            .join_targets
            .iter_mut()
            .chain(&mut changed.pair_targets)
        {
            list.sort_unstable();
            list.dedup();
        }
        for holders in changed.pieces.values_mut() {
            holders.dedup();
        }
        changed
    }

    /// Whether no entry is changed (no query can reach one).
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    fn add_name(&mut self, index: &Index, name: &IndexedName) {
        let text = |li: usize| index.vocab[name.tokens[li].id as usize].text.as_str();
        for (li, t) in name.tokens.iter().enumerate() {
            let token = (t.id, t.kind);
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
                push_target(&mut self.join_targets, text(li).to_owned());
            }
        }
        for li in 0..name.tokens.len().saturating_sub(1) {
            let joined = format!("{}{}", text(li), text(li + 1));
            if let Some(&id) = index.token_ids.get(joined.as_str()) {
                self.tokens.push((id, TokenKind::Word));
            }
            let legal = name.tokens[li].kind == TokenKind::Legal
                || name.tokens[li + 1].kind == TokenKind::Legal;
            push_target(&mut self.join_targets, joined.clone());
            if !legal {
                push_target(&mut self.pair_targets, joined);
            }
        }
        if name.abjad_joins {
            self.add_abjad_joins(index, name);
        }
        if name.compact.len() >= COMPACT_MIN_LEN {
            let at = self.compacts.len() as u32;
            let bytes = name.compact.as_bytes();
            for start in 0..bytes.len() {
                for len in PIECE_MIN..=PIECE_MAX {
                    if let Some(piece) = bytes.get(start..start + len) {
                        let holders = self.pieces.entry(hash(piece)).or_default();
                        if holders.last() != Some(&at) {
                            holders.push(at);
                        }
                    }
                }
            }
            self.compacts.push(name.compact.clone());
        }
    }

    /// What a Latin query word can meet in the listed abjad words of `name` written as one
    /// (`abjad_pairs::latin_word_as_listed_abjad_words`).
    fn add_abjad_joins(&mut self, index: &Index, name: &IndexedName) {
        let unit = |li: usize| abjad_pairs::listed_join_unit(index, name, li);
        for li in 0..name.tokens.len() {
            for (_, joined) in joins_of(unit, li) {
                self.abjad_spellings
                    .extend(lexicon::latin_spellings(&joined).iter().copied());
                let readings = script::joined_skeletons(&joined);
                if readings
                    .first()
                    .is_some_and(|s| s.len() >= MIN_JOINED_SKELETON)
                {
                    self.abjad_skeletons.extend(readings);
                }
            }
        }
    }

    /// The most `request` can score (0..=100, date of birth and country included) against
    /// any name of the changed entries, at or above the score [`super::screen`] gives it
    /// for any of them. 100 for a query the bound does not read (see the module's doc).
    pub fn most(&self, index: &Index, request: &Request, cache: &mut BoundCache) -> u8 {
        if self.is_empty() {
            return 0;
        }
        match self.name_bound(index, request, cache) {
            Some(name) => {
                let percent = (name + ROUNDING).min(1.0) * 100.0;
                (percent.round() as i16 + i16::from(facts::MAX_POINTS)).clamp(0, 100) as u8
            }
            None => UNBOUNDED,
        }
    }

    /// Whether `request` can reach its threshold against a changed entry.
    pub fn reaches(&self, index: &Index, request: &Request, cache: &mut BoundCache) -> bool {
        let threshold = request.threshold.unwrap_or(super::DEFAULT_THRESHOLD);
        self.most(index, request, cache) >= threshold
    }

    /// The most the name of `request` scores against a changed name (0..=1), as
    /// [`super::screen_one`] reads it; `None` where the bound does not read the query.
    fn name_bound(&self, index: &Index, request: &Request, cache: &mut BoundCache) -> Option<f32> {
        let name = request.name.trim();
        if name.is_empty() || name.chars().count() > MAX_NAME_CHARS {
            return None;
        }
        if alternatives::readings(name).len() > 1 {
            return None;
        }
        let (extracted, _) = facts::extract(name);
        let name = if extracted.trim().is_empty() {
            name.to_owned()
        } else {
            extracted
        };
        let organisation = request.kind != Some(KindFilter::Individual);
        if literal::reading(&name).is_some() && !literal::ordinary(&name, organisation) {
            return None;
        }
        let tokens = normalize::tokens(&name, organisation);
        if tokens.iter().any(|t| t.abjad) {
            return None;
        }
        let compact = self.compact_bound(&normalize::compact(&tokens));
        let bounds: Vec<TokenBound> = tokens
            .iter()
            .map(|t| self.token_bound(index, t, organisation, cache))
            .collect();
        let texts: Vec<&str> = tokens.iter().map(|t| t.text.as_str()).collect();
        Some(compact.max(self.coverage_bound(&bounds, &texts, cache)))
    }

    /// The query coverage's most: joins worked out only when the tokens alone leave the
    /// threshold's range open (they never lower the bound).
    fn coverage_bound(&self, bounds: &[TokenBound], texts: &[&str], cache: &mut BoundCache) -> f32 {
        let total: f32 = bounds.iter().map(|b| b.unpaired).sum();
        if total <= 0.0 {
            return 0.0;
        }
        let mut matched: Vec<f32> = bounds.iter().map(|b| b.matched).collect();
        for i in 0..texts.len().saturating_sub(1) {
            if matched[i] >= bounds[i].weight && matched[i + 1] >= bounds[i + 1].weight {
                continue;
            }
            let joined = format!("{}{}", texts[i], texts[i + 1]);
            let join = self.join_bound(&joined, cache);
            matched[i] = matched[i].max(bounds[i].weight * join);
            matched[i + 1] = matched[i + 1].max(bounds[i + 1].weight * join);
        }
        (matched.iter().sum::<f32>() / total).min(1.0)
    }

    /// The most two query words written as one (`joined`) meet a changed word or two
    /// adjacent changed words written as one.
    fn join_bound(&self, joined: &str, cache: &mut BoundCache) -> f32 {
        if let Some(&s) = cache.joins.get(joined) {
            return s;
        }
        let s = best_joined(&self.join_targets, joined);
        if cache.joins.len() < JOIN_CACHE {
            cache.joins.insert(joined.to_owned(), s);
        }
        s
    }

    fn token_bound(
        &self,
        index: &Index,
        token: &normalize::Token,
        organisation: bool,
        cache: &mut BoundCache,
    ) -> TokenBound {
        let key = (
            token.kind,
            organisation,
            token.text.clone(),
            token.raw.clone(),
        );
        if let Some(&bound) = cache.tokens.get(&key) {
            return bound;
        }
        let reading = Reading {
            organisation,
            exact: false,
            leading_title: false,
        };
        let q = QueryToken::of(index, token.clone(), reading);
        let mut best = 0.0f32;
        if q.kind != TokenKind::Legal {
            best = best.max(best_joined(&self.pair_targets, &q.text));
        }
        if q.kind == TokenKind::Word && q.written.is_empty() {
            best = best.max(self.latin_as_abjad(&q.text));
        }
        let bound = TokenBound {
            weight: q.weight,
            unpaired: q.unpaired_weight,
            matched: (q.weight * best).max(self.best_single(index, &q)),
        };
        cache.tokens.insert(key, bound);
        bound
    }

    /// The most `q` adds to the coverage's numerator in a single pair with a changed token:
    /// its weight (no more than the listed initial's where an initial meets it) times the
    /// engine's own similarity, on every changed token where that can be other than none.
    fn best_single(&self, index: &Index, q: &QueryToken) -> f32 {
        let first = q.text.as_bytes().first().map_or(0, |&b| b as usize);
        let mut candidates: Vec<(u32, TokenKind)> = Vec::new();
        match q.kind {
            TokenKind::Legal => {
                for text in [&q.text, &q.raw] {
                    candidates.extend(self.by_text.get(text.as_str()).into_iter().flatten());
                }
            }
            TokenKind::Initial => candidates.extend(&self.by_first[first]),
            TokenKind::Word | TokenKind::Number | TokenKind::Particle => {
                for &(id, _, _) in &q.matches {
                    let from = self.tokens.partition_point(|t| t.0 < id);
                    candidates.extend(self.tokens[from..].iter().take_while(|t| t.0 == id));
                }
                // `QueryToken::farther`: long words of about the same length, same first
                // letter.
                if q.kind == TokenKind::Word && q.text.len() >= 6 {
                    candidates.extend(self.by_first[first].iter().filter(|t| {
                        index.vocab[t.0 as usize].text.len().abs_diff(q.text.len()) <= 2
                    }));
                }
                candidates.extend(&self.initials);
            }
        }
        candidates
            .into_iter()
            .filter_map(|(id, kind)| {
                let (similarity, how) = q.similarity_to(id, kind, index)?;
                let weight = if how == MatchKind::Initial {
                    q.weight.min(index.token_weight(id, kind))
                } else {
                    q.weight
                };
                Some(weight * similarity)
            })
            .fold(0.0, f32::max)
    }

    /// What a Latin word meets as adjacent listed abjad words written as one.
    fn latin_as_abjad(&self, text: &str) -> f32 {
        if self.abjad_spellings.contains(text) {
            lexicon::LEXICON_SIMILARITY
        } else if !self.abjad_skeletons.is_empty()
            && self.abjad_skeletons.contains(&script::skeleton(text))
        {
            JOINED_SKELETON
        } else {
            0.0
        }
    }

    /// The whole-name comparison's most for the query's string `compact`: against the
    /// changed names' strings that hold one of its pieces (see the module's doc).
    fn compact_bound(&self, compact: &str) -> f32 {
        let len = compact.len();
        if len < COMPACT_MIN_LEN || self.pieces.is_empty() {
            return 0.0;
        }
        if !compact.is_ascii() {
            return self
                .compacts
                .iter()
                .map(|listed| compact_similarity(compact, listed))
                .fold(0.0, f32::max);
        }
        // At most `len / 9` edits: that many pieces and one more, a byte apart (an edit,
        // a transposition included, then breaks at most one piece).
        let edits = len / 9;
        let pieces = edits + 1;
        let piece = (len - edits) / pieces;
        let bytes = compact.as_bytes();
        let mut holders: Vec<u32> = (0..pieces)
            .filter_map(|i| {
                let start = i * (piece + 1);
                bytes.get(start..start + piece.min(PIECE_MAX))
            })
            .filter_map(|p| self.pieces.get(&hash(p)))
            .flatten()
            .copied()
            .collect();
        holders.sort_unstable();
        holders.dedup();
        holders
            .into_iter()
            .map(|at| compact_similarity(compact, &self.compacts[at as usize]))
            .fold(0.0, f32::max)
    }
}

/// At most this many joins are remembered per thread.
const JOIN_CACHE: usize = 1 << 20;

fn push_target(targets: &mut [Vec<String>], text: String) {
    if let Some(&first) = text.as_bytes().first() {
        targets[first as usize].push(text);
    }
}

/// The highest [`joined_similarity`] of `whole` and a target (two words already written as
/// one, or one word).
fn best_joined(targets: &[Vec<String>], whole: &str) -> f32 {
    let Some(&first) = whole.as_bytes().first() else {
        return 0.0;
    };
    targets[first as usize]
        .iter()
        .filter(|t| t.len().abs_diff(whole.len()) <= 2)
        .filter_map(|t| joined_similarity(whole, t, ""))
        .fold(0.0, f32::max)
}
