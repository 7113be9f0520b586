//! What the Subscriber Data desktop dashboard does, with no window: everything here runs and is
//! tested without Tauri; `src-tauri` only turns these operations into commands.
//!
//! - [`Dashboard`] (in [`app`]) holds the connection and the signed-in session, and offers one
//!   method per command; each resource module adds its own `impl Dashboard` block.
//! - [`connection`]: where the service is (the embedded sandbox of [`sandbox`], or a base URL),
//!   and the typed clients (`subscriber_client::Client`) that talk to it.
//! - [`session`]: one client per signed-in session; the token lives in it, in memory, renewed
//!   before it expires.
//! - [`secrets`]: the OS keyring (Secret Service or the kernel keyring on Linux).
//! - Resources: [`cards`] (with the secure card-entry page), [`merchants`] (and locations),
//!   [`lookup`] (merchant discovery, and [`enrich_csv`]: a CSV of descriptors enriched), [`accounts`] (bank linking), [`persons`] (identity
//!   verification), [`developers`] (webhooks and events), [`requests`] (the request log, read),
//!   [`versions`] (the account's API version), [`overview`] (the home: money, sales, what
//!   needs attention from [`attention`]); [`workbench`] (the API shell and the inspector);
//!   [`live`]: real-time streams; [`export`]: CSV.
//! - [`performance`]: periods and the figures of sales and money in and out, pure.
//! - [`settings`]: the non-secret choices kept between runs; [`error`]: `{code, message}`;
//!   [`private_folder`]: a folder only this user can use (the private session bus's).
//! - [`links`]: the screens the app opens by name (deep links, notifications, the palette);
//!   [`notices`]: what the desktop tells a subscriber whose window is in the background;
//!   [`palette`]: what the command palette searches.
//! - [`views`]: the types commands take and return (exported to TypeScript with feature `ts`);
//!   [`commands`]: the table of the app's commands, each declared once.

pub mod accounts;
pub mod app;
pub mod attention;
pub mod cards;
pub mod commands;
pub mod connection;
pub mod developers;
pub mod enrich_csv;
pub mod error;
pub mod export;
pub mod labels;
pub mod links;
pub mod live;
pub mod lookup;
pub mod merchants;
pub mod notices;
pub mod overview;
pub mod palette;
pub mod performance;
pub mod persons;
#[cfg(unix)]
pub mod private_folder;
pub mod requests;
pub mod sandbox;
pub mod secrets;
pub mod session;
pub mod settings;
pub mod versions;
pub mod views;
pub mod workbench;

pub use app::Dashboard;
pub use error::CommandError;
