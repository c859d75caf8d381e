//! Review of a screening: its statuses, the decisions an analyst records, and which
//! transitions are allowed. The store applies these rules inside its write transaction.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The review status of a screening or of one matched entity in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReviewStatus {
    /// The screening matched nothing; there is nothing to review.
    NoMatch,
    /// Matches wait for an analyst's decision.
    PendingReview,
    FalsePositive,
    TrueMatch,
    /// Sent up for a second opinion; can still become a false positive or a true match.
    Escalated,
    /// Four-eyes review: a `true_match` or `false_positive` proposed by one reviewer, waiting
    /// for a second, different one to confirm or reject it.
    Proposed,
}

impl ReviewStatus {
    /// The word stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewStatus::NoMatch => "no_match",
            ReviewStatus::PendingReview => "pending_review",
            ReviewStatus::FalsePositive => "false_positive",
            ReviewStatus::TrueMatch => "true_match",
            ReviewStatus::Escalated => "escalated",
            ReviewStatus::Proposed => "proposed",
        }
    }

    /// Parses [`ReviewStatus::as_str`].
    pub fn parse(text: &str) -> Option<ReviewStatus> {
        Some(match text.trim() {
            "no_match" => ReviewStatus::NoMatch,
            "pending_review" => ReviewStatus::PendingReview,
            "false_positive" => ReviewStatus::FalsePositive,
            "true_match" => ReviewStatus::TrueMatch,
            "escalated" => ReviewStatus::Escalated,
            "proposed" => ReviewStatus::Proposed,
            _ => return None,
        })
    }

    /// Whether an analyst may still decide on something in this status.
    pub fn is_open(self) -> bool {
        matches!(self, ReviewStatus::PendingReview | ReviewStatus::Escalated)
    }

    /// Whether a decision may move this status to `to`: pending to any decision, escalated
    /// to false positive or true match; final statuses and `no_match` move nowhere, and a
    /// proposal moves only by a second reviewer's confirmation or rejection.
    pub fn can_become(self, to: Decision) -> bool {
        match self {
            ReviewStatus::PendingReview => true,
            ReviewStatus::Escalated => to != Decision::Escalated,
            ReviewStatus::NoMatch
            | ReviewStatus::FalsePositive
            | ReviewStatus::TrueMatch
            | ReviewStatus::Proposed => false,
        }
    }

    /// The status of a whole screening from the statuses of its matched entities: a true
    /// match anywhere wins, then a proposal awaiting its second reviewer (so that the second
    /// reviewer's queue, the screenings in `proposed`, holds every one), then an escalation,
    /// then anything still pending; all false positives make a false positive; no entity at
    /// all is `no_match`.
    pub fn aggregate(entities: impl IntoIterator<Item = ReviewStatus>) -> ReviewStatus {
        let mut any = false;
        let (mut true_match, mut escalated, mut pending, mut proposed) =
            (false, false, false, false);
        for status in entities {
            any = true;
            match status {
                ReviewStatus::TrueMatch => true_match = true,
                ReviewStatus::Escalated => escalated = true,
                ReviewStatus::PendingReview | ReviewStatus::NoMatch => pending = true,
                ReviewStatus::Proposed => proposed = true,
                ReviewStatus::FalsePositive => {}
            }
        }
        match () {
            _ if !any => ReviewStatus::NoMatch,
            _ if true_match => ReviewStatus::TrueMatch,
            _ if proposed => ReviewStatus::Proposed,
            _ if escalated => ReviewStatus::Escalated,
            _ if pending => ReviewStatus::PendingReview,
            _ => ReviewStatus::FalsePositive,
        }
    }
}

impl fmt::Display for ReviewStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What an analyst decides about a match or a whole screening.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    FalsePositive,
    TrueMatch,
    Escalated,
}

impl Decision {
    /// The status a decision leads to.
    pub fn status(self) -> ReviewStatus {
        match self {
            Decision::FalsePositive => ReviewStatus::FalsePositive,
            Decision::TrueMatch => ReviewStatus::TrueMatch,
            Decision::Escalated => ReviewStatus::Escalated,
        }
    }

    /// Parses `false_positive`, `true_match` or `escalated`.
    pub fn parse(text: &str) -> Option<Decision> {
        match ReviewStatus::parse(text)? {
            ReviewStatus::FalsePositive => Some(Decision::FalsePositive),
            ReviewStatus::TrueMatch => Some(Decision::TrueMatch),
            ReviewStatus::Escalated => Some(Decision::Escalated),
            _ => None,
        }
    }
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.status().as_str())
    }
}

/// What one review call asks of a screening (or of one of its matches).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReviewAction {
    /// Record a decision at once.
    Decide(Decision),
    /// Four-eyes review: propose a `true_match` or `false_positive` for a second reviewer.
    Propose(Decision),
    /// A second reviewer confirms the proposals waiting on it.
    Confirm,
    /// A second reviewer rejects them: the matches return to what they were before.
    Reject,
}

impl ReviewAction {
    /// What a decision becomes: a proposal under four-eyes review when it is final
    /// (`true_match`, `false_positive`), else recorded at once (an escalation).
    pub fn for_decision(decision: Decision, four_eyes: bool) -> ReviewAction {
        match decision {
            Decision::TrueMatch | Decision::FalsePositive if four_eyes => {
                ReviewAction::Propose(decision)
            }
            _ => ReviewAction::Decide(decision),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transitions() {
        use Decision::*;
        use ReviewStatus as S;
        for d in [FalsePositive, TrueMatch, Escalated] {
            assert!(S::PendingReview.can_become(d));
            assert!(!S::NoMatch.can_become(d));
            assert!(!S::FalsePositive.can_become(d));
            assert!(!S::TrueMatch.can_become(d));
        }
        assert!(S::Escalated.can_become(TrueMatch));
        assert!(S::Escalated.can_become(FalsePositive));
        assert!(!S::Escalated.can_become(Escalated));
    }

    #[test]
    fn aggregate_status() {
        use ReviewStatus as S;
        assert_eq!(S::aggregate([]), S::NoMatch);
        assert_eq!(
            S::aggregate([S::FalsePositive, S::PendingReview]),
            S::PendingReview
        );
        assert_eq!(S::aggregate([S::FalsePositive, S::Escalated]), S::Escalated);
        assert_eq!(S::aggregate([S::TrueMatch, S::Escalated]), S::TrueMatch);
        assert_eq!(S::aggregate([S::PendingReview, S::Proposed]), S::Proposed);
        assert_eq!(S::aggregate([S::Escalated, S::Proposed]), S::Proposed);
        assert_eq!(S::aggregate([S::TrueMatch, S::Proposed]), S::TrueMatch);
        assert_eq!(
            S::aggregate([S::FalsePositive, S::FalsePositive]),
            S::FalsePositive
        );
        assert_eq!(Decision::parse("true_match"), Some(Decision::TrueMatch));
        assert_eq!(Decision::parse("no_match"), None);
    }
}
