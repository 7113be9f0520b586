//! The OpenAPI document describes every route of the JSON API, and nothing the router does
//! not serve: a route registered without its operation fails here, by name.

use std::collections::BTreeSet;

use axum::body::{Body, to_bytes};
use axum::http::{Request, StatusCode, header};
use serde_json::Value;
use subscriber_protocol::versions::ApiVersion;
use subscriber_server::http::routes::RouteKind;
use subscriber_server::{AppState, Config};
use tower::ServiceExt;

async fn state(dir: &tempfile::TempDir) -> AppState {
    let mut config = Config::sandbox(dir.path().join("db.sqlite3"));
    config.directory_size = 100;
    config.simulate_rate = 0;
    AppState::new(config).await.expect("state")
}

async fn get(state: &AppState, path: &str) -> (StatusCode, axum::http::HeaderMap, Vec<u8>) {
    let response = subscriber_server::app(state.clone())
        .oneshot(Request::get(path).body(Body::empty()).expect("request"))
        .await
        .expect("response");
    let status = response.status();
    let headers = response.headers().clone();
    let body = to_bytes(response.into_body(), 50 * 1024 * 1024).await.expect("body");
    (status, headers, body.to_vec())
}

/// (METHOD, /path) of every operation in a served document.
fn documented(document: &Value) -> BTreeSet<(String, String)> {
    let paths = document["paths"].as_object().expect("paths");
    paths
        .iter()
        .flat_map(|(path, item)| {
            item.as_object()
                .expect("path item")
                .keys()
                .filter(|key| ["get", "post", "put", "patch", "delete"].contains(&key.as_str()))
                .map(move |method| (method.to_ascii_uppercase(), path.clone()))
        })
        .collect()
}

#[tokio::test]
async fn every_api_route_is_in_the_served_document_and_nothing_else() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let state = state(&dir).await;
    let (status, headers, body) = get(&state, "/openapi.json").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers[header::CONTENT_TYPE], "application/json");
    let document: Value = serde_json::from_slice(&body).expect("JSON");
    assert_eq!(document["openapi"], "3.1.0");

    let routes = subscriber_server::api::routes(state.clone());
    let api: BTreeSet<(String, String)> = routes
        .routes()
        .filter(|(_, _, kind)| *kind == RouteKind::Api)
        .map(|(method, path, _)| (method.to_owned(), path.to_owned()))
        .collect();
    let served = documented(&document);
    let undocumented: Vec<_> = api.difference(&served).collect();
    assert!(
        undocumented.is_empty(),
        "routes missing from /openapi.json (register them with Routes::api): {undocumented:?}"
    );
    let unrouted: Vec<_> = served.difference(&api).collect();
    assert!(unrouted.is_empty(), "operations in /openapi.json that the router does not serve: {unrouted:?}");

    // The pages left out are the hosted HTML pages and the docs page, deliberately.
    let pages: Vec<_> =
        routes.routes().filter(|(_, _, kind)| *kind == RouteKind::Page).map(|(_, path, _)| path).collect();
    assert!(!pages.is_empty());
    for path in pages {
        assert!(path.starts_with("/secure/") || path.starts_with("/docs"), "{path} is neither documented nor a page");
    }
    assert_eq!(routes.paths().len(), routes.routes().count());
}

#[tokio::test]
async fn the_contracts_routes_are_documented_with_their_errors_and_the_bearer_scheme() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let state = state(&dir).await;
    let document = subscriber_server::api::document(state);
    let served = documented(&document);
    for (method, path) in [
        ("POST", "/subscriber/signup"),
        ("POST", "/subscriber/login"),
        ("POST", "/card"),
        ("POST", "/card/link"),
        ("GET", "/card/{card_id}"),
        ("GET", "/card/{card_id}/transactions"),
        ("POST", "/merchant"),
        ("POST", "/merchant/enroll"),
        ("POST", "/merchant/location"),
        ("GET", "/merchant/{merchant_id}/transactions"),
        ("POST", "/account"),
        ("POST", "/persons"),
        ("POST", "/persons/authenticate"),
        ("POST", "/persons/verify"),
        ("GET", "/openapi.json"),
    ] {
        assert!(served.contains(&(method.to_owned(), path.to_owned())), "{method} {path} is not documented");
    }
    let scheme = &document["components"]["securitySchemes"]["bearer"];
    assert_eq!((scheme["type"].as_str(), scheme["scheme"].as_str()), (Some("http"), Some("bearer")));
    assert_eq!(document["security"], serde_json::json!([{"bearer": []}]));

    let operation = |method: &str, path: &str| document["paths"][path][method].clone();
    // Public operations say so; the others inherit the bearer scheme and document 401.
    for (method, path) in [("post", "/subscriber/signup"), ("post", "/subscriber/login"), ("get", "/openapi.json")] {
        assert_eq!(operation(method, path)["security"], serde_json::json!([]), "{method} {path}");
    }
    let card = operation("get", "/card/{card_id}");
    assert!(card.get("security").is_none());
    for status in ["200", "401", "404", "429", "500"] {
        assert!(card["responses"].get(status).is_some(), "GET /card/{{card_id}} lacks {status}");
    }
    let enroll = operation("post", "/card");
    for status in ["201", "400", "401", "403", "409", "413", "415"] {
        assert!(enroll["responses"].get(status).is_some(), "POST /card lacks {status}");
    }
    let parameters = enroll["parameters"].as_array().expect("parameters");
    assert!(parameters.iter().any(|parameter| parameter["name"] == "Idempotency-Key"));
    let transactions = operation("get", "/card/{card_id}/transactions");
    let names: BTreeSet<_> = transactions["parameters"]
        .as_array()
        .expect("parameters")
        .iter()
        .map(|parameter| parameter["name"].as_str().unwrap_or_default().to_owned())
        .collect();
    for name in ["card_id", "limit", "cursor", "from", "to", "pending"] {
        assert!(names.contains(name), "GET /card/{{card_id}}/transactions lacks the parameter {name}");
    }
    // Every error response is the shared error schema.
    let error = &document["components"]["schemas"]["ErrorBody"];
    assert_eq!(error["required"], serde_json::json!(["error", "code"]));
    assert_eq!(
        document["components"]["responses"]["NotFound"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/ErrorBody"
    );
}

#[tokio::test]
async fn the_docs_page_is_served_from_the_binary_with_a_policy_of_its_own() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let state = state(&dir).await;
    let (status, headers, _) = get(&state, "/docs").await;
    assert!(status.is_redirection(), "{status}");
    assert_eq!(headers[header::LOCATION], "/docs/");
    let (status, headers, body) = get(&state, "/docs/").await;
    assert_eq!(status, StatusCode::OK);
    let policy = headers[header::CONTENT_SECURITY_POLICY].to_str().expect("text");
    assert!(policy.contains("script-src 'self'") && policy.contains("connect-src 'self'"), "{policy}");
    assert!(!policy.contains("http"), "the page may load nothing from elsewhere: {policy}");
    let page = String::from_utf8(body).expect("HTML");
    assert!(page.contains("swagger-ui-bundle.js"));
    let (status, _, body) = get(&state, "/docs/swagger-initializer.js").await;
    assert_eq!(status, StatusCode::OK);
    let initializer = String::from_utf8(body).expect("JavaScript");
    assert!(initializer.contains("\"url\": \"/openapi.json\""), "{initializer}");
    assert!(initializer.contains("\"validatorUrl\": \"none\""), "{initializer}");
    let (status, _, _) = get(&state, "/docs/swagger-ui-bundle.js").await;
    assert_eq!(status, StatusCode::OK);
    let (status, _, body) = get(&state, "/docs/nothing-here.js").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(String::from_utf8_lossy(&body).contains("\"code\":\"not_found\""));
}

#[tokio::test]
async fn request_schemas_carry_the_services_rules() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let document = subscriber_server::api::document(state(&dir).await);
    let schemas = &document["components"]["schemas"];
    let property = |schema: &str, name: &str| schemas[schema]["properties"][name].clone();
    assert!(property("SignupRequest", "email")["pattern"].is_string());
    assert_eq!(property("EnrollCardRequest", "expMonth")["maximum"], 12);
    assert_eq!(property("EnrollCardRequest", "firstName")["maxLength"], 64);
    // The countries once, referred to wherever a country is asked for.
    assert_eq!(property("EnrollCardRequest", "countryCode")["$ref"], "#/components/schemas/CountryCode");
    assert!(schemas["CountryCode"]["enum"].as_array().is_some_and(|codes| codes.len() > 200));
    // The sandbox names its test cards; the merchant categories come from the service's table.
    assert!(schemas["Pan"].to_string().contains("4242424242424242"));
    assert!(schemas["CategoryCode"].to_string().contains("\"5812\""));
    assert!(property("EnrollAccountRequest", "bank")["enum"].to_string().contains("northwind"));
    // No rule names a property its schema lacks (that would leave a null behind).
    for (name, schema) in schemas.as_object().expect("schemas") {
        for (field, value) in schema["properties"].as_object().into_iter().flatten() {
            assert!(!value.is_null(), "{name}.{field} is null");
        }
    }
    let cursor = document["paths"]["/card/{card_id}/transactions"]["get"]["parameters"]
        .as_array()
        .and_then(|parameters| parameters.iter().find(|parameter| parameter["name"] == "cursor").cloned())
        .expect("cursor parameter");
    assert_eq!(cursor["schema"]["type"], "string");
    assert!(cursor["schema"]["pattern"].is_string());
}

/// Every `$ref` of the document points at something it holds: a dangling one makes other tools
/// (Prism, code generators) refuse the whole document.
#[tokio::test]
async fn every_reference_in_the_document_resolves() {
    fn references<'a>(value: &'a Value, found: &mut Vec<&'a str>) {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(target)) = map.get("$ref") {
                    found.push(target);
                }
                map.values().for_each(|value| references(value, found));
            }
            Value::Array(items) => items.iter().for_each(|value| references(value, found)),
            _ => {}
        }
    }
    let dir = tempfile::tempdir().expect("temporary directory");
    let state = state(&dir).await;
    for version in ApiVersion::ALL {
        let (_, _, body) = get(&state, &format!("/openapi.json?version={version}")).await;
        let document: Value = serde_json::from_slice(&body).expect("JSON");
        assert_eq!(document["info"]["version"], version.as_str());
        let mut found = Vec::new();
        references(&document, &mut found);
        assert!(found.len() > 20, "the document uses shared schemas: {} references", found.len());
        let dangling: BTreeSet<&str> = found
            .into_iter()
            .filter(|target| {
                let pointer = target.strip_prefix('#').unwrap_or(target);
                document.pointer(pointer).is_none()
            })
            .collect();
        assert!(dangling.is_empty(), "{version}: references to nothing: {dangling:?}");
    }
}

/// A success body has one schema, shared with the lists that hold it (no `Success_*` copies),
/// and every operation and property of the newest document says what it is for.
#[tokio::test]
async fn the_newest_document_names_and_describes_everything() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let document = subscriber_server::api::document_at(state(&dir).await, ApiVersion::LATEST);
    let schemas = document["components"]["schemas"].as_object().expect("schemas");
    assert!(schemas.keys().all(|name| !name.starts_with("Success_")), "{:?}", schemas.keys());
    let answer = &document["paths"]["/webhooks/{webhook_id}"]["get"]["responses"]["200"];
    assert_eq!(answer["content"]["application/json"]["schema"]["$ref"], "#/components/schemas/Webhook");
    assert!(answer["headers"].get("Subscriber-Version").is_some(), "{answer}");
    let mut undescribed = Vec::new();
    for (path, item) in document["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("path item") {
            if operation["summary"].as_str().is_none_or(str::is_empty)
                || operation["description"].as_str().is_none_or(str::is_empty)
            {
                undescribed.push(format!("{method} {path}"));
            }
            for parameter in operation["parameters"].as_array().into_iter().flatten() {
                if parameter["description"].as_str().is_none_or(str::is_empty) {
                    undescribed.push(format!("{method} {path} {}", parameter["name"]));
                }
            }
        }
    }
    for (name, schema) in schemas {
        for (property, value) in schema["properties"].as_object().into_iter().flatten() {
            // A reference alone is described where it points.
            let referred = value.get("$ref").and_then(Value::as_str).and_then(|target| target.rsplit('/').next());
            let described = value["description"].as_str().is_some_and(|text| !text.is_empty())
                || referred.is_some_and(|target| schemas[target]["description"].is_string());
            if !described {
                undescribed.push(format!("{name}.{property}"));
            }
        }
    }
    assert!(undescribed.is_empty(), "without a description: {undescribed:?}");
    // No Rust wording in what a developer reads.
    let text = document.to_string();
    for word in ["`Debug`", "Option<", "Vec<", "serde", "struct "] {
        assert!(!text.contains(word), "{word} in the document");
    }
}
