//! The OpenAPI 3.1 document of the JSON API (`GET /openapi.json`, no auth) and a page to
//! browse it (`GET /docs`, Swagger UI served from files inside the binary).
//!
//! Each route carries its own operation (`#[utoipa::path]` on the handler, registered through
//! [`Routes::api`]); this module adds what every operation shares, so no operation can forget
//! it: the bearer scheme, the error responses the layers around the handlers can answer with
//! (401 without a valid token, 400/413/415 for a body, 400 for a query, 404 for an id in the
//! path, 408, 429, 500), and the `X-Request-Id` and `Subscriber-Version` headers of every
//! response. Each version's document is the newest one with the changes since undone
//! (`subscriber_protocol::versions`). [`rules`] writes
//! in the validation rules of the requests.

mod rules;

use std::sync::OnceLock;

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, Uri, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use bytes::Bytes;
use subscriber_protocol::ErrorBody;
use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::path::{Operation, ParameterIn};
use utoipa::openapi::response::{Response as ApiResponse, ResponseBuilder};
use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme};
use utoipa::openapi::tag::TagBuilder;
use utoipa::openapi::{Components, ContentBuilder, InfoBuilder, LicenseBuilder, OpenApi, Ref, RefOr};
use utoipa::{PartialSchema, ToSchema};
use utoipa_axum::routes;

use subscriber_protocol::versions::{ApiVersion, Versioning};

use crate::config::Config;
use crate::error::ApiError;
use crate::http::extract::ApiQuery;
use crate::http::routes::{Routes, is_secured, operations_mut};
use crate::state::AppState;
use crate::versions::{self, Published, RenderedAt, RequestVersion};

pub const DOCUMENT_PATH: &str = "/openapi.json";
pub const DOCS_PATH: &str = "/docs";

/// The name of the bearer scheme in `components.securitySchemes`.
const BEARER: &str = "bearer";

pub fn routes(api: Routes) -> Routes {
    api.api(routes!(openapi_json)).page("GET", DOCS_PATH, get(docs_index)).page_exact(
        "GET",
        "/docs/{*file}",
        get(docs_file),
    )
}

/// Which version's document `GET /openapi.json` serves.
#[derive(Debug, Default, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DocumentQuery {
    /// The API version to describe (`2026-12-01`); without it, the request's version (its
    /// `Subscriber-Version` header, else the caller's pin, else `2026-11-21`).
    #[param(value_type = Option<subscriber_protocol::versions::ApiVersion>)]
    version: Option<String>,
}

/// This document
///
/// The OpenAPI 3.1 description of one version of the API: every operation, parameter and
/// schema as that version writes them. `/docs` browses it.
#[utoipa::path(get, path = "/openapi.json", tag = "meta", operation_id = "getOpenApi", security(()),
    params(DocumentQuery),
    responses(
        (status = 200, description = "The OpenAPI 3.1 document of the version asked for.", content_type = "application/json",
            body = Object),
        (status = 400, description = "`version` names no version of the API (`unknown_version`).", body = ErrorBody),
    ))]
async fn openapi_json(
    State(state): State<AppState>,
    asked: RequestVersion,
    ApiQuery(query): ApiQuery<DocumentQuery>,
) -> Result<Response, ApiError> {
    let version = match query.version.as_deref() {
        Some(sent) => versions::parse(sent, "version")?,
        None => asked.version,
    };
    let document = state.versions.get().and_then(|published| published.documents.get(&version)).cloned();
    let Some(document) = document else {
        return Err(ApiError::internal(anyhow::anyhow!("the OpenAPI documents were not published")));
    };
    let mut response = ([(header::CONTENT_TYPE, "application/json")], document).into_response();
    response.extensions_mut().insert(RenderedAt(version));
    Ok(response)
}

/// Makes each version's document once for `GET /openapi.json` (they depend on the code, the
/// environment and the day the service started), and the changes ready to apply.
pub fn publish(state: &AppState, newest: serde_json::Value) -> anyhow::Result<()> {
    if state.versions.get().is_some() {
        return Ok(());
    }
    let versioning = Versioning::from_document(&newest);
    let mut documents = std::collections::HashMap::new();
    for version in ApiVersion::ALL {
        let mut document = newest.clone();
        at_version(version, &mut document);
        documents.insert(version, Bytes::from(serde_json::to_vec(&document)?));
    }
    let _ = state.versions.set(Published { documents, versioning });
    Ok(())
}

/// The newest document made `version`'s.
pub fn at_version(version: ApiVersion, document: &mut serde_json::Value) {
    subscriber_protocol::versions::document_at(version, document);
    document["info"]["version"] = serde_json::Value::String(version.as_str().to_owned());
    let known = ApiVersion::ALL.map(ApiVersion::as_str);
    if let Some(info) = document["info"].as_object_mut() {
        info.insert("x-api-versions".to_owned(), serde_json::json!(known));
    }
}

/// The complete document of the newest version, from the operations the routes registered.
pub fn complete(operations: OpenApi, config: &Config) -> serde_json::Value {
    let mut document = serde_json::to_value(shared(operations)).unwrap_or_default();
    rules::refine(&mut document, config);
    document["webhooks"] = webhooks();
    named_answers(&mut document);
    hoist_descriptions(&mut document);
    public_without_security(&mut document);
    document["servers"] = serde_json::json!([{
        "url": config.public_base_url(),
        "description": format!("This service ({})", config.environment),
    }]);
    document
}

/// A public operation (signup, login, this document) says `security: []`, no requirement,
/// rather than `utoipa`'s `[{}]` (the anonymous alternative), which generators read as "needs a
/// token" (openapi-python-client then asks for an authenticated client to sign up).
fn public_without_security(document: &mut serde_json::Value) {
    let paths = document.get_mut("paths").and_then(serde_json::Value::as_object_mut);
    let operations = paths
        .into_iter()
        .flat_map(|paths| paths.values_mut())
        .filter_map(serde_json::Value::as_object_mut)
        .flat_map(|item| item.values_mut());
    for operation in operations {
        if let Some(security) = operation.get_mut("security")
            && *security == serde_json::json!([{}])
        {
            *security = serde_json::json!([]);
        }
    }
}

/// An optional object's description goes where generators and readers look for it: on the
/// property, not on one of its `oneOf` choices (where `utoipa` writes it).
fn hoist_descriptions(document: &mut serde_json::Value) {
    let schemas = document.pointer_mut("/components/schemas").and_then(serde_json::Value::as_object_mut);
    let properties = schemas
        .into_iter()
        .flat_map(|schemas| schemas.values_mut())
        .filter_map(|schema| schema.get_mut("properties")?.as_object_mut())
        .flat_map(|properties| properties.values_mut());
    for property in properties {
        if property.get("description").is_some() {
            continue;
        }
        let choices = property.get_mut("oneOf").and_then(serde_json::Value::as_array_mut);
        let hoisted = choices.into_iter().flatten().find_map(|choice| choice.as_object_mut()?.remove("description"));
        if let Some(description) = hoisted {
            property["description"] = description;
        }
    }
}

/// Answers name their schema: `utoipa` writes each success body as `Success_<name>`, a copy of
/// `<name>` with `error: null` beside; the document points at `<name>` itself (the envelope's
/// `error` is described once, in the document's description), so a generated client has one
/// `Webhook` type, not one per operation.
fn named_answers(document: &mut serde_json::Value) {
    let paths = document.get_mut("paths").and_then(serde_json::Value::as_object_mut);
    for item in paths.into_iter().flat_map(|paths| paths.values_mut()) {
        let operations = item.as_object_mut().into_iter().flat_map(|item| item.values_mut());
        for answer in operations
            .filter_map(|operation| operation.get_mut("responses")?.as_object_mut())
            .flat_map(|answers| answers.values_mut())
        {
            if let Some(target) = answer.pointer_mut("/content/application~1json/schema/$ref")
                && let Some(name) =
                    target.as_str().and_then(|target| target.strip_prefix("#/components/schemas/Success_"))
            {
                *target = serde_json::Value::String(format!("#/components/schemas/{name}"));
            }
        }
    }
    if let Some(schemas) = document.pointer_mut("/components/schemas").and_then(serde_json::Value::as_object_mut) {
        schemas.retain(|name, _| !name.starts_with("Success_"));
    }
}

/// What the service sends to a webhook endpoint (OpenAPI 3.1 `webhooks`): one POST per event.
fn webhooks() -> serde_json::Value {
    use subscriber_protocol::webhook_signature::{EVENT_ID_HEADER, EVENT_TYPE_HEADER, HEADER};
    let header = |name: &str, description: &str| {
        serde_json::json!({"name": name, "in": "header", "required": true, "description": description,
            "schema": {"type": "string"}})
    };
    let parameters = serde_json::json!([
        header(
            HEADER,
            "`t=<unix seconds>,v1=<hex HMAC-SHA256(secret, \"<t>.<raw body>\")>`, one `v1=` per \
            secret that signs (two for 24 h after a rotation). Refuse a `t` more than 300 s from now."
        ),
        header(
            EVENT_ID_HEADER,
            "The event's id (`evt_…`), as `GET /events/{event_id}` reads it: the same event \
            may arrive more than once."
        ),
        header(EVENT_TYPE_HEADER, "The event's type."),
    ]);
    let mut webhooks = serde_json::Map::new();
    for typed in subscriber_protocol::EventType::ALL {
        let event_type = typed.as_str();
        let schema_ref = format!("#/components/schemas/{}", typed.event_schema_name());
        webhooks.insert(
            event_type.to_owned(),
            serde_json::json!({"post": {
                "summary": format!("A `{event_type}` event"),
                "description": "Sent to every enabled endpoint that wants this type, signed, retried with backoff \
                    for 3 days until the receiver answers 2xx within 10 s.",
                "operationId": format!("webhook_{}", event_type.replace('.', "_")),
                "tags": ["webhooks"],
                "security": [],
                "parameters": parameters,
                "requestBody": {"required": true, "content": {"application/json": {
                    "schema": {"$ref": schema_ref}}}},
                "responses": {"2XX": {"description": "Received: the delivery is done."},
                    "default": {"description": "Not received: the service tries again later."}},
            }}),
        );
    }
    serde_json::Value::Object(webhooks)
}

/// What every operation shares.
fn shared(mut document: OpenApi) -> OpenApi {
    document.info = InfoBuilder::new()
        .title("Subscriber Data API")
        .version(ApiVersion::LATEST.as_str())
        .description(Some(description()))
        .license(Some(LicenseBuilder::new().name("Proprietary").identifier(Some("LicenseRef-Proprietary")).build()))
        .build();
    let components = document.components.get_or_insert_with(Components::new);
    components.add_security_scheme(
        BEARER,
        SecurityScheme::Http(
            HttpBuilder::new()
                .scheme(HttpAuthScheme::Bearer)
                .bearer_format("JWT")
                .description(Some("The `token` of `POST /subscriber/login`."))
                .build(),
        ),
    );
    let mut error_schemas = vec![(ErrorBody::name().into_owned(), ErrorBody::schema())];
    ErrorBody::schemas(&mut error_schemas);
    components.schemas.extend(error_schemas);
    for shared in Shared::ALL {
        components.responses.insert(shared.name().to_owned(), RefOr::T(shared.response()));
    }
    document.security = Some(vec![SecurityRequirement::new(BEARER, Vec::<String>::new())]);
    document.tags = Some(
        TAGS.iter()
            .map(|(name, description)| TagBuilder::new().name(*name).description(Some(*description)).build())
            .collect(),
    );
    for item in document.paths.paths.values_mut() {
        for (_, operation) in operations_mut(item) {
            add_shared_responses(operation);
        }
    }
    document
}

const DESCRIPTION: &str = "Payment data for subscribers: cards and their transactions, merchants and \
    their locations, merchant discovery from statement descriptors, bank accounts, and identity \
    verification of persons.\n\n\
    **Authentication.** Sign up (`POST /subscriber/signup`), log in with the e-mail address and the \
    secret (`POST /subscriber/login`), and send the token as `Authorization: Bearer <token>` on every \
    other call.\n\n\
    **Versions.** The API has dated versions. Send `Subscriber-Version: YYYY-MM-DD` with a request to \
    use a version; without it the account's pinned version applies (pinned at signup to the version \
    the signup request named, else `2026-11-21`; `PATCH /subscriber` moves it). An unknown version is \
    400 `unknown_version`. Every answer says its version in the `Subscriber-Version` header. Webhook \
    endpoints keep the version they were added with. `GET /openapi.json?version=YYYY-MM-DD` serves \
    each version's document; this one describes the version in `info.version`.\n\n\
    **Responses.** Every body is a JSON object with `error`: `null` on success, beside the fields \
    each operation describes. A failure carries `error` (a message), `code` (stable, snake_case), \
    `requestId` (also in the `X-Request-Id` header) and, for invalid input, `details` naming each \
    field. A path answers with and without a trailing slash.\n\n\
    **Retries.** Every POST that creates takes an `Idempotency-Key` header.\n\n\
    **Lists** are newest first, paged with `limit` and the opaque `cursor` of the previous page's \
    `nextCursor` (null on the last page).\n\n\
    **Pages for people.** The `url` of `POST /card/session` and of `POST /account` opens an HTML page \
    of the service (`/secure/...`) in a person's browser; those pages are not part of this JSON API \
    and are not described here. A browsable copy of this document is served at `/docs`.";

/// The description, with every version and what it changed.
fn description() -> String {
    let mut text = DESCRIPTION.to_owned();
    text.push_str("\n\n**What each version changed.**");
    for info in ApiVersion::catalogue() {
        text.push_str(&format!("\n\n`{}`: {}", info.version, info.summary));
        for change in info.changes {
            text.push_str(&format!("\n- **{}.** {}", change.title, change.description));
        }
    }
    text
}

const TAGS: [(&str, &str); 12] = [
    ("subscriber", "Sign up, log in, the account and its usage."),
    ("cards", "Card enrollment, cards and their transactions."),
    ("merchants", "Merchant enrollment, locations and the transactions at them."),
    ("discovery", "Merchant ID: a merchant from what a card statement prints, an address or a position."),
    ("accounts", "Bank accounts, linked by the person at their bank."),
    ("persons", "Identity verification of persons and the signals it unlocks."),
    (
        "users",
        "The subscriber's own users (`clientUserId`): their cards, accounts and persons, read and erased together.",
    ),
    ("realtime", "Transactions as they happen, as Server-Sent Events."),
    ("events", "The event log: every change a subscriber can observe, also sent to webhooks and streams."),
    ("webhooks", "Endpoints of the subscriber's servers that receive events as signed POSTs, and their deliveries."),
    ("sandbox", "Helpers that exist only in the sandbox environment."),
    ("meta", "This document."),
];

/// The error responses shared by many operations, in `components.responses`.
#[derive(Clone, Copy)]
enum Shared {
    BadRequest,
    Unauthorized,
    NotFound,
    PayloadTooLarge,
    UnsupportedMediaType,
    Timeout,
    RateLimited,
    Internal,
    Unavailable,
}

impl Shared {
    const ALL: [Shared; 9] = [
        Self::BadRequest,
        Self::Unauthorized,
        Self::NotFound,
        Self::PayloadTooLarge,
        Self::UnsupportedMediaType,
        Self::Timeout,
        Self::RateLimited,
        Self::Internal,
        Self::Unavailable,
    ];

    fn name(self) -> &'static str {
        match self {
            Self::BadRequest => "BadRequest",
            Self::Unauthorized => "Unauthorized",
            Self::NotFound => "NotFound",
            Self::PayloadTooLarge => "PayloadTooLarge",
            Self::UnsupportedMediaType => "UnsupportedMediaType",
            Self::Timeout => "Timeout",
            Self::RateLimited => "RateLimited",
            Self::Internal => "Internal",
            Self::Unavailable => "Unavailable",
        }
    }

    fn status(self) -> &'static str {
        match self {
            Self::BadRequest => "400",
            Self::Unauthorized => "401",
            Self::NotFound => "404",
            Self::PayloadTooLarge => "413",
            Self::UnsupportedMediaType => "415",
            Self::Timeout => "408",
            Self::RateLimited => "429",
            Self::Internal => "500",
            Self::Unavailable => "503",
        }
    }

    fn description(self) -> &'static str {
        match self {
            Self::BadRequest => {
                "The request is not valid (`invalid_request`): malformed JSON, a wrong type, or a rule a field \
                 breaks; `details` names each field. Or `Subscriber-Version` names no version of the API \
                 (`unknown_version`)."
            }
            Self::Unauthorized => {
                "No valid bearer token (`unauthorized`), or it has expired (`token_expired`): log in again."
            }
            Self::NotFound => "No such resource of the caller (`not_found`); another subscriber's ids answer the same.",
            Self::PayloadTooLarge => "The body is over 64 KiB (`payload_too_large`).",
            Self::UnsupportedMediaType => "The body was not sent as `application/json` (`unsupported_media_type`).",
            Self::Timeout => "The request took longer than the service allows (`timeout`).",
            Self::RateLimited => "Too many requests (`rate_limited`): retry after `Retry-After` seconds.",
            Self::Internal => "The service failed (`internal`); quote `requestId` when reporting it.",
            Self::Unavailable => {
                "The database cannot serve the request now (`unavailable`): stopped, failing over, full, hung or \
                 busy. Nothing was changed: retry after `Retry-After` seconds."
            }
        }
    }

    fn response(self) -> ApiResponse {
        let mut builder = ResponseBuilder::new()
            .description(self.description())
            .content("application/json", ContentBuilder::new().schema(Some(Ref::from_schema_name("ErrorBody"))).build())
            .header("X-Request-Id", request_id_header())
            .header("Subscriber-Version", version_header());
        if let Self::RateLimited | Self::Unavailable = self {
            builder = builder.header(
                "Retry-After",
                HeaderBuilder::new()
                    .schema(Some(ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(1_f64))))
                    .description(Some("Seconds to wait before retrying."))
                    .build(),
            );
        }
        builder.build()
    }

    fn reference(self) -> RefOr<ApiResponse> {
        RefOr::Ref(Ref::new(format!("#/components/responses/{}", self.name())))
    }
}

fn request_id_header() -> utoipa::openapi::header::Header {
    HeaderBuilder::new()
        .schema(Some(ObjectBuilder::new().schema_type(Type::String)))
        .description(Some("The id of this request; error bodies repeat it as `requestId`."))
        .build()
}

fn version_header() -> utoipa::openapi::header::Header {
    HeaderBuilder::new()
        .schema(Some(ApiVersion::schema()))
        .description(Some("The API version the answer is written in."))
        .build()
}

/// Adds the responses an operation can get from the layers around its handler, keeping any
/// the operation describes itself.
fn add_shared_responses(operation: &mut Operation) {
    let secured = is_secured(operation);
    let located = |wanted: ParameterIn| {
        operation.parameters.as_deref().unwrap_or_default().iter().any(|parameter| {
            matches!(parameter, RefOr::T(parameter) if std::mem::discriminant(&parameter.parameter_in) == std::mem::discriminant(&wanted))
        })
    };
    let (has_query, has_header, has_path) =
        (located(ParameterIn::Query), located(ParameterIn::Header), located(ParameterIn::Path));
    let has_body = operation.request_body.is_some();
    let mut shared = Vec::new();
    if has_body || has_query || has_header {
        shared.push(Shared::BadRequest);
    }
    if secured {
        shared.push(Shared::Unauthorized);
    }
    if has_path {
        shared.push(Shared::NotFound);
    }
    if has_body {
        shared.extend([Shared::PayloadTooLarge, Shared::UnsupportedMediaType]);
    }
    shared.extend([Shared::Timeout, Shared::RateLimited, Shared::Internal, Shared::Unavailable]);
    let responses = &mut operation.responses.responses;
    for response in shared {
        responses.entry(response.status().to_owned()).or_insert_with(|| response.reference());
    }
    for response in responses.values_mut() {
        if let RefOr::T(response) = response {
            response.headers.entry("X-Request-Id".to_owned()).or_insert_with(|| RefOr::T(request_id_header()));
            response.headers.entry("Subscriber-Version".to_owned()).or_insert_with(|| RefOr::T(version_header()));
        }
    }
}

/// The Swagger UI page lives under `/docs/`; its files are named relative to that folder.
async fn docs_index(uri: Uri) -> Response {
    if !uri.path().ends_with('/') {
        return Redirect::permanent(&format!("{DOCS_PATH}/")).into_response();
    }
    docs_asset("index.html")
}

async fn docs_file(Path(file): Path<String>) -> Response {
    docs_asset(&file)
}

/// The Content-Security-Policy of the docs page: its own files only. Swagger UI sets inline
/// styles and draws icons from `data:` URLs; it fetches the document and, to try a call out,
/// the API itself, both on this origin.
const DOCS_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
    img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; \
    frame-ancestors 'none'";

fn docs_asset(file: &str) -> Response {
    static CONFIG: OnceLock<std::sync::Arc<utoipa_swagger_ui::Config<'static>>> = OnceLock::new();
    let config = CONFIG.get_or_init(|| {
        std::sync::Arc::new(
            utoipa_swagger_ui::Config::new([DOCUMENT_PATH])
                // The default asks validator.swagger.io about the document: nothing leaves this origin.
                .validator_url("none")
                .try_it_out_enabled(false)
                .persist_authorization(false),
        )
    });
    match utoipa_swagger_ui::serve(file, config.clone()) {
        Ok(Some(asset)) => {
            let mut response = Response::new(Body::from(asset.bytes.into_owned()));
            let headers = response.headers_mut();
            if let Ok(content_type) = HeaderValue::from_str(&asset.content_type) {
                headers.insert(header::CONTENT_TYPE, content_type);
            }
            if asset.gzpipped {
                headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
            }
            headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(DOCS_CSP));
            headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=3600"));
            response
        }
        Ok(None) => ApiError::not_found(format!("no file {file:?} in the docs page")).into_response(),
        Err(error) => ApiError::internal(anyhow::anyhow!("docs page: {error}")).into_response(),
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use serde_json::Value;
    use subscriber_protocol::{
        CardTransaction, CardTransactionPage, Event, MerchantTransaction, MerchantTransactionPage, Success,
        TransactionSync,
    };

    use super::*;

    /// The service's own newest document, and the versions published from it (in the state;
    /// the directory holds its database).
    async fn service_document() -> (tempfile::TempDir, AppState, Value) {
        let dir = tempfile::tempdir().expect("temporary directory");
        let state = AppState::new(Config::sandbox(dir.path().join("db.sqlite3"))).await.expect("state");
        let document = crate::api::document(state.clone());
        publish(&state, document.clone()).expect("published");
        (dir, state, document)
    }

    /// `body` (a `T` at the newest version) as the first version writes it, and what the
    /// newest writes.
    fn both_versions<T: ToSchema>(published: &Published, body: &[u8]) -> (Value, Cow<'static, [u8]>) {
        let first = published.answer_at::<T>(ApiVersion::INITIAL, body);
        let newest = published.answer_at::<T>(ApiVersion::LATEST, body.to_vec());
        (serde_json::from_slice(&first).expect("JSON"), newest)
    }

    #[tokio::test]
    async fn every_type_written_past_the_middleware_is_a_schema_of_the_document() {
        let (_dir, _, document) = service_document().await;
        let schemas = &document["components"]["schemas"];
        // The changes apply by these names: one the document lacks would leave its answers
        // unchanged at every version, silently.
        for name in [
            Event::name(),
            CardTransaction::name(),
            MerchantTransaction::name(),
            CardTransactionPage::name(),
            MerchantTransactionPage::name(),
            TransactionSync::name(),
        ] {
            assert!(schemas[&*name].is_object(), "no schema {name} in the document");
        }
        // An event is written as its type's event is: the versioning chooses it by `type`.
        assert_eq!(schemas[&*Event::name()]["discriminator"]["propertyName"], "type");
    }

    #[tokio::test]
    async fn pages_written_by_their_type_at_the_first_version_have_its_names() {
        let (_dir, state, _) = service_document().await;
        let published = state.versions.get().expect("published");
        let cursor = Some("c1".to_owned());

        let page = CardTransactionPage { transactions: Vec::new(), next_cursor: cursor.clone() };
        let body = serde_json::to_vec(&Success::new(page)).expect("JSON");
        let (first, newest) = both_versions::<CardTransactionPage>(published, &body);
        assert_eq!(first["next_cursor"], "c1", "{first}");
        assert!(first.get("nextCursor").is_none(), "{first}");
        assert_eq!(newest, body, "the newest version writes it as it was built");

        let page = MerchantTransactionPage { transactions: Vec::new(), next_cursor: cursor };
        let body = serde_json::to_vec(&Success::new(page)).expect("JSON");
        let (first, newest) = both_versions::<MerchantTransactionPage>(published, &body);
        assert_eq!(first["next_cursor"], "c1", "{first}");
        assert_eq!(newest, body);

        let sync = TransactionSync {
            added: Vec::new(),
            modified: Vec::new(),
            removed: vec![subscriber_protocol::TransactionId(7)],
            next_cursor: "9.0".to_owned(),
            has_more: true,
        };
        let body = serde_json::to_vec(&Success::new(sync)).expect("JSON");
        let (first, newest) = both_versions::<TransactionSync>(published, &body);
        assert_eq!(first["next_cursor"], "9.0", "{first}");
        assert_eq!(first["has_more"], true, "{first}");
        assert!(first.get("hasMore").is_none(), "{first}");
        assert_eq!(first["removed"], serde_json::json!([7]), "what no change touches is as it was: {first}");
        assert_eq!(newest, body);
    }
}
