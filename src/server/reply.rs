//! Answers: the success envelope with 200 or 201, and [`ApiError`], the failure envelope
//! with its status and headers (`WWW-Authenticate`, `Retry-After`).

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::api::Envelope;
use crate::service::ServiceError;

/// `{"success": true, "data": ...}` with 200.
pub fn ok<T: Serialize>(data: T) -> Response {
    (StatusCode::OK, axum::Json(Envelope::ok(data))).into_response()
}

/// `{"success": true, "data": ...}` with 201 (a resource was created).
pub fn created<T: Serialize>(data: T) -> Response {
    (StatusCode::CREATED, axum::Json(Envelope::ok(data))).into_response()
}

/// `{"success": true, "data": ...}` with 200, an `ETag` and `cache_control`; a 304 without a
/// body when the request's `If-None-Match` names the same tag.
pub fn ok_cached<T: Serialize>(
    request: &HeaderMap,
    data: T,
    cache_control: &'static str,
) -> Response {
    match serde_json::to_vec(&Envelope::ok(data)) {
        Ok(bytes) => cached(request, bytes, cache_control),
        Err(e) => ApiError::from(ServiceError::Internal(format!(
            "cannot encode an answer: {e}"
        )))
        .into_response(),
    }
}

/// A JSON body with a weak `ETag` (its digest: weak, since compression may change the bytes
/// sent) and `cache_control`; a 304 when `If-None-Match` names it (or is `*`).
pub fn cached(request: &HeaderMap, json: Vec<u8>, cache_control: &'static str) -> Response {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(&json);
    let tag = format!("W/\"{}\"", hex::encode(&digest[..16]));
    let matches = request
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .any(|t| t == "*" || t.trim_start_matches("W/") == tag.trim_start_matches("W/"));
    let mut response = if matches {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        (
            StatusCode::OK,
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            json,
        )
            .into_response()
    };
    let headers = response.headers_mut();
    if let Ok(value) = HeaderValue::from_str(&tag) {
        headers.insert(header::ETAG, value);
    }
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(cache_control),
    );
    response
}

/// A failed request: status, message and extra headers.
#[derive(Debug, Clone)]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
    pub retry_after: Option<u64>,
    pub authenticate: Option<&'static str>,
}

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
            retry_after: None,
            authenticate: None,
        }
    }

    /// 400.
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }

    /// 422 naming `field`.
    pub fn invalid(field: &str, message: impl std::fmt::Display) -> ApiError {
        ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("{field}: {message}"),
        )
    }

    /// 401 with `WWW-Authenticate: Bearer`.
    pub fn unauthorized(message: impl Into<String>, invalid_token: bool) -> ApiError {
        ApiError {
            authenticate: Some(if invalid_token {
                "Bearer realm=\"sanctions\", error=\"invalid_token\""
            } else {
                "Bearer realm=\"sanctions\""
            }),
            ..ApiError::new(StatusCode::UNAUTHORIZED, message)
        }
    }

    /// 403.
    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, message)
    }
}

impl From<ServiceError> for ApiError {
    fn from(error: ServiceError) -> ApiError {
        let status =
            StatusCode::from_u16(error.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        if status.is_server_error() {
            tracing::warn!(%error, "request failed");
        }
        let retry_after = match &error {
            ServiceError::RateLimited { retry_after, .. } => *retry_after,
            ServiceError::Busy { retry_after, .. } => Some(*retry_after),
            _ => None,
        };
        ApiError {
            retry_after,
            ..ApiError::new(status, error.to_string())
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response =
            (self.status, axum::Json(Envelope::<()>::err(self.message))).into_response();
        let headers = response.headers_mut();
        if let Some(value) = self.authenticate {
            headers.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static(value));
        }
        if let Some(secs) = self.retry_after {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        response
    }
}

/// What a handler returns.
pub type Reply = Result<Response, ApiError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_store_is_503_with_retry_after() {
        let busy = ServiceError::Busy {
            message: "the database is busy".into(),
            retry_after: 1,
        };
        let response = ApiError::from(busy).into_response();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(
            response.headers().get(header::RETRY_AFTER),
            Some(&HeaderValue::from(1u64))
        );
        // Unavailable without a time to wait (no list yet): no header.
        let none = ApiError::from(ServiceError::Unavailable("no list".into())).into_response();
        assert_eq!(none.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert!(none.headers().get(header::RETRY_AFTER).is_none());
    }
}
