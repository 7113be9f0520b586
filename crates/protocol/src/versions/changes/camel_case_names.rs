//! `2026-12-01`: one naming style. The seed specification mixed snake_case (`client_id`,
//! `next_cursor`) with camelCase (`createdAt`, `cardId`) and named a discovered merchant's
//! descriptor `ID`.

use crate::versions::Instruction::{AliasRemoved, PropertyRenamed};
use crate::versions::VersionChange;

pub static CHANGE: VersionChange = VersionChange {
    title: "camelCase names",
    description: "Every property is camelCase. In answers: `client_id` is `clientId` and `public_key` is \
        `publicKey` (signup, GET /subscriber, secret rotation), `validity_seconds` is `validitySeconds` (login), \
        `next_cursor` is `nextCursor` (every list), `has_more` is `hasMore` (transaction sync), and a discovered \
        merchant's `ID` is `descriptor`. In requests: login takes `apiKey` (no longer `api_key` or `key`) and secret \
        rotation `currentSecret` (no longer `current_secret`).",
    instructions: &[
        PropertyRenamed { schema: "SignupResponse", older: "client_id", newer: "clientId" },
        PropertyRenamed { schema: "SignupResponse", older: "public_key", newer: "publicKey" },
        PropertyRenamed { schema: "SubscriberProfile", older: "client_id", newer: "clientId" },
        PropertyRenamed { schema: "SubscriberProfile", older: "public_key", newer: "publicKey" },
        PropertyRenamed { schema: "RotateSecretResponse", older: "client_id", newer: "clientId" },
        PropertyRenamed { schema: "LoginRequest", older: "api_key", newer: "apiKey" },
        AliasRemoved { schema: "LoginRequest", property: "apiKey", alias: "key" },
        PropertyRenamed { schema: "LoginResponse", older: "validity_seconds", newer: "validitySeconds" },
        AliasRemoved { schema: "RotateSecretRequest", property: "currentSecret", alias: "current_secret" },
        PropertyRenamed { schema: "CardTransactionPage", older: "next_cursor", newer: "nextCursor" },
        PropertyRenamed { schema: "MerchantTransactionPage", older: "next_cursor", newer: "nextCursor" },
        PropertyRenamed { schema: "AccountTransactionPage", older: "next_cursor", newer: "nextCursor" },
        PropertyRenamed { schema: "EventPage", older: "next_cursor", newer: "nextCursor" },
        PropertyRenamed { schema: "WebhookDeliveryPage", older: "next_cursor", newer: "nextCursor" },
        PropertyRenamed { schema: "TransactionSync", older: "next_cursor", newer: "nextCursor" },
        PropertyRenamed { schema: "TransactionSync", older: "has_more", newer: "hasMore" },
        PropertyRenamed { schema: "DiscoveredMerchant", older: "ID", newer: "descriptor" },
    ],
};
