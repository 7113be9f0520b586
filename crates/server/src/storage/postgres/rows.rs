//! tokio-postgres's side of the statements and rows written once: a row read as [`Columns`], a
//! [`Param`] bound as PostgreSQL takes it, a statement's rows read as [`FromRow`].

use bytes::BytesMut;
use tokio_postgres::Row;
use tokio_postgres::types::{IsNull, ToSql, Type};

use super::{Client, Params, query};
use crate::storage::StorageResult;
use crate::storage::rows::{Columns, FromRow};
use crate::storage::sql::{Param, Sql};

impl Columns for Row {
    fn int(&self, index: usize) -> StorageResult<Option<i64>> {
        Ok(match self.columns().get(index).map(|column| column.type_()) {
            Some(&Type::INT4) => self.try_get::<_, Option<i32>>(index)?.map(i64::from),
            Some(&Type::INT2) => self.try_get::<_, Option<i16>>(index)?.map(i64::from),
            _ => self.try_get(index)?,
        })
    }

    fn real(&self, index: usize) -> StorageResult<Option<f64>> {
        Ok(match self.columns().get(index).map(|column| column.type_()) {
            Some(&Type::FLOAT4) => self.try_get::<_, Option<f32>>(index)?.map(f64::from),
            _ => self.try_get(index)?,
        })
    }

    fn text(&self, index: usize) -> StorageResult<Option<&str>> {
        Ok(self.try_get(index)?)
    }

    fn bytes(&self, index: usize) -> StorageResult<Option<&[u8]>> {
        Ok(self.try_get(index)?)
    }

    fn flag(&self, index: usize) -> StorageResult<Option<bool>> {
        match self.columns().get(index).map(|column| column.type_()) {
            Some(&Type::BOOL) => Ok(self.try_get(index)?),
            _ => Ok(self.int(index)?.map(|value| value != 0)),
        }
    }
}

/// Each kind binds as the driver binds its Rust type (checked against the parameter's type);
/// NULL binds to any.
impl ToSql for Param<'_> {
    fn to_sql(&self, ty: &Type, out: &mut BytesMut) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match self {
            Self::Null => Ok(IsNull::Yes),
            Self::Int(value) => value.to_sql(ty, out),
            Self::Real(value) => value.to_sql(ty, out),
            Self::Text(text) => (&**text).to_sql(ty, out),
            Self::Bytes(bytes) => (&**bytes).to_sql(ty, out),
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    fn to_sql_checked(
        &self,
        ty: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match self {
            Self::Null => Ok(IsNull::Yes),
            Self::Int(value) => value.to_sql_checked(ty, out),
            Self::Real(value) => value.to_sql_checked(ty, out),
            Self::Text(text) => (&**text).to_sql_checked(ty, out),
            Self::Bytes(bytes) => (&**bytes).to_sql_checked(ty, out),
        }
    }
}

/// The arguments as the driver takes them.
pub fn bound<'a, const N: usize>(args: &'a [Param<'_>; N]) -> [&'a (dyn ToSql + Sync); N] {
    std::array::from_fn(|index| &args[index] as &(dyn ToSql + Sync))
}

/// Arguments of any number as the driver takes them.
pub fn bound_all<'a>(args: &'a [Param<'_>]) -> Vec<&'a (dyn ToSql + Sync)> {
    args.iter().map(|arg| arg as &(dyn ToSql + Sync)).collect()
}

/// A statement's text as PostgreSQL reads it: one written once for both databases, or one
/// written for PostgreSQL alone.
pub trait Text: Sync {
    fn postgres_text(&self) -> &str;
}

impl Text for Sql {
    fn postgres_text(&self) -> &str {
        self.numbered()
    }
}

impl Text for str {
    fn postgres_text(&self) -> &str {
        self
    }
}

/// The first row of `sql`, if any.
pub async fn first<R: FromRow>(
    client: &Client,
    sql: &(impl Text + ?Sized),
    params: Params<'_>,
) -> StorageResult<Option<R>> {
    query(client, sql.postgres_text(), params).await?.first().map(R::from_row).transpose()
}

/// Every row of `sql`.
pub async fn all<R: FromRow>(client: &Client, sql: &(impl Text + ?Sized), params: Params<'_>) -> StorageResult<Vec<R>> {
    query(client, sql.postgres_text(), params).await?.iter().map(R::from_row).collect()
}

/// The rows `sql` changed.
pub async fn execute(client: &Client, sql: &(impl Text + ?Sized), params: Params<'_>) -> StorageResult<u64> {
    super::execute(client, sql.postgres_text(), params).await
}
