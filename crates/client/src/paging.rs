//! Cursor-paged lists: `.await` one page, or follow `next_cursor` with [`Paged::pages`] and
//! [`Paged::stream`].

use std::collections::HashSet;
use std::future::{Future, IntoFuture};
use std::marker::PhantomData;
use std::pin::Pin;

use futures::{Stream, TryStreamExt, stream};
use serde::Serialize;
use serde::de::DeserializeOwned;
use subscriber_protocol::{
    AccountTransaction, AccountTransactionPage, CardTransaction, CardTransactionPage, CardTransactionQuery, Event,
    EventPage, EventQuery, LocationId, LoggedRequest, LoggedRequestDetail, MAX_PAGE_LIMIT, MerchantTransaction,
    MerchantTransactionPage, MerchantTransactionQuery, PageQuery, RequestLogPage, RequestQuery, WebhookDelivery,
    WebhookDeliveryPage,
};

use crate::client::Client;
use crate::error::Result;
use crate::routes::Route;
use crate::transport::Call;
use crate::validate;

/// A page of a list: its items and the cursor of the next page.
pub trait Page: DeserializeOwned + Send + 'static {
    type Item: Send + 'static;
    fn next_cursor(&self) -> Option<&str>;
    fn into_items(self) -> Vec<Self::Item>;
}

/// The query of a paged list.
pub trait Paging: Serialize + Clone + Send + Sync + 'static {
    fn set_cursor(&mut self, cursor: Option<String>);
    fn cursor(&self) -> Option<&str>;
    fn set_limit(&mut self, limit: Option<u32>);
    fn limit(&self) -> Option<u32>;
}

macro_rules! page {
    ($page:ty, $item:ty) => {
        impl Page for $page {
            type Item = $item;
            fn next_cursor(&self) -> Option<&str> {
                self.next_cursor.as_deref().filter(|cursor| !cursor.is_empty())
            }
            fn into_items(self) -> Vec<$item> {
                self.transactions
            }
        }
    };
}

page!(CardTransactionPage, CardTransaction);
page!(MerchantTransactionPage, MerchantTransaction);
page!(AccountTransactionPage, AccountTransaction);

impl Page for RequestLogPage {
    type Item = LoggedRequest;
    fn next_cursor(&self) -> Option<&str> {
        self.next_cursor.as_deref().filter(|cursor| !cursor.is_empty())
    }
    fn into_items(self) -> Vec<LoggedRequest> {
        self.requests
    }
}

impl Page for WebhookDeliveryPage {
    type Item = WebhookDelivery;
    fn next_cursor(&self) -> Option<&str> {
        self.next_cursor.as_deref().filter(|cursor| !cursor.is_empty())
    }
    fn into_items(self) -> Vec<WebhookDelivery> {
        self.deliveries
    }
}

impl Page for EventPage {
    type Item = Event;
    fn next_cursor(&self) -> Option<&str> {
        self.next_cursor.as_deref().filter(|cursor| !cursor.is_empty())
    }
    fn into_items(self) -> Vec<Event> {
        self.events
    }
}

macro_rules! paging {
    ($query:ty) => {
        impl Paging for $query {
            fn set_cursor(&mut self, cursor: Option<String>) {
                self.cursor = cursor;
            }
            fn cursor(&self) -> Option<&str> {
                self.cursor.as_deref()
            }
            fn set_limit(&mut self, limit: Option<u32>) {
                self.limit = limit;
            }
            fn limit(&self) -> Option<u32> {
                self.limit
            }
        }
    };
}

paging!(CardTransactionQuery);
paging!(MerchantTransactionQuery);
paging!(PageQuery);
paging!(EventQuery);
paging!(RequestQuery);

/// A paged list request. `.await` it for one page; [`pages`](Self::pages) and
/// [`stream`](Self::stream) follow `next_cursor` to the end.
#[must_use = "a paged request does nothing until awaited or streamed"]
pub struct Paged<Q, P> {
    client: Client,
    route: &'static Route,
    path: String,
    query: Q,
    page: PhantomData<fn() -> P>,
}

impl<Q: std::fmt::Debug, P> std::fmt::Debug for Paged<Q, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Paged").field("path", &self.path).field("query", &self.query).finish()
    }
}

impl<Q: Paging, P: Page> Paged<Q, P> {
    pub(crate) fn new(client: Client, route: &'static Route, path: String, query: Q) -> Self {
        Self { client, route, path, query, page: PhantomData }
    }

    /// Replaces the whole query (filters, limit and cursor).
    pub fn query(mut self, query: Q) -> Self {
        self.query = query;
        self
    }

    /// Items per page: 1 to 5000 (the service's default is 500).
    pub fn limit(mut self, limit: u32) -> Self {
        self.query.set_limit(Some(limit));
        self
    }

    /// Starts at the page this cursor (a `next_cursor` of an earlier page) points to.
    pub fn cursor(mut self, cursor: impl Into<String>) -> Self {
        self.query.set_cursor(Some(cursor.into()));
        self
    }

    /// The one page the query asks for.
    pub async fn send(self) -> Result<P> {
        self.fetch().await
    }

    async fn fetch(&self) -> Result<P> {
        validate::page_limit(self.query.limit(), MAX_PAGE_LIMIT)?;
        let call = Call::new(self.route, self.path.clone()).query(&self.query)?;
        self.client.inner.call(call).await
    }

    /// Every page, following `next_cursor` until it is null. A cursor the service already
    /// gave ends the stream too, so a faulty service cannot make it loop. The first error ends
    /// the stream after being yielded.
    pub fn pages(self) -> impl Stream<Item = Result<P>> + Send + 'static {
        let seen: HashSet<String> = self.query.cursor().map(str::to_owned).into_iter().collect();
        stream::unfold(Some((self, seen)), |state| async move {
            let (mut paged, mut seen) = state?;
            match paged.fetch().await {
                Err(error) => Some((Err(error), None)),
                Ok(page) => {
                    let next = match page.next_cursor() {
                        None => None,
                        Some(cursor) if !seen.insert(cursor.to_owned()) => {
                            tracing::warn!(path = %paged.path, "the service repeated a cursor: paging stopped");
                            None
                        }
                        Some(cursor) => {
                            paged.query.set_cursor(Some(cursor.to_owned()));
                            Some((paged, seen))
                        }
                    };
                    Some((Ok(page), next))
                }
            }
        })
    }

    /// Every item of every page, newest first.
    pub fn stream(self) -> impl Stream<Item = Result<P::Item>> + Send + 'static {
        self.pages().map_ok(|page| stream::iter(page.into_items().into_iter().map(Ok))).try_flatten()
    }

    /// Every item of every page, collected.
    pub async fn collect_all(self) -> Result<Vec<P::Item>> {
        self.stream().try_collect().await
    }
}

/// The query of a list in a time window.
pub trait TimeWindow: Paging {
    /// The `from` and `to` bounds.
    fn window(&mut self) -> (&mut Option<String>, &mut Option<String>);
}

macro_rules! time_window {
    ($query:ty) => {
        impl TimeWindow for $query {
            fn window(&mut self) -> (&mut Option<String>, &mut Option<String>) {
                (&mut self.from, &mut self.to)
            }
        }
    };
}

time_window!(CardTransactionQuery);
time_window!(MerchantTransactionQuery);
time_window!(RequestQuery);

impl<Q: TimeWindow, P: Page> Paged<Q, P> {
    /// From this date (`2026-01-31`, whole days in UTC) or RFC 3339 time on.
    pub fn from(mut self, from: impl Into<String>) -> Self {
        *self.query.window().0 = Some(from.into());
        self
    }

    /// Up to this date (inclusive) or RFC 3339 time.
    pub fn to(mut self, to: impl Into<String>) -> Self {
        *self.query.window().1 = Some(to.into());
        self
    }
}

impl<P: Page> Paged<CardTransactionQuery, P> {
    /// Only pending (`true`) or only settled (`false`) transactions.
    pub fn pending(mut self, pending: bool) -> Self {
        self.query.pending = Some(pending);
        self
    }
}

impl<P: Page> Paged<MerchantTransactionQuery, P> {
    /// Only transactions at this location of the merchant.
    pub fn location_id(mut self, location_id: LocationId) -> Self {
        self.query.location_id = Some(location_id);
        self
    }
}

impl<Q: Paging, P: Page> IntoFuture for Paged<Q, P> {
    type Output = Result<P>;
    type IntoFuture = Pin<Box<dyn Future<Output = Result<P>> + Send>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.send())
    }
}

impl Paged<RequestQuery, RequestLogPage> {
    /// Only answers of this status (`"404"`) or class (`"4xx"`, `"5xx"`, `"error"`).
    pub fn status(mut self, status: impl Into<String>) -> Self {
        self.query.status = Some(status.into());
        self
    }

    /// Only requests of this route (`/card/{card_id}`) or path.
    pub fn route(mut self, route: impl Into<String>) -> Self {
        self.query.route = Some(route.into());
        self
    }

    /// Only requests that named or got back this id (`12`, `evt_40`, `cardId:12`).
    pub fn object_id(mut self, object_id: impl Into<String>) -> Self {
        self.query.object_id = Some(object_id.into());
        self
    }

    /// The request with this id.
    pub fn request_id(mut self, request_id: impl Into<String>) -> Self {
        self.query.request_id = Some(request_id.into());
        self
    }

    /// Every matching request with its bodies, as the NDJSON export gives them.
    pub async fn export(self) -> Result<Vec<LoggedRequestDetail>> {
        let mut call = Call::new(self.route, self.path).query(&self.query)?;
        call.accept = Some("application/x-ndjson");
        let answer = self.client.inner.execute(&call).await?;
        answer
            .body
            .split(|byte| *byte == b'\n')
            .filter(|line| !line.trim_ascii().is_empty())
            .map(|line| crate::transport::decode_bytes(&call.endpoint(), answer.status, None, line))
            .collect()
    }
}

impl Paged<EventQuery, EventPage> {
    /// Only events of this type (`transaction.created`, …).
    pub fn event_type(mut self, event_type: impl Into<String>) -> Self {
        self.query.event_type = Some(event_type.into());
        self
    }

    /// From this date (`2026-01-31`) or RFC 3339 time on.
    pub fn since(mut self, since: impl Into<String>) -> Self {
        self.query.since = Some(since.into());
        self
    }
}
