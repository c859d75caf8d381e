//! JSON batches: `["name", ...]`, `{"names": [...]}`, and in either, objects with a `name`
//! field (and optional `qid`/`id` and `type`) instead of strings.

use serde_json::Value;

use super::{BatchError, RawRow};

const SHAPE: &str = r#"["name", ...], {"names": [...]} or objects with a "name" field ({"name": ..., "qid": ..., "type": ...})"#;

pub fn rows(text: &str) -> Result<Vec<RawRow>, BatchError> {
    let value: Value = serde_json::from_str(text).map_err(|e| BatchError::Json {
        position: format!("line {}, column {}", e.line(), e.column()),
        message: format!("{e}; expected {SHAPE}"),
    })?;
    let elements = match value {
        Value::Array(elements) => elements,
        Value::Object(mut object) => match object.remove("names") {
            Some(Value::Array(elements)) => elements,
            _ => {
                return Err(BatchError::Json {
                    position: "the top-level object".to_owned(),
                    message: format!("it has no \"names\" array; expected {SHAPE}"),
                });
            }
        },
        other => {
            return Err(BatchError::Json {
                position: "the top level".to_owned(),
                message: format!("found {}; expected {SHAPE}", kind_of(&other)),
            });
        }
    };
    Ok(elements
        .into_iter()
        .enumerate()
        .map(|(i, element)| element_row(i, element))
        .collect())
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn scalar(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn element_row(i: usize, element: Value) -> RawRow {
    let position = i as u64 + 1;
    match element {
        Value::String(name) => RawRow {
            position: Some(position),
            name: Some(name),
            ..RawRow::default()
        },
        Value::Object(object) => {
            let name = object
                .get("name")
                .and_then(Value::as_str)
                .map(str::to_owned);
            let error = name
                .is_none()
                .then(|| "an object without a string \"name\" field".to_owned());
            RawRow {
                position: Some(position),
                name,
                qid: scalar(object.get("qid")).or_else(|| scalar(object.get("id"))),
                kind: scalar(object.get("type")),
                date_of_birth: scalar(object.get("dob"))
                    .or_else(|| scalar(object.get("date_of_birth"))),
                country: scalar(object.get("country")),
                error,
                ..RawRow::default()
            }
        }
        other => RawRow {
            position: Some(position),
            error: Some(format!(
                "found {}; expected a name or an object with a \"name\" field",
                kind_of(&other)
            )),
            ..RawRow::default()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_strings_objects_and_reports_elements() {
        let rows =
            rows(r#"{"names": ["A", {"name": "B", "qid": 7, "type": "entity"}, 3]}"#).unwrap();
        assert_eq!(rows[0].name.as_deref(), Some("A"));
        assert_eq!(rows[1].qid.as_deref(), Some("7"));
        assert_eq!(rows[1].kind.as_deref(), Some("entity"));
        assert!(rows[2].error.as_deref().unwrap().contains("a number"));
        let err = super::rows("[\"A\",\n  oops]").unwrap_err().to_string();
        assert!(err.contains("line 2"), "{err}");
        assert!(err.contains("\"names\""), "{err}");
    }
}
