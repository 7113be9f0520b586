//! Every route the service serves, called through the client with its answer checked field by
//! field; then the routes the clients called are compared with the service's router, so a
//! route added to the service fails this test until it has a client method and a step here.
//!
//! It fails both ways: a served route no step calls, and a client route the service does not
//! serve.

use std::collections::BTreeSet;
use std::time::Duration;
use subscriber_protocol::{
    AccountId, CardId, CardSessionId, LocationId, MerchantId, ObjectId, PersonId, TransactionId,
};

use chrono::Datelike;
use futures::StreamExt;
use reqwest::Method;
use serde_json::json;
use subscriber_client::events::{EventData, EventType, TransactionEventData};
use subscriber_client::protocol::versions::ApiVersion;
use subscriber_client::protocol::{
    AccountPermission, AccountStatus, AuthenticatePersonRequest, CardSessionStatus, CategoryCode, CoordinatesSource,
    CreateCardSessionRequest, CreateLocationRequest, DiscoverQuery, EnrollAccountRequest, EnrollCardRequest,
    EnrollMerchantRequest, Environment, LocationChanges, LocationInput, MatchType, OnboardPersonRequest, PersonAddress,
    PersonStatus, SandboxTransactionRequest, SandboxTransactionResponse, UpdateLocationRequest, VerifyPersonRequest,
};
use subscriber_client::protocol::{DeliveryStatus, WebhookStatus};
use subscriber_client::{AddressQuery, Client, TransactionStream, luhn_valid, routes};

use subscriber_testkit::{Browser, Page};
use subscriber_testkit::{TestService, recent, test_card};

/// The address of the location the tour gives its merchant: street, number, city, zip, country.
const MINT_PLAZA: [&str; 5] = ["Mint Plaza", "66", "San Francisco", "94103", "USA"];

/// What the tour has learnt and who it called with.
struct Tour {
    service: TestService,
    /// Every client used: their metrics together are the routes covered.
    clients: Vec<Client>,
    /// Opens the hosted pages (HTML for a person) and records their routes.
    browser: Browser,
    client: Client,
    /// Another subscriber, for "someone else's id is 404".
    other: Client,
    /// Without credentials: signup.
    anonymous: Client,
}

impl Tour {
    fn serves(&self, route: &routes::Route) -> bool {
        self.service.serves(route)
    }

    /// Opens a hosted page by the URL the API gave.
    async fn open_page(&mut self, url: &str) -> Page {
        assert!(url.starts_with(&self.service.base_url()), "{url} is served by the service");
        let page = self.browser.get(url).await;
        assert_eq!(page.status, 200, "{url}: {}", page.body);
        page
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_route_the_service_serves_is_called_by_a_client_test() {
    let service = TestService::start().await;
    let (client, account) = service.subscriber("tour@example.com").await;
    let (other, _) = service.subscriber("other@example.com").await;
    let anonymous = service.anonymous();
    let mut tour = Tour {
        clients: vec![client.clone(), other.clone(), anonymous.clone()],
        browser: Browser::recording(service.served_routes()),
        client,
        other,
        anonymous,
        service,
    };

    subscriber_steps(&mut tour, &account).await;
    let card_id = card_steps(&mut tour).await;
    let merchant = merchant_steps(&mut tour, card_id).await;
    discovery_steps(&mut tour, &merchant).await;
    stream_steps(&mut tour, card_id, &merchant).await;
    event_steps(&mut tour, card_id).await;
    webhook_steps(&mut tour, card_id).await;
    account_steps(&mut tour).await;
    person_steps(&mut tour).await;
    removal_steps(&mut tour).await;
    user_steps(&mut tour).await;
    sandbox_control_steps(&mut tour, card_id).await;
    let document = tour.client.openapi().await.expect("GET /openapi.json");
    assert!(document["openapi"].as_str().is_some_and(|version| version.starts_with("3.1")), "{}", document["openapi"]);
    assert!(
        document["paths"].as_object().is_some_and(|paths| paths.contains_key("/card/{card_id}") || paths.len() > 10)
    );
    // The docs page is for a person's browser, like the hosted pages: open it with its stylesheets.
    let page = tour.browser.get(&format!("{}/docs/", tour.service.base_url())).await;
    assert!(page.body.contains("swagger-ui"), "the docs page is Swagger UI");

    let mut covered: BTreeSet<(String, String)> = tour.browser.visited.clone();
    for client in &tour.clients {
        covered.extend(client.metrics().routes.into_keys());
    }
    let covered: BTreeSet<(String, String)> =
        covered.into_iter().map(|(method, template)| (method, routes::normalize_template(&template))).collect();
    let served = tour.service.served_routes();
    let missing: Vec<String> = served
        .iter()
        .filter(|(method, template)| !covered.contains(&(method.clone(), routes::normalize_template(template))))
        .map(|(method, template)| format!("{method} {template}"))
        .collect();
    let unserved: Vec<String> =
        routes::ALL.iter().filter(|route| !tour.serves(route)).map(routes::Route::endpoint).collect();
    println!("client tests cover {} of {} routes the service serves", served.len() - missing.len(), served.len());
    assert!(unserved.is_empty(), "the client has methods for routes the service does not serve: {unserved:?}");
    assert!(
        missing.is_empty(),
        "routes the service serves without a client method called in this test: {missing:?}\n\
         add the method to crates/client (and its route to routes::ALL) and a step to this tour"
    );
}

async fn subscriber_steps(tour: &mut Tour, account: &subscriber_client::protocol::SignupResponse) {
    assert!(account.client_id.starts_with("cli_"), "{}", account.client_id);
    assert!(account.secret.starts_with("sk_test_"), "sandbox secrets say so");
    assert!(account.public_key.starts_with("pk_test_"));
    assert_eq!(account.email, "tour@example.com");
    assert_eq!(account.environment, Environment::Sandbox);

    let duplicate = tour.anonymous.signup("TOUR@example.com").await.expect_err("e-mail taken");
    let api = duplicate.api().expect("the service answered");
    assert_eq!((api.status.as_u16(), api.code.as_str()), (409, "conflict"));

    let session = tour.client.login().await.expect("POST /subscriber/login");
    assert_eq!(session.validity, Duration::from_secs(18_000));

    let profile = tour.client.subscriber().await.expect("GET /subscriber");
    assert_eq!(profile.client_id, account.client_id);
    assert_eq!(profile.public_key, account.public_key);
    assert_eq!(profile.email, account.email);
    assert_eq!(profile.environment, Environment::Sandbox);
    assert!(recent(profile.created_at, 120), "{}", profile.created_at);
    // Signed up by this client, which names the newest version: pinned to it.
    assert_eq!(profile.api_version, ApiVersion::LATEST);
    let pinned = tour.client.set_api_version(ApiVersion::INITIAL).await.expect("PATCH /subscriber");
    assert_eq!(pinned.api_version, ApiVersion::INITIAL, "the answer still in the client's version");
    tour.client.set_api_version(ApiVersion::LATEST).await.expect("PATCH /subscriber back");
    // The hosted pages' branding: the card page of `card_steps` then loads the accent's stylesheet.
    let branding = subscriber_protocol::UpdateSubscriberRequest {
        display_name: Some("Tour Co".to_owned()),
        brand_color: Some("#1f5fbf".to_owned()),
        return_urls: Some(vec!["https://tour.example.com/back".to_owned()]),
        ..Default::default()
    };
    let branded = tour.client.update_subscriber(&branding).await.expect("PATCH /subscriber branding");
    assert_eq!(branded.display_name.as_deref(), Some("Tour Co"));
    assert_eq!(branded.brand_color.as_deref(), Some("#1f5fbf"));
    assert_eq!(branded.return_urls, ["https://tour.example.com/back"]);
    assert_eq!(branded.api_version, ApiVersion::LATEST, "the pin stays");
    let unreadable =
        subscriber_protocol::UpdateSubscriberRequest { brand_color: Some("yellow".to_owned()), ..Default::default() };
    assert!(tour.client.update_subscriber(&unreadable).await.is_err(), "checked before sending");

    let usage = tour.client.usage().await.expect("GET /subscriber/usage");
    assert_eq!(usage.environment, Environment::Sandbox);
    assert!(!usage.billable, "the sandbox bills nothing");
    assert_eq!(usage.total, usage.usage.iter().map(|row| row.count).sum::<u64>());

    let rotated = tour.client.rotate_secret(&account.secret).await.expect("POST /subscriber/secret/rotate");
    assert_eq!(rotated.client_id, account.client_id);
    assert!(rotated.secret.starts_with("sk_test_") && rotated.secret != account.secret);
    assert!(recent(rotated.rotated_at, 120));
    // The old secret stops working; the client keeps the new one for its next login.
    let stale = Client::builder()
        .base_url(tour.service.base_url())
        .credentials(&account.email, account.secret.as_str())
        .build()
        .expect("client builds");
    let refused = stale.login().await.expect_err("the old secret is refused");
    assert_eq!(refused.code(), Some("invalid_credentials"));
    tour.clients.push(stale);
    tour.client.login().await.expect("the client logs in with the rotated secret");
}

async fn card_steps(tour: &mut Tour) -> CardId {
    let test_cards = tour.client.sandbox_cards().await.expect("GET /sandbox/cards");
    for pan in ["4242424242424242", "4000056655665556", "5555555555554444", "2223003122003222", "6011111111111117"] {
        let card = test_cards.iter().find(|card| card.pan == pan).unwrap_or_else(|| panic!("{pan} is a test card"));
        assert!(luhn_valid(&card.pan));
        assert_eq!(card.country_code.len(), 3);
        assert!(!card.brand.is_empty() && !card.description.is_empty());
    }
    assert_eq!(
        test_cards.iter().find(|card| card.pan == "4242424242424242").map(|card| card.brand.as_str()),
        Some("Visa")
    );

    let request = test_card("4242424242424242");
    let enrolled = tour.client.enroll_card(&request).await.expect("POST /card");
    assert_eq!(enrolled.message, "Card linked");
    assert!(enrolled.card_id > CardId(0));
    let card_id = enrolled.card_id;

    let again = tour.client.enroll_card(&request).await.expect_err("the same card twice");
    let api = again.api().expect("the service answered");
    assert_eq!((api.status.as_u16(), api.code.as_str()), (409, "conflict"));
    assert_eq!(api.card_id, Some(card_id), "the conflict names the existing card");

    // The spec's alias of POST /card.
    let linked = tour
        .client
        .request_json(
            Method::POST,
            "/card/link",
            Some(&json!({"PAN": 5555555555554444_u64, "firstName": "Grace", "lastName": "Hopper",
                "expMonth": 1, "expYear": request.exp_year % 100, "countryCode": "usa"})),
        )
        .await
        .expect("POST /card/link");
    assert_eq!(linked["message"], "Card linked");
    let linked_id = CardId(linked["cardId"].as_i64().expect("cardId is an integer"));
    assert_ne!(linked_id, card_id);

    let card = tour.client.card(card_id).await.expect("GET /card/{card_id}");
    assert_eq!(card.card_id, card_id);
    assert_eq!(card.last_four, 4242);
    assert_eq!((card.first_name.as_str(), card.last_name.as_str()), ("Ada", "Lovelace"));
    assert_eq!((card.exp_month, card.exp_year), (12, request.exp_year));
    assert!(recent(card.enrolled_at, 120), "{}", card.enrolled_at);
    assert_eq!(card.brand, "Visa");
    assert_eq!(card.country_code, "USA");

    let cards = tour.client.cards().await.expect("GET /card");
    assert_eq!(cards.len(), 2);
    let linked_card = cards.iter().find(|card| card.card_id == linked_id).expect("the linked card is listed");
    assert_eq!((linked_card.last_four, linked_card.exp_month, linked_card.exp_year), (4444, 1, request.exp_year));
    assert_eq!((linked_card.brand.as_str(), linked_card.country_code.as_str()), ("Mastercard", "USA"));
    assert_eq!(cards.iter().find(|listed| listed.card_id == card_id), Some(&card));

    let hidden = tour.other.card(card_id).await.expect_err("someone else's card");
    assert_eq!(hidden.api().map(|api| (api.status.as_u16(), api.code.as_str())), Some((404, "not_found")));
    assert!(tour.other.cards().await.expect("GET /card").is_empty());

    let page = tour.client.card_transactions(card_id).limit(20).await.expect("GET /card/{card_id}/transactions");
    assert!(page.transactions.len() <= 20);
    for pair in page.transactions.windows(2) {
        assert!(pair[0].created_at >= pair[1].created_at, "newest first");
    }
    for transaction in &page.transactions {
        assert_eq!(transaction.card_id, card_id);
        assert_eq!(transaction.currency.len(), 3);
        assert!((transaction.amount * 100.0 - (transaction.amount * 100.0).round()).abs() < 1e-6, "two decimals");
        assert!(!transaction.merchant_name.is_empty() && !transaction.descriptor.is_empty());
        assert!(transaction.category.get(..4).is_some_and(|code| code.bytes().all(|byte| byte.is_ascii_digit())));
        assert!(recent(transaction.created_at, 3 * 366 * 86_400 + 86_400), "at most 36 months old");
    }
    let hidden = tour.other.card_transactions(card_id).await.expect_err("someone else's card");
    assert_eq!(hidden.status().map(|status| status.as_u16()), Some(404));
    let streams = tour.client.card_recurring(card_id).await.expect("GET /card/{card_id}/recurring");
    assert!(!streams.is_empty(), "the sandbox history's bills");
    for stream in &streams {
        assert!(stream.stream_id.starts_with("rst_") && !stream.transaction_ids.is_empty());
        assert!(stream.predicted_next_date > stream.last_date && stream.last_date >= stream.first_date);
    }
    let hidden = tour.other.card_recurring(card_id).await.expect_err("someone else's card");
    assert_eq!(hidden.status().map(|status| status.as_u16()), Some(404));

    let session_request = CreateCardSessionRequest {
        return_url: Some("https://tour.example.com/back/cards".to_owned()),
        ..CreateCardSessionRequest::default()
    };
    let session = tour.client.create_card_session(&session_request).await.expect("POST /card/session");
    assert!(session.session_id > CardSessionId(0));
    assert_eq!(session.status, CardSessionStatus::Pending);
    let minutes = (session.expires_at - chrono::Utc::now()).num_minutes();
    assert!((13..=15).contains(&minutes), "a session lasts 15 minutes, not {minutes}");
    let status = tour.client.card_session(session.session_id).await.expect("GET /card/session/{session_id}");
    assert_eq!(status.session_id, session.session_id);
    assert_eq!(status.status, CardSessionStatus::Pending);
    assert_eq!(status.card_id, None);
    assert_eq!(status.expires_at, session.expires_at);
    let form = tour.open_page(&session.url).await;
    let done = tour
        .browser
        .submit(
            &form,
            &[
                ("pan", "6011 1111 1111 1117"),
                ("firstName", "Dorothy"),
                ("lastName", "Vaughan"),
                ("expMonth", "7"),
                ("expYear", &(chrono::Utc::now().year() + 2).to_string()),
                ("countryCode", "USA"),
            ],
        )
        .await;
    assert_eq!(done.status, 200, "{}", done.body);
    assert!(!done.body.contains("6011"), "the page never shows the number back");
    let back = format!("https://tour.example.com/back/cards?sessionId={}&amp;status=completed", session.session_id);
    assert!(done.body.contains(&back), "the page links back: {}", done.body);
    let completed = tour.client.card_session(session.session_id).await.expect("GET /card/session/{session_id}");
    assert_eq!(completed.status, CardSessionStatus::Completed);
    let entered = tour.client.card(completed.card_id.expect("the enrolled card")).await.expect("the card");
    assert_eq!((entered.last_four, entered.brand.as_str()), (1117, "Discover"));
    assert_eq!((entered.first_name.as_str(), entered.last_name.as_str(), entered.exp_month), ("Dorothy", "Vaughan", 7));
    let used = tour.browser.get(&session.url).await;
    assert_ne!(used.status, 200, "a link works once");
    let hidden = tour.other.card_session(session.session_id).await.expect_err("someone else's session");
    assert_eq!(hidden.status().map(|status| status.as_u16()), Some(404));
    card_id
}

/// The enrolled merchant, its locations (one without, one with coordinates).
struct EnrolledMerchant {
    merchant_id: MerchantId,
    derived_location: LocationId,
    located: (LocationId, f64, f64),
    descriptor: String,
}

async fn merchant_steps(tour: &mut Tour, card_id: CardId) -> EnrolledMerchant {
    let categories = tour.client.merchant_categories().await.expect("GET /merchant/categories");
    let restaurants = categories.iter().find(|category| category.code == "5812").expect("5812 is listed");
    assert!(restaurants.description.contains("Eating"), "{}", restaurants.description);
    assert!(categories.iter().all(|category| category.code.len() == 4 && !category.description.is_empty()));
    let request = EnrollMerchantRequest {
        name: "Blue Bottle Coffee".to_owned(),
        category: CategoryCode("5814".to_owned()),
        country_code: "USA".to_owned(),
        phone_number: Some("+14155550100".to_owned()),
        website: Some("https://bluebottle.example".to_owned()),
    };
    let enrolled = tour.client.enroll_merchant(&request).await.expect("POST /merchant");
    assert_eq!(enrolled.message, "Merchant enrolled");
    assert!(enrolled.merchant_id > MerchantId(0));
    let merchant_id = enrolled.merchant_id;

    let again = tour.client.enroll_merchant(&request).await.expect_err("one merchant per subscriber");
    let api = again.api().expect("the service answered");
    assert_eq!((api.status.as_u16(), api.code.as_str()), (409, "conflict"));
    if let Some(existing) = api.merchant_id {
        assert_eq!(existing, merchant_id);
    }

    // The spec's alias of POST /merchant, by the other subscriber.
    let aliased = tour
        .other
        .request_json(
            Method::POST,
            "/merchant/enroll/",
            Some(&json!({"name": "Tartine", "category": 5812, "countryCode": "USA"})),
        )
        .await
        .expect("POST /merchant/enroll");
    assert_eq!(aliased["message"], "Merchant enrolled");
    // The client names the newest version: the spec's misspelt copy, `mechantId`, is gone.
    assert!(aliased.get("mechantId").is_none(), "{aliased}");
    let other_merchant_id = MerchantId(aliased["merchantId"].as_i64().expect("an integer id"));
    assert_ne!(other_merchant_id, merchant_id);

    let merchant = tour.client.merchant().await.expect("GET /merchant");
    assert_eq!(merchant.merchant_id, merchant_id);
    assert_eq!(merchant.name, "Blue Bottle Coffee");
    assert_eq!(merchant.category_code, "5814");
    assert!(merchant.category.starts_with("5814 "), "{}", merchant.category);
    assert_eq!(merchant.country_code, "USA");
    assert_eq!(merchant.phone_number, request.phone_number);
    assert_eq!(merchant.website, request.website);
    assert!(recent(merchant.created_at, 120));
    assert!(merchant.locations.is_empty());

    let address = LocationInput {
        country_code: "USA".to_owned(),
        street: "Market St".to_owned(),
        street_no: "1355".to_owned(),
        city: "San Francisco".to_owned(),
        zip: "94103".to_owned(),
        latitude: None,
        longitude: None,
    };
    let derived = tour
        .client
        .create_location(&CreateLocationRequest::at(address.clone()))
        .await
        .expect("POST /merchant/location");
    assert_eq!(derived.message, "Location created");
    assert!(derived.location_id > LocationId(0));
    match derived.coordinates_source {
        CoordinatesSource::Derived => {
            let (latitude, longitude) = (derived.latitude.expect("derived"), derived.longitude.expect("derived"));
            assert!((latitude - 37.77).abs() < 1.0 && (longitude + 122.42).abs() < 1.0, "{latitude}, {longitude}");
        }
        CoordinatesSource::Unknown => assert_eq!((derived.latitude, derived.longitude), (None, None)),
        CoordinatesSource::Provided => panic!("no coordinates were sent"),
    }
    let with_coordinates = LocationInput {
        street: "Mint Plaza".to_owned(),
        street_no: "66".to_owned(),
        latitude: Some(37.7825),
        longitude: Some(-122.4076),
        ..address.clone()
    };
    let located = tour
        .client
        .create_location(&CreateLocationRequest::at(with_coordinates))
        .await
        .expect("POST /merchant/location");
    assert_eq!(located.coordinates_source, CoordinatesSource::Provided);
    assert_eq!((located.latitude, located.longitude), (Some(37.7825), Some(-122.4076)));

    let merchant = tour.client.merchant().await.expect("GET /merchant");
    assert_eq!(merchant.locations.len(), 2);
    let listed =
        merchant.locations.iter().find(|location| location.location_id == located.location_id).expect("listed");
    assert_eq!([&listed.street, &listed.street_no, &listed.city, &listed.zip, &listed.country_code], MINT_PLAZA);
    assert_eq!(
        (listed.latitude, listed.longitude, listed.coordinates_source),
        (Some(37.7825), Some(-122.4076), CoordinatesSource::Provided)
    );
    assert!(!listed.descriptor.is_empty());
    assert!(recent(listed.created_at, 120));

    let first = tour.client.merchant_transactions(merchant_id).await.expect("GET /merchant/{merchant_id}/transactions");
    assert!(first.transactions.is_empty(), "a new merchant has sold nothing: {:?}", first.transactions);
    let hidden = tour.other.merchant_transactions(merchant_id).await.expect_err("someone else's merchant");
    assert_eq!(hidden.status().map(|status| status.as_u16()), Some(404));

    let sale = tour
        .client
        .create_sandbox_transaction(&SandboxTransactionRequest {
            card_id: Some(card_id),
            location_id: Some(located.location_id),
            amount: Some(12.34),
            merchant_name: None,
            created_at: None,
            declined: None,
        })
        .await
        .expect("POST /sandbox/transactions");
    assert!(sale.transaction_id > TransactionId(0) && !sale.message.is_empty());
    let transaction = &sale.transaction;
    assert_eq!(transaction.transaction_id, sale.transaction_id);
    assert_eq!((transaction.card_id, transaction.amount, transaction.pending), (card_id, 12.34, true));
    assert_eq!((transaction.merchant_id, transaction.location_id), (Some(merchant_id), Some(located.location_id)));
    assert_eq!(transaction.merchant_name, "Blue Bottle Coffee");
    let sold_at =
        [&transaction.street, &transaction.street_no, &transaction.city, &transaction.zip, &transaction.country];
    assert_eq!(sold_at, MINT_PLAZA);
    assert!(transaction.category.starts_with("5814"));
    assert!(recent(transaction.created_at, 60));

    let newest = tour.client.card_transactions(card_id).limit(1).await.expect("card list");
    assert_eq!(newest.transactions.first(), Some(transaction), "both sides see it, newest first");
    let sold_at_location = async |location_id| {
        let list = tour.client.merchant_transactions(merchant_id).location_id(location_id).await;
        list.expect("merchant list").transactions
    };
    let sold = sold_at_location(located.location_id).await;
    assert_eq!(sold.len(), 1);
    let seen = &sold[0];
    assert_eq!(
        (seen.transaction_id, seen.amount, seen.location_id, seen.last_four),
        (sale.transaction_id, 12.34, located.location_id, 4242)
    );
    assert_eq!(
        (seen.currency.as_str(), seen.pending, seen.created_at),
        (transaction.currency.as_str(), true, transaction.created_at)
    );
    assert_eq!([&seen.street, &seen.street_no, &seen.city, &seen.zip, &seen.country], MINT_PLAZA);
    assert!(sold_at_location(derived.location_id).await.is_empty(), "nothing sold at the other location");

    let stranger = tour.other.settle_sandbox_transaction(sale.transaction_id).await.expect_err("not theirs");
    assert_eq!(stranger.status().map(|status| status.as_u16()), Some(404));
    let settled = tour
        .client
        .settle_sandbox_transaction(sale.transaction_id)
        .await
        .expect("POST /sandbox/transactions/{transaction_id}/settle");
    assert_eq!((settled.transaction_id, settled.transaction.pending), (sale.transaction_id, false));
    assert_eq!(settled.message, "Transaction settled");
    let again = tour.client.settle_sandbox_transaction(sale.transaction_id).await.expect("settled already");
    assert_eq!(again.transaction, settled.transaction, "a retry changes nothing");
    let seen = sold_at_location(located.location_id).await;
    assert!(seen.iter().all(|sold| !sold.pending), "the merchant's list shows it settled: {seen:?}");
    location_lifecycle_steps(tour, &address).await;
    EnrolledMerchant {
        merchant_id,
        derived_location: derived.location_id,
        located: (located.location_id, 37.7825, -122.4076),
        descriptor: listed.descriptor.clone(),
    }
}

/// A location read, changed and removed (a third one: the tour's others stay as they are).
async fn location_lifecycle_steps(tour: &mut Tour, address: &LocationInput) {
    let with_notes = CreateLocationRequest {
        location: address.clone(),
        metadata: Some(pairs(&[("store", "SF-2"), ("floor", "1")])),
    };
    let created = tour.client.create_location(&with_notes).await.expect("POST /merchant/location");
    let location_id = created.location_id;
    let read = tour.client.get_location(location_id).await.expect("GET /merchant/location/{location_id}");
    assert_eq!(
        (read.location_id, read.street.as_str(), read.city.as_str()),
        (location_id, "Market St", "San Francisco")
    );
    let hidden = tour.other.get_location(location_id).await.expect_err("someone else's location");
    assert_eq!(hidden.status().map(|status| status.as_u16()), Some(404));

    let changes = LocationChanges {
        street: Some("Valencia St".to_owned()),
        latitude: Some(37.76),
        longitude: Some(-122.42),
        ..LocationChanges::default()
    };
    let request = UpdateLocationRequest { location: changes, metadata: Some(pairs(&[("floor", "")])) };
    let changed =
        tour.client.update_location(location_id, &request).await.expect("PATCH /merchant/location/{location_id}");
    assert_eq!(changed.metadata, pairs(&[("store", "SF-2")]), "keys merge, an empty value removes its key");
    assert_eq!((changed.street.as_str(), changed.street_no.as_str()), ("Valencia St", "1355"));
    assert_eq!(
        (changed.latitude, changed.longitude, changed.coordinates_source),
        (Some(37.76), Some(-122.42), CoordinatesSource::Provided)
    );
    assert_eq!(changed.created_at, read.created_at);

    let removed = tour.client.remove_location(location_id).await.expect("DELETE /merchant/location/{location_id}");
    assert_eq!((removed.message.as_str(), removed.location_id), ("Location removed", location_id));
    let gone = tour.client.get_location(location_id).await.expect_err("removed");
    assert_eq!(gone.status().map(|status| status.as_u16()), Some(404));
    let again = tour.client.remove_location(location_id).await.expect_err("removed already");
    assert_eq!(again.status().map(|status| status.as_u16()), Some(404));
}

async fn discovery_steps(tour: &mut Tour, merchant: &EnrolledMerchant) {
    let check = |result: &subscriber_client::protocol::DiscoverResult| {
        assert_eq!(result.message, format!("{} merchant(s) found", result.merchants.len()));
        assert!(result.merchants.len() <= 10, "at most 10 by default");
        for found in &result.merchants {
            assert!((0.0..=100.0).contains(&found.conf_score), "{}", found.conf_score);
            assert_eq!(found.country_code.len(), 3);
            assert!(found.category.get(..4).is_some_and(|code| code.bytes().all(|byte| byte.is_ascii_digit())));
            assert!(!found.descriptor.is_empty() && !found.dba_name.is_empty() && !found.country_name.is_empty());
        }
        for pair in result.merchants.windows(2) {
            assert!(pair[0].conf_score >= pair[1].conf_score, "best match first");
        }
    };
    let nothing = tour
        .client
        .discover(&DiscoverQuery {
            merchid: Some("QXZJ NOTHING MATCHES 0042".to_owned()),
            match_type: Some(MatchType::Exact),
            ..DiscoverQuery::default()
        })
        .await
        .expect("GET /merchant/discover");
    assert!(nothing.merchants.is_empty(), "{:?}", nothing.merchants);
    check(&nothing);

    let by_descriptor = tour.client.discover_by_descriptor(&merchant.descriptor).await.expect("by descriptor");
    check(&by_descriptor);
    let best = by_descriptor.merchants.first().expect("an enrolled location's descriptor resolves");
    assert!([merchant.located.0, merchant.derived_location].contains(&best.location_id), "{best:?}");
    assert_eq!(best.dba_name, "Blue Bottle Coffee");

    let by_address = tour
        .client
        .discover_by_address(&AddressQuery {
            street: Some("Mint Plaza".to_owned()),
            street_no: Some("66".to_owned()),
            city: Some("San Francisco".to_owned()),
            zip: Some("94103".to_owned()),
            country_code: Some("USA".to_owned()),
        })
        .await
        .expect("by address");
    check(&by_address);
    assert!(by_address.merchants.iter().any(|found| found.location_id == merchant.located.0), "{by_address:?}");

    let (location_id, latitude, longitude) = merchant.located;
    let by_position = tour.client.discover_by_position(latitude, longitude, Some(50.0)).await.expect("by position");
    check(&by_position);
    assert!(by_position.merchants.iter().any(|found| found.location_id == location_id), "{by_position:?}");

    // The descriptor as a statement prints it, enriched: the same brand discovery named, its logo.
    use subscriber_client::protocol::{EnrichInput, EnrichRequest};
    let request = EnrichRequest {
        transactions: vec![EnrichInput {
            id: "t1".to_owned(),
            descriptor: format!("SQ *{}", merchant.descriptor),
            ..EnrichInput::default()
        }],
    };
    let enriched = tour.client.enrich_transactions(&request).await.expect("POST /transactions/enrich");
    assert_eq!(enriched.len(), 1);
    assert_eq!(enriched[0].id, "t1");
    let counterparty = enriched[0].enrichment.counterparty.as_ref().expect("a counterparty");
    assert_eq!(counterparty.brand_id, best.brand_id, "one brand for discovery and enrichment");
    let categories = tour.client.transaction_categories().await.expect("GET /transactions/categories");
    assert!(!categories.primary.is_empty() && !categories.detailed.is_empty());
    let logo = tour.client.brand_logo(&counterparty.brand_id).await.expect("GET /brands/{brandId}/logo.svg");
    assert!(logo.svg.starts_with("<svg") && logo.etag.is_some(), "{logo:?}");
}

async fn stream_steps(tour: &mut Tour, card_id: CardId, merchant: &EnrolledMerchant) {
    let stream = tour.client.card_transaction_stream(card_id);
    let card_sale = SandboxTransactionRequest { card_id: Some(card_id), amount: Some(3.5), ..Default::default() };
    let (sale, received) = sale_seen_by(tour, stream, card_sale).await;
    assert_eq!(received, sale.transaction);

    let stream = tour.client.merchant_transaction_stream(merchant.merchant_id);
    let location_sale = SandboxTransactionRequest {
        card_id: Some(card_id),
        location_id: Some(merchant.located.0),
        amount: Some(7.25),
        merchant_name: None,
        created_at: None,
        declined: None,
    };
    let (sale, received) = sale_seen_by(tour, stream, location_sale).await;
    assert_eq!((received.transaction_id, received.amount, received.last_four), (sale.transaction_id, 7.25, 4242));
    assert_eq!(received.location_id, merchant.located.0);
}

async fn event_steps(tour: &mut Tour, card_id: CardId) {
    let sync = async |cursor: Option<&str>| {
        let changes = tour.client.sync_card_transactions(card_id, cursor, Some(500)).await;
        changes.expect("GET /card/{card_id}/transactions/sync")
    };
    let ids = |transactions: &[subscriber_client::protocol::CardTransaction]| {
        let mut ids: Vec<TransactionId> = transactions.iter().map(|transaction| transaction.transaction_id).collect();
        ids.sort_unstable();
        ids
    };
    // From no cursor: the whole history, in pages, all of it added.
    let (mut synced, mut cursor) = (Vec::new(), None);
    loop {
        let changes = sync(cursor.as_deref()).await;
        assert!(changes.modified.is_empty() && changes.removed.is_empty(), "from no cursor everything is added");
        synced.extend(changes.added);
        cursor = Some(changes.next_cursor);
        if !changes.has_more {
            break;
        }
    }
    let listed = tour.client.card_transactions(card_id).collect_all().await.expect("the card's list");
    assert_eq!(ids(&synced), ids(&listed), "the first sync equals the full list");
    let cursor = cursor.expect("a cursor");
    let unchanged = sync(Some(&cursor)).await;
    assert!(unchanged.added.is_empty() && unchanged.modified.is_empty() && !unchanged.has_more, "{unchanged:?}");
    assert_eq!(unchanged.next_cursor, cursor, "nothing new: the same cursor");

    let sale =
        |amount| SandboxTransactionRequest { card_id: Some(card_id), amount: Some(amount), ..Default::default() };
    let earlier = tour.client.create_sandbox_transaction(&sale(1.25)).await.expect("a sale");
    let changes = sync(Some(&cursor)).await;
    assert_eq!(ids(&changes.added), [earlier.transaction_id]);
    let cursor = changes.next_cursor;
    let later = tour.client.create_sandbox_transaction(&sale(2.5)).await.expect("a sale");
    tour.client.settle_sandbox_transaction(earlier.transaction_id).await.expect("settled");
    let changes = sync(Some(&cursor)).await;
    assert_eq!(ids(&changes.added), [later.transaction_id], "{changes:?}");
    assert_eq!(ids(&changes.modified), [earlier.transaction_id], "{changes:?}");
    assert!(!changes.modified[0].pending, "modified as it is now: settled");

    // The event log: newest first, the same events the streams and webhooks carry.
    let page = tour.client.events().limit(200).await.expect("GET /events");
    let types: BTreeSet<&str> = page.events.iter().map(|event| event.event_type().as_str()).collect();
    for wanted in ["card.enrolled", "merchant.location.created", "transaction.created", "transaction.updated"] {
        assert!(types.contains(wanted), "{wanted} in {types:?}");
    }
    let numbers: Vec<i64> =
        page.events.iter().map(|event| event.id.trim_start_matches("evt_").parse().expect("evt_ and digits")).collect();
    assert!(numbers.windows(2).all(|pair| pair[0] > pair[1]), "newest first: {numbers:?}");
    let newest = &page.events[0];
    let EventData::TransactionUpdated(TransactionEventData::Card(updated)) = &newest.payload else {
        panic!("the newest event is the settlement, seen from the card: {newest:?}");
    };
    assert_eq!((updated.transaction_id, updated.card_id), (earlier.transaction_id, card_id));
    assert!(!updated.transaction.pending);
    assert_eq!(&tour.client.event(&newest.id).await.expect("GET /events/{event_id}"), newest);
    let stranger = tour.other.event(&newest.id).await.expect_err("not theirs");
    assert_eq!(stranger.status().map(|status| status.as_u16()), Some(404));
    let log = tour.other.recent_requests().await.expect("GET /subscriber/requests");
    let refused = log.first().expect("the request before this one is listed first");
    assert_eq!((refused.method.as_str(), refused.status), ("GET", 404), "{refused:?}");
    assert_eq!(
        (refused.path.as_str(), refused.code.as_deref()),
        (format!("/events/{}", newest.id).as_str(), Some("not_found"))
    );
    assert!(refused.request_id.starts_with("req_") && refused.latency_ms >= 0.0 && recent(refused.at, 60));
    let detail = tour.other.request(&refused.request_id).await.expect("GET /subscriber/requests/{request_id}");
    assert_eq!(&*detail.request, refused);
    assert!(detail.response_body.as_deref().is_some_and(|body| body.contains("not_found")), "{detail:?}");
    let failures = tour.other.requests().status("4xx").route("/events/{event_id}").await.expect("filtered");
    assert_eq!(failures.requests.first(), Some(refused));
    let exported = tour.other.requests().request_id(refused.request_id.clone()).export().await.expect("NDJSON");
    assert_eq!(exported, [detail]);
    let enrolled = tour.client.events().event_type(EventType::CardEnrolled).await.expect("by type");
    assert!(enrolled.events.iter().all(|event| event.event_type() == EventType::CardEnrolled));
    assert!(
        enrolled
            .events
            .iter()
            .any(|event| matches!(&event.payload, EventData::CardEnrolled(card) if card.card_id == card_id)),
        "{enrolled:?}"
    );

    // Scenarios: a tip at settlement (sync's `modified`), refunds naming their purchase and a
    // backdated purchase, settled already (`added`).
    let cursor = sync(Some(&cursor)).await.next_cursor;
    let tipped = tour.client.settle_sandbox_transaction_at(later.transaction_id, 3.1).await.expect("a tip");
    assert_eq!((tipped.transaction.amount, tipped.transaction.pending), (3.1, false));
    let again = tour.client.settle_sandbox_transaction_at(later.transaction_id, 4.0).await.expect_err("settled");
    assert_eq!(again.status().map(|status| status.as_u16()), Some(409), "{again:?}");
    let part = tour.client.refund_sandbox_transaction(earlier.transaction_id, Some(0.25)).await.expect("a refund");
    let rest = tour.client.refund_sandbox_transaction(earlier.transaction_id, None).await.expect("the rest");
    for (refund, amount) in [(&part, -0.25), (&rest, -1.0)] {
        assert_eq!(refund.message, "Refund created");
        assert_eq!((refund.transaction.amount, refund.transaction.card_id), (amount, card_id));
        assert_eq!(refund.transaction.enrichment.refund_of, Some(earlier.transaction_id), "{refund:?}");
    }
    let in_full = tour.client.refund_sandbox_transaction(earlier.transaction_id, None).await.expect_err("in full");
    assert_eq!(in_full.status().map(|status| status.as_u16()), Some(409), "{in_full:?}");
    let when = chrono::Utc::now() - chrono::Duration::days(40);
    let backdated = SandboxTransactionRequest { created_at: Some(when.to_rfc3339()), ..sale(7.0) };
    let backdated = tour.client.create_sandbox_transaction(&backdated).await.expect("a backdated sale");
    assert!(!backdated.transaction.pending, "older than the settlement delay: settled");
    assert_eq!(backdated.transaction.created_at.timestamp(), when.timestamp());
    let declined = SandboxTransactionRequest { declined: Some(true), ..sale(99.0) };
    let declined = tour.client.create_sandbox_transaction(&declined).await.expect("a declined sale");
    assert_eq!((declined.message.as_str(), declined.declined), ("Transaction declined", Some(true)));
    let changes = sync(Some(&cursor)).await;
    assert_eq!(ids(&changes.modified), [later.transaction_id], "{changes:?}");
    assert_eq!(changes.modified[0].amount, 3.1, "modified as it is now: with the tip");
    let mut made = vec![part.transaction_id, rest.transaction_id, backdated.transaction_id];
    made.sort_unstable();
    assert_eq!(ids(&changes.added), made, "{changes:?}");
    let listed = tour.client.card_transactions(card_id).collect_all().await.expect("the card's list");
    let refunds: Vec<_> =
        listed.iter().filter(|row| row.enrichment.refund_of == Some(earlier.transaction_id)).collect();
    assert_eq!(refunds.len(), 2, "the list names the refunded purchase too");

    // A reversed authorization leaves the list; sync reports it in `removed`.
    let cursor = changes.next_cursor;
    let voided = tour.client.create_sandbox_transaction(&sale(8.0)).await.expect("a sale");
    let reversed = tour.client.reverse_sandbox_transaction(voided.transaction_id).await.expect("reversed");
    assert_eq!((reversed.message.as_str(), reversed.transaction_id), ("Transaction reversed", voided.transaction_id));
    let changes = sync(Some(&cursor)).await;
    assert_eq!(changes.removed, [voided.transaction_id], "{changes:?}");
    assert!(!ids(&changes.added).contains(&voided.transaction_id), "{changes:?}");
    let after = sync(Some(&changes.next_cursor)).await;
    assert!(after.removed.is_empty() && after.added.is_empty(), "reported once: {after:?}");
    let gone = tour.client.reverse_sandbox_transaction(voided.transaction_id).await.expect_err("gone");
    assert_eq!(gone.status().map(|status| status.as_u16()), Some(404), "{gone:?}");

    // Any catalogue event on request, marked as the sandbox's; a transaction event shows the
    // caller's transaction.
    for event_type in EventType::ALL {
        let sent = tour.client.send_sandbox_event(*event_type, None).await.expect("POST /sandbox/events");
        assert_eq!((sent.event_type(), sent.sandbox), (*event_type, Some(true)));
    }
    let sent = tour
        .client
        .send_sandbox_event(EventType::TransactionUpdated, Some(ObjectId(later.transaction_id.get())))
        .await
        .expect("about a transaction");
    let EventData::TransactionUpdated(TransactionEventData::Card(data)) = &sent.payload else {
        panic!("seen from the card: {sent:?}");
    };
    assert_eq!((data.transaction_id, data.transaction.amount), (later.transaction_id, 3.1));
    assert_eq!(&tour.client.event(&sent.id).await.expect("in the log"), &sent);
}

async fn sandbox_control_steps(tour: &mut Tour, card_id: CardId) {
    let sale = SandboxTransactionRequest { card_id: Some(card_id), amount: Some(6.0), ..Default::default() };
    let sale = tour.client.create_sandbox_transaction(&sale).await.expect("a sale");
    assert!(sale.transaction.pending);
    let advanced = tour.client.advance_sandbox_clock(3600).await.expect("POST /sandbox/clock/advance");
    assert_eq!(advanced.seconds, 3600);
    assert!(advanced.settled >= 1, "{advanced:?}");
    let newest = tour.client.card_transactions(card_id).limit(1).await.expect("the list");
    assert_eq!(newest.transactions[0].transaction_id, sale.transaction_id);
    assert!(!newest.transactions[0].pending, "settled by the clock");
    let untouched = tour.other.advance_sandbox_clock(60).await.expect("another subscriber's clock");
    assert_eq!(untouched.settled, 0, "nothing of theirs was pending");

    let snapshot = tour.client.take_sandbox_snapshot("before the reset").await.expect("POST /sandbox/snapshots");
    assert!(snapshot.cards >= 1, "{snapshot:?}");
    assert_eq!(tour.client.sandbox_snapshots().await.expect("GET /sandbox/snapshots"), std::slice::from_ref(&snapshot));
    assert!(tour.other.sandbox_snapshots().await.expect("theirs").is_empty());
    let cards = tour.client.cards().await.expect("cards");

    let reset = tour.client.reset_sandbox().await.expect("POST /sandbox/reset");
    assert!(!reset.message.is_empty());
    assert!(tour.client.cards().await.expect("cards").is_empty(), "the cards are gone");
    let gone = tour.client.card(card_id).await.expect_err("the card is gone");
    assert_eq!(gone.status().map(|status| status.as_u16()), Some(404));
    assert!(tour.client.webhooks().await.expect("webhooks").is_empty());
    let events = tour.client.events().await.expect("events");
    assert!(events.events.is_empty(), "{events:?}");
    assert!(tour.client.persons().await.expect("persons").is_empty());
    assert_eq!(tour.client.subscriber().await.expect("the account stays").email, "tour@example.com");

    let restored = tour.client.restore_sandbox_snapshot(snapshot.snapshot_id).await.expect("restore");
    assert_eq!(restored.snapshot, snapshot);
    assert_eq!(tour.client.cards().await.expect("cards back"), cards, "as they were");
    let deleted = tour.client.delete_sandbox_snapshot(snapshot.snapshot_id).await.expect("DELETE");
    assert_eq!(deleted.snapshot_id, snapshot.snapshot_id);
    let gone = tour.client.restore_sandbox_snapshot(snapshot.snapshot_id).await.expect_err("deleted");
    assert_eq!(gone.status().map(|status| status.as_u16()), Some(404));
    assert!(tour.client.take_sandbox_snapshot(" ").await.is_err(), "a blank name is refused before sending");
    tour.client.reset_sandbox().await.expect("reset again");
}

async fn webhook_steps(tour: &mut Tour, card_id: CardId) {
    use subscriber_client::protocol::{CreateWebhookRequest, UpdateWebhookRequest};
    use subscriber_client::webhooks;
    use subscriber_testkit::{Delivery, WebhookReceiver};

    let receiver = WebhookReceiver::start();
    let wait = Duration::from_secs(15);
    let verified = |delivery: &Delivery, secrets: &[&str]| {
        let header = delivery.header(webhooks::HEADER);
        webhooks::verify(secrets, header, &delivery.body, webhooks::DEFAULT_TOLERANCE)
            .unwrap_or_else(|error| panic!("{error}: {header}"));
        let headers = webhooks::StandardHeaders {
            id: delivery.header(webhooks::STANDARD_ID_HEADER),
            timestamp: delivery.header(webhooks::STANDARD_TIMESTAMP_HEADER),
            signature: delivery.header(webhooks::STANDARD_SIGNATURE_HEADER),
        };
        webhooks::verify_standard(secrets, headers, &delivery.body, webhooks::DEFAULT_TOLERANCE)
            .unwrap_or_else(|error| panic!("{error}: {}", headers.signature));
        let mut tampered = delivery.body.to_vec();
        tampered.push(b' ');
        assert!(webhooks::verify_standard(secrets, headers, &tampered, webhooks::DEFAULT_TOLERANCE).is_err());
        delivery.json()
    };
    let created = tour
        .client
        .create_webhook(&CreateWebhookRequest {
            url: receiver.url(),
            events: vec!["*".to_owned()],
            description: Some("local receiver".to_owned()),
        })
        .await
        .expect("POST /webhooks");
    let secret = created.secret.clone().expect("the secret, shown once");
    assert!(secret.starts_with("whsec_") && secret.len() > 30, "{secret}");
    assert_eq!((created.status, created.events.as_slice()), (WebhookStatus::Enabled, ["*".to_owned()].as_slice()));
    assert_eq!(created.api_version, ApiVersion::LATEST, "the client speaks the newest version");
    let webhook_id = created.webhook_id;
    let listed = tour.client.webhooks().await.expect("GET /webhooks");
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].secret, None, "never shown again");
    let read = tour.client.webhook(webhook_id).await.expect("GET /webhooks/{webhook_id}");
    assert_eq!((read.url.as_str(), read.description.as_deref()), (receiver.url().as_str(), Some("local receiver")));
    let stranger = tour.other.webhook(webhook_id).await.expect_err("not theirs");
    assert_eq!(stranger.status().map(|status| status.as_u16()), Some(404));

    let queued = tour.client.test_webhook(webhook_id).await.expect("POST /webhooks/{webhook_id}/test");
    let delivery = receiver.next_async(wait).await.expect("the test event arrives");
    let body = verified(&delivery, &[&secret]);
    assert_eq!((body["id"].as_str(), body["type"].as_str()), (Some(queued.event_id.as_str()), Some("webhook.test")));
    assert_eq!(delivery.header(webhooks::EVENT_ID_HEADER), queued.event_id);
    assert_eq!(delivery.header(webhooks::EVENT_TYPE_HEADER), "webhook.test");
    assert_eq!(delivery.header("content-type"), "application/json");
    let typed = subscriber_client::events::parse_delivery(&delivery.body).expect("a typed event");
    assert!(matches!(&typed.payload, EventData::WebhookTest(test) if test.webhook_id == webhook_id), "{typed:?}");

    let sale = SandboxTransactionRequest { card_id: Some(card_id), amount: Some(4.75), ..Default::default() };
    let sale = tour.client.create_sandbox_transaction(&sale).await.expect("a sale");
    let delivery = receiver.next_async(wait).await.expect("the sale arrives");
    let body = verified(&delivery, &[&secret]);
    assert_eq!(body["type"], "transaction.created");
    assert_eq!(body["data"]["transactionId"], sale.transaction_id.get());
    assert_eq!(body["data"]["transaction"]["amount"], 4.75);

    let resent = tour
        .client
        .resend_webhook_delivery(webhook_id, &queued.event_id)
        .await
        .expect("POST /webhooks/{webhook_id}/deliveries/{event_id}/resend");
    assert_eq!(resent.event_id, queued.event_id);
    let again = receiver.next_async(wait).await.expect("the resent event arrives");
    assert_eq!(verified(&again, &[&secret])["id"].as_str(), Some(queued.event_id.as_str()));
    // The attempt is logged once the receiver has answered.
    let mut attempts = tour.client.webhook_deliveries(webhook_id).await.expect("GET /webhooks/{webhook_id}/deliveries");
    for _ in 0..100 {
        if attempts.deliveries.len() >= 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        attempts = tour.client.webhook_deliveries(webhook_id).await.expect("the delivery log");
    }
    assert_eq!(attempts.deliveries.len(), 3, "{attempts:?}");
    assert!(attempts.deliveries.iter().all(|attempt| attempt.status == DeliveryStatus::Delivered
        && attempt.response_status == Some(200)
        && attempt.error.is_none()));
    assert_eq!(attempts.deliveries[0].event_id, queued.event_id, "newest first: the resend");
    let queue = tour.client.webhook(webhook_id).await.expect("the endpoint").queue.expect("its queue");
    assert_eq!((queue.queue_length, queue.last_error), (0, None));
    let recovered = tour
        .client
        .recover_webhook_deliveries(webhook_id, chrono::Utc::now() - chrono::Duration::hours(1))
        .await
        .expect("POST /webhooks/{webhook_id}/recover");
    assert_eq!(recovered.queued, 0, "nothing failed");

    let rotated =
        tour.client.rotate_webhook_secret(webhook_id).await.expect("POST /webhooks/{webhook_id}/secret/rotate");
    let new_secret = rotated.secret.clone().expect("the new secret");
    assert_ne!(new_secret, secret);
    assert!(rotated.previous_secret_expires_at.is_some_and(|until| recent(until - chrono::Duration::hours(24), 60)));
    tour.client.test_webhook(webhook_id).await.expect("a test");
    let delivery = receiver.next_async(wait).await.expect("signed with both");
    assert_eq!(delivery.header(webhooks::HEADER).matches("v1=").count(), 2, "both secrets sign for the overlap");
    verified(&delivery, &[&secret]);
    verified(&delivery, &[&new_secret]);

    let disable = UpdateWebhookRequest { enabled: Some(false), ..Default::default() };
    let disabled = tour.client.update_webhook(webhook_id, &disable).await.expect("PATCH /webhooks/{webhook_id}");
    assert_eq!(disabled.status, WebhookStatus::Disabled);
    let refused = tour.client.test_webhook(webhook_id).await.expect_err("disabled");
    assert_eq!(refused.status().map(|status| status.as_u16()), Some(409));
    let change = UpdateWebhookRequest {
        enabled: Some(true),
        events: Some(vec!["transaction.updated".to_owned()]),
        ..Default::default()
    };
    let changed = tour.client.update_webhook(webhook_id, &change).await.expect("enabled again");
    assert_eq!(
        (changed.status, changed.events.as_slice()),
        (WebhookStatus::Enabled, ["transaction.updated".to_owned()].as_slice())
    );

    let deleted = tour.client.delete_webhook(webhook_id).await.expect("DELETE /webhooks/{webhook_id}");
    assert_eq!(deleted.webhook_id, webhook_id);
    let gone = tour.client.webhook(webhook_id).await.expect_err("deleted");
    assert_eq!(gone.status().map(|status| status.as_u16()), Some(404));
}

/// Opens `stream`, makes the sandbox sale `request`, and returns the sale and the stream's
/// first event.
async fn sale_seen_by<T: Send + 'static>(
    tour: &Tour,
    mut stream: TransactionStream<T>,
    request: SandboxTransactionRequest,
) -> (SandboxTransactionResponse, T) {
    // The request goes out when the stream is first polled.
    let next = tokio::spawn(async move { (stream.next().await, stream) });
    tokio::time::sleep(Duration::from_millis(500)).await;
    let sale = tour.client.create_sandbox_transaction(&request).await.expect("a sale");
    let (received, _stream) =
        tokio::time::timeout(Duration::from_secs(10), next).await.expect("an event in time").expect("task");
    (sale, received.expect("the stream goes on").expect("a transaction"))
}

async fn account_steps(tour: &mut Tour) {
    let banks = tour.client.banks().await.expect("GET /banks");
    assert!(!banks.is_empty());
    assert!(banks.iter().all(|bank| !bank.id.is_empty() && !bank.name.is_empty()));
    let bank = &banks[0];
    let enrolled =
        tour.client.enroll_account(&EnrollAccountRequest::at(&bank.name.to_uppercase())).await.expect("POST /account");
    assert!(enrolled.account_id > AccountId(0));
    assert_eq!(enrolled.status, AccountStatus::Pending);
    assert!(enrolled.expires_at > chrono::Utc::now());
    let unknown =
        tour.client.enroll_account(&EnrollAccountRequest::at("No Such Bank Anywhere")).await.expect_err("unknown bank");
    assert_eq!(unknown.api().map(|api| (api.status.as_u16(), api.code.as_str())), Some((400, "invalid_request")));

    let account = tour.client.account(enrolled.account_id).await.expect("GET /account/{account_id}");
    assert_eq!(account.account_id, enrolled.account_id);
    assert_eq!(account.bank, *bank);
    assert_eq!(account.status, AccountStatus::Pending);
    assert_eq!(account.linked_at, None);
    assert!(recent(account.created_at, 120));
    assert_eq!(account.expires_at, enrolled.expires_at);
    let accounts = tour.client.accounts().await.expect("GET /account");
    assert_eq!(accounts, vec![account.clone()]);
    let hidden = tour.other.account(enrolled.account_id).await.expect_err("someone else's account");
    assert_eq!(hidden.status().map(|status| status.as_u16()), Some(404));

    // Transactions need the person's consent at the bank: a pending account has none to give.
    match tour.client.account_transactions(enrolled.account_id).await {
        Ok(page) => assert!(page.transactions.is_empty(), "nothing is granted yet"),
        Err(error) => {
            let status = error.status().map(|status| status.as_u16());
            assert!(matches!(status, Some(403 | 409)), "{error}");
        }
    }

    // The person signs in at the sandbox bank and grants every permission offered.
    let login = tour.open_page(&enrolled.url).await;
    let consent = tour.browser.submit(&login, &[("username", "user_good"), ("password", "pass_good")]).await;
    assert_eq!(consent.status, 200, "{}", consent.body);
    let outcome = tour.browser.submit(&consent, &[("decision", "allow")]).await;
    assert_eq!(outcome.status, 200, "{}", outcome.body);
    let linked = tour.client.account(enrolled.account_id).await.expect("GET /account/{account_id}");
    assert_eq!(linked.status, AccountStatus::Linked);
    assert!(linked.linked_at.is_some_and(|at| recent(at, 120)));
    assert!(linked.permissions.contains(&AccountPermission::Transactions), "{:?}", linked.permissions);
    let page = tour.client.account_transactions(enrolled.account_id).limit(5).await.expect("granted now");
    let streams =
        tour.client.account_recurring(enrolled.account_id).await.expect("GET /account/{account_id}/recurring");
    assert!(
        streams.iter().any(|stream| stream.direction == subscriber_protocol::Direction::Inflow),
        "the account's pay: {streams:?}"
    );
    assert!(page.transactions.len() <= 5);
    for transaction in &page.transactions {
        assert!(
            transaction.transaction_id > TransactionId(0)
                && transaction.currency.len() == 3
                && !transaction.description.is_empty()
        );
        assert!((transaction.amount * 100.0 - (transaction.amount * 100.0).round()).abs() < 1e-6);
    }
    if linked.permissions.contains(&AccountPermission::Balances) {
        let balance = linked.balance.expect("a balance with the balances permission");
        assert_eq!(balance.currency.len(), 3);
    }
    assert!(linked.consent_expires_at.is_some_and(|at| at > linked.created_at), "{:?}", linked.consent_expires_at);

    // Fetching what is new, then renewing the consent on the bank's pages: the same account.
    let refreshed = tour.client.refresh_account(enrolled.account_id).await.expect("POST /account/{account_id}/refresh");
    assert!(refreshed.refreshed_at.is_some_and(|at| recent(at, 120)), "{refreshed:?}");
    let renewal =
        tour.client.reauth_account(enrolled.account_id, None).await.expect("POST /account/{account_id}/reauth");
    assert_eq!(renewal.account_id, enrolled.account_id);
    let login = tour.open_page(&renewal.url).await;
    let consent = tour.browser.submit(&login, &[("username", "user_good"), ("password", "pass_good")]).await;
    let outcome = tour.browser.submit(&consent, &[("decision", "allow")]).await;
    assert!(outcome.body.contains("Access renewed"), "{}", outcome.body);
    let renewed = tour.client.account(enrolled.account_id).await.expect("GET /account/{account_id}");
    assert_eq!((renewed.status, renewed.linked_at), (AccountStatus::Linked, linked.linked_at));
    let pending = tour.client.enroll_account(&EnrollAccountRequest::at(&bank.id)).await.expect("another link");
    let refused = tour.client.reauth_account(pending.account_id, None).await.expect_err("not linked yet");
    assert_eq!(refused.status().map(|status| status.as_u16()), Some(409));
}

/// Removing a card, a bank account and a person: each answers with its id, then is 404 to
/// every read and to a second removal; another subscriber cannot remove it.
async fn removal_steps(tour: &mut Tour) {
    let not_found = |error: subscriber_client::Error| error.api().map(|api| (api.status.as_u16(), api.code.clone()));
    let gone = Some((404, "not_found".to_owned()));

    let card_id = tour.client.enroll_card(&test_card("5200828282828210")).await.expect("POST /card").card_id;
    assert_eq!(not_found(tour.other.remove_card(card_id).await.expect_err("not theirs")), gone);
    let removed = tour.client.remove_card(card_id).await.expect("DELETE /card/{card_id}");
    assert_eq!((removed.message.as_str(), removed.card_id), ("Card removed", card_id));
    assert_eq!(not_found(tour.client.card(card_id).await.expect_err("removed")), gone);
    assert_eq!(not_found(tour.client.remove_card(card_id).await.expect_err("removed already")), gone);
    let again = tour.client.enroll_card(&test_card("5200828282828210")).await.expect("the same number again");
    assert!(again.card_id > card_id, "a new id");

    let bank = tour.client.banks().await.expect("GET /banks").remove(0);
    let account_id =
        tour.client.enroll_account(&EnrollAccountRequest::at(&bank.id)).await.expect("POST /account").account_id;
    let removed = tour.client.remove_account(account_id).await.expect("DELETE /account/{account_id}");
    assert_eq!((removed.message.as_str(), removed.account_id), ("Account removed", account_id));
    assert_eq!(not_found(tour.client.account(account_id).await.expect_err("removed")), gone);

    let person_id = tour
        .client
        .onboard_person(&OnboardPersonRequest {
            first_name: "Mary".to_owned(),
            last_name: "Jackson".to_owned(),
            email: "mary@example.com".to_owned(),
            client_user_id: None,
            metadata: None,
        })
        .await
        .expect("POST /persons")
        .person_id;
    let removed = tour.client.remove_person(person_id).await.expect("DELETE /persons/{person_id}");
    assert_eq!((removed.message.as_str(), removed.person_id), ("Person removed", person_id));
    assert_eq!(not_found(tour.client.person(person_id).await.expect_err("removed")), gone);
}

/// A user's card, bank account and person (`clientUserId`), with notes set and changed on
/// each; read together, then erased in one call.
async fn user_steps(tour: &mut Tour) {
    let user = "user/42 ?";
    let card = EnrollCardRequest {
        client_user_id: Some(user.to_owned()),
        metadata: Some(pairs(&[("plan", "gold")])),
        ..test_card("4000056655665556")
    };
    let card_id = tour.client.enroll_card(&card).await.expect("POST /card").card_id;
    let noted =
        tour.client.update_card(card_id, &pairs(&[("plan", "silver"), ("tier", "2")])).await.expect("PATCH /card");
    assert_eq!(noted.metadata, pairs(&[("plan", "silver"), ("tier", "2")]));
    assert_eq!(noted.client_user_id.as_deref(), Some(user));
    let bank = tour.client.banks().await.expect("GET /banks").remove(0);
    let account = EnrollAccountRequest { client_user_id: Some(user.to_owned()), ..EnrollAccountRequest::at(&bank.id) };
    let account_id = tour.client.enroll_account(&account).await.expect("POST /account").account_id;
    let noted = tour.client.update_account(account_id, &pairs(&[("source", "app")])).await.expect("PATCH /account");
    assert_eq!(noted.metadata, pairs(&[("source", "app")]));
    let person = OnboardPersonRequest {
        first_name: "Dorothy".to_owned(),
        last_name: "Vaughan".to_owned(),
        email: "dorothy@example.com".to_owned(),
        client_user_id: Some(user.to_owned()),
        metadata: None,
    };
    let person_id = tour.client.onboard_person(&person).await.expect("POST /persons").person_id;
    let noted = tour.client.update_person(person_id, &pairs(&[("case", "7")])).await.expect("PATCH /persons");
    assert_eq!(noted.metadata, pairs(&[("case", "7")]));
    let hidden = tour.other.update_card(card_id, &pairs(&[("x", "y")])).await.expect_err("someone else's card");
    assert_eq!(hidden.status().map(|status| status.as_u16()), Some(404));

    let found = tour.client.user(user).await.expect("GET /users/{client_user_id}");
    let ids = |found: &subscriber_protocol::EndUser| {
        (
            found.cards.iter().map(|card| card.card_id).collect::<Vec<_>>(),
            found.accounts.iter().map(|account| account.account_id).collect::<Vec<_>>(),
            found.persons.iter().map(|person| person.person_id).collect::<Vec<_>>(),
        )
    };
    assert_eq!(ids(&found), (vec![card_id], vec![account_id], vec![person_id]));
    let hidden = tour.other.user(user).await.expect_err("another subscriber's user");
    assert_eq!(hidden.status().map(|status| status.as_u16()), Some(404));
    let erased = tour.client.remove_user(user).await.expect("DELETE /users/{client_user_id}");
    assert_eq!(
        (erased.card_ids, erased.account_ids, erased.person_ids),
        (vec![card_id], vec![account_id], vec![person_id])
    );
    for status in [
        tour.client.card(card_id).await.expect_err("erased").status(),
        tour.client.account(account_id).await.expect_err("erased").status(),
        tour.client.person(person_id).await.expect_err("erased").status(),
        tour.client.user(user).await.expect_err("nothing left").status(),
    ] {
        assert_eq!(status.map(|status| status.as_u16()), Some(404));
    }
}

fn pairs(items: &[(&str, &str)]) -> subscriber_protocol::Metadata {
    items.iter().map(|(key, value)| ((*key).to_owned(), (*value).to_owned())).collect()
}

async fn person_steps(tour: &mut Tour) {
    let onboarded = tour
        .client
        .onboard_person(&OnboardPersonRequest {
            first_name: "Katherine".to_owned(),
            last_name: "Johnson".to_owned(),
            email: "katherine@example.com".to_owned(),
            client_user_id: None,
            metadata: None,
        })
        .await
        .expect("POST /persons");
    assert!(onboarded.person_id > PersonId(0));
    assert_eq!(onboarded.status, PersonStatus::Onboarded);
    let person_id = onboarded.person_id;

    let person = tour.client.person(person_id).await.expect("GET /persons/{person_id}");
    assert_eq!(
        (person.person_id, person.first_name.as_str(), person.last_name.as_str()),
        (person_id, "Katherine", "Johnson")
    );
    assert_eq!(person.email, "katherine@example.com");
    assert_eq!((person.status, person.verified, person.signals.is_none()), (PersonStatus::Onboarded, false, true));
    assert_eq!(person.attempts_remaining, 3);
    assert!(recent(person.created_at, 120));
    let persons = tour.client.persons().await.expect("GET /persons");
    assert_eq!(persons, vec![person.clone()]);
    assert!(tour.other.persons().await.expect("GET /persons").is_empty());
    let hidden = tour.other.person(person_id).await.expect_err("someone else's person");
    assert_eq!(hidden.status().map(|status| status.as_u16()), Some(404));

    let questions = tour
        .client
        .authenticate_person(&AuthenticatePersonRequest {
            person_id,
            date_of_birth: "1990-08-26".to_owned(),
            address: PersonAddress {
                street: "Main St".to_owned(),
                street_no: "12".to_owned(),
                city: "Hampton".to_owned(),
                zip: "23669".to_owned(),
                country_code: "USA".to_owned(),
            },
            phone_number: Some("+17575550100".to_owned()),
            ssn_last4: Some("1234".to_owned()),
        })
        .await
        .expect("POST /persons/authenticate");
    assert_eq!(questions.person_id, person_id);
    assert_eq!(questions.questions.len(), 4);
    let minutes = (questions.expires_at - chrono::Utc::now()).num_minutes();
    assert!((8..=10).contains(&minutes), "questions expire after 10 minutes, not {minutes}");
    for question in &questions.questions {
        assert!(!question.text.is_empty());
        assert!(question.choices.iter().any(|choice| choice.text == "None of the above"), "{question:?}");
    }

    let answers = tour.client.sandbox_answers(person_id).await.expect("GET /sandbox/persons/{person_id}/answers");
    assert_eq!(answers.len(), 4);
    for answer in &answers {
        let question =
            questions.questions.iter().find(|question| question.question_id == answer.question_id).expect("asked");
        assert!(question.choices.iter().any(|choice| choice.choice_id == answer.choice_id));
    }

    let verified =
        tour.client.verify_person(&VerifyPersonRequest { person_id, answers }).await.expect("POST /persons/verify");
    assert_eq!((verified.person_id, verified.verified, verified.status), (person_id, true, PersonStatus::Verified));
    let signals = verified.signals.clone().expect("success unlocks the signals");
    assert!(signals.income.annual_amount > 0.0 && signals.income.currency.len() == 3);
    assert!((0.0..=1.0).contains(&signals.income.confidence));
    let shares: f64 = signals.spending_categories.iter().map(|category| category.share).sum();
    assert!(signals.spending_categories.is_empty() || (shares - 1.0).abs() < 0.01, "shares sum to 1, not {shares}");
    assert!(["increasing", "decreasing", "stable"].contains(&signals.spending_delta.direction.as_str()));
    assert!(signals.spending_delta.period_days > 0);

    let person = tour.client.person(person_id).await.expect("GET /persons/{person_id}");
    assert_eq!((person.status, person.verified), (PersonStatus::Verified, true));
    assert_eq!(person.signals, Some(signals));
    assert!(person.verified_at.is_some_and(|at| recent(at, 120)));
    let refused = tour.client.create_person_session(person_id, None).await.expect_err("verified already");
    assert_eq!(refused.status().map(|status| status.as_u16()), Some(409));

    // The same steps by the person on the identity page, on their own device.
    let onboarded = tour
        .client
        .onboard_person(&OnboardPersonRequest {
            first_name: "Dorothy".to_owned(),
            last_name: "Vaughan".to_owned(),
            email: "dorothy@example.com".to_owned(),
            client_user_id: None,
            metadata: None,
        })
        .await
        .expect("POST /persons");
    let person_id = onboarded.person_id;
    let session = tour.client.create_person_session(person_id, None).await.expect("POST /persons/{person_id}/session");
    assert_eq!(session.person_id, person_id);
    let form = tour.open_page(&session.url).await;
    let fields = [
        ("dateOfBirth", "1988-09-20"),
        ("street", "Main St"),
        ("streetNo", "7"),
        ("city", "Hampton"),
        ("zip", "23669"),
        ("countryCode", "USA"),
    ];
    let asked = tour.browser.submit(&form, &fields).await;
    assert_eq!(asked.status, 200, "{}", asked.body);
    let answers = tour.client.sandbox_answers(person_id).await.expect("the page's questions");
    let chosen: Vec<(String, String)> =
        answers.iter().map(|answer| (format!("q{}", answer.question_id), answer.choice_id.to_string())).collect();
    let chosen: Vec<(&str, &str)> = chosen.iter().map(|(name, value)| (name.as_str(), value.as_str())).collect();
    let done = tour.browser.submit(&asked, &chosen).await;
    assert!(done.body.contains("verified"), "{}", done.body);
    let person = tour.client.person(person_id).await.expect("GET /persons/{person_id}");
    assert_eq!(person.status, PersonStatus::Verified);
}
