//! The OpenAPI document of `sanctions serve`: served without a key, it parses, documents every
//! path constant of `crates/sanctions-api/src/routes.rs`, and every documented operation exists on the real
//! server (answers 401 without a key, not 404/405) and has security and its statuses; every
//! success documents its `data`, and real answers fit the documented schemas.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::serve::{Serve, call, config, data, json_body, new_key};
use serde_json::{Value, json};

/// The path constants of `crates/sanctions-api/src/routes.rs` (all but `PREFIX` and `OPENAPI`), from its source.
fn route_constants() -> Vec<String> {
    let source = include_str!("../../crates/sanctions-api/src/routes.rs");
    source
        .lines()
        .filter_map(|l| l.strip_prefix("pub const "))
        .filter(|l| !l.starts_with("PREFIX") && !l.starts_with("OPENAPI"))
        .map(|l| l.split('"').nth(1).unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_document_covers_every_route_with_security_and_statuses() {
    // A server is ready once its index is built: over the shared lists, like tests/server/server.rs.
    let data = data();
    let server = Serve::start(data, None).await;
    let answer = call("GET", &server.url("/openapi.json"), None, None).await;
    assert_eq!(answer.status, 200, "{:?}", answer.body);
    let doc: Value = answer.body.clone();
    assert!(
        doc["openapi"].as_str().unwrap().starts_with("3.1"),
        "{}",
        doc["openapi"]
    );
    let scheme = &doc["components"]["securitySchemes"]["bearer"];
    assert_eq!(
        (&scheme["type"], &scheme["scheme"], &scheme["bearerFormat"]),
        (&json!("http"), &json!("bearer"), &json!("sk_live_..."))
    );
    // Accounts and scopes are described there (tests/server/isolation.rs checks the words).
    assert!(
        scheme["description"]
            .as_str()
            .unwrap()
            .starts_with("A key made by `sanctions keys create --account NAME")
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

/// `#/components/schemas/NAME` of `doc`, or the schema itself.
fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema["$ref"].as_str() {
        Some(r) => {
            let name = r.strip_prefix("#/components/schemas/").unwrap();
            let target = &doc["components"]["schemas"][name];
            assert!(!target.is_null(), "{r} is not in components");
            resolve(doc, target)
        }
        None => schema,
    }
}

/// Why `value` does not fit `schema` (a JSON Schema of the document), if it does not: types,
/// enums, required and declared properties, closed objects, items, allOf/oneOf/anyOf and
/// numeric bounds, with `$ref`s into `components`.
fn misfit(doc: &Value, schema: &Value, value: &Value, at: &str) -> Option<String> {
    let schema = resolve(doc, schema);
    if let Some(all) = schema["allOf"].as_array() {
        for s in all {
            if let Some(why) = misfit(doc, s, value, at) {
                return Some(why);
            }
        }
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(any) = schema[key].as_array() {
            let fits = any
                .iter()
                .filter(|s| misfit(doc, s, value, at).is_none())
                .count();
            if fits == 0 || (key == "oneOf" && fits > 1) {
                return Some(format!("{at}: {fits} branches of {key} fit {value}"));
            }
        }
    }
    let kind = match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    let types: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().map(|t| t.as_str().unwrap()).collect(),
        _ => vec![],
    };
    let type_fits = types
        .iter()
        .any(|t| *t == kind || (*t == "number" && kind == "integer"));
    if !types.is_empty() && !type_fits {
        return Some(format!("{at}: {value} is not {types:?}"));
    }
    if let Some(values) = schema["enum"].as_array()
        && !values.contains(value)
    {
        return Some(format!("{at}: {value} is not one of {values:?}"));
    }
    if let (Some(n), Some(min)) = (value.as_f64(), schema["minimum"].as_f64())
        && n < min
    {
        return Some(format!("{at}: {n} < {min}"));
    }
    if let (Some(n), Some(max)) = (value.as_f64(), schema["maximum"].as_f64())
        && n > max
    {
        return Some(format!("{at}: {n} > {max}"));
    }
    if let Value::Object(fields) = value {
        for name in schema["required"].as_array().into_iter().flatten() {
            let name = name.as_str().unwrap();
            if !fields.contains_key(name) {
                return Some(format!("{at}: required {name} is missing"));
            }
        }
        let properties = schema["properties"].as_object();
        for (name, field) in fields {
            match properties.and_then(|p| p.get(name)) {
                Some(s) => {
                    if let Some(why) = misfit(doc, s, field, &format!("{at}.{name}")) {
                        return Some(why);
                    }
                }
                None => match &schema["additionalProperties"] {
                    Value::Bool(false) => return Some(format!("{at}: {name} is not allowed")),
                    Value::Object(_) => {
                        let s = &schema["additionalProperties"];
                        if let Some(why) = misfit(doc, s, field, &format!("{at}.{name}")) {
                            return Some(why);
                        }
                    }
                    _ => {}
                },
            }
        }
    }
    if let (Value::Array(elements), Some(items)) = (value, schema.get("items")) {
        for (i, element) in elements.iter().enumerate() {
            if let Some(why) = misfit(doc, items, element, &format!("{at}[{i}]")) {
                return Some(why);
            }
        }
    }
    None
}

/// The success response's schema of `method path` (path as documented).
fn success_schema<'a>(doc: &'a Value, method: &str, path: &str) -> &'a Value {
    let responses = &doc["paths"][path][method]["responses"];
    let ok = if responses["201"].is_object() {
        &responses["201"]
    } else {
        &responses["200"]
    };
    let schema = &ok["content"]["application/json"]["schema"];
    assert!(schema.is_object(), "no success schema for {method} {path}");
    schema
}

#[test]
fn every_success_documents_its_data() {
    let doc = serde_json::to_value(sanctions::server::openapi::document()).unwrap();
    let mut count = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            let envelope = resolve(&doc, success_schema(&doc, method, path));
            assert_eq!(
                envelope["required"],
                serde_json::json!(["success", "data"]),
                "{method} {path}"
            );
            let data = resolve(&doc, &envelope["properties"]["data"]);
            let described = ["properties", "items", "allOf", "oneOf"]
                .iter()
                .any(|k| data.get(*k).is_some_and(|v| v != &serde_json::json!({})));
            assert!(described, "{method} {path}: data is {data}");
            // Every property of `data` (and of its items) is itself described.
            let fields = data["properties"]
                .as_object()
                .or_else(|| resolve(&doc, &data["items"])["properties"].as_object());
            for (name, field) in fields.into_iter().flatten() {
                assert_ne!(field, &serde_json::json!({}), "{method} {path}: {name}");
            }
            count += 1;
        }
    }
    assert_eq!(count, sanctions::server::openapi::operations().len());
    // Every reference resolves.
    let text = doc.to_string();
    for piece in text.split("\"$ref\":\"").skip(1) {
        let target = json!({"$ref": piece.split('"').next().unwrap()});
        resolve(&doc, &target);
    }
    // The checker itself refuses what does not fit.
    let screen = success_schema(&doc, "post", "/api/v1/screen");
    let wrong = serde_json::json!({"success": true, "data": {"id": "scr_x"}});
    assert!(misfit(&doc, screen, &wrong, "").is_some());
    let wrong = serde_json::json!({"success": true, "data": [1]});
    assert!(
        misfit(
            &doc,
            success_schema(&doc, "get", "/api/v1/lists"),
            &wrong,
            ""
        )
        .is_some()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn real_answers_fit_the_documented_schemas() {
    let data = data();
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), "[webhooks]\nallow_private_targets = true\n");
    let server = Serve::start(data, Some(&cfg)).await;
    let key = new_key(data, "business", "openapi");
    let k = Some(key.as_str());
    let doc = call("GET", &server.url("/openapi.json"), None, None)
        .await
        .body;

    let check = |method: &str, path: &str, answer: &common::serve::Answer| {
        assert!(
            answer.status == 200 || answer.status == 201,
            "{method} {path}: {} {:?}",
            answer.status,
            answer.body
        );
        let schema = success_schema(&doc, method, path);
        if let Some(why) = misfit(&doc, schema, &answer.body, "") {
            panic!("{method} {path}: {why}");
        }
    };
    let screened = call(
        "POST",
        &server.url("/screen"),
        k,
        json_body(json!({"name": "Vladimir Putin", "type": "individual"})),
    )
    .await;
    check("post", "/api/v1/screen", &screened);
    assert!(screened.data()["total_matches"].as_u64().unwrap() > 0);
    let id = screened.data()["id"].as_str().unwrap().to_owned();
    let entity = screened.data()["results"][0]["entity_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let answer = call("GET", &server.url(&format!("/screen/{id}")), k, None).await;
    check("get", "/api/v1/screen/{id}", &answer);
    // The same stored screening beside the list and the decisions.
    let beside = call("GET", &server.url(&format!("/screenings/{id}")), k, None).await;
    check("get", "/api/v1/screenings/{id}", &beside);
    assert_eq!(beside.data(), answer.data());
    let answer = call("GET", &server.url("/screenings?limit=5"), k, None).await;
    check("get", "/api/v1/screenings", &answer);
    assert!(!answer.data()["items"].as_array().unwrap().is_empty());
    let answer = call("GET", &server.url("/lists"), k, None).await;
    check("get", "/api/v1/lists", &answer);
    let answer = call("GET", &server.url("/lists/un/updates"), k, None).await;
    check("get", "/api/v1/lists/{list}/updates", &answer);
    let path = sanctions_api::routes::fill(sanctions_api::routes::ENTITY, &entity);
    let answer = call("GET", &server.url(&path), k, None).await;
    check("get", "/api/v1/entities/{id}", &answer);
    let answer = call(
        "POST",
        &server.url("/favorites"),
        k,
        json_body(json!({"name": "Kim Jong Un", "type": "individual"})),
    )
    .await;
    check("post", "/api/v1/favorites", &answer);
    let added = answer.data()["id"].as_str().unwrap().to_owned();
    let answer = call("GET", &server.url("/favorites"), k, None).await;
    check("get", "/api/v1/favorites", &answer);
    let one = call("GET", &server.url(&format!("/favorites/{added}")), k, None).await;
    check("get", "/api/v1/favorites/{id}", &one);
    assert_eq!(one.data()["id"], added.as_str());
    let answer = call("GET", &server.url("/alerts"), k, None).await;
    check("get", "/api/v1/alerts", &answer);
    let alert = answer.data()["items"][0]["id"].as_str().unwrap().to_owned();
    let one = call("GET", &server.url(&format!("/alerts/{alert}")), k, None).await;
    check("get", "/api/v1/alerts/{id}", &one);
    assert_eq!(one.data(), &answer.data()["items"][0]);
    let answer = call(
        "POST",
        &server.url("/webhooks"),
        k,
        json_body(json!({"url": "http://127.0.0.1:9/hook", "events": ["screening.match"]})),
    )
    .await;
    check("post", "/api/v1/webhooks", &answer);
    let answer = call("GET", &server.url("/webhooks"), k, None).await;
    check("get", "/api/v1/webhooks", &answer);
    let answer = call("GET", &server.url("/audit"), k, None).await;
    check("get", "/api/v1/audit", &answer);
    server.stop();
}

/// Every schema object of `value`, with where it is.
fn schemas_in<'a>(value: &'a Value, at: String, out: &mut Vec<(String, &'a Value)>) {
    match value {
        Value::Object(fields) => {
            out.push((at.clone(), value));
            for (name, field) in fields {
                schemas_in(field, format!("{at}.{name}"), out);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                schemas_in(item, format!("{at}[{i}]"), out);
            }
        }
        _ => {}
    }
}

/// Issue 26, item 6: timestamps say `format: date-time`, a nullable enum is one schema (a
/// reference beside null, not an inline copy of its values), scores are bounded, and the
/// document states the exports' media types and the revalidation answer.
#[test]
fn the_document_states_formats_bounds_and_one_schema_per_enum() {
    let doc = serde_json::to_value(sanctions::server::openapi::document()).unwrap();
    let mut all = Vec::new();
    schemas_in(&doc, String::new(), &mut all);
    let mut timestamps = 0;
    for (at, schema) in &all {
        let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
            continue;
        };
        for (name, property) in properties {
            if name == "at" || name.ends_with("_at") {
                assert_eq!(property["format"], "date-time", "{at}.{name}");
                timestamps += 1;
            }
        }
        if let Some(values) = schema.get("enum").and_then(Value::as_array) {
            assert!(
                !values.contains(&Value::Null),
                "{at}: an inline nullable enum"
            );
        }
    }
    assert!(timestamps >= 15, "{timestamps} timestamps");
    let schemas = &doc["components"]["schemas"];
    for (schema, field) in [
        ("Match", "score"),
        ("TokenMatch", "similarity"),
        ("ScreeningSummary", "best_score"),
        ("BatchResult", "best_score"),
        ("StoredScreening", "threshold"),
    ] {
        let bounds = &schemas[schema]["properties"][field];
        assert_eq!(
            (&bounds["minimum"], &bounds["maximum"]),
            (&json!(0), &json!(100)),
            "{schema}.{field}"
        );
    }
    for (schema, field) in [("ScreenRequest", "type"), ("Favorite", "type")] {
        let one_of = schemas[schema]["properties"][field]["oneOf"]
            .as_array()
            .unwrap();
        assert_eq!(one_of.len(), 2, "{schema}.{field}");
        assert!(one_of[1]["$ref"].is_string(), "{schema}.{field}");
    }
    let audit = &doc["paths"]["/api/v1/audit"]["get"]["responses"]["200"]["content"];
    for kind in ["application/json", "application/x-ndjson", "text/csv"] {
        assert!(audit[kind].is_object(), "the export as {kind}");
    }
    for path in ["/api/v1/lists", "/api/v1/lists/{list}/updates"] {
        let responses = &doc["paths"][path]["get"]["responses"];
        assert!(responses["304"].is_object(), "{path}");
        assert!(responses["200"]["headers"]["ETag"].is_object(), "{path}");
    }
}
