//! The response envelope every endpoint answers with.

use serde::{Deserialize, Serialize};

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
