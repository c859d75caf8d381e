//! API key secrets: generation (`sk_live_` + 32 base62 characters from the OS's random
//! source, about 190 bits), hashing (SHA-256; only the hash is stored) and verification
//! (candidates found by display prefix, hashes compared in constant time).

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::model::{Account, ApiKey, NewApiKey, Scope};
use crate::store::{KeyStore, StoreError};

/// Every key starts with this.
pub const KEY_PREFIX: &str = "sk_live_";
/// Random characters after the prefix.
const SECRET_LEN: usize = 32;
/// Characters of the secret kept in the display prefix (and used to find the key).
const SHOWN: usize = 6;
const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// Why a key could not be made.
#[derive(Debug, thiserror::Error)]
#[error("the system's random source failed: {0}")]
pub struct RandomError(String);

/// A new key of `account` carrying `scopes`: the secret (shown once) and what the store
/// keeps.
pub fn generate(
    account: &Account,
    label: Option<String>,
    scopes: Vec<Scope>,
) -> Result<(String, NewApiKey), RandomError> {
    let mut secret = String::from(KEY_PREFIX);
    while secret.len() < KEY_PREFIX.len() + SECRET_LEN {
        let mut bytes = [0u8; 64];
        getrandom::fill(&mut bytes).map_err(|e| RandomError(e.to_string()))?;
        // Rejection sampling: 248 = 4 * 62, so every character is equally likely.
        for b in bytes.iter().filter(|b| **b < 248) {
            if secret.len() == KEY_PREFIX.len() + SECRET_LEN {
                break;
            }
            secret.push(char::from(ALPHABET[usize::from(*b % 62)]));
        }
    }
    let key = ApiKey {
        id: crate::store::new_id("key_"),
        prefix: display_prefix(&secret).unwrap_or(KEY_PREFIX).to_owned(),
        label: label.filter(|l| !l.trim().is_empty()),
        plan: account.plan,
        created_at: jiff::Timestamp::now(),
        revoked_at: None,
        account_id: account.id.clone(),
        account: account.name.clone(),
        scopes,
    };
    let hash = hash(&secret);
    Ok((secret, NewApiKey { key, hash }))
}

/// The SHA-256 of a secret (what the store keeps, hex-encoded, and what the cache of
/// verified keys is keyed by).
pub fn digest(secret: &str) -> [u8; 32] {
    Sha256::digest(secret.as_bytes()).into()
}

/// The hex SHA-256 of a secret.
pub fn hash(secret: &str) -> String {
    hex::encode(digest(secret))
}

/// `sk_live_` and the first characters of the secret, or `None` if `secret` is not shaped
/// like a key.
pub fn display_prefix(secret: &str) -> Option<&str> {
    let rest = secret.strip_prefix(KEY_PREFIX)?;
    if rest.len() != SECRET_LEN || !rest.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return None;
    }
    secret.get(..KEY_PREFIX.len() + SHOWN)
}

/// Why a presented key is refused (401).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    Malformed,
    Unknown,
    Revoked,
}

/// The stored key `secret` belongs to, if it is valid and not revoked.
pub fn verify(keys: &dyn KeyStore, secret: &str) -> Result<Result<ApiKey, Refusal>, StoreError> {
    let Some(prefix) = display_prefix(secret) else {
        return Ok(Err(Refusal::Malformed));
    };
    let presented = hash(secret);
    let mut found = None;
    for (key, stored) in keys.keys_with_prefix(prefix)? {
        if bool::from(stored.as_bytes().ct_eq(presented.as_bytes())) {
            found = Some(key);
        }
    }
    Ok(match found {
        None => Err(Refusal::Unknown),
        Some(key) if key.revoked_at.is_some() => Err(Refusal::Revoked),
        Some(key) => Ok(key),
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::Plan;

    /// The default account, as a test's key generator wants it.
    pub(crate) fn default_account() -> Account {
        Account {
            id: crate::store::DEFAULT_ACCOUNT.to_owned(),
            name: "default".to_owned(),
            plan: Plan::Free,
            created_at: jiff::Timestamp::now(),
        }
    }

    #[test]
    fn keys_are_random_prefixed_and_verified() {
        let account = default_account();
        let (a, new_a) = generate(&account, Some("ops".into()), vec![]).unwrap();
        let (b, _) = generate(&account, None, vec![]).unwrap();
        assert_ne!(a, b);
        assert!(a.starts_with(KEY_PREFIX));
        assert_eq!(a.len(), KEY_PREFIX.len() + SECRET_LEN);
        assert_eq!(new_a.hash, hash(&a));
        assert!(a.starts_with(&new_a.key.prefix));
        assert_eq!(display_prefix("sk_live_short"), None);
        assert_eq!(display_prefix("nope"), None);

        let dir = tempfile::tempdir().unwrap();
        let repo = crate::store::SqliteRepository::open(&dir.path().join("k.db")).unwrap();
        repo.create_key(&new_a).unwrap();
        assert_eq!(verify(&repo, &a).unwrap().unwrap().id, new_a.key.id);
        assert_eq!(verify(&repo, &b).unwrap(), Err(Refusal::Unknown));
        assert_eq!(verify(&repo, "Bearer x").unwrap(), Err(Refusal::Malformed));
        repo.revoke_key(&new_a.key.id).unwrap();
        assert_eq!(verify(&repo, &a).unwrap(), Err(Refusal::Revoked));
    }
}
