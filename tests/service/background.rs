//! The background work of a long-running face, started and stopped by one call: feeds read
//! at once and a failing one retried, webhook deliveries made, all on 127.0.0.1.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::http::StatusCode;
use sanctions_api::briefs::BriefQuery;
use sanctions_api::webhooks::WebhookCreate;
use sanctions_model::OutboxEvent;
use sanctions_service::Service;
use sanctions_service::config::{Config, FeedConfig};
use sanctions_store::Changes;

const RSS: &str = r#"<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>
<item><guid>a-1</guid><title>Counter narcotics designations</title>
<link>https://example.org/a/1</link><pubDate>Fri, 21 Nov 2026 10:00:00 GMT</pubDate>
<description>Three entities added.</description></item></channel></rss>"#;

const ATOM: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>f</title><id>urn:f</id>
<updated>2026-11-20T09:00:00Z</updated>
<entry><id>urn:f:1</id><title>Financial sanctions notice</title>
<updated>2026-11-20T09:00:00Z</updated><link href="https://example.org/f/1"/>
<summary>One individual added.</summary></entry></feed>"#;

async fn wait_for(what: &str, mut done: impl AsyncFnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !done().await {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn one_call_starts_feeds_webhooks_and_monitoring_and_one_stops_them() {
    // A steady feed, one failing its first two reads, and a webhook receiver.
    let flaky_reads = Arc::new(AtomicUsize::new(0));
    let delivered = Arc::new(Mutex::new(Vec::<Vec<u8>>::new()));
    let (reads, got) = (flaky_reads.clone(), delivered.clone());
    let app = Router::new()
        .route("/rss.xml", axum::routing::get(|| async { RSS }))
        .route(
            "/flaky.xml",
            axum::routing::get(move || {
                let n = reads.fetch_add(1, Ordering::SeqCst);
                async move {
                    if n < 2 {
                        (StatusCode::SERVICE_UNAVAILABLE, "")
                    } else {
                        (StatusCode::OK, ATOM)
                    }
                }
            }),
        )
        .route(
            "/hook",
            axum::routing::post(move |body: Bytes| {
                got.lock().unwrap().push(body.to_vec());
                async { StatusCode::NO_CONTENT }
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let (_dir, svc) = crate::empty_service().await;
    let mut config = Config::default();
    config.webhooks.poll_interval_ms = 50;
    config.watchlist.poll_secs = 1;
    config.briefs.refresh_secs = 3600;
    config.briefs.retry_secs = 1;
    config.briefs.feeds = ["rss", "flaky"]
        .iter()
        .map(|name| FeedConfig {
            name: (*name).to_owned(),
            url: format!("http://{addr}/{name}.xml"),
        })
        .collect();
    svc.create_webhook(WebhookCreate {
        url: format!("http://{addr}/hook"),
        events: vec!["list.updated".to_owned()],
        description: None,
    })
    .await
    .unwrap();
    let background = svc.spawn_background(&config).unwrap();
    assert_eq!(background.tasks(), ["monitoring", "webhooks", "feeds"]);

    // An event written by any change is delivered by the worker.
    let writer = svc.clone();
    tokio::task::spawn_blocking(move || {
        let changes = Changes {
            events: vec![OutboxEvent {
                event_id: "evt_background1".to_owned(),
                kind: "list.updated".to_owned(),
                created_at: jiff::Timestamp::now(),
                payload: serde_json::json!({"list": "un"}),
            }],
            ..Changes::default()
        };
        writer.repository().record(&changes).unwrap();
    })
    .await
    .unwrap();
    wait_for("the webhook delivery", async || {
        !delivered.lock().unwrap().is_empty()
    })
    .await;

    // The steady feed is read at once; the flaky one is reported, retried after 1 s and then
    // 2 s, and read on its third try.
    let started = Instant::now();
    // A feed's report is kept after its briefs are stored: both are waited for.
    wait_for("both feeds' briefs and reports", async || {
        let page = svc.briefs(BriefQuery::default()).await.unwrap();
        page.items.len() == 2 && svc.feed_reports().iter().all(|r| r.error.is_none())
    })
    .await;
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(flaky_reads.load(Ordering::SeqCst), 3);
    let reports = svc.feed_reports();
    assert_eq!(reports.len(), 2, "{reports:?}");
    assert!(reports.iter().all(|r| r.error.is_none()), "{reports:?}");
    let sources: Vec<String> = svc
        .briefs(BriefQuery::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .map(|b| b.source)
        .collect();
    assert_eq!(sources, ["rss", "flaky"]);

    // One call stops everything, promptly.
    let stopping = Instant::now();
    background.stop().await;
    assert!(stopping.elapsed() < Duration::from_secs(2));
    let reads = flaky_reads.load(Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(flaky_reads.load(Ordering::SeqCst), reads);
}
