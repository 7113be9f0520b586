//! The dashboard's part-2 workflows against the real embedded sandbox: merchant and locations,
//! a purchase at one of them, merchant lookup, the secure card-entry page and bank linking
//! (the test plays the person's browser on the service's hosted pages), identity verification
//! passed and failed into the lock, the overview, sandbox snapshots taken and put back, and what
//! is remembered between runs.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{TestApp, app, app_in, small_sandbox, test_secrets};
use subscriber_dashboard::connection::Connection;
use subscriber_dashboard::notices::{NoticeKind, NotificationSettings};
use subscriber_dashboard::performance::SalesQuery;
use subscriber_dashboard::secrets::{KeyringStatus, StoreKind};
use subscriber_dashboard::views::{ConnectionTarget, LiveEvent, LookupQuery};
use subscriber_protocol::{
    AccountId, AccountPermission, AccountStatus, Answer, AuthenticatePersonRequest, CardId, CardSessionId,
    CardSessionStatus, CategoryCode, CoordinatesSource, EnrollMerchantRequest, Environment, LocationInput, MerchantId,
    OnboardPersonRequest, PersonAddress, PersonId, PersonStatus, SandboxTransactionRequest, SnapshotId,
    VerifyPersonRequest,
};
use subscriber_testkit::Browser;
use subscriber_testkit::{test_card, unique_email};

/// These workflows need no keyring: secrets are simply not remembered.
fn no_keyring() -> KeyringStatus {
    KeyringStatus { available: false, store: StoreKind::SecretService, problem: Some("not used here".into()) }
}

async fn signed_up() -> TestApp {
    let test = app(&no_keyring(), small_sandbox()).await;
    test.dashboard.sign_up(&unique_email()).await.expect("signed up");
    test
}

/// A second client of the same subscriber, for what the person or the sandbox does outside
/// the app (the right answers of the questionnaire).
async fn helper_client(test: &TestApp) -> subscriber_client::Client {
    let status = test.dashboard.status().await;
    let base_url = status.connection.expect("connected").base_url;
    let email = status.session.expect("signed in").email;
    let secret = test.dashboard.reveal_secret().await.expect("signed in");
    // Beside the app, with the sandbox's secret of this launch, as the app's own client sends it.
    let connection = Connection {
        target: ConnectionTarget::Sandbox,
        base_url,
        environment: Environment::Sandbox,
        guard: Some(test.guard.clone()),
    };
    connection.client(&email, &secret).expect("a client")
}

fn location(street_no: &str, street: &str, city: &str, zip: &str) -> LocationInput {
    LocationInput {
        country_code: "USA".into(),
        street: street.into(),
        street_no: street_no.into(),
        city: city.into(),
        zip: zip.into(),
        latitude: None,
        longitude: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_merchant_with_two_locations_sees_a_purchase_with_the_card_last_four_and_is_found_by_lookup() {
    let test = Arc::new(signed_up().await);
    let dashboard = &test.dashboard;
    let card = dashboard.enroll_card(test_card("4242424242424242")).await.expect("a card");
    assert_eq!(dashboard.merchant().await.expect("readable"), None, "no merchant yet");

    let categories = dashboard.search_categories("eating pla").await.expect("categories");
    assert_eq!(categories.first().map(|category| category.code.as_str()), Some("5812"), "{categories:?}");
    assert_eq!(dashboard.search_categories("5812").await.expect("categories")[0].code, "5812");

    let countries = dashboard.countries();
    assert!(countries.len() > 200, "every ISO 3166-1 country: {}", countries.len());
    let germany = countries.iter().find(|country| country.code == "DEU").expect("Germany is offered");
    assert_eq!(germany.name, "Germany");

    let mut form = EnrollMerchantRequest {
        name: "  ".into(),
        category: CategoryCode("58".into()),
        country_code: "XX".into(),
        phone_number: None,
        website: None,
    };
    let problems: Vec<String> = dashboard.check_merchant(&form).into_iter().map(|error| error.field).collect();
    assert_eq!(problems, ["name", "category", "countryCode"], "every field error at once, as the service names them");
    form = EnrollMerchantRequest {
        name: "Dashboard Diner".into(),
        category: CategoryCode("5812".into()),
        country_code: "USA".into(),
        ..form
    };
    assert!(dashboard.check_merchant(&form).is_empty());
    let merchant = dashboard.enroll_merchant(form).await.expect("enrolled");
    assert!(merchant.merchant_id > MerchantId(0));
    assert_eq!(merchant.category, "5812 Eating Places, Restaurants");

    let half = LocationInput { latitude: Some(37.77), ..location("1", "Market St", "San Francisco", "94103") };
    let problems: Vec<String> = dashboard.check_location(&half).into_iter().map(|error| error.field).collect();
    assert_eq!(problems, ["location.longitude"], "coordinates come in pairs");
    let derived =
        dashboard.add_location(location("1022", "Valencia St", "San Francisco", "94110")).await.expect("added");
    assert_eq!(derived.coordinates_source, CoordinatesSource::Derived, "the city gives the coordinates");
    assert!(derived.latitude.is_some() && derived.longitude.is_some());
    let provided = dashboard
        .add_location(LocationInput {
            latitude: Some(40.7590),
            longitude: Some(-73.9845),
            ..location("312", "W 46th St", "New York", "10036")
        })
        .await
        .expect("added");
    assert_eq!(provided.coordinates_source, CoordinatesSource::Provided);
    let merchant = dashboard.merchant().await.expect("readable").expect("enrolled");
    assert_eq!(merchant.locations.len(), 2);

    // A purchase at the first location, seen live and in the table with the card's last four.
    let (events, mut received) = tokio::sync::mpsc::unbounded_channel();
    let watcher = Arc::clone(&test);
    let merchant_id = merchant.merchant_id;
    let watch = tokio::spawn(async move {
        subscriber_dashboard::live::watch_merchant(&watcher.dashboard, merchant_id, |event| events.send(event).is_ok())
            .await;
    });
    let live = tokio::time::timeout(Duration::from_secs(10), received.recv()).await.expect("a status in time");
    assert_eq!(live, Some(LiveEvent::Status { live: true, message: None }));
    let request = SandboxTransactionRequest {
        card_id: Some(card.card_id),
        location_id: Some(derived.location_id),
        amount: Some(12.5),
        merchant_name: None,
        created_at: None,
        declined: None,
    };
    let purchase = dashboard.simulate_purchase(request).await.expect("a sandbox purchase");
    let arrived = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            if let Some(LiveEvent::Transaction { transaction }) = received.recv().await {
                return transaction;
            }
        }
    })
    .await
    .expect("the purchase arrives live");
    assert_eq!(
        (arrived.transaction_id, arrived.last_four, arrived.location_id),
        (purchase.transaction_id, 4242, derived.location_id)
    );
    watch.abort();

    let mut batches = Vec::new();
    let count = dashboard
        .load_merchant_transactions(|batch| {
            batches.push(batch);
            true
        })
        .await
        .expect("loaded");
    assert!(count >= 1);
    let row = batches.iter().flat_map(|batch| &batch.rows).find(|row| row.transaction_id == purchase.transaction_id);
    let row = row.expect("the purchase is listed");
    assert_eq!((row.last_four, row.location_id, row.amount), (4242, derived.location_id, 12.5));
    assert!(batches.last().expect("a batch").done);

    let path = test.dir.path().join("merchant.csv");
    let exported = dashboard.export_merchant_csv(&[purchase.transaction_id], &path).expect("written");
    assert_eq!(exported.rows, 1);
    let csv = std::fs::read_to_string(&path).expect("readable");
    assert!(csv.starts_with("transactionId,createdAt,pending,amount,currency,locationId,lastFour"), "{csv}");
    assert!(csv.contains(&format!(",{},4242,", derived.location_id)), "{csv}");

    // Lookup: the merchant by its location's descriptor, a published sandbox descriptor, an
    // address and a position.
    let descriptor = merchant.locations.iter().find(|l| l.location_id == derived.location_id).expect("listed");
    let found = dashboard
        .lookup(LookupQuery::Descriptor { descriptor: descriptor.descriptor.clone() })
        .await
        .expect("looked up");
    let best = found.result.merchants.first().expect("a match");
    assert_eq!((best.dba_name.as_str(), best.location_id), ("Dashboard Diner", derived.location_id));
    let heron = dashboard
        .lookup(LookupQuery::Descriptor { descriptor: "SQ *BLUE HERON COFFEE".into() })
        .await
        .expect("looked up");
    assert_eq!(heron.result.merchants[0].dba_name, "Blue Heron Coffee");
    assert!(heron.result.merchants[0].conf_score > 50.0);
    let by_address = dashboard
        .lookup(LookupQuery::Address {
            street: "Valencia St".into(),
            street_no: "1022".into(),
            city: String::new(),
            zip: "94110".into(),
            country_code: String::new(),
        })
        .await
        .expect("looked up");
    assert!(by_address.result.merchants.iter().any(|found| found.dba_name == "Blue Heron Coffee"));
    let nearby = dashboard
        .lookup(LookupQuery::Position { latitude: 37.7557, longitude: -122.4211, radius: Some(200.0) })
        .await
        .expect("looked up");
    assert!(nearby.result.merchants.iter().any(|found| found.dba_name == "Blue Heron Coffee"));
    let recent: Vec<String> = dashboard.recent_lookups().await.into_iter().map(|lookup| lookup.label).collect();
    assert_eq!(recent[0], "37.75570, -122.42110 (200 m)", "newest first");
    assert_eq!(recent.len(), 4);

    // The sales of the last week per location: the purchase at the first, none at the second.
    let today = chrono::Utc::now().date_naive();
    let week = SalesQuery { from: Some(today - chrono::Duration::days(6)), to: None };
    let sales = dashboard.merchant_sales(week).await.expect("sales");
    assert_eq!((sales.period.from, sales.period.to, sales.period.days()), (week.from.expect("a day"), today, 7));
    let at = |location_id| sales.locations.iter().find(|place| place.location_id == location_id).expect("listed");
    assert_eq!((at(derived.location_id).figures.sales, at(derived.location_id).figures.count), (12.5, 1));
    assert_eq!(at(provided.location_id).figures.count, 0, "a location without a sale is listed too");
    assert_eq!(sales.total.trend.len(), 7);
    assert_eq!(sales.total.trend[6].sales, 12.5, "today's bar");

    // The home: the money of the month, the merchant's sales, nothing that needs attention.
    let overview = dashboard.overview().await.expect("overview");
    assert_eq!(overview.cards, 1);
    assert_eq!(overview.period.to, today);
    assert!(overview.money.money_out.current >= 12.5, "the purchase was made with the subscriber's card");
    assert_eq!(overview.money.sales.current, 12.5);
    let glance = overview.merchant.expect("a merchant");
    assert_eq!((glance.merchant_id, glance.locations, glance.sales.total.count), (merchant_id, 2, 1));
    assert!(overview.attention.is_empty(), "{:?}", overview.attention);
    assert_eq!(overview.recent_transactions[0].transaction_id, purchase.transaction_id, "newest first");
    assert_eq!(overview.usage, None, "usage is read only when established");

    dashboard.sign_out().await;
    assert!(dashboard.recent_lookups().await.is_empty(), "lookups are kept for the session only");
    dashboard.shut_down().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_card_typed_on_the_secure_page_is_enrolled_and_listed() {
    let test = signed_up().await;
    let page = test.dashboard.start_card_session().await.expect("a secure page");
    let base_url = test.dashboard.status().await.connection.expect("connected").base_url;
    assert!(page.url.starts_with(&format!("{base_url}/secure/card")), "{}", page.url);
    assert!(test.dashboard.check_own_url(&page.url).await.is_ok());
    assert_eq!(
        test.dashboard.check_own_url("https://evil.example/secure/card").await.expect_err("foreign").code,
        "foreign_url"
    );

    let mut seen = Vec::new();
    let waiting = test.dashboard.wait_for_card_session(CardSessionId(page.id.get()), |session| {
        seen.push(session.status);
        true
    });
    let person = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let mut browser = Browser::default();
        let form = browser.get(&page.url).await;
        assert_eq!(form.status, 200, "{}", form.body);
        let next_year =
            (chrono::Utc::now().date_naive().format("%Y").to_string().parse::<i32>().expect("a year") + 2).to_string();
        let fields = [
            ("pan", "6011 1111 1111 1117"),
            ("firstName", "Dorothy"),
            ("lastName", "Vaughan"),
            ("expMonth", "7"),
            ("expYear", next_year.as_str()),
            ("countryCode", "USA"),
        ];
        let done = browser.submit(&form, &fields).await;
        assert_eq!(done.status, 200, "{}", done.body);
    };
    let (outcome, ()) = tokio::join!(waiting, person);
    let outcome = outcome.expect("the page completed");
    assert_eq!(outcome.status, CardSessionStatus::Completed);
    assert_eq!(seen.first(), Some(&CardSessionStatus::Pending), "the wait saw the page open first");
    let cards = test.dashboard.cards().await.expect("listed");
    let card = cards.iter().find(|card| Some(card.card_id) == outcome.card_id).expect("the new card is listed");
    assert_eq!((card.last_four, card.first_name.as_str()), (1117, "Dorothy"));
    test.dashboard.shut_down().await;
}

/// A request written by hand on a TCP connection, as a page that reached the sandbox through
/// DNS rebinding sends it (its own name in `Host`); the status line and the body come back.
async fn raw_request(base_url: &str, path: &str, host: &str, headers: &[(&str, &str)]) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let address = base_url.strip_prefix("http://").expect("an http address");
    let mut stream = tokio::net::TcpStream::connect(address).await.expect("connected");
    let mut request = format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).await.expect("sent");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.expect("answered");
    let status = answer.split(' ').nth(1).and_then(|code| code.parse().ok()).expect("a status line");
    let body = answer.split_once("\r\n\r\n").map(|(_, body)| body.to_owned()).unwrap_or_default();
    (status, body)
}

/// The contract's error body of a refusal: `forbidden`, with the request's id.
fn assert_refused(status: u16, body: &str) {
    assert_eq!(status, 403, "{body}");
    // A chunked body may frame the JSON: read from its first brace to its last.
    let json = &body[body.find('{').expect("JSON")..=body.rfind('}').expect("JSON")];
    let error: serde_json::Value = serde_json::from_str(json).expect("the contract's JSON");
    assert_eq!(error["code"], "forbidden", "{error}");
    assert!(error["requestId"].as_str().is_some_and(|id| id.starts_with("req_")), "{error}");
    assert!(error["error"].as_str().is_some_and(|message| message.contains("desktop app")), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_embedded_sandbox_answers_the_app_alone_and_the_person_on_its_hosted_pages() {
    let test = signed_up().await;
    // The app's own calls went through: signed up above, and now a page opened for a card.
    assert!(test.dashboard.cards().await.expect("listed").is_empty());
    let page = test.dashboard.start_card_session().await.expect("a secure page");
    let base_url = test.dashboard.status().await.connection.expect("connected").base_url;
    let port = base_url.rsplit(':').next().expect("a port").to_owned();
    let secret = test.guard.secret().to_owned();
    let plain = reqwest::Client::new();

    // Another program, or a page on this machine, without the secret: refused, and signing up
    // there creates nothing.
    let answer = plain.get(format!("{base_url}/subscriber")).send().await.expect("answered");
    let request_id = answer.headers()["x-request-id"].to_str().expect("text").to_owned();
    let (status, body) = (answer.status().as_u16(), answer.text().await.expect("a body"));
    assert_refused(status, &body);
    assert!(body.contains(&request_id), "the body names the request of the header: {body}");
    let signup = plain
        .post(format!("{base_url}/subscriber/signup"))
        .json(&serde_json::json!({ "email": "page@example.com" }))
        .send()
        .await
        .expect("answered");
    assert_refused(signup.status().as_u16(), &signup.text().await.expect("a body"));
    for wrong in ["", "x", &"0".repeat(64), &format!("{secret}0")] {
        let (status, body) =
            raw_request(&base_url, "/subscriber", &format!("127.0.0.1:{port}"), &[("Subscriber-Local-Secret", wrong)])
                .await;
        assert_refused(status, &body);
    }

    // A page that rebound its own name to 127.0.0.1 names itself in Host: refused even with the
    // secret, and on the hosted pages too.
    let with_secret = [("Subscriber-Local-Secret", secret.as_str())];
    for host in [format!("rebound.example:{port}"), "rebound.example".to_owned(), format!("127.0.0.1:{port}.evil")] {
        let (status, body) = raw_request(&base_url, "/subscriber", &host, &with_secret).await;
        assert_refused(status, &body);
        let path = page.url.strip_prefix(&base_url).expect("the service's page");
        let (status, body) = raw_request(&base_url, path, &host, &[]).await;
        assert_refused(status, &body);
        let (status, body) = raw_request(&base_url, "/healthz", &host, &with_secret).await;
        assert_refused(status, &body);
    }

    // The secret and the sandbox's own name: through to the API (which wants a token).
    for host in [format!("127.0.0.1:{port}"), format!("localhost:{port}")] {
        let (status, body) = raw_request(&base_url, "/subscriber", &host, &with_secret).await;
        assert_eq!(status, 401, "{host}: {body}");
        assert!(body.contains("\"unauthorized\""), "{body}");
    }

    // The person's browser opens the hosted page with its one-time link and no secret.
    let form = plain.get(&page.url).send().await.expect("answered");
    assert_eq!(form.status(), 200);
    assert!(form.text().await.expect("a page").contains("<form"), "the card-entry form");
    let stylesheet = plain.get(format!("{base_url}/secure/assets/hosted.css")).send().await.expect("answered");
    assert_eq!(stylesheet.status(), 200);
    test.dashboard.shut_down().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bank_account_links_at_the_sandbox_bank_and_a_locked_bank_user_fails_it() {
    let test = signed_up().await;
    let banks = test.dashboard.banks().await.expect("banks");
    assert!(banks.iter().any(|bank| bank.id == "northwind"), "{banks:?}");

    let page = test.dashboard.link_account("northwind").await.expect("a bank page");
    let waiting = test.dashboard.wait_for_account(AccountId(page.id.get()), |_| true);
    let person = async {
        let mut browser = Browser::default();
        let login = browser.get(&page.url).await;
        let consent = browser.submit(&login, &[("username", "user_good"), ("password", "pass_good")]).await;
        assert_eq!(consent.status, 200, "{}", consent.body);
        let outcome = browser.submit(&consent, &[("decision", "allow")]).await;
        assert_eq!(outcome.status, 200, "{}", outcome.body);
    };
    let (linked, ()) = tokio::join!(waiting, person);
    let linked = linked.expect("linked");
    assert_eq!(linked.status, AccountStatus::Linked);
    assert!(linked.permissions.contains(&AccountPermission::Transactions), "{:?}", linked.permissions);
    let transactions = test.dashboard.account_transactions(linked.account_id).await.expect("granted");
    assert!(!transactions.is_empty());

    let page = test.dashboard.link_account("Harbor Credit Union").await.expect("a bank page");
    let waiting = test.dashboard.wait_for_account(AccountId(page.id.get()), |_| true);
    let person = async {
        let mut browser = Browser::default();
        let login = browser.get(&page.url).await;
        browser.submit(&login, &[("username", "user_locked"), ("password", "anything")]).await;
    };
    let (failed, ()) = tokio::join!(waiting, person);
    let failed = failed.expect("an outcome");
    assert_eq!(failed.status, AccountStatus::Failed);
    assert!(failed.failure_reason.is_some());
    let refused = test.dashboard.account_transactions(failed.account_id).await.expect_err("nothing granted");
    assert_eq!(refused.status, Some(403));

    let accounts = test.dashboard.accounts().await.expect("listed");
    assert_eq!(
        accounts.iter().map(|account| account.account_id).collect::<Vec<_>>(),
        [failed.account_id, linked.account_id]
    );
    let unknown = test.dashboard.link_account("Bank of Nowhere").await.expect_err("unknown bank");
    assert_eq!(unknown.details[0].field, "bank");
    test.dashboard.shut_down().await;
}

fn information(person_id: PersonId) -> AuthenticatePersonRequest {
    AuthenticatePersonRequest {
        person_id,
        date_of_birth: "1984-06-02".into(),
        address: PersonAddress {
            street: "Valencia St".into(),
            street_no: "1022".into(),
            city: "San Francisco".into(),
            zip: "94110".into(),
            country_code: "USA".into(),
        },
        phone_number: Some("+1 415 555 0100".into()),
        ssn_last4: Some("1234".into()),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_is_verified_with_the_right_answers_and_locked_after_three_wrong_ones() {
    let test = signed_up().await;
    let helper = helper_client(&test).await;
    let person = test
        .dashboard
        .onboard_person(OnboardPersonRequest {
            first_name: "Grace".into(),
            last_name: "Hopper".into(),
            email: "grace@example.com".into(),
            client_user_id: None,
            metadata: None,
        })
        .await
        .expect("onboarded");
    assert_eq!(person.status, PersonStatus::Onboarded);

    let mut wrong = information(person.person_id);
    wrong.date_of_birth = "1990-02-30".into();
    wrong.address.zip = "94110!".into();
    wrong.phone_number = Some("12".into());
    let fields: Vec<String> = test.dashboard.check_personal_info(&wrong).into_iter().map(|error| error.field).collect();
    assert_eq!(fields, ["dateOfBirth", "address.zip", "phoneNumber"], "as the service names them");
    assert!(test.dashboard.check_personal_info(&information(person.person_id)).is_empty());

    let questions = test.dashboard.authenticate_person(information(person.person_id)).await.expect("questions");
    assert_eq!(questions.questions.len(), 4);
    let answers = helper.sandbox_answers(person.person_id).await.expect("the sandbox's answers");
    let verified = test
        .dashboard
        .verify_person(VerifyPersonRequest { person_id: person.person_id, answers })
        .await
        .expect("verified");
    assert!(verified.verified);
    let signals = verified.signals.expect("signals");
    let shares: f64 = signals.spending_categories.iter().map(|category| category.share).sum();
    assert!((shares - 1.0).abs() < 0.01, "{shares}");

    let other = test
        .dashboard
        .onboard_person(OnboardPersonRequest {
            first_name: "Alan".into(),
            last_name: "Turing".into(),
            email: "alan@example.com".into(),
            client_user_id: None,
            metadata: None,
        })
        .await
        .expect("onboarded");
    let mut last = None;
    for attempt in 1..=3 {
        let issued = test.dashboard.authenticate_person(information(other.person_id)).await.expect("questions");
        let right = helper.sandbox_answers(other.person_id).await.expect("answers");
        // Every answer changed to another choice of its question: none right.
        let answers: Vec<Answer> = right
            .iter()
            .map(|answer| {
                let question = issued.questions.iter().find(|q| q.question_id == answer.question_id).expect("asked");
                let other = question.choices.iter().find(|c| c.choice_id != answer.choice_id).expect("a choice");
                Answer { question_id: answer.question_id, choice_id: other.choice_id }
            })
            .collect();
        let outcome = test
            .dashboard
            .verify_person(VerifyPersonRequest { person_id: other.person_id, answers })
            .await
            .expect("answered");
        assert!(!outcome.verified);
        assert_eq!(outcome.attempts_remaining, 3 - attempt);
        last = Some(outcome);
    }
    let locked = last.expect("three attempts");
    assert_eq!(locked.status, PersonStatus::Locked);
    assert!(locked.locked_until.is_some_and(|until| until > chrono::Utc::now() + chrono::Duration::hours(23)));
    let refused = test.dashboard.authenticate_person(information(other.person_id)).await.expect_err("locked");
    assert_eq!((refused.status, refused.code.as_str()), (Some(403), "forbidden"));

    let persons = test.dashboard.persons().await.expect("listed");
    assert_eq!(
        persons.iter().map(|person| person.status).collect::<Vec<_>>(),
        [PersonStatus::Locked, PersonStatus::Verified]
    );
    test.dashboard.shut_down().await;
}

/// Developers › Sandbox: a snapshot taken, the sandbox changed, the snapshot put back. The card
/// and the purchase made since are gone, the snapshot stays to be restored again, and the rows
/// the app kept for export of what was loaded since go, as after a reset.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_snapshot_puts_the_sandbox_back_and_forgets_the_rows_loaded_since() {
    let test = signed_up().await;
    let dashboard = &test.dashboard;
    let kept = dashboard.enroll_card(test_card("4242424242424242")).await.expect("a card");
    // A sandbox card comes with a history: the snapshot holds all of it.
    let history = dashboard.load_transactions(kept.card_id, |_| true).await.expect("loaded");
    assert_eq!(dashboard.sandbox_snapshots().await.expect("listed"), [], "none yet");

    let snapshot = dashboard.take_sandbox_snapshot("One card".into()).await.expect("taken");
    assert_eq!((snapshot.name.as_str(), snapshot.cards, snapshot.transactions), ("One card", 1, u64::from(history)));
    assert!(snapshot.bytes > 0, "{snapshot:?}");
    let refused = dashboard.take_sandbox_snapshot("  ".into()).await.expect_err("a name is needed");
    assert_eq!(refused.details.first().map(|detail| detail.field.as_str()), Some("name"), "{refused:?}");

    // Made since: a second card, and a purchase on the first that its table loaded (and could
    // export).
    let added = dashboard.enroll_card(test_card("5555555555554444")).await.expect("a second card");
    let since = dashboard.simulate_transaction(kept.card_id).await.expect("a purchase");
    assert_eq!(dashboard.load_transactions(kept.card_id, |_| true).await.expect("loaded"), history + 1);
    let path = test.dir.path().join("before.csv");
    assert_eq!(dashboard.export_csv(kept.card_id, &[since.transaction_id], &path).expect("written").rows, 1);

    let restored = dashboard.restore_sandbox_snapshot(snapshot.snapshot_id).await.expect("restored");
    assert_eq!(restored.snapshot.snapshot_id, snapshot.snapshot_id);
    let cards: Vec<CardId> = dashboard.cards().await.expect("listed").iter().map(|card| card.card_id).collect();
    assert_eq!(cards, [kept.card_id], "the card enrolled since ({}) is gone", added.card_id);
    let path = test.dir.path().join("after.csv");
    let exported = dashboard.export_csv(kept.card_id, &[since.transaction_id], &path).expect("written");
    assert_eq!(exported.rows, 0, "the rows loaded before the restore are not exported after it");
    let reloaded = dashboard.load_transactions(kept.card_id, |_| true).await.expect("loaded");
    assert_eq!(reloaded, history, "the purchase made since is gone");

    let newer = dashboard.take_sandbox_snapshot("After the restore".into()).await.expect("taken");
    let listed: Vec<SnapshotId> =
        dashboard.sandbox_snapshots().await.expect("listed").iter().map(|taken| taken.snapshot_id).collect();
    assert_eq!(listed, [newer.snapshot_id, snapshot.snapshot_id], "newest first, the restored one kept");
    let deleted = dashboard.delete_sandbox_snapshot(snapshot.snapshot_id).await.expect("deleted");
    assert_eq!(deleted.snapshot_id, snapshot.snapshot_id);
    let gone = dashboard.restore_sandbox_snapshot(snapshot.snapshot_id).await.expect_err("deleted");
    assert_eq!(gone.status, Some(404), "{gone:?}");
    dashboard.shut_down().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_last_screen_and_the_notification_settings_are_remembered_across_runs() {
    let dir = tempfile::tempdir().expect("temporary data folder");
    let first = app_in(dir, &no_keyring(), small_sandbox(), test_secrets()).await;
    first.dashboard.remember_screen("card/12").await.expect("kept");
    first.dashboard.remember_screen("merchant").await.expect("kept");
    let refused = first.dashboard.remember_screen("https://example.com").await.expect_err("not a screen");
    assert_eq!(refused.details[0].field, "screen");
    let quiet = NotificationSettings { sales: false, identity: false, ..NotificationSettings::default() };
    first.dashboard.set_notification_settings(quiet).await.expect("kept");
    first.dashboard.shut_down().await;

    let second = app_in(first.dir, &no_keyring(), small_sandbox(), test_secrets()).await;
    assert_eq!(second.dashboard.status().await.last_screen.as_deref(), Some("merchant"));
    assert_eq!(second.dashboard.notification_settings().await, quiet);
    second.dashboard.shut_down().await;
}

/// The Developers area's API version: a dashboard signup speaks (and pins) the newest version;
/// moving the pin changes what other integrations get without a header, never the dashboard.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pin_is_shown_with_every_version_and_moves() {
    use subscriber_protocol::versions::ApiVersion;
    let test = signed_up().await;
    let dashboard = &test.dashboard;
    let versions = dashboard.api_versions().await.expect("the versions");
    assert_eq!((versions.pinned, versions.spoken), (ApiVersion::LATEST, ApiVersion::LATEST));
    assert_eq!(versions.versions.len(), ApiVersion::ALL.len());
    assert!(versions.versions.iter().skip(1).all(|info| !info.changes.is_empty()), "{versions:?}");

    let moved = dashboard.set_api_version(ApiVersion::INITIAL).await.expect("pinned");
    assert_eq!(moved.pinned, ApiVersion::INITIAL);
    assert_eq!(dashboard.api_versions().await.expect("the versions").pinned, ApiVersion::INITIAL);
    // The dashboard still reads the newest shapes: its own requests name their version.
    let webhook = dashboard
        .create_webhook(subscriber_protocol::CreateWebhookRequest {
            url: "http://127.0.0.1:9/hooks".into(),
            events: vec!["*".into()],
            description: None,
        })
        .await
        .expect("an endpoint");
    assert_eq!(webhook.api_version, ApiVersion::LATEST);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notices_tell_what_happened_since_the_last_look_as_the_settings_want() {
    let test = signed_up().await;
    let dashboard = &test.dashboard;
    let card = dashboard.enroll_card(test_card("4242424242424242")).await.expect("a card");
    // The first look only notes where things stand: the enrollment is not news.
    assert_eq!(dashboard.notices().await.expect("a look"), []);

    dashboard.simulate_transaction(card.card_id).await.expect("a purchase");
    let notices = dashboard.notices().await.expect("a look");
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert_eq!(notices[0].kind, NoticeKind::Purchase);
    assert_eq!(notices[0].title, "A purchase on your card •••• 4242");
    assert_eq!(notices[0].route, format!("card/{}", card.card_id));
    assert_eq!(dashboard.notices().await.expect("a look"), [], "told once");

    let no_purchases = NotificationSettings { purchases: false, ..NotificationSettings::default() };
    dashboard.set_notification_settings(no_purchases).await.expect("kept");
    dashboard.simulate_transaction(card.card_id).await.expect("a purchase");
    assert_eq!(dashboard.notices().await.expect("a look"), [], "purchases switched off");
    dashboard.shut_down().await;
}

/// Lookup's batch tool: a statement's CSV of 150 rows (two calls of the service) comes back with
/// what the service found beside each row, the same as one by one; a row the rules refuse is
/// kept with why and not sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_csv_of_descriptors_is_enriched_row_by_row_as_the_service_answers() {
    let test = signed_up().await;
    let mut text = String::from("Date,Description,Amount,MCC\n");
    let descriptors = ["SQ *BLUE HERON COFFEE", "TST* GOLDEN LANTERN", "lakeshore market #0042 chicago il"];
    for row in 0..150 {
        let descriptor = descriptors[row % descriptors.len()];
        text.push_str(&format!("2026-11-{:02},\"{descriptor}\",{}.25,\n", row % 28 + 1, row + 1));
    }
    text.push_str("2026-11-30,***,3.00,\n");
    let path = test.dir.path().join("statement-enriched.csv");
    let result = test.dashboard.enrich_csv(&text, &path).await.expect("enriched");
    assert_eq!((result.rows, result.refused), (151, 1), "{result:?}");
    assert!(result.matched >= 150 && result.high_or_better >= 100, "{result:?}");
    let written = std::fs::read_to_string(&path).expect("written");
    let lines: Vec<&str> = written.split("\r\n").filter(|line| !line.is_empty()).collect();
    assert_eq!(lines.len(), 152, "a header and every row");
    assert!(
        lines[0].starts_with("Date,Description,Amount,MCC,counterparty,brandId,confidence,score"),
        "the file's own columns, then what was found: {}",
        lines[0]
    );
    assert!(lines[1].contains(",Blue Heron Coffee,brd_"), "{}", lines[1]);
    assert!(
        lines[151].ends_with("descriptor: must contain letters or digits: what the statement prints"),
        "{}",
        lines[151]
    );

    let alone = helper_client(&test)
        .await
        .enrich_transactions(&subscriber_protocol::EnrichRequest {
            transactions: vec![subscriber_protocol::EnrichInput {
                id: "a".into(),
                descriptor: descriptors[1].into(),
                date: Some("2026-11-02".into()),
                amount: Some(2.25),
                ..Default::default()
            }],
        })
        .await
        .expect("one alone");
    let brand = alone[0].enrichment.counterparty.as_ref().map(|party| party.brand_id.clone()).unwrap_or_default();
    assert!(lines[2].contains(&format!(",{brand},")), "the same as one by one: {} / {brand}", lines[2]);
    test.dashboard.shut_down().await;
}
