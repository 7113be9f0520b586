//! The one connection type every store operation takes, over SQLite or PostgreSQL.
//!
//! Store operations are written once, in the SQL both engines speak, with SQLite's numbered
//! parameters (`?1`); on PostgreSQL they become `$1`. Values cross as [`Value`] (SQLite's five
//! storage classes), so an operation never names a driver type. Where the two dialects differ,
//! an operation asks [`Connection::dialect`].

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Deref;

use super::{StorageError, StorageResult};

/// A value as stored: SQLite's storage classes, which PostgreSQL's columns here map onto
/// (BIGINT, DOUBLE PRECISION, TEXT, BYTEA).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Integer(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

/// What may be bound to a parameter.
pub trait ToValue {
    fn to_value(&self) -> Value;
}

/// What a column may be read as.
pub trait FromValue: Sized {
    fn from_value(value: &Value) -> Result<Self, String>;
}

impl ToValue for Value {
    fn to_value(&self) -> Value {
        self.clone()
    }
}

impl<T: ToValue + ?Sized> ToValue for &T {
    fn to_value(&self) -> Value {
        (**self).to_value()
    }
}

impl<T: ToValue> ToValue for Option<T> {
    fn to_value(&self) -> Value {
        self.as_ref().map_or(Value::Null, ToValue::to_value)
    }
}

macro_rules! integers {
    ($($type:ty),*) => {$(
        impl ToValue for $type {
            fn to_value(&self) -> Value {
                // Only counts beyond i64 (never stored) would saturate.
                Value::Integer(i64::try_from(*self).unwrap_or(i64::MAX))
            }
        }
        impl FromValue for $type {
            fn from_value(value: &Value) -> Result<Self, String> {
                match value {
                    Value::Integer(number) => <$type>::try_from(*number)
                        .map_err(|_| format!("{number} is out of range for {}", stringify!($type))),
                    other => Err(format!("expected an integer, found {other:?}")),
                }
            }
        }
    )*};
}
integers!(i64, i32, i16, u8, u16, u32, u64, usize);

impl ToValue for bool {
    fn to_value(&self) -> Value {
        Value::Integer(i64::from(*self))
    }
}

impl FromValue for bool {
    fn from_value(value: &Value) -> Result<Self, String> {
        i64::from_value(value).map(|number| number != 0)
    }
}

impl ToValue for f64 {
    fn to_value(&self) -> Value {
        Value::Real(*self)
    }
}

impl FromValue for f64 {
    fn from_value(value: &Value) -> Result<Self, String> {
        match value {
            Value::Real(number) => Ok(*number),
            #[allow(clippy::cast_precision_loss)]
            Value::Integer(number) => Ok(*number as f64),
            other => Err(format!("expected a number, found {other:?}")),
        }
    }
}

impl ToValue for str {
    fn to_value(&self) -> Value {
        Value::Text(self.to_owned())
    }
}

impl ToValue for String {
    fn to_value(&self) -> Value {
        Value::Text(self.clone())
    }
}

impl FromValue for String {
    fn from_value(value: &Value) -> Result<Self, String> {
        match value {
            Value::Text(text) => Ok(text.clone()),
            other => Err(format!("expected text, found {other:?}")),
        }
    }
}

impl ToValue for [u8] {
    fn to_value(&self) -> Value {
        Value::Blob(self.to_vec())
    }
}

impl ToValue for Vec<u8> {
    fn to_value(&self) -> Value {
        Value::Blob(self.clone())
    }
}

impl<const N: usize> ToValue for [u8; N] {
    fn to_value(&self) -> Value {
        Value::Blob(self.to_vec())
    }
}

impl FromValue for Vec<u8> {
    fn from_value(value: &Value) -> Result<Self, String> {
        match value {
            Value::Blob(bytes) => Ok(bytes.clone()),
            other => Err(format!("expected bytes, found {other:?}")),
        }
    }
}

impl<const N: usize> FromValue for [u8; N] {
    fn from_value(value: &Value) -> Result<Self, String> {
        Vec::<u8>::from_value(value)?.try_into().map_err(|_| format!("expected {N} bytes"))
    }
}

impl<T: FromValue> FromValue for Option<T> {
    fn from_value(value: &Value) -> Result<Self, String> {
        match value {
            Value::Null => Ok(None),
            other => T::from_value(other).map(Some),
        }
    }
}

impl FromValue for Value {
    fn from_value(value: &Value) -> Result<Self, String> {
        Ok(value.clone())
    }
}

/// `params![a, b]`: the values bound to `?1`, `?2`.
#[macro_export]
macro_rules! params {
    () => { &[] as &[&dyn $crate::storage::sql::ToValue] };
    ($($value:expr),+ $(,)?) => { &[$(&$value as &dyn $crate::storage::sql::ToValue),+] as &[&dyn $crate::storage::sql::ToValue] };
}
pub use crate::params;

/// What a statement's parameters may be given as.
pub trait Params {
    fn values(self) -> Vec<Value>;
}

impl Params for &[&dyn ToValue] {
    fn values(self) -> Vec<Value> {
        self.iter().map(|value| value.to_value()).collect()
    }
}

impl<T: ToValue, const N: usize> Params for [T; N] {
    fn values(self) -> Vec<Value> {
        self.iter().map(ToValue::to_value).collect()
    }
}

impl Params for Vec<Value> {
    fn values(self) -> Vec<Value> {
        self
    }
}

/// Parameters from an iterator of values (a list built as the filters ask).
pub fn params_from_iter<I: IntoIterator<Item = Value>>(values: I) -> Vec<Value> {
    values.into_iter().collect()
}

/// One row of a result.
pub struct Row<'a> {
    values: &'a [Value],
}

impl Row<'_> {
    /// Column `index` (from 0) as `T`.
    pub fn get<T: FromValue>(&self, index: usize) -> StorageResult<T> {
        let value = self.values.get(index).ok_or_else(|| StorageError::Corrupt(format!("no column {index}")))?;
        T::from_value(value).map_err(|error| StorageError::Corrupt(format!("column {index}: {error}")))
    }

    pub fn column_count(&self) -> usize {
        self.values.len()
    }
}

/// `StorageError::NoRows` (what `query_row` gives when there is no row) as `None`.
pub trait OptionalExtension<T> {
    fn optional(self) -> StorageResult<Option<T>>;
}

impl<T> OptionalExtension<T> for StorageResult<T> {
    fn optional(self) -> StorageResult<Option<T>> {
        match self {
            Ok(value) => Ok(Some(value)),
            Err(StorageError::NoRows) => Ok(None),
            Err(error) => Err(error),
        }
    }
}

/// A PostgreSQL connection with the statements it has prepared (each is parsed once per
/// connection, as SQLite's statement cache does).
pub struct PgSession {
    pub(super) client: super::postgres::Client,
    statements: HashMap<String, postgres::Statement>,
}

impl PgSession {
    pub(super) fn new(client: super::postgres::Client) -> Self {
        Self { client, statements: HashMap::new() }
    }

    fn statement(&mut self, sql: &str) -> StorageResult<postgres::Statement> {
        if let Some(statement) = self.statements.get(sql) {
            return Ok(statement.clone());
        }
        let statement = self.client.prepare(&numbered_parameters(sql))?;
        self.statements.insert(sql.to_owned(), statement.clone());
        Ok(statement)
    }

    pub(super) fn is_broken(&self) -> bool {
        self.client.is_closed()
    }
}

enum Backend<'c> {
    Sqlite(&'c rusqlite::Connection),
    Postgres(RefCell<&'c mut PgSession>),
}

/// A connection in a read (or, as [`Transaction`], a write) transaction.
pub struct Connection<'c> {
    backend: Backend<'c>,
}

/// A connection in a write transaction; committed by [`super::Db::write`] when the work
/// returns `Ok`.
pub struct Transaction<'c> {
    connection: Connection<'c>,
}

impl<'c> Deref for Transaction<'c> {
    type Target = Connection<'c>;
    fn deref(&self) -> &Connection<'c> {
        &self.connection
    }
}

impl<'c> Transaction<'c> {
    pub(super) fn new(connection: Connection<'c>) -> Self {
        Self { connection }
    }
}

impl<'c> Connection<'c> {
    pub(super) fn sqlite(connection: &'c rusqlite::Connection) -> Self {
        Self { backend: Backend::Sqlite(connection) }
    }

    pub(super) fn postgres(session: &'c mut PgSession) -> Self {
        Self { backend: Backend::Postgres(RefCell::new(session)) }
    }

    pub fn dialect(&self) -> Dialect {
        match self.backend {
            Backend::Sqlite(_) => Dialect::Sqlite,
            Backend::Postgres(_) => Dialect::Postgres,
        }
    }

    /// Runs a statement; the number of rows it changed.
    pub fn execute(&self, sql: &str, params: impl Params) -> StorageResult<usize> {
        let values = params.values();
        match &self.backend {
            Backend::Sqlite(connection) => {
                let mut statement = connection.prepare_cached(sql)?;
                Ok(statement.execute(rusqlite::params_from_iter(values.iter()))?)
            }
            Backend::Postgres(session) => {
                let mut session = session.borrow_mut();
                let statement = session.statement(sql)?;
                let changed = session.client.execute(&statement, &pg_params(&values))?;
                Ok(usize::try_from(changed).unwrap_or(usize::MAX))
            }
        }
    }

    /// Runs statements with no parameters and no results, separated by `;`.
    pub fn execute_batch(&self, sql: &str) -> StorageResult<()> {
        match &self.backend {
            Backend::Sqlite(connection) => Ok(connection.execute_batch(sql)?),
            Backend::Postgres(session) => Ok(session.borrow_mut().client.batch_execute(sql)?),
        }
    }

    /// Every row of a query.
    fn fetch(&self, sql: &str, values: &[Value]) -> StorageResult<Vec<Vec<Value>>> {
        match &self.backend {
            Backend::Sqlite(connection) => {
                let mut statement = connection.prepare_cached(sql)?;
                let columns = statement.column_count();
                let mut rows = statement.query(rusqlite::params_from_iter(values.iter()))?;
                let mut fetched = Vec::new();
                while let Some(row) = rows.next()? {
                    let mut values = Vec::with_capacity(columns);
                    for index in 0..columns {
                        values.push(from_sqlite(row.get_ref(index)?));
                    }
                    fetched.push(values);
                }
                Ok(fetched)
            }
            Backend::Postgres(session) => {
                let mut session = session.borrow_mut();
                let statement = session.statement(sql)?;
                let rows = session.client.query(&statement, &pg_params(values))?;
                rows.iter()
                    .map(|row| {
                        (0..row.len())
                            .map(|index| Ok(row.try_get::<_, PgValue>(index)?.0))
                            .collect::<StorageResult<_>>()
                    })
                    .collect()
            }
        }
    }

    /// The first row, mapped; [`StorageError::NoRows`] when there is none.
    pub fn query_row<T>(
        &self,
        sql: &str,
        params: impl Params,
        map: impl FnOnce(&Row<'_>) -> StorageResult<T>,
    ) -> StorageResult<T> {
        let rows = self.fetch(sql, &params.values())?;
        let first = rows.first().ok_or(StorageError::NoRows)?;
        map(&Row { values: first })
    }

    /// Every row, mapped.
    pub fn query_map<T>(
        &self,
        sql: &str,
        params: impl Params,
        mut map: impl FnMut(&Row<'_>) -> StorageResult<T>,
    ) -> StorageResult<std::vec::IntoIter<StorageResult<T>>> {
        let rows = self.fetch(sql, &params.values())?;
        Ok(rows.iter().map(|values| map(&Row { values })).collect::<Vec<_>>().into_iter())
    }

    /// The id the last insert of this connection gave its row (SQLite's rowid; on PostgreSQL
    /// the identity column's sequence, which `lastval` reads for this session).
    pub fn last_insert_rowid(&self) -> i64 {
        match &self.backend {
            Backend::Sqlite(connection) => connection.last_insert_rowid(),
            Backend::Postgres(session) => session
                .borrow_mut()
                .client
                .query_one("SELECT lastval()", &[])
                .and_then(|row| row.try_get::<_, i64>(0))
                .unwrap_or(0),
        }
    }

    /// Inserts `rows` with `insert` (`INSERT INTO table (columns…)`, a table whose `id` the
    /// engine assigns), many rows per statement, and returns their ids in the order of `rows`.
    /// A row at a time cost a round trip each on PostgreSQL: a card's 36 months of history took
    /// most of a second.
    pub fn insert_rows(&self, insert: &str, rows: &[Vec<Value>]) -> StorageResult<Vec<i64>> {
        let Some(columns) = rows.first().map(Vec::len) else { return Ok(Vec::new()) };
        let mut ids = Vec::with_capacity(rows.len());
        let mut rest = rows;
        while !rest.is_empty() {
            // A few statement sizes only, so each is prepared once per connection.
            let size = [256, 64, 16, 4, 1].into_iter().find(|size| *size <= rest.len()).unwrap_or(1);
            let (chunk, remaining) = rest.split_at(size);
            rest = remaining;
            let placeholders: Vec<String> = (0..size)
                .map(|row| {
                    let numbers: Vec<String> =
                        (1..=columns).map(|column| format!("?{}", row * columns + column)).collect();
                    format!("({})", numbers.join(", "))
                })
                .collect();
            let sql = format!("{insert} VALUES {} RETURNING id", placeholders.join(", "));
            let values: Vec<Value> = chunk.iter().flatten().cloned().collect();
            let mut chunk_ids =
                self.query_map(&sql, values, |row| row.get::<i64>(0))?.collect::<StorageResult<Vec<_>>>()?;
            // Both engines number the rows of one statement in their order; RETURNING may not
            // list them in it.
            chunk_ids.sort_unstable();
            ids.extend(chunk_ids);
        }
        Ok(ids)
    }

    /// A statement to run, perhaps many times (each is prepared once per connection anyway).
    pub fn prepare_cached<'s>(&'s self, sql: &str) -> StorageResult<Statement<'s, 'c>> {
        Ok(Statement { connection: self, sql: sql.to_owned() })
    }
}

/// A statement of a connection.
pub struct Statement<'s, 'c> {
    connection: &'s Connection<'c>,
    sql: String,
}

impl Statement<'_, '_> {
    pub fn execute(&mut self, params: impl Params) -> StorageResult<usize> {
        self.connection.execute(&self.sql, params)
    }

    pub fn query_row<T>(
        &mut self,
        params: impl Params,
        map: impl FnOnce(&Row<'_>) -> StorageResult<T>,
    ) -> StorageResult<T> {
        self.connection.query_row(&self.sql, params, map)
    }

    pub fn query_map<T>(
        &mut self,
        params: impl Params,
        map: impl FnMut(&Row<'_>) -> StorageResult<T>,
    ) -> StorageResult<std::vec::IntoIter<StorageResult<T>>> {
        self.connection.query_map(&self.sql, params, map)
    }

    pub fn query(&mut self, params: impl Params) -> StorageResult<Rows> {
        Ok(Rows { rows: self.connection.fetch(&self.sql, &params.values())?, next: 0 })
    }

    pub fn exists(&mut self, params: impl Params) -> StorageResult<bool> {
        Ok(!self.connection.fetch(&self.sql, &params.values())?.is_empty())
    }
}

/// The rows of a query, read one by one.
pub struct Rows {
    rows: Vec<Vec<Value>>,
    next: usize,
}

impl Rows {
    #[allow(clippy::should_implement_trait, clippy::unnecessary_wraps)]
    pub fn next(&mut self) -> StorageResult<Option<Row<'_>>> {
        let row = self.rows.get(self.next).map(|values| Row { values });
        self.next += 1;
        Ok(row)
    }
}

fn from_sqlite(value: rusqlite::types::ValueRef<'_>) -> Value {
    use rusqlite::types::ValueRef;
    match value {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(number) => Value::Integer(number),
        ValueRef::Real(number) => Value::Real(number),
        ValueRef::Text(text) => Value::Text(String::from_utf8_lossy(text).into_owned()),
        ValueRef::Blob(bytes) => Value::Blob(bytes.to_vec()),
    }
}

impl rusqlite::ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, ValueRef};
        Ok(ToSqlOutput::Borrowed(match self {
            Value::Null => ValueRef::Null,
            Value::Integer(number) => ValueRef::Integer(*number),
            Value::Real(number) => ValueRef::Real(*number),
            Value::Text(text) => ValueRef::Text(text.as_bytes()),
            Value::Blob(bytes) => ValueRef::Blob(bytes),
        }))
    }
}

/// SQLite's `?1` (and a bare `?`, numbered in order) as PostgreSQL's `$1`, outside quotes.
pub fn numbered_parameters(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 8);
    let mut quoted = false;
    let mut next = 0u32;
    let mut characters = sql.chars().peekable();
    while let Some(character) = characters.next() {
        if character == '\'' {
            quoted = !quoted;
            out.push(character);
        } else if character == '?' && !quoted {
            out.push('$');
            if characters.peek().is_some_and(char::is_ascii_digit) {
                while let Some(digit) = characters.next_if(char::is_ascii_digit) {
                    out.push(digit);
                }
            } else {
                next += 1;
                out.push_str(&next.to_string());
            }
        } else {
            out.push(character);
        }
    }
    out
}

fn pg_params(values: &[Value]) -> Vec<&(dyn postgres::types::ToSql + Sync)> {
    values.iter().map(|value| value as &(dyn postgres::types::ToSql + Sync)).collect()
}

type PgError = Box<dyn std::error::Error + Sync + Send>;

impl postgres::types::ToSql for Value {
    fn to_sql(
        &self,
        ty: &postgres::types::Type,
        out: &mut bytes::BytesMut,
    ) -> Result<postgres::types::IsNull, PgError> {
        use postgres::types::{IsNull, Type};
        match (self, ty) {
            (Value::Null, _) => Ok(IsNull::Yes),
            (Value::Integer(number), &Type::INT8) => number.to_sql(ty, out),
            (Value::Integer(number), &Type::INT4) => i32::try_from(*number)?.to_sql(ty, out),
            (Value::Integer(number), &Type::INT2) => i16::try_from(*number)?.to_sql(ty, out),
            (Value::Integer(number), &Type::BOOL) => (*number != 0).to_sql(ty, out),
            #[allow(clippy::cast_precision_loss)]
            (Value::Integer(number), &Type::FLOAT8) => (*number as f64).to_sql(ty, out),
            (Value::Integer(number), &Type::NUMERIC) => {
                numeric_from_integer(*number, out);
                Ok(IsNull::No)
            }
            (Value::Real(number), &Type::FLOAT8) => number.to_sql(ty, out),
            #[allow(clippy::cast_possible_truncation)]
            (Value::Real(number), &Type::FLOAT4) => (*number as f32).to_sql(ty, out),
            (Value::Text(text), &Type::JSONB) => {
                out.extend_from_slice(&[1]);
                out.extend_from_slice(text.as_bytes());
                Ok(IsNull::No)
            }
            (Value::Text(text), &Type::JSON) => {
                out.extend_from_slice(text.as_bytes());
                Ok(IsNull::No)
            }
            (Value::Text(text), _) => text.as_str().to_sql(ty, out),
            (Value::Blob(bytes), _) => bytes.as_slice().to_sql(ty, out),
            (Value::Integer(number), _) => number.to_string().as_str().to_sql(ty, out),
            (Value::Real(number), _) => number.to_string().as_str().to_sql(ty, out),
        }
    }

    fn accepts(_: &postgres::types::Type) -> bool {
        true
    }

    postgres::types::to_sql_checked!();
}

/// NUMERIC's binary form of a whole number: base-10000 digits, most significant first.
fn numeric_from_integer(number: i64, out: &mut bytes::BytesMut) {
    let mut magnitude = number.unsigned_abs();
    let mut digits = Vec::new();
    while magnitude > 0 {
        digits.push(u16::try_from(magnitude % 10_000).unwrap_or(0));
        magnitude /= 10_000;
    }
    digits.reverse();
    let count = u16::try_from(digits.len()).unwrap_or(0);
    let weight = count.saturating_sub(1);
    let sign: u16 = if number < 0 { 0x4000 } else { 0 };
    for part in [count, weight, sign, 0] {
        out.extend_from_slice(&part.to_be_bytes());
    }
    for digit in digits {
        out.extend_from_slice(&digit.to_be_bytes());
    }
}

/// A column of any type we store, as a [`Value`].
struct PgValue(Value);

impl<'a> postgres::types::FromSql<'a> for PgValue {
    fn from_sql(ty: &postgres::types::Type, raw: &'a [u8]) -> Result<Self, PgError> {
        use postgres::types::Type;
        Ok(Self(match *ty {
            Type::INT8 => Value::Integer(i64::from_sql(ty, raw)?),
            Type::INT4 => Value::Integer(i64::from(i32::from_sql(ty, raw)?)),
            Type::INT2 => Value::Integer(i64::from(i16::from_sql(ty, raw)?)),
            Type::OID => Value::Integer(i64::from(u32::from_sql(ty, raw)?)),
            Type::BOOL => Value::Integer(i64::from(bool::from_sql(ty, raw)?)),
            Type::FLOAT8 => Value::Real(f64::from_sql(ty, raw)?),
            Type::FLOAT4 => Value::Real(f64::from(f32::from_sql(ty, raw)?)),
            Type::NUMERIC => numeric(raw)?,
            Type::BYTEA => Value::Blob(raw.to_vec()),
            Type::JSONB => Value::Text(String::from_utf8(raw.get(1..).unwrap_or_default().to_vec())?),
            _ => Value::Text(String::from_utf8(raw.to_vec())?),
        }))
    }

    fn from_sql_null(_: &postgres::types::Type) -> Result<Self, PgError> {
        Ok(Self(Value::Null))
    }

    fn accepts(_: &postgres::types::Type) -> bool {
        true
    }
}

/// NUMERIC (what `SUM` and `AVG` of a BIGINT give) as an integer when it is whole.
fn numeric(raw: &[u8]) -> Result<Value, PgError> {
    let word = |index: usize| -> Result<i32, PgError> {
        let bytes = raw.get(index * 2..index * 2 + 2).ok_or("short NUMERIC")?;
        Ok(i32::from(i16::from_be_bytes([bytes[0], bytes[1]])))
    };
    let (count, weight, sign, scale) = (word(0)?, word(1)?, word(2)? & 0xFFFF, word(3)?);
    if sign == 0xC000 {
        return Ok(Value::Null);
    }
    let mut value = 0f64;
    for index in 0..count {
        let digit = f64::from(word(4 + usize::try_from(index)?)?);
        value += digit * 10_000f64.powi(weight - index);
    }
    if sign == 0x4000 {
        value = -value;
    }
    #[allow(clippy::cast_possible_truncation)]
    Ok(if scale == 0 && value.abs() < 9.0e15 { Value::Integer(value as i64) } else { Value::Real(value) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_numbered_for_postgres_outside_quotes() {
        assert_eq!(
            numbered_parameters("SELECT ?2, ?1 WHERE a = '?' AND b = ?"),
            "SELECT $2, $1 WHERE a = '?' AND b = $1"
        );
        assert_eq!(numbered_parameters("x = ?10"), "x = $10");
    }

    #[test]
    fn whole_numerics_are_integers() {
        let mut out = bytes::BytesMut::new();
        numeric_from_integer(-123_456_789, &mut out);
        assert_eq!(numeric(&out).expect("decoded"), Value::Integer(-123_456_789));
        let mut zero = bytes::BytesMut::new();
        numeric_from_integer(0, &mut zero);
        assert_eq!(numeric(&zero).expect("decoded"), Value::Integer(0));
    }
}
