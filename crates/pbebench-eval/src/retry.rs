//! When to try a request again, and how long to wait first: exponential backoff with
//! jitter, overridden upwards by a server's `Retry-After`.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How a failed attempt (429, 5xx, timeout, dropped connection) is retried.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryPolicy {
    /// Retries after the first attempt; `0` means one attempt only.
    pub max_retries: u32,
    /// The wait before the first retry; each further retry doubles it.
    pub base: Duration,
    /// The longest computed wait (a server's `Retry-After` may ask for more, up to
    /// [`RetryPolicy::MAX_RETRY_AFTER`]).
    pub cap: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 6,
            base: Duration::from_secs(1),
            cap: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// The longest `Retry-After` honoured; a server asking for more is waited on this long.
    pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(600);

    /// The wait before retry number `retry` (1-based): "equal jitter", a uniformly random
    /// time between half and all of `min(cap, base · 2^(retry−1))`, so that many workers
    /// rejected together do not come back together; never less than `retry_after`.
    pub fn delay(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        let exp = self
            .base
            .saturating_mul(1u32 << (retry.saturating_sub(1)).min(20))
            .min(self.cap);
        let jittered = exp.mul_f64(0.5 + 0.5 * fastrand::f64());
        match retry_after {
            Some(ra) => jittered.max(ra.min(Self::MAX_RETRY_AFTER)),
            None => jittered,
        }
    }
}

/// Reads a `Retry-After` value: delay seconds (`"7"`, also `"1.5"`) or an HTTP date
/// (`"Sun, 06 Nov 1994 08:49:37 GMT"`, measured from `now`).
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<f64>() {
        // Negative, not finite or beyond what a duration holds (1e300): no delay given.
        return Duration::try_from_secs_f64(secs).ok();
    }
    let at = parse_http_date(value)?;
    let now = now.duration_since(UNIX_EPOCH).ok()?.as_secs();
    Some(Duration::from_secs(at.saturating_sub(now)))
}

/// Seconds since the epoch of an IMF-fixdate (RFC 9110 §5.6.7), the only date form
/// servers are required to send.
fn parse_http_date(s: &str) -> Option<u64> {
    // "Sun, 06 Nov 1994 08:49:37 GMT"
    let mut parts = s.split_ascii_whitespace();
    let _weekday = parts.next()?;
    let day: u64 = parts.next()?.parse().ok()?;
    let month = parts.next()?;
    let year: i64 = parts.next()?.parse().ok()?;
    let mut hms = parts.next()?.split(':').map(|p| p.parse::<u64>().ok());
    let (h, m, sec) = (hms.next()??, hms.next()??, hms.next()??);
    if parts.next()? != "GMT" {
        return None;
    }
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS.iter().position(|m| *m == month)? as i64 + 1;
    if !(1..=31).contains(&day) || h > 23 || m > 59 || sec > 60 {
        return None;
    }
    let days = days_from_civil(year, month, day as i64);
    u64::try_from(days)
        .ok()
        .map(|d| d * 86_400 + h * 3600 + m * 60 + sec)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_within_jitter_and_cap() {
        let p = RetryPolicy {
            max_retries: 10,
            base: Duration::from_millis(100),
            cap: Duration::from_millis(1000),
        };
        for _ in 0..50 {
            let d1 = p.delay(1, None);
            assert!(d1 >= Duration::from_millis(50) && d1 <= Duration::from_millis(100));
            let d3 = p.delay(3, None);
            assert!(d3 >= Duration::from_millis(200) && d3 <= Duration::from_millis(400));
            let d9 = p.delay(9, None);
            assert!(d9 >= Duration::from_millis(500) && d9 <= Duration::from_millis(1000));
            assert!(p.delay(40, None) <= Duration::from_millis(1000));
        }
    }

    #[test]
    fn retry_after_is_a_floor() {
        let p = RetryPolicy::default();
        assert!(p.delay(1, Some(Duration::from_secs(5))) >= Duration::from_secs(5));
        assert_eq!(
            p.delay(1, Some(Duration::from_secs(99_999))),
            RetryPolicy::MAX_RETRY_AFTER
        );
    }

    #[test]
    fn parses_both_retry_after_forms() {
        let now = UNIX_EPOCH + Duration::from_secs(784_111_777); // 1994-11-06 08:49:37
        assert_eq!(parse_retry_after("7", now), Some(Duration::from_secs(7)));
        assert_eq!(
            parse_retry_after(" 0.5 ", now),
            Some(Duration::from_millis(500))
        );
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:47 GMT", now),
            Some(Duration::from_secs(10))
        );
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:27 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("-3", now), None);
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(
            parse_retry_after("1e300", now),
            None,
            "no panic on a huge delay"
        );
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:27 PST", now),
            None
        );
    }
}
