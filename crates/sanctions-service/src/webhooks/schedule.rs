//! The retry schedule: durations like `5s`, `5m`, `2h`, `1d`, jitter, and `Retry-After`.

use std::time::Duration;

use jiff::Timestamp;

/// The default schedule: about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 24 h after each failure.
pub const DEFAULT_SCHEDULE: [&str; 7] = ["5s", "5m", "30m", "2h", "5h", "10h", "24h"];

/// Longest wait accepted anywhere (a `Retry-After` far in the future is capped to it).
pub const MAX_WAIT: Duration = Duration::from_secs(48 * 3600);

/// Parses `250ms`, `5s`, `5m`, `2h` or `1d`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .ok_or_else(|| format!("{text:?} has no unit (ms, s, m, h or d)"))?;
    let (digits, unit) = text.split_at(split);
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("{text:?} does not start with a number"))?;
    let duration = match unit {
        "ms" => Duration::from_millis(n),
        "s" => Duration::from_secs(n),
        "m" => Duration::from_secs(n.saturating_mul(60)),
        "h" => Duration::from_secs(n.saturating_mul(3600)),
        "d" => Duration::from_secs(n.saturating_mul(86400)),
        _ => {
            return Err(format!(
                "{text:?}: unknown unit {unit:?} (ms, s, m, h or d)"
            ));
        }
    };
    if duration > MAX_WAIT {
        return Err(format!("{text:?} is longer than 48 h"));
    }
    Ok(duration)
}

/// Parses a whole schedule; it may not be empty or longer than 20 steps.
pub fn parse_schedule(steps: &[String]) -> Result<Vec<Duration>, String> {
    if steps.is_empty() || steps.len() > 20 {
        return Err("retry_schedule needs 1 to 20 durations".to_owned());
    }
    steps.iter().map(|s| parse_duration(s)).collect()
}

/// `wait` moved by up to 10 % either way, so that many receivers failing together are not
/// retried in one burst.
pub fn jitter(wait: Duration) -> Duration {
    let mut bytes = [0u8; 2];
    if getrandom::fill(&mut bytes).is_err() {
        return wait;
    }
    let r = f64::from(u16::from_le_bytes(bytes)) / f64::from(u16::MAX); // 0..=1
    wait.mul_f64(0.9 + 0.2 * r)
}

/// The wait a `Retry-After` header asks for: seconds, or an HTTP date. Capped at
/// [`MAX_WAIT`]; `None` when unreadable.
pub fn retry_after(value: &str, now: Timestamp) -> Option<Duration> {
    let value = value.trim();
    let wait = if let Ok(seconds) = value.parse::<u64>() {
        Duration::from_secs(seconds)
    } else {
        let at = jiff::fmt::rfc2822::parse(value).ok()?.timestamp();
        Duration::try_from(at.duration_since(now)).unwrap_or(Duration::ZERO)
    };
    Some(wait.min(MAX_WAIT))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("5s").unwrap(), Duration::from_secs(5));
        assert_eq!(parse_duration("250ms").unwrap(), Duration::from_millis(250));
        assert_eq!(parse_duration("2h").unwrap(), Duration::from_secs(7200));
        assert!(parse_duration("5").is_err());
        assert!(parse_duration("5y").is_err());
        assert!(parse_duration("30d").is_err());
        let default: Vec<String> = DEFAULT_SCHEDULE.iter().map(|s| s.to_string()).collect();
        assert_eq!(parse_schedule(&default).unwrap().len(), 7);
        assert!(parse_schedule(&[]).is_err());
    }

    #[test]
    fn jitter_stays_within_ten_percent() {
        for _ in 0..100 {
            let j = jitter(Duration::from_secs(100));
            assert!(j >= Duration::from_secs(90) && j <= Duration::from_secs(110));
        }
    }

    #[test]
    fn retry_after_seconds_and_dates() {
        let now: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        assert_eq!(retry_after("120", now), Some(Duration::from_secs(120)));
        assert_eq!(
            retry_after("Thu, 01 Jan 2026 00:01:00 GMT", now),
            Some(Duration::from_secs(60))
        );
        assert_eq!(retry_after("999999999", now), Some(MAX_WAIT));
        assert_eq!(retry_after("soon", now), None);
    }
}
