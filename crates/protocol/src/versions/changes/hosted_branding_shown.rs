//! `2026-12-01`: the subscriber's hosted-page branding and return URLs (contract: "Hosted
//! pages", fourth round) are shown with the account. `2026-11-21` keeps the seed's profile as it
//! was; its `PATCH /subscriber` still takes the new fields.

use crate::versions::Instruction::PropertyAdded;
use crate::versions::VersionChange;

pub static CHANGE: VersionChange = VersionChange {
    title: "Hosted-page branding shown",
    description: "The subscriber (the answers of GET /subscriber and PATCH /subscriber) carries `displayName`, \
        `brandColor` and `returnUrls`: what the hosted pages show and where they may send the browser back.",
    instructions: &[
        PropertyAdded { schema: "SubscriberProfile", property: "displayName" },
        PropertyAdded { schema: "SubscriberProfile", property: "brandColor" },
        PropertyAdded { schema: "SubscriberProfile", property: "returnUrls" },
    ],
};
