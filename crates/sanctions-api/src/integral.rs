//! Optional whole numbers of request bodies read as JSON Schema's `integer` reads them: any
//! number without a fractional part, so `187` and `187.0` are the same value (the OpenAPI
//! document says `type: integer`, and a client that writes every number as a float is right).
//!
//! A number with a fraction (`1.5`) is a wrong type (`invalid type`, a 400 on the server); a
//! whole number the field cannot hold (`-1`, `300` for a `u8`) is a value not allowed
//! (`invalid value`, a 422).

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserializer, Unexpected, Visitor};

/// For `#[serde(default, deserialize_with = "integral::option")]` on an `Option<u8>`,
/// `Option<usize>`, ... field.
pub fn option<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: TryFrom<u64>,
{
    deserializer.deserialize_option(OptionVisitor(PhantomData))
}

struct OptionVisitor<T>(PhantomData<T>);

impl<'de, T: TryFrom<u64>> Visitor<'de> for OptionVisitor<T> {
    type Value = Option<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an integer or null")
    }

    fn visit_none<E: de::Error>(self) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<T>, D::Error> {
        d.deserialize_any(Whole(PhantomData)).map(Some)
    }
}

struct Whole<T>(PhantomData<T>);

impl<T: TryFrom<u64>> Whole<T> {
    fn fit<E: de::Error>(n: u64, unexpected: Unexpected) -> Result<T, E> {
        T::try_from(n).map_err(|_| E::invalid_value(unexpected, &"a smaller integer"))
    }
}

impl<'de, T: TryFrom<u64>> Visitor<'de> for Whole<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an integer")
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<T, E> {
        Self::fit(n, Unexpected::Unsigned(n))
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<T, E> {
        match u64::try_from(n) {
            Ok(n) => Self::fit(n, Unexpected::Unsigned(n)),
            Err(_) => Err(E::invalid_value(
                Unexpected::Signed(n),
                &"an integer of 0 or more",
            )),
        }
    }

    fn visit_f64<E: de::Error>(self, x: f64) -> Result<T, E> {
        if x.fract() != 0.0 || !x.is_finite() {
            return Err(E::invalid_type(Unexpected::Float(x), &self));
        }
        if x < 0.0 || x >= u64::MAX as f64 {
            return Err(E::invalid_value(Unexpected::Float(x), &"a smaller integer"));
        }
        Self::fit(x as u64, Unexpected::Float(x))
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    struct Probe {
        #[serde(default, deserialize_with = "super::option")]
        n: Option<u8>,
    }

    fn read(json: &str) -> Result<Option<u8>, String> {
        serde_json::from_str::<Probe>(json)
            .map(|p| p.n)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn whole_floats_are_integers_and_fractions_are_not() {
        assert_eq!(read(r#"{"n": 87}"#), Ok(Some(87)));
        assert_eq!(read(r#"{"n": 87.0}"#), Ok(Some(87)));
        assert_eq!(read(r#"{"n": 8.7e1}"#), Ok(Some(87)));
        assert_eq!(read(r#"{"n": null}"#), Ok(None));
        assert_eq!(read(r#"{}"#), Ok(None));
        for (body, refusal) in [
            (r#"{"n": 1.5}"#, "invalid type"),
            (r#"{"n": "5"}"#, "invalid type"),
            (r#"{"n": 300}"#, "invalid value"),
            (r#"{"n": 300.0}"#, "invalid value"),
            (r#"{"n": -1}"#, "invalid value"),
            (r#"{"n": 1e300}"#, "invalid value"),
        ] {
            let message = read(body).unwrap_err();
            assert!(message.starts_with(refusal), "{body}: {message}");
        }
    }
}
