//! Several instances on one PostgreSQL database: each keeps in memory what it must hear of when
//! another instance changes it — the live streams' events, the discovery directory's enrolled
//! locations, the credential generations that revoke tokens — and follows the others' commits
//! (`storage::changes`). Everything else an instance holds is a cache of what is still true
//! in the database, or per instance by design (the request log, rate limits' buckets).

use std::time::Duration;

use tokio::sync::mpsc;

use crate::state::AppState;
use crate::storage::changes::{Change, Heard, Listener};
use crate::storage::{self, StorageResult};

/// How long the listener waits before looking anyway: a notification lost with a connection
/// is caught up within this time.
const LOOK_ANYWAY: Duration = Duration::from_secs(5);

/// Events read in one go while catching up.
const BATCH: u32 = 1000;

/// Follows the other instances until the returned future is dropped; `None` on SQLite.
pub fn follow(state: &AppState) -> Option<impl Future<Output = ()> + Send + 'static> {
    let mut listener = Listener::new(&state.db)?;
    let (sender, mut heard) = mpsc::channel::<Heard>(64);
    // The driver blocks on its connection: a thread of its own, which ends when nobody listens.
    let spawned = std::thread::Builder::new().name("instances-listener".into()).spawn(move || {
        loop {
            let next = listener.next(LOOK_ANYWAY).unwrap_or_else(|error| {
                tracing::warn!(error = %error, "not hearing the other instances; reconnecting");
                std::thread::sleep(Duration::from_secs(1));
                Heard::Nothing
            });
            if sender.blocking_send(next).is_err() {
                return;
            }
        }
    });
    if let Err(error) = spawned {
        tracing::error!(error = %error, "the other instances cannot be followed");
        return None;
    }
    let state = state.clone();
    Some(async move {
        // Enrolled locations seen here: the directory's own load read those before it.
        let mut locations_seen = 0;
        while let Some(next) = heard.recv().await {
            let result = match next {
                Heard::Changes(changes) => apply(&state, &changes, &mut locations_seen).await,
                Heard::Nothing => catch_up(&state, &mut locations_seen).await,
                Heard::Reconnected => resync(&state, &mut locations_seen).await,
            };
            if let Err(error) = result {
                tracing::warn!(error = %error, "another instance's change not taken in yet");
            }
        }
    })
}

async fn apply(state: &AppState, changes: &[Change], locations_seen: &mut i64) -> StorageResult<()> {
    for change in changes {
        match *change {
            Change::Events => catch_up(state, locations_seen).await?,
            Change::Credentials(subscriber_id) => {
                let stored = state
                    .db
                    .read(move |connection| storage::subscribers::credential_generation(connection, subscriber_id))
                    .await?;
                if let Some(generation) = stored {
                    state.generations.note(subscriber_id, generation);
                }
            }
            Change::Reset(_) => forget_deleted(state).await?,
            Change::ApiVersion(subscriber_id) => state.pins.forget(subscriber_id),
        }
    }
    Ok(())
}

/// Announces the transaction events committed since the last announced, and adds the
/// locations enrolled since the last seen.
async fn catch_up(state: &AppState, locations_seen: &mut i64) -> StorageResult<()> {
    loop {
        let after = state.events.announced();
        let events = state.db.read(move |connection| storage::events::all_after(connection, after, BATCH)).await?;
        let full = events.len() >= BATCH as usize;
        state.events.publish(&events);
        if !full {
            break;
        }
    }
    let Some(directory) = state.directory.if_loaded() else { return Ok(()) };
    let after = *locations_seen;
    let locations =
        state.db.read(move |connection| storage::directory::enrolled_locations_after(connection, after)).await?;
    for location in locations {
        let Some(location_id) = location.location_id else { continue };
        *locations_seen = (*locations_seen).max(location_id);
        if !directory.knows_location(location_id) {
            directory.add_enrolled_location(location);
        }
    }
    Ok(())
}

/// A sandbox reset through another instance deleted a subscriber's data: the rendered cards
/// and pages kept here go (they are read again), and the locations no longer found.
async fn forget_deleted(state: &AppState) -> StorageResult<()> {
    state.card_bodies.clear();
    state.transaction_pages.clear();
    if let Some(directory) = state.directory.if_loaded() {
        let existing: std::collections::HashSet<i64> =
            state.db.read(storage::directory::location_ids).await?.into_iter().collect();
        let gone: Vec<i64> =
            directory.enrolled_location_ids().into_iter().filter(|id| !existing.contains(id)).collect();
        directory.retire_enrolled_locations(&gone);
    }
    Ok(())
}

/// After a reconnection: whatever was said meanwhile, taken in from the database.
async fn resync(state: &AppState, locations_seen: &mut i64) -> StorageResult<()> {
    forget_deleted(state).await?;
    catch_up(state, locations_seen).await?;
    let changes: Vec<Change> = state.generations.known().into_iter().map(Change::Credentials).collect();
    apply(state, &changes, locations_seen).await
}
