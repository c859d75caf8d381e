//! Webhook bounds through the local service on a real SQLite file, with receivers on
//! 127.0.0.1: the timeout of an attempt, the payload cap, at most 20 webhooks, and the alert
//! (with its `alert.created` event) when an endpoint is disabled.
#![allow(clippy::unwrap_used)]

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use sanctions_api::alerts::{Alert, AlertKind, AlertQuery};
use sanctions_api::webhooks::{Webhook, WebhookCreate};
use sanctions_model::OutboxEvent;
use sanctions_service::config::Config;
use sanctions_service::{LocalService, Service};
use sanctions_store::Changes;
use serde_json::Value;

/// What a receiver got: (`webhook-id`, body).
type Got = Arc<Mutex<Vec<(String, Value)>>>;

/// A receiver answering `status` after `delay`.
async fn receiver(status: u16, delay: Duration) -> (SocketAddr, Got) {
    let got: Got = Arc::default();
    let app = Router::new()
        .route(
            "/hook",
            axum::routing::post(
                move |State(got): State<Got>, headers: HeaderMap, body: Bytes| async move {
                    tokio::time::sleep(delay).await;
                    let id = headers["webhook-id"].to_str().unwrap().to_owned();
                    got.lock()
                        .unwrap()
                        .push((id, serde_json::from_slice(&body).unwrap()));
                    StatusCode::from_u16(status).unwrap()
                },
            ),
        )
        .with_state(got.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (addr, got)
}

async fn service(config: &str) -> (tempfile::TempDir, LocalService) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sanctions.db");
    let svc = tokio::task::spawn_blocking(move || LocalService::open(&db, "t"))
        .await
        .unwrap()
        .unwrap();
    svc.configure(&Config::parse(config).unwrap()).unwrap();
    (dir, svc)
}

fn request(addr: SocketAddr, event: &str) -> WebhookCreate {
    WebhookCreate {
        url: format!("http://{addr}/hook"),
        events: vec![event.to_owned()],
        description: None,
    }
}

/// Registers a webhook for `event` sending to `addr`.
async fn create(svc: &LocalService, addr: SocketAddr, event: &str) -> Webhook {
    svc.create_webhook(request(addr, event)).await.unwrap()
}

/// A service configured with `config` and one `list.updated` webhook sending to a receiver
/// that answers `status` after `delay`.
async fn hooked(
    status: u16,
    delay: Duration,
    config: &str,
) -> (tempfile::TempDir, LocalService, Webhook, Got) {
    let (addr, got) = receiver(status, delay).await;
    let (dir, svc) = service(config).await;
    let hook = create(&svc, addr, "list.updated").await;
    (dir, svc, hook, got)
}

/// The alerts raised for disabled webhooks.
async fn disabled_alerts(svc: &LocalService) -> Vec<Alert> {
    svc.alerts(AlertQuery {
        kind: Some(AlertKind::WebhookDisabled),
        ..AlertQuery::default()
    })
    .await
    .unwrap()
    .items
}

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// Writes one `list.updated` event with `payload` to the outbox, as a change would.
async fn emit(svc: &LocalService, payload: Value) {
    let svc = svc.clone();
    tokio::task::spawn_blocking(move || {
        let changes = Changes {
            events: vec![OutboxEvent {
                event_id: format!("evt_test{}", NEXT.fetch_add(1, Ordering::Relaxed)),
                kind: "list.updated".to_owned(),
                created_at: jiff::Timestamp::now(),
                payload,
            }],
            ..Changes::default()
        };
        svc.repository().record(&changes).unwrap();
    })
    .await
    .unwrap();
}

/// Runs the delivery worker until nothing is pending.
async fn drain(svc: &LocalService) {
    tokio::time::timeout(
        Duration::from_secs(30),
        svc.run_webhook_worker(true, std::future::pending()),
    )
    .await
    .unwrap()
    .unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn an_attempt_that_outlasts_the_timeout_is_abandoned_and_retried() {
    let (_dir, svc, hook, got) = hooked(
        200,
        Duration::from_secs(5),
        "[webhooks]\ntimeout_secs = 1\nretry_schedule = [\"200ms\"]\npoll_interval_ms = 50\n",
    )
    .await;
    emit(&svc, serde_json::json!({"list": "un"})).await;
    let started = Instant::now();
    drain(&svc).await;
    // Two attempts of about a second each, not two of five.
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(1900) && took < Duration::from_secs(5),
        "{took:?}"
    );
    let log = svc.webhook_deliveries(&hook.id, 10).await.unwrap();
    assert_eq!(log.len(), 2, "{log:#?}");
    for attempt in &log {
        assert_eq!(attempt.status_code, None);
        assert!(
            attempt.error.as_deref().unwrap().contains("timed out"),
            "{attempt:?}"
        );
        assert!((900..3000).contains(&attempt.latency_ms), "{attempt:?}");
    }
    assert_eq!(svc.webhook(&hook.id).await.unwrap().pending, 0);
    assert!(
        got.lock().unwrap().is_empty(),
        "the receiver never answered in time"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_payload_over_the_cap_is_not_sent_and_not_retried() {
    let (_dir, svc, hook, got) = hooked(
        200,
        Duration::ZERO,
        "[webhooks]\nmax_payload_bytes = 2048\nretry_schedule = [\"100ms\", \"100ms\"]\n\
         poll_interval_ms = 50\n",
    )
    .await;
    emit(&svc, serde_json::json!({"notes": "x".repeat(5000)})).await;
    emit(&svc, serde_json::json!({"list": "un"})).await;
    drain(&svc).await;
    let log = svc.webhook_deliveries(&hook.id, 10).await.unwrap();
    assert_eq!(log.len(), 2, "one attempt each: {log:#?}");
    let big = log.iter().find(|a| a.status_code.is_none()).unwrap();
    let error = big.error.as_deref().unwrap();
    assert!(error.contains("over the 2048 byte cap"), "{error}");
    assert_eq!(big.attempt, 1);
    // The small event went through; the big one never reached the receiver.
    let got = got.lock().unwrap().clone();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].1["data"]["list"], "un");
    let shown = svc.webhook(&hook.id).await.unwrap();
    assert!(shown.active);
    assert_eq!(shown.pending, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn at_most_twenty_webhooks_per_owner() {
    let (_dir, svc) = service("").await;
    let addr: SocketAddr = "127.0.0.1:9".parse().unwrap();
    for _ in 0..20 {
        create(&svc, addr, "list.updated").await;
    }
    let err = svc
        .create_webhook(request(addr, "list.updated"))
        .await
        .unwrap_err();
    assert_eq!(err.status(), 422, "{err:?}");
    assert!(err.to_string().contains("at most 20 webhooks"), "{err}");
    assert_eq!(svc.webhooks().await.unwrap().len(), 20);
    // Deleting one makes room again.
    let first = svc.webhooks().await.unwrap()[0].id.clone();
    svc.delete_webhook(&first).await.unwrap();
    create(&svc, addr, "list.updated").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_disabled_endpoint_raises_an_alert_and_an_alert_created_event() {
    let (gone, _) = receiver(410, Duration::ZERO).await;
    let (watcher, got) = receiver(200, Duration::ZERO).await;
    let (_dir, svc) = service("[webhooks]\npoll_interval_ms = 50\n").await;
    let hook = create(&svc, gone, "list.updated").await;
    create(&svc, watcher, "alert.created").await;
    emit(&svc, serde_json::json!({"list": "un"})).await;
    drain(&svc).await;
    let shown = svc.webhook(&hook.id).await.unwrap();
    assert!(!shown.active);
    let alerts = disabled_alerts(&svc).await;
    assert_eq!(alerts.len(), 1, "{alerts:#?}");
    assert!(alerts[0].title.contains(&hook.id), "{:?}", alerts[0]);
    assert!(alerts[0].title.contains("410"));
    // The other endpoint was told, with the alert as the event's data.
    let got = got.lock().unwrap().clone();
    assert_eq!(got.len(), 1, "{got:#?}");
    let body = &got[0].1;
    assert_eq!(body["type"], "alert.created");
    assert_eq!(body["data"]["id"], alerts[0].id.as_str());
    assert_eq!(body["data"]["kind"], "webhook.disabled");
    assert_eq!(body["data"]["status"], "open");
    // A second event does not disable it again nor alert twice.
    emit(&svc, serde_json::json!({"list": "eu"})).await;
    drain(&svc).await;
    assert_eq!(disabled_alerts(&svc).await.len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_endpoint_failing_past_the_limit_is_disabled_with_an_alert() {
    // `disable_after_hours = 0`: failing since its creation is failing "for days" here.
    let (_dir, svc, hook, got) = hooked(
        500,
        Duration::ZERO,
        "[webhooks]\nretry_schedule = [\"100ms\"]\npoll_interval_ms = 50\ndisable_after_hours = 0\n",
    )
    .await;
    emit(&svc, serde_json::json!({"list": "un"})).await;
    drain(&svc).await;
    assert_eq!(got.lock().unwrap().len(), 2, "the schedule's two attempts");
    let shown = svc.webhook(&hook.id).await.unwrap();
    assert!(!shown.active);
    let reason = shown.disabled_reason.unwrap();
    assert!(reason.contains("no event accepted"), "{reason}");
    let alerts = disabled_alerts(&svc).await;
    assert_eq!(alerts.len(), 1);
    assert!(alerts[0].title.contains(&reason), "{:?}", alerts[0]);
}
