use crate::helpers::{TestServer, assert_error, send};

#[test]
fn unknown_routes_are_json_404s() {
    let server = TestServer::spawn();
    let (status, body) = send(server.get("/no/such/route"));
    assert_error(status, &body, 404, "not_found");
}
