//! `sanctions serve` over the real lists: every endpoint's statuses and envelopes, keys,
//! plans, rate limits, credits and a restart, against the real binary on 127.0.0.1.
#![allow(clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::serve::{Serve, call, config, data, json_body, new_key, rate_headers};
use serde_json::json;

#[tokio::test(flavor = "multi_thread")]
async fn every_endpoint_answers_its_statuses_in_envelopes() {
    let Some(data) = data() else { return };
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
    let stored = call("GET", &server.url(&format!("/screen/{id}")), k, None).await;
    assert_eq!(stored.status, 200);
    rate_headers(&stored);
    assert_eq!(stored.data()["created_by"], "api:analyst");
    let missing = call("GET", &server.url("/screen/scr_nope"), k, None).await;
    assert_eq!(missing.status, 404);
    rate_headers(&missing);
    assert!(missing.message().contains("scr_nope"));
    let preview = call(
        "POST",
        &server.url("/screen/preview"),
        k,
        json_body(json!({"name": "Kim Jong Un"})),
    )
    .await;
    assert_eq!(preview.status, 200);

    // 400 (malformed, missing field, wrong JSON type) against 422 (a value not allowed).
    for (body, status, field) in [
        (json!({}), 400, "name"),
        (json!({"name": 5}), 400, "name"),
        (json!({"name": "x", "type": "person"}), 422, "type"),
        (json!({"name": ""}), 422, "name"),
        (json!({"name": "x".repeat(5000)}), 422, "name"),
    ] {
        let answer = call("POST", &server.url("/screen"), k, json_body(body.clone())).await;
        assert_eq!(answer.status, status, "{body}: {:?}", answer.body);
        assert!(
            answer.message().contains(field),
            "{body}: {}",
            answer.message()
        );
        rate_headers(&answer);
    }
    let huge = json!({"name": "x".repeat(1_100_000)});
    let huge = call("POST", &server.url("/screen"), k, json_body(huge)).await;
    assert_eq!(huge.status, 413);
    huge.message();
    let malformed = call(
        "POST",
        &server.url("/screen"),
        k,
        Some(("application/json", b"{\"name\": ".to_vec())),
    )
    .await;
    assert_eq!(malformed.status, 400);
    let too_many: Vec<String> = (0..501).map(|i| format!("Name {i}")).collect();
    let batch = call(
        "POST",
        &server.url("/screen/batch"),
        k,
        json_body(json!({"names": too_many})),
    )
    .await;
    assert_eq!(batch.status, 422);
    assert!(batch.message().contains("names"));

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
    let csv = call(
        "POST",
        &server.url("/screen/batch"),
        k,
        Some(("text/csv", b"name,type\nAcme,ship\n".to_vec())),
    )
    .await;
    assert_eq!(csv.status, 422);

    // Review extensions.
    let listed = call("GET", &server.url("/screenings?limit=5"), k, None).await;
    assert_eq!(listed.status, 200);
    assert!(!listed.data()["items"].as_array().unwrap().is_empty());
    let bad_query = call("GET", &server.url("/screenings?limit=abc"), k, None).await;
    assert_eq!(bad_query.status, 400);
    let decided = call(
        "POST",
        &server.url(&format!("/screenings/{id}/decisions")),
        k,
        json_body(json!({"decision": "escalated", "note": "check the date of birth"})),
    )
    .await;
    assert_eq!(decided.status, 200, "{:?}", decided.body);
    let audit = call("GET", &server.url("/audit"), k, None).await;
    assert_eq!(audit.status, 200);

    // Lists and entries.
    let lists = call("GET", &server.url("/lists"), k, None).await;
    assert_eq!(lists.status, 200);
    let lists = lists.data().as_array().unwrap().clone();
    assert_eq!(lists.len(), 8);
    // The spec's `code`, `name` and `count`.
    assert!(lists.iter().all(|l| l["code"].is_string()
        && l["name"].is_string()
        && l["count"].as_u64().unwrap() > 0));
    assert_eq!(
        (&lists[0]["code"], &lists[0]["name"]),
        (&json!("ofac_sdn"), &json!("OFAC SDN"))
    );
    let updates = call("GET", &server.url("/lists/ofac_sdn/updates"), k, None).await;
    assert_eq!(updates.status, 200);
    assert_eq!(updates.data().as_array().unwrap().len(), 1);
    let unknown = call("GET", &server.url("/lists/nope/updates"), k, None).await;
    assert_eq!(unknown.status, 404);
    assert!(unknown.message().contains("nope"));
    let entity_id = first["entity_id"].as_str().unwrap();
    let entity = call(
        "GET",
        &server.url(&format!("/entities/{}", entity_id.replace(':', "%3A"))),
        k,
        None,
    )
    .await;
    assert_eq!(entity.status, 200, "{:?}", entity.body);
    let entity = call("GET", &server.url("/entities/ofac_sdn:0"), k, None).await;
    assert_eq!(entity.status, 404);

    // Favorites: 201 on creation.
    let added = call(
        "POST",
        &server.url("/favorites"),
        k,
        json_body(json!({"name": "Bank Rossiya", "type": "entity"})),
    )
    .await;
    assert_eq!(added.status, 201, "{:?}", added.body);
    let fav = added.data()["id"].as_str().unwrap().to_owned();
    let again = call(
        "POST",
        &server.url("/favorites"),
        k,
        json_body(json!({"name": "Bank Rossiya", "type": "entity"})),
    )
    .await;
    assert_eq!(again.status, 422);
    let favorites = call("GET", &server.url("/favorites"), k, None).await;
    assert_eq!(favorites.status, 200);
    let removed = call("DELETE", &server.url(&format!("/favorites/{fav}")), k, None).await;
    assert_eq!(removed.status, 200);
    let removed = call("DELETE", &server.url(&format!("/favorites/{fav}")), k, None).await;
    assert_eq!(removed.status, 404);
    let imported = call(
        "POST",
        &server.url("/favorites/import"),
        k,
        json_body(json!({"names": [{"name": "Acme Trading"}, {"name": "John Q Example"}]})),
    )
    .await;
    assert_eq!(imported.status, 200, "{:?}", imported.body);
    assert_eq!(imported.data()["added"], 2);
    let rescreen = call("POST", &server.url("/favorites/rescreen"), k, None).await;
    assert_eq!(rescreen.status, 200, "{:?}", rescreen.body);

    // Alerts.
    let alerts = call("GET", &server.url("/alerts"), k, None).await;
    assert_eq!(alerts.status, 200);
    let bad = call(
        "POST",
        &server.url("/alerts/alr_nope/status"),
        k,
        json_body(json!({"status": "acknowledged", "note": "seen"})),
    )
    .await;
    assert_eq!(bad.status, 404, "{:?}", bad.body);

    // Webhooks: 201 on creation, 422 for a bad URL or event kind.
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
    for body in [
        json!({"url": "ftp://x", "events": ["list.updated"]}),
        json!({"url": "http://127.0.0.1:9/x", "events": ["nope"]}),
    ] {
        let answer = call("POST", &server.url("/webhooks"), k, json_body(body.clone())).await;
        assert_eq!(answer.status, 422, "{body}: {:?}", answer.body);
    }
    let missing = call(
        "POST",
        &server.url("/webhooks"),
        k,
        json_body(json!({"url": "http://127.0.0.1:9/x"})),
    )
    .await;
    assert_eq!(missing.status, 400);
    assert!(missing.message().contains("events"));
    assert_eq!(
        call("GET", &server.url("/webhooks"), k, None).await.status,
        200
    );
    assert_eq!(
        call("GET", &server.url(&format!("/webhooks/{hook_id}")), k, None)
            .await
            .status,
        200
    );
    let patched = call(
        "PATCH",
        &server.url(&format!("/webhooks/{hook_id}")),
        k,
        json_body(json!({"description": "ops"})),
    )
    .await;
    assert_eq!(patched.status, 200, "{:?}", patched.body);
    assert_eq!(
        call(
            "GET",
            &server.url(&format!("/webhooks/{hook_id}/deliveries")),
            k,
            None
        )
        .await
        .status,
        200
    );
    assert_eq!(
        call(
            "DELETE",
            &server.url(&format!("/webhooks/{hook_id}")),
            k,
            None
        )
        .await
        .status,
        200
    );
    assert_eq!(
        call(
            "DELETE",
            &server.url(&format!("/webhooks/{hook_id}")),
            k,
            None
        )
        .await
        .status,
        404
    );
    assert_eq!(
        call("POST", &server.url("/webhooks/wh_nope/test"), k, None)
            .await
            .status,
        404
    );

    // Briefs.
    let briefs = call("GET", &server.url("/briefs"), k, None).await;
    assert_eq!(briefs.status, 200, "{:?}", briefs.body);
    assert_eq!(
        call("GET", &server.url("/briefs/brf_nope"), k, None)
            .await
            .status,
        404
    );

    // JSON 404 and 405.
    let nowhere = call("GET", &server.url("/nowhere"), k, None).await;
    assert_eq!(nowhere.status, 404);
    assert!(nowhere.message().contains("/api/v1/nowhere"));
    let wrong = call("GET", &server.url("/screen"), k, None).await;
    assert_eq!(wrong.status, 405);
    wrong.message();

    // A few shapes, ids and times redacted.
    insta::assert_json_snapshot!("error_envelope", missing.body);
    insta::assert_json_snapshot!("batch", batch_shape, {".data.results[].screening_id" => "[id]", ".data.results[].matches" => "[n]", ".data.results[].best_score" => "[score]"});
    insta::assert_json_snapshot!("lists", lists, {"[].count" => "[count]", "[].updated_at" => "[time]", "[].published" => "[date]", "[].update_id" => "[id]"});
    server.stop();
}

#[tokio::test(flavor = "multi_thread")]
async fn keys_are_required_and_a_revoked_key_is_refused_at_once() {
    let Some(data) = data() else { return };
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

    // Access logs carry request ids and statuses, never a key.
    let log = std::fs::read_to_string(data.join("sanctions.log")).unwrap();
    assert!(
        log.contains("id=req-") && log.contains("status=401"),
        "{log}"
    );
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
    let Some(data) = data() else { return };
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
    let Some(data) = data() else { return };
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
