//! The delivery worker. It claims due deliveries in batches with a lease, sends them (at
//! most [`PER_ENDPOINT`] at once per endpoint, over the kept-alive connections of one
//! client) and records their outcomes in batches, one transaction for whatever has finished.
//!
//! An endpoint that is being served is not claimed for again until its batch is done, and
//! the other endpoints are claimed for meanwhile, so a slow or failing endpoint holds up only
//! its own deliveries. One that fails [`PER_ENDPOINT`] times in a row backs off: the rest of
//! its batch is released unattempted, due again after the first step of the retry schedule.

use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use futures::StreamExt as _;
use jiff::{SignedDuration, Timestamp};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use super::deliver::{self, AttemptResult, Settings};
use crate::model::{Alert, AlertKind, AlertStatus, OutboxEvent, Severity};
use crate::store::{
    AttemptRecord, DeliveryClaim, DeliveryOutcome, DeliveryRecord, DueDelivery, Repository,
    StoreError, WebhookRecord,
};

/// Most deliveries claimed at once.
pub const BATCH: usize = 512;
/// Most attempts in flight to one endpoint at once (and the failures in a row after which
/// it backs off).
pub const PER_ENDPOINT: usize = 16;
/// Most outcomes recorded in one transaction.
const RECORD_BATCH: usize = 512;
/// How often a worker renews the leases of the deliveries it holds.
const RENEW_EVERY: Duration = Duration::from_secs(10);

/// Why the worker stopped.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("a webhook worker task stopped: {0}")]
    Task(#[from] tokio::task::JoinError),
}

/// A claimed delivery and its attempt's result (none: not attempted, to be released).
type Sent = (DueDelivery, Option<AttemptResult>);

/// One delivery worker over a store.
pub struct Worker<R: ?Sized> {
    repo: Arc<R>,
    settings: Settings,
    /// The name of this worker in claims: unique per process and worker.
    owner: String,
    /// Set when the worker stops: attempts not yet started are released.
    stopping: Arc<AtomicBool>,
}

impl<R: Repository + ?Sized + 'static> Worker<R> {
    pub fn new(repo: Arc<R>, settings: Settings, owner: String) -> Worker<R> {
        Worker {
            repo,
            settings,
            owner,
            stopping: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Delivers until `stop` resolves, or with `once` until no delivery is pending (waiting
    /// out the retry schedule). A stop lets the attempts in flight end and records them;
    /// pending deliveries survive a stop, or a kill, at any moment.
    pub async fn run(&self, once: bool, stop: impl Future<Output = ()>) -> Result<(), WorkerError> {
        let (tx, rx) = mpsc::channel(RECORD_BATCH * 2);
        let work = async {
            tokio::try_join!(self.claim_loop(once, stop, tx), self.record_loop(rx)).map(|_| ())
        };
        tokio::select! {
            done = work => done,
            () = self.renew_loop() => Ok(()),
        }
    }

    /// Claims for the endpoints not busy, serves each claimed group in a task of its own,
    /// and claims again as soon as an endpoint's batch is done.
    async fn claim_loop(
        &self,
        once: bool,
        stop: impl Future<Output = ()>,
        tx: mpsc::Sender<Sent>,
    ) -> Result<(), WorkerError> {
        tokio::pin!(stop);
        let mut tasks: JoinSet<String> = JoinSet::new();
        let mut busy: BTreeSet<String> = BTreeSet::new();
        loop {
            let claimed = self.claim(&busy).await?;
            let got = !claimed.is_empty();
            for (endpoint, group) in by_endpoint(claimed) {
                busy.insert(endpoint.clone());
                let (settings, stopping) = (self.settings.clone(), self.stopping.clone());
                tasks.spawn(serve_endpoint(
                    endpoint,
                    group,
                    settings,
                    stopping,
                    tx.clone(),
                ));
            }
            if got {
                continue;
            }
            if once && tasks.is_empty() && self.nothing_pending().await? {
                break;
            }
            tokio::select! {
                Some(done) = tasks.join_next() => { busy.remove(&done?); }
                () = tokio::time::sleep(self.settings.poll_interval) => {}
                () = &mut stop => break,
            }
        }
        self.stopping.store(true, Ordering::Relaxed);
        while let Some(done) = tasks.join_next().await {
            done?;
        }
        Ok(())
    }

    /// Records what has finished, as it comes: one transaction for all that is ready.
    async fn record_loop(&self, mut rx: mpsc::Receiver<Sent>) -> Result<(), WorkerError> {
        let mut ready = Vec::with_capacity(RECORD_BATCH);
        while rx.recv_many(&mut ready, RECORD_BATCH).await > 0 {
            self.record(std::mem::take(&mut ready)).await?;
        }
        Ok(())
    }

    async fn record(&self, sent: Vec<Sent>) -> Result<(), WorkerError> {
        let (repo, settings, owner) =
            (self.repo.clone(), self.settings.clone(), self.owner.clone());
        let lost = tokio::task::spawn_blocking(move || {
            let records = sent
                .into_iter()
                .map(|s| to_record(&*repo, &settings, s))
                .collect::<Result<Vec<_>, StoreError>>()?;
            repo.record_deliveries(&owner, &records)
        })
        .await??;
        if lost > 0 {
            tracing::warn!(
                lost,
                "webhook deliveries taken over by another worker (this one's lease ran out): \
                 the attempts are logged, the deliveries left to it"
            );
        }
        Ok(())
    }

    /// New outbox events handed out, then up to [`BATCH`] due deliveries claimed for the
    /// endpoints not in `busy`.
    async fn claim(&self, busy: &BTreeSet<String>) -> Result<Vec<DueDelivery>, WorkerError> {
        let skip: Vec<String> = busy.iter().cloned().collect();
        let (repo, owner, timeout) = (self.repo.clone(), self.owner.clone(), self.settings.timeout);
        let claimed = tokio::task::spawn_blocking(move || {
            repo.fan_out(Timestamp::now())?;
            let now = Timestamp::now();
            let claim = DeliveryClaim {
                owner: &owner,
                now,
                until: now + lease(timeout),
                skip: &skip,
            };
            repo.claim_deliveries(&claim, BATCH)
        })
        .await??;
        Ok(claimed)
    }

    async fn nothing_pending(&self) -> Result<bool, WorkerError> {
        let repo = self.repo.clone();
        Ok(tokio::task::spawn_blocking(move || repo.pending_total()).await?? == 0)
    }

    /// The heartbeat: every [`RENEW_EVERY`], the leases this worker holds are extended by a
    /// lease. Runs until the worker ends (errors are logged; the leases then run out).
    async fn renew_loop(&self) {
        loop {
            tokio::time::sleep(RENEW_EVERY).await;
            let (repo, owner, timeout) =
                (self.repo.clone(), self.owner.clone(), self.settings.timeout);
            let renewed = tokio::task::spawn_blocking(move || {
                repo.renew_claims(&owner, Timestamp::now() + lease(timeout))
            })
            .await;
            match renewed {
                Ok(Ok(_)) => {}
                Ok(Err(e)) => tracing::warn!(error = %e, "could not renew webhook leases"),
                Err(e) => tracing::warn!(error = %e, "could not renew webhook leases"),
            }
        }
    }
}

/// The claimed deliveries grouped by endpoint, each group oldest event first.
fn by_endpoint(claimed: Vec<DueDelivery>) -> BTreeMap<String, Vec<DueDelivery>> {
    let mut groups: BTreeMap<String, Vec<DueDelivery>> = BTreeMap::new();
    for d in claimed {
        groups.entry(d.webhook.id.clone()).or_default().push(d);
    }
    groups
}

/// Sends one endpoint's claimed deliveries, at most [`PER_ENDPOINT`] at a time, and hands
/// each result to the recorder; after [`PER_ENDPOINT`] failures in a row (or once the worker
/// stops) the rest are handed over unattempted. Returns the endpoint.
async fn serve_endpoint(
    endpoint: String,
    group: Vec<DueDelivery>,
    settings: Settings,
    stopping: Arc<AtomicBool>,
    tx: mpsc::Sender<Sent>,
) -> String {
    let failures = AtomicUsize::new(0);
    let (settings, stopping, failures) = (&settings, &stopping, &failures);
    futures::stream::iter(group)
        .map(|d| async move {
            if stopping.load(Ordering::Relaxed) || failures.load(Ordering::Relaxed) >= PER_ENDPOINT
            {
                return (d, None);
            }
            let result = deliver::send(settings, &d.webhook, &d.event).await;
            if result.delivered() {
                failures.store(0, Ordering::Relaxed);
            } else {
                failures.fetch_add(1, Ordering::Relaxed);
            }
            (d, Some(result))
        })
        .buffer_unordered(PER_ENDPOINT)
        .for_each(|sent| async {
            // The recorder is gone only when the worker failed: the claims then run out.
            let _ = tx.send(sent).await;
        })
        .await;
    endpoint
}

/// What to record for a delivery sent (or not) by this worker.
fn to_record<R: Repository + ?Sized>(
    repo: &R,
    settings: &Settings,
    (d, result): Sent,
) -> Result<DeliveryRecord, StoreError> {
    let now = Timestamp::now();
    let Some(result) = result else {
        return Ok(DeliveryRecord::Released {
            webhook_id: d.webhook.id,
            seq: d.seq,
            due: now + backoff(settings),
        });
    };
    let attempt_no = d.attempts + 1;
    // When the endpoint last accepted an event matters only once the schedule is exhausted.
    let since = if !result.delivered() && attempt_no as usize > settings.schedule.len() {
        repo.webhook_last_success(&d.webhook.id)?.unwrap_or(now)
    } else {
        now
    };
    let outcome = deliver::outcome(settings, attempt_no, &result, now, since);
    let alert = match &outcome {
        DeliveryOutcome::Disable(reason) => {
            tracing::warn!(webhook = %d.webhook.id, reason, "webhook disabled");
            Some(Box::new(disabled_alert(&d.webhook, reason, now)))
        }
        _ => None,
    };
    Ok(DeliveryRecord::Attempted {
        attempt: attempt_record(&d.webhook.id, &d.event, attempt_no, &result),
        seq: Some(d.seq),
        outcome,
        alert,
    })
}

/// How long a failing endpoint's unattempted deliveries wait: the first step of the retry
/// schedule (5 s by default).
fn backoff(settings: &Settings) -> SignedDuration {
    let wait = settings
        .schedule
        .first()
        .copied()
        .unwrap_or(Duration::from_secs(5));
    SignedDuration::try_from(super::schedule::jitter(wait)).unwrap_or(SignedDuration::from_secs(5))
}

/// How long a claim holds without renewal: an attempt's timeout and a margin longer than
/// [`RENEW_EVERY`]. The worker renews it while it runs; one that dies frees its batch after
/// that.
pub fn lease(timeout: Duration) -> SignedDuration {
    let whole = timeout + Duration::from_secs(30);
    SignedDuration::try_from(whole).unwrap_or(SignedDuration::from_secs(3600))
}

/// The log entry of attempt number `attempt` of `event` to `webhook_id`.
pub fn attempt_record(
    webhook_id: &str,
    event: &OutboxEvent,
    attempt: u32,
    result: &AttemptResult,
) -> AttemptRecord {
    AttemptRecord {
        webhook_id: webhook_id.to_owned(),
        event_id: event.event_id.clone(),
        kind: event.kind.clone(),
        attempt,
        at: Timestamp::now(),
        status_code: result.status_code,
        latency_ms: result.latency_ms,
        error: result.error.clone(),
        response: result.response.clone(),
    }
}

/// The alert saying that `webhook` was disabled, and why.
fn disabled_alert(webhook: &WebhookRecord, reason: &str, now: Timestamp) -> Alert {
    Alert {
        id: format!("alt_{}", ulid::Ulid::new()),
        kind: AlertKind::WebhookDisabled,
        severity: Severity::High,
        title: format!("webhook {} disabled: {reason}", webhook.id),
        message: format!(
            "events for {} are no longer sent; fix the receiver, then `sanctions webhooks \
             update {} --active true` to send again (events meanwhile stay pending)",
            webhook.url, webhook.id
        ),
        created_at: now,
        status: AlertStatus::Open,
        screening_id: None,
        favorite_id: None,
        list: None,
        entity_ids: Vec::new(),
    }
}
