//! Real time: point-of-sale transactions as they happen, as Server-Sent Events.
//!
//! - [`crate::events::EventHub`] (in `AppState::events`) announces each committed
//!   [`crate::storage::events::EventRow`] to the open streams; writers go through
//!   [`crate::events::EventHub::write`] so the announcement follows the commit, in commit order.
//! - [`stream`] serves `GET /card/{card_id}/transactions/stream` and
//!   `GET /merchant/{merchant_id}/transactions/stream`: an `event: transaction` with `id:`
//!   (the event's sequence number) and the list item as `data:` for each new transaction and
//!   again when it settles; `Last-Event-ID` (or `?lastEventId=`) replays what was missed.

pub mod stream;

use utoipa_axum::routes;

use crate::http::routes::Routes;

pub fn routes(api: Routes) -> Routes {
    api.api(routes!(stream::card_stream)).api(routes!(stream::merchant_stream))
}
