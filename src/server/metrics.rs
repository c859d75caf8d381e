//! `GET /metrics`: Prometheus text of the requests served (by route template, method and
//! status; latency histograms) and of the store (screenings, list and index versions and
//! ages, the webhook backlog, re-screen runs, its size on disk), read at each scrape. Labels are route
//! templates and list codes only: bounded, and never a key, a name or an id.

use std::sync::{Arc, OnceLock};
use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

use super::AppState;
use crate::model::ListVersions;
use crate::service::OpsStats;

/// The figures of the store and of the screening index, read at each scrape (blocking).
pub type OpsSource = Arc<dyn Fn() -> Result<(OpsStats, ListVersions), String> + Send + Sync>;

const REQUESTS: &str = "sanctions_http_requests_total";
const LATENCY: &str = "sanctions_http_request_duration_seconds";
const BUCKETS: [f64; 12] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
];

/// The process's recorder, installed on first use; `None` if another one already was.
fn handle() -> Option<&'static PrometheusHandle> {
    static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();
    HANDLE
        .get_or_init(|| {
            let built = PrometheusBuilder::new()
                .set_buckets_for_metric(Matcher::Full(LATENCY.into()), &BUCKETS)
                .and_then(|b| b.install_recorder());
            match built {
                Ok(handle) => Some(handle),
                Err(error) => {
                    tracing::warn!(%error, "metrics disabled: no recorder");
                    None
                }
            }
        })
        .as_ref()
}

/// Counts every request by route template, method and status, and times it.
pub async fn track(request: Request, next: Next) -> Response {
    handle();
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_owned(), |p| p.as_str().to_owned());
    let method = request.method().as_str().to_owned();
    let started = Instant::now();
    let response = next.run(request).await;
    let status = response.status().as_u16().to_string();
    let labels = [("route", route), ("method", method)];
    metrics::histogram!(LATENCY, &labels).record(started.elapsed().as_secs_f64());
    let [route, method] = labels;
    metrics::counter!(REQUESTS, &[route, method, ("status", status)]).increment(1);
    response
}

/// `GET /metrics` (no key, like `/healthz`): the store's figures refreshed, then rendered.
pub async fn metrics(State(state): State<Arc<AppState>>) -> Response {
    let Some(handle) = handle() else {
        return (StatusCode::SERVICE_UNAVAILABLE, "metrics are disabled\n").into_response();
    };
    if let Some(source) = state.ops.clone() {
        match tokio::task::spawn_blocking(move || source()).await {
            Ok(Ok((stats, index))) => record_store(&stats, &index),
            Ok(Err(error)) => tracing::warn!(%error, "metrics: the store's figures are unreadable"),
            Err(error) => tracing::warn!(%error, "metrics: the store's figures failed"),
        }
    }
    let mut response = handle.render().into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
    );
    response
}

fn record_store(stats: &OpsStats, index: &ListVersions) {
    metrics::gauge!("sanctions_screenings_stored").set(stats.screenings as f64);
    metrics::gauge!("sanctions_outbox_backlog").set(stats.outbox_backlog as f64);
    metrics::gauge!("sanctions_rescreen_runs").set(stats.rescreen_runs as f64);
    metrics::gauge!("sanctions_store_bytes").set(stats.store_bytes as f64);
    let now = jiff::Timestamp::now();
    for (list, update, at) in &stats.lists {
        let code = list.code().to_owned();
        if let Some(update) = update {
            metrics::gauge!("sanctions_list_version", "list" => code.clone()).set(*update as f64);
        }
        let age = at
            .as_deref()
            .and_then(|at| at.parse::<jiff::Timestamp>().ok())
            .map(|at| now.duration_since(at).as_secs_f64());
        if let Some(age) = age {
            metrics::gauge!("sanctions_list_age_seconds", "list" => code.clone()).set(age);
        }
        if let Some(version) = index.get(list) {
            metrics::gauge!("sanctions_index_list_version", "list" => code).set(*version as f64);
        }
    }
}
