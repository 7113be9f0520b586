use futures::FutureExt;
use tokio_postgres::Row;

use super::events::record_other;
use super::transactions::Columns;
use super::{Client, Database, LOCK_SUBSCRIBERS, execute, query, query_one, query_opt, unsigned};
use crate::storage::StorageResult;
use crate::storage::cards::{COLUMNS, CardRow, EnrolledCard, Inserted, NewCard};
use crate::storage::changes::Change;
use crate::storage::idempotency::Replay;

fn from_row(row: &Row) -> StorageResult<CardRow> {
    Ok(CardRow {
        id: row.try_get(0)?,
        subscriber_id: row.try_get(1)?,
        enrolled: EnrolledCard {
            last_four: unsigned(row, 2)?,
            brand: row.try_get(3)?,
            first_name: row.try_get(4)?,
            last_name: row.try_get(5)?,
            exp_month: unsigned(row, 6)?,
            exp_year: unsigned(row, 7)?,
            country_code: row.try_get(8)?,
            enrolled_at: row.try_get(9)?,
        },
    })
}

/// Inside a write: locks the subscriber and inserts the card (one round trip), then its
/// history, its event and the replay (one more). Returns how many deliveries were queued too.
async fn insert(client: &Client, card: NewCard, replay: Option<Replay>) -> StorageResult<(Inserted, i64)> {
    let subscribers = vec![card.subscriber_id];
    let (locked, inserted) = futures::future::join(
        execute(client, LOCK_SUBSCRIBERS, &[&subscribers]),
        query_opt(
            client,
            "INSERT INTO cards (subscriber_id, fingerprint, last_four, brand, first_name, last_name,
                                exp_month, exp_year, country_code, enrolled_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
             ON CONFLICT (subscriber_id, fingerprint) DO NOTHING RETURNING id",
            &[
                &card.subscriber_id,
                &card.fingerprint,
                &i64::from(card.enrolled.last_four),
                &card.enrolled.brand,
                &card.enrolled.first_name,
                &card.enrolled.last_name,
                &i64::from(card.enrolled.exp_month),
                &i64::from(card.enrolled.exp_year),
                &card.enrolled.country_code,
                &card.enrolled.enrolled_at,
            ],
        ),
    )
    .await;
    locked?;
    let Some(row) = inserted? else {
        let existing = query_one(
            client,
            "SELECT id FROM cards WHERE subscriber_id = $1 AND fingerprint = $2",
            &[&card.subscriber_id, &card.fingerprint],
        )
        .await?;
        return Ok((Inserted::Duplicate(existing.try_get(0)?), 0));
    };
    let card_id: i64 = row.try_get(0)?;
    let history = Columns::of(card.history);
    let event = (card.event_data)(card_id);
    let (stored, recorded, replayed) = futures::future::join3(
        history.insert(client, Some(card_id)),
        record_other(client, card.subscriber_id, event.event_type, &event.data, card.enrolled.enrolled_at),
        super::idempotency::store_replay(client, replay, card_id, card.enrolled.enrolled_at),
    )
    .await;
    stored?;
    replayed?;
    let (_, queued) = recorded?;
    Ok((Inserted::Created(card_id), queued))
}

fn announce(db: &Database, queued: i64) {
    if queued > 0 {
        db.notify(Change::Deliveries.payload());
    }
}

pub async fn enroll(db: &Database, card: NewCard, replay: Option<Replay>) -> StorageResult<Inserted> {
    let (inserted, queued) = db.write(move |client| insert(client, card, replay).boxed()).await?;
    announce(db, queued);
    Ok(inserted)
}

pub async fn enroll_from_session(
    db: &Database,
    session_id: i64,
    card: NewCard,
    now: i64,
) -> StorageResult<Option<Inserted>> {
    let outcome = db
        .write(move |client| {
            async move {
                // The session's row stays locked to the end: a second submission waits, then
                // finds it closed.
                let open = query_opt(
                    client,
                    "SELECT id FROM card_sessions WHERE id = $1 AND completed_at IS NULL AND expires_at > $2 FOR UPDATE",
                    &[&session_id, &now],
                )
                .await?;
                if open.is_none() {
                    return Ok(None);
                }
                let (inserted, queued) = insert(client, card, None).await?;
                execute(
                    client,
                    "UPDATE card_sessions SET completed_at = $2, card_id = $3 WHERE id = $1",
                    &[&session_id, &now, &inserted.card_id()],
                )
                .await?;
                Ok(Some((inserted, queued)))
            }
            .boxed()
        })
        .await?;
    Ok(outcome.map(|(inserted, queued)| {
        announce(db, queued);
        inserted
    }))
}

pub async fn get(db: &Database, subscriber_id: i64, card_id: i64) -> StorageResult<Option<CardRow>> {
    let client = db.client().await?;
    query_opt(
        &client,
        &format!("SELECT {COLUMNS} FROM cards WHERE id = $1 AND subscriber_id = $2"),
        &[&card_id, &subscriber_id],
    )
    .await?
    .map(|row| from_row(&row))
    .transpose()
}

pub async fn list(db: &Database, subscriber_id: i64) -> StorageResult<Vec<CardRow>> {
    let client = db.client().await?;
    let rows = query(
        &client,
        &format!("SELECT {COLUMNS} FROM cards WHERE subscriber_id = $1 ORDER BY id DESC"),
        &[&subscriber_id],
    )
    .await?;
    rows.iter().map(from_row).collect()
}

pub async fn pick(db: &Database, pick: u64) -> StorageResult<Option<(i64, u16)>> {
    let client = db.client().await?;
    let count: i64 = query_one(&client, "SELECT COUNT(*) FROM cards", &[]).await?.try_get(0)?;
    let Ok(count) = u64::try_from(count) else { return Ok(None) };
    if count == 0 {
        return Ok(None);
    }
    let offset = i64::try_from(pick % count).unwrap_or(0);
    query_opt(&client, "SELECT id, last_four FROM cards ORDER BY id LIMIT 1 OFFSET $1", &[&offset])
        .await?
        .map(|row| Ok((row.try_get(0)?, unsigned(&row, 1)?)))
        .transpose()
}
