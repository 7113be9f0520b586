//! `clientUserId` and `metadata` as requests send them (contract: "Lifecycle", fourth round):
//! checked with the shared rules (`subscriber_protocol::rules::labels`) into what storage
//! keeps, or a 400 naming each field.

use subscriber_protocol::Metadata;
use subscriber_protocol::SubscriberId;
use subscriber_protocol::rules::labels::{self as rules, Labels};

use crate::error::{ApiError, Validation};
use crate::state::AppState;
use crate::storage::removals::UserObject;

/// What a creating request sent, checked.
pub fn sent(client_user_id: Option<&str>, metadata: Option<&Metadata>) -> Result<Labels, ApiError> {
    let mut violations = Validation::new();
    let labels = rules::labels(&mut violations, client_user_id, metadata);
    Ok(violations.finish(labels)?)
}

/// `current` with a `PATCH`'s pairs laid over it, checked.
pub fn patched(current: &Metadata, patch: &Metadata) -> Result<Metadata, ApiError> {
    let mut violations = Validation::new();
    let merged = rules::merged(&mut violations, current, patch);
    Ok(violations.finish(merged)?)
}

/// Lays a `PATCH`'s pairs over the subscriber's object (read by `read`: 404 when not the
/// subscriber's), checked first against the object as read, then merged by the database in one
/// statement, so two `PATCH`es at once each keep their keys; the object as it is then.
pub async fn patch_metadata<R, F, Fut>(
    state: &AppState,
    subscriber_id: SubscriberId,
    object: UserObject,
    patch: &Metadata,
    read: F,
    metadata_of: fn(&R) -> &Metadata,
) -> Result<R, ApiError>
where
    F: Fn() -> Fut,
    Fut: Future<Output = Result<R, ApiError>>,
{
    let current = read().await?;
    patched(metadata_of(&current), patch)?;
    if !state.db.merge_metadata(subscriber_id, object, patch).await? {
        // Removed meanwhile (404), or another `PATCH` added pairs first: checked again as it is now.
        let current = read().await?;
        patched(metadata_of(&current), patch)?;
        return Err(ApiError::conflict("the metadata changed while this change was applied: send it again"));
    }
    read().await
}
