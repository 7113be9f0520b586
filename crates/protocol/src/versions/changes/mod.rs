//! Every change between two versions, one module each, newest version last. A module states
//! what its change did ([`Instruction`](super::Instruction)s) and describes it for developers;
//! the transformations, the documents and the dashboard all read it from here.

mod api_version_shown;
mod camel_case_names;
mod hosted_branding_shown;
mod merchant_id_spelling;
mod rotation_needs_current_secret;

use super::VersionChange;

/// What `2026-12-01` changed from `2026-11-21`.
pub static V2026_12_01: &[&VersionChange] = &[
    &camel_case_names::CHANGE,
    &merchant_id_spelling::CHANGE,
    &rotation_needs_current_secret::CHANGE,
    &api_version_shown::CHANGE,
    &hosted_branding_shown::CHANGE,
];
