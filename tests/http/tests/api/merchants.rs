use serde_json::{Value, json};

use crate::helpers::{Subscriber, TestServer, assert_error, send};

pub fn merchant_body(name: &str) -> Value {
    json!({
        "name": name,
        "category": "5812",
        "countryCode": "USA",
        "phoneNumber": "+1 415 555 0100",
        "website": "https://example.com"
    })
}

/// Enrolls the subscriber as a merchant; returns its merchantId.
pub fn enroll_merchant(server: &TestServer, subscriber: &Subscriber, name: &str) -> i64 {
    let (status, body) = send(subscriber.auth(server.post("/merchant", &merchant_body(name))));
    assert_eq!(status, 201, "enroll merchant: {body}");
    body["merchantId"].as_i64().expect("merchantId")
}

pub fn location_body(street: &str) -> Value {
    json!({
        "location": {
            "countryCode": "USA",
            "street": street,
            "streetNo": "600",
            "city": "San Francisco",
            "zip": "94110",
            "latitude": 37.7609,
            "longitude": -122.4212
        }
    })
}

/// Creates a location of the subscriber's merchant; returns its locationId.
pub fn create_location(server: &TestServer, subscriber: &Subscriber, street: &str) -> i64 {
    let (status, body) = send(subscriber.auth(server.post("/merchant/location", &location_body(street))));
    assert_eq!(status, 201, "create location: {body}");
    body["locationId"].as_i64().expect("locationId")
}

fn detail_fields(body: &Value) -> Vec<String> {
    body["details"]
        .as_array()
        .unwrap_or_else(|| panic!("details: {body}"))
        .iter()
        .map(|detail| detail["field"].as_str().expect("field").to_owned())
        .collect()
}

#[test]
fn enrollment_answers_with_the_id_under_both_spellings() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (status, body) = send(subscriber.auth(server.post("/merchant", &merchant_body("Blue Bottle Coffee"))));
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["error"], Value::Null);
    assert_eq!(body["message"], "Merchant enrolled");
    let merchant_id = body["merchantId"].as_i64().expect("merchantId is an integer");
    assert_eq!(body["mechantId"].as_i64(), Some(merchant_id), "mechantId (the spec's spelling) equals merchantId");
}

#[test]
fn the_enroll_alias_and_trailing_slashes_enroll_too() {
    let server = TestServer::spawn();
    for path in ["/merchant/enroll/", "/merchant/enroll", "/merchant/"] {
        let subscriber = server.subscriber();
        let (status, body) = send(subscriber.auth(server.post(path, &merchant_body("Alias Cafe"))));
        assert_eq!(status, 201, "{path}: {body}");
        assert_eq!(body["mechantId"], body["merchantId"], "{path}");
        let (status, body) = send(subscriber.auth(server.get("/merchant/")));
        assert_eq!(status, 200, "{path}: {body}");
        assert_eq!(body["name"], "Alias Cafe");
    }
}

#[test]
fn a_second_enrollment_is_a_conflict_naming_the_merchant() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let merchant_id = enroll_merchant(&server, &subscriber, "First Shop");
    for path in ["/merchant", "/merchant/enroll"] {
        let (status, body) = send(subscriber.auth(server.post(path, &merchant_body("Second Shop"))));
        assert_error(status, &body, 409, "conflict");
        assert_eq!(body["merchantId"].as_i64(), Some(merchant_id), "{body}");
    }
    let (_, body) = send(subscriber.auth(server.get("/merchant")));
    assert_eq!(body["name"], "First Shop", "the first merchant is unchanged");
}

#[test]
fn the_merchant_shows_its_fields_and_locations() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (status, body) = send(subscriber.auth(server.get("/merchant")));
    assert_error(status, &body, 404, "not_found");

    let body = json!({"name": "Taqueria", "category": 5812, "countryCode": "mex", "phoneNumber": 525512345678_u64});
    let (status, created) = send(subscriber.auth(server.post("/merchant", &body)));
    assert_eq!(status, 201, "a numeric category and phone number are taken: {created}");
    let location_id = create_location(&server, &subscriber, "Avenida Juarez");

    let (status, body) = send(subscriber.auth(server.get("/merchant")));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["error"], Value::Null);
    assert_eq!(body["merchantId"], created["merchantId"]);
    assert_eq!(body["name"], "Taqueria");
    assert_eq!(body["category"], "5812 Eating Places, Restaurants");
    assert_eq!(body["categoryCode"], "5812");
    assert_eq!(body["countryCode"], "MEX");
    assert_eq!(body["phoneNumber"], "525512345678");
    let locations = body["locations"].as_array().expect("locations");
    assert_eq!(locations.len(), 1);
    let location = &locations[0];
    assert_eq!(location["locationId"].as_i64(), Some(location_id));
    assert_eq!(location["street"], "Avenida Juarez");
    assert_eq!(location["streetNo"], "600");
    assert_eq!(location["city"], "San Francisco");
    assert_eq!(location["zip"], "94110");
    assert_eq!(location["countryCode"], "USA");
    assert_eq!(location["latitude"], 37.7609);
    assert_eq!(location["longitude"], -122.4212);
    assert_eq!(location["coordinatesSource"], "provided");
    let descriptor = location["descriptor"].as_str().expect("descriptor");
    assert!(descriptor.starts_with("TAQUERIA") && descriptor.len() <= 22, "statement descriptor: {descriptor}");
}

#[test]
fn every_invalid_merchant_field_is_reported_and_nothing_is_enrolled() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (status, body) = send(subscriber.auth(server.post("/merchant", &json!({}))));
    assert_error(status, &body, 400, "invalid_request");
    assert_eq!(detail_fields(&body), ["name", "category", "countryCode"]);

    let body = json!({
        "name": "Shop",
        "category": "0000",
        "countryCode": "US",
        "phoneNumber": "call me",
        "website": "not a website"
    });
    let (status, body) = send(subscriber.auth(server.post("/merchant", &body)));
    assert_error(status, &body, 400, "invalid_request");
    assert_eq!(detail_fields(&body), ["category", "countryCode", "phoneNumber", "website"]);

    for category in [json!("58120"), json!("58a2"), json!(-5812), json!(99999)] {
        let body = json!({"name": "Shop", "category": category, "countryCode": "USA"});
        let (status, body) = send(subscriber.auth(server.post("/merchant", &body)));
        assert_error(status, &body, 400, "invalid_request");
        assert_eq!(detail_fields(&body), ["category"], "{category}");
    }
    for category in [json!(58.12), json!(true), json!(["5812"])] {
        let body = json!({"name": "Shop", "category": category, "countryCode": "USA"});
        let (status, body) = send(subscriber.auth(server.post("/merchant", &body)));
        assert_error(status, &body, 400, "invalid_request");
        assert_eq!(detail_fields(&body), ["category"], "wrong type {category}");
    }
    let long_name = "N".repeat(101);
    let (status, body) = send(
        subscriber
            .auth(server.post("/merchant", &json!({"name": long_name, "category": "5812", "countryCode": "USA"}))),
    );
    assert_error(status, &body, 400, "invalid_request");
    assert_eq!(detail_fields(&body), ["name"]);

    let (status, body) = send(subscriber.auth(server.get("/merchant")));
    assert_error(status, &body, 404, "not_found");
}

#[test]
fn merchant_endpoints_need_a_token() {
    let server = TestServer::spawn();
    let (status, body) = send(server.post("/merchant", &merchant_body("Anonymous")));
    assert_error(status, &body, 401, "unauthorized");
    let (status, body) = send(server.post("/merchant/location", &location_body("Main St")));
    assert_error(status, &body, 401, "unauthorized");
    for path in ["/merchant", "/merchant/categories", "/merchant/1/transactions", "/merchant/1/transactions/stream"] {
        let (status, body) = send(server.get(path));
        assert_error(status, &body, 401, "unauthorized");
    }
}

#[test]
fn categories_list_the_real_merchant_category_codes() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (status, body) = send(subscriber.auth(server.get("/merchant/categories")));
    assert_eq!(status, 200, "{body}");
    let categories = body["categories"].as_array().expect("categories");
    assert!(categories.len() > 250, "{}", categories.len());
    let restaurants = categories.iter().find(|category| category["code"] == "5812").expect("5812 is listed");
    assert_eq!(restaurants["description"], "Eating Places, Restaurants");
    assert!(categories.iter().all(|category| category["code"].as_str().is_some_and(|code| code.len() == 4)));
}

#[test]
fn a_location_is_created_with_its_coordinates() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    enroll_merchant(&server, &subscriber, "Mission Books");
    let (status, body) = send(subscriber.auth(server.post("/merchant/location/", &location_body("Valencia St"))));
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["error"], Value::Null);
    assert_eq!(body["message"], "Location created");
    assert!(body["locationId"].as_i64().is_some_and(|id| id > 0), "{body}");
    assert_eq!(body["latitude"], 37.7609);
    assert_eq!(body["longitude"], -122.4212);
    assert_eq!(body["coordinatesSource"], "provided");

    let second = create_location(&server, &subscriber, "Mission St");
    assert_ne!(Some(second), body["locationId"].as_i64());
    let (_, merchant) = send(subscriber.auth(server.get("/merchant")));
    assert_eq!(merchant["locations"].as_array().map(Vec::len), Some(2));
}

#[test]
fn a_location_in_a_city_the_service_does_not_know_has_no_coordinates() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    enroll_merchant(&server, &subscriber, "Nowhere Shop");
    let body = json!({"location": {"countryCode": "USA", "street": "Elm St", "streetNo": 12, "city": "Qzxvillezz",
        "zip": 99999}});
    let (status, body) = send(subscriber.auth(server.post("/merchant/location", &body)));
    assert_eq!(status, 201, "numeric streetNo and zip are taken: {body}");
    assert_eq!(body["coordinatesSource"], "unknown");
    assert_eq!(body["latitude"], Value::Null);
    assert_eq!(body["longitude"], Value::Null);
    let (_, merchant) = send(subscriber.auth(server.get("/merchant")));
    assert_eq!(merchant["locations"][0]["streetNo"], "12");
    assert_eq!(merchant["locations"][0]["zip"], "99999");
}

/// Needs the place data of `reference::places` (the directory work): until it lands, the
/// service knows no city and says `unknown`.
#[test]
fn a_location_in_a_known_city_gets_the_city_coordinates() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    enroll_merchant(&server, &subscriber, "Le Petit Cafe");
    let body = json!({"location": {"countryCode": "FRA", "street": "Rue de Rivoli", "streetNo": "10",
        "city": "Paris", "zip": "75001"}});
    let (status, body) = send(subscriber.auth(server.post("/merchant/location", &body)));
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["coordinatesSource"], "derived");
    let latitude = body["latitude"].as_f64().expect("latitude");
    let longitude = body["longitude"].as_f64().expect("longitude");
    assert!((latitude - 48.86).abs() < 0.2 && (longitude - 2.35).abs() < 0.3, "{latitude}, {longitude}");
}

#[test]
fn every_invalid_location_field_is_reported() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    enroll_merchant(&server, &subscriber, "Validation Shop");
    let cases = [
        // The fields sent flat, without the one key `location`.
        (
            json!({"countryCode": "USA", "street": "Main St", "streetNo": "1", "city": "Boston", "zip": "02134"}),
            vec!["location"],
        ),
        (
            json!({"location": {}}),
            vec!["location.countryCode", "location.street", "location.streetNo", "location.city", "location.zip"],
        ),
        (
            json!({"location": {"countryCode": "XX", "street": "  ", "streetNo": "1", "city": "Boston", "zip": "02134"}}),
            vec!["location.countryCode", "location.street"],
        ),
        (
            json!({"location": {"countryCode": "USA", "street": "Main St", "streetNo": "1", "city": "Boston",
            "zip": "02134", "latitude": 90.5, "longitude": -180.5}}),
            vec!["location.latitude", "location.longitude"],
        ),
        (
            json!({"location": {"countryCode": "USA", "street": "Main St", "streetNo": "1", "city": "Boston",
            "zip": "02134", "latitude": 42.35}}),
            vec!["location.longitude"],
        ),
        (
            json!({"location": {"countryCode": "USA", "street": "Main St", "streetNo": "1", "city": "Boston",
            "zip": "02134", "longitude": -71.06}}),
            vec!["location.latitude"],
        ),
        (
            json!({"location": {"countryCode": "USA", "street": "Main St", "streetNo": "1", "city": "Boston",
            "zip": "02134", "latitude": "42.35", "longitude": -71.06}}),
            vec!["location.latitude"],
        ),
        (
            json!({"location": {"countryCode": "USA", "street": "Main St", "streetNo": "1", "city": "Boston",
            "zip": "021/34"}}),
            vec!["location.zip"],
        ),
    ];
    for (request, expected) in cases {
        let (status, body) = send(subscriber.auth(server.post("/merchant/location", &request)));
        assert_error(status, &body, 400, "invalid_request");
        assert_eq!(detail_fields(&body), expected, "{request}");
    }
    // Both extremes are valid.
    let body = json!({"location": {"countryCode": "USA", "street": "Main St", "streetNo": "1", "city": "Boston",
        "zip": "02134", "latitude": -90, "longitude": 180}});
    let (status, body) = send(subscriber.auth(server.post("/merchant/location", &body)));
    assert_eq!(status, 201, "{body}");
    let (_, merchant) = send(subscriber.auth(server.get("/merchant")));
    assert_eq!(merchant["locations"].as_array().map(Vec::len), Some(1), "only the valid location was created");
}

#[test]
fn a_location_without_a_merchant_is_a_conflict() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (status, body) = send(subscriber.auth(server.post("/merchant/location", &location_body("Main St"))));
    assert_error(status, &body, 409, "conflict");
}

#[test]
fn a_merchant_without_transactions_has_an_empty_list() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let merchant_id = enroll_merchant(&server, &subscriber, "Quiet Shop");
    create_location(&server, &subscriber, "Main St");
    for path in [format!("/merchant/{merchant_id}/transactions"), format!("/merchant/{merchant_id}/transactions/")] {
        let (status, body) = send(subscriber.auth(server.get(&path)));
        assert_eq!(status, 200, "{path}: {body}");
        assert_eq!(body["error"], Value::Null);
        assert_eq!(body["transactions"], json!([]));
        assert_eq!(body["next_cursor"], Value::Null);
    }
}

#[test]
fn another_subscribers_merchant_and_locations_do_not_exist_for_the_caller() {
    let server = TestServer::spawn();
    let owner = server.subscriber();
    let merchant_id = enroll_merchant(&server, &owner, "Owner Shop");
    let location_id = create_location(&server, &owner, "Owner St");
    let stranger = server.subscriber();
    let stranger_merchant = enroll_merchant(&server, &stranger, "Stranger Shop");

    for path in [
        format!("/merchant/{merchant_id}/transactions"),
        format!("/merchant/{merchant_id}/transactions?locationId={location_id}"),
        format!("/merchant/{merchant_id}/transactions/stream"),
        format!("/merchant/{stranger_merchant}/transactions?locationId={location_id}"),
        "/merchant/999999/transactions".to_owned(),
        "/merchant/abc/transactions".to_owned(),
        "/merchant/-1/transactions".to_owned(),
    ] {
        let (status, body) = send(stranger.auth(server.get(&path)));
        assert_error(status, &body, 404, "not_found");
    }
    // The owner sees their own, and the stranger's own merchant still answers.
    let (status, _) =
        send(owner.auth(server.get(&format!("/merchant/{merchant_id}/transactions?locationId={location_id}"))));
    assert_eq!(status, 200);
    let (status, body) = send(stranger.auth(server.get("/merchant")));
    assert_eq!(status, 200);
    assert_eq!(body["name"], "Stranger Shop");
    assert_eq!(body["locations"], json!([]), "the owner's location is not the stranger's");
    // The owner's pages are now answered from memory: a stranger still gets nothing.
    for path in [
        format!("/merchant/{merchant_id}/transactions"),
        format!("/merchant/{merchant_id}/transactions?locationId={location_id}"),
    ] {
        let (status, _) = send(owner.auth(server.get(&path)));
        assert_eq!(status, 200, "{path} for its owner");
        let (status, body) = send(stranger.auth(server.get(&path)));
        assert_error(status, &body, 404, "not_found");
    }
}

#[test]
fn transaction_list_filters_are_checked() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let merchant_id = enroll_merchant(&server, &subscriber, "Filter Shop");
    let cases = [
        ("limit=0", "limit"),
        ("limit=5001", "limit"),
        ("cursor=not-a-cursor", "cursor"),
        ("from=31/01/2026", "from"),
        ("from=2026-02-01&to=2026-01-01", "from"),
        ("locationId=abc", "locationId"),
    ];
    for (query, field) in cases {
        let (status, body) =
            send(subscriber.auth(server.get(&format!("/merchant/{merchant_id}/transactions?{query}"))));
        assert_error(status, &body, 400, "invalid_request");
        assert_eq!(detail_fields(&body), [field], "{query}");
    }
}

#[test]
fn a_retried_enrollment_with_the_same_idempotency_key_enrolls_once() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let request =
        || subscriber.auth(server.post("/merchant", &merchant_body("Retry Shop"))).header("Idempotency-Key", "m-1");
    let (status, first) = send(request());
    assert_eq!(status, 201, "{first}");
    let response = request().send().expect("retry sent");
    assert_eq!(response.headers().get("idempotent-replayed").and_then(|v| v.to_str().ok()), Some("true"));
    let (status, second) = crate::helpers::read(response);
    assert_eq!(status, 201, "the retry replays the creation: {second}");
    assert_eq!(second["merchantId"], first["merchantId"]);

    let location = || {
        subscriber.auth(server.post("/merchant/location", &location_body("Retry St"))).header("Idempotency-Key", "l-1")
    };
    let (_, first) = send(location());
    let (status, second) = send(location());
    assert_eq!(status, 201);
    assert_eq!(second["locationId"], first["locationId"]);
    let (_, merchant) = send(subscriber.auth(server.get("/merchant")));
    assert_eq!(merchant["locations"].as_array().map(Vec::len), Some(1), "one location for two tries");
}

#[test]
fn merchants_enroll_outside_the_sandbox_too() {
    let server = TestServer::spawn_with(&["--environment", "expansion"]);
    let subscriber = server.subscriber();
    let merchant_id = enroll_merchant(&server, &subscriber, "Live Shop");
    create_location(&server, &subscriber, "Live St");
    let (status, body) = send(subscriber.auth(server.get(&format!("/merchant/{merchant_id}/transactions"))));
    assert_eq!(status, 200, "{body}");
}

fn location_path(location_id: i64) -> String {
    format!("/merchant/location/{location_id}")
}

fn patch_location(server: &TestServer, subscriber: &Subscriber, location_id: i64, body: &Value) -> (u16, Value) {
    send(subscriber.auth(server.http.patch(server.url(&location_path(location_id))).json(body)))
}

fn remove_location(server: &TestServer, subscriber: &Subscriber, location_id: i64) -> (u16, Value) {
    send(subscriber.auth(server.http.delete(server.url(&location_path(location_id)))))
}

/// The subscriber's events of one type, oldest first.
fn events_of(server: &TestServer, subscriber: &Subscriber, event_type: &str) -> Vec<Value> {
    let (status, page) = send(subscriber.auth(server.get(&format!("/events?type={event_type}&limit=100"))));
    assert_eq!(status, 200, "{page}");
    let mut events = page["events"].as_array().expect("events").clone();
    events.reverse();
    events
}

/// The location ids discovery finds for an exact descriptor.
fn discovered(server: &TestServer, subscriber: &Subscriber, descriptor: &str) -> Vec<i64> {
    let encoded: String = descriptor
        .bytes()
        .map(|byte| if byte.is_ascii_alphanumeric() { (byte as char).to_string() } else { format!("%{byte:02X}") })
        .collect();
    let request = server.get(&format!("/merchant/discover?merchid={encoded}&matchType=exact"));
    let (status, found) = send(subscriber.auth(request));
    assert_eq!(status, 200, "{found}");
    found["result"]["merchants"]
        .as_array()
        .expect("merchants")
        .iter()
        .filter_map(|merchant| merchant["locationId"].as_i64())
        .collect()
}

#[test]
fn a_location_reads_as_the_merchant_lists_it() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    enroll_merchant(&server, &subscriber, "Reading Room");
    let location_id = create_location(&server, &subscriber, "Valencia St");
    let (status, body) = send(subscriber.auth(server.get(&location_path(location_id))));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["error"], Value::Null);
    let (_, merchant) = send(subscriber.auth(server.get("/merchant")));
    let mut listed = merchant["locations"][0].clone();
    listed["error"] = Value::Null;
    assert_eq!(body, listed, "the same fields as in GET /merchant");
    assert_eq!(body["coordinatesSource"], "provided");
}

#[test]
fn a_location_changes_and_its_coordinates_follow_the_new_address() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    enroll_merchant(&server, &subscriber, "Moving Bakery");
    let location_id = create_location(&server, &subscriber, "Valencia St");
    let (_, before) = send(subscriber.auth(server.get(&location_path(location_id))));

    // A new city without coordinates: derived again from it.
    let change = json!({"location": {"countryCode": "FRA", "street": "Rue de Rivoli", "streetNo": 10,
        "city": "Paris", "zip": "75001"}});
    let (status, body) = patch_location(&server, &subscriber, location_id, &change);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["error"], Value::Null);
    assert_eq!(body["locationId"].as_i64(), Some(location_id));
    assert_eq!(
        (&body["city"], &body["street"], &body["streetNo"]),
        (&json!("Paris"), &json!("Rue de Rivoli"), &json!("10"))
    );
    assert_eq!(body["countryCode"], "FRA");
    assert_eq!(body["coordinatesSource"], "derived");
    let latitude = body["latitude"].as_f64().expect("latitude");
    assert!((latitude - 48.86).abs() < 0.2, "{latitude}");
    assert_eq!(body["createdAt"], before["createdAt"], "the location keeps when it was added");
    assert_ne!(body["descriptor"], before["descriptor"], "the descriptor follows the city");
    let (_, read) = send(subscriber.auth(server.get(&location_path(location_id))));
    assert_eq!(read, body, "the change is kept");

    // One field; sent coordinates are taken.
    let change = json!({"location": {"zip": "75002", "latitude": 48.87, "longitude": 2.34}});
    let (status, body) = patch_location(&server, &subscriber, location_id, &change);
    assert_eq!(status, 200, "{body}");
    assert_eq!((&body["zip"], &body["city"]), (&json!("75002"), &json!("Paris")));
    assert_eq!((&body["coordinatesSource"], &body["latitude"]), (&json!("provided"), &json!(48.87)));

    // In a city the service does not know, without coordinates: none.
    let (status, body) =
        patch_location(&server, &subscriber, location_id, &json!({"location": {"city": "Nowhereville"}}));
    assert_eq!(status, 200, "{body}");
    assert_eq!((&body["coordinatesSource"], &body["latitude"]), (&json!("unknown"), &Value::Null));

    let events = events_of(&server, &subscriber, "merchant.location.updated");
    assert_eq!(events.len(), 3, "{events:?}");
    let data = &events[2]["data"];
    assert_eq!(data["locationId"].as_i64(), Some(location_id));
    assert!(data["merchantId"].is_i64(), "{data}");
    for field in ["city", "zip", "street", "streetNo", "countryCode", "latitude", "coordinatesSource", "descriptor"] {
        assert_eq!(data[field], body[field], "{field}: the event carries the location as it is now");
    }
}

#[test]
fn a_bad_change_is_reported_and_changes_nothing() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    enroll_merchant(&server, &subscriber, "Steady Shop");
    let location_id = create_location(&server, &subscriber, "Valencia St");
    let (_, before) = send(subscriber.auth(server.get(&location_path(location_id))));
    let cases = [
        (json!({"location": {"zip": "94!10", "city": "Oakland"}}), vec!["location.zip"]),
        (json!({"location": {"street": "  "}}), vec!["location.street"]),
        (json!({"location": {"countryCode": "XX"}}), vec!["location.countryCode"]),
        (json!({"location": {"latitude": 37.5}}), vec!["location.longitude"]),
        (json!({"location": {"latitude": 91, "longitude": 0}}), vec!["location.latitude"]),
        (json!({"location": {"city": "C".repeat(101)}}), vec!["location.city"]),
        (json!({"location": {}}), vec!["location"]),
        (json!({}), vec!["location"]),
    ];
    for (body, fields) in cases {
        let (status, response) = patch_location(&server, &subscriber, location_id, &body);
        assert_error(status, &response, 400, "invalid_request");
        assert_eq!(detail_fields(&response), fields, "{body}");
    }
    let (status, response) = send(subscriber.auth(
        server.http.patch(server.url(&location_path(location_id))).header("content-type", "application/json").body("{"),
    ));
    assert_error(status, &response, 400, "invalid_request");
    // As for every id of the API (`IdPath`): what is not a positive integer names nothing.
    for path in ["/merchant/location/abc", "/merchant/location/0", "/merchant/location/-1"] {
        let (status, response) = send(subscriber.auth(server.get(path)));
        assert_error(status, &response, 404, "not_found");
        let (status, response) = send(subscriber.auth(server.http.delete(server.url(path))));
        assert_error(status, &response, 404, "not_found");
        let request = server.http.patch(server.url(path)).json(&json!({"location": {"city": "Oakland"}}));
        let (status, response) = send(subscriber.auth(request));
        assert_error(status, &response, 404, "not_found");
    }
    let (_, after) = send(subscriber.auth(server.get(&location_path(location_id))));
    assert_eq!(after, before, "nothing changed");
    assert_eq!(events_of(&server, &subscriber, "merchant.location.updated"), Vec::<Value>::new());
}

#[test]
fn another_subscribers_location_cannot_be_read_changed_or_removed() {
    let server = TestServer::spawn();
    let (owner, stranger) = (server.subscriber(), server.subscriber());
    enroll_merchant(&server, &owner, "Owner Shop");
    let location_id = create_location(&server, &owner, "Valencia St");
    enroll_merchant(&server, &stranger, "Stranger Shop");
    create_location(&server, &stranger, "Mission St");
    let (_, before) = send(owner.auth(server.get(&location_path(location_id))));

    let (status, body) = send(stranger.auth(server.get(&location_path(location_id))));
    assert_error(status, &body, 404, "not_found");
    let (status, body) = patch_location(&server, &stranger, location_id, &json!({"location": {"city": "Oakland"}}));
    assert_error(status, &body, 404, "not_found");
    // Even a bad body: the id is looked at first.
    let (status, body) = patch_location(&server, &stranger, location_id, &json!({"location": {"zip": "!"}}));
    assert_error(status, &body, 404, "not_found");
    let (status, body) = remove_location(&server, &stranger, location_id);
    assert_error(status, &body, 404, "not_found");
    let (status, body) = send(owner.auth(server.get(&location_path(999_999_999))));
    assert_error(status, &body, 404, "not_found");

    let (_, after) = send(owner.auth(server.get(&location_path(location_id))));
    assert_eq!(after, before, "the owner's location is as it was");
    assert_eq!(events_of(&server, &stranger, "merchant.location.updated"), Vec::<Value>::new());
    assert_eq!(events_of(&server, &stranger, "merchant.location.removed"), Vec::<Value>::new());
}

#[test]
fn a_removed_location_is_gone_but_its_sales_keep_their_address() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let card_id = server.enroll_card(&subscriber, crate::helpers::TEST_PAN);
    let merchant_id = enroll_merchant(&server, &subscriber, "Closing Cafe");
    let location_id = create_location(&server, &subscriber, "Valencia St");
    let kept_id = create_location(&server, &subscriber, "Guerrero St");
    let (_, location) = send(subscriber.auth(server.get(&location_path(location_id))));
    let descriptor = location["descriptor"].as_str().expect("descriptor").to_owned();
    assert!(discovered(&server, &subscriber, &descriptor).contains(&location_id), "found before");

    let sale = crate::sandbox::purchase(
        &server,
        &subscriber,
        &json!({"cardId": card_id, "locationId": location_id, "amount": 7.5}),
    );
    let sales_path = format!("/merchant/{merchant_id}/transactions");
    let (_, sales_before) = send(subscriber.auth(server.get(&sales_path)));

    let (status, body) = remove_location(&server, &subscriber, location_id);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!({"error": null, "message": "Location removed", "locationId": location_id}));

    // Every read of it is 404, as is a second removal.
    let (status, body) = send(subscriber.auth(server.get(&location_path(location_id))));
    assert_error(status, &body, 404, "not_found");
    let (status, body) = patch_location(&server, &subscriber, location_id, &json!({"location": {"city": "Oakland"}}));
    assert_error(status, &body, 404, "not_found");
    let (status, body) = remove_location(&server, &subscriber, location_id);
    assert_error(status, &body, 404, "not_found");

    // The merchant lists the other location only; discovery no longer finds it.
    let (_, merchant) = send(subscriber.auth(server.get("/merchant")));
    let listed: Vec<i64> =
        merchant["locations"].as_array().expect("locations").iter().filter_map(|l| l["locationId"].as_i64()).collect();
    assert_eq!(listed, [kept_id]);
    assert!(!discovered(&server, &subscriber, &descriptor).contains(&location_id), "not found after removal");

    // The sale made there keeps the address it was made at.
    let (_, sales_after) = send(subscriber.auth(server.get(&sales_path)));
    assert_eq!(sales_after, sales_before, "past sales show what they showed");
    let shown = sales_after["transactions"]
        .as_array()
        .expect("transactions")
        .iter()
        .find(|sale_shown| sale_shown["transactionId"] == sale["transactionId"])
        .unwrap_or_else(|| panic!("the sale is still listed: {sales_after}"))
        .clone();
    assert_eq!((&shown["street"], &shown["city"]), (&json!("Valencia St"), &json!("San Francisco")));
    assert_eq!(shown["locationId"].as_i64(), Some(location_id));

    // No new sale happens there.
    let (status, body) = send(
        subscriber.auth(server.post("/sandbox/transactions", &json!({"cardId": card_id, "locationId": location_id}))),
    );
    assert_error(status, &body, 404, "not_found");

    let events = events_of(&server, &subscriber, "merchant.location.removed");
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["data"], json!({"locationId": location_id}), "the id only");
}

#[test]
fn a_merchant_whose_locations_are_all_removed_has_nowhere_to_sell() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    enroll_merchant(&server, &subscriber, "Last Shop");
    let location_id = create_location(&server, &subscriber, "Valencia St");
    crate::sandbox::purchase(&server, &subscriber, &json!({"amount": 3}));
    let (status, body) = remove_location(&server, &subscriber, location_id);
    assert_eq!(status, 200, "{body}");
    // Without a card, a sandbox sale happens at one of the caller's locations: there is none.
    let (status, body) = send(subscriber.auth(server.post("/sandbox/transactions", &json!({"amount": 3}))));
    assert_error(status, &body, 409, "conflict");
    let (_, merchant) = send(subscriber.auth(server.get("/merchant")));
    assert_eq!(merchant["locations"], json!([]));
}
