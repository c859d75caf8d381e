//! Alerts: listing with filters and a cursor, and audited status changes.

use jiff::Timestamp;

use super::LocalService;
use super::convert::{check_note, page_limit, paged};
use super::review::check_id;
use crate::ServiceError;
use crate::api::alerts::{Alert, AlertQuery, AlertStatusRequest};
use crate::api::screenings::Page;
use crate::model::{AlertChange, AlertFilter, AlertStatus};
use crate::store::{Repository, StoreError};

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

    pub(crate) async fn alert_status_local(
        &self,
        id: String,
        request: AlertStatusRequest,
    ) -> Result<Alert, ServiceError> {
        check_id("id", &id, "alt_")?;
        let note = check_note(&request.note)?;
        if request.status == AlertStatus::Open {
            return Err(ServiceError::validation(
                "status",
                "an alert can be acknowledged or resolved, not reopened",
            ));
        }
        self.blocking(move |this| {
            let change = AlertChange {
                alert_id: id,
                from: AlertStatus::Open,
                to: request.status,
                note,
                actor: this.actor().to_owned(),
                at: Timestamp::now(),
            };
            match this.repo().change_alert(this.account(), &change) {
                Ok(alert) => Ok(alert),
                Err(StoreError::Refused(message)) => {
                    Err(ServiceError::validation("status", message))
                }
                Err(e) => Err(e.into()),
            }
        })
        .await
    }
}
