//! The OpenAPI document of `sanctions serve`: served without a key, it parses, documents every
//! path constant of `src/api/routes.rs`, and every documented operation exists on the real
//! server (answers 401 without a key, not 404/405) and has security and its statuses.
#![allow(clippy::unwrap_used)]

mod common;

use common::serve::{Serve, call, data};
use serde_json::Value;

/// The path constants of `src/api/routes.rs` (all but `PREFIX` and `OPENAPI`), from its source.
fn route_constants() -> Vec<String> {
    let source = include_str!("../src/api/routes.rs");
    source
        .lines()
        .filter_map(|l| l.strip_prefix("pub const "))
        .filter(|l| !l.starts_with("PREFIX") && !l.starts_with("OPENAPI"))
        .map(|l| l.split('"').nth(1).unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_document_covers_every_route_with_security_and_statuses() {
    // A server is ready once its index is built: over the shared lists, like tests/server.rs.
    let Some(data) = data() else { return };
    let server = Serve::start(data, None).await;
    let answer = call("GET", &server.url("/openapi.json"), None, None).await;
    assert_eq!(answer.status, 200, "{:?}", answer.body);
    let doc: Value = answer.body.clone();
    assert!(
        doc["openapi"].as_str().unwrap().starts_with("3.1"),
        "{}",
        doc["openapi"]
    );
    assert_eq!(
        doc["components"]["securitySchemes"]["bearer"],
        serde_json::json!({"type": "http", "scheme": "bearer", "bearerFormat": "sk_live_...",
            "description": "A key made by `sanctions keys create --plan PLAN`."})
    );
    let paths = doc["paths"].as_object().unwrap();
    for constant in route_constants() {
        let full = format!("/api/v1{constant}");
        assert!(paths.contains_key(&full), "{full} is not documented");
    }

    let mut listing = Vec::new();
    for (path, item) in paths {
        for (method, op) in item.as_object().unwrap() {
            if !["get", "post", "patch", "delete", "put"].contains(&method.as_str()) {
                continue;
            }
            listing.push(format!("{} {path}", method.to_uppercase()));
            assert_eq!(
                op["security"],
                serde_json::json!([{"bearer": []}]),
                "{method} {path}"
            );
            let responses = op["responses"].as_object().unwrap();
            for status in ["401", "403", "429"] {
                assert!(
                    responses.contains_key(status),
                    "{status} of {method} {path}"
                );
            }
            assert!(
                responses.contains_key("200") || responses.contains_key("201"),
                "success of {method} {path}"
            );
            // The operation exists on the server: without a key it is refused, not unknown.
            let url = format!("{}{}", server.base, path.replace('{', "x").replace('}', ""));
            let refused = call(&method.to_uppercase(), &url, None, None).await;
            assert_eq!(refused.status, 401, "{method} {path}: {:?}", refused.body);
        }
    }
    insta::assert_snapshot!("openapi_paths", listing.join("\n"));
    server.stop();
}
