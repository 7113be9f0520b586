//! An operation both databases do as the same one statement, written once: its text
//! ([`Sql`]), its arguments ([`Param`]) and how its rows read ([`FromRow`]). Each backend runs
//! it as it runs its own: SQLite's reads on a pooled connection (a read by key on the caller's
//! thread when one is free), its writes in the writer's transaction; PostgreSQL's on a pooled
//! connection, prepared once per connection, a write being one statement needing no
//! `BEGIN`/`COMMIT` of its own.

use super::rows::FromRow;
use super::sql::{Param, Sql};
use super::{StorageResult, Store, dispatch, postgres, sqlite};

/// How a read goes on SQLite.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Read {
    /// A row or two by key: on the caller's thread when a connection is free at once.
    ByKey,
    /// Anything that may scan: on the blocking pool.
    Scan,
}

impl Store {
    /// The first row the read returns, if any.
    pub(super) async fn fetch_one<R, const N: usize>(
        &self,
        read: Read,
        sql: &'static Sql,
        args: [Param<'static>; N],
    ) -> StorageResult<Option<R>>
    where
        R: FromRow + Send + 'static,
    {
        self.first(Some(read), sql, args).await
    }

    /// Every row the read returns.
    pub(super) async fn fetch_all<R, const N: usize>(
        &self,
        sql: &'static Sql,
        args: [Param<'static>; N],
    ) -> StorageResult<Vec<R>>
    where
        R: FromRow + Send + 'static,
    {
        dispatch!(self,
            db => db.read(move |connection| sqlite::rows::all(connection, sql, rusqlite::params_from_iter(&args))).await,
            db => postgres::rows::all(&*db.client().await?, sql, &postgres::rows::bound(&args)).await,
        )
    }

    /// Runs a write; the rows it changed.
    pub(super) async fn execute<const N: usize>(
        &self,
        sql: &'static Sql,
        args: [Param<'static>; N],
    ) -> StorageResult<u64> {
        self.run_write(false, sql, args).await
    }

    /// Runs a write that returns a row (`RETURNING`): the first, if any.
    pub(super) async fn execute_returning<R, const N: usize>(
        &self,
        sql: &'static Sql,
        args: [Param<'static>; N],
    ) -> StorageResult<Option<R>>
    where
        R: FromRow + Send + 'static,
    {
        self.first(None, sql, args).await
    }

    /// The first row of a read (`Some`: how it goes on SQLite) or of a write (`None`).
    async fn first<R, const N: usize>(
        &self,
        read: Option<Read>,
        sql: &'static Sql,
        args: [Param<'static>; N],
    ) -> StorageResult<Option<R>>
    where
        R: FromRow + Send + 'static,
    {
        dispatch!(self,
            db => {
                let work = move |connection: &rusqlite::Connection| {
                    sqlite::rows::first(connection, sql, rusqlite::params_from_iter(&args))
                };
                match read {
                    Some(Read::ByKey) => db.read_by_key(work).await,
                    Some(Read::Scan) => db.read(work).await,
                    None => db.write(work).await,
                }
            },
            db => postgres::rows::first(&*db.client().await?, sql, &postgres::rows::bound(&args)).await,
        )
    }

    /// As [`Store::execute`], for maintenance (a purge of old rows): on PostgreSQL its
    /// statement may take up to the maintenance limit.
    pub(super) async fn execute_maintenance<const N: usize>(
        &self,
        sql: &'static Sql,
        args: [Param<'static>; N],
    ) -> StorageResult<u64> {
        self.run_write(true, sql, args).await
    }

    /// SQLite has one writer, whatever the write; PostgreSQL lends a maintenance connection.
    #[cfg_attr(not(feature = "postgres"), allow(unused_variables))]
    async fn run_write<const N: usize>(
        &self,
        maintenance: bool,
        sql: &'static Sql,
        args: [Param<'static>; N],
    ) -> StorageResult<u64> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::rows::execute(connection, sql, rusqlite::params_from_iter(&args))).await,
            db => {
                let client = if maintenance { db.maintenance_client().await? } else { db.client().await? };
                postgres::rows::execute(&client, sql, &postgres::rows::bound(&args)).await
            },
        )
    }
}
