//! A server's failure answers and transport errors mapped onto [`ServiceError`]: the inverse
//! of [`ServiceError::status`], so a remote refusal reads as the local one would.

use reqwest::StatusCode;

use crate::api::envelope::Envelope;
use crate::service::ServiceError;

/// The most of a non-JSON error body quoted in a message.
const MAX_QUOTED: usize = 300;

/// A connection, TLS or timeout failure: the server could not be reached.
pub(crate) fn transport(url: &str, error: &reqwest::Error) -> ServiceError {
    let what = if error.is_timeout() {
        "the request timed out".to_owned()
    } else {
        // The innermost cause names what really failed (refused, DNS, certificate).
        let mut source: &dyn std::error::Error = error;
        while let Some(next) = source.source() {
            source = next;
        }
        source.to_string()
    };
    ServiceError::Unavailable(format!("cannot reach {url}: {what}"))
}

/// The error of a failure status, from the envelope's `message` (or the body's text).
pub(crate) fn from_status(
    status: StatusCode,
    body: &[u8],
    retry_after: Option<u64>,
    path: &str,
) -> ServiceError {
    let message = message(body).unwrap_or_else(|| {
        status
            .canonical_reason()
            .unwrap_or("unexpected answer")
            .to_owned()
    });
    match status.as_u16() {
        400 => ServiceError::Invalid(message),
        401 => ServiceError::Unauthorized(message),
        403 => ServiceError::Forbidden(message),
        404 => not_found(&message, path),
        422 => validation(&message),
        429 => ServiceError::RateLimited {
            message,
            retry_after,
        },
        503 => match retry_after {
            Some(retry_after) => ServiceError::Busy {
                message,
                retry_after,
            },
            None => ServiceError::Unavailable(message),
        },
        500 => ServiceError::Internal(
            message
                .strip_prefix("internal error: ")
                .unwrap_or(&message)
                .to_owned(),
        ),
        other => ServiceError::Internal(format!("status {other} for {path}: {message}")),
    }
}

/// The envelope's message, else the body as text (cut, on one line).
fn message(body: &[u8]) -> Option<String> {
    if let Ok(Envelope::<serde_json::Value>::Err { message, .. }) = serde_json::from_slice(body) {
        return Some(message);
    }
    let text = String::from_utf8_lossy(body);
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.is_empty() {
        return None;
    }
    Some(text.chars().take(MAX_QUOTED).collect())
}

/// `"{what} {id} not found"` (the server's wording of [`ServiceError::NotFound`]) back into
/// its parts; another wording keeps the whole message as `what`, the path as `id`.
fn not_found(message: &str, path: &str) -> ServiceError {
    if let Some(head) = message.strip_suffix(" not found")
        && let Some((what, id)) = head.rsplit_once(' ')
        && !what.is_empty()
    {
        return ServiceError::not_found(what, id);
    }
    ServiceError::NotFound {
        what: message.to_owned(),
        id: path.to_owned(),
    }
}

/// `"{field}: {message}"` (the server's wording of [`ServiceError::Validation`]) back into
/// its parts when the head is a field name; else the field is `request`.
fn validation(message: &str) -> ServiceError {
    if let Some((field, rest)) = message.split_once(": ")
        && !field.is_empty()
        && field
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '[' | ']'))
    {
        return ServiceError::validation(field, rest);
    }
    ServiceError::validation("request", message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(message: &str) -> Vec<u8> {
        serde_json::to_vec(&Envelope::<()>::err(message)).unwrap()
    }

    #[test]
    fn statuses_map_back_onto_the_local_errors() {
        let local = [
            ServiceError::not_found("screening", "scr_01"),
            ServiceError::Invalid("missing field `name`".into()),
            ServiceError::validation("name", "the name is empty"),
            ServiceError::Unauthorized("missing API key".into()),
            ServiceError::Forbidden("the free plan does not include batch".into()),
            ServiceError::Unavailable("no list has been imported yet".into()),
            ServiceError::Internal("disk full".into()),
        ];
        for error in local {
            let status = StatusCode::from_u16(error.status()).unwrap();
            let back = from_status(status, &body(&error.to_string()), None, "/x");
            assert_eq!(back, error);
        }
        let limited = from_status(
            StatusCode::TOO_MANY_REQUESTS,
            &body("slow down"),
            Some(7),
            "/x",
        );
        assert_eq!(
            limited,
            ServiceError::RateLimited {
                message: "slow down".into(),
                retry_after: Some(7)
            }
        );
        // 503 with `Retry-After`: a busy store, tried again later; without it, unavailable.
        let busy = from_status(
            StatusCode::SERVICE_UNAVAILABLE,
            &body("busy"),
            Some(1),
            "/x",
        );
        assert_eq!(
            busy,
            ServiceError::Busy {
                message: "busy".into(),
                retry_after: 1
            }
        );
    }

    #[test]
    fn odd_bodies_still_say_something() {
        let e = from_status(
            StatusCode::BAD_GATEWAY,
            b"<html>\n bad gateway </html>",
            None,
            "/lists",
        );
        assert_eq!(
            e,
            ServiceError::Internal("status 502 for /lists: <html> bad gateway </html>".into())
        );
        let e = from_status(StatusCode::NOT_FOUND, b"", None, "/nope");
        assert_eq!(e, ServiceError::not_found("Not Found", "/nope"));
        let e = from_status(
            StatusCode::UNPROCESSABLE_ENTITY,
            &body("bad thing happened"),
            None,
            "/x",
        );
        assert_eq!(e, ServiceError::validation("request", "bad thing happened"));
    }
}
