//! The scorer's pairs across scripts that join words: a Latin query word against adjacent
//! listed words written in an abjad (`Hidayatullah` / `هدايت الله`), and the single pairs of a
//! particle such a join covers, dropped.

use super::index::{Index, IndexedName};
use super::normalize::{JoinUnit, TokenKind, joins_of};
use super::pair::Pair;
use super::query::{JOINED_SKELETON, MIN_JOINED_SKELETON, Query};
use super::similarity::MatchKind;
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
    let unit = |li: usize| listed_join_unit(index, name, li);
    let words = &query.latin_skeletons;
    if !name.abjad_joins || words.is_empty() {
        return;
    }
    let before = out.len();
    for li in 0..name.tokens.len() {
        for (len, joined) in joins_of(unit, li) {
            let readings = script::joined_skeletons(&joined);
            let long = readings
                .first()
                .is_some_and(|s| s.len() >= MIN_JOINED_SKELETON);
            let learned = lexicon::latin_spellings(&joined);
            for (qi, skeleton) in words {
                let text = query.tokens[*qi].text.as_str();
                let found = if learned.contains(&text) {
                    Some((lexicon::LEXICON_SIMILARITY, MatchKind::Lexicon))
                } else if long && readings.contains(skeleton) {
                    Some((JOINED_SKELETON, MatchKind::Skeleton))
                } else {
                    None
                };
                if let Some((similarity, how)) = found {
                    out.push(Pair {
                        query: *qi,
                        query_len: 1,
                        listed: li,
                        listed_len: len,
                        similarity,
                        how,
                    });
                }
            }
        }
    }
    drop_particles_inside_joins(query, name, out, before);
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
