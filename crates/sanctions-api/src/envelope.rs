//! The response envelope every endpoint answers with.

use serde::{Deserialize, Serialize};
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};

/// `{"success": true, "data": ...}` on success, `{"success": false, "message": ...}` on failure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Envelope<T> {
    Ok {
        success: Success<true>,
        data: T,
    },
    Err {
        success: Success<false>,
        message: String,
    },
}

/// A `bool` that serialises as the constant `B` and refuses any other value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Success<const B: bool>;

impl<const B: bool> Serialize for Success<B> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bool(B)
    }
}

impl<'de, const B: bool> Deserialize<'de> for Success<B> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = bool::deserialize(d)?;
        if value == B {
            Ok(Success)
        } else {
            Err(serde::de::Error::custom(format!("expected success: {B}")))
        }
    }
}

/// The failure envelope as the OpenAPI document shows it (`Envelope::Err`): the schema
/// `Error` of every refusal.
#[derive(utoipa::ToSchema)]
#[schema(as = Error)]
#[allow(dead_code)]
pub struct Failure {
    /// Always `false`.
    pub success: bool,
    /// What was wrong, naming the field or parameter when one was.
    pub message: String,
}

/// The success envelope as the OpenAPI document shows it (`Envelope::Ok`): `data` as given
/// (the schema of the type an operation answers with).
pub fn succeeded(data: RefOr<Schema>) -> Schema {
    ObjectBuilder::new()
        .property(
            "success",
            ObjectBuilder::new()
                .schema_type(Type::Boolean)
                .enum_values(Some([true])),
        )
        .required("success")
        .property("data", data)
        .required("data")
        .into()
}

impl<T> Envelope<T> {
    /// A success envelope around `data`.
    pub fn ok(data: T) -> Self {
        Envelope::Ok {
            success: Success,
            data,
        }
    }

    /// A failure envelope with a message for the user.
    pub fn err(message: impl Into<String>) -> Self {
        Envelope::Err {
            success: Success,
            message: message.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialises_both_shapes() {
        let ok = serde_json::to_string(&Envelope::ok(1)).unwrap();
        assert_eq!(ok, r#"{"success":true,"data":1}"#);
        let err = serde_json::to_string(&Envelope::<u8>::err("no")).unwrap();
        assert_eq!(err, r#"{"success":false,"message":"no"}"#);
        let back: Envelope<u8> =
            serde_json::from_str(r#"{"success":false,"message":"x"}"#).unwrap();
        assert_eq!(back, Envelope::err("x"));
    }
}
