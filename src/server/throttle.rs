//! Failed authentications throttled per client address: after `limit` failures within a
//! window (which starts at an address's first failure), every request of that address that
//! needs a key is answered 429 with `Retry-After` until the window ends, before its key is
//! looked at, so guessing keys costs a window per `limit` guesses. A valid key from the same
//! address is refused only until that window ends, never longer.
//!
//! Memory is bounded: at most [`MAX_ADDRESSES`] addresses are remembered; when the table is
//! full, ended windows are forgotten first, then the oldest window.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;

/// Most client addresses remembered at once.
pub const MAX_ADDRESSES: usize = 65_536;

/// The failure windows of every address that failed lately.
#[derive(Debug)]
pub struct Throttle {
    /// address -> (window start, epoch seconds; failures in it).
    failures: Mutex<HashMap<IpAddr, (i64, u32)>>,
    limit: u32,
    window: i64,
}

impl Throttle {
    /// `limit` failures per `window_secs` seconds (both at least 1).
    pub fn new(limit: u32, window_secs: u64) -> Throttle {
        Throttle {
            failures: Mutex::new(HashMap::new()),
            limit: limit.max(1),
            window: i64::try_from(window_secs.max(1)).unwrap_or(i64::MAX / 2),
        }
    }

    /// `Err(seconds to wait)` while `ip` has used up its failures of the current window.
    pub fn check(&self, ip: IpAddr, now: i64) -> Result<(), u64> {
        let failures = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        match failures.get(&ip) {
            Some(&(start, count)) if now - start < self.window && count >= self.limit => {
                Err((start + self.window - now).max(1) as u64)
            }
            _ => Ok(()),
        }
    }

    /// Counts one failed authentication of `ip` at `now`.
    pub fn failed(&self, ip: IpAddr, now: i64) {
        let mut failures = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        if failures.len() >= MAX_ADDRESSES && !failures.contains_key(&ip) {
            let window = self.window;
            failures.retain(|_, (start, _)| now - *start < window);
            if failures.len() >= MAX_ADDRESSES {
                let oldest = failures
                    .iter()
                    .min_by_key(|(_, (s, _))| *s)
                    .map(|(a, _)| *a);
                if let Some(oldest) = oldest {
                    failures.remove(&oldest);
                }
            }
        }
        let entry = failures.entry(ip).or_insert((now, 0));
        if now - entry.0 >= self.window {
            *entry = (now, 0);
        }
        entry.1 = entry.1.saturating_add(1);
    }

    /// Addresses remembered now.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.failures
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_after_the_limit_until_the_window_ends() {
        let t = Throttle::new(3, 60);
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        for _ in 0..3 {
            assert_eq!(t.check(a, 1000), Ok(()));
            t.failed(a, 1000);
        }
        assert_eq!(t.check(a, 1010), Err(50));
        assert_eq!(t.check(b, 1010), Ok(()), "another address is not affected");
        assert_eq!(t.check(a, 1059), Err(1));
        assert_eq!(t.check(a, 1060), Ok(()), "never longer than the window");
        t.failed(a, 1060);
        assert_eq!(t.check(a, 1061), Ok(()), "a new window");
    }

    #[test]
    fn the_table_is_bounded() {
        let t = Throttle::new(1, 60);
        for i in 0..(MAX_ADDRESSES as u32 + 10) {
            t.failed(IpAddr::from(i.to_be_bytes()), 5);
        }
        assert_eq!(t.len(), MAX_ADDRESSES);
        // Ended windows are forgotten first.
        t.failed("192.0.2.9".parse().unwrap(), 100);
        assert_eq!(t.len(), 1);
    }
}
