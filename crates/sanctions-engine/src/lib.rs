//! The screening engine: normalisation, candidate index and explainable scoring.
//!
//! [`Index::build`] turns every listed name into tokens ([`normalize`]); a query is
//! normalised the same way, its tokens look up resembling listed tokens ([`similarity`]) in the
//! index, the names those lead to are scored ([`score`]) and the best name of each entry is
//! reported as a domain [`Screening`] (wire shapes are `api`'s, mapped by `service`). The [`Screener`] holds the current index behind an `ArcSwap`: a new index (after
//! an import) is swapped in at once while screenings in flight finish on the old one.

use sanctions_model as model;

mod abd;
mod abjad_pairs;
mod alternatives;
mod bound;
mod drift;
mod facts;
mod index;
mod joins;
mod legal;
mod letters;
mod lexicon;
mod literal;
pub mod normalize;
mod osa;
mod pair;
mod prefetch;
mod query;
mod read_name;
mod result;
mod score;
pub mod script;
pub mod similarity;
mod split;
mod stored;
mod table;
#[cfg(test)]
mod tests;
pub mod threads;
mod titles;
mod token;

use std::collections::hash_map::Entry;
use std::sync::Arc;

use arc_swap::ArcSwap;

pub use bound::{BoundCache, ChangedEntries, Reach, SharedBounds};
pub use drift::{BAND_ROOM, ROOMS, WeightDrift, WeightMoves};
pub use index::Index;
#[doc(hidden)]
pub use lexicon::replace_for_evaluation as replace_lexicon_for_evaluation;
pub use literal::has_something_to_screen;
use query::Query;
pub use read_name::ReadName;
pub use result::{
    Evidence, Explanation, Fact, Hit, KindFilter, MatchKind, Request, Screening, TokenPair, Verdict,
};
pub use stored::{FORMAT as INDEX_FORMAT, StoredError};

use crate::model::listing_ended;

/// The default lowest score reported, chosen from the measurements on the labelled
/// development set (see the README's quality table).
pub const DEFAULT_THRESHOLD: u8 = 78;
/// The default number of results.
pub const DEFAULT_LIMIT: usize = 10;
/// The most results a request may ask for.
pub const MAX_LIMIT: usize = 500;
/// The longest name screened, in characters.
pub const MAX_NAME_CHARS: usize = 500;
/// How many candidate names are scored in full per query.
const CANDIDATES: usize = 64;

/// Why a request cannot be screened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScreenError {
    #[error("the name to screen is empty")]
    EmptyName,
    #[error("the name is longer than {MAX_NAME_CHARS} characters")]
    NameTooLong,
    #[error("threshold must be between 0 and 100, not {0}")]
    Threshold(u8),
    #[error("limit must be between 1 and {MAX_LIMIT}, not {0}")]
    Limit(usize),
    #[error("date of birth must be YYYY, YYYY-MM or YYYY-MM-DD, not {0:?}")]
    DateOfBirth(String),
    #[error("unknown country {0:?} (an ISO 3166-1 alpha-2 code or a country's name)")]
    Country(String),
}

/// The engine as the rest of the program uses it: the current index, replaceable at any time.
pub struct Screener {
    index: ArcSwap<Index>,
}

impl Screener {
    pub fn new(index: Index) -> Screener {
        Screener {
            index: ArcSwap::from_pointee(index),
        }
    }

    /// The index screenings currently use.
    pub fn index(&self) -> Arc<Index> {
        self.index.load_full()
    }

    /// Swaps in a new index; screenings already running finish on the old one.
    pub fn replace(&self, index: Index) {
        self.index.store(Arc::new(index));
    }

    /// Screens one name.
    pub fn screen(&self, request: &Request) -> Result<Screening, ScreenError> {
        screen(&self.index.load(), request)
    }
}

/// Whether a request's date of birth and country are ones [`screen`] reads (blank is none):
/// for callers that keep them to screen with later (a watchlist's names), refused up front.
pub fn check_facts(date_of_birth: Option<&str>, country: Option<&str>) -> Result<(), ScreenError> {
    facts::parse(date_of_birth, country).map(|_| ())
}

/// Screens one name against `index`. A name that holds a part in parentheses written in
/// another script than the rest (`Ibrahim Hassan Tali Asiri (إبراهيم حسن طالع عسيري)`) is two
/// alternative names of one person, and a name with a word written in Arabic script that the
/// Latin names write as two (`محمدتقی` / `Mohammad Taghi`) has a second reading with it split:
/// each reading is screened alone and each entry keeps its better result ([`alternatives`]).
pub fn screen(index: &Index, request: &Request) -> Result<Screening, ScreenError> {
    if request.name.trim().chars().count() > MAX_NAME_CHARS {
        return Err(ScreenError::NameTooLong);
    }
    let names = alternatives::readings(request.name.trim());
    if names.len() < 2 {
        return screen_one(index, request);
    }
    let alone = |name: &String, limit: Option<usize>| {
        screen_one(
            index,
            &Request {
                name: name.clone(),
                limit,
                ..request.clone()
            },
        )
    };
    let mut screenings = names
        .iter()
        .map(|n| alone(n, request.limit))
        .collect::<Result<Vec<_>, _>>()?;
    // The best `limit` entries of all lie among the best `limit` of each; the total of all
    // needs every entry of each at or above the threshold, so all are screened again in
    // full when any had more than it reported.
    if screenings.iter().any(|s| s.total > s.hits.len()) {
        screenings = names
            .iter()
            .map(|n| alone(n, Some(MAX_LIMIT)))
            .collect::<Result<Vec<_>, _>>()?;
    }
    let floor = screenings.iter().map(|s| s.total).max().unwrap_or(0);
    // Each reading's nearest miss and lowest hit, the highest and lowest of all: an entry one
    // reading misses and another reports counts as a miss too, which only widens the margin.
    let nearest_below = screenings
        .iter()
        .filter_map(|s| s.nearest_below)
        .reduce(f32::max);
    let lowest_hit = screenings
        .iter()
        .filter_map(|s| s.lowest_hit)
        .reduce(f32::min);
    let mut hits: Vec<Hit> = Vec::with_capacity(screenings.iter().map(|s| s.hits.len()).sum());
    for hit in screenings.into_iter().flat_map(|s| s.hits) {
        match hits.iter_mut().find(|h| h.entity == hit.entity) {
            Some(kept) if kept.score >= hit.score => {}
            Some(kept) => *kept = hit,
            None => hits.push(hit),
        }
    }
    // Past `MAX_LIMIT` entries in one screening the union is not known: at least the largest.
    let total = hits.len().max(floor);
    hits.sort_by(|a, b| {
        b.score
            .cmp(&a.score)
            .then_with(|| a.entity_id.cmp(&b.entity_id))
    });
    hits.truncate(request.limit.unwrap_or(DEFAULT_LIMIT));
    Ok(Screening {
        total,
        hits,
        nearest_below,
        lowest_hit,
    })
}

/// Screens one name, in one script or several, against `index`.
fn screen_one(index: &Index, request: &Request) -> Result<Screening, ScreenError> {
    let name = request.name.trim();
    if name.is_empty() {
        return Err(ScreenError::EmptyName);
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(ScreenError::NameTooLong);
    }
    let threshold = request.threshold.unwrap_or(DEFAULT_THRESHOLD);
    if threshold > 100 {
        return Err(ScreenError::Threshold(threshold));
    }
    let limit = request.limit.unwrap_or(DEFAULT_LIMIT);
    if limit == 0 || limit > MAX_LIMIT {
        return Err(ScreenError::Limit(limit));
    }
    let mut facts = facts::parse(request.date_of_birth.as_deref(), request.country.as_deref())?;
    // A date or a country typed into the name counts as the request's own when it has none.
    let (extracted, typed) = facts::extract(name);
    let name = if extracted.trim().is_empty() {
        name.to_owned()
    } else {
        extracted
    };
    facts.date_of_birth = facts.date_of_birth.or(typed.date_of_birth);
    facts.country = facts.country.or(typed.country);
    let organisation = request.kind != Some(KindFilter::Individual);
    // A name of particles, titles or legal forms that looks like a person's (`DAS, V.`):
    // its words as they are, exact matches only.
    let (tokens, literal) = literal::read(&name, organisation);
    let query = Query::from_tokens(index, tokens, organisation, literal);
    let today = crate::model::today_utc();
    let accept = |entity: u32, e: index::EntityFilter| {
        let ended = || {
            e.ends
                && listing_ended(
                    index.entity_meta[entity as usize].listing_ends.as_deref(),
                    &today,
                )
        };
        request.kind.is_none_or(|k| k.accepts(e.kind))
            && (request.include_ended || !ended())
            && request
                .lists
                .as_ref()
                .is_none_or(|lists| lists.contains(&e.list))
    };

    let (best, by_shape) = best_names(
        index,
        &query,
        query.candidates(index, accept),
        threshold,
        limit,
    );
    // Scores first; the hits (with their explanations and facts, cloned) only for the
    // `limit` reported, while `total` still counts every entry at or above the threshold.
    // The facts' points for every entry scored; their evidence (written out) only for the
    // hits reported.
    let mut near = Nearness::default();
    let mut ranked: Vec<(u8, f32, u32, u32)> = best
        .into_iter()
        .filter_map(|best| {
            let points = if facts.is_empty() {
                0
            } else {
                let e = best.entity as usize;
                let held = &index.entity_meta[e].facts;
                facts::points_by(&facts, held, || &index.entities[e].facts)
            };
            let score = (i16::from(percent(best.score)) + i16::from(points)).clamp(0, 100) as u8;
            near.add(best.score * 100.0 + f32::from(points), score >= threshold);
            (score >= threshold).then_some((score, best.score, best.entity, best.name_id))
        })
        .collect();
    // Highest score first; at equal scores the closer name (the finer name score), then the
    // entry id for a stable order.
    let entity_id = |e: u32| index.entities[e as usize].entity_id.as_str();
    ranked.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then_with(|| b.1.total_cmp(&a.1))
            .then_with(|| entity_id(a.2).cmp(entity_id(b.2)))
    });
    let total = ranked.len();
    ranked.truncate(limit);
    let hits: Vec<Hit> = ranked
        .into_iter()
        .map(|(score, _, entity, name_id)| {
            let scored = &by_shape[&index.names[name_id as usize].shape];
            let mut hit = to_hit(index, &query, entity, name_id, scored, &today);
            hit.score = score;
            if !facts.is_empty() {
                let listed = &index.entities[entity as usize].facts;
                hit.explanation.evidence = facts::weigh(&facts, listed).0;
            }
            hit
        })
        .collect();
    Ok(Screening {
        total,
        hits,
        nearest_below: near.below,
        lowest_hit: near.lowest,
    })
}

/// The highest unrounded final score below the threshold and the lowest at or above it,
/// among the entries scored ([`Screening::nearest_below`], [`Screening::lowest_hit`]).
#[derive(Default)]
struct Nearness {
    below: Option<f32>,
    lowest: Option<f32>,
}

impl Nearness {
    fn add(&mut self, unrounded: f32, hit: bool) {
        if hit {
            self.lowest = Some(self.lowest.map_or(unrounded, |l| l.min(unrounded)));
        } else {
            self.below = Some(self.below.map_or(unrounded, |b| b.max(unrounded)));
        }
    }
}

/// An entry's best-scoring name among the candidates and its score (its explanation is
/// kept once per shape, in the map [`best_names`] returns).
struct Best {
    entity: u32,
    name_id: u32,
    score: f32,
}

/// The best-scoring name of each entry among the candidates `found`, scored in the order
/// [`Query::pick`] gives, with each name shape's scoring.
///
/// When the last places of the candidate list still held entries at or above the
/// threshold, more may lie beyond it: look further (four times as far each round) until a
/// round's tail finds none or the candidates run out, so that the total counts every entry
/// that reaches the threshold and the limit can be met.
fn best_names(
    index: &Index,
    query: &Query,
    mut found: Vec<query::Found>,
    threshold: u8,
    limit: usize,
) -> (Vec<Best>, table::FastMap<u32, score::Scored>) {
    let mut max = CANDIDATES.max(limit.saturating_mul(2));
    // Room for the first round's entries at once (no growing while scoring).
    let mut best: Vec<Best> = Vec::with_capacity(max);
    let mut slots: table::FastMap<u32, usize> =
        table::FastMap::with_capacity_and_hasher(max, Default::default());
    let mut scored_up_to = 0;
    // The same name on several lists (one person's entries on six lists often spell it
    // alike) scores alike: scored once per query (its shape, [`index::IndexedName::shape`]),
    // with room for the first round's at once.
    let mut by_shape: table::FastMap<u32, score::Scored> =
        table::FastMap::with_capacity_and_hasher(max, Default::default());
    loop {
        let candidates = Query::pick(index, &mut found, max);
        let mut tail_hit = false;
        let tail_from = candidates.len() * 3 / 4;
        index.ask_memory_for_names(candidates.get(scored_up_to..).unwrap_or_default());
        for (rank, &name_id) in candidates.iter().enumerate().skip(scored_up_to) {
            let meta = index.name_meta[name_id as usize];
            let score = by_shape
                .entry(meta.shape)
                .or_insert_with(|| score::score(index, query, &index.names[name_id as usize]))
                .score;
            if rank >= tail_from && percent(score) >= threshold {
                tail_hit = true;
            }
            let this = Best {
                entity: meta.entity,
                name_id,
                score,
            };
            match slots.entry(meta.entity) {
                Entry::Occupied(slot) => {
                    let slot = &mut best[*slot.get()];
                    if slot.score < score {
                        *slot = this;
                    }
                }
                Entry::Vacant(slot) => {
                    slot.insert(best.len());
                    best.push(this);
                }
            }
        }
        if !tail_hit || candidates.len() < max {
            break;
        }
        scored_up_to = candidates.len();
        max = max.saturating_mul(4);
    }
    (best, by_shape)
}

fn to_hit(
    index: &Index,
    query: &Query,
    entity: u32,
    name_id: u32,
    scored: &score::Scored,
    today: &str,
) -> Hit {
    let e = &index.entities[entity as usize];
    let name = &index.names[name_id as usize];
    let mut explanation: Vec<TokenPair> = Vec::new();
    if scored.compact {
        explanation.push(TokenPair {
            query: Some(query.compact.clone()),
            listed: Some(name.compact.to_string()),
            similarity: percent(scored.score),
            kind: MatchKind::Joined,
        });
    } else {
        // The alignment behind the score, worked out again for this name alone (names of
        // one shape align alike): a screening keeps only the scores of the names it scores.
        let (again, pairs) = score::explained(index, query, name);
        debug_assert_eq!(again.score, scored.score);
        // A listed word not in Latin letters is shown as the list writes it, like the query's.
        let written = index.written_tokens(name_id);
        let listed_text = |li: usize| match written.get(li) {
            Some(w) if !w.is_empty() => w.as_str(),
            _ => index.vocab[name.tokens[li].id as usize].text.as_str(),
        };
        let query_text = |p: &pair::Pair| {
            (p.query..p.query + p.query_len)
                .map(|qi| query.tokens[qi].shown())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let listed_span = |p: &pair::Pair| {
            (p.listed..p.listed + p.listed_len)
                .map(listed_text)
                .collect::<Vec<_>>()
                .join(" ")
        };
        for (qi, q) in query.tokens.iter().enumerate() {
            match pairs.iter().find(|p| p.covers_query(qi)) {
                Some(p) if p.query == qi => explanation.push(TokenPair {
                    query: Some(query_text(p)),
                    listed: Some(listed_span(p)),
                    similarity: percent(p.similarity),
                    kind: p.how,
                }),
                Some(_) => {} // the second token of a joined pair, already explained
                None => explanation.push(TokenPair {
                    query: Some(q.shown().to_owned()),
                    listed: None,
                    similarity: 0,
                    kind: MatchKind::Unmatched,
                }),
            }
        }
        for li in 0..name.tokens.len() {
            if !pairs.iter().any(|p| p.covers_listed(li)) {
                explanation.push(TokenPair {
                    query: None,
                    listed: Some(listed_text(li).to_owned()),
                    similarity: 0,
                    kind: MatchKind::Unmatched,
                });
            }
        }
    }
    Hit {
        entity,
        entity_id: e.entity_id.clone(),
        list: e.list,
        kind: e.kind,
        primary_name: e.primary_name.clone(),
        matched_name: name.text.to_string(),
        country: e.country.clone(),
        score: percent(scored.score),
        explanation: Explanation {
            tokens: explanation,
            evidence: Vec::new(),
        },
        ended_on: e
            .listing_ends
            .clone()
            .filter(|ends| listing_ended(Some(ends), today)),
        facts: e.facts.clone(),
    }
}

/// A stable hash of a text (FNV-1a), for splits that must not change between runs.
pub fn hash_text(text: &str) -> u64 {
    index::hash(text.as_bytes())
}

fn percent(x: f32) -> u8 {
    (x * 100.0).round().clamp(0.0, 100.0) as u8
}
