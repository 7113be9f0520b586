//! `2026-12-01`: a secret rotation without the current secret is a malformed request. Earlier
//! it was read as an empty secret and refused as wrong credentials.

use crate::versions::Instruction::BecameRequired;
use crate::versions::VersionChange;

pub static CHANGE: VersionChange = VersionChange {
    title: "currentSecret is required",
    description: "POST /subscriber/secret/rotate requires a JSON body with `currentSecret`: without it the answer \
        is 400 `invalid_request` naming the field, where earlier versions answered 401 `invalid_credentials`. A \
        wrong secret is still 401.",
    instructions: &[BecameRequired { schema: "RotateSecretRequest", property: "currentSecret", older_default: "\"\"" }],
};
