//! Each card's transactions in the 36-month window, each row's JSON written once, kept while
//! they are still the card's rows: any page of the card (by cursor, by dates, pending or not) and
//! any page of its sync is then cut from memory and assembled by copying, without the database or
//! the serializer. Reading 100 rows and writing their JSON on every page was nearly all of a
//! history read's time, and a page cache alone does not help a load that reads thousands of
//! different pages (each cursor, month and sync position is a page of its own).
//!
//! A card's rows are the answer as long as no event of the card was announced since they were
//! read (every insert and settlement records one: `EventHub::newest_event_of`, as for
//! `transaction_pages`); the sliding window is applied when a page is cut (it only moves forward,
//! so rows read then are all the rows there are now). Bounded in bytes: past the budget the
//! cards read least recently go. The caller checks who may read the card before asking: the
//! rows hold no permissions.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use subscriber_protocol::UnixSeconds;

use bytes::Bytes;
use parking_lot::RwLock;
use subscriber_protocol::{CardId, EventId, TransactionId};

use crate::enrichment::history::History;
use crate::storage::transactions::Filter;

/// One row: where it stands in both orders, and where its JSON is.
#[derive(Debug, Clone, Copy)]
struct Entry {
    created_at: UnixSeconds,
    id: TransactionId,
    created_seq: i64,
    change_seq: i64,
    pending: bool,
    start: usize,
    end: usize,
}

/// A row as read, with its JSON (`CardTransaction` at the newest version).
pub struct ReadRow {
    pub created_at: UnixSeconds,
    pub id: TransactionId,
    pub created_seq: i64,
    pub change_seq: i64,
    pub pending: bool,
    pub json: Vec<u8>,
}

/// A card's rows, newest first, with their JSON one after another.
pub struct CardLedger {
    /// `EventHub::newest_event_of` the card when the rows were read.
    event: EventId,
    rows: Vec<Entry>,
    /// Positions in `rows` in change order `(change_seq, id)`, for sync.
    by_change: Vec<u32>,
    json: Bytes,
    /// The card's recurring streams and each row's stream and refunded purchase.
    pub history: History,
    last_used: AtomicU64,
}

/// A page cut from a card's rows: the JSON of its rows joined by commas, and where the next
/// page starts (`None` on the last).
pub struct Cut {
    pub rows_json: Vec<u8>,
    pub next: Option<(UnixSeconds, i64)>,
}

/// A sync page cut from a card's rows: rows created past the cursor, rows changed past it,
/// the position after the page, and whether more wait.
pub struct SyncCut {
    pub added: Vec<u8>,
    pub modified: Vec<u8>,
    pub next: (i64, i64),
    pub has_more: bool,
}

impl CardLedger {
    /// The rows of a card as read when `event` was its newest event, in any order, and what
    /// its history says of them.
    pub fn new(event: EventId, mut read: Vec<ReadRow>, history: History) -> Self {
        read.sort_unstable_by_key(|row| std::cmp::Reverse((row.created_at, row.id)));
        let mut json = Vec::with_capacity(read.iter().map(|row| row.json.len()).sum());
        let rows: Vec<Entry> = read
            .into_iter()
            .map(|row| {
                let start = json.len();
                json.extend_from_slice(&row.json);
                Entry {
                    created_at: row.created_at,
                    id: row.id,
                    created_seq: row.created_seq,
                    change_seq: row.change_seq,
                    pending: row.pending,
                    start,
                    end: json.len(),
                }
            })
            .collect();
        let mut by_change: Vec<u32> = (0..u32::try_from(rows.len()).unwrap_or(u32::MAX)).collect();
        by_change.sort_unstable_by_key(|&index| (rows[index as usize].change_seq, rows[index as usize].id));
        Self { event, rows, by_change, json: Bytes::from(json), history, last_used: AtomicU64::new(0) }
    }

    fn bytes(&self) -> usize {
        self.json.len() + self.rows.len() * (std::mem::size_of::<Entry>() + 4)
    }

    fn append(&self, out: &mut Vec<u8>, entry: &Entry) {
        if !out.is_empty() {
            out.push(b',');
        }
        out.extend_from_slice(&self.json[entry.start..entry.end]);
    }

    /// The page `filter` asks for (`limit` rows, newest first): what
    /// `Store::transactions_page` reads from the database for a card.
    pub fn page(&self, filter: &Filter, limit: u32) -> Cut {
        let limit = usize::try_from(limit).unwrap_or(usize::MAX);
        // Rows are newest first: skip to the first one before the cursor.
        let first =
            filter.after.map_or(0, |after| self.rows.partition_point(|row| (row.created_at, row.id.get()) >= after));
        let mut rows_json = Vec::new();
        let (mut taken, mut last, mut next) = (0, None, None);
        for entry in &self.rows[first..] {
            if filter.from.is_some_and(|from| entry.created_at < from) {
                break;
            }
            if filter.to.is_some_and(|to| entry.created_at > to)
                || filter.pending.is_some_and(|pending| entry.pending != pending)
            {
                continue;
            }
            if taken == limit {
                // One more row: the page's last is where the next page starts.
                next = last;
                break;
            }
            self.append(&mut rows_json, entry);
            last = Some((entry.created_at, entry.id.get()));
            taken += 1;
        }
        Cut { rows_json, next }
    }

    /// The changes after `position` (`(change_seq, id)`) among rows created from `from` on, in
    /// change order, `count` of them: what `Store::changed_after` reads from the database.
    pub fn sync(&self, position: (i64, i64), from: UnixSeconds, count: u32) -> SyncCut {
        let count = usize::try_from(count).unwrap_or(usize::MAX);
        let first = self.by_change.partition_point(|&index| {
            let entry = &self.rows[index as usize];
            (entry.change_seq, entry.id.get()) <= position
        });
        let (mut added, mut modified) = (Vec::new(), Vec::new());
        let mut taken = 0;
        let mut next = position;
        let mut has_more = false;
        for &index in &self.by_change[first..] {
            let entry = &self.rows[index as usize];
            if entry.created_at < from {
                continue;
            }
            if taken == count {
                has_more = true;
                break;
            }
            let created_past_cursor = (entry.created_seq, entry.id.get()) > position;
            self.append(if created_past_cursor { &mut added } else { &mut modified }, entry);
            next = (entry.change_seq, entry.id.get());
            taken += 1;
        }
        SyncCut { added, modified, next, has_more }
    }
}

/// The cards' rows kept, within a budget of bytes.
pub struct CardRows {
    cards: RwLock<HashMap<CardId, Arc<CardLedger>>>,
    bytes: AtomicU64,
    budget: usize,
    clock: AtomicU64,
}

impl CardRows {
    pub fn new(budget: usize) -> Self {
        Self { cards: RwLock::default(), bytes: AtomicU64::new(0), budget, clock: AtomicU64::new(0) }
    }

    /// The card's rows, if they are still the answer (`event` is its newest event now).
    pub fn get(&self, card_id: CardId, event: EventId) -> Option<Arc<CardLedger>> {
        let ledger = self.cards.read().get(&card_id).filter(|ledger| ledger.event == event).cloned()?;
        ledger.last_used.store(self.clock.fetch_add(1, Ordering::Relaxed), Ordering::Relaxed);
        Some(ledger)
    }

    /// The card's rows kept, even if newer events came since: what its history says of a
    /// transaction shown alone (an event, a stream) needs no fresh read.
    pub fn any(&self, card_id: CardId) -> Option<Arc<CardLedger>> {
        self.cards.read().get(&card_id).cloned()
    }

    /// Forgets the card's rows (it was removed).
    pub fn forget(&self, card_id: CardId) {
        let mut cards = self.cards.write();
        if let Some(gone) = cards.remove(&card_id) {
            self.bytes.fetch_sub(gone.bytes() as u64, Ordering::Relaxed);
        }
    }

    /// Forgets every card's rows.
    pub fn clear(&self) {
        let mut cards = self.cards.write();
        cards.clear();
        self.bytes.store(0, Ordering::Relaxed);
    }

    /// Keeps the card's rows; past the budget, the cards read least recently go first.
    pub fn insert(&self, card_id: CardId, ledger: CardLedger) -> Arc<CardLedger> {
        let ledger = Arc::new(ledger);
        let size = ledger.bytes();
        if size > self.budget {
            return ledger;
        }
        ledger.last_used.store(self.clock.fetch_add(1, Ordering::Relaxed), Ordering::Relaxed);
        let mut cards = self.cards.write();
        let mut bytes = self.bytes.load(Ordering::Relaxed) as usize;
        if let Some(replaced) = cards.insert(card_id, Arc::clone(&ledger)) {
            bytes -= replaced.bytes();
        }
        bytes += size;
        if bytes > self.budget {
            let mut by_use: Vec<(u64, CardId)> = cards
                .iter()
                .filter(|(id, _)| **id != card_id)
                .map(|(id, kept)| (kept.last_used.load(Ordering::Relaxed), *id))
                .collect();
            by_use.sort_unstable();
            for (_, id) in by_use {
                if bytes <= self.budget * 3 / 4 {
                    break;
                }
                if let Some(gone) = cards.remove(&id) {
                    bytes -= gone.bytes();
                }
            }
        }
        self.bytes.store(bytes as u64, Ordering::Relaxed);
        ledger
    }
}

/// Puts `lists` (JSON array contents) into the first empty arrays of `shell`, in order: an
/// answer rendered with its lists empty, then filled with rows written beforehand.
pub fn fill_lists(shell: &[u8], lists: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::with_capacity(shell.len() + lists.iter().map(|list| list.len()).sum::<usize>());
    let mut rest = shell;
    for list in lists {
        let Some(at) = rest.windows(2).position(|pair| pair == b"[]") else { break };
        out.extend_from_slice(&rest[..=at]);
        out.extend_from_slice(list);
        rest = &rest[at + 1..];
    }
    out.extend_from_slice(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(created_at: UnixSeconds, id: i64, change_seq: i64, pending: bool) -> ReadRow {
        let json = format!("{{\"id\":{id}}}").into_bytes();
        ReadRow { created_at, id: TransactionId(id), created_seq: 0, change_seq, pending, json }
    }

    fn ledger() -> CardLedger {
        // Ids 1..=6 at times 10..=60; id 6 is pending and was changed by event 9.
        CardLedger::new(
            EventId(3),
            (1..=6).map(|id| row(UnixSeconds(id * 10), id, if id == 6 { 9 } else { 0 }, id == 6)).collect(),
            History::default(),
        )
    }

    #[test]
    fn pages_are_cut_newest_first_by_cursor_and_filters() {
        let ledger = ledger();
        let first = ledger.page(&Filter::default(), 2);
        assert_eq!(first.rows_json, br#"{"id":6},{"id":5}"#);
        assert_eq!(first.next, Some((UnixSeconds(50), 5)));
        let second = ledger.page(&Filter { after: first.next, ..Filter::default() }, 2);
        assert_eq!(second.rows_json, br#"{"id":4},{"id":3}"#);
        let dated =
            ledger.page(&Filter { from: Some(UnixSeconds(20)), to: Some(UnixSeconds(40)), ..Filter::default() }, 5);
        assert_eq!(dated.rows_json, br#"{"id":4},{"id":3},{"id":2}"#);
        assert_eq!(dated.next, None);
        let settled = ledger.page(&Filter { pending: Some(false), ..Filter::default() }, 1);
        assert_eq!(settled.rows_json, br#"{"id":5}"#);
        assert_eq!(settled.next, Some((UnixSeconds(50), 5)));
        let last = ledger.page(&Filter::default(), 6);
        assert_eq!(last.next, None, "exactly the rows there are: no next page");
    }

    #[test]
    fn sync_follows_the_change_order() {
        let ledger = ledger();
        let start = ledger.sync((0, 0), UnixSeconds(0), 5);
        assert_eq!(start.added, br#"{"id":1},{"id":2},{"id":3},{"id":4},{"id":5}"#);
        assert!(start.has_more);
        let rest = ledger.sync(start.next, UnixSeconds(0), 5);
        assert_eq!(rest.added, br#"{"id":6}"#, "created past the cursor");
        assert!(!rest.has_more);
        assert_eq!(rest.next, (9, 6));
        let windowed = ledger.sync((0, 0), UnixSeconds(35), 5);
        assert_eq!(windowed.added, br#"{"id":4},{"id":5},{"id":6}"#);
    }

    #[test]
    fn lists_are_filled_in_order() {
        let shell = br#"{"a":[],"b":[],"c":[],"n":"1.2"}"#;
        assert_eq!(fill_lists(shell, &[b"1,2", b"3"]), br#"{"a":[1,2],"b":[3],"c":[],"n":"1.2"}"#);
    }

    #[test]
    fn it_stays_within_its_budget() {
        let size = ledger().bytes();
        let rows = CardRows::new(size * 2);
        for card in 0..5 {
            rows.insert(CardId(card), ledger());
            assert!(rows.bytes.load(Ordering::Relaxed) as usize <= size * 2);
        }
        assert!(rows.get(CardId(4), EventId(3)).is_some(), "the newest is kept");
        assert!(rows.get(CardId(4), EventId(4)).is_none(), "a newer event");
    }
}
