use serde_json::json;

use crate::helpers::{TestServer, assert_error, send};

#[test]
fn signup_then_login_with_api_key_or_key() {
    let server = TestServer::spawn();
    let (status, body) = send(server.post("/subscriber/signup", &json!({ "email": "Ada@Example.com" })));
    assert_eq!(status, 201, "{body}");
    assert!(body["error"].is_null());
    for field in ["client_id", "secret", "public_key"] {
        assert!(body[field].as_str().is_some_and(|value| value.len() >= 16), "{field} in {body}");
    }
    let secret = body["secret"].as_str().expect("secret");
    for key_field in ["api_key", "key"] {
        let (status, body) =
            send(server.post("/subscriber/login", &json!({ "email": "ada@example.com", key_field: secret })));
        assert_eq!(status, 200, "{key_field}: {body}");
        assert!(body["error"].is_null());
        assert_eq!(body["validity_seconds"], 18000);
        assert_eq!(body["token"].as_str().map(|token| token.split('.').count()), Some(3), "a JWT");
    }
    let (status, body) =
        send(server.post("/subscriber/login", &json!({ "email": "ada@example.com", "api_key": "wrong" })));
    assert_error(status, &body, 401, "invalid_credentials");
}
