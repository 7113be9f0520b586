//! Every endpoint the client calls, as the service's route templates. Each client method names
//! its route; [`Client::metrics`](crate::Client::metrics) counts the routes a client has hit,
//! which is how the tests prove every route the service serves has a client method.

/// How a route may be retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Safety {
    /// Reads, and login: repeating them changes nothing.
    Idempotent,
    /// A POST that creates: sent with an `Idempotency-Key`, so a repeat replays the first answer.
    Keyed,
    /// Repeating it would act twice (rotate the secret again, use up a verification attempt).
    Unsafe,
}

/// One operation of the API: a method and a path template (`/card/{card_id}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Route {
    pub method: &'static str,
    pub template: &'static str,
    /// Needs `Authorization: Bearer <token>`.
    pub authenticated: bool,
    pub safety: Safety,
}

impl Route {
    const fn get(template: &'static str) -> Self {
        Self { method: "GET", template, authenticated: true, safety: Safety::Idempotent }
    }

    const fn create(template: &'static str) -> Self {
        Self { method: "POST", template, authenticated: true, safety: Safety::Keyed }
    }

    const fn action(template: &'static str) -> Self {
        Self { method: "POST", template, authenticated: true, safety: Safety::Unsafe }
    }

    /// Sending the same change again leaves the same result.
    const fn patch(template: &'static str) -> Self {
        Self { method: "PATCH", template, authenticated: true, safety: Safety::Idempotent }
    }

    /// A repeat would answer 404 for what the first one deleted.
    const fn delete(template: &'static str) -> Self {
        Self { method: "DELETE", template, authenticated: true, safety: Safety::Unsafe }
    }

    const fn public(self) -> Self {
        Self { authenticated: false, ..self }
    }

    /// `GET /card/{card_id}`
    pub fn endpoint(&self) -> String {
        format!("{} {}", self.method, self.template)
    }
}

/// Not keyed: the service does not replay a signup (the answer holds the secret, never stored),
/// so it is never repeated either: a repeat would find the e-mail taken and lose the secret.
pub const SIGNUP: Route = Route::action("/subscriber/signup").public();
pub const LOGIN: Route =
    Route { method: "POST", template: "/subscriber/login", authenticated: false, safety: Safety::Idempotent };
pub const SUBSCRIBER: Route = Route::get("/subscriber");
pub const UPDATE_SUBSCRIBER: Route = Route::patch("/subscriber");
pub const ROTATE_SECRET: Route = Route::action("/subscriber/secret/rotate");
pub const USAGE: Route = Route::get("/subscriber/usage");
pub const REQUESTS: Route = Route::get("/subscriber/requests");
pub const REQUEST: Route = Route::get("/subscriber/requests/{request_id}");

pub const ENROLL_CARD: Route = Route::create("/card");
/// The spec's alias of [`ENROLL_CARD`].
pub const ENROLL_CARD_LINK: Route = Route::create("/card/link");
pub const CREATE_CARD_SESSION: Route = Route::create("/card/session");
pub const CARD_SESSION: Route = Route::get("/card/session/{session_id}");
pub const CARDS: Route = Route::get("/card");
pub const CARD: Route = Route::get("/card/{card_id}");
pub const UPDATE_CARD: Route = Route::patch("/card/{card_id}");
pub const REMOVE_CARD: Route = Route::delete("/card/{card_id}");
pub const CARD_TRANSACTIONS: Route = Route::get("/card/{card_id}/transactions");
pub const CARD_TRANSACTION_STREAM: Route = Route::get("/card/{card_id}/transactions/stream");
pub const CARD_RECURRING: Route = Route::get("/card/{card_id}/recurring");

pub const ENROLL_MERCHANT: Route = Route::create("/merchant");
/// The spec's alias of [`ENROLL_MERCHANT`].
pub const ENROLL_MERCHANT_ALIAS: Route = Route::create("/merchant/enroll");
pub const MERCHANT: Route = Route::get("/merchant");
pub const MERCHANT_CATEGORIES: Route = Route::get("/merchant/categories");
pub const CREATE_LOCATION: Route = Route::create("/merchant/location");
pub const LOCATION: Route = Route::get("/merchant/location/{location_id}");
pub const UPDATE_LOCATION: Route = Route::patch("/merchant/location/{location_id}");
pub const REMOVE_LOCATION: Route = Route::delete("/merchant/location/{location_id}");
pub const MERCHANT_TRANSACTIONS: Route = Route::get("/merchant/{merchant_id}/transactions");
pub const MERCHANT_TRANSACTION_STREAM: Route = Route::get("/merchant/{merchant_id}/transactions/stream");
pub const DISCOVER: Route = Route::get("/merchant/discover");
/// Changes nothing (the service stores none of it), so a retry is safe.
pub const ENRICH_TRANSACTIONS: Route =
    Route { method: "POST", template: "/transactions/enrich", authenticated: true, safety: Safety::Idempotent };
pub const TRANSACTION_CATEGORIES: Route = Route::get("/transactions/categories");
pub const BRAND_LOGO: Route = Route::get("/brands/{brand_id}/logo.svg").public();

pub const BANKS: Route = Route::get("/banks");
pub const ENROLL_ACCOUNT: Route = Route::create("/account");
pub const ACCOUNTS: Route = Route::get("/account");
pub const ACCOUNT: Route = Route::get("/account/{account_id}");
pub const UPDATE_ACCOUNT: Route = Route::patch("/account/{account_id}");
pub const REMOVE_ACCOUNT: Route = Route::delete("/account/{account_id}");
pub const ACCOUNT_RECURRING: Route = Route::get("/account/{account_id}/recurring");
pub const ACCOUNT_TRANSACTIONS: Route = Route::get("/account/{account_id}/transactions");
pub const REAUTH_ACCOUNT: Route = Route::action("/account/{account_id}/reauth");
pub const REFRESH_ACCOUNT: Route = Route::action("/account/{account_id}/refresh");

pub const ONBOARD_PERSON: Route = Route::create("/persons");
pub const PERSONS: Route = Route::get("/persons");
pub const AUTHENTICATE_PERSON: Route = Route::action("/persons/authenticate");
pub const VERIFY_PERSON: Route = Route::action("/persons/verify");
pub const PERSON: Route = Route::get("/persons/{person_id}");
pub const UPDATE_PERSON: Route = Route::patch("/persons/{person_id}");
pub const REMOVE_PERSON: Route = Route::delete("/persons/{person_id}");
pub const CREATE_PERSON_SESSION: Route = Route::create("/persons/{person_id}/session");

pub const USER: Route = Route::get("/users/{client_user_id}");
pub const REMOVE_USER: Route = Route::delete("/users/{client_user_id}");

pub const SANDBOX_CARDS: Route = Route::get("/sandbox/cards");
pub const SANDBOX_TRANSACTION: Route = Route::create("/sandbox/transactions");
pub const SETTLE_SANDBOX_TRANSACTION: Route = Route::action("/sandbox/transactions/{transaction_id}/settle");
pub const REFUND_SANDBOX_TRANSACTION: Route = Route::create("/sandbox/transactions/{transaction_id}/refund");
pub const REVERSE_SANDBOX_TRANSACTION: Route = Route::action("/sandbox/transactions/{transaction_id}/reverse");
pub const SEND_SANDBOX_EVENT: Route = Route::action("/sandbox/events");
pub const ADVANCE_SANDBOX_CLOCK: Route = Route::action("/sandbox/clock/advance");
pub const RESET_SANDBOX: Route = Route::action("/sandbox/reset");
pub const TAKE_SANDBOX_SNAPSHOT: Route = Route::create("/sandbox/snapshots");
pub const SANDBOX_SNAPSHOTS: Route = Route::get("/sandbox/snapshots");
pub const RESTORE_SANDBOX_SNAPSHOT: Route = Route::action("/sandbox/snapshots/{snapshot_id}/restore");
pub const DELETE_SANDBOX_SNAPSHOT: Route = Route::delete("/sandbox/snapshots/{snapshot_id}");
pub const SANDBOX_ANSWERS: Route = Route::get("/sandbox/persons/{person_id}/answers");

pub const CARD_TRANSACTION_SYNC: Route = Route::get("/card/{card_id}/transactions/sync");

pub const EVENTS: Route = Route::get("/events");
pub const EVENT: Route = Route::get("/events/{event_id}");

/// Not keyed: the answer holds the endpoint's secret, which the service does not keep to replay.
pub const CREATE_WEBHOOK: Route = Route::action("/webhooks");
pub const WEBHOOKS: Route = Route::get("/webhooks");
pub const WEBHOOK: Route = Route::get("/webhooks/{webhook_id}");
pub const UPDATE_WEBHOOK: Route = Route::patch("/webhooks/{webhook_id}");
pub const DELETE_WEBHOOK: Route = Route::delete("/webhooks/{webhook_id}");
pub const ROTATE_WEBHOOK_SECRET: Route = Route::action("/webhooks/{webhook_id}/secret/rotate");
pub const TEST_WEBHOOK: Route = Route::action("/webhooks/{webhook_id}/test");
pub const WEBHOOK_DELIVERIES: Route = Route::get("/webhooks/{webhook_id}/deliveries");
pub const RESEND_WEBHOOK_DELIVERY: Route = Route::action("/webhooks/{webhook_id}/deliveries/{event_id}/resend");
pub const RECOVER_WEBHOOK_DELIVERIES: Route = Route::action("/webhooks/{webhook_id}/recover");

pub const OPENAPI: Route = Route::get("/openapi.json").public();

/// Every route the client knows, aliases included.
pub const ALL: &[Route] = &[
    SIGNUP,
    LOGIN,
    SUBSCRIBER,
    UPDATE_SUBSCRIBER,
    ROTATE_SECRET,
    USAGE,
    REQUESTS,
    REQUEST,
    ENROLL_CARD,
    ENROLL_CARD_LINK,
    CREATE_CARD_SESSION,
    CARD_SESSION,
    CARDS,
    CARD,
    UPDATE_CARD,
    REMOVE_CARD,
    CARD_TRANSACTIONS,
    CARD_TRANSACTION_STREAM,
    CARD_RECURRING,
    ENROLL_MERCHANT,
    ENROLL_MERCHANT_ALIAS,
    MERCHANT,
    MERCHANT_CATEGORIES,
    CREATE_LOCATION,
    LOCATION,
    UPDATE_LOCATION,
    REMOVE_LOCATION,
    MERCHANT_TRANSACTIONS,
    MERCHANT_TRANSACTION_STREAM,
    DISCOVER,
    ENRICH_TRANSACTIONS,
    TRANSACTION_CATEGORIES,
    BRAND_LOGO,
    BANKS,
    ENROLL_ACCOUNT,
    ACCOUNTS,
    ACCOUNT,
    UPDATE_ACCOUNT,
    REMOVE_ACCOUNT,
    ACCOUNT_TRANSACTIONS,
    ACCOUNT_RECURRING,
    REAUTH_ACCOUNT,
    REFRESH_ACCOUNT,
    ONBOARD_PERSON,
    PERSONS,
    AUTHENTICATE_PERSON,
    VERIFY_PERSON,
    PERSON,
    UPDATE_PERSON,
    REMOVE_PERSON,
    CREATE_PERSON_SESSION,
    USER,
    REMOVE_USER,
    SANDBOX_CARDS,
    SANDBOX_TRANSACTION,
    SETTLE_SANDBOX_TRANSACTION,
    REFUND_SANDBOX_TRANSACTION,
    REVERSE_SANDBOX_TRANSACTION,
    SEND_SANDBOX_EVENT,
    SANDBOX_ANSWERS,
    ADVANCE_SANDBOX_CLOCK,
    RESET_SANDBOX,
    TAKE_SANDBOX_SNAPSHOT,
    SANDBOX_SNAPSHOTS,
    RESTORE_SANDBOX_SNAPSHOT,
    DELETE_SANDBOX_SNAPSHOT,
    CARD_TRANSACTION_SYNC,
    EVENTS,
    EVENT,
    CREATE_WEBHOOK,
    WEBHOOKS,
    WEBHOOK,
    UPDATE_WEBHOOK,
    DELETE_WEBHOOK,
    ROTATE_WEBHOOK_SECRET,
    TEST_WEBHOOK,
    WEBHOOK_DELIVERIES,
    RESEND_WEBHOOK_DELIVERY,
    RECOVER_WEBHOOK_DELIVERIES,
    OPENAPI,
];

/// A template with its parameter names blanked (`/card/{}`), so `{card_id}` and `{id}` compare
/// equal.
pub fn normalize_template(template: &str) -> String {
    let mut normalized = String::with_capacity(template.len());
    let mut in_parameter = false;
    for character in template.trim_end_matches('/').chars() {
        match character {
            '{' => {
                in_parameter = true;
                normalized.push('{');
            }
            '}' => {
                in_parameter = false;
                normalized.push('}');
            }
            _ if in_parameter => {}
            other => normalized.push(other),
        }
    }
    normalized
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_compare_without_parameter_names() {
        assert_eq!(normalize_template("/card/{card_id}/transactions"), "/card/{}/transactions");
        assert_eq!(normalize_template("/card/{id}/transactions/"), "/card/{}/transactions");
        assert_eq!(normalize_template("/subscriber"), "/subscriber");
    }

    #[test]
    fn every_route_is_listed_once() {
        let mut seen = std::collections::HashSet::new();
        for route in ALL {
            assert!(seen.insert((route.method, route.template)), "{} listed twice", route.endpoint());
        }
    }
}
