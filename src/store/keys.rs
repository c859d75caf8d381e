//! API keys and their usage counters (migration 5), behind the small [`KeyStore`] trait the
//! server uses, so that the server reaches no other part of the store.
//!
//! Only the SHA-256 of a key's secret is kept. A key is found by its display prefix (an
//! index), and the caller compares the hashes of the candidates in constant time.

use rusqlite::{OptionalExtension, params};

use super::codec::{now_text, parse_ts, parse_ts_opt, ts_text};
use super::repo::SqliteRepository;
use super::{Store, StoreError};
use crate::model::{ApiKey, NewApiKey, Plan};

/// What the server and `sanctions keys` need of the store. Methods block.
pub trait KeyStore: Send + Sync {
    /// Stores a new key.
    fn create_key(&self, key: &NewApiKey) -> Result<(), StoreError>;
    /// Every key, oldest first.
    fn api_keys(&self) -> Result<Vec<ApiKey>, StoreError>;
    /// The keys (revoked ones too) whose display prefix is `prefix`, each with its hex hash.
    fn keys_with_prefix(&self, prefix: &str) -> Result<Vec<(ApiKey, String)>, StoreError>;
    /// Revokes a key (idempotent); the key as it now stands.
    fn revoke_key(&self, id: &str) -> Result<ApiKey, StoreError>;
    /// A fingerprint of the key table that changes whenever a key is created or revoked
    /// (keys are never deleted nor un-revoked): (keys, revoked keys). One cheap read, so a
    /// server can keep verified keys in memory and drop them as soon as this changes, a
    /// revocation by another process included.
    fn keys_fingerprint(&self) -> Result<(u64, u64), StoreError>;
    /// Credits `key_id` used in `month` (`YYYY-MM`).
    fn credits_used(&self, key_id: &str, month: &str) -> Result<u64, StoreError>;
    /// Takes `n` credits of `month` if the total stays within `limit` (no limit: always);
    /// `Ok(Err(used))` leaves the count unchanged and tells how many were used. One
    /// transaction, so concurrent requests cannot overspend.
    fn take_credits(
        &self,
        key_id: &str,
        month: &str,
        n: u64,
        limit: Option<u64>,
    ) -> Result<Result<u64, u64>, StoreError>;
    /// Gives back `n` credits taken for a request that then failed.
    fn return_credits(&self, key_id: &str, month: &str, n: u64) -> Result<(), StoreError>;
}

const COLUMNS: &str = "id, prefix, label, plan, created_at, revoked_at, hash";

fn row_key(row: &rusqlite::Row<'_>) -> rusqlite::Result<(ApiKey, String, String, Option<String>)> {
    let plan: String = row.get(3)?;
    let key = ApiKey {
        id: row.get(0)?,
        prefix: row.get(1)?,
        label: row.get(2)?,
        plan: plan.parse().unwrap_or(Plan::Free),
        created_at: jiff::Timestamp::UNIX_EPOCH,
        revoked_at: None,
    };
    Ok((key, row.get(6)?, row.get(4)?, row.get(5)?))
}

fn finish(
    (mut key, hash, created, revoked): (ApiKey, String, String, Option<String>),
) -> Result<(ApiKey, String), StoreError> {
    key.created_at = parse_ts(&created, &key.id)?;
    key.revoked_at = parse_ts_opt(revoked, &key.id)?;
    Ok((key, hash))
}

impl Store {
    fn keys_where(
        &self,
        clause: &str,
        arg: Option<&str>,
    ) -> Result<Vec<(ApiKey, String)>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!("SELECT {COLUMNS} FROM api_keys {clause}"))?;
        let rows = match arg {
            Some(arg) => stmt
                .query_map(params![arg], row_key)?
                .collect::<Result<Vec<_>, _>>()?,
            None => stmt
                .query_map([], row_key)?
                .collect::<Result<Vec<_>, _>>()?,
        };
        rows.into_iter().map(finish).collect()
    }

    fn credits(&self, key_id: &str, month: &str) -> Result<u64, StoreError> {
        let used: Option<i64> = self
            .conn
            .prepare_cached("SELECT used FROM api_usage WHERE key_id = ?1 AND month = ?2")?
            .query_row(params![key_id, month], |r| r.get(0))
            .optional()?;
        Ok(used.unwrap_or(0).max(0) as u64)
    }
}

impl KeyStore for SqliteRepository {
    fn create_key(&self, new: &NewApiKey) -> Result<(), StoreError> {
        let mut store = self.writer();
        let tx = store.write()?;
        tx.execute(
            "INSERT INTO api_keys (id, prefix, hash, label, plan, created_at, revoked_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, NULL)",
            params![
                new.key.id,
                new.key.prefix,
                new.hash,
                new.key.label,
                new.key.plan.as_str(),
                ts_text(new.key.created_at)
            ],
        )?;
        tx.commit()?;
        Ok(())
    }

    fn api_keys(&self) -> Result<Vec<ApiKey>, StoreError> {
        let keys = self.with_reader(|s| s.keys_where("ORDER BY created_at, id", None))?;
        Ok(keys.into_iter().map(|(key, _)| key).collect())
    }

    fn keys_with_prefix(&self, prefix: &str) -> Result<Vec<(ApiKey, String)>, StoreError> {
        self.with_reader(|s| s.keys_where("WHERE prefix = ?1", Some(prefix)))
    }

    fn revoke_key(&self, id: &str) -> Result<ApiKey, StoreError> {
        let mut store = self.writer();
        let tx = store.write()?;
        tx.execute(
            "UPDATE api_keys SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL",
            params![id, now_text()],
        )?;
        tx.commit()?;
        store
            .keys_where("WHERE id = ?1", Some(id))?
            .into_iter()
            .next()
            .map(|(key, _)| key)
            .ok_or_else(|| StoreError::NotFound {
                what: "API key",
                id: id.to_owned(),
            })
    }

    fn keys_fingerprint(&self) -> Result<(u64, u64), StoreError> {
        self.with_reader(|s| {
            let (all, revoked): (i64, i64) = s
                .conn
                .prepare_cached("SELECT count(*), count(revoked_at) FROM api_keys")?
                .query_row([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            Ok((all.max(0) as u64, revoked.max(0) as u64))
        })
    }

    fn credits_used(&self, key_id: &str, month: &str) -> Result<u64, StoreError> {
        self.with_reader(|s| s.credits(key_id, month))
    }

    fn take_credits(
        &self,
        key_id: &str,
        month: &str,
        n: u64,
        limit: Option<u64>,
    ) -> Result<Result<u64, u64>, StoreError> {
        let mut store = self.writer();
        let tx = store.write()?;
        let used: i64 = tx
            .query_row(
                "SELECT used FROM api_usage WHERE key_id = ?1 AND month = ?2",
                params![key_id, month],
                |r| r.get(0),
            )
            .optional()?
            .unwrap_or(0);
        let used = used.max(0) as u64;
        let after = used.saturating_add(n);
        if limit.is_some_and(|limit| after > limit) {
            return Ok(Err(used));
        }
        tx.execute(
            "INSERT INTO api_usage (key_id, month, used) VALUES (?1, ?2, ?3)
             ON CONFLICT (key_id, month) DO UPDATE SET used = excluded.used",
            params![key_id, month, after as i64],
        )?;
        tx.commit()?;
        Ok(Ok(after))
    }

    fn return_credits(&self, key_id: &str, month: &str, n: u64) -> Result<(), StoreError> {
        let mut store = self.writer();
        let tx = store.write()?;
        tx.execute(
            "UPDATE api_usage SET used = MAX(used - ?3, 0) WHERE key_id = ?1 AND month = ?2",
            params![key_id, month, n as i64],
        )?;
        tx.commit()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new_key(id: &str, prefix: &str, hash: &str) -> NewApiKey {
        NewApiKey {
            key: ApiKey {
                id: id.to_owned(),
                prefix: prefix.to_owned(),
                label: Some("ci".to_owned()),
                plan: Plan::Pro,
                created_at: jiff::Timestamp::now(),
                revoked_at: None,
            },
            hash: hash.to_owned(),
        }
    }

    #[test]
    fn keys_are_stored_found_revoked_and_credits_are_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let repo = SqliteRepository::open(&dir.path().join("k.db")).unwrap();
        repo.create_key(&new_key("key_1", "sk_live_abc", "h1"))
            .unwrap();
        repo.create_key(&new_key("key_2", "sk_live_abc", "h2"))
            .unwrap();
        assert!(
            repo.create_key(&new_key("key_3", "sk_live_x", "h1"))
                .is_err()
        );
        assert_eq!(repo.keys_with_prefix("sk_live_abc").unwrap().len(), 2);
        assert_eq!(repo.api_keys().unwrap().len(), 2);
        assert_eq!(repo.keys_fingerprint().unwrap(), (2, 0));
        let revoked = repo.revoke_key("key_1").unwrap();
        assert!(revoked.revoked_at.is_some());
        assert_eq!(repo.keys_fingerprint().unwrap(), (2, 1));
        repo.revoke_key("key_1").unwrap();
        assert_eq!(repo.keys_fingerprint().unwrap(), (2, 1));
        assert!(repo.revoke_key("nope").is_err());

        assert_eq!(
            repo.take_credits("key_2", "2026-11", 8, Some(10)).unwrap(),
            Ok(8)
        );
        assert_eq!(
            repo.take_credits("key_2", "2026-11", 3, Some(10)).unwrap(),
            Err(8)
        );
        assert_eq!(
            repo.take_credits("key_2", "2026-11", 2, Some(10)).unwrap(),
            Ok(10)
        );
        repo.return_credits("key_2", "2026-11", 2).unwrap();
        assert_eq!(repo.credits_used("key_2", "2026-11").unwrap(), 8);
        assert_eq!(repo.credits_used("key_2", "2026-12").unwrap(), 0);
        assert_eq!(
            repo.take_credits("key_2", "2026-12", 900, None).unwrap(),
            Ok(900)
        );
    }
}
