//! The [`Service`] trait: every operation of `spec/service-interface.md` and its extensions,
//! in the wire types of [`crate::api`].

use async_trait::async_trait;
use futures::StreamExt;

use super::ServiceError;
use crate::api::alerts::{Alert, AlertBulkRequest, AlertQuery, AlertStatusRequest};
use crate::api::batch::{BatchRequest, BatchResponse};
use crate::api::briefs::{Brief, BriefQuery, RefreshReport};
use crate::api::entities::EntityDetail;
use crate::api::favorites::{
    Favorite, FavoriteImport, FavoritePage, FavoriteRequest, ImportSummary, RescreenSummary,
};
use crate::api::lists::{ListInfo, UpdateInfo};
use crate::api::screening::ScreenRequest;
use crate::api::screenings::{
    AuditExport, AuditQuery, DecisionRequest, DecisionResponse, Page, ScreeningQuery,
    ScreeningResponse, ScreeningSummary, StoredScreening, VerdictRequest, VerdictResponse,
};
use crate::api::webhooks::{
    DeliveryAttempt, Webhook, WebhookCreate, WebhookTestResult, WebhookUpdate,
};
use crate::model::ListCode;

/// Previews in flight at once in the default [`Service::preview_many`].
pub const PREVIEWS_IN_FLIGHT: usize = 8;

/// Where a [`Service`]'s calls go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServiceMode {
    /// The embedded engine and the local store.
    Local,
    /// A `sanctions serve` at this base URL.
    Remote { url: String },
}

/// A server's `X-RateLimit-*` headers: requests allowed per window, left in it, and when it
/// resets (Unix epoch seconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    pub limit: u64,
    pub remaining: u64,
    pub reset: i64,
}

/// One async interface for every face (CLI, terminal UI, HTTP server). The local
/// implementation ([`super::LocalService`]) runs the engine and the store in-process; a remote
/// one (the HTTP client) speaks to a `sanctions serve`. Both return the same wire types and
/// [`ServiceError`]s.
///
/// It is object-safe (through `async_trait`), so a face holds an `Arc<dyn Service>` and does
/// not care which implementation it has; every future is `Send`, so calls can be spawned on a
/// multi-threaded tokio runtime.
#[async_trait]
pub trait Service: Send + Sync {
    /// Where the calls go, for a status bar: in-process, or a server's address.
    fn mode(&self) -> ServiceMode {
        ServiceMode::Local
    }
    /// The rate-limit figures of the last answer a server gave (remote only).
    fn rate_limit(&self) -> Option<RateLimit> {
        None
    }
    /// Starts preparing what screening needs (the index, read from its file or built) on
    /// another thread, so that a command's other start-up work (the coverage check reads and
    /// verifies every stored name) runs beside it. Nothing to do for a remote service.
    fn warm_up(&self) {}
    /// Keeps the screening index allocated until the process ends: a one-shot command
    /// (`screen`, `batch`) about to exit skips freeing it, hundreds of thousands of
    /// allocations that the system takes back at once with the process. Nothing to do for
    /// a remote service.
    fn keep_index_until_exit(&self) {}

    /// `POST /v1/screen`: screens one name and stores the screening.
    async fn screen(&self, request: ScreenRequest) -> Result<ScreeningResponse, ServiceError>;
    /// `POST /v1/screen/preview` (extension): screens one name without storing anything
    /// (results as you type); the answer's `id` is empty.
    async fn preview(&self, request: ScreenRequest) -> Result<ScreeningResponse, ServiceError>;
    /// Previews of several names (nothing stored), answered in their order, each with its
    /// own outcome. By default one [`Service::preview`] each, [`PREVIEWS_IN_FLIGHT`] at a
    /// time; the local service screens them together on every core.
    async fn preview_many(
        &self,
        requests: Vec<ScreenRequest>,
    ) -> Vec<Result<ScreeningResponse, ServiceError>> {
        futures::stream::iter(requests)
            .map(|request| self.preview(request))
            .buffered(PREVIEWS_IN_FLIGHT)
            .collect()
            .await
    }
    /// [`Service::preview_many`] of requests whose names have already passed the one name
    /// check ([`crate::query::screenable`], with the request's type), as a batch's rows pass
    /// it when the file is read: a local service does not normalise them a second time to
    /// check them again (the engine still refuses an empty or too long name). By default,
    /// [`Service::preview_many`], which checks them.
    async fn preview_many_checked(
        &self,
        requests: Vec<ScreenRequest>,
    ) -> Vec<Result<ScreeningResponse, ServiceError>> {
        self.preview_many(requests).await
    }
    /// `POST /v1/screen/batch`: up to 500 names, each stored; all-or-nothing on bad rows.
    async fn screen_batch(&self, request: BatchRequest) -> Result<BatchResponse, ServiceError>;
    /// `GET /v1/screen/{id}`: a stored screening with its decisions.
    async fn screening(&self, id: &str) -> Result<StoredScreening, ServiceError>;
    /// `GET /v1/screenings` (extension): stored screenings, newest first.
    async fn screenings(
        &self,
        query: ScreeningQuery,
    ) -> Result<Page<ScreeningSummary>, ServiceError>;
    /// `POST /v1/screenings/{id}/decisions` (extension): records a review decision; under
    /// four-eyes review a `true_match` or `false_positive` is recorded as a proposal
    /// (`to` is `proposed`) for a second reviewer.
    async fn decide(
        &self,
        screening_id: &str,
        request: DecisionRequest,
    ) -> Result<DecisionResponse, ServiceError>;
    /// `POST /v1/screenings/{id}/verdicts` (extension): four-eyes review, a second, different
    /// reviewer confirms or rejects the proposals waiting on a screening (the proposer is
    /// refused). The proposals waiting: `screenings` with the status `proposed`.
    async fn verdict(
        &self,
        screening_id: &str,
        request: VerdictRequest,
    ) -> Result<VerdictResponse, ServiceError>;
    /// `GET /v1/audit` (extension): every screening and decision of a period.
    async fn audit(&self, query: AuditQuery) -> Result<AuditExport, ServiceError>;
    /// One page of the streamed audit export (`GET /v1/audit` as NDJSON or CSV): the
    /// screenings of the period with an id above `after`, oldest first, each with its
    /// decision log, at most `limit`. Only the local service reads pages.
    async fn audit_page(
        &self,
        query: AuditQuery,
        after: Option<String>,
        limit: usize,
    ) -> Result<Vec<StoredScreening>, ServiceError> {
        let _ = (query, after, limit);
        Err(ServiceError::Unavailable(
            "this service cannot page an audit export".into(),
        ))
    }

    /// `GET /v1/lists`.
    async fn lists(&self) -> Result<Vec<ListInfo>, ServiceError>;
    /// `GET /v1/lists/{list}/updates`: newest first, at most `limit`.
    async fn list_updates(
        &self,
        list: ListCode,
        limit: usize,
    ) -> Result<Vec<UpdateInfo>, ServiceError>;
    /// `GET /v1/entities/{id}[?at=UPDATE]` (extension): one entry, now or after an update.
    async fn entity(&self, entity_id: &str, at: Option<i64>) -> Result<EntityDetail, ServiceError>;

    /// `GET /v1/favorites`, in creation order.
    async fn favorites(
        &self,
        cursor: Option<String>,
        limit: Option<usize>,
    ) -> Result<FavoritePage, ServiceError>;
    /// `POST /v1/favorites`: adds a name and screens it at once.
    async fn add_favorite(&self, request: FavoriteRequest) -> Result<Favorite, ServiceError>;
    /// `GET /v1/favorites/{id}` (extension): one name of the watchlist.
    async fn favorite(&self, id: &str) -> Result<Favorite, ServiceError>;
    /// `DELETE /v1/favorites/{id}`.
    async fn remove_favorite(&self, id: &str) -> Result<Favorite, ServiceError>;
    /// `POST /v1/favorites/import` (extension): many names, duplicates skipped.
    async fn import_favorites(&self, import: FavoriteImport)
    -> Result<ImportSummary, ServiceError>;
    /// `POST /v1/favorites/rescreen` (extension): re-screens the whole watchlist now.
    async fn rescreen(&self) -> Result<RescreenSummary, ServiceError>;

    /// `GET /v1/alerts`, newest first.
    async fn alerts(&self, query: AlertQuery) -> Result<Page<Alert>, ServiceError>;
    /// `GET /v1/alerts/{id}` (extension): one alert.
    async fn alert(&self, id: &str) -> Result<Alert, ServiceError>;
    /// `POST /v1/alerts/{id}/status` (extension): acknowledge or resolve, audited.
    async fn set_alert_status(
        &self,
        id: &str,
        request: AlertStatusRequest,
    ) -> Result<Alert, ServiceError>;
    /// `POST /v1/alerts/bulk` (extension): acknowledge or resolve several alerts with one
    /// note, in one transaction (all, or none); the alerts changed, in the order asked.
    async fn set_alerts_status(
        &self,
        request: AlertBulkRequest,
    ) -> Result<Vec<Alert>, ServiceError>;

    /// `POST /v1/webhooks`: registers an endpoint; the answer carries its secret, once.
    async fn create_webhook(&self, request: WebhookCreate) -> Result<Webhook, ServiceError>;
    /// `GET /v1/webhooks`.
    async fn webhooks(&self) -> Result<Vec<Webhook>, ServiceError>;
    /// `GET /v1/webhooks/{id}` (extension).
    async fn webhook(&self, id: &str) -> Result<Webhook, ServiceError>;
    /// `PATCH /v1/webhooks/{id}`.
    async fn update_webhook(
        &self,
        id: &str,
        request: WebhookUpdate,
    ) -> Result<Webhook, ServiceError>;
    /// `DELETE /v1/webhooks/{id}`.
    async fn delete_webhook(&self, id: &str) -> Result<Webhook, ServiceError>;
    /// `POST /v1/webhooks/{id}/test`: sends a signed `webhook.test` event now.
    async fn test_webhook(&self, id: &str) -> Result<WebhookTestResult, ServiceError>;
    /// `GET /v1/webhooks/{id}/deliveries` (extension): the attempt log, newest first.
    async fn webhook_deliveries(
        &self,
        id: &str,
        limit: usize,
    ) -> Result<Vec<DeliveryAttempt>, ServiceError>;

    /// `GET /v1/briefs`: latest first, with filters and a cursor.
    async fn briefs(&self, query: BriefQuery) -> Result<Page<Brief>, ServiceError>;
    /// `GET /v1/briefs/{id}`.
    async fn brief(&self, id: &str) -> Result<Brief, ServiceError>;
    /// `POST /v1/briefs/refresh` (extension): briefs new list updates and reads the feeds.
    async fn refresh_briefs(&self) -> Result<RefreshReport, ServiceError>;
}
