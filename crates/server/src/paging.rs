//! Cursor paging and date filters shared by the transaction lists.

use chrono::{DateTime, Months, NaiveDate, Utc};
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::{DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT};

use crate::error::{ApiError, Validation};
use crate::storage::transactions::{Filter, TransactionRow};

/// A position in a newest-first list: the last row of the page before, `<time>.<id>`.
/// Clients treat it as opaque; its form is simple enough for the OpenAPI document to state
/// exactly which strings are cursors (`^[0-9]{1,18}\.[0-9]{1,18}$`).
/// `at` is the instant the list is ordered by (seconds or milliseconds, as the list keeps it),
/// `id` the row's typed id, of whichever list it is.
pub fn encode_cursor(at: impl Into<i64>, id: impl Into<i64>) -> String {
    format!("{}.{}", at.into().max(0), id.into().max(0))
}

pub fn decode_cursor(cursor: &str, validation: &mut Validation) -> Option<(i64, i64)> {
    let number = |text: &str| {
        (1..=18).contains(&text.len()).then_some(()).filter(|()| text.bytes().all(|byte| byte.is_ascii_digit()))?;
        text.parse::<i64>().ok()
    };
    let decoded = cursor.split_once('.').and_then(|(created_at, id)| Some((number(created_at)?, number(id)?)));
    if decoded.is_none() {
        validation.reject("cursor", "is not a cursor this service issued: pass next_cursor from the previous page");
    }
    decoded
}

pub fn page_limit(limit: Option<u32>, validation: &mut Validation) -> u32 {
    subscriber_protocol::rules::page_limit(validation, limit, DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT)
}

/// Which end of a day a bare date stands for.
#[derive(Clone, Copy)]
pub enum Bound {
    Start,
    End,
}

/// A date (`2026-01-31`: the whole day in UTC) or an RFC 3339 time, as Unix seconds.
pub fn parse_time_bound(field: &str, text: &str, bound: Bound, validation: &mut Validation) -> Option<UnixSeconds> {
    let text = text.trim();
    if let Ok(date) = NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        let time = match bound {
            Bound::Start => date.and_hms_opt(0, 0, 0),
            Bound::End => date.and_hms_opt(23, 59, 59),
        };
        return time.map(|time| time.and_utc().into());
    }
    if let Ok(time) = DateTime::parse_from_rfc3339(text) {
        return Some(time.with_timezone(&Utc).into());
    }
    validation.reject(field, "must be a date (2026-01-31) or an RFC 3339 time (2026-01-31T12:00:00Z)");
    None
}

/// The oldest transaction the service shows: 36 months back.
pub fn history_start(now: DateTime<Utc>) -> UnixSeconds {
    now.checked_sub_months(Months::new(36)).unwrap_or(now).into()
}

/// Splits a fetch of `limit + 1` rows into the page and the cursor of the next one.
pub fn finish_page(rows: Vec<TransactionRow>, limit: u32) -> (Vec<TransactionRow>, Option<String>) {
    split_page(rows, limit, |row| encode_cursor(row.created_at, row.id))
}

/// Splits a fetch of `limit + 1` rows into the page and, when there is more, the cursor of the
/// next page (`cursor_of` the page's last row).
pub fn split_page<T>(mut rows: Vec<T>, limit: u32, cursor_of: impl Fn(&T) -> String) -> (Vec<T>, Option<String>) {
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    if rows.len() > limit {
        rows.truncate(limit);
        let next = rows.last().map(cursor_of);
        (rows, next)
    } else {
        (rows, None)
    }
}

pub fn amount(minor: i64) -> f64 {
    minor as f64 / 100.0
}

pub fn checked_time(at: UnixSeconds) -> Result<DateTime<Utc>, ApiError> {
    at.to_datetime().ok_or_else(|| ApiError::internal(anyhow::anyhow!("stored time {at} is out of range")))
}

/// The filter a transaction query asks for, checked.
pub fn transaction_filter(
    limit: Option<u32>,
    cursor: Option<&str>,
    from: Option<&str>,
    to: Option<&str>,
) -> Result<(Filter, u32), ApiError> {
    let mut validation = Validation::new();
    let limit = page_limit(limit, &mut validation);
    let after = cursor.filter(|cursor| !cursor.is_empty()).and_then(|cursor| decode_cursor(cursor, &mut validation));
    let from = from.and_then(|text| parse_time_bound("from", text, Bound::Start, &mut validation));
    let to = to.and_then(|text| parse_time_bound("to", text, Bound::End, &mut validation));
    if let (Some(from), Some(to)) = (from, to)
        && from > to
    {
        validation.reject("from", "must not be after to");
    }
    validation.finish(())?;
    let oldest = history_start(Utc::now());
    // A cursor's time is the row's `created_at`.
    let after = after.map(|(created_at, id)| (UnixSeconds(created_at), id));
    let filter = Filter { from: Some(from.map_or(oldest, |from| from.max(oldest))), to, after, ..Filter::default() };
    Ok((filter, limit))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_reject_forgeries() {
        let mut validation = Validation::new();
        assert_eq!(decode_cursor(&encode_cursor(1_700_000_000, 42), &mut validation), Some((1_700_000_000, 42)));
        assert!(validation.is_empty());
        assert_eq!(decode_cursor("not-a-cursor", &mut validation), None);
        assert!(!validation.is_empty());
    }

    #[test]
    fn bare_dates_cover_the_whole_day() {
        let mut validation = Validation::new();
        let start = parse_time_bound("from", "2026-01-31", Bound::Start, &mut validation).expect("date");
        let end = parse_time_bound("to", "2026-01-31", Bound::End, &mut validation).expect("date");
        assert_eq!(end.since(start), std::time::Duration::from_secs(86_399));
        assert!(parse_time_bound("from", "31/01/2026", Bound::Start, &mut validation).is_none());
    }

    #[test]
    fn amounts_keep_two_decimals() {
        assert_eq!(amount(1234).to_string(), "12.34");
        assert_eq!(amount(-50).to_string(), "-0.5");
    }
}
