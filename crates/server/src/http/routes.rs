//! Route registration: every path answers with and without a trailing slash, creating POSTs
//! get the idempotency layer, and a route of the JSON API carries its OpenAPI operation, so
//! registering a route and documenting it are one step.
//!
//! Resource modules register API routes with `utoipa_axum::routes!(handler)` (the handler
//! annotated with `#[utoipa::path]`): [`Routes::api`], [`Routes::api_creating`],
//! [`Routes::alias`]. The hosted HTML pages are not part of the JSON API and are registered
//! as pages ([`Routes::page`]), deliberately left out of the document. [`Routes::get`] and
//! [`Routes::post`] register an API route without documentation; the OpenAPI test names any
//! such route, so it cannot stay that way unnoticed.

use axum::Router;
use axum::handler::Handler;
use axum::middleware::from_fn_with_state;
use axum::routing::{MethodRouter, get, post};
use utoipa::openapi::path::{Operation, ParameterBuilder, ParameterIn, PathItem};
use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::security::SecurityRequirement;
use utoipa::openapi::{Components, OpenApi, RefOr, Required};
use utoipa_axum::router::UtoipaMethodRouter;

use super::idempotency::{self, IdempotencyLayer};
use crate::state::AppState;

/// What a registered route serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RouteKind {
    /// Part of the JSON API, described in `/openapi.json`.
    Api,
    /// A page for a person's browser (HTML, forms, assets), not part of the JSON API.
    Page,
}

pub struct Routes {
    router: Router<AppState>,
    state: AppState,
    /// One for every creating route, so a key in flight is seen by all of them.
    idempotency: IdempotencyLayer,
    paths: Vec<(&'static str, String)>,
    kinds: Vec<RouteKind>,
    document: OpenApi,
}

impl Routes {
    pub fn new(state: AppState) -> Self {
        Self {
            router: Router::new(),
            idempotency: IdempotencyLayer::new(state.clone()),
            state,
            paths: Vec::new(),
            kinds: Vec::new(),
            document: OpenApi::default(),
        }
    }

    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// Registers `path` and `path/` for `method_router`.
    pub fn route(self, method: &'static str, path: &'static str, method_router: MethodRouter<AppState>) -> Self {
        self.register(RouteKind::Api, method, path.to_owned(), method_router)
    }

    fn register(
        mut self,
        kind: RouteKind,
        method: &'static str,
        path: String,
        method_router: MethodRouter<AppState>,
    ) -> Self {
        let with_slash = format!("{path}/");
        self.router = self.router.route(&path, method_router.clone()).route(&with_slash, method_router);
        self.paths.push((method, path));
        self.kinds.push(kind);
        self
    }

    /// An API route without documentation (the OpenAPI test fails on it: prefer [`Routes::api`]).
    pub fn get<H: Handler<T, AppState>, T: 'static>(self, path: &'static str, handler: H) -> Self {
        self.route("GET", path, get(handler))
    }

    /// An API route without documentation (the OpenAPI test fails on it: prefer [`Routes::api`]).
    pub fn post<H: Handler<T, AppState>, T: 'static>(self, path: &'static str, handler: H) -> Self {
        self.route("POST", path, post(handler))
    }

    /// A POST that creates something, without documentation (prefer [`Routes::api_creating`]).
    pub fn post_creating<H: Handler<T, AppState>, T: 'static>(self, path: &'static str, handler: H) -> Self {
        let layer = from_fn_with_state(self.idempotency.clone(), idempotency::idempotent);
        self.route("POST", path, post(handler).route_layer(layer))
    }

    /// A documented route of the JSON API: `utoipa_axum::routes!(handler)`.
    pub fn api(self, documented: UtoipaMethodRouter<AppState>) -> Self {
        self.add_documented(None, documented, false)
    }

    /// A documented POST that creates something: a retry with the same `Idempotency-Key`
    /// replays it, and the document says so.
    pub fn api_creating(self, documented: UtoipaMethodRouter<AppState>) -> Self {
        self.add_documented(None, documented, true)
    }

    /// The operation of `documented` served at a second path too (the spec's aliases).
    pub fn alias(self, path: &'static str, documented: UtoipaMethodRouter<AppState>, creating: bool) -> Self {
        self.add_documented(Some(path), documented, creating)
    }

    fn add_documented(
        mut self,
        alias: Option<&'static str>,
        (schemas, mut paths, method_router): UtoipaMethodRouter<AppState>,
        creating: bool,
    ) -> Self {
        // Usage counts the protected routes, inside the idempotency layer (a replay is not
        // counted twice).
        let secured = paths
            .paths
            .values_mut()
            .any(|item| operations_mut(item).into_iter().any(|(_, operation)| is_secured(operation)));
        // Only where requests are billed (`established`): elsewhere the layer would count nothing.
        let method_router = if secured && self.state.usage.is_billing() {
            method_router.route_layer(from_fn_with_state(self.state.clone(), super::usage::record_usage))
        } else {
            method_router
        };
        // `route_layer`: a method the route does not serve gets its 405 without the idempotency
        // layer reading (or remembering) its key.
        let method_router = if creating {
            method_router.route_layer(from_fn_with_state(self.idempotency.clone(), idempotency::idempotent))
        } else {
            method_router
        };
        // Outside idempotency: a replay is written at the version of the request that replays it.
        let mut shapes = super::versions::Shapes::default();
        for item in paths.paths.values_mut() {
            for (method, operation) in operations_mut(item) {
                shapes.add(method, operation);
            }
        }
        let method_router = if shapes.is_empty() {
            method_router
        } else {
            let reshaping =
                super::versions::Reshaping { state: self.state.clone(), shapes: std::sync::Arc::new(shapes) };
            method_router.route_layer(from_fn_with_state(reshaping, super::versions::reshape))
        };
        for (documented_path, mut item) in paths.paths {
            let path = alias.map_or(documented_path.clone(), str::to_owned);
            let mut methods = Vec::new();
            for (method, operation) in operations_mut(&mut item) {
                methods.push(method);
                if creating {
                    operation.parameters.get_or_insert_with(Vec::new).push(RefOr::T(idempotency_key_parameter()));
                }
                if alias.is_some() {
                    operation.operation_id =
                        operation.operation_id.take().map(|id| format!("{id}{}", alias_suffix(&path)));
                    let note = format!("The same operation as `{method} {documented_path}`, at the spec's other path.");
                    operation.description =
                        Some(operation.description.take().map_or(note.clone(), |text| format!("{note}\n\n{text}")));
                }
            }
            let with_slash = format!("{path}/");
            self.router = self.router.route(&path, method_router.clone()).route(&with_slash, method_router.clone());
            for method in methods {
                self.paths.push((method, path.clone()));
                self.kinds.push(RouteKind::Api);
            }
            match self.document.paths.paths.get_mut(&path) {
                Some(existing) => existing.merge_operations(item),
                None => {
                    self.document.paths.paths.insert(path, item);
                }
            }
        }
        let components = self.document.components.get_or_insert_with(Components::new);
        components.schemas.extend(schemas);
        self
    }

    /// A page for a person's browser, served at `path` and `path/`.
    pub fn page(self, method: &'static str, path: &'static str, method_router: MethodRouter<AppState>) -> Self {
        self.register(RouteKind::Page, method, path.to_owned(), method_router)
    }

    /// A page route whose path ends in a wildcard (`/docs/{*file}`): no trailing-slash twin.
    pub fn page_exact(
        mut self,
        method: &'static str,
        path: &'static str,
        method_router: MethodRouter<AppState>,
    ) -> Self {
        self.router = self.router.route(path, method_router);
        self.paths.push((method, path.to_owned()));
        self.kinds.push(RouteKind::Page);
        self
    }

    /// Every (method, path) registered, without the trailing-slash twins.
    pub fn paths(&self) -> &[(&'static str, String)] {
        &self.paths
    }

    /// Every (method, path) registered, with what it serves.
    pub fn routes(&self) -> impl Iterator<Item = (&'static str, &str, RouteKind)> + '_ {
        self.paths.iter().zip(&self.kinds).map(|((method, path), kind)| (*method, path.as_str(), *kind))
    }

    /// The operations and schemas of the documented routes (the rest of the document is
    /// added by `api::openapi`).
    pub fn document(&self) -> &OpenApi {
        &self.document
    }

    pub fn into_parts(self) -> (Router<AppState>, OpenApi) {
        (self.router, self.document)
    }

    pub fn into_router(self) -> Router<AppState> {
        self.router
    }
}

/// The operations of a path item with their HTTP method names.
pub fn operations_mut(item: &mut PathItem) -> Vec<(&'static str, &mut Operation)> {
    [
        ("GET", item.get.as_mut()),
        ("POST", item.post.as_mut()),
        ("PUT", item.put.as_mut()),
        ("PATCH", item.patch.as_mut()),
        ("DELETE", item.delete.as_mut()),
        ("HEAD", item.head.as_mut()),
        ("OPTIONS", item.options.as_mut()),
        ("TRACE", item.trace.as_mut()),
    ]
    .into_iter()
    .filter_map(|(method, operation)| operation.map(|operation| (method, operation)))
    .collect()
}

/// `/card/link` → `AtCardLink`, so an alias's operation id stays unique.
fn alias_suffix(path: &str) -> String {
    let mut suffix = String::from("At");
    for word in path.split(|character: char| !character.is_ascii_alphanumeric()).filter(|word| !word.is_empty()) {
        let mut characters = word.chars();
        if let Some(first) = characters.next() {
            suffix.push(first.to_ascii_uppercase());
            suffix.extend(characters);
        }
    }
    suffix
}

fn idempotency_key_parameter() -> utoipa::openapi::path::Parameter {
    ParameterBuilder::new()
        .name("Idempotency-Key")
        .parameter_in(ParameterIn::Header)
        .required(Required::False)
        .description(Some(
            "Makes the request safe to retry: a retry with the same key and body replays the first response \
             (header `Idempotent-Replayed: true`) and creates nothing; the same key with another body is 409.",
        ))
        .schema(Some(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .min_length(Some(1))
                .max_length(Some(255))
                .pattern(Some("^[!-~]+$"))
                .examples(["5d7c1a0e-2f43-4b8e-9a55-0c1f3f0f4a10"]),
        ))
        .build()
}

/// Whether the operation needs a bearer token: it inherits the document's bearer requirement
/// unless it declares `security(())`.
pub fn is_secured(operation: &Operation) -> bool {
    operation.security.as_ref().is_none_or(|requirements| {
        requirements.iter().all(|requirement| requirement != &SecurityRequirement::default())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alias_suffixes_name_the_path() {
        assert_eq!(alias_suffix("/card/link"), "AtCardLink");
        assert_eq!(alias_suffix("/merchant/enroll"), "AtMerchantEnroll");
    }
}
