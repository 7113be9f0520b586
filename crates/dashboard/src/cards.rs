//! Cards and their transactions: the rows kept for export, and the CSV a user saves.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use subscriber_protocol::CardTransaction;

use crate::error::{CommandError, codes};

/// Page size used to read a long history (the contract's maximum).
pub const PAGE_LIMIT: u32 = 5000;

/// The transactions last loaded per card (with live arrivals), so an export writes exactly the
/// rows the table shows without sending them back over IPC.
#[derive(Debug, Default)]
pub struct TransactionCache {
    cards: HashMap<i64, Vec<CardTransaction>>,
}

impl TransactionCache {
    pub fn replace(&mut self, card_id: i64, rows: Vec<CardTransaction>) {
        self.cards.insert(card_id, rows);
    }

    /// A live arrival: new rows go first (lists are newest first); a settled one replaces its
    /// pending row.
    pub fn upsert(&mut self, transaction: CardTransaction) {
        let rows = self.cards.entry(transaction.card_id).or_default();
        match rows.iter_mut().find(|row| row.transaction_id == transaction.transaction_id) {
            Some(row) => *row = transaction,
            None => rows.insert(0, transaction),
        }
    }

    /// The rows of `ids`, in that order; ids the cache does not know are skipped.
    pub fn select(&self, card_id: i64, ids: &[i64]) -> Vec<CardTransaction> {
        let Some(rows) = self.cards.get(&card_id) else {
            return Vec::new();
        };
        let by_id: HashMap<i64, &CardTransaction> = rows.iter().map(|row| (row.transaction_id, row)).collect();
        ids.iter().filter_map(|id| by_id.get(id).map(|row| (*row).clone())).collect()
    }
}

pub const CSV_HEADER: [&str; 13] = [
    "transactionId",
    "createdAt",
    "pending",
    "amount",
    "currency",
    "merchantName",
    "category",
    "descriptor",
    "street",
    "streetNo",
    "city",
    "zip",
    "country",
];

/// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled. A field
/// starting with `=`, `+`, `-` or `@` that is not a number gets a leading `'` so a spreadsheet
/// does not run it as a formula.
pub fn csv_field(text: &str) -> String {
    let is_number = text.parse::<f64>().is_ok();
    let guarded =
        if !is_number && text.starts_with(['=', '+', '-', '@']) { format!("'{text}") } else { text.to_owned() };
    if guarded.contains([',', '"', '\n', '\r']) { format!("\"{}\"", guarded.replace('"', "\"\"")) } else { guarded }
}

pub fn csv_row(row: &CardTransaction) -> String {
    let fields = [
        row.transaction_id.to_string(),
        row.created_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        row.pending.to_string(),
        format!("{:.2}", row.amount),
        row.currency.clone(),
        row.merchant_name.clone(),
        row.category.clone(),
        row.descriptor.clone(),
        row.street.clone(),
        row.street_no.clone(),
        row.city.clone(),
        row.zip.clone(),
        row.country.clone(),
    ];
    fields.iter().map(|field| csv_field(field)).collect::<Vec<_>>().join(",")
}

/// Writes the rows as CSV (header first, CRLF line ends as RFC 4180 has them).
pub fn write_csv(path: &Path, rows: &[CardTransaction]) -> Result<(), CommandError> {
    let io = |error: std::io::Error| CommandError::new(codes::IO, format!("{} not written: {error}", path.display()));
    let file = std::fs::File::create(path).map_err(io)?;
    let mut out = std::io::BufWriter::new(file);
    write!(out, "{}\r\n", CSV_HEADER.join(",")).map_err(io)?;
    for row in rows {
        write!(out, "{}\r\n", csv_row(row)).map_err(io)?;
    }
    out.flush().map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_are_quoted_and_guarded_against_formulas() {
        assert_eq!(csv_field("Blue Bottle"), "Blue Bottle");
        assert_eq!(csv_field("Smith, Jones & Co"), "\"Smith, Jones & Co\"");
        assert_eq!(csv_field("The \"Best\" Cafe"), "\"The \"\"Best\"\" Cafe\"");
        assert_eq!(csv_field("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        assert_eq!(csv_field("-12.50"), "-12.50");
    }
}
