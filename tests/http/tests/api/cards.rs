use std::collections::HashSet;

use serde_json::{Value, json};

use crate::helpers::{TEST_PAN, TEST_PANS, TestServer, assert_error, card_json, database_files, send};

#[test]
fn enrolling_answers_card_linked_with_a_numeric_card_id() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (status, body) = send(subscriber.auth(server.post("/card", &card_json(TEST_PAN))));
    assert_eq!(status, 201, "{body}");
    assert!(body["error"].is_null());
    assert_eq!(body["message"], "Card linked");
    assert!(body["cardId"].as_i64().is_some_and(|id| id > 0), "{body}");
    assert!(!body.to_string().contains(TEST_PAN), "the PAN is never echoed");
}

#[test]
fn the_card_link_alias_uppercase_pan_and_numeric_pan_all_enroll() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let mut numeric = card_json(TEST_PANS[1]);
    numeric["pan"] = json!(4_000_056_655_665_556_u64);
    let (status, body) = send(subscriber.auth(server.post("/card/link", &numeric)));
    assert_eq!(status, 201, "numeric pan on /card/link: {body}");
    let mut upper = card_json(TEST_PANS[2]);
    let pan = upper.as_object_mut().and_then(|object| object.remove("pan")).expect("pan");
    upper["PAN"] = pan;
    let (status, body) = send(subscriber.auth(server.post("/card/link/", &upper)));
    assert_eq!(status, 201, "PAN on /card/link/: {body}");
    let mut two_digit_year = card_json(TEST_PANS[3]);
    two_digit_year["expYear"] = json!(31);
    let (status, body) = send(subscriber.auth(server.post("/card/", &two_digit_year)));
    assert_eq!(status, 201, "{body}");
    let card_id = body["cardId"].as_i64().expect("cardId");
    let (_, card) = send(subscriber.auth(server.get(&format!("/card/{card_id}"))));
    assert_eq!(card["expYear"], 2031, "a 2-digit year is stored as 4 digits");
}

#[test]
fn card_details_have_the_spec_fields_and_compact_enrolled_at() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let before = chrono::Utc::now();
    let card_id = server.enroll_card(&subscriber, TEST_PANS[2]);
    for path in [format!("/card/{card_id}"), format!("/card/{card_id}/")] {
        let (status, body) = send(subscriber.auth(server.get(&path)));
        assert_eq!(status, 200, "{path}: {body}");
        assert!(body["error"].is_null());
        assert_eq!(body["cardId"], card_id);
        assert_eq!(body["lastFour"], 4444, "lastFour is an integer");
        assert_eq!(body["firstName"], "Ada");
        assert_eq!(body["lastName"], "Lovelace");
        assert_eq!(body["expMonth"], 12);
        assert_eq!(body["expYear"], card_json(TEST_PANS[2])["expYear"]);
        let enrolled_at = body["enrolledAt"].as_str().expect("enrolledAt");
        assert_eq!(enrolled_at.len(), 13, "YYYYMMDD-HHMM: {enrolled_at}");
        let parsed = chrono::NaiveDateTime::parse_from_str(enrolled_at, "%Y%m%d-%H%M").expect("compact form");
        let delta = parsed.and_utc() - before;
        assert!(delta.num_seconds().abs() < 120, "enrolledAt is now (UTC): {enrolled_at}");
    }
}

#[test]
fn the_card_list_shows_only_the_callers_cards_newest_first() {
    let server = TestServer::spawn();
    let ada = server.subscriber();
    let bob = server.subscriber();
    let first = server.enroll_card(&ada, TEST_PANS[0]);
    let second = server.enroll_card(&ada, TEST_PANS[1]);
    let bobs = server.enroll_card(&bob, TEST_PANS[0]);
    let (status, body) = send(ada.auth(server.get("/card")));
    assert_eq!(status, 200, "{body}");
    let ids: Vec<i64> =
        body["cards"].as_array().expect("cards").iter().filter_map(|card| card["cardId"].as_i64()).collect();
    assert_eq!(ids, [second, first]);
    assert!(!ids.contains(&bobs));
    assert_eq!(body["cards"][0]["lastFour"], 5556);
}

#[test]
fn another_subscribers_card_is_404_on_details_and_transactions() {
    let server = TestServer::spawn();
    let owner = server.subscriber();
    let stranger = server.subscriber();
    let card_id = server.enroll_card(&owner, TEST_PAN);
    for path in [format!("/card/{card_id}"), format!("/card/{card_id}/transactions")] {
        let (status, body) = send(stranger.auth(server.get(&path)));
        assert_error(status, &body, 404, "not_found");
        let (status, _) = send(owner.auth(server.get(&path)));
        assert_eq!(status, 200, "{path} for its owner");
        // The owner's read leaves the card's answer in memory: a stranger still gets nothing.
        let (status, body) = send(stranger.auth(server.get(&path)));
        assert_error(status, &body, 404, "not_found");
    }
    for path in ["/card/999999", "/card/abc", "/card/0/transactions", "/card/-1"] {
        let (status, body) = send(owner.auth(server.get(path)));
        assert_error(status, &body, 404, "not_found");
    }
}

#[test]
fn the_same_card_twice_is_409_with_the_existing_card_id() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let card_id = server.enroll_card(&subscriber, TEST_PAN);
    let mut again = card_json(TEST_PAN);
    again["pan"] = json!("4242 4242 4242 4242");
    let (status, body) = send(subscriber.auth(server.post("/card", &again)));
    assert_error(status, &body, 409, "conflict");
    assert_eq!(body["cardId"], card_id);
    let other = server.subscriber();
    let (status, _) = send(other.auth(server.post("/card", &card_json(TEST_PAN))));
    assert_eq!(status, 201, "another subscriber may enroll the same test card");
}

fn invalid_fields(server: &TestServer, token: &str, body: &Value) -> Vec<String> {
    let (status, response) = send(server.post("/card", body).bearer_auth(token));
    assert_error(status, &response, 400, "invalid_request");
    response["details"]
        .as_array()
        .unwrap_or_else(|| panic!("details in {response}"))
        .iter()
        .map(|detail| detail["field"].as_str().expect("field").to_owned())
        .collect()
}

#[test]
fn invalid_cards_are_400_naming_each_field_and_create_nothing() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let token = subscriber.token.as_str();
    let cases: Vec<(Value, &str)> = vec![
        (json!({"pan": "4242424242424241"}), "pan"),
        (json!({"pan": "424242424242424"}), "pan"),
        (json!({"pan": "42424242424242420"}), "pan"),
        (json!({"pan": "4242abcd42424242"}), "pan"),
        (json!({"pan": "4111111111111111"}), "pan"),
        (json!({"firstName": "  "}), "firstName"),
        (json!({"lastName": "x".repeat(200)}), "lastName"),
        (json!({"expMonth": 13}), "expMonth"),
        (json!({"expMonth": 0}), "expMonth"),
        (json!({"expMonth": "12"}), "expMonth"),
        (json!({"expYear": 2020}), "expYear"),
        (json!({"expYear": 123}), "expYear"),
        (json!({"countryCode": "US"}), "countryCode"),
        (json!({"countryCode": "XYZ"}), "countryCode"),
    ];
    for (change, field) in cases {
        let mut body = card_json(TEST_PAN);
        for (key, value) in change.as_object().expect("object") {
            body[key] = value.clone();
        }
        let fields = invalid_fields(&server, token, &body);
        assert!(fields.iter().any(|named| named == field), "{change} should name {field}: {fields:?}");
    }
    let mut missing = card_json(TEST_PAN);
    missing.as_object_mut().expect("object").remove("pan");
    assert_eq!(invalid_fields(&server, token, &missing), ["pan"]);
    let (_, body) = send(subscriber.auth(server.get("/card")));
    assert_eq!(body["cards"], json!([]), "nothing was enrolled");
}

#[test]
fn a_luhn_valid_non_test_pan_in_sandbox_names_the_test_cards() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let (status, body) = send(subscriber.auth(server.post("/card", &card_json("4111111111111111"))));
    assert_error(status, &body, 400, "invalid_request");
    let message = body["error"].as_str().expect("message");
    for pan in TEST_PANS {
        assert!(message.contains(pan), "{message} lists {pan}");
    }
}

#[test]
fn outside_sandbox_any_pan_through_the_api_is_403_pan_not_accepted() {
    for environment in ["expansion", "established"] {
        let server = TestServer::spawn_with(&["--environment", environment]);
        let subscriber = server.subscriber();
        let (status, body) = send(subscriber.auth(server.post("/card", &card_json(TEST_PAN))));
        assert_error(status, &body, 403, "pan_not_accepted");
        assert!(body["error"].as_str().is_some_and(|message| message.contains("secure")), "{body}");
        let (status, body) = send(subscriber.auth(server.post("/card/link", &card_json("4111111111111111"))));
        assert_error(status, &body, 403, "pan_not_accepted");
        let (_, body) = send(subscriber.auth(server.get("/card")));
        assert_eq!(body["cards"], json!([]));
    }
}

fn all_pages(server: &TestServer, token: &str, card_id: i64, query: &str) -> (Vec<Value>, usize) {
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let mut path = format!("/card/{card_id}/transactions?{query}");
        if let Some(cursor) = &cursor {
            path.push_str(&format!("&cursor={cursor}"));
        }
        let (status, body) = send(server.get(&path).bearer_auth(token));
        assert_eq!(status, 200, "{path}: {body}");
        pages += 1;
        items.extend(body["transactions"].as_array().expect("transactions").iter().cloned());
        match body["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => {
                assert!(body["next_cursor"].is_null(), "next_cursor is null on the last page");
                break;
            }
        }
        assert!(pages < 1000, "paging ends");
    }
    (items, pages)
}

#[test]
fn paging_walks_the_whole_history_without_gaps_or_repeats() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let card_id = server.enroll_card(&subscriber, TEST_PAN);
    let (everything, pages) = all_pages(&server, &subscriber.token, card_id, "limit=5000");
    assert_eq!(pages, 1);
    assert!(everything.len() > 300, "36 months of history: {}", everything.len());
    let (paged, pages) = all_pages(&server, &subscriber.token, card_id, "limit=97");
    assert!(pages > 3);
    assert_eq!(paged, everything, "the pages together are the whole list, in order");
    let ids: HashSet<i64> = paged.iter().filter_map(|item| item["transactionId"].as_i64()).collect();
    assert_eq!(ids.len(), paged.len(), "no repeats");
    let (default_page, _) = {
        let (status, body) = send(subscriber.auth(server.get(&format!("/card/{card_id}/transactions"))));
        assert_eq!(status, 200);
        (body["transactions"].as_array().expect("transactions").len(), ())
    };
    assert_eq!(default_page, everything.len().min(500), "the default page holds 500");
    let times: Vec<&str> = everything.iter().filter_map(|item| item["createdAt"].as_str()).collect();
    assert!(times.windows(2).all(|pair| pair[0] >= pair[1]), "newest first");
}

#[test]
fn transactions_have_the_spec_fields_and_filters_work() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let card_id = server.enroll_card(&subscriber, TEST_PAN);
    let (everything, _) = all_pages(&server, &subscriber.token, card_id, "limit=5000");
    let first = everything.first().expect("a transaction");
    for field in [
        "createdAt",
        "merchantName",
        "street",
        "streetNo",
        "city",
        "country",
        "zip",
        "currency",
        "descriptor",
        "category",
    ] {
        assert!(first[field].is_string(), "{field} in {first}");
    }
    assert!(first["transactionId"].is_i64() && first["amount"].is_number() && first["pending"].is_boolean(), "{first}");
    let oldest = chrono::Utc::now() - chrono::Months::new(36);
    for item in &everything {
        let at =
            chrono::DateTime::parse_from_rfc3339(item["createdAt"].as_str().expect("createdAt")).expect("RFC 3339");
        assert!(at >= oldest, "never older than 36 months: {at}");
        let cents = item["amount"].as_f64().expect("amount") * 100.0;
        assert!((cents - cents.round()).abs() < 1e-6, "two decimals: {}", item["amount"]);
    }
    let pending = everything.iter().filter(|item| item["pending"] == true).count();
    let (only_pending, _) = all_pages(&server, &subscriber.token, card_id, "pending=true");
    assert_eq!(only_pending.len(), pending);
    assert!(only_pending.iter().all(|item| item["pending"] == true));
    let (settled, _) = all_pages(&server, &subscriber.token, card_id, "pending=false");
    assert_eq!(settled.len() + pending, everything.len());

    let month_ago = (chrono::Utc::now() - chrono::Duration::days(30)).date_naive();
    let two_months_ago = (chrono::Utc::now() - chrono::Duration::days(60)).date_naive();
    let (window, _) = all_pages(&server, &subscriber.token, card_id, &format!("from={two_months_ago}&to={month_ago}"));
    assert!(!window.is_empty());
    for item in &window {
        let day = &item["createdAt"].as_str().expect("createdAt")[..10];
        assert!(day >= two_months_ago.to_string().as_str() && day <= month_ago.to_string().as_str(), "{day}");
    }
    let expected = everything
        .iter()
        .filter(|item| {
            let day = &item["createdAt"].as_str().unwrap_or_default()[..10];
            day >= two_months_ago.to_string().as_str() && day <= month_ago.to_string().as_str()
        })
        .count();
    assert_eq!(window.len(), expected);
}

#[test]
fn bad_transaction_queries_are_400() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let card_id = server.enroll_card(&subscriber, TEST_PAN);
    for (query, field) in [
        ("limit=0", "limit"),
        ("limit=5001", "limit"),
        ("limit=ten", "limit"),
        ("cursor=garbage", "cursor"),
        ("from=yesterday", "from"),
        ("from=2026-02-01&to=2026-01-01", "from"),
        ("pending=maybe", "pending"),
    ] {
        let (status, body) = send(subscriber.auth(server.get(&format!("/card/{card_id}/transactions?{query}"))));
        assert_error(status, &body, 400, "invalid_request");
        assert_eq!(body["details"][0]["field"], field, "{query}: {body}");
    }
}

#[test]
fn the_database_and_the_log_never_hold_a_pan_or_a_secret() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    for pan in TEST_PANS {
        server.enroll_card(&subscriber, pan);
    }
    let _ = send(subscriber.auth(server.post("/card", &card_json("4111111111111111"))));
    let _ = send(subscriber.auth(server.get("/card/4242424242424242")));
    let log = server.log();
    let mut files: Vec<(String, Vec<u8>)> = vec![("server log".to_owned(), log.into_bytes())];
    if server.on_postgres() {
        files.extend(
            database_files(&server.database).into_iter().map(|(name, bytes)| (name.display().to_string(), bytes)),
        );
    } else {
        let directory = server.database.parent().expect("database directory").to_owned();
        for entry in std::fs::read_dir(&directory).expect("database directory") {
            let path = entry.expect("entry").path();
            files.push((path.display().to_string(), std::fs::read(&path).expect("readable")));
        }
        assert!(files.iter().any(|(name, _)| name.ends_with("-wal")), "the WAL is checked too");
    }
    for (name, bytes) in &files {
        let text = String::from_utf8_lossy(bytes);
        for pan in TEST_PANS.iter().chain(["4111111111111111"].iter()) {
            assert!(!text.contains(pan), "{name} holds a PAN");
            let spaced = format!("{} {} {} {}", &pan[..4], &pan[4..8], &pan[8..12], &pan[12..]);
            assert!(!text.contains(&spaced), "{name} holds a PAN");
        }
        assert!(!text.contains(&subscriber.secret), "{name} holds the secret");
        assert!(!text.contains(&subscriber.token), "{name} holds the token");
    }
}
