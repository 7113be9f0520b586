//! Typed instants: an instant in Unix milliseconds is a [`UnixMillis`], so it cannot be passed
//! where seconds are asked, nor an id where a time is (`resend(subscriber, webhook, event,
//! now)` takes each as its own type). In the tables each is the integer it wraps.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use chrono::{DateTime, Utc};

integer_newtype! {
    /// An instant in milliseconds since 1970-01-01 UTC.
    UnixMillis;
}

impl UnixMillis {
    /// Now, by the system clock.
    pub fn now() -> Self {
        Self(SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, millis))
    }

    /// `duration` later (saturating).
    pub fn plus(self, duration: Duration) -> Self {
        Self(self.0.saturating_add(millis(duration)))
    }

    /// `duration` earlier (saturating).
    pub fn minus(self, duration: Duration) -> Self {
        Self(self.0.saturating_sub(millis(duration)))
    }

    /// The whole seconds since 1970 (the tables' `*_at` in seconds).
    pub fn whole_seconds(self) -> i64 {
        self.0.div_euclid(1000)
    }

    /// How long after `earlier` this is; zero when it is not after.
    pub fn since(self, earlier: UnixMillis) -> Duration {
        Duration::from_millis(u64::try_from(self.0.saturating_sub(earlier.0)).unwrap_or(0))
    }
}

/// The epoch.
impl Default for UnixMillis {
    fn default() -> Self {
        Self(0)
    }
}

impl From<DateTime<Utc>> for UnixMillis {
    fn from(at: DateTime<Utc>) -> Self {
        Self(at.timestamp_millis())
    }
}

/// `duration` in whole milliseconds, at most `i64::MAX`.
fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_instant_moves_by_durations_and_saturates() {
        let at = UnixMillis(1_000);
        assert_eq!(at.plus(Duration::from_secs(2)), UnixMillis(3_000));
        assert_eq!(at.minus(Duration::from_millis(1_500)), UnixMillis(-500));
        assert_eq!(UnixMillis(3_000).since(at), Duration::from_secs(2));
        assert_eq!(at.since(UnixMillis(3_000)), Duration::ZERO);
        assert_eq!(UnixMillis(i64::MAX - 1).plus(Duration::from_secs(1)), UnixMillis(i64::MAX));
        assert!(UnixMillis::now() > UnixMillis(1_700_000_000_000));
        assert_eq!((UnixMillis(1_999).whole_seconds(), UnixMillis(-1).whole_seconds()), (1, -1));
    }
}
