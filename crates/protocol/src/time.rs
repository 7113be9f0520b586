//! The spec's compact `enrolledAt` form, `YYYYMMDD-HHMM` in UTC.

use chrono::{DateTime, NaiveDateTime, Utc};
use serde::{Deserialize, Deserializer, Serializer};

pub const COMPACT_FORMAT: &str = "%Y%m%d-%H%M";

pub fn format_compact(at: &DateTime<Utc>) -> String {
    at.format(COMPACT_FORMAT).to_string()
}

pub fn parse_compact(text: &str) -> Option<DateTime<Utc>> {
    NaiveDateTime::parse_from_str(text, COMPACT_FORMAT).ok().map(|naive| naive.and_utc())
}

/// `#[serde(with = "subscriber_protocol::time::compact")]`
pub mod compact {
    use super::*;

    pub fn serialize<S: Serializer>(at: &DateTime<Utc>, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&format_compact(at))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<DateTime<Utc>, D::Error> {
        let text = String::deserialize(deserializer)?;
        parse_compact(&text).ok_or_else(|| serde::de::Error::custom(format!("expected YYYYMMDD-HHMM, found {text:?}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn compact_form_round_trips_to_the_minute() {
        let at = Utc.with_ymd_and_hms(2026, 3, 7, 9, 5, 59).single().expect("valid date");
        let text = format_compact(&at);
        assert_eq!(text, "20260307-0905");
        let back = parse_compact(&text).expect("parses");
        assert_eq!(back, Utc.with_ymd_and_hms(2026, 3, 7, 9, 5, 0).single().expect("valid"));
    }

    #[test]
    fn compact_form_rejects_other_shapes() {
        assert!(parse_compact("2026-03-07T09:05").is_none());
        assert!(parse_compact("20261307-0905").is_none());
    }
}
