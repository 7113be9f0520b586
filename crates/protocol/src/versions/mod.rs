//! Dated API versions, as Stripe has them (contract: "Versions (third round)").
//!
//! A request names its version in the `Subscriber-Version` header; without it the subscriber's
//! pinned version applies (pinned at signup, moved with `PATCH /subscriber`). The wire types of
//! this crate are the shapes of the newest version, [`ApiVersion::LATEST`]: the service builds
//! every answer at the newest version and walks it back one [`VersionChange`] at a time to the
//! version asked for; request bodies walk forward the same way.
//!
//! A change says what it did declaratively ([`Instruction`]: a property renamed, added, made
//! required…, each naming the schema of the OpenAPI document it applies to), so one statement
//! of a change transforms answers ([`Versioning::response_to`]), requests
//! ([`Versioning::request_from`]), error details ([`Versioning::error_field_to`]), webhook
//! events, and each version's OpenAPI document ([`document_at`]); its description is what the
//! documentation and the dashboard show. One module of [`changes`] per change.

pub mod changes;
mod document;
mod transform;

use serde::{Deserialize, Serialize};

pub use document::document_at;
pub use transform::Versioning;

/// The request header naming a version, and the response header saying which version the
/// answer is written in.
pub const HEADER: &str = "Subscriber-Version";

/// A version of the API, by the day it was released.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum ApiVersion {
    /// The shapes of the seed specification, quirks included.
    #[serde(rename = "2026-11-21")]
    V2026_11_21,
    /// One naming style (camelCase) everywhere.
    #[serde(rename = "2026-12-01")]
    V2026_12_01,
}

impl ApiVersion {
    /// Every version, oldest first.
    pub const ALL: [ApiVersion; 2] = [Self::V2026_11_21, Self::V2026_12_01];
    /// The pin of a subscriber whose signup named no version.
    pub const INITIAL: ApiVersion = Self::V2026_11_21;
    /// The version the wire types of this crate are written in.
    pub const LATEST: ApiVersion = Self::V2026_12_01;

    pub const fn as_str(self) -> &'static str {
        match self {
            Self::V2026_11_21 => "2026-11-21",
            Self::V2026_12_01 => "2026-12-01",
        }
    }

    /// A version by its date, exactly as written (`2026-12-01`), surrounding spaces aside.
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        Self::ALL.into_iter().find(|version| version.as_str() == text)
    }

    /// What this version changed from the one before it (nothing for the first).
    pub fn changes(self) -> &'static [&'static VersionChange] {
        match self {
            Self::V2026_11_21 => &[],
            Self::V2026_12_01 => changes::V2026_12_01,
        }
    }

    /// One line about the version.
    pub const fn summary(self) -> &'static str {
        match self {
            Self::V2026_11_21 => "The API as first published (`client_id`, `mechantId`): where every account starts.",
            Self::V2026_12_01 => "One consistent shape: camelCase names everywhere, versions shown where they apply.",
        }
    }

    /// The changes between this version and the newest, newest first: what an answer built at
    /// the newest version undoes to reach this one.
    pub fn changes_since(self) -> impl Iterator<Item = &'static VersionChange> {
        Self::ALL
            .into_iter()
            .rev()
            .take_while(move |version| *version > self)
            .flat_map(|version| version.changes().iter().rev().copied())
    }

    /// The versions, oldest first, with what each changed (for the documentation and the
    /// dashboard).
    pub fn catalogue() -> Vec<ApiVersionInfo> {
        Self::ALL
            .into_iter()
            .map(|version| ApiVersionInfo {
                version,
                summary: version.summary().to_owned(),
                changes: version
                    .changes()
                    .iter()
                    .map(|change| ApiVersionChange {
                        title: change.title.to_owned(),
                        description: change.description.to_owned(),
                    })
                    .collect(),
            })
            .collect()
    }
}

impl std::fmt::Display for ApiVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A version no release of the API has.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown API version {version:?}: the versions are {known}", version = .0, known = known_versions())]
pub struct UnknownVersion(pub String);

/// `2026-11-21, 2026-12-01`
pub fn known_versions() -> String {
    ApiVersion::ALL.iter().map(|version| version.as_str()).collect::<Vec<_>>().join(", ")
}

impl std::str::FromStr for ApiVersion {
    type Err = UnknownVersion;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::parse(text).ok_or_else(|| UnknownVersion(text.chars().take(40).collect()))
    }
}

/// A version and what it changed, as the dashboard lists them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct ApiVersionInfo {
    pub version: ApiVersion,
    pub summary: String,
    /// Empty for the first version.
    pub changes: Vec<ApiVersionChange>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct ApiVersionChange {
    pub title: String,
    pub description: String,
}

/// One change between a version and the one before it.
#[derive(Debug)]
pub struct VersionChange {
    /// A short title: "camelCase names".
    pub title: &'static str,
    /// What changed, for a developer moving up to the version.
    pub description: &'static str,
    /// What the change did, schema by schema.
    pub instructions: &'static [Instruction],
}

/// What a change did to one schema of the OpenAPI document. Names are the JSON names; `schema`
/// is the schema's name in the document's `components.schemas`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Instruction {
    /// `schema.newer` was called `older` before: answers are renamed back, requests forward.
    PropertyRenamed { schema: &'static str, older: &'static str, newer: &'static str },
    /// `schema.property` is new: answers of earlier versions leave it out.
    PropertyAdded { schema: &'static str, property: &'static str },
    /// Earlier answers also carried `older`, a copy of `kept` (the spec's misspelt `mechantId`).
    CopyRemoved { schema: &'static str, older: &'static str, kept: &'static str },
    /// Earlier requests could leave `property` out, or send no body at all: they get
    /// `older_default` (JSON).
    BecameRequired { schema: &'static str, property: &'static str, older_default: &'static str },
    /// Earlier requests could also name `property` `alias`.
    AliasRemoved { schema: &'static str, property: &'static str, alias: &'static str },
}

impl Instruction {
    pub fn schema(&self) -> &'static str {
        match *self {
            Self::PropertyRenamed { schema, .. }
            | Self::PropertyAdded { schema, .. }
            | Self::CopyRemoved { schema, .. }
            | Self::BecameRequired { schema, .. }
            | Self::AliasRemoved { schema, .. } => schema,
        }
    }

    /// Whether it changes what answers look like.
    fn shapes_answers(&self) -> bool {
        matches!(self, Self::PropertyRenamed { .. } | Self::PropertyAdded { .. } | Self::CopyRemoved { .. })
    }

    /// Whether it changes what requests may look like.
    fn shapes_requests(&self) -> bool {
        matches!(self, Self::PropertyRenamed { .. } | Self::BecameRequired { .. } | Self::AliasRemoved { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_dated_ordered_and_parsed_exactly() {
        assert_eq!(ApiVersion::ALL.first(), Some(&ApiVersion::INITIAL));
        assert_eq!(ApiVersion::ALL.last(), Some(&ApiVersion::LATEST));
        assert!(ApiVersion::ALL.windows(2).all(|pair| pair[0] < pair[1] && pair[0].as_str() < pair[1].as_str()));
        for version in ApiVersion::ALL {
            assert_eq!(ApiVersion::parse(version.as_str()), Some(version));
            assert_eq!(serde_json::to_value(version).ok(), Some(serde_json::json!(version.as_str())));
            let date = chrono::NaiveDate::parse_from_str(version.as_str(), "%Y-%m-%d");
            assert!(date.is_ok(), "{version} is a date");
        }
        assert_eq!(ApiVersion::parse(" 2026-12-01 "), Some(ApiVersion::V2026_12_01));
        for unknown in ["2026-12-1", "2026-11-22", "latest", "", "2026-12-01T00:00:00Z"] {
            assert_eq!(ApiVersion::parse(unknown), None, "{unknown}");
            assert!(unknown.parse::<ApiVersion>().is_err());
        }
    }

    #[test]
    fn every_version_after_the_first_says_what_it_changed() {
        assert!(ApiVersion::INITIAL.changes().is_empty());
        for version in ApiVersion::ALL.into_iter().skip(1) {
            assert!(!version.changes().is_empty(), "{version}");
            for change in version.changes() {
                assert!(!change.title.is_empty() && change.description.len() > 40, "{change:?}");
                assert!(!change.instructions.is_empty(), "{change:?}");
            }
        }
        assert_eq!(ApiVersion::LATEST.changes_since().count(), 0);
        assert_eq!(ApiVersion::INITIAL.changes_since().count(), ApiVersion::V2026_12_01.changes().len());
        let catalogue = ApiVersion::catalogue();
        assert_eq!(catalogue.len(), ApiVersion::ALL.len());
        assert!(catalogue[1].changes.iter().any(|change| change.description.contains("clientId")));
    }
}
