//! Standard Webhooks signing: `whsec_` secrets and `v1,<base64 HMAC-SHA256>` signatures of
//! `"{webhook-id}.{webhook-timestamp}.{body}"`, keyed with the secret's base64-decoded bytes.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// The prefix of a signing secret.
pub const SECRET_PREFIX: &str = "whsec_";

/// Why a secret cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignError {
    #[error("a webhook secret must start with whsec_ followed by base64")]
    BadSecret,
    #[error("the system random generator failed: {0}")]
    Random(String),
}

/// A new secret: `whsec_` + base64 of 32 random bytes.
pub fn new_secret() -> Result<String, SignError> {
    let mut key = [0u8; 32];
    getrandom::fill(&mut key).map_err(|e| SignError::Random(e.to_string()))?;
    Ok(format!("{SECRET_PREFIX}{}", STANDARD.encode(key)))
}

/// The key bytes of a `whsec_` secret.
pub fn secret_key(secret: &str) -> Result<Vec<u8>, SignError> {
    let encoded = secret
        .strip_prefix(SECRET_PREFIX)
        .ok_or(SignError::BadSecret)?;
    STANDARD.decode(encoded).map_err(|_| SignError::BadSecret)
}

/// The `webhook-signature` header value of one message.
pub fn sign(key: &[u8], id: &str, timestamp: i64, body: &[u8]) -> String {
    // HMAC accepts keys of any length, so this cannot fail.
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key)
        .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
    mac.update(id.as_bytes());
    mac.update(b".");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_specification_example() {
        // The example of the Standard Webhooks specification (and its reference libraries).
        let key = secret_key("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
        let body = br#"{"test": 2432232314}"#;
        assert_eq!(
            sign(&key, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
    }

    #[test]
    fn secrets_are_random_and_round_trip() {
        let a = new_secret().unwrap();
        let b = new_secret().unwrap();
        assert_ne!(a, b);
        assert_eq!(secret_key(&a).unwrap().len(), 32);
        assert!(secret_key("nope").is_err());
        assert!(secret_key("whsec_***").is_err());
    }
}
