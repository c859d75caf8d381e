//! The screening engine: normalisation, candidate index and explainable scoring.
//!
//! [`Index::build`] turns every listed name into tokens ([`normalize`]); a query is
//! normalised the same way, its tokens look up resembling listed tokens ([`similarity`]) in the
//! index, the names those lead to are scored ([`score`]) and the best name of each entry is
//! reported. The [`Screener`] holds the current index behind an `ArcSwap`: a new index (after
//! an import) is swapped in at once while screenings in flight finish on the old one.

mod index;
mod legal;
pub mod normalize;
mod query;
mod score;
pub mod similarity;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use arc_swap::ArcSwap;

pub use index::Index;
use query::Query;

use crate::api::screening::{KindFilter, Match, ScreenRequest, ScreenResult, TokenMatch};
use crate::model::{EntityKind, listing_ended};

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
    pub fn screen(&self, request: &ScreenRequest) -> Result<ScreenResult, ScreenError> {
        screen(&self.index.load(), request)
    }
}

/// Screens one name against `index`.
pub fn screen(index: &Index, request: &ScreenRequest) -> Result<ScreenResult, ScreenError> {
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
    let organisation = request.kind != Some(KindFilter::Individual);
    let query = Query::new(index, name, organisation);
    let today = crate::model::today_utc();
    let accept = |entity: u32| {
        let e = &index.entities[entity as usize];
        let kind_ok = match request.kind {
            None => true,
            Some(KindFilter::Individual) => e.kind == EntityKind::Individual,
            Some(KindFilter::Entity) => e.kind != EntityKind::Individual,
        };
        let ended = || listing_ended(e.listing_ends.as_deref(), &today);
        kind_ok
            && (request.include_ended || !ended())
            && request
                .lists
                .as_ref()
                .is_none_or(|lists| lists.contains(&e.list))
    };

    // Best name per entity.
    let mut best: Vec<(u32, u32, score::Scored)> = Vec::new();
    for name_id in query.candidates(index, CANDIDATES, accept) {
        let name = &index.names[name_id as usize];
        let scored = score::score(index, &query, name);
        match best
            .iter_mut()
            .find(|(entity, _, _)| *entity == name.entity)
        {
            Some(slot) if slot.2.score < scored.score => *slot = (name.entity, name_id, scored),
            Some(_) => {}
            None => best.push((name.entity, name_id, scored)),
        }
    }
    let mut results: Vec<Match> = best
        .into_iter()
        .filter(|(_, _, scored)| percent(scored.score) >= threshold)
        .map(|(entity, name_id, scored)| to_match(index, &query, entity, name_id, &scored, &today))
        .collect();
    results.sort_by(|a, b| {
        b.score
            .cmp(&a.score)
            .then_with(|| a.entity_id.cmp(&b.entity_id))
    });
    let total_matches = results.len();
    results.truncate(limit);
    Ok(ScreenResult {
        query: request.name.clone(),
        total_matches,
        results,
        coverage: None,
    })
}

fn to_match(
    index: &Index,
    query: &Query,
    entity: u32,
    name_id: u32,
    scored: &score::Scored,
    today: &str,
) -> Match {
    let e = &index.entities[entity as usize];
    let name = &index.names[name_id as usize];
    let listed_text = |li: usize| index.vocab[name.tokens[li].id as usize].text.as_str();
    let mut explanation: Vec<TokenMatch> = Vec::new();
    if scored.compact {
        explanation.push(TokenMatch {
            query_token: Some(query.compact.clone()),
            listed_token: Some(name.compact.clone()),
            similarity: percent(scored.score),
            how: "joined".to_owned(),
        });
    } else {
        let query_text = |p: &score::Pair| {
            (p.query..p.query + p.query_len)
                .map(|qi| query.tokens[qi].text.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let listed_span = |p: &score::Pair| {
            (p.listed..p.listed + p.listed_len)
                .map(listed_text)
                .collect::<Vec<_>>()
                .join(" ")
        };
        for (qi, q) in query.tokens.iter().enumerate() {
            match scored.pairs.iter().find(|p| p.covers_query(qi)) {
                Some(p) if p.query == qi => explanation.push(TokenMatch {
                    query_token: Some(query_text(p)),
                    listed_token: Some(listed_span(p)),
                    similarity: percent(p.similarity),
                    how: p.how.as_str().to_owned(),
                }),
                Some(_) => {} // the second token of a joined pair, already explained
                None => explanation.push(TokenMatch {
                    query_token: Some(q.text.clone()),
                    listed_token: None,
                    similarity: 0,
                    how: "unmatched".to_owned(),
                }),
            }
        }
        for li in 0..name.tokens.len() {
            if !scored.pairs.iter().any(|p| p.covers_listed(li)) {
                explanation.push(TokenMatch {
                    query_token: None,
                    listed_token: Some(listed_text(li).to_owned()),
                    similarity: 0,
                    how: "unmatched".to_owned(),
                });
            }
        }
    }
    Match {
        entity_id: e.entity_id.clone(),
        name: e.primary_name.clone(),
        matched_name: name.text.clone(),
        list_code: e.list,
        list_name: e.list.display_name().to_owned(),
        score: percent(scored.score),
        entity_type: KindFilter::of(e.kind),
        kind: e.kind,
        country: e.country.clone(),
        explanation,
        group: None,
        ended_on: e
            .listing_ends
            .clone()
            .filter(|ends| listing_ended(Some(ends), today)),
    }
}

fn percent(x: f32) -> u8 {
    (x * 100.0).round().clamp(0.0, 100.0) as u8
}
