use super::sql::{Connection, OptionalExtension, Row, Transaction, params};

use super::StorageResult;

#[derive(Debug, Clone)]
pub struct CardRow {
    pub id: i64,
    pub subscriber_id: i64,
    pub last_four: u16,
    pub brand: String,
    pub first_name: String,
    pub last_name: String,
    pub exp_month: u32,
    pub exp_year: u32,
    pub country_code: String,
    pub enrolled_at: i64,
}

const COLUMNS: &str =
    "id, subscriber_id, last_four, brand, first_name, last_name, exp_month, exp_year, country_code, enrolled_at";

fn from_row(row: &Row<'_>) -> super::StorageResult<CardRow> {
    Ok(CardRow {
        id: row.get(0)?,
        subscriber_id: row.get(1)?,
        last_four: row.get(2)?,
        brand: row.get(3)?,
        first_name: row.get(4)?,
        last_name: row.get(5)?,
        exp_month: row.get(6)?,
        exp_year: row.get(7)?,
        country_code: row.get(8)?,
        enrolled_at: row.get(9)?,
    })
}

pub struct NewCard<'a> {
    pub subscriber_id: i64,
    pub fingerprint: &'a [u8],
    pub last_four: u16,
    pub brand: &'a str,
    pub first_name: &'a str,
    pub last_name: &'a str,
    pub exp_month: u32,
    pub exp_year: u32,
    pub country_code: &'a str,
    pub enrolled_at: i64,
}

pub enum Inserted {
    Created(i64),
    /// The subscriber already enrolled this card, under this id.
    Duplicate(i64),
}

pub fn insert(transaction: &Transaction<'_>, card: &NewCard<'_>) -> StorageResult<Inserted> {
    let existing: Option<i64> = transaction
        .query_row(
            "SELECT id FROM cards WHERE subscriber_id = ?1 AND fingerprint = ?2",
            params![card.subscriber_id, card.fingerprint],
            |row| row.get(0),
        )
        .optional()?;
    if let Some(id) = existing {
        return Ok(Inserted::Duplicate(id));
    }
    transaction.execute(
        "INSERT INTO cards (subscriber_id, fingerprint, last_four, brand, first_name, last_name,
                            exp_month, exp_year, country_code, enrolled_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        params![
            card.subscriber_id,
            card.fingerprint,
            card.last_four,
            card.brand,
            card.first_name,
            card.last_name,
            card.exp_month,
            card.exp_year,
            card.country_code,
            card.enrolled_at
        ],
    )?;
    Ok(Inserted::Created(transaction.last_insert_rowid()))
}

/// The card when it belongs to the subscriber; another subscriber's card is `None`.
pub fn get(connection: &Connection, subscriber_id: i64, card_id: i64) -> StorageResult<Option<CardRow>> {
    let mut statement =
        connection.prepare_cached(&format!("SELECT {COLUMNS} FROM cards WHERE id = ?1 AND subscriber_id = ?2"))?;
    statement.query_row(params![card_id, subscriber_id], from_row).optional()
}

/// Newest first.
pub fn list(connection: &Connection, subscriber_id: i64) -> StorageResult<Vec<CardRow>> {
    let mut statement =
        connection.prepare_cached(&format!("SELECT {COLUMNS} FROM cards WHERE subscriber_id = ?1 ORDER BY id DESC"))?;
    let rows = statement.query_map([subscriber_id], from_row)?;
    rows.collect::<Result<_, _>>()
}

/// The card at position `pick % count` of every enrolled card, as (id, last four): a buyer
/// for the sandbox's simulated purchases. `None` when no card is enrolled.
pub fn pick(connection: &Connection, pick: u64) -> StorageResult<Option<(i64, u16)>> {
    let count: i64 = connection.query_row("SELECT COUNT(*) FROM cards", params![], |row| row.get(0))?;
    let Ok(count) = u64::try_from(count) else { return Ok(None) };
    if count == 0 {
        return Ok(None);
    }
    let offset = i64::try_from(pick % count).unwrap_or(0);
    connection
        .query_row("SELECT id, last_four FROM cards ORDER BY id LIMIT 1 OFFSET ?1", [offset], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .optional()
}
