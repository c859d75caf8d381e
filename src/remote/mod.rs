//! [`RemoteService`]: the [`crate::service::Service`] spoken over HTTP to a `sanctions serve`.
//!
//! Paths come only from [`crate::api::routes`], query parameters are the serde fields of the
//! `api` query types, bodies and answers are the `api` wire types inside the interface's
//! envelope. Failures map back onto [`ServiceError`] (see [`errors`]), so a face cannot tell
//! a remote refusal from a local one. The last `X-RateLimit-*` headers are kept for status
//! bars; an idempotent `GET` answered 429 is retried once when `Retry-After` is short.
//! The API key is sent as `Authorization: Bearer ...` and never logged or printed.

mod errors;
mod export;
mod service_impl;

use std::sync::Mutex;
use std::time::Duration;

use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue, RETRY_AFTER};
use reqwest::{Method, StatusCode};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::api::envelope::Envelope;
use crate::api::routes;
use crate::service::{RateLimit, ServiceError};

/// Environment variable naming the server (`--remote` wins over it).
pub const URL_ENV: &str = "SANCTIONS_API_URL";
/// Environment variable holding the API key.
pub const KEY_ENV: &str = "SANCTIONS_API_KEY";
/// Largest answer read from a server, in bytes.
pub const MAX_ANSWER_BYTES: usize = 64 * 1024 * 1024;

/// How to reach a server.
#[derive(Clone)]
pub struct RemoteConfig {
    /// The server's base URL, e.g. `https://screening.example.com` (without `/api/v1`).
    pub url: String,
    /// The bearer key; `None` sends no `Authorization` header (the server answers 401).
    pub api_key: Option<String>,
    /// Time allowed to open a connection.
    pub connect_timeout: Duration,
    /// Time allowed for a whole request.
    pub timeout: Duration,
    /// Longest `Retry-After` waited out before retrying a `GET` once after a 429.
    pub max_retry_wait: Duration,
}

impl std::fmt::Debug for RemoteConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteConfig")
            .field("url", &self.url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<hidden>"))
            .field("connect_timeout", &self.connect_timeout)
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl RemoteConfig {
    /// `url` with the default timeouts: 10 s to connect, 120 s a request (a 500-name batch
    /// on a loaded server), at most 10 s waited before a retry.
    pub fn new(url: impl Into<String>, api_key: Option<String>) -> RemoteConfig {
        RemoteConfig {
            url: url.into(),
            api_key,
            connect_timeout: Duration::from_secs(10),
            timeout: Duration::from_secs(120),
            max_retry_wait: Duration::from_secs(10),
        }
    }
}

/// The remote service. Cheap to share behind an `Arc`.
pub struct RemoteService {
    /// The base URL as given, without a trailing `/`.
    url: String,
    /// `url` + [`routes::PREFIX`].
    base: String,
    client: reqwest::Client,
    max_retry_wait: Duration,
    rate: Mutex<Option<RateLimit>>,
    /// The audit export stream being read by pages, if any.
    export: tokio::sync::Mutex<Option<export::OpenExport>>,
}

impl std::fmt::Debug for RemoteService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteService")
            .field("url", &self.url)
            .finish()
    }
}

/// A request body: JSON, or none.
pub(crate) enum Body {
    None,
    Json(Vec<u8>),
}

impl RemoteService {
    /// A client for `config.url`. Refuses a URL that is not absolute http(s), and a key that
    /// cannot be sent in a header.
    pub fn new(config: RemoteConfig) -> Result<RemoteService, ServiceError> {
        let url = config.url.trim().trim_end_matches('/').to_owned();
        let parsed = reqwest::Url::parse(&url).map_err(|e| {
            ServiceError::validation("remote", format!("{url:?} is not a URL: {e}"))
        })?;
        if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
            return Err(ServiceError::validation(
                "remote",
                format!("{url:?} is not an absolute http(s) URL"),
            ));
        }
        let mut headers = HeaderMap::new();
        if let Some(key) = config.api_key.as_deref().map(str::trim)
            && !key.is_empty()
        {
            let mut value = HeaderValue::from_str(&format!("Bearer {key}")).map_err(|_| {
                ServiceError::validation(
                    "api_key",
                    "the API key holds characters a header cannot carry",
                )
            })?;
            value.set_sensitive(true);
            headers.insert(AUTHORIZATION, value);
        }
        let client = reqwest::Client::builder()
            .default_headers(headers)
            .user_agent(concat!("sanctions/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(config.connect_timeout)
            .timeout(config.timeout)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| ServiceError::Internal(format!("cannot build the HTTP client: {e}")))?;
        Ok(RemoteService {
            base: format!("{url}{}", routes::PREFIX),
            url,
            client,
            max_retry_wait: config.max_retry_wait,
            rate: Mutex::new(None),
            export: tokio::sync::Mutex::new(None),
        })
    }

    /// The server's base URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    pub(crate) fn last_rate(&self) -> Option<RateLimit> {
        *self.rate.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `GET path?query`, retried once after a short 429.
    pub(crate) async fn get<T: DeserializeOwned, Q: Serialize + ?Sized>(
        &self,
        path: &str,
        query: Option<&Q>,
    ) -> Result<T, ServiceError> {
        self.call(Method::GET, path, query, Body::None).await
    }

    /// A non-idempotent call with a JSON body (or none).
    pub(crate) async fn send<T: DeserializeOwned, B: Serialize + ?Sized>(
        &self,
        method: Method,
        path: &str,
        body: Option<&B>,
    ) -> Result<T, ServiceError> {
        let body =
            match body {
                Some(b) => Body::Json(serde_json::to_vec(b).map_err(|e| {
                    ServiceError::Internal(format!("cannot encode the request: {e}"))
                })?),
                None => Body::None,
            };
        self.call::<T, ()>(method, path, None, body).await
    }

    async fn call<T: DeserializeOwned, Q: Serialize + ?Sized>(
        &self,
        method: Method,
        path: &str,
        query: Option<&Q>,
        body: Body,
    ) -> Result<T, ServiceError> {
        let url = format!("{}{path}", self.base);
        let mut retried = false;
        loop {
            let mut request = self.client.request(method.clone(), &url);
            if let Some(query) = query {
                request = request.query(query);
            }
            if let Body::Json(bytes) = &body {
                request = request
                    .header(CONTENT_TYPE, "application/json")
                    .body(bytes.clone());
            }
            let response = request
                .send()
                .await
                .map_err(|e| errors::transport(&self.url, &e))?;
            self.keep_rate(response.headers());
            let status = response.status();
            let retry_after = retry_after(response.headers());
            let bytes = read_bounded(response, &self.url).await?;
            if status.is_success() {
                return decode(&bytes, &self.url);
            }
            if status == StatusCode::TOO_MANY_REQUESTS
                && method == Method::GET
                && !retried
                && let Some(wait) = retry_after.map(Duration::from_secs)
                && wait <= self.max_retry_wait
            {
                retried = true;
                tracing::info!(path, secs = wait.as_secs(), "rate limited; retrying once");
                tokio::time::sleep(wait).await;
                continue;
            }
            return Err(errors::from_status(status, &bytes, retry_after, path));
        }
    }

    fn keep_rate(&self, headers: &HeaderMap) {
        let number = |name: &str| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<i64>().ok())
        };
        if let (Some(limit), Some(remaining), Some(reset)) = (
            number("x-ratelimit-limit"),
            number("x-ratelimit-remaining"),
            number("x-ratelimit-reset"),
        ) {
            let rate = RateLimit {
                limit: u64::try_from(limit).unwrap_or(0),
                remaining: u64::try_from(remaining).unwrap_or(0),
                reset,
            };
            *self.rate.lock().unwrap_or_else(|p| p.into_inner()) = Some(rate);
        }
    }
}

/// `Retry-After` in seconds (the delta form; an HTTP date counts as unknown).
fn retry_after(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse().ok())
}

async fn read_bounded(mut response: reqwest::Response, url: &str) -> Result<Vec<u8>, ServiceError> {
    let mut bytes = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| errors::transport(url, &e))?
    {
        if bytes.len() + chunk.len() > MAX_ANSWER_BYTES {
            return Err(ServiceError::Internal(format!(
                "{url} answered more than {} MiB",
                MAX_ANSWER_BYTES / (1024 * 1024)
            )));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

fn decode<T: DeserializeOwned>(bytes: &[u8], url: &str) -> Result<T, ServiceError> {
    match serde_json::from_slice::<Envelope<T>>(bytes) {
        Ok(Envelope::Ok { data, .. }) => Ok(data),
        Ok(Envelope::Err { message, .. }) => Err(ServiceError::Internal(format!(
            "{url} reported a failure with a success status: {message}"
        ))),
        Err(e) => Err(ServiceError::Internal(format!(
            "{url} gave an answer this client does not understand ({e}); is it a sanctions server of the same version?"
        ))),
    }
}
