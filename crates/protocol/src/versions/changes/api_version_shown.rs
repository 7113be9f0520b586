//! `2026-12-01`: where a version applies, the answer says which. Earlier versions read it from
//! the `Subscriber-Version` header only.

use crate::versions::Instruction::PropertyAdded;
use crate::versions::VersionChange;

pub static CHANGE: VersionChange = VersionChange {
    title: "Pinned versions shown",
    description: "The subscriber (the answers of signup, GET /subscriber and PATCH /subscriber) and every webhook \
        endpoint carry `apiVersion`: the version requests without a `Subscriber-Version` header get, and the version \
        the endpoint's events are written in.",
    instructions: &[
        PropertyAdded { schema: "SignupResponse", property: "apiVersion" },
        PropertyAdded { schema: "SubscriberProfile", property: "apiVersion" },
        PropertyAdded { schema: "Webhook", property: "apiVersion" },
    ],
};
