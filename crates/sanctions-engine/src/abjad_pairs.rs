//! The scorer's pairs across scripts that join words: a Latin query word against adjacent
//! listed words written in an abjad (`Hidayatullah` / `هدايت الله`), and the single pairs of a
//! particle such a join covers, dropped.

use std::cell::RefCell;
use std::rc::Rc;

use super::index::{Index, IndexedName};
use super::normalize::{JoinUnit, TokenKind, joins_of};
use super::pair::Pair;
use super::query::{JOINED_SKELETON, MIN_JOINED_SKELETON, Query};
use super::similarity::MatchKind;
use super::table::FastMap;
use super::{lexicon, script};

/// A Latin query word as adjacent listed words written in an abjad that the lists romanise
/// as one (`Hidayatullah` / `هدايت الله`, `Noureddine` / `نور الدين`, `Abdallah` / `عبد
/// الله`): the reverse of `Query::abjad_joins`, on the same joins (`normalize::joins_of`),
/// met by a spelling the lexicon learned for the joined words or by their joined skeleton.
pub(super) fn latin_word_as_listed_abjad_words(
    index: &Index,
    query: &Query,
    name: &IndexedName,
    out: &mut Vec<Pair>,
) {
    let words = &query.latin_skeletons;
    if !name.abjad_joins || words.is_empty() {
        return;
    }
    let before = out.len();
    for join in listed_joins(index, name).iter() {
        for (qi, skeleton) in words {
            let text = query.tokens[*qi].text.as_str();
            let found = if join.learned.contains(&text) {
                Some((lexicon::LEXICON_SIMILARITY, MatchKind::Lexicon))
            } else if join.long && join.readings.contains(skeleton) {
                Some((JOINED_SKELETON, MatchKind::Skeleton))
            } else {
                None
            };
            if let Some((similarity, how)) = found {
                out.push(Pair {
                    query: *qi,
                    query_len: 1,
                    listed: join.listed,
                    listed_len: join.len,
                    similarity,
                    how,
                });
            }
        }
    }
    drop_particles_inside_joins(query, name, out, before);
}

/// Adjacent abjad words of a listed name read as one (`normalize::joins_of`): where, how
/// many words, the joined skeletons and the Latin spellings the lexicon learned for them.
struct ListedJoin {
    listed: usize,
    len: usize,
    readings: Vec<String>,
    /// The first reading is long enough to compare ([`MIN_JOINED_SKELETON`]).
    long: bool,
    learned: &'static [&'static str],
}

/// The most names whose joins a thread keeps; past it, it starts again.
const KEPT_NAMES: usize = 4096;

/// The joins of the listed names met so far, by name shape, for the index of the
/// generation kept: they depend on the name alone, and a name is met by many queries.
type KeptJoins = (u64, FastMap<u32, Rc<[ListedJoin]>>);

thread_local! {
    static JOINS: RefCell<KeptJoins> = RefCell::new((0, FastMap::default()));
}

/// The joins of `name` ([`ListedJoin`]), worked out once per thread and index.
fn listed_joins(index: &Index, name: &IndexedName) -> Rc<[ListedJoin]> {
    JOINS.with(|kept| {
        let (generation, names) = &mut *kept.borrow_mut();
        if *generation != index.generation() || names.len() >= KEPT_NAMES {
            *generation = index.generation();
            names.clear();
        }
        names
            .entry(name.shape)
            .or_insert_with(|| joins_now(index, name))
            .clone()
    })
}

fn joins_now(index: &Index, name: &IndexedName) -> Rc<[ListedJoin]> {
    let unit = |li: usize| listed_join_unit(index, name, li);
    let mut out = Vec::new();
    for li in 0..name.tokens.len() {
        for (len, joined) in joins_of(unit, li) {
            let readings = script::joined_skeletons(&joined);
            out.push(ListedJoin {
                listed: li,
                len,
                long: (readings.first()).is_some_and(|s| s.len() >= MIN_JOINED_SKELETON),
                readings,
                learned: lexicon::latin_spellings(&joined),
            });
        }
    }
    out.into()
}

/// Drops the single pairs of a particle (the article `ال`, `عبد`) that a join of abjad words
/// found from `out[from..]` covers: the join is the reading of the whole compound, and the
/// article paired alone with another name's `al` (whose similarity, 1.0, sorts first) would
/// otherwise take the particle from it and leave the compound unpaired (`نور الدين ...
/// الدريسي` / `Noureddine ... Al-Drissi`).
pub(super) fn drop_particles_inside_joins(
    query: &Query,
    name: &IndexedName,
    out: &mut Vec<Pair>,
    from: usize,
) {
    if out.len() == from {
        return;
    }
    let joins: Vec<Pair> = out[from..].to_vec();
    out.retain(|p| {
        let query_particle = p.query_len == 1
            && query.tokens[p.query].kind == TokenKind::Particle
            && joins
                .iter()
                .any(|j| j.query_len > 1 && j.covers_query(p.query));
        let listed_particle = p.listed_len == 1
            && name.tokens[p.listed].kind == TokenKind::Particle
            && joins
                .iter()
                .any(|j| j.listed_len > 1 && j.covers_listed(p.listed));
        !(query_particle || listed_particle)
    });
}

/// The listed word at `li` of `name` as `normalize::joins_of` reads it.
pub(super) fn listed_join_unit<'a>(
    index: &'a Index,
    name: &IndexedName,
    li: usize,
) -> Option<JoinUnit<'a>> {
    let t = name.tokens.get(li)?;
    let vocab = &index.vocab[t.id as usize];
    Some(JoinUnit {
        text: &vocab.text,
        word: vocab.abjad && t.kind == TokenKind::Word,
        abd: t.kind == TokenKind::Particle && vocab.text == "abdul",
        article: t.kind == TokenKind::Particle && vocab.text == "al",
    })
}
