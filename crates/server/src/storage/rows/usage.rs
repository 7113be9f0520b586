//! The rows of `usage_counts`: billable request counts by subscriber, day and route.

use subscriber_protocol::SubscriberId;

/// `(subscriber_id, day, endpoint)` and how many requests to add.
pub type UsageCount = ((SubscriberId, String, String), u64);
