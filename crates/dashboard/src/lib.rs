//! What the Subscriber Data desktop dashboard does, with no window: everything here runs and is
//! tested without Tauri; `src-tauri` only turns these operations into commands.
//!
//! - [`Dashboard`] (in [`app`]) holds the connection, the signed-in session and the token, and
//!   offers one method per command the UI calls.
//! - [`connection`]: where the service is (the embedded sandbox of [`sandbox`], or a base URL).
//! - [`session`]: sign-up, log-in, the token kept in memory and renewed before it expires.
//! - [`secrets`]: the OS keyring (Secret Service or the kernel keyring on Linux).
//! - [`service`]: the HTTP calls to the service, the one place that knows its paths.
//! - [`cards`]: cards, their transactions, CSV export; [`live`]: the real-time stream.
//! - [`settings`]: the non-secret choices kept between runs; [`error`]: `{code, message}`.
//! - [`views`]: the types commands take and return (exported to TypeScript with feature `ts`).

pub mod app;
pub mod cards;
pub mod connection;
pub mod error;
pub mod live;
pub mod sandbox;
pub mod secrets;
pub mod service;
pub mod session;
pub mod settings;
pub mod views;

pub use app::Dashboard;
pub use error::CommandError;
