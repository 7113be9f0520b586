//! The Developers area's API versions: the version the account is pinned to (what requests
//! without a `Subscriber-Version` header get, from any integration of the account), every
//! version with what it changed, and moving the pin. The dashboard itself always names the
//! newest version on its requests, whatever the pin.

use serde::Serialize;
use subscriber_protocol::versions::{ApiVersion, ApiVersionInfo};

use crate::app::Dashboard;
use crate::error::CommandError;

/// What the versions panel shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct ApiVersions {
    /// The account's pin.
    pub pinned: ApiVersion,
    /// The version this dashboard speaks: the newest it knows.
    pub spoken: ApiVersion,
    /// Every version, oldest first, with what it changed.
    pub versions: Vec<ApiVersionInfo>,
}

impl ApiVersions {
    fn pinned_to(pinned: ApiVersion) -> Self {
        Self { pinned, spoken: ApiVersion::LATEST, versions: ApiVersion::catalogue() }
    }
}

impl Dashboard {
    pub async fn api_versions(&self) -> Result<ApiVersions, CommandError> {
        let profile = self.client().await?.subscriber().await?;
        Ok(ApiVersions::pinned_to(profile.api_version))
    }

    /// Moves the account's pin (the UI asks for a confirmation first).
    pub async fn set_api_version(&self, version: ApiVersion) -> Result<ApiVersions, CommandError> {
        let profile = self.client().await?.set_api_version(version).await?;
        Ok(ApiVersions::pinned_to(profile.api_version))
    }
}
