//! `GET /merchant/discover`: by descriptor (`merchid`, `merchId`), address and position, with
//! the spec's item fields and types.

use serde_json::Value;

use crate::helpers::{Subscriber, TestServer, assert_error, send};

/// Percent-encodes a query string by hand, so the test depends on nothing but the wire.
pub fn query_string(pairs: &[(&str, &str)]) -> String {
    let encode = |text: &str| {
        text.bytes()
            .map(|byte| match byte {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (byte as char).to_string(),
                _ => format!("%{byte:02X}"),
            })
            .collect::<String>()
    };
    pairs.iter().map(|(key, value)| format!("{}={}", encode(key), encode(value))).collect::<Vec<_>>().join("&")
}

pub fn discover(server: &TestServer, subscriber: &Subscriber, path: &str, pairs: &[(&str, &str)]) -> (u16, Value) {
    send(subscriber.auth(server.get(&format!("{path}?{}", query_string(pairs)))))
}

/// A service and a subscriber asking it `GET /merchant/discover`.
struct Discovery {
    server: TestServer,
    subscriber: Subscriber,
}

impl Discovery {
    fn start() -> Self {
        let server = TestServer::spawn();
        let subscriber = server.subscriber();
        Self { server, subscriber }
    }

    fn find(&self, pairs: &[(&str, &str)]) -> (u16, Value) {
        discover(&self.server, &self.subscriber, "/merchant/discover", pairs)
    }
}

fn merchants(body: &Value) -> &Vec<Value> {
    body["result"]["merchants"].as_array().expect("result.merchants is a list")
}

#[test]
fn a_descriptor_finds_its_merchant_with_the_spec_fields_and_types() {
    let discovery = Discovery::start();
    let (status, body) = discovery.find(&[("merchid", "SQ *BLUE HERON COFFEE")]);
    assert_eq!(status, 200, "{body}");
    assert!(body["error"].is_null());
    let found = merchants(&body);
    assert!(!found.is_empty());
    assert_eq!(body["result"]["message"], format!("{} merchant(s) found", found.len()));
    let first = &found[0];
    assert_eq!(first["ID"], "SQ *BLUE HERON COFFEE");
    assert_eq!(first["dbaName"], "Blue Heron Coffee");
    assert_eq!(first["category"], "5814 Fast Food Restaurants");
    assert_eq!(first["city"], "San Francisco");
    assert_eq!(first["countryCode"], "USA");
    assert_eq!(first["countryName"], "United States");
    assert_eq!(first["address"], "1022 Valencia St, San Francisco, CA 94110");
    assert_eq!(first["zip"], 94110, "zip is a number");
    assert_eq!(first["phoneNumber"], 14_155_550_101_u64, "phoneNumber is a number");
    assert_eq!(first["confScore"], 100.0);
    for item in found {
        assert!(item["ID"].is_string() && item["address"].is_string() && item["category"].is_string(), "{item}");
        assert!(item["city"].is_string() && item["countryCode"].is_string() && item["countryName"].is_string());
        assert!(item["dbaName"].is_string());
        assert!(item["comment"].is_number(), "{item}");
        assert!(item["locationId"].is_i64(), "locationId is an integer: {item}");
        assert!(item["phoneNumber"].is_u64() && item["zip"].is_u64(), "{item}");
        let score = item["confScore"].as_f64().expect("confScore is a number");
        assert!((0.0..=100.0).contains(&score), "{item}");
        let category = item["category"].as_str().unwrap_or_default();
        assert!(category.len() > 5 && category[..4].bytes().all(|byte| byte.is_ascii_digit()), "{category}");
        assert_eq!(item["countryCode"].as_str().map(str::len), Some(3));
    }
}

#[test]
fn merch_id_and_a_trailing_slash_address_the_same_lookup() {
    let discovery = Discovery::start();
    let pairs = [("merchid", "TST* GOLDEN LANTERN")];
    let (_, plain) = discovery.find(&pairs);
    let (status, aliased) = discover(
        &discovery.server,
        &discovery.subscriber,
        "/merchant/discover/",
        &[("merchId", "TST* GOLDEN LANTERN")],
    );
    assert_eq!(status, 200, "{aliased}");
    assert_eq!(merchants(&plain)[0], merchants(&aliased)[0]);
    assert_eq!(merchants(&aliased)[0]["dbaName"], "Golden Lantern");
}

#[test]
fn fuzzy_matching_reads_descriptors_as_statements_print_them() {
    let discovery = Discovery::start();
    let cases = [
        ("blue heron coffee", "Blue Heron Coffee"),
        ("SQ*BLUEHERONCOFFEE", "Blue Heron Coffee"),
        ("PAYPAL *GOLDEN LANTERN NY", "Golden Lantern"),
        ("LAKESHORE MARKET STORE 42", "Lakeshore Market"),
        ("lakeshore mkt #0042 chicago il", "Lakeshore Market"),
        ("PRAIRIE FUEL 01187", "Prairie Fuel"),
        ("Cafe Kranich", "Café Kranich"),
        ("BOULANGERIE LEMOI", "Boulangerie Lemoine"),
        ("TRATTORIADAGINO", "Trattoria da Gino"),
    ];
    for (descriptor, dba_name) in cases {
        let (status, body) = discovery.find(&[("merchid", descriptor)]);
        assert_eq!(status, 200, "{body}");
        assert_eq!(
            merchants(&body).first().map(|first| first["dbaName"].clone()),
            Some(dba_name.into()),
            "{descriptor}: {body}"
        );
    }
}

#[test]
fn exact_matching_gives_one_merchant_or_none() {
    let discovery = Discovery::start();
    let (status, body) = discovery.find(&[("merchid", "sq *blue heron coffee"), ("matchType", "exact")]);
    assert_eq!(status, 200, "{body}");
    assert_eq!(merchants(&body).len(), 1);
    assert_eq!(merchants(&body)[0]["dbaName"], "Blue Heron Coffee");
    let (status, body) = discovery.find(&[("merchid", "BLUE HERON COFFE"), ("matchType", "exact")]);
    assert_eq!(status, 200, "{body}");
    assert!(merchants(&body).is_empty());
    assert_eq!(body["result"]["message"], "0 merchant(s) found");
    let (status, body) = discovery.find(&[("merchid", "BLUE HERON"), ("matchType", "sloppy")]);
    assert_error(status, &body, 400, "invalid_request");
}

#[test]
fn no_match_is_an_empty_list() {
    let discovery = Discovery::start();
    for pairs in [
        vec![("merchid", "QXZVW JKPFQ")],
        vec![("zip", "99999"), ("countryCode", "USA")],
        vec![("latitude", "-60"), ("longitude", "-140"), ("radius", "5000")],
    ] {
        let (status, body) = discovery.find(&pairs);
        assert_eq!(status, 200, "{pairs:?}: {body}");
        assert!(body["error"].is_null());
        assert!(merchants(&body).is_empty(), "{pairs:?}: {body}");
        assert_eq!(body["result"]["message"], "0 merchant(s) found");
    }
}

#[test]
fn an_address_finds_the_merchants_there() {
    let discovery = Discovery::start();
    let full = [
        ("street", "Valencia Street"),
        ("streetNo", "1022"),
        ("city", "san francisco"),
        ("zip", "94110"),
        ("countryCode", "USA"),
    ];
    let (status, body) = discovery.find(&full);
    assert_eq!(status, 200, "{body}");
    assert_eq!(merchants(&body)[0]["dbaName"], "Blue Heron Coffee", "{body}");
    assert_eq!(merchants(&body)[0]["confScore"], 100.0);
    // The zip as discovery prints it (a number: Boston's leading zero is gone) still finds it.
    let (status, body) = discovery.find(&[("zip", "2116"), ("street", "Boylston St")]);
    assert_eq!(status, 200, "{body}");
    assert_eq!(merchants(&body)[0]["dbaName"], "Copley Pharmacy", "{body}");
    let (status, body) = discovery.find(&[("city", "Berlin"), ("countryCode", "DEU")]);
    assert_eq!(status, 200, "{body}");
    assert!(merchants(&body).iter().any(|item| item["dbaName"] == "Café Kranich"), "{body}");
    assert!(merchants(&body).iter().all(|item| item["countryCode"] == "DEU" && item["city"] == "Berlin"));
}

#[test]
fn a_position_finds_the_nearest_merchants_first() {
    let discovery = Discovery::start();
    let (status, body) = discovery.find(&[("latitude", "52.5009"), ("longitude", "13.4191"), ("radius", "300")]);
    assert_eq!(status, 200, "{body}");
    let found = merchants(&body);
    assert_eq!(found[0]["dbaName"], "Café Kranich", "{body}");
    let distances: Vec<f64> = found.iter().map(|item| item["comment"].as_f64().expect("distance")).collect();
    assert!(distances.windows(2).all(|pair| pair[0] <= pair[1]), "nearest first: {distances:?}");
    assert!(distances.iter().all(|distance| *distance <= 300.0));
    let (status, body) = discovery.find(&[("latitude", "52.5009"), ("longitude", "13.4191"), ("limit", "3")]);
    assert_eq!(status, 200, "{body}");
    assert!(merchants(&body).len() <= 3);
}

#[test]
fn the_limit_bounds_the_list() {
    let discovery = Discovery::start();
    let (status, body) = discovery.find(&[("city", "New York"), ("limit", "2")]);
    assert_eq!(status, 200, "{body}");
    assert!(merchants(&body).len() <= 2);
    let (_, body) = discovery.find(&[("merchid", "COFFEE")]);
    assert!(merchants(&body).len() <= 10, "10 at most by default");
}

#[test]
fn bad_queries_are_rejected_with_details() {
    let discovery = Discovery::start();
    let cases: Vec<(Vec<(&str, &str)>, &str)> = vec![
        (vec![], "merchid"),
        (vec![("merchid", "")], "merchid"),
        (vec![("latitude", "91"), ("longitude", "0")], "latitude"),
        (vec![("latitude", "10"), ("longitude", "181")], "longitude"),
        (vec![("latitude", "10")], "longitude"),
        (vec![("latitude", "north"), ("longitude", "10")], "latitude"),
        (vec![("latitude", "10"), ("longitude", "10"), ("radius", "-5")], "radius"),
        (vec![("merchid", "COFFEE"), ("limit", "0")], "limit"),
        (vec![("merchid", "COFFEE"), ("limit", "51")], "limit"),
        (vec![("merchid", "COFFEE"), ("limit", "ten")], "limit"),
        (vec![("city", "Austin"), ("countryCode", "XX")], "countryCode"),
        (vec![("countryCode", "USA")], "street"),
    ];
    for (pairs, field) in cases {
        let (status, body) = discovery.find(&pairs);
        assert_error(status, &body, 400, "invalid_request");
        let details = body["details"].as_array().expect("details");
        assert!(details.iter().any(|detail| detail["field"] == field), "{pairs:?} names {field}: {body}");
    }
}

#[test]
fn discovery_needs_a_token() {
    let server = TestServer::spawn();
    let (status, body) = send(server.get("/merchant/discover?merchid=BLUE%20HERON"));
    assert_error(status, &body, 401, "unauthorized");
}
