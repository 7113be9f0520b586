//! Pages the service hosts for a person rather than a program: the card-entry page and
//! the sandbox bank's sign-in. They need no bearer token (their one-time link is the
//! credential), are rendered on the server without script, load only the service's own
//! stylesheet, and are sent with headers that keep them out of frames, caches and referrers.
//!
//! One-time links carry their token in the query string; the request log names only the
//! route, and the database keeps only the token's hash.

pub mod bank;
pub mod card;
pub mod page;
pub mod token;

use crate::http::routes::Routes;

pub fn routes(routes: Routes) -> Routes {
    routes
        .get(page::STYLESHEET_PATH, page::stylesheet)
        .get(crate::cards::session::PAGE_PATH, card::show)
        .post(crate::cards::session::PAGE_PATH, card::submit)
        .get(crate::accounts::LOGIN_PATH, bank::show_login)
        .post(crate::accounts::LOGIN_PATH, bank::submit_login)
        .get(crate::accounts::CONSENT_PATH, bank::show_consent)
        .post(crate::accounts::CONSENT_PATH, bank::submit_consent)
}
