//! Webhooks in the local service: registration and its checks, `test`, the attempt log, and
//! the delivery worker that drains the outbox ([`LocalService::deliver_due`]).

use jiff::Timestamp;

use super::{LocalService, new_id};
use crate::ServiceError;
use crate::api::webhooks::{
    DeliveryAttempt, Webhook, WebhookCreate, WebhookTestResult, WebhookUpdate,
};
use crate::config::{BriefsConfig, Config, WebhooksConfig};
use crate::model::OutboxEvent;
use crate::store::{DeliveryOutcome, DeliveryRecord, StoreError, WebhookRecord};
use crate::webhooks::deliver::{self, Settings};
use crate::webhooks::worker::{Worker, WorkerError, attempt_record};
use crate::webhooks::{EVENT_KINDS, TEST_EVENT, safety, sign};

/// Settings of the webhook and brief features, and the process's mode.
#[derive(Debug, Clone, Default)]
pub struct Extensions {
    pub webhooks: WebhooksConfig,
    pub briefs: BriefsConfig,
    /// A server refuses private webhook targets unless `allow_private_targets` is set;
    /// standalone use (the CLI) allows them.
    pub server_mode: bool,
    /// `[review] four_eyes`: final decisions are proposals until a second reviewer confirms.
    pub four_eyes: bool,
}

/// Longest description kept.
const MAX_DESCRIPTION: usize = 500;

impl LocalService {
    /// Applies the `[webhooks]`, `[briefs]` and `[review]` sections of the configuration.
    pub fn configure(&self, config: &Config) -> Result<(), ServiceError> {
        Settings::new(&config.webhooks, false).map_err(ServiceError::Invalid)?;
        let mut ext = self.ext_mut();
        ext.webhooks = config.webhooks.clone();
        ext.briefs = config.briefs.clone();
        ext.four_eyes = config.review.four_eyes;
        Ok(())
    }

    /// Four-eyes review (`[review] four_eyes`): a `true_match` or `false_positive` stays
    /// `proposed` until a second, different reviewer confirms or rejects it.
    pub fn set_four_eyes(&self, on: bool) {
        self.ext_mut().four_eyes = on;
    }

    /// Whether four-eyes review is on.
    pub fn four_eyes(&self) -> bool {
        self.inner
            .extensions
            .read()
            .map_or_else(|p| p.into_inner().four_eyes, |e| e.four_eyes)
    }

    /// Server mode: private webhook targets are refused unless the configuration allows
    /// them. A server turns this on; standalone use leaves it off.
    pub fn set_server_mode(&self, on: bool) {
        self.ext_mut().server_mode = on;
    }

    pub(crate) fn extensions(&self) -> Extensions {
        self.inner
            .extensions
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    fn ext_mut(&self) -> std::sync::RwLockWriteGuard<'_, Extensions> {
        self.inner
            .extensions
            .write()
            .unwrap_or_else(|p| p.into_inner())
    }

    fn settings(&self) -> Result<Settings, ServiceError> {
        let ext = self.extensions();
        Settings::new(&ext.webhooks, ext.server_mode).map_err(ServiceError::Invalid)
    }

    /// Checks a URL as registration does: well-formed, and public in server mode.
    async fn check_url(&self, url: &str) -> Result<String, ServiceError> {
        let parsed = safety::parse_url(url).map_err(|e| ServiceError::validation("url", e))?;
        if self.settings()?.refuse_private {
            safety::resolve_checked(&parsed, false)
                .await
                .map_err(|e| ServiceError::validation("url", e))?;
        }
        Ok(parsed.to_string())
    }

    pub(crate) async fn create_webhook_local(
        &self,
        request: WebhookCreate,
    ) -> Result<Webhook, ServiceError> {
        let url = self.check_url(&request.url).await?;
        let events = check_events(&request.events)?;
        let description = check_description(request.description)?;
        let secret = sign::new_secret().map_err(|e| ServiceError::Internal(e.to_string()))?;
        let now = Timestamp::now();
        let record = WebhookRecord {
            id: new_id("wh_"),
            url,
            events,
            description,
            secret,
            active: true,
            disabled_reason: None,
            created_at: now,
            updated_at: now,
        };
        self.blocking(move |this| {
            this.repo()
                .insert_webhook(this.account(), &record)
                .map_err(limit_error)?;
            let mut wire = to_wire(&record, 0);
            wire.secret = Some(record.secret.clone());
            Ok(wire)
        })
        .await
    }

    pub(crate) async fn webhooks_local(&self) -> Result<Vec<Webhook>, ServiceError> {
        self.blocking(|this| {
            let repo = this.repo();
            repo.webhooks(this.account())?
                .iter()
                .map(|w| Ok(to_wire(w, repo.pending_deliveries(&w.id)?)))
                .collect()
        })
        .await
    }

    pub(crate) async fn webhook_local(&self, id: String) -> Result<Webhook, ServiceError> {
        self.blocking(move |this| {
            let repo = this.repo();
            let w = repo
                .webhook(this.account(), &id)?
                .ok_or_else(|| not_found(&id))?;
            Ok(to_wire(&w, repo.pending_deliveries(&id)?))
        })
        .await
    }

    pub(crate) async fn update_webhook_local(
        &self,
        id: String,
        request: WebhookUpdate,
    ) -> Result<Webhook, ServiceError> {
        let url = match &request.url {
            Some(url) => Some(self.check_url(url).await?),
            None => None,
        };
        let events = request.events.as_deref().map(check_events).transpose()?;
        let description = check_description(request.description)?;
        self.blocking(move |this| {
            let repo = this.repo();
            let mut w = repo
                .webhook(this.account(), &id)?
                .ok_or_else(|| not_found(&id))?;
            if let Some(url) = url {
                w.url = url;
            }
            if let Some(events) = events {
                w.events = events;
            }
            if description.is_some() {
                w.description = description;
            }
            if let Some(active) = request.active {
                w.active = active;
                if active {
                    w.disabled_reason = None;
                }
            }
            w.updated_at = Timestamp::now();
            repo.update_webhook(this.account(), &w)?;
            Ok(to_wire(&w, repo.pending_deliveries(&id)?))
        })
        .await
    }

    pub(crate) async fn delete_webhook_local(&self, id: String) -> Result<Webhook, ServiceError> {
        self.blocking(move |this| {
            let repo = this.repo();
            let w = repo
                .webhook(this.account(), &id)?
                .ok_or_else(|| not_found(&id))?;
            repo.delete_webhook(this.account(), &id)?;
            Ok(to_wire(&w, 0))
        })
        .await
    }

    pub(crate) async fn test_webhook_local(
        &self,
        id: String,
    ) -> Result<WebhookTestResult, ServiceError> {
        let settings = self.settings()?;
        let lookup = id.clone();
        let webhook = self
            .blocking(move |this| {
                this.repo()
                    .webhook(this.account(), &lookup)?
                    .ok_or_else(|| not_found(&lookup))
            })
            .await?;
        let event = OutboxEvent {
            event_id: new_id("evt_"),
            kind: TEST_EVENT.to_owned(),
            created_at: Timestamp::now(),
            payload: serde_json::json!({ "webhook_id": webhook.id }),
        };
        let result = deliver::send(&settings, &webhook, &event).await;
        let attempt = DeliveryRecord::Attempted {
            attempt: attempt_record(&webhook.id, &event, 0, &result),
            seq: None, // no delivery row: only the log
            outcome: DeliveryOutcome::Delivered,
            alert: None,
        };
        self.blocking(move |this| {
            this.repo().record_deliveries("test", &[attempt])?;
            Ok(())
        })
        .await?;
        Ok(WebhookTestResult {
            delivered: result.delivered(),
            event_id: event.event_id,
            status_code: result.status_code,
            latency_ms: result.latency_ms,
            error: result.error,
        })
    }

    pub(crate) async fn webhook_deliveries_local(
        &self,
        id: String,
        limit: usize,
    ) -> Result<Vec<DeliveryAttempt>, ServiceError> {
        // The bounds of the other logs (`list_updates`): refused, not clamped.
        if limit == 0 || limit > 1000 {
            return Err(ServiceError::validation(
                "limit",
                "must be between 1 and 1000",
            ));
        }
        self.blocking(move |this| {
            let repo = this.repo();
            repo.webhook(this.account(), &id)?
                .ok_or_else(|| not_found(&id))?;
            Ok(repo
                .webhook_attempts(this.account(), &id, limit.clamp(1, 1000))?
                .into_iter()
                .map(|a| DeliveryAttempt {
                    event_id: a.event_id,
                    kind: a.kind,
                    attempt: a.attempt,
                    at: a.at.to_string(),
                    status_code: a.status_code,
                    latency_ms: a.latency_ms,
                    error: a.error,
                    response: a.response,
                })
                .collect())
        })
        .await
    }

    /// Runs the delivery worker ([`crate::webhooks::worker`]) until `stop` resolves, or
    /// with `once` until no delivery is pending (waiting out the retry schedule). Pending
    /// deliveries survive a stop at any moment.
    pub async fn run_webhook_worker(
        &self,
        once: bool,
        stop: impl std::future::Future<Output = ()>,
    ) -> Result<(), ServiceError> {
        let worker = Worker::new(self.repo(), self.settings()?, worker_id());
        worker.run(once, stop).await.map_err(|e| match e {
            WorkerError::Store(e) => e.into(),
            WorkerError::Task(e) => e.into(),
        })
    }
}

/// A worker's name in delivery claims: the process id and a random part, new for each
/// worker run.
fn worker_id() -> String {
    format!("{}-{}", std::process::id(), new_id("wrk_"))
}

fn check_events(events: &[String]) -> Result<Vec<String>, ServiceError> {
    if events.is_empty() {
        return Err(ServiceError::validation(
            "events",
            format!("name at least one of {}", EVENT_KINDS.join(", ")),
        ));
    }
    let mut out: Vec<String> = Vec::new();
    for e in events {
        let e = e.trim();
        if !EVENT_KINDS.contains(&e) {
            return Err(ServiceError::validation(
                "events",
                format!(
                    "unknown event kind {e:?}; known: {}",
                    EVENT_KINDS.join(", ")
                ),
            ));
        }
        if !out.iter().any(|o| o == e) {
            out.push(e.to_owned());
        }
    }
    Ok(out)
}

fn check_description(d: Option<String>) -> Result<Option<String>, ServiceError> {
    match d {
        Some(d) if d.chars().count() > MAX_DESCRIPTION => Err(ServiceError::validation(
            "description",
            format!("longer than {MAX_DESCRIPTION} characters"),
        )),
        other => Ok(other),
    }
}

fn limit_error(e: StoreError) -> ServiceError {
    match e {
        StoreError::Refused(message) => ServiceError::validation("webhooks", message),
        other => other.into(),
    }
}

fn not_found(id: &str) -> ServiceError {
    ServiceError::not_found("webhook", id)
}

fn to_wire(w: &WebhookRecord, pending: u64) -> Webhook {
    Webhook {
        id: w.id.clone(),
        url: w.url.clone(),
        events: w.events.clone(),
        description: w.description.clone(),
        active: w.active,
        disabled_reason: w.disabled_reason.clone(),
        created_at: w.created_at.to_string(),
        updated_at: w.updated_at.to_string(),
        pending,
        secret: None,
    }
}
