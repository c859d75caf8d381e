//! Request-rate windows and monthly screening credits.
//!
//! Requests per minute use fixed one-minute windows aligned on the UTC clock, counted in
//! memory. A fixed window (rather than `governor`'s GCRA) was chosen because it gives
//! the three `X-RateLimit-*` headers an exact meaning a client can act on: `Limit` requests
//! per window, `Remaining` in this one, and `Reset` = the Unix epoch second at which the
//! next window starts. A restart starts a fresh window (at most one extra minute's worth of
//! requests); the costly counters, credits, are in the store.
//!
//! The windows are per account (every key of an account shares them), as are the hourly
//! windows of the expensive operations ([`Expensive`]), which are counted in the store on
//! every backend ([`KeyStore::hit_window`]): a few writes an hour, shared by every process.
//!
//! Credits (one per name screened) are counted per account per calendar month (UTC) in the
//! store ([`KeyStore::take_credits`]), so they survive restarts; they are taken before the
//! screening runs, in one transaction that refuses to go over the plan, and given back if
//! the request then fails.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use jiff::Timestamp;

use crate::service::RateLimit;
use crate::service::{KeyStore, StoreError};

/// The in-memory minute windows of every key.
#[derive(Debug, Default)]
pub struct Windows {
    /// key id -> (window start, epoch seconds; requests counted in it).
    counts: Mutex<HashMap<String, (i64, u64)>>,
}

/// Whether a request may go on, with the headers to send either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Admission {
    pub allowed: bool,
    pub headers: RateLimit,
    /// Seconds until the window resets (for `Retry-After`).
    pub retry_after: u64,
}

impl Windows {
    /// Counts one request of `key_id` at `now` (epoch seconds) against `limit` per minute.
    /// A refused request is not counted.
    pub fn hit(&self, key_id: &str, limit: u64, now: i64) -> Admission {
        self.hit_window(key_id, limit, now, 60)
    }

    /// [`Windows::hit`], counted in the store's shared window when the store keeps one
    /// (several instances on one PostgreSQL database share a key's minute), else here. A
    /// store that cannot count falls back to this process's count.
    pub fn hit_shared(&self, keys: &dyn KeyStore, key_id: &str, limit: u64, now: i64) -> Admission {
        let start = now - now.rem_euclid(60);
        let reset = start + 60;
        match keys.hit_shared_window(key_id, start, limit) {
            Ok(Some((allowed, used))) => Admission {
                allowed,
                headers: RateLimit {
                    limit,
                    remaining: limit.saturating_sub(used),
                    reset,
                },
                retry_after: (reset - now).max(1) as u64,
            },
            Ok(None) => self.hit(key_id, limit, now),
            Err(e) => {
                tracing::warn!(error = %e, "shared rate window unavailable: counting in this process");
                self.hit(key_id, limit, now)
            }
        }
    }

    /// Counts one use of `key` at `now` against `limit` per fixed window of `seconds`
    /// (aligned on the epoch). A refused use is not counted.
    pub fn hit_window(&self, key: &str, limit: u64, now: i64, seconds: i64) -> Admission {
        let seconds = seconds.max(1);
        let start = now - now.rem_euclid(seconds);
        let reset = start + seconds;
        let mut counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        if counts.len() > 100_000 {
            // Bounded: forget windows that have ended.
            counts.retain(|_, (s, _)| *s == start);
        }
        let entry = counts.entry(key.to_owned()).or_insert((start, 0));
        if entry.0 != start {
            *entry = (start, 0);
        }
        let allowed = entry.1 < limit;
        if allowed {
            entry.1 += 1;
        }
        Admission {
            allowed,
            headers: RateLimit {
                limit,
                remaining: limit.saturating_sub(entry.1),
                reset,
            },
            retry_after: (reset - now).max(1) as u64,
        }
    }
}

/// An operation costly enough to have a limit of its own, per account per hour, on top of
/// the request rate: it runs for seconds of both cores or reads a whole period.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expensive {
    /// `POST /favorites/rescreen`: the account's whole watchlist.
    Rescreen,
    /// `POST /briefs/refresh`: every new list update and the feeds.
    BriefsRefresh,
    /// `GET /audit`: every screening and decision of a period.
    AuditExport,
}

/// Uses of each [`Expensive`] operation one account may make per hour.
pub const EXPENSIVE_PER_HOUR: u64 = 6;

impl Expensive {
    /// The operation, as a 429 names it.
    pub fn name(self) -> &'static str {
        match self {
            Expensive::Rescreen => "a full watchlist re-screen",
            Expensive::BriefsRefresh => "a briefs refresh",
            Expensive::AuditExport => "an audit export",
        }
    }

    fn slot(self, account: &str) -> String {
        let tag = match self {
            Expensive::Rescreen => "rescreen",
            Expensive::BriefsRefresh => "briefs",
            Expensive::AuditExport => "audit",
        };
        format!("{tag}:{account}")
    }
}

impl Windows {
    /// Counts one use of `op` by `account` now in the store's hourly window, which every
    /// process on the store shares (several instances on one PostgreSQL database, or
    /// servers sharing a data folder): `Err(seconds to wait)` beyond [`EXPENSIVE_PER_HOUR`].
    /// A store that cannot count falls back to this process's count. Blocks.
    pub fn expensive_shared(
        &self,
        keys: &dyn KeyStore,
        op: Expensive,
        account: &str,
        now: i64,
    ) -> Result<(), u64> {
        let start = now - now.rem_euclid(3600);
        match keys.hit_window(&op.slot(account), start, EXPENSIVE_PER_HOUR) {
            Ok((true, _)) => Ok(()),
            Ok((false, _)) => Err((start + 3600 - now).max(1) as u64),
            Err(e) => {
                tracing::warn!(error = %e, "shared hourly window unavailable: counting in this process");
                self.expensive(op, account, now)
            }
        }
    }

    /// Counts one use of `op` by `account` now in this process: `Err(seconds to wait)`
    /// beyond [`EXPENSIVE_PER_HOUR`].
    pub fn expensive(&self, op: Expensive, account: &str, now: i64) -> Result<(), u64> {
        let admission = self.hit_window(&op.slot(account), EXPENSIVE_PER_HOUR, now, 3600);
        if admission.allowed {
            Ok(())
        } else {
            Err(admission.retry_after)
        }
    }
}

/// The calendar month (UTC) of `now` as `YYYY-MM`, and the first day of the next one.
pub fn month_of(now: Timestamp) -> (String, jiff::civil::Date) {
    let date = now.to_zoned(jiff::tz::TimeZone::UTC).date();
    let first = date.first_of_month();
    let next = first
        .checked_add(jiff::Span::new().months(1))
        .unwrap_or(first);
    (format!("{:04}-{:02}", date.year(), date.month()), next)
}

/// Credits taken for one request; [`Taken::give_back`] returns them if it fails.
pub struct Taken {
    keys: Arc<dyn KeyStore>,
    key_id: String,
    month: String,
    n: u64,
}

impl Taken {
    /// Returns the credits (the request failed).
    pub async fn give_back(self) {
        let Taken {
            keys,
            key_id,
            month,
            n,
        } = self;
        let result =
            tokio::task::spawn_blocking(move || keys.return_credits(&key_id, &month, n)).await;
        if !matches!(result, Ok(Ok(()))) {
            tracing::warn!("could not give back screening credits of a failed request");
        }
    }
}

/// Why credits could not be taken.
pub enum NoCredits {
    /// The plan's month is used up: the message of a 403.
    Exhausted(String),
    Store(StoreError),
}

/// Takes `n` credits of the current month for `key_id`, within `limit` (`None`: unlimited,
/// still counted).
pub async fn take(
    keys: Arc<dyn KeyStore>,
    key_id: &str,
    plan_title: &str,
    n: u64,
    limit: Option<u64>,
) -> Result<Taken, NoCredits> {
    let (month, next) = month_of(Timestamp::now());
    let store = keys.clone();
    let (id, m) = (key_id.to_owned(), month.clone());
    let outcome = tokio::task::spawn_blocking(move || store.take_credits(&id, &m, n, limit))
        .await
        .map_err(|e| NoCredits::Store(StoreError::Refused(format!("a worker stopped: {e}"))))?
        .map_err(NoCredits::Store)?;
    match outcome {
        Ok(_) => Ok(Taken {
            keys,
            key_id: key_id.to_owned(),
            month,
            n,
        }),
        Err(used) => {
            let limit = limit.unwrap_or(u64::MAX);
            let left = limit.saturating_sub(used);
            let asked = if n == 1 {
                "this screening needs 1 credit".to_owned()
            } else {
                format!("this request screens {n} names and needs {n} credits")
            };
            Err(NoCredits::Exhausted(format!(
                "screening credits exhausted: the {plan_title} plan allows {limit} screenings per month, {used} used, {left} left; {asked}; credits reset on {next} (00:00 UTC)"
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_are_fixed_minutes_and_refusals_are_not_counted() {
        let w = Windows::default();
        let t0: i64 = 30_000_000 * 60; // a window start
        for i in 0..3 {
            let a = w.hit("k", 3, t0 + 5);
            assert!(a.allowed);
            assert_eq!(a.headers.remaining, 2 - i);
            assert_eq!(a.headers.reset, t0 + 60);
        }
        let refused = w.hit("k", 3, t0 + 50);
        assert!(!refused.allowed);
        assert_eq!(refused.retry_after, 10);
        assert!(w.hit("other", 3, t0 + 50).allowed);
        let next = w.hit("k", 3, t0 + 61);
        assert!(next.allowed);
        assert_eq!(next.headers.remaining, 2);
    }

    #[test]
    fn expensive_operations_have_an_hourly_limit_per_account_and_operation() {
        let w = Windows::default();
        let t0: i64 = 500_000 * 3600; // an hour's start
        for _ in 0..EXPENSIVE_PER_HOUR {
            assert!(w.expensive(Expensive::Rescreen, "a", t0 + 10).is_ok());
        }
        assert_eq!(w.expensive(Expensive::Rescreen, "a", t0 + 10), Err(3590));
        assert!(w.expensive(Expensive::AuditExport, "a", t0 + 10).is_ok());
        assert!(w.expensive(Expensive::Rescreen, "b", t0 + 10).is_ok());
        assert!(w.expensive(Expensive::Rescreen, "a", t0 + 3600).is_ok());
    }

    #[test]
    fn months_and_their_resets() {
        let (month, next) = month_of("2026-12-31T23:59:59Z".parse().unwrap());
        assert_eq!(month, "2026-12");
        assert_eq!(next.to_string(), "2027-01-01");
    }
}
