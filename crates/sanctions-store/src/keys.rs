//! Accounts, API keys and the accounts' usage counters (migrations 5 and 6), behind the small [`KeyStore`] trait the
//! server uses, so that the server reaches no other part of the store.
//!
//! Only the SHA-256 of a key's secret is kept. A key is found by its display prefix (an
//! index), and the caller compares the hashes of the candidates in constant time.

use rusqlite::{OptionalExtension, params};

use super::codec::{now_text, parse_ts, parse_ts_opt, ts_text};
use super::repo::SqliteRepository;
use super::{Store, StoreError};
use crate::model::{Account, ApiKey, NewApiKey, Plan, Scope};

/// What the server, `sanctions keys` and `sanctions accounts` need of the store. Methods
/// block.
pub trait KeyStore: Send + Sync {
    /// Stores a new key (its account must exist); refused when an active key of the same
    /// account has the same label.
    fn create_key(&self, key: &NewApiKey) -> Result<(), StoreError>;
    /// Every key, oldest first.
    fn api_keys(&self) -> Result<Vec<ApiKey>, StoreError>;
    /// The keys of one account (revoked ones too), oldest first.
    fn account_keys(&self, account_id: &str) -> Result<Vec<ApiKey>, StoreError>;
    /// The keys (revoked ones too) whose display prefix is `prefix`, each with its hex hash.
    fn keys_with_prefix(&self, prefix: &str) -> Result<Vec<(ApiKey, String)>, StoreError>;
    /// Revokes a key (idempotent); the key as it now stands.
    fn revoke_key(&self, id: &str) -> Result<ApiKey, StoreError>;
    /// A fingerprint of the key table that changes whenever a key is created or revoked or
    /// an account changes plan (keys are never deleted nor un-revoked): (keys, revoked keys
    /// plus plan changes). One cheap read, so a server can keep verified keys in memory
    /// and drop them as soon as this changes, a change by another process included.
    fn keys_fingerprint(&self) -> Result<(u64, u64), StoreError>;
    /// Credits `account_id` used in `month` (`YYYY-MM`).
    fn credits_used(&self, account_id: &str, month: &str) -> Result<u64, StoreError>;
    /// Takes `n` credits of `month` if the total stays within `limit` (no limit: always);
    /// `Ok(Err(used))` leaves the count unchanged and tells how many were used. One
    /// transaction, so concurrent requests cannot overspend.
    fn take_credits(
        &self,
        account_id: &str,
        month: &str,
        n: u64,
        limit: Option<u64>,
    ) -> Result<Result<u64, u64>, StoreError>;
    /// Gives back `n` credits taken for a request that then failed.
    fn return_credits(&self, account_id: &str, month: &str, n: u64) -> Result<(), StoreError>;
    /// Every account, by name.
    fn accounts(&self) -> Result<Vec<Account>, StoreError>;
    /// The account called `name`, if any.
    fn account_named(&self, name: &str) -> Result<Option<Account>, StoreError>;
    /// The account called `name`, created on `plan` (free when `None`) if there is none.
    /// An existing account keeps its plan; `plan` must then be `None` or the same.
    fn ensure_account(&self, name: &str, plan: Option<Plan>) -> Result<Account, StoreError>;
    /// Moves the account called `name` to `plan` (its keys follow at once).
    fn set_account_plan(&self, name: &str, plan: Plan) -> Result<Account, StoreError>;
    /// Counts one request of `key` in the fixed window that starts at `start` (epoch
    /// seconds) against `limit`, in a counter every process on this store shares:
    /// `Some((allowed, used in the window))`, a refused request not counted. `None`: this
    /// backend keeps no shared windows (one process per store; count in memory).
    fn hit_shared_window(
        &self,
        _key: &str,
        _start: i64,
        _limit: u64,
    ) -> Result<Option<(bool, u64)>, StoreError> {
        Ok(None)
    }
    /// Counts one use of `key` in the fixed window that starts at `start` (epoch seconds)
    /// against `limit`, in the store on every backend (the hourly limits of the expensive
    /// operations, rare enough for a write each): `(allowed, used in the window)`, a
    /// refused use not counted. Every process on this store shares the count.
    fn hit_window(&self, key: &str, start: i64, limit: u64) -> Result<(bool, u64), StoreError>;
}

const COLUMNS: &str = "k.id, k.prefix, k.label, a.plan, k.created_at, k.revoked_at, k.hash, \
    k.account_id, a.name, k.scopes";
const FROM: &str = "FROM api_keys k JOIN accounts a ON a.id = k.account_id";

type RawKey = (ApiKey, String, String, Option<String>);

fn row_key(row: &rusqlite::Row<'_>) -> rusqlite::Result<RawKey> {
    let plan: String = row.get(3)?;
    let scopes: String = row.get(9)?;
    let key = ApiKey {
        id: row.get(0)?,
        prefix: row.get(1)?,
        label: row.get(2)?,
        plan: plan.parse().unwrap_or(Plan::Free),
        created_at: jiff::Timestamp::UNIX_EPOCH,
        revoked_at: None,
        account_id: row.get(7)?,
        account: row.get(8)?,
        // An unknown word (written by a newer version) grants nothing.
        scopes: scopes
            .split(' ')
            .filter_map(|w| w.parse::<Scope>().ok())
            .collect(),
    };
    Ok((key, row.get(6)?, row.get(4)?, row.get(5)?))
}

fn finish((mut key, hash, created, revoked): RawKey) -> Result<(ApiKey, String), StoreError> {
    key.created_at = parse_ts(&created, &key.id)?;
    key.revoked_at = parse_ts_opt(revoked, &key.id)?;
    Ok((key, hash))
}

fn row_account(row: &rusqlite::Row<'_>) -> rusqlite::Result<(String, String, String, String)> {
    Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
}

fn finish_account(
    (id, name, plan, created): (String, String, String, String),
) -> Result<Account, StoreError> {
    Ok(Account {
        plan: plan.parse().unwrap_or(Plan::Free),
        created_at: parse_ts(&created, &id)?,
        id,
        name,
    })
}

const ACCOUNT_COLUMNS: &str = "id, name, plan, created_at";

impl Store {
    fn keys_where(
        &self,
        clause: &str,
        arg: Option<&str>,
    ) -> Result<Vec<(ApiKey, String)>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!("SELECT {COLUMNS} {FROM} {clause}"))?;
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

    fn credits(&self, account_id: &str, month: &str) -> Result<u64, StoreError> {
        let used: Option<i64> = self
            .conn
            .prepare_cached("SELECT used FROM account_usage WHERE account_id = ?1 AND month = ?2")?
            .query_row(params![account_id, month], |r| r.get(0))
            .optional()?;
        Ok(used.unwrap_or(0).max(0) as u64)
    }

    fn account_where(&self, clause: &str, arg: &str) -> Result<Option<Account>, StoreError> {
        let raw = self
            .conn
            .prepare_cached(&format!(
                "SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE {clause}"
            ))?
            .query_row([arg], row_account)
            .optional()?;
        raw.map(finish_account).transpose()
    }
}

/// Refuses a label an active key of the same account already has.
fn check_label(tx: &rusqlite::Transaction<'_>, key: &ApiKey) -> Result<(), StoreError> {
    let Some(label) = &key.label else {
        return Ok(());
    };
    let taken: Option<String> = tx
        .query_row(
            "SELECT id FROM api_keys WHERE account_id = ?1 AND label = ?2 AND revoked_at IS NULL",
            params![key.account_id, label],
            |r| r.get(0),
        )
        .optional()?;
    match taken {
        Some(other) => Err(StoreError::Refused(format!(
            "the label {label:?} is already used by key {other} of account {}: labels are \
             unique among an account's active keys (choose another, or revoke {other} first)",
            key.account
        ))),
        None => Ok(()),
    }
}

/// A window's counter in `service_state`: the start zero-padded first, so the windows that
/// ended before a time sort before its key.
fn window_key(key: &str, start: i64) -> String {
    format!("window:{:012}:{key}", start.max(0))
}

/// Uses counted in `key`'s window starting at `start`.
fn window_used(tx: &rusqlite::Transaction<'_>, key: &str, start: i64) -> Result<u64, StoreError> {
    let used: Option<i64> = tx
        .query_row(
            "SELECT value FROM service_state WHERE key = ?1",
            [window_key(key, start)],
            |r| r.get(0),
        )
        .optional()?;
    Ok(used.unwrap_or(0).max(0) as u64)
}

fn not_found(what: &'static str, id: &str) -> StoreError {
    StoreError::NotFound {
        what,
        id: id.to_owned(),
    }
}

impl KeyStore for SqliteRepository {
    fn create_key(&self, new: &NewApiKey) -> Result<(), StoreError> {
        let mut store = self.writer();
        let tx = store.write()?;
        check_label(&tx, &new.key)?;
        tx.execute(
            "INSERT INTO api_keys (id, prefix, hash, label, plan, created_at, revoked_at,
                                   account_id, scopes)
             SELECT ?1, ?2, ?3, ?4, plan, ?5, NULL, id, ?7 FROM accounts WHERE id = ?6",
            params![
                new.key.id,
                new.key.prefix,
                new.hash,
                new.key.label,
                ts_text(new.key.created_at),
                new.key.account_id,
                Scope::join(&new.key.scopes)
            ],
        )?;
        if tx.changes() == 0 {
            return Err(not_found("account", &new.key.account_id));
        }
        tx.commit()?;
        Ok(())
    }

    fn api_keys(&self) -> Result<Vec<ApiKey>, StoreError> {
        let keys = self.with_reader(|s| s.keys_where("ORDER BY k.created_at, k.id", None))?;
        Ok(keys.into_iter().map(|(key, _)| key).collect())
    }

    fn account_keys(&self, account_id: &str) -> Result<Vec<ApiKey>, StoreError> {
        let keys = self.with_reader(|s| {
            s.keys_where(
                "WHERE k.account_id = ?1 ORDER BY k.created_at, k.id",
                Some(account_id),
            )
        })?;
        Ok(keys.into_iter().map(|(key, _)| key).collect())
    }

    fn keys_with_prefix(&self, prefix: &str) -> Result<Vec<(ApiKey, String)>, StoreError> {
        self.with_reader(|s| s.keys_where("WHERE k.prefix = ?1", Some(prefix)))
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
            .keys_where("WHERE k.id = ?1", Some(id))?
            .into_iter()
            .next()
            .map(|(key, _)| key)
            .ok_or_else(|| not_found("API key", id))
    }

    fn keys_fingerprint(&self) -> Result<(u64, u64), StoreError> {
        self.with_reader(|s| {
            let (all, changed): (i64, i64) = s
                .conn
                .prepare_cached(
                    "SELECT count(*), count(revoked_at)
                         + (SELECT coalesce(sum(plan_changes), 0) FROM accounts)
                     FROM api_keys",
                )?
                .query_row([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            Ok((all.max(0) as u64, changed.max(0) as u64))
        })
    }

    fn credits_used(&self, account_id: &str, month: &str) -> Result<u64, StoreError> {
        self.with_reader(|s| s.credits(account_id, month))
    }

    fn take_credits(
        &self,
        account_id: &str,
        month: &str,
        n: u64,
        limit: Option<u64>,
    ) -> Result<Result<u64, u64>, StoreError> {
        let mut store = self.writer();
        let tx = store.write()?;
        let used: i64 = tx
            .query_row(
                "SELECT used FROM account_usage WHERE account_id = ?1 AND month = ?2",
                params![account_id, month],
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
            "INSERT INTO account_usage (account_id, month, used) VALUES (?1, ?2, ?3)
             ON CONFLICT (account_id, month) DO UPDATE SET used = excluded.used",
            params![account_id, month, after as i64],
        )?;
        tx.commit()?;
        Ok(Ok(after))
    }

    fn return_credits(&self, account_id: &str, month: &str, n: u64) -> Result<(), StoreError> {
        let mut store = self.writer();
        let tx = store.write()?;
        tx.execute(
            "UPDATE account_usage SET used = MAX(used - ?3, 0)
             WHERE account_id = ?1 AND month = ?2",
            params![account_id, month, n as i64],
        )?;
        tx.commit()?;
        Ok(())
    }

    fn accounts(&self) -> Result<Vec<Account>, StoreError> {
        self.with_reader(|s| {
            let mut stmt = s.conn.prepare_cached(&format!(
                "SELECT {ACCOUNT_COLUMNS} FROM accounts ORDER BY name"
            ))?;
            let raws = stmt
                .query_map([], row_account)?
                .collect::<Result<Vec<_>, _>>()?;
            raws.into_iter().map(finish_account).collect()
        })
    }

    fn account_named(&self, name: &str) -> Result<Option<Account>, StoreError> {
        self.with_reader(|s| s.account_where("name = ?1", name))
    }

    fn ensure_account(&self, name: &str, plan: Option<Plan>) -> Result<Account, StoreError> {
        let mut store = self.writer();
        if let Some(account) = store.account_where("name = ?1", name)? {
            return match plan {
                Some(plan) if plan != account.plan => Err(StoreError::Refused(format!(
                    "account {name} is on the {} plan, not {}: its keys share its plan \
                     (change it with `sanctions accounts set-plan {name} {plan}`)",
                    account.plan, plan
                ))),
                _ => Ok(account),
            };
        }
        let id = crate::new_id("acct_");
        let tx = store.write()?;
        tx.execute(
            "INSERT INTO accounts (id, name, plan, created_at) VALUES (?1, ?2, ?3, ?4)",
            params![id, name, plan.unwrap_or(Plan::Free).as_str(), now_text()],
        )?;
        tx.commit()?;
        store
            .account_where("id = ?1", &id)?
            .ok_or_else(|| not_found("account", name))
    }

    fn hit_window(&self, key: &str, start: i64, limit: u64) -> Result<(bool, u64), StoreError> {
        let mut store = self.writer();
        let tx = store.write()?;
        let used = window_used(&tx, key, start)?;
        if used >= limit {
            return Ok((false, used));
        }
        if used == 0 {
            // A window's first use clears the windows that have ended (a day back covers
            // the longest window in use).
            tx.execute(
                "DELETE FROM service_state WHERE key >= 'window:' AND key < ?1",
                [window_key("", start - 86_400)],
            )?;
        }
        tx.execute(
            "INSERT INTO service_state (key, value) VALUES (?1, ?2)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            params![window_key(key, start), (used + 1) as i64],
        )?;
        tx.commit()?;
        Ok((true, used + 1))
    }

    fn set_account_plan(&self, name: &str, plan: Plan) -> Result<Account, StoreError> {
        let mut store = self.writer();
        let tx = store.write()?;
        let n = tx.execute(
            "UPDATE accounts SET plan = ?2, plan_changes = plan_changes + 1 WHERE name = ?1",
            params![name, plan.as_str()],
        )?;
        if n == 0 {
            return Err(not_found("account", name));
        }
        tx.execute(
            "UPDATE api_keys SET plan = ?2 WHERE account_id = (SELECT id FROM accounts WHERE name = ?1)",
            params![name, plan.as_str()],
        )?;
        tx.commit()?;
        store
            .account_where("name = ?1", name)?
            .ok_or_else(|| not_found("account", name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DEFAULT_ACCOUNT;

    fn new_key(id: &str, prefix: &str, hash: &str) -> NewApiKey {
        labelled(id, prefix, hash, DEFAULT_ACCOUNT, id)
    }

    fn labelled(id: &str, prefix: &str, hash: &str, account: &str, label: &str) -> NewApiKey {
        NewApiKey {
            key: ApiKey {
                id: id.to_owned(),
                prefix: prefix.to_owned(),
                label: Some(label.to_owned()),
                plan: Plan::Pro,
                created_at: jiff::Timestamp::now(),
                revoked_at: None,
                account_id: account.to_owned(),
                account: account.to_owned(),
                scopes: Scope::defaults(Plan::Pro),
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

        let acct = DEFAULT_ACCOUNT;
        assert_eq!(
            repo.take_credits(acct, "2026-11", 8, Some(10)).unwrap(),
            Ok(8)
        );
        assert_eq!(
            repo.take_credits(acct, "2026-11", 3, Some(10)).unwrap(),
            Err(8)
        );
        assert_eq!(
            repo.take_credits(acct, "2026-11", 2, Some(10)).unwrap(),
            Ok(10)
        );
        repo.return_credits(acct, "2026-11", 2).unwrap();
        assert_eq!(repo.credits_used(acct, "2026-11").unwrap(), 8);
        assert_eq!(repo.credits_used(acct, "2026-12").unwrap(), 0);
        assert_eq!(
            repo.take_credits(acct, "2026-12", 900, None).unwrap(),
            Ok(900)
        );
    }

    #[test]
    fn accounts_hold_the_plan_and_labels_are_unique_within_one() {
        let dir = tempfile::tempdir().unwrap();
        let repo = SqliteRepository::open(&dir.path().join("k.db")).unwrap();
        let acme = repo.ensure_account("acme", Some(Plan::Business)).unwrap();
        assert_eq!(repo.ensure_account("acme", None).unwrap(), acme);
        let refused = repo.ensure_account("acme", Some(Plan::Free)).unwrap_err();
        assert!(refused.to_string().contains("set-plan"), "{refused}");
        let other = repo.ensure_account("other", None).unwrap();
        assert_eq!(other.plan, Plan::Free);

        repo.create_key(&labelled("key_1", "sk_live_a", "h1", &acme.id, "ci"))
            .unwrap();
        let twice = repo
            .create_key(&labelled("key_2", "sk_live_a", "h2", &acme.id, "ci"))
            .unwrap_err();
        assert!(
            twice
                .to_string()
                .contains("\"ci\" is already used by key key_1"),
            "{twice}"
        );
        // The same label in another account, or once the first key is revoked, is fine.
        repo.create_key(&labelled("key_3", "sk_live_a", "h3", &other.id, "ci"))
            .unwrap();
        repo.revoke_key("key_1").unwrap();
        repo.create_key(&labelled("key_4", "sk_live_a", "h4", &acme.id, "ci"))
            .unwrap();
        assert!(
            repo.create_key(&labelled("key_5", "sk_live_a", "h5", "acct_nope", "x"))
                .is_err()
        );

        // The plan is the account's: a key reads it, a plan change moves the fingerprint.
        let key = |id: &str| {
            repo.api_keys()
                .unwrap()
                .into_iter()
                .find(|k| k.id == id)
                .unwrap()
        };
        assert_eq!(key("key_4").plan, Plan::Business);
        assert_eq!(key("key_4").account, "acme");
        let before = repo.keys_fingerprint().unwrap();
        repo.set_account_plan("acme", Plan::Pro).unwrap();
        assert_ne!(repo.keys_fingerprint().unwrap(), before);
        assert_eq!(key("key_4").plan, Plan::Pro);
        assert_eq!(key("key_3").plan, Plan::Free);
        assert!(repo.set_account_plan("nobody", Plan::Pro).is_err());
        let names: Vec<String> = repo
            .accounts()
            .unwrap()
            .into_iter()
            .map(|a| a.name)
            .collect();
        assert_eq!(names, ["acme", "default", "other"]);
    }
}
