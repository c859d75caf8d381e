//! One delivery attempt (body, signature headers, the HTTP call) and what its result means
//! for the delivery (retry when, give up, disable the endpoint).

use std::time::{Duration, Instant};

use jiff::Timestamp;

use super::{safety, schedule, sign};
use crate::model::OutboxEvent;
use crate::store::{DeliveryOutcome, WebhookRecord};

/// How deliveries are made, from `[webhooks]` and the mode of the process.
#[derive(Debug, Clone)]
pub struct Settings {
    pub schedule: Vec<Duration>,
    pub timeout: Duration,
    /// Refuse private targets (server mode without `allow_private_targets`).
    pub refuse_private: bool,
    pub max_payload_bytes: usize,
    pub poll_interval: Duration,
    pub disable_after: Duration,
}

impl Settings {
    /// Settings from the configuration; `server_mode` refuses private targets unless
    /// the configuration allows them.
    pub fn new(
        config: &crate::config::WebhooksConfig,
        server_mode: bool,
    ) -> Result<Settings, String> {
        Ok(Settings {
            schedule: schedule::parse_schedule(&config.retry_schedule)
                .map_err(|e| format!("[webhooks] {e}"))?,
            timeout: Duration::from_secs(config.timeout_secs.clamp(1, 300)),
            refuse_private: server_mode && !config.allow_private_targets,
            max_payload_bytes: config.max_payload_bytes.max(1024),
            poll_interval: Duration::from_millis(config.poll_interval_ms.clamp(50, 60_000)),
            disable_after: Duration::from_secs(config.disable_after_hours.saturating_mul(3600)),
        })
    }
}

/// What one attempt gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttemptResult {
    pub status_code: Option<u16>,
    pub latency_ms: u64,
    pub error: Option<String>,
    /// The first bytes of the response body (sanitised).
    pub response: Option<String>,
    pub retry_after: Option<Duration>,
    /// Retrying cannot help (the payload is over the cap, the URL or secret is unusable):
    /// the event is given up for this endpoint at once.
    pub permanent: bool,
}

impl AttemptResult {
    pub fn delivered(&self) -> bool {
        self.status_code.is_some_and(|s| (200..300).contains(&s))
    }

    fn failed(error: String, started: Instant) -> AttemptResult {
        AttemptResult {
            status_code: None,
            latency_ms: started.elapsed().as_millis() as u64,
            error: Some(error),
            response: None,
            retry_after: None,
            permanent: false,
        }
    }

    fn permanent(error: String, started: Instant) -> AttemptResult {
        AttemptResult {
            permanent: true,
            ..AttemptResult::failed(error, started)
        }
    }
}

/// Bytes of the response body kept in the log.
const SNIPPET: usize = 512;

/// The JSON body of an event: `{type, timestamp, data}`.
pub fn body(event: &OutboxEvent) -> Vec<u8> {
    let value = serde_json::json!({
        "type": event.kind,
        "timestamp": event.created_at.to_string(),
        "data": event.payload,
    });
    serde_json::to_vec(&value).unwrap_or_default()
}

/// Sends `event` to `webhook` once, signed, without following redirects.
pub async fn send(
    settings: &Settings,
    webhook: &WebhookRecord,
    event: &OutboxEvent,
) -> AttemptResult {
    let started = Instant::now();
    let body = body(event);
    if body.len() > settings.max_payload_bytes {
        return AttemptResult::permanent(
            format!(
                "payload of {} bytes is over the {} byte cap ([webhooks] max_payload_bytes)",
                body.len(),
                settings.max_payload_bytes
            ),
            started,
        );
    }
    let url = match safety::parse_url(&webhook.url) {
        Ok(url) => url,
        Err(e) => return AttemptResult::permanent(format!("bad URL: {e}"), started),
    };
    let key = match sign::secret_key(&webhook.secret) {
        Ok(key) => key,
        Err(e) => return AttemptResult::permanent(e.to_string(), started),
    };
    let client = if settings.refuse_private {
        // Checked now (DNS may have changed since registration) and pinned: the connection
        // goes to the addresses checked, not to a second lookup's answer.
        match safety::resolve_checked(&url, false).await {
            Ok(addrs) => pinned_client(settings.timeout, url.host_str(), &addrs),
            Err(e) => return AttemptResult::failed(format!("refused: {e}"), started),
        }
    } else {
        shared_client(settings.timeout)
    };
    let client = match client {
        Ok(c) => c,
        Err(e) => return AttemptResult::failed(format!("HTTP client: {e}"), started),
    };
    let timestamp = Timestamp::now().as_second();
    let signature = sign::sign(&key, &event.event_id, timestamp, &body);
    let response = client
        .post(url)
        .header("content-type", "application/json")
        .header("webhook-id", &event.event_id)
        .header("webhook-timestamp", timestamp.to_string())
        .header("webhook-signature", signature)
        .body(body)
        .send()
        .await;
    let mut response = match response {
        Ok(r) => r,
        Err(e) => {
            let what = if e.is_timeout() {
                "timed out"
            } else {
                "request failed"
            };
            return AttemptResult::failed(format!("{what}: {}", error_chain(&e)), started);
        }
    };
    let status = response.status().as_u16();
    let retry_after = response
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| schedule::retry_after(v, Timestamp::now()));
    let mut snippet = Vec::new();
    while snippet.len() < SNIPPET {
        match response.chunk().await {
            Ok(Some(chunk)) => snippet.extend_from_slice(&chunk),
            _ => break,
        }
    }
    snippet.truncate(SNIPPET);
    let text: String = String::from_utf8_lossy(&snippet)
        .chars()
        .map(|c| if c.is_control() && c != '\n' { ' ' } else { c })
        .collect();
    AttemptResult {
        status_code: Some(status),
        latency_ms: started.elapsed().as_millis() as u64,
        error: (!(200..300).contains(&status)).then(|| match status {
            300..400 => format!("HTTP {status}: redirects are not followed"),
            _ => format!("HTTP {status}"),
        }),
        response: (!text.trim().is_empty()).then_some(text),
        retry_after,
        permanent: false,
    }
}

fn client_builder(timeout: Duration) -> reqwest::ClientBuilder {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(timeout)
        .connect_timeout(timeout)
        .user_agent(concat!("sanctions-webhooks/", env!("CARGO_PKG_VERSION")))
}

/// A client whose host resolves only to `addrs` (the addresses checked), kept for the next
/// attempts that check to the same addresses, so that they reuse its kept-alive
/// connections (at most [`PINNED`] kept, the oldest dropped first).
fn pinned_client(
    timeout: Duration,
    host: Option<&str>,
    addrs: &[std::net::SocketAddr],
) -> reqwest::Result<reqwest::Client> {
    type Key = (Duration, Option<String>, Vec<std::net::SocketAddr>);
    static CLIENTS: std::sync::Mutex<Vec<(Key, reqwest::Client)>> =
        std::sync::Mutex::new(Vec::new());
    let key: Key = (timeout, host.map(str::to_owned), addrs.to_vec());
    let mut clients = CLIENTS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, client)) = clients.iter().find(|(k, _)| *k == key) {
        return Ok(client.clone());
    }
    let mut builder = client_builder(timeout);
    if let Some(host) = host {
        builder = builder.resolve_to_addrs(host, addrs);
    }
    let client = builder.build()?;
    if clients.len() >= PINNED {
        clients.remove(0);
    }
    clients.push((key, client.clone()));
    Ok(client)
}

/// Most pinned clients kept.
const PINNED: usize = 64;

/// The process's client for `timeout`, kept with its pool of kept-alive connections.
fn shared_client(timeout: Duration) -> reqwest::Result<reqwest::Client> {
    static CLIENTS: std::sync::Mutex<Vec<(Duration, reqwest::Client)>> =
        std::sync::Mutex::new(Vec::new());
    let mut clients = CLIENTS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, client)) = clients.iter().find(|(t, _)| *t == timeout) {
        return Ok(client.clone());
    }
    let client = client_builder(timeout).build()?;
    clients.push((timeout, client.clone()));
    Ok(client)
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

/// What attempt number `attempt` (1-based) with `result` means. `last_success` is when the
/// endpoint last accepted an event (or was created).
pub fn outcome(
    settings: &Settings,
    attempt: u32,
    result: &AttemptResult,
    now: Timestamp,
    last_success: Timestamp,
) -> DeliveryOutcome {
    if result.delivered() {
        return DeliveryOutcome::Delivered;
    }
    if result.status_code == Some(410) {
        return DeliveryOutcome::Disable("the endpoint answered 410 Gone".to_owned());
    }
    if result.permanent {
        return DeliveryOutcome::Failed;
    }
    let Some(wait) = settings.schedule.get(attempt.saturating_sub(1) as usize) else {
        let failing = Duration::try_from(now.duration_since(last_success)).unwrap_or_default();
        if failing >= settings.disable_after {
            return DeliveryOutcome::Disable(format!(
                "no event accepted since {} ({} h) and the retry schedule is exhausted",
                last_success
                    .round(jiff::Unit::Second)
                    .unwrap_or(last_success),
                failing.as_secs() / 3600
            ));
        }
        return DeliveryOutcome::Failed;
    };
    let wait = schedule::jitter(*wait).max(result.retry_after.unwrap_or_default());
    let at = now
        .checked_add(jiff::SignedDuration::try_from(wait).unwrap_or_default())
        .unwrap_or(now);
    DeliveryOutcome::Retry(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> Settings {
        Settings::new(&crate::config::WebhooksConfig::default(), false).unwrap()
    }

    fn result(status: Option<u16>, retry_after: Option<u64>) -> AttemptResult {
        AttemptResult {
            status_code: status,
            latency_ms: 1,
            error: None,
            response: None,
            retry_after: retry_after.map(Duration::from_secs),
            permanent: false,
        }
    }

    #[test]
    fn outcomes_follow_the_schedule_retry_after_and_gone() {
        let s = settings();
        let now: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        assert_eq!(
            outcome(&s, 1, &result(Some(204), None), now, now),
            DeliveryOutcome::Delivered
        );
        assert!(matches!(
            outcome(&s, 1, &result(Some(410), None), now, now),
            DeliveryOutcome::Disable(_)
        ));
        // First failure: about 5 s (±10 %).
        let DeliveryOutcome::Retry(at) = outcome(&s, 1, &result(Some(500), None), now, now) else {
            panic!("no retry");
        };
        let wait = at.duration_since(now).as_secs_f64();
        assert!((4.5..=5.5).contains(&wait), "{wait}");
        // Retry-After longer than the schedule's wait wins.
        let DeliveryOutcome::Retry(at) = outcome(&s, 1, &result(Some(429), Some(120)), now, now)
        else {
            panic!("no retry");
        };
        assert!(at.duration_since(now).as_secs() >= 120);
        // After the last step: given up, and disabled once failing for days.
        assert_eq!(
            outcome(&s, 8, &result(None, None), now, now),
            DeliveryOutcome::Failed
        );
        let long_ago: Timestamp = "2025-12-20T00:00:00Z".parse().unwrap();
        assert!(matches!(
            outcome(&s, 8, &result(None, None), now, long_ago),
            DeliveryOutcome::Disable(_)
        ));
    }
}
