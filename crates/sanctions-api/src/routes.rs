//! The paths of the HTTP interface, relative to [`PREFIX`]: one table for the server's router
//! and the remote client, so that the two cannot disagree on where an operation lives.
//!
//! Path parameters are written `{name}` (axum 0.8's syntax); [`fill`] puts a value in, percent-
//! encoded, for the client. Query parameters are the serde fields of the request types named
//! next to each path (`ScreeningQuery`, `AlertQuery`, `BriefQuery`, `AuditQuery`, ...).

/// Every path below is under this prefix: `{base_url}` ends in it.
pub const PREFIX: &str = "/api/v1";

/// `POST`: screen one name and store the screening (`ScreenRequest` → `ScreeningResponse`).
pub const SCREEN: &str = "/screen";
/// `POST` (extension): screen one name without storing it, for results as you type. Uses a
/// credit like `SCREEN`.
pub const SCREEN_PREVIEW: &str = "/screen/preview";
/// `POST`: up to 500 names, JSON (`BatchRequest`) or CSV (`text/csv`).
pub const SCREEN_BATCH: &str = "/screen/batch";
/// `GET`: a stored screening with its decisions (`StoredScreening`).
pub const SCREEN_ONE: &str = "/screen/{id}";
/// `GET` (extension): stored screenings, newest first (query: `ScreeningQuery`).
pub const SCREENINGS: &str = "/screenings";
/// `GET` (extension): [`SCREEN_ONE`] where a client that lists [`SCREENINGS`] and records
/// decisions under `/screenings/{id}` looks for it.
pub const SCREENING: &str = "/screenings/{id}";
/// `POST` (extension): record a review decision (`DecisionRequest` → `DecisionResponse`).
pub const SCREENING_DECISIONS: &str = "/screenings/{id}/decisions";
/// `POST` (extension): four-eyes review, a second reviewer confirms or rejects the proposals
/// waiting on a screening (`VerdictRequest` → `VerdictResponse`).
pub const SCREENING_VERDICTS: &str = "/screenings/{id}/verdicts";
/// `GET` (extension): every screening and decision of a period (query: `AuditQuery`).
pub const AUDIT: &str = "/audit";

/// `GET` (extension): the keys of the caller's account, never a secret (`admin` scope).
pub const KEYS: &str = "/keys";

/// `GET`: the lists' metadata.
pub const LISTS: &str = "/lists";
/// `GET`: recent updates of one list (query: `limit`).
pub const LIST_UPDATES: &str = "/lists/{list}/updates";
/// `GET` (extension): one listed entry, now or as it was after an update (query: `at`).
pub const ENTITY: &str = "/entities/{id}";

/// `GET` (query: `cursor`, `limit`) and `POST` (`FavoriteRequest`, answered 201).
pub const FAVORITES: &str = "/favorites";
/// `DELETE`.
pub const FAVORITE: &str = "/favorites/{id}";
/// `POST` (extension): many names at once (`FavoriteImport` → `ImportSummary`).
pub const FAVORITES_IMPORT: &str = "/favorites/import";
/// `POST` (extension): re-screen the whole watchlist now (`RescreenSummary`).
pub const FAVORITES_RESCREEN: &str = "/favorites/rescreen";

/// `GET` (query: `AlertQuery`).
pub const ALERTS: &str = "/alerts";
/// `POST` (extension): acknowledge or resolve (`AlertStatusRequest` → `Alert`).
pub const ALERT_STATUS: &str = "/alerts/{id}/status";
/// `GET` (extension): one alert (`Alert`).
pub const ALERT: &str = "/alerts/{id}";
/// `POST` (extension): acknowledge or resolve several alerts with one note, in one
/// transaction (`AlertBulkRequest` → the alerts changed).
pub const ALERTS_BULK: &str = "/alerts/bulk";

/// `GET` and `POST` (`WebhookCreate`, answered 201).
pub const WEBHOOKS: &str = "/webhooks";
/// `GET` (extension), `PATCH` (`WebhookUpdate`) and `DELETE`.
pub const WEBHOOK: &str = "/webhooks/{id}";
/// `POST`: send a signed `webhook.test` event now (`WebhookTestResult`).
pub const WEBHOOK_TEST: &str = "/webhooks/{id}/test";
/// `GET` (extension): the delivery log, newest first (query: `limit`).
pub const WEBHOOK_DELIVERIES: &str = "/webhooks/{id}/deliveries";

/// `GET` (query: `BriefQuery`).
pub const BRIEFS: &str = "/briefs";
/// `GET`.
pub const BRIEF: &str = "/briefs/{id}";
/// `POST` (extension): brief new list updates and read the feeds now (`RefreshReport`).
pub const BRIEFS_REFRESH: &str = "/briefs/refresh";

/// `GET`, without a key: the OpenAPI 3.1 document.
pub const OPENAPI: &str = "/openapi.json";

/// `template` with its one `{…}` parameter replaced by `value`, percent-encoded so that an id
/// holding `/`, `?` or spaces stays one path segment.
pub fn fill(template: &str, value: &str) -> String {
    let Some(open) = template.find('{') else {
        return template.to_owned();
    };
    let close = template[open..]
        .find('}')
        .map_or(template.len(), |i| open + i + 1);
    let mut out = String::with_capacity(template.len() + value.len());
    out.push_str(&template[..open]);
    for byte in value.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(char::from(byte))
            }
            other => out.push_str(&format!("%{other:02X}")),
        }
    }
    out.push_str(&template[close..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_puts_one_encoded_segment_in() {
        assert_eq!(fill(SCREEN_ONE, "scr_01J"), "/screen/scr_01J");
        assert_eq!(fill(WEBHOOK_TEST, "wh 1/2"), "/webhooks/wh%201%2F2/test");
        assert_eq!(fill(LISTS, "x"), "/lists");
        assert_eq!(fill(ENTITY, "ofac_sdn:123"), "/entities/ofac_sdn%3A123");
    }
}
