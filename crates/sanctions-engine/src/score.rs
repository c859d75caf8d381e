//! Scoring one query against one listed name: order-independent token alignment weighted by
//! how rare each token is, with an explanation of which token met which.
//!
//! Every query token and every listed token weighs by its rarity (see
//! [`Index::token_weight`]). Tokens are paired greedily, most similar first. The share of the
//! query's weight that found a partner (`query coverage`) and the share of the listed name's
//! weight that did (`name coverage`) give the score
//! `query coverage ^ QUERY_EXPONENT * name coverage ^ NAME_EXPONENT`: a query token with no
//! partner costs a lot (a different person who shares a first name), a listed token with no
//! partner costs less (a middle name or patronymic the analyst left out). Names written
//! together or apart (`Kim Jong Un` / `Kim Jongun`) are also compared as one string.

use super::abjad_pairs;
use super::index::{Index, IndexedName, NameToken};
use super::letters;
use super::normalize::TokenKind;
use super::pair::Pair;
use super::query::{JOINED_SKELETON, Query};
use super::similarity::{Head, MatchKind, edit_similarity_within, joined_similarity};

const QUERY_EXPONENT: f32 = 1.0;
const NAME_EXPONENT: f32 = 0.4;
/// A weak alias (a list's own "low quality" a.k.a.) scores this much of a strong one.
const WEAK_ALIAS_FACTOR: f32 = 0.95;
/// Whole-string comparison scores at most this.
const COMPACT_CAP: f32 = 0.95;

/// A scored name: its score, and whether the whole-string comparison decided it. The
/// alignment behind it is worked out again for the few names reported ([`explained`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Scored {
    /// 0..=1.
    pub score: f32,
    /// The whole-string comparison decided the score (there are then no pairs).
    pub compact: bool,
}

/// Scores `name` for `query`.
pub(crate) fn score(index: &Index, query: &Query, name: &IndexedName) -> Scored {
    scored(index, query, name, false).0
}

/// [`score`], with the pairs of the alignment that gave it (none when the whole-string
/// comparison decided it): what a reported hit explains.
pub(crate) fn explained(index: &Index, query: &Query, name: &IndexedName) -> (Scored, Vec<Pair>) {
    scored(index, query, name, true)
}

/// [`explained`]; the pairs copied out of the buffers only when `keep`.
fn scored(index: &Index, query: &Query, name: &IndexedName, keep: bool) -> (Scored, Vec<Pair>) {
    let (mut pairs, mut score) = SCRATCH.with(|scratch| {
        let buffers = &mut *scratch.borrow_mut();
        buffers.candidates.clear();
        pair_candidates(index, query, name, &mut buffers.candidates);
        let score = best_alignment(index, query, name, buffers);
        let pairs = if keep {
            buffers.best.clone()
        } else {
            Vec::new()
        };
        (pairs, score)
    });

    let mut compact = false;
    // The whole-string comparison gives at most `COMPACT_CAP` for the same string and at
    // most `COMPACT_CAP - 0.05` otherwise: a score already there cannot rise (a cut-off
    // that loses nothing, and skips most of the edit distances of whole names).
    if score < COMPACT_CAP - 0.05 || (score < COMPACT_CAP && query.compact == name.compact) {
        let whole = compact_similarity(&query.compact, &name.compact);
        if whole > score {
            score = whole;
            compact = true;
            pairs.clear();
        }
    }
    if name.weak {
        score *= WEAK_ALIAS_FACTOR;
    }
    let scored = Scored {
        score: score.clamp(0.0, 1.0),
        compact,
    };
    (scored, pairs)
}

/// The best alignment of the candidate pairs (`buffers.candidates`, sorted here) into
/// `buffers.best`, and its score.
///
/// Greedy, a closer single pair may take a word a join needed (`الله` / `Allah` before
/// `حمد الله` / `Hamdullah`), or a join the words that pair better alone (`احمد ضیا` /
/// `Ahmad` before `احمد` / `Ahmad`, `ضیا` / `Zia`): where joins compete, the alignments with
/// joins first and with single words first are scored too, and the best kept. Each only
/// where it can differ from the greedy one: joins first where a compound is among the
/// candidates, single words first where the greedy alignment took a join (else it is the
/// greedy one, pair for pair).
fn best_alignment(index: &Index, query: &Query, name: &IndexedName, buffers: &mut Buffers) -> f32 {
    let Buffers {
        candidates,
        used,
        best,
        other,
    } = buffers;
    // A stable sort, as before: pairs of equal rank keep the order they were found in.
    candidates.sort_by(|a, b| {
        b.similarity
            .total_cmp(&a.similarity)
            .then(b.query_len.cmp(&a.query_len))
            .then(b.listed_len.cmp(&a.listed_len))
            .then(a.query.cmp(&b.query))
            .then(a.listed.cmp(&b.listed))
    });
    let aligned = Aligned {
        index,
        query,
        name,
        candidates,
    };
    let mut score = aligned.select(used, Priority::Closest, best);
    let compound = candidates.iter().any(|p| Priority::Joins.takes(p));
    let join_taken = best.iter().any(Pair::is_join);
    for (first, differs) in [(Priority::Joins, compound), (Priority::Singles, join_taken)] {
        if differs {
            let other_score = aligned.select(used, first, other);
            if other_score > score {
                score = other_score;
                std::mem::swap(best, other);
            }
        }
    }
    score
}

/// What an alignment is chosen from: a name's sorted candidate pairs for a query.
struct Aligned<'a> {
    index: &'a Index,
    query: &'a Query,
    name: &'a IndexedName,
    candidates: &'a [Pair],
}

impl Aligned<'_> {
    /// One alignment of the candidate pairs into `pairs`: each pair taken when neither of
    /// its sides is taken yet (`used`), those `first` takes in a first pass; its score.
    fn select(&self, used: &mut Used, first: Priority, pairs: &mut Vec<Pair>) -> f32 {
        let (used_q, used_l) = used;
        used_q.clear();
        used_q.resize(self.query.tokens.len(), false);
        used_l.clear();
        used_l.resize(self.name.tokens.len(), false);
        pairs.clear();
        for pass in [true, false] {
            for pair in self.candidates.iter().filter(|p| first.takes(p) == pass) {
                let q = pair.query..pair.query + pair.query_len;
                let l = pair.listed..pair.listed + pair.listed_len;
                if used_q[q.clone()].iter().any(|u| *u) || used_l[l.clone()].iter().any(|u| *u) {
                    continue;
                }
                used_q[q].iter_mut().for_each(|u| *u = true);
                used_l[l].iter_mut().for_each(|u| *u = true);
                pairs.push(*pair);
            }
        }
        coverage(self.index, self.query, self.name, pairs)
    }
}

/// Which pairs an alignment takes first ([`score`]).
#[derive(Clone, Copy)]
enum Priority {
    /// The closest pairs first, whatever they cover.
    Closest,
    /// Pairs of one word and two joined first ([`Pair::is_join`]), then the rest, each
    /// closest first.
    Joins,
    /// Pairs of single words first, then joins.
    Singles,
}

impl Priority {
    /// Whether `pair` is taken in the first pass.
    fn takes(self, pair: &Pair) -> bool {
        match self {
            Priority::Closest => true,
            // A compound only: two words against two (a word break moved) would let a
            // word that meets nothing hide in a pair (`Mikhailovich Zhdanov` with
            // `Mikhaylovich Bogdanov`).
            Priority::Joins => pair.is_join() && pair.query_len.min(pair.listed_len) == 1,
            Priority::Singles => !pair.is_join(),
        }
    }
}

/// The score of an alignment: the shares of the query's and the name's weight that found a
/// partner, each weighted by the pair's similarity (see the module's doc).
fn coverage(index: &Index, query: &Query, name: &IndexedName, pairs: &[Pair]) -> f32 {
    let listed_weight = |li: usize| {
        let t = name.tokens[li];
        index.token_weight(t.id, t.kind)
    };
    let mut query_matched = 0.0;
    let mut name_matched = 0.0;
    for pair in pairs {
        let lw: f32 = (pair.listed..pair.listed + pair.listed_len)
            .map(listed_weight)
            .sum();
        let qw: f32 = (pair.query..pair.query + pair.query_len)
            .map(|qi| query.tokens[qi].weight)
            .sum();
        // A query token met by an initial counts for no more than an initial.
        let qw = if pair.how == MatchKind::Initial {
            qw.min(lw)
        } else {
            qw
        };
        let similarity = if half_of_compound(index, name, pairs, pair) {
            pair.similarity * HALF_COMPOUND
        } else {
            pair.similarity
        };
        query_matched += qw * similarity;
        name_matched += lw * similarity;
    }
    // A query word without a partner counts as it weighs unpaired (a leftover word of a
    // legal form weighs as the form: `QueryToken::unpaired_weight`).
    let query_total: f32 = query
        .tokens
        .iter()
        .enumerate()
        .map(|(qi, t)| {
            if pairs.iter().any(|p| p.covers_query(qi)) {
                t.weight
            } else {
                t.unpaired_weight
            }
        })
        .sum();
    let query_coverage = ratio(query_matched, query_total);
    let name_coverage = ratio(name_matched, name.weight);
    query_coverage.powf(QUERY_EXPONENT) * name_coverage.powf(NAME_EXPONENT)
}

/// A word met alone that is half of a listed compound given name counts this much of its
/// similarity ([`half_of_compound`]).
const HALF_COMPOUND: f32 = 0.8;

/// Whether `pair` met one listed word of two adjacent ones that the lists also write as one
/// word (`Ali Reza` / `Alireza`, `Mohammad Reza` / `Mohammadreza`), the other left unmet: a
/// compound given name is another name than its half (`Ali Moradi` is not `Ali Reza MORADI`).
fn half_of_compound(index: &Index, name: &IndexedName, pairs: &[Pair], pair: &Pair) -> bool {
    if pair.query_len != 1 || pair.listed_len != 1 {
        return false;
    }
    let li = pair.listed;
    let unmet_word = |n: usize| {
        name.tokens
            .get(n)
            .is_some_and(|t| t.kind == TokenKind::Word)
            && !pairs.iter().any(|p| p.covers_listed(n))
    };
    // Marked when the index was built (`Index::is_compound`); past the mark's 64 bits, asked.
    let compound = |a: usize, b: usize| {
        if a < 64 {
            name.compounds >> a & 1 == 1
        } else {
            index.is_compound(name.tokens[a].id, name.tokens[b].id)
        }
    };
    name.tokens[li].kind == TokenKind::Word
        && ((li > 0 && unmet_word(li - 1) && compound(li - 1, li))
            || (unmet_word(li + 1) && compound(li, li + 1)))
}

/// Every pairing worth considering: token with token, and two adjacent tokens written as one
/// word on either side (`al qaida` / `alqaida`).
fn pair_candidates(index: &Index, query: &Query, name: &IndexedName, out: &mut Vec<Pair>) {
    single_pairs(index, query, name, out);
    query_joined_pairs(index, query, name, out);
    moved_break_pairs(index, query, name, out);
    let before = out.len();
    abjad_joined_pairs(index, query, name, out);
    abjad_pairs::drop_particles_inside_joins(query, name, out, before);
    listed_joined_pairs(index, query, name, out);
    abjad_pairs::latin_word_as_listed_abjad_words(index, query, name, out);
}

/// The text of listed word `li` of `name`.
fn listed_text<'a>(index: &'a Index, name: &IndexedName, li: usize) -> &'a str {
    index.vocab[name.tokens[li].id as usize].text.as_str()
}

/// Token with token, each half of the same compound or of none ([`same_compound`]).
fn single_pairs(index: &Index, query: &Query, name: &IndexedName, out: &mut Vec<Pair>) {
    let heads = (query_heads(query), listed_heads(index, name));
    for (qi, q) in query.tokens.iter().enumerate() {
        for (li, listed) in name.tokens.iter().enumerate() {
            if let Some((similarity, how)) = q.similarity_to_listed(*listed, index)
                && same_compound(query, index, name, (qi, li), heads)
            {
                out.push(Pair::single(qi, li, similarity, how));
            }
        }
    }
}

/// Two query tokens as one listed token.
fn query_joined_pairs(index: &Index, query: &Query, name: &IndexedName, out: &mut Vec<Pair>) {
    for (qi, (joined, _)) in query.joins.iter().enumerate() {
        for (li, listed) in name.tokens.iter().enumerate() {
            if listed.kind == TokenKind::Legal || Head::refused(joined, &[listed.head]) {
                continue;
            }
            if let Some(similarity) = joined_similarity(joined, listed_text(index, name, li), "") {
                out.push(Pair {
                    query: qi,
                    query_len: 2,
                    listed: li,
                    listed_len: 1,
                    similarity,
                    how: MatchKind::Joined,
                });
            }
        }
    }
}

/// Two query tokens as two listed tokens with the word break elsewhere (`alk awari` / `al
/// kawari`, `a lazyz` / `al aziz`: a typo moved the hyphen or the space).
fn moved_break_pairs(index: &Index, query: &Query, name: &IndexedName, out: &mut Vec<Pair>) {
    let word = |kind: TokenKind| kind != TokenKind::Legal && kind != TokenKind::Number;
    for (qi, (joined, _)) in query.joins.iter().enumerate() {
        if !word(query.tokens[qi].kind) || !word(query.tokens[qi + 1].kind) {
            continue;
        }
        for li in 0..name.tokens.len().saturating_sub(1) {
            let (a, b) = (name.tokens[li], name.tokens[li + 1]);
            if !word(a.kind) || !word(b.kind) || Head::refused(joined, &[a.head, b.head]) {
                continue;
            }
            let (first, second) = (
                listed_text(index, name, li),
                listed_text(index, name, li + 1),
            );
            if first == query.tokens[qi].text {
                continue; // the same break: the single pairs say it
            }
            if let Some(similarity) = joined_similarity(joined, first, second) {
                out.push(Pair {
                    query: qi,
                    query_len: 2,
                    listed: li,
                    listed_len: 2,
                    similarity,
                    how: MatchKind::Joined,
                });
            }
        }
    }
}

/// Adjacent abjad query words as one Latin listed word (`Query::abjad_joins`).
fn abjad_joined_pairs(index: &Index, query: &Query, name: &IndexedName, out: &mut Vec<Pair>) {
    for join in &query.abjad_joins {
        for (li, listed) in name.tokens.iter().enumerate() {
            if listed.kind != TokenKind::Word {
                continue;
            }
            if join.ids.binary_search(&listed.id).is_ok() {
                // Where the first word alone meets the listed compound more closely (the
                // lexicon learned `امین` as `Aminullah`), the join reads the same compound
                // and also covers the `الله` after it: as close, and sorted first (more
                // query words), so that `الله` is not left unpaired.
                let alone = query.tokens[join.first]
                    .similarity_to(listed.id, listed.kind, index)
                    .map_or(0.0, |(s, _)| s);
                out.push(Pair {
                    query: join.first,
                    query_len: join.len,
                    listed: li,
                    listed_len: 1,
                    similarity: JOINED_SKELETON.max(alone),
                    how: MatchKind::Skeleton,
                });
            }
        }
    }
}

/// One query token as two listed tokens: spelt as the two joined, or, for a word written in
/// another script, a spelling the lexicon gives for the pair as the index files it joined.
fn listed_joined_pairs(index: &Index, query: &Query, name: &IndexedName, out: &mut Vec<Pair>) {
    for li in 0..name.tokens.len().saturating_sub(1) {
        if name.tokens[li..li + 2]
            .iter()
            .any(|t| t.kind == TokenKind::Legal)
        {
            continue;
        }
        let heads = [name.tokens[li].head, name.tokens[li + 1].head];
        let texts = || {
            (
                listed_text(index, name, li),
                listed_text(index, name, li + 1),
            )
        };
        // The listed pair as the index files it joined, for a word written in another
        // script that the lexicon gives as that pair (`محمدرضا` / `Mohammad Reza`): looked
        // up once per listed pair, and only when such a word needs it.
        let mut pair_id: Option<Option<u32>> = None;
        for (qi, q) in query.tokens.iter().enumerate() {
            if q.kind == TokenKind::Legal {
                continue;
            }
            let joined = (!Head::refused(&q.text, &heads))
                .then(|| {
                    let (first, second) = texts();
                    joined_similarity(&q.text, first, second)
                })
                .flatten();
            let found = match joined {
                Some(s) => Some((s, MatchKind::Joined)),
                // Only a learned spelling counts: a token with none has nothing to look up.
                None if !q.written.is_empty() && q.learned => {
                    let id = *pair_id.get_or_insert_with(|| {
                        let (first, second) = texts();
                        index.joined_id(first, second)
                    });
                    id.and_then(|id| q.similarity_to(id, TokenKind::Word, index))
                        .filter(|(_, how)| *how == MatchKind::Lexicon)
                }
                None => None,
            };
            if let Some((similarity, how)) = found {
                out.push(Pair {
                    query: qi,
                    query_len: 1,
                    listed: li,
                    listed_len: 2,
                    similarity,
                    how,
                });
            }
        }
    }
}

/// The particle that makes a word half of a compound name (`Abu Ali`, `Abd al-Reza`: a kunya
/// or a servant's name is another name than the word alone), when one
/// comes before word `i` of a name (an article between them aside): a word is paired only
/// with a word of the same compound or of none (`Ali` never meets `Abu Ali`).
fn compound_head<'a>(mut word: impl FnMut(usize) -> (TokenKind, &'a str), i: usize) -> u8 {
    let mut j = i;
    while j > 0 {
        match word(j - 1) {
            (TokenKind::Particle, "al") => j -= 1,
            (TokenKind::Particle, "abd" | "abdul") => return 1,
            (TokenKind::Particle, "abu") => return 2,
            _ => return 0,
        }
    }
    0
}

fn query_head(query: &Query, qi: usize) -> u8 {
    compound_head(
        |k| (query.tokens[k].kind, query.tokens[k].text.as_str()),
        qi,
    )
}

fn listed_head(index: &Index, name: &IndexedName, li: usize) -> u8 {
    compound_head(
        |k| {
            let t = name.tokens[k];
            (t.kind, index.vocab[t.id as usize].text.as_str())
        },
        li,
    )
}

/// Which compound particles a name holds anywhere: bit `1 << head` ([`compound_head`]).
fn heads_present<'a>(words: impl Iterator<Item = (TokenKind, &'a str)>) -> u8 {
    words.fold(0, |bits, word| match word {
        (TokenKind::Particle, "abd" | "abdul") => bits | 1 << 1,
        (TokenKind::Particle, "abu") => bits | 1 << 2,
        _ => bits,
    })
}

fn query_heads(query: &Query) -> u8 {
    heads_present(query.tokens.iter().map(|t| (t.kind, t.text.as_str())))
}

fn listed_heads(index: &Index, name: &IndexedName) -> u8 {
    // Only a particle spelt with as many letters as one of those may be one: the others'
    // words are left unread.
    let may_be_head = |t: &&NameToken| {
        t.kind == TokenKind::Particle && ["abd", "abdul", "abu"].iter().any(|h| t.head.may_be(h))
    };
    heads_present(
        (name.tokens.iter())
            .filter(may_be_head)
            .map(|t| (t.kind, index.vocab[t.id as usize].text.as_str())),
    )
}

/// Whether query word `qi` and listed word `li` may pair: each half of the same compound, or
/// neither; or, where the words were reordered or a word dropped between (`Basutu, Abu` /
/// `Abu Basutu`), a word's particle is still in the other name. `heads`: [`heads_present`]
/// of the query and of the name.
fn same_compound(
    query: &Query,
    index: &Index,
    name: &IndexedName,
    (qi, li): (usize, usize),
    (query_has, name_has): (u8, u8),
) -> bool {
    if query_has == 0 && name_has == 0 {
        return true;
    }
    let (q, l) = (query_head(query, qi), listed_head(index, name, li));
    q == l || ((q == 0 || name_has & 1 << q != 0) && (l == 0 || query_has & 1 << l != 0))
}

/// Per-thread buffers of [`score`], reused from one name to the next instead of allocated
/// for each of a query's names.
#[derive(Default)]
struct Buffers {
    /// The candidate pairs.
    candidates: Vec<Pair>,
    used: Used,
    /// The best alignment so far.
    best: Vec<Pair>,
    /// The alignment being tried.
    other: Vec<Pair>,
}

/// The tokens an alignment has taken on either side (query, listed name).
type Used = (Vec<bool>, Vec<bool>);

thread_local! {
    static SCRATCH: std::cell::RefCell<Buffers> = std::cell::RefCell::new(Buffers::default());
}

fn ratio(part: f32, whole: f32) -> f32 {
    if whole <= 0.0 {
        0.0
    } else {
        (part / whole).min(1.0)
    }
}

/// The two names as single strings, for names joined or split differently. Only for names
/// long enough that one string says something.
pub(crate) fn compact_similarity(query: &str, listed: &str) -> f32 {
    const MIN_LEN: usize = 8;
    if query.len() < MIN_LEN || listed.len() < MIN_LEN {
        return 0.0;
    }
    if query == listed {
        return COMPACT_CAP;
    }
    // At least 0.9 alike: at most a tenth of the longer string edited, so the distance is
    // computed only up to that bound (the same result where it matters, far less work).
    let longest = query.len().max(listed.len());
    let edits = longest / 10;
    // Most names of about the same length are not alike at all: more edits apart by their
    // letters than the tenth allowed, they are refused without the distance (of 20 to 40
    // letters). Names further apart in length are refused by the distance's own check.
    if query.len().abs_diff(listed.len()) <= edits
        && !letters::words_within(query, listed, edits as u32)
    {
        return 0.0;
    }
    let s = edit_similarity_within(query, listed, edits);
    if s >= 0.9 {
        s.min(COMPACT_CAP) - 0.05
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AliasQuality, EntityKind, EntityNames, ListCode};

    /// An index of a few names, and the score of `query` against the name `listed`.
    fn scores(names: &[&str], query: &str, listed: &str) -> f32 {
        let entries: Vec<EntityNames> = names
            .iter()
            .enumerate()
            .map(|(i, n)| EntityNames {
                entity_id: format!("un:{i}"),
                list: ListCode::Un,
                kind: EntityKind::Individual,
                primary_name: n.to_string(),
                country: None,
                names: vec![(n.to_string(), AliasQuality::Strong)],
                listing_ends: None,
                facts: Default::default(),
            })
            .collect();
        let index = Index::build(&entries);
        let name = index
            .names
            .iter()
            .find(|n| n.text == listed)
            .expect("listed name indexed");
        let query = Query::new(&index, query, false);
        score(&index, &query, name).score
    }

    const NAMES: &[&str] = &[
        "PUTIN, Vladimir Vladimirovich",
        "IVANOV, Vladimir Petrovich",
        "NASRALLAH, Hassan",
        "HASSAN, Ali",
        "HASSAN, Omar",
        "HASSAN, Mohammed",
    ];

    #[test]
    fn order_does_not_matter() {
        let a = scores(
            NAMES,
            "Vladimir Vladimirovich Putin",
            "PUTIN, Vladimir Vladimirovich",
        );
        assert_eq!(a, 1.0);
    }

    #[test]
    fn a_missing_middle_name_costs_less_than_a_foreign_token() {
        let dropped = scores(NAMES, "Vladimir Putin", "PUTIN, Vladimir Vladimirovich");
        let foreign = scores(
            NAMES,
            "Vladimir Vladimirovich Putin Smith",
            "PUTIN, Vladimir Vladimirovich",
        );
        assert!(dropped > 0.8, "{dropped}");
        assert!(foreign < dropped, "{foreign} vs {dropped}");
    }

    #[test]
    fn rare_tokens_carry_the_evidence() {
        // Same family name, different given name: a different person.
        let other_given = scores(NAMES, "Mohammed Nasrallah", "NASRALLAH, Hassan");
        assert!(other_given < 0.8, "{other_given}");
        // Sharing only the common token "hassan" is weaker still.
        let common_only = scores(NAMES, "Hassan Rouhani", "HASSAN, Ali");
        assert!(common_only < other_given, "{common_only} vs {other_given}");
    }

    #[test]
    fn a_given_name_the_lexicon_spells_for_another_abjad_word_is_no_skeleton_pair() {
        // `حسن` (Hasan) and `حسين` (Husayn) share the skeleton `hsn` with `Hussein`; the
        // lists spell `حسن` Hassan, Hasan, and `Hussein` for `حسين`: another name.
        let names = &["حسن كامل", "حسين كامل", "KAMEL, Ali"];
        let other = scores(names, "Hussein Kamel", "حسن كامل");
        let same = scores(names, "Hussein Kamel", "حسين كامل");
        let spelt = scores(names, "Hassan Kamel", "حسن كامل");
        assert!(other < 0.7, "{other}");
        assert!(same > 0.85, "{same}");
        assert!(spelt > 0.85, "{spelt}");
    }

    #[test]
    fn a_word_break_moved_by_a_typo_still_meets() {
        let names = &["AL-KAWARI, Salih", "HASSAN, Ali"];
        let moved = scores(names, "Salih Alk-Awari", "AL-KAWARI, Salih");
        assert!(moved > 0.9, "{moved}");
    }

    #[test]
    fn typos_and_initials_score_high_but_below_exact() {
        let typo = scores(
            NAMES,
            "Vladimir Vladimirovich Putn",
            "PUTIN, Vladimir Vladimirovich",
        );
        let initial = scores(NAMES, "V. V. Putin", "PUTIN, Vladimir Vladimirovich");
        assert!((0.85..1.0).contains(&typo), "{typo}");
        assert!((0.8..1.0).contains(&initial), "{initial}");
    }

    /// [`compact_similarity`] with every distance worked out: what it must give.
    fn compact_similarity_compared(query: &str, listed: &str) -> f32 {
        if query.len() < 8 || listed.len() < 8 {
            return 0.0;
        }
        if query == listed {
            return COMPACT_CAP;
        }
        let longest = query.len().max(listed.len());
        let s = edit_similarity_within(query, listed, longest / 10);
        if s >= 0.9 {
            s.min(COMPACT_CAP) - 0.05
        } else {
            0.0
        }
    }

    /// Whole names refused by their letters are refused by the distance: listed names
    /// written as one against their typos (up to four edits) and against each other.
    #[test]
    fn whole_names_refused_by_their_letters_are_refused_by_the_distance() {
        let names = [
            "vladimirvladimirovichputin",
            "bancanacionaldecuba",
            "usamabinmuhammadbinladin",
            "kimjongun",
            "limitedliabilitycompanyarcticlng2",
            "aleksandrgrigoryevichlukashenko",
        ];
        let mut met = 0;
        for listed in names {
            let mut queries: Vec<String> = names.iter().map(|n| n.to_string()).collect();
            for at in 0..listed.len() {
                for kind in 0..4 {
                    queries.push(letters::with_edits(listed, &[(at, kind, b'e')]));
                    queries.push(letters::with_edits(
                        listed,
                        &[(at, kind, b'q'), (at + 7, 2, b'z')],
                    ));
                    queries.push(letters::with_edits(
                        listed,
                        &[(at, kind, b'o'), (at + 3, 0, b'a'), (at + 9, 1, 0)],
                    ));
                }
            }
            for query in &queries {
                let expected = compact_similarity_compared(query, listed);
                assert_eq!(
                    compact_similarity(query, listed),
                    expected,
                    "{query} / {listed}"
                );
                met += usize::from(expected > 0.0);
            }
        }
        assert!(
            met > 200,
            "only {met} names met: the test would not see a wrong refusal"
        );
    }

    proptest::proptest! {
        #[test]
        fn any_whole_name_is_refused_by_its_letters_as_by_the_distance(
            listed in "[a-h]{8,40}",
            edits in proptest::collection::vec((0usize..41, 0u8..4, b'a'..=b'i'), 0..6),
        ) {
            let query = letters::with_edits(&listed, &edits);
            proptest::prop_assert_eq!(
                compact_similarity(&query, &listed),
                compact_similarity_compared(&query, &listed)
            );
        }
    }
}
