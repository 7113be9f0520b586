//! Snapshots of the caller's sandbox (contract: "Sandbox scenarios, snapshots"): take one, list
//! them, put the sandbox back as one held it, delete one. What a snapshot holds and how it goes
//! back is storage's (`storage::snapshots`); here are the rules and what each instance keeps
//! in memory of a sandbox put back.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use subscriber_protocol::SnapshotId;
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::rules::required_text;
use subscriber_protocol::{
    ErrorBody, MAX_SANDBOX_SNAPSHOTS, SNAPSHOT_NAME_MAX, SandboxRestored, SandboxSnapshot, SandboxSnapshotDeleted,
    SandboxSnapshotList, SandboxSnapshotRequest, Success,
};
use subscriber_protocol::{LocationId, SubscriberId};

use super::require_sandbox;
use crate::error::{ApiError, Validation};
use crate::http::extract::{ApiJson, Auth, IdPath};
use crate::state::AppState;
use crate::storage::snapshots::SnapshotRow;
use crate::storage::transactions::Owner;

fn render(row: &SnapshotRow) -> SandboxSnapshot {
    SandboxSnapshot {
        snapshot_id: row.id,
        name: row.name.clone(),
        created_at: row.created_at.to_datetime().unwrap_or_default(),
        cards: u64::try_from(row.cards).unwrap_or_default(),
        transactions: u64::try_from(row.transactions).unwrap_or_default(),
        bytes: u64::try_from(row.bytes).unwrap_or_default(),
    }
}

fn not_found(snapshot_id: SnapshotId) -> ApiError {
    ApiError::not_found(format!("no snapshot {snapshot_id} of this subscriber"))
}

/// Takes a snapshot of the caller's sandbox (sandbox only)
///
/// Everything a restore puts back, as it is now: cards and their transactions, the merchant and
/// its locations, bank accounts, persons, webhook endpoints with their deliveries, events, and
/// the pending deadlines the sandbox clock moves. At most 20 per subscriber.
#[utoipa::path(post, path = "/sandbox/snapshots", tag = "sandbox", operation_id = "createSandboxSnapshot",
    request_body = SandboxSnapshotRequest,
    responses(
        (status = 201, description = "The snapshot.", body = Success<SandboxSnapshot>),
        (status = 400, description = "`name` is empty or longer than 80 characters.", body = ErrorBody),
        (status = 404, description = "Not the sandbox.", body = ErrorBody),
        (status = 409, description = "The caller has 20 snapshots: delete one first.", body = ErrorBody),
    ))]
pub async fn take(
    State(state): State<AppState>,
    auth: Auth,
    ApiJson(request): ApiJson<SandboxSnapshotRequest>,
) -> Result<Response, ApiError> {
    require_sandbox(&state)?;
    let mut validation = Validation::new();
    let name = required_text(&mut validation, "name", Some(&request.name), SNAPSHOT_NAME_MAX);
    let name = validation.finish(name)?.ok_or_else(|| ApiError::invalid("the snapshot needs a name"))?;
    let row =
        state.db.take_snapshot(auth.subscriber_id, name, UnixSeconds::now(), MAX_SANDBOX_SNAPSHOTS).await?.ok_or_else(
            || {
                ApiError::conflict(format!(
                    "a subscriber keeps at most {MAX_SANDBOX_SNAPSHOTS} snapshots: delete one before taking another"
                ))
            },
        )?;
    tracing::info!(
        snapshot_id = row.id.get(),
        cards = row.cards,
        transactions = row.transactions,
        bytes = row.bytes,
        "sandbox snapshot taken"
    );
    Ok((StatusCode::CREATED, Json(Success::new(render(&row)))).into_response())
}

/// The caller's sandbox snapshots (sandbox only)
///
/// Newest first.
#[utoipa::path(get, path = "/sandbox/snapshots", tag = "sandbox", operation_id = "listSandboxSnapshots",
    responses(
        (status = 200, description = "Every snapshot of the caller.", body = Success<SandboxSnapshotList>),
        (status = 404, description = "Not the sandbox.", body = ErrorBody),
    ))]
pub async fn list(State(state): State<AppState>, auth: Auth) -> Result<Json<Success<SandboxSnapshotList>>, ApiError> {
    require_sandbox(&state)?;
    let rows = state.db.sandbox_snapshots(auth.subscriber_id).await?;
    Ok(Json(Success::new(SandboxSnapshotList { snapshots: rows.iter().map(render).collect() })))
}

/// Puts the caller's sandbox back as a snapshot held it (sandbox only)
///
/// Everything the snapshot holds is as it was; what was made since is gone (ids are never given
/// again), and so are the answers kept since for `Idempotency-Key` retries (a retry makes it
/// anew). The caller's open streams end; sync reports the transactions of its cards that
/// changed since as `modified` and those made since as `removed`. Other subscribers see no
/// change: a purchase with another subscriber stays on that side as it is. The snapshot stays.
#[utoipa::path(post, path = "/sandbox/snapshots/{snapshot_id}/restore", tag = "sandbox",
    operation_id = "restoreSandboxSnapshot",
    params(("snapshot_id" = i64, Path, description = "A snapshotId of the caller.", minimum = 1)),
    responses(
        (status = 200, description = "The sandbox is as the snapshot held it.", body = Success<SandboxRestored>),
        (status = 404, description = "Not the sandbox, or no such snapshot of the caller.", body = ErrorBody),
    ))]
pub async fn restore(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(snapshot_id): IdPath<SnapshotId>,
) -> Result<Json<Success<SandboxRestored>>, ApiError> {
    require_sandbox(&state)?;
    let subscriber_id = auth.subscriber_id;
    // The Idempotency-Key answers kept since the snapshot go in the restore's transaction.
    let replays = crate::http::idempotency::subscriber_scope(subscriber_id);
    let restored =
        state.db.restore_snapshot(subscriber_id, snapshot_id, replays).await?.ok_or_else(|| not_found(snapshot_id))?;
    forget_restored(&state, subscriber_id, Some(&restored.owners()));
    find_locations(&state, &restored.location_ids).await?;
    state.db.wake_deliveries();
    tracing::info!(snapshot_id = snapshot_id.get(), cards = restored.card_ids.len(), "sandbox snapshot restored");
    Ok(Json(Success::new(SandboxRestored {
        message: "Sandbox restored".to_owned(),
        snapshot: render(&restored.snapshot),
    })))
}

/// Deletes one of the caller's snapshots (sandbox only)
///
/// The sandbox itself does not change.
#[utoipa::path(delete, path = "/sandbox/snapshots/{snapshot_id}", tag = "sandbox",
    operation_id = "deleteSandboxSnapshot",
    params(("snapshot_id" = i64, Path, description = "A snapshotId of the caller.", minimum = 1)),
    responses(
        (status = 200, description = "The snapshot is gone.", body = Success<SandboxSnapshotDeleted>),
        (status = 404, description = "Not the sandbox, or no such snapshot of the caller.", body = ErrorBody),
    ))]
pub async fn delete(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(snapshot_id): IdPath<SnapshotId>,
) -> Result<Json<Success<SandboxSnapshotDeleted>>, ApiError> {
    require_sandbox(&state)?;
    if !state.db.delete_snapshot(auth.subscriber_id, snapshot_id).await? {
        return Err(not_found(snapshot_id));
    }
    tracing::info!(snapshot_id = snapshot_id.get(), "sandbox snapshot deleted");
    Ok(Json(Success::new(SandboxSnapshotDeleted { message: "Snapshot deleted".to_owned(), snapshot_id })))
}

/// What this instance keeps of a subscriber whose sandbox was put back (here, or through another
/// instance: `instances`): its streams end, its rendered cards go, and the kept rows and pages of
/// its cards and merchant before and after (`None`: of everyone, too many to name), since ids
/// and events they name are back as they were.
pub fn forget_restored(state: &AppState, subscriber_id: SubscriberId, owners: Option<&[Owner]>) {
    state.events.end_streams_of(subscriber_id);
    state.events.restored(owners);
    state.card_bodies.forget_owner(subscriber_id);
    state.transaction_pages.forget(owners);
    match owners {
        Some(owners) => {
            for owner in owners {
                if let Owner::Card(card_id) = owner {
                    state.card_rows.forget(*card_id);
                }
            }
        }
        None => state.card_rows.clear(),
    }
}

/// Discovery finds the locations as they are after a restore: back, changed back, or gone.
pub async fn find_locations(state: &AppState, location_ids: &[LocationId]) -> crate::storage::StorageResult<()> {
    for &location_id in location_ids {
        crate::merchants::refresh_location(state, location_id).await?;
    }
    Ok(())
}
