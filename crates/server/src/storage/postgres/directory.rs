use std::sync::Arc;

use futures::FutureExt;
use tokio_postgres::Row;
use tokio_postgres::binary_copy::BinaryCopyInWriter;
use tokio_postgres::types::Type;

use super::{Database, execute, query, query_opt};
use crate::storage::directory::{
    DirectoryMerchant, DirectoryState, ENROLLED_COLUMNS, Entry, Interner, LOAD_PAGE, enrolled_merchant,
};
use crate::storage::merchants::StoredAddress;
use crate::storage::{StorageError, StorageResult};

pub async fn state(db: &Database) -> StorageResult<Option<DirectoryState>> {
    let client = db.client().await?;
    query_opt(&client, "SELECT seed, size, version FROM directory_state WHERE id = 1", &[])
        .await?
        .map(|row| Ok(DirectoryState { seed: row.try_get(0)?, size: row.try_get(1)?, version: row.try_get(2)? }))
        .transpose()
}

/// The rows go in with `COPY … (FORMAT binary)`: one stream, not a statement per merchant.
pub async fn replace(db: &Database, state: DirectoryState, entries: Arc<Vec<Entry>>, now: i64) -> StorageResult<()> {
    db.write_maintenance(move |client| {
        let entries = Arc::clone(&entries);
        async move {
            execute(client, "DELETE FROM directory_merchants", &[]).await?;
            let sink = client
                .copy_in(
                    "COPY directory_merchants (id, dba_name, descriptor, mcc, street, street_no, city, region, country,
                         zip, phone, latitude, longitude, currency) FROM STDIN (FORMAT binary)",
                )
                .await?;
            let types = [
                Type::INT8,
                Type::TEXT,
                Type::TEXT,
                Type::INT8,
                Type::TEXT,
                Type::TEXT,
                Type::TEXT,
                Type::TEXT,
                Type::TEXT,
                Type::TEXT,
                Type::INT8,
                Type::FLOAT8,
                Type::FLOAT8,
                Type::TEXT,
            ];
            let writer = BinaryCopyInWriter::new(sink, &types);
            let mut writer = std::pin::pin!(writer);
            for entry in entries.iter() {
                let mcc = i64::from(entry.mcc);
                let phone = i64::try_from(entry.phone).unwrap_or(0);
                writer
                    .as_mut()
                    .write(&[
                        &entry.id,
                        &&*entry.dba_name,
                        &&*entry.descriptor,
                        &mcc,
                        &&*entry.street,
                        &&*entry.street_no,
                        &&*entry.city,
                        &entry.region.as_deref(),
                        &&*entry.country,
                        &&*entry.zip,
                        &phone,
                        &entry.latitude,
                        &entry.longitude,
                        &&*entry.currency,
                    ])
                    .await?;
            }
            writer.as_mut().finish().await?;
            execute(
                client,
                "INSERT INTO directory_state (id, seed, size, version, generated_at) VALUES (1, $1, $2, $3, $4)
                 ON CONFLICT (id) DO UPDATE SET seed = excluded.seed, size = excluded.size,
                     version = excluded.version, generated_at = excluded.generated_at",
                &[&state.seed, &state.size, &state.version, &now],
            )
            .await?;
            Ok(())
        }
        .boxed()
    })
    .await
}

/// In pages of [`LOAD_PAGE`] rows by id: a round trip each.
pub async fn load(db: &Database) -> StorageResult<(Vec<Entry>, Interner)> {
    let client = db.client().await?;
    let mut interner = Interner::default();
    let mut entries = Vec::new();
    let mut after = i64::MIN;
    loop {
        let rows = query(
            &client,
            "SELECT id, dba_name, descriptor, mcc, street, street_no, city, region, country, zip, phone, latitude,
                 longitude, currency
             FROM directory_merchants WHERE id > $1 ORDER BY id LIMIT $2",
            &[&after, &LOAD_PAGE],
        )
        .await?;
        for row in &rows {
            let region: Option<&str> = row.try_get(7)?;
            let phone: i64 = row.try_get(10)?;
            let mcc: i64 = row.try_get(3)?;
            entries.push(Entry {
                id: row.try_get(0)?,
                dba_name: row.try_get::<_, &str>(1)?.into(),
                descriptor: row.try_get::<_, &str>(2)?.into(),
                mcc: u16::try_from(mcc).map_err(|_| StorageError::Corrupt(format!("MCC {mcc} is out of range")))?,
                street: interner.get(row.try_get(4)?),
                street_no: row.try_get::<_, &str>(5)?.into(),
                city: interner.get(row.try_get(6)?),
                region: region.map(|region| interner.get(region)),
                country: interner.get(row.try_get(8)?),
                zip: interner.get(row.try_get(9)?),
                phone: u64::try_from(phone).unwrap_or(0),
                latitude: row.try_get(11)?,
                longitude: row.try_get(12)?,
                currency: interner.get(row.try_get(13)?),
                merchant_id: None,
                location_id: None,
                retired: false,
            });
        }
        match entries.last() {
            Some(last) if i64::try_from(rows.len()).unwrap_or(0) >= LOAD_PAGE => after = last.id,
            _ => break,
        }
    }
    Ok((entries, interner))
}

fn enrolled_from_row(row: &Row) -> StorageResult<DirectoryMerchant> {
    Ok(enrolled_merchant(
        row.try_get(0)?,
        row.try_get(1)?,
        row.try_get(2)?,
        row.try_get(3)?,
        row.try_get(4)?,
        StoredAddress {
            country_code: row.try_get(5)?,
            street: row.try_get(6)?,
            street_no: row.try_get(7)?,
            city: row.try_get(8)?,
            zip: row.try_get(9)?,
        },
        row.try_get(10)?,
        row.try_get(11)?,
        row.try_get(12)?,
    ))
}

pub async fn enrolled_locations(db: &Database, only: Option<i64>) -> StorageResult<Vec<DirectoryMerchant>> {
    let client = db.client().await?;
    let rows = query(
        &client,
        &format!(
            "SELECT {ENROLLED_COLUMNS} FROM locations l JOIN merchants m ON m.id = l.merchant_id
             WHERE $1::BIGINT IS NULL OR l.id = $1 ORDER BY l.id"
        ),
        &[&only],
    )
    .await?;
    rows.iter().map(enrolled_from_row).collect()
}

pub async fn location_ids(db: &Database) -> StorageResult<Vec<i64>> {
    let client = db.client().await?;
    let rows = query(&client, "SELECT id FROM locations", &[]).await?;
    rows.iter().map(|row| Ok(row.try_get(0)?)).collect()
}
