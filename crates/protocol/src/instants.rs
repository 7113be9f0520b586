//! Typed instants: an instant in Unix milliseconds is a [`UnixMillis`], one in whole seconds a
//! [`UnixSeconds`], so neither can be passed where the other is asked, nor an id where a time
//! is (`resend(subscriber, webhook, event, now)` takes each as its own type). In the tables
//! each is the integer it wraps.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use chrono::{DateTime, Utc};

integer_newtype! {
    /// An instant in milliseconds since 1970-01-01 UTC.
    UnixMillis;
    /// An instant in whole seconds since 1970-01-01 UTC: what the tables' `*_at` keep.
    UnixSeconds;
}

/// What both instants do with durations, each in its own unit: `units` counts a duration in
/// it (whole, at most `i64::MAX`), `of_units` is the duration of a count of them.
macro_rules! moves_by_durations {
    ($($name:ident: $units:ident, $of_units:path;)*) => {$(
        impl $name {
            /// `duration` later (saturating; a part of a unit is dropped).
            pub fn plus(self, duration: Duration) -> Self {
                Self(self.0.saturating_add($units(duration)))
            }

            /// `duration` earlier (saturating; a part of a unit is dropped).
            pub fn minus(self, duration: Duration) -> Self {
                Self(self.0.saturating_sub($units(duration)))
            }

            /// How long after `earlier` this is; zero when it is not after.
            pub fn since(self, earlier: $name) -> Duration {
                $of_units(u64::try_from(self.0.saturating_sub(earlier.0)).unwrap_or(0))
            }
        }

        /// The epoch.
        impl Default for $name {
            fn default() -> Self {
                Self(0)
            }
        }
    )*};
}

moves_by_durations! {
    UnixMillis: millis, Duration::from_millis;
    UnixSeconds: seconds, Duration::from_secs;
}

impl UnixMillis {
    /// Now, by the system clock.
    pub fn now() -> Self {
        Self(SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, millis))
    }

    /// The whole seconds since 1970 (the tables' `*_at` in seconds).
    pub fn whole_seconds(self) -> UnixSeconds {
        UnixSeconds(self.0.div_euclid(1000))
    }
}

impl From<DateTime<Utc>> for UnixMillis {
    fn from(at: DateTime<Utc>) -> Self {
        Self(at.timestamp_millis())
    }
}

impl UnixSeconds {
    /// Now, by the system clock, in whole seconds.
    pub fn now() -> Self {
        UnixMillis::now().whole_seconds()
    }

    /// The instant as a date and time; `None` out of chrono's range.
    pub fn to_datetime(self) -> Option<DateTime<Utc>> {
        DateTime::from_timestamp(self.0, 0)
    }

    /// The same instant in milliseconds (saturating).
    pub fn millis(self) -> UnixMillis {
        UnixMillis(self.0.saturating_mul(1000))
    }
}

/// The whole seconds of `at` (a fraction is dropped).
impl From<DateTime<Utc>> for UnixSeconds {
    fn from(at: DateTime<Utc>) -> Self {
        Self(at.timestamp())
    }
}

/// `duration` in whole seconds, at most `i64::MAX`.
fn seconds(duration: Duration) -> i64 {
    i64::try_from(duration.as_secs()).unwrap_or(i64::MAX)
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
        assert_eq!(
            (UnixMillis(1_999).whole_seconds(), UnixMillis(-1).whole_seconds()),
            (UnixSeconds(1), UnixSeconds(-1))
        );
    }

    #[test]
    fn seconds_move_by_durations_and_saturate() {
        let at = UnixSeconds(1_000);
        assert_eq!(at.plus(Duration::from_secs(90)), UnixSeconds(1_090));
        assert_eq!(at.minus(Duration::from_millis(2_500)), UnixSeconds(998));
        assert_eq!(UnixSeconds(1_090).since(at), Duration::from_secs(90));
        assert_eq!(at.since(UnixSeconds(1_090)), Duration::ZERO);
        assert_eq!(UnixSeconds(i64::MAX).plus(Duration::from_secs(1)), UnixSeconds(i64::MAX));
        assert!(UnixSeconds::now() > UnixSeconds(1_700_000_000));
        assert_eq!(
            UnixSeconds(86_400).to_datetime().map(|at| at.to_rfc3339()),
            Some("1970-01-02T00:00:00+00:00".to_owned())
        );
        assert_eq!(UnixSeconds(i64::MAX).to_datetime(), None);
        assert_eq!(at.millis(), UnixMillis(1_000_000));
    }
}
