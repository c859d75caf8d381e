//! The [`Service`] methods of [`RemoteService`]: one HTTP call each, at the path the route
//! table gives, so the server's router and this client cannot disagree.

use async_trait::async_trait;
use reqwest::Method;
use serde::Serialize;

use super::RemoteService;
use crate::api::alerts::{Alert, AlertBulkRequest, AlertQuery, AlertStatusRequest};
use crate::api::batch::{BatchName, BatchRequest, BatchResponse};
use crate::api::briefs::{Brief, BriefQuery, RefreshReport};
use crate::api::entities::EntityDetail;
use crate::api::favorites::{
    Favorite, FavoriteImport, FavoritePage, FavoriteRequest, ImportSummary, RescreenSummary,
};
use crate::api::lists::{ListInfo, UpdateInfo};
use crate::api::routes::{self, fill};
use crate::api::screening::ScreenRequest;
use crate::api::screenings::{
    AuditExport, AuditQuery, DecisionRequest, DecisionResponse, Page, ScreeningQuery,
    ScreeningResponse, ScreeningSummary, StoredScreening, VerdictRequest, VerdictResponse,
};
use crate::api::webhooks::{
    DeliveryAttempt, Webhook, WebhookCreate, WebhookTestResult, WebhookUpdate,
};
use crate::model::ListCode;
use crate::service::{RateLimit, Service, ServiceError, ServiceMode};

/// `?limit=N`.
#[derive(Serialize)]
struct Limit {
    limit: usize,
}

/// `?at=UPDATE`.
#[derive(Serialize)]
struct At {
    #[serde(skip_serializing_if = "Option::is_none")]
    at: Option<i64>,
}

/// `?cursor=..&limit=..`.
#[derive(Serialize)]
struct Cursor {
    #[serde(skip_serializing_if = "Option::is_none")]
    cursor: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    limit: Option<usize>,
}

/// No body.
const NO_BODY: Option<&()> = None;

#[async_trait]
impl Service for RemoteService {
    fn mode(&self) -> ServiceMode {
        ServiceMode::Remote {
            url: self.url.clone(),
        }
    }

    fn rate_limit(&self) -> Option<RateLimit> {
        self.last_rate()
    }

    async fn screen(&self, request: ScreenRequest) -> Result<ScreeningResponse, ServiceError> {
        let request = request.in_wire_form();
        self.send(Method::POST, routes::SCREEN, Some(&request))
            .await
    }

    async fn preview(&self, request: ScreenRequest) -> Result<ScreeningResponse, ServiceError> {
        let request = request.in_wire_form();
        self.send(Method::POST, routes::SCREEN_PREVIEW, Some(&request))
            .await
    }

    async fn screen_batch(&self, mut request: BatchRequest) -> Result<BatchResponse, ServiceError> {
        request.options = request.options.map(ScreenRequest::in_wire_form);
        request.names = request
            .names
            .into_iter()
            .map(BatchName::in_wire_form)
            .collect();
        self.send(Method::POST, routes::SCREEN_BATCH, Some(&request))
            .await
    }

    async fn screening(&self, id: &str) -> Result<StoredScreening, ServiceError> {
        self.get::<_, ()>(&fill(routes::SCREEN_ONE, id), None).await
    }

    async fn screenings(
        &self,
        query: ScreeningQuery,
    ) -> Result<Page<ScreeningSummary>, ServiceError> {
        self.get(routes::SCREENINGS, Some(&query)).await
    }

    async fn decide(
        &self,
        screening_id: &str,
        request: DecisionRequest,
    ) -> Result<DecisionResponse, ServiceError> {
        let path = fill(routes::SCREENING_DECISIONS, screening_id);
        self.send(Method::POST, &path, Some(&request)).await
    }

    async fn verdict(
        &self,
        screening_id: &str,
        request: VerdictRequest,
    ) -> Result<VerdictResponse, ServiceError> {
        let path = fill(routes::SCREENING_VERDICTS, screening_id);
        self.send(Method::POST, &path, Some(&request)).await
    }

    async fn audit(&self, query: AuditQuery) -> Result<AuditExport, ServiceError> {
        self.get(routes::AUDIT, Some(&query)).await
    }

    async fn audit_page(
        &self,
        query: AuditQuery,
        after: Option<String>,
        limit: usize,
    ) -> Result<Vec<StoredScreening>, ServiceError> {
        self.audit_page_remote(query, after, limit).await
    }

    async fn lists(&self) -> Result<Vec<ListInfo>, ServiceError> {
        self.get::<_, ()>(routes::LISTS, None).await
    }

    async fn list_updates(
        &self,
        list: ListCode,
        limit: usize,
    ) -> Result<Vec<UpdateInfo>, ServiceError> {
        let path = fill(routes::LIST_UPDATES, &list.to_string());
        self.get(&path, Some(&Limit { limit })).await
    }

    async fn entity(&self, entity_id: &str, at: Option<i64>) -> Result<EntityDetail, ServiceError> {
        self.get(&fill(routes::ENTITY, entity_id), Some(&At { at }))
            .await
    }

    async fn favorites(
        &self,
        cursor: Option<String>,
        limit: Option<usize>,
    ) -> Result<FavoritePage, ServiceError> {
        self.get(routes::FAVORITES, Some(&Cursor { cursor, limit }))
            .await
    }

    async fn add_favorite(&self, request: FavoriteRequest) -> Result<Favorite, ServiceError> {
        let request = request.in_wire_form();
        self.send(Method::POST, routes::FAVORITES, Some(&request))
            .await
    }

    async fn favorite(&self, id: &str) -> Result<Favorite, ServiceError> {
        self.get::<_, ()>(&fill(routes::FAVORITE, id), None).await
    }

    async fn remove_favorite(&self, id: &str) -> Result<Favorite, ServiceError> {
        self.send(Method::DELETE, &fill(routes::FAVORITE, id), NO_BODY)
            .await
    }

    async fn import_favorites(
        &self,
        mut import: FavoriteImport,
    ) -> Result<ImportSummary, ServiceError> {
        import.names = import
            .names
            .into_iter()
            .map(FavoriteRequest::in_wire_form)
            .collect();
        self.send(Method::POST, routes::FAVORITES_IMPORT, Some(&import))
            .await
    }

    async fn rescreen(&self) -> Result<RescreenSummary, ServiceError> {
        self.send(Method::POST, routes::FAVORITES_RESCREEN, NO_BODY)
            .await
    }

    async fn alerts(&self, query: AlertQuery) -> Result<Page<Alert>, ServiceError> {
        self.get(routes::ALERTS, Some(&query)).await
    }

    async fn alert(&self, id: &str) -> Result<Alert, ServiceError> {
        self.get::<_, ()>(&fill(routes::ALERT, id), None).await
    }

    async fn set_alert_status(
        &self,
        id: &str,
        request: AlertStatusRequest,
    ) -> Result<Alert, ServiceError> {
        let path = fill(routes::ALERT_STATUS, id);
        self.send(Method::POST, &path, Some(&request)).await
    }

    async fn set_alerts_status(
        &self,
        request: AlertBulkRequest,
    ) -> Result<Vec<Alert>, ServiceError> {
        self.send(Method::POST, routes::ALERTS_BULK, Some(&request))
            .await
    }

    async fn create_webhook(&self, request: WebhookCreate) -> Result<Webhook, ServiceError> {
        self.send(Method::POST, routes::WEBHOOKS, Some(&request))
            .await
    }

    async fn webhooks(&self) -> Result<Vec<Webhook>, ServiceError> {
        self.get::<_, ()>(routes::WEBHOOKS, None).await
    }

    async fn webhook(&self, id: &str) -> Result<Webhook, ServiceError> {
        self.get::<_, ()>(&fill(routes::WEBHOOK, id), None).await
    }

    async fn update_webhook(
        &self,
        id: &str,
        request: WebhookUpdate,
    ) -> Result<Webhook, ServiceError> {
        self.send(Method::PATCH, &fill(routes::WEBHOOK, id), Some(&request))
            .await
    }

    async fn delete_webhook(&self, id: &str) -> Result<Webhook, ServiceError> {
        self.send(Method::DELETE, &fill(routes::WEBHOOK, id), NO_BODY)
            .await
    }

    async fn test_webhook(&self, id: &str) -> Result<WebhookTestResult, ServiceError> {
        self.send(Method::POST, &fill(routes::WEBHOOK_TEST, id), NO_BODY)
            .await
    }

    async fn webhook_deliveries(
        &self,
        id: &str,
        limit: usize,
    ) -> Result<Vec<DeliveryAttempt>, ServiceError> {
        let path = fill(routes::WEBHOOK_DELIVERIES, id);
        self.get(&path, Some(&Limit { limit })).await
    }

    async fn briefs(&self, query: BriefQuery) -> Result<Page<Brief>, ServiceError> {
        self.get(routes::BRIEFS, Some(&query)).await
    }

    async fn brief(&self, id: &str) -> Result<Brief, ServiceError> {
        self.get::<_, ()>(&fill(routes::BRIEF, id), None).await
    }

    async fn refresh_briefs(&self) -> Result<RefreshReport, ServiceError> {
        self.send(Method::POST, routes::BRIEFS_REFRESH, NO_BODY)
            .await
    }
}
