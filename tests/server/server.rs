//! `sanctions serve` over the real lists: every endpoint's statuses and envelopes, keys,
//! plans, rate limits, credits and a restart, against the real binary on 127.0.0.1.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::Duration;

use common::serve::{Answer, Serve, call, config, data, json_body, new_key, rate_headers};
use sanctions::remote::{RemoteConfig, RemoteService};
use sanctions_api::screening::ScreenRequest;
use sanctions_service::Service;
use serde_json::json;

/// A request body of a table row: `(content type, bytes)`.
type Body = Option<(&'static str, Vec<u8>)>;

/// One row of a table: method, path under `/api/v1`, body, the status expected, and a word
/// a refusal's message must hold (the field it names; "" for none).
type Row = (&'static str, String, Body, u16, &'static str);

/// Rows written `METHOD PATH, BODY => STATUS "WORD";` (one line each, out of rustfmt's way).
macro_rules! rows {
    ($($method:literal $path:expr, $body:expr => $status:literal $names:literal;)*) => {
        vec![$(($method, String::from($path), $body, $status, $names)),*]
    };
}

/// Sends every row with `key` and checks its status and envelope (and, for a refusal, that
/// its message names the field); every answer of a routed path carries the rate-limit
/// headers. A failure names its row. Returns the answers, in order.
async fn table(server: &Serve, key: &str, rows: Vec<Row>) -> Vec<Answer> {
    let mut answers = Vec::with_capacity(rows.len());
    for (i, (method, path, body, status, names)) in rows.into_iter().enumerate() {
        let row = format!("row {i}: {method} {path}");
        let answer = call(method, &server.url(&path), Some(key), body).await;
        assert_eq!(answer.status, status, "{row}: {:?}", answer.body);
        if status < 400 {
            answer.data();
        } else {
            let message = answer.message();
            assert!(
                message.contains(names),
                "{row}: {message:?} names no {names:?}"
            );
        }
        // Unknown paths and methods are answered before the key is looked at.
        if !path.starts_with("/nowhere") && status != 405 {
            rate_headers(&answer);
        }
        answers.push(answer);
    }
    answers
}

fn json(value: serde_json::Value) -> Body {
    json_body(value)
}

fn raw(kind: &'static str, bytes: &[u8]) -> Body {
    Some((kind, bytes.to_vec()))
}

#[tokio::test(flavor = "multi_thread")]
async fn every_endpoint_answers_its_statuses_in_envelopes() {
    let data = data();
    // Webhook targets on loopback (no internet here); a server refuses them by default.
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), "[webhooks]\nallow_private_targets = true\n");
    let server = Serve::start(data, Some(&cfg)).await;
    let key = new_key(data, "business", "analyst");
    let k = Some(key.as_str());

    let health = call("GET", &format!("{}/healthz", server.base), None, None).await;
    assert_eq!(health.status, 200);

    // Screening: 200 with the spec's fields, rate-limit headers, stored with the key's label.
    let screened = call(
        "POST",
        &server.url("/screen"),
        k,
        json_body(json!({"name": "Vladimir Putin", "type": "individual"})),
    )
    .await;
    assert_eq!(screened.status, 200, "{:?}", screened.body);
    rate_headers(&screened);
    let data_ = screened.data();
    assert_eq!(data_["query"], "Vladimir Putin");
    assert!(data_["total_matches"].as_u64().unwrap() >= 1);
    let first = &data_["results"][0];
    // The spec's match fields, with `list` the display name (and `list_code` beside it).
    for field in ["name", "list", "list_code", "score", "type", "country"] {
        assert!(!first[field].is_null(), "{field} in {first}");
    }
    assert!(first.get("list_name").is_none(), "{first}");
    assert_ne!(first["list"], first["list_code"], "{first}");
    let id = data_["id"].as_str().unwrap().to_owned();
    let entity_id = first["entity_id"].as_str().unwrap().replace(':', "%3A");
    let stored = call("GET", &server.url(&format!("/screen/{id}")), k, None).await;
    assert_eq!(stored.status, 200);
    rate_headers(&stored);
    assert!(
        stored.data()["created_by"]
            .as_str()
            .unwrap()
            .starts_with("api:analyst (key_")
    );

    // 400 (malformed, missing field, wrong JSON type) against 422 (a value not allowed), and
    // the review, list and entry extensions.
    let too_many: Vec<String> = (0..501).map(|i| format!("Name {i}")).collect();
    let decision = json!({"decision": "escalated", "note": "check the date of birth"});
    let answers = table(
        &server,
        &key,
        rows![
            "GET" "/screen/scr_nope", None => 404 "scr_nope";
            "POST" "/screen/preview", json(json!({"name": "Kim Jong Un"})) => 200 "";
            "POST" "/screen", json(json!({})) => 400 "name";
            "POST" "/screen", json(json!({"name": 5})) => 400 "name";
            "POST" "/screen", json(json!({"name": "x", "type": "person"})) => 422 "type";
            "POST" "/screen", json(json!({"name": ""})) => 422 "name";
            "POST" "/screen", json(json!({"name": "x".repeat(5000)})) => 422 "name";
            "POST" "/screen", json(json!({"name": "x".repeat(1_100_000)})) => 413 "";
            "POST" "/screen", raw("application/json", b"{\"name\": ") => 400 "";
            "POST" "/screen/batch", json(json!({"names": too_many})) => 422 "names";
            "POST" "/screen/batch", raw("text/csv", b"name,type\nAcme,ship\n") => 422 "type";
            "GET" "/screenings?limit=5", None => 200 "";
            "GET" "/screenings?limit=abc", None => 400 "limit";
            "POST" format!("/screenings/{id}/decisions"), json(decision) => 200 "";
            "GET" "/audit", None => 200 "";
            "GET" "/lists/ofac_sdn/updates", None => 200 "";
            "GET" "/lists/nope/updates", None => 404 "nope";
            "GET" format!("/entities/{entity_id}"), None => 200 "";
            "GET" "/entities/ofac_sdn:0", None => 404 "";
            // Bounds: unknown query parameters, a search, a country, an entry id, a path id.
            "GET" "/screenings?limt=5", None => 400 "limt";
            "GET" "/alerts?stauts=open", None => 400 "stauts";
            "GET" "/favorites?limt=5", None => 400 "limt";
            "GET" "/briefs?qq=x", None => 400 "qq";
            "GET" format!("/briefs?q={}", "x".repeat(201)), None => 422 "q";
            "GET" "/briefs?country=Russia", None => 422 "country";
            "POST" format!("/screenings/{id}/decisions"), json(json!({"decision": "escalated", "note": "n", "entity_id": "x".repeat(201)})) => 422 "entity_id";
            "GET" format!("/webhooks/wh_{}", "x".repeat(3000)), None => 404 "…";
        ],
    )
    .await;
    assert!(!answers[11].data()["items"].as_array().unwrap().is_empty());
    assert_eq!(answers[15].data().as_array().unwrap().len(), 1);

    // Batch, JSON and CSV.
    let batch = call(
        "POST",
        &server.url("/screen/batch"),
        k,
        json_body(json!({"names": ["Vladimir Putin", "Jane Nobody Smith"]})),
    )
    .await;
    assert_eq!(batch.status, 200, "{:?}", batch.body);
    assert_eq!(batch.data()["total"], 2);
    assert_eq!(batch.data()["results"][0]["name"], "Vladimir Putin");
    assert!(batch.data()["results"][0]["matches"].as_u64().unwrap() >= 1);
    let csv = "\u{FEFF}name,type\nVladimir Putin,individual\n\"Bank Rossiya\",entity\n";
    let batch = call(
        "POST",
        &server.url("/screen/batch"),
        k,
        Some(("text/csv", csv.as_bytes().to_vec())),
    )
    .await;
    assert_eq!(batch.status, 200, "{:?}", batch.body);
    assert_eq!(batch.data()["total"], 2);
    assert_eq!(batch.data()["results"][1]["name"], "Bank Rossiya");
    let batch_shape = batch.body.clone();

    // Lists: the spec's `code`, `name` and `count`.
    let lists = call("GET", &server.url("/lists"), k, None).await;
    assert_eq!(lists.status, 200);
    let lists = lists.data().as_array().unwrap().clone();
    assert_eq!(lists.len(), 8);
    assert!(lists.iter().all(|l| l["code"].is_string()
        && l["name"].is_string()
        && l["count"].as_u64().unwrap() > 0));
    assert_eq!(
        (&lists[0]["code"], &lists[0]["name"]),
        (&json!("ofac_sdn"), &json!("OFAC SDN"))
    );

    // Favorites (201 on creation) and alerts.
    let bank = json!({"name": "Bank Rossiya", "type": "entity"});
    let added = call("POST", &server.url("/favorites"), k, json(bank.clone())).await;
    assert_eq!(added.status, 201, "{:?}", added.body);
    let fav = added.data()["id"].as_str().unwrap().to_owned();
    let import = json!({"names": [{"name": "Acme Trading"}, {"name": "John Q Example"}]});
    let seen = json!({"status": "acknowledged", "note": "seen"});
    let answers = table(
        &server,
        &key,
        rows![
            "POST" "/favorites", json(bank) => 422 "already on the watchlist";
            "GET" "/favorites", None => 200 "";
            "DELETE" format!("/favorites/{fav}"), None => 200 "";
            "DELETE" format!("/favorites/{fav}"), None => 404 "";
            "POST" "/favorites/import", json(import) => 200 "";
            "POST" "/favorites/rescreen", None => 200 "";
            "GET" "/alerts", None => 200 "";
            "POST" "/alerts/alr_nope/status", json(seen) => 404 "";
        ],
    )
    .await;
    assert_eq!(answers[4].data()["added"], 2);

    // Webhooks: 201 on creation, 422 for a bad URL or event kind, 400 for a missing field.
    let hook = call(
        "POST",
        &server.url("/webhooks"),
        k,
        json_body(json!({"url": "http://127.0.0.1:9/sanctions", "events": ["list.updated"]})),
    )
    .await;
    assert_eq!(hook.status, 201, "{:?}", hook.body);
    let hook_id = hook.data()["id"].as_str().unwrap().to_owned();
    assert!(hook.data()["secret"].is_string());
    let hook = format!("/webhooks/{hook_id}");
    let events = |url: &str, events: &[&str]| json(json!({"url": url, "events": events}));
    let answers = table(
        &server,
        &key,
        rows![
            "POST" "/webhooks", events("ftp://x", &["list.updated"]) => 422 "url";
            "POST" "/webhooks", events("http://127.0.0.1:9/x", &["nope"]) => 422 "events";
            "POST" "/webhooks", json(json!({"url": "http://127.0.0.1:9/x"})) => 400 "events";
            "GET" "/webhooks", None => 200 "";
            "GET" hook.clone(), None => 200 "";
            "PATCH" hook.clone(), json(json!({"description": "ops"})) => 200 "";
            "GET" format!("{hook}/deliveries"), None => 200 "";
            "DELETE" hook.clone(), None => 200 "";
            "DELETE" hook.clone(), None => 404 "";
            "POST" "/webhooks/wh_nope/test", None => 404 "";
            // Briefs.
            "GET" "/briefs", None => 200 "";
            "GET" "/briefs/brf_nope", None => 404 "";
            // JSON 404 and 405.
            "GET" "/nowhere", None => 404 "/api/v1/nowhere";
            "GET" "/screen", None => 405 "";
        ],
    )
    .await;

    // A few shapes, ids and times redacted.
    insta::assert_json_snapshot!("error_envelope", answers[2].body);
    insta::assert_json_snapshot!("batch", batch_shape, {".data.results[].screening_id" => "[id]", ".data.results[].matches" => "[n]", ".data.results[].best_score" => "[score]"});
    insta::assert_json_snapshot!("lists", lists, {"[].count" => "[count]", "[].updated_at" => "[time]", "[].published" => "[date]", "[].update_id" => "[id]"});
    server.stop();
}

/// The values the OpenAPI document constrains (the findings of a schemathesis run): what it
/// allows is taken, what it does not is refused naming the field.
#[tokio::test(flavor = "multi_thread")]
async fn request_values_are_taken_exactly_as_documented() {
    let data = data();
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), "[webhooks]\nallow_private_targets = true\n");
    let server = Serve::start(data, Some(&cfg)).await;
    let key = new_key(data, "business", "documented");
    let k = Some(key.as_str());
    let screen = |extra: serde_json::Value| {
        let mut body = json!({"name": "Vladimir Putin"});
        body.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        json(body)
    };
    // A screening that matched nothing, a webhook and an alert id that reads as one.
    let nothing = call(
        "POST",
        &server.url("/screen"),
        k,
        screen(json!({"name": "Qzxv Wqpt"})),
    )
    .await;
    let nothing = nothing.data()["id"].as_str().unwrap().to_owned();
    let hook = call(
        "POST",
        &server.url("/webhooks"),
        k,
        json(json!({"url": "http://127.0.0.1:9/x", "events": ["list.updated"]})),
    )
    .await;
    let hook = format!("/webhooks/{}", hook.data()["id"].as_str().unwrap());
    let blank = json!({"status": "acknowledged", "note": "  "});
    let no_match = json!({"decision": "false_positive", "note": "not them"});
    let now = "2026-01-01T00:00:00Z";
    table(&server, &key, rows![
        // JSON Schema's integers: a whole float is one, a fraction is a wrong type.
        "POST" "/screen", screen(json!({"threshold": 80.0, "limit": 5.0})) => 200 "";
        "POST" "/screen/preview", screen(json!({"limit": 187.0})) => 200 "";
        "POST" "/screen", screen(json!({"threshold": 80.5})) => 400 "threshold";
        "POST" "/screen", screen(json!({"threshold": 187.0})) => 422 "threshold";
        "POST" "/screen", screen(json!({"threshold": null, "limit": null, "lists": null})) => 200 "";
        // One form of date of birth and country on the wire.
        "POST" "/screen", screen(json!({"date_of_birth": "1952-10-07", "country": "RU"})) => 200 "";
        "POST" "/screen", screen(json!({"date_of_birth": "1952-10"})) => 200 "";
        "POST" "/screen", screen(json!({"date_of_birth": "07.10.1952"})) => 422 "date_of_birth";
        "POST" "/screen", screen(json!({"date_of_birth": "7509"})) => 422 "date_of_birth";
        "POST" "/screen", screen(json!({"date_of_birth": "1952-02-30"})) => 422 "date_of_birth";
        "POST" "/screen", screen(json!({"date_of_birth": ""})) => 422 "date_of_birth";
        "POST" "/screen", screen(json!({"country": "Russia"})) => 422 "country";
        "POST" "/screen", screen(json!({"country": "ZZ"})) => 422 "country";
        "POST" "/screen/preview", screen(json!({"country": "ru"})) => 422 "country";
        "POST" "/screen/batch", json(json!({"names": ["A B"], "options": {"name": "", "country": "Iran"}})) => 422 "country";
        // A body is an object, not an array read as a struct.
        "POST" "/screen", raw("application/json", b"[\"Vladimir Putin\"]") => 400 "JSON object";
        "PATCH" hook.clone(), raw("application/json", b"[null, null]") => 400 "JSON object";
        // PATCH: absent or null leaves a field as it is.
        "PATCH" hook.clone(), json(json!({"url": null, "events": null, "active": null})) => 200 "";
        // A brief's `since`: a day that exists, or an RFC 3339 instant.
        "GET" "/briefs?since=2026-01-31", None => 200 "";
        "GET" format!("/briefs?since={}", now.replace(':', "%3A")), None => 200 "";
        "GET" "/briefs?since=2026-02-31", None => 422 "since";
        "GET" "/briefs?since=0000-00-00", None => 422 "since";
        // Audit: equal bounds are an empty period; `until` before `since` is refused.
        "GET" format!("/audit?since={now}&until=2025-01-01T00:00:00Z"), None => 422 "until";
        // The delivery log takes the bounds of the other logs.
        "GET" format!("{hook}/deliveries?limit=0"), None => 422 "limit";
        "GET" format!("{hook}/deliveries?limit=1001"), None => 422 "limit";
        "GET" format!("{hook}/deliveries?limit=1000"), None => 200 "";
        // Refusals the schema cannot say, documented on the operation's 422.
        "POST" "/alerts/alt_01ABC/status", json(blank) => 422 "note";
        "POST" format!("/screenings/{nothing}/decisions"), json(no_match) => 422 "decision";
    ])
    .await;
    let answers = table(
        &server,
        &key,
        rows![
            "GET" format!("/audit?since={now}&until={now}"), None => 200 "";
        ],
    )
    .await;
    let screenings = answers[0].data()["screenings"].as_array().unwrap();
    assert!(screenings.is_empty());

    // The remote client sends the one form, so the CLI's and the UI's looser input works
    // against a server as it does locally.
    let config = RemoteConfig::new(server.base.clone(), Some(key.clone()));
    let remote = RemoteService::new(config).unwrap();
    let mut request = ScreenRequest::new("Vladimir Putin");
    request.date_of_birth = Some("07.10.1952".into());
    request.country = Some("Russia".into());
    let answer = remote.screen(request).await.unwrap();
    let hows: Vec<&str> = answer.result.results[0]
        .explanation
        .iter()
        .map(|t| t.how.as_str())
        .collect();
    assert!(
        hows.iter().any(|h| h.starts_with("date_of_birth agrees"))
            && hows.iter().any(|h| h.starts_with("country agrees")),
        "{hows:?}"
    );
    server.stop();
}

#[tokio::test(flavor = "multi_thread")]
async fn keys_are_required_and_a_revoked_key_is_refused_at_once() {
    let data = data();
    let server = Serve::start(data, None).await;
    let key = new_key(data, "free", "temp");
    let url = server.url("/lists");
    let bogus = format!("sk_live_{}", "A".repeat(32));
    for (auth, what) in [
        (None, "missing"),
        (Some("sk_live_short"), "malformed"),
        (Some(bogus.as_str()), "unknown"),
    ] {
        let answer = call("GET", &url, auth, None).await;
        assert_eq!(answer.status, 401, "{what}");
        assert!(
            answer
                .header("www-authenticate")
                .unwrap()
                .starts_with("Bearer"),
            "{what}"
        );
        answer.message();
    }
    assert_eq!(call("GET", &url, Some(&key), None).await.status, 200);
    let listed = common::json(&common::sanctions(data, &["keys", "list", "--json"]));
    let id = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|k| key.starts_with(k["prefix"].as_str().unwrap()) && k["label"] == "temp")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        !listed.to_string().contains(&key),
        "keys list shows a secret"
    );
    let out = common::sanctions(data, &["keys", "revoke", &id]);
    assert!(out.status.success());
    let refused = call("GET", &url, Some(&key), None).await;
    assert_eq!(refused.status, 401);
    assert!(refused.message().contains("revoked"));
    assert!(refused.header("www-authenticate").is_some());

    // Access logs (one JSON object a line) carry request ids and statuses, never a key.
    let log = std::fs::read_to_string(data.join("sanctions.log")).unwrap();
    let refused_logged = log
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .any(|event| {
            event["span"]["id"]
                .as_str()
                .is_some_and(|id| id.starts_with("req-"))
                && event["fields"]["status"] == 401
        });
    assert!(refused_logged, "{log}");
    assert!(!log.contains(&key[8..]), "a key reached the log");
}

/// Waits for a fresh minute when the current one is nearly over, so that a test of the
/// per-minute window runs inside one window.
async fn early_in_a_minute() {
    let second = jiff::Timestamp::now().as_second().rem_euclid(60);
    if second > 40 {
        tokio::time::sleep(Duration::from_secs((61 - second) as u64)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn free_keys_are_rate_limited_and_plans_refuse_what_they_lack() {
    let data = data();
    let server = Serve::start(data, None).await;
    let free = new_key(data, "free", "free-rate");
    let pro = new_key(data, "pro", "pro-plan");

    let batch = call(
        "POST",
        &server.url("/screen/batch"),
        Some(&free),
        json_body(json!({"names": ["a b"]})),
    )
    .await;
    assert_eq!(batch.status, 403);
    assert!(batch.message().contains("Pro plan"), "{}", batch.message());
    rate_headers(&batch);
    let hooks = call("GET", &server.url("/webhooks"), Some(&pro), None).await;
    assert_eq!(hooks.status, 403);
    assert!(
        hooks.message().contains("Business plan"),
        "{}",
        hooks.message()
    );

    early_in_a_minute().await;
    let key = new_key(data, "free", "free-rate-2");
    for i in 0..10 {
        let answer = call("GET", &server.url("/lists"), Some(&key), None).await;
        assert_eq!(answer.status, 200, "request {}", i + 1);
        rate_headers(&answer);
        assert_eq!(answer.header("x-ratelimit-limit").unwrap(), "10");
        assert_eq!(
            answer.header("x-ratelimit-remaining").unwrap(),
            (9 - i).to_string()
        );
    }
    let eleventh = call("GET", &server.url("/lists"), Some(&key), None).await;
    assert_eq!(eleventh.status, 429);
    rate_headers(&eleventh);
    let retry: u64 = eleventh.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry));
    let reset: i64 = eleventh
        .header("x-ratelimit-reset")
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(reset.rem_euclid(60), 0, "resets on a minute boundary");
    assert!(eleventh.message().contains("10 requests per minute"));
}

#[tokio::test(flavor = "multi_thread")]
async fn credits_are_counted_per_name_and_survive_a_restart() {
    let data = data();
    let dir = tempfile::tempdir().unwrap();
    // Request rates raised so that only the monthly credits limit.
    let cfg = config(
        dir.path(),
        "[server.plans.free]\nrequests_per_minute = 1000\n[server.plans.pro]\nrequests_per_minute = 1000\n",
    );
    let server = Serve::start(data, Some(&cfg)).await;
    let free = new_key(data, "free", "free-credits");
    let pro = new_key(data, "pro", "pro-credits");

    // Failed requests use no credit.
    for _ in 0..3 {
        let refused = call(
            "POST",
            &server.url("/screen"),
            Some(&free),
            json_body(json!({"name": ""})),
        )
        .await;
        assert_eq!(refused.status, 422);
    }
    for i in 0..10 {
        let path = if i % 2 == 0 {
            "/screen"
        } else {
            "/screen/preview"
        };
        let answer = call(
            "POST",
            &server.url(path),
            Some(&free),
            json_body(json!({"name": format!("Person Number {i}")})),
        )
        .await;
        assert_eq!(answer.status, 200, "screening {}: {:?}", i + 1, answer.body);
    }
    let eleventh = call(
        "POST",
        &server.url("/screen"),
        Some(&free),
        json_body(json!({"name": "One Too Many"})),
    )
    .await;
    assert_eq!(eleventh.status, 403);
    rate_headers(&eleventh);
    let message = eleventh.message();
    assert!(
        message.contains("reset on ") && message.contains("-01"),
        "{message}"
    );

    // A Pro batch of 20 uses 20 credits: 80 more fit in the month's 100, 81 do not.
    let names =
        |n: usize| json!({"names": (0..n).map(|i| format!("Batch Name {i}")).collect::<Vec<_>>()});
    let batch = call(
        "POST",
        &server.url("/screen/batch"),
        Some(&pro),
        json_body(names(20)),
    )
    .await;
    assert_eq!(batch.status, 200, "{:?}", batch.body);
    assert_eq!(batch.data()["total"], 20);
    let over = call(
        "POST",
        &server.url("/screen/batch"),
        Some(&pro),
        json_body(names(81)),
    )
    .await;
    assert_eq!(over.status, 403);
    assert!(over.message().contains("81 credits"), "{}", over.message());

    // A restart keeps the counters.
    server.stop();
    let server = Serve::start(data, Some(&cfg)).await;
    let still = call(
        "POST",
        &server.url("/screen"),
        Some(&free),
        json_body(json!({"name": "After Restart"})),
    )
    .await;
    assert_eq!(still.status, 403);
    let over = call(
        "POST",
        &server.url("/screen/batch"),
        Some(&pro),
        json_body(names(81)),
    )
    .await;
    assert_eq!(over.status, 403);
    let fits = call(
        "POST",
        &server.url("/screen/batch"),
        Some(&pro),
        json_body(names(80)),
    )
    .await;
    assert_eq!(fits.status, 200, "{:?}", fits.body);
    let none_left = call(
        "POST",
        &server.url("/screen/preview"),
        Some(&pro),
        json_body(json!({"name": "Last One"})),
    )
    .await;
    assert_eq!(none_left.status, 403);
    server.stop();
}

/// A key of `label` in the account `team` (business plan), made with `sanctions keys create`.
fn team_key(label: &str) -> String {
    let out = common::sanctions(
        data(),
        &[
            "keys",
            "create",
            "--account",
            "team",
            "--plan",
            "business",
            "--label",
            label,
            "--json",
        ],
    );
    common::json(&out)["key"].as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn four_eyes_a_second_key_confirms_what_the_first_proposed() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), "[review]\nfour_eyes = true\n");
    let server = Serve::start(data(), Some(&cfg)).await;
    let (first, second) = (team_key("maker"), team_key("checker"));
    let post = |key: &str, path: String, body: serde_json::Value| {
        let (url, key) = (server.url(&path), key.to_owned());
        async move { call("POST", &url, Some(&key), json_body(body)).await }
    };
    let screened = post(&first, "/screen".into(), json!({"name": "Vladimir Putin"})).await;
    let id = screened.data()["id"].as_str().unwrap().to_owned();
    let entity = screened.data()["results"][0]["entity_id"].clone();
    let proposal =
        json!({"entity_id": entity, "decision": "true_match", "note": "same date of birth"});
    let proposed = post(&first, format!("/screenings/{id}/decisions"), proposal).await;
    assert_eq!(proposed.status, 200, "{:?}", proposed.body);
    assert_eq!(proposed.data()["decision"]["to"], "proposed");
    assert_eq!(proposed.data()["decision"]["proposed"], "true_match");
    let verdicts = format!("/screenings/{id}/verdicts");
    let confirm = json!({"verdict": "confirm", "note": "agreed"});
    // The proposer's own key is refused, naming the field and why.
    let own = post(&first, verdicts.clone(), confirm.clone()).await;
    assert_eq!(own.status, 422, "{:?}", own.body);
    assert!(own.message().contains("verdict"), "{}", own.message());
    assert!(
        own.message().contains("a second, different reviewer"),
        "{}",
        own.message()
    );
    let bad = post(
        &second,
        verdicts.clone(),
        json!({"verdict": "maybe", "note": "x"}),
    )
    .await;
    assert_eq!(bad.status, 422, "{:?}", bad.body);
    assert!(bad.message().contains("verdict"), "{}", bad.message());
    let confirmed = post(&second, verdicts, confirm).await;
    assert_eq!(confirmed.status, 200, "{:?}", confirmed.body);
    assert_eq!(confirmed.data()["status"], "true_match");
    assert_eq!(confirmed.data()["decisions"][0]["entity_id"], entity);
    let stored = call(
        "GET",
        &server.url(&format!("/screen/{id}")),
        Some(&second),
        None,
    )
    .await;
    let log = stored.data()["decisions"].as_array().unwrap().clone();
    assert_eq!(log.len(), 2, "{log:?}");
    assert!(log[0]["actor"].as_str().unwrap().starts_with("api:maker"));
    assert_eq!(log[0]["note"], "same date of birth");
    assert!(log[1]["actor"].as_str().unwrap().starts_with("api:checker"));
    assert_eq!(
        (&log[1]["from"], &log[1]["to"]),
        (&json!("proposed"), &json!("true_match"))
    );
    assert_eq!(log[1]["proposal_id"], log[0]["id"]);
    for entry in &log {
        assert!(entry["at"].is_string(), "{entry}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn several_alerts_change_with_one_note_in_one_call_scoped_to_the_account() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), "");
    let server = Serve::start(data(), Some(&cfg)).await;
    let key = new_key(data(), "business", "bulk");
    let stranger = new_key(data(), "business", "stranger");
    for name in ["Vladimir Putin", "Kim Jong Un"] {
        let body = json_body(json!({"name": name}));
        assert_eq!(
            call("POST", &server.url("/screen"), Some(&key), body)
                .await
                .status,
            200
        );
    }
    let open = call("GET", &server.url("/alerts?status=open"), Some(&key), None).await;
    let ids: Vec<String> = open.data()["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_str().unwrap().to_owned())
        .collect();
    assert!(ids.len() >= 2, "{:?}", open.body);
    let bulk = |key: &str, body: serde_json::Value| {
        let (url, key) = (server.url("/alerts/bulk"), key.to_owned());
        async move { call("POST", &url, Some(&key), json_body(body)).await }
    };
    let ack = json!({"ids": ids, "status": "acknowledged", "note": "one look"});
    // Another account's key finds none of them, and changes nothing.
    assert_eq!(bulk(&stranger, ack.clone()).await.status, 404);
    let twice = json!({"ids": [ids[0], ids[0]], "status": "resolved", "note": "x"});
    let refused = bulk(&key, twice).await;
    assert_eq!(refused.status, 422, "{:?}", refused.body);
    assert!(refused.message().contains("ids"), "{}", refused.message());
    let done = bulk(&key, ack).await;
    assert_eq!(done.status, 200, "{:?}", done.body);
    let changed = done.data().as_array().unwrap().clone();
    assert_eq!(changed.len(), ids.len());
    assert!(changed.iter().all(|a| a["status"] == "acknowledged"));
    let still_open = call("GET", &server.url("/alerts?status=open"), Some(&key), None).await;
    assert_eq!(still_open.data()["items"], json!([]));
}
