//! Verified API keys kept in memory, so that a request's key is checked without a store
//! lookup on the blocking pool, while a revocation still takes effect at once.
//!
//! Entries are found by the SHA-256 of the presented secret (the store keeps the same hash;
//! a lookup's timing tells nothing about a secret, only about its hash). Before every use
//! the cache reads the store's key fingerprint ([`KeyStore::keys_fingerprint`]: the count
//! of keys and of revoked keys, one tiny read on a pooled connection); when it has changed
//! (a key created or revoked, by this process or another one on the same data folder) every
//! entry is dropped, so a revoked key answers 401 on the very next request. Only valid keys
//! are kept, at most [`MAX_KEYS`]; unknown, malformed and revoked ones always go to the store.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::model::ApiKey;
use crate::service::{KeyStore, StoreError};

/// The most keys kept; past it the cache starts again.
const MAX_KEYS: usize = 10_000;

/// The SHA-256 of a presented secret ([`super::keys::digest`]).
pub type SecretHash = [u8; 32];

#[derive(Default)]
struct Entries {
    /// The store's key fingerprint the entries were verified under.
    fingerprint: Option<(u64, u64)>,
    keys: HashMap<SecretHash, ApiKey>,
}

/// The cache of verified keys.
#[derive(Default)]
pub struct KeyCache {
    entries: Mutex<Entries>,
}

/// What a look-up found.
pub enum Lookup {
    /// A valid key, verified under the current fingerprint.
    Valid(ApiKey),
    /// Not cached: verify it against the store, then [`KeyCache::remember`] it with this
    /// fingerprint.
    Miss((u64, u64)),
}

impl KeyCache {
    /// The cached key of `hash`, after checking the store's fingerprint (entries are dropped
    /// when it changed).
    pub fn lookup(&self, store: &dyn KeyStore, hash: &SecretHash) -> Result<Lookup, StoreError> {
        let fingerprint = store.keys_fingerprint()?;
        let mut entries = self.lock();
        if entries.fingerprint != Some(fingerprint) {
            entries.keys.clear();
            entries.fingerprint = Some(fingerprint);
        }
        Ok(match entries.keys.get(hash) {
            Some(key) => Lookup::Valid(key.clone()),
            None => Lookup::Miss(fingerprint),
        })
    }

    /// Keeps `key`, verified against the store after [`KeyCache::lookup`] read
    /// `fingerprint`, unless the keys have changed since (the verification may predate a
    /// revocation).
    pub fn remember(&self, fingerprint: (u64, u64), hash: SecretHash, key: ApiKey) {
        let mut entries = self.lock();
        if entries.fingerprint != Some(fingerprint) || key.revoked_at.is_some() {
            return;
        }
        if entries.keys.len() >= MAX_KEYS {
            entries.keys.clear();
        }
        entries.keys.insert(hash, key);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Account, Plan};
    use crate::service::keys;

    #[test]
    fn a_cached_key_is_dropped_when_any_key_is_revoked_or_created() {
        let dir = tempfile::tempdir().unwrap();
        let repo = sanctions_store::SqliteRepository::open(&dir.path().join("k.db")).unwrap();
        let account = Account {
            id: crate::service::DEFAULT_ACCOUNT.to_owned(),
            name: "default".to_owned(),
            plan: Plan::Free,
            created_at: jiff::Timestamp::now(),
        };
        let (secret, new) = keys::generate(&account, None, vec![]).unwrap();
        repo.create_key(&new).unwrap();
        let cache = KeyCache::default();
        let hash = keys::digest(&secret);

        let Lookup::Miss(fingerprint) = cache.lookup(&repo, &hash).unwrap() else {
            panic!("an empty cache found a key");
        };
        let key = keys::verify(&repo, &secret).unwrap().unwrap();
        cache.remember(fingerprint, hash, key.clone());
        assert!(matches!(cache.lookup(&repo, &hash).unwrap(), Lookup::Valid(k) if k.id == key.id));

        // Another key created: the fingerprint changes, the entry is verified again.
        let (_, other) = keys::generate(&account, None, vec![]).unwrap();
        repo.create_key(&other).unwrap();
        let Lookup::Miss(fingerprint) = cache.lookup(&repo, &hash).unwrap() else {
            panic!("a key survived a change of the key table");
        };
        cache.remember(fingerprint, hash, key.clone());
        assert!(matches!(
            cache.lookup(&repo, &hash).unwrap(),
            Lookup::Valid(_)
        ));

        // Revoked (here through the store, as `sanctions keys revoke` does from another
        // process): the next look-up misses, and the store says revoked.
        repo.revoke_key(&key.id).unwrap();
        assert!(matches!(
            cache.lookup(&repo, &hash).unwrap(),
            Lookup::Miss(_)
        ));
        assert_eq!(
            keys::verify(&repo, &secret).unwrap(),
            Err(keys::Refusal::Revoked)
        );

        // A verification that predates a change is not kept.
        cache.remember(fingerprint, hash, key);
        assert!(matches!(
            cache.lookup(&repo, &hash).unwrap(),
            Lookup::Miss(_)
        ));
    }
}
