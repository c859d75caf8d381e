//! The review log of a screening replayed and extended: each matched entity's status after
//! the entries recorded so far (with the proposals still waiting for a second reviewer),
//! and the entries a new review call appends, or why it is refused. Both store backends
//! apply these rules inside their write transaction.

use super::{Decision, DecisionRecord, ReviewAction, ReviewStatus};

/// A proposal waiting for a second reviewer (four-eyes review).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    /// The proposal's entry in the log.
    pub id: i64,
    pub decision: Decision,
    /// Who proposed it.
    pub actor: String,
    /// The match's status before the proposal, where a rejection returns it.
    pub before: ReviewStatus,
}

/// One matched entity's review state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntityReview {
    pub entity_id: String,
    pub status: ReviewStatus,
    /// The proposal it waits on (its status is then `proposed`).
    pub pending: Option<Pending>,
}

/// One entry a review call appends to the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogEntry {
    pub entity_id: Option<String>,
    pub from: ReviewStatus,
    pub to: ReviewStatus,
    pub proposed: Option<Decision>,
    pub proposal_id: Option<i64>,
}

/// Each matched entity's state after replaying the log in order.
pub fn replay(matched: &[String], log: &[DecisionRecord]) -> Vec<EntityReview> {
    let mut states: Vec<EntityReview> = matched
        .iter()
        .map(|e| EntityReview {
            entity_id: e.clone(),
            status: ReviewStatus::PendingReview,
            pending: None,
        })
        .collect();
    for entry in log {
        apply(&mut states, entry);
    }
    states
}

/// An entry on one entity sets it; one on the whole screening (a decision or a proposal)
/// moves every entity that can still take it, and leaves the others alone.
fn apply(states: &mut [EntityReview], entry: &DecisionRecord) {
    for state in states.iter_mut() {
        let moves = match entry.entity_id.as_deref() {
            Some(wanted) => wanted == state.entity_id,
            None => match (entry.to, entry.proposed) {
                (ReviewStatus::Proposed, Some(decision)) => state.status.can_become(decision),
                _ => state.status.is_open() && state.status != entry.to,
            },
        };
        if !moves {
            continue;
        }
        state.pending = match (entry.to, entry.proposed) {
            (ReviewStatus::Proposed, Some(decision)) => Some(Pending {
                id: entry.id,
                decision,
                actor: entry.actor.clone(),
                before: state.status,
            }),
            _ => None,
        };
        state.status = entry.to;
    }
}

/// The entries `action` by `actor` appends to a screening whose matches are in `states` and
/// whose status is `current`, or why it is refused (the message says what to do instead).
pub fn plan(
    screening_id: &str,
    entity: Option<&str>,
    action: ReviewAction,
    actor: &str,
    states: &[EntityReview],
    current: ReviewStatus,
) -> Result<Vec<LogEntry>, String> {
    if states.is_empty() {
        return Err(format!(
            "screening {screening_id} matched nothing ({current}): there is nothing to decide"
        ));
    }
    if let Some(entity) = entity
        && !states.iter().any(|s| s.entity_id == entity)
    {
        let matched: Vec<&str> = states.iter().map(|s| s.entity_id.as_str()).collect();
        return Err(format!(
            "{entity} is not among the matches of screening {screening_id} (matched: {})",
            matched.join(", ")
        ));
    }
    let target = entity.unwrap_or(screening_id);
    match action {
        ReviewAction::Decide(decision) => decide(target, entity, decision, false, states, current),
        ReviewAction::Propose(decision) => decide(target, entity, decision, true, states, current),
        ReviewAction::Confirm => settle(target, entity, true, actor, states),
        ReviewAction::Reject => settle(target, entity, false, actor, states),
    }
}

/// A decision recorded at once, or proposed for a second reviewer.
fn decide(
    target: &str,
    entity: Option<&str>,
    decision: Decision,
    propose: bool,
    states: &[EntityReview],
    current: ReviewStatus,
) -> Result<Vec<LogEntry>, String> {
    let from = entity
        .and_then(|e| states.iter().find(|s| s.entity_id == e))
        .map_or(current, |s| s.status);
    let allowed = match entity {
        Some(_) => from.can_become(decision),
        // A whole-screening decision needs at least one match it can move.
        None => states.iter().any(|s| s.status.can_become(decision)),
    };
    if !allowed {
        let why = match from {
            ReviewStatus::Escalated => " (an escalation becomes false_positive or true_match)",
            ReviewStatus::Proposed => {
                " and awaits a second reviewer, who confirms or rejects the proposal first"
            }
            _ if entity.is_none() => " and no match of it is open for this decision",
            _ => ", a final decision",
        };
        return Err(format!(
            "cannot record {decision} on {target}: it is {from}{why}"
        ));
    }
    Ok(vec![LogEntry {
        entity_id: entity.map(str::to_owned),
        from,
        to: match propose {
            true => ReviewStatus::Proposed,
            false => decision.status(),
        },
        proposed: propose.then_some(decision),
        proposal_id: None,
    }])
}

/// A second reviewer's confirmation or rejection of every proposal waiting on `entity` (or
/// on the whole screening): one entry per match, refused when `actor` proposed any of them.
fn settle(
    target: &str,
    entity: Option<&str>,
    confirm: bool,
    actor: &str,
    states: &[EntityReview],
) -> Result<Vec<LogEntry>, String> {
    let waiting: Vec<(&EntityReview, &Pending)> = states
        .iter()
        .filter(|s| entity.is_none_or(|e| e == s.entity_id))
        .filter_map(|s| s.pending.as_ref().map(|p| (s, p)))
        .collect();
    if waiting.is_empty() {
        return Err(format!(
            "nothing on {target} awaits a second reviewer: no proposal to {}",
            if confirm { "confirm" } else { "reject" }
        ));
    }
    if let Some((state, pending)) = waiting.iter().find(|(_, p)| p.actor == actor) {
        return Err(format!(
            "{actor} proposed {} on {}: a second, different reviewer must confirm or reject it",
            pending.decision, state.entity_id
        ));
    }
    Ok(waiting
        .into_iter()
        .map(|(state, pending)| LogEntry {
            entity_id: Some(state.entity_id.clone()),
            from: ReviewStatus::Proposed,
            to: match confirm {
                true => pending.decision.status(),
                false => pending.before,
            },
            proposed: Some(pending.decision),
            proposal_id: Some(pending.id),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use jiff::Timestamp;

    use super::*;

    fn record(id: i64, entity: Option<&str>, entry: &LogEntry, actor: &str) -> DecisionRecord {
        DecisionRecord {
            id,
            screening_id: "scr_1".into(),
            entity_id: entity.map(str::to_owned),
            from: entry.from,
            to: entry.to,
            note: "n".into(),
            actor: actor.into(),
            at: Timestamp::UNIX_EPOCH,
            proposed: entry.proposed,
            proposal_id: entry.proposal_id,
        }
    }

    /// Plans `action` on the log so far and appends its entries.
    fn run(
        log: &mut Vec<DecisionRecord>,
        entity: Option<&str>,
        action: ReviewAction,
        actor: &str,
    ) -> Result<Vec<EntityReview>, String> {
        let matched = ["a".to_owned(), "b".to_owned()];
        let states = replay(&matched, log);
        let current = ReviewStatus::aggregate(states.iter().map(|s| s.status));
        for entry in plan("scr_1", entity, action, actor, &states, current)? {
            let id = log.len() as i64 + 1;
            log.push(record(id, entry.entity_id.as_deref(), &entry, actor));
        }
        Ok(replay(&matched, log))
    }

    fn statuses(states: &[EntityReview]) -> Vec<ReviewStatus> {
        states.iter().map(|s| s.status).collect()
    }

    #[test]
    fn a_proposal_waits_for_a_second_reviewer() {
        use ReviewStatus as S;
        let mut log = Vec::new();
        let tm = ReviewAction::Propose(Decision::TrueMatch);
        let states = run(&mut log, Some("a"), tm, "alice").unwrap();
        assert_eq!(statuses(&states), [S::Proposed, S::PendingReview]);
        assert_eq!(states[0].pending.as_ref().unwrap().actor, "alice");
        let again = run(&mut log, Some("a"), tm, "bob").unwrap_err();
        assert!(again.contains("awaits a second reviewer"), "{again}");
        let own = run(&mut log, None, ReviewAction::Confirm, "alice").unwrap_err();
        assert!(own.contains("a second, different reviewer"), "{own}");
        let states = run(&mut log, None, ReviewAction::Confirm, "bob").unwrap();
        assert_eq!(statuses(&states), [S::TrueMatch, S::PendingReview]);
        assert_eq!(log[1].from, S::Proposed);
        assert_eq!(log[1].proposal_id, Some(1));
        let none = run(&mut log, None, ReviewAction::Reject, "bob").unwrap_err();
        assert!(none.contains("nothing on scr_1 awaits"), "{none}");
    }

    #[test]
    fn a_rejection_returns_the_matches_to_where_they_were() {
        use ReviewStatus as S;
        let mut log = Vec::new();
        run(
            &mut log,
            Some("b"),
            ReviewAction::Decide(Decision::Escalated),
            "alice",
        )
        .unwrap();
        let fp = ReviewAction::Propose(Decision::FalsePositive);
        let states = run(&mut log, None, fp, "alice").unwrap();
        assert_eq!(statuses(&states), [S::Proposed, S::Proposed]);
        assert_eq!(S::aggregate(statuses(&states)), S::Proposed);
        let states = run(&mut log, Some("b"), ReviewAction::Reject, "carol").unwrap();
        assert_eq!(statuses(&states), [S::Proposed, S::Escalated]);
        let states = run(&mut log, None, ReviewAction::Confirm, "carol").unwrap();
        assert_eq!(statuses(&states), [S::FalsePositive, S::Escalated]);
        let missing = run(&mut log, Some("z"), ReviewAction::Confirm, "carol").unwrap_err();
        assert!(missing.contains("not among the matches"), "{missing}");
    }

    #[test]
    fn four_eyes_turns_final_decisions_into_proposals() {
        let for_decision = ReviewAction::for_decision;
        assert_eq!(
            for_decision(Decision::TrueMatch, true),
            ReviewAction::Propose(Decision::TrueMatch)
        );
        assert_eq!(
            for_decision(Decision::Escalated, true),
            ReviewAction::Decide(Decision::Escalated)
        );
        assert_eq!(
            for_decision(Decision::FalsePositive, false),
            ReviewAction::Decide(Decision::FalsePositive)
        );
    }
}
