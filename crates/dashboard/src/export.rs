//! CSV export: the rows last loaded for each table (with live arrivals) are kept here, so an
//! export writes exactly the rows the table shows, in its order, without sending them back
//! over IPC; and the CSV a user saves.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use subscriber_protocol::{CardId, CardTransaction, MerchantTransaction, TransactionId};

use crate::error::{CommandError, codes};
use crate::views::ExportResult;

/// A transaction with an id, as the tables list them.
pub trait Listed: Clone {
    fn id(&self) -> TransactionId;
}

impl Listed for CardTransaction {
    fn id(&self) -> TransactionId {
        self.transaction_id
    }
}

impl Listed for MerchantTransaction {
    fn id(&self) -> TransactionId {
        self.transaction_id
    }
}

/// The rows of one table: newest first, as loaded.
#[derive(Debug)]
pub struct Table<T> {
    rows: Vec<T>,
}

impl<T> Default for Table<T> {
    fn default() -> Self {
        Self { rows: Vec::new() }
    }
}

impl<T: Listed> Table<T> {
    pub fn replace(&mut self, rows: Vec<T>) {
        self.rows = rows;
    }

    /// A live arrival: new rows go first (lists are newest first); a settled one replaces its
    /// pending row.
    pub fn upsert(&mut self, row: T) {
        match self.rows.iter_mut().find(|existing| existing.id() == row.id()) {
            Some(existing) => *existing = row,
            None => self.rows.insert(0, row),
        }
    }

    /// The rows of `ids`, in that order; ids the table does not hold are skipped.
    pub fn select(&self, ids: &[TransactionId]) -> Vec<T> {
        let by_id: HashMap<TransactionId, &T> = self.rows.iter().map(|row| (row.id(), row)).collect();
        ids.iter().filter_map(|id| by_id.get(id).map(|row| (*row).clone())).collect()
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

/// Every table of the session.
#[derive(Debug, Default)]
pub struct Exports {
    pub cards: HashMap<CardId, Table<CardTransaction>>,
    pub merchant: Table<MerchantTransaction>,
}

/// How a kind of row becomes a CSV line.
pub trait CsvRow {
    const HEADER: &'static [&'static str];
    fn fields(&self) -> Vec<String>;
}

/// A transaction's CSV row: its id, time, state, amount and currency first, then the columns
/// of its own list, then the address, so every transaction export reads alike.
macro_rules! transaction_row {
    ($row:ty, $($column:literal => |$it:ident| $value:expr),* $(,)?) => {
        impl CsvRow for $row {
            const HEADER: &'static [&'static str] = &[
                "transactionId",
                "createdAt",
                "pending",
                "amount",
                "currency",
                $($column,)*
                "street",
                "streetNo",
                "city",
                "zip",
                "country",
            ];

            fn fields(&self) -> Vec<String> {
                vec![
                    self.transaction_id.to_string(),
                    self.created_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                    self.pending.to_string(),
                    format!("{:.2}", self.amount),
                    self.currency.clone(),
                    $({
                        let $it = self;
                        $value
                    },)*
                    self.street.clone(),
                    self.street_no.clone(),
                    self.city.clone(),
                    self.zip.clone(),
                    self.country.clone(),
                ]
            }
        }
    };
}

transaction_row!(CardTransaction,
    "merchantName" => |row| row.merchant_name.clone(),
    "category" => |row| row.category.clone(),
    "descriptor" => |row| row.descriptor.clone(),
    "counterparty" => |row| row.enrichment.counterparty.as_ref().map(|found| found.name.clone()).unwrap_or_default(),
    "brandId" => |row| row.enrichment.counterparty.as_ref().map(|found| found.brand_id.clone()).unwrap_or_default(),
    "confidence" => |row| row.enrichment.counterparty.as_ref().map(|found| found.confidence.as_str().to_owned()).unwrap_or_default(),
    "intermediaries" => |row| row.enrichment.intermediaries.iter().map(|party| party.name.as_str()).collect::<Vec<_>>().join("; "),
    "channel" => |row| wire_name(&row.enrichment.channel),
    "personalFinanceCategory" => |row| row.enrichment.personal_finance_category.map(|category| wire_name(&category.detailed)).unwrap_or_default(),
    "recurringStreamId" => |row| row.enrichment.recurring_stream_id.clone().unwrap_or_default(),
    "refundOf" => |row| row.enrichment.refund_of.map(|id| id.to_string()).unwrap_or_default(),
);

/// An enum as the API writes it (`in_store`, `food_and_drink_coffee`).
pub fn wire_name(value: &impl serde::Serialize) -> String {
    serde_json::to_value(value).ok().and_then(|value| value.as_str().map(str::to_owned)).unwrap_or_default()
}
transaction_row!(MerchantTransaction,
    "locationId" => |row| row.location_id.to_string(),
    "lastFour" => |row| format!("{:04}", row.last_four),
);

/// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled. A field
/// starting with `=`, `+`, `-` or `@` that is not a number gets a leading `'` so a spreadsheet
/// does not run it as a formula.
pub fn csv_field(text: &str) -> String {
    let guarded = formula_guarded(text);
    if guarded.contains([',', '"', '\n', '\r']) { format!("\"{}\"", guarded.replace('"', "\"\"")) } else { guarded }
}

/// A field a spreadsheet will not run as a formula: one starting with `=`, `+`, `-` or `@`
/// that is not a number gets a leading `'`.
pub fn formula_guarded(text: &str) -> String {
    let is_number = text.parse::<f64>().is_ok();
    if !is_number && text.starts_with(['=', '+', '-', '@']) { format!("'{text}") } else { text.to_owned() }
}

/// Writes the rows as CSV (header first, CRLF line ends as RFC 4180 has them).
pub fn write_csv<T: CsvRow>(path: &Path, rows: &[T]) -> Result<ExportResult, CommandError> {
    let io = |error: std::io::Error| CommandError::new(codes::IO, format!("{} not written: {error}", path.display()));
    let file = std::fs::File::create(path).map_err(io)?;
    let mut out = std::io::BufWriter::new(file);
    write!(out, "{}\r\n", T::HEADER.join(",")).map_err(io)?;
    for row in rows {
        let line = row.fields().iter().map(|field| csv_field(field)).collect::<Vec<_>>().join(",");
        write!(out, "{line}\r\n").map_err(io)?;
    }
    out.flush().map_err(io)?;
    Ok(ExportResult { path: path.display().to_string(), rows: u32::try_from(rows.len()).unwrap_or(u32::MAX) })
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
