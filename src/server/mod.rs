//! `sanctions serve`: the HTTP interface of `spec/service-interface.md` and its extensions
//! (the paths of [`crate::api::routes`], under [`routes::PREFIX`]), on axum.
//!
//! Every handler is a thin call on an `Arc<dyn Service>` acting for the caller's key; the
//! server reaches the store only through [`KeyStore`] (keys and usage counters). Around the
//! routes: request ids and access logs (method, path, status, latency; never a header, so
//! never a key), a request timeout, a cap on requests in flight and on open connections, a
//! body limit, JSON 404/405, and a graceful shutdown that lets requests in flight finish.

mod admin;
mod auth;
mod body;
mod checks;
mod export;
mod key_cache;
pub use crate::service::keys;
mod limiter;
mod listener;
mod metrics;
pub mod openapi;
mod openapi_texts;
pub mod plans;
mod reply;
mod screen;
mod throttle;
pub mod tls;
mod watch;

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use tower_http::request_id::{
    MakeRequestId, PropagateRequestIdLayer, RequestId, SetRequestIdLayer,
};
use tower_http::trace::{DefaultOnResponse, TraceLayer};

use crate::api::routes;
use crate::config::ServerConfig;
use crate::model::{ApiKey, ListCode, ListVersions};
use crate::service::KeyStore;
use crate::service::{Service, ServiceError};

pub use auth::Caller;
pub use listener::{Limits, raise_open_files};
pub use metrics::OpsSource;
pub use plans::{Feature, PlanLimits, Plans};
use reply::ApiError;

/// Makes the service that acts for a key: a local service bound to the key's account
/// (every stored object it reads or writes is that account's) recording the key's label
/// and id.
pub type ServiceFactory = Arc<dyn Fn(&ApiKey) -> Arc<dyn Service> + Send + Sync>;

/// What every handler shares.
pub struct AppState {
    pub services: ServiceFactory,
    pub keys: Arc<dyn KeyStore>,
    pub plans: Plans,
    windows: limiter::Windows,
    /// The hourly windows of the expensive operations, per account.
    expensive: limiter::Windows,
    /// Verified keys, dropped whenever the store's keys change.
    key_cache: key_cache::KeyCache,
    /// Set once the screening index is built (`/readyz`).
    pub ready: AtomicBool,
    /// Failed authentications per client address.
    throttle: throttle::Throttle,
    /// The store's figures for `/metrics`; none without a store.
    pub ops: Option<metrics::OpsSource>,
    /// The list versions of the index in use and of the store (`/readyz`); none without a
    /// store.
    versions: Option<VersionsSource>,
}

/// Reads the list versions the screening index in use was built from, then the store's
/// current ones (blocking: run off the async threads).
pub type VersionsSource =
    Arc<dyn Fn() -> Result<(ListVersions, ListVersions), String> + Send + Sync>;

impl AppState {
    pub fn new(services: ServiceFactory, keys: Arc<dyn KeyStore>, plans: Plans) -> AppState {
        AppState {
            services,
            keys,
            plans,
            windows: limiter::Windows::default(),
            expensive: limiter::Windows::default(),
            key_cache: key_cache::KeyCache::default(),
            ready: AtomicBool::new(false),
            throttle: throttle::Throttle::new(20, 60),
            ops: None,
            versions: None,
        }
    }

    /// Counts one use of the expensive `op` by the caller's account: 429 with `Retry-After`
    /// beyond [`limiter::EXPENSIVE_PER_HOUR`] an hour.
    async fn expensive(
        self: &Arc<Self>,
        caller: &Caller,
        op: limiter::Expensive,
    ) -> Result<(), ApiError> {
        let now = jiff::Timestamp::now().as_second();
        let (state, account) = (self.clone(), caller.key.account_id.clone());
        tokio::task::spawn_blocking(move || {
            state
                .expensive
                .expensive_shared(state.keys.as_ref(), op, &account, now)
        })
        .await
        .map_err(|e| ApiError::from(ServiceError::from(e)))?
        .map_err(|wait| ApiError {
            retry_after: Some(wait),
            ..ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                format!(
                    "{} may run {} times an hour per account; retry after {wait} s",
                    op.name(),
                    limiter::EXPENSIVE_PER_HOUR
                ),
            )
        })
    }

    /// Reports the store's figures (read by `source` at each scrape) on `/metrics`.
    pub fn with_ops(mut self, source: OpsSource) -> AppState {
        self.ops = Some(source);
        self
    }

    /// Answers `/readyz` with 200 only while the index is built from the store's current
    /// list versions, as `source` reads them.
    pub fn with_versions(mut self, source: VersionsSource) -> AppState {
        self.versions = Some(source);
        self
    }

    /// Allows `limit` failed authentications per client address per `window_secs`.
    pub fn with_auth_throttle(mut self, limit: u32, window_secs: u64) -> AppState {
        self.throttle = throttle::Throttle::new(limit, window_secs);
        self
    }

    /// Runs `work` with `n` credits of the caller taken first (403 when the month's are used
    /// up), giving them back if it fails. Plans without a monthly limit are not counted.
    async fn charge<T>(
        &self,
        caller: &Caller,
        n: u64,
        work: impl Future<Output = Result<T, ServiceError>>,
    ) -> Result<T, ApiError> {
        let Some(limit) = caller.limits.screenings_per_month else {
            // Unlimited: nothing to enforce, so no store write (a commit per request).
            return work.await.map_err(ApiError::from);
        };
        let taken = limiter::take(
            self.keys.clone(),
            &caller.key.account_id,
            caller.limits.plan.title(),
            n,
            Some(limit),
        )
        .await
        .map_err(|refused| match refused {
            limiter::NoCredits::Exhausted(message) => ApiError::forbidden(message),
            limiter::NoCredits::Store(e) => ApiError::from(ServiceError::from(e)),
        })?;
        match work.await {
            Ok(value) => Ok(value),
            Err(error) => {
                taken.give_back().await;
                Err(error.into())
            }
        }
    }
}

fn api(path: &str) -> String {
    format!("{}{path}", routes::PREFIX)
}

/// The whole application: routes, middleware and fallbacks.
pub fn router(state: Arc<AppState>, config: &ServerConfig) -> Router {
    let authenticated = Router::new()
        .route(&api(routes::SCREEN), post(screen::screen))
        .route(&api(routes::SCREEN_PREVIEW), post(screen::preview))
        .route(&api(routes::SCREEN_BATCH), post(screen::batch))
        .route(&api(routes::SCREEN_ONE), get(screen::screening))
        .route(&api(routes::SCREENINGS), get(screen::screenings))
        .route(&api(routes::SCREENING), get(screen::stored_screening))
        .route(&api(routes::SCREENING_DECISIONS), post(screen::decide))
        .route(&api(routes::SCREENING_VERDICTS), post(screen::verdict))
        .route(&api(routes::AUDIT), get(screen::audit))
        .route(&api(routes::KEYS), get(admin::keys))
        .route(&api(routes::LISTS), get(screen::lists))
        .route(&api(routes::LIST_UPDATES), get(screen::list_updates))
        .route(&api(routes::ENTITY), get(screen::entity))
        .route(
            &api(routes::FAVORITES),
            get(watch::favorites).post(watch::add_favorite),
        )
        .route(
            &api(routes::FAVORITE),
            get(watch::favorite).delete(watch::remove_favorite),
        )
        .route(
            &api(routes::FAVORITES_IMPORT),
            post(watch::import_favorites),
        )
        .route(&api(routes::FAVORITES_RESCREEN), post(watch::rescreen))
        .route(&api(routes::ALERTS), get(watch::alerts))
        .route(&api(routes::ALERT), get(watch::alert))
        .route(&api(routes::ALERT_STATUS), post(watch::alert_status))
        .route(&api(routes::ALERTS_BULK), post(watch::alerts_status))
        .route(
            &api(routes::WEBHOOKS),
            get(watch::webhooks).post(watch::create_webhook),
        )
        .route(
            &api(routes::WEBHOOK),
            get(watch::webhook)
                .patch(watch::update_webhook)
                .delete(watch::delete_webhook),
        )
        .route(&api(routes::WEBHOOK_TEST), post(watch::test_webhook))
        .route(&api(routes::WEBHOOK_DELIVERIES), get(watch::deliveries))
        .route(&api(routes::BRIEFS), get(watch::briefs))
        .route(&api(routes::BRIEF), get(watch::brief))
        .route(&api(routes::BRIEFS_REFRESH), post(watch::refresh_briefs))
        .route_layer(middleware::from_fn_with_state(
            state.clone(),
            auth::authenticate,
        ))
        .route_layer(middleware::from_fn_with_state(
            state.clone(),
            throttle_failures,
        ));
    let timeout = Duration::from_secs(config.request_timeout_secs.max(1));
    let app = authenticated
        .route(&api(routes::OPENAPI), get(openapi_json))
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics::metrics))
        .fallback(screen::not_found)
        .method_not_allowed_fallback(screen::method_not_allowed)
        .with_state(state)
        .layer(DefaultBodyLimit::max(config.body_limit_bytes))
        .layer(compression(config))
        .layer(middleware::from_fn_with_state(timeout, time_limit))
        .layer(middleware::from_fn(metrics::track))
        .layer(tower::limit::ConcurrencyLimitLayer::new(
            config.max_in_flight.max(1),
        ))
        .layer(PropagateRequestIdLayer::x_request_id())
        .layer(
            TraceLayer::new_for_http()
                .make_span_with(|request: &Request| {
                    let id = request
                        .headers()
                        .get("x-request-id")
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or("-");
                    // `id` is in the safe charset (`safe_request_id`); the path is quoted.
                    tracing::info_span!(
                        "request",
                        id = %id,
                        method = %request.method(),
                        path = ?request.uri().path(),
                    )
                })
                .on_response(DefaultOnResponse::new().level(tracing::Level::INFO)),
        )
        .layer(SetRequestIdLayer::x_request_id(Ids::default()));
    let app = match cors(config) {
        Some(cors) => app.layer(cors),
        None => app,
    };
    app.layer(middleware::map_request(safe_request_id))
}

/// Brotli or gzip, as the client's `Accept-Encoding` prefers, on answers above
/// `compress_above_bytes`, both at level 4: brotli's default quality 11 is many times slower
/// for a few per cent fewer bytes, and quality 4 still compresses JSON better than gzip.
fn compression(
    config: &ServerConfig,
) -> tower_http::compression::CompressionLayer<
    tower_http::compression::predicate::And<
        tower_http::compression::DefaultPredicate,
        tower_http::compression::predicate::SizeAbove,
    >,
> {
    use tower_http::compression::predicate::{Predicate, SizeAbove};
    use tower_http::compression::{CompressionLayer, DefaultPredicate};
    CompressionLayer::new()
        .gzip(true)
        .br(true)
        .quality(tower_http::CompressionLevel::Precise(4))
        .compress_when(DefaultPredicate::new().and(SizeAbove::new(config.compress_above_bytes)))
}

/// CORS for the origins of `cors_origins`, or `None` (the default: no CORS, `OPTIONS` 405).
/// An origin that is not a valid header value is left out, with a warning.
fn cors(config: &ServerConfig) -> Option<tower_http::cors::CorsLayer> {
    use axum::http::{Method, header};
    use tower_http::cors::{AllowOrigin, CorsLayer};
    let origins: Vec<HeaderValue> = config
        .cors_origins
        .iter()
        .filter_map(|origin| match HeaderValue::from_str(origin.trim()) {
            Ok(value) => Some(value),
            Err(_) => {
                tracing::warn!(origin = ?origin, "[server] cors_origins: not a valid origin, left out");
                None
            }
        })
        .collect();
    if origins.is_empty() {
        return None;
    }
    Some(
        CorsLayer::new()
            .allow_origin(AllowOrigin::list(origins))
            .allow_methods([Method::GET, Method::POST, Method::PATCH, Method::DELETE])
            .allow_headers([
                header::AUTHORIZATION,
                header::CONTENT_TYPE,
                header::HeaderName::from_static("x-request-id"),
            ])
            .expose_headers([
                header::RETRY_AFTER,
                header::HeaderName::from_static("x-request-id"),
                header::HeaderName::from_static("x-ratelimit-limit"),
                header::HeaderName::from_static("x-ratelimit-remaining"),
                header::HeaderName::from_static("x-ratelimit-reset"),
            ])
            .max_age(Duration::from_secs(600)),
    )
}

/// Most characters of a client's `x-request-id`.
pub const MAX_REQUEST_ID: usize = 64;

/// True for a request id a client may choose: `[A-Za-z0-9._-]{1,64}`.
pub fn is_safe_request_id(id: &[u8]) -> bool {
    (1..=MAX_REQUEST_ID).contains(&id.len())
        && id
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// Drops a client's `x-request-id` outside the safe charset and length (one is then
/// generated), so that an id written to the log can never forge a field or a line.
async fn safe_request_id(mut request: Request) -> Request {
    let headers = request.headers_mut();
    let ids = headers.get_all("x-request-id");
    let mut values = ids.iter();
    let keep = matches!(
        (values.next(), values.next()),
        (Some(one), None) if is_safe_request_id(one.as_bytes())
    );
    if !keep {
        headers.remove("x-request-id");
    }
    request
}

/// Refuses with 429 the requests of a client address that failed authentication too often
/// lately ([`throttle`]), and counts the failures (a key presented and answered 401) of the
/// others.
async fn throttle_failures(
    State(state): State<Arc<AppState>>,
    request: Request,
    next: Next,
) -> Response {
    let ip = request
        .extensions()
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map(|info| info.0.ip());
    let Some(ip) = ip else {
        return next.run(request).await;
    };
    let now = jiff::Timestamp::now().as_second();
    if let Err(wait) = state.throttle.check(ip, now) {
        return ApiError {
            retry_after: Some(wait),
            ..ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                format!("too many failed authentications from this address: retry after {wait} s"),
            )
        }
        .into_response();
    }
    // Only a key presented and refused is a failed authentication (a guess); a request
    // without a key guesses nothing.
    let presented = request
        .headers()
        .contains_key(axum::http::header::AUTHORIZATION);
    let response = next.run(request).await;
    if presented && response.status() == StatusCode::UNAUTHORIZED {
        state.throttle.failed(ip, now);
    }
    response
}

/// Request ids: `req-` and a per-process counter (unless the client sent `x-request-id`).
#[derive(Debug, Clone, Default)]
struct Ids(Arc<AtomicU64>);

impl MakeRequestId for Ids {
    fn make_request_id<B>(&mut self, _: &axum::http::Request<B>) -> Option<RequestId> {
        let n = self.0.fetch_add(1, Ordering::Relaxed) + 1;
        HeaderValue::from_str(&format!("req-{n}"))
            .ok()
            .map(RequestId::new)
    }
}

async fn time_limit(State(limit): State<Duration>, request: Request, next: Next) -> Response {
    match tokio::time::timeout(limit, next.run(request)).await {
        Ok(response) => response,
        Err(_) => ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "the request took longer than {} s and was abandoned",
                limit.as_secs()
            ),
        )
        .into_response(),
    }
}

/// `GET /api/v1/openapi.json` (no key): the OpenAPI document, built once, with an `ETag`
/// (a matching `If-None-Match` is a 304) and `Cache-Control`.
async fn openapi_json(headers: axum::http::HeaderMap) -> Response {
    static DOCUMENT: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    let document =
        DOCUMENT.get_or_init(|| serde_json::to_vec(&openapi::document()).unwrap_or_default());
    reply::cached(&headers, document.clone(), "public, max-age=3600")
}

/// `GET /healthz`: the process answers.
async fn healthz() -> Response {
    reply::ok(serde_json::json!({ "status": "ok" }))
}

/// `GET /readyz`: 200 once the screening index is built and while it is built from the
/// store's current list versions, naming them (`lists`: list code -> update id); 503 before,
/// and while a newer import waits to be indexed.
async fn readyz(State(state): State<Arc<AppState>>) -> Response {
    let unavailable =
        |message: String| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, message).into_response();
    if !state.ready.load(Ordering::Acquire) {
        return unavailable(
            "not ready: the screening index is not built yet (or no list has been imported)".into(),
        );
    }
    let Some(source) = state.versions.clone() else {
        return reply::ok(serde_json::json!({ "status": "ready" }));
    };
    match tokio::task::spawn_blocking(move || source()).await {
        Ok(Ok((index, store))) => match behind(&index, &store) {
            stale if stale.is_empty() => {
                reply::ok(serde_json::json!({ "status": "ready", "lists": index }))
            }
            stale => unavailable(format!(
                "not ready: the screening index is being rebuilt for newer versions of {}",
                stale.join(", ")
            )),
        },
        Ok(Err(error)) => unavailable(format!("not ready: {error}")),
        Err(error) => unavailable(format!("not ready: {error}")),
    }
}

/// The codes of the lists whose version in the store is not the one the index was built from.
fn behind(index: &ListVersions, store: &ListVersions) -> Vec<&'static str> {
    ListCode::ALL
        .into_iter()
        .filter(|list| index.get(list) != store.get(list))
        .map(ListCode::code)
        .collect()
}

impl Limits {
    /// The bounds of `[server]`.
    pub fn of(config: &ServerConfig) -> Limits {
        Limits {
            max_connections: config.max_connections,
            per_address: config.max_connections_per_address,
            header_read: Duration::from_secs(config.header_read_timeout_secs.max(1)),
            grace: Duration::from_secs(config.shutdown_grace_secs),
        }
    }
}

/// Serves `app` on `listener` (over TLS with `tls`) within `limits` until `shutdown` resolves, then lets requests
/// in flight finish for up to the grace period ([`listener::serve`]).
pub async fn run(
    listener: tokio::net::TcpListener,
    app: Router,
    limits: Limits,
    tls: Option<Arc<tls::Tls>>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    listener::serve(listener, app, limits, tls, shutdown).await
}

/// Warns (on standard error and in the log) when the data folder can be read by other local
/// users: it holds every screened name and every webhook secret.
pub fn report_open_folder(dir: &std::path::Path) {
    if let Some(mode) = crate::files::readable_by_others(dir) {
        let message = format!(
            "warning: the data folder {} can be read by other users (mode {mode:o}); run `chmod 700 {}`",
            dir.display(),
            dir.display()
        );
        eprintln!("{}", crate::sanitize::multiline(&message));
        tracing::warn!(folder = ?dir, mode = format!("{mode:o}"), "data folder readable by other users");
    }
}

/// Ctrl-C or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readiness_names_the_lists_the_index_is_behind_on() {
        let store: ListVersions = [(ListCode::Un, 7), (ListCode::Eu, 3)].into();
        assert!(behind(&store.clone(), &store).is_empty());
        let index: ListVersions = [(ListCode::Un, 6), (ListCode::Eu, 3)].into();
        assert_eq!(behind(&index, &store), ["un"]);
        assert_eq!(behind(&ListVersions::new(), &store), ["eu", "un"]);
    }
}
