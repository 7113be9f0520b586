//! A pooler between the service and PostgreSQL that shares server sessions among its clients
//! (PgBouncer's `pool_mode = transaction` or `statement`) breaks what the service relies on:
//! statements prepared once per connection (PgBouncer 1.18 cannot keep them apart: they
//! collide across instances, or run with another statement's parameters), `LISTEN`, and
//! session advisory locks. The service refuses to start behind one, naming the setting.
//!
//! How it tells: session state sticks to a client connection only when its server session
//! does. Connection A reads its backend's process id outside any transaction (a transaction
//! pooler hands that server back to its pool at once); connections B1…B3 each open a
//! transaction and read theirs, which holds their servers (PgBouncer reuses the server
//! released last first, so B1 gets A's); after each, A reads its id again. Connected directly
//! or through session pooling, A keeps its backend for its whole life and no B can have it:
//! every other outcome is proof of shared sessions, never a guess. A pooler in statement mode
//! refuses the Bs' transactions outright. A B that cannot get a server in time (a small
//! session pool) adds no evidence, and takes nothing away.

use std::time::Duration;

use tokio_postgres::SimpleQueryMessage;

use super::Session;
use crate::storage::{StorageError, StorageResult};

/// Connections that each hold a transaction open.
const HOLDERS: usize = 3;

/// Longest a holder waits for its connection or its transaction.
const HOLD_WAIT: Duration = Duration::from_secs(2);

/// What the service says when it refuses.
pub const REFUSAL: &str = "the PostgreSQL address leads to a pooler that shares server sessions between its clients \
     (PgBouncer with pool_mode = transaction or statement): the service keeps a session per connection (prepared \
     statements, LISTEN, advisory locks), which such a pooler mixes up. Set pool_mode = session for this database \
     in pgbouncer.ini (e.g. `subscriber_data = host=db.internal dbname=subscriber_data pool_mode=session`), or \
     connect to PostgreSQL directly";

/// Refuses (`StorageError::Unusable`) when the connections `connect` makes share server
/// sessions.
pub async fn refuse_shared_sessions<F, Made>(connect: F) -> StorageResult<()>
where
    F: Fn() -> Made,
    Made: Future<Output = StorageResult<Session>>,
{
    let first = connect().await?;
    let pid = backend_pid(&first, "SELECT pg_backend_pid()").await?.ok_or_else(refusal)?;
    let mut holders = Vec::new();
    for _ in 0..HOLDERS {
        let Ok(Ok(holder)) = tokio::time::timeout(HOLD_WAIT, connect()).await else { break };
        match tokio::time::timeout(HOLD_WAIT, backend_pid(&holder, "BEGIN; SELECT pg_backend_pid()")).await {
            Ok(Ok(Some(held))) if held == pid => return Err(refusal()),
            Ok(Ok(_)) => holders.push(holder),
            Ok(Err(error)) if refused_transaction(&error) => return Err(refusal()),
            // Not an answer about sessions (a pooler with no server to give in time): no evidence.
            Ok(Err(_)) | Err(_) => break,
        }
        if backend_pid(&first, "SELECT pg_backend_pid()").await? != Some(pid) {
            return Err(refusal());
        }
    }
    // Dropping the holders ends their connections: their transactions roll back.
    drop(holders);
    Ok(())
}

fn refusal() -> StorageError {
    StorageError::Unusable(REFUSAL.to_owned())
}

/// The backend process id `sql` (simple protocol: nothing prepared) reads.
async fn backend_pid(session: &Session, sql: &str) -> StorageResult<Option<i32>> {
    let messages = session.simple_query(sql).await?;
    Ok(messages.iter().find_map(|message| match message {
        SimpleQueryMessage::Row(row) => row.get(0).and_then(|pid| pid.parse().ok()),
        _ => None,
    }))
}

/// Whether the pooler refused a transaction block (PgBouncer in statement mode).
fn refused_transaction(error: &StorageError) -> bool {
    let text = match error {
        StorageError::Postgres(error) => super::describe(error),
        other => other.to_string(),
    };
    text.contains("transaction blocks not allowed") || text.contains("long transactions not allowed")
}
