//! Rendered pages of a merchant's transactions, kept while they are still the answer: reading
//! and rendering a hundred rows was nearly all of a page's time. (A card's pages are cut from its
//! kept rows instead: `card_rows`.)
//!
//! A page is the answer for its owner and its exact query string as long
//! as (1) no event of the owner was announced since it was read (every insert and settlement
//! of a transaction records one: `EventHub::newest_event_of`), and (2) the sliding 36-month
//! window has not moved past the oldest row read (the window only ever moves forward, so
//! until then the same rows are the newest in it). The caller checks who may read the owner
//! before asking: the cache holds no permissions.

use std::collections::HashMap;
use subscriber_protocol::UnixSeconds;

use bytes::Bytes;
use parking_lot::RwLock;
use subscriber_protocol::EventId;

use crate::storage::transactions::Owner;

struct Page {
    /// `EventHub::newest_event_of` the owner when the page was read.
    event: EventId,
    /// `created_at` of the oldest row read (the look-ahead row included); `None` when none was.
    oldest_read: Option<UnixSeconds>,
    body: Bytes,
}

#[derive(Default)]
struct Pages {
    pages: HashMap<(Owner, Box<str>), Page>,
    bytes: usize,
}

pub struct TransactionPages {
    pages: RwLock<Pages>,
    /// The most body bytes kept; past it the cache starts afresh.
    budget: usize,
}

impl TransactionPages {
    pub fn new(budget: usize) -> Self {
        Self { pages: RwLock::default(), budget }
    }

    /// The body kept for `owner`'s page of `query`, if it is still the answer: `event` is the
    /// owner's newest event now, `window_start` where the page's time window starts now.
    pub fn get(&self, owner: Owner, query: &str, event: EventId, window_start: Option<UnixSeconds>) -> Option<Bytes> {
        let pages = self.pages.read();
        let page = pages.pages.get(&(owner, Box::from(query)))?;
        let in_window = match (page.oldest_read, window_start) {
            (Some(oldest), Some(start)) => oldest >= start,
            _ => true,
        };
        (page.event == event && in_window).then(|| page.body.clone())
    }

    /// Keeps a page read when `event` was the owner's newest event.
    pub fn insert(&self, owner: Owner, query: &str, event: EventId, oldest_read: Option<UnixSeconds>, body: Bytes) {
        if body.len() > self.budget {
            return;
        }
        let mut pages = self.pages.write();
        if pages.bytes + body.len() > self.budget {
            *pages = Pages::default();
        }
        pages.bytes += body.len();
        let page = Page { event, oldest_read, body };
        if let Some(replaced) = pages.pages.insert((owner, Box::from(query)), page) {
            pages.bytes -= replaced.body.len();
        }
    }

    /// Forgets the pages of `owners` (`None`: of everyone): what they were read from was put
    /// back as it had been, with ids and events that kept pages may name again.
    pub fn forget(&self, owners: Option<&[Owner]>) {
        let mut pages = self.pages.write();
        match owners {
            None => *pages = Pages::default(),
            Some(owners) => {
                let Pages { pages: kept, bytes } = &mut *pages;
                kept.retain(|(owner, _), page| {
                    let keep = !owners.contains(owner);
                    if !keep {
                        *bytes -= page.body.len();
                    }
                    keep
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CARD: Owner = Owner::Card(subscriber_protocol::CardId(7));

    #[test]
    fn a_page_is_kept_until_an_event_of_its_owner() {
        let pages = TransactionPages::new(1024);
        pages.insert(CARD, "limit=100", EventId(5), Some(UnixSeconds(1_000)), Bytes::from_static(b"[1]"));
        assert_eq!(pages.get(CARD, "limit=100", EventId(5), Some(UnixSeconds(900))).as_deref(), Some(&b"[1]"[..]));
        assert_eq!(pages.get(CARD, "limit=100", EventId(6), Some(UnixSeconds(900))), None, "a newer event");
        assert_eq!(pages.get(CARD, "limit=50", EventId(5), Some(UnixSeconds(900))), None, "another query");
        assert_eq!(
            pages.get(
                Owner::Merchant(subscriber_protocol::MerchantId(7)),
                "limit=100",
                EventId(5),
                Some(UnixSeconds(900))
            ),
            None,
            "another owner"
        );
    }

    #[test]
    fn a_page_is_dropped_once_the_window_passes_its_oldest_row() {
        let pages = TransactionPages::new(1024);
        pages.insert(CARD, "", EventId(0), Some(UnixSeconds(1_000)), Bytes::from_static(b"[1]"));
        assert!(pages.get(CARD, "", EventId(0), Some(UnixSeconds(1_000))).is_some());
        assert!(pages.get(CARD, "", EventId(0), Some(UnixSeconds(1_001))).is_none());
        pages.insert(CARD, "to=5", EventId(0), None, Bytes::from_static(b"[]"));
        assert!(pages.get(CARD, "to=5", EventId(0), Some(UnixSeconds(99_999))).is_some(), "an empty page stays empty");
    }

    #[test]
    fn it_stays_within_its_budget() {
        let pages = TransactionPages::new(8);
        for index in 0..10 {
            pages.insert(CARD, &index.to_string(), EventId(0), None, Bytes::from_static(b"abc"));
            assert!(pages.pages.read().bytes <= 8);
        }
        assert!(pages.get(CARD, "9", EventId(0), None).is_some(), "the newest is kept");
        pages.insert(CARD, "big", EventId(0), None, Bytes::from(vec![0; 9]));
        assert!(pages.get(CARD, "big", EventId(0), None).is_none(), "a body over the budget is not kept");
    }
}
