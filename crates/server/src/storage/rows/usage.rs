//! The rows of `usage_counts`: billable request counts by subscriber, day and route.

/// `(subscriber_id, day, endpoint)` and how many requests to add.
pub type UsageCount = ((i64, String, String), u64);
