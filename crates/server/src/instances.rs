//! Several instances on one PostgreSQL database: each keeps in memory what it must hear of when
//! another instance changes it — which streams have new events, the discovery directory's
//! enrolled locations, the credential generations that revoke tokens, the deletions of a
//! sandbox reset — and follows the others' notices (`storage::changes`). Everything else an
//! instance holds is a cache of what is still true in the database, or per instance by design
//! (the request log, rate limits' buckets).

use std::time::Duration;

use crate::state::AppState;
use crate::storage::StorageResult;
use crate::storage::changes::{Change, Heard, Listener};
use crate::storage::transactions::Owner;
use subscriber_protocol::LocationId;

/// How long the listener waits before looking anyway: a notice lost with a connection is made
/// up for within this time.
const LOOK_ANYWAY: Duration = Duration::from_secs(5);

/// Follows the other instances until the returned future is dropped; `None` on SQLite. The
/// listening connection is an async task of its own that reconnects by itself.
pub fn follow(state: &AppState) -> Option<impl Future<Output = ()> + Send + 'static> {
    let mut listener = Listener::new(&state.db)?;
    let state = state.clone();
    Some(async move {
        loop {
            let result = match listener.next(LOOK_ANYWAY).await {
                Ok(Heard::Changes(changes)) => apply(&state, &changes).await,
                Ok(Heard::Nothing) => look_anyway(&state).await,
                Ok(Heard::Reconnected) => resync(&state).await,
                Err(error) => {
                    tracing::warn!(error = %error, "not hearing the other instances; reconnecting");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    Ok(())
                }
            };
            if let Err(error) = result {
                tracing::warn!(error = %error, "another instance's change not taken in yet");
            }
        }
    })
}

async fn apply(state: &AppState, changes: &[Change]) -> StorageResult<()> {
    for change in changes {
        match change {
            Change::Transactions(owners) => state.events.wake(owners.as_deref()),
            Change::Location(location_id) => add_location(state, *location_id).await?,
            Change::LocationChanged(location_id) => crate::merchants::refresh_location(state, *location_id).await?,
            Change::Credentials(subscriber_id) => {
                if let Some(generation) = state.db.credential_generation(*subscriber_id).await? {
                    state.generations.note(*subscriber_id, generation);
                }
            }
            Change::Reset { subscriber_id, locations: Some(locations) } => {
                crate::sandbox::forget_reset(state, *subscriber_id, locations);
            }
            // Too many locations to name (or an earlier version's notice): the ones gone are
            // found by looking.
            Change::Reset { subscriber_id, locations: None } => {
                crate::sandbox::forget_reset(state, *subscriber_id, &[]);
                retire_deleted_locations(state).await?;
            }
            Change::Restored { subscriber_id, owners, locations } => {
                crate::sandbox::snapshots::forget_restored(state, *subscriber_id, owners.as_deref());
                match locations {
                    Some(locations) => crate::sandbox::snapshots::find_locations(state, locations).await?,
                    None => {
                        retire_deleted_locations(state).await?;
                        look_anyway(state).await?;
                    }
                }
                state.db.wake_deliveries();
            }
            Change::Deliveries => state.db.wake_deliveries(),
            Change::ApiVersion(subscriber_id) => state.pins.forget(*subscriber_id),
            Change::Removed(Owner::Card(card_id)) => crate::cards::forget_card(state, *card_id),
            Change::Removed(Owner::Merchant(_)) => {}
        }
    }
    Ok(())
}

/// Makes a location another instance enrolled findable here.
async fn add_location(state: &AppState, location_id: LocationId) -> StorageResult<()> {
    let Some(directory) = state.directory.if_loaded() else { return Ok(()) };
    if directory.knows_location(location_id) {
        return Ok(());
    }
    if let Some(location) = state.db.enrolled_location(location_id).await? {
        directory.add_enrolled_location(location);
    }
    Ok(())
}

/// Nothing heard for a while: the streams look at the database (a notice may have been lost)
/// and the directory takes in locations it missed.
async fn look_anyway(state: &AppState) -> StorageResult<()> {
    state.events.wake(None);
    state.db.wake_deliveries();
    let Some(directory) = state.directory.if_loaded() else { return Ok(()) };
    for location in state.db.enrolled_locations().await? {
        let Some(location_id) = location.location_id else { continue };
        if !directory.knows_location(location_id) {
            directory.add_enrolled_location(location);
        }
    }
    Ok(())
}

/// Enrolled locations that no longer exist are no longer found (one read of every location's id).
async fn retire_deleted_locations(state: &AppState) -> StorageResult<()> {
    if let Some(directory) = state.directory.if_loaded() {
        let existing: std::collections::HashSet<LocationId> = state.db.location_ids().await?.into_iter().collect();
        let gone: Vec<LocationId> =
            directory.enrolled_location_ids().into_iter().filter(|id| !existing.contains(id)).collect();
        directory.retire_enrolled_locations(&gone);
    }
    Ok(())
}

/// After a (re)connection: whatever was said meanwhile, taken in from the database. A reset
/// may have been missed, of anyone: the rendered cards kept here go (they are read again).
async fn resync(state: &AppState) -> StorageResult<()> {
    state.card_bodies.clear();
    retire_deleted_locations(state).await?;
    look_anyway(state).await?;
    let changes: Vec<Change> = state.generations.known().into_iter().map(Change::Credentials).collect();
    apply(state, &changes).await
}
