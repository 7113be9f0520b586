//! Lookup's batch tool: a CSV of descriptors (a bank statement, another provider's export)
//! enriched by the service 100 rows at a time and written back as CSV with what was found beside
//! each row. The file is read and written on this computer; only the rows go to the service.
//!
//! The input has a header. `descriptor` (or `description`, `merchant`, `name`) is the one column
//! needed, else the first column is taken as it; `mcc`, `city`, `zip`, `countryCode`
//! (`country`), `amount`, `currency` and `date` are sent when present. A row the service's rules
//! refuse (no letter or digit, an MCC of three digits) is kept with its `problem` and not sent.

use std::path::Path;

use subscriber_protocol::rules::enrichment::{MAX_TRANSACTIONS, enrich_request};
use subscriber_protocol::{Confidence, EnrichInput, EnrichRequest, Enrichment};

use crate::app::Dashboard;
use crate::error::{CommandError, codes};
use crate::export::{formula_guarded, wire_name};
use crate::views::EnrichedFile;

/// The most rows one file may hold (a hundred calls).
pub const MAX_ROWS: usize = 10_000;

/// The columns added after the input's own.
const ADDED: &[&str] = &[
    "counterparty",
    "brandId",
    "confidence",
    "score",
    "intermediaries",
    "channel",
    "personalFinanceCategory",
    "locationId",
    "locationAddress",
    "problem",
];

/// A row read: its fields as given, and what is sent for it.
struct Row {
    fields: Vec<String>,
    input: EnrichInput,
    problem: Option<String>,
}

/// Where each known column is in the header, by its lower-case name.
fn column(header: &[String], names: &[&str]) -> Option<usize> {
    header.iter().position(|name| names.contains(&name.trim().to_ascii_lowercase().as_str()))
}

fn read(text: &str) -> Result<(Vec<String>, Vec<Row>), CommandError> {
    let invalid = |message: String| CommandError::new(codes::INVALID_INPUT, message);
    let mut reader = csv::ReaderBuilder::new().flexible(true).trim(csv::Trim::Fields).from_reader(text.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .map_err(|error| invalid(format!("the file is not CSV: {error}")))?
        .iter()
        .map(str::to_owned)
        .collect();
    if header.iter().all(|name| name.is_empty()) {
        return Err(invalid("the file is empty: its first line names the columns, one being descriptor".into()));
    }
    let descriptor = column(&header, &["descriptor", "description", "merchant", "name"]).unwrap_or(0);
    let at = |names: &[&str]| column(&header, names);
    let (mcc, city, zip) = (at(&["mcc"]), at(&["city"]), at(&["zip", "postcode", "postalcode"]));
    let (country, amount) = (at(&["countrycode", "country"]), at(&["amount"]));
    let (currency, date) = (at(&["currency"]), at(&["date"]));
    let mut rows = Vec::new();
    for (line, record) in reader.records().enumerate() {
        let record = record.map_err(|error| invalid(format!("line {} is not CSV: {error}", line + 2)))?;
        if rows.len() == MAX_ROWS {
            return Err(invalid(format!("the file holds more than {MAX_ROWS} rows: split it")));
        }
        let fields: Vec<String> = record.iter().map(str::to_owned).collect();
        let get = |index: Option<usize>| {
            index.and_then(|index| fields.get(index)).map(|text| text.trim().to_owned()).filter(|text| !text.is_empty())
        };
        let amount_text = get(amount);
        let input = EnrichInput {
            id: (line + 2).to_string(),
            descriptor: get(Some(descriptor)).unwrap_or_default(),
            amount: amount_text.as_deref().and_then(|text| text.parse().ok()),
            currency: get(currency),
            date: get(date),
            mcc: get(mcc),
            city: get(city),
            zip: get(zip),
            country_code: get(country),
        };
        let mut problem = None;
        if amount_text.is_some() && input.amount.is_none() {
            problem = Some("amount: not a number".to_owned());
        } else if let Err(violations) = enrich_request(&EnrichRequest { transactions: vec![input.clone()] }) {
            problem = Some(violations.message().replace("transactions[0].", ""));
        }
        rows.push(Row { fields, input, problem });
    }
    if rows.is_empty() {
        return Err(invalid("the file has a header but no rows".into()));
    }
    Ok((header, rows))
}

fn found_fields(found: Option<&Enrichment>) -> Vec<String> {
    let Some(found) = found else { return vec![String::new(); ADDED.len() - 1] };
    let counterparty = found.counterparty.as_ref();
    vec![
        counterparty.map(|party| party.name.clone()).unwrap_or_default(),
        counterparty.map(|party| party.brand_id.clone()).unwrap_or_default(),
        counterparty.map(|party| party.confidence.as_str().to_owned()).unwrap_or_default(),
        counterparty.map(|party| party.score.to_string()).unwrap_or_default(),
        found.intermediaries.iter().map(|party| party.name.as_str()).collect::<Vec<_>>().join("; "),
        wire_name(&found.channel),
        found.personal_finance_category.map(|category| wire_name(&category.detailed)).unwrap_or_default(),
        found.location.as_ref().map(|location| location.location_id.to_string()).unwrap_or_default(),
        found.location.as_ref().map(|location| location.address.clone()).unwrap_or_default(),
    ]
}

impl Dashboard {
    /// Enriches the rows of `csv_text` and writes them with what was found to `path`.
    pub async fn enrich_csv(&self, csv_text: &str, path: &Path) -> Result<EnrichedFile, CommandError> {
        let (header, rows) = read(csv_text)?;
        let client = self.client().await?;
        let sendable: Vec<usize> = (0..rows.len()).filter(|index| rows[*index].problem.is_none()).collect();
        let mut found: Vec<Option<Enrichment>> = vec![None; rows.len()];
        for chunk in sendable.chunks(MAX_TRANSACTIONS) {
            let request =
                EnrichRequest { transactions: chunk.iter().map(|index| rows[*index].input.clone()).collect() };
            let enriched = client.enrich_transactions(&request).await?;
            for (index, item) in chunk.iter().zip(enriched) {
                found[*index] = Some(item.enrichment);
            }
        }
        let io =
            |error: std::io::Error| CommandError::new(codes::IO, format!("{} not written: {error}", path.display()));
        let mut writer = csv::WriterBuilder::new()
            .terminator(csv::Terminator::CRLF)
            .from_path(path)
            .map_err(|error| CommandError::new(codes::IO, format!("{} not written: {error}", path.display())))?;
        let width = header.len();
        let mut out_header: Vec<String> = header.iter().map(|name| formula_guarded(name)).collect();
        out_header.extend(ADDED.iter().map(|name| (*name).to_owned()));
        writer.write_record(&out_header).map_err(|error| io(error.into()))?;
        let (mut matched, mut sure) = (0, 0);
        for (row, found) in rows.iter().zip(&found) {
            let mut line: Vec<String> = row.fields.iter().map(|field| formula_guarded(field)).collect();
            line.resize(width.max(line.len()), String::new());
            line.extend(found_fields(found.as_ref()).into_iter().map(|field| formula_guarded(&field)));
            line.push(row.problem.clone().unwrap_or_default());
            writer.write_record(&line).map_err(|error| io(error.into()))?;
            if let Some(party) = found.as_ref().and_then(|found| found.counterparty.as_ref()) {
                matched += 1;
                sure += usize::from(party.confidence >= Confidence::High);
            }
        }
        writer.flush().map_err(io)?;
        let count = |value: usize| u32::try_from(value).unwrap_or(u32::MAX);
        Ok(EnrichedFile {
            path: path.display().to_string(),
            rows: count(rows.len()),
            matched: count(matched),
            high_or_better: count(sure),
            refused: count(rows.len() - sendable.len()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_read_by_their_header_and_bad_ones_kept_with_their_problem() {
        let text = "Date,Description,Amount,MCC\n2026-11-02,SQ *BLUE HERON COFFEE,4.50,5814\n2026-11-03,\"***\",1,\n2026-11-04,KETTLE,x,\n";
        let (header, rows) = read(text).expect("read");
        assert_eq!(header, ["Date", "Description", "Amount", "MCC"]);
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].input.descriptor, "SQ *BLUE HERON COFFEE");
        assert_eq!(rows[0].input.mcc.as_deref(), Some("5814"));
        assert_eq!(rows[0].input.amount, Some(4.5));
        assert!(rows[0].problem.is_none());
        assert!(
            rows[1].problem.as_deref().is_some_and(|problem| problem.starts_with("descriptor")),
            "{:?}",
            rows[1].problem
        );
        assert_eq!(rows[2].problem.as_deref(), Some("amount: not a number"));
    }

    #[test]
    fn a_file_without_rows_or_with_too_many_is_refused() {
        assert!(read("").is_err());
        assert!(read("descriptor\n").is_err());
        let many = format!("descriptor\n{}", "KETTLE\n".repeat(MAX_ROWS + 1));
        assert!(read(&many).is_err());
    }
}
