//! The remote client's own behaviour against a small real HTTP server on 127.0.0.1: a `GET`
//! answered 429 is retried once after `Retry-After`, a `POST` never; a long wait is not
//! waited out; the `X-RateLimit-*` headers are kept; the key goes as a bearer token.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use sanctions::remote::{RemoteConfig, RemoteService};
use sanctions_service::{Service, ServiceError};

/// Answers 429 (with `retry_after` seconds) to the first request of each route, then 200.
async fn serve(retry_after: u64) -> (String, Arc<AtomicUsize>) {
    let hits = Arc::new(AtomicUsize::new(0));
    let answer = move |hits: Arc<AtomicUsize>, headers: HeaderMap, data: &'static str| {
        let n = hits.fetch_add(1, Ordering::SeqCst);
        let auth = headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        let mut out = HeaderMap::new();
        out.insert("x-ratelimit-limit", "10".parse().unwrap());
        out.insert(
            "x-ratelimit-remaining",
            if n == 0 { "0" } else { "9" }.parse().unwrap(),
        );
        out.insert("x-ratelimit-reset", "1900000000".parse().unwrap());
        if auth != "Bearer sk_test_1" {
            return (
                StatusCode::UNAUTHORIZED,
                out,
                r#"{"success":false,"message":"missing or unknown API key"}"#.to_owned(),
            )
                .into_response();
        }
        if n == 0 {
            out.insert("retry-after", retry_after.to_string().parse().unwrap());
            return (
                StatusCode::TOO_MANY_REQUESTS,
                out,
                r#"{"success":false,"message":"rate limit: 10 requests per minute"}"#.to_owned(),
            )
                .into_response();
        }
        (
            StatusCode::OK,
            out,
            format!(r#"{{"success":true,"data":{data}}}"#),
        )
            .into_response()
    };
    let (a, b) = (hits.clone(), hits.clone());
    let app = Router::new()
        .route(
            "/api/v1/lists",
            get(move |h: HeaderMap| {
                let a = a.clone();
                async move { answer(a, h, "[]") }
            }),
        )
        .route(
            "/api/v1/favorites/rescreen",
            post(move |h: HeaderMap| {
                let b = b.clone();
                async move { answer(b, h, "null") }
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}"), hits)
}

fn client(url: &str, key: Option<&str>) -> RemoteService {
    RemoteService::new(RemoteConfig::new(url, key.map(str::to_owned))).unwrap()
}

#[tokio::test]
async fn a_get_is_retried_once_after_a_short_429() {
    let (url, hits) = serve(1).await;
    let svc = client(&url, Some("sk_test_1"));
    let started = Instant::now();
    assert_eq!(svc.lists().await.unwrap(), vec![]);
    assert_eq!(hits.load(Ordering::SeqCst), 2, "one retry");
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "waited Retry-After"
    );
    let rate = svc.rate_limit().unwrap();
    assert_eq!(
        (rate.limit, rate.remaining, rate.reset),
        (10, 9, 1_900_000_000)
    );
}

#[tokio::test]
async fn a_post_or_a_long_wait_is_not_retried() {
    let (url, hits) = serve(1).await;
    let svc = client(&url, Some("sk_test_1"));
    let err = svc.rescreen().await.unwrap_err();
    assert_eq!(
        err,
        ServiceError::RateLimited {
            message: "rate limit: 10 requests per minute".into(),
            retry_after: Some(1)
        }
    );
    assert_eq!(hits.load(Ordering::SeqCst), 1);
    let (url, hits) = serve(600).await;
    let err = client(&url, Some("sk_test_1")).lists().await.unwrap_err();
    assert!(matches!(
        err,
        ServiceError::RateLimited {
            retry_after: Some(600),
            ..
        }
    ));
    assert_eq!(hits.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn the_key_is_sent_as_a_bearer_token_and_never_shown() {
    let (url, _) = serve(1).await;
    let err = client(&url, None).lists().await.unwrap_err();
    assert_eq!(
        err,
        ServiceError::Unauthorized("missing or unknown API key".into())
    );
    let svc = client(&url, Some("sk_test_1"));
    assert!(!format!("{svc:?}").contains("sk_test_1"));
    let config = RemoteConfig::new(url.as_str(), Some("sk_test_1".into()));
    assert!(!format!("{config:?}").contains("sk_test_1"));
    assert!(RemoteService::new(RemoteConfig::new("ftp://x", None)).is_err());
    assert!(RemoteService::new(RemoteConfig::new("not a url", None)).is_err());
}
