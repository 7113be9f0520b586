//! Enriched transactions: `POST /transactions/enrich`, `GET /transactions/categories`, brand
//! logos, and the brand fields discovery gained.

use serde_json::{Value, json};

use crate::discovery::{discover, query_string};
use crate::helpers::{Subscriber, TestServer, assert_error, send};

fn enrich(server: &TestServer, subscriber: &Subscriber, transactions: Value) -> (u16, Value) {
    send(subscriber.auth(server.post("/transactions/enrich", &json!({ "transactions": transactions }))))
}

fn is_brand_id(value: &Value) -> bool {
    value.as_str().is_some_and(|id| {
        id.len() == 20 && id.starts_with("brd_") && id[4..].bytes().all(|byte| byte.is_ascii_hexdigit())
    })
}

/// The README's sandbox descriptors, as statements print them, with what the network sends.
fn showcase() -> Value {
    json!([
        {"id": "t1", "descriptor": "SQ *BLUE HERON COFFEE", "amount": 4.5, "currency": "USD", "date": "2026-11-02", "mcc": "5814", "city": "San Francisco", "zip": "94110", "countryCode": "USA"},
        {"id": "t2", "descriptor": "TST* GOLDEN LANTERN"},
        {"id": "t3", "descriptor": "lakeshore market #0042 chicago il"},
        {"id": "t4", "descriptor": "PRAIRIE FUEL 01187 AUS", "mcc": "5541"},
        {"id": "t5", "descriptor": "PAYPAL *NIGHTJAR"},
        {"id": "t6", "descriptor": "SP FERNWOOD SUPPLY CO"},
        {"id": "t7", "descriptor": "HARBORLIGHT HOTEL SEAT"},
        {"id": "t8", "descriptor": "COPLEY PHARMACY #0310"},
        {"id": "t9", "descriptor": "NORTHWIND AIR"},
        {"id": "t10", "descriptor": "CAFE KRANICH BERLIN", "countryCode": "DEU"},
        {"id": "t11", "descriptor": "BOULANGERIE LEMOINE PA"},
        {"id": "t12", "descriptor": "TRATTORIA DA GINO ROMA"},
        {"id": "t13", "descriptor": "AMZN Mktp US*2K4LL1AB3"},
        {"id": "t14", "descriptor": "QXZVW JKPFQ"},
        {"id": "t15", "descriptor": "KLARNA*BLUE HERON COFFEE"}
    ])
}

#[test]
fn a_batch_enriches_each_transaction_in_order_as_one_by_one_would() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let transactions = showcase();
    let (status, body) = enrich(&server, &subscriber, transactions.clone());
    assert_eq!(status, 200, "{body}");
    assert!(body["error"].is_null());
    let enriched = body["enriched"].as_array().expect("enriched");
    let sent = transactions.as_array().expect("sent");
    assert_eq!(enriched.len(), sent.len());
    for (item, input) in enriched.iter().zip(sent) {
        assert_eq!(item["id"], input["id"], "in the order sent");
        let (status, alone) = enrich(&server, &subscriber, json!([input]));
        assert_eq!(status, 200, "{alone}");
        assert_eq!(&alone["enriched"][0], item, "the same alone as in a batch");
        assert!(item["intermediaries"].is_array() && item["channel"].is_string(), "{item}");
        for key in ["counterparty", "personalFinanceCategory", "location"] {
            assert!(item.as_object().is_some_and(|fields| fields.contains_key(key)), "{key} is always there: {item}");
        }
    }
    let by_id = |id: &str| enriched.iter().find(|item| item["id"] == id).expect("item");

    let heron = by_id("t1");
    let counterparty = &heron["counterparty"];
    assert!(is_brand_id(&counterparty["brandId"]), "{counterparty}");
    assert_eq!(counterparty["name"], "Blue Heron Coffee");
    assert_eq!(counterparty["type"], "merchant");
    assert_eq!(counterparty["confidence"], "very_high");
    assert!(counterparty["score"].as_u64().is_some_and(|score| (90..=100).contains(&score)), "{counterparty}");
    assert_eq!(counterparty["logoUrl"], format!("/brands/{}/logo.svg", counterparty["brandId"].as_str().unwrap_or("")));
    assert!(counterparty.as_object().is_some_and(|fields| fields.contains_key("website")));
    let reasons: Vec<&str> =
        counterparty["reasons"].as_array().expect("reasons").iter().filter_map(Value::as_str).collect();
    for reason in ["descriptor_exact", "intermediary_stripped", "mcc_match", "zip_match", "city_match"] {
        assert!(reasons.contains(&reason), "{reason} in {reasons:?}");
    }
    assert_eq!(heron["intermediaries"], json!([{"name": "Square", "type": "payment_processor"}]));
    assert_eq!(heron["channel"], "in_store");
    assert_eq!(
        heron["personalFinanceCategory"],
        json!({"primary": "food_and_drink", "detailed": "food_and_drink_coffee"})
    );
    let location = &heron["location"];
    assert_eq!(location["address"], "1022 Valencia St, San Francisco, CA 94110");
    assert_eq!(
        (location["city"].as_str(), location["zip"].as_str(), location["countryCode"].as_str()),
        (Some("San Francisco"), Some("94110"), Some("USA"))
    );
    assert!(location["locationId"].as_i64().is_some_and(|id| id > 100_000_000), "{location}");
    assert!(location["latitude"].is_number() && location["longitude"].is_number());

    assert_eq!(by_id("t2")["intermediaries"][0]["name"], "Toast");
    assert_eq!(by_id("t2")["counterparty"]["name"], "Golden Lantern");
    let market = by_id("t3");
    assert_eq!(market["counterparty"]["name"], "Lakeshore Market");
    assert_eq!(market["location"]["city"], "Chicago", "a store number and a city point to the store");
    assert_eq!(market["personalFinanceCategory"]["detailed"], "food_and_drink_groceries");
    assert_eq!(by_id("t4")["personalFinanceCategory"]["detailed"], "transportation_gas");
    let nightjar = by_id("t5");
    assert_eq!(nightjar["counterparty"]["name"], "Nightjar Streaming");
    assert_eq!(nightjar["intermediaries"], json!([{"name": "PayPal", "type": "payment_app"}]));
    assert_eq!(nightjar["channel"], "online");
    assert_eq!(by_id("t6")["intermediaries"][0]["name"], "Shopify");
    for (id, name) in [
        ("t7", "Harborlight Hotel"),
        ("t8", "Copley Pharmacy"),
        ("t9", "Northwind Air"),
        ("t10", "Café Kranich"),
        ("t11", "Boulangerie Lemoine"),
        ("t12", "Trattoria da Gino"),
    ] {
        assert_eq!(by_id(id)["counterparty"]["name"], name, "{id}");
        assert!(
            ["very_high", "high"].contains(&by_id(id)["counterparty"]["confidence"].as_str().unwrap_or("")),
            "{}",
            by_id(id)
        );
    }
    let amazon = by_id("t13");
    assert_eq!(amazon["counterparty"]["name"], "Amazon", "only a marketplace is named: it is the counterparty");
    assert_eq!(amazon["counterparty"]["type"], "marketplace");
    assert_eq!(amazon["intermediaries"], json!([{"name": "Amazon", "type": "marketplace"}]));
    assert_eq!(amazon["channel"], "online");
    let nothing = by_id("t14");
    assert!(nothing["counterparty"].is_null() && nothing["location"].is_null(), "{nothing}");
    let klarna = by_id("t15");
    assert_eq!(klarna["counterparty"]["name"], "Blue Heron Coffee", "the merchant, not the pay-later service");
    assert_eq!(klarna["intermediaries"], json!([{"name": "Klarna", "type": "bnpl"}]));
}

#[test]
fn a_brand_has_one_id_in_every_city_and_on_every_instance() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    // A chain of the directory with stores in more than one city.
    let chains = [
        "FRESHWAY MARKET",
        "GREEN BASKET",
        "HARVEST FOODS",
        "PETRO STAR",
        "QUICKFUEL",
        "BURGER BARN",
        "TACO RIO",
        "PRIMEMART",
        "VALLEY FRESH",
    ];
    let stores: Vec<Value> = chains
        .iter()
        .find_map(|chain| {
            let (status, body) =
                discover(&server, &subscriber, "/merchant/discover", &[("merchid", chain), ("limit", "50")]);
            assert_eq!(status, 200, "{body}");
            let merchants = body["result"]["merchants"].as_array().cloned().unwrap_or_default();
            let name = merchants.first()?["dbaName"].clone();
            let same: Vec<Value> = merchants.into_iter().filter(|item| item["dbaName"] == name).collect();
            let cities: std::collections::BTreeSet<String> =
                same.iter().filter_map(|item| item["city"].as_str().map(str::to_owned)).collect();
            (cities.len() >= 2).then_some(same)
        })
        .expect("a chain with stores in two cities");
    let brand = stores[0]["brandId"].clone();
    assert!(is_brand_id(&brand), "{}", stores[0]);
    assert!(stores.iter().all(|store| store["brandId"] == brand), "one brand in every city: {stores:?}");
    // Each store's own descriptor finds that brand, and that store.
    let transactions: Vec<Value> = stores
        .iter()
        .take(10)
        .enumerate()
        .map(|(at, store)| json!({"id": format!("s{at}"), "descriptor": store["ID"], "city": store["city"]}))
        .collect();
    let (status, body) = enrich(&server, &subscriber, json!(transactions));
    assert_eq!(status, 200, "{body}");
    for (item, store) in body["enriched"].as_array().expect("enriched").iter().zip(&stores) {
        assert_eq!(item["counterparty"]["brandId"], brand, "{item}");
        assert_eq!(item["location"]["locationId"], store["locationId"], "{item}");
    }
    // Another subscriber, and another service built from the same seed, name it the same.
    let other = server.subscriber();
    let (_, theirs) = enrich(&server, &other, json!([{"id": "x", "descriptor": stores[0]["ID"]}]));
    assert_eq!(theirs["enriched"][0]["counterparty"]["brandId"], brand);
    let rebuilt = TestServer::spawn();
    let stranger = rebuilt.subscriber();
    let (_, again) = enrich(&rebuilt, &stranger, json!([{"id": "x", "descriptor": stores[0]["ID"]}]));
    assert_eq!(again["enriched"][0]["counterparty"]["brandId"], brand, "stable across instances and rebuilds");
}

#[test]
fn a_logo_is_an_svg_any_page_can_show_and_cache() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (_, body) = enrich(&server, &subscriber, json!([{"id": "a", "descriptor": "SQ *BLUE HERON COFFEE"}]));
    let logo_url = body["enriched"][0]["counterparty"]["logoUrl"].as_str().expect("logoUrl").to_owned();
    // No token: an <img> has none.
    let response = server.http.get(server.url(&logo_url)).send().expect("logo");
    assert_eq!(response.status().as_u16(), 200);
    let header = |name: &str| response.headers().get(name).and_then(|value| value.to_str().ok()).map(str::to_owned);
    assert_eq!(header("content-type").as_deref(), Some("image/svg+xml"));
    assert!(
        header("cache-control").is_some_and(|value| value.contains("max-age=") && value.contains("public")),
        "{:?}",
        header("cache-control")
    );
    assert_eq!(header("cross-origin-resource-policy").as_deref(), Some("cross-origin"));
    let etag = header("etag").expect("an ETag");
    let svg = response.text().expect("svg");
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\"") && svg.contains(">BH</text>"), "{svg}");
    // The same for every caller.
    let with_token = subscriber.auth(server.get(&logo_url)).send().expect("logo");
    assert_eq!(with_token.headers().get("etag").and_then(|value| value.to_str().ok()), Some(etag.as_str()));
    assert_eq!(with_token.text().expect("svg"), svg);
    let cached = server.get(&logo_url).header("If-None-Match", &etag).send().expect("logo");
    assert_eq!(cached.status().as_u16(), 304);
    assert_eq!(cached.headers().get("etag").and_then(|value| value.to_str().ok()), Some(etag.as_str()));
    assert!(cached.text().expect("body").is_empty());
    let changed = server.get(&logo_url).header("If-None-Match", "\"something-else\"").send().expect("logo");
    assert_eq!(changed.status().as_u16(), 200);
    for unknown in
        ["/brands/brd_0000000000000000/logo.svg", "/brands/not-a-brand/logo.svg", "/brands/brd_%3Cscript%3E/logo.svg"]
    {
        let (status, body) = send(server.get(unknown));
        assert_error(status, &body, 404, "not_found");
    }
}

#[test]
fn bad_batches_are_refused_with_each_field_named() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let many: Vec<Value> = (0..101).map(|n| json!({"id": n.to_string(), "descriptor": "SQ *BLUE HERON"})).collect();
    let cases: Vec<(Value, &str)> = vec![
        (json!([]), "transactions"),
        (json!(many), "transactions"),
        (json!([{"id": "x".repeat(65), "descriptor": "SQ *BLUE HERON"}]), "transactions[0].id"),
        (json!([{"id": "", "descriptor": "SQ *BLUE HERON"}]), "transactions[0].id"),
        (
            json!([{"id": "a", "descriptor": "SQ *BLUE HERON"}, {"id": "b", "descriptor": "  "}]),
            "transactions[1].descriptor",
        ),
        (json!([{"id": "a", "descriptor": "SQ *BLUE HERON", "mcc": "58"}]), "transactions[0].mcc"),
        (json!([{"id": "a", "descriptor": "SQ *BLUE HERON", "mcc": 5812}]), "transactions[0].mcc"),
        (json!([{"id": "a", "descriptor": "SQ *BLUE HERON", "date": "2026-02-30"}]), "transactions[0].date"),
        (json!([{"id": "a", "descriptor": "SQ *BLUE HERON", "date": "21/11/2026"}]), "transactions[0].date"),
        (json!([{"id": "a", "descriptor": "SQ *BLUE HERON", "countryCode": "XX"}]), "transactions[0].countryCode"),
        (json!([{"id": "a", "descriptor": "SQ *BLUE HERON", "currency": "DOLLAR"}]), "transactions[0].currency"),
        (json!([{"id": "a", "descriptor": "SQ *BLUE HERON", "amount": "4.50"}]), "transactions[0].amount"),
        (json!([{"id": "a"}]), "transactions[0].descriptor"),
    ];
    for (transactions, field) in cases {
        let (status, body) = enrich(&server, &subscriber, transactions.clone());
        assert_error(status, &body, 400, "invalid_request");
        let details = body["details"].as_array().expect("details");
        assert!(details.iter().any(|detail| detail["field"] == field), "{transactions} names {field}: {body}");
    }
    let (status, body) = send(subscriber.auth(server.post("/transactions/enrich", &json!({}))));
    assert_error(status, &body, 400, "invalid_request");
    let (status, body) =
        send(server.post("/transactions/enrich", &json!({"transactions": [{"id": "a", "descriptor": "X"}]})));
    assert_error(status, &body, 401, "unauthorized");
    let (status, body) = send(server.get("/transactions/categories"));
    assert_error(status, &body, 401, "unauthorized");
}

#[test]
fn the_categories_are_one_taxonomy_the_enrichments_come_from() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (status, body) = send(subscriber.auth(server.get("/transactions/categories")));
    assert_eq!(status, 200, "{body}");
    let primary: Vec<&str> =
        body["primary"].as_array().expect("primary").iter().filter_map(|item| item["primary"].as_str()).collect();
    let detailed = body["detailed"].as_array().expect("detailed");
    assert_eq!(primary.len(), 16, "{primary:?}");
    assert_eq!(detailed.len(), 104);
    for item in detailed {
        let (Some(parent), Some(name)) = (item["primary"].as_str(), item["detailed"].as_str()) else {
            panic!("{item}")
        };
        assert!(primary.contains(&parent) && name.starts_with(parent), "{item}");
        assert!(item["description"].as_str().is_some_and(|text| !text.is_empty()));
    }
    let (_, body) = enrich(&server, &subscriber, showcase());
    for item in body["enriched"].as_array().expect("enriched") {
        let category = &item["personalFinanceCategory"];
        if category.is_null() {
            continue;
        }
        assert!(
            detailed
                .iter()
                .any(|known| known["detailed"] == category["detailed"] && known["primary"] == category["primary"]),
            "{category}"
        );
    }
}

#[test]
fn discovery_results_carry_the_brand_and_how_sure_the_match_is() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (status, body) = discover(&server, &subscriber, "/merchant/discover", &[("merchid", "SQ *BLUE HERON COFFEE")]);
    assert_eq!(status, 200, "{body}");
    let first = &body["result"]["merchants"][0];
    assert_eq!(first["dbaName"], "Blue Heron Coffee");
    assert_eq!(first["confScore"], 100.0, "confScore keeps its meaning");
    assert!(is_brand_id(&first["brandId"]), "{first}");
    assert_eq!(first["logoUrl"], format!("/brands/{}/logo.svg", first["brandId"].as_str().unwrap_or("")));
    assert_eq!(first["confidence"], "very_high");
    assert!(first["reasons"].as_array().is_some_and(|reasons| reasons.contains(&json!("descriptor_exact"))), "{first}");
    assert!(first.as_object().is_some_and(|fields| fields.contains_key("website")));
    let (_, enriched) = enrich(&server, &subscriber, json!([{"id": "a", "descriptor": "SQ *BLUE HERON COFFEE"}]));
    assert_eq!(enriched["enriched"][0]["counterparty"]["brandId"], first["brandId"], "one brand id everywhere");
    // By address too, and at the first version's shapes.
    let path = format!(
        "/merchant/discover?{}",
        query_string(&[("street", "Valencia St"), ("streetNo", "1022"), ("zip", "94110")])
    );
    let (status, body) = send(subscriber.auth(server.get(&path)).header("Subscriber-Version", "2026-11-21"));
    assert_eq!(status, 200, "{body}");
    let first = &body["result"]["merchants"][0];
    assert_eq!(first["dbaName"], "Blue Heron Coffee");
    assert!(
        is_brand_id(&first["brandId"]) && first["confidence"].is_string() && first["reasons"].is_array(),
        "{first}"
    );
}

#[test]
fn each_transaction_enriched_is_billed_in_established() {
    let server = TestServer::spawn_with(&["--environment", "established"]);
    let subscriber = server.subscriber();
    let (status, body) = enrich(
        &server,
        &subscriber,
        json!([{"id": "a", "descriptor": "SQ *BLUE HERON COFFEE"}, {"id": "b", "descriptor": "TST* GOLDEN LANTERN"}, {"id": "c", "descriptor": "NORTHWIND AIR"}]),
    );
    assert_eq!(status, 200, "{body}");
    let (status, body) = send(subscriber.auth(server.get("/subscriber/usage")));
    assert_eq!(status, 200, "{body}");
    let row = body["usage"]
        .as_array()
        .expect("usage")
        .iter()
        .find(|row| row["endpoint"] == "POST /transactions/enrich")
        .unwrap_or_else(|| panic!("enrich counted: {body}"));
    assert_eq!(row["count"], 3, "one per transaction");
}

#[test]
fn the_newest_document_types_every_new_field() {
    let server = TestServer::spawn();
    let (status, document) = send(server.get("/openapi.json?version=2026-12-01"));
    assert_eq!(status, 200);
    let schemas = &document["components"]["schemas"];
    let enumerated = |name: &str, values: &[&str]| {
        let listed: Vec<&str> = schemas[name]["enum"]
            .as_array()
            .unwrap_or_else(|| panic!("{name} is an enum: {}", schemas[name]))
            .iter()
            .filter_map(Value::as_str)
            .collect();
        for value in values {
            assert!(listed.contains(value), "{name} lists {value}: {listed:?}");
        }
    };
    enumerated("Confidence", &["very_high", "high", "medium", "low"]);
    enumerated(
        "CounterpartyType",
        &["merchant", "marketplace", "payment_app", "financial_institution", "income_source"],
    );
    enumerated("IntermediaryType", &["payment_processor", "marketplace", "payment_app", "bnpl"]);
    enumerated("Channel", &["in_store", "online", "other"]);
    enumerated(
        "MatchReason",
        &[
            "descriptor_exact",
            "descriptor_fuzzy",
            "store_number",
            "city_match",
            "zip_match",
            "mcc_match",
            "intermediary_stripped",
            "truncated",
        ],
    );
    enumerated("PfcPrimary", &["food_and_drink", "rent_and_utilities"]);
    enumerated("PfcDetailed", &["food_and_drink_coffee"]);
    let counterparty = &schemas["Counterparty"]["properties"];
    for field in ["brandId", "name", "type", "website", "logoUrl", "confidence", "score", "reasons"] {
        assert!(counterparty.get(field).is_some(), "Counterparty.{field}: {counterparty}");
    }
    let discovered = &schemas["DiscoveredMerchant"]["properties"];
    for field in ["brandId", "website", "logoUrl", "confidence", "reasons", "confScore"] {
        assert!(discovered.get(field).is_some(), "DiscoveredMerchant.{field}");
    }
    for path in ["/transactions/enrich", "/transactions/categories", "/brands/{brand_id}/logo.svg"] {
        assert!(document["paths"].get(path).is_some(), "{path} is documented");
    }
}

fn all_card_transactions(server: &TestServer, subscriber: &Subscriber, card_id: i64) -> Vec<Value> {
    let (status, body) = send(subscriber.auth(server.get(&format!("/card/{card_id}/transactions?limit=5000"))));
    assert_eq!(status, 200, "{body}");
    body["transactions"].as_array().expect("transactions").clone()
}

/// Five cards' 36-month histories: every transaction carries what the matcher found from what
/// the network sent, one brand keeps one id on every card and in every city, refunds name their
/// purchase, and the sandbox's bills and subscriptions are monthly streams due next.
#[test]
fn stored_transactions_carry_their_counterparty_and_the_bills_are_streams() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let today = chrono::Utc::now().date_naive();
    let mut brand_of_name: std::collections::HashMap<String, std::collections::BTreeSet<String>> =
        std::collections::HashMap::new();
    let (mut total, mut matched, mut refunds, mut refunds_found) = (0, 0, 0, 0);
    for pan in crate::helpers::TEST_PANS {
        let card_id = server.enroll_card(&subscriber, pan);
        let transactions = all_card_transactions(&server, &subscriber, card_id);
        let by_id: std::collections::HashMap<i64, &Value> =
            transactions.iter().map(|item| (item["transactionId"].as_i64().expect("id"), item)).collect();
        for item in &transactions {
            total += 1;
            for key in ["counterparty", "personalFinanceCategory", "recurringStreamId", "refundOf"] {
                assert!(item.as_object().is_some_and(|fields| fields.contains_key(key)), "{key} always there: {item}");
            }
            assert!(item["intermediaries"].is_array() && item["channel"].is_string(), "{item}");
            let counterparty = &item["counterparty"];
            if counterparty.is_object() {
                assert!(is_brand_id(&counterparty["brandId"]), "{counterparty}");
                if ["very_high", "high"].contains(&counterparty["confidence"].as_str().unwrap_or("")) {
                    matched += 1;
                    let name = item["merchantName"].as_str().expect("merchantName").to_owned();
                    brand_of_name
                        .entry(name)
                        .or_default()
                        .insert(counterparty["brandId"].as_str().unwrap_or("").into());
                }
            }
            if item["amount"].as_f64().is_some_and(|amount| amount < 0.0) {
                refunds += 1;
                if let Some(purchase) = item["refundOf"].as_i64() {
                    refunds_found += 1;
                    let bought =
                        by_id.get(&purchase).unwrap_or_else(|| panic!("refund {item} of a purchase of the card"));
                    assert!(bought["amount"].as_f64() >= item["amount"].as_f64().map(|refund| -refund), "{bought}");
                    assert_eq!(bought["merchantName"], item["merchantName"], "the same merchant");
                }
            }
        }
        let (status, body) = send(subscriber.auth(server.get(&format!("/card/{card_id}/recurring"))));
        assert_eq!(status, 200, "{body}");
        let streams = body["streams"].as_array().expect("streams");
        let monthly: Vec<&Value> =
            streams.iter().filter(|stream| stream["frequency"] == "monthly" && stream["status"] == "mature").collect();
        assert!(monthly.len() >= 3, "rent, utilities, phone and a subscription at least: {streams:#?}");
        // The bills are due next; a habit that looked monthly (a salon every few weeks) may be
        // late, yet within a period of its date (else it would be tombstoned).
        let coming = monthly
            .iter()
            .filter(|stream| {
                stream["predictedNextDate"].as_str().is_some_and(|date| {
                    chrono::NaiveDate::parse_from_str(date, "%Y-%m-%d")
                        .is_ok_and(|next| next >= today - chrono::Duration::days(2))
                })
            })
            .count();
        assert!(coming >= 3, "rent, utilities and phone still coming: {streams:#?}");
        for stream in &monthly {
            let next =
                chrono::NaiveDate::parse_from_str(stream["predictedNextDate"].as_str().expect("date"), "%Y-%m-%d")
                    .expect("a date");
            let last = chrono::NaiveDate::parse_from_str(stream["lastDate"].as_str().expect("date"), "%Y-%m-%d")
                .expect("a date");
            // The stream's day of the month, at least half a period after the last payment: a
            // salon visit on the 5th of a habit kept around the 7th is next due on the 7th of
            // the next month, 32 days on.
            assert!(next > last && next <= last + chrono::Duration::days(15 + 31), "{stream}");
            assert!(next >= today - chrono::Duration::days(31), "mature, so within a period of its date: {stream}");
            assert!(stream["streamId"].as_str().is_some_and(|id| id.starts_with("rst_") && id.len() == 20), "{stream}");
            let ids = stream["transactionIds"].as_array().expect("ids");
            assert!(ids.len() >= 3, "{stream}");
            for id in ids {
                let item = by_id.get(&id.as_i64().expect("id")).expect("a transaction of the card");
                assert_eq!(item["recurringStreamId"], stream["streamId"], "{item}");
            }
        }
    }
    assert!(matched * 100 >= total * 90, "{matched} of {total} matched at high or better");
    let split: Vec<_> = brand_of_name.iter().filter(|(_, brands)| brands.len() > 1).collect();
    assert!(split.len() * 100 <= brand_of_name.len(), "one brand id per merchant: {split:?}");
    assert!(
        refunds > 0 && refunds_found * 10 >= refunds * 9,
        "{refunds_found} of {refunds} refunds name their purchase"
    );
}

/// A purchase made now carries its counterparty in the sandbox's answer, the list, the event
/// log and the card's sync, the same in each.
#[test]
fn a_new_purchase_is_enriched_the_same_everywhere_it_shows() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let card_id = server.enroll_card(&subscriber, crate::helpers::TEST_PAN);
    let (status, created) =
        send(subscriber.auth(server.post("/sandbox/transactions", &json!({ "cardId": card_id, "amount": 12.5 }))));
    assert_eq!(status, 201, "{created}");
    let shown = &created["transaction"];
    let id = shown["transactionId"].as_i64().expect("id");
    for key in ["counterparty", "intermediaries", "channel", "personalFinanceCategory", "recurringStreamId", "refundOf"]
    {
        assert!(shown.as_object().is_some_and(|fields| fields.contains_key(key)), "{key}: {shown}");
    }
    let listed = all_card_transactions(&server, &subscriber, card_id);
    let in_list = listed.iter().find(|item| item["transactionId"] == id).expect("listed");
    assert_eq!(in_list["counterparty"], shown["counterparty"]);
    assert_eq!(in_list["personalFinanceCategory"], shown["personalFinanceCategory"]);
    let (status, events) = send(subscriber.auth(server.get("/events?type=transaction.created")));
    assert_eq!(status, 200, "{events}");
    let event = events["events"]
        .as_array()
        .expect("events")
        .iter()
        .find(|event| event["data"]["transactionId"] == id)
        .unwrap_or_else(|| panic!("the purchase's event in {events}"));
    assert_eq!(event["data"]["transaction"]["counterparty"], shown["counterparty"], "{event}");
    assert_eq!(event["data"]["transaction"]["channel"], shown["channel"], "{event}");
}
