//! Operability (issue 26): `/healthz`, `/readyz` (503 until the index is built from the
//! lists, 200 after), Prometheus `/metrics` (requests by route and status, latency
//! histograms, the store's figures) and JSON access logs with the request id, on a real
//! `sanctions serve` over a data folder that starts with no list.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::serve::Serve;

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

async fn get(url: &str, key: Option<&str>, request_id: Option<&str>) -> (u16, String) {
    let mut request = reqwest::Client::new().get(url);
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    if let Some(id) = request_id {
        request = request.header("x-request-id", id);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.text().await.unwrap())
}

/// The value of the sample `name{labels}` in a Prometheus text page (labels in order).
fn sample(page: &str, series: &str) -> Option<f64> {
    page.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
        .and_then(|value| value.trim().parse().ok())
}

#[tokio::test(flavor = "multi_thread")]
async fn health_readiness_metrics_and_json_access_logs() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path();
    let key = common::serve::new_key(data, "business", "ops");
    let server = Serve::spawn(data, None);
    let base = server.base.clone();

    assert_eq!(get(&format!("{base}/healthz"), None, None).await.0, 200);
    let (status, body) = get(&format!("{base}/readyz"), None, None).await;
    assert_eq!(status, 503, "no list yet: {body}");

    let lists = format!("{base}/api/v1/lists");
    assert_eq!(get(&lists, Some(&key), Some("ops-check-1")).await.0, 200);
    assert_eq!(get(&lists, Some(&key), None).await.0, 200);
    assert_eq!(get(&lists, None, None).await.0, 401);
    assert_eq!(get(&format!("{base}/nowhere"), None, None).await.0, 404);

    let (status, page) = get(&format!("{base}/metrics"), None, None).await;
    assert_eq!(status, 200, "{page}");
    let requests = |route: &str, status: u16| {
        sample(
            &page,
            &format!(
                "sanctions_http_requests_total{{route=\"{route}\",method=\"GET\",status=\"{status}\"}}"
            ),
        )
    };
    assert_eq!(requests("/api/v1/lists", 200), Some(2.0), "{page}");
    assert_eq!(requests("/api/v1/lists", 401), Some(1.0), "{page}");
    assert_eq!(requests("unmatched", 404), Some(1.0), "{page}");
    assert_eq!(requests("/readyz", 503), Some(1.0), "{page}");
    let buckets = sample(
        &page,
        "sanctions_http_request_duration_seconds_bucket{route=\"/api/v1/lists\",method=\"GET\",le=\"+Inf\"}",
    );
    assert_eq!(buckets, Some(3.0), "{page}");
    assert_eq!(
        sample(&page, "sanctions_screenings_stored"),
        Some(0.0),
        "{page}"
    );
    assert_eq!(
        sample(&page, "sanctions_outbox_backlog"),
        Some(0.0),
        "{page}"
    );
    assert_eq!(
        sample(&page, "sanctions_rescreen_runs"),
        Some(0.0),
        "{page}"
    );
    assert!(
        !page.contains("sanctions_list_version{"),
        "no list yet: {page}"
    );
    assert!(!page.contains(&key[8..]), "a key in the metrics");

    // Lists imported: ready once the index is built from them; their versions reported.
    let layout = tempfile::tempdir().unwrap();
    for code in ["un", "world_bank"] {
        let fixture =
            Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/{code}/good"));
        std::os::unix::fs::symlink(fixture, layout.path().join(code)).unwrap();
    }
    let out = common::sanctions(data, &["lists", "import", layout.path().to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let started = Instant::now();
    while get(&format!("{base}/readyz"), None, None).await.0 != 200 {
        assert!(started.elapsed() < Duration::from_secs(60), "never ready");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let (_, page) = get(&format!("{base}/metrics"), None, None).await;
    let version = sample(&page, "sanctions_list_version{list=\"un\"}");
    assert!(version.is_some_and(|v| v >= 1.0), "{page}");
    assert_eq!(
        sample(&page, "sanctions_index_list_version{list=\"un\"}"),
        version,
        "{page}"
    );
    let age = sample(&page, "sanctions_list_age_seconds{list=\"un\"}");
    assert!(age.is_some_and(|a| (0.0..600.0).contains(&a)), "{page}");

    // The access log: one JSON object a line, the response's status in the request's span.
    let log_path = data.join("sanctions.log");
    let started = Instant::now();
    let logged = loop {
        let log = std::fs::read_to_string(&log_path).unwrap_or_default();
        let found = log
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .find(|event| event["span"]["id"] == "ops-check-1" && event["fields"]["status"] == 200);
        if let Some(found) = found {
            break found;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "not logged:\n{log}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(logged["span"]["method"], "GET", "{logged}");
    assert!(logged["fields"]["latency"].is_string(), "{logged}");

    drop(server);
}

/// The value of `sanctions_{name}{list="un"}` on `/metrics`.
async fn un_version(base: &str, name: &str) -> Option<f64> {
    let (_, page) = get(&format!("{base}/metrics"), None, None).await;
    sample(&page, &format!("sanctions_{name}{{list=\"un\"}}"))
}

/// Issue 26: `/readyz` is 200 only while the index is built from the store's current list
/// versions. An import by another process while the server runs makes the store newer; the
/// server rebuilds its index by itself (no screening needed) and is ready again with the
/// index at the new version.
#[tokio::test(flavor = "multi_thread")]
async fn readiness_follows_the_store_s_list_versions() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path();
    let layout = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/un/good");
    std::os::unix::fs::symlink(fixture, layout.path().join("un")).unwrap();
    let import = || {
        let out = common::sanctions(data, &["lists", "import", layout.path().to_str().unwrap()]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    import();
    let server = Serve::spawn(data, None);
    let base = server.base.clone();
    let ready = || async { get(&format!("{base}/readyz"), None, None).await };
    let started = Instant::now();
    while ready().await.0 != 200 {
        assert!(started.elapsed() < Duration::from_secs(60), "never ready");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let first = un_version(&base, "list_version").await.unwrap();
    assert_eq!(un_version(&base, "index_list_version").await, Some(first));

    // The same files again: a new update of the list in the store, made by another process.
    import();
    let second = un_version(&base, "list_version").await.unwrap();
    assert!(second > first, "{second} after {first}");
    let started = Instant::now();
    loop {
        let (status, body) = ready().await;
        let index = un_version(&base, "index_list_version").await;
        if status == 200 && index == Some(second) {
            break;
        }
        // While the index is older than the store, not ready, naming the list.
        if index == Some(first) && status == 503 {
            assert!(
                body.contains("being rebuilt") && body.contains("un"),
                "{body}"
            );
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the index stayed at {index:?} (store {second}), readyz {status} {body}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    drop(server);
}
