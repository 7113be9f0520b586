//! Typed Rust client of the Subscriber Data API.
//!
//! - [`Client`] / [`ClientBuilder`]: one method per endpoint (`api/`, one module per resource),
//!   the wire types of [`protocol`] in and out.
//! - Tokens ([`auth`]): logs in lazily, renews shortly before expiry, logs in once and repeats
//!   the call once on `token_expired`; one login at a time for all concurrent calls. Secrets
//!   and tokens never show in `Debug`.
//! - [`Error`]: the service's error body ([`ApiError`]), transport failures, decode failures
//!   naming the JSON path, and inputs refused before sending.
//! - Retries ([`RetryPolicy`]): only safe calls (reads, login, creating POSTs with their
//!   `Idempotency-Key`), on 429 (`Retry-After`), 502/503/504 and broken connections.
//! - Lists ([`Paged`]): `.await` one page, `.stream()` every item across pages.
//! - Real time ([`TransactionStream`]): Server-Sent Events, reconnected with `Last-Event-ID`.
//! - Webhooks ([`webhooks`]): verify a delivery's signature, sign test payloads.
//! - [`routes`]: the route of every method; [`Client::metrics`] counts what was called.
//!
//! # Example
//!
//! Sign up, enroll a sandbox test card, read it and its transactions. (The hidden lines start
//! a sandbox service in-process on a free port.)
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let dir = tempfile::tempdir()?;
//! # let mut config = subscriber_server::Config::sandbox(dir.path().join("db.sqlite3"));
//! # config.directory_size = 500;
//! # let server = subscriber_server::start(config).await?;
//! # let base_url = server.base_url();
//! use futures::TryStreamExt;
//! use subscriber_client::Client;
//! use subscriber_client::protocol::{EnrollCardRequest, Pan};
//!
//! // Signup needs no token.
//! let anonymous = Client::builder().base_url(&base_url).build()?;
//! let account = anonymous.signup("dev@example.com").await?;
//!
//! // The client logs in by itself before its first call, and again before the token expires.
//! let client = Client::builder()
//!     .base_url(&base_url)
//!     .credentials(&account.email, account.secret.as_str())
//!     .user_agent("example/1.0")
//!     .build()?;
//! let enrolled = client
//!     .enroll_card(&EnrollCardRequest {
//!         pan: Pan::new("4242424242424242"),
//!         first_name: "Ada".into(),
//!         last_name: "Lovelace".into(),
//!         exp_month: 12,
//!         exp_year: 2030,
//!         country_code: "USA".into(),
//!         client_user_id: None,
//!         metadata: None,
//!     })
//!     .await?;
//! let card = client.card(enrolled.card_id).await?;
//! assert_eq!(card.last_four, 4242);
//!
//! // One page, then every transaction across pages.
//! let page = client.card_transactions(card.card_id).limit(50).await?;
//! assert!(page.transactions.len() <= 50);
//! let all: Vec<_> = client.card_transactions(card.card_id).limit(500).stream().try_collect().await?;
//! assert!(all.len() >= page.transactions.len());
//! # Ok(())
//! # }
//! ```
//!
//! # Errors
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let dir = tempfile::tempdir()?;
//! # let mut config = subscriber_server::Config::sandbox(dir.path().join("db.sqlite3"));
//! # config.directory_size = 500;
//! # let server = subscriber_server::start(config).await?;
//! # let base_url = server.base_url();
//! # let account = Client::builder().base_url(&base_url).build()?.signup("dev@example.com").await?;
//! use subscriber_client::{Client, Error};
//! use subscriber_client::protocol::{EnrollCardRequest, Pan};
//!
//! let client = Client::builder().base_url(&base_url).credentials(&account.email, account.secret.as_str()).build()?;
//! let mut card = EnrollCardRequest {
//!     pan: Pan::new("4242424242424241"),
//!     first_name: "Ada".into(),
//!     last_name: "Lovelace".into(),
//!     exp_month: 12,
//!     exp_year: 2030,
//!     country_code: "USA".into(),
//!     client_user_id: None,
//!     metadata: None,
//! };
//! // Refused before sending: the check digit is wrong.
//! match client.enroll_card(&card).await {
//!     Err(Error::InvalidInput { field, .. }) => assert_eq!(field, "pan"),
//!     other => panic!("expected invalid input, got {other:?}"),
//! }
//! // Refused by the service: a Luhn-valid card that is not a sandbox test card.
//! card.pan = Pan::new("4111111111111111");
//! let error = client.enroll_card(&card).await.unwrap_err();
//! let api = error.api().expect("the service answered");
//! assert_eq!((api.status.as_u16(), api.code.as_str()), (400, "invalid_request"));
//! assert_eq!(api.details[0].field, "pan");
//! assert!(api.request_id.is_some(), "quote it to support");
//! # Ok(())
//! # }
//! ```

mod api;
pub mod auth;
mod client;
mod error;
pub mod events;
mod metrics;
mod paging;
pub mod routes;
pub mod sse;
mod transport;
mod validate;
pub mod webhooks;

pub use api::{AddressQuery, BrandLogo, MAX_DISCOVER_LIMIT, RawAnswer, Session};
pub use auth::{Credentials, Secret};
pub use client::{Client, ClientBuilder, RetryPolicy};
pub use error::{ApiError, BoxError, Error, Result};
pub use metrics::Metrics;
pub use paging::{Page, Paged, Paging, TimeWindow};
pub use sse::TransactionStream;
pub use subscriber_protocol as protocol;
pub use validate::luhn_valid;
