//! Stored screenings, review decisions and the audit export.

use jiff::Timestamp;

use super::LocalService;
use super::convert::{check_note, page_limit, paged, stored, summary};
use crate::ServiceError;
use crate::api::screenings::{
    AuditExport, AuditQuery, DecisionRecord, DecisionRequest, DecisionResponse, Page,
    ScreeningQuery, ScreeningSummary, StoredScreening, Verdict, VerdictRequest, VerdictResponse,
};
use crate::model::{AlertFilter, ReviewAction, ReviewStatus, ScreeningFilter};
use crate::store::{NewDecision, StoreError};

/// Most screenings one audit export holds (ask for a shorter period beyond it).
pub const MAX_AUDIT_SCREENINGS: usize = 1_000_000;

/// Most screenings one page of a streamed audit export reads from the store.
pub const MAX_AUDIT_PAGE: usize = 1_000;

/// Refuses a period that ends before it starts (equal bounds are an empty period:
/// half-open, `since` <= t < `until`).
fn check_period(query: &AuditQuery) -> Result<(), ServiceError> {
    match (query.since, query.until) {
        (Some(since), Some(until)) if since > until => Err(ServiceError::validation(
            "until",
            "must not be before since",
        )),
        _ => Ok(()),
    }
}

impl LocalService {
    pub(crate) async fn screening_local(
        &self,
        id: String,
    ) -> Result<StoredScreening, ServiceError> {
        check_id("id", &id, "scr_")?;
        self.blocking(move |this| {
            let repo = this.repo();
            let record = repo
                .screening(this.account(), &id)?
                .ok_or_else(|| ServiceError::not_found("screening", &id))?;
            let decisions = repo.decisions(this.account(), &id)?;
            stored(record, decisions)
        })
        .await
    }

    pub(crate) async fn screenings_local(
        &self,
        query: ScreeningQuery,
    ) -> Result<Page<ScreeningSummary>, ServiceError> {
        let limit = page_limit(query.limit)?;
        if let Some(cursor) = &query.cursor {
            check_id("cursor", cursor, "scr_")?;
        }
        self.blocking(move |this| {
            let records = this.repo().screenings(
                this.account(),
                &ScreeningFilter {
                    since: query.since,
                    until: None,
                    status: query.status,
                    before: query.cursor,
                    limit: limit + 1,
                },
            )?;
            let (items, next_cursor) = paged(records, limit, |r| &r.id, |r| summary(&r));
            Ok(Page { items, next_cursor })
        })
        .await
    }

    /// A decision; under four-eyes review (`[review] four_eyes`) a `true_match` or
    /// `false_positive` is recorded as a proposal for a second reviewer.
    pub(crate) async fn decide_local(
        &self,
        screening_id: String,
        request: DecisionRequest,
    ) -> Result<DecisionResponse, ServiceError> {
        let action = ReviewAction::for_decision(request.decision, self.four_eyes());
        let (mut decisions, status) = self
            .review(
                screening_id,
                request.entity_id,
                action,
                &request.note,
                "decision",
            )
            .await?;
        match decisions.pop() {
            Some(decision) if decisions.is_empty() => Ok(DecisionResponse { decision, status }),
            _ => Err(ServiceError::Internal(
                "a decision wrote other than one log entry".into(),
            )),
        }
    }

    /// A second reviewer's confirmation or rejection of the proposals waiting on a screening.
    pub(crate) async fn verdict_local(
        &self,
        screening_id: String,
        request: VerdictRequest,
    ) -> Result<VerdictResponse, ServiceError> {
        let action = match request.verdict {
            Verdict::Confirm => ReviewAction::Confirm,
            Verdict::Reject => ReviewAction::Reject,
        };
        let (decisions, status) = self
            .review(
                screening_id,
                request.entity_id,
                action,
                &request.note,
                "verdict",
            )
            .await?;
        Ok(VerdictResponse { decisions, status })
    }

    /// Records `action` on a screening (or one of its matches) as this service's actor; a
    /// call the review rules refuse is a validation error on `field`.
    async fn review(
        &self,
        screening_id: String,
        entity_id: Option<String>,
        action: ReviewAction,
        note: &str,
        field: &'static str,
    ) -> Result<(Vec<DecisionRecord>, ReviewStatus), ServiceError> {
        check_id("id", &screening_id, "scr_")?;
        let note = check_note(note)?;
        let entity_id = match entity_id.as_deref().map(str::trim) {
            Some("") => return Err(ServiceError::validation("entity_id", "is empty")),
            Some(id) if id.len() > MAX_ENTITY_ID_BYTES => {
                let why = format!("is longer than {MAX_ENTITY_ID_BYTES} bytes");
                return Err(ServiceError::validation("entity_id", why));
            }
            other => other.map(str::to_owned),
        };
        self.blocking(move |this| {
            let new = NewDecision {
                screening_id,
                entity_id,
                action,
                note,
                actor: this.actor().to_owned(),
                at: Timestamp::now(),
            };
            match this.repo().decide(this.account(), &new) {
                Ok(written) => Ok(written),
                Err(StoreError::Refused(message)) => Err(ServiceError::validation(field, message)),
                Err(e) => Err(e.into()),
            }
        })
        .await
    }

    /// One page of the streamed audit export (see [`crate::Service::audit_page`]).
    pub(crate) async fn audit_page_local(
        &self,
        query: AuditQuery,
        after: Option<String>,
        limit: usize,
    ) -> Result<Vec<StoredScreening>, ServiceError> {
        check_period(&query)?;
        if let Some(after) = &after {
            check_id("cursor", after, "scr_")?;
        }
        let limit = limit.clamp(1, MAX_AUDIT_PAGE);
        self.blocking(move |this| {
            let repo = this.repo();
            let period = (query.since, query.until);
            let records = repo.screenings_after(this.account(), period, after.as_deref(), limit)?;
            let mut page = Vec::with_capacity(records.len());
            for record in records {
                let decisions = repo.decisions(this.account(), &record.id)?;
                page.push(stored(record, decisions)?);
            }
            Ok(page)
        })
        .await
    }

    pub(crate) async fn audit_local(&self, query: AuditQuery) -> Result<AuditExport, ServiceError> {
        if let (Some(since), Some(until)) = (query.since, query.until)
            && since > until
        {
            // Equal bounds are an empty period (half-open: `since` <= t < `until`).
            return Err(ServiceError::validation(
                "until",
                "must not be before since",
            ));
        }
        self.blocking(move |this| {
            let repo = this.repo();
            let mut records = repo.screenings(
                this.account(),
                &ScreeningFilter {
                    since: query.since,
                    until: query.until,
                    status: None,
                    before: None,
                    limit: MAX_AUDIT_SCREENINGS + 1,
                },
            )?;
            if records.len() > MAX_AUDIT_SCREENINGS {
                return Err(ServiceError::validation(
                    "since",
                    format!("more than {MAX_AUDIT_SCREENINGS} screenings: export a shorter period"),
                ));
            }
            records.reverse();
            let mut screenings = Vec::with_capacity(records.len());
            for record in records {
                let decisions = repo.decisions(this.account(), &record.id)?;
                screenings.push(stored(record, decisions)?);
            }
            let mut alerts = repo.alerts(
                this.account(),
                &AlertFilter {
                    since: query.since,
                    limit: MAX_AUDIT_SCREENINGS,
                    ..AlertFilter::default()
                },
            )?;
            alerts.retain(|a| query.until.is_none_or(|until| a.created_at < until));
            alerts.reverse();
            Ok(AuditExport {
                generated_at: Timestamp::now(),
                since: query.since,
                until: query.until,
                screenings,
                decisions: repo.decisions_between(this.account(), query.since, query.until)?,
                alert_changes: repo.alert_changes(this.account(), query.since, query.until)?,
                alerts,
            })
        })
        .await
    }
}

/// Longest entry id a decision names (`list_code:id`; the lists' own ids are far shorter).
pub const MAX_ENTITY_ID_BYTES: usize = 200;

/// Refuses an id that cannot be one of ours (wrong prefix, too long, odd characters) with
/// a 404 rather than a query.
pub(crate) fn check_id(field: &str, id: &str, prefix: &str) -> Result<(), ServiceError> {
    let ok = id.len() <= 64
        && id.starts_with(prefix)
        && id[prefix.len()..]
            .chars()
            .all(|c| c.is_ascii_alphanumeric());
    if ok {
        return Ok(());
    }
    if field == "id" {
        let what = match prefix {
            "scr_" => "screening",
            "fav_" => "favorite",
            "alt_" => "alert",
            _ => "resource",
        };
        return Err(ServiceError::not_found(what, id));
    }
    Err(ServiceError::validation(
        field,
        format!("{:?} is not a {prefix}... id", crate::error::quoted(id)),
    ))
}
