//! Request extractors whose refusals are envelopes naming what was wrong: a JSON body
//! ([`JsonBody`]), query parameters ([`Params`]), a path id ([`Id`]), and the CSV form of a
//! batch ([`csv_batch`]).
//!
//! JSON refusals follow the interface's split: a body that is not JSON, a missing required
//! field, an unknown field or a value of the wrong JSON type is a 400; a well-formed value
//! that is not allowed (an unknown `type`, a number out of range) is a 422. Both name the
//! field (`names[3]`, `type`).

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Path, Request};
use axum::http::header;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use super::reply::ApiError;
use crate::api::batch::{BatchName, BatchRequest};
use crate::api::screening::KindFilter;

/// A JSON request body.
#[derive(Debug)]
pub struct JsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        if let Some(kind) = content_type(req.headers())
            && !kind.eq_ignore_ascii_case("application/json")
            && !kind.to_ascii_lowercase().ends_with("+json")
        {
            return Err(ApiError::bad_request(format!(
                "expected a JSON body (Content-Type: application/json), got Content-Type {kind:?}"
            )));
        }
        let bytes = read_body(req, state).await?;
        parse_json(&bytes).map(JsonBody)
    }
}

/// The media type of a request, without parameters.
pub fn content_type(headers: &axum::http::HeaderMap) -> Option<String> {
    let value = headers.get(header::CONTENT_TYPE)?.to_str().ok()?;
    Some(value.split(';').next().unwrap_or("").trim().to_owned())
}

/// The whole body, within the body limit (413 past it).
pub async fn read_body<S: Send + Sync>(req: Request, state: &S) -> Result<Bytes, ApiError> {
    Bytes::from_request(req, state).await.map_err(|rejection| {
        ApiError::new(
            rejection.status(),
            format!("request body refused: {}", rejection.body_text()),
        )
    })
}

/// Parses a JSON body, mapping serde's error onto 400 or 422 with the field's path.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::bad_request(
            "the request body is empty: a JSON object is required",
        ));
    }
    // Every body of the interface is an object: serde would also read a struct from an
    // array (`[null, null]` as every field absent), which the document does not allow.
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return Err(ApiError::bad_request(
            "request body: expected a JSON object ({...})",
        ));
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let result: Result<T, _> = serde_path_to_error::deserialize(&mut de);
    let error = match result {
        Ok(value) => match de.end() {
            Ok(()) => return Ok(value),
            Err(e) => return Err(ApiError::bad_request(format!("malformed JSON body: {e}"))),
        },
        Err(error) => error,
    };
    let path = error.path().to_string();
    let inner = error.into_inner();
    if !inner.is_data() {
        return Err(ApiError::bad_request(format!(
            "malformed JSON body: {inner}"
        )));
    }
    let text = strip_position(&inner.to_string());
    let field = if path == "." { None } else { Some(path) };
    // Well-formed but not allowed: an enum value outside the set, a number out of range.
    if text.starts_with("unknown variant") || text.starts_with("invalid value") {
        return Err(ApiError::invalid(field.as_deref().unwrap_or("body"), text));
    }
    Err(ApiError::bad_request(match field {
        Some(field) if text.starts_with("missing field") => format!("{field}: {text}"),
        Some(field) => format!("field `{field}`: {text}"),
        None => format!("request body: {text}"),
    }))
}

/// serde_json's messages end in "at line 1 column 12"; the field path says more.
fn strip_position(text: &str) -> String {
    match text.rfind(" at line ") {
        Some(i) => text[..i].to_owned(),
        None => text.to_owned(),
    }
}

/// Query parameters, refused in the envelope naming the parameter, with the split of JSON
/// bodies: a value of the wrong form (`limit=abc`, `since=yesterday`) is a 400, a value
/// outside the allowed set (`status=bogus`) a 422.
#[derive(Debug)]
pub struct Params<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for Params<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        parse_query(parts.uri.query().unwrap_or("")).map(Params)
    }
}

/// Reads a query string into `T`, naming the parameter a refusal is about.
pub fn parse_query<T: DeserializeOwned>(query: &str) -> Result<T, ApiError> {
    let de = serde_urlencoded::Deserializer::new(form_urlencoded::parse(query.as_bytes()));
    let error = match serde_path_to_error::deserialize::<_, T>(de) {
        Ok(value) => return Ok(value),
        Err(error) => error,
    };
    let path = error.path().to_string();
    let text = strip_position(&error.into_inner().to_string());
    let subject = if path == "." {
        "query string".to_owned()
    } else {
        format!("query parameter `{path}`")
    };
    if text.starts_with("unknown variant") || text.starts_with("invalid value") {
        return Err(ApiError::invalid(&subject, text));
    }
    Err(ApiError::bad_request(format!("{subject}: {text}")))
}

/// The one `{…}` parameter of a path.
#[derive(Debug)]
pub struct Id(pub String);

impl<S: Send + Sync> FromRequestParts<S> for Id {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        match Path::<String>::from_request_parts(parts, state).await {
            Ok(Path(id)) => Ok(Id(id)),
            Err(rejection) => Err(ApiError::bad_request(rejection.body_text())),
        }
    }
}

/// A batch sent as CSV: a `name` column and optional `type`, `date_of_birth` and `country`
/// columns, with or without a header row (without one, the first column is the name and the
/// second, if any, the type); UTF-8 with or without a byte-order mark; blank rows skipped.
pub fn csv_batch(bytes: &[u8]) -> Result<BatchRequest, ApiError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = std::str::from_utf8(bytes).map_err(|e| {
        ApiError::bad_request(format!(
            "the CSV body is not UTF-8 (byte {}): send UTF-8, with or without a BOM",
            e.valid_up_to()
        ))
    })?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let mut rows = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let record =
            record.map_err(|e| ApiError::bad_request(format!("CSV row {}: {e}", i + 1)))?;
        rows.push(record);
    }
    let header = rows.first().and_then(|first| {
        let cells: Vec<String> = first.iter().map(|c| c.to_ascii_lowercase()).collect();
        let at = |names: &[&str]| cells.iter().position(|c| names.contains(&c.as_str()));
        let name = at(&["name"])?;
        let evidence = (at(&["date_of_birth", "dob"]), at(&["country"]));
        Some((name, at(&["type"]), evidence))
    });
    let (name_col, type_col, (dob_col, country_col), skip) = match header {
        Some((name, kind, evidence)) => (name, kind, evidence, 1),
        None => (0, Some(1), (None, None), 0),
    };
    let mut names = Vec::new();
    for (i, row) in rows.iter().enumerate().skip(skip) {
        if row.iter().all(str::is_empty) {
            continue;
        }
        let name = row.get(name_col).unwrap_or("").to_owned();
        let kind = match type_col.and_then(|c| row.get(c)).unwrap_or("") {
            "" => None,
            t if t.eq_ignore_ascii_case("individual") => Some(KindFilter::Individual),
            t if t.eq_ignore_ascii_case("entity") => Some(KindFilter::Entity),
            other => {
                return Err(ApiError::invalid(
                    &format!("row {} type", i + 1),
                    format!("{other:?} is not allowed: use individual or entity"),
                ));
            }
        };
        let cell = |col: Option<usize>| {
            col.and_then(|c| row.get(c))
                .filter(|v| !v.is_empty())
                .map(str::to_owned)
        };
        names.push(BatchName::Typed {
            name,
            kind,
            date_of_birth: cell(dob_col),
            country: cell(country_col),
        });
    }
    if names.is_empty() {
        return Err(ApiError::bad_request(
            "the CSV body holds no names: send a `name` column (and optionally `type`)",
        ));
    }
    Ok(BatchRequest {
        names,
        options: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::screening::ScreenRequest;

    #[test]
    fn json_errors_split_400_and_422_and_name_the_field() {
        let e = parse_json::<ScreenRequest>(b"{}").unwrap_err();
        assert_eq!(e.status.as_u16(), 400);
        assert!(e.message.contains("`name`"), "{}", e.message);
        let e = parse_json::<ScreenRequest>(br#"{"name": 5}"#).unwrap_err();
        assert_eq!(e.status.as_u16(), 400);
        assert!(e.message.contains("name"), "{}", e.message);
        let e = parse_json::<ScreenRequest>(br#"{"name": "x", "type": "person"}"#).unwrap_err();
        assert_eq!(e.status.as_u16(), 422);
        assert!(e.message.starts_with("type:"), "{}", e.message);
        let e = parse_json::<ScreenRequest>(b"{\"name\": ").unwrap_err();
        assert_eq!(e.status.as_u16(), 400);
        let e = parse_json::<BatchRequest>(br#"{"names": ["a", 3]}"#).unwrap_err();
        assert!(e.message.contains("names[1]"), "{}", e.message);
        assert!(parse_json::<ScreenRequest>(br#"{"name": "x"}"#).is_ok());
    }

    /// Every request body refuses a field it does not know, with a 400 naming it.
    #[test]
    fn unknown_fields_are_400_naming_the_field() {
        use crate::api::alerts::AlertStatusRequest;
        use crate::api::favorites::{FavoriteImport, FavoriteRequest};
        use crate::api::screenings::DecisionRequest;
        use crate::api::webhooks::{WebhookCreate, WebhookUpdate};
        fn refused<T: DeserializeOwned + std::fmt::Debug>(body: &str, field: &str) {
            let e = parse_json::<T>(body.as_bytes()).unwrap_err();
            assert_eq!(e.status.as_u16(), 400, "{body}: {}", e.message);
            assert!(
                e.message.contains(&format!("unknown field `{field}`")),
                "{body}: {}",
                e.message
            );
        }
        refused::<DecisionRequest>(
            r#"{"entity": "uk_hmt:14196", "decision": "false_positive", "note": "n"}"#,
            "entity",
        );
        refused::<ScreenRequest>(r#"{"name": "x", "threshhold": 10}"#, "threshhold");
        refused::<ScreenRequest>(r#"{"name": "x", "note": "hi"}"#, "note");
        refused::<BatchRequest>(r#"{"names": ["a"], "note": 1}"#, "note");
        refused::<BatchRequest>(
            r#"{"names": ["a", {"name": "b", "kind": "entity"}]}"#,
            "kind",
        );
        refused::<BatchRequest>(
            r#"{"names": ["a"], "options": {"name": "", "treshold": 1}}"#,
            "treshold",
        );
        refused::<FavoriteRequest>(r#"{"name": "x", "notes": "y"}"#, "notes");
        refused::<FavoriteImport>(r#"{"names": [{"name": "x", "typ": "entity"}]}"#, "typ");
        refused::<AlertStatusRequest>(r#"{"status": "resolved", "note": "n", "by": "me"}"#, "by");
        refused::<WebhookCreate>(r#"{"url": "https://x", "event": ["a"]}"#, "event");
        refused::<WebhookUpdate>(r#"{"secret": "s"}"#, "secret");
        let e =
            parse_json::<BatchRequest>(br#"{"names": ["a", {"name": "b", "x": 1}]}"#).unwrap_err();
        assert!(e.message.contains("names[1]"), "{}", e.message);
        let ok =
            parse_json::<BatchRequest>(br#"{"names": ["a", {"name": "b", "type": "entity"}]}"#)
                .unwrap();
        assert_eq!(ok.names[1].kind(), Some(KindFilter::Entity));
    }

    /// Parameter errors name the parameter, with the split of bodies (issue 26, item 3).
    #[test]
    fn query_errors_name_the_parameter() {
        use crate::api::alerts::AlertQuery;
        let e = parse_query::<AlertQuery>("status=bogus").unwrap_err();
        assert_eq!(e.status.as_u16(), 422, "{}", e.message);
        assert!(
            e.message
                .starts_with("query parameter `status`: unknown variant `bogus`"),
            "{}",
            e.message
        );
        let e = parse_query::<AlertQuery>("since=yesterday").unwrap_err();
        assert_eq!(e.status.as_u16(), 400);
        assert!(
            e.message.starts_with("query parameter `since`: "),
            "{}",
            e.message
        );
        let e = parse_query::<AlertQuery>("limit=abc").unwrap_err();
        assert_eq!(e.status.as_u16(), 400);
        assert!(
            e.message.starts_with("query parameter `limit`: "),
            "{}",
            e.message
        );
        let q =
            parse_query::<AlertQuery>("status=open&limit=5&since=2026-01-01T00:00:00Z").unwrap();
        assert_eq!(q.limit, Some(5));
        assert!(parse_query::<AlertQuery>("").is_ok());
    }

    #[test]
    fn csv_with_and_without_header_and_bom() {
        let b =
            csv_batch("\u{FEFF}type,name\nentity,Acme\n\nindividual,\"Doe, John\"\n".as_bytes())
                .unwrap();
        assert_eq!(b.names.len(), 2);
        assert_eq!(b.names[1].name(), "Doe, John");
        assert_eq!(b.names[0].kind(), Some(KindFilter::Entity));
        let b = csv_batch(b"Acme Ltd\nJohn Doe,individual\n").unwrap();
        assert_eq!(b.names.len(), 2);
        assert_eq!(b.names[0].name(), "Acme Ltd");
        let b =
            csv_batch(b"Country,name,DOB\nRU,Vladimir Putin,1952-10-07\n,Ann Other,\n").unwrap();
        assert_eq!(b.names[0].evidence(), (Some("1952-10-07"), Some("RU")));
        assert_eq!(b.names[1].evidence(), (None, None));
        let e = csv_batch(b"name,type\nAcme,ship\n").unwrap_err();
        assert_eq!(e.status.as_u16(), 422);
        assert!(csv_batch(b"\n\n").is_err());
        assert!(csv_batch(b"\xff\xfe").is_err());
    }
}
