//! Dated API versions (contract: "Versions (third round)"; the changes themselves are
//! `subscriber_protocol::versions`): what the service keeps of them — each version's published
//! document and the changes ready to apply ([`Published`], which also writes at a version what
//! leaves past the middleware), the subscribers' pins ([`Pins`]) — and the request's version
//! as handlers read it ([`RequestVersion`], [`RenderedAt`]). The middleware that negotiates and
//! applies them is `http::versions`.

use std::borrow::Cow;
use std::collections::HashMap;
use subscriber_protocol::SubscriberId;

use axum::body::Bytes;
use parking_lot::RwLock;
use subscriber_protocol::versions::{ApiVersion, UnknownVersion, Versioning};
use utoipa::ToSchema;

use crate::error::ApiError;
use crate::storage::{StorageResult, Store};

/// The version a request is read and answered in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestVersion {
    pub version: ApiVersion,
    /// Named by the request's header (not the pin).
    pub explicit: bool,
}

impl RequestVersion {
    /// The request's version; the newest when none was negotiated (a router without
    /// `http::versions::negotiate`, as some tests build).
    pub fn of(extensions: &axum::http::Extensions) -> Self {
        extensions.get::<Self>().copied().unwrap_or(Self { version: ApiVersion::LATEST, explicit: false })
    }
}

/// A handler's argument: the request's version.
impl<S: Send + Sync> axum::extract::FromRequestParts<S> for RequestVersion {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut axum::http::request::Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Ok(Self::of(&parts.extensions))
    }
}

/// Set on a response written at another version than the request's.
#[derive(Debug, Clone, Copy)]
pub struct RenderedAt(pub ApiVersion);

/// Set on a response already written as the request's version writes it (a kept page): the
/// version middleware passes it on as it is.
#[derive(Debug, Clone, Copy)]
pub struct Shaped;

/// What the service publishes once its routes are assembled: each version's OpenAPI document,
/// and the changes ready to apply (which schema holds which comes from the newest document).
pub struct Published {
    pub documents: HashMap<ApiVersion, Bytes>,
    pub versioning: Versioning,
}

impl Published {
    /// `body`, a `T` (an answer, an event, a list item) as the newest version writes it, as
    /// `version` writes it: the one writing of what leaves the service past the HTTP middleware
    /// (kept pages, sync, streams, webhooks). The changes apply by `T`'s schema, named by the
    /// type itself as the OpenAPI document names it (`ToSchema::name`): no exit spells a schema
    /// that could drift from the document. A body that cannot be read goes out as it was.
    pub fn answer_at<'body, T: ToSchema>(
        &self,
        version: ApiVersion,
        body: impl Into<Cow<'body, [u8]>>,
    ) -> Cow<'body, [u8]> {
        let body = body.into();
        let schema = T::name();
        match self.versioning.response_to(version, &schema, &body) {
            Ok(Some(written)) => Cow::Owned(written),
            Ok(None) => body,
            Err(error) => {
                tracing::warn!(error = %error, schema = &*schema, "an answer could not be written at its version");
                body
            }
        }
    }

    /// Whether a `T` looks different at `version` than at the newest.
    pub fn changes<T: ToSchema>(&self, version: ApiVersion) -> bool {
        self.versioning.changes_answer(version, &T::name())
    }
}

/// 400 `unknown_version` for `sent`, named in the request as `field`.
pub fn unknown(sent: &str, field: &str) -> ApiError {
    ApiError::UnknownVersion {
        message: UnknownVersion(sent.chars().take(40).collect()).to_string(),
        field: field.to_owned(),
    }
}

/// A version sent in a body or query (`apiVersion`, `version`).
pub fn parse(sent: &str, field: &str) -> Result<ApiVersion, ApiError> {
    ApiVersion::parse(sent).ok_or_else(|| unknown(sent, field))
}

/// Each subscriber's pinned version, kept in memory after its first request: the version of a
/// request without the header costs no database read. A pin moved through another instance
/// is heard of (`storage::changes`) and read again.
#[derive(Default)]
pub struct Pins {
    pinned: RwLock<HashMap<SubscriberId, ApiVersion>>,
}

impl Pins {
    pub async fn get(&self, db: &Store, subscriber_id: SubscriberId) -> StorageResult<ApiVersion> {
        if let Some(version) = self.pinned.read().get(&subscriber_id) {
            return Ok(*version);
        }
        let stored = db.api_version(subscriber_id).await?;
        let version = stored.as_deref().and_then(ApiVersion::parse).unwrap_or(ApiVersion::INITIAL);
        if stored.is_some() {
            self.note(subscriber_id, version);
        }
        Ok(version)
    }

    /// The pin when it is in memory (no database read).
    pub fn cached(&self, subscriber_id: SubscriberId) -> Option<ApiVersion> {
        self.pinned.read().get(&subscriber_id).copied()
    }

    /// A pin read from or written to the database.
    pub fn note(&self, subscriber_id: SubscriberId, version: ApiVersion) {
        self.pinned.write().insert(subscriber_id, version);
    }

    /// Read again at the next request (another instance moved it).
    pub fn forget(&self, subscriber_id: SubscriberId) {
        self.pinned.write().remove(&subscriber_id);
    }
}
