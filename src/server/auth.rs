//! The authentication and rate-limit middleware of every `/api/v1` route but the OpenAPI
//! document: `Authorization: Bearer <key>` checked on every request (against the cache of
//! verified keys, which the store's key fingerprint invalidates, so a revocation takes effect
//! at once), the key's per-minute window counted, and the
//! `X-RateLimit-*` headers put on the answer, whatever it is.

use std::sync::Arc;

use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::AppState;
use super::key_cache::Lookup;
use super::keys::{self, Refusal};
use super::plans::{Feature, PlanLimits};
use super::reply::ApiError;
use crate::model::{ApiKey, Scope};
use crate::service::{RateLimit, Service, ServiceError};

/// The authenticated caller of a request: its key, its account's plan's limits and the
/// service acting for it, bound to the key's account (stored screenings record the key's
/// label and id as their actor).
#[derive(Clone)]
pub struct Caller {
    pub key: ApiKey,
    pub limits: PlanLimits,
    pub service: Arc<dyn Service>,
}

impl Caller {
    /// 403 naming the scope when this key does not carry `scope`.
    pub fn scope(&self, scope: Scope) -> Result<(), ApiError> {
        if self.key.has(scope) {
            return Ok(());
        }
        Err(ApiError::forbidden(format!(
            "this key lacks the `{scope}` scope (it has: {}); make a key with \
             `sanctions keys create --account {} --scopes ...,{scope}`",
            match Scope::join(&self.key.scopes) {
                s if s.is_empty() => "none".to_owned(),
                s => s,
            },
            self.key.account
        )))
    }

    /// 403 naming the plan needed when this key's plan lacks `feature`.
    pub fn require(&self, state: &AppState, feature: Feature) -> Result<(), ApiError> {
        state
            .plans
            .allows(self.key.plan, feature)
            .map_err(ApiError::forbidden)
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        parts.extensions.get::<Caller>().cloned().ok_or_else(|| {
            ApiError::from(ServiceError::Internal(
                "route served without authentication".into(),
            ))
        })
    }
}

/// The bearer token of a request.
fn bearer(headers: &HeaderMap) -> Result<String, ApiError> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Err(ApiError::unauthorized(
            "missing API key: send the header Authorization: Bearer <key>",
            false,
        ));
    };
    let text = value.to_str().unwrap_or("");
    let mut parts = text.splitn(2, ' ');
    match (parts.next(), parts.next()) {
        (Some(scheme), Some(token))
            if scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty() =>
        {
            Ok(token.trim().to_owned())
        }
        _ => Err(ApiError::unauthorized(
            "malformed Authorization header: expected Authorization: Bearer <key>",
            true,
        )),
    }
}

/// The middleware.
pub async fn authenticate(
    State(state): State<Arc<AppState>>,
    mut request: Request,
    next: Next,
) -> Response {
    let secret = match bearer(request.headers()) {
        Ok(secret) => secret,
        Err(refusal) => return refusal.into_response(),
    };
    let key = match verify(&state, secret).await {
        Ok(key) => key,
        Err(refusal) => return refusal.into_response(),
    };
    let limits = state.plans.get(key.plan);
    let now = jiff::Timestamp::now().as_second();
    // The window is the account's: all its keys share it.
    let admission = state.windows.hit_shared(
        state.keys.as_ref(),
        &key.account_id,
        limits.requests_per_minute,
        now,
    );
    if !admission.allowed {
        let mut refused = ApiError {
            retry_after: Some(admission.retry_after),
            ..ApiError::new(
                axum::http::StatusCode::TOO_MANY_REQUESTS,
                format!(
                    "rate limit exceeded: the {} plan allows {} requests per minute; retry after {} s",
                    limits.plan.title(),
                    limits.requests_per_minute,
                    admission.retry_after
                ),
            )
        }
        .into_response();
        put_headers(refused.headers_mut(), admission.headers);
        return refused;
    }
    let caller = Caller {
        service: (state.services)(&key),
        key,
        limits,
    };
    request.extensions_mut().insert(caller);
    let mut response = next.run(request).await;
    put_headers(response.headers_mut(), admission.headers);
    response
}

/// The valid key of `secret`: from the cache of verified keys when the store's keys have
/// not changed since it was verified (checked inline: one tiny read), else from the store on
/// the blocking pool.
async fn verify(state: &AppState, secret: String) -> Result<ApiKey, ApiError> {
    let hash = keys::digest(&secret);
    let fingerprint = match state.key_cache.lookup(state.keys.as_ref(), &hash) {
        Ok(Lookup::Valid(key)) => return Ok(key),
        Ok(Lookup::Miss(fingerprint)) => fingerprint,
        Err(e) => return Err(ApiError::from(ServiceError::from(e))),
    };
    let store = state.keys.clone();
    let verified = tokio::task::spawn_blocking(move || keys::verify(store.as_ref(), &secret))
        .await
        .map_err(|e| ApiError::from(ServiceError::from(e)))?
        .map_err(|e| ApiError::from(ServiceError::from(e)))?;
    match verified {
        Ok(key) => {
            state.key_cache.remember(fingerprint, hash, key.clone());
            Ok(key)
        }
        Err(refusal) => {
            let message = match refusal {
                Refusal::Malformed => "invalid API key: not an sk_live_ key of this service",
                Refusal::Unknown => "invalid API key: no such key",
                Refusal::Revoked => "invalid API key: this key has been revoked",
            };
            Err(ApiError::unauthorized(message, true))
        }
    }
}

/// `X-RateLimit-Limit`, `-Remaining` and `-Reset` (Unix epoch seconds).
fn put_headers(headers: &mut HeaderMap, rate: RateLimit) {
    headers.insert("x-ratelimit-limit", HeaderValue::from(rate.limit));
    headers.insert("x-ratelimit-remaining", HeaderValue::from(rate.remaining));
    headers.insert("x-ratelimit-reset", HeaderValue::from(rate.reset));
}
