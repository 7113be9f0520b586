//! How failures reach the caller: the service's error body, and inputs refused before sending.

use reqwest::StatusCode;
use subscriber_client::protocol::{
    CategoryCode, CreateLocationRequest, EnrollMerchantRequest, LocationInput, OnboardPersonRequest, Pan,
    VerifyPersonRequest,
};
use subscriber_client::{Client, Error};
use subscriber_protocol::{CardId, PersonId};

use subscriber_testkit::{TestService, test_card};

#[tokio::test]
async fn the_service_error_body_arrives_whole() {
    let service = TestService::start().await;
    let (client, _) = service.subscriber("errors@example.com").await;

    // Luhn-valid, but not a sandbox test card: only the service can know.
    let card = test_card("4111111111111111");
    let error = client.enroll_card(&card).await.expect_err("not a test card");
    let Error::Api(api) = &error else { panic!("expected the service's error, got {error:?}") };
    assert_eq!(api.status, StatusCode::BAD_REQUEST);
    assert_eq!(api.code, "invalid_request");
    assert!(api.message.contains("4242424242424242"), "the message names the test cards: {}", api.message);
    assert_eq!(api.details.len(), 1);
    assert_eq!(api.details[0].field, "pan");
    assert!(api.request_id.as_deref().is_some_and(|id| id.starts_with("req_")), "{:?}", api.request_id);
    assert_eq!(api.endpoint, "POST /card");
    let shown = error.to_string();
    assert!(shown.contains("POST /card") && shown.contains("400") && shown.contains("invalid_request"), "{shown}");
    assert!(!shown.contains("4111111111111111"), "a PAN is never echoed: {shown}");

    let missing = client.card(CardId(987_654)).await.expect_err("no such card");
    assert_eq!(missing.status(), Some(StatusCode::NOT_FOUND));
    assert_eq!(missing.code(), Some("not_found"));
    assert!(missing.request_id().is_some());
}

#[tokio::test]
async fn wrong_credentials_are_one_identical_401() {
    let service = TestService::start().await;
    let (_, account) = service.subscriber("owner@example.com").await;
    for (email, secret) in [(account.email.as_str(), "sk_test_wrong"), ("nobody@example.com", account.secret.as_str())]
    {
        let client = Client::builder().base_url(service.base_url()).credentials(email, secret).build().expect("builds");
        let error = client.cards().await.expect_err("cannot log in");
        let api = error.api().expect("the service answered");
        assert_eq!((api.status, api.code.as_str()), (StatusCode::UNAUTHORIZED, "invalid_credentials"));
        assert_eq!(api.endpoint, "POST /subscriber/login");
        assert_eq!(client.metrics().logins, 0);
    }
    // Without credentials or a token, the service says what is missing.
    let error = service.anonymous().cards().await.expect_err("no token");
    assert_eq!(error.code(), Some("unauthorized"));
}

#[tokio::test]
async fn inputs_that_cannot_succeed_are_refused_before_sending() {
    let service = TestService::start().await;
    let (client, _) = service.subscriber("checks@example.com").await;
    client.login().await.expect("logs in");
    let before = client.metrics().requests;

    let refused = |result: Result<(), Error>| match result {
        Err(Error::InvalidInput { field, .. }) => field,
        other => panic!("expected a refusal before sending, got {other:?}"),
    };
    let mut card = test_card("4242424242424241");
    assert_eq!(refused(client.enroll_card(&card).await.map(drop)), "pan");
    card.pan = Pan::new("42424242424242");
    assert_eq!(refused(client.enroll_card(&card).await.map(drop)), "pan");
    card = test_card("4242424242424242");
    card.exp_month = 13;
    assert_eq!(refused(client.enroll_card(&card).await.map(drop)), "expMonth");
    card = test_card("4242424242424242");
    card.last_name = " ".to_owned();
    assert_eq!(refused(client.enroll_card(&card).await.map(drop)), "lastName");
    assert_eq!(refused(client.card(CardId(0)).await.map(drop)), "cardId");
    assert_eq!(refused(client.card_transactions(CardId(1)).limit(0).await.map(drop)), "limit");
    assert_eq!(refused(client.card_transactions(CardId(1)).limit(5001).await.map(drop)), "limit");
    let merchant = EnrollMerchantRequest {
        name: "Shop".to_owned(),
        category: CategoryCode("58".to_owned()),
        country_code: "USA".to_owned(),
        phone_number: None,
        website: None,
    };
    assert_eq!(refused(client.enroll_merchant(&merchant).await.map(drop)), "category");
    let location = LocationInput {
        country_code: "USA".to_owned(),
        street: "Market St".to_owned(),
        street_no: "1".to_owned(),
        city: "San Francisco".to_owned(),
        zip: "94103".to_owned(),
        latitude: Some(91.0),
        longitude: Some(0.0),
    };
    assert_eq!(
        refused(client.create_location(&CreateLocationRequest::at(location.clone())).await.map(drop)),
        "location.latitude"
    );
    assert_eq!(refused(client.discover_by_position(0.0, 181.0, None).await.map(drop)), "longitude");
    assert_eq!(refused(client.discover_by_descriptor("  ").await.map(drop)), "merchid");
    let person = OnboardPersonRequest {
        first_name: "A".to_owned(),
        last_name: "B".to_owned(),
        email: "no-at-sign".to_owned(),
        client_user_id: None,
        metadata: None,
    };
    assert_eq!(refused(client.onboard_person(&person).await.map(drop)), "email");
    let verify = VerifyPersonRequest { person_id: PersonId(1), answers: Vec::new() };
    assert_eq!(refused(client.verify_person(&verify).await.map(drop)), "answers");
    assert_eq!(refused(client.signup("not an address").await.map(drop)), "email");

    assert_eq!(client.metrics().requests, before, "nothing was sent");
}
