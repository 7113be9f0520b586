//! Subscriber Data service.
//!
//! - [`app`] builds the router over an [`AppState`]; [`serve`] runs it until shutdown;
//!   [`start`] runs it in the background (tests, the embedded dashboard sandbox).
//! - One module per resource: [`subscriber`], [`cards`], [`merchants`], [`accounts`],
//!   [`persons`], [`discovery`] (over the merchant [`directory`]); [`storage`] holds the SQL
//!   of each. [`realtime`] streams transactions as they happen; [`sandbox`] makes them.
//! - [`hosted`]: the pages a person (not a program) uses: card entry, the sandbox bank.
//! - [`operations`]: health and readiness probes, Prometheus metrics.
//! - [`error::ApiError`] is the one error type; every failure leaves as the contract's JSON.

pub mod accounts;
pub mod api;
pub mod background;
pub mod cards;
pub mod cli;
pub mod config;
pub mod credentials;
pub mod directory;
pub mod discovery;
pub mod error;
pub mod events;
pub mod hosted;
pub mod http;
pub mod identity_source;
pub mod keys;
pub mod limits;
pub mod link_token;
pub mod merchants;
pub mod metrics;
pub mod operations;
pub mod paging;
pub mod persons;
pub mod realtime;
pub mod reference;
pub mod request_id;
pub mod sandbox;
pub mod server;
pub mod simulation;
pub mod state;
pub mod storage;
pub mod subscriber;
pub mod usage;

pub use api::app;
pub use config::Config;
pub use server::{RunningServer, serve, start};
pub use state::AppState;
