//! Accounts, API keys and monthly credits on PostgreSQL ([`KeyStore`]). Credits are taken
//! by one conditional upsert, so instances sharing the database never overspend together.

use postgres::{GenericClient, Row};

use super::connect::PostgresRepository;
use super::{big, col, count, db};
use crate::codec::{now_text, parse_ts, parse_ts_opt, ts_text};
use crate::model::{Account, ApiKey, NewApiKey, Plan, Scope};
use crate::{KeyStore, StoreError};

const COLUMNS: &str = "k.id, k.prefix, k.label, a.plan, k.created_at, k.revoked_at, k.hash, \
    k.account_id, a.name, k.scopes";
const FROM: &str = "FROM api_keys k JOIN accounts a ON a.id = k.account_id";
const ACCOUNT_COLUMNS: &str = "id, name, plan, created_at";

fn key_from(row: &Row) -> Result<(ApiKey, String), StoreError> {
    let id: String = col(row, 0)?;
    let plan: String = col(row, 3)?;
    let scopes: String = col(row, 9)?;
    let key = ApiKey {
        prefix: col(row, 1)?,
        label: col(row, 2)?,
        plan: plan.parse().unwrap_or(Plan::Free),
        created_at: parse_ts(&col::<String>(row, 4)?, &id)?,
        revoked_at: parse_ts_opt(col(row, 5)?, &id)?,
        account_id: col(row, 7)?,
        account: col(row, 8)?,
        // An unknown word (written by a newer version) grants nothing.
        scopes: scopes
            .split(' ')
            .filter_map(|w| w.parse::<Scope>().ok())
            .collect(),
        id,
    };
    Ok((key, col(row, 6)?))
}

fn keys_where(
    c: &mut impl GenericClient,
    clause: &str,
    arg: Option<&str>,
) -> Result<Vec<(ApiKey, String)>, StoreError> {
    let sql = format!("SELECT {COLUMNS} {FROM} {clause}");
    let rows = match arg {
        Some(arg) => c.query(&sql, &[&arg]),
        None => c.query(&sql, &[]),
    }
    .map_err(db)?;
    rows.iter().map(key_from).collect()
}

fn account_from(row: &Row) -> Result<Account, StoreError> {
    let id: String = col(row, 0)?;
    let plan: String = col(row, 2)?;
    Ok(Account {
        name: col(row, 1)?,
        plan: plan.parse().unwrap_or(Plan::Free),
        created_at: parse_ts(&col::<String>(row, 3)?, &id)?,
        id,
    })
}

fn account_where(
    c: &mut impl GenericClient,
    clause: &str,
    arg: &str,
) -> Result<Option<Account>, StoreError> {
    let sql = format!("SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE {clause}");
    let row = c.query_opt(&sql, &[&arg]).map_err(db)?;
    row.as_ref().map(account_from).transpose()
}

fn not_found(what: &'static str, id: &str) -> StoreError {
    StoreError::NotFound {
        what,
        id: id.to_owned(),
    }
}

/// Refuses a label an active key of the same account already has.
fn check_label(c: &mut impl GenericClient, key: &ApiKey) -> Result<(), StoreError> {
    let Some(label) = &key.label else {
        return Ok(());
    };
    let taken = c
        .query_opt(
            "SELECT id FROM api_keys WHERE account_id = $1 AND label = $2 AND revoked_at IS NULL",
            &[&key.account_id, label],
        )
        .map_err(db)?;
    match taken {
        Some(row) => {
            let other: String = col(&row, 0)?;
            Err(StoreError::Refused(format!(
                "the label {label:?} is already used by key {other} of account {}: labels are \
                 unique among an account's active keys (choose another, or revoke {other} first)",
                key.account
            )))
        }
        None => Ok(()),
    }
}

impl KeyStore for PostgresRepository {
    fn create_key(&self, new: &NewApiKey) -> Result<(), StoreError> {
        self.write(|tx| {
            check_label(tx, &new.key)?;
            let n = tx
                .execute(
                    "INSERT INTO api_keys (id, prefix, hash, label, plan, created_at, revoked_at,
                                           account_id, scopes)
                     SELECT $1, $2, $3, $4, plan, $5, NULL, id, $7 FROM accounts WHERE id = $6",
                    &[
                        &new.key.id,
                        &new.key.prefix,
                        &new.hash,
                        &new.key.label,
                        &ts_text(new.key.created_at),
                        &new.key.account_id,
                        &Scope::join(&new.key.scopes),
                    ],
                )
                .map_err(db)?;
            if n == 0 {
                return Err(not_found("account", &new.key.account_id));
            }
            Ok(())
        })
    }

    fn api_keys(&self) -> Result<Vec<ApiKey>, StoreError> {
        let keys = self.read(|c| keys_where(c, "ORDER BY k.created_at, k.id", None))?;
        Ok(keys.into_iter().map(|(key, _)| key).collect())
    }

    fn account_keys(&self, account_id: &str) -> Result<Vec<ApiKey>, StoreError> {
        let clause = "WHERE k.account_id = $1 ORDER BY k.created_at, k.id";
        let keys = self.read(|c| keys_where(c, clause, Some(account_id)))?;
        Ok(keys.into_iter().map(|(key, _)| key).collect())
    }

    fn keys_with_prefix(&self, prefix: &str) -> Result<Vec<(ApiKey, String)>, StoreError> {
        self.read(|c| keys_where(c, "WHERE k.prefix = $1", Some(prefix)))
    }

    fn revoke_key(&self, id: &str) -> Result<ApiKey, StoreError> {
        self.write(|tx| {
            tx.execute(
                "UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL",
                &[&id, &now_text()],
            )
            .map_err(db)?;
            keys_where(tx, "WHERE k.id = $1", Some(id))?
                .into_iter()
                .next()
                .map(|(key, _)| key)
                .ok_or_else(|| not_found("API key", id))
        })
    }

    fn keys_fingerprint(&self) -> Result<(u64, u64), StoreError> {
        self.read(|c| {
            let row = c
                .query_one(
                    "SELECT count(*), count(revoked_at)
                         + (SELECT coalesce(sum(plan_changes), 0)::BIGINT FROM accounts)
                     FROM api_keys",
                    &[],
                )
                .map_err(db)?;
            Ok((count(col(&row, 0)?), count(col(&row, 1)?)))
        })
    }

    fn credits_used(&self, account_id: &str, month: &str) -> Result<u64, StoreError> {
        self.read(|c| used(c, account_id, month))
    }

    fn take_credits(
        &self,
        account_id: &str,
        month: &str,
        n: u64,
        limit: Option<u64>,
    ) -> Result<Result<u64, u64>, StoreError> {
        let (n, limit) = (big(n), limit.map(big));
        self.write(|tx| {
            let taken = tx
                .query_opt(
                    "INSERT INTO account_usage (account_id, month, used)
                     SELECT $1::text, $2::text, $3::bigint WHERE $4::bigint IS NULL OR $3 <= $4
                     ON CONFLICT (account_id, month) DO UPDATE
                         SET used = account_usage.used + excluded.used
                         WHERE $4::bigint IS NULL OR account_usage.used + excluded.used <= $4
                     RETURNING used",
                    &[&account_id, &month, &n, &limit],
                )
                .map_err(db)?;
            match taken {
                Some(row) => Ok(Ok(count(col(&row, 0)?))),
                None => Ok(Err(used(tx, account_id, month)?)),
            }
        })
    }

    fn return_credits(&self, account_id: &str, month: &str, n: u64) -> Result<(), StoreError> {
        self.write(|tx| {
            tx.execute(
                "UPDATE account_usage SET used = GREATEST(used - $3, 0)
                 WHERE account_id = $1 AND month = $2",
                &[&account_id, &month, &big(n)],
            )
            .map_err(db)?;
            Ok(())
        })
    }

    fn accounts(&self) -> Result<Vec<Account>, StoreError> {
        self.read(|c| {
            let sql = format!("SELECT {ACCOUNT_COLUMNS} FROM accounts ORDER BY name");
            let rows = c.query(&sql, &[]).map_err(db)?;
            rows.iter().map(account_from).collect()
        })
    }

    fn account_named(&self, name: &str) -> Result<Option<Account>, StoreError> {
        self.read(|c| account_where(c, "name = $1", name))
    }

    fn ensure_account(&self, name: &str, plan: Option<Plan>) -> Result<Account, StoreError> {
        self.write(|tx| {
            let id = crate::new_id("acct_");
            tx.execute(
                "INSERT INTO accounts (id, name, plan, created_at) VALUES ($1, $2, $3, $4)
                 ON CONFLICT (name) DO NOTHING",
                &[
                    &id,
                    &name,
                    &plan.unwrap_or(Plan::Free).as_str(),
                    &now_text(),
                ],
            )
            .map_err(db)?;
            let account =
                account_where(tx, "name = $1", name)?.ok_or_else(|| not_found("account", name))?;
            match plan {
                Some(plan) if account.id != id && plan != account.plan => {
                    Err(StoreError::Refused(format!(
                        "account {name} is on the {} plan, not {}: its keys share its plan \
                         (change it with `sanctions accounts set-plan {name} {plan}`)",
                        account.plan, plan
                    )))
                }
                _ => Ok(account),
            }
        })
    }

    fn hit_shared_window(
        &self,
        key: &str,
        start: i64,
        limit: u64,
    ) -> Result<Option<(bool, u64)>, StoreError> {
        self.hit_window(key, start, limit).map(Some)
    }

    fn hit_window(&self, key: &str, start: i64, limit: u64) -> Result<(bool, u64), StoreError> {
        let limit = big(limit);
        self.write(|tx| {
            let counted = tx
                .query_opt(
                    "INSERT INTO rate_windows (key, start, used) SELECT $1::text, $2::bigint, 1
                     WHERE $3::bigint > 0
                     ON CONFLICT (key, start) DO UPDATE SET used = rate_windows.used + 1
                         WHERE rate_windows.used < $3
                     RETURNING used",
                    &[&key, &start, &limit],
                )
                .map_err(db)?;
            let Some(row) = counted else {
                return Ok((false, count(limit)));
            };
            let used: i64 = col(&row, 0)?;
            if used == 1 {
                // The window's first request clears the windows that have ended (an hour
                // back covers the longest window in use).
                tx.execute(
                    "DELETE FROM rate_windows WHERE start < $1::bigint - 3600",
                    &[&start],
                )
                .map_err(db)?;
            }
            Ok((true, count(used)))
        })
    }

    fn set_account_plan(&self, name: &str, plan: Plan) -> Result<Account, StoreError> {
        self.write(|tx| {
            let n = tx
                .execute(
                    "UPDATE accounts SET plan = $2, plan_changes = plan_changes + 1 WHERE name = $1",
                    &[&name, &plan.as_str()],
                )
                .map_err(db)?;
            if n == 0 {
                return Err(not_found("account", name));
            }
            tx.execute(
                "UPDATE api_keys SET plan = $2
                 WHERE account_id = (SELECT id FROM accounts WHERE name = $1)",
                &[&name, &plan.as_str()],
            )
            .map_err(db)?;
            account_where(tx, "name = $1", name)?.ok_or_else(|| not_found("account", name))
        })
    }
}

/// Credits `account_id` used in `month`.
fn used(c: &mut impl GenericClient, account_id: &str, month: &str) -> Result<u64, StoreError> {
    let row = c
        .query_opt(
            "SELECT used FROM account_usage WHERE account_id = $1 AND month = $2",
            &[&account_id, &month],
        )
        .map_err(db)?;
    Ok(row.map(|r| col::<i64>(&r, 0)).transpose()?.map_or(0, count))
}
