//! Alerts: listing with filters and a cursor, and audited status changes.

use jiff::Timestamp;

use super::LocalService;
use super::convert::{check_note, page_limit, paged};
use super::review::check_id;
use crate::ServiceError;
use crate::api::alerts::{Alert, AlertBulkRequest, AlertQuery, AlertStatusRequest};
use crate::api::screenings::Page;
use crate::model::{AlertChange, AlertFilter, AlertStatus};
use crate::store::StoreError;

impl LocalService {
    pub(crate) async fn alerts_local(
        &self,
        query: AlertQuery,
    ) -> Result<Page<Alert>, ServiceError> {
        let limit = page_limit(query.limit)?;
        if let Some(cursor) = &query.cursor {
            check_id("cursor", cursor, "alt_")?;
        }
        self.blocking(move |this| {
            let alerts = this.repo().alerts(
                this.account(),
                &AlertFilter {
                    status: query.status,
                    kind: query.kind,
                    since: query.since,
                    before: query.cursor,
                    limit: limit + 1,
                },
            )?;
            let (items, next_cursor) = paged(alerts, limit, |a| &a.id, |a| a);
            Ok(Page { items, next_cursor })
        })
        .await
    }

    pub(crate) async fn alert_local(&self, id: String) -> Result<Alert, ServiceError> {
        check_id("id", &id, "alt_")?;
        self.blocking(move |this| {
            let found = this.repo().alert(this.account(), &id)?;
            found.ok_or_else(|| ServiceError::not_found("alert", &id))
        })
        .await
    }

    pub(crate) async fn alert_status_local(
        &self,
        id: String,
        request: AlertStatusRequest,
    ) -> Result<Alert, ServiceError> {
        let bulk = AlertBulkRequest {
            ids: vec![id],
            status: request.status,
            note: request.note,
        };
        let mut changed = self.alerts_status_local(bulk).await?;
        changed
            .pop()
            .ok_or_else(|| ServiceError::Internal("an alert change returned no alert".into()))
    }

    /// Acknowledges or resolves every alert of `request.ids` with one note, in one
    /// transaction: all of them, or none.
    pub(crate) async fn alerts_status_local(
        &self,
        request: AlertBulkRequest,
    ) -> Result<Vec<Alert>, ServiceError> {
        let ids = check_alert_ids(request.ids)?;
        let note = check_note(&request.note)?;
        if request.status == AlertStatus::Open {
            return Err(ServiceError::validation(
                "status",
                "an alert can be acknowledged or resolved, not reopened",
            ));
        }
        self.blocking(move |this| {
            let at = Timestamp::now();
            let changes: Vec<AlertChange> = ids
                .into_iter()
                .map(|alert_id| AlertChange {
                    alert_id,
                    from: AlertStatus::Open,
                    to: request.status,
                    note: note.clone(),
                    actor: this.actor().to_owned(),
                    at,
                })
                .collect();
            match this.repo().change_alerts(this.account(), &changes) {
                Ok(alerts) => Ok(alerts),
                Err(StoreError::Refused(message)) => {
                    Err(ServiceError::validation("status", message))
                }
                Err(e) => Err(e.into()),
            }
        })
        .await
    }
}

/// Most alerts one bulk call changes.
pub const MAX_BULK_ALERTS: usize = 500;

/// The ids of a bulk call: 1 to [`MAX_BULK_ALERTS`], each an alert id, each once. A single
/// id of the wrong form is a 404 (as on `/alerts/{id}/status`), one among several a 422.
fn check_alert_ids(ids: Vec<String>) -> Result<Vec<String>, ServiceError> {
    if ids.is_empty() || ids.len() > MAX_BULK_ALERTS {
        return Err(ServiceError::validation(
            "ids",
            format!("1 to {MAX_BULK_ALERTS} alert ids, not {}", ids.len()),
        ));
    }
    let field = if ids.len() == 1 { "id" } else { "ids" };
    let mut seen = std::collections::HashSet::with_capacity(ids.len());
    for id in &ids {
        check_id(field, id, "alt_")?;
        if !seen.insert(id.as_str()) {
            return Err(ServiceError::validation(
                "ids",
                format!("{id} is named twice"),
            ));
        }
    }
    Ok(ids)
}
