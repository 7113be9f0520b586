//! One typed method per endpoint, one module per resource, all on [`Client`](crate::Client).

mod accounts;
mod cards;
mod discovery;
mod enrichment;
mod events;
mod merchants;
mod persons;
mod sandbox;
mod subscriber;

pub use discovery::{AddressQuery, MAX_DISCOVER_LIMIT};
pub use enrichment::BrandLogo;
pub use subscriber::{RawAnswer, Session};
