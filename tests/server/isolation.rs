//! Accounts, scopes and isolation (issue 20): a real `sanctions serve` on 127.0.0.1 over the
//! real lists, two accounts, and every endpoint that reads or changes an account's data
//! tried by the other account with the first one's ids: each answers exactly as for an id
//! that does not exist, lists show nothing of the other, and the owner then finds nothing
//! changed. Scopes: each scope's operations refused (403 naming it) without it, allowed
//! with it. Labels unique within an account; expensive operations limited per hour.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::path::Path;

use common::serve::{Answer, Serve, call, config, data, json_body};
use serde_json::{Value, json};

/// A key of `account` (created on first use) made with `sanctions keys create`.
fn account_key(data_dir: &Path, account: &str, label: &str, scopes: Option<&str>) -> String {
    let mut args = vec![
        "keys",
        "create",
        "--account",
        account,
        "--plan",
        "business",
        "--label",
        label,
        "--json",
    ];
    if let Some(scopes) = scopes {
        args.extend(["--scopes", scopes]);
    }
    let out = common::sanctions(data_dir, &args);
    common::json(&out)["key"].as_str().unwrap().to_owned()
}

/// An id of the same shape as `id` that names nothing (its last character changed).
fn ghost(id: &str) -> String {
    let (head, last) = id.split_at(id.len() - 1);
    format!("{head}{}", if last == "0" { "1" } else { "0" })
}

async fn send(server: &Serve, method: &str, path: &str, key: &str, body: Option<Value>) -> Answer {
    call(
        method,
        &server.url(path),
        Some(key),
        body.and_then(json_body),
    )
    .await
}

/// `method path` with `{}` replaced by `id`, sent by `key`, answers exactly as the same
/// request for an id of the same shape that does not exist: 404 and the same message but
/// for the id.
async fn as_if_absent(
    server: &Serve,
    key: &str,
    method: &str,
    path: &str,
    id: &str,
    body: Option<Value>,
) {
    let theirs = send(server, method, &path.replace("{}", id), key, body.clone()).await;
    let absent = ghost(id);
    let none = send(server, method, &path.replace("{}", &absent), key, body).await;
    let what = format!("{method} {path} with another account's {id}");
    assert_eq!(theirs.status, 404, "{what}: {:?}", theirs.body);
    assert_eq!(none.status, 404, "{what} (absent id): {:?}", none.body);
    assert_eq!(
        theirs.message().replace(id, "ID"),
        none.message().replace(&absent, "ID"),
        "{what}"
    );
}

fn ids(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|item| item["id"].as_str().unwrap().to_owned())
        .collect()
}

/// What account A owns after it screened, watched a name and registered a webhook.
struct Owned {
    screening: String,
    favorite: String,
    alert: String,
    webhook: String,
}

async fn make_data(server: &Serve, a: &str) -> Owned {
    let screened = send(
        server,
        "POST",
        "/screen",
        a,
        Some(json!({"name": "Vladimir Putin"})),
    )
    .await;
    assert_eq!(screened.status, 200, "{:?}", screened.body);
    assert!(screened.data()["total_matches"].as_u64().unwrap() >= 1);
    let screening = screened.data()["id"].as_str().unwrap().to_owned();
    let watched = json!({"name": "Vladimir Putin", "note": "customer 4711 confidential"});
    let favorite = send(server, "POST", "/favorites", a, Some(watched)).await;
    assert_eq!(favorite.status, 201, "{:?}", favorite.body);
    let alerts = send(server, "GET", "/alerts", a, None).await;
    let alert = alerts.data()["items"][0]["id"].as_str().unwrap().to_owned();
    let hook = json!({"url": "http://127.0.0.1:9/acme", "events": ["screening.match"]});
    let webhook = send(server, "POST", "/webhooks", a, Some(hook)).await;
    assert_eq!(webhook.status, 201, "{:?}", webhook.body);
    Owned {
        screening,
        favorite: favorite.data()["id"].as_str().unwrap().to_owned(),
        alert,
        webhook: webhook.data()["id"].as_str().unwrap().to_owned(),
    }
}

/// Every endpoint taking an id, tried by `b` with `a`'s ids.
async fn by_id(server: &Serve, b: &str, owned: &Owned) {
    let decision = json!({"decision": "false_positive", "note": "not ours"});
    let status = json!({"status": "resolved", "note": "not ours"});
    let patch = json!({"url": "http://127.0.0.1:9/rival"});
    let s = &owned.screening;
    as_if_absent(server, b, "GET", "/screen/{}", s, None).await;
    as_if_absent(server, b, "GET", "/screenings/{}", s, None).await;
    as_if_absent(
        server,
        b,
        "POST",
        "/screenings/{}/decisions",
        s,
        Some(decision),
    )
    .await;
    as_if_absent(
        server,
        b,
        "POST",
        "/alerts/{}/status",
        &owned.alert,
        Some(status),
    )
    .await;
    as_if_absent(server, b, "GET", "/favorites/{}", &owned.favorite, None).await;
    as_if_absent(server, b, "GET", "/alerts/{}", &owned.alert, None).await;
    as_if_absent(server, b, "DELETE", "/favorites/{}", &owned.favorite, None).await;
    let w = &owned.webhook;
    as_if_absent(server, b, "GET", "/webhooks/{}", w, None).await;
    as_if_absent(server, b, "PATCH", "/webhooks/{}", w, Some(patch)).await;
    as_if_absent(server, b, "GET", "/webhooks/{}/deliveries", w, None).await;
    as_if_absent(server, b, "POST", "/webhooks/{}/test", w, None).await;
    as_if_absent(server, b, "DELETE", "/webhooks/{}", w, None).await;
}

/// Every list `b` reads shows nothing of `a`'s, and `b`'s re-screen covers only its own
/// (empty) watchlist.
async fn lists(server: &Serve, b: &str, owned: &Owned) {
    let screenings = send(server, "GET", "/screenings", b, None).await;
    assert!(!ids(&screenings.data()["items"]).contains(&owned.screening));
    let favorites = send(server, "GET", "/favorites", b, None).await;
    assert_eq!(favorites.data()["total"], 0, "{:?}", favorites.body);
    assert!(!favorites.body.to_string().contains("4711"));
    let alerts = send(server, "GET", "/alerts", b, None).await;
    assert!(!ids(&alerts.data()["items"]).contains(&owned.alert));
    let hooks = send(server, "GET", "/webhooks", b, None).await;
    assert_eq!(hooks.data(), &json!([]));
    let audit = send(server, "GET", "/audit", b, None).await;
    let text = audit.data().to_string();
    for id in [&owned.screening, &owned.alert, &owned.favorite] {
        assert!(
            !text.contains(id.as_str()),
            "{id} in the other account's audit"
        );
    }
    let rescreen = send(server, "POST", "/favorites/rescreen", b, None).await;
    assert_eq!(rescreen.data()["favorites"], 0, "{:?}", rescreen.body);
    assert_eq!(rescreen.data()["alert_ids"], json!([]));
}

/// The owner finds everything as it left it.
async fn unchanged(server: &Serve, a: &str, owned: &Owned) {
    let stored = send(
        server,
        "GET",
        &format!("/screen/{}", owned.screening),
        a,
        None,
    )
    .await;
    assert_eq!(
        stored.data()["status"],
        "pending_review",
        "{:?}",
        stored.body
    );
    assert_eq!(stored.data()["decisions"], json!([]));
    let favorites = send(server, "GET", "/favorites", a, None).await;
    assert_eq!(favorites.data()["total"], 1);
    assert_eq!(
        favorites.data()["items"][0]["note"],
        "customer 4711 confidential"
    );
    let alerts = send(server, "GET", "/alerts", a, None).await;
    let alert = alerts.data()["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["id"] == owned.alert.as_str())
        .cloned()
        .unwrap();
    assert_eq!(alert["status"], "open");
    let hook = send(
        server,
        "GET",
        &format!("/webhooks/{}", owned.webhook),
        a,
        None,
    )
    .await;
    assert_eq!(hook.data()["url"], "http://127.0.0.1:9/acme");
    let audit = send(server, "GET", "/audit", a, None).await;
    assert!(audit.data().to_string().contains(owned.screening.as_str()));
}

#[tokio::test(flavor = "multi_thread")]
async fn another_accounts_ids_answer_as_ids_that_do_not_exist_and_change_nothing() {
    let data = data();
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), "[webhooks]\nallow_private_targets = true\n");
    let server = Serve::start(data, Some(&cfg)).await;
    let a = account_key(data, "acme-isolation", "owner", None);
    let b = account_key(data, "rival-isolation", "intruder", None);
    let owned = make_data(&server, &a).await;
    by_id(&server, &b, &owned).await;
    lists(&server, &b, &owned).await;
    unchanged(&server, &a, &owned).await;
    // A second key of the same account sees the account's data.
    let colleague = account_key(data, "acme-isolation", "colleague", None);
    let path = format!("/screen/{}", owned.screening);
    let stored = send(&server, "GET", &path, &colleague, None).await;
    assert_eq!(stored.status, 200, "{:?}", stored.body);
    server.stop();
}

/// One operation of each scope: method, path, body.
fn operations(scope: &str) -> Vec<(&'static str, &'static str, Option<Value>)> {
    match scope {
        "screen" => vec![
            ("POST", "/screen", Some(json!({"name": "Vladimir Putin"}))),
            ("GET", "/screenings", None),
        ],
        "review" => vec![
            ("GET", "/alerts", None),
            (
                "POST",
                "/screenings/scr_01JZZZZZZZZZZZZZZZZZZZZZZZ/decisions",
                Some(json!({"decision": "escalated", "note": "x"})),
            ),
        ],
        "watchlist" => vec![
            ("GET", "/favorites", None),
            ("POST", "/favorites/rescreen", None),
        ],
        "webhooks" => vec![("GET", "/webhooks", None)],
        "audit" => vec![("GET", "/audit", None)],
        "admin" => vec![("GET", "/keys", None)],
        _ => unreachable!(),
    }
}

const SCOPES: [&str; 6] = [
    "screen",
    "review",
    "watchlist",
    "webhooks",
    "audit",
    "admin",
];

#[tokio::test(flavor = "multi_thread")]
async fn each_scope_is_needed_for_its_operations_and_enough_for_them() {
    let data = data();
    let server = Serve::start(data, None).await;
    for scope in SCOPES {
        let others: Vec<&str> = SCOPES.iter().copied().filter(|s| *s != scope).collect();
        let without = account_key(
            data,
            "scopes",
            &format!("no-{scope}"),
            Some(&others.join(",")),
        );
        let only = account_key(data, "scopes", &format!("only-{scope}"), Some(scope));
        for (method, path, body) in operations(scope) {
            let refused = send(&server, method, path, &without, body.clone()).await;
            assert_eq!(refused.status, 403, "{method} {path} without {scope}");
            let message = refused.message();
            assert!(message.contains(&format!("`{scope}` scope")), "{message}");
            let allowed = send(&server, method, path, &only, body).await;
            assert_ne!(
                allowed.status, 403,
                "{method} {path} with {scope}: {:?}",
                allowed.body
            );
            assert!(allowed.status < 500, "{:?}", allowed.body);
        }
    }
    // The admin scope lists its own account's keys only, without secrets.
    let admin = account_key(data, "scopes", "admin-again", Some("admin"));
    let keys = send(&server, "GET", "/keys", &admin, None).await;
    let keys = keys.data().as_array().unwrap().clone();
    assert!(keys.len() >= 12, "{keys:?}");
    assert!(
        keys.iter()
            .all(|k| k["account"] == "scopes" && k.get("hash").is_none())
    );
    let other = account_key(data, "scopes-elsewhere", "admin", Some("admin"));
    let theirs = send(&server, "GET", "/keys", &other, None).await;
    assert_eq!(theirs.data().as_array().unwrap().len(), 1);
    // Reference data needs no scope; a default key has what the plan allows, admin aside.
    let none = account_key(data, "scopes", "reference-only", Some(""));
    assert_eq!(
        send(&server, "GET", "/lists", &none, None).await.status,
        200
    );
    let out = common::sanctions(data, &["keys", "create", "--account", "scopes", "--json"]);
    assert_eq!(
        common::json(&out)["scopes"],
        json!(["screen", "review", "watchlist", "webhooks", "audit"])
    );
    let free = common::sanctions(
        data,
        &["keys", "create", "--account", "free-scopes", "--json"],
    );
    assert_eq!(
        common::json(&free)["scopes"],
        json!(["screen", "review", "watchlist", "audit"])
    );
    server.stop();
}

#[tokio::test(flavor = "multi_thread")]
async fn expensive_operations_have_an_hourly_limit_per_account() {
    let data = data();
    let server = Serve::start(data, None).await;
    let key = account_key(data, "auditor", "exports", None);
    for _ in 0..6 {
        assert_eq!(send(&server, "GET", "/audit", &key, None).await.status, 200);
    }
    let refused = send(&server, "GET", "/audit", &key, None).await;
    assert_eq!(refused.status, 429, "{:?}", refused.body);
    assert!(refused.header("retry-after").is_some());
    assert!(
        refused.message().contains("audit export"),
        "{:?}",
        refused.body
    );
    // Another account is not held back by it.
    let other = account_key(data, "auditor-2", "exports", None);
    assert_eq!(
        send(&server, "GET", "/audit", &other, None).await.status,
        200
    );
    server.stop();
}

#[test]
fn labels_are_unique_within_an_account() {
    let dir = tempfile::tempdir().unwrap();
    let make = |account: &str| {
        common::sanctions(
            dir.path(),
            &[
                "keys",
                "create",
                "--account",
                account,
                "--label",
                "ci",
                "--json",
            ],
        )
    };
    let first = common::json(&make("labels"));
    let second = make("labels");
    assert!(!second.status.success());
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert!(stderr.contains("is already used by key"), "{stderr}");
    assert!(stderr.contains(first["id"].as_str().unwrap()), "{stderr}");
    // Another account may use it.
    common::json(&make("labels-2"));
    // The accounts command shows both accounts, with their plans and keys.
    let list = common::json(&common::sanctions(
        dir.path(),
        &["accounts", "list", "--json"],
    ));
    let names: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["default", "labels", "labels-2"]);
    let moved = common::sanctions(
        dir.path(),
        &["accounts", "set-plan", "labels", "pro", "--json"],
    );
    assert_eq!(common::json(&moved)["plan"], "pro");
    let shown = common::json(&common::sanctions(
        dir.path(),
        &["accounts", "show", "labels", "--json"],
    ));
    assert_eq!(shown["keys"][0]["plan"], "pro");
}

#[test]
fn the_openapi_document_describes_accounts_and_names_each_operations_scope() {
    let doc = serde_json::to_value(sanctions::server::openapi::document()).unwrap();
    let scheme = doc["components"]["securitySchemes"]["bearer"]["description"]
        .as_str()
        .unwrap();
    for word in [
        "account",
        "`review`",
        "403 naming the scope",
        "404 exactly as",
    ] {
        assert!(scheme.contains(word), "{word} in {scheme}");
    }
    let forbidden = |method: &str, path: &str| {
        doc["paths"][format!("/api/v1{path}")][method]["responses"]["403"]["description"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert!(forbidden("get", "/webhooks").contains("`webhooks` scope"));
    assert!(forbidden("post", "/screenings/{id}/decisions").contains("`review` scope"));
    assert!(forbidden("get", "/audit").contains("`audit` scope"));
    assert!(!forbidden("get", "/lists").contains("scope"));
}
