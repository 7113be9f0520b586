use std::sync::Arc;
use subscriber_protocol::UnixSeconds;

use futures::FutureExt;
use tokio_postgres::binary_copy::BinaryCopyInWriter;
use tokio_postgres::types::Type;

use super::rows::execute;
use super::{Database, query};
use crate::storage::StorageResult;
use crate::storage::rows::directory::{CLEAR, DirectoryState, ENTRY_COLUMNS, Entry, Interner, KEEP_STATE, entry};
use crate::storage::sql::sql;

/// The rows go in with `COPY … (FORMAT binary)`: one stream, not a statement per merchant.
pub async fn replace(
    db: &Database,
    state: DirectoryState,
    entries: Arc<Vec<Entry>>,
    now: UnixSeconds,
) -> StorageResult<()> {
    let copy_in = sql!("COPY directory_merchants ({ENTRY_COLUMNS}) FROM STDIN (FORMAT binary)");
    db.write_maintenance(move |client| {
        let entries = Arc::clone(&entries);
        async move {
            execute(client, &CLEAR, &[]).await?;
            let sink = client.copy_in(copy_in.numbered()).await?;
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
            execute(client, &KEEP_STATE, &[&state.seed, &state.size, &state.version, &now]).await?;
            Ok(())
        }
        .boxed()
    })
    .await
}

/// Rows read per statement while loading: a round trip each.
const LOAD_PAGE: i64 = 10_000;

/// In pages of [`LOAD_PAGE`] rows by id: a round trip each.
pub async fn load(db: &Database) -> StorageResult<(Vec<Entry>, Interner)> {
    let client = db.client().await?;
    let mut interner = Interner::default();
    let mut entries = Vec::new();
    let mut after = i64::MIN;
    let sql = sql!("SELECT {ENTRY_COLUMNS} FROM directory_merchants WHERE id > $1 ORDER BY id LIMIT $2");
    loop {
        let rows = query(&client, sql.numbered(), &[&after, &LOAD_PAGE]).await?;
        for row in &rows {
            entries.push(entry(row, &mut interner)?);
        }
        match entries.last() {
            Some(last) if i64::try_from(rows.len()).unwrap_or(0) >= LOAD_PAGE => after = last.id.get(),
            _ => break,
        }
    }
    Ok((entries, interner))
}
