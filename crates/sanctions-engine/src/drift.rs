//! How far a list update can move any score: every token's weight is the whole index's
//! (`ln(1 + names / df)`, [`super::index::word_weight`]), so when entries come and go the
//! score of a query against an entry the update left alone moves too, by a little. The
//! watchlist's incremental re-screen uses this bound to find, besides the favorites the
//! changed entries can reach, those whose nearest miss or lowest match the drift can carry
//! across the threshold.
//!
//! # The bound
//!
//! Let every weight `w_t` of the old index become `w'_t = r_t * w_t` in the new one, with
//! `lo <= r_t <= hi` for every token (the words of both vocabularies, a word the lists lack,
//! and the constant weights of legal forms, particles and initials, whose ratio is 1, so
//! `lo <= 1 <= hi`). A score is (`score.rs`)
//!
//! `s = Q^1 * C^0.4`, with `Q = A_q / B_q` and `C = A_c / B_c`,
//!
//! where each `A` and `B` is a sum of weights times coefficients that do not depend on the
//! weights (the pairs' similarities, 1 for the totals, the compound-half factor). The
//! alignment itself is chosen by similarity, not weight. So `lo * A <= A' <= hi * A` and the
//! same for `B`, and each coverage moves by a factor within `[lo / hi, hi / lo]`: with
//! `rho = hi / lo`, `Q' / Q` and `C' / C` lie in `[1 / rho, rho]` (the cap of a coverage at 1
//! only brings it closer). The score then moves by a factor within
//! `[rho^-(1 + 0.4), rho^(1 + 0.4)]`: **`F = rho^1.4`**. The rest keeps the bound: a query
//! word met by an initial counts `min(qw, lw)`, and a minimum of two weights each scaled
//! within `[lo, hi]` is too; the best of several alignments and of the whole-string
//! comparison (whose score does not depend on weights) is a maximum of values each within
//! the bound; a weak alias's factor is a constant; the facts' points do not depend on the
//! index. A final score `v = 100 s + points` therefore moves by at most `100 s (F - 1)`,
//! and since `s <= 1`, by at most **`100 (F - 1)` points** either way (`1 - 1/F <= F - 1`).
//!
//! Note that `rho` is the ratio of the largest to the smallest ratio, not the largest ratio
//! squared: when every weight grows alike (more names, no df changed), scores do not move.
//!
//! # Words worked out apart
//!
//! Over every word, `rho` is useless: on the real OFAC update (3,830 names in, out or
//! changed) some word's df goes from a few names to dozens, and `rho^1.4` is about 2 (102
//! points). So the band `[lo, hi]` is taken over the words whose counts the update did not
//! change (they move only with the number of names, nearly alike), with 1 in it (the
//! constant weights, a word of one name) and a room around it ([`WeightMoves::with_room`]:
//! [`BAND_ROOM`] by default, one of [`ROOMS`] chosen per update by a monitor run); a word
//! whose ratio falls outside is *moved*. The bound above holds, with the band's `rho`, for
//! every score whose listed name holds no moved word and whose query reads none (a query
//! word weighs as itself, or, lacking in the lists, as the listed word it most resembles).
//! The others are worked out apart by the caller: the names holding a moved word count as
//! changed ([`WeightDrift::moves_name`]: the bound on the score against them is worked out
//! from the new weights, while their entries' other names keep the band's bound), a favorite
//! matching such an entry is re-screened ([`WeightDrift::moved_entities`]), and a query
//! reading a moved word is re-screened ([`WeightDrift::moves_query`]). Only words and
//! numbers weigh by their number of names: a legal form, a particle or an initial of a
//! moved word's spelling weighs a constant and moves nothing.
//!
//! What this does not bound (the candidate stage and the query's reading): which names the
//! candidate stage picks among the best 64 (its order and floor use the weights), a query
//! word the lists lack whose most resembling listed word was another in the old index (it
//! is taken as the same), and the compound given names the scorer recognises from the
//! vocabulary (`Index::is_compound`). See docs/scale-out.md.

use std::collections::HashSet;

use super::index::{Index, IndexedName, NameCounts, weighs_by_frequency, word_weight};
use super::normalize;
use super::query;
use super::read_name::ReadName;
use crate::model::EntityNames;

/// The exponents of the two coverages added: `score.rs`'s `QUERY_EXPONENT + NAME_EXPONENT`.
const EXPONENT: f64 = 1.0 + 0.4;
/// Room for the f32 arithmetic of the scorer (sums of a few dozen weights, a ratio, a power):
/// a relative error far below this.
const RELATIVE_MARGIN: f64 = 1e-4;
/// The default room around the band of the words whose counts did not change, relative
/// (see [`WeightDrift::between`]; a monitor run chooses from [`ROOMS`]): measured on the
/// real OFAC update at 300,000 customers, 1 % left 9,343 entries and 49,152 customers to
/// work out apart, 3 % 4,412 and 17,238 for 9.3 points of drift, 6 % 1,620 and 9,196 for
/// 18.5 points (docs/scale-out.md).
pub const BAND_ROOM: f64 = 0.03;
/// Room, in points, for the rounding of an unrounded score kept as f32.
const POINTS_MARGIN: f64 = 0.01;

/// How the token weights moved between two indexes: the band `[lo, hi]` of the ratios new /
/// old weight of every word whose document frequency did not change (they all move with the
/// number of names, a little and nearly alike), with 1 (the constant weights) in it; and the
/// words whose ratio falls outside that band (`moved`: by id in the new index; `gone`: words
/// only the old index held). A score that involves no moved word, on the query's side or on
/// the listed name's, moves by at most [`WeightDrift::points`]; the others are worked out
/// apart ([`WeightDrift::moved_entities`], [`WeightDrift::moves_query`]).
#[derive(Debug, Clone, PartialEq)]
pub struct WeightDrift {
    lo: f64,
    hi: f64,
    moved: Vec<bool>,
    gone: HashSet<String>,
}

/// One word's weights in the new and the old index.
struct Ratio {
    new: f32,
    old: f32,
}

impl Ratio {
    fn value(&self) -> f64 {
        f64::from(self.new) / f64::from(self.old).max(f64::MIN_POSITIVE)
    }
}

impl WeightDrift {
    /// No drift: the same index.
    pub fn none() -> WeightDrift {
        WeightDrift {
            lo: 1.0,
            hi: 1.0,
            moved: Vec::new(),
            gone: HashSet::new(),
        }
    }

    /// Unknown drift: every score can move anywhere.
    pub fn unbounded() -> WeightDrift {
        WeightDrift {
            lo: 0.0,
            hi: f64::INFINITY,
            ..WeightDrift::none()
        }
    }

    /// The drift from the index that held `before` (the entries an update changed or
    /// removed, as they were) instead of `after` (the entries it added or changed, as they
    /// are now) to `new`, which holds `after`, with the default room ([`BAND_ROOM`]).
    pub fn between(new: &Index, before: &[EntityNames], after: &[EntityNames]) -> WeightDrift {
        WeightMoves::between(new, before, after).with_room(BAND_ROOM)
    }

    fn widen(&mut self, new: f32, old: f32) {
        let ratio = Ratio { new, old }.value();
        self.lo = self.lo.min(ratio);
        self.hi = self.hi.max(ratio);
    }

    fn holds(&self, ratio: f64) -> bool {
        (self.lo..=self.hi).contains(&ratio)
    }

    /// Words of the new index whose weight moved outside the band.
    pub fn moved_count(&self) -> usize {
        self.moved.iter().filter(|m| **m).count() + self.gone.len()
    }

    /// The entries of `index` (the new one) with a name holding a moved word as a word
    /// (`WeightDrift::moves_name`): a score against such a name is not bounded by
    /// [`WeightDrift::points`], so a favorite matching the entry is screened again.
    pub fn moved_entities<'a>(&self, index: &'a Index) -> Vec<&'a str> {
        let mut entities: Vec<u32> = index
            .names
            .iter()
            .filter(|name| self.moves_name(name))
            .map(|name| name.entity)
            .collect();
        entities.sort_unstable();
        entities.dedup();
        entities
            .into_iter()
            .map(|e| index.entities[e as usize].entity_id.as_str())
            .collect()
    }

    /// Whether listed name `name` (of the new index) holds a moved word as a word: its weight
    /// then moved with it (a legal form, particle or initial of the same spelling weighs the
    /// same whatever the lists hold). A score against any other name moves by at most
    /// [`WeightDrift::points`] where the query reads no moved word, whatever else its entry
    /// holds.
    pub(crate) fn moves_name(&self, name: &IndexedName) -> bool {
        name.tokens.iter().any(|t| {
            weighs_by_frequency(t.kind) && self.moved.get(t.id as usize).copied().unwrap_or(false)
        })
    }

    /// Whether a word of `request`'s name, as the engine reads it on `index` (the new one),
    /// weighs as a moved word (its own, or, for a word the lists lack, the listed word it
    /// most resembles), or is a word only the old index held: its query coverage is then
    /// not bounded by [`WeightDrift::points`]. Names the engine reads two ways: always. A
    /// legal form, particle or initial never does: its weight does not depend on the lists
    /// (`llc` read as a company's legal form, where the update moved the word `llc`).
    /// `read` is the request's name read once ([`ReadName::of`]).
    pub fn moves_query(&self, index: &Index, read: &ReadName) -> bool {
        if read.several {
            return true;
        }
        read.tokens
            .iter()
            .any(|t| self.weighs_moved(index, t, read.literal))
    }

    /// Whether `token`, read as a word of a name the engine does not read literally, weighs
    /// as a moved word ([`WeightDrift::moves_query`] of one word).
    pub(crate) fn moves_token(&self, index: &Index, token: &normalize::Token) -> bool {
        self.weighs_moved(index, token, false)
    }

    fn weighs_moved(&self, index: &Index, t: &normalize::Token, literal: bool) -> bool {
        // A legal form, a particle or an initial weighs the same whatever the lists hold.
        if !weighs_by_frequency(t.kind) {
            return false;
        }
        let source = query::weighs_as(index, t, literal);
        source.is_some_and(|id| self.moved.get(id as usize).copied().unwrap_or(false))
            || self.gone.contains(&t.text)
    }

    /// The factor a name score that involves no moved word can move by, either way (see the
    /// module's doc), with room for rounding.
    pub fn factor(&self) -> f64 {
        if self.lo <= 0.0 || !self.hi.is_finite() {
            return f64::INFINITY;
        }
        (self.hi / self.lo).powf(EXPONENT) * (1.0 + RELATIVE_MARGIN)
    }

    /// The most a final score (0-100 plus the facts' points, unrounded) that involves no
    /// moved word can move, either way.
    pub fn points(&self) -> f64 {
        if self.lo == 1.0 && self.hi == 1.0 {
            return 0.0;
        }
        100.0 * (self.factor() - 1.0) + POINTS_MARGIN
    }
}

/// How every weight moved between two indexes, before a room is chosen around the band
/// ([`WeightMoves::with_room`]): the band of the words whose counts did not change, and the
/// ratios of the others. A wider room moves fewer words apart, at the price of more points
/// of drift for every score (see [`ROOMS`]).
#[derive(Debug, Clone)]
pub enum WeightMoves {
    /// No drift, or an unknown one: no room changes it.
    Fixed(WeightDrift),
    /// Worked out word by word.
    Known {
        /// The band without room.
        band: WeightDrift,
        /// The ratios a changed word of the new index can have had, by id.
        changed: Vec<(usize, Vec<f64>)>,
        /// The ratio of each word only the old index held.
        gone: Vec<(String, f64)>,
        /// Words of the new index.
        vocab: usize,
    },
}

/// The rooms around the band a monitor run chooses from, relative ([`WeightMoves`]): a wide
/// room pays off on an update that moves many words a little (see [`BAND_ROOM`]); one that
/// moves few words gains nothing from it, and pays its points (docs/scale-out.md, "The
/// band's room chosen per update").
pub const ROOMS: [f64; 7] = [0.0025, 0.005, 0.01, 0.02, 0.03, 0.05, 0.08];

impl WeightMoves {
    /// How the weights moved from the index that held `before` (the entries an update
    /// changed or removed, as they were) instead of `after` (the entries it added or
    /// changed, as they are now) to `new`, which holds `after`.
    pub fn between(new: &Index, before: &[EntityNames], after: &[EntityNames]) -> WeightMoves {
        let fixed = WeightMoves::Fixed;
        if before.is_empty() && after.is_empty() {
            return fixed(WeightDrift::none());
        }
        let (b, a) = (Index::name_counts(before), Index::name_counts(after));
        let names_new = new.name_count();
        let Some(names_old) = (names_new + b.names).checked_sub(a.names) else {
            return fixed(WeightDrift::unbounded());
        };
        let mut band = WeightDrift::none();
        // A word neither index holds weighs as a word of one name in both.
        band.widen(word_weight(names_new, 1), word_weight(names_old, 1));
        // Every word's ratios, those of the words whose counts did not change making the band.
        let mut changed = Vec::new();
        for id in 0..new.vocab.len() {
            let (df_new, postings_new) = new.token_counts(id);
            let text = new.vocab[id].text.as_str();
            let (added, removed) = (count(&a, text), count(&b, text));
            let olds = old_dfs(df_new, postings_new, added, removed);
            if olds.is_empty() {
                return fixed(WeightDrift::unbounded());
            }
            let each = olds.into_iter().map(|df_old| Ratio {
                new: word_weight(names_new, df_new),
                old: word_weight(names_old, df_old),
            });
            if added == (0, 0) && removed == (0, 0) {
                each.for_each(|r| band.widen(r.new, r.old));
            } else {
                changed.push((id, each.map(|r| r.value()).collect()));
            }
        }
        // Words only the entries as they were held: gone from the new index.
        let gone = b
            .tokens
            .iter()
            .filter(|(text, _)| new.token_ids.get(text.as_str()).is_none())
            .map(|(text, &(counted, postings))| {
                let df_old = if postings == 0 { 0 } else { counted.max(1) };
                let ratio = Ratio {
                    new: word_weight(names_new, 0),
                    old: word_weight(names_old, df_old),
                };
                (text.clone(), ratio.value())
            })
            .collect();
        WeightMoves::Known {
            band,
            changed,
            gone,
            vocab: new.vocab.len(),
        }
    }

    /// Whether the room changes the drift: the weights moved, and how is known.
    pub fn takes_room(&self) -> bool {
        matches!(self, WeightMoves::Known { .. })
    }

    /// The drift with `room` around the band (relative): a word whose weight moved by a
    /// little more than the rest's is kept in it (the band, and the points, grow by the
    /// room; fewer words move apart).
    pub fn with_room(&self, room: f64) -> WeightDrift {
        let (band, changed, gone, vocab) = match self {
            WeightMoves::Fixed(drift) => return drift.clone(),
            WeightMoves::Known {
                band,
                changed,
                gone,
                vocab,
            } => (band, changed, gone, *vocab),
        };
        let mut drift = band.clone();
        drift.lo /= 1.0 + room;
        drift.hi *= 1.0 + room;
        drift.moved = vec![false; vocab];
        for (id, ratios) in changed {
            drift.moved[*id] = ratios.iter().any(|r| !drift.holds(*r));
        }
        drift.gone = gone
            .iter()
            .filter(|(_, ratio)| !drift.holds(*ratio))
            .map(|(text, _)| text.clone())
            .collect();
        drift
    }
}

fn count(counts: &NameCounts, text: &str) -> (u32, u32) {
    counts.tokens.get(text).copied().unwrap_or((0, 0))
}

/// The document frequencies a token can have had in the old index, from its new df and
/// postings and what the entries added `(a)` and removed `(b)` hold of it, as (names not a
/// split reading, names). The index keeps `df = max(counted, min(postings, 1))`, so a df of
/// 1 may stand for a counted of 0 or 1: both are tried. Empty when the counts disagree.
fn old_dfs(df_new: u32, postings_new: u32, a: (u32, u32), b: (u32, u32)) -> Vec<u32> {
    let counted_new: &[u32] = if df_new >= 2 { &[df_new] } else { &[0, 1] };
    counted_new
        .iter()
        .filter_map(|&counted| {
            let counted_old = (i64::from(counted) - i64::from(a.0) + i64::from(b.0)).max(-1);
            let postings_old = i64::from(postings_new) - i64::from(a.1) + i64::from(b.1);
            if counted_old < 0 || postings_old < 0 {
                return None;
            }
            Some(if postings_old == 0 {
                0
            } else {
                (counted_old as u32).max(1)
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::model::{AliasQuality, EntityFacts, EntityKind, ListCode};
    use crate::query::Query;
    use crate::result::{KindFilter, Request};
    use crate::score;
    use crate::{BoundCache, ChangedEntries, Reach, SharedBounds};

    fn person(id: &str, name: &str) -> EntityNames {
        EntityNames {
            entity_id: id.to_owned(),
            list: ListCode::OfacSdn,
            kind: EntityKind::Individual,
            primary_name: name.to_owned(),
            names: vec![(name.to_owned(), AliasQuality::Strong)],
            country: None,
            listing_ends: None,
            facts: EntityFacts::default(),
        }
    }

    fn people(prefix: &str, names: &[&str]) -> Vec<EntityNames> {
        names
            .iter()
            .enumerate()
            .map(|(i, n)| person(&format!("{prefix}{i}"), n))
            .collect()
    }

    /// Each entry's best name score x 100 for `query`, unrounded.
    fn scores(index: &Index, query: &str) -> HashMap<String, f32> {
        scores_as(index, query, false)
    }

    /// [`scores`] with `query` read as an organisation's name too where `organisation`.
    fn scores_as(index: &Index, query: &str, organisation: bool) -> HashMap<String, f32> {
        let q = Query::new(index, query, organisation);
        let mut out: HashMap<String, f32> = HashMap::new();
        for name in &index.names {
            let s = score::score(index, &q, name).score * 100.0;
            let id = index.entities[name.entity as usize].entity_id.clone();
            let best = out.entry(id).or_insert(0.0);
            *best = best.max(s);
        }
        out
    }

    const KEPT: &[&str] = &[
        "Ali Hassan Rahimi",
        "Omar Hassan",
        "Lena Park",
        "Weihua Wu",
        "Yonghao Du",
        "Sergei Ivanov",
        "Hassan Nasrallah",
        "Park Jin Woo",
    ];
    const QUERIES: &[&str] = &[
        "Ali Hassan",
        "Hassan Rahimi Ali",
        "Omar Hasan",
        "Weihua Du",
        "Du Yonghao",
        "Sergei L. Ivanev",
        "Jin Woo Park",
        "Lena Parker",
    ];

    /// What moved between the two indexes over `QUERIES` and the kept entries: the most a
    /// score moved where no moved word is involved (bounded), the most where one is, and the
    /// drift worked out between them.
    fn moved(removed: &[EntityNames], added: &[EntityNames]) -> ([f64; 2], WeightDrift) {
        let kept = people("k", KEPT);
        let filler = filler();
        let old: Vec<EntityNames> = kept.iter().chain(&filler).chain(removed).cloned().collect();
        let new: Vec<EntityNames> = kept.iter().chain(&filler).chain(added).cloned().collect();
        let (old, new_index) = (Index::build(&old), Index::build(&new));
        let drift = WeightDrift::between(&new_index, removed, added);
        let apart: HashSet<&str> = drift.moved_entities(&new_index).into_iter().collect();
        let mut most = [0.0f64; 2];
        for query in QUERIES {
            let moves = drift.moves_query(&new_index, &ReadName::of(&Request::new(*query)));
            let (before, after) = (scores(&old, query), scores(&new_index, query));
            for entry in &kept {
                let (b, a) = (before[&entry.entity_id], after[&entry.entity_id]);
                let bounded = !moves && !apart.contains(entry.entity_id.as_str());
                let slot = &mut most[usize::from(!bounded)];
                *slot = slot.max(f64::from((a - b).abs()));
            }
        }
        (most, drift)
    }

    /// A word of letters for `n`, pronounceable and unlike any real name.
    fn word(mut n: usize) -> String {
        let (consonants, vowels) = (b"bdfgklmnprstvz", b"aeiou");
        let mut out = String::from("Zu");
        loop {
            out.push(consonants[n % consonants.len()] as char);
            n /= consonants.len();
            out.push(vowels[n % vowels.len()] as char);
            n /= vowels.len();
            if n == 0 {
                return out;
            }
        }
    }

    /// 3,000 entries of three invented words, some words in many names: an index of a
    /// realistic spread of weights around the names the tests look at.
    fn filler() -> Vec<EntityNames> {
        (0..3000)
            .map(|i| {
                let name = format!(
                    "{} {} {}",
                    word(i % 400),
                    word(1000 + i / 3),
                    word(5000 + i)
                );
                person(&format!("f{i}"), &name)
            })
            .collect()
    }

    #[test]
    fn a_word_weighs_as_the_query_would_weigh_it() {
        // `moves_query` reads only each word's source of weight: the same listed token the
        // whole query takes it from, for listed, misspelt, unknown, literal and abjad words.
        let entries: Vec<EntityNames> = people("k", KEPT)
            .into_iter()
            .chain(filler())
            .chain([person("v", "Vann Dass")])
            .collect();
        let index = Index::build(&entries);
        let names = QUERIES.iter().chain(KEPT).copied().chain([
            "Zubabi Zudadu",
            "Hasan Rahimy",
            "Unheardof Qwxyz",
            "DAS, V.",
            "Al Hassan Trading LLC",
            "علي حسن",
            "Omar Hassan 07.10.1952",
        ]);
        let mut words = 0;
        for name in names {
            for kind in [Some(KindFilter::Individual), None] {
                let read = ReadName::of(&Request {
                    kind,
                    ..Request::new(name)
                });
                let (tokens, exact) = (&read.tokens, read.literal);
                let organisation = kind.is_none();
                let whole = Query::from_tokens(&index, tokens.clone(), organisation, exact);
                for (t, q) in tokens.iter().zip(&whole.tokens) {
                    let source = index
                        .token_ids
                        .get(&q.text)
                        .or(q.matches.first().map(|(id, _, _)| *id));
                    assert_eq!(
                        query::weighs_as(&index, t, exact),
                        source,
                        "{name}: {}",
                        t.text
                    );
                    words += 1;
                }
            }
        }
        assert!(words > 60, "{words}");
    }

    #[test]
    fn the_same_index_does_not_move() {
        let index = Index::build(&people("k", KEPT));
        let drift = WeightDrift::between(&index, &[], &[]);
        assert_eq!(drift.points(), 0.0);
        assert!((drift.factor() - 1.0).abs() < 1e-3);
    }

    #[test]
    fn more_names_move_scores_within_the_bound() {
        // New words only: no df of a kept word changes, only the number of names.
        let added = people(
            "a",
            &["Zyx Qwv", "Plo Mnb", "Ytr Ewq", "Kjh Gfd", "Vcx Zlp"],
        );
        let ([bounded, apart], drift) = moved(&[], &added);
        assert!(bounded > 0.0, "nothing moved");
        assert!(
            bounded <= drift.points(),
            "moved {bounded}, bound {}",
            drift.points()
        );
        assert_eq!(apart, 0.0, "no score involves a moved word");
        // The band of the unchanged words and its room.
        assert!(drift.points() < 10.0, "{}", drift.points());
    }

    /// An update that moves two words apart: `hassan` goes from 3 names to 43 and `park` from
    /// 2 to 1, so that their weights fall and rise against every other word's, far outside
    /// the band of the others (entries removed, then added).
    fn two_words_moved() -> (Vec<EntityNames>, Vec<EntityNames>) {
        let added: Vec<EntityNames> = (0..40)
            .map(|i| person(&format!("a{i}"), &format!("Hassan {}", word(9000 + i))))
            .collect();
        (people("r", &["Chan Park Ho"]), added)
    }

    #[test]
    fn a_name_holding_a_moved_word_is_bounded_apart_and_its_entry_s_others_by_the_drift() {
        // `hassan` and `park` move. The changed entries of an update are given every name
        // holding a moved word (as a word), and no other name of their entries: the bound on
        // the changed names is at or above each such name's new score, and an entry's name
        // without a moved word moves within the drift's points.
        let (removed, added) = two_words_moved();
        let two_names = EntityNames {
            names: vec![
                ("Omar Haddad".to_owned(), AliasQuality::Strong),
                ("Omar Hassan Haddad".to_owned(), AliasQuality::Strong),
            ],
            ..person("m0", "Omar Haddad")
        };
        let kept: Vec<EntityNames> = [people("k", KEPT), filler(), vec![two_names]].concat();
        let old = Index::build(&[kept.clone(), removed.clone()].concat());
        let new = Index::build(&[kept, added.clone()].concat());
        let drift = WeightDrift::between(&new, &removed, &added);
        let changed = ChangedEntries::moving(&new, [], Some(&drift));
        let moving: Vec<&str> = new
            .names
            .iter()
            .filter(|n| drift.moves_name(n))
            .map(|n| n.text.as_str())
            .collect();
        assert_eq!(changed.name_count(), moving.len(), "{moving:?}");
        assert!(moving.contains(&"Omar Hassan Haddad") && !moving.contains(&"Omar Haddad"));
        let mut cache = BoundCache::default();
        for query in ["Omar Haddad", "Ali Rahimi", "Nasrallah", "Chan Ho", "Omar"] {
            let request = Request::new(query);
            assert!(!drift.moves_query(&new, &ReadName::of(&request)), "{query}");
            let most = f32::from(changed.most(&new, &request, &mut cache));
            let q = Query::new(&new, query, true);
            let (q_old, mut before) = (Query::new(&old, query, true), HashMap::new());
            for name in &old.names {
                before.insert(name.text.as_str(), score::score(&old, &q_old, name).score);
            }
            for name in &new.names {
                let score = score::score(&new, &q, name).score * 100.0;
                if drift.moves_name(name) {
                    assert!(
                        score <= most + 0.5,
                        "{query} / {}: {score} > {most}",
                        name.text
                    );
                } else if let Some(&was) = before.get(name.text.as_str()) {
                    let moved = f64::from((score - was * 100.0).abs());
                    assert!(moved <= drift.points(), "{query} / {}: {moved}", name.text);
                }
            }
        }
    }

    fn company(id: &str, name: &str) -> EntityNames {
        EntityNames {
            kind: EntityKind::Entity,
            ..person(id, name)
        }
    }

    const COMPANIES: &[&str] = &["Zubara Trading LLC", "Kovalt Holding LLC", "Ferrovia LLC"];

    #[test]
    fn a_legal_form_moves_nothing_though_its_word_moved() {
        // An update adding many companies with `LLC` moves the word `llc` (its df goes from
        // 4 to 304): read as a word (a person's name), it is worked out apart; read as a
        // company's legal form, it weighs the same whatever the lists hold, so neither a
        // company query nor an entry holding it as a legal form is.
        let kept: Vec<EntityNames> = COMPANIES
            .iter()
            .enumerate()
            .map(|(i, n)| company(&format!("c{i}"), n))
            .chain([person("p0", "Llc Ivanova")])
            .chain(people("k", KEPT))
            .chain(filler())
            .collect();
        let added: Vec<EntityNames> = (0..300)
            .map(|i| company(&format!("a{i}"), &format!("{} LLC", word(9000 + i))))
            .collect();
        let (old, new) = (
            Index::build(&kept),
            Index::build(&[kept, added.clone()].concat()),
        );
        let drift = WeightDrift::between(&new, &[], &added);
        let as_person = Request {
            kind: Some(KindFilter::Individual),
            ..Request::new("Llc Ivanov")
        };
        assert!(drift.moves_query(&new, &ReadName::of(&as_person)));
        let apart: HashSet<&str> = drift.moved_entities(&new).into_iter().collect();
        assert!(apart.contains("p0"), "{apart:?}");
        for (i, query) in COMPANIES.iter().enumerate() {
            let read = ReadName::of(&Request::new(*query));
            assert!(!drift.moves_query(&new, &read), "{query}");
            let entry = format!("c{i}");
            assert!(!apart.contains(entry.as_str()), "{entry}");
            // The bound holds for it: every kept company's score moves within the band.
            let (before, after) = (scores_as(&old, query, true), scores_as(&new, query, true));
            for c in 0..COMPANIES.len() {
                let id = format!("c{c}");
                let moved = f64::from((after[&id] - before[&id]).abs());
                assert!(
                    moved <= drift.points(),
                    "{query} / {id}: {moved}, bound {}",
                    drift.points()
                );
            }
        }
    }

    #[test]
    fn a_wider_room_moves_fewer_words_apart_for_more_points_and_the_bound_holds_in_each() {
        // One entry added holding `word(0)`, a word of eight names: its weight falls by about
        // 2 %, a little more than every other word's. A room of 1 % moves it apart; the
        // widest keeps it in the band, for more points of drift.
        let kept: Vec<EntityNames> = [people("k", KEPT), filler()].concat();
        let added = vec![person("u0", &format!("{} Qarlovitz", word(0)))];
        let (old, new) = (
            Index::build(&kept),
            Index::build(&[kept.clone(), added.clone()].concat()),
        );
        let moves = WeightMoves::between(&new, &[], &added);
        assert_eq!(
            moves.with_room(BAND_ROOM),
            WeightDrift::between(&new, &[], &added)
        );
        let close = format!("{} {}", word(0), word(1000));
        let queries: Vec<&str> = QUERIES.iter().copied().chain([close.as_str()]).collect();
        let mut last: Option<WeightDrift> = None;
        for room in ROOMS {
            let drift = moves.with_room(room);
            let apart: HashSet<&str> = drift.moved_entities(&new).into_iter().collect();
            for query in &queries {
                if drift.moves_query(&new, &ReadName::of(&Request::new(*query))) {
                    continue;
                }
                let (before, after) = (scores(&old, query), scores(&new, query));
                for entry in kept
                    .iter()
                    .filter(|e| !apart.contains(e.entity_id.as_str()))
                {
                    let id = &entry.entity_id;
                    let moved = f64::from((after[id] - before[id]).abs());
                    assert!(moved <= drift.points(), "{room} {query} / {id}: {moved}");
                }
            }
            if let Some(last) = &last {
                assert!(drift.points() > last.points(), "{room}");
                assert!(drift.moved_count() <= last.moved_count(), "{room}");
            }
            last = Some(drift);
        }
        let reads_it = |room| {
            let drift = moves.with_room(room);
            drift.moves_query(&new, &ReadName::of(&Request::new(close.as_str())))
        };
        assert!(reads_it(ROOMS[0]), "apart in the narrowest room");
        assert!(
            !reads_it(ROOMS[ROOMS.len() - 1]),
            "in the band of the widest"
        );
    }

    #[test]
    fn a_word_whose_df_changes_is_worked_out_apart() {
        let (removed, added) = two_words_moved();
        let ([bounded, apart], drift) = moved(&removed, &added);
        assert!(
            bounded <= drift.points(),
            "moved {bounded}, bound {}",
            drift.points()
        );
        // What involves `hassan` or `park` moved by more than the band allows: the scores
        // of the entries holding them and of the queries reading them are worked out apart.
        assert!(
            apart > drift.points(),
            "moved {apart}, bound {}",
            drift.points()
        );
        assert!(drift.moved_count() >= 2, "{}", drift.moved_count());
        let index = Index::build(&[people("k", KEPT), filler(), added].concat());
        assert!(drift.moves_query(&index, &ReadName::of(&Request::new("Ali Hassan"))));
        assert!(!drift.moves_query(&index, &ReadName::of(&Request::new("Sergei Ivanov"))));
    }

    #[test]
    fn the_bound_tells_a_moved_word_as_moves_query_does() {
        // The selection asks the changed entries' bound whether a favorite reads a moved
        // word, from each distinct token's bound: the same answer as `moves_query` for every
        // query, read by a cache of its own or one copying another thread's bounds, with the
        // changed entries or none.
        let (removed, added) = two_words_moved();
        let index = Index::build(&[people("k", KEPT), filler(), added.clone()].concat());
        let drift = WeightDrift::between(&index, &removed, &added);
        let queries = QUERIES.iter().chain(KEPT).copied().chain([
            "Hasan Ali",
            "Hassan O. Zahir",
            "Ho Chan Park",
            "Pak Chan",
            "HASSAN, Ali",
            "Hassan Bank Ltd",
            "\"Ali Hassan\"",
            "Zubabi Zudadu",
        ]);
        let ids = ["a1", "a7"];
        let with = ChangedEntries::new(&index, ids).reading_drift(Some(drift.clone()));
        let none = ChangedEntries::new(&index, []).reading_drift(Some(drift.clone()));
        let shared = std::sync::Arc::new(SharedBounds::default());
        let mut caches = [
            BoundCache::sharing(shared.clone()),
            BoundCache::sharing(shared),
            BoundCache::default(),
        ];
        let mut moved = 0;
        for query in queries {
            let request = Request::new(query);
            let read = ReadName::of(&request);
            let expected = drift.moves_query(&index, &read);
            moved += usize::from(expected);
            for entries in [&with, &none] {
                for cache in &mut caches {
                    let reach = entries.reach_from(&index, &request, &read, 40, cache);
                    assert_eq!(reach == Reach::MovedWord, expected, "{query}: {reach:?}");
                }
            }
        }
        assert!(moved >= 4, "{moved} queries read a moved word");
    }
}
