//! [`Service`] for [`LocalService`]: each method delegates to the module that owns it.

use async_trait::async_trait;

use super::LocalService;
use super::screen::Names;
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
use crate::{Service, ServiceError};

#[async_trait]
impl Service for LocalService {
    fn warm_up(&self) {
        let this = self.clone();
        // A failure here is met again, and reported, by the screening that needs the index.
        std::thread::spawn(move || {
            if let Err(e) = this.current() {
                tracing::debug!(error = %e, "the screening index was not prepared ahead");
            }
        });
    }
    fn keep_index_until_exit(&self) {
        // One strong reference that is never dropped: the index outlives the service.
        std::mem::forget(self.inner.loaded.load_full());
    }
    async fn screen(&self, request: ScreenRequest) -> Result<ScreeningResponse, ServiceError> {
        self.screen_local(request).await
    }
    async fn preview(&self, request: ScreenRequest) -> Result<ScreeningResponse, ServiceError> {
        self.preview_local(request).await
    }
    async fn preview_many(
        &self,
        requests: Vec<ScreenRequest>,
    ) -> Vec<Result<ScreeningResponse, ServiceError>> {
        self.preview_many_local(requests, Names::Unchecked).await
    }
    async fn preview_many_checked(
        &self,
        requests: Vec<ScreenRequest>,
    ) -> Vec<Result<ScreeningResponse, ServiceError>> {
        self.preview_many_local(requests, Names::Checked).await
    }
    async fn screen_batch(&self, request: BatchRequest) -> Result<BatchResponse, ServiceError> {
        self.batch_local(request).await
    }
    async fn screening(&self, id: &str) -> Result<StoredScreening, ServiceError> {
        self.screening_local(id.to_owned()).await
    }
    async fn screenings(
        &self,
        query: ScreeningQuery,
    ) -> Result<Page<ScreeningSummary>, ServiceError> {
        self.screenings_local(query).await
    }
    async fn decide(
        &self,
        screening_id: &str,
        request: DecisionRequest,
    ) -> Result<DecisionResponse, ServiceError> {
        self.decide_local(screening_id.to_owned(), request).await
    }
    async fn verdict(
        &self,
        screening_id: &str,
        request: VerdictRequest,
    ) -> Result<VerdictResponse, ServiceError> {
        self.verdict_local(screening_id.to_owned(), request).await
    }
    async fn audit(&self, query: AuditQuery) -> Result<AuditExport, ServiceError> {
        self.audit_local(query).await
    }
    async fn audit_page(
        &self,
        query: AuditQuery,
        after: Option<String>,
        limit: usize,
    ) -> Result<Vec<StoredScreening>, ServiceError> {
        self.audit_page_local(query, after, limit).await
    }
    async fn lists(&self) -> Result<Vec<ListInfo>, ServiceError> {
        self.lists_local().await
    }
    async fn list_updates(
        &self,
        list: ListCode,
        limit: usize,
    ) -> Result<Vec<UpdateInfo>, ServiceError> {
        self.list_updates_local(list, limit).await
    }
    async fn entity(&self, entity_id: &str, at: Option<i64>) -> Result<EntityDetail, ServiceError> {
        self.entity_local(entity_id.to_owned(), at).await
    }
    async fn favorites(
        &self,
        cursor: Option<String>,
        limit: Option<usize>,
    ) -> Result<FavoritePage, ServiceError> {
        self.favorites_local(cursor, limit).await
    }
    async fn add_favorite(&self, request: FavoriteRequest) -> Result<Favorite, ServiceError> {
        self.add_favorite_local(request).await
    }
    async fn favorite(&self, id: &str) -> Result<Favorite, ServiceError> {
        self.favorite_local(id.to_owned()).await
    }
    async fn remove_favorite(&self, id: &str) -> Result<Favorite, ServiceError> {
        self.remove_favorite_local(id.to_owned()).await
    }
    async fn import_favorites(
        &self,
        import: FavoriteImport,
    ) -> Result<ImportSummary, ServiceError> {
        self.import_favorites_local(import).await
    }
    async fn rescreen(&self) -> Result<RescreenSummary, ServiceError> {
        self.rescreen_local().await
    }
    async fn alerts(&self, query: AlertQuery) -> Result<Page<Alert>, ServiceError> {
        self.alerts_local(query).await
    }
    async fn alert(&self, id: &str) -> Result<Alert, ServiceError> {
        self.alert_local(id.to_owned()).await
    }
    async fn set_alert_status(
        &self,
        id: &str,
        request: AlertStatusRequest,
    ) -> Result<Alert, ServiceError> {
        self.alert_status_local(id.to_owned(), request).await
    }
    async fn set_alerts_status(
        &self,
        request: AlertBulkRequest,
    ) -> Result<Vec<Alert>, ServiceError> {
        self.alerts_status_local(request).await
    }

    async fn create_webhook(&self, request: WebhookCreate) -> Result<Webhook, ServiceError> {
        self.create_webhook_local(request).await
    }
    async fn webhooks(&self) -> Result<Vec<Webhook>, ServiceError> {
        self.webhooks_local().await
    }
    async fn webhook(&self, id: &str) -> Result<Webhook, ServiceError> {
        self.webhook_local(id.to_owned()).await
    }
    async fn update_webhook(
        &self,
        id: &str,
        request: WebhookUpdate,
    ) -> Result<Webhook, ServiceError> {
        self.update_webhook_local(id.to_owned(), request).await
    }
    async fn delete_webhook(&self, id: &str) -> Result<Webhook, ServiceError> {
        self.delete_webhook_local(id.to_owned()).await
    }
    async fn test_webhook(&self, id: &str) -> Result<WebhookTestResult, ServiceError> {
        self.test_webhook_local(id.to_owned()).await
    }
    async fn webhook_deliveries(
        &self,
        id: &str,
        limit: usize,
    ) -> Result<Vec<DeliveryAttempt>, ServiceError> {
        self.webhook_deliveries_local(id.to_owned(), limit).await
    }

    async fn briefs(&self, query: BriefQuery) -> Result<Page<Brief>, ServiceError> {
        self.briefs_local(query).await
    }
    async fn brief(&self, id: &str) -> Result<Brief, ServiceError> {
        self.brief_local(id.to_owned()).await
    }
    async fn refresh_briefs(&self) -> Result<RefreshReport, ServiceError> {
        self.refresh_briefs_local().await
    }
}
