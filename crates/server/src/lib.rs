//! Subscriber Data service.
//!
//! Layers, each using only those above it (no module cycles: `make lint` checks it with
//! `tests/support/check-module-cycles.py`):
//! - Leaves: [`config`], [`keys`], [`reference`] tables, [`request_id`], [`metrics`],
//!   [`link_token`], [`body_cache`], [`redact`] (what a client sent, made fit to keep),
//!   [`logging`] (the log's formats and spans), [`open_files`] (the process's file limit).
//! - [`storage`]: every SQL statement, returning rows; [`error::ApiError`], the one error type
//!   (every failure leaves as the contract's JSON); [`paging`]; [`transaction_pages`] (rendered
//!   pages kept while they are still the answer); [`card_rows`] (each card's rows with their
//!   JSON, kept likewise, which any page of the card is cut from); [`lease`] (work one instance at a time does).
//! - Components the state holds: [`credentials`] (secrets, tokens, revocation), [`limits`],
//!   [`usage`], [`versions`] (the published documents and the pins of dated API versions),
//!   [`request_history`] (each subscriber's requests, on their way to the database), [`events`] (the live fan-out), [`directory`] (the merchant directory),
//!   [`identity_source`]; [`simulation`] makes up the sandbox's data, apart from the rules.
//! - [`state::AppState`]; [`http`], the plumbing every route uses (registration, the client's
//!   address, the one token verification, idempotency, rate limit, usage, the request log,
//!   request context, the API version of each request and its answer); [`erasure`] (what
//!   removing an object erases beyond its rows).
//! - Resources: [`ledger`] (a page of transactions, from memory while still the answer),
//!   [`subscriber`], [`cards`], [`merchants`], [`accounts`], [`persons`],
//!   [`discovery`], [`enrichment`] (counterparties, categories, logos),
//!   [`realtime`] (transactions as they happen), [`sandbox`] (controls and the
//!   point-of-sale simulator); [`hosted`], the pages a person uses (card entry, the sandbox
//!   bank), views over the card and bank-link sessions.
//! - [`api`] assembles the routes and the OpenAPI document; [`server`] serves them beside
//!   [`operations`] (probes, metrics) and the [`background`] work, which on PostgreSQL
//!   includes following the other instances ([`instances`]); [`local_guard`] keeps an
//!   embedded service to the app that runs it.
//!
//! The public surface is [`app`], [`serve`], [`start`], [`Config`], [`cli`], and the modules
//! the dashboard, the benchmarks and the tests read.

mod accounts;
pub mod api;
mod background;
mod body_cache;
mod card_rows;
mod cards;
pub mod cli;
pub mod config;
mod credentials;
pub mod directory;
mod discovery;
pub mod enrichment;
mod enrichment_api;
mod erasure;
pub mod error;
mod event_log;
mod events;
mod hosted;
pub mod http;
mod identity_source;
mod instances;
mod keys;
mod labels;
mod lease;
mod ledger;
mod limits;
mod link_token;
mod local_guard;
pub mod logging;
mod merchants;
mod metrics;
mod open_files;
mod operations;
mod paging;
mod persons;
mod realtime;
mod redact;
mod reference;
mod request_history;
mod request_id;
mod return_url;
mod sandbox;
pub mod server;
pub mod simulation;
pub mod state;
pub mod storage;
mod subscriber;
mod transaction_pages;
mod usage;
mod users;
pub mod versions;
mod webhooks;

pub use api::app;
pub use config::Config;
pub use server::{RunningServer, serve, start};
pub use state::AppState;
