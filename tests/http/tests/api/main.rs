//! Black-box conformance of the service: one test binary, one module per resource.
//! Requests and responses are raw JSON with literal field names, so a mistake in a shared
//! type cannot hide a wire mistake.

mod accounts;
mod card_session;
mod cards;
mod configuration;
mod discovery;
mod durability;
mod enrichment;
mod errors;
mod events;
mod helpers;
mod history;
mod idempotency;
mod identity_page;
mod instances;
mod lifecycle;
mod limits;
mod merchants;
mod operations;
mod persons;
mod pgbouncer;
mod realtime;
mod request_history;
mod sandbox;
mod scenarios;
mod security_credentials;
mod security_identity;
mod security_logs;
mod security_network;
mod security_storage;
mod security_tenants;
mod snapshots;
mod subscriber;
mod users;
mod version_exits;
mod versions;
mod webhook_delivery;
mod webhook_fairness;
mod webhooks;
mod workload;
