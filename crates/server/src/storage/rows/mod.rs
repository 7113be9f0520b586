//! What storage reads and writes, as both backends see it: each resource's rows (and what a
//! write takes), how a row of either driver reads into them ([`FromRow`], written once over
//! [`Columns`]), and the statements both databases spell the same ([`Sql`](super::sql::Sql))
//! where both backends run them in ways of their own.
//!
//! A leaf: nothing here names a backend or the `Store`; the backends and the operations name
//! this.

pub mod bank_accounts;
pub mod card_sessions;
pub mod cards;
pub mod directory;
pub mod events;
pub mod idempotency;
pub mod keys;
pub mod labels;
pub mod merchants;
pub mod person_sessions;
pub mod persons;
pub mod removals;
pub mod request_history;
pub mod sandbox;
pub mod snapshots;
pub mod subscribers;
pub mod transactions;
pub mod usage;
pub mod webhooks;

use super::{StorageError, StorageResult};

/// A row as either driver gives it (`rusqlite::Row`, `tokio_postgres::Row`; each backend says
/// how), read column by column: the few kinds of value the tables hold, `None` for NULL.
pub trait Columns {
    fn int(&self, index: usize) -> StorageResult<Option<i64>>;
    fn real(&self, index: usize) -> StorageResult<Option<f64>>;
    fn text(&self, index: usize) -> StorageResult<Option<&str>>;
    fn bytes(&self, index: usize) -> StorageResult<Option<&[u8]>>;
    /// A flag: PostgreSQL's `BOOLEAN` (what a comparison gives), or 0/1 as the tables keep it.
    fn flag(&self, index: usize) -> StorageResult<Option<bool>>;

    /// Column `index` as `T`.
    fn column<T: Column>(&self, index: usize) -> StorageResult<T>
    where
        Self: Sized,
    {
        T::read(self, index)
    }

    /// The columns after the first `count` (a row of a join: the second table's part).
    fn skip(&self, count: usize) -> Skipped<'_, Self>
    where
        Self: Sized,
    {
        Skipped { row: self, count }
    }
}

/// A row's columns after the first few ([`Columns::skip`]).
pub struct Skipped<'a, C> {
    row: &'a C,
    count: usize,
}

impl<C: Columns> Columns for Skipped<'_, C> {
    fn int(&self, index: usize) -> StorageResult<Option<i64>> {
        self.row.int(self.count + index)
    }

    fn real(&self, index: usize) -> StorageResult<Option<f64>> {
        self.row.real(self.count + index)
    }

    fn text(&self, index: usize) -> StorageResult<Option<&str>> {
        self.row.text(self.count + index)
    }

    fn bytes(&self, index: usize) -> StorageResult<Option<&[u8]>> {
        self.row.bytes(self.count + index)
    }

    fn flag(&self, index: usize) -> StorageResult<Option<bool>> {
        self.row.flag(self.count + index)
    }
}

/// A value a column holds. Implemented once per type, whichever database the row came from
/// (a typed id is one more implementation, over `i64`).
pub trait Column: Sized {
    /// The value, `None` for NULL.
    fn read_nullable(row: &impl Columns, index: usize) -> StorageResult<Option<Self>>;

    /// The value; NULL is not one.
    fn read(row: &impl Columns, index: usize) -> StorageResult<Self> {
        Self::read_nullable(row, index)?
            .ok_or_else(|| StorageError::Corrupt(format!("column {index} is NULL where a value is kept")))
    }
}

impl<T: Column> Column for Option<T> {
    fn read_nullable(row: &impl Columns, index: usize) -> StorageResult<Option<Self>> {
        Ok(Some(T::read_nullable(row, index)?))
    }
}

impl Column for i64 {
    fn read_nullable(row: &impl Columns, index: usize) -> StorageResult<Option<Self>> {
        row.int(index)
    }
}

/// Typed ids and instants are kept as the integers they wrap: read back as such, and bound as
/// such (the one list of the ones the tables keep).
macro_rules! integer_newtypes {
    ($($id:ident),*) => {$(
        impl Column for subscriber_protocol::$id {
            fn read_nullable(row: &impl Columns, index: usize) -> StorageResult<Option<Self>> {
                Ok(row.int(index)?.map(Self))
            }
        }

        impl From<subscriber_protocol::$id> for crate::storage::sql::Param<'_> {
            fn from(id: subscriber_protocol::$id) -> Self {
                Self::Int(id.get())
            }
        }
    )*};
}
integer_newtypes!(
    SubscriberId,
    WebhookId,
    AccountId,
    PersonId,
    CardId,
    MerchantId,
    LocationId,
    TransactionId,
    EventId,
    SnapshotId,
    CardSessionId,
    PersonSessionId,
    QuestionSetId,
    DirectoryEntryId,
    AttemptId,
    UnixMillis,
    UnixSeconds
);

/// Unsigned numbers are kept as 64-bit integers: read back in range, or the data is not valid.
macro_rules! in_range {
    ($($unsigned:ty),*) => {$(
        impl Column for $unsigned {
            fn read_nullable(row: &impl Columns, index: usize) -> StorageResult<Option<Self>> {
                row.int(index)?
                    .map(|value| {
                        <$unsigned>::try_from(value).map_err(|_| {
                            StorageError::Corrupt(format!("column {index}: {value} is out of range"))
                        })
                    })
                    .transpose()
            }
        }
    )*};
}
in_range!(u16, u32, u64);

impl Column for bool {
    fn read_nullable(row: &impl Columns, index: usize) -> StorageResult<Option<Self>> {
        row.flag(index)
    }
}

impl Column for f64 {
    fn read_nullable(row: &impl Columns, index: usize) -> StorageResult<Option<Self>> {
        row.real(index)
    }
}

impl Column for String {
    fn read_nullable(row: &impl Columns, index: usize) -> StorageResult<Option<Self>> {
        Ok(row.text(index)?.map(str::to_owned))
    }
}

impl Column for Vec<u8> {
    fn read_nullable(row: &impl Columns, index: usize) -> StorageResult<Option<Self>> {
        Ok(row.bytes(index)?.map(<[u8]>::to_vec))
    }
}

/// A row read into a value: one mapping per row type, for both databases.
pub trait FromRow: Sized {
    fn from_row(row: &impl Columns) -> StorageResult<Self>;
}

/// A row of one column.
impl<T: Column> FromRow for T {
    fn from_row(row: &impl Columns) -> StorageResult<Self> {
        row.column(0)
    }
}

impl<A: Column, B: Column> FromRow for (A, B) {
    fn from_row(row: &impl Columns) -> StorageResult<Self> {
        Ok((row.column(0)?, row.column(1)?))
    }
}

impl<A: Column, B: Column, C: Column> FromRow for (A, B, C) {
    fn from_row(row: &impl Columns) -> StorageResult<Self> {
        Ok((row.column(0)?, row.column(1)?, row.column(2)?))
    }
}
