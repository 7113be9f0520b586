//! Pages the service hosts for a person rather than a program: the card-entry page, the
//! sandbox bank's sign-in and the identity page. They need no bearer token (their one-time link is the
//! credential), are rendered on the server without script, load only the service's own
//! stylesheet, and are sent with headers that keep them out of frames, caches and referrers.
//!
//! One-time links carry their token in the query string; the request log names only the
//! route, and the database keeps only the token's hash.

pub mod bank;
pub mod card;
mod form;
pub mod identity;
pub mod page;
pub mod token;

use axum::routing::{get, post};

use crate::http::routes::Routes;

pub fn routes(routes: Routes) -> Routes {
    // Pages for a person's browser (HTML forms), reached through the `url` of
    // `POST /card/session` and `POST /account`: not part of the JSON API's document.
    routes
        .page("GET", page::STYLESHEET_PATH, get(page::stylesheet))
        .page("GET", page::ACCENT_PATH, get(page::accent_stylesheet))
        .page("GET", crate::cards::session::PAGE_PATH, get(card::show))
        .page("POST", crate::cards::session::PAGE_PATH, post(card::submit))
        .page("GET", crate::accounts::LOGIN_PATH, get(bank::show_login))
        .page("POST", crate::accounts::LOGIN_PATH, post(bank::submit_login))
        .page("GET", crate::accounts::CONSENT_PATH, get(bank::show_consent))
        .page("POST", crate::accounts::CONSENT_PATH, post(bank::submit_consent))
        .page("GET", crate::persons::session::PAGE_PATH, get(identity::show))
        .page("POST", crate::persons::session::PAGE_PATH, post(identity::submit))
}
