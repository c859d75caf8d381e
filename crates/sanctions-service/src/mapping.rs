//! Engine requests and results to and from the wire types of `api::screening`: the one place
//! where the domain's [`engine::Screening`] becomes the JSON shape users see.

use crate::api::screening::{KindFilter, Match, ScreenRequest, ScreenResult, TokenMatch};
use crate::engine::{self, Evidence, Fact, Hit, TokenPair, Verdict};

/// The engine request of a wire request.
pub fn request(wire: &ScreenRequest) -> engine::Request {
    engine::Request {
        // The engine reads the query without control sequences; the wire keeps it as sent.
        name: super::query::cleaned(&wire.name).into_owned(),
        kind: wire.kind.map(kind_filter),
        threshold: wire.threshold,
        limit: wire.limit,
        lists: wire.lists.clone(),
        include_ended: wire.include_ended,
        date_of_birth: wire.date_of_birth.clone(),
        country: wire.country.clone(),
    }
}

/// The engine's kind filter for the wire's.
pub fn kind_filter(wire: KindFilter) -> engine::KindFilter {
    match wire {
        KindFilter::Individual => engine::KindFilter::Individual,
        KindFilter::Entity => engine::KindFilter::Entity,
    }
}

/// The wire result of screening `query`.
pub fn result(query: &str, screening: engine::Screening) -> ScreenResult {
    ScreenResult {
        query: query.to_owned(),
        total_matches: screening.total,
        results: screening.hits.into_iter().map(match_of).collect(),
        coverage: None,
    }
}

/// The wire match of one hit.
pub fn match_of(hit: Hit) -> Match {
    Match {
        name: hit.primary_name,
        matched_name: hit.matched_name,
        list_code: hit.list,
        list_name: hit.list.display_name().to_owned(),
        score: hit.score,
        entity_type: KindFilter::of(hit.kind),
        kind: hit.kind,
        country: hit.country,
        explanation: hit
            .explanation
            .tokens
            .into_iter()
            .map(token_match)
            .chain(hit.explanation.evidence.into_iter().map(evidence_match))
            .collect(),
        entity_id: hit.entity_id,
        ended_on: hit.ended_on,
        group: None,
        dates_of_birth: hit.facts.birth_dates.iter().map(|d| d.iso()).collect(),
        nationalities: hit.facts.nationalities,
        programmes: hit.facts.programs,
        listed_on: hit.facts.listed_on,
    }
}

/// A fact weighed, as a step of the wire explanation: the query's value, the list's, and
/// `how` naming the fact, the verdict and the points (`date_of_birth agrees +3`).
fn evidence_match(e: Evidence) -> TokenMatch {
    let fact = match e.fact {
        Fact::DateOfBirth => "date_of_birth",
        Fact::Country => "country",
    };
    let (verdict, similarity) = match e.verdict {
        Verdict::Agrees => ("agrees", 100),
        Verdict::Close => ("close", 50),
        Verdict::Conflicts => ("conflicts", 0),
        Verdict::Unknown => ("not listed", 0),
    };
    TokenMatch {
        query_token: Some(e.query),
        listed_token: e.listed,
        similarity,
        how: format!("{fact} {verdict} {:+}", e.points),
    }
}

fn token_match(pair: TokenPair) -> TokenMatch {
    TokenMatch {
        query_token: pair.query,
        listed_token: pair.listed,
        similarity: pair.similarity,
        how: pair.kind.as_str().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Explanation, MatchKind};
    use crate::model::{EntityKind, ListCode};

    #[test]
    fn a_request_reaches_the_engine_cleaned_with_every_field() {
        let wire = ScreenRequest {
            kind: Some(KindFilter::Individual),
            threshold: Some(80),
            limit: Some(5),
            lists: Some(vec![ListCode::Un]),
            include_ended: true,
            date_of_birth: Some("1952-10-07".to_owned()),
            country: Some("RU".to_owned()),
            ..ScreenRequest::new("Vladimir\u{1b}[31m Putin\u{200b}")
        };
        let engine = request(&wire);
        assert_eq!(engine.name, "Vladimir Putin");
        assert_eq!(engine.kind, Some(engine::KindFilter::Individual));
        assert_eq!(
            (engine.threshold, engine.limit, engine.include_ended),
            (Some(80), Some(5), true)
        );
        assert_eq!(engine.lists, Some(vec![ListCode::Un]));
        assert_eq!(engine.date_of_birth.as_deref(), Some("1952-10-07"));
        assert_eq!(engine.country.as_deref(), Some("RU"));
        let plain = request(&ScreenRequest::new("Banco Nacional de Cuba"));
        assert_eq!(plain.name, "Banco Nacional de Cuba");
        assert_eq!((plain.kind, plain.lists, plain.country), (None, None, None));
    }

    #[test]
    fn a_hit_becomes_the_wire_match() {
        let hit = Hit {
            entity: 3,
            entity_id: "un:1".to_owned(),
            list: ListCode::Un,
            kind: EntityKind::Vessel,
            primary_name: "ARCTIC".to_owned(),
            matched_name: "ARKTIK".to_owned(),
            country: Some("RU".to_owned()),
            score: 88,
            facts: Default::default(),
            explanation: Explanation {
                tokens: vec![TokenPair {
                    query: Some("arktik".to_owned()),
                    listed: Some("arctic".to_owned()),
                    similarity: 88,
                    kind: MatchKind::Phonetic,
                }],
                evidence: Vec::new(),
            },
            ended_on: None,
        };
        let wire = result(
            "Arktik",
            engine::Screening {
                total: 7,
                hits: vec![hit],
                nearest_below: None,
                lowest_hit: None,
            },
        );
        assert_eq!(wire.total_matches, 7);
        let m = &wire.results[0];
        assert_eq!(m.entity_type, KindFilter::Entity);
        assert_eq!(m.name, "ARCTIC");
        assert_eq!(m.list_name, ListCode::Un.display_name());
        assert_eq!(m.explanation[0].how, "phonetic");
        let request = request(&ScreenRequest {
            kind: Some(KindFilter::Individual),
            ..ScreenRequest::new("x")
        });
        assert_eq!(request.kind, Some(engine::KindFilter::Individual));
    }
}
