use futures::FutureExt;
use tokio_postgres::Row;

use super::events::record_other;
use super::{Database, LOCK_SUBSCRIBERS, execute, query, query_one, query_opt};
use crate::storage::StorageResult;
use crate::storage::changes::Change;
use crate::storage::idempotency::Replay;
use crate::storage::merchants::{
    CoordinatesSource, Inserted, LOCATION_COLUMNS, LocationRow, M_COLUMNS, MERCHANT_COLUMNS, MerchantRow, NewLocation,
    NewMerchant, StoredAddress,
};

fn merchant_from_row(row: &Row, first: usize) -> StorageResult<MerchantRow> {
    Ok(MerchantRow {
        id: row.try_get(first)?,
        subscriber_id: row.try_get(first + 1)?,
        name: row.try_get(first + 2)?,
        mcc: row.try_get(first + 3)?,
        country_code: row.try_get(first + 4)?,
        phone: row.try_get(first + 5)?,
        website: row.try_get(first + 6)?,
        created_at: row.try_get(first + 7)?,
    })
}

fn location_from_row(row: &Row, first: usize) -> StorageResult<LocationRow> {
    Ok(LocationRow {
        id: row.try_get(first)?,
        merchant_id: row.try_get(first + 1)?,
        address: StoredAddress {
            country_code: row.try_get(first + 2)?,
            street: row.try_get(first + 3)?,
            street_no: row.try_get(first + 4)?,
            city: row.try_get(first + 5)?,
            zip: row.try_get(first + 6)?,
        },
        latitude: row.try_get(first + 7)?,
        longitude: row.try_get(first + 8)?,
        coordinates_source: CoordinatesSource::parse(row.try_get(first + 9)?)?,
        descriptor: row.try_get(first + 10)?,
        created_at: row.try_get(first + 11)?,
    })
}

pub async fn insert(db: &Database, merchant: NewMerchant, replay: Option<Replay>) -> StorageResult<Inserted> {
    db.write_again(move |client| {
        let (merchant, replay) = (merchant.clone(), replay.clone());
        async move {
            // `subscriber_id` is unique: a second enrollment inserts nothing and reads the first.
            let inserted = query_opt(
                client,
                "INSERT INTO merchants (subscriber_id, name, mcc, country_code, phone, website, created_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (subscriber_id) DO NOTHING RETURNING id",
                &[
                    &merchant.subscriber_id,
                    &merchant.name,
                    &merchant.mcc,
                    &merchant.country_code,
                    &merchant.phone,
                    &merchant.website,
                    &merchant.created_at,
                ],
            )
            .await?;
            match inserted {
                Some(row) => {
                    let id = row.try_get(0)?;
                    super::idempotency::store_replay(client, replay, id, merchant.created_at).await?;
                    Ok(Inserted::Created(id))
                }
                None => {
                    let row = query_one(
                        client,
                        "SELECT id FROM merchants WHERE subscriber_id = $1",
                        &[&merchant.subscriber_id],
                    )
                    .await?;
                    Ok(Inserted::Existing(row.try_get(0)?))
                }
            }
        }
        .boxed()
    })
    .await
}

pub async fn find_by_subscriber(db: &Database, subscriber_id: i64) -> StorageResult<Option<MerchantRow>> {
    let client = db.client().await?;
    query_opt(&client, &format!("SELECT {MERCHANT_COLUMNS} FROM merchants WHERE subscriber_id = $1"), &[&subscriber_id])
        .await?
        .map(|row| merchant_from_row(&row, 0))
        .transpose()
}

pub async fn get(db: &Database, subscriber_id: i64, merchant_id: i64) -> StorageResult<Option<MerchantRow>> {
    let client = db.client().await?;
    query_opt(
        &client,
        &format!("SELECT {MERCHANT_COLUMNS} FROM merchants WHERE id = $1 AND subscriber_id = $2"),
        &[&merchant_id, &subscriber_id],
    )
    .await?
    .map(|row| merchant_from_row(&row, 0))
    .transpose()
}

/// Two round trips and the commit: the row (with `BEGIN` and the subscriber's lock), then its
/// event and the replay, which need its id.
pub async fn insert_location(db: &Database, location: NewLocation, replay: Option<Replay>) -> StorageResult<i64> {
    let (id, queued) = db
        .write(move |client| {
            async move {
                let subscribers = vec![location.subscriber_id];
                let (locked, inserted) = futures::future::join(
                    execute(client, LOCK_SUBSCRIBERS, &[&subscribers]),
                    query_one(
                        client,
                        "INSERT INTO locations (merchant_id, country_code, street, street_no, city, zip, latitude,
                             longitude, coordinates_source, descriptor, created_at)
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id",
                        &[
                            &location.merchant_id,
                            &location.address.country_code,
                            &location.address.street,
                            &location.address.street_no,
                            &location.address.city,
                            &location.address.zip,
                            &location.latitude,
                            &location.longitude,
                            &location.coordinates_source.as_str(),
                            &location.descriptor,
                            &location.created_at,
                        ],
                    ),
                )
                .await;
                locked?;
                let id: i64 = inserted?.try_get(0)?;
                let event = (location.event_data)(id);
                let (recorded, replayed) = futures::future::join(
                    record_other(client, location.subscriber_id, event.event_type, &event.data, location.created_at),
                    super::idempotency::store_replay(client, replay, id, location.created_at),
                )
                .await;
                replayed?;
                Ok((id, recorded?.1))
            }
            .boxed()
        })
        .await?;
    if queued > 0 {
        db.notify(Change::Deliveries.payload());
    }
    Ok(id)
}

pub async fn locations(db: &Database, merchant_id: i64) -> StorageResult<Vec<LocationRow>> {
    let client = db.client().await?;
    let rows = query(
        &client,
        &format!("SELECT {LOCATION_COLUMNS} FROM locations l WHERE l.merchant_id = $1 ORDER BY l.id"),
        &[&merchant_id],
    )
    .await?;
    rows.iter().map(|row| location_from_row(row, 0)).collect()
}

pub async fn location_of(db: &Database, merchant_id: i64, location_id: i64) -> StorageResult<Option<LocationRow>> {
    let client = db.client().await?;
    query_opt(
        &client,
        &format!("SELECT {LOCATION_COLUMNS} FROM locations l WHERE l.id = $1 AND l.merchant_id = $2"),
        &[&location_id, &merchant_id],
    )
    .await?
    .map(|row| location_from_row(&row, 0))
    .transpose()
}

pub async fn subscribers_location(
    db: &Database,
    subscriber_id: i64,
    location_id: i64,
) -> StorageResult<Option<LocationRow>> {
    let client = db.client().await?;
    query_opt(
        &client,
        &format!(
            "SELECT {LOCATION_COLUMNS} FROM locations l JOIN merchants m ON m.id = l.merchant_id
             WHERE l.id = $1 AND m.subscriber_id = $2"
        ),
        &[&location_id, &subscriber_id],
    )
    .await?
    .map(|row| location_from_row(&row, 0))
    .transpose()
}

pub async fn pick_location(db: &Database, merchant_id: i64, pick: u64) -> StorageResult<Option<LocationRow>> {
    let client = db.client().await?;
    let count: i64 = query_one(&client, "SELECT COUNT(*) FROM locations WHERE merchant_id = $1", &[&merchant_id])
        .await?
        .try_get(0)?;
    let Some(offset) = offset(count, pick) else { return Ok(None) };
    query_opt(
        &client,
        &format!("SELECT {LOCATION_COLUMNS} FROM locations l WHERE l.merchant_id = $1 ORDER BY l.id LIMIT 1 OFFSET $2"),
        &[&merchant_id, &offset],
    )
    .await?
    .map(|row| location_from_row(&row, 0))
    .transpose()
}

pub async fn pick_any_location(db: &Database, pick: u64) -> StorageResult<Option<(LocationRow, MerchantRow)>> {
    let client = db.client().await?;
    let count: i64 = query_one(&client, "SELECT COUNT(*) FROM locations", &[]).await?.try_get(0)?;
    let Some(offset) = offset(count, pick) else { return Ok(None) };
    query_opt(
        &client,
        &format!(
            "SELECT {LOCATION_COLUMNS}, {M_COLUMNS} FROM locations l JOIN merchants m ON m.id = l.merchant_id
             ORDER BY l.id LIMIT 1 OFFSET $1"
        ),
        &[&offset],
    )
    .await?
    .map(|row| Ok((location_from_row(&row, 0)?, merchant_from_row(&row, 12)?)))
    .transpose()
}

fn offset(count: i64, pick: u64) -> Option<i64> {
    let count = u64::try_from(count).ok().filter(|count| *count > 0)?;
    Some(i64::try_from(pick % count).unwrap_or(0))
}
