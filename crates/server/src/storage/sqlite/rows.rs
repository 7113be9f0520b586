//! rusqlite's side of the statements and rows written once: a row read as [`Columns`], a
//! [`Param`] bound as SQLite takes it, a statement's rows read as [`FromRow`].

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, Params, Row};

use crate::storage::StorageResult;
use crate::storage::rows::{Columns, FromRow};
use crate::storage::sql::{Param, Sql};

impl Columns for Row<'_> {
    fn int(&self, index: usize) -> StorageResult<Option<i64>> {
        match self.get_ref(index)? {
            ValueRef::Null => Ok(None),
            ValueRef::Integer(value) => Ok(Some(value)),
            other => Err(wrong_type(self, index, other)),
        }
    }

    fn real(&self, index: usize) -> StorageResult<Option<f64>> {
        match self.get_ref(index)? {
            ValueRef::Null => Ok(None),
            ValueRef::Real(value) => Ok(Some(value)),
            // SQLite keeps a REAL with no fraction as an integer.
            #[allow(clippy::cast_precision_loss)]
            ValueRef::Integer(value) => Ok(Some(value as f64)),
            other => Err(wrong_type(self, index, other)),
        }
    }

    fn text(&self, index: usize) -> StorageResult<Option<&str>> {
        match self.get_ref(index)? {
            ValueRef::Null => Ok(None),
            ValueRef::Text(text) => std::str::from_utf8(text).map(Some).map_err(|error| {
                rusqlite::Error::FromSqlConversionFailure(index, rusqlite::types::Type::Text, Box::new(error)).into()
            }),
            other => Err(wrong_type(self, index, other)),
        }
    }

    fn bytes(&self, index: usize) -> StorageResult<Option<&[u8]>> {
        match self.get_ref(index)? {
            ValueRef::Null => Ok(None),
            ValueRef::Blob(bytes) => Ok(Some(bytes)),
            other => Err(wrong_type(self, index, other)),
        }
    }

    fn flag(&self, index: usize) -> StorageResult<Option<bool>> {
        Ok(self.int(index)?.map(|value| value != 0))
    }
}

fn wrong_type(row: &Row<'_>, index: usize, value: ValueRef<'_>) -> crate::storage::StorageError {
    let name = row.as_ref().column_name(index).unwrap_or("?").to_owned();
    rusqlite::Error::InvalidColumnType(index, name, value.data_type()).into()
}

impl rusqlite::ToSql for Param<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(match self {
            Self::Null => ValueRef::Null,
            Self::Int(value) => ValueRef::Integer(*value),
            Self::Real(value) => ValueRef::Real(*value),
            Self::Text(text) => ValueRef::Text(text.as_bytes()),
            Self::Bytes(bytes) => ValueRef::Blob(bytes),
        }))
    }
}

/// A statement's text as SQLite reads it: one written once for both databases (its `?N` text),
/// or one written for SQLite alone (a text put together for the filters given).
pub trait Text {
    fn sqlite_text(&self) -> &str;
}

impl Text for Sql {
    fn sqlite_text(&self) -> &str {
        self.sqlite()
    }
}

impl Text for str {
    fn sqlite_text(&self) -> &str {
        self
    }
}

/// The first row of `sql`, if any.
pub fn first<R: FromRow>(
    connection: &Connection,
    sql: &(impl Text + ?Sized),
    params: impl Params,
) -> StorageResult<Option<R>> {
    let mut statement = connection.prepare_cached(sql.sqlite_text())?;
    let mut rows = statement.query(params)?;
    rows.next()?.map(R::from_row).transpose()
}

/// Every row of `sql`.
pub fn all<R: FromRow>(
    connection: &Connection,
    sql: &(impl Text + ?Sized),
    params: impl Params,
) -> StorageResult<Vec<R>> {
    let mut statement = connection.prepare_cached(sql.sqlite_text())?;
    let mut rows = statement.query(params)?;
    let mut read = Vec::new();
    while let Some(row) = rows.next()? {
        read.push(R::from_row(row)?);
    }
    Ok(read)
}

/// The rows `sql` changed.
pub fn execute(connection: &Connection, sql: &(impl Text + ?Sized), params: impl Params) -> StorageResult<u64> {
    Ok(connection.prepare_cached(sql.sqlite_text())?.execute(params)? as u64)
}
