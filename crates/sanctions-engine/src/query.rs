//! A query prepared against one index: its tokens, their weights, the listed tokens each one
//! resembles, and the candidate names those lead to (an inverted-index look-up, never a
//! scan of all names).

use std::cell::RefCell;

use super::index::{
    EntityFilter, Index, MIN_DELETION_LEN, MIN_FOLDED_WORD, NameMeta, NameToken, VocabToken,
    deletions, hash,
};
use super::legal;
use super::lexicon;
use super::normalize::{self, TokenKind};
use super::prefetch::prefetch;
use super::script;
use super::similarity::{
    Head, MIN_SIMILARITY, MatchKind, edit_similarity_at_least, folded_key, folded_similarity,
    joined_similarity, phonetic_key, quickly_refused, similarity,
};
use super::table;

/// One token of the query.
#[derive(Debug, Clone)]
pub(crate) struct QueryToken {
    pub text: String,
    /// For a legal form, what it was read from.
    pub raw: String,
    /// The word as written when not in Latin letters ([`normalize::Token::written`]).
    pub written: String,
    pub kind: TokenKind,
    pub weight: f32,
    /// What it weighs when it finds no partner: its weight, or a legal form's for a word of a
    /// legal form's spelling left over in an organisation's name ([`legal::is_form_word`]:
    /// `Stock Company X Joint`, `Compain`), which is no more evidence than the form itself.
    pub unpaired_weight: f32,
    /// Listed tokens it resembles: (token id, similarity, how), best first.
    pub matches: Vec<(u32, f32, MatchKind)>,
    /// The same, by token id, for look-ups while scoring.
    by_id: Vec<(u32, f32, MatchKind)>,
    /// Which ids `by_id` may hold ([`IdFilter`]): most listed words a scored name holds are
    /// not among them, and are told so without a search.
    filter: IdFilter,
    /// Some of `matches` are spellings the lexicon learned ([`MatchKind::Lexicon`]).
    pub learned: bool,
}

impl QueryToken {
    /// What an explanation shows for this token: the word as written when it was not in
    /// Latin letters (the analyst's own `أسامة`, not its skeleton `smh`), else the compared form.
    pub fn shown(&self) -> &str {
        if self.written.is_empty() {
            &self.text
        } else {
            &self.written
        }
    }

    /// The similarity of this token to listed token `id`, if they are a pair.
    pub fn similarity_to(
        &self,
        id: u32,
        kind: TokenKind,
        index: &Index,
    ) -> Option<(f32, MatchKind)> {
        self.similarity(id, kind, None, index)
    }

    /// [`QueryToken::similarity_to`] a token of a listed name, whose head refuses the
    /// farther comparisons without a read of its word.
    pub(crate) fn similarity_to_listed(
        &self,
        listed: NameToken,
        index: &Index,
    ) -> Option<(f32, MatchKind)> {
        self.similarity(listed.id, listed.kind, Some(listed.head), index)
    }

    fn similarity(
        &self,
        id: u32,
        kind: TokenKind,
        head: Option<Head>,
        index: &Index,
    ) -> Option<(f32, MatchKind)> {
        match (self.kind, kind) {
            (TokenKind::Legal, TokenKind::Legal) => {
                (self.text == index.vocab[id as usize].text).then_some((1.0, MatchKind::Exact))
            }
            (TokenKind::Legal, _) => {
                (self.raw == index.vocab[id as usize].text).then_some((1.0, MatchKind::Exact))
            }
            (TokenKind::Initial, _) | (_, TokenKind::Initial) => {
                let listed = &index.vocab[id as usize];
                similarity(&self.text, self.kind, "", &listed.text, kind, "")
            }
            _ => self
                .filter
                .may_hold(id)
                .then(|| self.by_id.binary_search_by_key(&id, |m| m.0).ok())
                .flatten()
                .map(|i| (self.by_id[i].1, self.by_id[i].2))
                .or_else(|| self.farther(index, id, head)),
        }
    }

    /// Similarity to a listed word the look-up did not reach (two edits of different kinds,
    /// e.g. `consrrucion` / `construction`): long words of about the same length and the same
    /// first letter only, which keeps it cheap.
    fn farther(&self, index: &Index, id: u32, head: Option<Head>) -> Option<(f32, MatchKind)> {
        // The query word's own refusals first, then the listed word's head's: they need no
        // look-up of the listed word.
        let q = self.text.as_bytes();
        if self.kind != TokenKind::Word
            || q.len() < 6
            || head.is_some_and(|h| Head::refused(&self.text, &[h]))
        {
            return None;
        }
        let listed = index.vocab[id as usize].text.as_str();
        if quickly_refused(&self.text, Some(listed.len()), listed.bytes().next()) {
            return None;
        }
        let s = edit_similarity_at_least(&self.text, listed, MIN_SIMILARITY);
        (s >= MIN_SIMILARITY).then_some((s, MatchKind::Fuzzy))
    }
}

/// A set of token ids that answers "not held" for certain and "held" maybe: one bit of 256
/// per id (its hash), so that a query word's look-up while scoring searches its resembling
/// words only for ids that may be among them.
#[derive(Debug, Clone, Copy, Default)]
struct IdFilter([u64; 4]);

impl IdFilter {
    fn of(ids: impl Iterator<Item = u32>) -> IdFilter {
        let mut filter = IdFilter::default();
        for id in ids {
            let bit = Self::bit(id);
            filter.0[bit / 64] |= 1 << (bit % 64);
        }
        filter
    }

    fn may_hold(&self, id: u32) -> bool {
        let bit = Self::bit(id);
        self.0[bit / 64] >> (bit % 64) & 1 == 1
    }

    /// The id's bit: the top byte of a multiplicative hash, so that near ids spread.
    fn bit(id: u32) -> usize {
        (id.wrapping_mul(0x9E37_79B1) >> 24) as usize
    }
}

/// A normalised query.
#[derive(Debug, Clone)]
pub(crate) struct Query {
    pub tokens: Vec<QueryToken>,
    /// Each adjacent pair of tokens written as one (`joins[i]` joins tokens `i` and `i + 1`),
    /// with the listed token of that spelling when there is one.
    pub joins: Vec<(String, Option<u32>)>,
    /// Adjacent words written in an abjad that the lists may write as one Latin word
    /// (`normalize::abjad_joins`: `نعمت الله` / `Nematullah`, `شمس الدين` / `Shamsuddin`),
    /// with the listed Latin words of their joined skeleton or a spelling the lexicon gives.
    pub abjad_joins: Vec<AbjadJoin>,
    pub compact: String,
    /// The consonant skeleton of each word written in Latin letters, by token: what a listed
    /// name's abjad words joined are compared with (`abjad_pairs`), worked out once per query.
    pub latin_skeletons: Vec<(usize, String)>,
}

impl Query {
    /// Normalises `name` and finds, for each of its tokens, the listed tokens it resembles
    /// (the engine reads a name through `literal::read`, which may read it literally).
    #[cfg(test)]
    pub fn new(index: &Index, name: &str, organisation: bool) -> Query {
        Query::from_tokens(
            index,
            normalize::tokens(name, organisation),
            organisation,
            false,
        )
    }

    /// A query of `tokens`; with `exact`, each word meets only the listed word spelt as it is
    /// (a name read literally: `literal::reading`).
    pub fn from_tokens(
        index: &Index,
        tokens: Vec<normalize::Token>,
        organisation: bool,
        exact: bool,
    ) -> Query {
        let compact = normalize::compact(&tokens);
        let joins = tokens.windows(2).map(|pair| join_of(index, pair)).collect();
        let abjad_joins = (0..tokens.len())
            .filter_map(|first| abjad_join_at(index, &tokens, first))
            .collect();
        let leading_titles = leading_titles(&tokens);
        let tokens = tokens
            .into_iter()
            .zip(leading_titles)
            .map(|(t, leading_title)| {
                QueryToken::of(
                    index,
                    t,
                    Reading {
                        organisation,
                        exact,
                        leading_title,
                    },
                )
            })
            .collect::<Vec<QueryToken>>();
        let latin_skeletons = tokens
            .iter()
            .enumerate()
            .filter(|(_, q)| q.kind == TokenKind::Word && q.written.is_empty())
            .map(|(qi, q)| (qi, script::skeleton(&q.text)))
            .collect();
        Query {
            tokens,
            joins,
            abjad_joins,
            compact,
            latin_skeletons,
        }
    }

    /// Sum of the query tokens' weights, each as it weighs unpaired (the least a name
    /// must explain).
    pub fn weight(&self) -> f32 {
        self.tokens.iter().map(|t| t.unpaired_weight).sum()
    }

    /// Every name worth scoring with its evidence, in no order (see [`Query::pick`]).
    /// `accept` filters by the name's entity and its [`EntityFilter`] (type and list
    /// filters), so that excluded names take no places.
    pub fn candidates(
        &self,
        index: &Index,
        accept: impl Fn(u32, EntityFilter) -> bool,
    ) -> Vec<Found> {
        SCRATCH.with(|scratch| {
            let mut scratch = scratch.borrow_mut();
            let stamps = self.tokens.len() + self.joins.len() + self.abjad_joins.len();
            scratch.prepare(index.names.len(), stamps, CANDIDATE_FLOOR * self.weight());
            // The lists lie in no cache: where each begins asked for, then its first names,
            // all before any is read.
            self.posting_ids()
                .for_each(|id| index.postings.ask_start(id as usize));
            self.posting_ids()
                .for_each(|id| index.postings.ask_head(id as usize));
            // What is read of a candidate next, asked for as it becomes one.
            let ask = |name: u32| index.ask_memory_for_meta(name);
            for (qi, token) in self.tokens.iter().enumerate() {
                if token.kind == TokenKind::Particle {
                    continue; // too common to say anything on its own
                }
                let stamp = qi as u32 + 1;
                for &(id, sim, _) in &token.matches {
                    scratch.add_all(&index.postings[id as usize], stamp, token.weight * sim, ask);
                }
            }
            // Names holding two adjacent query tokens as one word (or the reverse).
            for (qi, (_, id)) in self.joins.iter().enumerate() {
                let Some(id) = id else { continue };
                let stamp = (self.tokens.len() + qi) as u32 + 1;
                let weight = self.tokens[qi].weight + self.tokens[qi + 1].weight;
                scratch.add_all(&index.postings[*id as usize], stamp, weight, ask);
            }
            // Latin words with the skeleton of adjacent abjad words joined.
            for (k, join) in self.abjad_joins.iter().enumerate() {
                let stamp = (self.tokens.len() + self.joins.len() + k) as u32 + 1;
                let covered = join.first..join.first + join.len;
                let weight: f32 =
                    self.tokens[covered].iter().map(|t| t.weight).sum::<f32>() * JOINED_SKELETON;
                for &id in &join.ids {
                    scratch.add_all(&index.postings[id as usize], stamp, weight, ask);
                }
            }
            let found: Vec<Found> = scratch
                .passed()
                .filter_map(|(name, acc)| {
                    let NameMeta {
                        entity,
                        weight,
                        filter,
                        ..
                    } = index.name_meta[name as usize];
                    if !accept(entity, filter) {
                        return None;
                    }
                    // Evidence, discounted for what of the name it leaves unexplained (a
                    // cheap stand-in for the scorer's name coverage).
                    let coverage = acc / weight.max(acc);
                    Some(Found::new(acc * (0.6 + 0.4 * coverage), name))
                })
                .collect();
            scratch.finish();
            found
        })
    }

    /// The token ids whose posting lists [`Query::candidates`] reads, in its order.
    fn posting_ids(&self) -> impl Iterator<Item = u32> + '_ {
        let words = self
            .tokens
            .iter()
            .filter(|t| t.kind != TokenKind::Particle)
            .flat_map(|t| t.matches.iter().map(|m| m.0));
        let joins = self.joins.iter().filter_map(|(_, id)| *id);
        let abjad = self.abjad_joins.iter().flat_map(|j| j.ids.iter().copied());
        words.chain(joins).chain(abjad)
    }

    /// The best `max` of the `found` [`Query::candidates`], best guesses first, at most
    /// [`NAMES_PER_ENTITY`] per entry. `found` is reordered, not changed: the look-up is done
    /// once however many times the screening looks further.
    pub fn pick(index: &Index, found: &mut [Found], max: usize) -> Vec<u32> {
        // Room for the names an entry holds beyond its cap, so that the cap below still
        // leaves `max` places.
        let keep = max.saturating_mul(2).min(found.len());
        if found.len() > keep {
            found.select_nth_unstable(keep);
        }
        let best = &mut found[..keep];
        best.sort_unstable();
        let mut per_entity: table::FastMap<u32, u8> =
            table::FastMap::with_capacity_and_hasher(best.len(), Default::default());
        let mut out = Vec::with_capacity(max.min(best.len()));
        for name in best.iter().map(|f| f.name()) {
            let entity = index.name_meta[name as usize].entity;
            let seen = per_entity.entry(entity).or_insert(0);
            *seen = seen.saturating_add(1);
            if *seen <= NAMES_PER_ENTITY {
                out.push(name);
                if out.len() == max {
                    break;
                }
            }
        }
        out
    }
}

/// A candidate name with its evidence, as one number whose order is the pick's: the
/// evidence highest first (`f32::total_cmp`), then the name id lowest first. Sorted as
/// integers, a query's few hundred candidates cost a fraction of a sort by comparisons.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Found(u64);

impl Found {
    pub(crate) fn new(evidence: f32, name: u32) -> Found {
        // `f32::total_cmp`'s order as an `i32`, then as a `u32`; inverted for highest first.
        let bits = evidence.to_bits() as i32;
        let total = bits ^ ((((bits >> 31) as u32) >> 1) as i32);
        let ascending = (total as u32) ^ 0x8000_0000;
        Found((u64::from(!ascending) << 32) | u64::from(name))
    }

    pub(crate) fn name(self) -> u32 {
        self.0 as u32
    }
}

/// How a query token is read ([`QueryToken::of`]).
#[derive(Clone, Copy)]
pub(crate) struct Reading {
    /// The query is screened as an organisation's name too.
    pub organisation: bool,
    /// Each word meets only the listed word spelt as it is.
    pub exact: bool,
    /// A title at the start of the name that the Latin names keep as often as they leave
    /// out ([`leading_titles`]).
    pub leading_title: bool,
}

impl QueryToken {
    /// The query token of `t`: the listed tokens it resembles and its weights.
    pub(crate) fn of(index: &Index, t: normalize::Token, reading: Reading) -> QueryToken {
        let key = phonetic_key(&t.text);
        let matches = match t.kind {
            TokenKind::Word if !reading.exact => resembling(index, &t.text, &key, t.abjad),
            TokenKind::Word | TokenKind::Number | TokenKind::Particle => index
                .token_ids
                .get(&t.text)
                .map(|id| vec![(id, 1.0, MatchKind::Exact)])
                .unwrap_or_default(),
            TokenKind::Legal | TokenKind::Initial => Vec::new(),
        };
        // A token the lists lack weighs as the listed token it most resembles (it is
        // probably that word misspelt), or as the rarest word when it resembles none.
        let df = index
            .token_ids
            .get(&t.text)
            .or(matches.first().map(|(id, _, _)| *id))
            .map_or(0, |id| index.vocab[id as usize].df);
        let mut by_id = matches.clone();
        by_id.sort_unstable_by_key(|m| m.0);
        let weight = index.weight_for_df(df, t.kind);
        let form_word = reading.organisation
            && t.kind == TokenKind::Word
            && !t.abjad
            && legal::is_form_word(&t.text);
        QueryToken {
            learned: by_id.iter().any(|m| m.2 == MatchKind::Lexicon),
            filter: IdFilter::of(by_id.iter().map(|m| m.0)),
            by_id,
            weight,
            unpaired_weight: if form_word {
                weight.min(index.weight_for_df(0, TokenKind::Legal))
            } else if reading.leading_title {
                weight.min(index.weight_for_df(0, TokenKind::Particle))
            } else {
                weight
            },
            text: t.text,
            raw: t.raw,
            written: t.written,
            kind: t.kind,
            matches,
        }
    }
}

/// The listed token whose weight query token `t` takes in [`QueryToken::of`] (itself, or
/// for a word the lists lack the listed word it most resembles), without the rest of the
/// query: what a list update's weight drift asks of every favorite's words.
pub(crate) fn weighs_as(index: &Index, t: &normalize::Token, exact: bool) -> Option<u32> {
    if let Some(id) = index.token_ids.get(&t.text) {
        return Some(id);
    }
    if t.kind != TokenKind::Word || exact {
        return None; // its matches are its own spelling, which the lists lack
    }
    let most_alike = || {
        let key = phonetic_key(&t.text);
        resembling_now(index, &t.text, &key, t.abjad)
            .first()
            .map(|&(id, _, _)| id)
    };
    MOST_ALIKE.with(|memory| {
        memory
            .borrow_mut()
            .answer(index, (&t.text, t.abjad), MOST_ALIKE_KEPT, most_alike)
    })
}

/// How many words' [`weighs_as`] answers a thread keeps (emptied when full): a watchlist's
/// words the lists lack, each a look-up of [`resembling`]'s cost, which keeps too few of them
/// for a watchlist's tens of thousands of distinct words (some 4 MB a thread at most).
const MOST_ALIKE_KEPT: usize = 1 << 16;

/// Two adjacent query tokens written as one, with the listed token of that spelling: written
/// as one word exactly, or a listed word that begins with the first and is close to the two
/// joined (`Vneshecon Bank` / `Vnesheconombank`: a compound cut short, too far for the typo
/// tables).
fn join_of(index: &Index, pair: &[normalize::Token]) -> (String, Option<u32>) {
    let joined = format!("{}{}", pair[0].text, pair[1].text);
    let words = |t: &normalize::Token| {
        matches!(
            t.kind,
            TokenKind::Word | TokenKind::Particle | TokenKind::Initial
        )
    };
    let both = words(&pair[0]) && words(&pair[1]);
    let id = both
        .then(|| index.token_ids.get(&joined))
        .flatten()
        .or_else(|| {
            (both && pair[0].text.len() >= MIN_PREFIX)
                .then(|| {
                    index.word_with_prefix(&pair[0].text, |w| {
                        w.len() > joined.len() && joined_similarity(&joined, w, "").is_some()
                    })
                })
                .flatten()
        });
    (joined, id)
}

/// The listed Latin words that write the abjad query words from `first` on as one, if any.
fn abjad_join_at(index: &Index, tokens: &[normalize::Token], first: usize) -> Option<AbjadJoin> {
    let mut len = 0;
    let mut ids: Vec<u32> = Vec::new();
    for (covered, joined) in normalize::abjad_joins(tokens, first) {
        len = covered;
        let learned = lexicon::latin_spellings(&joined)
            .iter()
            .chain(first_word_compounds(tokens, first, covered))
            .filter_map(|w| index.token_ids.get(*w));
        let skeletons = script::joined_skeletons(&joined);
        if skeletons
            .first()
            .is_none_or(|s| s.len() < MIN_JOINED_SKELETON)
        {
            ids.extend(learned);
            continue;
        }
        ids.extend(
            skeletons
                .iter()
                .flat_map(|s| index.tokens_with_skeleton(s, false))
                .take(MAX_JOINED_SKELETON_WORDS)
                .chain(learned),
        );
    }
    ids.retain(|&id| !index.vocab[id as usize].abjad);
    ids.sort_unstable();
    ids.dedup();
    (!ids.is_empty()).then_some(AbjadJoin { first, len, ids })
}

/// Which tokens are a title at the start of the name that the Latin names keep as often as
/// they leave it out (`سید`, Seyed: `script::AbjadTitle::Leading`), after any other title or
/// the article: unpaired it weighs as a particle, not as the name word it is not.
fn leading_titles(tokens: &[normalize::Token]) -> Vec<bool> {
    let mut leading = true;
    tokens
        .iter()
        .map(|t| {
            let title = leading
                && t.abjad
                && script::abjad_title(&t.written) == Some(script::AbjadTitle::Leading);
            leading &= title || t.kind == TokenKind::Particle && t.text == "al";
            title
        })
        .collect()
}

/// Adjacent abjad query words (`first..first + len`) that listed Latin words `ids` (sorted)
/// write as one.
#[derive(Debug, Clone)]
pub(crate) struct AbjadJoin {
    pub first: usize,
    pub len: usize,
    pub ids: Vec<u32>,
}

/// At most this many names of one entry are scored: its best guesses. An entry with dozens
/// of aliases (transliterations of one name) must not take every place from other entries;
/// two leaves room for a primary name and an alias spelt differently.
const NAMES_PER_ENTITY: u8 = 2;

/// A query word must have at least this many letters to be read as the start of a longer
/// listed compound (`vneshecon`): a shorter one (`sber`, `alfa`) begins too many words,
/// and short cases are already found as exact joins.
const MIN_PREFIX: usize = 5;

/// The spellings the lexicon learned for the first of abjad words joined (`first..first +
/// covered`) that are the whole compound: those ending with a spelling of the last word, its
/// leading vowels aside (`ولى` learned as `Waliullah`, which ends with `llah` of `الله`'s
/// `allah`). A join whose skeleton is too short to look up (`ولى الله`: `l`) then still meets
/// the compound its first word alone meets, and covers the `الله` after it.
fn first_word_compounds<'a>(
    tokens: &'a [normalize::Token],
    first: usize,
    covered: usize,
) -> impl Iterator<Item = &'static &'static str> + 'a {
    let head = tokens.get(first).filter(|t| t.abjad);
    let last = tokens.get(first + covered.max(1) - 1).filter(|t| t.abjad);
    let (head, tails) = match (head, last) {
        (Some(h), Some(l)) => (
            lexicon::latin_spellings(&h.text),
            lexicon::latin_spellings(&l.text),
        ),
        _ => (&[][..], &[][..]),
    };
    head.iter().filter(move |w| {
        tails.iter().any(|t| {
            let t = t.trim_start_matches(['a', 'e', 'i', 'o', 'u']);
            !t.is_empty() && w.len() > t.len() + 1 && w.ends_with(t)
        })
    })
}

/// Two abjad words joined meet a Latin word of their skeleton only when it has at least
/// this many consonant classes: a compound (`nmtl`, Nematullah), not
/// two short words that make a common two-letter skeleton by chance. Set by that reasoning
/// and measured once, not tuned: the tune half of the cross-script set rose from 73.0% to
/// 73.6%, the development set's false positives stayed at 1.0%.
pub(crate) const MIN_JOINED_SKELETON: usize = 3;
/// At most this many listed words of one joined skeleton are looked at: bounds the work
/// (a skeleton of three classes rarely fits more than a few dozen listed words).
const MAX_JOINED_SKELETON_WORDS: usize = 64;
/// The similarity of two abjad words joined and a Latin word of the same skeleton: a
/// skeleton pair's (`script::skeleton_similarity`, 0.88).
pub(crate) const JOINED_SKELETON: f32 = 0.88;

/// A name needs at least this share of the query's weight from its retrieved tokens.
const CANDIDATE_FLOOR: f32 = 0.3;

/// Listed tokens resembling `text`: itself, same phonetic key, or a deletion apart, or
/// across scripts the same consonant skeleton (a query word written in an abjad against
/// every listed word; a Latin one against the listed words written in an abjad); with their
/// similarity, best first.
fn resembling(index: &Index, text: &str, key: &str, abjad: bool) -> Resembling {
    RESEMBLANCES.with(|memory| {
        memory
            .borrow_mut()
            .answer(index, (text, abjad), RESEMBLANCES_KEPT, || {
                resembling_now(index, text, key, abjad)
            })
    })
}

/// How many words' [`resembling`] answers a thread keeps (emptied when full): a batch's or
/// a watchlist's names repeat their given names and surnames, and each word's look-up costs
/// more than the rest of its query token. Some 5 MB a thread at most, so that a streamed
/// import's memory does not grow with the file (`tests/store/watchlist_stream.rs`); 4,096
/// words were emptied over and over by the tens of thousands of distinct words of the
/// favorites an incremental run re-screens (its re-screen of 56,281 favorites at 960,737
/// customers took about a quarter longer).
const RESEMBLANCES_KEPT: usize = 1 << 14;

/// A thread's memory of an answer per word in one index (by its generation), for Latin and
/// for abjad words (`answers[abjad]`); emptied for another index or when full. An index of
/// generation 0 (an empty default one) is not remembered.
#[derive(Default)]
struct WordMemory<V> {
    index: u64,
    answers: [table::FastMap<Box<str>, V>; 2],
}

impl<V: Clone> WordMemory<V> {
    /// The answer for `(word, abjad)` in `index`: remembered, or worked out by `work` and
    /// remembered (the memory emptied first when it holds `kept` words).
    fn answer(
        &mut self,
        index: &Index,
        (word, abjad): (&str, bool),
        kept: usize,
        work: impl FnOnce() -> V,
    ) -> V {
        if index.generation() == 0 {
            return work();
        }
        if self.index != index.generation() || self.len() >= kept {
            self.index = index.generation();
            self.answers.iter_mut().for_each(|answers| answers.clear());
        }
        let answers = &mut self.answers[usize::from(abjad)];
        if let Some(found) = answers.get(word) {
            return found.clone();
        }
        let found = work();
        answers.insert(word.into(), found.clone());
        found
    }

    fn len(&self) -> usize {
        self.answers.iter().map(|a| a.len()).sum()
    }
}

/// The listed words a query word resembles: (token id, similarity, how), best first.
type Resembling = Vec<(u32, f32, MatchKind)>;

/// The listed words that `text` resembles, best first, worked out.
fn resembling_now(index: &Index, text: &str, key: &str, abjad: bool) -> Resembling {
    let word = Word::look_up(index, text, key, abjad);
    let ids = word.ids(index);
    index.ask_memory_for_words(ids.iter().copied());
    let mut out: Vec<(u32, f32, MatchKind)> = ids
        .into_iter()
        .filter_map(|id| word.rate(index, id).map(|(s, how)| (id, s, how)))
        .collect();
    out.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    out
}

/// A query word and what its look-ups across scripts found ([`resembling`]).
struct Word<'a> {
    text: &'a str,
    key: &'a str,
    abjad: bool,
    skeletons: Vec<String>,
    /// Listed words of the same consonant skeleton, sorted.
    by_skeleton: Vec<u32>,
    /// Listed words the lexicon gives as its spellings across scripts, sorted.
    by_lexicon: Vec<u32>,
    /// Its [`folded_key`], for a word the lists do not hold ([`Word::ids`]).
    folded: Option<String>,
}

impl<'a> Word<'a> {
    fn look_up(index: &Index, text: &'a str, key: &'a str, abjad: bool) -> Word<'a> {
        let skeletons = script::skeletons(text, abjad);
        let mut by_skeleton: Vec<u32> = skeletons
            .iter()
            .filter(|s| s.len() >= 2)
            .flat_map(|s| index.tokens_with_skeleton(s, !abjad))
            .collect();
        by_skeleton.sort_unstable();
        // Across scripts, the spellings the lexicon learned from the lists' bilingual
        // entries: an abjad word's Latin spellings, or the abjad words a Latin word spells.
        let mut by_lexicon: Vec<u32> = if abjad {
            lexicon::latin_spellings(text)
                .iter()
                .filter_map(|w| index.token_ids.get(*w))
                .collect()
        } else {
            lexicon::abjad_words(text)
                .iter()
                .filter_map(|w| index.token_ids.get(*w))
                .filter(|&id| index.vocab[id as usize].abjad)
                .collect()
        };
        by_lexicon.sort_unstable();
        // A typo on top of a romanisation variant: one edit of the folded form. Only for a
        // word the lists do not hold (a mangled word is seldom a listed one), which keeps
        // the extra look-ups off the common case: done for every word, the median query
        // took half as long again.
        let folded =
            (!abjad && text.len() >= MIN_FOLDED_WORD && !index.token_ids.contains_key(text))
                .then(|| folded_key(text));
        Word {
            text,
            key,
            abjad,
            skeletons,
            by_skeleton,
            by_lexicon,
            folded,
        }
    }

    /// Every listed word a look-up reached (sorted, no repeats): by skeleton, by lexicon,
    /// itself, by phonetic key, a deletion apart, one edit of the folded form.
    fn ids(&self, index: &Index) -> Vec<u32> {
        let text = self.text;
        let mut ids: Vec<u32> = Vec::new();
        ids.extend(&self.by_skeleton);
        ids.extend(&self.by_lexicon);
        if let Some(id) = index.token_ids.get(text) {
            ids.push(id);
        }
        if self.key.len() >= 2 {
            ids.extend(index.tokens_with_key(self.key));
        }
        // Each table's hashes asked at once ([`Index::tokens_with_deletions`]).
        let mut hashes: Vec<u64> = Vec::new();
        if text.len() >= MIN_DELETION_LEN - 1 {
            hashes.push(hash(text.as_bytes()));
        }
        if text.len() >= MIN_DELETION_LEN {
            hashes.extend(deletions(text));
        }
        index.tokens_with_deletions(&hashes, &mut ids);
        if let Some(folded) = &self.folded {
            hashes.clear();
            hashes.push(hash(folded.as_bytes()));
            hashes.extend(deletions(folded));
            index.tokens_with_foldeds(&hashes, &mut ids);
        }
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// How close listed word `id` is, and how, if at all: the best of its spelling, its
    /// skeleton across scripts, the lexicon and a typo on top of a variant.
    fn rate(&self, index: &Index, id: u32) -> Option<(f32, MatchKind)> {
        let listed = &index.vocab[id as usize];
        let spelt = similarity(
            self.text,
            TokenKind::Word,
            self.key,
            &listed.text,
            TokenKind::Word,
            &listed.key,
        );
        let learned = self
            .by_lexicon
            .binary_search(&id)
            .is_ok()
            .then_some((lexicon::LEXICON_SIMILARITY, MatchKind::Lexicon));
        // A learned spelling (0.95) is closer than any skeleton pair (0.88 at most): the
        // skeletons of both and the lexicon's verdict are then not worked out.
        let across = (learned.is_none()
            && self.by_skeleton.binary_search(&id).is_ok()
            && (self.abjad || listed.abjad))
            .then(|| self.across(listed))
            .flatten()
            .map(|s| (s, MatchKind::Skeleton));
        let variant_typo = self
            .folded
            .as_deref()
            .filter(|_| !listed.abjad)
            .and_then(|f| folded_similarity(self.text, f, &listed.text, &listed.folded));
        [spelt, across, learned, variant_typo]
            .into_iter()
            .flatten()
            .reduce(|a, b| if b.0 > a.0 { b } else { a })
    }

    /// The similarity of the skeletons of this word and of `listed`, written in different
    /// scripts or both in an abjad, if they meet.
    fn across(&self, listed: &VocabToken) -> Option<f32> {
        let listed_skeletons = script::skeletons(&listed.text, listed.abjad);
        let meet = script::skeletons_meet(&self.skeletons, &listed_skeletons)?;
        if lexicon::refutes(self.text, self.abjad, &listed.text, listed.abjad) {
            return None;
        }
        // Weaker where the lexicon knows the abjad word's spellings and they are all unlike
        // the Latin word (see `lexicon::contradicts`). Two abjad words that share a skeleton
        // but are written differently (`בשאר`, Bashar, and `بشرى`, Bushra: the long vowels
        // an abjad writes differ) are as weak a pair too: a Latin spelling the lexicon or
        // the skeleton gives must rank above them.
        let contradicted = match (self.abjad, listed.abjad) {
            (true, false) => lexicon::contradicts(self.text, &listed.text),
            (false, true) => lexicon::contradicts(&listed.text, self.text),
            (true, true) => true,
            (false, false) => false,
        };
        Some(if contradicted {
            meet.min(script::SKELETON_CONTRADICTED)
        } else {
            meet
        })
    }
}

/// Per-thread accumulators over all names, for one query at a time. Each name's sum and tag
/// side by side: the postings visit names in no order of memory, and one cache line then
/// serves both.
///
/// Each query takes a range of tags of its own, above every tag taken before (from `base`,
/// one per query token or join: its stamp), so a name whose tag is at or below `base` was
/// not touched by this query: nothing is reset between queries. Evidence only grows (every
/// weight and similarity is positive), so a name's sum reaches the floor at most once: it
/// is listed then (`passed`), and the names that never reach it (most of those the postings
/// visit) are not visited again.
#[derive(Default)]
struct Scratch {
    /// (sum of evidence, tag of the last query token that added to it) by name.
    names: Vec<(f32, u32)>,
    /// The tags at or below this are earlier queries'.
    base: u32,
    /// The number of tags this query takes.
    span: u32,
    /// The least evidence of a candidate.
    floor: f32,
    /// The names whose sum reached the floor, in the order they reached it.
    passed: Vec<u32>,
}

impl Scratch {
    /// Ready for a query of `stamps` tokens and joins, on an index of `names` names, whose
    /// candidates need `floor` of evidence.
    fn prepare(&mut self, names: usize, stamps: usize, floor: f32) {
        let span = u32::try_from(stamps + 1).unwrap_or(u32::MAX);
        if self.names.len() != names || self.base.checked_add(span).is_none() {
            self.names.clear();
            self.names.resize(names, (0.0, 0));
            self.base = 0;
        }
        self.span = span;
        self.floor = floor;
        self.passed.clear();
    }

    /// Adds `value` for query token `stamp` unless that token already counted for `name`
    /// (its best match comes first). A query adds stamp after stamp, never back to one.
    fn add(&mut self, name: u32, stamp: u32, value: f32) {
        let tag = self.base + stamp;
        let slot = &mut self.names[name as usize];
        if slot.1 == tag {
            return;
        }
        let touched = slot.1 > self.base;
        let before = if touched { slot.0 } else { 0.0 };
        let after = before + value;
        *slot = (after, tag);
        if after >= self.floor && (!touched || before < self.floor) {
            self.passed.push(name);
        }
    }

    /// [`Scratch::add`] for each of `names` (a posting list: names in order of id, far
    /// apart in memory), each name's accumulator asked for [`AHEAD`] names before its turn;
    /// `passing` told of each name as it reaches the floor (to ask for what is read of it
    /// next).
    fn add_all(&mut self, names: &[u32], stamp: u32, value: f32, passing: impl Fn(u32)) {
        for &name in names.iter().take(AHEAD) {
            prefetch(&self.names[name as usize]);
        }
        for (at, &name) in names.iter().enumerate() {
            if let Some(&next) = names.get(at + AHEAD) {
                prefetch(&self.names[next as usize]);
            }
            let passed = self.passed.len();
            self.add(name, stamp, value);
            if self.passed.len() > passed {
                passing(name);
            }
        }
    }

    /// The names whose evidence reached the floor, with their evidence.
    fn passed(&self) -> impl Iterator<Item = (u32, f32)> + '_ {
        self.passed
            .iter()
            .map(|&name| (name, self.names[name as usize].0))
    }

    /// Done with this query: the next one's tags are above its.
    fn finish(&mut self) {
        self.base += self.span;
        self.passed.clear();
    }
}

/// How many names ahead [`Scratch::add_all`] asks for an accumulator: about as many as the
/// memory's wait lasts steps of the loop.
const AHEAD: usize = 16;

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
    static RESEMBLANCES: RefCell<WordMemory<Resembling>> = RefCell::new(WordMemory::default());
    static MOST_ALIKE: RefCell<WordMemory<Option<u32>>> = RefCell::new(WordMemory::default());
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use super::{Found, IdFilter, Scratch};

    /// What [`Scratch`] should list for one query's additions, worked out plainly: each
    /// name's first value per stamp, summed in the order added; the names at or above the
    /// floor.
    fn plainly(adds: &[(u32, u32, f32)], floor: f32) -> BTreeMap<u32, f32> {
        let mut sums: BTreeMap<u32, (f32, BTreeSet<u32>)> = BTreeMap::new();
        for &(name, stamp, value) in adds {
            let (sum, stamps) = sums.entry(name).or_default();
            if stamps.insert(stamp) {
                *sum += value;
            }
        }
        sums.into_iter()
            .filter(|(_, (sum, _))| *sum >= floor)
            .map(|(name, (sum, _))| (name, sum))
            .collect()
    }

    fn listed(scratch: &Scratch) -> BTreeMap<u32, f32> {
        let listed: Vec<(u32, f32)> = scratch.passed().collect();
        let map: BTreeMap<u32, f32> = listed.iter().copied().collect();
        assert_eq!(map.len(), listed.len(), "a name listed twice: {listed:?}");
        map
    }

    proptest::proptest! {
        /// Query after query on one scratch (no reset between them), the names listed are
        /// exactly those whose evidence reaches the floor, each once with its sum; a stamp
        /// adds once per name, the same stamp in a later query counts again.
        #[test]
        fn the_scratch_lists_the_names_that_reach_the_floor_query_after_query(
            queries in proptest::collection::vec(
                (
                    // Posting lists, each of one stamp and value (longer than the look-ahead).
                    proptest::collection::vec(
                        (proptest::collection::vec(0u32..12, 0..40), 1u32..5, 0.0f32..3.0),
                        0..6,
                    ),
                    // A floor of nothing (a query that weighs nothing) lists every name met.
                    proptest::prop_oneof![proptest::strategy::Just(0.0f32), 0.0f32..4.0],
                ),
                1..6,
            ),
            start in proptest::prop_oneof![proptest::strategy::Just(0u32), (u32::MAX - 8)..=u32::MAX],
        ) {
            let mut scratch = Scratch { base: start, ..Scratch::default() };
            scratch.names = vec![(0.0, 0); 12];
            for (lists, floor) in &queries {
                // As the candidate stage adds: one stamp's lists after another's.
                let mut lists = lists.clone();
                lists.sort_by_key(|l| l.1);
                scratch.prepare(12, 4, *floor);
                let told = std::cell::RefCell::new(Vec::new());
                for (names, stamp, value) in &lists {
                    scratch.add_all(names, *stamp, *value, |n| told.borrow_mut().push(n));
                }
                // Each name listed is told of once, as it reaches the floor.
                let listed_names: Vec<u32> = scratch.passed().map(|(n, _)| n).collect();
                proptest::prop_assert_eq!(told.into_inner(), listed_names);
                let adds: Vec<(u32, u32, f32)> = lists
                    .iter()
                    .flat_map(|(names, stamp, value)| names.iter().map(|&n| (n, *stamp, *value)))
                    .collect();
                proptest::prop_assert_eq!(listed(&scratch), plainly(&adds, *floor));
                scratch.finish();
            }
        }
    }

    #[test]
    fn a_new_index_size_starts_the_scratch_afresh() {
        let mut scratch = Scratch::default();
        scratch.prepare(3, 2, 1.0);
        scratch.add(2, 1, 0.75);
        scratch.finish();
        scratch.prepare(5, 2, 1.0);
        scratch.add(2, 2, 0.5);
        scratch.add(4, 1, 1.5);
        assert_eq!(listed(&scratch), BTreeMap::from([(4, 1.5)]));
    }

    #[test]
    fn candidates_sort_by_evidence_highest_first_then_by_name() {
        let evidence = [
            0.0,
            -0.0,
            1.5,
            1.5,
            0.25,
            f32::MAX,
            f32::MIN_POSITIVE,
            3.0,
            -1.0,
            f32::INFINITY,
        ];
        let pairs: Vec<(f32, u32)> = evidence
            .iter()
            .zip([7, 3, 9, 2, 5, 1, 8, 4, 6, 0])
            .map(|(&e, n)| (e, n))
            .collect();
        let mut by_comparison = pairs.clone();
        by_comparison.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut by_key: Vec<Found> = pairs.iter().map(|&(e, n)| Found::new(e, n)).collect();
        by_key.sort_unstable();
        let picked: Vec<u32> = by_key.iter().map(|f| f.name()).collect();
        let compared: Vec<u32> = by_comparison.iter().map(|p| p.1).collect();
        assert_eq!(picked, compared);
    }

    #[test]
    fn an_id_filter_holds_every_id_it_was_made_of_and_refuses_most_others() {
        let held: Vec<u32> = (0..40).map(|i| i * 7919 + 3).collect();
        let filter = IdFilter::of(held.iter().copied());
        assert!(held.iter().all(|&id| filter.may_hold(id)));
        let others = (0..10_000u32).filter(|id| !held.contains(id));
        let passed = others.filter(|&id| filter.may_hold(id)).count();
        // 40 ids set at most 40 of 256 bits: about a sixth of other ids pass.
        assert!(passed < 2_500, "{passed} of 10,000 other ids passed");
        assert!(!IdFilter::default().may_hold(0));
    }
}
