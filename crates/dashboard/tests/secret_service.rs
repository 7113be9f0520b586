//! The dashboard's operations against the real embedded sandbox, with secrets in a real Secret
//! Service (run under `make test-dashboard`: gnome-keyring, unlocked, in its own D-Bus session).

mod common;

use std::sync::LazyLock;
use std::time::Duration;
use subscriber_protocol::TransactionId;

use common::{app, app_in, small_sandbox, test_secrets};
use subscriber_dashboard::Dashboard;
use subscriber_dashboard::app::DashboardOptions;
use subscriber_dashboard::sandbox::SandboxOptions;
use subscriber_dashboard::secrets::{self, Account, KeyringStatus, StoreKind};
use subscriber_dashboard::views::{ConnectionTarget, LiveEvent, LoginInput};
use subscriber_protocol::Environment;
use subscriber_testkit::{files_containing, test_card, unique_email};

static KEYRING: LazyLock<KeyringStatus> = LazyLock::new(|| {
    let status = secrets::use_os_store(StoreKind::SecretService);
    assert!(
        status.available,
        "these tests need a Secret Service (run them with `make test-dashboard`): {:?}",
        status.problem
    );
    status
});

#[test]
fn a_secret_is_saved_read_and_forgotten_in_the_secret_service() {
    LazyLock::force(&KEYRING);
    let secrets = test_secrets();
    let account = Account::new("sandbox-local", "Someone@Example.com");
    assert_eq!(secrets.load(&account).expect("readable"), None);
    secrets.save(&account, "sk_sandbox_first").expect("saved");
    assert_eq!(
        secrets.load(&Account::new("sandbox-local", "someone@example.com")).expect("read").as_deref(),
        Some("sk_sandbox_first")
    );
    secrets.save(&account, "sk_sandbox_second").expect("replaced");
    assert_eq!(secrets.load(&account).expect("read").as_deref(), Some("sk_sandbox_second"));
    let elsewhere = Account::new("https://api.example.com", "someone@example.com");
    assert_eq!(secrets.load(&elsewhere).expect("readable"), None, "secrets are kept per environment");
    secrets.forget(&account).expect("forgotten");
    assert_eq!(secrets.load(&account).expect("readable"), None);
    secrets.forget(&account).expect("forgetting twice is fine");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_up_remembers_the_secret_and_signing_back_in_uses_it() {
    let test = app(&KEYRING, small_sandbox()).await;
    let email = unique_email();
    let signup = test.dashboard.sign_up(&email).await.expect("signed up");
    assert!(signup.client_id.len() > 8 && signup.public_key.len() > 8 && signup.secret.len() > 16);
    assert!(signup.remembered, "the keyring took the secret: {:?}", signup.keyring_problem);
    assert_eq!(signup.session.email, email);
    assert_eq!(signup.session.environment, Environment::Sandbox);
    let stored = test.secrets.load(&Account::new("sandbox-local", &email)).expect("readable");
    assert_eq!(stored.as_deref(), Some(signup.secret.as_str()), "the OS keyring holds the secret");

    test.dashboard.sign_out().await;
    assert!(test.dashboard.session().await.is_none());
    let error = test.dashboard.cards().await.expect_err("signed out");
    assert_eq!(error.code, "not_signed_in");
    let status = test.dashboard.status().await;
    assert_eq!(status.remembered_email.as_deref(), Some(email.as_str()));

    let session = test
        .dashboard
        .log_in(LoginInput { email: email.to_uppercase(), api_key: None, remember: true })
        .await
        .expect("signed in with the remembered secret");
    assert_eq!(session.client_id, signup.client_id);
    assert!(session.secret_remembered);
    assert_eq!(test.dashboard.reveal_secret().await.expect("in memory"), signup.secret);

    // The secret is in the keyring only: not in settings, not in the sandbox's database.
    assert_eq!(files_containing(test.dir.path(), &signup.secret), Vec::<String>::new());
    test.dashboard.shut_down().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logging_in_without_remember_forgets_the_stored_secret() {
    let test = app(&KEYRING, small_sandbox()).await;
    let email = unique_email();
    let signup = test.dashboard.sign_up(&email).await.expect("signed up");
    test.dashboard.sign_out().await;
    let wrong = test
        .dashboard
        .log_in(LoginInput { email: email.clone(), api_key: Some("sk_sandbox_wrong".into()), remember: false })
        .await
        .expect_err("a wrong key is refused");
    assert_eq!(wrong.code, "invalid_credentials");
    assert_eq!(wrong.status, Some(401));
    assert!(wrong.request_id.is_some(), "service errors carry the request id");

    test.dashboard
        .log_in(LoginInput { email: email.clone(), api_key: Some(signup.secret.clone()), remember: false })
        .await
        .expect("the typed key works");
    assert_eq!(test.secrets.load(&Account::new("sandbox-local", &email)).expect("readable"), None);
    test.dashboard.sign_out().await;
    let error = test
        .dashboard
        .log_in(LoginInput { email, api_key: None, remember: true })
        .await
        .expect_err("nothing is remembered any more");
    assert_eq!(error.code, "no_remembered_secret");
    test.dashboard.shut_down().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rotating_replaces_the_remembered_secret_and_retires_the_old_one() {
    let test = app(&KEYRING, small_sandbox()).await;
    let email = unique_email();
    let signup = test.dashboard.sign_up(&email).await.expect("signed up");
    let rotated = test.dashboard.rotate_secret().await.expect("rotated");
    assert_ne!(rotated.secret, signup.secret);
    assert!(rotated.remembered);
    let stored = test.secrets.load(&Account::new("sandbox-local", &email)).expect("readable");
    assert_eq!(stored.as_deref(), Some(rotated.secret.as_str()));
    assert_eq!(test.dashboard.reveal_secret().await.expect("in memory"), rotated.secret);

    test.dashboard.sign_out().await;
    let old = test
        .dashboard
        .log_in(LoginInput { email: email.clone(), api_key: Some(signup.secret), remember: true })
        .await
        .expect_err("the old secret stopped working");
    assert_eq!(old.code, "invalid_credentials");
    test.dashboard
        .log_in(LoginInput { email, api_key: None, remember: true })
        .await
        .expect("the remembered (new) secret works");
    test.dashboard.shut_down().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_test_card_is_enrolled_listed_and_its_history_exported() {
    let test = app(&KEYRING, small_sandbox()).await;
    test.dashboard.sign_up(&unique_email()).await.expect("signed up");
    let test_cards = test.dashboard.test_cards().await.expect("test cards");
    assert!(test_cards.iter().any(|card| card.pan == "4242424242424242"), "{test_cards:?}");
    assert!(test.dashboard.cards().await.expect("listed").is_empty());

    let enrolled = test.dashboard.enroll_card(test_card("4242424242424242")).await.expect("enrolled");
    let cards = test.dashboard.cards().await.expect("listed");
    assert_eq!(cards.len(), 1);
    assert_eq!(cards[0].card_id, enrolled.card_id);
    assert_eq!(cards[0].last_four, 4242);
    let sent = test_card("4242424242424242");
    assert_eq!((cards[0].first_name.as_str(), cards[0].exp_month, cards[0].exp_year), ("Ada", 12, sent.exp_year));

    let bad = test.dashboard.enroll_card(test_card("4111111111111111")).await.expect_err("not a test card");
    assert_eq!((bad.code.as_str(), bad.status), ("invalid_request", Some(400)), "the service refused it");
    assert_eq!(bad.details.first().map(|detail| detail.field.as_str()), Some("pan"));
    let mistyped = test.dashboard.enroll_card(test_card("4111111111111112")).await.expect_err("fails Luhn");
    assert_eq!((mistyped.code.as_str(), mistyped.status), ("invalid_input", None), "refused before sending");
    assert_eq!(mistyped.field("pan").map(|message| !message.is_empty()), Some(true));

    // Whatever history the sandbox generates, plus three purchases made now.
    let history = test.dashboard.load_transactions(enrolled.card_id, |_| true).await.expect("transactions load");
    let mut purchases = Vec::new();
    for _ in 0..3 {
        purchases.push(test.dashboard.simulate_transaction(enrolled.card_id).await.expect("a sandbox purchase"));
    }
    let mut batches = Vec::new();
    let count = test
        .dashboard
        .load_transactions(enrolled.card_id, |batch| {
            batches.push((batch.rows.clone(), batch.loaded, batch.done));
            true
        })
        .await
        .expect("transactions load");
    assert_eq!(count, history + 3);
    let (_, loaded, done) = batches.last().expect("at least one batch");
    assert!(*done);
    assert_eq!(*loaded, count);
    assert!(history > 500, "a sandbox card comes with months of history, not {history} rows");
    assert_eq!(batches[0].0.len(), 500, "a small first page, so the table shows at once");
    assert!(batches[1..].iter().all(|(rows, _, _)| rows.len() <= 5000));
    assert!(batches[..batches.len() - 1].iter().all(|(_, _, done)| !done), "only the last batch is the end");
    let newest: Vec<TransactionId> = batches[0].0.iter().take(3).map(|row| row.transaction_id).collect();
    let mut made: Vec<TransactionId> = purchases.iter().map(|purchase| purchase.transaction_id).collect();
    made.reverse();
    assert_eq!(newest, made, "newest first");

    let path = test.dir.path().join("export.csv");
    // The rows as the table shows them, in its order; an id the app does not know is skipped.
    let ids = [made[2], TransactionId(999_999_999), made[0]];
    let exported = test.dashboard.export_csv(enrolled.card_id, &ids, &path).expect("written");
    assert_eq!(exported.rows, 2);
    let csv = std::fs::read_to_string(&path).expect("readable");
    let lines: Vec<&str> = csv.split("\r\n").filter(|line| !line.is_empty()).collect();
    assert_eq!(lines.len(), 3, "{csv}");
    assert!(lines[0].starts_with("transactionId,createdAt,pending,amount,currency,merchantName"));
    assert!(
        lines[0].contains(",counterparty,brandId,confidence,intermediaries,channel,personalFinanceCategory,"),
        "what the service found, beside the raw descriptor: {}",
        lines[0]
    );
    assert!(lines[1].starts_with(&format!("{},", made[2])));
    assert!(lines[2].starts_with(&format!("{},", made[0])));
    assert_eq!(lines[1].split(',').nth(2), Some("true"), "a purchase made now is pending");
    test.dashboard.shut_down().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_is_renewed_before_it_expires_without_asking() {
    let sandbox = SandboxOptions { token_validity_seconds: 2, ..small_sandbox() };
    let test = app(&KEYRING, sandbox).await;
    test.dashboard.sign_up(&unique_email()).await.expect("signed up");
    let first = test.dashboard.session().await.expect("signed in").token_expires_at;
    let started = std::time::Instant::now();
    let mut calls = 0;
    while started.elapsed() < Duration::from_millis(5500) {
        test.dashboard.cards().await.expect("every call succeeds across expiries");
        calls += 1;
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let logins = test.dashboard.logins().await;
    assert!((3..=5).contains(&logins), "one login per validity window, got {logins} for {calls} calls");
    assert!(test.dashboard.session().await.expect("still signed in").token_expires_at > first);
    test.dashboard.shut_down().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_service_that_does_not_answer_is_reported_as_unreachable() {
    let test = app(&KEYRING, small_sandbox()).await;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let port = listener.local_addr().expect("address").port();
    drop(listener);
    let error = test
        .dashboard
        .connect(ConnectionTarget::Remote {
            environment: Environment::Expansion,
            base_url: format!("http://127.0.0.1:{port}"),
        })
        .await
        .expect_err("nothing listens there");
    assert_eq!(error.code, "unreachable");
    let error = test
        .dashboard
        .connect(ConnectionTarget::Remote { environment: Environment::Expansion, base_url: "api.example.com".into() })
        .await
        .expect_err("not a URL");
    assert_eq!(error.code, "invalid_input");
    let info = test.dashboard.connect(ConnectionTarget::Sandbox).await.expect("the sandbox is still there");
    assert!(info.embedded && info.base_url.starts_with("http://127.0.0.1:"));
    test.dashboard.shut_down().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sandbox_keeps_its_data_across_restarts() {
    let dir = tempfile::tempdir().expect("temporary data folder");
    let data_dir = dir.path().to_path_buf();
    let secrets = test_secrets();
    let email = unique_email();
    let first = app_in(dir, &KEYRING, small_sandbox(), secrets.clone()).await;
    first.dashboard.sign_up(&email).await.expect("signed up");
    let card = first.dashboard.enroll_card(test_card("5555555555554444")).await.expect("enrolled");
    first.dashboard.shut_down().await;
    let kept = first.dir;

    // Before the app reconnects, the status already names the saved environment's remembered
    // sign-in: the sign-in screen shows while the embedded sandbox loads.
    let starting = Dashboard::new(DashboardOptions {
        data_dir: kept.path().to_path_buf(),
        secrets: secrets.clone(),
        keyring: KEYRING.clone().into(),
        sandbox: small_sandbox(),
    });
    let status = starting.status().await;
    assert!(status.connection.is_none());
    assert_eq!(status.saved_target, Some(ConnectionTarget::Sandbox));
    assert_eq!(status.remembered_email.as_deref(), Some(email.as_str()));
    drop(starting);

    let second = app_in(kept, &KEYRING, small_sandbox(), secrets).await;
    assert_eq!(second.dir.path(), data_dir);
    let status = second.dashboard.status().await;
    assert_eq!(status.saved_target, Some(ConnectionTarget::Sandbox));
    assert_eq!(status.remembered_email.as_deref(), Some(email.as_str()));
    second.dashboard.log_in(LoginInput { email, api_key: None, remember: true }).await.expect("signed back in");
    let cards = second.dashboard.cards().await.expect("listed");
    assert_eq!(cards.iter().map(|card| card.card_id).collect::<Vec<_>>(), vec![card.card_id]);
    second.dashboard.shut_down().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sandbox_purchase_arrives_on_the_live_stream() {
    let test = std::sync::Arc::new(app(&KEYRING, small_sandbox()).await);
    test.dashboard.sign_up(&unique_email()).await.expect("signed up");
    let card = test.dashboard.enroll_card(test_card("4242424242424242")).await.expect("enrolled");
    let (events, mut received) = tokio::sync::mpsc::unbounded_channel();
    let watcher = std::sync::Arc::clone(&test);
    let watch = tokio::spawn(async move {
        subscriber_dashboard::live::watch(&watcher.dashboard, card.card_id, |event| events.send(event).is_ok()).await;
    });
    let live = tokio::time::timeout(Duration::from_secs(10), received.recv()).await.expect("a status in time");
    assert_eq!(live, Some(LiveEvent::Status { live: true, message: None }));
    let created = test.dashboard.simulate_transaction(card.card_id).await.expect("a purchase");
    let arrived = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match received.recv().await {
                Some(LiveEvent::Transaction { transaction }) => return transaction,
                Some(_) => continue,
                None => panic!("the stream ended"),
            }
        }
    })
    .await
    .expect("the purchase arrives live");
    assert_eq!(arrived.transaction_id, created.transaction_id);
    watch.abort();
    test.dashboard.shut_down().await;
}
