//! Token handling against the real service: lazy login, one login per validity window however
//! many calls run at once, and one login plus one repeat when the service says
//! `token_expired`.

use std::time::{Duration, Instant};

use futures::future::join_all;
use subscriber_client::Client;

use subscriber_testkit::TestService;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_first_calls_share_one_login() {
    let service = TestService::start().await;
    let (client, _) = service.subscriber("lazy@example.com").await;
    assert_eq!(client.metrics().logins, 0, "no login before the first call");
    assert!(client.token().await.is_none());
    let calls = (0..12).map(|_| {
        let client = client.clone();
        async move { client.subscriber().await }
    });
    for result in join_all(calls).await {
        assert_eq!(result.expect("a call").email, "lazy@example.com");
    }
    assert_eq!(client.metrics().logins, 1);
    assert!(client.token().await.is_some());
}

/// With a 2-second token, calls from 6 tasks for about 7 s: the client renews before every
/// expiry (no call ever meets `token_expired`) and logs in once per validity window, not once
/// per caller.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_login_per_validity_window() {
    let service = TestService::start_with(|config| config.token_validity_seconds = 2).await;
    let (client, _) = service.subscriber("renew@example.com").await;
    let validity = Duration::from_secs(2);
    // The client renews a tenth of the validity before the end.
    let renew_after = validity.mul_f64(0.9);
    let run_for = Duration::from_secs(7);
    let started = Instant::now();
    let tasks = (0..6).map(|_| {
        let client = client.clone();
        tokio::spawn(async move {
            let mut calls = 0_u32;
            while started.elapsed() < run_for {
                client.subscriber().await.expect("every call succeeds");
                calls += 1;
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            calls
        })
    });
    let calls: u32 = join_all(tasks).await.into_iter().map(|calls| calls.expect("task")).sum();
    let elapsed = started.elapsed();
    let metrics = client.metrics();
    // A login at the start and one per renewal interval after it; the interval is stretched a
    // little by the login's own time, never shortened.
    let most = (elapsed.as_secs_f64() / renew_after.as_secs_f64()).floor() as u64 + 1;
    let least = (elapsed.as_secs_f64() / validity.as_secs_f64()).floor() as u64;
    println!(
        "{calls} calls in {elapsed:.1?} with {}-second tokens: {} logins (between {least} and {most} expected)",
        validity.as_secs(),
        metrics.logins
    );
    assert!(calls > 100, "the tasks kept calling: {calls}");
    assert_eq!(metrics.expired_token_retries, 0, "renewed before expiry, never after");
    assert!(
        (least..=most).contains(&metrics.logins),
        "{} logins in {elapsed:.1?}: expected one per window, {least} to {most}",
        metrics.logins
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_token_means_one_login_and_one_repeat() {
    let service = TestService::start_with(|config| config.token_validity_seconds = 1).await;
    let (first, account) = service.subscriber("expired@example.com").await;
    first.login().await.expect("logs in");
    let old_token = first.token().await.expect("a token");
    tokio::time::sleep(Duration::from_millis(2200)).await;

    // A token from elsewhere, expiry unknown: the service's `token_expired` is how the client
    // learns it. Many calls at once still make one login.
    let client = Client::builder()
        .base_url(service.base_url())
        .credentials(&account.email, account.secret.as_str())
        .token(old_token.expose())
        .build()
        .expect("builds");
    let calls = (0..6).map(|_| {
        let client = client.clone();
        async move { client.cards().await }
    });
    for result in join_all(calls).await {
        assert!(result.expect("repeated with a new token").is_empty());
    }
    let metrics = client.metrics();
    assert_eq!(metrics.logins, 1, "one login for all the rejected calls");
    // Calls that asked for a token while the login ran got the new one straight away; each
    // call that went out with the old one was repeated exactly once.
    assert!((1..=6).contains(&metrics.expired_token_retries), "{metrics:?}");
    assert_eq!(metrics.routes[&("GET".to_owned(), "/card".to_owned())], 6 + metrics.expired_token_retries);
    assert_ne!(client.token().await, Some(old_token.clone()));

    // Without credentials the client cannot log in: the error reaches the caller.
    let token_only = Client::from_token(service.base_url(), old_token.expose()).expect("builds");
    let error = token_only.cards().await.expect_err("expired");
    let api = error.api().expect("the service answered");
    assert_eq!((api.status.as_u16(), api.code.as_str()), (401, "token_expired"));
    assert_eq!(token_only.metrics().expired_token_retries, 0);
}

#[tokio::test]
async fn a_token_from_an_earlier_login_is_used_as_is() {
    let service = TestService::start().await;
    let (first, account) = service.subscriber("handover@example.com").await;
    first.login().await.expect("logs in");
    let token = first.token().await.expect("a token");
    assert_eq!(format!("{token:?}"), "Secret(<redacted>)");
    let client = Client::from_token(service.base_url(), token.expose()).expect("builds");
    assert_eq!(client.subscriber().await.expect("the token works").email, account.email);
    assert_eq!(client.metrics().logins, 0);
}
