//! Route registration: every path answers with and without a trailing slash, and creating
//! POSTs get the idempotency layer.

use axum::Router;
use axum::handler::Handler;
use axum::middleware::from_fn_with_state;
use axum::routing::{MethodRouter, get, post};

use crate::state::AppState;

pub struct Routes {
    router: Router<AppState>,
    state: AppState,
    paths: Vec<(&'static str, &'static str)>,
}

impl Routes {
    pub fn new(state: AppState) -> Self {
        Self { router: Router::new(), state, paths: Vec::new() }
    }

    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// Registers `path` and `path/` for `method_router`.
    pub fn route(mut self, method: &'static str, path: &'static str, method_router: MethodRouter<AppState>) -> Self {
        self.paths.push((method, path));
        let with_slash = format!("{path}/");
        self.router = self.router.route(path, method_router.clone()).route(&with_slash, method_router);
        self
    }

    pub fn get<H: Handler<T, AppState>, T: 'static>(self, path: &'static str, handler: H) -> Self {
        self.route("GET", path, get(handler))
    }

    pub fn post<H: Handler<T, AppState>, T: 'static>(self, path: &'static str, handler: H) -> Self {
        self.route("POST", path, post(handler))
    }

    /// A POST that creates something: a retry with the same `Idempotency-Key` replays it.
    pub fn post_creating<H: Handler<T, AppState>, T: 'static>(self, path: &'static str, handler: H) -> Self {
        let layer = from_fn_with_state(self.state.clone(), super::idempotency::idempotent);
        self.route("POST", path, post(handler).layer(layer))
    }

    /// Every (method, path) registered, without the trailing-slash twins.
    pub fn paths(&self) -> &[(&'static str, &'static str)] {
        &self.paths
    }

    pub fn into_router(self) -> Router<AppState> {
        self.router
    }
}
