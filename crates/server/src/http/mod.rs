//! The HTTP plumbing every resource uses: route registration, extractors (the one token
//! verification), idempotency, the request context. The assembled API is `crate::api`.

pub mod client_address;
pub mod context;
pub mod extract;
pub mod idempotency;
pub mod limit;
pub mod request_log;
pub mod routes;
pub mod usage;
pub mod versions;
